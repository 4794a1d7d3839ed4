"""The embedded store: SQLite from the standard library, one file.

Writes go through one connection under a lock, each in a ``BEGIN IMMEDIATE`` transaction
(WAL journal, ``synchronous=FULL``: a change is on disk before it is acknowledged). Reads use
one connection per thread: in WAL mode they see the last commit without waiting for a
writer and without holding up one. Several processes may share a file (a writer waits up
to ``busy_timeout`` for another's transaction), but change notifications reach only this
process unless a Redis notifier is given.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

from binokel.server.storage.base import (
    JSON,
    NEW_STATUS,
    Entry,
    GameExists,
    GameInfo,
    GameNotFound,
    Gather,
    GroupCommit,
    LocalNotifier,
    Notifier,
    Pending,
    Seat,
    Snapshot,
    Statement,
    Status,
    StorageUnavailable,
    Store,
    StoredGame,
    VersionConflict,
    check_seats,
    dumps,
    log,
    now,
    placeholders,
)
from binokel.server.storage.migrations import MIGRATIONS, Migration
from binokel.server.outage import CALM

T = TypeVar("T")

GATHER_SECONDS = 0.001
"""How long an append waits for other games' appends to join its batch while several games
write often (see :meth:`SQLiteStore._write`): a commit's wait for the disk costs this machine
~0.25 ms of CPU, and tables that each wait for their own append, their steps coming from one
loop, arrive only a few per commit (~6 of 50; ~11 with the wait)."""
OFTEN_SECONDS = 0.005
"""Games write often when an append of one comes within this long of another's commit."""


class SQLiteStore(Store):
    """Games in a SQLite file (``":memory:"`` for a private in-memory database; a
    ``file:…?mode=ro`` URI opens a file read-only).

    >>> store = SQLiteStore(":memory:")
    >>> info = store.create("g1", rules="standard", settings={}, seed=7, first_dealer=0,
    ...                     seats=[Seat("person", None, "Anna"), Seat("bot", "easy", "Bot")],
    ...                     entries=[{"deal": 1}])
    >>> store.append("g1", 1, [{"bid": 150}, {"bid": "pass"}])
    3
    >>> [entry.payload for entry in store.load("g1").entries]
    [{'deal': 1}, {'bid': 150}, {'bid': 'pass'}]
    >>> store.append("g1", 1, [{"bid": 160}])
    Traceback (most recent call last):
    ...
    binokel.server.storage.base.VersionConflict: game g1 is at version 3, not 1
    >>> store.close()
    """

    clock = "binokel_clock()"

    def __init__(self, path: str | os.PathLike[str], *, notifier: Notifier | None = None,
                 busy_timeout: float = 5.0) -> None:
        self.path = str(path)
        self.memory = self.path == ":memory:"
        self.uri = self.path.startswith("file:")
        if not self.memory and not self.uri:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self.busy_timeout = busy_timeout
        self.notifier = notifier or LocalNotifier()
        self._lock = threading.Lock()  # the writer's connection
        self.gather = Gather(GATHER_SECONDS, OFTEN_SECONDS)
        self._group: GroupCommit[_Request[Any]] = GroupCommit(self._commit_batch, gather=self.gather)
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        self._closed = False
        self._failing = False  # writes fail at the moment (logged once, until one lands)
        self._failed_at = 0.0  # when the last write was refused (time.monotonic)
        self.calm = CALM  # an outage ends with a write that changes something this long after the last refusal
        self.commits = 0  # batches written
        try:
            self._db = self._connect()
        except sqlite3.Error as error:
            raise StorageUnavailable(f"cannot open the games database {self.path}: {error}") from error
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")  # on disk before it is acknowledged
            with self._lock:
                self._migrate()
        except sqlite3.Error as error:
            self._db.close()
            raise StorageUnavailable(f"cannot open the games database {self.path}: {error}") from error

    # -- connections and transactions

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, uri=self.uri,
                             timeout=self.busy_timeout)
        db.row_factory = sqlite3.Row
        db.create_function("binokel_clock", 0, time.time)  # Store.clock: this machine's, as SQLite has no finer one
        return db

    def _reader(self) -> sqlite3.Connection:
        """This thread's reading connection (the writer's, under the lock, in memory)."""
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = self._connect()
            self._local.db = db
            with self._readers_lock:
                self._readers.append(db)
        return db

    def _read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        if self._closed:
            raise StorageUnavailable("the games database is closed")
        try:
            if self.memory:  # one private database: there is only the writer's connection
                with self._lock:
                    return work(self._db)
            return work(self._reader())
        except sqlite3.Error as error:
            raise StorageUnavailable(f"cannot read the games database: {error}") from error

    def _write(self, work: Callable[[sqlite3.Connection], T], game_id: str | None = None) -> T:
        """Run ``work`` in a write transaction: all of it is on disk when this returns, or
        none of it (any SQLite error — disk full, read-only file, I/O error — becomes
        StorageUnavailable; an exception of ``work`` itself undoes its changes).

        Group commit (:class:`GroupCommit`): writers that arrive while another is writing queue
        up, and the next one to write runs all of them in one transaction (each under its own
        savepoint, so one refused append does not undo the others) with one commit — one wait
        for the disk for the lot instead of one each (see :data:`GATHER_SECONDS`)."""
        if self._closed:
            raise StorageUnavailable("the games database is closed")
        request: _Request[T] = _Request(work, game_id)
        self._group.run(request)
        return request.outcome()

    def _commit_batch(self, batch: list[_Request[Any]]) -> None:
        """Write ``batch`` in one transaction; then tell the listeners of its submitted appends
        (:meth:`append_soon`; a waiting appender tells its own)."""
        with self._lock:
            self._commit_locked(batch)
        for request in batch:
            if request.tell is not None and request.error is None and request.game_id is not None:
                try:
                    self.notifier.publish(request.game_id, request.result, request.entries)
                except Exception:  # noqa: BLE001 - stored all the same: a listener's failure is logged
                    log.exception("could not announce version %s of game %s", request.result, request.game_id)

    def _commit_locked(self, batch: list[_Request[Any]]) -> None:
        db = self._db
        changes = db.total_changes
        try:
            db.execute("BEGIN IMMEDIATE")
            for request in batch:
                db.execute("SAVEPOINT request")
                try:
                    request.result = request.work(db)
                except Exception as error:
                    if isinstance(error, sqlite3.Error) and not db.in_transaction:
                        raise  # SQLite rolled the whole transaction back (e.g. disk full)
                    db.execute("ROLLBACK TO request")
                    request.error = self._unavailable(error) if isinstance(error, sqlite3.Error) else error
                db.execute("RELEASE request")
            db.execute("COMMIT")
            self.commits += 1
            # Over only once a write changed something (a read-only file commits a write that
            # changes nothing) with no refusal for a while (a nearly full disk takes some writes
            # and refuses others, by turns: one outage, not one per write).
            if self._failing and db.total_changes > changes and time.monotonic() - self._failed_at >= self.calm:
                self._failing = False
                log.warning("games database %s: writes work again", self.path)
        except BaseException as error:
            if db.in_transaction:
                try:
                    db.execute("ROLLBACK")
                except sqlite3.Error:
                    log.exception("rollback failed")
            for request in batch:  # nothing of the batch was written
                request.result = None
                request.error = self._unavailable(error) if isinstance(error, sqlite3.Error) else \
                    StorageUnavailable(f"the write was interrupted: {error!r}")
            if not isinstance(error, Exception):
                raise

    def _unavailable(self, error: sqlite3.Error) -> StorageUnavailable:
        self._failed_at = time.monotonic()
        if not self._failing:  # one line per outage, not one per refused write (or retry)
            self._failing = True
            log.error("games database %s: write failed: %s (writes fail until one works again)", self.path, error)
        return StorageUnavailable(f"cannot write the games database: {error}")

    def _migrate(self) -> None:
        if not self._pending(self._db):  # nothing to do: a read-only file opens too
            return
        db = self._db
        db.execute("BEGIN IMMEDIATE")  # one process migrates; the others wait, then see it done
        try:
            db.execute("CREATE TABLE IF NOT EXISTS schema_migrations"
                       " (number INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TEXT NOT NULL)")
            for migration in self._pending(db):
                log.info("games database %s: migration %d (%s)", self.path, migration.number, migration.name)
                migration.sqlite(db)
                db.execute("INSERT INTO schema_migrations (number, name, applied) VALUES (?, ?, ?)",
                           (migration.number, migration.name, now()))
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    @staticmethod
    def _pending(db: sqlite3.Connection) -> list[Migration]:
        exists = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
        if exists.fetchone() is None:
            return list(MIGRATIONS)
        done = {row[0] for row in db.execute("SELECT number FROM schema_migrations")}
        return [migration for migration in MIGRATIONS if migration.number not in done]

    def set_max_size(self, size: int | None) -> None:
        """Let the file grow to at most ``size`` bytes (None: no limit). Past it a write
        fails as on a full disk (StorageUnavailable) — a cap for a small machine, and a full
        disk on demand for tests."""
        with self._lock:
            page_size = self._db.execute("PRAGMA page_size").fetchone()[0]
            pages = 0xFFFFFFFE if size is None else max(1, size // page_size)
            self._db.execute(f"PRAGMA max_page_count = {int(pages)}")

    def size(self) -> int:
        """The size of the database in bytes (its pages in use)."""
        with self._lock:
            count = self._db.execute("PRAGMA page_count").fetchone()[0]
            page_size = self._db.execute("PRAGMA page_size").fetchone()[0]
        return int(count) * int(page_size)

    def migrations(self) -> list[tuple[int, str]]:
        """The migrations this database has had, in order."""
        return self._read(lambda db: [(row[0], row[1]) for row in
                                      db.execute("SELECT number, name FROM schema_migrations ORDER BY number")])

    # -- writing

    def create(self, game_id: str, *, rules: str, settings: dict[str, Any], seed: int, first_dealer: int,
               seats: Sequence[Seat], public: bool = False, status: Status = NEW_STATUS,
               entries: Sequence[JSON] = (), snapshot: JSON | None = None) -> GameInfo:
        seats = check_seats(seats)
        stamp = now()
        version = len(entries)
        info = GameInfo(id=game_id, created=stamp, updated=stamp, rules=rules, settings=settings, seed=seed,
                        first_dealer=first_dealer, seats=seats, public=public, version=version,
                        totals=tuple(status.totals), deals=status.deals, over=status.over, turn=status.turn)
        row = (game_id, stamp, stamp, rules, dumps(settings), seed, first_dealer,
               dumps([seat.to_json() for seat in seats]), info.free_seats, int(public), version,
               dumps(list(status.totals)), status.deals, int(status.over), status.turn)
        log_rows, snapshot_row = _log_rows(game_id, 0, entries, snapshot)

        def work(db: sqlite3.Connection) -> None:
            if db.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is not None:
                raise GameExists(game_id)
            db.execute(
                "INSERT INTO games (id, created, updated, rules, settings, seed, first_dealer, seats, free_seats,"
                " public, version, totals, deals, over, turn) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row)
            _insert(db, log_rows, snapshot_row)

        self._write(work)
        self.notifier.publish(game_id, version)
        return info

    def append(self, game_id: str, expected_version: int, entries: Sequence[JSON], *,
               status: Status | None = None, seats: Sequence[Seat] | None = None,
               snapshot: JSON | None = None) -> int:
        version = self._write(self._append_work(game_id, expected_version, entries, status, seats, snapshot),
                              game_id)
        self.notifier.publish(game_id, version, entries)
        return version

    def append_soon(self, game_id: str, expected_version: int, entries: Sequence[JSON], *,
                    tell: Callable[[list[Pending]], None], waiter: Any, status: Status | None = None,
                    seats: Sequence[Seat] | None = None, snapshot: JSON | None = None) -> bool:
        """:meth:`append` without a thread waiting for it: the group's writer thread writes it
        with the next batch, tells this process's listeners, then calls ``tell`` (see
        :meth:`Store.append_soon`). Only with this process's own notifier: another (Redis) is
        told by the appender, in a thread."""
        if self._closed:
            raise StorageUnavailable("the games database is closed")
        if type(self.notifier) is not LocalNotifier:
            return False
        request = _Request(self._append_work(game_id, expected_version, entries, status, seats, snapshot),
                           game_id, entries)
        request.tell, request.waiter = tell, waiter
        self._group.submit(request)
        return True

    def _append_work(self, game_id: str, expected_version: int, entries: Sequence[JSON], status: Status | None,
                     seats: Sequence[Seat] | None, snapshot: JSON | None) -> Callable[[sqlite3.Connection], int]:
        """An append's write: the new version, or VersionConflict / GameNotFound."""
        version = expected_version + len(entries)
        sets = ["updated = ?", "version = ?"]
        values: list[Any] = [now(), version]
        if status is not None:
            sets += ["totals = ?", "deals = ?", "over = ?", "turn = ?"]
            values += [dumps(list(status.totals)), status.deals, int(status.over), status.turn]
        if seats is not None:
            seats = check_seats(seats)
            sets += ["seats = ?", "free_seats = ?"]
            values += [dumps([seat.to_json() for seat in seats]), sum(seat.is_free for seat in seats)]
        query = f"UPDATE games SET {', '.join(sets)} WHERE id = ? AND version = ?"
        values += [game_id, expected_version]
        log_rows, snapshot_row = _log_rows(game_id, expected_version, entries, snapshot)  # JSON outside the lock

        def work(db: sqlite3.Connection) -> int:
            # The optimistic check: the row changes only if nobody wrote since expected_version.
            if db.execute(query, values).rowcount != 1:
                row = db.execute("SELECT version FROM games WHERE id = ?", (game_id,)).fetchone()
                if row is None:
                    raise GameNotFound(game_id)
                raise VersionConflict(game_id, expected_version, row[0])
            _insert(db, log_rows, snapshot_row)
            return version

        return work

    def delete(self, game_id: str) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            db.execute("DELETE FROM invites WHERE game_id = ?", (game_id,))
            db.execute("DELETE FROM presence WHERE game_id = ?", (game_id,))
            db.execute("DELETE FROM chat WHERE game_id = ?", (game_id,))
            db.execute("DELETE FROM leases WHERE game_id = ?", (game_id,))
            db.execute("DELETE FROM rematches WHERE game_id = ?", (game_id,))
            db.execute("DELETE FROM log WHERE game_id = ?", (game_id,))
            db.execute("DELETE FROM snapshots WHERE game_id = ?", (game_id,))
            return bool(db.execute("DELETE FROM games WHERE id = ?", (game_id,)).rowcount == 1)

        return self._write(work)

    # -- reading

    def load(self, game_id: str, *, after: int | None = None, from_snapshot: bool = True) -> StoredGame | None:
        def work(db: sqlite3.Connection) -> StoredGame | None:
            # One read transaction: the metadata, snapshot and entries are of one moment.
            db.execute("BEGIN")
            try:
                row = db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
                if row is None:
                    return None
                if after is not None:
                    return StoredGame(_info(row), None, tuple(_entries(db, game_id, after)))
                if from_snapshot:
                    base = db.execute("SELECT version, payload FROM snapshots WHERE game_id = ?"
                                      " ORDER BY version DESC LIMIT 1", (game_id,)).fetchone()
                else:  # the snapshot the log starts from, if it does not start at version 1
                    first = db.execute("SELECT min(version) FROM log WHERE game_id = ?", (game_id,)).fetchone()[0]
                    start = first if first is not None else row["version"] + 1
                    base = db.execute("SELECT version, payload FROM snapshots WHERE game_id = ? AND version < ?"
                                      " ORDER BY version DESC LIMIT 1", (game_id, start)).fetchone()
                snapshot = Snapshot(base[0], json.loads(base[1])) if base is not None else None
                entries = _entries(db, game_id, snapshot.version if snapshot else 0)
                return StoredGame(_info(row), snapshot, tuple(entries))
            finally:
                db.execute("COMMIT")

        return self._read(work)

    def _infos(self, sql: str, values: Sequence[Any]) -> list[GameInfo]:
        return [_info(row) for row in self._read(lambda db: db.execute(sql, values).fetchall())]

    # -- seats

    def held(self, token_hashes: Sequence[str]) -> list[tuple[str, int]]:
        if not token_hashes:
            return []
        marks = placeholders(len(token_hashes))
        rows = self._read(lambda db: db.execute(
            f"SELECT games.id, CAST(seat.key AS INTEGER) FROM games, json_each(games.seats) AS seat"
            f" WHERE json_extract(seat.value, '$.token_hash') IN ({marks})"
            f" UNION ALL SELECT game_id, seat FROM invites WHERE seat = -1 AND code IN ({marks})",
            [*token_hashes, *token_hashes]).fetchall())
        return [(row[0], row[1]) for row in rows]

    def execute(self, statements: Sequence[Statement]) -> None:
        def work(db: sqlite3.Connection) -> None:
            for sql, parameters in statements:
                db.execute(sql, parameters)

        self._write(work)

    def query(self, sql: str, parameters: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return [tuple(row) for row in self._read(lambda db: db.execute(sql, parameters).fetchall())]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._group.close()  # what was submitted is written first
        self.notifier.close()
        with self._lock:
            self._db.close()
        # Readers are other threads' connections, maybe in the middle of a query: closing one
        # from here can crash the process, so they are let go and close in their own thread.
        with self._readers_lock:
            self._readers.clear()


class _Request(Pending, Generic[T]):
    """One write waiting for its batch; an append's ``game_id`` and (submitted) ``entries``."""

    __slots__ = ("entries", "work")

    def __init__(self, work: Callable[[sqlite3.Connection], T], game_id: str | None,
                 entries: Sequence[JSON] = ()) -> None:
        super().__init__(game_id)
        self.work = work
        self.entries = entries

    def outcome(self) -> T:
        return super().outcome()  # type: ignore[no-any-return]  # T itself may be None


LogRow = tuple[str, int, str]


def _log_rows(game_id: str, after: int, entries: Sequence[JSON],
              snapshot: JSON | None) -> tuple[list[LogRow], LogRow | None]:
    rows = [(game_id, after + i, dumps(payload)) for i, payload in enumerate(entries, 1)]
    return rows, (game_id, after + len(entries), dumps(snapshot)) if snapshot is not None else None


def _insert(db: sqlite3.Connection, rows: list[LogRow], snapshot: LogRow | None) -> None:
    db.executemany("INSERT INTO log (game_id, version, payload) VALUES (?, ?, ?)", rows)
    if snapshot is not None:
        db.execute("INSERT INTO snapshots (game_id, version, payload) VALUES (?, ?, ?)", snapshot)


def _entries(db: sqlite3.Connection, game_id: str, after: int) -> list[Entry]:
    rows = db.execute("SELECT version, payload FROM log WHERE game_id = ? AND version > ? ORDER BY version",
                      (game_id, after)).fetchall()
    return [Entry(row[0], json.loads(row[1])) for row in rows]


def _info(row: sqlite3.Row) -> GameInfo:
    return GameInfo(
        id=row["id"], created=row["created"], updated=row["updated"], rules=row["rules"],
        settings=json.loads(row["settings"]), seed=row["seed"], first_dealer=row["first_dealer"],
        seats=tuple(Seat.from_json(seat) for seat in json.loads(row["seats"])), public=bool(row["public"]),
        version=row["version"], totals=tuple(json.loads(row["totals"])), deals=row["deals"],
        over=bool(row["over"]), turn=row["turn"])
