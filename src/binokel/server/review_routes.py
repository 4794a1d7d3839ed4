"""HTTP routes of the help for a person (see :mod:`binokel.server.review`): bidding help
from the seat's own view, and the review of finished deals (a table's, or an uploaded
``binokel-game/1`` record). Added to the app by ``add_review_routes``.

The upload's body and the answers are the models of :mod:`binokel.server.schema_review`
(in docs/protocol.schema.json). Every refusal is a :class:`~binokel.server.hall.Refused` (a status, a reason code and
its params), answered by the app's one error path in the protocol's format.

A deal in progress is never reviewed: a table's review reads its public record, which
leaves the deal in progress out (its cards are hidden until it is over).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from binokel.error import BinokelError, RecordError
from binokel.server.hall import Refused, read_body
from binokel.server.review import bidding_help, review_record
from binokel.server.schema_review import REVIEW, UPLOAD_BYTES
from binokel.server.table import Table

WORLDS = 16
"""Simulated deals per decision of a review (the hard bot's own estimate)."""


def _bearer(request: Request) -> str | None:
    kind, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() if kind.lower() == "bearer" and token.strip() else None


Helper = Callable[[Request, str, Callable[[], Any]], Awaitable[Any]]
"""Where a review or advice is worked out: ``helper(request, key, work)`` with ``key`` the
table (or the client, for an upload); the app's runs it in the bounded pool under the
quotas (``Limits.reviews_per_minute`` and the like), or refuses."""


def add_review_routes(app: FastAPI, get_table: Callable[[str], Awaitable[Table | None]],
                      public_record: Callable[[Table], dict[str, Any]], helper: Helper) -> None:
    """``GET /api/games/{id}/advice``, ``GET /api/games/{id}/review``, ``POST /api/review``."""

    async def review(request: Request, key: str, record: Any, seat: int | None, deal: int | None) -> JSONResponse:
        try:
            answer = await helper(request, key, functools.partial(review_record, record, seat, deal, worlds=WORLDS))
        except Refused:  # the helper's own refusal (a quota, a busy pool) keeps its status
            raise
        except RecordError as problem:  # where in the record: a param, so the page may show it
            raise Refused(400, problem.code, **{**problem.params, "at": problem.at}) from problem
        except BinokelError as problem:
            raise Refused(400, problem.code, **problem.params) from problem
        return JSONResponse(answer)

    @app.get("/api/games/{game_id}/advice")
    async def advice(game_id: str, request: Request) -> JSONResponse:
        table = await get_table(game_id)
        if table is None:
            raise Refused(404, "no_game", id=repr(game_id[:100]))
        held = table.seat_of(_bearer(request) or "")
        if held is None or held < 0:
            raise Refused(403, "advice_token")
        async with table.lock:
            seen = table.driver.view(held)
        if seen.phase != "auction":
            return JSONResponse({"phase": seen.phase, "bidding": None})
        help_ = await helper(request, game_id, functools.partial(bidding_help, seen, seed=len(seen.auction)))
        return JSONResponse({"phase": seen.phase, "bidding": help_})

    @app.get("/api/games/{game_id}/review")
    async def review_table(game_id: str, request: Request, deal: int | None = None,
                           seat: int | None = None) -> JSONResponse:
        table = await get_table(game_id)
        if table is None:
            raise Refused(404, "no_game", id=repr(game_id[:100]))
        if seat is None:  # a seat's token reviews its own play; a spectator, the soloist's (public record)
            held = table.seat_of(_bearer(request) or "")
            seat = held if held is not None and held >= 0 else None
        async with table.lock:
            record = public_record(table)  # finished deals only
        return await review(request, game_id, record, seat, deal)

    @app.post("/api/review")
    async def review_upload(request: Request) -> JSONResponse:
        body = REVIEW.read(await read_body(request, UPLOAD_BYTES, upload=True))
        client = request.client.host if request.client else "?"
        return await review(request, f"upload:{client}", body.record, body.seat, body.deal)
