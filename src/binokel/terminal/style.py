"""How cards and suits look in the terminal: ANSI colour, Unicode or ASCII suits.

>>> plain = Style(color=False, unicode=False)
>>> plain.card(Card("TH")), plain.cards([Card("AS"), Card("9C")])
('TH', 'AS 9C')
>>> Style(color=False, unicode=True).card(Card("TH"))
'10♥'
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import TextIO

from binokel.card import Card, Rank, Suit

RESET = "\033[0m"
# Laub green, Herz red, Schellen yellow, Eichel cyan: four distinct colours read faster than two.
SUIT_COLOURS = {Suit.S: "\033[32m", Suit.H: "\033[31m", Suit.D: "\033[33m", Suit.C: "\033[36m"}
BOLD = "\033[1m"
DIM = "\033[2m"


class Style:
    """Rendering choices for one terminal."""

    def __init__(self, color: bool, unicode: bool) -> None:
        self.color = color
        self.unicode = unicode

    def paint(self, text: str, code: str) -> str:
        return f"{code}{text}{RESET}" if self.color else text

    def bold(self, text: str) -> str:
        return self.paint(text, BOLD)

    def dim(self, text: str) -> str:
        return self.paint(text, DIM)

    def suit(self, suit: Suit) -> str:
        text = suit.symbol if self.unicode else suit.letter
        return self.paint(text, SUIT_COLOURS[suit])

    def card(self, card: Card) -> str:
        """``10♥`` with Unicode, else the canonical ``TH``."""
        if self.unicode:
            rank = "10" if card.rank is Rank.T else card.rank.letter
            return self.paint(rank + card.suit.symbol, SUIT_COLOURS[card.suit])
        return self.paint(str(card), SUIT_COLOURS[card.suit])

    def cards(self, cards: Iterable[Card]) -> str:
        return " ".join(self.card(c) for c in cards)


def can_show(text: str, stream: TextIO) -> bool:
    """Can ``stream`` encode ``text`` (e.g. the suit symbols)?"""
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def choose_style(no_color: bool = False, ascii_only: bool = False, stream: TextIO | None = None) -> Style:
    """Colour unless ``--no-color``, ``NO_COLOR`` or not a terminal; suit symbols when they can be shown."""
    stream = stream or sys.stdout
    color = not no_color and not os.environ.get("NO_COLOR") and stream.isatty() and os.environ.get("TERM") != "dumb"
    unicode = not ascii_only and not no_color and can_show("♠♥♦♣", stream)
    return Style(color=color, unicode=unicode)


def sort_hand(cards: Iterable[Card], trump: Suit | None) -> list[Card]:
    """Trump first, then the other suits alternating colours where possible; A 10 K Q J 9 in each.

    >>> [str(c) for c in sort_hand([Card("9S"), Card("AH"), Card("KS"), Card("TD")], Suit.H)]
    ['AH', 'KS', '9S', 'TD']
    """
    order = suit_order(trump)
    return sorted(cards, key=lambda c: (order.index(c.suit), c.rank))


def suit_order(trump: Suit | None) -> list[Suit]:
    """Suits in display order: trump first, then the others with red and black alternating.

    >>> [s.letter for s in suit_order(Suit.H)], [s.letter for s in suit_order(None)]
    (['H', 'S', 'D', 'C'], ['S', 'H', 'C', 'D'])
    """
    if trump is None:
        return [Suit.S, Suit.H, Suit.C, Suit.D]
    red = (Suit.H, Suit.D)
    same = [s for s in Suit if s != trump and (s in red) == (trump in red)]
    other = [s for s in Suit if (s in red) != (trump in red)]
    return [trump, other[0], *same, other[1]]
