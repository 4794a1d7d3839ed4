"""The browser server end to end: HTTP routes, the websocket protocol, persistence and
the no-leak guarantee, through Starlette's TestClient on a temporary database.

Seat 0's model of the table (the snapshot, brought up to date by each update: see
``server_support.ModelSocket``) is checked against the true game, rebuilt from the stored
record, at every version: its view must equal ``view(true deal, 0)``; and no card hidden
from seat 0 may appear anywhere in any message, as sent or as applied.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's notice about httpx versions
    from fastapi.testclient import TestClient
    from starlette.websockets import WebSocketDisconnect

from binokel.ai import LEVELS
from binokel.card import Card
from binokel.error import IllegalActionError, NotationError
from binokel.game import Game
from binokel.i18n import render
from binokel.record import replay
from binokel.rules import RULE_SETS, STANDARD, Rules, options
from binokel.server.protocol import MAX_MESSAGE
from server_support import (ModelSocket, Saved as Store, app_for, cards_in, knowable_while_played, shown_deal,
                            true_games, wire_of)
from binokel.state import Phase, State
from binokel.view import view

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

Message = dict[str, Any]


# ---------------------------------------------------------------------- helpers

@pytest.fixture
def db(server_db: Path | str) -> Path | str:
    return server_db  # each test runs on SQLite and on PostgreSQL


def client_for(db: Path, think: float = 0) -> TestClient:
    return TestClient(app_for(db, think=think))


@pytest.fixture
def client(db: Path) -> Iterator[TestClient]:
    with client_for(db) as c:
        yield c


TOKENS: dict[str, str] = {}
"""The creator's seat token of each game a test made (the browser keeps it in its storage)."""


def new_game(client: TestClient, **body: Any) -> str:
    response = client.post("/api/games", json={"rules": "standard", "opponents": ["easy", "medium"], **body})
    assert response.status_code == 200, response.text
    assert response.json()["seat"] == 0
    TOKENS[response.json()["id"]] = response.json()["token"]
    return response.json()["id"]


class SeatSocket(ModelSocket):
    """A websocket that said hello with the creator's token, read as the page reads it: a
    snapshot or an update comes as the model after it (a ``state`` of its version);
    presence, chat and event messages are skipped (their own tests are in
    test_server_friends.py)."""

    def __init__(self, ws: Any, events: bool = False) -> None:
        super().__init__(ws)
        self.skipped = ("presence", "chat_log") if events else ("presence", "chat_log", "events")

    def receive_json(self) -> Message:
        while (message := super().receive_json())["type"] in self.skipped:
            pass
        return message


@contextlib.contextmanager
def seat_ws(client: TestClient, game_id: str, events: bool = False) -> Iterator[SeatSocket]:
    """The websocket of seat 0 (the creator) of a game made by :func:`new_game` (``events``:
    keep the ``events`` messages, which come after every change, too)."""
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        ws.send_json({"type": "hello", "token": TOKENS[game_id]})
        yield SeatSocket(ws, events)


def no_games(client: TestClient) -> bool:
    """Nothing stored (the list of every game is no longer served to anybody)."""
    return client.app.state.hall.store.games() == []


def is_ready(message: Message) -> bool:
    """Seat 0 has something to do: move, or look at a finished deal."""
    if message["type"] != "state":
        return False
    seen = message["view"]
    return message["game"]["over"] or seen["phase"] == "over" or (seen["to_move"] == 0 and bool(seen["legal_actions"]))


def until_ready(ws: Any, log: list[Message]) -> Message:
    while True:
        message = ws.receive_json()
        log.append(message)
        if is_ready(message):
            return message


def send_action(ws: Any, state: Message, action: str) -> None:
    ws.send_json({"type": "action", "action": action, "version": state["version"]})


def stored(db: Path, game_id: str) -> tuple[int, str]:
    """The stored version and record text of a game (to see that nothing changed)."""
    row = Store(db).load(game_id)
    assert row is not None
    return row.version, json.dumps(row.record, sort_keys=True)


def knowable(deal: State) -> set[Card]:
    """The cards seat 0 may know in this deal (:func:`server_support.knowable_while_played`)."""
    return knowable_while_played(deal, 0)


def check_no_leak(db: Path, game_id: str, log: list[Message], sent: set[Card] = frozenset()) -> int:
    """Check every message seat 0 got against the true game at that version: the model
    (a snapshot, or the model after an update) and the message as it was sent."""
    games = true_games(db, game_id)
    version = 0
    checked = 0
    for message in log:
        version = message.get("version", version) if message["type"] != "hint" else version
        deal = shown_deal(games[version])
        allowed = knowable(deal)
        if message["type"] == "state":
            expected = json.loads(json.dumps(view(deal, 0).to_json()))
            assert message["view"] == expected, f"version {version}: the view is not view(state, 0)"
            assert set(message) == {"type", "version", "seat", "view", "game", "last_trick", "next", "meld_options",
                                    "refusals", "contracts", "surrender"}
            check_refusals(deal, message)
            checked += 1
        if message["type"] == "error":
            allowed = allowed | set(sent)
        for seen in (message, wire_of(message)):
            leaked = cards_in(seen) - allowed
            assert not leaked, (f"version {version}: {seen['type']} message shows hidden cards "
                                f"{sorted(map(str, leaked))}")
    return checked


def check_refusals(deal: State, message: Message) -> None:
    """The reasons the server gives for seat 0's unplayable cards are the engine's own."""
    seen = message["view"]
    refusals = message["refusals"]
    if seen["phase"] != "play" or seen["to_move"] != 0 or deal.phase is not Phase.PLAY:
        assert refusals == {}
        return
    assert set(refusals) == set(seen["hand"]) - set(seen["legal_actions"])
    for card, why in refusals.items():
        with pytest.raises(IllegalActionError) as refused:
            deal.apply_text(card)
        assert {"code": refused.value.code, "params": refused.value.params} == why


def play_deal(ws: Any, log: list[Message], rng: random.Random, state: Message | None = None) -> Message:
    """Play random legal actions for seat 0 (from ``state``, a ready state) until the shown deal is over."""
    state = state or until_ready(ws, log)
    while state["view"]["phase"] != "over":
        send_action(ws, state, rng.choice(state["view"]["legal_actions"]))
        state = until_ready(ws, log)
    return state


# ---------------------------------------------------------------------- HTTP

def test_meta(client: TestClient) -> None:
    meta = client.get("/api/meta").json()
    assert meta["levels"] == list(LEVELS) == ["easy", "medium", "hard", "expert"]  # the one registry
    assert meta["languages"] == ["de", "en", "fr", "it", "pt"]
    assert meta["decks"] == ["french", "german"]
    assert {"name": "standard", "text": "standard", "players": 3}.items() <= meta["rule_sets"][0].items()
    # Every rule set is offered, with its number of seats.
    assert [r["name"] for r in meta["rule_sets"]] == list(RULE_SETS)
    assert {r["name"]: r["players"] for r in meta["rule_sets"]} == {n: r.players for n, r in RULE_SETS.items()}
    assert [o["name"] for o in meta["options"]] == [name for name, _, _ in options()]
    target = next(o for o in meta["options"] if o["name"] == "target")
    assert target["standard"] == 1500 and target["choices"] is None and target["meaning"]
    assert (target["minimum"], target["step"]) == (10, None)
    bettel = next(o for o in meta["options"] if o["name"] == "bettel")
    assert (bettel["standard"], bettel["minimum"], bettel["step"]) == (0, 0, 10)
    deck = next(o for o in meta["options"] if o["name"] == "deck")
    assert "forty" in deck["choices"]
    assert len(meta["opponent_names"]) == 5


@pytest.mark.parametrize("text, canonical, players, changed", [
    ("standard", "standard", 3, {}),
    ("sevens(target=1000)", "sevens(target=1000)", 3, {"deck": "sevens", "target": 1000}),
    ("kreuz( target = 1000 )", "kreuz(target=1000)", 4,
     {"deck": "sevens", "players": 4, "hand_size": 10, "tapp_size": 8, "tapp_rounds": 2, "packets": "4-3-3",
      "teams": "opposite", "target": 1000}),
    ("standard(bettel=300,auction=open)", "standard(auction=open,bettel=300)", 3, {"auction": "open", "bettel": 300}),
])
def test_rules_are_read_as_a_new_game_reads_them(client: TestClient, text: str, canonical: str, players: int,
                                                  changed: dict[str, Any]) -> None:
    answer = client.get("/api/rules", params={"text": text})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert (body["text"], body["players"]) == (canonical, players)
    assert {c["name"]: c["value"] for c in body["changes"]} == changed
    assert all(c["standard"] == getattr(STANDARD, c["name"]) for c in body["changes"])


@pytest.mark.parametrize(("text", "teams"), [("standard", [0, 1, 2]), ("kreuz", [0, 1, 0, 1]),
                                             ("sechser", [0, 1, 0, 1, 0, 1]), ("four-solo", [0, 1, 2, 3])])
def test_the_rules_say_who_plays_with_whom_and_each_seats_computer_name(client: TestClient, text: str,
                                                                         teams: list[int]) -> None:
    """The start page shows partners and the computer players' names from the server's answer."""
    from binokel.server.settings import OPPONENT_NAMES

    body = client.get("/api/rules", params={"text": text}).json()
    assert body["teams"] == teams
    assert body["bot_names"][1:3] == list(OPPONENT_NAMES[:2]) and len(body["bot_names"]) == len(teams)
    meta = {r["name"]: r for r in client.get("/api/meta").json()["rule_sets"]}
    assert meta[text]["teams"] == teams and meta[text]["bot_names"] == body["bot_names"]


BAD_RULES = ["poker", "standard(target=7)", "standard(players=4)", "kreuz(teams=none,partner_exemption=1)",
             "standard(sit_out=1)", "standard(bettel=15)", "club(auction=sealed)", "standard(target)",
             "sechser(players=3)"]


@pytest.mark.parametrize("text", BAD_RULES)
def test_bad_rules_get_the_rules_own_message_and_nothing_is_stored(client: TestClient, text: str) -> None:
    with pytest.raises(NotationError) as refused:
        Rules.parse(text)
    answer = client.get("/api/rules", params={"text": text})
    expected = {"error": str(refused.value), **refused.value.to_json()}
    assert answer.status_code == 400 and answer.json() == expected
    response = client.post("/api/games", json={"rules": text})
    assert response.status_code == 400 and response.json() == expected
    assert no_games(client)


@pytest.mark.parametrize("body, message", [
    ([1, 2], "the body must be a JSON object"),
    ({"rules": "poker"}, "unknown rule set 'poker'"),
    ({"rules": "standard(target=7)"}, "option target must be at least 10"),
    ({"rules": 42}, "rules must be text like 'standard', not 42"),
    ({"opponents": ["easy"]}, "opponents must be a list of two levels"),
    ({"rules": "kreuz", "opponents": ["easy", "hard"]}, "opponents must be a list of three levels"),
    ({"rules": "sechser", "opponents": ["easy"] * 4}, "opponents must be a list of five levels"),
    ({"rules": "four-sitout", "opponents": ["easy", "hard", "grand"]}, "an opponent's level must be one of"),
    ({"opponents": ["easy", "genius"]}, "an opponent's level must be one of easy, medium, hard, expert, not 'genius'"),
    ({"name": "   "}, "name must have 1 to 40 characters"),
    ({"name": "x" * 41}, "name must have 1 to 40 characters"),
    ({"language": "xx"}, "language must be one of de, en, fr, it, pt, not 'xx'"),
    ({"deck": "tarot"}, "deck must be one of french, german, not 'tarot'"),
    ({"colour": "red"}, "unknown field 'colour'"),
    ({"seed": "abc"}, "seed must be a whole number"),
])
def test_bad_new_game_is_refused_and_nothing_stored(client: TestClient, body: Any, message: str) -> None:
    response = client.post("/api/games", json=body)
    assert response.status_code == 400
    assert response.json()["error"].startswith(message)
    assert no_games(client)


def test_every_language_has_every_string() -> None:
    """The page shows every rule option, rule set, contract and outcome in five languages."""
    from binokel.action import GAME_WORDS
    from binokel.server.app import web_dir
    from binokel.ai import LEVELS
    from binokel.i18n import LANGUAGES
    from binokel.server.settings import DECKS
    from binokel.state import Outcome

    from binokel.i18n import catalogue

    web = web_dir()
    strings = {lang: catalogue(lang)["strings"] for lang in LANGUAGES}
    script = "".join(path.read_text("utf-8") for path in (web / "js").glob("*.js"))
    page = (web / "index.html").read_text("utf-8")
    needed = set(re.findall(r'\bt\("([\w.]*\w)"', script)) | set(re.findall(r'data-i18n[\w-]*="([\w.]+)"', page))
    needed |= {f"{kind}.{name}" for name, _, _ in options() for kind in ("option", "meaning")}
    needed |= {f"{kind}.{name}" for name in RULE_SETS for kind in ("ruleset", "ruleset_about")}
    needed |= {f"{kind}.{word}" for word in GAME_WORDS.values() for kind in ("game", "about")}
    needed |= {f"{kind}.{outcome.value}" for outcome in Outcome for kind in ("result", "outcome")}
    needed |= {f"level.{level}" for level in LEVELS} | {f"deck.{deck}" for deck in DECKS}
    needed |= {f"side.{side}" for side in ("right", "left", "top", "tl", "tr")}
    # A sentence whose subject may be the viewer (tSeat) has a second-person ".you" form in every language.
    about_seat = set(re.findall(r'\btSeat\("([\w.]*\w)"', script))
    if 'tSeat("result." +' in script:
        about_seat |= {f"result.{outcome.value}" for outcome in Outcome if outcome is not Outcome.REDEAL}
    assert {"log.bid", "log.pass", "log.tapp", "contract", "result.made"} <= about_seat
    needed |= about_seat | {f"{key}.you" for key in about_seat}
    assert len(needed) > 150
    missing = needed - set(strings["en"])
    assert not missing, sorted(missing)
    for lang in LANGUAGES:
        assert set(strings[lang]) == set(strings["en"]), lang


def test_body_that_is_not_json(client: TestClient) -> None:
    response = client.post("/api/games", content=b"{nope", headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert response.json() == {"error": "the body must be a JSON object", "code": "body_not_object", "params": {}}


def my_games(client: TestClient, *game_ids: str) -> list[Message]:
    """"Your games" of a browser holding the creator's tokens of these games."""
    return client.post("/api/my-games", json={"tokens": [TOKENS[g] for g in game_ids]}).json()["games"]


def test_game_list_unfinished_first(client: TestClient) -> None:
    first = new_game(client, name="Anna", seed=1)
    second = new_game(client, name="Ben", seed=2)
    games = my_games(client, first, second)
    assert {g["id"] for g in games} == {first, second}
    entry = next(g for g in games if g["id"] == first)
    assert entry["players"][0] == "Anna" and entry["totals"] == [0, 0, 0] and entry["seat"] == 0
    assert entry["deals"] == 1 and entry["over"] is False and entry["rules"] == "standard"
    assert [g["id"] for g in my_games(client, second)] == [second]  # only the games of the tokens sent
    mine = {"Authorization": f"Bearer {TOKENS[first]}"}
    assert client.delete(f"/api/games/{first}").status_code == 403  # no token: not yours to delete
    assert client.delete(f"/api/games/{first}", headers=mine).json() == {"deleted": first}
    assert [g["id"] for g in my_games(client, first, second)] == [second]
    assert client.delete(f"/api/games/{first}", headers=mine).status_code == 404


def test_unknown_game(client: TestClient) -> None:
    response = client.get("/api/games/nope/record")
    assert response.status_code == 404 and "nope" in response.json()["error"]
    with client.websocket_connect("/ws/games/nope") as ws:
        message = ws.receive_json()
        assert message["type"] == "error" and "nope" in message["message"]
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4404


def test_index_and_static_are_served(client: TestClient) -> None:
    response = client.get("/")
    assert response.status_code in (200, 503)  # 503 while the page is not installed
    assert "text/html" in response.headers["content-type"]
    assert client.get("/static/no-such-file.js").status_code == 404


# ---------------------------------------------------------------------- playing

def test_complete_deal_to_score_sheet_without_leaks(client: TestClient, db: Path) -> None:
    game_id = new_game(client, seed=11, name="Anna", language="de", deck="german")
    rng = random.Random(11)
    log: list[Message] = []
    with seat_ws(client, game_id) as ws:
        first = until_ready(ws, log)
        assert first["game"]["players"][0] == "Anna"
        assert first["game"]["levels"] == [None, "easy", "medium"]
        assert first["game"]["settings"] == {**first["game"]["settings"],
                                             "language": "de", "deck": "german", "name": "Anna"}
        assert first["game"]["deal_number"] == 1 and first["game"]["target"] == 1500
        if first["view"]["to_move"] == 0:
            ws.send_json({"type": "hint"})
            hint = ws.receive_json()
            log.append(hint)
            assert hint["type"] == "hint" and hint["action"] in first["view"]["legal_actions"]
        over = play_deal(ws, log, rng, first)
        sheet = over["game"]["history"]
        assert len(sheet) == 1 and over["game"]["deal_number"] == 1
        assert over["game"]["totals"] == sheet[0]["scores"] == over["view"]["scores"]
        assert set(sheet[0]) == {"dealer", "soloist", "bid", "game", "outcome", "scores", "melds", "card_points"}
        # The next deal waits for the client.
        ws.send_json({"type": "next_deal", "version": over["version"]})
        state = ws.receive_json()
        log.append(state)
        assert state["version"] == over["version"] + 1
        assert state["game"]["deal_number"] == 2 and state["view"]["phase"] == "auction"
        assert state["view"]["dealer"] == (over["view"]["dealer"] + 1) % 3
        if not is_ready(state):
            until_ready(ws, log)
    assert check_no_leak(db, game_id, log) == sum(m["type"] == "state" for m in log) >= 3


def test_whole_game_and_replayable_record(client: TestClient, db: Path) -> None:
    game_id = new_game(client, rules="standard(target=300)", seed=5)
    rng = random.Random(5)
    log: list[Message] = []
    with seat_ws(client, game_id) as ws:
        while True:
            state = play_deal(ws, log, rng)
            if state["game"]["over"]:
                break
            ws.send_json({"type": "next_deal"})
        ws.send_json({"type": "next_deal"})
        error = ws.receive_json()
        assert error["type"] == "error" and "game is over" in error["message"]
        log.append(error)
    check_no_leak(db, game_id, log)
    response = client.get(f"/api/games/{game_id}/record")
    assert response.headers["content-disposition"].startswith("attachment")
    game = replay(response.json())
    assert isinstance(game, Game) and game.is_over()
    assert list(game.totals) == state["game"]["totals"] and game.winner == state["game"]["winner"]
    assert response.json()["players"] == state["game"]["players"]
    assert [g["over"] for g in my_games(client, game_id)] == [True]


def test_record_hides_the_deal_in_progress(client: TestClient) -> None:
    game_id = new_game(client, seed=3)
    record = client.get(f"/api/games/{game_id}/record").json()
    assert record["format"] == "binokel-game/1" and record["deals"] == []
    replay(record)


def test_reconnect_mid_deal_resumes_same_version(client: TestClient, db: Path) -> None:
    game_id = new_game(client, seed=21)
    rng = random.Random(21)
    log: list[Message] = []
    with seat_ws(client, game_id) as ws:
        state = until_ready(ws, log)
        for _ in range(4):
            send_action(ws, state, rng.choice(state["view"]["legal_actions"]))
            state = until_ready(ws, log)
    with seat_ws(client, game_id) as ws:
        again = ws.receive_json()
        log.append(again)
    assert again["version"] == state["version"] == stored(db, game_id)[0]
    assert again["view"] == state["view"]
    check_no_leak(db, game_id, log)


def test_restart_mid_deal_resumes(db: Path) -> None:
    rng = random.Random(8)
    log: list[Message] = []
    with client_for(db) as client:
        game_id = new_game(client, seed=8)
        with seat_ws(client, game_id) as ws:
            state = until_ready(ws, log)
            for _ in range(6):
                send_action(ws, state, rng.choice(state["view"]["legal_actions"]))
                state = until_ready(ws, log)
    with client_for(db) as client:  # a new server process on the same database
        assert [g["id"] for g in my_games(client, game_id)] == [game_id]
        with seat_ws(client, game_id) as ws:
            again = ws.receive_json()
            log.append(again)
            assert (again["version"], again["view"], again["game"]) == (state["version"], state["view"], state["game"])
            over = play_deal(ws, log, rng, again if is_ready(again) else None)
            assert over["view"]["phase"] == "over"
    check_no_leak(db, game_id, log)


def test_two_tabs_see_the_same_changes(client: TestClient) -> None:
    game_id = new_game(client, seed=2)
    rng = random.Random(2)
    with seat_ws(client, game_id) as one, \
            seat_ws(client, game_id) as two:
        state = until_ready(one, [])
        send_action(one, state, rng.choice(state["view"]["legal_actions"]))
        after = until_ready(one, [])
        seen = until_ready(two, [])
        while seen["version"] < after["version"]:
            seen = until_ready(two, [])
        assert seen == after


def test_the_heartbeat_is_answered_whatever_its_spelling_and_changes_nothing(client: TestClient, db: Path) -> None:
    """The page's ping (``JSON.stringify``'s spelling, answered without parsing: app.PING) and
    any other spelling of it (read by the protocol's model) get a pong; nothing is stored."""
    game_id = new_game(client, seed=2)
    with seat_ws(client, game_id) as ws:
        until_ready(ws, [])
        before = stored(db, game_id)
        for ping in ('{"type":"ping"}', '{"type": "ping"}', '{ "type" : "ping", "seat": 0 }'):
            ws.send_text(ping)
            assert ws.receive_json() == {"type": "pong"}, ping
        ws.send_text('{"type":"ping","seat":1}')  # another seat's: refused, as any message for it
        assert ws.receive_json()["code"] == "not_your_seat"
    assert stored(db, game_id) == before


def test_a_line_that_asks_for_the_beat_hears_one_when_quiet_and_no_other_line_does(client: TestClient,
                                                                                     db: Path) -> None:
    """A hello with ``"beat": true``: a quiet line is told ``{"type":"beat"}`` about every second
    (server/beat.py), so the page can tell a dead line from silence alone; a connection that did
    not ask (an older page, the terminal) hears none: after the same quiet its next message is the
    pong of its own ping. Nothing is stored."""
    game_id = new_game(client, seed=2)
    with seat_ws(client, game_id) as plain, client.websocket_connect(f"/ws/games/{game_id}") as beating:
        until_ready(plain, [])
        beating.send_json({"type": "hello", "token": None, "beat": True})  # a spectator's page
        before = stored(db, game_id)
        kinds = [beating.receive_json()["type"] for _ in range(2)]
        while kinds[-2:] != ["beat", "beat"]:  # nobody moves: the line stays quiet, beat after beat
            kinds.append(beating.receive_json()["type"])
            assert len(kinds) < 20, kinds
        assert set(kinds) <= {"state", "presence", "beat"}, kinds
        plain.send_text('{"type":"ping"}')  # quiet as long, and told no beat: the pong comes first
        assert plain.receive_json() == {"type": "pong"}
    assert stored(db, game_id) == before


# ---------------------------------------------------------------------- bad input

def _seed_where_a_bot_opens() -> int:
    """A seed whose first dealer is not seat 2, so a bot is to move before seat 0."""
    return next(seed for seed in range(100) if Game.seeded("standard", seed).current.dealer != 2)


def test_bad_messages_get_errors_and_change_nothing(db: Path) -> None:
    seed = _seed_where_a_bot_opens()
    with client_for(db, think=600) as client:  # the bots ponder: seat 0 is out of turn meanwhile
        game_id = new_game(client, seed=seed)
        before = stored(db, game_id)
        log: list[Message] = []
        with seat_ws(client, game_id) as ws:
            state = ws.receive_json()
            log.append(state)
            assert state["view"]["to_move"] != 0 and state["view"]["legal_actions"] == []
            cases: list[tuple[Any, str]] = [
                ("{not json", "malformed JSON"),
                ("[1, 2]", "a message must be a JSON object"),
                ('{"type": "dance"}', "unknown message type 'dance'"),
                ('{"action": "150"}', "unknown message type None"),
                ('{"type": "action", "action": "150"}', "an action message needs \"version\""),
                ('{"type": "action", "action": 150, "version": 0}', "an action message needs \"action\""),
                (json.dumps({"type": "sync", "pad": "x" * MAX_MESSAGE}), "message too large"),
                (b"\x00\x01", "messages must be JSON text"),
                (json.dumps({"type": "action", "action": "150", "version": state["version"]}),
                 "it is not seat 0's turn"),
                ('{"type": "action", "action": "150", "version": 7}', "stale version 7"),
                ('{"type": "hint"}', "a hint is only given when it is your turn"),
                ('{"type": "next_deal"}', "the current deal is not finished"),
                ('{"type": "next_deal", "version": "x"}', "\"version\" must be a whole number"),
            ]
            for raw, expected in cases:
                if isinstance(raw, bytes):
                    ws.send_bytes(raw)
                else:
                    ws.send_text(raw)
                answer = ws.receive_json()
                log.append(answer)
                assert answer["type"] == "error" and answer["version"] == state["version"], raw
                assert expected in answer["message"], (raw, answer)
                assert stored(db, game_id) == before
            ws.send_json({"type": "sync"})
            again = ws.receive_json()
            assert again == state
        check_no_leak(db, game_id, log, sent={Card.parse("AS")})


def test_illegal_actions_get_errors_and_change_nothing(client: TestClient, db: Path) -> None:
    game_id = new_game(client, seed=4)
    rng = random.Random(4)
    log: list[Message] = []
    with seat_ws(client, game_id) as ws:
        state = until_ready(ws, log)
        tried = 0
        while state["view"]["phase"] != "over" and tried < 12:
            seen = state["view"]
            hidden = sorted(str(c) for c in {Card.parse(c) for c in _deck()} - set(map(Card.parse, seen["hand"])))
            wrong = {"auction": ["999", "AS", "pass" if seen["legal_actions"] == ["150"] else "1000"],
                     "discard": [hidden[0], "pass"],
                     "game": ["X", "150"],
                     "surrender": ["maybe"],
                     "play": [hidden[0], "pass"]}[seen["phase"]]
            before = stored(db, game_id)
            for action in wrong:
                send_action(ws, state, action)
                answer = ws.receive_json()
                log.append(answer)
                assert answer["type"] == "error" and answer["version"] == state["version"], (action, answer)
                # The reason as a code the page renders in the player's language, and the English text of it.
                assert answer["message"] == render(f"error.{answer['code']}", answer["params"], "en"), answer
                assert render(f"error.{answer['code']}", answer["params"], "de") != answer["message"], answer
                assert stored(db, game_id) == before
                tried += 1
            send_action(ws, state, rng.choice(seen["legal_actions"]))
            state = until_ready(ws, log)
    sent = {Card.parse(c) for c in _deck()}
    check_no_leak(db, game_id, log, sent=sent)  # errors may only name the card seat 0 sent


def _deck() -> list[str]:
    return [f"{r}{s}" for s in "SHDC" for r in "ATKQJ9"]


def test_rematch_keeps_the_settings(client: TestClient) -> None:
    game_id = new_game(client, seed=6, name="Cleo", rules="standard(target=100)", language="fr")
    rng = random.Random(6)
    with seat_ws(client, game_id) as ws:
        state = until_ready(ws, [])
        ws.send_json({"type": "rematch"})  # not before the game is over
        assert "when the game is over" in ws.receive_json()["message"]
        while not (state := play_deal(ws, [], rng, state))["game"]["over"]:
            ws.send_json({"type": "next_deal"})
            state = None
        ws.send_json({"type": "rematch"})
        while (answer := ws.receive_json())["type"] != "rematch":
            pass
    assert answer["id"] != game_id
    TOKENS[answer["id"]] = TOKENS[game_id]  # the same people in the same seats: the same tokens
    with seat_ws(client, answer['id']) as ws:
        state = ws.receive_json()
    assert state["game"]["rules"] == "standard(target=100)"
    assert state["game"]["settings"] == {**state["game"]["settings"],
                                         "language": "fr", "deck": "french", "name": "Cleo"}
    assert state["game"]["levels"] == [None, "easy", "medium"] and state["version"] == 1


def test_meld_options_only_for_seat_0_naming_the_game(client: TestClient, db: Path) -> None:
    """Bid until seat 0 is soloist in some deal, then look at meld_options."""
    for seed in range(30):
        game_id = new_game(client, seed=seed)
        log: list[Message] = []
        with seat_ws(client, game_id) as ws:
            state = until_ready(ws, log)
            while state["view"]["phase"] == "auction":
                bid = state["view"]["legal_actions"][-1]
                send_action(ws, state, bid if int(bid) <= 200 else "pass")
                state = until_ready(ws, log)
            if state["view"]["soloist"] != 0:
                continue
            while state["view"]["phase"] == "discard":
                assert state["meld_options"] is None
                send_action(ws, state, state["view"]["legal_actions"][0])
                state = until_ready(ws, log)
            assert state["view"]["phase"] == "game"
            options = state["meld_options"]
            assert set(options) == {"S", "H", "D", "C"} and all(isinstance(v, int) for v in options.values())
        check_no_leak(db, game_id, log)
        return
    pytest.fail("seat 0 never became soloist")


@pytest.mark.parametrize("built_by", ["state", "update_text"])
def test_the_leak_check_catches_a_leak(client: TestClient, db: Path, monkeypatch: pytest.MonkeyPatch,
                                       built_by: str) -> None:
    """Guard the guard: a snapshot that shows seat 1's hand, or an update that shows it in an
    event (which no model keeps: only the message as sent has it), must fail the check."""
    from binokel.server.message import Messages

    honest = getattr(Messages, built_by)

    def leaky(self: Messages, seat: int | None, *rest: Any) -> Message | str:
        sent = honest(self, seat, *rest)
        cards = [str(c) for c in self.table.game.current.hand(1)]
        if built_by == "state":
            return {**sent, "last_trick": {"cards": cards}}
        told = json.loads(sent)  # the update as sent: its text
        return json.dumps({**told, "events": [*told["events"], {"version": told["version"], "kind": "hand",
                                                                  "cards": cards}]})

    monkeypatch.setattr(Messages, built_by, leaky)
    game_id = new_game(client, seed=9)
    log: list[Message] = []
    with seat_ws(client, game_id) as ws:
        state = until_ready(ws, log)
        send_action(ws, state, state["view"]["legal_actions"][0])
        until_ready(ws, log)  # at least seat 0's own step comes as an update
    assert any(wire_of(m)["type"] == "update" for m in log)
    with pytest.raises(AssertionError, match="hidden cards"):
        check_no_leak(db, game_id, log)


def test_a_failing_bot_cannot_stall_the_game(caplog: pytest.LogCaptureFixture) -> None:
    from binokel.ai import BotError, choose_safely, make_bot
    from binokel.view import SeatView

    class Broken:
        def choose(self, view: Any, rng: random.Random, budget: float) -> Any:
            raise RuntimeError("boom")

    class Cheater:
        def choose(self, view: Any, rng: random.Random, budget: float) -> Any:
            return "AS"

    state = State.new("standard", dealer=2).deal_random(random.Random(1))
    state = state.apply(state.legal_actions()[0])  # the forced opening: now pass or raise
    seen = view(state, 1)
    for bot in (Broken(), Cheater()):  # live play (strict_mode=False): logged, and a modest move
        assert str(choose_safely(bot, seen, random.Random(1), 0.01, seed="7:bot:3", strict_mode=False)) == "pass"
    assert ["the Broken bot failed", "the Cheater bot chose 'AS'"] == [
        r.getMessage().split(";")[0].split(", not")[0] for r in caplog.records]
    for record in caplog.records:  # enough to replay the position: the seat, the seed, the view
        assert record.levelname == "ERROR"
        message = record.getMessage()
        assert "seat 1, seed '7:bot:3', view {" in message
        logged = json.loads(message.split(", view ", 1)[1].split("; it plays")[0])
        assert SeatView.from_json(logged) == seen
    assert caplog.records[0].exc_info is not None  # the failure's traceback is logged too
    for bot in (Broken(), Cheater()):  # in the tests (BINOKEL_STRICT_BOTS=1, tests/conftest.py): raised
        with pytest.raises(BotError, match="at seat 1"):
            choose_safely(bot, seen, random.Random(1), 0.01)
    assert choose_safely(make_bot("easy", seed=1), seen, random.Random(1), 0.01) in seen.legal_actions

@pytest.mark.parametrize("rules", list(RULE_SETS))
def test_a_spectator_sees_what_every_seat_but_the_soloist_sees_in_common(rules: str) -> None:
    """The spectator's view is a seat's view without its hand and choices; nothing derived
    from the soloist's own discard (its points, the soloist's card points) reaches it."""
    from binokel.update import PRIVATE_FIELDS, spectator_view
    from conftest import random_playout

    for seed in range(3):
        for deal in random_playout(Rules.parse(rules), seed):
            watched = spectator_view(deal)
            for seat in range(deal.players):
                if seat != deal.soloist:
                    assert watched == {**view(deal, seat).to_json(), **PRIVATE_FIELDS, "seat": None}
            assert watched["discard_points"] is None and watched["card_points"] == list(deal.trick_points)
