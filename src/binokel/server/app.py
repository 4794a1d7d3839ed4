"""The web application: HTTP routes, the websocket endpoint and the static page.

``create_app(db_path, think=..., budget=...)`` builds a FastAPI app around one
:class:`~binokel.server.hall.Hall`; the protocol is documented in
:mod:`binokel.server.protocol`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import AsyncIterator
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from binokel import i18n
from binokel.i18n import LANGUAGES
from binokel.error import BinokelError
from binokel.record import game_record
from binokel.rules import DESCRIPTIONS, OPTIONS, RULE_SETS
from binokel.server.hall import Hall
from binokel.ai import LEVELS
from binokel.server.protocol import (DECKS, OPPONENT_NAMES, ProtocolError, error_message,
                                     parse_message, parse_rules, parse_settings, rule_changes)
from binokel.server.store import Store
from binokel.server.table import Client, Table

log = logging.getLogger("binokel.server")

UNKNOWN_GAME_CLOSE = 4404
"""Websocket close code for an unknown game id."""


def web_dir() -> Path:
    """The folder of the static front-end (``binokel/web``, shipped as package data)."""
    return Path(str(resources.files("binokel").joinpath("web")))


def meta() -> dict[str, Any]:
    """Everything the new-game form offers (``GET /api/meta``)."""
    return {
        "rule_sets": [{"name": name, "text": rules.text, "about": DESCRIPTIONS.get(name, ""), "players": rules.players,
                       "changes": rule_changes(rules)} for name, rules in RULE_SETS.items()],
        "options": [{"name": name, "standard": standard, "meaning": option.help,
                     "choices": list(option.choices) if option.choices else None,
                     "minimum": option.minimum, "step": option.step}
                    for name, (standard, option) in OPTIONS.items()],
        "levels": list(LEVELS),
        "languages": list(LANGUAGES),
        "decks": list(DECKS),
        "opponent_names": list(OPPONENT_NAMES),
    }


def rules_answer(text: str) -> dict[str, Any]:
    """``GET /api/rules``: the canonical text and the changes from standard; ProtocolError if refused."""
    rules = parse_rules(text)
    return {"text": rules.text, "players": rules.players, "changes": rule_changes(rules)}


def public_record(table: Table) -> dict[str, Any]:
    """The game record without the deal in progress (its cards are still hidden)."""
    game = table.game
    record = game_record(game, table.names)
    if not game.is_over() and not game.needs_deal():
        record["deals"] = record["deals"][:-1]
    return record


def error(status: int, problem: BinokelError) -> JSONResponse:
    """An HTTP refusal: the English text, and the reason code and params for the page."""
    return JSONResponse({"error": problem.message, "code": problem.code, "params": problem.params}, status_code=status)


def create_app(db_path: str | os.PathLike[str], *, think: float = 0.6, budget: float = 0.5) -> FastAPI:
    """The server app on the SQLite database at ``db_path``. ``think`` is the least time
    between a computer opponent's move and the change before it (so people can follow);
    ``budget`` is how long a computer opponent may think, in seconds."""
    store = Store(db_path)
    hall = Hall(store, think=think, budget=budget)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        hall.stop()
        store.close()

    app = FastAPI(title="Binokel", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.hall = hall
    app.mount("/static", StaticFiles(directory=web_dir(), check_dir=False), name="static")

    @app.get("/", response_model=None)
    async def index() -> Response:
        page = web_dir() / "index.html"
        if not page.is_file():
            return HTMLResponse("<!doctype html><title>Binokel</title><p>The Binokel page is not installed.</p>",
                                status_code=503)
        return FileResponse(page, media_type="text/html")

    @app.get("/i18n/{lang}.json")
    async def get_catalogue(lang: str) -> Response:
        """The one translation catalogue of a language, as the terminal reads it."""
        try:
            return Response(i18n.source(lang), media_type="application/json")
        except KeyError:
            return error(404, ProtocolError("bad_language", languages=", ".join(LANGUAGES), value=repr(lang)))

    @app.get("/api/meta")
    async def get_meta() -> JSONResponse:
        return JSONResponse(meta())

    @app.get("/api/rules")
    async def get_rules(text: str = "standard") -> JSONResponse:
        try:
            return JSONResponse(rules_answer(text))
        except ProtocolError as problem:
            return error(400, problem)

    @app.post("/api/games")
    async def create_game(request: Request) -> JSONResponse:
        try:
            body = json.loads(await request.body())
        except (ValueError, RecursionError):
            return error(400, ProtocolError("body_not_object"))
        try:
            settings = parse_settings(body)
        except ProtocolError as problem:
            return error(400, problem)
        table = hall.create(settings)
        return JSONResponse({"id": table.id, "seat": 0})

    @app.get("/api/games")
    async def list_games() -> JSONResponse:
        return JSONResponse({"games": hall.listing()})

    @app.delete("/api/games/{game_id}")
    async def delete_game(game_id: str) -> JSONResponse:
        if not hall.delete(game_id):
            return error(404, ProtocolError("no_game", id=repr(game_id)))
        return JSONResponse({"deleted": game_id})

    @app.get("/api/games/{game_id}/record")
    async def get_record(game_id: str) -> JSONResponse:
        table = hall.get(game_id)
        if table is None:
            return error(404, ProtocolError("no_game", id=repr(game_id)))
        async with table.lock:
            record = public_record(table)
        return JSONResponse(record, headers={
            "Content-Disposition": f'attachment; filename="binokel-{game_id}.json"'})

    @app.websocket("/ws/games/{game_id}")
    async def play(websocket: WebSocket, game_id: str) -> None:
        await websocket.accept()
        table = hall.get(game_id)
        if table is None:
            await websocket.send_json(error_message(ProtocolError("no_game", id=repr(game_id)), None))
            await websocket.close(code=UNKNOWN_GAME_CLOSE)
            return
        client = Client()
        sender = asyncio.create_task(_send(websocket, client))
        table.join(client)
        try:
            while not sender.done():
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                await _handle(hall, table, client, message.get("text") if "text" in message else message.get("bytes"))
        except WebSocketDisconnect:
            pass
        finally:
            table.leave(client)
            client.post(None)
            with contextlib.suppress(Exception):
                await sender

    return app


async def _send(websocket: WebSocket, client: Client) -> None:
    """Pump the client's queue into its socket; a None closes it."""
    while True:
        message = await client.queue.get()
        if message is None:
            with contextlib.suppress(Exception):
                await websocket.close()
            return
        try:
            await websocket.send_text(json.dumps(message))
        except Exception:  # noqa: BLE001 - the socket is gone: stop sending
            return


async def _handle(hall: Hall, table: Table, client: Client, raw: str | bytes | None) -> None:
    """Carry out one client message; problems go back to that client only."""
    try:
        message = parse_message(raw)
        kind = message["type"]
        if kind == "action":
            await table.act(message["action"], message["version"])
        elif kind == "sync":
            client.post(table.state_message())
            table.kick()
        elif kind == "next_deal":
            await table.next_deal(message.get("version"))
        elif kind == "hint":
            client.post({"type": "hint", "action": await table.hint()})
        elif kind == "rematch":
            new = hall.create(replace(table.settings, seed=None))
            client.post({"type": "rematch", "id": new.id})
    except ProtocolError as problem:
        client.post(table.error(problem))
    except Exception:  # a bug must not end the connection; nothing was committed
        log.exception("message %.200r to game %s failed", raw, table.id)
        client.post(table.error(ProtocolError("internal_error")))

