"""Hostile clients: the server's gate, its limits, and fuzzing of its protocol.

- The gate (``server/guard.py``): a foreign Host is refused (DNS rebinding), a websocket or
  a change from a page of another origin is refused, a cross-site ``text/plain`` POST
  changes nothing, a body over the limit is refused before it is read.
- Limits: connections per address and per table, rematches as new tables, coded errors.
- A hypothesis fuzzer over the websocket and HTTP protocol (wrong types, huge values,
  Unicode digits, binary frames, unknown fields, out-of-turn and stale commands): no 5xx,
  no traceback in the log, the game unchanged and still replayable.
- schemathesis over the app's OpenAPI schema: no 5xx.
- A real server (uvicorn, real sockets): clients that stop reading are dropped with close
  code 4408 once their queue passes the bound (counted, not timed), and reconnect from
  their last version; invalid UTF-8 frames close with 1007 and log no traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import select
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

import httpx
import uvicorn
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.websockets import WebSocketDisconnect

from binokel.i18n import catalogue
from binokel.record import replay_game
from binokel.server.app import TOO_MANY_CLOSE, TOO_SLOW_CLOSE, create_app
from binokel.server.guard import Guard, Names, Policy
from binokel.server.limits import Limits
from binokel.server.transport import uvicorn_config
from binokel.server.schema import CLIENT
from server_support import ModelSocket, Saved, fast_limits

Message = dict[str, Any]
FAST = Limits(messages_per_second=10_000.0, message_burst=10_000, address_messages_per_second=10_000.0,
              address_message_burst=10_000, tables_per_minute=1000, joins_per_minute=1000)
"""The fuzzers send as fast as the server answers: the rate limits are tested on their own."""
LOCAL = "http://127.0.0.1:8000"
UNICODE_DIGITS = ["²", "¹⁶⁰", "١٥٠", "１６０", "𝟏𝟔𝟎", "1" * 5000, "160\u200b", "-160", "1e3", "0x10"]
CODES = {key.removeprefix("error.") for key in catalogue("en")["strings"] if key.startswith("error.")}


def app_for(db: Path | str, **options: Any) -> Any:
    options.setdefault("limits", FAST)
    return create_app(db, think=0, budget=0.01, **options)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(app_for(tmp_path / "games.db"), base_url=LOCAL) as test_client:
        yield test_client


def ws_url(path: str, host: str = "127.0.0.1:8000") -> str:
    return f"ws://{host}{path}"


def create(client: TestClient, **body: Any) -> Message:
    response = client.post("/api/games", json={"seed": 7, **body})
    assert response.status_code == 200, response.text
    return dict(response.json())


def tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    """Log records with a traceback, or at level ERROR and above."""
    return [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


# ---------------------------------------------------------------------- the gate


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.nip.io", "localhost.evil.example",
                                  "192.168.1.20:8000"])
def test_a_foreign_host_is_refused_on_a_local_server(client: TestClient, host: str) -> None:
    """DNS rebinding: a page of evil.example whose name now points at 127.0.0.1 sends Host:
    evil.example (and its own origin): refused, with a clear JSON error."""
    for method, path in (("GET", "/api/meta"), ("POST", "/api/games")):
        response = client.request(method, path, headers={"host": host, "origin": f"http://{host}"}, json={})
        assert response.status_code == 421
        assert response.json()["code"] == "bad_host" and "--allow-host" in response.json()["error"]
    with pytest.raises(WebSocketDisconnect) as refused:
        with client.websocket_connect(ws_url("/ws/games/x", host)):
            pass
    assert refused.value.code == 1008


@pytest.mark.parametrize("host", ["localhost:8000", "127.0.0.1", "[::1]:8000", "LOCALHOST"])
def test_the_local_names_are_served(client: TestClient, host: str) -> None:
    assert client.get("/api/meta", headers={"host": host}).status_code == 200


def test_a_server_open_to_the_network_answers_to_any_address_but_not_to_other_names(tmp_path: Path) -> None:
    with TestClient(app_for(tmp_path / "games.db", host="0.0.0.0"), base_url="http://192.168.1.20:8000") as client:
        assert client.get("/api/meta").status_code == 200
        assert client.get("/api/meta", headers={"host": "[fe80::1]:8000"}).status_code == 200
        assert client.get("/api/meta", headers={"host": "rebind.evil.example"}).status_code == 421


def test_public_url_allow_origin_and_allow_host_are_answered(tmp_path: Path) -> None:
    app = app_for(tmp_path / "games.db", public_url="https://cards.example.org/",
                  allow_origins=["https://friends.example.net"], allow_hosts=["mybox.local"])
    with TestClient(app, base_url=LOCAL) as client:
        for host in ("cards.example.org", "mybox.local", "friends.example.net"):
            assert client.get("/api/meta", headers={"host": host}).status_code == 200
        for origin in ("https://cards.example.org", "https://friends.example.net", "https://FRIENDS.example.net:443"):
            assert client.post("/api/games", json={"seed": 1}, headers={"origin": origin}).status_code == 200
        for origin in ("http://cards.example.org", "https://evil.example", "null", "https://cards.example.org:8443"):
            assert client.post("/api/games", json={"seed": 1}, headers={"origin": origin}).status_code == 403


def test_a_websocket_from_another_origin_is_refused(client: TestClient) -> None:
    game = create(client)
    path = f"/ws/games/{game['id']}"
    for origin in ("https://evil.example", "http://127.0.0.1:9999", "null", "file://"):
        with pytest.raises(WebSocketDisconnect) as refused:
            with client.websocket_connect(ws_url(path), headers={"origin": origin}):
                pass
        assert refused.value.code == 1008
    # the page itself (same origin) and clients that are not browsers (no Origin) are served
    for headers in ({"origin": "http://127.0.0.1:8000"}, {}):
        with client.websocket_connect(ws_url(path), headers=headers) as ws:
            ws.send_json({"type": "hello", "token": game["token"]})
            assert ws.receive_json()["type"] in ("events", "state")


def test_a_cross_site_simple_post_changes_nothing(client: TestClient, tmp_path: Path) -> None:
    """A form or a no-cors fetch of another site can send text/plain, form data or
    multipart, with or without an Origin: refused with 415, and nothing is stored."""
    body = json.dumps({"seed": 1})
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                         "text/plain; charset=utf-8", "application/json-patch+json", None):
        headers = {"content-type": content_type} if content_type else {}
        response = client.post("/api/games", content=body, headers=headers)
        assert response.status_code == 415, (content_type, response.status_code)
        assert response.json()["code"] == "json_required"
    response = client.post("/api/games", content=body, headers={"content-type": "text/plain",
                                                                "origin": "https://evil.example"})
    assert response.status_code in (403, 415)
    assert client.post("/api/my-games", json={"tokens": []}).json() == {"games": []}
    with contextlib.closing(__import__("sqlite3").connect(tmp_path / "games.db")) as db:
        assert db.execute("SELECT count(*) FROM games").fetchone()[0] == 0


def test_a_body_over_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """Content-Length over the limit: 413 and the app never runs; a streamed (chunked) body:
    413 as soon as the bytes counted pass the limit, the rest never read."""
    calls: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        calls.append(scope["path"])
        while (await receive()).get("more_body"):
            pass
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    guard = Guard(app, Policy(Names.for_server("127.0.0.1"), frozenset(), body_bytes=1000))
    read = 0

    async def body() -> Any:
        nonlocal read
        for _ in range(1000):
            read += 1
            yield b"x" * 500

    async def run() -> None:
        transport = httpx.ASGITransport(app=guard)
        async with httpx.AsyncClient(transport=transport, base_url=LOCAL) as http:
            huge = await http.post("/api/games", content=b"x" * 5000, headers={"content-type": "application/json"})
            assert huge.status_code == 413 and huge.json()["code"] == "body_too_large" and calls == []
            lying = await http.post("/api/games", headers={"content-type": "application/json",
                                                           "content-length": "9" * 40}, content=b"{}")
            assert lying.status_code in (400, 413) and calls == []
            streamed = await http.post("/api/games", content=body(), headers={"content-type": "application/json"})
            assert streamed.status_code == 413 and read < 1000
            small = await http.post("/api/games", content=b"{}", headers={"content-type": "application/json"})
            assert small.status_code == 200

    asyncio.run(run())


def test_a_json_body_over_the_message_limit_gets_413(client: TestClient) -> None:
    response = client.post("/api/games", json={"name": "x" * 20_000})
    assert response.status_code == 413 and response.json()["code"] == "body_too_large"


# ---------------------------------------------------------------------- limits


def test_connections_per_address_and_per_table_are_capped(tmp_path: Path) -> None:
    for per_table, per_address, code, close in ((2, 10, "too_many_spectators", TOO_MANY_CLOSE),
                                                (10, 2, "too_many_connections_address", TOO_MANY_CLOSE)):
        limits = Limits(**{**FAST.__dict__, "connections_per_address": per_address,
                           "spectators_per_table": per_table})
        with TestClient(app_for(tmp_path / f"games{per_table}.db", limits=limits), base_url=LOCAL) as client:
            game = create(client, seats=["me", "easy", "easy"])
            path = ws_url(f"/ws/games/{game['id']}")
            with contextlib.ExitStack() as stack:
                for _ in range(2):
                    ws = stack.enter_context(client.websocket_connect(path))
                    ws.send_json({"type": "hello", "token": None})
                    ws.receive_json()
                third = stack.enter_context(client.websocket_connect(path))
                if code == "too_many_spectators":
                    third.send_json({"type": "hello", "token": None})
                refused = third.receive_json()
                assert refused["type"] == "error" and refused["code"] == code
                with pytest.raises(WebSocketDisconnect) as closed:
                    third.receive_json()
                assert closed.value.code == close
            with client.websocket_connect(path) as ws:  # all closed: the address may connect again
                ws.send_json({"type": "hello", "token": None})
                assert ws.receive_json()["type"] in ("events", "state")


REFUSALS: list[tuple[str, str, dict[str, Any], dict[str, str], int, str]] = [
    # (method, path ({id}: a live table), json, headers, status, code)
    ("GET", "/api/games/{id}/review?deal=abc&seat=0", {}, {}, 400, "bad_request"),
    ("GET", "/api/games/{id}/review?seat=1.5", {}, {}, 400, "bad_request"),
    ("GET", "/api/games/{id}/review?seat=0", {}, {}, 400, "no_finished_deal"),
    ("GET", "/api/games/nope/review", {}, {}, 404, "no_game"),
    ("GET", "/api/games/{id}/advice", {}, {}, 403, "advice_token"),
    ("GET", "/api/games/{id}/advice", {}, {"Authorization": "Bearer forged"}, 403, "advice_token"),
    ("GET", "/api/games/nope/advice", {}, {}, 404, "no_game"),
    ("POST", "/api/review", {"record": {"format": "binokel-game/1", "deals": "x"}, "seat": 0, "deal": 0}, {},
     400, "no_rules"),
    ("POST", "/api/review", {"seat": 0}, {}, 400, "review_body"),
    ("POST", "/api/review", {"record": {}, "seat": "0"}, {}, 400, "review_numbers"),
    ("POST", "/api/review", {"record": {}, "seat": 0, "deal": True}, {}, 400, "review_numbers"),
]


@pytest.mark.parametrize(("method", "path", "body", "headers", "status", "code"), REFUSALS)
def test_every_http_refusal_is_in_the_protocols_format(client: TestClient, method: str, path: str,
                                                       body: dict[str, Any], headers: dict[str, str],
                                                       status: int, code: str) -> None:
    """The error format of docs/server.md ("Security"): text, a catalogue code, its params."""
    game = create(client, seats=["me", "easy", "easy"])
    url = path.replace("{id}", game["id"])
    response = client.request(method, url, json=body if method == "POST" else None, headers=headers)
    assert response.status_code == status, response.text
    answer = response.json()
    assert set(answer) == {"error", "code", "params"} and answer["code"] == code, answer
    assert code in CODES and isinstance(answer["params"], dict) and answer["error"]


def test_a_validation_error_names_the_field(client: TestClient) -> None:
    game = create(client, seats=["me", "easy", "easy"])
    answer = client.get(f"/api/games/{game['id']}/review", params={"deal": "abc", "seat": 0}).json()
    assert answer["params"] == {"field": "query.deal", "reason": "a whole number is expected"}
    assert answer["error"] == "query.deal is not valid: a whole number is expected"  # not "Input should be ..."
    answer = client.get(f"/api/games/{game['id']}/review", params={"deal": 0, "seat": "1.5"}).json()
    assert answer["params"] == {"field": "query.seat", "reason": "a whole number is expected"}


def test_a_bad_uploaded_record_says_where(client: TestClient) -> None:
    record = {"format": "binokel-game/1", "deals": "x"}
    answer = client.post("/api/review", json={"record": record, "seat": 0, "deal": 0}).json()
    assert answer["code"] == "no_rules" and answer["params"]["at"] == "rules"


def test_messages_are_limited_per_address_across_connections(tmp_path: Path) -> None:
    limits = Limits(messages_per_second=1000.0, message_burst=1000, address_messages_per_second=0.001,
                    address_message_burst=5)
    with TestClient(app_for(tmp_path / "games.db", limits=limits), base_url=LOCAL) as client:
        game = create(client, seats=["me", "easy", "easy"])
        path = ws_url(f"/ws/games/{game['id']}")
        with client.websocket_connect(path) as one, client.websocket_connect(path) as two:
            for ws in (one, two):
                ws.send_json({"type": "hello", "token": None})
            for ws in (one, two, one, two, one, two):  # 6 messages from one address, a burst of 5
                ws.send_json({"type": "events", "since": 0})
            answers = []
            for ws in (one, two):
                while len([a for a in answers if a[0] is ws]) < 3:  # one answer per message, in order
                    message = ws.receive_json()
                    if message["type"] == "error" or (message["type"] == "events" and message["since"] == 0):
                        answers.append((ws, message.get("code", "events")))
            assert sorted(code for _, code in answers) == ["events"] * 5 + ["too_many_messages"]


def test_the_connection_limit_codes_are_in_every_catalogue() -> None:
    for code in ("bad_host", "bad_origin", "json_required", "body_too_large", "too_many_connections_address",
                 "too_slow", "number_too_large", "option_above_maximum"):
        assert code in CODES


# ---------------------------------------------------------------------- the websocket fuzzer

SCALARS = (st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20) | st.sampled_from(UNICODE_DIGITS))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8)
MESSAGES = st.fixed_dictionaries(
    {"type": st.sampled_from([*CLIENT.types, "dance", "HELLO", ""]) | VALUES},
    optional={"action": VALUES | st.sampled_from(["pass", "160", "AS", "take", "H", *UNICODE_DIGITS]),
              "version": VALUES | st.integers(-3, 10), "since": VALUES | st.integers(-3, 10), "seat": VALUES,
              "text": VALUES, "phrase": VALUES | st.sampled_from(["hello", "thanks"]), "token": VALUES,
              "unknown_field": VALUES})
FRAMES = st.one_of(
    MESSAGES.map(json.dumps), VALUES.map(json.dumps), st.text(max_size=100), st.binary(max_size=64),
    st.sampled_from(["x" * 20_000, "[" * 50_000, '{"type": "sync"' + "}" * 10, "NaN", '{"type": NaN}',
                     '{"type": "action", "action": "160", "version": 1e400}', "\ud800", '"\\ud800"']),
)
REPLIES = {"error", "state", "update", "events", "presence", "chat", "chat_log", "hint", "rematch", "pong"}


def settle(ws: Any) -> list[Message]:
    """Everything the server says up to the answer to an ``events`` request (answered in order)."""
    ws.send_json({"type": "events", "since": 0})
    seen = []
    for _ in range(50):
        message = ws.receive_json()
        seen.append(message)
        if message["type"] == "events" and message["since"] == 0:
            return seen
        # Refused, this request gets no other answer: fail here rather than wait for ever.
        assert message.get("code") not in ("too_many_events", "events_too_far"), message
    raise AssertionError("no answer")


def test_fuzzed_websocket_messages_change_nothing(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Random frames from a person whose turn it is not, a person at a table still waiting for
    friends, and a spectator: every answer is a coded error or an ordinary message, nothing
    changes, the connection stays usable, the record replays, and the log has no traceback."""
    caplog.set_level(logging.INFO)
    db = tmp_path / "games.db"
    # Each example ends with an events request (settle): more than the per-connection rate of
    # them, which tests/test_server_abuse.py checks on its own.
    limits = fast_limits(events_per_minute=100_000)
    with TestClient(app_for(db, limits=limits), base_url=LOCAL) as client:
        # a table of three people who never move (grace: no stand-in during the test)
        game = create(client, seats=["me", "open", "open"], grace=3600)
        tokens = {0: game["token"]}
        for invite in game["invites"]["seats"]:
            joined = client.post("/api/join", json={"code": invite["code"], "name": f"P{invite['seat']}"}).json()
            tokens[joined["seat"]] = joined["token"]
        waiting = create(client, seats=["me", "open", "easy"])
        saved = Saved(db)
        before = {g: saved.load(g) for g in (game["id"], waiting["id"])}
        with contextlib.ExitStack() as stack:
            sockets = []
            for game_id, token in ((game["id"], None), (waiting["id"], waiting["token"])):
                ws = stack.enter_context(client.websocket_connect(ws_url(f"/ws/games/{game_id}")))
                ws.send_json({"type": "hello", "token": token})
                sockets.append(ws)
            seats = [stack.enter_context(client.websocket_connect(ws_url(f"/ws/games/{game['id']}")))
                     for _ in range(3)]
            for seat, ws in enumerate(seats):
                ws.send_json({"type": "hello", "token": tokens[seat]})
            state = next(m for m in settle(seats[0]) if m["type"] == "state")
            to_move = state["view"]["to_move"]
            sockets += [ws for seat, ws in enumerate(seats) if seat != to_move]  # out of turn
            for ws in sockets:
                settle(ws)

            @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
            @given(frame=FRAMES, which=st.integers(0, len(sockets) - 1))
            def check(frame: str | bytes, which: int) -> None:
                ws = sockets[which]
                if isinstance(frame, bytes):
                    ws.send_bytes(frame)
                else:
                    ws.send_text(frame)
                for message in settle(ws):
                    assert message["type"] in REPLIES, message
                    if message["type"] == "error":
                        assert message["code"] in CODES and message["code"] != "internal_error", message
                        assert len(message["message"]) < 1000
                    if message["type"] == "state":
                        assert message["version"] == state["version"]

            check()
            mover = seats[to_move]
            settle(mover)

            # the seat to move: actions that are never legal (Unicode digits, huge numbers, wrong types)
            @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
            @given(action=st.sampled_from([*UNICODE_DIGITS, "9" * 30, "", " ", "AS AS", "pass pass", "¹⁶⁰ pass"])
                   | SCALARS, version=st.sampled_from([state["version"], state["version"] + 1, -1, 2**70]))
            def check_mover(action: Any, version: Any) -> None:
                mover.send_text(json.dumps({"type": "action", "action": action, "version": version}))
                replies = settle(mover)
                errors = [m for m in replies if m["type"] == "error"]
                assert errors and all(m["code"] in CODES and m["code"] != "internal_error" for m in errors), replies
                assert all(m["version"] == state["version"] for m in replies if m["type"] == "state")

            check_mover()
        after = {g: saved.load(g) for g in (game["id"], waiting["id"])}
        assert after == before
        for game_id in (game["id"], waiting["id"]):
            record = client.get(f"/api/games/{game_id}/record").json()
            replay_game(record)
    assert tracebacks(caplog) == []


HTTP_ROUTES = [("POST", "/api/games"), ("POST", "/api/invite"), ("POST", "/api/join"), ("POST", "/api/my-games"),
               ("POST", "/api/review"), ("POST", "/api/games/{id}/invites"), ("DELETE", "/api/games/{id}"),
               ("GET", "/api/rules"), ("GET", "/api/rules/check"), ("GET", "/api/games/{id}/record"),
               ("GET", "/api/games/{id}/review"), ("GET", "/api/games/{id}/advice"), ("GET", "/i18n/{id}.json")]


def test_fuzzed_http_requests_get_no_server_error(client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    game = create(client)

    @settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(route=st.sampled_from(HTTP_ROUTES), body=VALUES.map(json.dumps) | st.binary(max_size=64),
           content_type=st.sampled_from(["application/json", "text/plain", None, "application/json; charset=utf-8"]),
           ident=st.sampled_from([game["id"], "nope", "x" * 300, "¹⁶⁰", "%00"]),
           query=st.dictionaries(st.sampled_from(["text", "deal", "seat"]), st.text(max_size=30) |
                                 st.sampled_from(UNICODE_DIGITS), max_size=3),
           token=st.sampled_from([None, game["token"], "x", "¹⁶⁰" * 100]))
    def check(route: tuple[str, str], body: str | bytes, content_type: str | None, ident: str,
              query: dict[str, str], token: str | None) -> None:
        method, path = route
        if method == "DELETE" and token == game["token"]:
            token = None  # the creator deleting the game is no attack (and would end this test's game)
        headers: dict[str, str | bytes] = {"content-type": content_type} if content_type else {}
        if token:
            headers["authorization"] = f"Bearer {token}".encode()  # raw bytes: UTF-8 in a header too
        content = None if method == "GET" else (body.encode() if isinstance(body, str) else body)
        response = client.request(method, path.replace("{id}", ident), params=query, content=content,
                                  headers=headers)
        assert response.status_code < 500, (route, response.text)
        if method == "POST" and content and content_type in ("text/plain", None):
            assert response.status_code == 415
        if response.status_code >= 400 and "json" in response.headers.get("content-type", ""):
            assert "error" in response.json() or "detail" in response.json()

    check()
    assert client.get(f"/api/games/{game['id']}/record").status_code == 200
    assert tracebacks(caplog) == []


def test_schemathesis_finds_no_server_error(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Every operation of the app's OpenAPI schema (``/api/openapi.json``), with data
    schemathesis generates from it: never a 5xx."""
    schemathesis = pytest.importorskip("schemathesis")
    caplog.set_level(logging.WARNING)
    app = app_for(tmp_path / "games.db", allow_hosts=["testserver", "localhost"])
    schema = schemathesis.openapi.from_asgi("/api/openapi.json", app)
    operations = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1

        @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        @given(case=operation.as_strategy())
        def check(case: Any) -> None:
            response = case.call()
            assert response.status_code < 500, (case.method, case.formatted_path, response.text[:300])

        check()
    assert operations >= 15
    assert tracebacks(caplog) == []


# ---------------------------------------------------------------------- a real server


class Served:
    """The app under uvicorn in a thread, on a free port of 127.0.0.1 (real sockets)."""

    def __init__(self, app: Any, limits: Limits, send_buffer: int | None = None, **options: Any) -> None:
        self.app = app
        self.sock = socket.socket()
        if send_buffer:  # the accepted sockets inherit it (and the kernel's autotuning is off)
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn_config(app, limits, **options))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self) -> Served:
        self.thread.start()
        for _ in range(200):
            if self.server.started:
                return self
            time.sleep(0.05)
        raise RuntimeError("the server did not start")

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=20)
        self.sock.close()

    def call(self, work: Any) -> Any:
        """Run ``work()`` in the server's event loop (to look at its tables safely)."""
        loop = self.server_loop
        done: asyncio.Future[Any] = asyncio.run_coroutine_threadsafe(_call(work), loop)  # type: ignore[assignment]
        return done.result(timeout=10)

    @property
    def server_loop(self) -> asyncio.AbstractEventLoop:
        hall = self.app.state.hall
        assert hall._loop is not None
        return hall._loop  # type: ignore[no-any-return]


async def _call(work: Any) -> Any:
    return work()


def raw_websocket(port: int, path: str, *, buffer: int | None = None) -> socket.socket:
    """A websocket opened by hand (so it can stop reading, or send what no library would)."""
    sock = socket.socket()
    if buffer:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, buffer)
    sock.connect(("127.0.0.1", port))
    sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sock.recv(1)
    assert answer.startswith(b"HTTP/1.1 101"), answer
    return sock


def frame(payload: bytes, opcode: int = 1, fin: bool = True) -> bytes:
    """A masked client frame (the mask is zero: the payload goes as it is)."""
    head = bytes([(0x80 if fin else 0) | opcode])
    size = len(payload)
    if size < 126:
        head += bytes([0x80 | size])
    elif size < 65536:
        head += bytes([0x80 | 126]) + size.to_bytes(2, "big")
    else:
        head += bytes([0x80 | 127]) + size.to_bytes(8, "big")
    return head + b"\0\0\0\0" + payload


def read_frames(sock: socket.socket, until_close: bool = True, most: int = 1 << 26,
                data: bytes = b"") -> list[tuple[int, bytes]]:
    """The server's frames (opcode, payload) read from ``sock`` until its close frame
    (``data``: what was read of the stream already, from a frame's start)."""
    frames: list[tuple[int, bytes]] = []
    sock.settimeout(20)
    while len(data) < most:
        try:
            chunk = sock.recv(1 << 16)
        except (TimeoutError, ConnectionResetError):
            break
        if not chunk:
            break
        data += chunk
        frames = _parse(data)[0]
        if frames and frames[-1][0] == 8 and until_close:
            return frames
    return _parse(data)[0]


def _parse(data: bytes) -> tuple[list[tuple[int, bytes]], bytes]:
    frames = []
    at = 0
    while at + 2 <= len(data):
        opcode, size = data[at] & 0x0F, data[at + 1] & 0x7F
        start = at + 2
        if size == 126:
            size, start = int.from_bytes(data[at + 2:at + 4], "big"), at + 4
        elif size == 127:
            size, start = int.from_bytes(data[at + 2:at + 10], "big"), at + 10
        if start + size > len(data):
            break
        frames.append((opcode, data[start:start + size]))
        at = start + size
    return frames, data[at:]


def close_code(frames: list[tuple[int, bytes]]) -> int | None:
    closes = [payload for opcode, payload in frames if opcode == 8]
    return int.from_bytes(closes[-1][:2], "big") if closes and len(closes[-1]) >= 2 else None


def test_slow_readers_are_dropped_at_the_queue_bound_and_resync(tmp_path: Path,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    """Spectators of a table of bots playing on their own stop reading: once a queue holds
    ``queue_messages`` the client is dropped (close 4408) and its queue emptied; no queue
    ever holds more (sampled in the server's loop); the reader that keeps reading is
    served throughout; a dropped client reconnects with its last version and gets the
    events it missed."""
    caplog.set_level(logging.INFO)
    bound = 12
    slow_count = 8
    limits = Limits(**{**FAST.__dict__, "queue_messages": bound})
    app = app_for(tmp_path / "games.db", limits=limits)
    with Served(app, limits, send_buffer=8192) as served:
        created = httpx.post(served.url + "/api/games", json={"seats": ["easy", "easy", "easy"], "seed": 3,
                                                              "rules": "standard(target=10000)",
                                                              "next_deal_after": 0.01}).json()
        path = f"/ws/games/{created['id']}"
        slow = []
        for _ in range(slow_count):
            sock = raw_websocket(served.port, path, buffer=2048)
            sock.sendall(frame(json.dumps({"type": "hello", "token": None, "version": None}).encode()))
            slow.append(sock)
        # one of them read its first state before it stopped: it knows a version
        data = b""
        versions: list[int] = []
        slow[0].settimeout(20)
        while not versions:  # its first message with a version (a state or events), however it is split
            data += slow[0].recv(4096)
            versions = [message["version"] for message in (json.loads(p) for op, p in _parse(data)[0] if op == 1)
                        if isinstance(message.get("version"), int)]
        seen_version = versions[0]
        rest = _parse(data)[1]  # the start of the next frame: read on from there below
        largest = 0

        def queues() -> tuple[int, int, int]:
            table = app.state.hall.tables[created["id"]]
            sizes = [c.queue.qsize() for c in table.connections]
            return max(sizes, default=0), len(table.connections), table.version

        deadline = time.monotonic() + 120  # a bound on the test, not a measurement
        while time.monotonic() < deadline:
            most, connections, _ = served.call(queues)
            largest = max(largest, most)
            if connections == 0:
                break
            time.sleep(0.02)
        assert connections == 0, "the slow readers were not dropped"
        assert largest <= bound
        dropped = [close_code(read_frames(sock, data=rest if sock is slow[0] else b"")) for sock in slow]
        assert dropped == [TOO_SLOW_CLOSE] * slow_count
        metrics = httpx.get(served.url + "/metrics").text
        assert f'binokel_refused_total{{reason="too_slow"}} {float(slow_count)}' in metrics
        assert "binokel_connections 0.0" in metrics
        for sock in slow:
            sock.close()
        # back again: the events missed since the version it had seen (or, more than 500
        # behind, the state alone), then the state
        now = served.call(queues)[2]
        for since in (seen_version, now - 3):
            sock = raw_websocket(served.port, path)
            sock.sendall(frame(json.dumps({"type": "hello", "token": None, "version": since}).encode()))
            sock.settimeout(10)
            replies: list[Message] = []
            data = b""
            while len(replies) < 2:
                data += sock.recv(1 << 16)
                parsed, _ = _parse(data)
                replies = [json.loads(p) for op, p in parsed if op == 1]
            missed = replies[0]
            if now - since <= 500:
                assert missed["type"] == "events" and missed["since"] == since and missed["version"] > since
                assert [e["version"] for e in missed["events"]][:1] == [since + 1]
            else:
                assert missed["type"] == "state" and missed["version"] >= now
            sock.sendall(frame(b"\x03\xe8", opcode=8))
            sock.close()
    assert tracebacks(caplog) == []


def test_invalid_utf8_and_vanishing_clients_log_no_traceback(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Frames that are not UTF-8 (whole or split over continuation frames) close with 1007;
    clients that vanish before, during and after their hello, or in the middle of a frame,
    leave no traceback in the log; the server goes on serving."""
    caplog.set_level(logging.INFO)
    limits = FAST
    app = app_for(tmp_path / "games.db", limits=limits)
    with Served(app, limits) as served:
        created = httpx.post(served.url + "/api/games", json={"seats": ["me", "easy", "easy"], "seed": 3}).json()
        path = f"/ws/games/{created['id']}"
        hello = frame(json.dumps({"type": "hello", "token": created["token"]}).encode())
        for bad in (frame(b"\xff\xfe\xfd"), frame(b'{"type": "sync", "x": "\xc3"}'),
                    frame(b'{"type": "sy', fin=False) + frame(b"\xe2\x82", opcode=0)):
            for after_hello in (False, True):
                sock = raw_websocket(served.port, path)
                if after_hello:
                    sock.sendall(hello)
                sock.sendall(bad)
                assert close_code(read_frames(sock)) == 1007
                sock.close()
        for cut in (b"", hello[:5], hello, hello + frame(b'{"type": "sync"}')[:3], hello + frame(b"x" * 200_000)):
            sock = raw_websocket(served.port, path)
            sock.sendall(cut)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0")  # RST, not FIN
            sock.close()
        for route in ("/api/games", "/api/join", "/api/review"):  # HTTP clients gone in the middle of their body
            sock = socket.create_connection(("127.0.0.1", served.port))
            sock.sendall(f"POST {route} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         "Content-Length: 1000\r\n\r\n{\"se".encode())
            time.sleep(0.1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0")
            sock.close()
        time.sleep(0.5)  # let the server notice (the assertions below do not depend on it)
        assert httpx.get(served.url + "/healthz").status_code == 200
        answer = httpx.post(served.url + "/api/games", json={"rules": "standard(target=10000000000)"})
        assert answer.status_code == 400 and answer.json()["code"] == "option_above_maximum"
    assert tracebacks(caplog) == []


def test_a_request_head_sent_slowly_is_cut_off_and_a_prompt_one_is_served(tmp_path: Path) -> None:
    """Slowloris: a client that trickles its request line and headers (a byte now and then,
    never finishing) is disconnected once ``Limits.head_seconds`` have passed since its
    first byte, on a fresh connection and on the next request of a kept-alive one; a client
    that sends its head at once, and a websocket, are served and stay."""
    limits = dataclasses.replace(FAST, head_seconds=0.5)
    app = app_for(tmp_path / "games.db", limits=limits)

    def trickle(sock: socket.socket, text: bytes) -> bool:
        """Send ``text`` a byte every 0.1 s; True if the server closed the connection meanwhile."""
        for byte in text:
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                return True
            readable, _, _ = select.select([sock], [], [], 0.1)
            if readable:
                try:
                    if sock.recv(4096) == b"":
                        return True
                except OSError:
                    return True
        return False

    slow_head = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-Slow: " + b"a" * 200
    with Served(app, limits) as served:
        fresh = socket.create_connection(("127.0.0.1", served.port))
        assert trickle(fresh, slow_head), "a head trickled in over 20 s was not cut off"
        fresh.close()
        kept = socket.create_connection(("127.0.0.1", served.port))  # one prompt request, then a slow one
        kept.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert kept.recv(4096).startswith(b"HTTP/1.1 200")
        assert trickle(kept, slow_head), "the kept-alive connection's slow second head was not cut off"
        kept.close()
        created = httpx.post(served.url + "/api/games", json={"seats": ["me", "easy", "easy"], "seed": 3}).json()
        sock = raw_websocket(served.port, f"/ws/games/{created['id']}")
        time.sleep(1.0)  # twice the deadline: an upgraded connection is past its head
        sock.sendall(frame(json.dumps({"type": "hello", "token": created["token"]}).encode()))
        sock.settimeout(10)
        first = sock.recv(2)
        assert first[:1] == b"\x81", f"the websocket was not answered with a text frame: {first!r}"
        sock.close()
        assert httpx.get(served.url + "/healthz").status_code == 200


def test_the_security_section_lists_every_limit_with_its_default() -> None:
    """docs/server.md, "Security": every setting of ``Limits`` is in the table."""
    from dataclasses import fields

    text = (Path(__file__).resolve().parent.parent / "docs" / "server.md").read_text()
    section = text[text.index("## Security"):text.index("## Concurrency")]
    missing = [f.name for f in fields(Limits) if f"`{f.name}`" not in section]
    assert missing == []


def test_logs_are_one_json_line_per_event_and_client_mistakes_have_no_traceback() -> None:
    from binokel.server.logs import JsonFormatter, QuietClientErrors

    def record(error: Exception, message: str, name: str = "uvicorn.error") -> logging.LogRecord:
        info = (type(error), error, error.__traceback__)
        return logging.LogRecord(name, logging.ERROR, __file__, 1, message, (), info)

    mistake = record(UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
                     "Invalid UTF-8 sequence received from client.")
    QuietClientErrors().filter(mistake)
    assert mistake.exc_info is None and mistake.levelno == logging.INFO
    line = json.loads(JsonFormatter().format(mistake))
    assert line["level"] == "info" and line["event"] == "client_error" and "traceback" not in line
    bug = record(KeyError("a bug"), "Exception in ASGI application", "binokel.server")
    assert QuietClientErrors().filter(bug) and bug.exc_info is not None
    line = json.loads(JsonFormatter().format(bug))
    assert line["level"] == "error" and "KeyError" in line["traceback"] and "\n" not in JsonFormatter().format(bug)


@pytest.mark.parametrize("per_minute, answer", [(1, "too_many_tables"), (2, "rematch")])
def test_a_rematch_counts_as_a_new_table_of_its_address(tmp_path: Path, per_minute: int, answer: str) -> None:
    limits = Limits(**{**FAST.__dict__, "tables_per_minute": per_minute})
    with TestClient(app_for(tmp_path / "games.db", limits=limits), base_url=LOCAL) as client:
        game = create(client, seats=["me", "easy", "easy"], rules="standard(deals=1)", grace=0)
        with client.websocket_connect(ws_url(f"/ws/games/{game['id']}")) as line:
            spectator = ModelSocket(line)  # snapshots and updates come as the model after them
            spectator.send_json({"type": "hello", "token": None})  # wakes the table: a stand-in plays for seat 0
            for _ in range(5000):  # bounded: one deal of a few dozen steps
                message = spectator.receive_json()
                if message["type"] == "state" and message["game"]["over"]:
                    break
            assert message["game"]["over"]
        with client.websocket_connect(ws_url(f"/ws/games/{game['id']}")) as ws:
            ws.send_json({"type": "hello", "token": game["token"]})
            ws.send_json({"type": "rematch"})
            for _ in range(20):
                message = ws.receive_json()
                if message["type"] in ("error", "rematch"):
                    break
            assert message.get("code", message["type"]) == answer


@settings(max_examples=300, deadline=None)
@given(name=st.from_regex(r"[a-z0-9-]{1,20}(\.[a-z0-9-]{1,10}){0,3}", fullmatch=True),
       port=st.none() | st.integers(1, 65535))
def test_no_other_name_passes_the_host_check(name: str, port: int | None) -> None:
    """Whatever name a page makes point at this computer, a local server refuses it; a server
    open to the network accepts it only if it is an IP address (a name is never rebound to)."""
    import ipaddress

    host = name if port is None else f"{name}:{port}"
    local, network = Names.for_server("127.0.0.1"), Names.for_server("0.0.0.0")
    try:
        ipaddress.ip_address(name)
        is_ip = True
    except ValueError:
        is_ip = False
    assert local.allows(host) == (name in ("localhost", "127.0.0.1"))
    assert network.allows(host) == (is_ip or name == "localhost")


@pytest.mark.parametrize("name, values", [("host", ("127.0.0.1:8000", "evil.example")),
                                          ("host", ("evil.example", "127.0.0.1:8000")),
                                          ("origin", (LOCAL, "https://evil.example")),
                                          ("origin", ("https://evil.example", LOCAL))])
def test_a_request_with_two_hosts_or_origins_is_refused_and_changes_nothing(client: TestClient, tmp_path: Path,
                                                                          name: str, values: tuple[str, str]) -> None:
    """RFC 9112: several Host headers are a 400. The gate reads one; a proxy in front, or
    the app, might take the other (found by a probe: the first was checked, the second let
    through). Nothing is stored."""
    headers = [("content-type", "application/json"), *((name, value) for value in values)]
    if name == "origin":
        headers.append(("host", "127.0.0.1:8000"))
    for method, path in (("GET", "/api/meta"), ("POST", "/api/games")):
        response = client.request(method, path, headers=headers, content=b'{"seats": ["me", "easy", "easy"]}')
        assert response.status_code == 400, (method, response.text)
        assert response.json() == {"error": f"headers.{name} is not valid: sent more than once", "code": "bad_request",
                                   "params": {"field": f"headers.{name}", "reason": "sent more than once"}}
    with contextlib.closing(__import__("sqlite3").connect(tmp_path / "games.db")) as db:
        assert db.execute("SELECT count(*) FROM games").fetchone()[0] == 0
    assert client.post("/api/games", json={"seats": ["me", "easy", "easy"]},
                       headers={"origin": LOCAL}).status_code == 200  # one of each still passes


def test_spectators_coming_and_going_are_told_calmly() -> None:
    """A burst of presence changes by spectators is one message at once, then one more, as
    things are then, when the calm has passed (``Channel.broadcast_calmly``); a seat's own
    change is told at once even while one waits."""
    from binokel.server.channel import Channel, Connection

    async def run() -> list[dict[str, Any]]:
        channel = Channel()
        seat = Connection(0, Limits())
        channel.connections.add(seat)
        counter = {"n": 0}

        def presence() -> dict[str, Any]:
            return {"type": "presence", "n": counter["n"]}

        for _ in range(100):
            counter["n"] += 1
            channel.broadcast_calmly(presence, 0.05)
        assert seat.queue.qsize() == 1  # the first at once, the others wait
        channel.broadcast_calmly(presence, 0.0)  # a seat's change: at once
        assert seat.queue.qsize() == 2
        await asyncio.sleep(0.2)
        return [json.loads(text) for text in (seat.queue.get_nowait() for _ in range(seat.queue.qsize()))
                if text is not None]

    told = asyncio.run(run())
    assert [message["n"] for message in told] == [1, 100, 100]


def test_a_stranger_coming_and_going_as_a_spectator_does_not_flood_the_seats(tmp_path: Path) -> None:
    """Found by a probe: one client connecting and leaving as a spectator 930 times in 5 s
    sent the seat 1,860 presence messages (650 KB), enough to push a player on a slow line
    over its queue's bound (dropped, 4408). Now the seat hears of it calmly."""
    limits = dataclasses.replace(FAST, presence_seconds=3600.0)
    with TestClient(app_for(tmp_path / "games.db", limits=limits), base_url=LOCAL) as client:
        game = create(client, seats=["me", "easy", "easy"])
        with client.websocket_connect(ws_url(f"/ws/games/{game['id']}")) as seat:
            seat.send_json({"type": "hello", "token": game["token"]})
            while seat.receive_json()["type"] != "presence":
                pass
            for _ in range(30):
                with client.websocket_connect(ws_url(f"/ws/games/{game['id']}")) as watcher:
                    watcher.send_json({"type": "hello", "token": None})
                    assert watcher.receive_json()["type"] == "state"
            seat.send_json({"type": "sync"})
            told = []
            while (message := seat.receive_json())["type"] != "state":
                told.append(message["type"])
            assert told.count("presence") <= 2, told
            assert message["seat"] == 0  # the seat is served as ever


@pytest.mark.parametrize("name", ["Ann\u202e", "Ann\u0000", "Ann\u200fB", "\u200b", " ", "A" * 41])
def test_a_score_pad_player_name_with_control_characters_or_too_long_is_refused(client: TestClient, tmp_path: Path,
                                                                                name: str) -> None:
    """Found by a probe: ``POST /api/pad`` stored "A\\u0000" and a right-to-left override as
    names (the game's and the club's names refuse them) and cut a 5,000-character name
    to 40 without a word. Now 400 ``pad_name`` naming the field, and nothing is stored;
    spaces are squeezed, as a table's names are (a blank name is the core's ``pad_names``:
    every player needs a name)."""
    with contextlib.closing(__import__("sqlite3").connect(tmp_path / "games.db")) as db:
        before = db.execute("SELECT count(*) FROM games").fetchone()[0]
    answer = client.post("/api/pad", json={"rules": "standard", "players": ["Ben", name, "Cleo"]})
    assert answer.status_code == 400, answer.text
    if name.isspace():
        assert answer.json() == {"error": "players: every player needs a name of their own",
                                 "code": "pad_names", "params": {"field": "players"}}
    else:
        assert answer.json() == {"error": "players: a name of 1 to 40 characters, without control characters",
                                 "code": "pad_name", "params": {"field": "players", "max": 40}}
    with contextlib.closing(__import__("sqlite3").connect(tmp_path / "games.db")) as db:
        assert db.execute("SELECT count(*) FROM games").fetchone()[0] == before
    made = client.post("/api/pad", json={"rules": "standard", "players": ["Ben", " Zoë\u00a0Ann-Marie\t", "Cleo"]})
    assert made.status_code == 200 and made.json()["sheet"]["players"][1] == "Zoë Ann-Marie"  # spaces squeezed
