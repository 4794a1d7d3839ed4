"""HTTP and websocket routes of club tournaments (:mod:`binokel.club`, docs/club.md).

An event is stored as the storage package's game: its log holds one entry per step of the
event (the core's entries: creation, registrations, draws, deals, ...), each with who and
when; the event is rebuilt by replaying it. A step is stored before it is acknowledged
(a killed server loses nothing it said yes to) and announced to the event's watchers.

Three secrets, as for a table: the **organiser's** (given once, at creation; it may do
everything), one per **table and round** (given to the organiser at the draw, for the
table card; its scorekeeper enters and corrects that table's deals while the round is
being played), and the **public link** — the event's id — which reads the standings and
the sheets and nothing else. The store keeps only the secrets' SHA-256 digests. Secrets
travel in ``Authorization: Bearer``, never in a URL.

Routes (bodies and answers JSON, the models of :mod:`binokel.server.schema_club`, in
docs/protocol.schema.json; refusals in the protocol's format, their codes in the
catalogue):

- ``POST /api/club/events`` — the event's settings (docs/club.md); the event's ``id``,
  the ``organiser`` secret and the public ``link``.
- ``GET /api/club/events/{id}`` — everything public: settings, players, rounds with
  their tables and deals, the standings overall and per round.
- ``POST /api/club/events/{id}/entries`` (organiser) — ``register`` (name), ``rename``
  (player, name), ``drop`` / ``return`` (player); the event as above.
- ``POST /api/club/events/{id}/draw`` (organiser) — draws the next round; its tables,
  each with its table secret (shown once: print the table cards now).
- ``POST /api/club/events/{id}/keys`` (organiser) — new table secrets for the round
  being played (a lost card); the old ones stop working.
- ``POST /api/club/events/{id}/deals`` (the table's secret, or the organiser) —
  ``{"round", "table", "deal", "summary"}``: the table's next deal, or a correction of
  an earlier one; the same deal sent again as it was stored is acknowledged and not
  stored twice (a client may retry after a lost answer).
- ``GET /api/club/events/{id}/audit`` (organiser) — the audit log.
- ``GET /api/club/events/{id}/standings.csv``, ``.../deals.csv`` — CSV for a spreadsheet.
- ``GET /api/club/series?ids=a,b,c`` — several events added up (public).
- ``GET /club`` — the page (``web/club/``): ``#/`` a new event, ``#/o/{id}`` the organiser,
  ``#/t/{id}/{round}/{table}`` a table's sheet, ``#/s/{id}`` the projector.
- websocket ``/ws/club/{id}`` — read-only: the public event at once and after each change
  (the projector's live standings).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import secrets
from collections import OrderedDict
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse, Response

from binokel.club import (
    ClubError,
    Event,
    Round,
    Standing,
    Table,
    deals_csv,
    draw,
    series,
    standings,
    standings_csv,
)
from binokel.server.hall import Hall, Refused, read_body
from binokel.server.limits import KeyedBuckets
from binokel.server.schema_club import DEAL, ENTRY, SETTINGS
from binokel.server.seat import digest, is_well_formed, new_token
from binokel.server.storage import Change, GameExists, Seat, StorageUnavailable, VersionConflict, now

log = logging.getLogger("binokel.server.club")

PREFIX = "club-"
"""Event ids start with this, so that no event is ever taken for a game (and back)."""
BODY_BYTES = 16 * 1024
"""The largest request body of the club routes (a deal's summary is some 300 bytes)."""
EVENTS_IN_MEMORY = 500
"""Events held here at once; the least recently used leave (and are replayed when asked for)."""
WATCHERS_PER_EVENT = 200
"""Live-standings connections per event (projectors, phones)."""
WATCHER_QUEUE = 16
"""Updates waiting for one watcher; a watcher that far behind is dropped (it reconnects)."""
SERIES_MOST = 20
"""Events a series adds up at most."""
ANNOUNCE_SECONDS = 0.2
"""The watchers hear of changes at most this often (each time the event as it is then)."""
EVENTS_PER_MINUTE = 10
"""New events per client address."""
STORED_SEATS = [Seat("bot", None, "club event")]
"""The store's seats of an event: the store wants some; an event's people are in its log."""


@dataclass
class Held:
    """An event as this process holds it: the event, the store version of its last entry,
    the digests of its secrets, the lock its changes take one at a time, its watchers."""

    id: str
    event: Event
    version: int
    organiser: str
    keys: dict[tuple[int, int], str] = field(default_factory=dict)  # (round, table) -> digest
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    watchers: set[asyncio.Queue[dict[str, Any] | None]] = field(default_factory=set)
    public: dict[str, Any] | None = None  # the public answer at ``version``, made once
    writing: int | None = None  # the version this process is appending (its own notification is no news)
    announcing: bool = False  # the watchers will be told shortly

    def take(self, entry: dict[str, Any]) -> None:
        """Take a stored entry: the core's (it checks it again) or new table secrets."""
        if entry.get("kind") == "keys":  # the server's own entry: new secrets for a round's tables
            self._set_keys(int(entry["round"]), entry["keys"])
        else:
            self.event = self.event.apply(entry)
            self.public = None
            if entry.get("kind") == "draw":
                self._set_keys(self.event.round_number, entry.get("keys", {}))
        self.version += 1

    def _set_keys(self, round_number: int, keys: dict[str, str]) -> None:
        self.keys = {k: v for k, v in self.keys.items() if k[0] != round_number}
        self.keys.update({(round_number, int(table)): str(key) for table, key in keys.items()})


def _replay(event_id: str, entries: list[Any]) -> Held:
    first = entries[0]
    held = Held(event_id, Event.replay([first]), 1, str(first.get("organiser", "")))
    for entry in entries[1:]:
        held.take(entry)
    return held


class Clubs:
    """The club events of this server process, loaded from the store on first use."""

    def __init__(self, hall: Hall) -> None:
        self.hall = hall
        self.store = hall.store
        self.events: OrderedDict[str, Held] = OrderedDict()
        self._loading = asyncio.Lock()
        self._subscription: Any = None
        self._tasks: set[asyncio.Task[None]] = set()

    def _listen(self) -> None:
        """Hear of the steps other processes store (PostgreSQL with several processes): the
        held event catches up and its watchers are told. Started with the first event held."""
        if self._subscription is not None:
            return
        loop = asyncio.get_running_loop()

        def heard(change: Change) -> None:  # in the store's listening thread
            if change.game_id is None or change.game_id in self.events:
                loop.call_soon_threadsafe(self._heard, change.game_id, change.version)

        self._subscription = self.store.notifier.subscribe(heard)

    def _heard(self, event_id: str | None, version: int | None) -> None:
        """A store change (None: changes may have been missed, look at every held event)."""
        if event_id is None:
            helds = list(self.events.values())
        elif event_id in self.events:
            helds = [self.events[event_id]]
        else:
            return
        for held in helds:
            if version is None or (version > held.version and version != held.writing):
                task = asyncio.get_running_loop().create_task(self._catch_up_and_tell(held))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    async def _catch_up_and_tell(self, held: Held) -> None:
        async with held.lock:
            before = held.version
            with contextlib.suppress(Refused):
                await self.catch_up(held)
            if held.version != before:
                self.announce(held)

    async def _call(self, work: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return await asyncio.to_thread(work, *args, **kwargs)
        except StorageUnavailable as error:
            self.hall.metrics.db_errors.inc()
            self.hall.outage.failed("a club event", error)
            raise Refused(503, "db_unavailable") from None

    async def create(self, settings: Any) -> tuple[Held, str]:
        """A new event from its settings; the held event and the organiser's secret."""
        try:
            event = Event.create(settings, "organiser", now("seconds"))
        except ClubError as problem:
            raise Refused(400, problem.code, **problem.params) from None
        secret = new_token()
        entry = {"kind": "create", "settings": event.settings.to_json(), "by": "organiser", "at": now("seconds"),
                 "organiser": digest(secret)}
        for _ in range(3):
            event_id = PREFIX + new_token()[:16]
            try:
                await self._call(self.store.create, event_id, rules=event.settings.rules.text,
                                 settings={"club": 1, "name": event.settings.name}, seed=0, first_dealer=0,
                                 seats=STORED_SEATS, entries=[entry])
                break
            except GameExists:
                continue
        else:
            raise Refused(503, "db_unavailable")
        held = Held(event_id, event, 1, str(entry["organiser"]))
        self._keep(held)
        return held, secret

    def _keep(self, held: Held) -> None:
        self._listen()
        self.events[held.id] = held
        self.events.move_to_end(held.id)
        while len(self.events) > EVENTS_IN_MEMORY:
            _, gone = self.events.popitem(last=False)
            for queue in gone.watchers:
                _post(queue, None)

    async def get(self, event_id: str) -> Held:
        """A held event, loaded (replayed) from the store if needed; Refused 404 if none."""
        if not isinstance(event_id, str) or not event_id.startswith(PREFIX) or len(event_id) > 64:
            raise Refused(404, "club_no_event")
        held = self.events.get(event_id)
        if held is not None:
            self.events.move_to_end(event_id)
            return held
        async with self._loading:  # one replay per event and process
            held = self.events.get(event_id)
            if held is not None:
                return held
            stored = await self._call(self.store.load, event_id, from_snapshot=False)
            if stored is None or not stored.entries or stored.info.settings.get("club") != 1:
                raise Refused(404, "club_no_event")
            try:
                held = await asyncio.to_thread(_replay, event_id, [e.payload for e in stored.entries])
            except (ClubError, KeyError, TypeError, ValueError, AttributeError):
                log.exception("club event %s cannot be replayed", event_id)
                raise Refused(500, "club_unreadable") from None
            self._keep(held)
            return held

    async def catch_up(self, held: Held) -> None:
        """Take the entries another process stored after ours (under the event's lock)."""
        stored = await self._call(self.store.load, held.id, after=held.version)
        for entry in stored.entries if stored is not None else ():
            if entry.version != held.version + 1:
                break
            held.take(entry.payload)

    async def store_entry(self, held: Held, entry: dict[str, Any]) -> None:
        """Check ``entry`` against the event, store it, then take it (under the event's lock):
        stored before it is acknowledged. Refused (400) if the core refuses it."""
        for _ in range(3):
            if entry.get("kind") != "keys":
                try:
                    held.event.apply(entry)  # the check: nothing is stored that the core refuses
                except ClubError as problem:
                    raise Refused(400, problem.code, **problem.params) from None
            held.writing = held.version + 1
            try:
                await self._call(self.store.append, held.id, held.version, [entry])
            except VersionConflict:  # another process stored a step first: take it, check again
                await self.catch_up(held)
                continue
            finally:
                held.writing = None
            self.hall.outage.ok()
            held.take(entry)
            self.announce(held)
            return
        raise Refused(503, "db_unavailable")

    def announce(self, held: Held) -> None:
        """Tell the event's watchers, at most every :data:`ANNOUNCE_SECONDS`: a busy evening's
        entries reach the projector together, and the public answer is made once for them."""
        if not held.watchers or held.announcing:  # made only for somebody who reads it; once per pause
            return
        held.announcing = True
        asyncio.get_running_loop().call_later(ANNOUNCE_SECONDS, self._tell, held)

    def _tell(self, held: Held) -> None:
        held.announcing = False
        message = {"type": "event", "version": held.version, "event": public_event(held)}
        for queue in list(held.watchers):
            if not _post(queue, message):
                held.watchers.discard(queue)


def _post(queue: asyncio.Queue[dict[str, Any] | None], message: dict[str, Any] | None) -> bool:
    """Queue a message for a watcher; False (and a close) when it is too far behind."""
    try:
        queue.put_nowait(message)
        return True
    except asyncio.QueueFull:
        with contextlib.suppress(asyncio.QueueEmpty):
            queue.get_nowait()
        queue.put_nowait(None)
        return False


# ---------------------------------------------------------------------- answers


def _table_json(event: Event, table: Table, names: dict[int, str]) -> dict[str, Any]:
    """A table's sheet: its players, who deals next, every deal entered and the totals."""
    settings = event.settings
    rules = settings.table_rules(len(table.players))
    entered = len(table.deals)
    return {
        "number": table.number, "players": list(table.players),
        "names": [names[p] for p in table.players], "scorekeeper": table.scorekeeper,
        "first_dealer": table.first_dealer, "rules": rules.text,
        "next_dealer": table.dealer(rules, entered + 1) if entered < settings.deals else None,
        "deals": [{"summary": d.summary, "scores": list(d.scores)} for d in table.deals],
        "totals": [sum(d.scores[seat] for d in table.deals) for seat in range(len(table.players))]}


def _round_json(event: Event, round_: Round) -> dict[str, Any]:
    names = {p.id: p.name for p in event.players}
    return {"number": round_.number, "complete": round_.is_complete(event.settings.deals),
            "tables": [_table_json(event, table, names) for table in round_.tables]}


def _rows(rows: list[Standing]) -> list[dict[str, Any]]:
    return [row.to_json() for row in rows]


def public_event(held: Held) -> dict[str, Any]:
    """Everything the public link shows (no secret, no digest)."""
    if held.public is None:
        event = held.event
        held.public = {
            "id": held.id, "version": held.version, "settings": event.settings.to_json(),
            "players": [{"id": p.id, "name": p.name, "joined": p.joined, "dropped": p.dropped}
                        for p in event.players],
            "round": event.round_number, "over": event.is_over(),
            "rounds": [_round_json(event, r) for r in event.rounds],
            "standings": _rows(standings(event)),
            "round_standings": [_rows(standings(event, only=r.number)) for r in event.rounds]}
    return held.public


def _bearer(request: Request) -> str | None:
    kind, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() if kind.lower() == "bearer" and is_well_formed(token.strip()) else None


def _is_organiser(held: Held, request: Request) -> bool:
    token = _bearer(request)
    return token is not None and hmac.compare_digest(digest(token), held.organiser)


def _organiser(held: Held, request: Request) -> None:
    if not _is_organiser(held, request):
        raise Refused(403, "club_organiser_only")


def _client(request: Request) -> str:
    return request.client.host if request.client else "?"


def _table_secrets(round_number: int, tables: list[dict[str, Any]]) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """New secrets for the tables of a round: their digests (stored) and the cards (shown once)."""
    digests, cards = {}, []
    for table in tables:
        secret = new_token()
        digests[str(table["number"])] = digest(secret)
        cards.append({"round": round_number, "table": table["number"], "secret": secret})
    return digests, cards


def add_club_routes(app: FastAPI, hall: Hall) -> None:
    """The club routes of the module docstring, on ``hall``'s store."""
    clubs = Clubs(hall)
    app.state.clubs = clubs
    _add_event_routes(app, clubs)
    _add_round_routes(app, clubs)
    _add_result_routes(app, clubs)
    _add_watch_route(app, clubs)


def _add_event_routes(app: FastAPI, clubs: Clubs) -> None:
    """The club page, creating an event, reading it and the organiser's entries."""
    creating = KeyedBuckets(EVENTS_PER_MINUTE / 60, EVENTS_PER_MINUTE)

    @app.get("/club", response_model=None)
    async def page() -> Response:
        """The club page (organiser, scorekeeper, projector: web/club/), its views in the fragment."""
        return FileResponse(Path(str(resources.files("binokel").joinpath("web", "club", "index.html"))),
                            media_type="text/html")

    @app.post("/api/club/events")
    async def create_event(request: Request) -> JSONResponse:
        body = SETTINGS.read(await read_body(request, BODY_BYTES))
        if not creating.take(_client(request)):
            raise Refused(429, "club_too_many_events", max=EVENTS_PER_MINUTE)
        held, secret = await clubs.create(body.model_dump())
        return JSONResponse({"id": held.id, "organiser": secret, "event": public_event(held)})

    @app.get("/api/club/events/{event_id}")
    async def get_event(event_id: str) -> JSONResponse:
        return JSONResponse(public_event(await clubs.get(event_id)))

    @app.post("/api/club/events/{event_id}/entries")
    async def add_entry(event_id: str, request: Request) -> JSONResponse:
        held = await clubs.get(event_id)
        _organiser(held, request)
        body = ENTRY.read(await read_body(request, BODY_BYTES))
        entry = {**body.model_dump(exclude_none=True), "by": "organiser", "at": now("seconds")}
        async with held.lock:
            await clubs.store_entry(held, entry)
        return JSONResponse(public_event(held))


def _add_round_routes(app: FastAPI, clubs: Clubs) -> None:
    """Drawing a round, new table secrets, and the deals the tables enter."""

    @app.post("/api/club/events/{event_id}/draw")
    async def draw_round(event_id: str, request: Request) -> JSONResponse:
        held = await clubs.get(event_id)
        _organiser(held, request)
        async with held.lock:
            try:
                entry = draw(held.event, secrets.randbits(63))
            except ClubError as problem:
                raise Refused(400, problem.code, **problem.params) from None
            digests, cards = _table_secrets(entry["round"], entry["tables"])
            await clubs.store_entry(held, {**entry, "by": "organiser", "at": now("seconds"), "keys": digests})
        return JSONResponse({"round": entry["round"], "cards": cards, "event": public_event(held)})

    @app.post("/api/club/events/{event_id}/keys")
    async def new_keys(event_id: str, request: Request) -> JSONResponse:
        held = await clubs.get(event_id)
        _organiser(held, request)
        async with held.lock:
            if not held.event.rounds:
                raise Refused(400, "club_no_round", field="round")
            round_ = held.event.rounds[-1]
            digests, cards = _table_secrets(round_.number, [t.to_json() for t in round_.tables])
            await clubs.store_entry(held, {"kind": "keys", "round": round_.number, "keys": digests, "by": "organiser",
                                           "at": now("seconds")})
        return JSONResponse({"round": round_.number, "cards": cards})

    @app.post("/api/club/events/{event_id}/deals")
    async def enter_deal(event_id: str, request: Request) -> JSONResponse:
        held = await clubs.get(event_id)
        body = DEAL.read(await read_body(request, BODY_BYTES))
        round_number, table_number = body.round, body.table
        async with held.lock:
            if _is_organiser(held, request):
                by = "organiser"
            else:
                token = _bearer(request)
                key = held.keys.get((round_number, table_number))
                if token is None or key is None or not hmac.compare_digest(digest(token), key):
                    raise Refused(403, "club_table_secret")
                if round_number != held.event.round_number:
                    raise Refused(403, "club_round_closed", round=round_number)
                by = f"table {table_number}"
            entry = {"kind": "deal", "round": round_number, "table": table_number, "deal": body.deal,
                     "summary": body.summary, "by": by, "at": now("seconds")}
            stored = not _is_stored(held.event, entry)
            if stored:
                await clubs.store_entry(held, entry)
            version = held.version
        return JSONResponse({"stored": stored, "version": version, "table": _sheet(held, entry)})


def _add_result_routes(app: FastAPI, clubs: Clubs) -> None:
    """The audit, the standings and deals as files, and a series' standings."""

    @app.get("/api/club/events/{event_id}/audit")
    async def audit(event_id: str, request: Request) -> JSONResponse:
        held = await clubs.get(event_id)
        _organiser(held, request)
        return JSONResponse({"audit": [line.to_json() for line in held.event.audit]})

    @app.get("/api/club/events/{event_id}/standings.csv")
    async def standings_file(event_id: str) -> Response:
        held = await clubs.get(event_id)
        return Response(standings_csv(standings(held.event)), media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{event_id}-standings.csv"'})

    @app.get("/api/club/events/{event_id}/deals.csv")
    async def deals_file(event_id: str) -> Response:
        held = await clubs.get(event_id)
        return Response(deals_csv(held.event), media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{event_id}-deals.csv"'})

    @app.get("/api/club/series")
    async def get_series(ids: str = "") -> JSONResponse:
        wanted = [i for i in ids.split(",") if i][: SERIES_MOST + 1]
        if not 1 <= len(wanted) <= SERIES_MOST:
            raise Refused(400, "club_series", max=SERIES_MOST)
        events = [(await clubs.get(i)).event for i in wanted]
        return JSONResponse({"events": [e.settings.name for e in events], "standings": _rows(series(events))})


def _add_watch_route(app: FastAPI, clubs: Clubs) -> None:
    """The projector's and scorekeepers' websocket: the event, then each change of it."""
    watching: dict[str, int] = {}

    @app.websocket("/ws/club/{event_id}")
    async def watch(websocket: WebSocket, event_id: str) -> None:
        await websocket.accept()
        try:
            held = await clubs.get(event_id)
        except Refused as problem:
            with contextlib.suppress(Exception):
                await websocket.send_json({"type": "error", "code": problem.code, "params": problem.params})
                await websocket.close(code=4404 if problem.status == 404 else 1013)
            return
        if watching.get(event_id, 0) >= WATCHERS_PER_EVENT:
            with contextlib.suppress(Exception):
                await websocket.send_json({"type": "error", "code": "club_too_many_watchers",
                                           "params": {"max": WATCHERS_PER_EVENT}})
                await websocket.close(code=4429)
            return
        watching[event_id] = watching.get(event_id, 0) + 1
        try:
            await _relay(websocket, held)
        finally:
            watching[event_id] -= 1
            if watching[event_id] <= 0:
                del watching[event_id]


async def _relay(websocket: WebSocket, held: Held) -> None:
    """Send the event, then each change of it, until the watcher goes (or reads too slowly: 4408)."""
    queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue(WATCHER_QUEUE)
    held.watchers.add(queue)
    queue.put_nowait({"type": "event", "version": held.version, "event": public_event(held)})

    async def drain() -> None:  # a watcher sends nothing; its messages are read and dropped
        while (await websocket.receive())["type"] != "websocket.disconnect":
            pass

    reader = asyncio.create_task(drain())
    try:
        while True:
            getter = asyncio.create_task(queue.get())
            done, _ = await asyncio.wait({getter, reader}, return_when=asyncio.FIRST_COMPLETED)
            if reader in done:
                getter.cancel()
                break
            message = getter.result()
            if message is None:
                with contextlib.suppress(Exception):
                    await websocket.close(code=4408)
                break
            await websocket.send_text(json.dumps(message))
    except (WebSocketDisconnect, RuntimeError, OSError):
        pass
    finally:
        reader.cancel()
        held.watchers.discard(queue)


def _is_stored(event: Event, entry: dict[str, Any]) -> bool:
    """Is this deal stored exactly so already (a retry after a lost answer)?"""
    round_number, table_number, deal, summary = entry["round"], entry["table"], entry["deal"], entry["summary"]
    if not 1 <= round_number <= event.round_number:
        return False
    round_ = event.rounds[round_number - 1]
    if not 1 <= table_number <= len(round_.tables):
        return False
    table = round_.table(table_number)
    if not 1 <= deal <= len(table.deals):
        return False
    stored = table.deals[deal - 1].summary
    if summary.get("dealer", stored["dealer"]) != stored["dealer"]:
        return False
    return bool({**summary, "dealer": stored["dealer"]} == stored)


def _sheet(held: Held, entry: dict[str, Any]) -> dict[str, Any]:
    """The table's sheet after an entry (what the scorekeeper's phone shows)."""
    event = held.event
    table = event.rounds[entry["round"] - 1].table(entry["table"])
    return _table_json(event, table, {p: event.players[p].name for p in table.players})
