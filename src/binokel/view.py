"""Per-seat views: the only way information leaves a state.

``view(state, seat)`` holds exactly what that seat may know: its own hand, the public
history (calls, the Tapp once shown, melds shown, tricks), the soloist's own discard
(for the soloist only), hand sizes, results, and its legal actions when it is to move.

>>> import random
>>> from binokel.state import State
>>> state = State.new("standard", dealer=2).deal_random(random.Random(1))
>>> seen = view(state, 1)
>>> len(seen.hand), seen.tapp, seen.legal_actions
(15, None, ())
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from binokel.action import GAMES, HAND_DURCH, OPEN_DURCH, Action
from binokel.card import CARDS, Card, Hand, Suit
from binokel.meld import Meld
from binokel.state import Phase, State, Trick


@dataclass(frozen=True)
class SeatView:
    """Everything one seat may know about a deal."""

    rules: str
    seat: int
    players: int
    dealer: int
    phase: str
    to_move: int | None
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    tapp_size: int
    auction: tuple[str, ...]
    callers: tuple[int, ...]  # the seat of each call in ``auction``
    soloist: int | None
    bid: int | None
    tapp: tuple[Card, ...] | None  # shown to everyone once the auction has ended
    discard: tuple[Card, ...] | None  # the soloist's own discard, for the soloist only
    game: str | None  # "S", "H", "D", "C" or "durch"
    surrendered: bool | None
    melds: tuple[tuple[Meld, ...], ...] | None
    tricks: tuple[Trick, ...]
    trick: Trick
    tricks_won: tuple[int, ...]
    trick_points: tuple[int, ...]  # public: points in each seat's tricks (no discard)
    outcome: str | None
    scores: tuple[int, ...] | None
    legal_actions: tuple[Action, ...]
    sitting_out: int | None = None  # the seat that sits out this deal (sit_out=1): no cards, never to move
    open_hand: tuple[Card, ...] | None = None  # open Durch: the soloist's hand, shown to everybody

    @property
    def trump(self) -> Suit | None:
        return Suit.parse(self.game) if self.game in ("S", "H", "D", "C") else None

    @property
    def my_hand(self) -> Hand:
        return Hand(self.hand)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON for the browser or the terminal; cards in canonical text."""
        cards = _card_texts
        return {
            "rules": self.rules, "seat": self.seat, "players": self.players, "dealer": self.dealer,
            "phase": self.phase, "to_move": self.to_move, "tapp_size": self.tapp_size, "hand": cards(self.hand),
            "hand_sizes": list(self.hand_sizes), "auction": list(self.auction), "callers": list(self.callers),
            "soloist": self.soloist, "bid": self.bid,
            "tapp": cards(self.tapp) if self.tapp is not None else None,
            "discard": cards(self.discard) if self.discard is not None else None,
            "game": self.game, "surrendered": self.surrendered,
            "melds": [[m.to_json() for m in seat] for seat in self.melds] if self.melds is not None else None,
            "tricks": [_trick_json(t) for t in self.tricks],
            "trick": _trick_json(self.trick),
            "tricks_won": list(self.tricks_won), "trick_points": list(self.trick_points),
            "outcome": self.outcome, "scores": list(self.scores) if self.scores is not None else None,
            "legal_actions": [str(a) for a in self.legal_actions],
            "sitting_out": self.sitting_out,
            "open_hand": cards(self.open_hand) if self.open_hand is not None else None,
        }


def _card_texts(cards: tuple[Card, ...]) -> list[str]:
    return [str(c) for c in cards]


def _trick_json(trick: Trick) -> dict[str, Any]:
    return {"leader": trick.leader, "cards": _card_texts(trick.cards), "winner": trick.winner}


def view(state: State, seat: int) -> SeatView:
    """What ``seat`` may know of ``state``."""
    if not isinstance(seat, int) or not 0 <= seat < state.players:
        raise ValueError(f"seat must be from 0 to {state.players - 1}, not {seat!r}")
    tapp_shown = not state.tapp_in_centre
    is_soloist = seat == state.soloist
    game = None if state.game is None else str(GAMES[state.game])
    return SeatView(
        rules=state.rules.text,
        seat=seat,
        players=state.players,
        dealer=state.dealer,
        phase=state.phase.value,
        to_move=state.to_move,
        hand=tuple(Hand(mask=state.hands[seat])),
        hand_sizes=tuple(h.bit_count() for h in state.hands),
        tapp_size=state.rules.tapp_size,
        auction=tuple(str(a) for a in state.calls),
        callers=state.callers,
        soloist=state.soloist,
        bid=state.bid,
        tapp=tuple(sorted(CARDS[k] for k in state.tapp)) if tapp_shown else None,
        discard=tuple(sorted(CARDS[k] for k in state.discard)) if is_soloist else None,
        game=game,
        surrendered=state.surrendered,
        melds=state.melds,
        tricks=state.tricks,
        trick=state.current_trick,
        tricks_won=state.won,
        trick_points=state.trick_points,
        outcome=state.outcome.value if state.outcome else None,
        scores=state.scores,
        legal_actions=tuple(state.legal_actions()) if state.to_move == seat else (),
        sitting_out=state.sitting_out,
        open_hand=tuple(Hand(mask=state.hands[state.soloist])) if state.game in (OPEN_DURCH, HAND_DURCH) else None,
    )


__all__ = ["SeatView", "view", "Phase"]
