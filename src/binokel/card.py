"""Cards, suits, ranks and the ``Hand`` bitmask.

A card *kind* (suit and rank) is a small integer ``suit * 7 + rank``; the double deck
holds two copies of each kind. A :class:`Hand` is a multiset of cards stored in one
integer: bit ``k`` is the first copy of kind ``k``, bit ``k + 28`` the second. That
representation makes the hot paths of the engine (legal cards, follow and beat) a
handful of integer operations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from enum import IntEnum

from binokel.error import NotationError

KINDS = 28
"""Number of card kinds: 4 suits x 7 ranks (only 5 or 6 ranks are in any one deck)."""
COPY = KINDS
"""Bit offset of a kind's second copy in a hand mask."""
KIND_MASK = (1 << KINDS) - 1


class Suit(IntEnum):
    """The four suits; French letters are canonical (S = leaves, D = bells, C = acorns)."""

    S = 0
    H = 1
    D = 2
    C = 3

    @property
    def letter(self) -> str:
        return self.name

    @property
    def symbol(self) -> str:
        return "♠♥♦♣"[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Read a suit letter or symbol.

        >>> Suit.parse("h"), Suit.parse("♠")
        (<Suit.H: 1>, <Suit.S: 0>)
        """
        suit = _SUIT_TEXT.get(text.strip().upper())
        if suit is None:
            raise NotationError("unknown_suit", text=repr(text))
        return suit


_SUIT_TEXT = {
    **{s.name: s for s in Suit},
    **{s.symbol: s for s in Suit},
    "♤": Suit.S, "♡": Suit.H, "♢": Suit.D, "♧": Suit.C,
}


class Rank(IntEnum):
    """Ranks in trick order: a lower value beats a higher one. Q is the Ober, J the Unter."""

    A = 0
    T = 1
    K = 2
    Q = 3
    J = 4
    NINE = 5
    SEVEN = 6

    @property
    def letter(self) -> str:
        return "ATKQJ97"[self]

    @property
    def points(self) -> int:
        return RANK_POINTS[self]


RANK_POINTS = (11, 10, 4, 3, 2, 0, 0)

_RANK_TEXT = {
    "A": Rank.A, "T": Rank.T, "10": Rank.T, "K": Rank.K, "Q": Rank.Q, "O": Rank.Q,
    "J": Rank.J, "U": Rank.J, "9": Rank.NINE, "7": Rank.SEVEN,
}


class Card:
    """One card kind, e.g. ``Card.parse("QS")`` — the Ober of leaves.

    Cards are interned: there is exactly one object per kind, so ``is`` and ``==`` agree.

    >>> Card.parse("10♥"), str(Card.parse("qs")), Card.parse("OS") is Card.parse("QS")
    (Card('TH'), 'QS', True)
    """

    __slots__ = ("index", "suit", "rank", "points", "_text")

    index: int
    suit: Suit
    rank: Rank
    points: int
    _text: str

    def __new__(cls, text: str) -> Card:
        return cls.parse(text)

    @classmethod
    def _make(cls, index: int) -> Card:
        card = object.__new__(cls)
        card.index = index
        card.suit = Suit(index // 7)
        card.rank = Rank(index % 7)
        card.points = RANK_POINTS[card.rank]
        card._text = card.rank.letter + card.suit.letter
        return card

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read ``AS``, ``10S``, ``TS``, ``a♠``, ``OS`` (Ober) or ``US`` (Unter)."""
        if not isinstance(text, str):
            raise NotationError("card_not_text", value=repr(text))
        clean = text.strip().upper()
        card = _CARD_TEXT.get(clean)
        if card is None:
            raise NotationError("unknown_card", text=repr(text))
        return card

    @classmethod
    def of(cls, suit: Suit, rank: Rank) -> Card:
        return CARDS[suit * 7 + rank]

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Card({self._text!r})"

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __hash__(self) -> int:
        return self.index

    def __eq__(self, other: object) -> bool:
        return self is other

    def __reduce__(self) -> tuple[Callable[[str], Card], tuple[str]]:
        return (Card.parse, (self._text,))


CARDS: tuple[Card, ...] = tuple(Card._make(i) for i in range(KINDS))
"""Every card kind, indexed by kind."""

_CARD_TEXT: dict[str, Card] = {}
for _card in CARDS:
    for _r, _rank in _RANK_TEXT.items():
        if _rank == _card.rank:
            for _s, _suit in _SUIT_TEXT.items():
                if _suit == _card.suit:
                    _CARD_TEXT[_r + _s] = _card

SUIT_MASK = tuple(((1 << 7) - 1) << (7 * s) for s in range(4))
"""Kind mask of every card of a suit."""
HIGHER = tuple(((1 << (k % 7)) - 1) << (7 * (k // 7)) for k in range(KINDS))
"""Kind mask of the cards of the same suit that beat kind ``k``."""
POINTS = tuple(c.points for c in CARDS)


# Hand-mask helpers: the one place that knows how a multiset of cards sits in an integer.

def kinds_of(mask: int) -> Iterator[int]:
    """The kinds whose bits are set in a 28-bit kind mask, in ascending order.

    >>> list(kinds_of(0b1001))
    [0, 3]
    """
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def add_card(mask: int, kind: int) -> int:
    """Add one copy of ``kind`` to a hand mask (first copy, then second); a third copy is an error."""
    bit = 1 << kind
    if mask & bit:
        bit <<= COPY
        if mask & bit:
            raise ValueError(f"a third copy of {CARDS[kind]}")
    return mask | bit


def add_copy(mask: int, kind: int) -> int:
    """Add one copy of ``kind`` to a hand mask holding at most one (unchecked: the search's hot path)."""
    bit = 1 << kind
    return mask | (bit << COPY if mask & bit else bit)


def remove_card(mask: int, kind: int) -> int:
    """Remove one copy of ``kind`` from a hand mask, which must hold it."""
    bit = 1 << (kind + COPY)
    if mask & bit:
        return mask ^ bit
    return mask ^ (1 << kind)


def mask_of(kinds: Iterable[int]) -> int:
    """The hand mask of some card kinds (at most two copies each, checked by the caller).

    >>> mask_of([3, 3, 5]) == 1 << 3 | 1 << (3 + COPY) | 1 << 5
    True
    """
    mask = 0
    for kind in kinds:
        bit = 1 << kind
        mask |= bit << COPY if mask & bit else bit
    return mask


def count_of(mask: int, kind: int) -> int:
    """Copies of ``kind`` in a hand mask (0, 1 or 2)."""
    return (mask >> kind & 1) + (mask >> (kind + COPY) & 1)


def counts_of(mask: int) -> list[int]:
    """The copy count of every kind (28 numbers) in a hand mask."""
    low, high = mask & KIND_MASK, mask >> COPY
    return [(low >> k & 1) + (high >> k & 1) for k in range(KINDS)]


def mask_of_counts(counts: Iterable[int]) -> int:
    """A hand mask from copy counts by kind (the inverse of :func:`counts_of`).

    >>> mask_of_counts(counts_of(mask_of([1, 1, 4]))) == mask_of([1, 1, 4])
    True
    """
    mask = 0
    for kind, n in enumerate(counts):
        if n:
            mask |= 1 << kind
            if n > 1:
                mask |= 1 << (kind + COPY)
    return mask


def add_masks(a: int, b: int) -> int:
    """The multiset sum of two hand masks (at most two copies of a kind in all)."""
    for kind in kinds_of(b & KIND_MASK):
        a |= (1 << (kind + COPY)) if a >> kind & 1 else (1 << kind)
    for kind in kinds_of(b >> COPY):
        a |= (1 << (kind + COPY)) if a >> kind & 1 else (1 << kind)
    return a


def both_copies(kinds: int) -> int:
    """The hand mask with both copies of every kind in a 28-bit kind mask (e.g. a whole deck)."""
    return kinds | kinds << COPY


def full_kinds(a: int, b: int) -> int:
    """Kinds of which hand masks ``a`` and ``b`` (two disjoint multisets) hold both copies together."""
    return a >> COPY | b >> COPY | (a & b & KIND_MASK)


def present(mask: int) -> int:
    """The 28-bit mask of kinds with at least one copy in the hand."""
    return (mask | (mask >> COPY)) & KIND_MASK


def mask_points(mask: int) -> int:
    """The card points of a hand mask."""
    return sum(POINTS[k] for k in kinds_of(mask & KIND_MASK)) + sum(POINTS[k] for k in kinds_of(mask >> COPY))


class Hand:
    """An immutable multiset of cards (a seat's hand, the Tapp, a discard).

    >>> hand = Hand.parse("AS AS 10H qs")
    >>> len(hand), hand.count(Card("AS")), str(hand)
    (4, 2, 'AS AS QS TH')
    """

    __slots__ = ("mask",)

    mask: int

    def __init__(self, cards: Iterable[Card | str] = (), *, mask: int | None = None) -> None:
        if mask is None:
            mask = 0
            for card in cards:
                if isinstance(card, str):
                    card = Card.parse(card)
                try:
                    mask = add_card(mask, card.index)
                except ValueError:
                    raise NotationError("third_copy", card=str(card)) from None
        object.__setattr__(self, "mask", mask)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Hand is immutable")

    @classmethod
    def parse(cls, text: str) -> Hand:
        return cls(text.replace(",", " ").split())

    def __iter__(self) -> Iterator[Card]:
        """Cards in canonical order (by suit S H D C, then rank A T K Q J 9 7)."""
        low, high = self.mask & KIND_MASK, self.mask >> COPY
        for kind in kinds_of(low):
            yield CARDS[kind]
            if high >> kind & 1:
                yield CARDS[kind]

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __contains__(self, card: object) -> bool:
        return isinstance(card, Card) and bool(self.mask >> card.index & 1)

    def count(self, card: Card) -> int:
        return count_of(self.mask, card.index)

    def add(self, card: Card) -> Hand:
        return Hand(mask=add_card(self.mask, card.index))

    def remove(self, card: Card) -> Hand:
        if card not in self:
            raise ValueError(f"{card} is not in the hand")
        return Hand(mask=remove_card(self.mask, card.index))

    @property
    def points(self) -> int:
        return mask_points(self.mask)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hand) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(self.mask)

    def __str__(self) -> str:
        return " ".join(map(str, self))

    def __repr__(self) -> str:
        return f"Hand.parse({str(self)!r})"


def parse_cards(cards: Iterable[str] | str) -> list[Card]:
    """Read a list of card names (or one space-separated string)."""
    if isinstance(cards, str):
        cards = cards.replace(",", " ").split()
    return [Card.parse(c) for c in cards]
