"""The browser protocol of ``binokel serve``: HTTP + one websocket per game, JSON only.

This docstring is the reference the front-end (``src/binokel/web/``) is built against.

HTTP
====

- ``GET /`` → the page ``src/binokel/web/index.html``; ``GET /static/{path}`` → files
  from ``src/binokel/web/``; ``GET /i18n/{lang}.json`` → the one translation catalogue
  of a language (``binokel.i18n``; unknown language → 404).
- Every HTTP refusal is ``{"error": "<English text>", "code": "<reason>", "params": {...}}``:
  the page shows ``error.<reason>`` of the catalogue with the params in the player's
  language (``error`` is ``str()`` of the :class:`binokel.error.BinokelError`).
- ``GET /api/meta`` →
  ``{"rule_sets": [{"name", "text", "about", "players", "changes"}...],
  "options": [{"name", "standard", "meaning", "choices"|null, "minimum"|null, "step"|null}...],
  "levels": ["easy", "medium", "hard"], "languages": ["de", "en", "fr", "it", "pt"],
  "decks": ["french", "german"], "opponent_names": ["Karle", ...]}``. Every rule set of
  ``binokel.rules.RULE_SETS`` is offered; ``options`` are every option of ``Rules``
  (``standard`` is the value of the ``standard`` rule set; a number option has
  ``minimum`` and ``step`` where the rules restrict it); a rule set's ``changes`` are its
  options that differ from ``standard``, as from ``GET /api/rules``.
- ``GET /api/rules?text=kreuz(target=1000)`` → ``{"text": canonical text, "players": n,
  "changes": [{"name", "value", "standard"}...]}``: the rules read as a new game would
  read them. ``changes`` lists every option whose value differs from the ``standard``
  rule set, in declaration order (the same list as ``game.changes`` below). A text the
  rules refuse → HTTP 400 ``{"error": "<the rules' own message>"}``.
- ``POST /api/games`` body ``{"rules": "standard(target=1000)", "opponents": ["medium", "hard"],
  "name": "Anna", "language": "en", "deck": "french"}`` → ``{"id": "<opaque id>", "seat": 0}``.
  Every key is optional (defaults: ``"standard"``, ``"medium"`` for every computer seat,
  ``"You"``, ``"en"``, ``"french"``); an optional integer ``"seed"`` fixes the shuffles
  (tests, reproducible games). Any rule text is accepted (any rule set, any options).
  The human always sits in seat 0, the computer opponents in seats 1 to ``players`` − 1
  (``opponents`` has one level per computer seat: 2, 3 or 5), named by
  ``opponent_names`` in seat order; the first dealer is drawn by lot from the game's
  seeded generator and the first deal is dealt at once. Bad input (not a JSON object,
  unknown key, bad rules, level, name, language or deck) → HTTP 400
  ``{"error": "message"}``, nothing stored; for bad rules the message is exactly the
  rules' own (as ``GET /api/rules`` gives it).
- ``GET /api/games`` → ``{"games": [{"id", "rules", "players", "totals", "deals",
  "updated", "over"}...]}``, unfinished games first, then most recently updated first.
  ``deals`` counts the deals dealt so far; ``updated`` is an ISO 8601 UTC time.
- ``DELETE /api/games/{id}`` → ``{"deleted": id}``; unknown id → 404 ``{"error": ...}``.
- ``GET /api/games/{id}/record`` → the game record (RECORDS.md ``binokel-game/1``) as a
  download (``Content-Disposition: attachment``). While a deal is in progress its
  cards are hidden information, so that deal is left out until it is over; the record
  is always replayable. Unknown id → 404 ``{"error": ...}``.

Websocket ``/ws/games/{id}``
============================

The human (seat 0) connects; several tabs may watch the same game. An unknown id gets
one ``error`` message and the socket is closed with code 4404.

Server → client:

- ``{"type": "state", "version": N, "view": SeatView.to_json() of seat 0,
  "game": {...}, "last_trick": {"leader", "cards", "winner"}|null,
  "meld_options": {"S": n, "H": n, "D": n, "C": n}|null, "refusals": {card: {"code", "params"}},
  "contracts": {game: {"value": n|null, "whole_game": bool}}, "surrender": {"cost", "credit"}|null}``
  — on connect, on ``sync``
  and after every accepted change. ``game`` is ``{"players": [names], "levels":
  [null, "medium", "hard"], "totals": [...], "deal_number": k (1-based), "rules": text,
  "changes": [{"name", "value", "standard"}...], "teams": [team of each seat]|null,
  "durch_games": [...]|null, "target": int, "over": bool, "winner": seat|team|null,
  "history": [{"dealer", "soloist", "bid", "game", "outcome", "scores": [...],
  "melds": [meld points per seat], "card_points": [...]} per finished deal],
  "settings": {"language", "deck", "name"}}``.
  One entry per seat in ``players``, ``levels``, ``totals`` (3, 4 or 6 seats).
  ``changes`` are the options that differ from the ``standard`` rule set (as from
  ``GET /api/rules``). ``teams`` is ``rules.team_of(seat)`` per seat (0 or 1) when the
  rules have partnerships, else null; partners always have equal totals, and
  ``winner`` is then the winning team (0 or 1, also its lowest seat).
  ``durch_games`` (with ``durch_game=1``) counts the whole games won (+1) or lost (−1)
  by Durch per seat, else null. In a history entry of a deal everybody passed
  (outcome ``"redeal"``) ``soloist``, ``bid`` and ``game`` are null; ``game`` is
  ``"S"``/``"H"``/``"D"``/``"C"``, ``"durch"``, ``"open_durch"``, ``"hand_durch"`` or
  ``"bettel"``. ``outcome`` is ``made``, ``failed``, ``surrendered``, ``durch_made``,
  ``durch_failed``, ``bettel_made``, ``bettel_failed`` or ``redeal``.
  The view is that of seat 0: with ``sit_out=1``, ``view.sitting_out`` is the seat that
  sits out this deal; when that is seat 0, its hand is empty, it never moves and the
  computer opponents play the deal on their own (the page watches; ``next_deal`` works
  as always). In open Durch (and open Durch from the hand) ``view.open_hand`` is the
  soloist's hand, shown to everybody from the announcement on, else null.
  ``last_trick`` is the last completed trick of the deal shown. ``meld_options`` is
  what seat 0's melds would be worth with each trump, only while seat 0 is the soloist
  in the ``game`` or ``surrender`` phase (else null). The page holds no rules; what it
  shows that the rules decide comes from :func:`rule_facts`: ``refusals`` gives, while
  seat 0 is to move in the play phase, each card of its hand that it may not play with
  the engine's reason code and params (``must_follow_suit {card, suit}``, ``must_beat
  {card, best, suit}``, ``must_trump {card, suit}``, ``must_overtrump {card, best}``;
  cards and suits in canonical text), else ``{}``; ``contracts`` gives each game without
  trump the rules offer (``durch``, ``open_durch``, ``bettel``, ``hand_durch``) with what
  it is played for (``whole_game`` true and ``value`` null with ``durch_game=1``);
  ``surrender``, once there is a bid, is what surrendering costs: the soloist scores
  −``cost``, each opponent +``credit`` plus their melds.
  After a deal ends (and the game is not over) the view keeps showing that finished
  deal (``view.phase == "over"``, the score sheet) until a client sends ``next_deal``.
- ``{"type": "hint", "action": "AS"}`` — what the ``hard`` computer opponent would do
  for seat 0, computed from seat 0's view only (a modest legal action — take the Tapp, pass, else
  any — should the bot fail, as for the computer opponents' own moves).
- ``{"type": "rematch", "id": new_id}`` — answer to ``rematch``.
- ``{"type": "error", "message": "...", "code": "...", "params": {...}, "version": N}`` —
  to the sender only; nothing changed. ``message`` is the English text; ``code`` and
  ``params`` are the reason (``error.<code>`` of the catalogue), e.g. ``not_your_turn
  {name}``, ``stale_version {version, current}``, or the engine's own (``must_follow_suit
  {card, suit}``, ``not_legal {action, phase, legal}``...).

Client → server:

- ``{"type": "action", "action": "AS", "version": N}`` — record notation, one of
  ``view.legal_actions``: ``"160"``, ``"pass"`` (the open auction lists pass and every
  bid from the lowest allowed up to 500 more), ``"take"``/``"hand_durch"`` (phase
  ``tapp``), a card to discard or play, ``"S"``/``"H"``/``"D"``/``"C"``/``"durch"``/
  ``"open_durch"``/``"bettel"``, ``"surrender"``/``"play"``. ``version`` must be the
  version of the last state seen; a stale version gets an error (the client should
  then send ``sync``).
- ``{"type": "hint"}`` — only while seat 0 is to move.
- ``{"type": "sync"}`` — the server resends the state.
- ``{"type": "next_deal"}`` (optional ``"version"``) — deal the next deal once the
  shown deal is over. The server never deals on its own, so the player can study the
  score sheet as long as they like.
- ``{"type": "rematch"}`` — a new game with the same settings.

Rules of the road: the server is authoritative; one table per game takes commands one
at a time; every accepted change (an action, a deal) increments ``version`` and is
written to SQLite before any client hears of it. Malformed JSON, binary frames,
messages over 16 KiB, unknown types, out-of-turn, illegal or stale actions get an
``error`` to the sender only and change nothing.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from binokel.action import BETTEL, DURCH, GAME_WORDS, HAND_DURCH, OPEN_DURCH
from binokel.error import BinokelError
from binokel.i18n import LANGUAGES
from binokel.meld import meld_values
from binokel.rules import STANDARD, Rules
from binokel.score import contract_worth
from binokel.trick import NO_TRUMP, best_position, card_refusal
from binokel.view import SeatView

LEVELS = ("easy", "medium", "hard")
DECKS = ("french", "german")
MAX_MESSAGE = 16 * 1024
"""Largest client message accepted, in bytes of UTF-8."""
MAX_NAME = 40
HUMAN = 0
"""The seat of the human player."""
OPPONENT_NAMES = ("Karle", "Frieda", "Sepp", "Liesl", "Gustl")
"""Names of the computer opponents, seat 1 onwards (as many as the rules seat)."""
NUMBER_WORDS = {2: "two", 3: "three", 5: "five"}
CLIENT_TYPES = ("action", "hint", "sync", "next_deal", "rematch")


class ProtocolError(BinokelError):
    """Bad input from a client: the reason (code, params) goes back to it, nothing changes."""


@dataclass(frozen=True)
class Settings:
    """What a new game is made of (the body of ``POST /api/games``)."""

    rules: Rules
    opponents: tuple[str, ...] = ("medium", "medium")  # one level per computer seat
    name: str = "You"
    language: str = "en"
    deck: str = "french"
    seed: int | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {"rules": self.rules.text, "opponents": list(self.opponents), "name": self.name,
                "language": self.language, "deck": self.deck}


def seat_names(name: str, opponents: int) -> list[str]:
    """The name at each seat: the human's, then those of the ``opponents`` computer seats."""
    return [name, *OPPONENT_NAMES[:opponents]]


NEW_GAME_KEYS = ("rules", "opponents", "name", "language", "deck", "seed")


def parse_settings(body: Any) -> Settings:
    """Check the body of ``POST /api/games``; raise ProtocolError naming the first problem.

    >>> parse_settings({"rules": "standard(target=1000)", "opponents": ["easy", "hard"]}).rules.text
    'standard(target=1000)'
    >>> parse_settings({"deck": "tarot"})
    Traceback (most recent call last):
    ...
    binokel.server.protocol.ProtocolError: deck must be one of french, german, not 'tarot'
    """
    if not isinstance(body, dict):
        raise ProtocolError("body_not_object")
    for key in body:
        if key not in NEW_GAME_KEYS:
            raise ProtocolError("unknown_field", name=repr(key), known=", ".join(NEW_GAME_KEYS))
    rules = parse_rules(body.get("rules", "standard"))
    seats = rules.players - 1
    opponents = body.get("opponents", ["medium"] * seats)
    if not isinstance(opponents, list) or len(opponents) != seats:
        example = ", ".join(['"medium"'] * (seats - 1) + ['"hard"'])
        raise ProtocolError("opponents_list", count=NUMBER_WORDS[seats], example=example)
    for level in opponents:
        if level not in LEVELS:
            raise ProtocolError("bad_level", levels=", ".join(LEVELS), value=repr(level))
    name = body.get("name", "You")
    if not isinstance(name, str):
        raise ProtocolError("name_not_text", value=repr(name))
    name = " ".join(name.split())
    if not name or len(name) > MAX_NAME:
        raise ProtocolError("name_length", max=MAX_NAME)
    if any(unicodedata.category(c).startswith("C") for c in name):
        raise ProtocolError("name_control")
    language = body.get("language", "en")
    if language not in LANGUAGES:
        raise ProtocolError("bad_language", languages=", ".join(LANGUAGES), value=repr(language))
    deck = body.get("deck", "french")
    if deck not in DECKS:
        raise ProtocolError("bad_deck", decks=", ".join(DECKS), value=repr(deck))
    seed = body.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63):
        raise ProtocolError("bad_seed", value=repr(seed))
    return Settings(rules, tuple(opponents), name, language, deck, seed)


def parse_rules(text: Any) -> Rules:
    """Read a rule text for a new game; the rules' own message if they refuse it.

    >>> parse_rules("kreuz(target=1000)").players
    4
    >>> parse_rules("standard(sit_out=1)")
    Traceback (most recent call last):
    ...
    binokel.server.protocol.ProtocolError: sit_out=1 needs players=4 (the dealer sits out, three play)
    """
    if not isinstance(text, str):
        raise ProtocolError("rules_not_text", value=repr(text))
    try:
        return Rules.parse(text)
    except BinokelError as error:
        raise ProtocolError(error.code, **error.params) from None


def rule_changes(rules: Rules) -> list[dict[str, Any]]:
    """The options that differ from the ``standard`` rule set: what a table shows as the
    rules in force, beyond the name.

    >>> rule_changes(Rules.parse("sevens(target=1000)"))
    [{'name': 'deck', 'value': 'sevens', 'standard': 'nines'}, {'name': 'target', 'value': 1000, 'standard': 1500}]
    """
    return [{"name": name, "value": value, "standard": standard}
            for name, value, standard in rules.differences(STANDARD)]


def rule_facts(seen: SeatView, rules: Rules) -> dict[str, Any]:
    """What the page shows that the rules decide, for the seat of ``seen`` (the keys
    ``refusals``, ``contracts``, ``surrender`` and ``meld_options`` of the ``state``
    message): the page holds no rules.

    - ``refusals``: while the seat is to move in the play phase, each card of its hand it
      may not play, with why (``{"code", "params"}``, as :class:`BinokelError` has them);
      else ``{}``.
    - ``contracts``: each game without trump the rules offer, with what it is played for:
      ``{"durch": {"value": 1000, "whole_game": false}, ...}`` (``whole_game``: it wins or
      loses the whole game, ``durch_game=1``; ``value`` is then null).
    - ``surrender``: once there is a bid, ``{"cost": bid, "credit": n}``: the soloist who
      surrenders scores −``cost``, each opponent +``credit`` plus their melds; else null.
    - ``meld_options``: while the seat is the soloist naming the game or deciding to
      surrender, what its hand melds with each trump; else null.

    >>> import random
    >>> from binokel.state import State
    >>> from binokel.view import view
    >>> state = State.new("standard", dealer=2).deal_random(random.Random(1))
    >>> facts = rule_facts(view(state, 0), state.rules)
    >>> facts["contracts"], facts["surrender"], facts["refusals"]
    ({'durch': {'value': 1000, 'whole_game': False}}, None, {})
    """
    refusals: dict[str, dict[str, Any]] = {}
    if seen.phase == "play" and seen.to_move == seen.seat and seen.trick.cards:
        legal = {str(action) for action in seen.legal_actions}
        trump = seen.trump.value if seen.trump is not None else NO_TRUMP
        trick = [card.index for card in seen.trick.cards]
        best = best_position(trick, trump)
        have = sum({1 << card.index for card in seen.hand})  # one bit per kind held
        for card in seen.hand:
            if str(card) not in legal and str(card) not in refusals:
                code, params = card_refusal(have, trick, best, trump, card.index)
                refusals[str(card)] = {"code": code, "params": params}
    offered = {DURCH: rules.durch, OPEN_DURCH: rules.open_durch, BETTEL: rules.bettel, HAND_DURCH: rules.hand_durch}
    contracts = {}
    for game, value in offered.items():
        if value:
            worth = contract_worth(rules, game)
            contracts[GAME_WORDS[game]] = {"value": worth, "whole_game": worth is None}
    surrender = None if seen.bid is None else {"cost": seen.bid, "credit": rules.surrender_points(seen.bid)}
    melds = None
    if seen.soloist == seen.seat and seen.phase in ("game", "surrender"):
        melds = {suit.letter: points for suit, points in meld_values(seen.hand, rules).items()}
    return {"refusals": refusals, "contracts": contracts, "surrender": surrender, "meld_options": melds}


def parse_message(text: str | bytes | None) -> dict[str, Any]:
    """Read one client message; raise ProtocolError if it is not one of the protocol's.

    >>> parse_message('{"type": "action", "action": "AS", "version": 3}')["action"]
    'AS'
    >>> parse_message('{"type": "dance"}')
    Traceback (most recent call last):
    ...
    binokel.server.protocol.ProtocolError: unknown message type 'dance' (known: action, hint, sync, next_deal, rematch)
    """
    if not isinstance(text, str):
        raise ProtocolError("binary_message")
    if len(text.encode("utf-8", "surrogatepass")) > MAX_MESSAGE:
        raise ProtocolError("message_too_large", max=MAX_MESSAGE)
    try:
        message = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as error:
        raise ProtocolError("malformed_json", reason=str(error)) from None
    if not isinstance(message, dict):
        raise ProtocolError("message_not_object")
    kind = message.get("type")
    if kind not in CLIENT_TYPES:
        raise ProtocolError("unknown_type", value=repr(kind), known=", ".join(CLIENT_TYPES))
    if kind == "action":
        if not isinstance(message.get("action"), str):
            raise ProtocolError("action_needs_text")
        if not _is_version(message.get("version")):
            raise ProtocolError("action_needs_version")
    if kind == "next_deal" and "version" in message and not _is_version(message["version"]):
        raise ProtocolError("version_not_number")
    return message


def _is_version(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def error_message(error: BinokelError, version: int | None) -> dict[str, Any]:
    """The ``error`` message: the English text, and the reason code and params the page
    shows in the player's language.

    >>> error_message(ProtocolError("stale_version", version=3, current=4), 4)["message"]
    'stale version 3: the game is at version 4 (send sync)'
    """
    return {"type": "error", "message": error.message, "code": error.code, "params": error.params, "version": version}


CARD_PATTERN = re.compile(r"^[ATKQJ97][SHDC]$")
"""Canonical card text, as it appears in every message (tests look for it)."""
