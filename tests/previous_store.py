"""Files of the previous server versions, written as they wrote them, for the migration tests.

The first server kept one row per game with the whole record (rewritten after every change);
the play-with-friends server added tables of seats and invites. The storage package migrates
both (``binokel.server.storage.migrations``); these helpers make such files.
"""

from __future__ import annotations

import json
import sqlite3
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
-- Play with friends: who holds each person's seat, and the open invites.
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


def write_previous_file(path: Path, game_id: str, *, rules: str, settings: dict[str, Any], seed: int,
                        first_dealer: int, version: int, record: dict[str, Any], totals: list[int], deals: int,
                        over: bool = False, seats: list[tuple[int, str, str, bool]] = (),  # type: ignore[assignment]
                        invites: list[tuple[str, int | None, str]] = ()) -> None:  # type: ignore[assignment]
    """A database of the previous server holding one game; ``seats`` are (seat, name, token
    digest, host) and ``invites`` (code digest, seat or None, expiry) as the friends server kept them."""
    stamp = datetime.now(UTC).isoformat(timespec="milliseconds")
    db = sqlite3.connect(str(path), isolation_level=None)
    try:
        db.executescript(SCHEMA)
        db.execute("BEGIN")
        db.execute("INSERT INTO games (id, created, updated, rules, settings, seed, first_dealer, version, record,"
                   " totals, deals, over) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (game_id, stamp, stamp, rules, json.dumps(settings), seed, first_dealer, version,
                    json.dumps(record), json.dumps(totals), deals, int(over)))
        db.executemany("INSERT INTO seats (game_id, seat, name, token, host, joined) VALUES (?, ?, ?, ?, ?, ?)",
                       [(game_id, seat, name, token, int(host), stamp) for seat, name, token, host in seats])
        db.executemany("INSERT INTO invites (code, game_id, seat, expires) VALUES (?, ?, ?, ?)",
                       [(code, game_id, seat, expires) for code, seat, expires in invites])
        db.execute("COMMIT")
    finally:
        db.close()
