"""Unit tests of the terminal's pure parts: the input parser, the message catalogues, rendering."""

from __future__ import annotations

import string

import pytest

from binokel.action import BETTEL, DURCH, GAMES, HAND_DURCH, OPEN_DURCH, PASS, PLAY_ON, SURRENDER, TAKE, Action
from binokel.card import Card, Suit
from binokel.rules import DESCRIPTIONS, RULE_SETS, options
from binokel.i18n import catalogue
from binokel.terminal.messages import LANGUAGES, Messages
from binokel.terminal.parse import parse_input
from binokel.terminal.style import Style, sort_hand, suit_order

AUCTION = (PASS, Action.bid(170))
GAMES_SHOWN = tuple(GAMES[:DURCH + 1])  # the trump suits and Durch: what the 3-player rule sets offer
DE = Messages("de").words


def actions(text, phase, choices=(), words=None):
    parsed = parse_input(text, phase, choices, words)
    assert parsed.error is None and parsed.command is None, parsed
    return [str(a) for a in parsed.actions]


def error(text, phase, choices=(), words=None):
    parsed = parse_input(text, phase, choices, words)
    assert parsed.error is not None, parsed
    return parsed.error, dict(parsed.args)


@pytest.mark.parametrize("text, expected", [
    ("p", ["pass"]), ("PASS", ["pass"]), (" pass ", ["pass"]), ("170", ["170"]), ("b", ["170"]),
    ("bid", ["170"]), ("+", ["170"]), ("y", ["170"]), ("180", ["180"]),
])
def test_auction(text, expected):
    assert actions(text, "auction", AUCTION) == expected


def test_auction_in_german_and_errors():
    assert actions("passe", "auction", AUCTION, DE) == ["pass"]
    assert actions("ja", "auction", AUCTION, DE) == ["170"]
    assert error("xyz", "auction", AUCTION) == ("err_auction", {"text": "xyz"})
    assert error("", "auction", AUCTION) == ("err_empty", {})


@pytest.mark.parametrize("text, expected", [
    ("9C 9D JH", ["9C", "9D", "JH"]), ("9c,9d, jh", ["9C", "9D", "JH"]), ("10h", ["TH"]), ("a♠", ["AS"]),
    ("OS UD", ["QS", "JD"]), ("TS", ["TS"]), ("1 2", ["AS", "KH"]), ("2 2", ["KH", "KH"]),
])
def test_discard(text, expected):
    choices = (Action.discard(Card("AS")), Action.discard(Card("KH")))
    assert actions(text, "discard", choices) == expected
    assert all(a.kind.name == "DISCARD" for a in parse_input(text, "discard", choices).actions)


def test_discard_errors_name_the_token():
    choices = (Action.discard(Card("AS")),)
    assert error("9C ZZ", "discard", choices) == ("err_card", {"text": "ZZ"})
    assert error("5", "discard", choices) == ("err_number", {"number": "5", "count": 1})


def test_play():
    choices = (Action.play(Card("AS")), Action.play(Card("KH")))
    assert actions("2", "play", choices) == ["KH"]
    assert actions("k♥", "play", choices) == ["KH"]
    assert parse_input("QS", "play", choices).actions == (Action.play(Card("QS")),)  # legality is the state's job
    assert error("AS KH", "play", choices) == ("err_one_card", {})
    assert error("0", "play", choices) == ("err_number", {"number": "0", "count": 2})


@pytest.mark.parametrize("text, expected", [
    ("H", "H"), ("h", "H"), ("s", "S"), ("♦", "D"), ("clubs", "C"), ("durch", "durch"), ("DURCH", "durch"),
    ("2", "H"), ("5", "durch"),
])
def test_game(text, expected):
    assert actions(text, "game", GAMES_SHOWN, Messages("en").words) == [expected]


def test_game_words_and_commands():
    assert actions("herz", "game", GAMES_SHOWN, DE) == ["H"]
    assert actions("eichel", "game", GAMES_SHOWN, DE) == ["C"]
    assert actions("cœur", "game", GAMES_SHOWN, Messages("fr").words) == ["H"]
    # S and H name suits at this prompt; the commands are there as words.
    assert parse_input("score", "game", GAMES_SHOWN).command == "sheet"
    assert parse_input("help", "game", GAMES_SHOWN).command == "help"
    assert parse_input("?", "game", GAMES_SHOWN).command == "hint"
    assert error("x", "game", GAMES_SHOWN) == ("err_game", {"count": 5})
    assert error("7", "game", GAMES_SHOWN) == ("err_game", {"count": 5})
    assert GAMES_SHOWN[DURCH] == Action.game("durch")


@pytest.mark.parametrize("text, expected", [
    ("1", PLAY_ON), ("2", SURRENDER), ("play", PLAY_ON), ("surrender", SURRENDER), ("n", PLAY_ON), ("y", SURRENDER),
])
def test_surrender(text, expected):
    assert parse_input(text, "surrender", (PLAY_ON, SURRENDER)).actions == (expected,)


def test_surrender_words_and_error():
    assert parse_input("aufgeben", "surrender", (PLAY_ON, SURRENDER), DE).actions == (SURRENDER,)
    assert parse_input("spielen", "surrender", (PLAY_ON, SURRENDER), DE).actions == (PLAY_ON,)
    assert error("maybe", "surrender", (PLAY_ON, SURRENDER)) == ("err_surrender", {"text": "maybe"})


@pytest.mark.parametrize("text, command", [
    ("?", "hint"), ("s", "sheet"), ("r", "rules"), ("l", "last"), ("h", "help"), ("help", "help"), ("Q", "quit"),
    ("quit", "quit"),
])
def test_commands_at_every_prompt(text, command):
    for phase in ("auction", "discard", "surrender", "play", "next"):
        assert parse_input(text, phase, ()).command == command


def test_localised_commands():
    assert parse_input("hilfe", "play", (), DE).command == "help"
    assert parse_input("regeln", "play", (), DE).command == "rules"
    assert parse_input("aide", "play", (), Messages("fr").words).command == "help"


def test_next_deal_prompt():
    parsed = parse_input("", "next", ())
    assert parsed.error is None and parsed.command is None and parsed.actions == ()
    assert error("x", "next") == ("err_next", {})


def fields(text: str | dict[str, str]) -> set[str]:
    """The placeholders of a sentence (of every plural form of a counted one)."""
    forms = text.values() if isinstance(text, dict) else [text]
    return {f[1] for form in forms for f in string.Formatter().parse(form) if f[1]}


def terminal(lang: str) -> dict[str, str | dict[str, str]]:
    """The terminal's sentences of one language in the one catalogue."""
    return {k: v for k, v in catalogue(lang)["strings"].items() if k.startswith("terminal.")}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_has_every_message_with_the_same_placeholders(lang):
    table, english = terminal(lang), terminal("en")
    assert len(english) > 150 and set(table) == set(english)
    for key, text in english.items():
        assert fields(table[key]) == fields(text), (lang, key)
    words = catalogue(lang)["words"]
    commands = {f"cmd_{c}" for c in ("hint", "sheet", "rules", "last", "help", "quit")}
    assert set(words) <= set(catalogue("en")["words"]) | commands


def test_german_uses_german_terms():
    text = " ".join(" ".join(v.values()) if isinstance(v, dict) else v for v in terminal("de").values())
    for word in ("Trumpf", "reizt", "passe", "Stich", "meldet", "Dapp", "drück"):
        assert word in text


def test_unknown_language_falls_back_to_english():
    assert Messages("xx")("passes", name="Ben") == "Ben passes."
    assert Messages("de")("passes", name="Ben") == "Ben sagt passe."


def test_hand_sorted_trump_first_and_cards_rendered():
    cards = [Card(t) for t in ("9S", "AH", "KS", "TD", "JC", "AD")]
    assert [str(c) for c in sort_hand(cards, Suit.D)] == ["AD", "TD", "KS", "9S", "AH", "JC"]
    assert suit_order(Suit.C) == [Suit.C, Suit.H, Suit.S, Suit.D]
    assert Style(color=False, unicode=True).cards(cards[:3]) == "9♠ A♥ K♠"
    assert Style(color=False, unicode=False).cards(cards[:3]) == "9S AH KS"
    assert Style(color=True, unicode=False).card(Card("AH")) == "\033[31mAH\033[0m"


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_every_option_meaning_is_translated(lang):
    assert all(f"meaning.{name}" in catalogue(lang)["strings"] for name, _, _ in options())
    assert all(Messages(lang).option(name, meaning) != meaning for name, _, meaning in options())


def test_the_tapp_choice_and_the_games_without_trump():
    tapp = (TAKE, GAMES[HAND_DURCH])
    assert actions("1", "tapp", tapp) == actions("take", "tapp", tapp) == ["take"]
    assert actions("2", "tapp", tapp) == actions("hand", "tapp", tapp, Messages("en").words) == ["hand_durch"]
    assert actions("aufnehmen", "tapp", tapp, DE) == ["take"]
    assert error("maybe", "tapp", tapp) == ("err_tapp", {"text": "maybe"})
    shown = (*GAMES[:4], GAMES[DURCH], GAMES[OPEN_DURCH], GAMES[BETTEL])
    words = Messages("en").words
    assert actions("open durch", "game", shown, words) == actions("6", "game", shown) == ["open_durch"]
    assert actions("bettel", "game", shown, words) == ["bettel"]
    assert actions("offen", "game", shown, DE) == ["open_durch"]
    assert actions("260", "auction", (PASS, Action.bid(160))) == ["260"]  # the open auction: any bid typed


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_every_rule_set_description_is_translated(lang):
    assert all(f"ruleset_about.{name}" in catalogue(lang)["strings"] for name in RULE_SETS)
    assert all(Messages(lang).rule_set(name, about) != about for name, about in DESCRIPTIONS.items())
