"""HTTP routes of the score pad (:class:`binokel.sheet.Sheet`): a game played with real
cards, kept on the server so that others at the table follow it read-only.

A sheet is stored as the storage package's game: its log holds the creation (rules,
players, first dealer, the scorekeeper's secret's digest) and one entry per deal entered
or corrected; the sheet is rebuilt by replaying the log on every request (a few dozen
summaries, each checked and scored again by :func:`binokel.score.explain`), so any
process of the server answers alike and nothing is cached that could go stale. An entry
is stored before it is acknowledged: a killed server loses nothing it said yes to.

Two roles: the **scorekeeper's secret** (given once, at creation; sent in
``Authorization: Bearer``) enters and corrects deals; the sheet's **id** is the read-only
link. The store keeps only the secret's SHA-256 digest.

- ``POST /api/pad`` — ``{"rules", "players": [names], "first_dealer"}``: the sheet's
  ``id``, the scorekeeper's ``token`` and the ``sheet``.
- ``GET /api/pad/{id}`` — the sheet: rules, players, each deal's summary and explanation,
  totals after each deal, the next dealer, the winner and ranking once over, ``version``.
- ``GET /api/pad/rules?text=...`` — what the pad's form needs of a rule text: players,
  teams, who sits out per dealer, the lowest bid, tricks and card points of a deal, the
  games, whether all may pass (or the dealer must then play: ``forced``), and per trump
  the melds that exist (the meld list).
- ``GET /api/pad/{id}/sheet.csv`` — the sheet for a spreadsheet.
- ``GET /pad`` — the page (``web/pad/``): ``#/`` a new sheet or one to resume,
  ``#/k/{id}`` the scorekeeper, ``#/v/{id}`` the read-only live view.
- ``POST /api/pad/{id}/deals`` (scorekeeper) — ``{"deal": n, "summary": {...}}``: deal
  ``n`` (1-based; the next one, or a correction of an earlier one). The same deal sent
  again as stored is acknowledged without storing it twice (a retry after a lost answer).
  An impossible summary: 400 with the summary's reason code and its ``field``.

The bodies and answers are the models of :mod:`binokel.server.schema_pad` (in
docs/protocol.schema.json); a body is read by its model before anything else is done.
"""

from __future__ import annotations

import asyncio
import csv
import io
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse, Response

from binokel.action import DURCH, Contract
from binokel.card import CARDS, Hand, Rank, Suit
from binokel.club import spreadsheet_cell
from binokel.error import BinokelError
from binokel.meld import find_melds
from binokel.rules import AllPass, Auction, Rules
from binokel.score import contract_value, deal_points
from binokel.server.hall import Hall, Refused, read_body
from binokel.server.limits import KeyedBuckets
from binokel.server.schema_pad import ENTRY, NEW_SHEET
from binokel.server.seat import digest, is_well_formed, new_token
from binokel.server.storage import GameExists, Seat, StorageUnavailable, VersionConflict, now
from binokel.sheet import Sheet

PREFIX = "pad-"
"""Sheet ids start with this, so that no sheet is taken for a game or a club event."""
BODY_BYTES = 8 * 1024
"""The largest request body (a deal's summary is some 300 bytes)."""
SHEETS_PER_MINUTE = 10
"""New sheets per client address."""
DEALS_MOST = 500
"""Entries a sheet keeps at most (a long evening has some 40 deals, with corrections)."""
STORED_SEATS = [Seat("bot", None, "score pad")]
"""The store wants seats; a sheet's players are in its log."""


def replay(entries: list[Any]) -> tuple[Sheet, str, list[dict[str, Any]]]:
    """The sheet of a stored log, the scorekeeper's digest and each deal's stored summary."""
    first = entries[0]
    sheet = Sheet.new(first["rules"], first["players"], int(first["first_dealer"]))
    stored: list[dict[str, Any]] = []
    for entry in entries[1:]:
        index = int(entry["deal"]) - 1
        sheet = sheet.add(entry["summary"]) if index == len(sheet.deals) else sheet.correct(index, entry["summary"])
        if index == len(stored):
            stored.append(entry["summary"])
        else:
            stored[index] = entry["summary"]
    return sheet, str(first["scorekeeper"]), stored


def public(sheet_id: str, sheet: Sheet, version: int) -> dict[str, Any]:
    """Everything the read-only link shows. ``rotation``: who deals deal n is
    ``rotation[(n - 1) % len(rotation)]`` (the page numbers deals entered offline with it)."""
    winner = sheet.winner
    return {"id": sheet_id, "version": version, "rules": sheet.rules.text, "players": list(sheet.players),
            "first_dealer": sheet.first_dealer, "next_dealer": None if winner is not None else sheet.next_dealer,
            "rotation": [sheet.dealer_of(index) for index in range(sheet.rules.players)],
            "deals": [deal.to_json() for deal in sheet.deals], "totals": [list(t) for t in sheet.running()],
            "winner": winner, "ranking": [{"seat": seat, "total": total} for seat, total in sheet.ranking()]
            if winner is not None else None}


def _meld_probes(rules: Rules) -> list[Hand]:
    """Hands that show every meld there is under ``rules``: the whole deck (the double
    melds), one copy of each card (the single ones) and each suit's king and ober (a pair)."""
    kinds = rules.deck_kinds
    pairs = [Hand(CARDS[k] for k in sorted(set(kinds)) if CARDS[k].suit == suit and CARDS[k].rank in (Rank.K, Rank.Q))
             for suit in Suit]
    return [Hand(CARDS[k] for k in kinds), Hand(CARDS[k] for k in sorted(set(kinds))), *pairs]


@lru_cache(maxsize=32)
def form_facts(rules: Rules) -> dict[str, Any]:
    """What the pad's form needs of ``rules`` (``GET /api/pad/rules``); the meld list per
    trump from the meld calculator (:func:`binokel.meld.find_melds`), the small ones first."""
    melds: dict[str, list[dict[str, Any]]] = {}
    for trump in Suit:
        found = {(m.name, m.suit.name if m.suit is not None else None, m.points)
                 for hand in _meld_probes(rules) for m in find_melds(hand, trump, rules)}
        melds[trump.name] = [{"name": name, "suit": suit, "points": points}
                             for name, suit, points in sorted(found, key=lambda m: (m[2], m[0], m[1] or ""))]
    return {"text": rules.text, "players": rules.players,
            "teams": [list(rules.team_seats(team)) for team in range(2)] if rules.has_teams else None,
            "sits_out": [rules.sitting_out(dealer) for dealer in range(rules.players)],
            "min_bid": rules.min_bid, "hand_size": rules.hand_size, "deal_points": deal_points(rules),
            "games": [c.word for c in Contract if c < DURCH or contract_value(rules, c)],
            "can_pass": rules.auction is Auction.OPEN and rules.all_pass is not AllPass.FORCED,
            "forced": rules.auction is Auction.OPEN and rules.all_pass is AllPass.FORCED,
            "target": rules.target, "deals": rules.deals, "melds": melds}


def sheet_csv(sheet: Sheet) -> str:
    """The sheet for a spreadsheet: per deal its dealer, soloist, bid, game, outcome, each
    player's score and each player's total after it."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    names = [spreadsheet_cell(name) for name in sheet.players]
    writer.writerow(["deal", "dealer", "soloist", "bid", "game", "outcome", *names, *(f"total {n}" for n in names)])
    for number, (deal, totals) in enumerate(zip(sheet.deals, sheet.running()), 1):
        summary = deal.summary
        writer.writerow([number, names[summary.dealer], "" if summary.soloist is None else names[summary.soloist],
                         summary.bid or "", summary.game or "", deal.outcome.value, *deal.scores, *totals])
    return out.getvalue()


def _bearer(request: Request) -> str | None:
    kind, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() if kind.lower() == "bearer" and is_well_formed(token.strip()) else None


class _Sheets:
    """The score pad's sheets in ``hall``'s store: each call in a thread, an unavailable store a 503."""

    def __init__(self, hall: Hall) -> None:
        self.hall = hall
        self.store = hall.store

    async def call(self, work: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return await asyncio.to_thread(work, *args, **kwargs)
        except StorageUnavailable as error:
            self.hall.metrics.db_errors.inc()
            self.hall.outage.failed("a score pad", error)
            raise Refused(503, "db_unavailable") from None

    async def load(self, sheet_id: str) -> tuple[Sheet, str, list[dict[str, Any]], int]:
        if not isinstance(sheet_id, str) or not sheet_id.startswith(PREFIX) or len(sheet_id) > 64:
            raise Refused(404, "pad_no_sheet")
        stored = await self.call(self.store.load, sheet_id, from_snapshot=False)
        if stored is None or not stored.entries or stored.info.settings.get("pad") != 1:
            raise Refused(404, "pad_no_sheet")
        entries = [entry.payload for entry in stored.entries]
        sheet, keeper, summaries = await asyncio.to_thread(replay, entries)
        return sheet, keeper, summaries, len(entries)


def add_pad_routes(app: FastAPI, hall: Hall) -> None:
    """The score pad's routes of the module docstring, on ``hall``'s store."""
    sheets = _Sheets(hall)
    _add_create_route(app, sheets)
    _add_read_routes(app, sheets)
    _add_deal_route(app, sheets)


def _add_create_route(app: FastAPI, sheets: _Sheets) -> None:
    """A new sheet, its scorekeeper's token in the answer."""
    creating = KeyedBuckets(SHEETS_PER_MINUTE / 60, SHEETS_PER_MINUTE)

    @app.post("/api/pad")
    async def create_sheet(request: Request) -> JSONResponse:
        body = NEW_SHEET.read(await read_body(request, BODY_BYTES))
        client = request.client.host if request.client else "?"
        if not creating.take(client):
            raise Refused(429, "pad_too_many", max=SHEETS_PER_MINUTE)
        try:
            sheet = Sheet.new(body.rules, body.players, body.first_dealer)
        except BinokelError as problem:
            raise Refused(400, problem.code, **problem.params) from None
        token = new_token()
        entry = {"kind": "create", "rules": sheet.rules.text, "players": list(sheet.players),
                 "first_dealer": sheet.first_dealer, "scorekeeper": digest(token), "at": now("seconds")}
        for _ in range(3):
            sheet_id = PREFIX + new_token()[:16]
            try:
                await sheets.call(sheets.store.create, sheet_id, rules=sheet.rules.text, settings={"pad": 1}, seed=0,
                           first_dealer=sheet.first_dealer, seats=STORED_SEATS, entries=[entry])
                break
            except GameExists:
                continue
        else:
            raise Refused(503, "db_unavailable")
        return JSONResponse({"id": sheet_id, "token": token, "sheet": public(sheet_id, sheet, 1)})


def _add_read_routes(app: FastAPI, sheets: _Sheets) -> None:
    """The pad's page, the facts of a rule text, and a sheet (as JSON or a file)."""

    @app.get("/pad", response_model=None)
    async def page() -> Response:
        """The score pad's page (web/pad/), its views in the fragment."""
        return FileResponse(Path(str(resources.files("binokel").joinpath("web", "pad", "index.html"))),
                            media_type="text/html")

    @app.get("/api/pad/rules")
    async def rules_facts(text: str = "standard") -> JSONResponse:
        try:
            rules = Rules.parse(text[:500])
        except BinokelError as problem:
            raise Refused(400, problem.code, **problem.params) from None
        return JSONResponse(form_facts(rules))

    @app.get("/api/pad/{sheet_id}")
    async def get_sheet(sheet_id: str) -> JSONResponse:
        sheet, _, _, version = await sheets.load(sheet_id)
        return JSONResponse(public(sheet_id, sheet, version))

    @app.get("/api/pad/{sheet_id}/sheet.csv")
    async def sheet_file(sheet_id: str) -> Response:
        sheet, _, _, _ = await sheets.load(sheet_id)
        return Response(sheet_csv(sheet), media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{sheet_id}.csv"'})


def _add_deal_route(app: FastAPI, sheets: _Sheets) -> None:
    """The scorekeeper enters (or corrects) a deal."""

    @app.post("/api/pad/{sheet_id}/deals")
    async def enter_deal(sheet_id: str, request: Request) -> JSONResponse:
        data = await read_body(request, BODY_BYTES)
        for _ in range(3):
            sheet, keeper, summaries, version = await sheets.load(sheet_id)
            token = _bearer(request)
            if token is None or digest(token) != keeper:
                raise Refused(403, "pad_scorekeeper_only")
            body = ENTRY.read(data, last=len(sheet.deals))
            number, summary = body.deal or len(sheet.deals) + 1, body.summary
            if number <= len(summaries) and summaries[number - 1] == summary:
                return JSONResponse(public(sheet_id, sheet, version))  # a retry of what is stored
            if version > DEALS_MOST:
                raise Refused(400, "pad_too_many_entries", max=DEALS_MOST)
            try:
                if number == len(sheet.deals) + 1:
                    sheet = sheet.add(summary)
                else:
                    sheet = sheet.correct(number - 1, summary)
            except BinokelError as problem:
                raise Refused(400, problem.code, **problem.params) from None
            entry = {"kind": "deal", "deal": number, "summary": summary, "at": now("seconds")}
            try:
                version = await sheets.call(sheets.store.append, sheet_id, version, [entry])
            except VersionConflict:  # another request stored first: read again, check again
                continue
            sheets.hall.outage.ok()
            return JSONResponse(public(sheet_id, sheet, version))
        raise Refused(503, "db_unavailable")
