"""The steps of a table that no person is asked for: the bots' moves and the next deal.

The driver says what comes next (:meth:`binokel.table.Table.next_step`); the runner takes
the steps nobody is asked for — a bot's move (the table's bots, and a stand-in of the
table's level for a person away longer than the grace period) and the next deal once the
people are ready or its timeout passed — and sleeps until something changes.

With several processes holding a table, only the holder of the table's **lease**
(:mod:`binokel.server.storage.lease`) takes these steps, so a bot thinks in one process
only; another process takes the lease over when its holder stops renewing it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from binokel.ai import Bot, make_bot
from binokel.error import BinokelError
from binokel.server.metrics import Metrics
from binokel.server.persist import PROCESS
from binokel.server.pool import PoolClosed, think_in
from binokel.server.schema import ProtocolError
from binokel.server.storage import StorageUnavailable, Store, lease
from binokel.table import Ask, Deal, Think
from binokel.view import SeatView

if TYPE_CHECKING:
    from binokel.server.table import Table

log = logging.getLogger("binokel.server")

RETRY_FIRST = 0.25
"""Seconds before the first retry of a bot move the database refused (the pause then doubles)."""
LEASE_SECONDS = 15.0
"""How long a table's lease (:mod:`binokel.server.storage.lease`) runs unless its holder's
heartbeat renews it: another process takes a dead one's tables over after about this long."""
LEASE_TRUST = 10.0
"""How long after claiming or renewing a lease this process takes steps on it: less than
:data:`LEASE_SECONDS`, so a holder whose renewals stopped stops before another may start."""


class Lease:
    """This process's hold on one table's lease: whether it may take the table's unasked steps."""

    def __init__(self, store: Store, game_id: str, metrics: Metrics) -> None:
        self.store = store
        self.game_id = game_id
        self.metrics = metrics
        self.until = 0.0  # this process takes the table's unasked steps until then (monotonic)
        self.claim_after = 0.0  # another process holds the lease and made progress: not before then
        self.is_ours = False  # the last claim was granted (a renewed claim is no new take)

    def is_held(self) -> bool:
        return time.monotonic() < self.until

    def was_ever_held(self) -> bool:
        """Has this process held the lease (so it should release it when the table leaves)?"""
        return self.until > 0

    def renewed(self, at: float) -> None:
        """The heartbeat renewed this process's leases at (monotonic) ``at``: a held one is trusted longer."""
        if self.until > at:
            self.until = at + LEASE_TRUST

    def holder_moved(self) -> None:
        """Another process stored steps: if it holds the lease it is alive, so do not try to
        claim the lease before it could have run out."""
        if not self.is_held():
            self.claim_after = max(self.claim_after, time.monotonic() + LEASE_SECONDS)

    async def claim(self) -> bool:
        """Whether this process holds the table's lease (claimed now if another's may have run
        out): only the holder takes the bots' moves and the next deal."""
        now = time.monotonic()
        if now < self.claim_after:
            return False
        try:
            held = await asyncio.to_thread(lease.claim, self.store, self.game_id, PROCESS, LEASE_SECONDS)
        except StorageUnavailable:
            self.metrics.db_errors.inc()
            self.claim_after = now + 1.0
            return False
        except Exception:  # e.g. the game was deleted meanwhile (PostgreSQL's foreign key)
            log.debug("lease of game %s not claimed", self.game_id, exc_info=True)
            self.claim_after = now + 1.0
            return False
        if held:
            if not self.is_ours:  # the first claim here, or another process held it since
                self.metrics.leases_taken.inc()
            self.until = now + LEASE_TRUST
        else:
            self.claim_after = now + LEASE_SECONDS
        self.is_ours = held
        return held


class StepRunner:
    """One background task per table that takes the steps no person is asked for (the bots'
    moves and the next deal) while this process holds the table's lease."""

    def __init__(self, table: Table, lease: Lease, *, pause: float, budget: float) -> None:
        self.table = table
        self.lease = lease
        self.pause = pause  # seconds a bot's move takes at least (thinking counts towards it)
        self.budget = budget  # seconds a bot may think
        self.bots: dict[Think, Bot] = {}  # made when the driver first asks one to think
        self.moving = False  # a bot's move is in flight (a search, or a save being retried)
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._asleep = False  # napping until kicked (nothing was due, and no clock runs)

    def kick(self) -> None:
        """Wake the runner (or start it): something changed that may let a bot move. A runner
        asleep until kicked stays asleep if still nothing is due and no clock runs (a
        person's turn): waking it would only look and sleep again."""
        if self._asleep and self._due() == (None, -1):
            return
        self._wake.set()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name=f"bots of {self.table.id}")

    def stop(self) -> None:
        self._asleep = False
        if self._task is not None:
            self._task.cancel()
            self._task = None

    def _due(self) -> tuple[Deal | Think | None, float]:
        """The driver's next step if the runner should take it now (a deal, a bot's move),
        else None and how long to wait before asking again (-1: until woken)."""
        table = self.table
        if table.waiting:
            return None, -1
        step = table.driver.next_step(away=table.attendance.away())
        if isinstance(step, Think):
            return step, 0
        if isinstance(step, Deal):
            if table.everybody_ready():
                return step, 0
            after = table.settings.next_deal_after
            if after > 0 and table.deal_over_at is not None:
                left = table.deal_over_at + after - time.monotonic()
                return (step, 0) if left <= 0 else (None, left)
            return None, -1
        if isinstance(step, Ask):
            return None, table.attendance.until_away(step.seat)
        return None, -1  # over

    async def _run(self) -> None:
        """Take the due steps one at a time; sleep until something changes."""
        table = self.table
        retry = RETRY_FIRST
        while True:
            refused = False
            if not self.lease.is_held():  # the lease first, if there is a step to take
                async with table.lock:
                    self._wake.clear()
                    step, wait = self._due()
                if step is None:  # nothing to take (a person's turn): no lease needed, nor a second look
                    await self._nap(wait)
                    continue
                if not await self.lease.claim():
                    await self._nap(self.lease.claim_after - time.monotonic())
                    continue
            async with table.lock:
                self._wake.clear()
                step, wait = self._due()
                if isinstance(step, Deal):
                    try:
                        await table.deal()
                        retry = RETRY_FIRST
                        continue
                    except ProtocolError:
                        refused = True  # the store is unavailable: try again, not in a tight loop
                elif step is not None:
                    version = table.version
                    bot = self._bot(step)
                    if step.stand_in:
                        table.stand_in(step.seat)
                    seen = table.driver.view(step.seat)
                    rng = table.driver.rng("bot")
            if refused:
                await asyncio.sleep(retry)  # outside the lock: people may still send (and hear why)
                retry = min(2 * retry, table.limits.save_retry_seconds)
                continue
            if not isinstance(step, Think):
                await self._nap(wait)
                continue
            await self._move(step, bot, seen, rng, version)

    async def _nap(self, seconds: float) -> None:
        """Sleep until kicked, or ``seconds`` at most (negative: until kicked)."""
        if seconds < 0:
            self._asleep = True
            try:
                await self._wake.wait()
            finally:
                self._asleep = False
            return
        try:
            await asyncio.wait_for(self._wake.wait(), timeout=seconds + 0.01)
        except TimeoutError:
            pass

    def _bot(self, step: Think) -> Bot:
        """The bot the driver asks to think (one per seat and level, seeded by the table)."""
        if step not in self.bots:
            offset = 100 if step.stand_in else 0
            self.bots[step] = make_bot(step.level, seed=(self.table.driver.seed + offset + step.seat) % 2**63)
        return self.bots[step]

    async def _move(self, step: Think, bot: Bot, seen: SeatView, rng: Any, version: int) -> None:
        """Think (in the pool), pause, then store the move (see :meth:`_store`)."""
        table = self.table
        started = time.monotonic()
        self.moving = True
        try:
            try:
                action = await think_in(table.pool, table.id, bot, seen, rng, self.budget,
                                        seed=table.driver.seed_for("bot"))  # still at `version`
            except PoolClosed:
                return  # shutting down
            except Exception:  # a bug must not stop the table's bots for ever: the runner looks again
                log.exception("a bot's move at table %s failed; trying again", table.id)
                await asyncio.sleep(RETRY_FIRST)
                return
            table.metrics.think.observe(time.monotonic() - started)
            pause = self.pause - (time.monotonic() - started)  # thinking counts towards the pause
            if pause > 0:
                await asyncio.sleep(pause)
            await self._store(step, action, version)
        finally:
            self.moving = False

    async def _store(self, step: Think, action: Any, version: int) -> None:
        """Store a bot's move made at ``version``. A move the database refuses is retried (the
        same move, not thought again) with a pause that doubles up to
        ``Limits.save_retry_seconds``; the table's people are told once why it waits."""
        table = self.table
        seat = step.seat
        retry = RETRY_FIRST
        told = False
        while True:
            async with table.lock:
                if table.version != version or (step.stand_in and table.attendance.connected(seat)):
                    return  # the table moved on, or the person came back: their move now
                try:
                    # False: another process moved first (the same move: it is made once)
                    await table.replication.commit(table.driver.propose(seat, action, at=version),
                                       stand_in=seat if step.stand_in else None)
                    return
                except ProtocolError as problem:
                    if problem.code != "db_unavailable":
                        log.warning("a bot's move in game %s was not accepted: %s", table.id, problem)
                        await asyncio.sleep(1)  # not in a tight loop
                        return
                except BinokelError:
                    log.exception("a bot's move in game %s was not accepted", table.id)
                    await asyncio.sleep(1)
                    return
                if not told:  # nothing changed; say why the table waits (once)
                    told = True
                    table.channel.broadcast(table.error(ProtocolError("db_unavailable")))
            await asyncio.sleep(retry)
            retry = min(2 * retry, table.limits.save_retry_seconds)
