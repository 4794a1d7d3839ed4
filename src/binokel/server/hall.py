"""The hall: every table of this server, loaded from the store on first use, and the seats.

A table is rebuilt from its stored game record with :func:`binokel.record.replay_game`
and :meth:`binokel.table.Table.from_game`, so a restarted server continues each game at
the same point and version. The hall hands out seats: the creator's at a new table, a
friend's by an invite code (or from the lobby), and checks tokens.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from binokel.error import BinokelError
from binokel.record import game_record, replay_game
from binokel.server.limits import Limits
from binokel.server.protocol import ProtocolError, Settings, parse_name, parse_settings
from binokel.server.seat import (
    OPEN,
    digest,
    is_well_formed,
    new_link_code,
    new_short_code,
    new_token,
    normal_code,
)
from binokel.server.store import (
    GameRow,
    InviteRow,
    SeatRow,
    SeatTaken,
    Store,
    later,
    now,
)
from binokel.server.table import Table, driver_seats
from binokel.table import Table as Driver

log = logging.getLogger("binokel.server")

INVITE_SECONDS = 7 * 24 * 3600.0
"""How long an invite code is good for (a table for friends may wait a few days)."""


class Refused(ProtocolError):
    """A request the hall refuses: an HTTP status and a reason (code, params); nothing changed."""

    def __init__(self, status: int, code: str, /, **params: Any) -> None:
        super().__init__(code, **params)
        self.status = status


@dataclass(frozen=True)
class Invites:
    """The invite codes of a table in clear: shown once, to its creator."""

    short: str | None  # fills the next free seat; None when no seat is open
    seats: dict[int, str]  # open seat -> its own code

    def to_json(self) -> dict[str, Any]:
        return {"code": self.short, "seats": [{"seat": seat, "code": code} for seat, code in self.seats.items()]}


@dataclass(frozen=True)
class Created:
    """A new table and what its creator gets: their token (and seat), the invites."""

    table: Table
    token: str
    seat: int | None
    invites: Invites


class Hall:
    """The tables of one server process, keyed by game id."""

    def __init__(self, store: Store, *, think: float, budget: float, limits: Limits | None = None) -> None:
        self.store = store
        self.think = think
        self.budget = budget
        self.limits = limits or Limits()
        self.tables: dict[str, Table] = {}

    # ------------------------------------------------------------------ tables

    def create(self, settings: Settings, people: list[SeatRow] | None = None) -> Created:
        """A new table: first dealer by lot, the first deal dealt, all stored before it is announced.

        ``people`` (a rematch) keeps the same people in the same seats; else the creator gets
        a new token for the ``me`` seat (or a host-only token) and every open seat an invite."""
        seed = settings.seed if settings.seed is not None else secrets.randbits(63)
        driver = Driver(settings.rules, driver_seats(settings), seed=seed)
        change = driver.propose_deal()
        game_id = secrets.token_urlsafe(9)
        token = ""
        invites = Invites(None, {})
        if people is None:
            token = new_token()
            me = settings.me
            people = [SeatRow(me if me is not None else -1, settings.name, digest(token), host=True)]
            invites = self._new_invites(settings)
        names = _names(settings, people)
        stamp = now()
        game = change.game
        self.store.insert_table(GameRow(
            id=game_id, created=stamp, updated=stamp, rules=settings.rules.text, settings=settings.to_json(), seed=seed,
            first_dealer=game.first_dealer, version=change.version, record=game_record(game, names),
            totals=list(game.totals), deals=1, over=False), people, self._invite_rows(invites))
        driver.commit(change)
        table = self._table(game_id, settings, driver, people)
        return Created(table, token, settings.me, invites)

    def _new_invites(self, settings: Settings) -> Invites:
        open_seats = [seat for seat, kind in enumerate(settings.seats) if kind == OPEN]
        if not open_seats:
            return Invites(None, {})
        return Invites(new_short_code(), {seat: new_link_code() for seat in open_seats})

    def _invite_rows(self, invites: Invites) -> list[InviteRow]:
        expires = later(INVITE_SECONDS)
        rows = [InviteRow(digest(code), seat, expires) for seat, code in invites.seats.items()]
        if invites.short:
            rows.append(InviteRow(digest(normal_code(invites.short)), None, expires))
        return rows

    def _table(self, game_id: str, settings: Settings, driver: Driver, people: list[SeatRow]) -> Table:
        table = Table(game_id, settings, driver, self.store, people, think=self.think, budget=self.budget,
                      limits=self.limits)
        table.on_rematch = self.rematch
        self.tables[game_id] = table
        return table

    def rematch(self, table: Table) -> Table:
        """A new game with the same settings, people and seats, and a fresh seed."""
        people = [replace(p) for p in (*table.people.values(), *([table.host] if table.host and table.host.seat < 0
                                                                  else []))]
        return self.create(replace(table.settings, seed=None), people).table

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
            driver = Driver.from_game(replay_game(row.record), driver_seats(settings), row.seed)
        except (BinokelError, ProtocolError, ValueError):
            log.exception("stored game %s cannot be replayed", game_id)
            return None
        return self._table(game_id, settings, driver, self.store.seats(game_id))

    def delete(self, game_id: str, token: str | None) -> None:
        """Delete a table: only its creator's token may."""
        table = self.get(game_id)
        if table is None:
            raise Refused(404, "no_game", id=repr(game_id))
        row = table.seat_of(token) if is_well_formed(token) and token else None
        if row is None or not row.host:
            raise Refused(403, "not_host_delete")
        self.tables.pop(game_id, None)
        table.stop()
        for connection in list(table.connections):
            connection.post(table.error(ProtocolError("game_deleted")))
            connection.post(None)
        self.store.delete(game_id)

    # ------------------------------------------------------------------ seats

    def invite(self, code: Any) -> tuple[Table, int | None]:
        """The table and seat (None: the next free one) of an invite code; Refused if wrong or expired."""
        if not is_well_formed(code):
            raise Refused(400, "code_not_text")
        found = self.store.invite(digest(normal_code(code)))
        if found is None:
            raise Refused(404, "bad_code")
        game_id, seat, expires = found
        if datetime.fromisoformat(expires) < datetime.now(UTC):
            raise Refused(410, "code_expired")
        table = self.get(game_id)
        if table is None:
            raise Refused(404, "code_game_gone")
        return table, seat

    def lobby_table(self, game_id: Any) -> Table:
        table = self.get(game_id) if isinstance(game_id, str) and 0 < len(game_id) <= 64 else None
        if table is None or not table.settings.lobby:
            raise Refused(404, "not_in_lobby")
        return table

    async def join(self, table: Table, seat: int | None, name: Any) -> tuple[int, str]:
        """Seat a person at ``seat`` (None: the next free seat); their seat and new token."""
        name = parse_name(name)
        async with table.lock:
            if seat is None:
                free = table.open_seats
                if not free:
                    raise Refused(409, "table_full")
                seat = free[0]
            elif seat in table.people:
                raise Refused(409, "seat_taken", seat=seat)
            token = new_token()
            row = SeatRow(seat, name, digest(token))
            try:
                self.store.take_seat(table.id, row)
            except SeatTaken:
                raise Refused(409, "seat_taken", seat=seat) from None
            table.seat_person(row)
            return seat, token

    def new_invites(self, table: Table, token: Any) -> Invites:
        """Fresh invites for the open seats (the old ones stop working): the creator only."""
        row = table.seat_of(token) if is_well_formed(token) else None
        if row is None or not row.host:
            raise Refused(403, "not_host_invites")
        open_seats = table.open_seats
        invites = Invites(new_short_code(), {seat: new_link_code() for seat in open_seats}) if open_seats \
            else Invites(None, {})
        self.store.replace_invites(table.id, self._invite_rows(invites))
        return invites

    def games_of(self, tokens: Any) -> list[dict[str, Any]]:
        """"Your games": the tables these tokens hold a seat at (unknown tokens are ignored)."""
        if not isinstance(tokens, list) or len(tokens) > self.limits.tokens_per_request:
            raise Refused(400, "tokens_list", max=self.limits.tokens_per_request)
        hashed = [digest(t) for t in tokens if is_well_formed(t)]
        games = []
        for game_id, seat in self.store.games_of(hashed):
            table = self.get(game_id)
            if table is None:
                continue
            games.append({**self.summary(table), "seat": seat if seat >= 0 else None})
        games.sort(key=lambda g: g["updated"] or "", reverse=True)
        games.sort(key=lambda g: g["over"])  # unfinished first, then the most recently played
        return games

    def summary(self, table: Table) -> dict[str, Any]:
        """What a list shows of a table: rules, seats, totals, whose turn."""
        driver = table.driver
        to_move = driver.to_move
        row = self.store.load(table.id)
        return {"id": table.id, "rules": driver.rules.text, "players": table.names,
                "seats": [s.to_json() for s in table.seats()], "totals": list(driver.game.totals),
                "deals": driver.deal_number, "over": driver.is_over(), "waiting": table.waiting,
                "to_move": to_move if to_move is not None and to_move >= 0 else None,
                "updated": row.updated if row else None}

    def lobby(self) -> list[dict[str, Any]]:
        """Public tables with a free seat."""
        listed = []
        for game_id in self.store.lobby():
            table = self.get(game_id)
            if table is not None and table.settings.lobby and table.open_seats:
                listed.append(self.summary(table))
        return listed

    def stop(self) -> None:
        for table in self.tables.values():
            table.stop()


def _names(settings: Settings, people: list[SeatRow]) -> list[str]:
    from binokel.server.protocol import bot_name

    taken = {p.seat: p.name for p in people}
    return [taken.get(seat) or (bot_name(seat) if settings.level(seat) else "") for seat in range(len(settings.seats))]
