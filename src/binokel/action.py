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


class Contract(IntEnum):
    """The game the soloist plays: a trump suit (the suit's value 0..3) or a game without
    trump (every value >= DURCH). An IntEnum: the engine's hot paths compare it with
    suits and card kinds as plain integers.

    >>> Contract.parse("h"), Contract.parse("bettel").word, Contract.H.trump, Contract.DURCH.trump
    (<Contract.H: 1>, 'bettel', <Suit.H: 1>, None)
    """

    S = 0
    H = 1
    D = 2
    C = 3
    DURCH = 4
    OPEN_DURCH = 5  # open Durch after the Tapp: the soloist's hand is shown to everybody
    BETTEL = 6  # the soloist promises to win no trick (no trumps, no melds)
    HAND_DURCH = 7  # open Durch from the hand: announced instead of taking the Tapp, which stays unused

    @property
    def word(self) -> str:
        """The record's text: ``"S"``, ``"H"``, ``"D"``, ``"C"``, ``"durch"``, ``"open_durch"``,
        ``"bettel"`` or ``"hand_durch"``."""
        return self.name if self < 4 else self.name.lower()

    @property
    def trump(self) -> Suit | None:
        """The trump suit, or None for a game without trump."""
        return Suit(self) if self < 4 else None

    @property
    def open_hand(self) -> bool:
        """Is the soloist's hand shown to everybody (open Durch)?"""
        return self is Contract.OPEN_DURCH or self is Contract.HAND_DURCH

    @classmethod
    def parse(cls, text: str) -> Contract:
        """Read a contract's record text (or a suit symbol)."""
        word = text.strip().lower()
        for contract in cls:
            if contract >= 4 and word == contract.word:
                return contract
        return cls(Suit.parse(text))

    def __str__(self) -> str:
        return self.word

    def __format__(self, spec: str) -> str:
        return format(self.word, spec)

    def __bool__(self) -> bool:
        # Spades is 0, yet a game: ``if view.game:`` means "a game is named".
        return True


DURCH = Contract.DURCH
"""The first game without trump: every contract >= DURCH has none."""
OPEN_DURCH = Contract.OPEN_DURCH
BETTEL = Contract.BETTEL
HAND_DURCH = Contract.HAND_DURCH
GAME_WORDS = {c: c.word for c in Contract if c >= DURCH}
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
    _key: tuple[int, int]

    def __init__(self, kind: ActionKind, value: int = 0) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "_key", (int(kind), value))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Action is immutable")

    def __reduce__(self) -> tuple[type[Action], tuple[ActionKind, int]]:
        # Pickle's default would restore the slots by setattr, which an Action refuses: a view
        # sent to a bot worker process (the bidding help) killed the worker.
        return (Action, (self.kind, self.value))

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
    def game(game: Contract | Suit | str) -> Action:
        """The game named by the soloist: a trump suit, ``"durch"``, ``"open_durch"`` or ``"bettel"``."""
        return GAMES[Contract.parse(game) if isinstance(game, str) else game]

    @property
    def contract(self) -> Contract:
        """The contract of a game action."""
        if self.kind is not ActionKind.GAME:
            raise AttributeError(f"{self} names no game")
        return Contract(self.value)

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
            return Contract(self.value).word
        return _WORDS[kind]

    def __repr__(self) -> str:
        return f"<Action {self.kind.name.lower()} {self}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Action) and other._key == self._key

    def __lt__(self, other: Action) -> bool:
        return self._key < other._key

    def __hash__(self) -> int:
        return hash(self._key)


_WORDS = {ActionKind.PASS: "pass", ActionKind.SURRENDER: "surrender", ActionKind.PLAY_ON: "play",
          ActionKind.TAKE: "take"}

PASS = Action(ActionKind.PASS)
SURRENDER = Action(ActionKind.SURRENDER)
PLAY_ON = Action(ActionKind.PLAY_ON)
TAKE = Action(ActionKind.TAKE)
PLAYS = tuple(Action(ActionKind.PLAY, k) for k in range(len(CARDS)))
DISCARDS = tuple(Action(ActionKind.DISCARD, k) for k in range(len(CARDS)))
GAMES = tuple(Action(ActionKind.GAME, g) for g in Contract)
"""The game actions, indexed by contract."""
