"""SQLite persistence: one row per game, rewritten in a transaction after every change.

A row holds the settings, the seed, the version and the full game record (RECORDS.md),
which contains every dealt card and every action; replaying it rebuilds the game
exactly, so a crash (even ``kill -9``) loses nothing that a client has seen.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    rules TEXT NOT NULL,
    settings TEXT NOT NULL,      -- JSON: rules, opponents, name, language, deck
    seed INTEGER NOT NULL,
    first_dealer INTEGER NOT NULL,
    version INTEGER NOT NULL,
    record TEXT NOT NULL,        -- JSON: the binokel-game/1 record so far
    totals TEXT NOT NULL,        -- JSON list, for the resume list
    deals INTEGER NOT NULL,
    over INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS games_by_update ON games (over, updated);
-- Play with friends (issue 11): who holds each person's seat, and the open invites.
-- Tokens and codes are stored only as SHA-256 digests (binokel.server.seat.digest).
-- Seat -1 is the creator's token when they do not sit at the table (host only).
CREATE TABLE IF NOT EXISTS seats (
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    token TEXT NOT NULL,         -- digest of the seat token
    host INTEGER NOT NULL,       -- 1: the table's creator (may re-issue invites, delete the table)
    joined TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX IF NOT EXISTS seats_by_token ON seats (token);
CREATE TABLE IF NOT EXISTS invites (
    code TEXT PRIMARY KEY,       -- digest of the invite code
    game_id TEXT NOT NULL,
    seat INTEGER,                -- NULL: the short code, fills the next free seat
    expires TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS invites_by_game ON invites (game_id);
"""


@dataclass(frozen=True)
class GameRow:
    """One stored game."""

    id: str
    created: str
    updated: str
    rules: str
    settings: dict[str, Any]
    seed: int
    first_dealer: int
    version: int
    record: dict[str, Any]
    totals: list[int]
    deals: int
    over: bool


def default_db_path() -> Path:
    """The user's data folder: $XDG_DATA_HOME/binokel (~/.local/share/binokel), or the
    platform's equivalent on Windows and macOS."""
    if sys.platform == "win32" and os.environ.get("APPDATA"):
        base = Path(os.environ["APPDATA"])
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "binokel" / "binokel.sqlite3"


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def later(seconds: float) -> str:
    """The time ``seconds`` from now, in the store's format (for invite expiry)."""
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class SeatRow:
    """A person's seat (or, at seat -1, a creator who only hosts): the digest of its token."""

    seat: int
    name: str
    token: str
    host: bool = False


@dataclass(frozen=True)
class InviteRow:
    """An invite code's digest: for one seat, or (seat None) the next free seat."""

    code: str
    seat: int | None
    expires: str


class SeatTaken(Exception):
    """The seat already has a person (a join changed nothing)."""


class Store:
    """The games database. Safe to call from several threads (one lock, one connection)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")  # a change is on disk before it is acknowledged
            self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def insert(self, row: GameRow) -> None:
        with self._lock, self._transaction():
            self._db.execute(
                "INSERT INTO games (id, created, updated, rules, settings, seed, first_dealer, version, record,"
                " totals, deals, over) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (row.id, row.created, row.updated, row.rules, json.dumps(row.settings), row.seed, row.first_dealer,
                 row.version, json.dumps(row.record), json.dumps(row.totals), row.deals, int(row.over)))

    def save(self, game_id: str, *, version: int, record: dict[str, Any], totals: list[int], deals: int,
             over: bool) -> None:
        """Write a game's new state; raise KeyError if the game is gone."""
        with self._lock, self._transaction():
            cursor = self._db.execute(
                "UPDATE games SET updated = ?, version = ?, record = ?, totals = ?, deals = ?, over = ? WHERE id = ?",
                (now(), version, json.dumps(record), json.dumps(totals), deals, int(over), game_id))
            if cursor.rowcount != 1:
                raise KeyError(game_id)

    def load(self, game_id: str) -> GameRow | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        return _row(row) if row is not None else None

    def summaries(self) -> list[dict[str, Any]]:
        """Every game without its record (for the resume list): unfinished first, then the
        most recently updated first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, rules, settings, totals, deals, updated, over FROM games"
                " ORDER BY over ASC, updated DESC, created DESC").fetchall()
        return [{"id": r["id"], "rules": r["rules"], "settings": json.loads(r["settings"]),
                 "totals": json.loads(r["totals"]), "deals": r["deals"], "updated": r["updated"],
                 "over": bool(r["over"])} for r in rows]

    def delete(self, game_id: str) -> bool:
        with self._lock, self._transaction():
            self._db.execute("DELETE FROM seats WHERE game_id = ?", (game_id,))
            self._db.execute("DELETE FROM invites WHERE game_id = ?", (game_id,))
            return self._db.execute("DELETE FROM games WHERE id = ?", (game_id,)).rowcount == 1

    # ------------------------------------------------------------------ seats and invites

    def insert_table(self, row: GameRow, seats: list[SeatRow], invites: list[InviteRow]) -> None:
        """A new table: the game, the creator's seat and the invites, in one transaction."""
        with self._lock, self._transaction():
            self._db.execute(
                "INSERT INTO games (id, created, updated, rules, settings, seed, first_dealer, version, record,"
                " totals, deals, over) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (row.id, row.created, row.updated, row.rules, json.dumps(row.settings), row.seed, row.first_dealer,
                 row.version, json.dumps(row.record), json.dumps(row.totals), row.deals, int(row.over)))
            self._insert_seats(row.id, seats)
            self._insert_invites(row.id, invites)

    def _insert_seats(self, game_id: str, seats: list[SeatRow]) -> None:
        self._db.executemany(
            "INSERT INTO seats (game_id, seat, name, token, host, joined) VALUES (?, ?, ?, ?, ?, ?)",
            [(game_id, s.seat, s.name, s.token, int(s.host), now()) for s in seats])

    def _insert_invites(self, game_id: str, invites: list[InviteRow]) -> None:
        self._db.executemany("INSERT INTO invites (code, game_id, seat, expires) VALUES (?, ?, ?, ?)",
                             [(i.code, game_id, i.seat, i.expires) for i in invites])

    def seats(self, game_id: str) -> list[SeatRow]:
        """Every taken seat of a game (the creator's host-only row at seat -1 included)."""
        with self._lock:
            rows = self._db.execute("SELECT seat, name, token, host FROM seats WHERE game_id = ? ORDER BY seat",
                                    (game_id,)).fetchall()
        return [SeatRow(r["seat"], r["name"], r["token"], bool(r["host"])) for r in rows]

    def invite(self, code: str) -> tuple[str, int | None, str] | None:
        """The game, seat and expiry time of an invite code's digest, or None."""
        with self._lock:
            row = self._db.execute("SELECT game_id, seat, expires FROM invites WHERE code = ?", (code,)).fetchone()
        return (row["game_id"], row["seat"], row["expires"]) if row is not None else None

    def take_seat(self, game_id: str, seat: SeatRow) -> None:
        """Seat a person; SeatTaken if somebody sits there. (Invites stay until they expire or are
        replaced, so a second use of a seat's link says clearly that the seat is taken.)"""
        with self._lock, self._transaction():
            try:
                self._insert_seats(game_id, [seat])
            except sqlite3.IntegrityError:
                raise SeatTaken(seat.seat) from None

    def replace_invites(self, game_id: str, invites: list[InviteRow]) -> None:
        """Revoke a game's invites and store new ones."""
        with self._lock, self._transaction():
            self._db.execute("DELETE FROM invites WHERE game_id = ?", (game_id,))
            self._insert_invites(game_id, invites)

    def games_of(self, tokens: list[str]) -> list[tuple[str, int]]:
        """The (game, seat) pairs held by these token digests (a browser's "your games")."""
        if not tokens:
            return []
        marks = ", ".join("?" * len(tokens))
        with self._lock:
            rows = self._db.execute(f"SELECT game_id, seat FROM seats WHERE token IN ({marks})", tokens).fetchall()
        return [(r["game_id"], r["seat"]) for r in rows]

    def lobby(self) -> list[str]:
        """Unfinished games whose creator listed them in the lobby (most recent first)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id FROM games WHERE over = 0 AND json_extract(settings, '$.lobby') = 1"
                " ORDER BY updated DESC LIMIT 200").fetchall()
        return [r["id"] for r in rows]

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on error (the connection is in autocommit mode)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> sqlite3.Connection:
        self.db.execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")


def _row(row: sqlite3.Row) -> GameRow:
    return GameRow(
        id=row["id"], created=row["created"], updated=row["updated"], rules=row["rules"],
        settings=json.loads(row["settings"]), seed=row["seed"], first_dealer=row["first_dealer"],
        version=row["version"], record=json.loads(row["record"]), totals=json.loads(row["totals"]),
        deals=row["deals"], over=bool(row["over"]))
