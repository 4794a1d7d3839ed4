"""Hints: what the strongest measured level (:data:`binokel.ai.HINT_LEVEL`) would do for a
person, from that person's seat's view only, thought in the hall's pool after the bots' moves."""

from __future__ import annotations

import asyncio
import random

from binokel.ai import HINT_LEVEL, make_bot
from binokel.error import BinokelError
from binokel.server.limits import Bucket, Limits
from binokel.server.pool import Pool, PoolClosed, think_in
from binokel.server.schema import ProtocolError
from binokel.table import Table as Driver
from binokel.view import SeatView, view


class Hints:
    """The hints of one table: one in flight per seat (all its tabs together) at most, and
    ``Limits.hints_per_minute``; a hint the pool cannot work out within ``Limits.hint_seconds``
    is refused (``hints_busy``), as bot moves go first."""

    def __init__(self, game_id: str, limits: Limits, pool: Pool | None, *, budget: float, seed: int) -> None:
        self.game_id = game_id
        self.limits = limits
        self.pool = pool
        self.budget = budget
        self.seed = seed
        self.in_flight: set[int] = set()
        self._quotas: dict[int, Bucket] = {}

    def admit(self, seat: int) -> None:
        """Let ``seat`` ask for a hint now (ProtocolError if it may not), counted as in flight."""
        if seat in self.in_flight:
            raise ProtocolError("hint_in_flight")
        per_minute = self.limits.hints_per_minute
        quota = self._quotas.setdefault(seat, Bucket(per_minute / 60, per_minute))
        if not quota.take():
            raise ProtocolError("too_many_hints", max=per_minute)
        self.in_flight.add(seat)

    async def think(self, seat: int, seen: SeatView, seed: str) -> str:
        """The hint for an admitted ``seat`` from its view ``seen``, in record notation."""
        adviser = make_bot(HINT_LEVEL, seed=self.seed)  # one per request: hints may overlap, bots keep state
        try:
            action = await asyncio.wait_for(
                think_in(self.pool, self.game_id, adviser, seen, random.Random(seed), self.budget, seed=seed,
                         hint=True),
                timeout=self.limits.hint_seconds)
        except (TimeoutError, PoolClosed):
            raise ProtocolError("hints_busy") from None
        finally:
            self.in_flight.discard(seat)
        return str(action)


def after_discards(driver: Driver, seat: int, chosen: list[str]) -> SeatView:
    """The seat's view as if the cards it picked to lay away (not sent yet) were laid away,
    so the hint is the next card after them; only while it lays away, else its plain view."""
    deal = driver.shown_deal
    try:
        for card in chosen[:8]:
            if deal.to_move != seat or deal.phase.value != "discard":
                break
            deal = deal.apply_text(str(card))
    except BinokelError:
        return driver.view(seat)  # not cards it may lay away: the plain hint
    return view(deal, seat)
