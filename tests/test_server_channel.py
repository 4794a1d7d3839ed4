"""A connection's messages (server/channel.py) leave in the order they were posted, written at
once while the socket takes them (server/transport.py: ``Immediate``) and through the queue
and the app's sender otherwise; under uvicorn the socket's own write is what is used."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx

from binokel.server.channel import Connection
from binokel.server.limits import Limits
from test_server_hostile import FAST, Served, _parse, app_for, frame, raw_websocket


class Socket:
    """A stand-in for the socket's write at once: takes a text while ``open``."""

    def __init__(self) -> None:
        self.open = True
        self.written: list[str] = []

    def write_now(self, text: str) -> bool:
        if self.open:
            self.written.append(text)
        return self.open


def test_a_message_is_written_at_once_while_the_socket_takes_it() -> None:
    socket = Socket()
    connection = Connection(0, Limits(), write_now=socket.write_now)
    connection.post({"type": "beat"})
    connection.post("second")
    assert socket.written == ['{"type": "beat"}', "second"] and connection.queue.empty()


def test_once_a_message_waits_the_later_ones_wait_behind_it() -> None:
    """The socket's buffer is full: the message is queued, and so is every later one, though
    the socket takes them again, until the sender has the queue empty (the order is kept)."""
    socket = Socket()
    connection = Connection(0, Limits(), write_now=socket.write_now)
    connection.post("first")
    socket.open = False
    connection.post("second")
    socket.open = True
    connection.post("third")
    assert socket.written == ["first"]
    assert [connection.queue.get_nowait() for _ in range(2)] == ["second", "third"]
    connection.sending = True  # the sender holds "third" (its send waits for the buffer to drain)
    connection.post("fourth")
    assert connection.queue.get_nowait() == "fourth" and socket.written == ["first"]
    connection.sending = False
    connection.post("fifth")
    assert socket.written == ["first", "fifth"]


def test_a_written_message_counts_as_told_and_a_dropped_connection_writes_nothing() -> None:
    socket = Socket()
    connection = Connection(0, Limits(), write_now=socket.write_now)
    connection.told_at = 0.0
    connection.post("told")
    assert connection.told_at > 0.0
    connection.drop()
    connection.post("after the drop")
    assert socket.written == ["told"]


def test_under_uvicorn_a_seat_is_told_through_the_sockets_own_write(tmp_path: Path) -> None:
    """A real server: the connection has the socket's write at once, and what a table of bots
    tells a spectator arrives whole and in order of version."""
    app = app_for(tmp_path / "games.db")
    with Served(app, FAST) as served:
        created = httpx.post(served.url + "/api/games", json={"seats": ["easy", "easy", "easy"], "seed": 5,
                                                              "rules": "standard(target=10000)"}).json()
        sock = raw_websocket(served.port, f"/ws/games/{created['id']}")
        sock.sendall(frame(json.dumps({"type": "hello", "token": None}).encode()))
        messages: list[dict[str, Any]] = []
        rest = b""
        sock.settimeout(20)
        deadline = time.monotonic() + 60  # a bound on the test, not a measurement
        while len(messages) < 12 and time.monotonic() < deadline:
            frames, rest = _parse(rest + sock.recv(1 << 16))
            messages += [json.loads(payload) for op, payload in frames if op == 1]

        def writes() -> list[bool]:
            return [c.write_now is not None for c in app.state.hall.tables[created["id"]].connections]

        assert served.call(writes) == [True]
        sock.close()
    versions = [m["version"] for m in messages if m["type"] in ("state", "update")]
    assert messages[0]["type"] == "state" and len(versions) >= 3
    assert versions == sorted(versions) and len(set(versions)) == len(versions)


def test_without_the_sockets_write_every_message_goes_through_the_queue() -> None:
    async def main() -> list[str | None]:
        connection = Connection(None, Limits())
        connection.post("one")
        connection.post("two")
        return [await connection.next_message(), await connection.next_message()]

    assert asyncio.run(main()) == ["one", "two"]
