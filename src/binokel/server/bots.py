"""Computer opponents for the server: ``binokel.ai`` when installed, else a random player.

Bots get a seat's view, never the state; they run off the event loop (in a thread).
"""

from __future__ import annotations

import logging
import random
from typing import Protocol

from binokel.action import Action
from binokel.view import SeatView

log = logging.getLogger("binokel.server")


class Bot(Protocol):
    def choose(self, view: SeatView, rng: random.Random, budget: float) -> Action: ...


class RandomBot:
    """Plays a random legal action: the stand-in until ``binokel.ai`` exists."""

    def choose(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        return rng.choice(view.legal_actions)


def make_bot(level: str, seed: int | None = None) -> Bot:
    """The ``binokel.ai`` bot of that level, or a random player if the AI is not available."""
    try:
        from binokel.ai import make_bot as make_ai_bot

        return make_ai_bot(level, seed=seed)
    except Exception as error:  # missing or broken AI: the game must still be playable
        log.warning("binokel.ai is not available (%s): computer opponents play at random", error)
        return RandomBot()


def choose(bot: Bot, view: SeatView, rng: random.Random, budget: float) -> Action:
    """The bot's action, or a random legal one if the bot fails or answers illegally:
    a broken bot must never stall a game."""
    try:
        action = bot.choose(view, rng, budget)
    except Exception:  # noqa: BLE001 - any bot failure is logged and survived
        log.exception("the %s bot failed; playing a random legal action", type(bot).__name__)
        return rng.choice(view.legal_actions)
    if action not in view.legal_actions:
        log.error("the %s bot chose an illegal action %r; playing a random legal action", type(bot).__name__, action)
        return rng.choice(view.legal_actions)
    return action
