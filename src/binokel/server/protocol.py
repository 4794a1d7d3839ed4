"""The protocol of ``binokel serve``: reading what clients send, and what the server
says besides the game (errors, the rules' facts for the page).

The messages and bodies themselves are typed models in :mod:`binokel.server.schema`;
their JSON Schema is ``docs/protocol.schema.json`` (``binokel schema`` writes it) and
docs/server.md ("Protocol") explains when each message is sent. In short: a websocket
``/ws/games/{id}`` per game; the first client message is ``hello`` (a seat token, or null
to watch), answered by a ``state`` snapshot of that seat's view; every accepted change
increments ``version``, is stored before any client hears of it, and reaches each
audience (a seat, or the spectators) as one ``update`` (:mod:`binokel.update`: the step's
events and the facts it changed, which the client merges into its snapshot); a client
that missed one asks to ``sync`` and gets a fresh ``state``. A refused message gets an
``error`` (English text, a catalogue ``code`` and its ``params``) to the sender only, and
changes nothing. Every HTTP refusal is ``{"error", "code", "params"}``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from binokel.action import BETTEL, DURCH, GAME_WORDS, HAND_DURCH, OPEN_DURCH
from binokel.error import BinokelError
from binokel.i18n import render
from binokel.meld import meld_values
from binokel.rules import STANDARD, Rules
from binokel.score import contract_worth
from binokel.server.schema import CLIENT, NEW_GAME, ClientMessage, ProtocolError
from binokel.server.settings import Settings
from binokel.trick import NO_TRUMP, best_position, card_refusal
from binokel.view import SeatView

MAX_MESSAGE = 16 * 1024
"""Largest client message accepted, in bytes of UTF-8."""


def parse_settings(body: Any) -> Settings:
    """Check the body of ``POST /api/games`` (:class:`binokel.server.schema.NewGame`);
    ProtocolError naming the first problem.

    >>> parse_settings({"rules": "standard(target=1000)", "opponents": ["easy", "hard"]}).seats
    ('me', 'easy', 'hard')
    >>> parse_settings({"rules": "kreuz", "seats": ["me", "hard", "open", "hard"]}).me
    0
    >>> parse_settings({"deck": "tarot"})
    Traceback (most recent call last):
    ...
    binokel.server.schema.ProtocolError: deck must be one of french, german, not 'tarot'
    """
    new = NEW_GAME.read(body)
    return Settings(new.rules, new.plan(), new.name, new.language, new.deck, new.seed, new.grace, new.stand_in,
                    new.lobby, new.next_deal_after)


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
    message; an ``update`` carries all but ``contracts``, which never change in a game):
    the page holds no rules.

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
    facts = seat_facts(seen, rules)
    return {"refusals": facts["refusals"], "contracts": contract_facts(rules), **facts}


def contract_facts(rules: Rules) -> dict[str, Any]:
    """The ``contracts`` of :func:`rule_facts`: each game without trump the rules offer (fixed for a game).

    >>> contract_facts(Rules.parse("standard"))
    {'durch': {'value': 1000, 'whole_game': False}}
    """
    offered = {DURCH: rules.durch, OPEN_DURCH: rules.open_durch, BETTEL: rules.bettel, HAND_DURCH: rules.hand_durch}
    contracts = {}
    for game, value in offered.items():
        if value:
            worth = contract_worth(rules, game)
            contracts[GAME_WORDS[game]] = {"value": worth, "whole_game": worth is None}
    return contracts


def seat_facts(seen: SeatView, rules: Rules) -> dict[str, Any]:
    """:func:`rule_facts` without the ``contracts`` (what an ``update`` carries): the
    ``refusals``, ``surrender`` and ``meld_options`` for the seat of ``seen``."""
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
    surrender = surrender_facts(seen.bid, rules)
    melds = None
    if seen.soloist == seen.seat and seen.phase in ("game", "surrender"):
        melds = {suit.letter: points for suit, points in meld_values(seen.hand, rules).items()}
    return {"refusals": refusals, "surrender": surrender, "meld_options": melds}


def facts_read_hand(public: Mapping[str, Any], seat: int) -> bool:
    """Do the :func:`seat_facts` of ``seat`` read its hand (the refusals while it is to play
    to a trick, the meld options while it is the soloist naming the game or surrendering)?
    ``public``: the public fields of a view (:meth:`SeatView.public_json`). If not, they
    are :func:`public_facts`.

    >>> import random
    >>> from binokel.state import State
    >>> from binokel.view import view
    >>> state = State.new("standard", dealer=2).deal_random(random.Random(1))
    >>> facts_read_hand(view(state, 0).public_json(), 0), seat_facts(view(state, 0), state.rules)
    (False, {'refusals': {}, 'surrender': None, 'meld_options': None})
    """
    phase = public["phase"]
    return ((phase == "play" and public["to_move"] == seat and bool(public["trick"]["cards"]))
            or (phase in ("game", "surrender") and public["soloist"] == seat))


def public_facts(bid: int | None, rules: Rules) -> dict[str, Any]:
    """The :func:`seat_facts` of a seat whose facts do not read its hand (:func:`facts_read_hand`),
    and a spectator's: no refusals, no meld options."""
    return {"refusals": {}, "surrender": surrender_facts(bid, rules), "meld_options": None}


def surrender_facts(bid: int | None, rules: Rules) -> dict[str, int] | None:
    """The ``surrender`` of :func:`rule_facts`: what surrendering at ``bid`` costs and credits (None: no bid yet)."""
    return None if bid is None else {"cost": bid, "credit": rules.surrender_points(bid)}


def parse_message(text: str | bytes | None, most: int = MAX_MESSAGE, **known: Any) -> ClientMessage:
    """Read one client message (at most ``most`` bytes of UTF-8, ``Limits.message_bytes``)
    into its model (:data:`binokel.server.schema.CLIENT`); ProtocolError if it is not one
    of the protocol's. ``known``: params the caller knows (``seat``, the connection's).

    >>> parse_message('{"type": "action", "action": "AS", "version": 3}').action
    'AS'
    >>> parse_message('{"type": "dance"}')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    binokel.server.schema.ProtocolError: unknown message type 'dance' (known: hello, action, hint, ...)
    """
    if not isinstance(text, str):
        raise ProtocolError("binary_message")
    if len(text) > most or len(text.encode("utf-8", "surrogatepass")) > most:  # (the first test is quicker)
        raise ProtocolError("message_too_large", max=most)
    try:
        message = _read_json(text)
    except (json.JSONDecodeError, NotJson) as error:  # where and what: the reader's own words
        raise ProtocolError("malformed_json", reason=str(error)) from None
    except RecursionError:  # not the interpreter's words ("maximum recursion depth exceeded ...")
        raise ProtocolError("malformed_json", reason="nested too deeply") from None
    except ValueError:  # nor its hint for a number of 4,300 digits ("use sys.set_int_max_str_digits()")
        raise ProtocolError("malformed_json", reason="a number with too many digits") from None
    return CLIENT.read(message, **known)


class NotJson(ValueError):
    """A constant JSON does not have (``NaN``, ``Infinity``), which Python's reader takes."""


def _no_constant(name: str) -> float:
    raise NotJson(f"{name} is not JSON")


_decoder = json.JSONDecoder(parse_constant=_no_constant)
"""One reader for every message (``json.loads`` with an argument makes a reader a call)."""


def _read_json(text: str) -> Any:
    """``json.loads(text, parse_constant=_no_constant)``, its refusal of a BOM too."""
    if text.startswith("\ufeff"):
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    return _decoder.decode(text)


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
