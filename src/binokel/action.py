"""Actions: every decision a seat makes, with one text form each.

The text form is the one records use: ``"150"`` and ``"pass"`` in the auction, a card
such as ``"AS"`` to discard or to play, ``"H"`` or ``"durch"`` for the game,
``"surrender"`` or ``"play"`` right after naming trump. Actions are ordered (by kind,
then value), hashable and interned where it matters for speed.

>>> str(Action.bid(160)), str(Action.play(Card("TS"))), Action.bid(160) < Action.bid(170)
('160', 'TS', True)
"""

from __future__ import annotations

from enum import IntEnum

from binokel.card import CARDS, Card, Suit

DURCH = 4
"""The game value for Durch; trump games use the suit (0..3)."""
OPEN_DURCH = 5
"""Open Durch after the Tapp: the soloist's hand is shown to everybody."""
BETTEL = 6
"""Bettel: the soloist promises to win no trick (no trumps, no melds)."""
HAND_DURCH = 7
"""Open Durch from the hand: announced instead of taking the Tapp, which stays unused."""
GAME_WORDS = {DURCH: "durch", OPEN_DURCH: "open_durch", BETTEL: "bettel", HAND_DURCH: "hand_durch"}
"""The record words of the games without trump (every game value >= DURCH)."""


class ActionKind(IntEnum):
    PASS = 0
    BID = 1
    DISCARD = 2
    GAME = 3
    SURRENDER = 4
    PLAY_ON = 5
    PLAY = 6
    TAKE = 7  # the soloist takes the Tapp (only where open Durch from the hand is allowed)


class Action:
    """One decision: its kind and a value (bid, card kind, or game)."""

    __slots__ = ("kind", "value", "_key")

    kind: ActionKind
    value: int

    def __init__(self, kind: ActionKind, value: int = 0) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "_key", (int(kind), value))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Action is immutable")

    @staticmethod
    def bid(value: int) -> Action:
        return Action(ActionKind.BID, value)

    @staticmethod
    def play(card: Card) -> Action:
        return PLAYS[card.index]

    @staticmethod
    def discard(card: Card) -> Action:
        return DISCARDS[card.index]

    @staticmethod
    def game(game: Suit | str) -> Action:
        """The game named by the soloist: a trump suit, ``"durch"``, ``"open_durch"`` or ``"bettel"``."""
        if isinstance(game, str):
            for value, word in GAME_WORDS.items():
                if game.strip().lower() == word:
                    return GAMES[value]
        return GAMES[Suit.parse(game) if isinstance(game, str) else game]

    @property
    def card(self) -> Card:
        """The card of a discard or card play."""
        if self.kind not in (ActionKind.PLAY, ActionKind.DISCARD):
            raise AttributeError(f"{self} has no card")
        return CARDS[self.value]

    def __str__(self) -> str:
        kind = self.kind
        if kind == ActionKind.PLAY or kind == ActionKind.DISCARD:
            return str(CARDS[self.value])
        if kind == ActionKind.BID:
            return str(self.value)
        if kind == ActionKind.GAME:
            return GAME_WORDS[self.value] if self.value >= DURCH else Suit(self.value).letter
        return _WORDS[kind]

    def __repr__(self) -> str:
        return f"<Action {self.kind.name.lower()} {self}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Action) and other._key == self._key

    def __lt__(self, other: Action) -> bool:
        return self._key < other._key

    def __hash__(self) -> int:
        return hash(self._key)


_WORDS = {ActionKind.PASS: "pass", ActionKind.SURRENDER: "surrender", ActionKind.PLAY_ON: "play", ActionKind.TAKE: "take"}

PASS = Action(ActionKind.PASS)
SURRENDER = Action(ActionKind.SURRENDER)
PLAY_ON = Action(ActionKind.PLAY_ON)
TAKE = Action(ActionKind.TAKE)
PLAYS = tuple(Action(ActionKind.PLAY, k) for k in range(len(CARDS)))
DISCARDS = tuple(Action(ActionKind.DISCARD, k) for k in range(len(CARDS)))
GAMES = tuple(Action(ActionKind.GAME, g) for g in range(8))
