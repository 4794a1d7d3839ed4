"""A table's chat: the people at the table talk among themselves, across processes.

A line is kept in the store (:mod:`binokel.server.storage.chat`) so that people connected
to another process read it too and a restarted server shows the recent lines. Spectators
read none of it: anybody with the game id may watch.
"""

from __future__ import annotations

import collections
import asyncio
import logging
import secrets
import time
from collections.abc import Callable, Iterator
from typing import Any

from binokel.server.channel import Channel, Connection
from binokel.server.limits import Limits
from binokel.server.metrics import Metrics
from binokel.server.replication import Notices
from binokel.server.schema import Chat, ProtocolError
from binokel.server.storage import StorageUnavailable, Store, chat

log = logging.getLogger("binokel.server")


class ChatRoom:
    """The recent chat lines of one table (said here or heard from the store), told to its seats."""

    def __init__(self, game_id: str, store: Store, channel: Channel, notices: Notices, metrics: Metrics,
                 limits: Limits, *, version: Callable[[], int]) -> None:
        self.game_id = game_id
        self.store = store
        self.channel = channel
        self.notices = notices
        self.metrics = metrics
        self.limits = limits
        self.version = version  # the table's version in the store (what a notification names)
        self.lines: collections.deque[dict[str, Any]] = collections.deque(maxlen=limits.chat_kept)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.lines)

    def say(self, connection: Connection, seat: int, name: str, message: Chat) -> dict[str, Any]:
        """A line from the person at ``seat`` (rate-limited per connection; the text is never
        HTML), told to the seats here; the caller keeps it in the store (:meth:`share`)."""
        if not connection.chat.take():
            raise ProtocolError("too_much_chat", max=self.limits.chat_per_10_seconds)
        line = {"type": "chat", "seat": seat, "name": name, "at": time.time(), "id": secrets.token_hex(8)}
        said = {"phrase": message.phrase} if message.phrase else {"text": " ".join((message.text or "").split())}
        line.update(said)
        self.lines.append(line)
        self._tell_seats(line)
        return line

    async def share(self, line: dict[str, Any]) -> None:
        """Keep the line in the store and tell the other processes (their people read it too)."""
        try:
            await asyncio.to_thread(chat.add, self.store, self.game_id, line["id"], line)
            await self.notices.send(self.version())
        except StorageUnavailable:
            self.metrics.db_errors.inc()
        except Exception:  # e.g. the game was deleted meanwhile
            log.debug("chat line of game %s not stored", self.game_id, exc_info=True)

    def recent(self) -> list[tuple[str, Any]]:
        """The table's recent lines in the store, each with its id (blocking: run it in a thread)."""
        return chat.recent(self.store, self.game_id, self.limits.chat_kept)

    def heard(self, lines: list[tuple[str, Any]]) -> None:
        """Lines read from the store (each with its id): the ones said at other processes are told here."""
        known = {line.get("id") for line in self.lines}
        for line_id, line in lines:
            if line_id not in known and isinstance(line, dict):
                self.lines.append(line)
                self._tell_seats(line)

    def _tell_seats(self, line: dict[str, Any]) -> None:
        """A line goes to the people at the table, not to spectators."""
        self.channel.broadcast(line, to=[c for c in self.channel.connections if c.seat is not None])
