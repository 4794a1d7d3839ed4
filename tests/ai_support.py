"""Shared helpers for the AI tests: the rule sets the bots play, random deals and the views along them."""

from __future__ import annotations

import random
from collections.abc import Iterator

from binokel.action import DURCH, PLAY_ON, ActionKind
from binokel.rules import Rules
from binokel.state import Phase, State

from conftest import RULE_IDS, RULE_VARIANTS

AI_RULES = RULE_IDS
"""Every rule set and variant of the engine tests (as text): the bots play them all."""


def random_states(rules: str | Rules, rng: random.Random, deals: int) -> Iterator[State]:
    """Every state of ``deals`` random deals (surrender and games without trump rarely, and
    bids kept low, so most deals are played out)."""
    rules = Rules.parse(rules)
    for _ in range(deals):
        state = State.new(rules, rng.randrange(rules.players)).deal_random(rng)
        while True:
            yield state
            if state.is_over():
                break
            legal = state.legal_actions()
            action = rng.choice(legal)
            if state.phase is Phase.SURRENDER and rng.random() < 0.9:
                action = PLAY_ON
            if action.kind is ActionKind.GAME and action.value >= DURCH and rng.random() < 0.6:
                action = legal[rng.randrange(4)] if state.phase is Phase.GAME else action
            if state.phase is Phase.AUCTION:
                bids = [a for a in legal if a.kind is ActionKind.BID]
                if rng.random() < 0.5:
                    action = bids[0] if bids and state.high < 250 else legal[0]
                elif action.kind is ActionKind.BID:
                    action = bids[0]  # the lowest bid: open auctions end soon
            state = state.apply(action)


__all__ = ["AI_RULES", "RULE_VARIANTS", "random_states"]
