"""Tricks: which cards may be played to a trick and which card wins it (docs/rules.md section 6).

Pure functions on card kinds and hand masks (see :mod:`binokel.card`), shared by the
engine and the search code of the computer opponents.

>>> from binokel.card import CARDS, Card, Hand, kinds_of
>>> led = (Card.parse("KS").index,)  # K♠ led, hearts trump: must beat it with the A♠
>>> [str(CARDS[k]) for k in kinds_of(legal_cards(Hand.parse("AS 9S KH").mask, led, 0, 1, False))]
['AS']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from binokel.card import CARDS, COPY, HIGHER, KIND_MASK, SUIT_MASK, Card, Suit

NO_TRUMP = -1
"""The ``trump`` of a game without trumps (Durch)."""


class Trick:
    """A trick: who led it, each card with the seat that played it in the order played,
    and who won it (None while open). The seats come from the state, so nobody has to
    work them out again (with a seat sitting out, seat order skips it).

    >>> trick = Trick(3, ((3, Card("AS")), (0, Card("TS"))), None)
    >>> trick.cards, trick.seats
    ((Card('AS'), Card('TS')), (3, 0))
    """

    __slots__ = ("leader", "plays", "winner")

    leader: int
    plays: tuple[tuple[int, Card], ...]
    winner: int | None

    def __init__(self, leader: int, plays: tuple[tuple[int, Card], ...], winner: int | None) -> None:
        self.leader, self.plays, self.winner = leader, plays, winner

    @property
    def cards(self) -> tuple[Card, ...]:
        """The cards in the order played."""
        return tuple(card for _, card in self.plays)

    @property
    def seats(self) -> tuple[int, ...]:
        """The seat of each card, in the order played."""
        return tuple(seat for seat, _ in self.plays)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Trick)
                and (self.leader, self.plays, self.winner) == (other.leader, other.plays, other.winner))

    def __hash__(self) -> int:
        return hash((self.leader, self.plays, self.winner))

    def __repr__(self) -> str:
        plays = " ".join(f"{seat}:{card}" for seat, card in self.plays)
        return f"Trick(leader={self.leader}, plays=[{plays}], winner={self.winner})"


def beats(kind: int, best: int, trump: int) -> bool:
    """Does card ``kind`` beat the trick's current best card? (Identical cards do not.)"""
    suit, best_suit = kind // 7, best // 7
    if suit == best_suit:
        return kind % 7 < best % 7
    return suit == trump


def legal_cards(hand: int, trick: Sequence[int], best: int, trump: int, beat_led: bool,
                exempt: bool = False) -> int:
    """The kinds ``hand`` (a mask) may play to ``trick`` (kinds in play order, ``best`` the
    position of the winning card), with ``trump`` a suit or NO_TRUMP. ``beat_led`` is the
    ``must_beat="led"`` reading: beat the highest card of the led suit even after a trump.
    ``exempt``: the partner exemption applies (a partner is winning the trick): follow
    suit, but no need to beat or to trump.
    """
    have = (hand | (hand >> COPY)) & KIND_MASK
    if not trick:
        return have
    led = trick[0] // 7
    follow = have & SUIT_MASK[led]
    top = trick[best]
    if follow:
        # Follow suit; beat the winning card if it is of the led suit (or, reading
        # "led", the highest led card); after a trump any card of the led suit.
        if exempt:
            return follow
        if top // 7 == led:
            target = top
        elif beat_led:
            target = min(k for k in trick if k // 7 == led)
        else:
            return follow
        return follow & HIGHER[target] or follow
    if trump >= 0 and not exempt:
        trumps = have & SUIT_MASK[trump]
        if trumps:
            # Void: trump, and overtrump a trump in the trick when possible.
            return trumps & HIGHER[top] or trumps if top // 7 == trump else trumps
    return have


def best_position(trick: Sequence[int], trump: int) -> int:
    """The position of the card winning ``trick`` (kinds in play order) so far.

    >>> from binokel.card import Card
    >>> best_position([Card.parse(c).index for c in ("KS", "AS", "9H")], 1)
    2
    """
    best = 0
    for position, kind in enumerate(trick):
        if beats(kind, trick[best], trump):
            best = position
    return best


def card_refusal(have: int, trick: Sequence[int], best: int, trump: int, kind: int) -> tuple[str, dict[str, Any]]:
    """Why a card ``kind`` the hand holds may not be played to ``trick``: a reason code and
    its params. ``have`` is the mask of the kinds in the hand (one bit per kind), the other
    arguments as for :func:`legal_cards`; the card must be one :func:`legal_cards` refuses.

    >>> from binokel.card import Card, Hand, present
    >>> card_refusal(present(Hand.parse("AS KH").mask), [Card.parse("TS").index], 0, 1, Card.parse("KH").index)
    ('must_follow_suit', {'card': 'KH', 'suit': 'S'})
    """
    card, led, top = str(CARDS[kind]), trick[0] // 7, trick[best]
    if kind // 7 != led and have & SUIT_MASK[led]:
        return "must_follow_suit", {"card": card, "suit": Suit(led).letter}
    if kind // 7 == led:
        # Following suit without beating: the winning card, or (must_beat=led) the highest led card.
        target = top if top // 7 == led else min(k for k in trick if k // 7 == led)
        return "must_beat", {"card": card, "best": str(CARDS[target]), "suit": Suit(led).letter}
    if 0 <= trump != kind // 7:
        return "must_trump", {"card": card, "suit": Suit(led).letter}
    return "must_overtrump", {"card": card, "best": str(CARDS[top])}
