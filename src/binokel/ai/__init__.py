"""Computer opponents: ``make_bot("easy" | "medium" | "hard" | "expert")``, plus the all-seeing
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
ValueError: unknown bot level 'grand' (known: easy, medium, hard, expert, oracle)
"""

from __future__ import annotations

import json
import logging
import os
import random
from typing import Protocol

from binokel.action import PASS, TAKE, Action
from binokel.ai.bots import BotError, EasyBot, HardBot, MediumBot, OracleBot
from binokel.ai.expert import ExpertBot
from binokel.view import SeatView

LEVELS = ("easy", "medium", "hard", "expert")
"""The levels offered to players, weakest first (the browser, the terminal and the server
read this one list); ``"oracle"`` exists for measurement only."""

HINT_LEVEL = "expert"
"""The level that gives hints and the bidding help: the strongest *measured* level (docs/ai.md,
round five: expert − hard +4.7 [+1.4, +7.9] points a deal over 1000 paired `standard` deals
at budget 0.02; round four: +10.0 [+2.7, +17.3] over 300 of `classic40`)."""

BOT_CLASSES = {"easy": EasyBot, "medium": MediumBot, "hard": HardBot, "expert": ExpertBot, "oracle": OracleBot}


class Bot(Protocol):
    """A computer opponent: answers a seat's view with one of its legal actions."""

    name: str

    def choose(self, view: SeatView, rng: random.Random | None = None, budget: float = 1.0) -> Action: ...


def adviser(seed: int | None = None) -> HardBot:
    """A bot of :data:`HINT_LEVEL` (a searching level: the bidding help reads its simulation).

    >>> adviser(1).name == HINT_LEVEL
    True
    """
    bot = BOT_CLASSES[HINT_LEVEL](seed)
    assert isinstance(bot, HardBot)
    return bot


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

STRICT_ENV = "BINOKEL_STRICT_BOTS"
"""Set to 1 (the test suite does, in tests/conftest.py) and :func:`choose_safely` raises
instead of covering for a failing bot."""


def strict() -> bool:
    """Does :func:`choose_safely` raise on a bot failure (``BINOKEL_STRICT_BOTS=1``)?"""
    return os.environ.get(STRICT_ENV, "") not in ("", "0")


def choose_safely(bot: Bot, view: SeatView, rng: random.Random, budget: float = 1.0, *,
                  seed: object = None, strict_mode: bool | None = None) -> Action:
    """The bot's answer, checked: it must be one of ``view.legal_actions``.

    If the bot raises or answers anything else, in strict mode (tests; ``strict_mode`` or, by
    default, :func:`strict`) a :class:`BotError` is raised. In live play (the browser, the
    terminal) an error is logged with the seat, the view as JSON and ``seed`` (what seeded
    ``rng``), so the position can be replayed, and the seat plays :func:`modest_action`
    instead: a broken bot must never stall a game, nor hide as a bad move.

    >>> import random
    >>> from binokel.state import State
    >>> from binokel.view import view
    >>> class Broken:
    ...     name = "broken"
    ...     def choose(self, view, rng=None, budget=1.0):
    ...         raise RuntimeError("boom")
    >>> seen = view(State.new("standard", dealer=0).deal_random(random.Random(1)), 1)
    >>> logging.disable(logging.ERROR)  # keep the expected traceback out of the doctest
    >>> str(choose_safely(Broken(), seen, random.Random(1), strict_mode=False))
    '150'
    >>> logging.disable(logging.NOTSET)
    >>> choose_safely(Broken(), seen, random.Random(1), strict_mode=True)
    Traceback (most recent call last):
    ...
    binokel.ai.bots.BotError: the broken bot failed at seat 1: RuntimeError: boom
    """
    strict_now = strict() if strict_mode is None else strict_mode
    try:
        action = bot.choose(view, rng, budget)
    except Exception as error:  # any bot failure: raised in tests, logged and survived live
        if strict_now:
            raise BotError(f"the {_name(bot)} bot failed at seat {view.seat}: {type(error).__name__}: {error}") \
                from error
        log.exception("the %s bot failed; seat %d, seed %r, view %s; it plays a modest legal action instead",
                      _name(bot), view.seat, seed, _json(view))
    else:
        if action in view.legal_actions:
            return action
        if strict_now:
            raise BotError(f"the {_name(bot)} bot chose {action!r} at seat {view.seat}, not a legal action")
        log.error("the %s bot chose %r, not a legal action; seat %d, seed %r, view %s; "
                  "it plays a modest legal action instead", _name(bot), action, view.seat, seed, _json(view))
    return modest_action(view, rng)


def modest_action(view: SeatView, rng: random.Random) -> Action:
    """The documented safe move: take the Tapp, else pass, else a random legal action
    (``rng``: the same position and seed give the same move). It never bids up, never
    chooses a game without trump on purpose and never gives up a game by surrendering
    on purpose."""
    for action in (TAKE, PASS):
        if action in view.legal_actions:
            return action
    return rng.choice(view.legal_actions)


def _json(view: SeatView) -> str:
    return json.dumps(view.to_json(), separators=(",", ":"))


def _name(bot: object) -> str:
    return getattr(bot, "name", type(bot).__name__)


__all__ = ["LEVELS", "HINT_LEVEL", "adviser", "ExpertBot", "Bot", "make_bot", "choose_safely", "modest_action",
           "EasyBot", "MediumBot", "HardBot", "OracleBot", "BOT_CLASSES", "STRICT_ENV", "BotError", "strict"]
