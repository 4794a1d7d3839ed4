"""What a table's audiences are sent (each seat, and the spectators as one): the ``state``
snapshot for a connection that says hello or asks to ``sync``, the ``update`` after a step,
the ``events`` a client missed and the ``presence`` of the seats — each from that seat's
view only (spectators: the public fields of a view), the part every seat shares built
once per version and presence."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from binokel.server.protocol import contract_facts, facts_read_hand, public_facts, rule_changes, seat_facts
from binokel.server.wire import UpdateText
from binokel.table import Event
from binokel.update import News, news_of, next_json, score_line, spectator_json, spectator_own, update_for

if TYPE_CHECKING:
    from binokel.server.table import Table


class Messages:
    """Builds one table's messages for each audience (a seat; None: the spectators)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self._changes = rule_changes(table.driver.rules)  # the rule set's changes from the standard: fixed
        self._contracts = contract_facts(table.driver.rules)  # the games without trump offered: fixed
        self._game_cache: tuple[Any, dict[str, Any]] | None = None
        self._history_cache: list[dict[str, Any]] = []
        self._news: News | None = None  # what the last step tells every audience alike
        self._text: UpdateText | None = None  # the last step's update, its shared parts encoded
        self._game_told: tuple[News, list[int], dict[str, Any]] | None = None  # the update's game facts
        self._public_facts: tuple[dict[str, Any], dict[str, Any]] | None = None  # by the public fields they are of

    def state(self, seat: int | None) -> dict[str, Any]:
        """The ``state`` snapshot for ``seat`` (None: a spectator), from that seat's view only.
        The part every seat shares (the ``game``) is built once per version and presence."""
        table = self.table
        driver = table.driver
        public = driver.public_json()
        shown = driver.view(seat).to_json(public=public) if seat is not None else spectator_json(public)
        shared = self._game_part()
        return {
            "type": "state",
            "version": driver.version,
            "seat": seat,
            "view": shown,
            "game": {**shared, "settings": {**shared["settings"],
                                            "name": table.name(seat) if seat is not None else ""}},
            "last_trick": shown["tricks"][-1] if shown["tricks"] else None,
            "next": next_json(driver.next_step()),
            **self.facts(seat, contracts=True),
        }

    def update(self, audience: int | None, events: Sequence[Event], stand_in: int | None) -> dict[str, Any]:
        """The ``update`` of the last step for ``audience`` (a seat; None: the spectators):
        applied to that audience's previous snapshot it gives :meth:`state` now."""
        driver = self.table.driver
        update = update_for(driver, events, audience, stand_in, self._news_of(events))
        return update.to_json(extra=self.facts(audience), game={"ready": sorted(self.table.attendance.all_ready())})

    def update_text(self, audience: int | None, events: Sequence[Event], stand_in: int | None) -> str:
        """:meth:`update` as its JSON text, the parts every audience shares encoded once a step
        (:class:`~binokel.server.wire.UpdateText`)."""
        driver = self.table.driver
        news = self._news_of(events)
        game = self._game_of(news)
        facts = self.facts(audience)
        writer = self._text
        if writer is None or not writer.fits(news, game, stand_in):
            writer = self._text = UpdateText(news, driver.public_json(), game, stand_in, tuple(facts))
        if audience is None:
            own = spectator_own(driver.public_json())
            return writer.text(audience, lambda omit: own, facts)
        return writer.text(audience, partial(driver.own_json, audience), facts)

    def _game_of(self, news: News) -> dict[str, Any]:
        """The game facts of the step's update: the step's, and the next-deal clicks (one dict
        for every audience while the clicks are the same)."""
        ready = sorted(self.table.attendance.all_ready())
        told = self._game_told
        if told is None or told[0] is not news or told[1] != ready:
            told = self._game_told = (news, ready, {**news.game, "ready": ready})
        return told[2]

    def _news_of(self, events: Sequence[Event]) -> News:
        """What the last step tells every audience alike, made once per step."""
        driver = self.table.driver
        if self._news is None or self._news.version != driver.version:
            self._news = news_of(driver, events)
        return self._news

    def facts(self, seat: int | None, contracts: bool = False) -> dict[str, Any]:
        """What the page shows that the rules decide, for ``seat`` (None: a spectator):
        :func:`~binokel.server.protocol.rule_facts`, its fixed ``contracts`` only if asked (a state)."""
        driver = self.table.driver
        public = driver.public_json()
        if seat is not None and facts_read_hand(public, seat):
            facts = seat_facts(driver.view(seat), driver.rules)
        else:  # a spectator's, or a seat's that its hand does not change (no view made): one a version
            if self._public_facts is None or self._public_facts[0] is not public:
                self._public_facts = (public, public_facts(public["bid"], driver.rules))
            facts = self._public_facts[1]
        return {"refusals": facts["refusals"], "contracts": self._contracts, **facts} if contracts else facts

    def events(self, seat: int | None, events: Sequence[Event], since: int) -> dict[str, Any]:
        """The events ``seat`` may see (already filtered), after version ``since``: what a
        client missed (several steps: no one stand-in to name)."""
        return {"type": "events", "since": since, "version": self.table.driver.version,
                "events": [e.to_json() for e in events if e.visibility.allows(seat)], "stand_in": None}

    def presence(self) -> dict[str, Any]:
        """Who sits where and is connected, who is still to come, the spectators here, the next-deal clicks."""
        table = self.table
        return {"type": "presence", "seats": [s.to_json() for s in table.seats()], "waiting": table.waiting,
                "spectators": sum(1 for c in table.connections if c.seat is None),
                "ready": sorted(table.attendance.all_ready())}

    def _game_part(self) -> dict[str, Any]:
        """The ``game`` of a state message (without the seat's own name), cached: it changes
        with the version, the seats' presence, the next-deal clicks and a rematch."""
        table = self.table
        seats = [s.to_json() for s in table.seats()]
        ready = sorted(table.attendance.all_ready())
        key = (table.driver.version, repr(seats), tuple(ready), table.rematch_id)
        if self._game_cache is not None and self._game_cache[0] == key:
            return self._game_cache[1]
        driver = table.driver
        game = driver.game
        rules = game.rules
        results = driver.results
        while len(self._history_cache) < len(results):  # a finished deal's line never changes
            self._history_cache.append(score_line(results[len(self._history_cache)]))
        settings = table.settings
        part = {
            "players": table.names,
            "levels": [settings.level(s) for s in range(driver.players)],
            "seats": seats,
            "waiting": table.waiting,
            "totals": list(game.totals),
            "deal_number": driver.deal_number,
            "rules": rules.text,
            "changes": self._changes,
            "teams": [rules.team_of(s) for s in range(rules.players)] if rules.has_teams else None,
            "durch_games": list(game.durch_games) if rules.durch_game else None,
            "target": rules.target,
            "over": game.is_over(),
            "winner": game.winner,
            "history": list(self._history_cache[:len(results)]),
            "settings": {"language": settings.language, "deck": settings.deck, "name": "",
                         "grace": settings.grace, "lobby": settings.lobby},
            "ready": ready,
            "rematch": table.rematch_id,
        }
        self._game_cache = (key, part)
        return part
