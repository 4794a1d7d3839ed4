"""Records (docs/records.md): read, write and replay deals and games as plain JSON.

A record holds the rules, the dealt cards and every action, so a replay never needs a
random generator. Unknown top-level keys are kept in :attr:`Record.extra`.

>>> import random
>>> from binokel.state import State
>>> state = State.new("standard", dealer=2).deal_random(random.Random(5))
>>> state = state.apply_text("150").apply_text("pass").apply_text("pass")
>>> data = deal_record(state)
>>> data["auction"], "discard" in data
(['150', 'pass', 'pass'], False)
>>> deal_record(replay_deal(data)) == data
True
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from binokel.action import DISCARDS, DURCH, GAMES, PLAY_ON, PLAYS, SURRENDER, TAKE, Action
from binokel.card import CARDS, Card
from binokel.error import BinokelError, RecordError
from binokel.game import Game
from binokel.rules import Rules
from binokel.state import MAX_BID, Phase, State

DEAL_FORMAT = "binokel-deal/1"
GAME_FORMAT = "binokel-game/1"
DEAL_KEYS = ("format", "rules", "dealer", "hands", "tapp", "auction", "discard", "game", "surrender", "tricks")
GAME_KEYS = ("format", "rules", "first_dealer", "deals", "durch_games")  # "players" (names) stays with the extra keys


# ---------------------------------------------------------------------- writing

def deal_record(state: State, *, with_header: bool = True) -> dict[str, Any]:
    """The record of a deal (stopping early if it is in progress)."""
    if state.phase is Phase.DEAL:
        raise BinokelError("no_record_before_deal")
    data: dict[str, Any] = {}
    if with_header:
        data["format"] = DEAL_FORMAT
        data["rules"] = state.rules.text
    data["dealer"] = state.dealer
    data["hands"] = [[str(CARDS[k]) for k in hand] for hand in state.dealt]
    data["tapp"] = [str(CARDS[k]) for k in state.tapp]
    if state.calls:
        data["auction"] = [str(a) for a in state.calls]
    if state.discard or _took_tapp(state):  # hand_durch rules: an empty discard says the Tapp was taken
        data["discard"] = [str(CARDS[k]) for k in state.discard]
    if state.game is not None:
        data["game"] = str(GAMES[state.game])
    if state.surrendered is not None:
        data["surrender"] = state.surrendered
    tricks = [[str(c) for c in t.cards] for t in state.tricks]
    if state.trick:
        tricks.append([str(CARDS[k]) for k in state.trick])
    if tricks:
        data["tricks"] = tricks
    return data


def game_record(game: Game, players: list[str] | None = None) -> dict[str, Any]:
    """The record of a game: its rules, optional player names and every dealt deal."""
    data: dict[str, Any] = {"format": GAME_FORMAT, "rules": game.rules.text}
    if players is not None:
        data["players"] = list(players)
    data["first_dealer"] = game.first_dealer  # a game with no deal yet replays to the same table
    data["deals"] = [deal_record(d, with_header=False) for d in game.deals if d.phase is not Phase.DEAL]
    if game.rules.durch_game:
        data["durch_games"] = list(game.durch_games)
    return data


# ---------------------------------------------------------------------- reading

@dataclass
class Record:
    """A read record: the replayed deal (State) or game (Game), plus unknown keys."""

    subject: State | Game
    extra: dict[str, Any] = field(default_factory=dict)
    names_first_dealer: bool = True  # a game record read without "first_dealer" is written back without it

    @classmethod
    def from_json(cls, data: Any) -> Record:
        subject = replay(data)
        known = GAME_KEYS if isinstance(subject, Game) else DEAL_KEYS
        return cls(subject, {k: v for k, v in data.items() if k not in known}, "first_dealer" in data)

    def to_json(self) -> dict[str, Any]:
        if isinstance(self.subject, Game):
            names = self.extra.get("players")
            data = game_record(self.subject, names if isinstance(names, list) else None)
            if not self.names_first_dealer:
                del data["first_dealer"]
            return {**data, **{k: v for k, v in self.extra.items() if k != "players"}}
        return {**deal_record(self.subject), **self.extra}


def replay(data: Any) -> State | Game:
    """Check a deal or game record against the rules and return the replayed deal or game."""
    if not isinstance(data, dict):
        raise RecordError("record_not_object")
    fmt = data.get("format")
    if fmt == DEAL_FORMAT:
        return replay_deal(data)
    if fmt == GAME_FORMAT:
        return replay_game(data)
    raise RecordError("unknown_format", "format", value=repr(fmt), deal=repr(DEAL_FORMAT), game=repr(GAME_FORMAT))


@contextmanager
def _at(path: str) -> Iterator[None]:
    """Turn any rule or notation error inside into a RecordError at ``path``."""
    try:
        yield
    except RecordError:
        raise
    except BinokelError as error:
        raise RecordError(error.code, path, **error.params) from None


def _rules_of(data: dict[str, Any]) -> Rules:
    if "rules" not in data:
        raise RecordError("no_rules", "rules")
    with _at("rules"):
        return Rules.parse(data["rules"])


def replay_deal(data: Any, rules: Rules | None = None, prefix: str = "", dealer: int | None = None) -> State:
    """Replay one deal record; ``rules`` and ``prefix`` are given for deals inside a game."""
    if not isinstance(data, dict):
        raise RecordError("deal_not_object", prefix or None)
    if rules is None:
        if data.get("format") != DEAL_FORMAT:
            raise RecordError("wrong_format", "format", expected=repr(DEAL_FORMAT))
        rules = _rules_of(data)
    p = prefix
    if "dealer" not in data:
        raise RecordError("no_dealer", f"{p}dealer")
    seat = data["dealer"]
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < rules.players:
        raise RecordError("bad_dealer", f"{p}dealer", last=rules.players - 1, value=repr(seat))
    if dealer is not None and seat != dealer:
        raise RecordError("wrong_dealer", f"{p}dealer", dealer=dealer)
    state = State.new(rules, seat)
    sizes = [state.hand_size_of(s) for s in range(rules.players)]
    hands = _card_lists(data.get("hands"), f"{p}hands", rules.players, sizes, "hands")
    tapp = _cards(data.get("tapp"), f"{p}tapp", rules.tapp_size)
    _check_copies(rules, hands, tapp, p)
    with _at(f"{p}hands"):
        state = state.deal(hands, tapp)

    auction = _list(data, "auction", p)
    for i, call in enumerate(auction):
        path = f"{p}auction[{i}]"
        if state.phase is not Phase.AUCTION:
            raise RecordError("auction_over", path)
        if isinstance(call, int) and not isinstance(call, bool):
            if call > MAX_BID:  # str() of a number of thousands of digits fails
                raise RecordError("number_too_large", path, value=str(call) if call.bit_length() < 64 else "…",
                                  max=MAX_BID)
            if call < 0:
                raise RecordError("bad_call", path, text=str(call) if call.bit_length() < 64 else "-…")
            call = str(call)
        if not isinstance(call, str):
            raise RecordError("bad_call", path, text=repr(call))
        state = _apply(state, call, path)

    hand_game = False
    if state.phase is Phase.TAPP:  # hand_durch rules: open Durch from the hand, or take the Tapp
        game = data.get("game")
        if isinstance(game, str) and game.strip().lower() == "hand_durch":
            state, hand_game = _apply(state, game, f"{p}game"), True
        elif "discard" in data or "game" in data:
            state = state.apply(TAKE)
    discard = _list(data, "discard", p)
    if discard and state.phase is not Phase.DISCARD:
        raise RecordError("not_now", f"{p}discard", key="discard", phase=state.phase.value)
    for i, card in enumerate(discard):
        path = f"{p}discard[{i}]"
        if state.phase is not Phase.DISCARD:
            raise RecordError("too_many_discards", path, count=rules.tapp_size)
        if not isinstance(card, str):
            raise RecordError("card_not_text", path, value=repr(card))
        state = _apply(state, card, path)

    if "game" in data and not hand_game:
        if state.phase is not Phase.GAME:
            raise RecordError("not_now", f"{p}game", key="game", phase=state.phase.value)
        game = data["game"]
        if not isinstance(game, str):
            raise RecordError("bad_game", f"{p}game", text=repr(game))
        state = _apply(state, game, f"{p}game")

    if "surrender" in data:
        surrender = data["surrender"]
        if not isinstance(surrender, bool):
            raise RecordError("bad_surrender", f"{p}surrender", value=repr(surrender))
        if state.phase is Phase.SURRENDER:
            state = state.apply(SURRENDER if surrender else PLAY_ON)
        elif not (surrender is False and _no_trump(state) and state.phase is Phase.PLAY and not state.tricks):
            if not surrender or not _no_trump(state):
                raise RecordError("not_now", f"{p}surrender", key="surrender", phase=state.phase.value)
            raise RecordError("durch_no_surrender", f"{p}surrender")

    tricks = _list(data, "tricks", p)
    if tricks and state.phase is not Phase.PLAY:
        raise RecordError("not_now", f"{p}tricks", key="tricks", phase=state.phase.value)
    for i, trick in enumerate(tricks):
        if not isinstance(trick, list):
            raise RecordError("trick_not_list", f"{p}tricks[{i}]")
        if state.phase is not Phase.PLAY:
            raise RecordError("deal_over", f"{p}tricks[{i}]")
        # Each entry is one trick: only the last may be short (a trick in progress), none longer.
        if len(trick) > rules.active or (len(trick) != rules.active and i != len(tricks) - 1):
            raise RecordError("trick_size", f"{p}tricks[{i}]", count=rules.active, given=len(trick))
        for j, card in enumerate(trick):
            path = f"{p}tricks[{i}][{j}]"
            if state.phase is not Phase.PLAY:
                raise RecordError("deal_over", path)
            if not isinstance(card, str):
                raise RecordError("card_not_text", path, value=repr(card))
            state = _apply(state, card, path)
    return state


def replay_game(data: Any) -> Game:
    """Replay a game record: every deal, the dealer rotation, totals and the winner."""
    if not isinstance(data, dict):
        raise RecordError("record_not_object")
    if data.get("format") != GAME_FORMAT:
        raise RecordError("wrong_format", "format", expected=repr(GAME_FORMAT))
    rules = _rules_of(data)
    names = data.get("players")
    if names is not None and (not isinstance(names, list) or len(names) != rules.players):
        raise RecordError("player_names", "players", count=rules.players)
    deals = data.get("deals")
    if not isinstance(deals, list):
        raise RecordError("deals_not_list", "deals")
    named = data.get("first_dealer")
    if "first_dealer" in data and not _is_seat(named, rules):
        raise RecordError("bad_first_dealer", "first_dealer", last=rules.players - 1, value=repr(named))
    if not deals:
        return Game.new(rules, named if isinstance(named, int) else 0)
    first = deals[0].get("dealer") if isinstance(deals[0], dict) else None
    if not _is_seat(first, rules):
        raise RecordError("bad_dealer", "deals[0].dealer", last=rules.players - 1, value=repr(first))
    assert isinstance(first, int)
    if "first_dealer" in data and named != first:
        raise RecordError("first_dealer_mismatch", "first_dealer", first_dealer=named, dealer=first)
    game = Game.new(rules, first)
    for i, deal in enumerate(deals):
        prefix = f"deals[{i}]."
        if game.is_over():
            raise RecordError("no_more_deals", f"deals[{i}]")
        if not game.needs_deal():
            raise RecordError("previous_deal_unfinished", f"deals[{i}]")
        state = replay_deal(deal, rules, prefix, dealer=game.current.dealer)
        game = game.deal([[CARDS[k] for k in h] for h in state.dealt], [CARDS[k] for k in state.tapp])
        for action in actions_of(state):
            game = game.apply(action)
    if "durch_games" in data and data["durch_games"] != list(game.durch_games):
        raise RecordError("durch_games_mismatch", "durch_games", expected=str(list(game.durch_games)))
    return game


def _is_seat(value: Any, rules: Rules) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < rules.players


def actions_of(state: State) -> list[Action]:
    """Every action taken in a deal, in order (after the deal step)."""
    actions: list[Action] = list(state.calls)
    if _took_tapp(state):
        actions.append(TAKE)
    actions += [DISCARDS[k] for k in state.discard]
    if state.game is not None:
        actions.append(GAMES[state.game])
        if state.game < DURCH and state.surrendered is not None:
            actions.append(SURRENDER if state.surrendered else PLAY_ON)
    for trick in state.tricks:
        actions += [PLAYS[c.index] for c in trick.cards]
    actions += [PLAYS[k] for k in state.trick]
    return actions


def _took_tapp(state: State) -> bool:
    """With hand_durch rules: did the soloist take the Tapp (an action of its own)?"""
    return bool(state.rules.hand_durch) and not state.tapp_in_centre


def _no_trump(state: State) -> bool:
    """Is the named game Durch, open Durch or Bettel (no surrender decision)?"""
    return state.game is not None and state.game >= DURCH


def _apply(state: State, text: str, path: str) -> State:
    with _at(path):
        return state.apply(state.parse_action(text))


def _list(data: dict[str, Any], key: str, prefix: str) -> list[Any]:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise RecordError("not_a_list", f"{prefix}{key}", key=key)
    return value


def _cards(value: Any, path: str, size: int) -> list[Card]:
    if not isinstance(value, list):
        raise RecordError("cards_not_list", path, count=size)
    cards = []
    for i, text in enumerate(value):
        if not isinstance(text, str):
            raise RecordError("card_not_text", f"{path}[{i}]", value=repr(text))
        with _at(f"{path}[{i}]"):
            cards.append(Card.parse(text))
    if len(cards) != size:
        raise RecordError("card_count", path, given=len(cards), count=size)
    return cards


def _card_lists(value: Any, path: str, count: int, sizes: list[int], what: str) -> list[list[Card]]:
    if not isinstance(value, list) or len(value) != count:
        raise RecordError("hands_not_list", path, what=what, count=count)
    return [_cards(hand, f"{path}[{i}]", size) for i, (hand, size) in enumerate(zip(value, sizes))]


def _check_copies(rules: Rules, hands: list[list[Card]], tapp: list[Card], prefix: str) -> None:
    """Name the first card that is not in the deck or is a third copy."""
    in_deck = rules.kind_mask
    count = [0] * len(CARDS)
    piles = [(f"{prefix}hands[{i}]", hand) for i, hand in enumerate(hands)] + [(f"{prefix}tapp", tapp)]
    for path, pile in piles:
        for j, card in enumerate(pile):
            if not in_deck >> card.index & 1:
                raise RecordError("not_in_deck_of", f"{path}[{j}]", card=str(card), deck=rules.deck, rules=rules.text)
            count[card.index] += 1
            if count[card.index] > 2:
                raise RecordError("third_copy", f"{path}[{j}]", card=str(card))


# ---------------------------------------------------------------------- results

def deal_result(state: State) -> dict[str, Any]:
    """The ``binokel replay --json`` object of one deal (docs/records.md)."""
    game = None if state.game is None else str(GAMES[state.game])
    melds = state.melds or ((),) * state.players
    cards = state.card_points
    seats = [
        {
            "melds": [m.to_json() for m in melds[seat]],
            "meld_points": sum(m.points for m in melds[seat]),
            "card_points": cards[seat],
            "tricks": state.won[seat],
            "score": state.scores[seat] if state.scores is not None else 0,
        }
        for seat in range(state.players)
    ]
    return {
        "soloist": state.soloist,
        "bid": state.bid,
        "game": game,
        "outcome": state.outcome.value if state.outcome is not None else "in_progress",
        "seats": seats,
    }


def game_result(game: Game) -> dict[str, Any]:
    """The ``binokel replay --json`` object of a game: per-deal results, totals, winner."""
    return {
        "deals": [deal_result(d) for d in game.deals if d.phase is not Phase.DEAL],
        "totals": list(game.totals),
        "winner": game.winner,
        **({"durch_games": list(game.durch_games)} if game.rules.durch_game else {}),
    }


def result(subject: State | Game) -> dict[str, Any]:
    return game_result(subject) if isinstance(subject, Game) else deal_result(subject)

