"""Keeping a table in step with its game's log in the store, however many processes hold it.

Every accepted step is **stored first**, then adopted by the driver and told
(:meth:`Replication.commit`). A step is stored with the optimistic version check
(``Store.append`` at the version it was decided on): if another process wrote first, the
append is refused (VersionConflict), this table reads the steps it missed, tells them, and
the command is judged again on the new state — a person's stale command is refused, a
bot's move or a deal is simply not made twice.

Every process hears every change of the store (``store.notifier.subscribe``): a step
another process stored is adopted from the notification, which carries it
(:meth:`Replication.heard`), and read back from the log only if notifications were lost;
a change of the seats, presence or chat is re-read (:meth:`Replication.refresh`). A
process that sent a notification itself knows it is no news (:class:`Notices`).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import threading
from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING, Any

import binokel.server.persist as persist
from binokel.error import BinokelError
from binokel.server.hop import Settle, in_thread
from binokel.server.schema import ProtocolError
from binokel.server.storage import Entry, GameNotFound, StorageUnavailable, Store, VersionConflict, now, presence
from binokel.server.storage import rematch as rematches
from binokel.table import Change, Dealt, Step

if TYPE_CHECKING:
    from binokel.server.table import Table

log = logging.getLogger("binokel.server")


class Notices:
    """The change notifications this process sent for one game, so that hearing them back is no
    news. Expected on the loop, heard back in the store's listening thread (:meth:`Hall._wants`)."""

    def __init__(self, store: Store, game_id: str) -> None:
        self.store = store
        self.game_id = game_id
        self._own: collections.Counter[int] = collections.Counter()
        self._lock = threading.Lock()

    def expect(self, version: int) -> None:
        """This process is about to announce ``version`` itself."""
        with self._lock:
            self._own[version] += 1

    def forget(self, version: int) -> None:
        """An announcement of ``version`` that was expected will not come."""
        with self._lock:
            self._forget(version)

    def is_own(self, version: int) -> bool:
        """Was a notification of ``version`` this process's own? (Then it is counted off.)"""
        with self._lock:
            if not self._own.get(version):
                return False
            self._forget(version)
            return True

    def _forget(self, version: int) -> None:
        self._own[version] -= 1
        if self._own[version] <= 0:
            del self._own[version]

    async def send(self, version: int) -> None:
        """Tell the other processes the game changed at ``version`` (not its steps: chat, presence)."""
        self.expect(version)
        await in_thread(self.store.notify, self.game_id, version)


def _append(store: Store, game_id: str, expected: int, change: Change, stand_in: bool) -> asyncio.Future[int]:
    """Store a step: where the store can (PostgreSQL), without a thread waiting for its batch
    (``Store.append_soon``: a batch then holds every step that came while the last was
    written, and wakes the loop once); else ``Store.append`` in a thread."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[int] = loop.create_future()
    entries, status = persist.entries_of([change], stand_in=stand_in), persist.status(change.game)
    if store.append_soon(game_id, expected, entries, status=status, tell=Settle(loop), waiter=future):
        return future
    return in_thread(store.append, game_id, expected, entries, status=status)


class Replication:
    """Stores a table's own steps before it adopts them, and adopts the steps, seats,
    presence and chat other processes stored."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.notices = table.notices
        self._carried: dict[int, Sequence[Entry]] = {}  # first version -> entries a notification carried
        self._heard_up_to = 0  # the highest version another process announced
        self._lost = False  # notifications may have been lost: read the log back
        self._catching_up = False
        self._refreshing = False
        self._tasks: set[asyncio.Task[Any]] = set()

    async def commit(self, change: Change, stand_in: int | None = None) -> bool:
        """Store the change, then adopt and tell it (the caller holds the lock). False if
        another process wrote first (its steps are adopted and told instead: judge again);
        ProtocolError if the store is unavailable (nothing changed)."""
        table = self.table
        expected = table.stored_version
        self.notices.expect(expected + 1)  # our own notification of it is no news
        try:
            await _append(table.store, table.id, expected, change, stand_in is not None)
        except VersionConflict:
            self.notices.forget(expected + 1)
            table.metrics.conflicts.inc()
            await self.adopt_missed()
            return False
        except GameNotFound:
            self.notices.forget(expected + 1)
            table.close_deleted()
            raise ProtocolError("game_deleted") from None
        except StorageUnavailable as error:
            self.notices.forget(expected + 1)
            table.metrics.db_errors.inc()
            table.outage.failed(f"a step of game {table.id}", error)  # logged once per outage
            await self.adopt_missed(quiet=True)  # the write may have landed before the line broke
            raise ProtocolError("db_unavailable") from None
        table.outage.ok()
        table.metrics.actions.inc()
        table.updated = now()
        table.adopt(change, stand_in)
        return True

    def heard(self, version: int | None, entries: Sequence[Any] | None = None) -> None:
        """The store says the game is at ``version`` (None: perhaps missed notifications): catch
        up if another process stored steps (from ``entries``, the steps that made ``version``,
        when the notification carried them; else read back); re-read seats and presence if
        it changed those."""
        stored = self.table.stored_version
        self._lost = self._lost or version is None
        if version is not None and version > stored:
            self._heard_up_to = max(self._heard_up_to, version)
            if entries:
                first = version - len(entries) + 1
                self._carried[first] = [Entry(first + i, payload) for i, payload in enumerate(entries)]
        if (version is None or version > stored) and not self._catching_up:
            self._catching_up = True
            self._spawn(self.catch_up())
        if (version is None or version <= stored) and not self._refreshing:
            self._refreshing = True
            self._spawn(self.refresh())

    async def catch_up(self, seen: int = 0) -> None:
        """Adopt and tell the steps other processes stored: those their notifications carried,
        and only if that leaves a gap (or a notification was lost, or a client has ``seen``
        a later version) read the log back."""
        table = self.table
        self._catching_up = False
        async with table.lock:
            self._adopt_carried()
            heard_gap = self._lost or self._heard_up_to > table.stored_version
            if heard_gap or seen + table.base > table.stored_version:
                if heard_gap:
                    table.metrics.read_backs.inc()
                self._lost = False
                await self.adopt_missed()

    async def refresh(self) -> None:
        """Re-read the seats (a friend joined at another process), the presence rows, the chat
        and a finished game's rematch."""
        table = self.table
        self._refreshing = False
        try:
            infos = await asyncio.to_thread(table.store.games, [table.id])
            rows = await asyncio.to_thread(presence.rows, table.store, [table.id])
            lines = await asyncio.to_thread(table.chat.recent)
            asked = table.rematch_id is None and table.driver.is_over()  # made by another process?
            made = await asyncio.to_thread(rematches.of, table.store, table.id) if asked else None
        except StorageUnavailable:
            table.metrics.db_errors.inc()
            return
        if not infos:
            table.close_deleted()
            return
        people, host = persist.people_of(infos[0])
        for seat, person in people.items():
            if seat >= 0 and seat not in table.people:
                table.seat_person(seat, person)
        table.host = host if host is not None else table.host
        table.set_elsewhere(rows)
        table.chat.heard(lines)
        if made is not None:
            table.rematch_made(made)

    async def adopt_missed(self, quiet: bool = False) -> None:
        """Read the steps other processes stored after ours and adopt them (the caller holds the lock)."""
        table = self.table
        try:
            steps = await asyncio.to_thread(persist.missed, table.store, table.id, table.stored_version)
        except StorageUnavailable:
            table.metrics.db_errors.inc()
            if not quiet:
                log.error("could not read the missed steps of game %s", table.id)
            return
        self._adopt_steps(steps)

    def stop(self) -> None:
        """Cancel the catching up and re-reading under way."""
        for task in list(self._tasks):
            task.cancel()

    def _adopt_carried(self) -> None:
        """Adopt the steps other processes' notifications carried, as far as they follow on
        without a gap (the caller holds the lock): nothing is read back."""
        table = self.table
        while (entries := self._carried.pop(table.stored_version + 1, None)) is not None:
            self._adopt_steps(persist.steps_of(table.stored_version, entries))
        for first in [first for first in self._carried if first <= table.stored_version]:
            del self._carried[first]

    def _adopt_steps(self, steps: list[tuple[Step, int | None]]) -> None:
        table = self.table
        # A deal, a bot's or a stand-in's move: only the lease holder stores these, so it is
        # alive. A person's move says nothing of the lease (it is stored where the person is
        # connected): counting it kept both processes from claiming a free lease for 15 s
        # after each other's people moved, and a table's first bot move waited that long.
        if any(isinstance(step, Dealt) or stand_in is not None or step.seat not in table.person_seats
               for step, stand_in in steps):
            table.lease.holder_moved()
        for step, stand_in in steps:
            try:
                change = table.driver.propose_step(step)
            except BinokelError:
                log.exception("stored step of game %s does not fit the table", table.id)
                return
            table.metrics.heard.inc()
            table.adopt(change, stand_in)

    def _spawn(self, work: Awaitable[Any]) -> None:
        """Run ``work`` in the background, keeping a reference until it is done."""
        task: asyncio.Task[Any] = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
