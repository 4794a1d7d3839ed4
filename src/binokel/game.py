"""A game: deals up to the target, with the dealer rotation and the end-of-game rule.

>>> import random
>>> game = Game.new("standard(target=300)", first_dealer=0)
>>> rng = random.Random(3)
>>> while not game.is_over():
...     game = game.deal_random(rng) if game.needs_deal() else game.apply(rng.choice(game.legal_actions()))
>>> game.winner is not None, len(game.deals) >= 1
(True, True)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from binokel.action import Action
from binokel.card import Card
from binokel.error import IllegalActionError
from binokel.rules import Rules
from binokel.score import decide_winner
from binokel.state import Outcome, Phase, State


@dataclass(frozen=True)
class Game:
    """Immutable: the rules, every deal so far (the last may be in progress), totals, winner."""

    rules: Rules
    first_dealer: int
    deals: tuple[State, ...]
    totals: tuple[int, ...]
    winner: int | None = None
    durch_games: tuple[int, ...] = ()  # durch_game=1: whole games won (+1) or lost (-1) by Durch, per seat

    @classmethod
    def new(cls, rules: Rules | str = "standard", first_dealer: int = 0) -> Game:
        rules = Rules.parse(rules) if isinstance(rules, str) else rules
        state = State.new(rules, first_dealer)  # validates the dealer
        return cls(rules, first_dealer, (state,), (0,) * rules.players, durch_games=(0,) * rules.players)

    @classmethod
    def seeded(cls, rules: Rules | str, seed: int) -> Game:
        """A new game whose first dealer is drawn by lot from ``seed`` (see :meth:`deal_seeded`)."""
        rules = Rules.parse(rules) if isinstance(rules, str) else rules
        return cls.new(rules, random.Random(seed).randrange(rules.players))

    def deal_seeded(self, seed: int) -> Game:
        """Deal the next deal from the game's ``seed``: each deal has its own generator, so
        a resumed game deals exactly the cards an uninterrupted one would."""
        return self.deal_random(random.Random(f"{seed}:deal:{len(self.deals) - 1}"))

    @property
    def current(self) -> State:
        """The deal in progress (or the last one, once the game is over)."""
        return self.deals[-1]

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def dealt(self) -> int:
        """How many deals have been dealt (only the last deal may still wait for its cards)."""
        return len(self.deals) - (self.current.phase is Phase.DEAL)

    def is_over(self) -> bool:
        return self.winner is not None

    def needs_deal(self) -> bool:
        """Is the next step a chance step (dealing the cards)?"""
        return not self.is_over() and self.current.to_move == -1

    def legal_actions(self) -> list[Action]:
        return [] if self.is_over() else self.current.legal_actions()

    def deal(self, hands: Sequence[Sequence[Card | str]], tapp: Sequence[Card | str]) -> Game:
        return self._with_current(self._next_state().deal(hands, tapp))

    def deal_random(self, rng: random.Random) -> Game:
        return self._with_current(self._next_state().deal_random(rng))

    def _next_state(self) -> State:
        """The undealt state the next chance step applies to."""
        if self.is_over():
            raise IllegalActionError("game_over")
        if self.current.to_move != -1:
            raise IllegalActionError("deal_not_finished")
        return self.current

    def apply(self, action: Action) -> Game:
        """Apply an action to the current deal; a finished deal updates the totals and
        either decides the game or sets up the next deal (to be dealt)."""
        if self.is_over():
            raise IllegalActionError("game_over")
        state = self.current.apply(action)
        game = self._with_current(state)
        if not state.is_over():
            return game
        assert state.scores is not None  # a finished deal is scored
        totals = tuple(t + s for t, s in zip(self.totals, state.scores))
        winner = decide_winner(self.rules, totals, state.soloist, len(self.deals))
        game = replace(game, totals=totals, winner=winner)
        if self.rules.durch_game and state.outcome in (Outcome.DURCH_MADE, Outcome.DURCH_FAILED):
            won = 1 if state.outcome is Outcome.DURCH_MADE else -1
            assert state.soloist is not None  # a Durch has a soloist
            side = self.rules.team_of(state.soloist)
            game = replace(game, durch_games=tuple(
                count + (won if self.rules.team_of(seat) == side else 0)
                for seat, count in enumerate(self.durch_games)))
        if winner is None:
            next_dealer = self.rules.next_dealer(state.dealer)
            game = replace(game, deals=game.deals + (State.new(self.rules, next_dealer),))
        return game

    def apply_text(self, text: str) -> Game:
        if self.is_over():
            raise IllegalActionError("game_over")
        return self.apply(self.current.parse_action(text))

    @property
    def finished_deals(self) -> tuple[State, ...]:
        return tuple(d for d in self.deals if d.is_over())

    def _with_current(self, state: State) -> Game:
        return replace(self, deals=self.deals[:-1] + (state,))

