"""Numbered schema migrations, for both databases side by side.

Each database records the migrations it has had in ``schema_migrations`` (number, name,
time applied); a store applies the missing ones, in order, when it opens — each in its own
transaction, under a lock so that two processes starting together migrate once. A new
migration is appended to :data:`MIGRATIONS` with the next number; applied ones are never
changed.

Migration 1 also takes over a SQLite file of the previous version (one ``games`` row per
game holding the whole ``binokel-game/1`` record, no ``schema_migrations``): each old row
becomes metadata plus a single snapshot holding that record, at the row's version.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from binokel.server.storage.base import Seat, dumps


@dataclass(frozen=True)
class Migration:
    """One step of the schema: its number, a name, and how to take each database there
    (a function for SQLite, which may need Python to convert old rows; SQL for PostgreSQL)."""

    number: int
    name: str
    sqlite: Callable[[sqlite3.Connection], None]
    postgres: str


SQLITE_LOG = (
    """CREATE TABLE games (
        id TEXT PRIMARY KEY,
        created TEXT NOT NULL,
        updated TEXT NOT NULL,
        rules TEXT NOT NULL,
        settings TEXT NOT NULL,          -- JSON object, the server's settings
        seed INTEGER NOT NULL,
        first_dealer INTEGER NOT NULL,
        seats TEXT NOT NULL,             -- JSON list of {kind, level, name, token_hash}
        free_seats INTEGER NOT NULL,     -- person seats without a token, for the lobby
        public INTEGER NOT NULL,
        version INTEGER NOT NULL,        -- the version of the last entry
        totals TEXT NOT NULL,            -- JSON list, for the lists
        deals INTEGER NOT NULL,
        over INTEGER NOT NULL,
        turn INTEGER                     -- the seat to move, for the lists
    )""",
    "CREATE INDEX games_by_update ON games (over, updated)",
    "CREATE INDEX games_lobby ON games (public, over, free_seats, updated)",
    # One row per entry and per snapshot, never rewritten: appending costs the same at
    # any length of game. WITHOUT ROWID keeps each game's log together in the key order.
    """CREATE TABLE log (
        game_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        payload TEXT NOT NULL,
        PRIMARY KEY (game_id, version)
    ) WITHOUT ROWID""",
    """CREATE TABLE snapshots (
        game_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        payload TEXT NOT NULL,
        PRIMARY KEY (game_id, version)
    ) WITHOUT ROWID""",
)

POSTGRES_LOG = """
CREATE TABLE games (
    id text PRIMARY KEY,
    created timestamptz NOT NULL,
    updated timestamptz NOT NULL,
    rules text NOT NULL,
    settings jsonb NOT NULL,
    seed bigint NOT NULL,
    first_dealer integer NOT NULL,
    seats jsonb NOT NULL,
    free_seats integer NOT NULL,
    public boolean NOT NULL,
    version integer NOT NULL,
    totals jsonb NOT NULL,
    deals integer NOT NULL,
    over boolean NOT NULL,
    turn integer
);
CREATE INDEX games_by_update ON games (over, updated DESC);
CREATE INDEX games_lobby ON games (updated DESC) WHERE public AND free_seats > 0 AND NOT over;
CREATE TABLE log (
    game_id text NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    version integer NOT NULL,
    payload jsonb NOT NULL,
    PRIMARY KEY (game_id, version)
);
CREATE TABLE snapshots (
    game_id text NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    version integer NOT NULL,
    payload jsonb NOT NULL,
    PRIMARY KEY (game_id, version)
);
"""


def _sqlite_log(db: sqlite3.Connection) -> None:
    legacy = "record" in _columns(db, "games")
    if legacy:
        db.execute("DROP INDEX IF EXISTS games_by_update")
        db.execute("ALTER TABLE games RENAME TO games_v0")
    for statement in SQLITE_LOG:
        db.execute(statement)
    if legacy:
        for row in db.execute("SELECT * FROM games_v0").fetchall():
            _take_over(db, row)
        db.execute("DROP TABLE games_v0")


def _take_over(db: sqlite3.Connection, row: sqlite3.Row) -> None:
    """One game of the previous version: its metadata, and its record as the snapshot at
    its version. The old server seated one person (seat 0) against bots of the levels in
    ``settings["opponents"]``, with the names in the record's ``players``."""
    settings: dict[str, Any] = json.loads(row["settings"])
    record: dict[str, Any] = json.loads(row["record"])
    levels: list[str] = list(settings.get("opponents", []))
    names: list[str] = list(record.get("players") or [settings.get("name", "")] + [""] * len(levels))
    seats = [Seat("person", None, names[0])] + [Seat("bot", level, name) for level, name in zip(levels, names[1:])]
    db.execute(
        "INSERT INTO games (id, created, updated, rules, settings, seed, first_dealer, seats, free_seats, public,"
        " version, totals, deals, over, turn) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, NULL)",
        (row["id"], row["created"], row["updated"], row["rules"], dumps(settings), row["seed"], row["first_dealer"],
         dumps([seat.to_json() for seat in seats]), sum(seat.is_free for seat in seats), row["version"],
         row["totals"], row["deals"], row["over"]))
    db.execute("INSERT INTO snapshots (game_id, version, payload) VALUES (?, ?, ?)",
               (row["id"], row["version"], dumps(record)))


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "log", _sqlite_log, POSTGRES_LOG),
)
"""Every migration, numbered from 1 without gaps."""
