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
from binokel.view import view

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
    # Seen from a seat that is not the soloist: nothing derived from the discard comes with it.
    seat = deal.sitting_out if deal.sitting_out is not None else 1 if deal.soloist == 0 else 0
    seen = {**view(deal, seat).to_json(omit), **PRIVATE_FIELDS, "seat": None}
    return {name: value for name, value in seen.items() if name not in omit} if omit else seen


def view_json(table: Table, audience: int | None, omit: Collection[str] = ()) -> dict[str, Any]:
    """The audience's view of the shown deal as JSON (a spectator's without private fields),
    without the fields ``omit``."""
    return table.view(audience).to_json(omit) if audience is not None else spectator_view(table.shown_deal, omit)


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


def changed_fields(table: Table, events: Sequence[Event], audience: int | None) -> frozenset[str] | None:
    """The view fields the table's last step changed for ``audience`` (None: all of them, a deal)."""
    step = table.history[-1]
    if not isinstance(step, Acted) or any(e.kind is EventKind.DEAL for e in events):
        return None
    kept = set(DEAL_FIELDS | OWN_FIELDS)
    for fields in EVENT_FIELDS.values():
        kept |= fields
    if audience is not None and (step.seat == audience or _takes_tapp(table, events, audience)):
        kept -= OWN_FIELDS
    for event in events:
        kept -= EVENT_FIELDS.get(event.kind, frozenset())
    return frozenset(kept)


def _takes_tapp(table: Table, events: Sequence[Event], seat: int) -> bool:
    """Did the auction end with ``seat`` the soloist (its hand gains the Tapp, its discard starts)?"""
    return table.shown_deal.soloist == seat and any(e.kind in (EventKind.SOLOIST, EventKind.TAPP) for e in events)


def update_for(table: Table, events: Sequence[Event], audience: int | None,
               stand_in: int | None = None) -> Update:
    """What ``audience`` receives for the table's last step, whose ``events`` are given."""
    kept = changed_fields(table, events, audience)
    shown = view_json(table, audience, kept or ())  # the unchanged fields are not even built
    appended: dict[str, list[Any]] = {}
    won = sum(1 for e in events if e.kind is EventKind.TRICK)
    if kept is not None and won:  # the tricks won are added to the list the audience holds
        appended["tricks"] = shown.pop("tricks")[-won:]
    game = game_facts(table)
    if any(e.kind is EventKind.DEAL_OVER for e in events):
        game["history"] = [score_line(result) for result in table.results]
    told = tuple(e for e in events if e.visibility.allows(audience))
    return Update(table.version, audience, told, shown, appended, game, table.next_step(), stand_in)


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
           "game_facts", "next_json", "score_line", "spectator_view", "update_for", "view_json"]
