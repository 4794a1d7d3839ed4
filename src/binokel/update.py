"""What one audience (a seat, or the spectators) receives for one step of a table.

A step of the driver (:class:`binokel.table.Table`) is told to each audience once, as an
:class:`Update`: the step's events that audience may see, and the facts its page shows
that the step changed — the view fields, the game's totals and score sheet, and what
happens next. Which view fields a step changes is read from the step itself (its kind and
its events), never by comparing views: a deal changes them all; any action changes the
turn, the auction, the trick and the results; only the seat's own action changes its
hand and discard (and the end of the auction the soloist's); the Tapp, the melds and
the finished tricks change with their events.

Applying an update to the audience's last snapshot is a shallow merge (its ``model``:
top-level fields, then the fields of ``view`` and of ``game``), which gives exactly the
snapshot of the new version (``tests/test_update.py`` checks it for a whole game, every
seat and a spectator, through the page's own reducer).

>>> from binokel.table import PERSON, Table
>>> table = Table("standard", [PERSON] * 3, seed=4, first_dealer=0)
>>> events = table.deal()
>>> sorted(update_for(table, events, 0).view)[:4]
['auction', 'bid', 'callers', 'card_points']
>>> mover = table.to_move
>>> later = update_for(table, table.act(mover, "150"), mover)
>>> "hand" in later.view, "hand" in update_for(table, table.events[-1:], (mover + 1) % 3).view
(True, False)
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from binokel.state import State
from binokel.table import Acted, Ask, Deal, Event, EventKind, Next, Table, Think
from binokel.view import merge_json, view

DEAL_FIELDS = frozenset({"rules", "seat", "players", "dealer", "tapp_size", "sitting_out", "order", "rank_points"})
"""View fields that stay the same through a deal: sent with the deal only."""
OWN_FIELDS = frozenset({"hand", "discard", "discard_points"})
"""View fields only the seat's own action changes (a spectator's stay empty)."""
EVENT_FIELDS: Mapping[EventKind, frozenset[str]] = {
    EventKind.TAPP: frozenset({"tapp", "tapp_points"}),
    EventKind.MELDS: frozenset({"melds"}),
    EventKind.TRICK: frozenset({"tricks"}),
}
"""View fields that change only with an event of their kind."""
ALL_EVENT_FIELDS = frozenset().union(*EVENT_FIELDS.values())
PRIVATE_FIELDS: Mapping[str, Any] = {"hand": [], "discard": None, "legal_actions": []}
"""What a spectator's view leaves out of a seat's view (everything else in a view is public)."""


def spectator_view(deal: State, omit: Collection[str] = ()) -> dict[str, Any]:
    """What a spectator sees of a deal: a seat's view without its private fields (hand,
    discard, legal actions); every other field of a view is the same for every seat.

    >>> import random
    >>> deal = State.new("standard", dealer=0).deal_random(random.Random(1))
    >>> seen = spectator_view(deal)
    >>> seen["seat"], seen["hand"], seen["hand_sizes"]
    (None, [], [15, 15, 15])
    """
    return spectator_json(view(deal, 0).public_json(), omit)


def spectator_json(public: Mapping[str, Any], omit: Collection[str] = ()) -> dict[str, Any]:
    """:func:`spectator_view` from the public fields of any seat's view of the deal
    (:meth:`SeatView.public_json`): the own fields are those of a seat that is not the
    soloist, nothing derived from the discard."""
    return merge_json(public, spectator_own(public), omit)


def spectator_own(public: Mapping[str, Any]) -> dict[str, Any]:
    """A spectator's :data:`~binokel.view.SEAT_FIELDS`, from the public fields of any seat's view of the deal."""
    return {**PRIVATE_FIELDS, "seat": None, "card_points": list(public["trick_points"]), "discard_points": None}


def view_json(table: Table, audience: int | None, omit: Collection[str] = ()) -> dict[str, Any]:
    """The audience's view of the shown deal as JSON (a spectator's without private fields),
    without the fields ``omit``; the public fields are the driver's, made once per version."""
    public = table.public_json()
    return table.view(audience).to_json(omit, public) if audience is not None else spectator_json(public, omit)


def next_json(step: Next) -> dict[str, Any]:
    """What happens next, as the page and the terminal read it (``{"step": ...}``).

    >>> next_json(Think(2, "hard")), next_json(Deal())
    ({'step': 'think', 'seat': 2, 'level': 'hard', 'stand_in': False}, {'step': 'deal'})
    """
    if isinstance(step, Ask):
        return {"step": "ask", "seat": step.seat}
    if isinstance(step, Think):
        return {"step": "think", "seat": step.seat, "level": step.level, "stand_in": step.stand_in}
    if isinstance(step, Deal):
        return {"step": "deal"}
    return {"step": "over", "winner": step.winner}


def score_line(result: Event) -> dict[str, Any]:
    """One line of the score sheet, from a finished deal's public ``DEAL_OVER`` event (no cards)."""
    data = result.data
    return {"dealer": data["dealer"], "soloist": data["soloist"], "bid": data["bid"], "game": data["game"],
            "outcome": data["outcome"], "scores": data["scores"], "melds": data["meld_points"],
            "card_points": data["card_points"]}


def game_facts(table: Table) -> dict[str, Any]:
    """The game's facts a step may change: totals, the end, the deal's number."""
    game = table.game
    return {"totals": list(game.totals), "over": game.is_over(), "winner": game.winner,
            "deal_number": table.deal_number,
            "durch_games": list(game.durch_games) if table.rules.durch_game else None}


@dataclass(frozen=True)
class Update:
    """What ``audience`` (a seat; None: the spectators) receives for the step that made ``version``."""

    version: int
    audience: int | None
    events: tuple[Event, ...]
    view: Mapping[str, Any]  # the view fields the step changed, as JSON
    appended: Mapping[str, list[Any]]  # view lists the step lengthened: their new items (the trick won)
    game: Mapping[str, Any]  # the game facts, and the score sheet when a deal ended
    next: Next
    stand_in: int | None = None  # the person's seat a bot moved for

    @property
    def last_trick(self) -> Any:
        """The last completed trick if the step changed it (a deal, a trick won), else False."""
        if "tricks" in self.appended:
            return self.appended["tricks"][-1]
        if "tricks" in self.view:
            return self.view["tricks"][-1] if self.view["tricks"] else None
        return False

    def to_json(self, extra: Mapping[str, Any] | None = None, game: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The ``update`` message; ``extra``: further top-level facts (the server's rule facts),
        ``game``: further game facts (the server's presence of next-deal clicks)."""
        model: dict[str, Any] = {"view": dict(self.view), "game": {**self.game, **(game or {})},
                                 "next": next_json(self.next), **(extra or {})}
        if (last := self.last_trick) is not False:
            model["last_trick"] = last
        message = {"type": "update", "version": self.version, "since": self.version - 1, "stand_in": self.stand_in,
                   "events": [e.to_json() for e in self.events], "model": model}
        if self.appended:
            message["append"] = {"view": dict(self.appended)}
        return message


@dataclass(frozen=True)
class News:
    """What the table's last step tells every audience alike, made once for all of them (:func:`news_of`)."""

    version: int
    events: tuple[Event, ...]  # all of them; each audience is told those it may see
    kept: frozenset[str] | None  # the view fields the step did not change (None: a deal, it changed all)
    concerned: frozenset[int]  # the seats whose own fields it changed too (the mover; the soloist taking the Tapp)
    won: int  # the tricks it completed
    game: Mapping[str, Any]  # the game facts, and the score sheet when a deal ended
    next: Next

    def kept_for(self, audience: int | None) -> frozenset[str] | None:
        """The view fields the step did not change for ``audience`` (None: it changed all)."""
        if self.kept is None or audience not in self.concerned:
            return self.kept
        return self.kept - OWN_FIELDS


def news_of(table: Table, events: Sequence[Event]) -> News:
    """What the table's last step, whose ``events`` are given, tells every audience alike."""
    step = table.last_step
    kept: frozenset[str] | None = None
    concerned: set[int] = set()
    if isinstance(step, Acted) and not any(e.kind is EventKind.DEAL for e in events):
        unchanged = set(DEAL_FIELDS | OWN_FIELDS | ALL_EVENT_FIELDS)
        for event in events:
            unchanged -= EVENT_FIELDS.get(event.kind, frozenset())
        kept = frozenset(unchanged)
        concerned.add(step.seat)
        soloist = table.shown_deal.soloist
        if soloist is not None and any(e.kind in (EventKind.SOLOIST, EventKind.TAPP) for e in events):
            concerned.add(soloist)  # the auction ended: its hand gains the Tapp, its discard starts
    game = game_facts(table)
    if any(e.kind is EventKind.DEAL_OVER for e in events):
        game["history"] = [score_line(result) for result in table.results]
    return News(table.version, tuple(events), kept, frozenset(concerned),
                sum(1 for e in events if e.kind is EventKind.TRICK), game, table.next_step())


def changed_fields(table: Table, events: Sequence[Event], audience: int | None) -> frozenset[str] | None:
    """The view fields the table's last step changed for ``audience`` (None: all of them, a deal)."""
    return news_of(table, events).kept_for(audience)


def update_for(table: Table, events: Sequence[Event], audience: int | None,
               stand_in: int | None = None, news: News | None = None) -> Update:
    """What ``audience`` receives for the table's last step, whose ``events`` are given
    (``news``: :func:`news_of` them, made once for every audience)."""
    news = news if news is not None else news_of(table, events)
    kept = news.kept_for(audience)
    shown = view_json(table, audience, kept or ())  # the unchanged fields are not even built
    appended: dict[str, list[Any]] = {}
    if kept is not None and news.won:  # the tricks won are added to the list the audience holds
        appended["tricks"] = shown.pop("tricks")[-news.won:]
    told = tuple(e for e in news.events if e.visibility.allows(audience))
    return Update(news.version, audience, told, shown, appended, news.game, news.next, stand_in)


def apply_update(model: Mapping[str, Any], message: Mapping[str, Any]) -> dict[str, Any]:
    """The model (the last snapshot, brought up to date) after one message of the channel:
    a ``state`` is the model itself; an ``update`` merges its ``model`` (top-level fields,
    then those of ``view`` and ``game``) and lengthens the view's lists by its ``append``
    (the tricks won); ``presence`` and ``rematch`` set their game fields.
    The page's twin is ``applyUpdate`` in ``web/js/model.js``.

    >>> apply_update({"version": 1, "view": {"phase": "auction", "hand": ["AS"]}, "game": {"over": False}},
    ...              {"type": "update", "version": 2, "model": {"view": {"phase": "play"}}})["view"]
    {'phase': 'play', 'hand': ['AS']}
    """
    kind = message.get("type")
    if kind == "state":
        return dict(message)
    if kind == "update":
        changed = dict(message.get("model") or {})
        view_part, game_part = changed.pop("view", None) or {}, changed.pop("game", None) or {}
        seen = {**model.get("view", {}), **view_part}
        for name, items in ((message.get("append") or {}).get("view") or {}).items():
            seen[name] = [*seen.get(name, []), *items]
        return {**model, **changed, "version": message["version"], "view": seen,
                "game": {**model.get("game", {}), **game_part}}
    if kind == "presence":
        return {**model, "game": {**model.get("game", {}), "seats": message["seats"], "waiting": message["waiting"],
                                  "ready": message["ready"]}}
    if kind == "rematch":
        return {**model, "game": {**model.get("game", {}), "rematch": message["id"]}}
    return dict(model)


__all__ = ["DEAL_FIELDS", "EVENT_FIELDS", "OWN_FIELDS", "PRIVATE_FIELDS", "Update", "apply_update", "changed_fields",
           "game_facts", "News", "news_of", "next_json", "score_line", "spectator_json", "spectator_own",
           "spectator_view", "update_for", "view_json"]
