"""Abuse from outside (issue 27): each hole an outside probe found, with a test that failed
before it was closed. Where the hole is about sockets or time the test runs a real uvicorn
server on a loopback port (``Served`` of ``test_server_hostile``)."""

from __future__ import annotations

import contextlib
import dataclasses
import json
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

from binokel.i18n import catalogue
from binokel.server.app import create_app
from test_server_hostile import FAST, LOCAL, Served, _parse, frame, raw_websocket

Message = dict[str, Any]
CODES = {key.removeprefix("error.") for key in catalogue("en")["strings"] if key.startswith("error.")}


def app_for(db: Path | str, **options: Any) -> Any:
    options.setdefault("limits", FAST)
    return create_app(db, think=0, budget=0.01, **options)


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
