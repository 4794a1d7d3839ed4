"""Abuse from outside: each hole an outside probe found, with a test that failed
before it was closed. Where the hole is about sockets or time the test runs a real uvicorn
server on a loopback port (``Served`` of ``test_server_hostile``)."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import select
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

import httpx
from fastapi.testclient import TestClient

from binokel.server.limits import Limits
from server_support import ModelSocket, Saved
from test_server_hostile import CODES, FAST, LOCAL, Served, _parse, app_for, frame, raw_websocket

Message = dict[str, Any]
@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(app_for(tmp_path / "games.db"), base_url=LOCAL) as test_client:
        yield test_client


def refusal(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """The protocol's refusal (text, a catalogue code, its params) with ``status``."""
    assert response.status_code == status, response.text
    answer = response.json()
    assert set(answer) == {"error", "code", "params"} and answer["code"] == code, answer
    assert code in CODES and isinstance(answer["params"], dict) and answer["error"]
    return dict(answer)


# ---------------------------------------------------------------------- 12: 404 and 405


@pytest.mark.parametrize(("method", "path", "status", "code"), [
    ("GET", "/nothing-here", 404, "not_found"),
    ("GET", "/api/nothing", 404, "not_found"),
    ("GET", "/static/no-such-file.js", 404, "not_found"),
    ("PUT", "/api/games", 405, "method_not_allowed"),
    ("GET", "/api/join", 405, "method_not_allowed"),
])
def test_unknown_routes_and_methods_answer_in_the_protocols_format(client: TestClient, method: str, path: str,
                                                                   status: int, code: str) -> None:
    headers = {"Content-Type": "application/json"} if method == "PUT" else {}
    answer = refusal(client.request(method, path, headers=headers), status, code)
    assert "detail" not in answer


# ---------------------------------------------------------------------- 11: health and metrics


def test_healthz_is_minimal_and_metrics_are_for_this_computer(tmp_path: Path) -> None:
    """From another address /healthz says only ok, and /metrics is refused; from this
    computer both say more (the process's name, the tables); ``public_metrics`` opens them."""
    for public in (False, True):
        app = app_for(tmp_path / f"games{public}.db", public_metrics=public)
        with TestClient(app, base_url=LOCAL, client=("203.0.113.9", 4000)) as outside:
            health = outside.get("/healthz")
            assert health.status_code == 200
            if public:
                assert "process" in health.json()
                assert outside.get("/metrics").status_code == 200
            else:
                assert health.json() == {"ok": True}
                refusal(outside.get("/metrics"), 404, "not_found")
        with TestClient(app, base_url=LOCAL, client=("127.0.0.1", 4000)) as local:
            assert local.get("/healthz").json()["process"]
            assert "binokel_" in local.get("/metrics").text
            # a request a local proxy forwards is not this computer's
            forwarded = local.get("/healthz", headers={"X-Forwarded-For": "203.0.113.9"}).json()
            assert ("process" in forwarded) == public


# ---------------------------------------------------------------------- 5, 4, 8: the transport


def answer_of(sock: socket.socket, seconds: float = 10.0) -> bytes:
    """What the server sends until it closes the connection (or ``seconds`` pass)."""
    sock.settimeout(seconds)
    data = b""
    with contextlib.suppress(TimeoutError, ConnectionResetError):
        while chunk := sock.recv(65536):
            data += chunk
    return data


def json_of(answer: bytes) -> Message:
    return dict(json.loads(answer.partition(b"\r\n\r\n")[2]))


def test_a_request_head_over_the_bound_gets_431(tmp_path: Path) -> None:
    """A header line of 200 KB (sent at once, well inside the head's deadline) is refused
    with 431 and the protocol's error; a head just under the bound is served."""
    limits = dataclasses.replace(FAST, head_bytes=16 * 1024)
    with Served(app_for(tmp_path / "games.db", limits=limits), limits) as served:
        for size, status in ((200_000, b"431"), (15_000, b"200")):
            sock = socket.create_connection(("127.0.0.1", served.port))
            with contextlib.suppress(OSError):  # the server may close before it has read it all
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-Big: "
                             + b"a" * size + b"\r\n\r\n")
            answer = answer_of(sock)
            sock.close()
            assert answer.split(b" ")[1] == status, answer[:200]
            if status == b"431":
                assert json_of(answer)["code"] == "head_too_large" and json_of(answer)["params"]["max"] == 16384
        assert httpx.get(served.url + "/healthz").status_code == 200


def test_a_slow_body_is_cut_off_and_a_prompt_one_is_served(tmp_path: Path) -> None:
    """A body that trickles in (10 bytes every 0.2 s) is cut off with 408 once
    ``body_seconds`` have passed and it came slower than ``body_bytes_per_second``; a body
    sent at once is served."""
    limits = dataclasses.replace(FAST, body_seconds=0.5, body_bytes_per_second=1000)
    with Served(app_for(tmp_path / "games.db", limits=limits), limits) as served:
        body = json.dumps({"seats": ["me", "easy", "easy"], "name": "x" * 900}).encode()
        head = (f"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode()
        sock = socket.create_connection(("127.0.0.1", served.port))
        sock.sendall(head)
        closed = False  # the server answered (or closed) before the whole body was sent
        for at in range(0, len(body), 10):
            try:
                sock.sendall(body[at:at + 10])
            except OSError:
                closed = True
                break
            readable, _, _ = select.select([sock], [], [], 0.2)
            if readable and at + 10 < len(body):
                closed = True
                break
        assert closed, "a body trickled in at 50 bytes a second was not cut off"
        answer = answer_of(sock)
        sock.close()
        assert answer.startswith(b"HTTP/1.1 408") and json_of(answer)["code"] == "body_too_slow", answer[:300]
        prompt = httpx.post(served.url + "/api/games", content=body, headers={"Content-Type": "application/json"})
        assert prompt.status_code == 400 and prompt.json()["code"] == "name_length"  # read whole, then judged


def test_http_connections_per_address_are_bounded(tmp_path: Path) -> None:
    """One address holds ``http_connections_per_address`` connections (idle ones, trickling
    ones, websockets together); the next is refused with 429 and closed; once one closes,
    the address connects again."""
    limits = dataclasses.replace(FAST, http_connections_per_address=5)
    with Served(app_for(tmp_path / "games.db", limits=limits), limits) as served:
        created = httpx.post(served.url + "/api/games", json={"seats": ["me", "easy", "easy"]}).json()
        held = [socket.create_connection(("127.0.0.1", served.port)) for _ in range(4)]
        held.append(raw_websocket(served.port, f"/ws/games/{created['id']}"))
        time.sleep(0.2)  # the server has accepted them (a refusal below does not depend on it)
        extra = socket.create_connection(("127.0.0.1", served.port))
        with contextlib.suppress(OSError):
            extra.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        answer = answer_of(extra)
        extra.close()
        assert answer.startswith(b"HTTP/1.1 429"), answer[:200]
        assert json_of(answer)["code"] == "too_many_connections_address"
        held.pop().close()  # the websocket goes: room for one
        for _ in range(100):
            sock = socket.create_connection(("127.0.0.1", served.port))
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            answer = answer_of(sock)
            sock.close()
            if answer.startswith(b"HTTP/1.1 200"):
                break
            time.sleep(0.05)  # the server has not seen the websocket go yet
        assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
        for sock in held:
            sock.close()


@pytest.mark.parametrize("trusted", [None, "127.0.0.1"])
def test_forwarded_addresses_count_only_from_a_trusted_proxy(tmp_path: Path, trusted: str | None) -> None:
    """Every request names another address in X-Forwarded-For: by default nobody is trusted
    to say so (the per-address quota of new tables holds: the third is refused); with
    ``forwarded_allow_ips`` naming the proxy, each forwarded address has its own quota."""
    limits = dataclasses.replace(FAST, tables_per_minute=2)
    options = {} if trusted is None else {"forwarded_allow_ips": trusted}
    with Served(app_for(tmp_path / "games.db", limits=limits), limits, **options) as served:
        codes = [httpx.post(served.url + "/api/games", json={"seats": ["me", "easy", "easy"]},
                            headers={"X-Forwarded-For": f"198.51.100.{n}"}).status_code for n in range(3)]
    assert codes == ([200, 200, 429] if trusted is None else [200, 200, 200])


# ---------------------------------------------------------------------- 3: spectators and seats


def hello_from(port: int, path: str, token: str | None, source: str = "127.0.0.1") -> tuple[socket.socket, Message]:
    """A websocket from ``source`` (any 127.x address is this computer) that said hello; its
    first message (an error if refused)."""
    sock = socket.create_connection(("127.0.0.1", port), source_address=(source, 0))
    sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    data = b""
    sock.settimeout(10)
    while b"\r\n\r\n" not in data:
        data += sock.recv(1)
    assert data.startswith(b"HTTP/1.1 101"), data
    sock.sendall(frame(json.dumps({"type": "hello", "token": token}).encode()))
    data = b""
    while not (texts := [p for op, p in _parse(data)[0] if op == 1]):
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return sock, json.loads(texts[0]) if texts else {}


def test_spectators_cannot_lock_a_player_out_of_their_seat(tmp_path: Path) -> None:
    """Spectators from many addresses fill their room at a table (and one address its own
    share): the next is refused, while the seat's holder, and a second tab of theirs, still
    connect; a seat's tabs have their own bound."""
    limits = dataclasses.replace(FAST, spectators_per_table=6, spectators_per_address=3, tabs_per_seat=2,
                                 connections_per_address=100)
    with Served(app_for(tmp_path / "games.db", limits=limits), limits) as served:
        created = httpx.post(served.url + "/api/games", json={"seats": ["me", "easy", "easy"]}).json()
        path = f"/ws/games/{created['id']}"
        held = []
        for source in ("127.0.0.2", "127.0.0.3"):
            for _ in range(3):
                sock, first = hello_from(served.port, path, None, source)
                assert first["type"] in ("events", "state"), first
                held.append(sock)
        one_more, refused = hello_from(served.port, path, None, "127.0.0.4")
        assert refused["code"] == "too_many_spectators", refused
        by_address, refused = hello_from(served.port, path, None, "127.0.0.2")
        assert refused["code"] == "too_many_spectators_address", refused
        for _ in range(2):  # the seat's holder, and their second tab
            sock, first = hello_from(served.port, path, created["token"], "127.0.0.2")
            assert first["type"] in ("events", "state") and first.get("seat", 0) == 0, first
            held.append(sock)
        third_tab, refused = hello_from(served.port, path, created["token"])
        assert refused["code"] == "too_many_tabs", refused
        for sock in (*held, one_more, by_address, third_tab):
            sock.close()


# ---------------------------------------------------------------------- 6: a creator's seed


def test_a_creator_chosen_seed_is_taken_only_where_every_other_seat_is_a_bot(tmp_path: Path) -> None:
    """The deals are a function of the seed: its chooser would know every friend's hand. A
    seed with a seat for a friend is refused (nothing stored); with bots only it is taken;
    without one the server draws it (two tables, two different first deals)."""
    limits = dataclasses.replace(FAST, seeds_with_friends=False)
    assert Limits().seeds_with_friends  # the tests' environment; a public server's default is off
    with TestClient(app_for(tmp_path / "games.db", limits=limits), base_url=LOCAL) as client:
        _seeds(client)


def _seeds(client: TestClient) -> None:
    for seats in (["me", "open", "easy"], ["open", "open", "easy"], ["me", "open", "open", "open"]):
        body = {"seats": seats, "seed": 5, **({"rules": "four-solo"} if len(seats) == 4 else {})}
        refusal(client.post("/api/games", json=body), 400, "seed_with_friends")
    assert client.post("/api/my-games", json={"tokens": []}).json()["games"] == []
    assert client.post("/api/games", json={"seats": ["me", "easy", "hard"], "seed": 5}).status_code == 200
    assert client.post("/api/games", json={"seats": ["easy", "easy", "hard"], "seed": 5}).status_code == 200
    hands = []
    for _ in range(2):
        created = client.post("/api/games", json={"seats": ["me", "open", "easy"]}).json()
        with client.websocket_connect(f"ws://127.0.0.1:8000/ws/games/{created['id']}") as ws:
            ws.send_json({"type": "hello", "token": created["token"]})
            while (message := ws.receive_json())["type"] != "state":
                pass
            hands.append(message["view"]["hand"])
    assert hands[0] != hands[1]


# ---------------------------------------------------------------------- 13: chat is for the seats


def test_chat_is_for_the_seats_and_spectators_read_none_of_it(client: TestClient) -> None:
    """The people at a table chat; a spectator (anybody with the game id) is sent neither the
    recent lines on connecting nor the new ones."""
    created = client.post("/api/games", json={"seats": ["me", "easy", "easy"]}).json()
    url = f"ws://127.0.0.1:8000/ws/games/{created['id']}"
    with client.websocket_connect(url) as player:
        player.send_json({"type": "hello", "token": created["token"]})
        player.send_json({"type": "chat", "text": "my hand is weak"})
        while (message := player.receive_json())["type"] != "chat":
            pass
        assert message["text"] == "my hand is weak"
        with client.websocket_connect(url) as spectator:
            spectator.send_json({"type": "hello", "token": None})
            player.send_json({"type": "chat", "text": "second line"})
            while (message := player.receive_json())["type"] != "chat":
                pass
            spectator.send_json({"type": "events", "since": 0})  # its answer comes after anything told before
            seen = []
            while (message := spectator.receive_json())["type"] != "events" or message["since"] != 0:
                seen.append(message)
            assert [m for m in seen if m["type"] in ("chat", "chat_log")] == []


# ---------------------------------------------------------------------- 1: events replay floods


def bot_table(served: Served, **body: Any) -> str:
    """A table of bots playing on their own, fast (its id)."""
    created = httpx.post(served.url + "/api/games", json={"seats": ["easy", "easy", "easy"], "seed": 3,
                                                          "rules": "standard(target=10000)",
                                                          "next_deal_after": 0.01, **body}).json()
    return str(created["id"])


class Reader:
    """The server's text messages on a raw websocket, read on from where the last look ended."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.rest = b""
        self.client = ModelSocket()  # snapshots and updates come as the model after them

    def until(self, done: Any, seconds: float = 20.0) -> list[Message]:
        """Messages read until ``done(messages)`` (bounded by ``seconds``)."""
        self.sock.settimeout(seconds)
        messages: list[Message] = []
        deadline = time.monotonic() + seconds
        while not done(messages) and time.monotonic() < deadline:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                break
            frames, self.rest = _parse(self.rest + chunk)
            messages += [self.client.take(json.loads(p)) for op, p in frames if op == 1]
        return messages


def test_events_requests_are_capped_and_rated(tmp_path: Path) -> None:
    """``{"type": "events", "since": 0}`` on a long game is refused (``events_too_far``; a
    request near the present is answered), and a connection asking again and again is
    refused past ``events_per_minute`` (``too_many_events``)."""
    limits = dataclasses.replace(FAST, events_versions=5, events_per_minute=3)
    app = app_for(tmp_path / "games.db", limits=limits)
    with Served(app, limits) as served:
        game = bot_table(served)
        sock = raw_websocket(served.port, f"/ws/games/{game}")
        sock.sendall(frame(json.dumps({"type": "hello", "token": None}).encode()))  # a watcher: the bots play
        reader = Reader(sock)
        seen = reader.until(lambda messages: any(m.get("version", 0) >= 12 for m in messages), 60)
        assert any(m.get("version", 0) >= 12 for m in seen)
        now = served.call(lambda: app.state.hall.tables[game].version)
        requests = [0, now - 2, now - 2, now - 2]
        for since in requests:
            sock.sendall(frame(json.dumps({"type": "events", "since": since}).encode()))

        def answers(messages: list[Message]) -> list[Message]:
            return [m for m in messages if m["type"] == "error" or (m["type"] == "events" and m["since"] in requests)]

        got = answers(reader.until(lambda messages: len(answers(messages)) >= 4))
        sock.close()
        assert [m.get("code", "events") for m in got] == ["events_too_far", "events", "events", "too_many_events"]


def test_a_reader_that_stops_is_dropped_by_the_bytes_it_lets_wait(tmp_path: Path) -> None:
    """A spectator that stops reading is dropped (4408) once its queue holds ``queue_bytes``,
    though far fewer messages than ``queue_messages`` wait."""
    limits = dataclasses.replace(FAST, queue_messages=100_000, queue_bytes=64 * 1024)
    app = app_for(tmp_path / "games.db", limits=limits)
    with Served(app, limits, send_buffer=8192) as served:
        game = bot_table(served)
        sock = raw_websocket(served.port, f"/ws/games/{game}", buffer=2048)
        sock.sendall(frame(json.dumps({"type": "hello", "token": None}).encode()))
        largest = 0

        def queue() -> tuple[int, int]:
            table = app.state.hall.tables[game]
            return max((c.queue_bytes for c in table.connections), default=0), len(table.connections)

        deadline = time.monotonic() + 60  # a bound on the test, not a measurement
        connections = 1
        while connections and time.monotonic() < deadline:
            held, connections = served.call(queue)
            largest = max(largest, held)
            time.sleep(0.02)
        assert connections == 0, "the reader was not dropped"
        assert largest <= 64 * 1024
        sock.close()


# ---------------------------------------------------------------------- 7: the next deal after a restart


def test_a_table_at_its_score_sheet_deals_again_after_a_restart(tmp_path: Path) -> None:
    """An all-bot table with ``next_deal_after`` reaches its score sheet; the server stops
    before the deadline (a restart, kill -9, eviction or another process: the deadline
    was only in this process's memory); the next server, asked about the table, deals
    the next deal by itself once the deadline (read from the stored log) has passed."""
    db = tmp_path / "games.db"
    first = app_for(db)
    with Served(first, FAST) as served:
        created = httpx.post(served.url + "/api/games", json={
            "seats": ["easy", "easy", "easy"], "rules": "standard(target=10000)", "next_deal_after": 3}).json()
        game = created["id"]
        sock = raw_websocket(served.port, f"/ws/games/{game}")
        sock.sendall(frame(json.dumps({"type": "hello", "token": None}).encode()))
        reader = Reader(sock)

        def over(messages: list[Message]) -> bool:
            return any(m["type"] == "state" and m["view"]["phase"] == "over" for m in messages)

        assert over(reader.until(over, 60)), "the first deal did not end"
        sock.close()
    at_sheet = Saved(db).load(game)
    assert at_sheet is not None
    second = app_for(db)
    with Served(second, FAST) as served:
        sock = raw_websocket(served.port, f"/ws/games/{game}")
        sock.sendall(frame(json.dumps({"type": "hello", "token": None}).encode()))
        reader = Reader(sock)

        def dealt(messages: list[Message]) -> bool:
            return any(m["type"] == "state" and m["version"] > at_sheet.version for m in messages)

        assert dealt(reader.until(dealt, 30)), "the table never dealt again"
        sock.close()


# ---------------------------------------------------------------------- 2: reviews in the pool, with quotas


def test_reviews_think_in_the_pool_under_quotas(tmp_path: Path) -> None:
    """A table's review is worked out in the hall's pool (as a help job, never in the
    table's own slot) and an address past ``reviews_per_minute`` is refused
    (``too_many_reviews``); so is a table past ``table_reviews_per_minute``, from any address."""
    limits = dataclasses.replace(FAST, reviews_per_minute=2, table_reviews_per_minute=3, pool="thread")
    app = app_for(tmp_path / "games.db", limits=limits)
    with TestClient(app, base_url=LOCAL) as client:
        created = client.post("/api/games", json={"seats": ["easy", "easy", "easy"], "seed": 4,
                                                  "rules": "standard(deals=1)"}).json()
        with client.websocket_connect(f"ws://127.0.0.1:8000/ws/games/{created['id']}") as connected:
            ws = ModelSocket(connected)
            ws.send_json({"type": "hello", "token": None})
            for _ in range(5000):  # bounded: one deal of a few dozen steps
                message = ws.receive_json()
                if message["type"] == "state" and message["game"]["over"]:
                    break
        url = f"/api/games/{created['id']}/review?deal=0&seat=0"
        assert [client.get(url).status_code for _ in range(2)] == [200, 200]
        assert ("help:" + created["id"], False) in app.state.hall.pool.started_jobs
        refusal(client.get(url), 429, "too_many_reviews")
    with TestClient(app, base_url=LOCAL, client=("203.0.113.7", 1)) as other:  # another address: the table's quota
        assert other.get(url).status_code == 200
        refusal(other.get(url), 429, "too_many_reviews")


def test_help_jobs_leave_the_other_slots_to_bot_moves() -> None:
    """With ``help_slots`` 1 of 2 slots, reviews of three tables run one at a time, and a bot
    move that comes meanwhile starts at once in the other slot."""
    import asyncio
    import random
    import threading

    from binokel.ai import make_bot
    from binokel.server.pool import Pool
    from binokel.state import State
    from binokel.view import view

    seen = view(State.new("standard", dealer=0).deal_random(random.Random(1)), 1)
    release = threading.Event()
    running: list[int] = []
    most = 0
    lock = threading.Lock()

    def slow(n: int) -> int:
        nonlocal most
        with lock:
            running.append(n)
            most = max(most, len(running))
        release.wait(10)
        with lock:
            running.remove(n)
        return n

    async def scenario() -> tuple[list[int], str]:
        pool = Pool("thread", workers=2, help_slots=1)
        await pool.start()
        try:
            import functools
            reviews = [asyncio.ensure_future(pool.run(f"t{n}", functools.partial(slow, n))) for n in range(3)]
            await asyncio.sleep(0.2)
            move = await asyncio.wait_for(pool.think("t9", make_bot("easy"), seen, random.Random(2), 0.01), 10)
            release.set()
            return list(await asyncio.gather(*reviews)), str(move)
        finally:
            release.set()
            await pool.stop()

    answers, move = asyncio.run(scenario())
    assert answers == [0, 1, 2] and most == 1
    assert move in {str(a) for a in seen.legal_actions}


# ---------------------------------------------------------------------- 9: guessing invite codes


def test_wrong_invite_codes_have_one_budget_for_every_address(tmp_path: Path) -> None:
    """Wrong short codes from ever new addresses spend one budget
    (``failed_codes_per_minute``): past it a short code is refused (``too_many_guesses``)
    from any address, while a seat's long link code (unguessable) still works."""
    limits = dataclasses.replace(FAST, failed_codes_per_minute=5)
    app = app_for(tmp_path / "games.db", limits=limits)
    with TestClient(app, base_url=LOCAL) as client:
        created = client.post("/api/games", json={"seats": ["me", "open", "easy"]}).json()
        for n in range(5):
            stranger = TestClient(app, base_url=LOCAL, client=(f"198.51.100.{n}", 1))
            refusal(stranger.post("/api/invite", json={"code": f"2222-222{n + 2}"}), 404, "bad_code")
        late = TestClient(app, base_url=LOCAL, client=("203.0.113.50", 1))
        answer = refusal(late.post("/api/invite", json={"code": "3333-3333"}), 429, "too_many_guesses")
        assert answer["params"]["max"] == 5
        link = created["invites"]["seats"][0]["code"]
        assert late.post("/api/invite", json={"code": link}).status_code == 200


# ---------------------------------------------------------------------- 10: outage lines that flap


def test_a_flapping_disk_is_one_outage_in_the_log(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A nearly full disk refuses some writes and takes others, by turns: one "write failed"
    line and no "works again" while writes are still being refused within the calm window;
    a write that lands after the calm ends the outage with one line. On a read-only file a
    write that changes nothing (it commits) is no news."""
    from binokel.server.outage import Outage
    from binokel.server.storage import StorageUnavailable, open_store
    from binokel.server.storage.base import Seat

    clock = [0.0]
    outage = Outage(calm=5.0, clock=lambda: clock[0])
    with caplog.at_level(logging.WARNING, "binokel"):
        for _ in range(50):
            clock[0] += 0.1
            outage.failed("a step", "disk full")
            clock[0] += 0.1
            outage.ok()
        clock[0] += 5.0
        outage.ok()
    lines = [r.getMessage() for r in caplog.records if r.name == "binokel.server"]
    flags = [("refuses" in line, "takes writes again" in line) for line in lines]
    assert flags == [(True, False), (False, True)], lines
    caplog.clear()

    with open_store(tmp_path / "games.sqlite3") as store, caplog.at_level(logging.WARNING, "binokel.storage"):
        store.calm = 0.3  # type: ignore[attr-defined]
        store.create("g1", rules="standard", settings={}, seed=1, first_dealer=0, seats=[Seat("bot", "easy", "B")])
        big = {"blob": "x" * 200_000}
        version = 0
        for _ in range(10):  # full, space, full, space ...
            store.set_max_size(store.size())
            with pytest.raises(StorageUnavailable):
                store.append("g1", version, [big])
            store.set_max_size(None)
            version = store.append("g1", version, [{"n": version}])
        time.sleep(0.4)  # calm
        store.append("g1", version, [{"n": version}])
    lines = [r.getMessage() for r in caplog.records if r.name == "binokel.storage"]
    assert [("write failed" in line, "work again" in line) for line in lines] == [(True, False), (False, True)], lines
    caplog.clear()

    path = tmp_path / "games.sqlite3"
    with open_store(f"file:{path}?mode=ro") as store, caplog.at_level(logging.WARNING, "binokel.storage"):
        with pytest.raises(StorageUnavailable):
            store.append("g1", 21, [{"n": 1}])
        with contextlib.suppress(Exception):
            store.append("no-such-game", 0, [{"n": 1}])  # refused before anything is written: commits
        with contextlib.suppress(Exception):
            store.append("g1", 0, [{"n": 1}])  # a stale version: the same
    lines = [r.getMessage() for r in caplog.records if r.name == "binokel.storage"]
    assert not any("work again" in line for line in lines), lines
