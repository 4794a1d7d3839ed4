"""HTTP routes of the help for a person (see :mod:`binokel.server.review`): bidding help
from the seat's own view, and the review of finished deals (a table's, or an uploaded
``binokel-game/1`` record). Added to the app by ``add_review_routes``.

A deal in progress is never reviewed: a table's review reads its public record, which
leaves the deal in progress out (its cards are hidden until it is over).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from binokel.error import BinokelError
from binokel.server.review import bidding_help, review_record
from binokel.server.table import Table

UPLOAD_BYTES = 512 * 1024
"""The largest uploaded record (a long game of many deals is some 100 KiB)."""
WORLDS = 16
"""Simulated deals per decision of a review (the hard bot's own estimate)."""


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _bearer(request: Request) -> str | None:
    kind, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() if kind.lower() == "bearer" and token.strip() else None


def add_review_routes(app: FastAPI, get_table: Callable[[str], Awaitable[Table | None]],
                      public_record: Callable[[Table], dict[str, Any]]) -> None:
    """``GET /api/games/{id}/advice``, ``GET /api/games/{id}/review``, ``POST /api/review``."""

    async def review(record: Any, seat: int, deal: int | None) -> JSONResponse:
        try:
            answer = await asyncio.to_thread(review_record, record, seat, deal, worlds=WORLDS)
        except (BinokelError, ValueError) as problem:
            return _error(400, str(problem))
        return JSONResponse(answer)

    @app.get("/api/games/{game_id}/advice")
    async def advice(game_id: str, request: Request) -> JSONResponse:
        table = await get_table(game_id)
        if table is None:
            return _error(404, f"no game {game_id!r}")
        row = table.seat_of(_bearer(request) or "")
        if row is None or row.seat < 0:
            return _error(403, "bidding help is for a seat at this table: send its token")
        async with table.lock:
            seen = table.driver.view(row.seat)
        if seen.phase != "auction":
            return JSONResponse({"phase": seen.phase, "bidding": None})
        help_ = await asyncio.to_thread(bidding_help, seen, seed=len(seen.auction))
        return JSONResponse({"phase": seen.phase, "bidding": help_})

    @app.get("/api/games/{game_id}/review")
    async def review_table(game_id: str, request: Request, deal: int | None = None,
                           seat: int | None = None) -> JSONResponse:
        table = await get_table(game_id)
        if table is None:
            return _error(404, f"no game {game_id!r}")
        if seat is None:
            row = table.seat_of(_bearer(request) or "")
            seat = row.seat if row is not None and row.seat >= 0 else 0
        async with table.lock:
            record = public_record(table)  # finished deals only
        return await review(record, seat, deal)

    @app.post("/api/review")
    async def review_upload(request: Request) -> JSONResponse:
        raw = await request.body()
        if len(raw) > UPLOAD_BYTES:
            return _error(413, f"a record must be at most {UPLOAD_BYTES // 1024} KiB")
        try:
            body = json.loads(raw)
        except (ValueError, RecursionError):
            return _error(400, "the body must be JSON: {\"record\": <binokel-game/1>, \"seat\": n, \"deal\": k}")
        if not isinstance(body, dict) or "record" not in body:
            return _error(400, "the body must be {\"record\": <binokel-game/1>, \"seat\": n, \"deal\": k}")
        seat, deal = body.get("seat", 0), body.get("deal")
        bad_deal = deal is not None and (isinstance(deal, bool) or not isinstance(deal, int))
        if isinstance(seat, bool) or not isinstance(seat, int) or bad_deal:
            return _error(400, "seat and deal must be whole numbers")
        return await review(body["record"], seat, deal)
