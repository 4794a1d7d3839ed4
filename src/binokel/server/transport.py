"""How the server meets the network: uvicorn's settings in one place, and the bounds on
what one connection may do before the app sees its request.

:func:`uvicorn_config` is what ``binokel serve`` (and the tests' real servers) run: frames
larger than ``Limits.frame_bytes`` are refused by the transport (close 1009) before they
are buffered; no permessage-deflate (messages are a few KB, and compressing each one for
each socket cost about a quarter of the server's CPU under load, see docs/server.md); no
``X-Forwarded-For`` believed unless ``forwarded_allow_ips`` names the proxies that may say
it (uvicorn's own default trusts 127.0.0.1, so any local process or TCP tunnel could pick
its address and void every per-address quota). Its HTTP protocol, :class:`Guarded`
(uvicorn's httptools protocol), adds what uvicorn leaves to the client:

- a **head deadline**: a request's line and headers must arrive within
  ``Limits.head_seconds`` of its first byte (or of the connection), however slowly they
  trickle in ("slowloris"); once the head is there the request runs as usual (a
  websocket lives on);
- a **head size**: more than ``Limits.head_bytes`` of line and headers is answered 431
  (``head_too_large``) and the connection closed, before the rest is buffered;
- a **body rate**: once ``Limits.body_seconds`` have passed since the head, the body must
  have come at ``Limits.body_bytes_per_second`` on average, else 408 (``body_too_slow``)
  and the connection is closed;
- **connections per address**: one client address (IPv6: its /64) holds at most
  ``Limits.http_connections_per_address`` connections, websockets included; the next is
  answered 429 (``too_many_connections_address``) and closed. A trusted proxy's own
  address is not counted (its clients are, by the app's per-address quotas).

Every refusal is the protocol's JSON error.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from collections.abc import Callable, Mapping
from typing import Any

import uvicorn

from binokel.error import BinokelError
from binokel.server.guard import refusal
from binokel.server.limits import Counted, Limits, address_key
from binokel.server.schema import ProtocolError

log = logging.getLogger("binokel.server")

try:  # uvicorn[standard]'s parser; without httptools uvicorn's h11 one runs (its head bound: 16 KiB)
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _HttpTools
except ImportError:  # pragma: no cover - httptools is part of the serve extra
    _HttpTools = None  # type: ignore[assignment, misc]
try:  # uvicorn's sans-I/O websocket protocol (a uvicorn without it: every message through the app's task)
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol as _SansIO
    from websockets.exceptions import InvalidState
except ImportError:  # pragma: no cover
    _SansIO = None  # type: ignore[assignment, misc]

WRITE_NOW = "binokel.write_now"
"""The scope extension of a websocket whose protocol writes a text at once (:class:`Immediate`):
``{"write": write_now}``."""


def write_now_of(scope: Mapping[str, Any]) -> Callable[[str], bool] | None:
    """The websocket's write at once (:meth:`Immediate.write_now`), if its protocol offers one."""
    offered: Callable[[str], bool] | None = (scope.get("extensions") or {}).get(WRITE_NOW, {}).get("write")
    return offered

BODY_CHECK = 0.5
"""Seconds between looks at a body's rate while it streams in."""
REASONS = {408: b"Request Timeout", 429: b"Too Many Requests", 431: b"Request Header Fields Too Large"}


def raw_refusal(status: int, problem: BinokelError) -> bytes:
    """A whole HTTP response (the protocol's JSON error), closing the connection.

    >>> raw_refusal(431, ProtocolError("head_too_large", max=16384)).split(b"\\r\\n")[0]
    b'HTTP/1.1 431 Request Header Fields Too Large'
    """
    _, body = refusal(status, problem)
    return (b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\nconnection: close\r\n\r\n"
            % (status, REASONS.get(status, b"Refused"), len(body))) + body


class Trusted:
    """The proxies trusted to say a client's address (``--forwarded-allow-ips``).

    >>> Trusted("127.0.0.1, 10.0.0.0/8").allows("10.1.2.3"), Trusted(None).allows("127.0.0.1")
    (True, False)
    >>> Trusted("*").allows("203.0.113.9")
    True
    """

    def __init__(self, spec: str | None) -> None:
        parts = [part.strip() for part in (spec or "").split(",") if part.strip()]
        self.every = "*" in parts
        self.networks = []
        for part in parts:
            try:
                self.networks.append(ipaddress.ip_network(part, strict=False))
            except ValueError:
                continue  # a name (or a unix socket path): uvicorn's own check reads it

    def allows(self, address: str) -> bool:
        if self.every:
            return True
        try:
            parsed = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(parsed in network for network in self.networks)


def guarded_protocol(limits: Limits, trusted: Trusted | None = None) -> type[asyncio.Protocol] | None:
    """uvicorn's httptools protocol with the bounds of the module docstring (None where
    httptools is not installed). Each call makes a class with its own connection counts."""
    if _HttpTools is None:
        return None
    return type("Guarded", (_Guarded,), {"guard_limits": limits,
                                         "guard_counts": Counted(limits.http_connections_per_address),
                                         "guard_proxies": trusted or Trusted(None)})


if _HttpTools is not None:
    class _Guarded(_HttpTools):
        """uvicorn's httptools protocol under ``guard_limits``: connections per address
        (``guard_counts``, not for ``guard_proxies``), the head's size and time, the body's rate."""

        guard_limits: Limits
        guard_counts: Counted
        guard_proxies: Trusted
        _deadline: asyncio.TimerHandle | None = None
        _body_check: asyncio.TimerHandle | None = None
        _counted: str | None = None
        _in_head = True
        _head_bytes = 0
        _body_started = 0.0
        _body_bytes = 0

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            peer = self.client[0] if self.client else None
            if peer is not None and not self.guard_proxies.allows(peer):
                key = address_key(peer)
                if not self.guard_counts.add(key):
                    log.info("refused a connection: %s holds %d already", key, self.guard_counts.most,
                             extra={"event": "refused", "code": "too_many_connections_address", "client": peer})
                    self._refuse(429, ProtocolError("too_many_connections_address", max=self.guard_counts.most))
                    return
                self._counted = key
            self._start_deadline()

        def data_received(self, data: bytes) -> None:
            if self.transport.is_closing():
                return
            if self._in_head:
                self._head_bytes += len(data)
            super().data_received(data)
            most = self.guard_limits.head_bytes
            if self._in_head and self._head_bytes > most and not self.transport.is_closing():
                self._refuse(431, ProtocolError("head_too_large", max=most))

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._in_head = True
            if self._deadline is None:  # the next request of a kept-alive connection
                self._start_deadline()

        def on_headers_complete(self) -> None:
            self._stop_deadline()
            self._in_head = False
            self._head_bytes = 0
            self._body_started = self.loop.time()
            self._body_bytes = 0
            super().on_headers_complete()
            if self.cycle is not None and self._body_check is None:
                self._body_check = self.loop.call_later(BODY_CHECK, self._check_body)

        def on_body(self, body: bytes) -> None:
            self._body_bytes += len(body)
            super().on_body(body)

        def on_message_complete(self) -> None:
            self._stop_body_check()
            super().on_message_complete()

        def handle_websocket_upgrade(self) -> None:
            self._stop_body_check()
            super().handle_websocket_upgrade()
            if self._counted is not None:  # the websocket's protocol now owns the connection: release with it
                key, self._counted = self._counted, None
                socket_protocol: Any = self.transport.get_protocol()
                lost = socket_protocol.connection_lost

                def released(exc: Exception | None) -> None:
                    self.guard_counts.remove(key)
                    lost(exc)

                socket_protocol.connection_lost = released

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_deadline()
            self._stop_body_check()
            if self._counted is not None:
                self.guard_counts.remove(self._counted)
                self._counted = None
            super().connection_lost(exc)

        def _refuse(self, status: int, problem: ProtocolError) -> None:
            self._stop_deadline()
            self._stop_body_check()
            if self.cycle is not None and not self.cycle.response_complete:
                self.cycle.disconnected = True  # the app's own answer (if any) goes nowhere
            self.transport.write(raw_refusal(status, problem))
            self.transport.close()

        def _start_deadline(self) -> None:
            self._deadline = self.loop.call_later(self.guard_limits.head_seconds, self._too_slow)

        def _stop_deadline(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _stop_body_check(self) -> None:
            if self._body_check is not None:
                self._body_check.cancel()
                self._body_check = None

        def _too_slow(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                client = f"{self.client[0]}:{self.client[1]}" if self.client else None
                log.info("a client took over %g s to send a request's head: closed",
                         self.guard_limits.head_seconds, extra={"event": "slow_head", "client": client})
                self.transport.close()

        def _check_body(self) -> None:
            """While the body streams in: past ``body_seconds`` it must have come at the
            least rate (not counted while the server itself stopped reading)."""
            self._body_check = None
            limits, cycle = self.guard_limits, self.cycle
            if cycle is None or cycle.response_complete or not cycle.more_body or self.transport.is_closing():
                return
            elapsed = self.loop.time() - self._body_started
            if self.flow.read_paused:
                self._body_started += BODY_CHECK  # the app has not read what came: not the client's delay
            elif elapsed > limits.body_seconds and self._body_bytes < limits.body_bytes_per_second * elapsed:
                client = self.client[0] if self.client else None
                log.info("a client sent a request's body too slowly (%d bytes in %.1f s): closed",
                         self._body_bytes, elapsed, extra={"event": "slow_body", "client": client})
                self._refuse(408, ProtocolError("body_too_slow", seconds=f"{limits.body_seconds:g}",
                                                rate=limits.body_bytes_per_second))
                return
            self._body_check = self.loop.call_later(BODY_CHECK, self._check_body)


if _SansIO is not None:
    class Immediate(_SansIO):
        """uvicorn's websocket protocol, offering the app a write at once: ``scope["extensions"]
        [WRITE_NOW]["write"](text)`` frames ``text`` and hands it to the socket in the caller's
        turn of the loop, without a turn of the app's sending task, Starlette's checks or an ASGI
        message. Nearly all the server sends is a few hundred bytes to a socket that takes them at
        once (a step's update, a quiet line's beat); the way through the sending task cost about
        as much CPU as the system's write itself (docs/server.md "Round twenty")."""

        def handle_connect(self, event: Any) -> None:
            super().handle_connect(event)
            if not self.close_sent:  # (refused: the app is not even called)
                self.scope["extensions"][WRITE_NOW] = {"write": self.write_now}  # (an extension is a dict)

        def write_now(self, text: str) -> bool:
            """Send ``text`` now if the socket takes it now: accepted, not closing, its buffer
            under the transport's high-water mark. False: not now (the caller queues it, and
            sends it through the ASGI ``send``, which waits for the buffer to drain)."""
            if (not self.handshake_complete or self.initial_response is not None or self.close_sent or self.disconnected
                    or not self.writable.is_set()):
                return False
            try:
                self.conn.send_text(text.encode())
            except InvalidState:  # the client's close came: the app's next send ends it
                return False
            self.transport.write(b"".join(self.conn.data_to_send()))
            return True
else:  # pragma: no cover
    Immediate = None  # type: ignore[assignment, misc]


def uvicorn_config(app: Any, limits: Limits, *, forwarded_allow_ips: str | None = None,
                   **options: Any) -> uvicorn.Config:
    """uvicorn's configuration for ``app`` under ``limits`` (``options`` go to uvicorn).
    ``forwarded_allow_ips``: the proxies whose ``X-Forwarded-For`` is believed (None: none)."""
    protocol = guarded_protocol(limits, Trusted(forwarded_allow_ips))
    if protocol is not None:
        options.setdefault("http", protocol)
    if Immediate is not None:
        options.setdefault("ws", Immediate)
    if forwarded_allow_ips:
        options.update(proxy_headers=True, forwarded_allow_ips=forwarded_allow_ips)
    else:
        options["proxy_headers"] = False
    return uvicorn.Config(app, log_level="warning", ws_max_size=limits.frame_bytes, lifespan="on",
                          ws_per_message_deflate=False, log_config=None, **options)
