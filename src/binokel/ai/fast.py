"""A fast, mutable card-play core on integer masks, for search and playouts.

The reference engine (:class:`binokel.state.State`) is immutable and validates every
step; search needs millions of card plays, so :class:`Position` keeps the play phase
of one deal in plain ints and mutates in place. It is checked against the engine by a
differential test (``tests/test_ai_fast.py``). Hands use the engine's mask layout
(bit ``k`` first copy of kind ``k``, bit ``k + 28`` the second).

>>> import random
>>> from binokel.state import State
>>> state = State.new("standard", dealer=2).deal_random(random.Random(4))
>>> for text in ("150", "pass", "pass"):
...     state = state.apply_text(text)
>>> for _ in range(3):
...     state = state.apply(state.legal_actions()[0])
>>> state = state.apply_text("H").apply_text("play")
>>> from binokel.card import kinds_of
>>> position = Position.from_state(state)
>>> sorted(kinds_of(position.legal_mask())) == [a.value for a in state.legal_actions()]
True
"""

from __future__ import annotations

from binokel.action import BETTEL, DURCH
from binokel.card import POINTS, add_copy, remove_card
from binokel.rules import MustBeat, Rules
from binokel.score import LAST_TRICK_BONUS, durch_scores, trump_scores
from binokel.state import Phase, State
from binokel.trick import NO_TRUMP, beats, legal_cards


class Position:
    """The play phase of one deal with every hand known; mutable and cheap to copy."""

    __slots__ = ("rules", "players", "orders", "out", "hands", "game", "trump", "soloist", "bid", "melds",
                 "discard_points", "leader", "to_move", "trick", "best", "points", "won", "played", "over",
                 "broken", "beat_led")

    rules: Rules
    players: int
    orders: tuple[tuple[int, ...], ...]  # per seat: the playing seats in order from it (see Rules.seating)
    out: int | None  # the seat sitting out, if any
    hands: list[int]
    game: int  # a Contract: trump suit 0..3 or a game without trump (DURCH, OPEN_DURCH, BETTEL, HAND_DURCH)
    trump: int
    soloist: int
    bid: int
    melds: tuple[int, ...]
    discard_points: int
    leader: int
    to_move: int
    trick: list[int]
    best: int
    points: list[int]
    won: list[int]
    played: int
    over: bool
    broken: bool  # a game without trump ended early: Durch lost a trick, Bettel won one
    beat_led: bool

    @classmethod
    def from_state(cls, state: State) -> Position:
        """The play phase of ``state`` (which must be in the play phase)."""
        if state.phase is not Phase.PLAY:
            raise ValueError(f"a Position needs the play phase, not {state.phase.value}")
        game, soloist, bid, to_move = state.game, state.soloist, state.bid, state.to_move
        assert game is not None and soloist is not None and bid is not None and to_move is not None
        p = cls.__new__(cls)
        p.rules = state.rules
        p.players = state.players
        p.orders = state.seating.orders
        p.out = state.sitting_out
        p.hands = list(state.hands)
        p.game = game
        p.trump = NO_TRUMP if game >= DURCH else game
        p.soloist = soloist
        p.bid = bid
        p.melds = state.meld_points
        p.discard_points = sum(POINTS[k] for k in state.discard)
        p.leader = state.leader
        p.to_move = to_move
        p.trick = list(state.trick)
        p.best = state.best
        p.points = list(state.trick_points)
        p.won = list(state.won)
        played = 0
        for trick in state.tricks:
            for card in trick.cards:
                played = add_copy(played, card.index)
        for kind in state.trick:
            played = add_copy(played, kind)
        p.played = played
        p.over = False
        p.broken = False
        p.beat_led = state.rules.must_beat is MustBeat.LED
        return p

    def copy(self) -> Position:
        p = Position.__new__(Position)
        p.rules, p.players, p.orders, p.out = self.rules, self.players, self.orders, self.out
        p.hands, p.game, p.trump = self.hands[:], self.game, self.trump
        p.soloist, p.bid, p.melds, p.discard_points = self.soloist, self.bid, self.melds, self.discard_points
        p.leader, p.to_move, p.trick, p.best = self.leader, self.to_move, self.trick[:], self.best
        p.points, p.won, p.played, p.over = self.points[:], self.won[:], self.played, self.over
        p.broken, p.beat_led = self.broken, self.beat_led
        return p

    @property
    def is_durch(self) -> bool:
        """A game without trump (Durch, open Durch, Bettel)."""
        return self.trump == NO_TRUMP

    @property
    def order(self) -> tuple[int, ...]:
        """The seats of the current trick in order of play."""
        return self.orders[self.leader]

    def legal_mask(self) -> int:
        trick = self.trick
        exempt = (self.rules.partner_exemption and trick
                  and self.rules.partners(self.orders[self.leader][self.best], self.to_move))
        return legal_cards(self.hands[self.to_move], trick, self.best, self.trump, self.beat_led, bool(exempt))

    def play(self, kind: int) -> None:
        """Play ``kind`` for the seat to move (not validated: search plays legal cards only)."""
        seat = self.to_move
        hands = self.hands
        hands[seat] = remove_card(hands[seat], kind)
        self.played = add_copy(self.played, kind)
        trick = self.trick
        trick.append(kind)
        if len(trick) > 1 and beats(kind, trick[self.best], self.trump):
            self.best = len(trick) - 1
        order = self.orders[self.leader]
        if len(trick) < len(order):
            self.to_move = order[len(trick)]
            return
        winner = order[self.best]
        points = (POINTS[trick[0]] + POINTS[trick[1]] + POINTS[trick[2]] if len(trick) == 3
                  else sum(POINTS[k] for k in trick))
        last = not hands[winner]
        if last:
            points += LAST_TRICK_BONUS
        self.points[winner] += points
        self.won[winner] += 1
        self.trick = []
        self.best = 0
        self.leader = self.to_move = winner
        if self.trump == NO_TRUMP and (winner == self.soloist) is (self.game == BETTEL):
            self.over = self.broken = True
        elif last:
            self.over = True

    def card_points(self) -> list[int]:
        points = self.points[:]
        points[self.soloist] += self.discard_points
        return points

    def scores(self) -> tuple[int, ...]:
        """The deal's scores once it is over (as :attr:`State.scores`)."""
        if self.trump == NO_TRUMP:
            return durch_scores(self.rules, self.soloist, not self.broken, self.out, self.game)
        return trump_scores(self.rules, self.soloist, self.bid, self.card_points(), self.melds, self.won, self.out)

    def soloist_total(self) -> int:
        """The soloist's card points (with the discard) plus melds so far."""
        return self.points[self.soloist] + self.discard_points + self.melds[self.soloist]


__all__ = ["Position", "beats", "NO_TRUMP", "POINTS"]
