"""A step's ``update`` as text for each audience, the parts they share encoded once.

Each audience of a table (a seat, the spectators) is sent its own ``update`` of a step
(:func:`binokel.update.update_for`), yet most of it is the same for all of them: the view's
public fields, the game facts, what happens next, the trick won. :class:`UpdateText`
encodes the message once per step and puts each audience's own parts in it (its view's
:data:`~binokel.view.SEAT_FIELDS`, the events it may see, its rule facts). The text is
exactly ``json.dumps`` of the audience's message (:meth:`binokel.update.Update.to_json`):
the same keys in the same order, the same separators (``tests/test_server_wire.py``
compares the two for whole games, and ``bench/told.py`` every message of its games).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from json.encoder import encode_basestring_ascii
from typing import Any

from binokel.update import OWN_FIELDS, News, next_json
from binokel.view import FIELDS, SEAT_FIELDS

_encode = json.JSONEncoder(check_circular=False).encode
"""``json.dumps`` with its defaults, without its guard against circular containers (a message
is a fresh tree; the guard is a dict update for every list and dict encoded)."""


class UpdateText:
    """One step's ``update`` for every audience as text. ``public``: the public fields of the
    step's views (:meth:`binokel.table.Table.public_json`); ``game``: the game facts every
    audience is told (the step's and the server's); ``stand_in``: the seat a bot moved for;
    ``fact_names``: the keys of an audience's rule facts, in their order.

    The message is encoded once, as a skeleton with a mark in each place that differs between
    audiences (an own view field, the events, the rule facts), and cut at the marks; an
    audience's text is the pieces with its own parts between them."""

    def __init__(self, news: News, public: Mapping[str, Any], game: Mapping[str, Any], stand_in: int | None,
                 fact_names: Sequence[str]) -> None:
        self.news = news
        self.game = game
        self.stand_in = stand_in
        self.fact_names = tuple(fact_names)
        appended = news.kept is not None and news.won > 0  # the tricks won are appended, not sent whole
        # Fields no audience is told; of a seat's own fields, some audiences are told only OWN_FIELDS.
        omit = (news.kept or frozenset()) - OWN_FIELDS | ({"tricks"} if appended else frozenset())
        self._pieces, self._slots = _cut(lambda mark: _skeleton(news, public, game, stand_in, self.fact_names,
                                                                omit, appended, mark))
        self._events: dict[tuple[int, ...], str] = {}  # by the events told: most audiences see the same
        self._facts: list[tuple[Mapping[str, Any], str]] = []  # often the same for several audiences

    def fits(self, news: News, game: Mapping[str, Any], stand_in: int | None) -> bool:
        """Is this the text of ``news`` told with these game facts and stand-in?"""
        return news is self.news and stand_in == self.stand_in and (game is self.game or game == self.game)

    def text(self, audience: int | None, own: Callable[[frozenset[str]], Mapping[str, Any]],
             facts: Mapping[str, Any]) -> str:
        """``audience``'s update: ``own(omit)`` its own view fields but those in ``omit``,
        ``facts`` its rule facts (what :meth:`Update.to_json` takes as ``extra``)."""
        omit = self.news.kept_for(audience) or frozenset()
        fields = own(omit)
        pieces = self._pieces
        parts = [pieces[0]]
        for name, piece in zip(self._slots, pieces[1:]):
            if name is _EVENTS:
                parts.append(self._events_text(audience))
            elif name is _FACTS:
                parts.append(self._facts_text(facts))
            elif name in omit:  # its key goes too: the piece before ends with ', "name": '
                parts[-1] = parts[-1][:-len(name) - 6]
            else:
                parts.append(_value_text(fields[name]))
            parts.append(piece)
        return "".join(parts)

    def _events_text(self, audience: int | None) -> str:
        told = tuple(e for e in self.news.events if e.visibility.allows(audience))
        key = tuple(map(id, told))
        text = self._events.get(key)
        if text is None:
            text = self._events[key] = _encode([e.to_json() for e in told])
        return text

    def _facts_text(self, facts: Mapping[str, Any]) -> str:
        """The facts' pairs without the first key (the skeleton holds it)."""
        text = next((text for known, text in self._facts if known is facts or known == facts), None)
        if text is None:
            if tuple(facts) != self.fact_names:
                raise ValueError(f"rule facts {tuple(facts)}, not {self.fact_names}")
            text = _inside(facts)[len(_encode(self.fact_names[0])) + 2:]
            self._facts.append((facts, text))
        return text


_EVENTS = "\x00events"
_FACTS = "\x00facts"
"""The skeleton's slots that are not an own view field (no field is named so)."""


def _skeleton(news: News, public: Mapping[str, Any], game: Mapping[str, Any], stand_in: int | None,
              fact_names: tuple[str, ...], omit: frozenset[str], appended: bool,
              mark: str) -> tuple[dict[str, Any], list[str]]:
    """The message of every audience with ``mark`` in the places that differ, and those places
    (a view field's name, or _EVENTS, _FACTS), in order. An own field is never the view's first:
    a deal's view starts with the rules, an action's with the phase."""
    slots = [_EVENTS]
    view: dict[str, Any] = {}
    for name in FIELDS:
        if name in omit:
            continue
        if name in SEAT_FIELDS:
            view[name] = mark
            slots.append(name)
        else:
            view[name] = public[name]
    model: dict[str, Any] = {"view": view, "game": game, "next": next_json(news.next), fact_names[0]: mark}
    slots.append(_FACTS)
    if appended:
        model["last_trick"] = public["tricks"][-1]
    elif "tricks" not in omit:
        model["last_trick"] = public["tricks"][-1] if public["tricks"] else None
    message = {"type": "update", "version": news.version, "since": news.version - 1, "stand_in": stand_in,
               "events": mark, "model": model}
    if appended:
        message["append"] = {"view": {"tricks": public["tricks"][-news.won:]}}
    return message, slots


def _cut(skeleton: Callable[[str], tuple[dict[str, Any], list[str]]]) -> tuple[list[str], list[str]]:
    """The skeleton's text cut at its marks, and its slots. A mark is a text no other string of
    the message is (an encoded string equal to it is the only way its encoding appears)."""
    for tries in range(1, 100):
        mark = "\x00" * tries
        message, slots = skeleton(mark)
        pieces = _encode(message).split(_encode(mark))
        if len(pieces) == len(slots) + 1:
            return pieces, slots
    raise ValueError("no mark found for the update's skeleton")


def _inside(data: Mapping[str, Any]) -> str:
    """``json.dumps(data)`` without its braces: its ``"key": value`` pairs."""
    return _encode(data)[1:-1]


def _value_text(value: Any) -> str:
    """``json.dumps(value)``, quicker for what a seat's own fields hold: None, an int, a list
    of ints or of texts (anything else is encoded as ever)."""
    if value is None:
        return "null"
    kind = type(value)
    if kind is int:  # (not bool, not an IntEnum: json writes an int as int.__repr__ writes it)
        return str(value)
    if kind is list:
        if not value:
            return "[]"
        if all(type(item) is str for item in value):
            return "[" + ", ".join(map(encode_basestring_ascii, value)) + "]"
        if all(type(item) is int for item in value):
            return "[" + ", ".join(map(str, value)) + "]"
    return _encode(value)

