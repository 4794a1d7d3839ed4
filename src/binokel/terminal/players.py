"""The computer opponents, from ``binokel.ai`` (``make_bot(level, seed)``)."""

from __future__ import annotations

import random
from typing import Protocol

from binokel.action import Action
from binokel.view import SeatView

DEFAULT_LEVELS = ("easy", "medium", "hard")
NAMES = ("Ben", "Cleo", "Dora", "Emil", "Fritz")
"""The computer opponents' names, seat 1 onwards."""


class Bot(Protocol):
    def choose(self, view: SeatView, rng: random.Random, budget: float) -> Action: ...


def levels() -> tuple[str, ...]:
    """The bot levels this installation offers."""
    try:
        from binokel.ai import LEVELS
    except ImportError:
        return DEFAULT_LEVELS
    return tuple(LEVELS)


def make_bot(level: str, seed: int | None = None) -> Bot:
    """A bot of ``level``; without ``binokel.ai`` a simple stand-in that plays a random legal action."""
    try:
        from binokel.ai import make_bot as make
    except ImportError:
        return RandomBot()
    return make(level, seed=seed)


class RandomBot:
    """Stand-in while ``binokel.ai`` is not installed: a random legal action."""

    def choose(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        return rng.choice(view.legal_actions)
