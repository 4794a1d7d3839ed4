"""What the docs promise an outsider, checked as one would check it from the docs alone:
docs/server.md ("Protocol in short", "Seats and tokens", "At the table", "Security",
"Limits and their defaults"), docs/protocol.schema.json, README.md. Each test names the
statement it holds the server (or the docs) to."""

from __future__ import annotations

import contextlib
import re
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from friends_support import client_for, create
from schema_support import validator

from binokel.ai import LEVELS
from binokel.server.limits import Limits

ROOT = Path(__file__).resolve().parent.parent
SERVER_DOC = (ROOT / "docs" / "server.md").read_text("utf-8")


def section(title: str, text: str = SERVER_DOC) -> str:
    """The text of the section headed ``title`` (up to the next heading of its level or above)."""
    start = re.search(rf"^(#+) {re.escape(title)}\n", text, re.MULTILINE)
    assert start is not None, title
    level = len(start.group(1))
    end = re.compile(rf"^#{{1,{level}}} ", re.MULTILINE).search(text, start.end())
    return text[start.end():end.start() if end else len(text)]


# ---------------------------------------------------------------------- the websocket

def test_a_ping_is_answered_by_a_pong_the_schema_names(tmp_path: Path) -> None:
    """"the client sends ... `ping`", and every message of the server is a ServerMessage of
    docs/protocol.schema.json: the answer to the page's heartbeat too."""
    with client_for(tmp_path / "games.db") as client:
        game = create(client, "standard", ["me", "easy", "easy"], seed=1)
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            ws.send_json({"type": "hello", "token": game["token"]})
            for text in ('{"type":"ping"}', '{"type": "ping", "seat": 0}'):  # as the page spells it, and not
                ws.send_text(text)
                while (message := ws.receive_json())["type"] != "pong":
                    pass
                assert message == {"type": "pong"}
                validator("ServerMessage").validate(message)
    assert "`pong`" in section("Protocol in short")


# ---------------------------------------------------------------------- HTTP bodies

@pytest.mark.parametrize(("path", "body"), [
    ("/api/invite", {"code": "AAAA-BBBB", "seat": 1}),
    ("/api/my-games", {"tokens": [], "all": True}),
])
def test_every_http_body_refuses_a_key_it_does_not_have(tmp_path: Path, path: str, body: dict[str, Any]) -> None:
    """"Websocket messages ignore keys they do not have; HTTP bodies refuse them" (Protocol in
    short): ``unknown_field`` naming the key, as the new-game and join bodies do."""
    with client_for(tmp_path / "games.db") as client:
        response = client.post(path, json=body)
    assert response.status_code == 400, response.text
    unknown = next(key for key in body if key not in ("code", "tokens"))
    assert response.json()["code"] == "unknown_field" and repr(unknown) in response.json()["params"]["name"]
    validator("ErrorAnswer").validate(response.json())


# ---------------------------------------------------------------------- the docs themselves

def test_the_seat_kinds_the_docs_name_are_the_servers() -> None:
    """"`"me"` (the creator, at most one), `"open"` (a friend) or a bot level (...)": every level
    a table takes (``binokel.ai.LEVELS``), no other."""
    listed = re.search(r"or a bot level \(([^)]*)\)", section("Seats and tokens"))
    assert listed is not None
    assert re.findall(r"`(\w+)`", listed.group(1)) == list(LEVELS)


UNITS = {"KiB": 1024, "MiB": 1024 * 1024, "s": 1, "characters": 1, "lines": 1}


def documented_default(text: str) -> list[float]:
    """The numbers of a default as the table writes it: ``16 KiB``, ``20/s, bursts of 60``, ``10 s``."""
    return [float(number) * UNITS.get(unit, 1)
            for number, unit in re.findall(r"(\d+(?:\.\d+)?)\s*(KiB|MiB|s\b|characters|lines)?", text)]


def test_the_limits_table_gives_every_default() -> None:
    """"All are settings of `Limits` ...": each row's default is the setting's (the numbers of
    a row with two settings in order), not only its name."""
    rows = [line.split("|")[1:3] for line in section("Limits and their defaults").splitlines()
            if line.startswith("| `")]
    defaults = Limits()
    told: set[str] = set()
    for names, default in rows:
        settings = re.findall(r"`(\w+)`", names)
        told.update(settings)
        values = [getattr(defaults, name) for name in settings]
        if all(isinstance(value, (int, float)) and not isinstance(value, bool) for value in values):
            assert documented_default(default) == [float(v) for v in values], (settings, default)
    assert defaults.pool == "process" and defaults.pool_workers == 0  # "processes, one per core"
    assert told == {f.name for f in fields(Limits)}


def documented_statuses() -> set[int]:
    """The statuses of "Errors are {...} with status ..." in Protocol in short."""
    text = " ".join(section("Protocol in short").split())
    sentence = text[text.index('Errors are `{"error"'):text.index("There is no list of every game")]
    return {int(n) for n in re.findall(r"\b\d{3}\b", sentence)}


def test_every_status_a_refusal_comes_with_is_listed(tmp_path: Path) -> None:
    """"Errors are {"error", "code", "params"} with status ...": each status an outsider meets
    (a bad body, a foreign Origin or Host, no route, a method a route does not take, a full
    table, an expired code, a huge body, no JSON, a quota) is one the list names, and the
    answer is an ErrorAnswer."""
    from server_support import Saved, fast_limits

    seen: dict[int, str] = {}

    def refused(response: Any) -> None:
        assert response.status_code >= 400, response.text
        validator("ErrorAnswer").validate(response.json())
        seen[response.status_code] = response.json()["code"]

    db = tmp_path / "games.db"
    with client_for(db, limits=fast_limits(tables_per_minute=2)) as client:
        game = create(client, "standard", ["me", "open", "easy"])
        client.post("/api/join", json={"code": game["invites"]["code"], "name": "Ben"})
        refused(client.post("/api/join", json={"code": game["invites"]["code"], "name": "Cleo"}))  # 409
        refused(client.post("/api/games", json={"deck": "tarot"}))  # 400
        refused(client.post("/api/games", json={}, headers={"Origin": "http://evil.example"}))  # 403
        refused(client.get("/api/nothing"))  # 404
        refused(client.put("/api/meta"))  # 405
        refused(client.post("/api/games", content=b"{}", headers={"Content-Type": "text/plain"}))  # 415
        refused(client.post("/api/games", json={"name": "x" * 20_000}))  # 413
        refused(client.get("/api/meta", headers={"Host": "evil.example"}))  # 421
        other = create(client, "standard", ["me", "open", "easy"])
        Saved(db).expire_invites()
        refused(client.post("/api/invite", json={"code": other["invites"]["code"]}))  # 410
        refused(client.post("/api/games", json={}))  # 429: the third table this minute
    assert set(seen) == {400, 403, 404, 405, 409, 410, 413, 415, 421, 429}, seen
    assert set(seen) <= documented_statuses(), sorted(set(seen) - documented_statuses())
    assert {408, 431, 503} <= documented_statuses()  # the transport's, and an unavailable database


def test_every_route_of_the_app_is_in_the_docs(tmp_path: Path) -> None:
    """Every HTTP route and websocket of ``binokel serve`` is named in docs/server.md,
    docs/pad.md or docs/club.md (an outsider can only test what they are told of)."""
    docs = SERVER_DOC + (ROOT / "docs" / "pad.md").read_text("utf-8") + (ROOT / "docs" / "club.md").read_text("utf-8")
    with client_for(tmp_path / "games.db") as client:
        paths = {getattr(route, "path", "") for route in client.app.routes}
    missing = []
    for path in sorted(p for p in paths if p and not p.startswith(("/api/openapi", "/static"))):
        shown = re.sub(r"\{\w+\}", "{id}", path)
        words = {shown, shown.replace("{id}", "{lang}")}
        if not any(word in docs for word in words) and not (path == "/" and "`GET /`" in docs):
            missing.append(path)
    assert missing == []


# ---------------------------------------------------------------------- whole games of every seat count

@pytest.mark.parametrize(("rules", "plan"), [
    ("kreuz(deals=1)", ["open", "me", "easy", "open"]),  # partners; a creator who is not seat 0
    ("four-sitout(deals=2)", ["me", "open", "easy", "easy"]),  # the dealer sits out
    ("sechser(deals=1)", ["me", "easy", "open", "easy", "easy", "easy"]),  # two teams of three
    ("club(deals=2)", ["open", "open", "easy"]),  # the open auction; a creator who only hosts
])
def test_every_message_of_a_table_of_friends_is_in_the_schema_and_its_record_replays(
        tmp_path: Path, rules: str, plan: list[str]) -> None:
    """"every message of a whole game ... validates against" docs/protocol.schema.json, at
    every seat count and with teams, a seat sitting out and the open auction, for each seat
    and a spectator; the record download (docs/records.md) replays: ``first_dealer`` is the
    first deal's dealer, deals carry no ``format``/``rules``, the dealers rotate."""
    import json
    import random

    from friends_support import connect, play_deals, seat_everybody

    from binokel.record import replay

    with client_for(tmp_path / "games.db") as client, contextlib.ExitStack() as stack:
        game_id, tokens = seat_everybody(client, rules, plan, seed=4)
        people = {seat: connect(client, game_id, token, stack) for seat, token in tokens.items()}
        spectator = connect(client, game_id, None, stack)
        assert spectator.state is not None and spectator.state["refusals"] == {}
        play_deals(people, random.Random(4), deals=100, spectators=(spectator,))
        record = client.get(f"/api/games/{game_id}/record").json()
    for watcher in (*people.values(), spectator):
        for message in watcher.log:
            validator("ServerMessage").validate(message)
    validator("GameRecord").validate(record)
    game = replay(json.loads(json.dumps(record)))
    assert game.is_over() and record["first_dealer"] == record["deals"][0]["dealer"]
    players = game.rules.players
    for before, after in zip(record["deals"], record["deals"][1:]):
        assert after["dealer"] == (before["dealer"] + 1) % players  # the previous forehand deals next
    assert all("format" not in deal and "rules" not in deal for deal in record["deals"])
