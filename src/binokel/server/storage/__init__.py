"""Where games are kept: one interface (:class:`Store`), two databases.

:func:`open_store` picks the implementation from a target: ``None`` (then ``BINOKEL_DB``,
else the SQLite file in the user's data folder), a SQLite path, or a
``postgresql://user@host/db`` URL (psycopg 3: ``pip install 'binokel[postgres]'``).

**A game** is its metadata (:class:`GameInfo`: id, created/updated, rules text, settings,
seed, first dealer, the seats — person or bot, level, name, and the *hash* of a person's
seat token, never the token — whether it is in the public lobby, and for the lists its
totals, deals, whether it is over and whose turn it is) plus an **append-only log**: entries
numbered 1, 2, … (the version each one makes), each an opaque JSON payload the table driver
chooses (a chance step, an action), and optional **snapshots** (the whole state at a version,
so a long game is rebuilt without replaying from the start). A game's ``version`` is the
number of its last entry.

**Writing.** :meth:`Store.create` stores a game with its first entries.
:meth:`Store.append(game_id, expected_version, entries) <Store.append>` adds entries
``expected_version + 1, …`` **only if the game is still at expected_version**, otherwise it
raises :class:`VersionConflict` and writes nothing: several processes may hold the same
table, and the one whose command was decided on an older version must reload and decide
again (the optimistic version check; see docs/server.md). The metadata (``status``,
``seats``) change in the same transaction. A write costs the same at any length of game:
new rows, one metadata row updated, nothing rewritten. It is durable when the call
returns (SQLite: WAL, ``synchronous=FULL``; PostgreSQL: a committed transaction).

**Reading.** :meth:`Store.load` gives the latest snapshot and the entries after it (or the
whole log, or the entries after a version); :meth:`Store.games` the games among some ids
(a browser's own), the public tables with a free seat (``lobby=True``), or everything
(administration). Reads never wait for a writer.

**Their own tables**, each a small module written once for both databases over
:meth:`Store.execute` and :meth:`Store.query` (SQL with ``?`` placeholders): invite codes
(:mod:`.invites`), which process holds a connection of which seat (:mod:`.presence`), chat
lines (:mod:`.chat`), which process takes a table's unasked steps (:mod:`.lease`), and the
rematch of a finished game (:mod:`.rematch`).

**Faults.** A database that cannot be read or written (disk full, read-only file,
PostgreSQL down) raises :class:`StorageUnavailable`; nothing was written (a transaction is
all or nothing) and the store recovers by itself once the fault is gone — PostgreSQL
connections are re-established on the next call, with one log line when the database goes
and one when it is back. One case is undecidable from here: a PostgreSQL connection lost
while a write was in flight may or may not have committed it, so after StorageUnavailable
from :meth:`Store.append` the caller reloads before it decides again (a retried append
then meets VersionConflict if the first one did land).

**Notification.** ``store.notifier.subscribe(listener)`` hears every change
(``Change(game_id, version)``) made through any store on the same database: PostgreSQL's
``LISTEN/NOTIFY``, Redis pub/sub when a ``redis://`` URL is given (any database), or in this
process only (SQLite without Redis). A change is announced after its commit (never a
refused one); a process that dies in between leaves it stored but unannounced. A process
hears its own changes too. ``Change(None, None)`` means the listening connection was lost
and re-established: re-read the games you follow.

**Threads, not async.** Every method blocks and is safe from several threads at once: an
asyncio server calls them with ``await asyncio.to_thread(store.append, …)`` so the event
loop never waits for a disk or a database. ``append_soon`` starts an append without a thread
waiting for it, where the store can (the group commit's writer thread tells the batch's
outcomes: PostgreSQL with its LISTEN/NOTIFY, SQLite with its own notifier).
Listeners run in a background thread and hand changes to the loop with
``loop.call_soon_threadsafe``.

**Schema** is created and migrated by the store itself when it opens (numbered migrations
recorded in ``schema_migrations``, see :mod:`binokel.server.storage.migrations`); a SQLite
file of the previous server (one row per game with the whole record) is taken over: each
game becomes its metadata plus one snapshot holding its ``binokel-game/1`` record.

>>> store = open_store(":memory:")
>>> seats = [Seat("person", None, "Anna", token_hash("secret")), Seat("bot", "easy", "Ben"),
...          Seat("person", None, "a friend")]
>>> _ = store.create("g1", rules="standard", settings={}, seed=1, first_dealer=0, seats=seats,
...                  public=True, entries=[{"chance": "deal"}])
>>> store.append("g1", 1, [{"action": "150"}], status=Status(totals=(0, 0, 0), deals=1, turn=1))
2
>>> [game.id for game in store.games(lobby=True)], store.games(["g1"])[0].turn
(['g1'], 1)
>>> store.close()
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from binokel.server.storage.base import (
    JSON,
    Change,
    Entry,
    GameExists,
    GameInfo,
    GameNotFound,
    LocalNotifier,
    Notifier,
    Seat,
    Snapshot,
    Status,
    StorageError,
    StorageUnavailable,
    Store,
    StoredGame,
    Subscription,
    VersionConflict,
    now,
    token_hash,
)
from binokel.server.storage.invites import HOST_SEAT, NEVER, Invite
from binokel.server.storage.presence import Presence
from binokel.server.storage.sqlite import SQLiteStore

__all__ = [
    "HOST_SEAT",
    "JSON",
    "NEVER",
    "Change",
    "Entry",
    "GameExists",
    "GameInfo",
    "GameNotFound",
    "Invite",
    "LocalNotifier",
    "Notifier",
    "Presence",
    "SQLiteStore",
    "Seat",
    "Snapshot",
    "Status",
    "StorageError",
    "StorageUnavailable",
    "Store",
    "StoredGame",
    "Subscription",
    "VersionConflict",
    "default_db_path",
    "is_postgres_url",
    "now",
    "open_store",
    "token_hash",
]

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(target: str | os.PathLike[str] | None) -> bool:
    """Whether a ``--db`` value names a PostgreSQL database rather than a SQLite file.

    >>> is_postgres_url("postgresql://postgres@127.0.0.1/binokel"), is_postgres_url("games.sqlite3")
    (True, False)
    """
    return isinstance(target, str) and target.startswith(POSTGRES_SCHEMES)


def default_db_path() -> Path:
    """The default SQLite file, in the user's data folder: $XDG_DATA_HOME/binokel
    (~/.local/share/binokel), or the platform's equivalent on Windows and macOS."""
    if sys.platform == "win32" and os.environ.get("APPDATA"):
        base = Path(os.environ["APPDATA"])
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "binokel" / "binokel.sqlite3"


def open_store(target: str | os.PathLike[str] | None = None, *, redis: str | None = None,
               timeout: float = 5.0) -> Store:
    """The store for ``target`` (see the module docstring), with its schema up to date.

    ``target`` None reads ``BINOKEL_DB``, else the default SQLite file in the user's data
    folder. ``redis`` (else ``BINOKEL_REDIS``) is a ``redis://`` URL for change notification
    by Redis pub/sub instead of the database's own. ``timeout`` bounds the wait for
    PostgreSQL. Raises StorageUnavailable if the database cannot be opened.
    """
    if target is None:
        target = os.environ.get("BINOKEL_DB") or None
    if target is None:
        target = default_db_path()
    redis = redis or os.environ.get("BINOKEL_REDIS") or None
    notifier: Notifier | None = None
    if redis:
        try:
            from binokel.server.storage.notify import RedisNotifier
        except ImportError as error:
            raise StorageError("notification through Redis needs the redis package: pip install redis") from error
        notifier = RedisNotifier(redis)
    if is_postgres_url(target):
        try:
            from binokel.server.storage.postgres import PostgresStore
        except ImportError as error:
            raise StorageError("PostgreSQL needs psycopg: pip install 'binokel[postgres]'") from error
        return PostgresStore(str(target), notifier=notifier, timeout=timeout)
    if str(target).startswith(("redis://", "rediss://")):
        raise StorageError("a redis:// URL is for notification (--redis), not a database")
    return SQLiteStore(target, notifier=notifier)
