"""Who of a table's people is at the table, across processes.

A person counts as connected while this process holds a connection of their seat or
another process's presence row (:mod:`binokel.server.storage.presence`) is fresh; a person
gone longer than the grace period is *away*, and a bot of the table's level stands in for
them until they are back. The next-deal clicks travel in the same rows.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable

from binokel.server.channel import Channel
from binokel.server.hop import in_thread
from binokel.server.metrics import Metrics
from binokel.server.persist import PROCESS
from binokel.server.replication import Notices
from binokel.server.storage import Presence, StorageUnavailable, Store, presence

log = logging.getLogger("binokel.server")

PRESENCE_TTL = 15.0
"""A presence row of another process counts this many seconds after its last heartbeat
(so a process killed with -9 stops counting its seats as connected after this long)."""


class Attendance:
    """Which of a table's person seats are connected (here or at another process), away since
    when, stood in for by a bot, or ready for the next deal."""

    def __init__(self, game_id: str, store: Store, channel: Channel, notices: Notices, metrics: Metrics, *,
                 person_seats: list[int], grace: float, version: Callable[[], int]) -> None:
        self.game_id = game_id
        self.store = store
        self.channel = channel
        self.notices = notices
        self.metrics = metrics
        self.person_seats = person_seats
        self.grace = grace
        self.version = version  # the table's version in the store (a click is for one version)
        self.away_since: dict[int, float] = {seat: time.monotonic() for seat in person_seats}
        self.standing_in: set[int] = set()  # person seats a bot plays for at the moment
        self.ready: set[int] = set()  # people here who asked for the next deal
        self.elsewhere: list[Presence] = []  # the presence rows of other processes
        self._elsewhere_at = time.monotonic()  # when they were read
        self._lock = asyncio.Lock()

    def here(self, seat: int) -> bool:
        """Has this process a connection of the seat?"""
        return any(c.seat == seat for c in self.channel.connections)  # a handful of connections per table

    def connected(self, seat: int) -> bool:
        """Is the seat connected to this process or (by a fresh presence row) to another?"""
        return self.here(seat) or seat in self.remote_seats()

    def remote_seats(self, ready: bool = False) -> set[int]:
        """Seats connected to other processes (``ready``: those that asked for the next deal
        at this version)."""
        if not self.elsewhere:  # one process holds the table (asked several times a step)
            return set()
        gone = time.monotonic() - self._elsewhere_at
        return {p.seat for p in self.elsewhere if p.age + gone < PRESENCE_TTL
                and (not ready or p.ready == self.version())}

    def remote_expiry(self) -> float | None:
        """Seconds until the next presence row of another process goes stale (None: none left)."""
        gone = time.monotonic() - self._elsewhere_at
        left = [PRESENCE_TTL - p.age - gone for p in self.elsewhere if p.age + gone < PRESENCE_TTL]
        return min(left) if left else None

    def all_ready(self) -> set[int]:
        """The people who asked for the next deal, here and at other processes."""
        return self.ready | self.remote_seats(ready=True)

    def everybody_ready(self, people: Iterable[int]) -> bool:
        """Has somebody asked for the next deal, and every connected person (at any process)?"""
        ready = self.all_ready()
        present = {seat for seat in people if self.connected(seat)}
        return bool(ready) and present <= ready

    def away(self) -> set[int]:
        """The person seats whose person has been gone longer than the grace period."""
        now = time.monotonic()
        return {seat for seat in self.person_seats if not self.connected(seat)
                and self.away_since.get(seat, now) + self.grace <= now}

    def until_away(self, seat: int) -> float:
        """Seconds until ``seat``'s person counts as away (-1: not while connected here)."""
        if self.connected(seat):
            expiry = None if self.here(seat) else self.remote_expiry()
            return -1 if expiry is None else expiry  # look again when a presence row goes stale
        return max(0.0, self.away_since.get(seat, time.monotonic()) + self.grace - time.monotonic())

    def seated(self, seat: int) -> None:
        """A friend took ``seat`` (not connected yet): away from now on until they come."""
        self.away_since[seat] = time.monotonic()

    def arrived(self, seat: int) -> None:
        """A connection of ``seat`` came to this process: its person is back, nobody stands in."""
        self.away_since.pop(seat, None)
        self.standing_in.discard(seat)

    def departed(self, seat: int) -> bool:
        """A connection of ``seat`` left this process; True if it was the seat's last one here
        (its presence row is to go, and its next-deal click with it)."""
        last = not self.here(seat)
        if last:
            self.ready.discard(seat)
        if not self.connected(seat):
            self.away_since[seat] = time.monotonic()
        return last

    def stand_in(self, seat: int) -> bool:
        """A bot plays for ``seat``'s person, away too long; True if it did not already."""
        if seat in self.standing_in:
            return False
        self.standing_in.add(seat)
        return True

    def set_elsewhere(self, rows: list[Presence]) -> bool:
        """The presence rows of this table (ours are left out: we know our connections);
        True if that changed who is connected or ready elsewhere."""
        before = (self.remote_seats(), self.remote_seats(ready=True))
        self.elsewhere = [p for p in rows if p.process != PROCESS and p.game_id == self.game_id]
        self._elsewhere_at = time.monotonic()
        if (self.remote_seats(), self.remote_seats(ready=True)) == before:
            return False
        for seat in self.person_seats:
            if self.connected(seat):
                self.away_since.pop(seat, None)
                self.standing_in.discard(seat)
            elif seat not in self.away_since:
                self.away_since[seat] = time.monotonic()
        return True

    async def share(self, seat: int) -> None:
        """Write whether this process holds a connection of ``seat`` (and its next-deal click),
        then tell the other processes. Written from the state at the time of writing, so the
        order of these tasks does not matter."""
        async with self._lock:
            present = self.here(seat)
            ready = self.version() if seat in self.ready else None
            try:
                await in_thread(presence.mark, self.store, self.game_id, seat, PROCESS, present=present,
                                ready=ready)
                await self.notices.send(self.version())
            except StorageUnavailable:
                self.metrics.db_errors.inc()
            except Exception:  # e.g. the game was deleted meanwhile (PostgreSQL's foreign key)
                log.debug("presence of game %s not written", self.game_id, exc_info=True)
