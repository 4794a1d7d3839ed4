"""The web application: HTTP routes, the websocket endpoint and the static page.

``create_app(db, think=..., budget=...)`` builds a FastAPI app around one
:class:`~binokel.server.hall.Hall` on the games database ``db`` (a SQLite path, a
``postgresql://`` URL, or None for ``BINOKEL_DB`` / the default file); the protocol is
documented in :mod:`binokel.server.protocol`. ``GET /healthz`` and ``GET /metrics``
(Prometheus) tell how the process is doing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
)
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from binokel import i18n
from binokel.error import BinokelError
from binokel.i18n import LANGUAGES
from binokel.record import game_record
from binokel.rules import DESCRIPTIONS, OPTIONS, RULE_SETS, Rules
from binokel.ai import LEVELS
from binokel.server.beat import Beat
from binokel.server.hall import Hall, Invites, Refused, read_body
from binokel.server.guard import Guard, Names, Policy, origin_of
from binokel.server.limits import Limits, Quotas, address_key
from binokel.server.logs import quiet_client_errors
from binokel.server.metrics import CONTENT_TYPE, Metrics
from binokel.server.persist import PROCESS
from binokel.server.protocol import brief, error_message, parse_message, parse_settings, rule_changes
from binokel.server.schema import (
    INVITE,
    JOIN,
    MY_GAMES,
    PHRASES,
    Action,
    Chat,
    EventsRequest,
    Hello,
    HintRequest,
    NextDeal,
    ProtocolError,
    RematchRequest,
    Ping,
    Sync,
    parse_rules,
)
from binokel.server.storage import StorageUnavailable, Store, open_store
from binokel.server.pool import PoolClosed
from binokel.server.review_routes import add_review_routes
from binokel.server.seat import SHORT_LENGTH
from binokel.server.settings import DECKS, OPEN, OPPONENT_NAMES, bot_name
from binokel.server.club import add_club_routes
from binokel.server.pad import add_pad_routes
import binokel.server.delivery as delivery
from binokel.server.delivery import add_delivery, web_dir
from binokel.server.channel import Connection
from binokel.server.table import Table
from binokel.server.transport import write_now_of

log = logging.getLogger("binokel.server")

PONG = '{"type": "pong"}'
"""The answer to a page's heartbeat (encoded once)."""
PING = '{"type":"ping"}'
"""The heartbeat of a page that does not ask for the server's beat (an older page), as it
sends it (``JSON.stringify``): answered without parsing, since such a page sends one about
every 0.6 s while quiet (docs/server.md "The heartbeat's cost"). A page that asks for the
beat (``hello`` with ``beat``) sends none: server/beat.py tells its quiet line instead."""
UNKNOWN_GAME_CLOSE = 4404
"""Websocket close code for an unknown game id."""
FORBIDDEN_CLOSE = 4403
"""Websocket close code for a token that holds no seat at the table."""
POLICY_CLOSE = 1008
"""Websocket close code for a connection that did not start with hello."""
UNAVAILABLE_CLOSE = 1013
"""Websocket close code (try again later) while the games database is unavailable."""
TOO_SLOW_CLOSE = 4408
"""Websocket close code for a client too slow to read its messages (it reconnects and catches up)."""
TOO_MANY_CLOSE = 4429
"""Websocket close code for a connection over a cap (per table, per address)."""
CLOSE_SECONDS = 30.0
"""How long the close frame of a dropped client may wait to be written: it goes after what
its full buffers hold (the client sees it once it reads them); a client that never reads
again has its socket closed after this long."""
JSON_BODY: dict[str, Any] = {"requestBody": {"required": True, "content": {
    "application/json": {"schema": {"type": "object", "additionalProperties": True}}}}}
"""The OpenAPI description of a route's JSON body (the routes read it themselves)."""


def meta() -> dict[str, Any]:
    """Everything the new-game form offers (``GET /api/meta``)."""
    return {
        "rule_sets": [{"name": name, "about": DESCRIPTIONS.get(name, ""), **rules_facts(rules)}
                      for name, rules in RULE_SETS.items()],
        "options": [{"name": name, "standard": standard, "meaning": option.help,
                     "choices": list(option.choices) if option.choices else None,
                     "minimum": option.minimum, "maximum": option.maximum, "step": option.step}
                    for name, (standard, option) in OPTIONS.items()],
        "levels": list(LEVELS),
        "languages": list(LANGUAGES),
        "decks": list(DECKS),
        "opponent_names": list(OPPONENT_NAMES),
        "seat_kinds": ["me", "open", *LEVELS],
        "phrases": list(PHRASES),
    }


def rules_answer(text: str) -> dict[str, Any]:
    """``GET /api/rules``: the rules read as a new game would read them; ProtocolError if refused."""
    return rules_facts(parse_rules(text))


def rules_facts(rules: Rules) -> dict[str, Any]:
    """What the new-game form shows of a rule text: the canonical text, the changes from
    standard, and per seat its team and the name a computer player there gets (so that the
    page works out neither partnerships nor names)."""
    seats = range(rules.players)
    return {"text": rules.text, "players": rules.players, "changes": rule_changes(rules),
            "teams": [rules.team_of(seat) for seat in seats], "bot_names": [bot_name(seat) for seat in seats]}


def public_record(table: Table) -> dict[str, Any]:
    """The game record without the deal in progress (its cards are still hidden)."""
    game = table.game
    record = game_record(game, table.names)
    if not game.is_over() and not game.needs_deal():
        record["deals"] = record["deals"][:-1]
    return record


def error(status: int, problem: BinokelError) -> JSONResponse:
    """An HTTP refusal: the English text, and the reason code and params for the page."""
    message, params = brief(problem)
    return JSONResponse({"error": message, "code": problem.code, "params": params}, status_code=status)


def bearer(request: Request) -> str | None:
    """The seat token of a state-changing request: ``Authorization: Bearer <token>``."""
    header = request.headers.get("authorization", "")
    kind, _, token = header.partition(" ")
    return token.strip() if kind.lower() == "bearer" and token.strip() else None


LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
WILDCARD_HOSTS = ("0.0.0.0", "::", "")


def lan_address() -> str:
    """This machine's address on its network (no packet is sent: a UDP socket only picks a route)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: only the choice of interface matters
            return str(probe.getsockname()[0])
        except OSError:
            return socket.gethostname()


@dataclass(frozen=True)
class Site:
    """What every route group shares: the hall, its limits and quotas, and where the server
    is reached (``host``, ``public_url``) and by whom its inner numbers (``public_metrics``);
    the beat of the connections that asked for it."""

    hall: Hall
    limits: Limits
    quotas: Quotas
    host: str
    public_url: str | None
    public_metrics: bool
    beat: Beat = field(default_factory=Beat)

    @property
    def is_local_only(self) -> bool:
        return self.host in LOCAL_HOSTS and self.public_url is None

    def base_url(self, request: Request) -> str:
        """Where friends reach the server: --public-url, else the address the page was opened
        at (on a server open to the network, with this machine's address for "localhost")."""
        if self.public_url:
            return self.public_url.rstrip("/") + "/"
        url = request.base_url
        if self.host in WILDCARD_HOSTS and url.hostname in LOCAL_HOSTS:
            url = url.replace(hostname=lan_address())
        return str(url).rstrip("/") + "/"

    def links(self, request: Request, invites: Invites, game_id: str) -> dict[str, Any]:
        base = self.base_url(request)
        return {"next_seat": f"{base}#/join/{invites.short}" if invites.short else None,
                "seats": [{"seat": seat, "url": f"{base}#/join/{code}"} for seat, code in invites.seats.items()],
                "watch": f"{base}#/watch/{game_id}"}

    def is_from_here(self, request: Request) -> bool:
        """Is the request from this computer itself (not forwarded by a proxy here)? Or are
        the process's inner numbers public anyway (``public_metrics``)?"""
        if self.public_metrics:
            return True
        forwarded = "x-forwarded-for" in request.headers or "forwarded" in request.headers
        return client_of(request) in ("127.0.0.1", "::1") and not forwarded

    async def json_body(self, request: Request) -> Any:
        return await read_body(request, self.limits.message_bytes)

    async def invite(self, code: Any) -> tuple[Table, int | None]:
        """An invite code's table and seat. Wrong codes from everybody together spend one
        budget (``Limits.failed_codes_per_minute``): past it a short code is not looked up
        (``too_many_guesses``), so rotating addresses do not speed up guessing; long link
        codes (144 bits, unguessable) are looked up regardless."""
        short = isinstance(code, str) and len("".join(code.split()).replace("-", "")) == SHORT_LENGTH
        if short and not self.quotas.failed_codes.ready():
            raise Refused(429, "too_many_guesses", max=self.limits.failed_codes_per_minute)
        try:
            return await self.hall.invite(code)
        except Refused as problem:
            if problem.code == "bad_code":
                self.quotas.failed_codes.take()
            raise

    async def helped(self, request: Request, key: str, work: Any) -> Any:
        """A review or advice: under the per-address and per-table quotas, in the bounded,
        fair pool (after bot moves and hints, ``Limits.review_slots`` at once), answered
        within ``Limits.review_seconds`` or refused."""
        if not self.quotas.reviews.take(client_of(request)) or not self.quotas.table_reviews.take(key):
            raise Refused(429, "too_many_reviews", max=self.limits.reviews_per_minute)
        try:
            return await asyncio.wait_for(self.hall.pool.run(key, work), self.limits.review_seconds)
        except (TimeoutError, PoolClosed):
            raise Refused(503, "reviews_busy") from None


def client_of(request: Request) -> str:
    return request.client.host if request.client else "?"


def create_app(db_path: str | os.PathLike[str] | Store | None, *, think: float = 0.6, budget: float = 0.5,
               host: str = "127.0.0.1", public_url: str | None = None, limits: Limits | None = None,
               redis: str | None = None, allow_origins: Sequence[str] = (), allow_hosts: Sequence[str] = (),
               public_metrics: bool = False) -> FastAPI:
    """The server app on the games database ``db_path`` (a SQLite path, a ``postgresql://``
    URL, None: ``BINOKEL_DB`` or the default file; or an open store); ``redis``: a
    ``redis://`` URL for change notification between processes. ``think`` is the least time
    between a computer opponent's move and the change before it (so people can follow);
    ``budget`` is how long a computer opponent may think, in seconds. ``host`` is the
    address the server listens on and ``public_url`` the address friends reach it at
    (behind a proxy or tunnel): invite links are made from it. ``allow_origins`` are other
    origins whose pages may use the server, ``allow_hosts`` other names it answers to
    (:mod:`binokel.server.guard`; the server's own names and pages always may).
    ``public_metrics``: ``/metrics`` and the process's name in ``/healthz`` for every
    client (else for this computer only)."""
    limits = limits or Limits()
    quiet_client_errors()  # a frame that is not UTF-8 is the client's mistake: no traceback in the log
    store = db_path if isinstance(db_path, Store) else open_store(db_path, redis=redis)
    hall = Hall(store, think=think, budget=budget, limits=limits, metrics=Metrics(PROCESS))
    site = Site(hall, limits, Quotas(limits), host, public_url, public_metrics)
    origins = [origin for origin in (origin_of(url) for url in (*allow_origins, *([public_url] if public_url else [])))
               if origin is not None]
    # Open to the network, the invite links may name this machine (lan_address's fallback).
    own_names = [*allow_hosts, *([socket.gethostname()] if host in WILDCARD_HOSTS else [])]
    policy = Policy(Names.for_server(host, public_url, origins, own_names), frozenset(origins), limits.body_bytes)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await hall.start()
        try:
            yield
        finally:
            site.beat.stop()
            await hall.shutdown()  # the tables, then the bot pool: no worker process outlives the app
            await asyncio.to_thread(store.close)

    app = FastAPI(title="Binokel", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url="/api/openapi.json")
    app.state.hall = hall
    app.add_middleware(Guard, policy=policy)  # Host, Origin, JSON and body size, before any route
    app.mount("/static", StaticFiles(directory=web_dir(), check_dir=False), name="static")
    add_delivery(app)  # gzip, ETags and revalidation (server/delivery.py)
    add_problem_handlers(app, site)
    add_page_routes(app)
    add_health_routes(app, site)
    add_rules_routes(app, site)
    add_game_routes(app, site)
    add_join_routes(app, site)
    # bidding help, deal review (server/review_routes.py)
    add_review_routes(app, hall.get, public_record, site.helped)
    add_club_routes(app, hall)  # club tournaments (server/club.py)
    add_pad_routes(app, hall)  # the score pad's sheets (server/pad.py)
    add_record_route(app, site)
    add_play_route(app, site)
    return app


def add_problem_handlers(app: FastAPI, site: Site) -> None:
    """Every refusal in the protocol's format (``{"error": ...}`` with a catalogue code),
    whether a route, FastAPI's parameter check, the router or the store raised it."""

    @app.exception_handler(ProtocolError)
    async def refused(request: Request, problem: ProtocolError) -> JSONResponse:
        # A body its model refuses (400), or a Refused with its own status.
        return error(getattr(problem, "status", 400), problem)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, problem: RequestValidationError) -> JSONResponse:
        # FastAPI's own check of a path or query parameter (``?deal=abc``): the protocol's
        # format, not its ``{"detail": ...}``; the first problem names the field.
        first: dict[str, Any] = next(iter(problem.errors()), {})
        field = ".".join(str(part) for part in first.get("loc", ())) or "request"
        kind = str(first.get("type", "invalid"))  # the reason in our words, not the validator's text
        return error(400, ProtocolError("bad_request", field=field,
                                        reason="a whole number is expected" if kind.startswith("int") else kind))

    @app.exception_handler(StarletteHTTPException)
    async def http_problem(request: Request, problem: StarletteHTTPException) -> JSONResponse:
        # No route (404) or not this method (405), from the router or the static files:
        # the protocol's format with a catalogue code, not FastAPI's ``{"detail": ...}``.
        if problem.status_code == 405:
            return error(405, ProtocolError("method_not_allowed", method=request.method[:20],
                                            path=request.url.path[:100]))
        if problem.status_code == 404:
            return error(404, ProtocolError("not_found", path=request.url.path[:100]))
        return error(problem.status_code, ProtocolError("bad_request", field="request",
                                                        reason=str(problem.detail)[:100]))

    @app.exception_handler(StorageUnavailable)
    async def unavailable(request: Request, problem: StorageUnavailable) -> JSONResponse:
        # A store call of a route that does not catch it (a read, say): 503 and a clear code, not 500.
        site.hall.metrics.db_errors.inc()
        site.hall.outage.failed(request.url.path, problem)
        return error(503, ProtocolError("db_unavailable"))


def add_page_routes(app: FastAPI) -> None:
    """The page itself, its service worker and its translation catalogues."""

    @app.get("/", response_model=None)
    async def index() -> Response:
        page = web_dir() / "index.html"
        if not page.is_file():
            return HTMLResponse("<!doctype html><title>Binokel</title><p>The Binokel page is not installed.</p>",
                                status_code=503)
        return FileResponse(page, media_type="text/html")

    @app.get("/sw.js", response_model=None)
    async def service_worker() -> Response:
        # Served from the root so that it may keep the page itself ("/") for when the server is away.
        return Response(delivery.service_worker(), media_type="text/javascript")  # with its app shell filled in

    @app.get("/i18n/{lang}.json")
    async def get_catalogue(lang: str) -> Response:
        """The translation catalogue of a language, as the page reads it (without the terminal's own sentences)."""
        try:
            return Response(i18n.source(lang), media_type="application/json")
        except KeyError:
            return error(404, ProtocolError("bad_language", languages=", ".join(LANGUAGES), value=repr(lang)))


def add_health_routes(app: FastAPI, site: Site) -> None:
    """``/healthz`` for a load balancer and ``/metrics`` for Prometheus."""

    @app.get("/healthz")
    async def healthz(request: Request) -> JSONResponse:
        """200 while this process can reach its games database, else 503 (for a load balancer).
        Only this computer (or every client with ``public_metrics``) is told more than ok:
        the process's name (host, PID), its tables, the database's error."""
        inside = site.is_from_here(request)
        try:
            await asyncio.to_thread(site.hall.store.games, [""])
        except StorageUnavailable as problem:
            more = {"process": PROCESS, "database": str(problem)} if inside else {}
            return JSONResponse({"ok": False, **more}, status_code=503)
        return JSONResponse({"ok": True, **({"process": PROCESS, "tables": len(site.hall.tables)} if inside else {})})

    @app.get("/metrics")
    async def get_metrics(request: Request) -> Response:
        if not site.is_from_here(request):  # not there for strangers (binokel serve --public-metrics opens it)
            return error(404, ProtocolError("not_found", path=request.url.path))
        return PlainTextResponse(site.hall.metrics.exposition(), media_type=CONTENT_TYPE)


def add_rules_routes(app: FastAPI, site: Site) -> None:
    """What the new-game form offers and the check of a rule text."""

    @app.get("/api/meta")
    async def get_meta(request: Request) -> JSONResponse:
        return JSONResponse({**meta(), "listen": {"local_only": site.is_local_only, "host": site.host,
                                                  "url": site.base_url(request)}})

    @app.get("/api/rules")
    async def get_rules(text: str = "standard") -> JSONResponse:
        try:
            return JSONResponse(rules_answer(text))
        except ProtocolError as problem:
            return error(400, problem)

    @app.get("/api/rules/check")
    async def check_rules(text: str = "standard") -> JSONResponse:
        # The start page's live check while a text is typed: a refusal is an answer, not an error.
        try:
            return JSONResponse({"ok": True, **rules_answer(text)})
        except ProtocolError as problem:
            return JSONResponse({"ok": False, "error": brief(problem)[0]})  # at most 100 characters of the text


def add_game_routes(app: FastAPI, site: Site) -> None:
    """Creating, listing and deleting games."""
    hall, limits, quotas = site.hall, site.limits, site.quotas

    @app.post("/api/games", openapi_extra=JSON_BODY)
    async def create_game(request: Request) -> JSONResponse:
        settings = parse_settings(await site.json_body(request))
        if settings.seed is not None and OPEN in settings.seats and not limits.seeds_with_friends:
            # The deals are a function of the seed: its chooser would know every friend's hand.
            return error(400, ProtocolError("seed_with_friends"))
        if not quotas.tables.take(client_of(request)):
            return error(429, ProtocolError("too_many_tables", max=limits.tables_per_minute))
        created = await hall.create(settings)
        return JSONResponse({"id": created.table.id, "seat": created.seat, "token": created.token,
                             "invites": created.invites.to_json(),
                             "links": site.links(request, created.invites, created.table.id)})

    @app.post("/api/my-games", openapi_extra=JSON_BODY)
    async def my_games(request: Request) -> JSONResponse:
        body = await site.json_body(request)
        tokens = MY_GAMES.read(body, max=limits.tokens_per_request).tokens  # the limit its refusal names
        return JSONResponse({"games": await hall.games_of(tokens)})

    @app.get("/api/lobby")
    async def lobby() -> JSONResponse:
        return JSONResponse({"tables": await hall.lobby()})

    @app.delete("/api/games/{game_id}")
    async def delete_game(game_id: str, request: Request) -> JSONResponse:
        await hall.delete(game_id, bearer(request))
        return JSONResponse({"deleted": game_id})


def add_join_routes(app: FastAPI, site: Site) -> None:
    """Looking up an invite, taking a seat, and new invites for a table."""
    hall, limits, quotas = site.hall, site.limits, site.quotas

    @app.post("/api/invite", openapi_extra=JSON_BODY)
    async def look_up_invite(request: Request) -> JSONResponse:
        body = await site.json_body(request)
        if not quotas.joins.take(client_of(request)):
            return error(429, ProtocolError("too_many_joins", max=limits.joins_per_minute))
        table, seat = await site.invite(INVITE.read(body).code)
        return JSONResponse({**hall.summary(table), "seat": seat, "open_seats": table.open_seats})

    @app.post("/api/join", openapi_extra=JSON_BODY)
    async def join(request: Request) -> JSONResponse:
        body = JOIN.read(await site.json_body(request))
        if not quotas.joins.take(client_of(request)):
            return error(429, ProtocolError("too_many_joins", max=limits.joins_per_minute))
        if body.code is not None:
            table, seat = await site.invite(body.code)
        else:
            table, seat = await hall.lobby_table(body.id), None
        seat, token = await hall.join(table, seat, body.name)
        return JSONResponse({"id": table.id, "seat": seat, "token": token})

    @app.post("/api/games/{game_id}/invites")
    async def renew_invites(game_id: str, request: Request) -> JSONResponse:
        table = await hall.get(game_id)
        if table is None:
            return error(404, ProtocolError("no_game", id=repr(game_id)))
        invites = await hall.new_invites(table, bearer(request))
        return JSONResponse({"id": game_id, "invites": invites.to_json(),
                             "links": site.links(request, invites, game_id)})


def add_record_route(app: FastAPI, site: Site) -> None:
    """A game's public record, as a file to download."""

    @app.get("/api/games/{game_id}/record")
    async def get_record(game_id: str) -> JSONResponse:
        table = await site.hall.get(game_id)
        if table is None:
            return error(404, ProtocolError("no_game", id=repr(game_id)))
        async with table.lock:
            record = public_record(table)
        return JSONResponse(record, headers={
            "Content-Disposition": f'attachment; filename="binokel-{game_id}.json"'})


def add_play_route(app: FastAPI, site: Site) -> None:
    """The websocket a seat plays (or a spectator watches) a game through."""

    @app.websocket("/ws/games/{game_id}")
    async def play(websocket: WebSocket, game_id: str) -> None:
        address = websocket.client.host if websocket.client else "?"
        await websocket.accept()
        if not site.quotas.connect(address):
            await _refuse(websocket, ProtocolError("too_many_connections_address",
                                                   max=site.limits.connections_per_address), TOO_MANY_CLOSE)
            return
        try:
            await _serve(site, websocket, game_id, address)
        finally:
            site.quotas.disconnect(address)


async def _serve(site: Site, websocket: WebSocket, game_id: str, address: str) -> None:
    try:
        table = await site.hall.get(game_id)
    except Refused as problem:  # the store is unavailable: the client tries again
        await _refuse(websocket, problem, UNAVAILABLE_CLOSE)
        return
    if table is None:
        await _refuse(websocket, ProtocolError("no_game", id=repr(game_id[:100])), UNKNOWN_GAME_CLOSE)
        return
    connection = await _hello(websocket, table, site.limits, address)
    if connection is None:
        return
    watcher = address_key(address) if connection.seat is None else None
    if watcher is not None and not site.quotas.spectators.add(watcher):
        await _refuse(websocket, ProtocolError("too_many_spectators_address",
                                               max=site.limits.spectators_per_address), TOO_MANY_CLOSE)
        return
    try:
        await _watch(site, websocket, table, connection, address)
    finally:
        if watcher is not None:
            site.quotas.spectators.remove(watcher)


async def _watch(site: Site, websocket: WebSocket, table: Table, connection: Connection, address: str) -> None:
    sender = asyncio.create_task(_send(websocket, connection))
    connection.on_overflow = sender.cancel  # a client too slow to read: stop writing to it; closed below
    if isinstance(connection.since, int) and connection.since > table.version:
        await table.catch_up(connection.since)  # the client has seen steps stored by another process
    try:
        table.join(connection, connection.since)
    except ProtocolError as problem:  # over the table's caps (spectators, a seat's tabs): 4429, like the address's
        sender.cancel()
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await sender
        await _refuse(websocket, problem, TOO_MANY_CLOSE)
        return
    reader = asyncio.create_task(_read(websocket, site.hall, table, connection, site.quotas))
    if connection.beat:
        site.beat.add(connection)
    try:
        await asyncio.wait({reader, sender}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        site.beat.discard(connection)
        reader.cancel()  # a command being carried out finishes anyway (shielded in _read)
        for task in (reader, sender):
            task.add_done_callback(_settled)
        table.leave(connection)
        if connection.dropped:
            site.hall.metrics.refused.labels("too_slow").inc()
            log.info("dropped a client too slow to read, game %s", table.id,
                     extra={"event": "dropped", "game": table.id, "client": address})
            with contextlib.suppress(Exception):
                await asyncio.wait_for(websocket.close(code=TOO_SLOW_CLOSE), CLOSE_SECONDS)
        else:
            connection.post(None)
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await sender


def _settled(task: asyncio.Task[None]) -> None:
    """A connection's reader or sender ended: a socket that went away is no news (no
    "exception never retrieved" in the log); anything else is a bug, logged once."""
    if task.cancelled():
        return
    problem = task.exception()
    if problem is not None and not isinstance(problem, (WebSocketDisconnect, RuntimeError, OSError)):
        log.error("a connection's task failed", exc_info=problem)


async def _refuse(websocket: WebSocket, problem: BinokelError, code: int) -> None:
    """One error message, then close with ``code`` (the client may be gone already)."""
    with contextlib.suppress(Exception):
        await websocket.send_json(error_message(problem, None))
        await websocket.close(code=code)


async def _read(websocket: WebSocket, hall: Hall, table: Table, connection: Connection, quotas: Quotas) -> None:
    """Carry out the client's messages one at a time, until it disconnects."""
    limits = quotas.limits
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        raw = message.get("text") if "text" in message else message.get("bytes")
        if not connection.messages.take() or not quotas.messages.take(connection.address):
            too_many = ProtocolError("too_many_messages", max=f"{limits.messages_per_second:g}")
            connection.post(table.error(too_many))
            continue
        if raw == PING:
            connection.post(PONG)
            continue
        # Shielded: a command is carried out whole (stored and told) even if the connection is
        # dropped meanwhile; only the wait for the next message is cancelled.
        await asyncio.shield(_handle(hall, table, connection, raw, quotas))


async def _hello(websocket: WebSocket, table: Table, limits: Limits, address: str) -> Connection | None:
    """The first message names the seat token (or none, to watch); a wrong token is refused
    and the socket closed. The token never travels in a URL."""
    async def refuse(problem: ProtocolError, code: int) -> None:
        with contextlib.suppress(Exception):  # the client may be gone already
            await websocket.send_json(table.error(problem))
            await websocket.close(code=code)

    try:
        first = await asyncio.wait_for(websocket.receive(), timeout=limits.hello_seconds)
    except TimeoutError:
        await refuse(ProtocolError("hello_timeout", seconds=f"{limits.hello_seconds:g}"), POLICY_CLOSE)
        return None
    if first["type"] == "websocket.disconnect":
        return None
    try:
        hello = parse_message(first.get("text") if "text" in first else first.get("bytes"), limits.message_bytes)
    except ProtocolError as problem:
        await refuse(problem, POLICY_CLOSE)
        return None
    if not isinstance(hello, Hello):
        await refuse(ProtocolError("hello_first"), POLICY_CLOSE)
        return None
    token = hello.token
    seat: int | None = None
    host = False
    if token is not None:
        held = table.seat_of(token)
        if held is None:
            # A friend who joined at another process may be here before the notice of it:
            # the seats are read again once before the token is refused.
            await table.refresh()
            held = table.seat_of(token)
        if held is None:
            await refuse(ProtocolError("token_no_seat"), FORBIDDEN_CLOSE)
            return None
        seat = held if held >= 0 else None
        host = table.is_host(held)
    connection = Connection(seat, limits, host=host, address=address,
                            write_now=write_now_of(websocket.scope))
    connection.since = hello.version
    connection.beat = hello.beat
    return connection


async def _send(websocket: WebSocket, connection: Connection) -> None:
    """Pump the connection's queue into its socket; a None closes it."""
    while True:
        message = await connection.next_message()
        if message is None:
            with contextlib.suppress(Exception):
                await websocket.close()
            return
        connection.sending = True
        try:
            await websocket.send_text(message)
        except Exception:  # noqa: BLE001 - the socket is gone: stop sending
            return
        finally:
            connection.sending = False


async def _handle(hall: Hall, table: Table, connection: Connection, raw: str | bytes | None,
                  quotas: Quotas) -> None:
    """Carry out one client message; problems go back to that connection only."""
    try:
        message = parse_message(raw, quotas.limits.message_bytes, seat=connection.seat)
        if message.seat is not None and message.seat != connection.seat:
            raise ProtocolError("not_your_seat", seat=connection.seat, value=repr(message.seat))
        if isinstance(message, Action):
            await table.act(connection, message.action, message.version)
        elif isinstance(message, Ping):
            connection.post(PONG)
        elif isinstance(message, Sync):
            connection.post(table.messages.state(connection.seat))
            table.kick()
        elif isinstance(message, NextDeal):
            await table.next_deal(connection, message.version)
        elif isinstance(message, HintRequest):  # chosen: cards picked to lay away, not sent yet
            connection.post({"type": "hint", "action": await table.hint(connection, message.chosen)})
        elif isinstance(message, EventsRequest):
            table.events_since(connection, message.since)
        elif isinstance(message, RematchRequest):
            if table.rematch_id is None and table.driver.is_over() and not quotas.tables.take(connection.address):
                raise ProtocolError("too_many_tables", max=quotas.limits.tables_per_minute)  # a rematch is a new table
            await table.rematch(connection)  # told to every connection, the asker's too
        elif isinstance(message, Chat):
            table.say(connection, message)
        elif isinstance(message, Hello):
            raise ProtocolError("hello_again")
    except ProtocolError as problem:
        if problem.code == "not_your_seat" and connection.seat is None:  # not "holds seat None"
            problem = ProtocolError("spectator_cannot_act")
        connection.post(table.error(problem))
    except Exception:  # a bug must not end the connection; nothing was committed
        log.exception("message %.200r to game %s failed", raw, table.id)
        connection.post(table.error(ProtocolError("internal_error")))
