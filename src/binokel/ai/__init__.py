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

import logging
import random
from typing import Protocol

from binokel.action import PASS, TAKE, Action
from binokel.ai.bots import EasyBot, HardBot, MediumBot, OracleBot
from binokel.view import SeatView

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


log = logging.getLogger("binokel.ai")


def choose_safely(bot: Bot, view: SeatView, rng: random.Random, budget: float = 1.0) -> Action:
    """The bot's answer, or a modest legal action if it fails or answers illegally: the tables
    (browser and terminal) use this, because a broken bot must never stall a game.

    >>> import random
    >>> from binokel.state import State
    >>> from binokel.view import view
    >>> class Broken:
    ...     name = "broken"
    ...     def choose(self, view, rng=None, budget=1.0):
    ...         raise RuntimeError("boom")
    >>> seen = view(State.new("standard", dealer=0).deal_random(random.Random(1)), 1)
    >>> logging.disable(logging.ERROR)  # keep the expected traceback out of the doctest
    >>> str(choose_safely(Broken(), seen, random.Random(1)))
    '150'
    >>> logging.disable(logging.NOTSET)
    """
    try:
        action = bot.choose(view, rng, budget)
    except Exception:
        log.exception("the %s bot failed; it plays a modest legal action instead", _name(bot))
    else:
        if action in view.legal_actions:
            return action
        log.error("the %s bot chose %r, not a legal action; it plays a modest legal action instead",
                  _name(bot), action)
    return modest_action(view, rng)


def modest_action(view: SeatView, rng: random.Random) -> Action:
    """A legal action that never gambles: take the Tapp, pass, else a random legal action."""
    for action in (TAKE, PASS):
        if action in view.legal_actions:
            return action
    return rng.choice(view.legal_actions)


def _name(bot: object) -> str:
    return getattr(bot, "name", type(bot).__name__)


__all__ = ["BOT_CLASSES", "LEVELS", "Bot", "EasyBot", "HardBot", "MediumBot", "OracleBot", "choose_safely", "make_bot",
           "modest_action"]
