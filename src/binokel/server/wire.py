"""A step's ``update`` as text for each audience, the parts they share encoded once.

Each audience of a table (a seat, the spectators) is sent its own ``update`` of a step
(:func:`binokel.update.update_for`), yet most of it is the same for all of them: the view's
public fields, the game facts, what happens next, the trick won. :class:`UpdateText`
encodes those once per step and puts each audience's own parts between them (its view's
:data:`~binokel.view.SEAT_FIELDS`, the events it may see, its rule facts). The text is
exactly ``json.dumps`` of the audience's message (:meth:`binokel.update.Update.to_json`):
the same keys in the same order, the same separators (``tests/test_server_updates.py``
compares the two for whole games, and ``bench/told.py`` every message of its games).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from json.encoder import encode_basestring_ascii
from typing import Any

from binokel.update import News, next_json
from binokel.view import FIELDS, SEAT_FIELDS

_encode = json.JSONEncoder(check_circular=False).encode
"""``json.dumps`` with its defaults, without its guard against circular containers (a message
is a fresh tree; the guard is a dict update for every list and dict encoded)."""


class UpdateText:
    """One step's ``update`` for every audience as text. ``public``: the public fields of the
    step's views (:meth:`binokel.table.Table.public_json`); ``game``: the game facts every
    audience is told (the step's and the server's); ``stand_in``: the seat a bot moved for."""

    def __init__(self, news: News, public: Mapping[str, Any], game: Mapping[str, Any],
                 stand_in: int | None) -> None:
        self.news = news
        self.game = game
        self.stand_in = stand_in
        appended = news.kept is not None and news.won > 0  # the tricks won are appended, not sent whole
        omit = (news.kept or frozenset()) - SEAT_FIELDS | ({"tricks"} if appended else frozenset())
        self._view = _view_pieces(public, omit)  # every own field: which of them an audience is told differs
        self._head = _encode({"type": "update", "version": news.version, "since": news.version - 1,
                                 "stand_in": stand_in})[:-1]
        shared = _inside({"game": game, "next": next_json(news.next)})
        tail = ""
        if appended:
            tail = _inside({"last_trick": public["tricks"][-1]})
        elif "tricks" not in omit:
            tail = _inside({"last_trick": public["tricks"][-1] if public["tricks"] else None})
        self._model_end = (", " + shared, (", " + tail if tail else "") + "}")
        self._end = (", " + _inside({"append": {"view": {"tricks": public["tricks"][-news.won:]}}})
                     if appended else "") + "}"
        self._events: dict[tuple[int, ...], str] = {}  # by the events told: most audiences see the same
        self._facts: list[tuple[Mapping[str, Any], str]] = []  # often the same for several audiences

    def fits(self, news: News, game: Mapping[str, Any], stand_in: int | None) -> bool:
        """Is this the text of ``news`` told with these game facts and stand-in?"""
        return news is self.news and stand_in == self.stand_in and game == self.game

    def text(self, audience: int | None, own: Callable[[frozenset[str]], Mapping[str, Any]],
             facts: Mapping[str, Any]) -> str:
        """``audience``'s update: ``own(omit)`` its own view fields but those in ``omit``,
        ``facts`` its rule facts (what :meth:`Update.to_json` takes as ``extra``)."""
        omit = self.news.kept_for(audience) or frozenset()
        fields = own(omit)
        view = ", ".join(piece if isinstance(piece, str) else piece[0] + _value_text(fields[piece[1]])
                         for piece in self._view if isinstance(piece, str) or piece[1] not in omit)
        told = tuple(e for e in self.news.events if e.visibility.allows(audience))
        key = tuple(map(id, told))
        events = self._events.get(key)
        if events is None:
            events = self._events[key] = _encode([e.to_json() for e in told])
        shared, end = self._model_end
        return "".join((self._head, ', "events": ', events, ', "model": {"view": {', view, "}", shared, ", ",
                        self._facts_text(facts), end, self._end))

    def _facts_text(self, facts: Mapping[str, Any]) -> str:
        text = next((text for known, text in self._facts if known == facts), None)
        if text is None:
            text = _inside(facts)
            self._facts.append((facts, text))
        return text


def _view_pieces(public: Mapping[str, Any], omit: frozenset[str]) -> list[str | tuple[str, str]]:
    """The view's pairs in the order of :data:`FIELDS`, but the public ones in ``omit``: the
    public ones as text (consecutive ones in one piece), each own one as its key's text and its name."""
    pieces: list[str | tuple[str, str]] = []
    run: dict[str, Any] = {}
    for name in FIELDS:
        if name in omit:
            continue
        if name in SEAT_FIELDS:
            if run:
                pieces.append(_inside(run))
                run = {}
            pieces.append((_encode(name) + ": ", name))
        else:
            run[name] = public[name]
    if run:
        pieces.append(_inside(run))
    return pieces


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

