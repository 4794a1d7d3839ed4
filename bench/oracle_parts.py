"""Where the oracle's edge comes from: ``python bench/oracle_parts.py --bots oracle_auction,expert
--deals 300 --budget 0.02 --seed S --json`` (every option of ``binokel tournament``), with three
measurement bots besides the tournament's own levels:

- ``oracle_auction``: the oracle (every card seen) until the first card is played — bids,
  the Tapp, the discard, the game, the surrender — then the expert bot on its own view;
- ``oracle_play``: the expert bot until the first card is played, the oracle after;
- ``expert_tapp``: the expert bot told the Tapp's cards while they lie face down: every world
  it samples in the auction holds the true Tapp (the cards swapped into it come from the
  other seats' sampled hands, in exchange for the sampled Tapp's). Nothing else is seen.

Each against ``expert`` on the same paired deals splits the oracle's edge: what seeing the
cards is worth in the auction, in the play, and what the Tapp alone is worth in the
auction — information no honest bot can infer. For measurement only: these bots read the
state, so they live here and not in ``binokel.ai``.

Numbers only; nothing here is a test.
"""

from __future__ import annotations

import random
import sys
from dataclasses import replace

from binokel import tournament
from binokel.action import Action
from binokel.ai import BOT_CLASSES
from binokel.ai.bots import OracleBot
from binokel.ai.expert import ExpertBot
from binokel.ai.knowledge import Knowledge
from binokel.ai.sample import World
from binokel.card import add_card, count_of, remove_card
from binokel.state import Phase, State
from binokel.view import view


class _SeesUntilPlay(OracleBot):
    """The oracle in the phases it sees, the expert bot (on its view) in the others."""

    SEES_PLAY = False

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._expert = ExpertBot(seed)

    def choose_with_state(self, state: State, rng: random.Random | None = None, budget: float = 1.0) -> Action:
        if (state.phase is Phase.PLAY) == self.SEES_PLAY:
            return super().choose_with_state(state, rng, budget)
        assert state.to_move is not None
        return self._expert.choose(view(state, state.to_move), rng, budget)


class OracleAuction(_SeesUntilPlay):
    name = "oracle_auction"


class OraclePlay(_SeesUntilPlay):
    name = "oracle_play"
    SEES_PLAY = True


class _TappKnown(ExpertBot):
    """The expert bot whose sampled worlds hold the true Tapp while it lies face down."""

    def __init__(self, tapp: tuple[int, ...]) -> None:
        super().__init__()
        self._tapp = tapp

    def sample(self, knowledge: Knowledge, rng: random.Random) -> World:
        world = super().sample(knowledge, rng)
        if knowledge.tapp is not None or not world.tapp:
            return world
        hands = list(world.hands)
        wanted, spare = list(self._tapp), list(world.tapp)
        for kind in self._tapp:  # the cards both Tapps share stay
            if kind in spare:
                spare.remove(kind)
                wanted.remove(kind)
        for kind, given in zip(wanted, spare):
            # A true Tapp card missing from the sampled Tapp is in another seat's sampled hand.
            seat = next(s for s in range(len(hands)) if s != knowledge.seat and count_of(hands[s], kind))
            hands[seat] = add_card(remove_card(hands[seat], kind), given)
        return replace(world, hands=tuple(hands), tapp=self._tapp)


class ExpertTapp(OracleBot):
    name = "expert_tapp"

    def choose_with_state(self, state: State, rng: random.Random | None = None, budget: float = 1.0) -> Action:
        assert state.to_move is not None
        knowing = _TappKnown(tuple(state.tapp))
        return knowing.choose(view(state, state.to_move), rng or self._rng, budget)


if __name__ == "__main__":
    for bot in (OracleAuction, OraclePlay, ExpertTapp):
        BOT_CLASSES[bot.name] = bot
    sys.exit(tournament.main(sys.argv[1:]))
