"""Shared helpers for the AI tests: random deals and the views along them."""

from __future__ import annotations

import random
from collections.abc import Iterator

from binokel.action import DURCH, PLAY_ON, ActionKind
from binokel.state import Phase, State


def random_states(rules: str, rng: random.Random, deals: int) -> Iterator[State]:
    """Every state of ``deals`` random deals (surrender and Durch rarely, so most deals are played)."""
    for _ in range(deals):
        state = State.new(rules, rng.randrange(3)).deal_random(rng)
        while True:
            yield state
            if state.is_over():
                break
            legal = state.legal_actions()
            action = rng.choice(legal)
            if state.phase is Phase.SURRENDER and rng.random() < 0.9:
                action = PLAY_ON
            if action.kind is ActionKind.GAME and action.value == DURCH and rng.random() < 0.8:
                action = legal[rng.randrange(4)]
            if state.phase is Phase.AUCTION and rng.random() < 0.5:
                action = legal[-1] if state.high < 250 else legal[0]
            state = state.apply(action)
