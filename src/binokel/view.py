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
from collections.abc import Collection, Mapping
from typing import Any

from binokel.action import Action, ActionKind, Contract
from binokel.card import CARDS, Card, Hand, Rank, Suit
from binokel.meld import Meld
from binokel.rules import Auction, Rules, Seating
from binokel.score import LAST_TRICK_BONUS, MAX_BID
from binokel.state import Outcome, Phase, State, parse_action
from binokel.trick import Trick


@dataclass(frozen=True)
class SeatView:
    """Everything one seat may know about a deal."""

    rules: Rules
    seat: int
    players: int
    dealer: int
    phase: Phase
    to_move: int | None
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    tapp_size: int
    auction: tuple[Action, ...]
    callers: tuple[int, ...]  # the seat of each call in ``auction``
    soloist: int | None
    bid: int | None
    tapp: tuple[Card, ...] | None  # shown to everyone once the auction has ended
    discard: tuple[Card, ...] | None  # the soloist's own discard, for the soloist only
    game: Contract | None
    surrendered: bool | None
    melds: tuple[tuple[Meld, ...], ...] | None
    tricks: tuple[Trick, ...]
    trick: Trick
    tricks_won: tuple[int, ...]
    trick_points: tuple[int, ...]  # public: points in each seat's tricks (no discard)
    outcome: Outcome | None
    scores: tuple[int, ...] | None
    legal_actions: tuple[Action, ...]
    sitting_out: int | None = None  # the seat that sits out this deal (sit_out=1): no cards, never to move
    open_hand: tuple[Card, ...] | None = None  # open Durch: the soloist's hand, shown to everybody

    @property
    def trump(self) -> Suit | None:
        return self.game.trump if self.game is not None else None

    @property
    def seating(self) -> Seating:
        """Who sits where this deal (forehand, seat order, who sits out)."""
        return self.rules.seating(self.dealer)

    def allows(self, action: Action) -> bool:
        """Would the state take ``action`` from this seat now (:meth:`State.is_legal`)? The
        offered actions, and in the open auction any multiple of 10 from the lowest offered
        bid up, however large (RULES.md section 10: a terminal accepts every legal bid).

        >>> import random
        >>> seen = view(State.new("club", dealer=2).deal_random(random.Random(1)), 0)
        >>> Action.bid(800) in seen.legal_actions, seen.allows(Action.bid(800)), seen.allows(Action.bid(805))
        (False, True, False)
        """
        if action in self.legal_actions:
            return True
        bids = [a.value for a in self.legal_actions if a.kind is ActionKind.BID]
        return (self.rules.auction is Auction.OPEN and action.kind is ActionKind.BID and bool(bids)
                and min(bids) <= action.value <= MAX_BID and action.value % 10 == 0)

    def trick_points_of(self, number: int) -> int:
        """The points completed trick ``number`` (0 the first) brought its winner: its cards
        and, when it ended the deal's play (no card left in any hand), the last trick's 10.

        >>> import random
        >>> from binokel.ai import make_bot
        >>> state = State.new("standard", dealer=2).deal_random(random.Random(1))
        >>> bots = [make_bot("easy", seed=s) for s in range(3)]
        >>> while not state.is_over():
        ...     state = state.apply(bots[state.to_move].choose(view(state, state.to_move), budget=0.01))
        >>> seen = view(state, 0)
        >>> sum(seen.trick_points_of(k) for k in range(len(seen.tricks))) == sum(seen.trick_points)
        True
        """
        last = number == len(self.tricks) - 1 and not any(self.hand_sizes)
        return sum(c.points for c in self.tricks[number].cards) + (LAST_TRICK_BONUS if last else 0)

    @property
    def card_points(self) -> tuple[int, ...]:
        """Card points per seat as this seat may know them: tricks (with the last trick's 10)
        and, for the soloist's own view, the discard (hidden from the others until the result)."""
        discard = sum(c.points for c in self.discard) if self.discard else 0
        return tuple(p + (discard if seat == self.soloist else 0) for seat, p in enumerate(self.trick_points))

    def to_json(self, omit: Collection[str] = (), public: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Plain JSON for the browser or the terminal; cards and actions in record notation.
        ``omit``: fields to leave out (the dear ones, the finished tricks and the melds, are
        then not built at all: an update leaves out the fields its step did not change).
        ``public``: :meth:`public_json` of any seat's view of the same deal, made once for
        every seat (the driver keeps it per version); only this seat's own fields are built.

        >>> import random
        >>> seen = view(State.new("standard", dealer=2).deal_random(random.Random(1)), 0)
        >>> SeatView.from_json(seen.to_json()) == seen
        True
        >>> sorted(set(seen.to_json()) - set(seen.to_json(omit={"tricks", "melds"})))
        ['melds', 'tricks']
        >>> other = view(State.new("standard", dealer=2).deal_random(random.Random(1)), 1)
        >>> seen.to_json(public=other.public_json()) == seen.to_json()
        True
        """
        return merge_json(self._public_data(omit) if public is None else public, self.own_json(omit), omit)

    def own_json(self, omit: Collection[str] = ()) -> dict[str, Any]:
        """The fields of :meth:`to_json` that are this seat's own (:data:`SEAT_FIELDS`), but
        those in ``omit``.

        >>> import random
        >>> seen = view(State.new("standard", dealer=2).deal_random(random.Random(1)), 0)
        >>> sorted(seen.own_json(omit={"hand", "discard"}))
        ['card_points', 'discard_points', 'legal_actions', 'seat']
        """
        discard = self.discard
        own = _own_fields(self.seat, [str(a) for a in self.legal_actions], list(self.card_points),
                          sum(c.points for c in discard) if discard is not None else None)
        if "hand" not in omit:
            own["hand"] = _card_texts(self.hand)
        if "discard" not in omit:
            own["discard"] = _card_texts(discard) if discard is not None else None
        return own

    def public_json(self, omit: Collection[str] = (), before: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The fields of :meth:`to_json` that are the same in every seat's view of the deal
        (all but :data:`SEAT_FIELDS`); ``omit`` as there. ``before``: this public JSON of the
        same deal at an earlier step, whose finished tricks and shown melds (they never
        change) are taken, not built again.

        >>> import random
        >>> deal = State.new("standard", dealer=2).deal_random(random.Random(1))
        >>> view(deal, 0).public_json() == view(deal, 1).public_json()
        True
        """
        data = self._public_data(omit, before)
        return {name: value for name, value in data.items() if name not in omit} if omit else data

    def _public_data(self, omit: Collection[str], before: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Every public field; those in ``omit`` that are dear to build (tricks, melds) are None."""
        cards = _card_texts
        known = before["tricks"] if before is not None and before["tricks"] is not None else ()
        assert len(known) <= len(self.tricks), "before is of another deal"
        melds = before["melds"] if before is not None and before["melds"] is not None else None
        if melds is None and self.melds is not None and "melds" not in omit:
            melds = [[m.to_json() for m in seat] for seat in self.melds]
        # A deal's auction only grows and its seat order is fixed: taken from before while the same.
        auction, callers = self.auction, self.callers
        if before is not None and len(before["auction"]) == len(auction):
            told_auction, told_callers = before["auction"], before["callers"]
        else:
            told_auction, told_callers = [str(a) for a in auction], list(callers)
        return {
            "rules": self.rules.text, "players": self.players, "dealer": self.dealer,
            "phase": self.phase.value, "to_move": self.to_move, "tapp_size": self.tapp_size,
            "hand_sizes": list(self.hand_sizes), "auction": told_auction,
            "callers": told_callers, "soloist": self.soloist, "bid": self.bid,
            "tapp": cards(self.tapp) if self.tapp is not None else None,
            "game": self.game.word if self.game is not None else None, "surrendered": self.surrendered,
            "melds": melds,
            "tricks": None if "tricks" in omit
            else [*known, *({**_trick_json(t), "points": self.trick_points_of(k)}
                            for k, t in enumerate(self.tricks[len(known):], len(known)))],
            "trick": _trick_json(self.trick),
            "tricks_won": list(self.tricks_won), "trick_points": list(self.trick_points),
            "outcome": self.outcome.value if self.outcome is not None else None,
            "scores": list(self.scores) if self.scores is not None else None,
            "sitting_out": self.sitting_out,
            "open_hand": cards(self.open_hand) if self.open_hand is not None else None,
            # Derived from the rules and the dealer, sent so that no client works out seat order.
            "order": before["order"] if before is not None else list(self.seating.order),
            # Derived points, sent so that no client holds the card values or adds them up.
            "tapp_points": sum(c.points for c in self.tapp) if self.tapp is not None else None,
            "rank_points": RANK_POINTS_BY_LETTER,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SeatView:
        """Read what :meth:`to_json` wrote (the exact inverse; the derived ``order`` and points are not read)."""
        phase = Phase(data["phase"])

        def cards(texts: list[str] | None) -> tuple[Card, ...] | None:
            return None if texts is None else tuple(Card.parse(t) for t in texts)

        def ints(values: list[int] | None) -> tuple[int, ...] | None:
            return None if values is None else tuple(values)

        melds = data["melds"]
        return cls(
            rules=Rules.parse(data["rules"]), seat=data["seat"], players=data["players"], dealer=data["dealer"],
            phase=phase, to_move=data["to_move"], hand=cards(data["hand"]) or (),
            hand_sizes=tuple(data["hand_sizes"]), tapp_size=data["tapp_size"],
            auction=tuple(parse_action(Phase.AUCTION, a) for a in data["auction"]), callers=tuple(data["callers"]),
            soloist=data["soloist"], bid=data["bid"], tapp=cards(data["tapp"]), discard=cards(data["discard"]),
            game=Contract.parse(data["game"]) if data["game"] is not None else None,
            surrendered=data["surrendered"],
            melds=None if melds is None else tuple(tuple(Meld.from_json(m) for m in seat) for seat in melds),
            tricks=tuple(_trick_of(t) for t in data["tricks"]), trick=_trick_of(data["trick"]),
            tricks_won=tuple(data["tricks_won"]), trick_points=tuple(data["trick_points"]),
            outcome=Outcome(data["outcome"]) if data["outcome"] is not None else None,
            scores=ints(data["scores"]),
            legal_actions=tuple(parse_action(phase, a) for a in data["legal_actions"]),
            sitting_out=data["sitting_out"], open_hand=cards(data["open_hand"]),
        )


# What each rank is worth, for a client that adds up cards a player is choosing (laying away).
RANK_POINTS_BY_LETTER = {rank.letter: rank.points for rank in Rank}

FIELDS = ("rules", "seat", "players", "dealer", "phase", "to_move", "tapp_size", "hand", "hand_sizes", "auction",
          "callers", "soloist", "bid", "tapp", "discard", "game", "surrendered", "melds", "tricks", "trick",
          "tricks_won", "trick_points", "outcome", "scores", "legal_actions", "sitting_out", "open_hand", "order",
          "card_points", "tapp_points", "discard_points", "rank_points")
"""The fields of :meth:`SeatView.to_json`, in their order."""
SEAT_FIELDS = frozenset({"seat", "hand", "discard", "legal_actions", "card_points", "discard_points"})
"""The fields that differ from seat to seat (every other field is the same in every seat's view of a deal)."""


def own_json_from_public(seat: int, public: Mapping[str, Any], omit: Collection[str]) -> dict[str, Any] | None:
    """:meth:`SeatView.own_json` of ``seat``'s view, from the public fields of the deal
    (:meth:`SeatView.public_json`) alone when they tell it, else None: for a seat neither to
    move nor the soloist, asked without its hand and discard (it has no legal actions, no
    discard, and the card points of its tricks).

    >>> import random
    >>> deal = State.new("standard", dealer=2).deal_random(random.Random(1))
    >>> public, omit = view(deal, 0).public_json(), {"hand", "discard"}
    >>> own_json_from_public(1, public, omit) == view(deal, 1).own_json(omit)
    True
    >>> own_json_from_public(0, public, omit) is None  # seat 0 is to move
    True
    """
    if "hand" not in omit or "discard" not in omit or seat == public["to_move"] or seat == public["soloist"]:
        return None
    return _own_fields(seat, [], list(public["trick_points"]), None)


def _own_fields(seat: int, legal_actions: list[str], card_points: list[int],
                discard_points: int | None) -> dict[str, Any]:
    """The own fields (:data:`SEAT_FIELDS`) that every seat is told, hand and discard aside."""
    return {"seat": seat, "legal_actions": legal_actions, "card_points": card_points,
            "discard_points": discard_points}


def merge_json(public: Mapping[str, Any], own: Mapping[str, Any], omit: Collection[str] = ()) -> dict[str, Any]:
    """A view's JSON from its public part and its own (:data:`SEAT_FIELDS`), in the order of
    :data:`FIELDS`, without the fields ``omit``."""
    return {name: own[name] if name in own else public[name] for name in FIELDS if name not in omit}


def _card_texts(cards: tuple[Card, ...]) -> list[str]:
    return [str(c) for c in cards]


def _trick_json(trick: Trick) -> dict[str, Any]:
    return {"leader": trick.leader, "cards": _card_texts(trick.cards), "seats": list(trick.seats),
            "winner": trick.winner}


def _trick_of(data: dict[str, Any]) -> Trick:
    plays = tuple(zip(data["seats"], (Card.parse(c) for c in data["cards"])))
    return Trick(data["leader"], plays, data["winner"])


def view(state: State, seat: int, like: SeatView | None = None) -> SeatView:
    """What ``seat`` may know of ``state``. ``like``: another seat's view of the same state;
    every field but a seat's own (:data:`SEAT_FIELDS`) is the same in it, and is taken from it.

    >>> import random
    >>> state = State.new("standard", dealer=2).deal_random(random.Random(1))
    >>> view(state, 1, like=view(state, 0)) == view(state, 1)
    True
    """
    if not isinstance(seat, int) or not 0 <= seat < state.players:
        raise ValueError(f"seat must be from 0 to {state.players - 1}, not {seat!r}")
    hand = tuple(Hand(mask=state.hands[seat]))
    discard = tuple(sorted(CARDS[k] for k in state.discard)) if seat == state.soloist else None
    legal_actions = tuple(state.legal_actions()) if state.to_move == seat else ()
    if like is not None:  # a copy with this seat's own fields (set once, as __init__ would: it is frozen)
        seen = SeatView.__new__(SeatView)  # copy.copy's reduce protocol costs more than the copy
        vars(seen).update(vars(like), seat=seat, hand=hand, discard=discard, legal_actions=legal_actions)
        return seen
    game = state.game
    return SeatView(
        rules=state.rules,
        players=state.players,
        dealer=state.dealer,
        phase=state.phase,
        to_move=state.to_move,
        hand_sizes=tuple(h.bit_count() for h in state.hands),
        tapp_size=state.rules.tapp_size,
        auction=state.calls,
        callers=state.callers,
        soloist=state.soloist,
        bid=state.bid,
        tapp=None if state.tapp_in_centre else tuple(sorted(CARDS[k] for k in state.tapp)),
        game=game,
        surrendered=state.surrendered,
        melds=state.melds,
        tricks=state.tricks,
        trick=state.current_trick,
        tricks_won=state.won,
        trick_points=state.trick_points,
        outcome=state.outcome,
        scores=state.scores,
        sitting_out=state.sitting_out,
        open_hand=(tuple(Hand(mask=state.hands[state.soloist]))
                   if game is not None and game.open_hand and state.soloist is not None else None),
        seat=seat,
        hand=hand,
        discard=discard,
        legal_actions=legal_actions,
    )


__all__ = ["FIELDS", "SEAT_FIELDS", "SeatView", "merge_json", "own_json_from_public", "view", "Phase"]
