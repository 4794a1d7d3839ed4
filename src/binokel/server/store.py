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
from datetime import UTC, datetime
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
            return self._db.execute("DELETE FROM games WHERE id = ?", (game_id,)).rowcount == 1

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
