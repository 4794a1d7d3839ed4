"""Reading what the player types at a prompt: a command, or one or more actions.

The parser is pure: it knows the phase, the numbered choices shown with the prompt
and the words of the player's language; whether an action is legal is the state's
business (``State.apply``).

>>> from binokel.action import Action, PASS
>>> parse_input("p", "auction", (PASS, Action.bid(160))).actions
(<Action pass pass>,)
>>> parse_input(" 10h ", "play", ()).actions
(<Action play TH>,)
>>> parse_input("?", "play", ()).command
'hint'
>>> parse_input("H", "game", ()).actions, parse_input("s", "play", ()).command
((<Action game H>,), 'sheet')
>>> parse_input("", "surrender", ()).actions
(<Action play_on play>,)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from binokel.action import (BETTEL, DURCH, GAMES, HAND_DURCH, OPEN_DURCH, PASS, PLAY_ON, SURRENDER, TAKE, Action,
                            ActionKind)
from binokel.card import Card, Suit
from binokel.error import NotationError
from binokel.number import is_number, small_number

COMMANDS = {
    "?": "hint", "hint": "hint", "s": "sheet", "score": "sheet", "sheet": "sheet", "r": "rules", "rules": "rules",
    "l": "last", "last": "last", "h": "help", "help": "help", "q": "quit", "quit": "quit", "exit": "quit",
}
"""Commands understood at every prompt (the language adds its own words)."""

# At the trump prompt the letters S and H name suits; the commands stay available as words.
SUIT_LETTERS = {"s", "h", "d", "c"}


@dataclass(frozen=True)
class Parsed:
    """What the player typed: a ``command``, ``actions`` to apply in order, or an ``error``
    (a message key of the catalogue with its arguments)."""

    command: str | None = None
    actions: tuple[Action, ...] = ()
    error: str | None = None
    args: Mapping[str, object] = field(default_factory=dict)


def _error(key: str, **args: object) -> Parsed:
    return Parsed(error=key, args=args)


def parse_input(text: str, phase: str, choices: Sequence[Action],
                words: Mapping[str, Sequence[str]] | None = None) -> Parsed:
    """Read ``text`` typed at a prompt of ``phase`` ("auction", "tapp", "discard", "game",
    "surrender", "play" or "next"); ``choices`` are the actions numbered 1, 2, ... on
    screen; ``words`` maps "pass", "bid", "take", "play_on", "surrender", "durch",
    "open_durch", "bettel", "hand_durch", "yes", "no", the command names and the suit
    letters S H D C to the language's words for them."""
    words = words or {}
    clean = " ".join(text.replace(",", " ").split())
    word = clean.lower()
    if not word:
        if phase == "surrender":  # Enter: the safe choice (surrendering costs the bid, and is confirmed)
            return Parsed(actions=(PLAY_ON,))
        return Parsed() if phase == "next" else _error("err_empty")
    if phase == "game":
        game = _game(word, choices, words)
        if game is not None:
            return Parsed(actions=(game,))
    command = _command(word, words, phase)
    if command:
        return Parsed(command=command)
    if phase == "next":
        return _error("err_next")
    if phase == "auction":
        return _auction(word, choices, words)
    if phase == "discard":
        return _cards(clean, choices, many=True)
    if phase == "play":
        return _cards(clean, choices, many=False)
    if phase == "surrender":
        return _surrender(word, choices, words)
    if phase == "tapp":
        return _tapp(word, choices, words)
    if phase == "game":
        return _error("err_game", count=len(choices))
    return _error("err_unknown", text=clean)


def _in(word: str, words: Mapping[str, Sequence[str]], key: str, *builtin: str) -> bool:
    return word in builtin or word in (w.lower() for w in words.get(key, ()))


def _command(word: str, words: Mapping[str, Sequence[str]], phase: str) -> str | None:
    if phase == "game" and word in SUIT_LETTERS:
        return None
    if word in COMMANDS:
        return COMMANDS[word]
    for name in set(COMMANDS.values()):
        if _in(word, words, f"cmd_{name}"):
            return name
    return None


def _number(word: str, choices: Sequence[Action]) -> Action | None:
    number = small_number(word)  # ASCII digits only: "²".isdigit() is true, int("²") fails
    if number is not None and 1 <= number <= len(choices):
        return choices[number - 1]
    return None


def _auction(word: str, choices: Sequence[Action], words: Mapping[str, Sequence[str]]) -> Parsed:
    if _in(word, words, "pass", "p", "pass", "-"):
        return Parsed(actions=(PASS,))
    bid = small_number(word)
    if bid is not None:
        return Parsed(actions=(Action.bid(bid),))
    if _in(word, words, "bid", "b", "bid", "+", "y", "yes"):
        bids = [a for a in choices if a.kind is ActionKind.BID]
        if bids:
            return Parsed(actions=(bids[0],))
    return _error("err_auction", text=word)


def _cards(text: str, choices: Sequence[Action], many: bool) -> Parsed:
    tokens = text.split()
    if len(tokens) > 1 and not many:
        return _error("err_one_card")
    actions = []
    for token in tokens:
        chosen = _number(token, choices)
        if chosen is None:
            if is_number(token):
                return _error("err_number", number=token, count=len(choices))
            try:
                card = Card.parse(token)
            except NotationError:
                return _error("err_card", text=token)
            chosen = Action.discard(card) if many else Action.play(card)
        actions.append(chosen)
    return Parsed(actions=tuple(actions))


def _game(word: str, choices: Sequence[Action], words: Mapping[str, Sequence[str]]) -> Action | None:
    chosen = _number(word, choices)
    if chosen is not None:
        return chosen
    for game, key in ((DURCH, "durch"), (OPEN_DURCH, "open_durch"), (BETTEL, "bettel")):
        if _in(word, words, key, key):
            return GAMES[game]
    for suit in Suit:
        if _in(word, words, f"suit_{suit.letter}", suit.letter.lower(), suit.symbol):
            return GAMES[suit]
    try:
        return GAMES[Suit.parse(word)]
    except NotationError:
        return None


def _surrender(word: str, choices: Sequence[Action], words: Mapping[str, Sequence[str]]) -> Parsed:
    chosen = _number(word, choices)
    if chosen is not None:
        return Parsed(actions=(chosen,))
    if _in(word, words, "play_on", "play", "n", "no"):
        return Parsed(actions=(PLAY_ON,))
    if _in(word, words, "surrender", "surrender", "y", "yes"):
        return Parsed(actions=(SURRENDER,))
    return _error("err_surrender", text=word)


def _tapp(word: str, choices: Sequence[Action], words: Mapping[str, Sequence[str]]) -> Parsed:
    """Take the Tapp, or play open Durch from the hand (only where the rules allow it)."""
    chosen = _number(word, choices)
    if chosen is not None:
        return Parsed(actions=(chosen,))
    if _in(word, words, "take", "take", "t"):
        return Parsed(actions=(TAKE,))
    if _in(word, words, "hand_durch", "hand_durch", "durch"):
        return Parsed(actions=(GAMES[HAND_DURCH],))
    return _error("err_tapp", text=word)
