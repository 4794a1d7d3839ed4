"""The browser protocol of ``binokel serve``: HTTP + one websocket per game, JSON only.

This docstring is the reference the front-end (``src/binokel/web/``) is built against.

HTTP
====

- ``GET /`` → the page ``src/binokel/web/index.html``; ``GET /static/{path}`` → files
  from ``src/binokel/web/``; ``GET /i18n/{lang}.json`` → the one translation catalogue
  of a language (``binokel.i18n``; unknown language → 404).
- Before any route, the gate (``server/guard.py``): a ``Host`` the server does not answer
  to → 421 ``bad_host``; a change (POST, PUT, PATCH, DELETE) from a page of another
  ``Origin`` → 403 ``bad_origin``; a change with a body that is not ``Content-Type:
  application/json`` → 415 ``json_required``; a body over 512 KiB → 413 ``body_too_large``.
  ``GET /api/openapi.json`` is the OpenAPI schema of these routes.
- Every HTTP refusal is ``{"error": "<English text>", "code": "<reason>", "params": {...}}``:
  the page shows ``error.<reason>`` of the catalogue with the params in the player's
  language (``error`` is ``str()`` of the :class:`binokel.error.BinokelError`).
- ``GET /api/meta`` →
  ``{"rule_sets": [{"name", "text", "about", "players", "changes"}...],
  "options": [{"name", "standard", "meaning", "choices"|null, "minimum"|null, "step"|null}...],
  "levels": ["easy", "medium", "hard", "expert"], "languages": ["de", "en", "fr", "it", "pt"],
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
- ``GET /api/rules/check?text=...`` → the same answer with ``"ok": true``, or
  ``{"ok": false, "error": "<the rules' own message>"}`` — always HTTP 200: the start
  page checks the text while it is typed, and a refused text is no error of the page.
- ``POST /api/games`` body ``{"rules": "standard(target=1000)", "seats": ["me", "open", "hard"],
  "name": "Anna", "language": "en", "deck": "french", "grace": 45, "stand_in": "medium",
  "lobby": false, "next_deal_after": 0}`` → ``{"id": "<opaque id>", "seat": 0|null,
  "token": "<the creator's seat token>", "invites": {"code": "K7QM-2XPA"|null, "seats":
  [{"seat", "code"}...]}, "links": {"next_seat": url|null, "seats": [{"seat", "url"}...],
  "watch": url}}``. ``seats`` names every seat: ``"me"`` (the creator; at most one),
  ``"open"`` (a friend, who joins with an invite) or a bot level; instead of ``seats``
  the older ``opponents`` (one level per seat after the creator's seat 0) still works.
  Every key is optional (defaults: ``"standard"``, the creator in seat 0 and ``"medium"``
  bots, ``"You"``, ``"en"``, ``"french"``, grace 45 s, stand-in ``medium``, no lobby,
  ``next_deal_after`` 0 = wait for the people); an optional integer ``"seed"`` fixes the
  shuffles (tests, reproducible games). Any rule text is accepted (any rule set, any
  options). Bots are named by ``opponent_names`` (seat 1 the first). The first dealer is
  drawn by lot from the game's seeded generator and the first deal is dealt at once; with
  an open seat, nobody moves until every seat is taken. The token and the codes are shown
  only here (the server keeps their SHA-256 digests). Links put the codes in the URL
  fragment: ``{base}#/join/{code}``, ``{base}#/watch/{id}``, where ``base`` is
  ``--public-url`` or the address the request came to. Bad input (not a JSON object,
  unknown key, bad rules, seats, level, name, language or deck) → HTTP 400, nothing
  stored; for bad rules the message is exactly the rules' own (as ``GET /api/rules``
  gives it). More than 20 tables a minute from one address → 429.
- ``POST /api/invite`` body ``{"code"}`` → the table an invite leads to (``{"id",
  "rules", "players", "seats", "totals", "deals", "over", "waiting", "to_move",
  "updated", "seat": the invited seat|null, "open_seats"}``); wrong or replaced code →
  404, expired → 410.
- ``POST /api/join`` body ``{"code", "name"}`` (or ``{"id", "name"}`` for a table in the
  lobby) → ``{"id", "seat", "token"}``: the seat of the code (a short code: the next free
  seat) is the person's. A taken seat or a full table → 409; nothing changed.
- ``POST /api/games/{id}/invites`` with ``Authorization: Bearer <creator's token>`` →
  new ``invites`` and ``links`` for the open seats; the old codes stop working. Another
  token → 403.
- ``POST /api/my-games`` body ``{"tokens": [...]}`` (at most 50) → ``{"games": [summary +
  "seat"...]}``: the tables these tokens hold a seat at, unfinished first, then the most
  recently updated first (``seat`` null for a creator who does not play). Unknown tokens
  are ignored. There is no list of everybody's games.
- ``GET /api/lobby`` → ``{"tables": [summary...]}``: unfinished tables listed in the
  lobby by their creator that have a free seat.
- ``DELETE /api/games/{id}`` with ``Authorization: Bearer <creator's token>`` →
  ``{"deleted": id}``; no or another token → 403; unknown id → 404.
- ``GET /api/games/{id}/advice`` (``Authorization: Bearer <seat token>``) → bidding help
  for that seat from its own view: ``{"phase", "bidding": {"melds": {"S": n, ...},
  "certain", "estimate", "safe": [low, high], "limit", "lowest"}|null}`` (null outside
  the auction); ``GET /api/games/{id}/review?deal=k&seat=s`` and ``POST /api/review``
  ``{"record": <binokel-game/1>, "seat": s, "deal": k}`` → the review of a finished deal
  (see ``binokel.server.review.review_deal``); 400 when there is no such finished deal
  (``no_finished_deal``, ``bad_review_deal``, ``bad_seat``) or a bad record (its
  ``RecordError``'s code, ``params.at`` the offending entry); advice without a seat
  token of this table → 403 ``advice_token``.
- Every HTTP refusal is ``{"error": "<English text>", "code": <reason code>, "params":
  {...}}`` (``error.<code>`` of the catalogues). A path or query parameter of the wrong
  type (``?deal=abc``) → 400 ``bad_request`` with ``params`` ``{"field": "query.deal",
  "reason": "<the validator's English message>"}``.
- ``GET /api/games/{id}/record`` → the game record (docs/records.md ``binokel-game/1``) as a
  download (``Content-Disposition: attachment``). While a deal is in progress its
  cards are hidden information, so that deal is left out until it is over; the record
  is always replayable. Unknown id → 404 ``{"error": ...}``.

Websocket ``/ws/games/{id}``
============================

Anyone may connect; what they get depends on the first message, which must be
``{"type": "hello", "token": "<seat token>"|null, "version": N|null}`` (within 10 s).
With a token of a seat of this table the connection is that seat's for good (several
tabs may hold the same seat); with ``null`` it is a spectator's. A token that holds no
seat here (forged, of another table, a digest) gets an ``error`` and close code 4403;
a first message that is not a hello gets an ``error`` and close code 1008. An unknown
game id gets one ``error`` message and close code 4404. ``version`` is the last
version the client saw: the missed events come first (see ``events``).
Other close codes: 4408 — the client was too slow to read (more than
``Limits.queue_messages`` messages waited for it): it reconnects with its last version
and catches up; 4429 — too many connections from its address or to this table (after
an ``error`` ``too_many_connections_address`` or ``too_many_connections``); 1007 — a
frame that is not UTF-8; 1009 — a frame over ``Limits.frame_bytes``; 1013 — the games
database is unavailable, try again.
A handshake from a page of another origin, or to a name the server does not answer to,
is refused before it is accepted (HTTP 403; see docs/server.md, "Security").
Every message after the hello acts for the connection's seat only; a message naming
another ``seat`` is refused. Spectators may only ``sync`` and ask for ``events``.

Server → client:

- ``{"type": "state", "version": N, "seat": s|null, "view": SeatView.to_json() of seat s
  (a spectator: a view without ``hand``, ``discard``, ``legal_actions``, ``seat`` null),
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
  "settings": {"language", "deck", "name" (of this seat), "grace", "lobby"},
  "seats": [presence of each seat], "waiting": bool, "ready": [seats], "rematch": id|null}``.
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
- ``{"type": "rematch", "id": new_id}`` — to every connection, once a person asked for a
  rematch: the same people in the same seats (the same tokens), a fresh seed.
- ``{"type": "events", "since": V, "version": N, "events": [{"version", "kind", ...}...],
  "stand_in": seat|null}`` — the table driver's events (``binokel.table.Event.to_json``,
  kinds ``deal hand action soloist tapp melds open_hand trick deal_over game_over``) after
  version ``V`` that the connection's seat (or a spectator) may see: after every change
  (before its ``state``; ``stand_in`` is the person's seat when a bot moved for them), on
  hello with a version at most 500 behind, and on request. ``hand`` is the seat's own
  dealt hand; another seat's discard is an ``action`` with ``"action": null``.
- ``{"type": "presence", "seats": [{"kind": "person"|"open"|"bot", "name", "level",
  "connected", "stand_in"}...], "waiting": bool, "spectators": n, "ready": [seats]}`` —
  who sits where and who is connected, after every change of it.
- ``{"type": "chat", "seat", "name", "at", "text"|"phrase"}`` — a chat line (text is never
  HTML); ``{"type": "chat_log", "lines": [...]}`` — the recent lines, after hello.
- ``{"type": "error", "message": "...", "code": "...", "params": {...}, "version": N}`` —
  to the sender only; nothing changed. ``message`` is the English text; ``code`` and
  ``params`` are the reason (``error.<code>`` of the catalogue): the table driver's own
  codes, unchanged (``not_seats_turn {seat, to_move}``, ``deal_over``, ``game_over``,
  ``deal_not_finished``, ``stale_version {version, current}``, ``must_follow_suit {card,
  suit}``, ``not_legal {action, phase, legal}``...) or the server's (``waiting_for_friends``...).

Client → server:

- ``{"type": "action", "action": "AS", "version": N}`` — record notation, one of
  ``view.legal_actions``: ``"160"``, ``"pass"`` (the open auction lists pass and every
  bid from the lowest allowed up to 500 more), ``"take"``/``"hand_durch"`` (phase
  ``tapp``), a card to discard or play, ``"S"``/``"H"``/``"D"``/``"C"``/``"durch"``/
  ``"open_durch"``/``"bettel"``, ``"surrender"``/``"play"``. ``version`` must be the
  version of the last state seen; a stale version gets an error (the client should
  then send ``sync``).
- ``{"type": "hint"}`` (optional ``"chosen": [cards]``, the cards picked to lay away but
  not sent yet: the hint is the next card after them) — only while the connection's seat
  is to move.
- ``{"type": "sync"}`` — the server resends the state.
- ``{"type": "next_deal"}`` (optional ``"version"``) — this person is ready for the next
  deal once the shown deal is over; it is dealt when every connected person is (or after
  the table's ``next_deal_after`` seconds, if set), so everybody can study the score sheet.
- ``{"type": "rematch"}`` — once the game is over: a new game with the same settings,
  people and seats.
- ``{"type": "chat", "text": "..."}`` or ``{"type": "chat", "phrase": "well_played"}`` —
  people only; at most 200 characters, no control characters, 5 lines in 10 seconds.
- ``{"type": "events", "since": V}`` — the events after version ``V`` (0: all), then every
  change's events (see above). ``V`` above the current version gets an ``error``.

Rules of the road: the server is authoritative; one table per game takes commands one
at a time; every accepted change (an action, a deal) increments ``version`` and is
written to SQLite before any client hears of it. ``version`` is the table driver's
(``binokel.table.Table.version``): the number of steps taken, so a new game's first
state (the first deal dealt) is version 1. Malformed JSON, binary frames,
messages over 16 KiB, more than 20 messages a second (bursts of 60; 100 a second per
address over all its connections), unknown types,
out-of-turn, illegal or stale actions, actions of spectators get an ``error`` to the
sender only and change nothing. A person away on their turn for longer than the
table's ``grace`` gets a stand-in bot of the table's ``stand_in`` level until they
connect again.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from binokel.action import BETTEL, DURCH, GAME_WORDS, HAND_DURCH, OPEN_DURCH
from binokel.ai import LEVELS
from binokel.error import BinokelError
from binokel.i18n import LANGUAGES, render
from binokel.meld import meld_values
from binokel.rules import STANDARD, Rules
from binokel.score import contract_worth
from binokel.server.seat import is_well_formed
from binokel.server.settings import DECKS, DEFAULT_GRACE, MAX_GRACE, ME, OPEN, Settings
from binokel.trick import NO_TRUMP, best_position, card_refusal
from binokel.view import SeatView

MAX_MESSAGE = 16 * 1024
"""Largest client message accepted, in bytes of UTF-8."""
MAX_NAME = 40
NUMBER_WORDS = {2: "two", 3: "three", 5: "five"}
CLIENT_TYPES = ("hello", "action", "hint", "sync", "next_deal", "rematch", "chat", "events")
PHRASES = ("hello", "well_played", "good_luck", "thanks", "oops", "bye")
"""Quick chat phrases; each page shows them in its own language ("Gut gespielt!")."""
MAX_CHAT = 200
"""Characters of one chat line."""


class ProtocolError(BinokelError):
    """Bad input from a client: the reason (code, params) goes back to it, nothing changes."""


NEW_GAME_KEYS = ("rules", "seats", "opponents", "name", "language", "deck", "seed", "grace", "stand_in", "lobby",
                 "next_deal_after")


def parse_settings(body: Any) -> Settings:
    """Check the body of ``POST /api/games``; raise ProtocolError naming the first problem.

    ``seats`` gives every seat: ``"me"`` (at most one), ``"open"`` (a friend) or a bot
    level. The older ``opponents`` (one level per seat after the creator's seat 0) is
    still read, and stored settings without ``seats`` are read that way.

    >>> parse_settings({"rules": "standard(target=1000)", "opponents": ["easy", "hard"]}).seats
    ('me', 'easy', 'hard')
    >>> parse_settings({"rules": "kreuz", "seats": ["me", "hard", "open", "hard"]}).me
    0
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
    seats = _parse_seats(body, rules.players)
    name = parse_name(body.get("name", "You"))
    language = body.get("language", "en")
    if language not in LANGUAGES:
        raise ProtocolError("bad_language", languages=", ".join(LANGUAGES), value=repr(language))
    deck = body.get("deck", "french")
    if deck not in DECKS:
        raise ProtocolError("bad_deck", decks=", ".join(DECKS), value=repr(deck))
    seed = body.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63):
        raise ProtocolError("bad_seed", value=repr(seed))
    grace = _seconds(body, "grace", DEFAULT_GRACE, MAX_GRACE)
    stand_in = body.get("stand_in", "medium")
    if stand_in not in LEVELS:
        raise ProtocolError("bad_level", levels=", ".join(LEVELS), value=repr(stand_in))
    lobby = body.get("lobby", False)
    if not isinstance(lobby, bool):
        raise ProtocolError("bad_lobby", value=repr(lobby))
    next_deal_after = _seconds(body, "next_deal_after", 0.0, MAX_GRACE)
    return Settings(rules, seats, name, language, deck, seed, grace, stand_in, lobby, next_deal_after)


def _parse_seats(body: dict[str, Any], players: int) -> tuple[str, ...]:
    if "seats" in body:
        seats = body["seats"]
        if "opponents" in body:
            raise ProtocolError("seats_or_opponents")
        if not isinstance(seats, list) or len(seats) != players:
            raise ProtocolError("seats_list", count=players, levels=", ".join(LEVELS))
        for kind in seats:
            if kind not in (ME, OPEN, *LEVELS):
                raise ProtocolError("bad_seat_kind", levels=", ".join(LEVELS), value=repr(kind))
        if seats.count(ME) > 1:
            raise ProtocolError("one_me")
        return tuple(seats)
    count = players - 1
    opponents = body.get("opponents", ["medium"] * count)
    if not isinstance(opponents, list) or len(opponents) != count:
        example = ", ".join(['"medium"'] * (count - 1) + ['"hard"'])
        raise ProtocolError("opponents_list", count=NUMBER_WORDS[count], example=example)
    for level in opponents:
        if level not in LEVELS:
            raise ProtocolError("bad_level", levels=", ".join(LEVELS), value=repr(level))
    return (ME, *opponents)


def _seconds(body: dict[str, Any], key: str, default: float, most: float) -> float:
    value = body.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= most:
        raise ProtocolError("bad_seconds", name=key, max=f"{most:g}", value=repr(value))
    return float(value)


def parse_name(name: Any) -> str:
    """A player's name: 1 to 40 characters, spaces squeezed, no control characters.

    >>> parse_name("  Anna   Maria ")
    'Anna Maria'
    """
    if not isinstance(name, str):
        raise ProtocolError("name_not_text", value=repr(name))
    squeezed = " ".join(name.split())
    if not squeezed or len(squeezed) > MAX_NAME:
        raise ProtocolError("name_length", max=MAX_NAME)
    if any(unicodedata.category(c).startswith("C") for c in squeezed):
        raise ProtocolError("name_control")
    return squeezed


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


def parse_message(text: str | bytes | None, most: int = MAX_MESSAGE) -> dict[str, Any]:
    """Read one client message (at most ``most`` bytes of UTF-8, ``Limits.message_bytes``);
    raise ProtocolError if it is not one of the protocol's.

    >>> parse_message('{"type": "action", "action": "AS", "version": 3}')["action"]
    'AS'
    >>> parse_message('{"type": "dance"}')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    binokel.server.protocol.ProtocolError: unknown message type 'dance' (known: hello, action, hint, ...)
    """
    if not isinstance(text, str):
        raise ProtocolError("binary_message")
    if len(text) > most or len(text.encode("utf-8", "surrogatepass")) > most:  # (the first test is quicker)
        raise ProtocolError("message_too_large", max=most)
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
    if kind == "events" and not (_is_version(message.get("since")) and message["since"] >= 0):
        raise ProtocolError("events_needs_since")
    if kind == "next_deal" and "version" in message and not _is_version(message["version"]):
        raise ProtocolError("version_not_number")
    if kind == "hello":
        token = message.get("token")
        if token is not None and not is_well_formed(token):
            raise ProtocolError("bad_token")
        if message.get("version") is not None and not _is_version(message["version"]):
            raise ProtocolError("version_not_number")
    if kind == "chat":
        text, phrase = message.get("text"), message.get("phrase")
        if phrase is not None:
            if phrase not in PHRASES:
                raise ProtocolError("bad_phrase", phrases=", ".join(PHRASES), value=repr(phrase))
        elif not isinstance(text, str) or not text.strip():
            raise ProtocolError("chat_needs_text")
        elif len(text) > MAX_CHAT:
            raise ProtocolError("chat_too_long", max=MAX_CHAT)
        elif any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") for c in text):
            raise ProtocolError("chat_control")
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
    message, params = brief(error)
    return {"type": "error", "message": message, "code": error.code, "params": params, "version": version}


SHOWN = 100
"""Characters of a client's own text that an error repeats back (a 5000-digit "bid" is not echoed)."""


def brief(error: BinokelError) -> tuple[str, dict[str, Any]]:
    """The English text and the params of an error, each text param cut to :data:`SHOWN` characters.

    >>> brief(ProtocolError("unknown_type", value="x" * 500, known="hello"))[0][:40]
    'unknown message type xxxxxxxxxxxxxxxxxxx'
    """
    params = {key: value[:SHOWN] + "…" if isinstance(value, str) and len(value) > SHOWN else value
              for key, value in error.params.items()}
    if params == error.params:
        return error.message, error.params
    return render(f"error.{error.code}", params, "en"), params


CARD_PATTERN = re.compile(r"^[ATKQJ97][SHDC]$")
"""Canonical card text, as it appears in every message (tests look for it)."""
