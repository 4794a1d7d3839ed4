"""The connections watching one table, and what each of them is told.

A change leaves once per audience: each seat and the spectators get one ``update``
(:func:`binokel.update.update_for`), built and encoded once however many tabs or
watchers that audience has; a snapshot (``state``) is only for a connection that says
hello or asks to ``sync``. The message shapes are documented in
:mod:`binokel.server.protocol` and docs/server.md ("The update channel").
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

from binokel.server.limits import Bucket, Limits


class Connection:
    """One websocket watching a table: its seat (None: a spectator) and its outgoing queue,
    bounded: a client too slow to read is dropped rather than let its messages pile up."""

    def __init__(self, seat: int | None, limits: Limits, *, host: bool = False, address: str = "?",
                 write_now: Callable[[str], bool] | None = None) -> None:
        self.seat = seat
        self.host = host
        self.address = address  # the client's address (its per-address quotas)
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()  # messages encoded already
        # The socket's own write at once (server/transport.py: Immediate), False when it cannot
        # take a message now; None: every message goes through the queue and the app's sender.
        self.write_now = write_now
        self.sending = False  # the sender holds a message taken from the queue (it goes first)
        self.bound = limits.queue_messages
        self.byte_bound = limits.queue_bytes
        self.queue_bytes = 0  # the bytes of the messages waiting
        self.events = Bucket(limits.events_per_minute / 60, limits.events_per_minute)
        self.dropped = False
        self.on_overflow: Callable[[], object] | None = None  # set by the app: closes the socket (4408)
        self.messages = Bucket(limits.messages_per_second, limits.message_burst)
        self.chat = Bucket(limits.chat_per_10_seconds / 10, limits.chat_per_10_seconds)
        self.since: int | None = None  # the version the client said it had seen (hello)
        self.beat = False  # the client asked to be told a beat on a quiet line (hello; server/beat.py)
        self.told_at = time.monotonic()  # when a message was last posted (the beat's measure of quiet)
        # The beat's connections, the quietest first (server/beat.py): a post moves this one last.
        self.quiet_order: OrderedDict[Connection, None] | None = None

    def post(self, message: dict[str, Any] | str | None) -> None:
        """Send a message (None closes the connection), encoded here (a str: encoded already):
        at once while the socket takes it and nothing waits before it, else through the queue.
        With ``Limits.queue_messages`` waiting already, or ``Limits.queue_bytes``, the client
        is too slow to read: it is dropped (see :meth:`drop`)."""
        if self.dropped:
            return
        if message is None:
            self.queue.put_nowait(None)
            return
        text = message if isinstance(message, str) else json.dumps(message)
        written = self.write_now is not None and not self.sending and self.queue.empty() and self.write_now(text)
        if not written:
            self._queue(text)
            if self.dropped:
                return
        self.told_at = time.monotonic()
        if self.quiet_order is not None:
            self.quiet_order.move_to_end(self)

    def _queue(self, text: str) -> None:
        if self.queue.qsize() >= self.bound or self.queue_bytes + len(text) > self.byte_bound:
            self.drop()
            return
        self.queue_bytes += len(text)
        self.queue.put_nowait(text)

    async def next_message(self) -> str | None:
        """The next message to send (None: close), for the connection's sender."""
        text = await self.queue.get()
        if text is not None:
            self.queue_bytes -= len(text)
        return text

    def drop(self) -> None:
        """Give up on a slow client: empty its queue (the memory returns at once), ignore what
        is posted later, and let the app close its socket (close code 4408). The client
        reconnects with the last version it saw and catches up from there (``hello``)."""
        self.dropped = True
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue_bytes = 0
        if self.on_overflow is not None:
            self.on_overflow()


class Channel:
    """The connections of one table, told by audience (a seat, or None: the spectators)."""

    def __init__(self) -> None:
        self.connections: set[Connection] = set()
        self._calm_at = float("-inf")  # when broadcast_calmly last sent
        self._calm_due: asyncio.TimerHandle | None = None  # ... and its next message, if one waits

    def audiences(self) -> dict[int | None, list[Connection]]:
        """The connections by the audience they belong to."""
        grouped: dict[int | None, list[Connection]] = {}
        for connection in self.connections:
            grouped.setdefault(connection.seat, []).append(connection)
        return grouped

    def tell(self, message_for: Callable[[int | None], dict[str, Any] | str]) -> None:
        """Each audience's message (or its text), built and encoded once, to every connection
        of it. Audiences told the same (often: after a card, the seats not to move and the
        spectators) share one encoding; comparing is much cheaper than encoding (the messages
        of one kind give each key values of one type, so equal messages encode the same)."""
        encoded: list[tuple[dict[str, Any], str]] = []
        for audience, connections in self.audiences().items():
            message = message_for(audience)
            text = message if isinstance(message, str) else self._encoded(message, encoded)
            for connection in connections:
                connection.post(text)

    @staticmethod
    def _encoded(message: dict[str, Any], encoded: list[tuple[dict[str, Any], str]]) -> str:
        """``message``'s text: one in ``encoded`` equal to it, or encoded now (and kept there)."""
        text = next((text for told, text in encoded if told == message), None)
        if text is None:
            text = json.dumps(message)
            encoded.append((message, text))
        return text

    def broadcast(self, message: dict[str, Any], to: Iterable[Connection] | None = None) -> None:
        """One message for everybody (or the connections ``to``), encoded once."""
        text = json.dumps(message)
        for connection in self.connections if to is None else to:
            connection.post(text)

    def broadcast_calmly(self, message_for: Callable[[], dict[str, Any]], seconds: float) -> None:
        """``message_for()`` for everybody, at most once per ``seconds`` (0: now): a burst of
        changes is told at once, then once more, as things are then, when ``seconds`` have
        passed. So a stranger who comes and goes as a spectator hundreds of times a second
        (each a change of the spectators' count) sends the seats one ``presence`` a second,
        not hundreds, which would push a player on a slow line over its queue's bound."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a test's direct call): now
            seconds = 0.0
        if seconds <= 0:
            self.broadcast(message_for())
            return
        if self._calm_due is not None:  # told when it is due, as things are then
            return
        wait = self._calm_at + seconds - loop.time()
        if wait <= 0:
            self._calm_at = loop.time()
            self.broadcast(message_for())
        else:
            self._calm_due = loop.call_later(wait, self._calmed, message_for)

    def _calmed(self, message_for: Callable[[], dict[str, Any]]) -> None:
        self._calm_due = None
        self._calm_at = asyncio.get_running_loop().time()
        self.broadcast(message_for())
