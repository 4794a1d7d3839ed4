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
    its version. The released server seated one person (seat 0) against bots of the levels
    in ``settings["opponents"]``; the play-with-friends server that briefly used the same
    file kept ``settings["seats"]`` (per seat "me", "open" or a bot level; its tokens are
    taken over by migration 2). Names from the record's ``players``."""
    settings: dict[str, Any] = json.loads(row["settings"])
    record: dict[str, Any] = json.loads(row["record"])
    kinds = settings.get("seats")
    if isinstance(kinds, list) and kinds:
        names = list(record.get("players") or [""] * len(kinds))
        seats = [Seat("person", None, "" if kind == "open" else name) if kind in ("me", "open")
                 else Seat("bot", str(kind), name) for kind, name in zip(kinds, names)]
    else:
        levels: list[str] = list(settings.get("opponents", []))
        names = list(record.get("players") or [settings.get("name", "")] + [""] * len(levels))
        seats = [Seat("person", None, names[0])] + [Seat("bot", level, name)
                                                    for level, name in zip(levels, names[1:])]
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


# Migration 2 (the server on several processes): invite codes (by the digest of the code,
# so a code finds its game whichever process is asked) and presence (which process holds a
# connection of which seat, refreshed by a heartbeat, so every process knows who is away).
SQLITE_SEATS = (
    """CREATE TABLE invites (
        code TEXT PRIMARY KEY,           -- SHA-256 of the invite code
        game_id TEXT NOT NULL,
        seat INTEGER,                    -- NULL: the table's short code, fills the next free seat
        expires TEXT NOT NULL            -- UTC, ISO 8601
    )""",
    "CREATE INDEX invites_by_game ON invites (game_id)",
    """CREATE TABLE presence (
        game_id TEXT NOT NULL,
        seat INTEGER NOT NULL,
        process TEXT NOT NULL,           -- the server process holding a connection of the seat
        seen REAL NOT NULL,              -- unix time of its last heartbeat
        ready INTEGER,                   -- the version at which the seat asked for the next deal
        PRIMARY KEY (game_id, seat, process)
    ) WITHOUT ROWID""",
)

POSTGRES_SEATS = """
CREATE TABLE invites (
    code text PRIMARY KEY,
    game_id text NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat integer,
    expires text NOT NULL
);
CREATE INDEX invites_by_game ON invites (game_id);
CREATE TABLE presence (
    game_id text NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat integer NOT NULL,
    process text NOT NULL,
    seen double precision NOT NULL,
    ready integer,
    PRIMARY KEY (game_id, seat, process)
);
"""


def _sqlite_seats(db: sqlite3.Connection) -> None:
    """The new tables; a file of the interim play-with-friends server also has its own
    ``invites`` (the same columns: kept) and ``seats`` (one row per taken seat with the
    digest of its token: moved into each game's seats, the creator's seat into the
    settings' ``host``, a creator who does not sit into an invites row at seat -1)."""
    interim = "code" in _columns(db, "invites")
    if interim:
        db.execute("DROP INDEX IF EXISTS invites_by_game")
        db.execute("ALTER TABLE invites RENAME TO invites_v0")
    for statement in SQLITE_SEATS:
        db.execute(statement)
    if interim:
        db.execute("INSERT INTO invites (code, game_id, seat, expires) SELECT code, game_id, seat, expires"
                   " FROM invites_v0 WHERE game_id IN (SELECT id FROM games)")
        db.execute("DROP TABLE invites_v0")
    if "token" in _columns(db, "seats"):
        for game_id, seat, name, token, host in db.execute(
                "SELECT game_id, seat, name, token, host FROM seats WHERE game_id IN (SELECT id FROM games)"
                " ORDER BY game_id, seat").fetchall():
            if seat >= 0:
                db.execute("UPDATE games SET seats = json_set(seats, ?, json(?)) WHERE id = ?",
                           (f"$[{int(seat)}]", dumps(Seat("person", None, name, token).to_json()), game_id))
            else:
                db.execute("INSERT OR REPLACE INTO invites (code, game_id, seat, expires) VALUES (?, ?, -1, ?)",
                           (token, game_id, "9999-12-31T00:00:00.000+00:00"))
            if host:
                db.execute("UPDATE games SET settings = json_set(settings, '$.host', ?) WHERE id = ?",
                           (int(seat), game_id))
                if seat < 0:
                    db.execute("UPDATE games SET settings = json_set(settings, '$.host_token', ?,"
                               " '$.host_name', ?) WHERE id = ?", (token, name, game_id))
        db.execute("UPDATE games SET free_seats = (SELECT count(*) FROM json_each(games.seats)"
                   " WHERE json_extract(value, '$.kind') = 'person' AND json_extract(value, '$.token_hash') IS NULL)")
        db.execute("DROP TABLE seats")


# Migration 3: a table's chat lines, so that people connected to different processes read
# each other (and a restarted server shows the recent lines).
SQLITE_CHAT = (
    """CREATE TABLE chat (
        game_id TEXT NOT NULL,
        id TEXT NOT NULL,                -- the line's own random id (a process skips its own)
        at REAL NOT NULL,                -- unix time it was said
        line TEXT NOT NULL,              -- JSON, as the clients get it
        PRIMARY KEY (game_id, id)
    ) WITHOUT ROWID""",
    "CREATE INDEX chat_by_time ON chat (game_id, at)",
)

POSTGRES_CHAT = """
CREATE TABLE chat (
    game_id text NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    id text NOT NULL,
    at double precision NOT NULL,
    line text NOT NULL,
    PRIMARY KEY (game_id, id)
);
CREATE INDEX chat_by_time ON chat (game_id, at);
"""


def _sqlite_chat(db: sqlite3.Connection) -> None:
    for statement in SQLITE_CHAT:
        db.execute(statement)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "log", _sqlite_log, POSTGRES_LOG),
    Migration(2, "invites and presence", _sqlite_seats, POSTGRES_SEATS),
    Migration(3, "chat", _sqlite_chat, POSTGRES_CHAT),
)
"""Every migration, numbered from 1 without gaps."""
