"""Computer opponents: ``make_bot("easy" | "medium" | "hard")``, plus the all-seeing
``"oracle"`` for measurement (it needs the full state: ``OracleBot.choose_with_state``).

Bots receive only a :class:`~binokel.view.SeatView` and return one of its legal actions.

>>> import random
>>> from binokel.state import State
>>> from binokel.view import view
>>> state = State.new("standard", dealer=2).deal_random(random.Random(1))
>>> bot = make_bot("hard", seed=1)
>>> bot.choose(view(state, 0), budget=0.01) in view(state, 0).legal_actions
True
>>> make_bot("grand")
Traceback (most recent call last):
...
ValueError: unknown bot level 'grand' (known: easy, medium, hard, oracle)
"""

from __future__ import annotations

import random
from typing import Protocol

from binokel.action import Action
from binokel.view import SeatView

from binokel.ai.bots import EasyBot, HardBot, MediumBot, OracleBot

LEVELS = ("easy", "medium", "hard")
"""The levels offered to players; ``"oracle"`` exists for measurement only."""

BOT_CLASSES = {"easy": EasyBot, "medium": MediumBot, "hard": HardBot, "oracle": OracleBot}


class Bot(Protocol):
    """A computer opponent: answers a seat's view with one of its legal actions."""

    name: str

    def choose(self, view: SeatView, rng: random.Random | None = None, budget: float = 1.0) -> Action: ...


def make_bot(level: str, seed: int | None = None) -> Bot:
    """A bot of ``level``; its own random generator is seeded with ``seed``.

    >>> make_bot("easy").name
    'easy'
    """
    cls = BOT_CLASSES.get(level)
    if cls is None:
        raise ValueError(f"unknown bot level {level!r} (known: {', '.join(BOT_CLASSES)})")
    return cls(seed)


__all__ = ["LEVELS", "Bot", "make_bot", "EasyBot", "MediumBot", "HardBot", "OracleBot", "BOT_CLASSES"]
