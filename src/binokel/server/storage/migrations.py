"""Numbered schema migrations: each described once, as tables, columns and indexes, and
written out for each database (:meth:`Migration.sqlite`, :attr:`Migration.postgres`).

Each database records the migrations it has had in ``schema_migrations`` (number, name,
time applied); a store applies the missing ones, in order, when it opens — each in its own
transaction, under a lock so that two processes starting together migrate once. A new
migration is appended to :data:`MIGRATIONS` with the next number; what an applied one does
is never changed.

A column has a *kind* (:data:`KINDS`: text, int, bigint, real, bool, json, time), which
each database spells its own way (a SQLite ``TEXT`` holding JSON is PostgreSQL's
``jsonb``). A table keyed by its game refers to ``games`` (PostgreSQL deletes its rows with
the game; SQLite's store deletes them itself). Where SQLite needs Python to take over a file
of an older server, the migration has a ``take_over`` for SQLite that creates the tables
when it is ready.

Migration 1 also takes over a SQLite file of the previous version (one ``games`` row per
game holding the whole ``binokel-game/1`` record, no ``schema_migrations``): each old row
becomes metadata plus a single snapshot holding that record, at the row's version.

>>> print(MIGRATIONS[2].postgres.strip().splitlines()[0])
CREATE TABLE chat (game_id text NOT NULL REFERENCES games (id) ON DELETE CASCADE, id text NOT NULL, \
at double precision NOT NULL, line text NOT NULL, PRIMARY KEY (game_id, id));
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from binokel.server.settings import Seat
from binokel.server.storage.base import dumps

KINDS = {
    "text": ("TEXT", "text"),
    "int": ("INTEGER", "integer"),
    "bigint": ("INTEGER", "bigint"),
    "real": ("REAL", "double precision"),
    "bool": ("INTEGER", "boolean"),
    "json": ("TEXT", "jsonb"),  # SQLite: JSON text
    "time": ("TEXT", "timestamptz"),  # SQLite: UTC, ISO 8601 with milliseconds
}
"""Each kind of column as (SQLite, PostgreSQL) spell it."""


@dataclass(frozen=True)
class Column:
    """A column: its name, kind (:data:`KINDS`), and whether it may be NULL."""

    name: str
    kind: str
    null: bool = False

    def ddl(self, postgres: bool) -> str:
        spelled = KINDS[self.kind][postgres]
        refers = " REFERENCES games (id) ON DELETE CASCADE" if postgres and self.name == "game_id" else ""
        return f"{self.name} {spelled}{'' if self.null else ' NOT NULL'}{refers}"


@dataclass(frozen=True)
class Table:
    """A table: its columns and primary key. A ``game_id`` column refers to the game (on
    PostgreSQL; SQLite's store deletes a game's rows itself). A key of several columns is
    SQLite's clustered key (WITHOUT ROWID: a game's rows lie together)."""

    name: str
    columns: tuple[Column, ...]
    key: tuple[str, ...]

    def ddl(self, postgres: bool) -> str:
        parts = [column.ddl(postgres) for column in self.columns]
        if len(self.key) == 1:
            parts = [part + " PRIMARY KEY" if part.startswith(self.key[0] + " ") else part for part in parts]
        else:
            parts.append(f"PRIMARY KEY ({', '.join(self.key)})")
        clustered = " WITHOUT ROWID" if len(self.key) > 1 and not postgres else ""
        return f"CREATE TABLE {self.name} ({', '.join(parts)}){clustered}"


@dataclass(frozen=True)
class Index:
    """An index (``where``: a partial index, the same condition in both databases)."""

    name: str
    table: str
    columns: str
    where: str = ""

    def ddl(self, postgres: bool) -> str:
        partial = f" WHERE {self.where}" if self.where else ""
        return f"CREATE INDEX {self.name} ON {self.table} ({self.columns}){partial}"


@dataclass(frozen=True)
class Migration:
    """One step of the schema: its number, a name, its tables and indexes, and for SQLite
    perhaps a ``take_over`` of an older file (given a callable that creates the tables)."""

    number: int
    name: str
    tables: tuple[Table, ...]
    indexes: tuple[Index, ...] = ()
    take_over: Callable[[sqlite3.Connection, Callable[[], None]], None] | None = None

    def statements(self, postgres: bool) -> list[str]:
        return [table.ddl(postgres) for table in self.tables] + [index.ddl(postgres) for index in self.indexes]

    def sqlite(self, db: sqlite3.Connection) -> None:
        """Take a SQLite database here (in the caller's transaction)."""

        def create() -> None:
            for statement in self.statements(postgres=False):
                db.execute(statement)

        if self.take_over is not None:
            self.take_over(db, create)
        else:
            create()

    @property
    def postgres(self) -> str:
        """The SQL that takes a PostgreSQL database here (several statements)."""
        return "".join(statement + ";\n" for statement in self.statements(postgres=True))


def _game_keyed(name: str, *columns: Column, key: tuple[str, ...]) -> Table:
    return Table(name, (Column("game_id", "text"), *columns), key)


GAMES = Table("games", (
    Column("id", "text"), Column("created", "time"), Column("updated", "time"), Column("rules", "text"),
    Column("settings", "json"),  # the server's settings
    Column("seed", "bigint"), Column("first_dealer", "int"),
    Column("seats", "json"),  # a list of {kind, level, name, token_hash}
    Column("free_seats", "int"),  # person seats without a token, for the lobby
    Column("public", "bool"),
    Column("version", "int"),  # the version of the last entry
    Column("totals", "json"), Column("deals", "int"), Column("over", "bool"),  # for the lists
    Column("turn", "int", null=True),  # the seat to move, for the lists
), ("id",))

# One row per entry and per snapshot, never rewritten: appending costs the same at any
# length of game.
LOG = _game_keyed("log", Column("version", "int"), Column("payload", "json"), key=("game_id", "version"))
SNAPSHOTS = _game_keyed("snapshots", Column("version", "int"), Column("payload", "json"), key=("game_id", "version"))

# Migration 2 (the server on several processes): invite codes (by the digest of the code,
# so a code finds its game whichever process is asked) and presence (which process holds a
# connection of which seat, refreshed by a heartbeat, so every process knows who is away).
INVITES = Table("invites", (
    Column("code", "text"),  # SHA-256 of the invite code
    Column("game_id", "text"),
    Column("seat", "int", null=True),  # NULL: the table's short code, fills the next free seat
    Column("expires", "text"),  # UTC, ISO 8601
), ("code",))
PRESENCE = _game_keyed(
    "presence", Column("seat", "int"),
    Column("process", "text"),  # the server process holding a connection of the seat
    Column("seen", "real"),  # Unix time of its last heartbeat (Store.clock)
    Column("ready", "int", null=True),  # the version at which the seat asked for the next deal
    key=("game_id", "seat", "process"))

# Migration 3: a table's chat lines, so that people connected to different processes read
# each other (and a restarted server shows the recent lines).
CHAT = _game_keyed(
    "chat", Column("id", "text"),  # the line's own random id (a process skips its own)
    Column("at", "real"),  # Unix time it was said
    Column("line", "text"),  # JSON, as the clients get it
    key=("game_id", "id"))

# Migration 4: which process takes a table's unasked steps (bots, stand-ins, the next deal).
LEASES = _game_keyed(
    "leases", Column("owner", "text"),  # the server process holding the lease
    Column("expires", "real"),  # Unix time (Store.clock) it runs out unless renewed
    key=("game_id",))

# Migration 5: the rematch of a finished game, once for every process (the first one stored wins).
REMATCHES = _game_keyed(
    "rematches", Column("rematch", "text"),  # the id of the new game
    key=("game_id",))


def _sqlite_log(db: sqlite3.Connection, create: Callable[[], None]) -> None:
    """Migration 1 on SQLite: a file of the previous version (one ``games`` row per game with
    its whole record) is taken over."""
    legacy = "record" in _columns(db, "games")
    if legacy:
        db.execute("DROP INDEX IF EXISTS games_by_update")
        db.execute("ALTER TABLE games RENAME TO games_v0")
    create()
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


def _sqlite_seats(db: sqlite3.Connection, create: Callable[[], None]) -> None:
    """The new tables; a file of the interim play-with-friends server also has its own
    ``invites`` (the same columns: kept) and ``seats`` (one row per taken seat with the
    digest of its token: moved into each game's seats, the creator's seat into the
    settings' ``host``, a creator who does not sit into an invites row at seat -1)."""
    interim = "code" in _columns(db, "invites")
    if interim:
        db.execute("DROP INDEX IF EXISTS invites_by_game")
        db.execute("ALTER TABLE invites RENAME TO invites_v0")
    create()
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


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "log", (GAMES, LOG, SNAPSHOTS),
              (Index("games_by_update", "games", "over, updated DESC"),
               Index("games_lobby", "games", "updated DESC", "public AND free_seats > 0 AND NOT over")),
              take_over=_sqlite_log),
    Migration(2, "invites and presence", (INVITES, PRESENCE), (Index("invites_by_game", "invites", "game_id"),),
              take_over=_sqlite_seats),
    Migration(3, "chat", (CHAT,), (Index("chat_by_time", "chat", "game_id, at"),)),
    Migration(4, "leases", (LEASES,), (Index("leases_by_owner", "leases", "owner"),)),
    Migration(5, "rematches", (REMATCHES,)),
)
"""Every migration, numbered from 1 without gaps."""
