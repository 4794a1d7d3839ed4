"""The hall: every table of this server process, loaded from the store on first use, and the seats.

A table is rebuilt from its stored log (:mod:`binokel.server.persist`), so a restarted
server — or another process on the same database — continues each game at the same point
and version. The hall hands out seats: the creator's at a new table, a friend's by an
invite code (or from the lobby), and checks tokens. Every call to the store runs in a
thread (``asyncio.to_thread``): the event loop never waits for a disk or a database.

The hall also listens to the store's change notifications (every process hears every
stored step) and hands each to the table it concerns (:meth:`Hall.changed`), and keeps
this process's presence rows fresh (:meth:`Hall.heartbeat`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import secrets
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import binokel.server.persist as persist
from binokel.server.limits import Limits
from binokel.server.metrics import Metrics
from binokel.server.outage import Outage
from binokel.server.pool import Pool
from binokel.server.persist import PROCESS, later
from binokel.server.schema import ProtocolError
from binokel.server.seat import (
    digest,
    is_well_formed,
    new_link_code,
    new_short_code,
    new_token,
    normal_code,
)
import binokel.server.storage.invites as invite_codes
from binokel.server.settings import Seat, Settings
from binokel.server.storage import (
    HOST_SEAT,
    Change,
    Invite,
    Presence,
    StorageUnavailable,
    Store,
    VersionConflict,
    lease,
    presence,
)
from binokel.server.storage import rematch as rematches
from binokel.server.runner import LEASE_SECONDS
from binokel.server.table import Table
from binokel.table import Table as Driver

log = logging.getLogger("binokel.server")

INVITE_SECONDS = 7 * 24 * 3600.0
"""How long an invite code is good for (a table for friends may wait a few days)."""
IO_THREADS = 32
"""Threads for the store's blocking calls (PostgreSQL: at most 8 connections of them at once)."""
LOBBY_SIZE = 100
"""The most tables the lobby lists."""
HEARTBEAT = 5.0
"""Seconds between this process's presence heartbeats (and its reading of the others')."""


class Refused(ProtocolError):
    """A request the hall refuses: an HTTP status and a reason (code, params); nothing changed."""

    def __init__(self, status: int, code: str, /, **params: Any) -> None:
        super().__init__(code, **params)
        self.status = status


async def read_body(request: Any, most: int, *, upload: bool = False) -> Any:
    """A request's body as JSON, for its model to read: Refused 413 above ``most`` bytes,
    400 when it is no JSON at all (an uploaded record: ``review_body``)."""
    raw = await request.body()
    if len(raw) > most:
        raise Refused(413, "body_too_large", max=most)
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        raise Refused(400, "review_body" if upload else "body_not_object") from None


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


def seat_to_rejoin(seats: Sequence[int], to_move: int | None) -> int:
    """Of the seats one person holds at a table (several: two people at one screen, or a
    creator who hosts and sits), the one "your games" offers: a seat played before hosting
    (:data:`HOST_SEAT`), the seat to move first, else the lowest.

    >>> seat_to_rejoin([HOST_SEAT, 2, 1], to_move=None), seat_to_rejoin([HOST_SEAT, 2, 1], to_move=2)
    (1, 2)
    >>> seat_to_rejoin([HOST_SEAT], to_move=0)
    -1
    """
    return min(seats, key=lambda seat: (seat < 0, seat != to_move, seat))


class Hall:
    """The tables of one server process, keyed by game id."""

    def __init__(self, store: Store, *, think: float, budget: float, limits: Limits | None = None,
                 metrics: Metrics | None = None, pool: Pool | None = None) -> None:
        self.store = store
        self.think = think
        self.budget = budget
        self.limits = limits or Limits()
        self.metrics = metrics or Metrics(PROCESS)
        # Every table's bots and hints think in this one pool (started and stopped with the
        # app); a database that refuses writes is one outage for all of them (logged once).
        self.pool = pool or Pool(self.limits.pool, self.limits.pool_workers, self.limits.review_slots)
        self.outage = Outage(self.limits.outage_calm_seconds)
        self.evicted = 0
        self.tables: dict[str, Table] = {}
        self._loading: dict[str, asyncio.Future[Table | None]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._subscription: Any = None
        self._heartbeat: asyncio.Task[None] | None = None
        self._releasing: set[asyncio.Future[None]] = set()

    # ------------------------------------------------------------------ other processes

    async def start(self) -> None:
        """Listen to the store's changes and start the presence heartbeat (at app start)."""
        self._loop = asyncio.get_running_loop()
        await self.pool.start()
        # The store's calls run in the loop's default executor (asyncio.to_thread); its standard
        # size (cores + 4) is too small to ride out a slow disk flush while other tables write.
        self._loop.set_default_executor(ThreadPoolExecutor(max_workers=IO_THREADS, thread_name_prefix="binokel-io"))
        # Only the changes of tables held here: the others' are not even read.
        self._subscription = await asyncio.to_thread(self.store.notifier.subscribe, self._heard, self._wants)
        self._heartbeat = self._loop.create_task(self.heartbeat(), name="presence heartbeat")

    def _wants(self, game_id: str, version: int) -> bool:
        """In the listening thread: is the change news to a table held here? Not if this process
        announced it itself (a step it stored, a notice it sent): hearing it back is no news, so
        it is not read nor handed to the loop."""
        table = self.tables.get(game_id)
        return table is not None and not table.notices.is_own(version)

    def _heard(self, change: Change) -> None:
        """A change notification, in the listening thread: hand it to the loop."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.changed, change.game_id, change.version, change.entries)

    def changed(self, game_id: str | None, version: int | None, entries: tuple[Any, ...] | None = None) -> None:
        """A game changed (None: notifications may have been lost, look at every table);
        ``entries``: the log entries that made ``version``, when the notification carried them."""
        if game_id is None:
            for table in list(self.tables.values()):
                table.heard(None)
            return
        held = self.tables.get(game_id)
        if held is not None:
            held.heard(version, entries)

    async def heartbeat(self) -> None:
        """Keep this process's presence rows and table leases fresh, and read the other
        processes' rows of the tables held here (a killed process's rows go stale, so its
        seats count as away and its leases run out)."""
        while True:
            await asyncio.sleep(HEARTBEAT)
            try:
                await asyncio.to_thread(presence.touch, self.store, PROCESS)
                renewed = time.monotonic()
                await asyncio.to_thread(lease.renew, self.store, PROCESS, LEASE_SECONDS)
                for held in list(self.tables.values()):
                    held.lease.renewed(renewed)
                ids = list(self.tables)
                rows = await asyncio.to_thread(presence.rows, self.store, ids) if ids else []
            except StorageUnavailable:
                self.metrics.db_errors.inc()
                continue
            except Exception:
                log.exception("presence heartbeat failed")
                continue
            self.sweep()
            by_game: dict[str, list[Presence]] = {game_id: [] for game_id in ids}
            for row in rows:  # grouped once: a scan of every row per table grew with the square of the tables
                by_game.setdefault(row.game_id, []).append(row)
            for game_id in ids:
                table = self.tables.get(game_id)
                if table is not None:
                    table.set_elsewhere(by_game[game_id])

    def sweep(self) -> int:
        """Evict the idle tables (:meth:`Table.is_idle` for ``Limits.idle_seconds``) and, beyond
        ``Limits.tables_in_memory``, the idle ones watched least recently; the number evicted.
        An evicted table is reloaded from the store (snapshot and log) when somebody comes."""
        evicted = 0
        for table in list(self.tables.values()):
            if table.is_idle(self.limits.idle_seconds):
                self._evict(table)
                evicted += 1
        over = len(self.tables) - self.limits.tables_in_memory
        if over > 0:
            idle = sorted((t for t in self.tables.values() if t.is_idle(0.0)), key=lambda t: t.watched_at)
            for table in idle[:over]:
                self._evict(table)
                evicted += 1
        return evicted

    def _evict(self, table: Table) -> None:
        self._forget(table)
        table.stop()
        self.evicted += 1
        if table.lease.was_ever_held():  # another process holding it takes its steps now
            release = asyncio.ensure_future(asyncio.to_thread(lease.release, self.store, table.id, PROCESS))
            self._releasing.add(release)
            release.add_done_callback(self._released)

    def _released(self, release: asyncio.Future[None]) -> None:
        self._releasing.discard(release)
        if not release.cancelled() and release.exception() is not None:
            log.debug("a lease was not released (it runs out)", exc_info=release.exception())

    # ------------------------------------------------------------------ tables

    async def create(self, settings: Settings, people: Mapping[int, Seat] | None = None,
                     host: int | None = None) -> Created:
        """A new table: first dealer by lot, the first deal dealt, all stored before it is announced.

        ``people`` and ``host`` (a rematch) keep the same people in the same seats; else the
        creator gets a new token for the ``me`` seat (or a host-only token) and every open
        seat an invite."""
        seed = settings.seed if settings.seed is not None else secrets.randbits(63)
        driver = Driver(settings.rules, settings.driver_seats(), seed=seed)
        change = driver.propose_deal()
        game_id = secrets.token_urlsafe(9)
        token = ""
        invites = Invites(None, {})
        if people is None:
            token = new_token()
            host = settings.me if settings.me is not None else HOST_SEAT
            people = {host: Seat("person", None, settings.name, digest(token))}
            invites = self._new_invites(settings)
        try:
            await asyncio.to_thread(persist.create, self.store, game_id, settings, change, people, host,
                                    self._invite_rows(game_id, invites), seed)
        except StorageUnavailable as error:
            # The game may be stored without its invites (two writes): nobody was told of it;
            # take it away again if the database lets us.
            with contextlib.suppress(StorageUnavailable):
                await asyncio.to_thread(self.store.delete, game_id)
            raise self._unavailable("a new game", error) from None
        self.outage.ok()
        driver.commit(change)
        table = self._table(game_id, settings, driver, people, host)
        self.metrics.actions.inc()
        return Created(table, token, settings.me, invites)

    def _new_invites(self, settings: Settings) -> Invites:
        open_seats = settings.open_seats
        if not open_seats:
            return Invites(None, {})
        return Invites(new_short_code(), {seat: new_link_code() for seat in open_seats})

    def _invite_rows(self, game_id: str, invites: Invites) -> list[Invite]:
        expires = later(INVITE_SECONDS)
        rows = [Invite(digest(code), game_id, seat, expires) for seat, code in invites.seats.items()]
        if invites.short:
            rows.append(Invite(digest(normal_code(invites.short)), game_id, None, expires))
        return rows

    def _table(self, game_id: str, settings: Settings, driver: Driver, people: Mapping[int, Seat], host: int | None,
               *, base: int = 0, updated: str | None = None) -> Table:
        table = Table(game_id, settings, driver, self.store, people, host, think=self.think, budget=self.budget,
                      limits=self.limits, base=base, metrics=self.metrics, updated=updated, pool=self.pool,
                      outage=self.outage)
        table.on_rematch = self.rematch
        table.on_deleted = self._forget
        self.tables[game_id] = table
        if len(self.tables) > self.limits.tables_in_memory:
            self.sweep()  # the cap: the idle tables watched least recently leave (this one is new)
        self.metrics.tables.set(len(self.tables))
        return table

    def _unavailable(self, what: str, error: StorageUnavailable) -> Refused:
        """A write the store refused: counted, logged once per outage, answered 503."""
        self.metrics.db_errors.inc()
        self.outage.failed(what, error)
        return Refused(503, "db_unavailable")

    def _forget(self, table: Table) -> None:
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
            self.metrics.tables.set(len(self.tables))

    async def rematch(self, table: Table) -> str:
        """The id of the game's rematch: a new game with the same settings, people and seats, and
        a fresh seed — unless one was stored first (by another process, or here before a
        restart): then that one, and the game made here is taken away again."""
        stored: str | None = await self._call(rematches.of, self.store, table.id)
        if stored is not None:
            return stored
        people = {**table.people, **({HOST_SEAT: table.host_only} if table.host_only else {})}
        made = (await self.create(replace(table.settings, seed=None), people, table.host)).table
        try:
            settled: str = await asyncio.to_thread(rematches.settle, self.store, table.id, made.id)
        except StorageUnavailable as error:
            await self._take_away(made)
            raise self._unavailable(f"the rematch of game {table.id}", error) from None
        if settled == made.id:  # the other processes holding the table re-read it and tell theirs
            with contextlib.suppress(StorageUnavailable):
                await asyncio.to_thread(self.store.notify, table.id, table.stored_version)
        else:
            await self._take_away(made)  # another process's rematch came first
        return settled

    async def _take_away(self, table: Table) -> None:
        """Delete a table nobody was told of (if the database lets us) and let it go."""
        with contextlib.suppress(StorageUnavailable):
            await asyncio.to_thread(self.store.delete, table.id)
        table.close_deleted()

    async def get(self, game_id: str) -> Table | None:
        """The table of a game, loaded from the store if needed; None if there is no such game.
        Refused (503) while the store is unavailable."""
        table = self.tables.get(game_id)
        if table is not None:
            return table
        loading = self._loading.get(game_id)
        if loading is not None:  # another request is loading it: one table per game and process
            return await asyncio.shield(loading)
        future: asyncio.Future[Table | None] = asyncio.get_running_loop().create_future()
        self._loading[game_id] = future
        try:
            loaded = await asyncio.to_thread(persist.load, self.store, game_id)
            table = None if loaded is None else self._table(
                game_id, loaded.settings, loaded.driver, loaded.people, loaded.host, base=loaded.base,
                updated=loaded.info.updated)
            if table is not None:
                if table.driver.is_over():  # its rematch may have been made before it was loaded here
                    table.rematch_id = await asyncio.to_thread(rematches.of, self.store, game_id)
                rows = await asyncio.to_thread(presence.rows, self.store, [game_id])
                table.set_elsewhere(rows)
                table.chat.heard(await asyncio.to_thread(table.chat.recent))
                table.heard(None)  # a step stored while it was loading was announced to nobody here
            future.set_result(table)
            return table
        except StorageUnavailable:
            self.metrics.db_errors.inc()
            future.set_result(None)
            raise Refused(503, "db_unavailable") from None
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: the waiters (if any) get it
            raise
        finally:
            del self._loading[game_id]

    async def delete(self, game_id: str, token: str | None) -> None:
        """Delete a table: only its creator's token may."""
        table = await self.get(game_id)
        if table is None:
            raise Refused(404, "no_game", id=repr(game_id))
        if not (is_well_formed(token) and token and table.is_host(table.seat_of(token))):
            raise Refused(403, "not_host_delete")
        try:
            await asyncio.to_thread(self.store.delete, game_id)
        except StorageUnavailable as error:
            raise self._unavailable(f"the deletion of game {game_id}", error) from None
        self.outage.ok()
        table.close_deleted()  # told only once it is gone for good
        try:
            await asyncio.to_thread(self.store.notify, game_id, 0)  # other processes re-read it and find it gone
        except StorageUnavailable:
            self.metrics.db_errors.inc()  # deleted all the same; the others find out when they next read it

    # ------------------------------------------------------------------ seats

    async def _call(self, work: Any, *args: Any) -> Any:
        """A store call in a thread; Refused (503) while the store is unavailable."""
        try:
            return await asyncio.to_thread(work, *args)
        except StorageUnavailable:
            self.metrics.db_errors.inc()
            raise Refused(503, "db_unavailable") from None

    async def invite(self, code: Any) -> tuple[Table, int | None]:
        """The table and seat (None: the next free one) of an invite code; Refused if wrong or expired."""
        if not is_well_formed(code):
            raise Refused(400, "code_not_text")
        found = await self._call(invite_codes.find, self.store, digest(normal_code(code)))
        if found is None:
            raise Refused(404, "bad_code")
        game_id, seat, expires = found.game_id, found.seat, found.expires
        if datetime.fromisoformat(expires) < datetime.now(UTC):
            raise Refused(410, "code_expired")
        table = await self.get(game_id)
        if table is None:
            raise Refused(404, "code_game_gone")
        return table, seat

    async def lobby_table(self, game_id: Any) -> Table:
        table = await self.get(game_id) if isinstance(game_id, str) and 0 < len(game_id) <= 64 else None
        if table is None or not table.settings.lobby:
            raise Refused(404, "not_in_lobby")
        return table

    async def join(self, table: Table, seat: int | None, name: str) -> tuple[int, str]:
        """Seat a person (``name`` as :class:`binokel.server.schema.Join` checked it) at ``seat``
        (None: the next free seat); their seat and new token."""
        async with table.lock:
            if seat is None:
                free = table.open_seats
                if not free:
                    raise Refused(409, "table_full")
                seat = free[0]
            elif seat in table.people:
                raise Refused(409, "seat_taken", seat=seat)
            token = new_token()
            person = Seat("person", None, name, digest(token))
            # A metadata change with the version check: a step stored or a friend seated at
            # another process meanwhile makes it fail; then catch up and look again.
            for _ in range(3):
                seats = table.settings.seat_plan({**table.people, seat: person})
                try:
                    await asyncio.to_thread(self.store.append, table.id, table.stored_version, [], seats=seats)
                    break
                except VersionConflict:
                    await table.replication.adopt_missed()  # under the table's lock
                    await table.refresh()
                    if seat in table.people:
                        raise Refused(409, "seat_taken", seat=seat) from None
                except StorageUnavailable as error:
                    raise self._unavailable(f"a seat at game {table.id}", error) from None
            else:
                raise Refused(503, "db_unavailable")
            self.outage.ok()
            table.seat_person(seat, person)
            return seat, token

    async def new_invites(self, table: Table, token: Any) -> Invites:
        """Fresh invites for the open seats (the old ones stop working): the creator only."""
        if not (is_well_formed(token) and table.is_host(table.seat_of(token))):
            raise Refused(403, "not_host_invites")
        open_seats = table.open_seats
        invites = Invites(new_short_code(), {seat: new_link_code() for seat in open_seats}) if open_seats \
            else Invites(None, {})
        await self._call(invite_codes.set_invites, self.store, table.id, self._invite_rows(table.id, invites))
        return invites

    async def games_of(self, tokens: Any) -> list[dict[str, Any]]:
        """"Your games": each table these tokens hold a seat at, once, with the seat to come
        back to and the token of it (unknown tokens are ignored)."""
        if not isinstance(tokens, list) or len(tokens) > self.limits.tokens_per_request:
            raise Refused(400, "tokens_list", max=self.limits.tokens_per_request)
        token_of = {digest(t): t for t in tokens if is_well_formed(t)}
        held: dict[str, list[int]] = {}  # one person may hold several seats of a table
        for game_id, seat in await self._call(self.store.held, list(token_of)):
            held.setdefault(game_id, []).append(seat)
        games = []
        for game_id, seats in held.items():
            table = await self.get(game_id)
            if table is None:
                continue
            seat = seat_to_rejoin(seats, table.driver.to_move)
            holder = table.host_only if seat == HOST_SEAT else table.people.get(seat)
            token = token_of.get(holder.token_hash or "") if holder is not None else None
            if token is not None:
                games.append({**self.summary(table), "seat": seat if seat >= 0 else None, "token": token,
                              "host": table.is_host(seat)})
        games.sort(key=lambda g: g["updated"] or "", reverse=True)
        games.sort(key=lambda g: g["over"])  # unfinished first, then the most recently played
        return games

    def summary(self, table: Table) -> dict[str, Any]:
        """What a list shows of a table: rules, seats, totals, whose turn."""
        driver = table.driver
        to_move = driver.to_move
        return {"id": table.id, "rules": driver.rules.text, "players": table.names,
                "seats": [s.to_json() for s in table.seats()], "totals": list(driver.game.totals),
                "deals": driver.deal_number, "over": driver.is_over(), "waiting": table.waiting,
                "to_move": to_move if to_move is not None and to_move >= 0 else None,
                "updated": table.updated}

    async def lobby(self) -> list[dict[str, Any]]:
        """Public tables with a free seat (the most recently active :data:`LOBBY_SIZE`)."""
        listed = []
        for info in await self._call(functools.partial(self.store.games, lobby=True, limit=LOBBY_SIZE)):
            table = await self.get(info.id)
            if table is not None and table.settings.lobby and table.open_seats:
                listed.append(self.summary(table))
        return listed

    def stop(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.cancel()
        if self._subscription is not None:
            self._subscription.close()
        for table in self.tables.values():
            table.stop()

    async def shutdown(self) -> None:
        """Stop the tables, give their leases up (the other processes take them over at once),
        then the pool (its worker processes end or are terminated)."""
        self.stop()
        with contextlib.suppress(Exception):  # else they run out
            await asyncio.to_thread(lease.release, self.store, None, PROCESS)
        await self.pool.stop()
