"""The hall: every table of this server, loaded from the store on first use.

A table is rebuilt from its stored game record with :func:`binokel.record.replay_game`,
so a restarted server continues each game at the same point and version.
"""

from __future__ import annotations

import logging
import secrets
from typing import Any

from binokel.error import BinokelError
from binokel.game import Game
from binokel.record import game_record, replay_game
from binokel.server.protocol import ProtocolError, Settings, parse_settings, seat_names
from binokel.server.store import GameRow, Store, now
from binokel.server.table import Table

log = logging.getLogger("binokel.server")


class Hall:
    """The tables of one server process, keyed by game id."""

    def __init__(self, store: Store, *, think: float, budget: float) -> None:
        self.store = store
        self.think = think
        self.budget = budget
        self.tables: dict[str, Table] = {}

    def create(self, settings: Settings) -> Table:
        """A new game: first dealer by lot, the first deal dealt, stored before it is announced."""
        seed = settings.seed if settings.seed is not None else secrets.randbits(63)
        rules = settings.rules
        game = Game.seeded(rules, seed).deal_seeded(seed)
        names = seat_names(settings.name, len(settings.opponents))
        game_id = secrets.token_urlsafe(9)
        stamp = now()
        self.store.insert(GameRow(
            id=game_id, created=stamp, updated=stamp, rules=rules.text, settings=settings.to_json(), seed=seed,
            first_dealer=game.current.dealer, version=0, record=game_record(game, names), totals=list(game.totals),
            deals=1, over=False))
        table = Table(game_id, settings, seed, game, 0, self.store, think=self.think, budget=self.budget)
        self.tables[game_id] = table
        return table

    def get(self, game_id: str) -> Table | None:
        """The table of a game, loaded from the store if needed; None if there is no such game."""
        table = self.tables.get(game_id)
        if table is not None:
            return table
        row = self.store.load(game_id)
        if row is None:
            return None
        try:
            settings = parse_settings(row.settings)
            game = replay_game(row.record)
        except (BinokelError, ProtocolError):
            log.exception("stored game %s cannot be replayed", game_id)
            return None
        table = Table(game_id, settings, row.seed, game, row.version, self.store, think=self.think,
                      budget=self.budget)
        self.tables[game_id] = table
        return table

    def delete(self, game_id: str) -> bool:
        table = self.tables.pop(game_id, None)
        if table is not None:
            table.stop()
            for client in list(table.clients):
                client.post(table.error(ProtocolError("game_deleted")))
                client.post(None)
        return self.store.delete(game_id)

    def listing(self) -> list[dict[str, Any]]:
        """The resume list: unfinished games first, most recently played first."""
        return [
            {"id": row["id"], "rules": row["rules"],
             "players": seat_names(row["settings"]["name"], len(row["settings"]["opponents"])),
             "totals": row["totals"], "deals": row["deals"], "updated": row["updated"], "over": row["over"]}
            for row in self.store.summaries()
        ]

    def stop(self) -> None:
        for table in self.tables.values():
            table.stop()
