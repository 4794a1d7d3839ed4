"""How the server meets the network: uvicorn's settings in one place, and a deadline for a
request's head.

:func:`uvicorn_config` is what ``binokel serve`` (and the tests' real servers) run: frames
larger than ``Limits.frame_bytes`` are refused by the transport (close 1009) before they
are buffered; no permessage-deflate (messages are a few KB, and compressing each one for
each socket cost about a quarter of the server's CPU under load, see docs/server.md); and
a **head deadline**: uvicorn waits for a request's line and headers as long as the client
likes, so a client sending its headers a byte at a time ("slowloris") holds a connection
for ever. :class:`HeadDeadline` closes a connection whose request head has not arrived
within ``Limits.head_seconds`` of its first byte (or of the connection), however slowly
it trickles in; once the head is there the request runs as usual (a websocket lives on).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import uvicorn

from binokel.server.limits import Limits

log = logging.getLogger("binokel.server")

try:  # uvicorn[standard]'s parser; without httptools uvicorn's h11 one runs, with no deadline
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _HttpTools
except ImportError:  # pragma: no cover - httptools is part of the serve extra
    _HttpTools = None  # type: ignore[assignment, misc]


def head_deadline_protocol(seconds: float) -> type[asyncio.Protocol] | None:
    """uvicorn's httptools protocol with a deadline of ``seconds`` for each request's head
    (None where httptools is not installed)."""
    if _HttpTools is None:
        return None

    class HeadDeadline(_HttpTools):
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._start_deadline()

        def on_message_begin(self) -> None:
            super().on_message_begin()
            if self._deadline is None:  # the next request of a kept-alive connection
                self._start_deadline()

        def on_headers_complete(self) -> None:
            self._stop_deadline()
            super().on_headers_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_deadline()
            super().connection_lost(exc)

        def _start_deadline(self) -> None:
            self._deadline = self.loop.call_later(seconds, self._too_slow)

        def _stop_deadline(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                client = f"{self.client[0]}:{self.client[1]}" if self.client else None
                log.info("a client took over %g s to send a request's head: closed", seconds,
                         extra={"event": "slow_head", "client": client})
                self.transport.close()

    return HeadDeadline


def uvicorn_config(app: Any, limits: Limits, **options: Any) -> uvicorn.Config:
    """uvicorn's configuration for ``app`` under ``limits`` (``options`` go to uvicorn)."""
    protocol = head_deadline_protocol(limits.head_seconds)
    if protocol is not None:
        options.setdefault("http", protocol)
    return uvicorn.Config(app, log_level="warning", ws_max_size=limits.frame_bytes, lifespan="on",
                          ws_per_message_deflate=False, log_config=None, **options)
