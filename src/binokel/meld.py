"""Melds (declarations): the best melds a hand allows, docs/rules.md section 5.

The meld types — sequences, four of a kind, binokel, dissle — are independent (a card
may serve once in each type), so the best total is the sum of the best of each type.

>>> from binokel.card import Hand, Suit
>>> roundhouse = Hand.parse("KS QS KH QH KD QD KC QC")
>>> meld_total(find_melds(roundhouse, Suit.H))
240
>>> meld_total(find_melds(Hand.parse("KS QS QH QD QC JD"), Suit.S))
140
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from binokel.card import CARDS, COPY, KIND_MASK, Card, Hand, Rank, Suit
from binokel.rules import STANDARD, Deck, DoubleMelds, Rules

FAMILY = (Rank.A, Rank.T, Rank.K, Rank.Q, Rank.J)
FOUR_NAMES = {Rank.A: "aces", Rank.K: "kings", Rank.Q: "obers", Rank.J: "unters"}
FOUR_POINTS = {Rank.A: 100, Rank.K: 80, Rank.Q: 60, Rank.J: 40}
SPECIAL_EIGHT = 1000
BINOKEL_CARDS = (Card.parse("QS"), Card.parse("JD"))


@dataclass(frozen=True)
class Meld:
    """One declared combination: its name, suit (for sequences and dissle), cards, points."""

    name: str
    suit: Suit | None
    cards: tuple[Card, ...]
    points: int

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "suit": self.suit.letter if self.suit is not None else None,
            "cards": [str(c) for c in self.cards],
            "points": self.points,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Meld:
        return cls(data["name"], Suit.parse(data["suit"]) if data.get("suit") else None,
                   tuple(Card.parse(c) for c in data["cards"]), int(data["points"]))


def find_melds(cards: Hand | Iterable[Card], trump: Suit, rules: Rules = STANDARD) -> list[Meld]:
    """The melds of the best total ``cards`` allow with ``trump``, in a fixed order:
    sequences by suit, four of a kind, eight of a kind, binokel, dissle."""
    hand = cards if isinstance(cards, Hand) else Hand(cards)
    return melds_of_mask(hand.mask, trump, rules)


def melds_of_mask(mask: int, trump: int, rules: Rules = STANDARD) -> list[Meld]:
    """:func:`find_melds` of a hand mask (see binokel.card) — the engine's fast path.

    In a hand mask a card's second-copy bit is only set with its first-copy bit, so
    "all of these cards" is a mask test on the first copies, "both copies of all of
    them" the same test on the second copies.
    """
    low, high = mask & KIND_MASK, mask >> COPY
    melds: list[Meld] = []
    plain = rules.double_melds is _PLAIN
    # The shared meld values come from tables built once (_SEQUENCE_MELDS...): the engine finds
    # every seat's melds in every deal, and building the values each time was most of the work.
    for suit, family_mask, k, q in _SUITS_BITS:
        double_family, family, pair = _SEQUENCE_MELDS[suit][suit == trump][plain]
        if high & family_mask == family_mask:
            melds.append(double_family)
            continue
        pairs = min((low >> k & 1) + (high >> k & 1), (low >> q & 1) + (high >> q & 1))
        if low & family_mask == family_mask:
            melds.append(family)
            pairs -= 1  # the family's K and Q are not also a pair
        for _ in range(pairs):
            melds.append(pair)

    for rank_mask, eight, four in _KIND_MELDS[plain]:
        if high & rank_mask == rank_mask:
            melds.append(eight)
        elif low & rank_mask == rank_mask:
            melds.append(four)
    for rank, word, points in ((Rank.T, "tens", rules.eight_tens), (Rank.SEVEN, "sevens", rules.eight_sevens)):
        if points and high & _rank_mask(rank) == _rank_mask(rank):
            melds.append(_meld(f"eight_{word}", None, _twice(_rank_cards(rank)), points))

    if high & _BINOKEL_MASK == _BINOKEL_MASK:
        melds.append(_DOUBLE_BINOKEL)
    elif low & _BINOKEL_MASK == _BINOKEL_MASK:
        melds.append(_BINOKEL)

    low_rank = rules.low_rank
    if low_rank is not None:
        index = trump * 7 + low_rank
        copies = (low >> index & 1) + (high >> index & 1)
        if copies:
            dissle = _DISSLES.get(index)
            if dissle is None:
                dissle = _DISSLES[index] = _meld("dissle", Suit(trump), (CARDS[index],), 10)
            melds.extend([dissle] * copies)
    return melds


_CACHE: dict[tuple[str, Suit | None, int, tuple[Card, ...]], Meld] = {}
_PLAIN = DoubleMelds.PLAIN  # bound once: a global is quicker than the enum's attribute


def _meld(name: str, suit: Suit | None, cards: tuple[Card, ...], points: int) -> Meld:
    """The (immutable, shared) meld value: a few dozen exist, so build each once."""
    key = (name, suit, points, cards)
    meld = _CACHE.get(key)
    if meld is None:
        meld = _CACHE[key] = Meld(name, suit, cards, points)
    return meld


def _twice(cards: tuple[Card, ...]) -> tuple[Card, ...]:
    """Both copies of each card, side by side (the order a double meld is shown in)."""
    return tuple(card for card in cards for _ in range(2))


def _rank_cards(rank: Rank) -> tuple[Card, ...]:
    return tuple(CARDS[s * 7 + rank] for s in Suit)


def _rank_mask(rank: Rank) -> int:
    return sum(1 << (s * 7 + rank) for s in Suit)


_SUITS = tuple((suit, tuple(CARDS[suit * 7 + r] for r in FAMILY), sum(1 << (suit * 7 + r) for r in FAMILY),
                CARDS[suit * 7 + Rank.K], CARDS[suit * 7 + Rank.Q]) for suit in Suit)
_OF_A_KIND = tuple((_rank_mask(rank), FOUR_NAMES[rank], points, _rank_cards(rank))
                   for rank, points in FOUR_POINTS.items())
_BINOKEL_MASK = sum(1 << c.index for c in BINOKEL_CARDS)
_SUITS_BITS = tuple((suit, family_mask, king.index, queen.index) for suit, _, family_mask, king, queen in _SUITS)
# Per suit, [not trump, trump], [counted as special, plain]: (double family, family, pair).
_SEQUENCE_MELDS = tuple(
    tuple(tuple((_meld("double_family", suit, _twice(family_cards),
                       2 * (150 if is_trump else 100) if plain else (1500 if is_trump else 1000)),
                 _meld("family", suit, family_cards, 150 if is_trump else 100),
                 _meld("pair", suit, (king, queen), 40 if is_trump else 20))
                for plain in (False, True)) for is_trump in (False, True))
    for suit, family_cards, _, king, queen in _SUITS)
# [counted as special, plain]: (rank mask, eight of a kind, four of a kind) per rank.
_KIND_MELDS = tuple(
    tuple((rank_mask, _meld(f"eight_{word}", None, _twice(cards), 2 * points if plain else SPECIAL_EIGHT),
           _meld(f"four_{word}", None, cards, points)) for rank_mask, word, points, cards in _OF_A_KIND)
    for plain in (False, True))
_BINOKEL = _meld("binokel", None, BINOKEL_CARDS, 40)
_DOUBLE_BINOKEL = _meld("double_binokel", None, _twice(BINOKEL_CARDS), 300)
_DISSLES: dict[int, Meld] = {}


def meld_values(cards: Hand | Iterable[Card], rules: Rules = STANDARD) -> dict[Suit, int]:
    """What ``cards`` meld with each trump: the numbers on the trump buttons.

    >>> meld_values(Hand.parse("KH QH KS QS"))[Suit.H]
    60
    """
    hand = cards if isinstance(cards, Hand) else Hand(cards)
    return {suit: meld_total(melds_of_mask(hand.mask, suit, rules)) for suit in Suit}


def meld_total(melds: Iterable[Meld]) -> int:
    return sum(m.points for m in melds)


def meld_type(meld: Meld) -> str:
    """The meld's type: a card may serve once in each type, never twice in one."""
    if meld.name in ("family", "double_family", "pair"):
        return "sequence"
    if meld.name.startswith(("four_", "eight_")):
        return "of_a_kind"
    return meld.name.removeprefix("double_")


def meld_cards(melds: Iterable[Meld]) -> Hand:
    """The fewest cards that show all ``melds``: summed within a type, shared across types."""
    by_type: dict[str, list[int]] = {}
    for meld in melds:
        count = by_type.setdefault(meld_type(meld), [0] * len(CARDS))
        for card in meld.cards:
            count[card.index] += 1
    need = [max(column, default=0) for column in zip(*by_type.values())] if by_type else []
    return Hand(CARDS[k] for k, n in enumerate(need) for _ in range(n))



def meld_most(rules: Rules, cards: int) -> int:
    """The most a hand of ``cards`` cards can meld with any trump under ``rules``: an upper
    bound that checks a meld total someone wrote down (a score pad), never below a real one.

    The types are independent (a card serves once in each), so no hand beats the sum over
    the types of the best each type alone allows with that many cards.

    >>> meld_most(STANDARD, 15), meld_most(STANDARD, 2), meld_most(STANDARD, 0)
    (3020, 100, 0)
    """
    return _meld_most(rules.double_melds, rules.eight_tens, rules.eight_sevens, rules.low_rank, cards)


@lru_cache(maxsize=64)
def _meld_most(double: DoubleMelds, eight_tens: int, eight_sevens: int, low: Rank | None, cards: int) -> int:
    sevens = low is Rank.SEVEN
    rules = Rules(double_melds=double, eight_tens=eight_tens, eight_sevens=eight_sevens if sevens else 0,
                  deck=Deck.SEVENS if sevens else Deck.NINES)

    def value(text: str, kind: str) -> int:  # the melds of one type in these cards, hearts trump
        return sum(m.points for m in melds_of_mask(Hand.parse(text).mask, Suit.H, rules) if meld_type(m) == kind)

    def twice(text: str) -> str:
        return f"{text} {text}"

    # Per type, its groups (a suit's sequences, a rank's of-a-kind...): (cards, points) choices, one per group.
    types: list[list[list[tuple[int, int]]]] = [[], [], [], []]
    for suit in "HSDC":
        family, pair = " ".join(f"{r}{suit}" for r in "ATKQJ"), f"K{suit} Q{suit}"
        types[0].append([(len(t.split()), value(t, "sequence")) for t in (pair, twice(pair), family, f"{family} {pair}",
                                                               twice(family))])
    for rank in "ATKQJ" + ("" if low is None else low.letter):
        four = " ".join(f"{rank}{s}" for s in "SHDC")
        types[1].append([(4, value(four, "of_a_kind")), (8, value(twice(four), "of_a_kind"))])
    types[2].append([(2, value("QS JD", "binokel")), (4, value("QS JD QS JD", "binokel"))])
    if low is not None:
        types[3].append([(1, value(f"{low.letter}H", "dissle")), (2, value(twice(f"{low.letter}H"), "dissle"))])
    total = 0
    for groups in types:
        best = [0] * (cards + 1)  # best[c]: the most this type melds with at most c cards, over the groups so far
        for choices in groups:
            best = [max([best[c]] + [best[c - need] + points for need, points in choices if need <= c])
                    for c in range(cards + 1)]
        total += best[cards]
    return total
