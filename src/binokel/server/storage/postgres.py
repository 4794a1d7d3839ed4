"""The shared store: PostgreSQL through psycopg 3 (``pip install 'binokel[postgres]'``).

Several server processes, on one machine or several, share one database. Each process
keeps a small pool of connections; one that died while idle (PostgreSQL restarted, the
backend was terminated) is replaced on the next call, which then simply works. While
PostgreSQL cannot be reached, every call fails within ``timeout`` seconds with
StorageUnavailable; one log line says the database is gone, one that it is back.

Appends are written with **group commit**: those that arrive while a batch is being written
wait, and the next batch writes all of them (one per game) with **one statement**
(:data:`APPEND`), so one round trip and one transaction: the optimistic check
(``UPDATE games … WHERE version = …``) and the new log rows of every game that moved, and
their ``pg_notify`` in the same transaction. PostgreSQL holds its notification lock from the
commit until the commit is on disk, so notifying commits are serialized across the
database — once per batch, not once per append (with a NOTIFY per append in its writing
transaction, 16 writers made 184–372 appends/s instead of 1,085; a notification of its own,
after the commit, cost each append a second round trip and left a change stored but
unannounced if the process died in between). A notification reaches the listeners only once
its transaction has committed: nobody hears of a step before it is stored.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, TypeVar

import psycopg
from psycopg import sql
from psycopg.rows import dict_row

from binokel.server.storage.base import (
    JSON,
    NEW_STATUS,
    Change,
    Entry,
    GameExists,
    GameInfo,
    GameNotFound,
    Gather,
    GroupCommit,
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
    change_text,
    now,
)
from binokel.server.storage.migrations import MIGRATIONS

T = TypeVar("T")
Row = dict[str, Any]
Connection = psycopg.Connection[Row]

CHANNEL = "binokel_games"
SHUT_DOWN = {"57P01", "57P02", "57P03"}  # admin_shutdown, crash_shutdown, cannot_connect_now
MIGRATION_LOCK = 0x62696E6F6B656C  # "binokel": the advisory lock taken while migrating
GATHER_SECONDS = 0.005
"""How long a batch of appends waits for other games' appends to join it while several games
write often (:class:`~binokel.server.storage.base.Gather`). At 1,000 tables of people on two
processes a batch held 1.4 appends without the wait and about 3 with it; each batch costs its
statement, a commit and a wake of the loop, and the server's CPU per step fell by about a fifth
(docs/server.md "Round eighteen"). It adds about 5 ms to a step's answer; 10 ms doubled the p95."""
OFTEN_SECONDS = 0.05
"""Games write often when an append of one comes within this long of another's batch."""

# What a fault of the database or the network raises (OperationalError: connection lost,
# disk full, shut down; InternalError: e.g. a read-only transaction on a standby).
FAULTS: tuple[type[Exception], ...] = (psycopg.OperationalError, psycopg.InterfaceError, psycopg.InternalError,
                                       TimeoutError)


class PostgresStore(Store):
    """Games in a PostgreSQL database, given by a ``postgresql://`` URL (any libpq
    connection string works). Blocking methods, safe from several threads: up to
    ``pool_size`` calls run at once, each on its own connection."""

    clock = "extract(epoch FROM clock_timestamp())::float"

    def __init__(self, url: str, *, notifier: Notifier | None = None, pool_size: int = 8,
                 timeout: float = 5.0) -> None:
        self.url = url
        self.timeout = timeout
        self._pool = _Pool(url, pool_size, timeout)
        self.gather = Gather(GATHER_SECONDS, OFTEN_SECONDS)
        self._appends: GroupCommit[_Append] = GroupCommit(self._write_appends, key=lambda request: request.game_id,
                                                          gather=self.gather)
        self._down = False
        self._down_lock = threading.Lock()
        self.notifier = notifier or PostgresNotifier(url)
        try:
            self._run(self._migrate)
        except BaseException:
            self.close()
            raise

    # -- connections

    def _run(self, work: Callable[[Connection], T], *, mode: str = "read") -> T:
        """Run ``work`` on a pooled connection; a fault of the database becomes
        StorageUnavailable, logged once until it is over. ``mode``: ``"read"``,
        ``"transaction"`` (work that writes, in BEGIN … COMMIT), or ``"statement"`` (work that
        writes with one statement, its own transaction).

        A connection lent from the pool may have died while it was idle (PostgreSQL
        restarted, the backend was terminated): then the work is done again, once, on a new
        connection — when that is safe: always for a read; for a transaction unless the
        connection died during the COMMIT; for a single statement only if PostgreSQL said it
        shut the connection down (SQLSTATE 57P01-57P03: the statement did not run). Otherwise
        the outcome is unknown and the fault is raised (see the package docstring)."""
        try:
            try:
                result = self._attempt(work, mode, fresh=False)
            except _Stale as stale:
                log.warning("a PostgreSQL connection to %s was lost (%s); reconnecting", _safe(self.url),
                            _first_line(stale.__cause__))
                result = self._attempt(work, mode, fresh=True)
        except FAULTS as error:
            with self._down_lock:
                first, self._down = not self._down, True
            if first:
                log.error("PostgreSQL at %s is unavailable (%s): calls fail until it is back", _safe(self.url),
                          _first_line(error))
            raise StorageUnavailable(f"the games database is unavailable: {_first_line(error)}") from error
        except BaseException:
            self._reachable()  # the database answered (e.g. VersionConflict)
            raise
        self._reachable()
        return result

    def _reachable(self) -> None:
        if self._down:
            with self._down_lock:
                back, self._down = self._down, False
            if back:
                log.warning("PostgreSQL at %s is reachable again", _safe(self.url))

    def _attempt(self, work: Callable[[Connection], T], mode: str, *, fresh: bool) -> T:
        with self._pool.connection(fresh=fresh) as (conn, reused):
            committing = False
            try:
                if mode != "transaction":
                    return work(conn)
                conn.execute("BEGIN")
                try:
                    result = work(conn)
                except BaseException:
                    if not conn.broken:
                        conn.execute("ROLLBACK")
                    raise
                committing = True
                conn.execute("COMMIT")
                return result
            except FAULTS as error:
                safe = {"read": True, "transaction": not committing,
                        "statement": getattr(error, "sqlstate", None) in SHUT_DOWN}[mode]
                if reused and conn.broken and safe:
                    raise _Stale() from error
                raise

    def _migrate(self, conn: Connection) -> None:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))  # one process migrates
            conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations (number integer PRIMARY KEY,"
                         " name text NOT NULL, applied timestamptz NOT NULL)")
            done = {row["number"] for row in conn.execute("SELECT number FROM schema_migrations")}
            for migration in MIGRATIONS:
                if migration.number not in done:
                    log.info("PostgreSQL %s: migration %d (%s)", _safe(self.url), migration.number, migration.name)
                    conn.execute(migration.postgres.encode())  # several statements, no parameters
                    conn.execute("INSERT INTO schema_migrations (number, name, applied) VALUES (%s, %s, now())",
                                 (migration.number, migration.name))

    def migrations(self) -> list[tuple[int, str]]:
        """The migrations this database has had, in order."""
        return self._run(lambda conn: [(row["number"], row["name"]) for row in
                                       conn.execute("SELECT number, name FROM schema_migrations ORDER BY number")])

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

        def work(conn: Connection) -> None:
            inserted = conn.execute(
                "INSERT INTO games (id, created, updated, rules, settings, seed, first_dealer, seats, free_seats,"
                " public, version, totals, deals, over, turn) VALUES (%s, %s, %s, %s, %s::jsonb, %s, %s, %s::jsonb,"
                " %s, %s, %s, %s::jsonb, %s, %s, %s) ON CONFLICT (id) DO NOTHING",
                (game_id, stamp, stamp, rules, dumps(settings), seed, first_dealer,
                 dumps([seat.to_json() for seat in seats]), info.free_seats, public, version,
                 dumps(list(status.totals)), status.deals, status.over, status.turn)).rowcount
            if inserted != 1:
                raise GameExists(game_id)
            self._insert(conn, game_id, 0, entries, snapshot)

        self._run(work, mode="transaction")
        self._published(game_id, version)
        return info

    def append(self, game_id: str, expected_version: int, entries: Sequence[JSON], *,
               status: Status | None = None, seats: Sequence[Seat] | None = None,
               snapshot: JSON | None = None) -> int:
        request = self._append_request(game_id, expected_version, entries, status, seats, snapshot)
        self._appends.run(request)
        request.outcome()
        if not isinstance(self.notifier, PostgresNotifier):
            self._published(game_id, request.row["version"], entries)
        return int(request.row["version"])

    def append_soon(self, game_id: str, expected_version: int, entries: Sequence[JSON], *,
                    tell: Callable[[list[Pending]], None], waiter: Any, status: Status | None = None,
                    seats: Sequence[Seat] | None = None, snapshot: JSON | None = None) -> bool:
        """:meth:`append` without a thread waiting for it: its batch's writer calls ``tell``
        with the written requests (``request.waiter`` is ``waiter``; ``request.outcome()`` the
        new version or the error). Only with LISTEN/NOTIFY, whose notification is in the
        batch's transaction (another notifier is told after the commit, by the appender)."""
        if not isinstance(self.notifier, PostgresNotifier):
            return False
        request = self._append_request(game_id, expected_version, entries, status, seats, snapshot)
        request.tell, request.waiter = tell, waiter
        self._appends.submit(request)
        return True

    def _append_request(self, game_id: str, expected_version: int, entries: Sequence[JSON],
                        status: Status | None, seats: Sequence[Seat] | None, snapshot: JSON | None) -> _Append:
        version = expected_version + len(entries)
        text = dumps(list(entries))
        row: dict[str, Any] = {"id": game_id, "expected": expected_version, "version": version, "updated": now(),
                               "entries": text, "status": status is not None,
                               "snapshot": dumps(snapshot) if snapshot is not None else None}
        if status is not None:
            row |= {"totals": list(status.totals), "deals": status.deals, "over": status.over, "turn": status.turn}
        if seats is not None:
            seats = check_seats(seats)
            row |= {"seats": [seat.to_json() for seat in seats], "free": sum(seat.is_free for seat in seats)}
        if isinstance(self.notifier, PostgresNotifier):
            row["note"] = change_text(game_id, version, entries, entries_text=text)
        return _Append(game_id, expected_version, row)

    def _write_appends(self, batch: list[_Append]) -> None:
        """Write a batch of appends to different games with one statement (:data:`APPEND`):
        one round trip and one commit for the lot, its notifications in the same transaction.
        A refused append is looked up (VersionConflict or GameNotFound); a batch the database
        refuses as a whole (a payload it cannot store) is written again one append at a time."""
        rows = dumps([{**request.row, "n": n} for n, request in enumerate(batch)])
        query = APPEND.format(notify=", pg_notify('binokel_games', moved.note)"
                              if isinstance(self.notifier, PostgresNotifier) else "").encode()
        try:
            moved = self._run(lambda conn: {row["n"] for row in conn.execute(query, (rows,)).fetchall()},
                              mode="statement")
        except psycopg.Error as error:  # not a fault of the database (those are StorageUnavailable)
            if len(batch) == 1:
                raise
            log.warning("a batch of %d appends was refused (%s); writing them one by one", len(batch),
                        _first_line(error))
            for request in batch:
                try:
                    self._write_appends([request])
                except Exception as alone:  # noqa: BLE001 - this append's own outcome
                    request.error = alone
            return
        refused = [request.game_id for n, request in enumerate(batch) if n not in moved]
        versions: dict[str, int] = {}
        if refused:
            versions = self._run(lambda conn: {row["id"]: row["version"] for row in conn.execute(
                "SELECT id, version FROM games WHERE id = ANY(%s)", (refused,)).fetchall()})
        for n, request in enumerate(batch):
            if n in moved:
                request.result = request.row["version"]
            elif request.game_id in versions:
                request.error = VersionConflict(request.game_id, request.expected, versions[request.game_id])
            else:
                request.error = GameNotFound(request.game_id)

    def _insert(self, conn: Connection, game_id: str, after: int, entries: Sequence[JSON],
                snapshot: JSON | None) -> None:
        if entries:
            with conn.cursor() as cursor:
                cursor.executemany("INSERT INTO log (game_id, version, payload) VALUES (%s, %s, %s::jsonb)",
                                   [(game_id, after + i, dumps(payload)) for i, payload in enumerate(entries, 1)])
        if snapshot is not None:
            conn.execute("INSERT INTO snapshots (game_id, version, payload) VALUES (%s, %s, %s::jsonb)",
                         (game_id, after + len(entries), dumps(snapshot)))

    def _published(self, game_id: str, version: int, entries: Sequence[JSON] | None = None) -> None:
        """After a commit: tell the listeners. The change is stored whatever happens here,
        so a failure is logged, not raised."""
        try:
            self._notify(game_id, version, entries)
        except StorageUnavailable as error:
            log.error("could not announce version %d of game %s: %s", version, game_id, error)

    def notify(self, game_id: str, version: int) -> None:
        self._notify(game_id, version, None)

    def _notify(self, game_id: str, version: int, entries: Sequence[JSON] | None) -> None:
        if isinstance(self.notifier, PostgresNotifier):
            # Its own transaction, not waiting for the disk (see the module docstring).
            statement = _notification(game_id, version, entries)
            self._run(lambda conn: conn.execute(statement))
        else:
            self.notifier.publish(game_id, version, entries)

    def delete(self, game_id: str) -> bool:
        # The log and the snapshots go with the game (ON DELETE CASCADE).
        return self._run(lambda conn: conn.execute("DELETE FROM games WHERE id = %s", (game_id,)).rowcount == 1,
                         mode="transaction")

    # -- reading

    def load(self, game_id: str, *, after: int | None = None, from_snapshot: bool = True) -> StoredGame | None:
        def work(conn: Connection) -> StoredGame | None:
            row = conn.execute("SELECT * FROM games WHERE id = %s", (game_id,)).fetchone()
            if row is None:
                return None
            info = _info(row)
            if after is not None:
                return StoredGame(info, None, tuple(_entries(conn, game_id, after, info.version)))
            # Entries up to the version read are committed and never change, so reading
            # them after the row (without a transaction) gives one consistent picture.
            if from_snapshot:
                base = conn.execute("SELECT version, payload FROM snapshots WHERE game_id = %s AND version <= %s"
                                    " ORDER BY version DESC LIMIT 1", (game_id, info.version)).fetchone()
            else:
                first = conn.execute("SELECT min(version) AS first FROM log WHERE game_id = %s",
                                     (game_id,)).fetchone()
                start = first["first"] if first and first["first"] is not None else info.version + 1
                base = conn.execute("SELECT version, payload FROM snapshots WHERE game_id = %s AND version < %s"
                                    " ORDER BY version DESC LIMIT 1", (game_id, start)).fetchone()
            snapshot = Snapshot(base["version"], base["payload"]) if base is not None else None
            entries = _entries(conn, game_id, snapshot.version if snapshot else 0, info.version)
            return StoredGame(info, snapshot, tuple(entries))

        return self._run(work)

    def _infos(self, sql: str, values: Sequence[Any]) -> list[GameInfo]:
        return [_info(row) for row in self._run(lambda conn: conn.execute(_dialect(sql), values).fetchall())]

    def held(self, token_hashes: Sequence[str]) -> list[tuple[str, int]]:
        if not token_hashes:
            return []
        rows = self._run(lambda conn: conn.execute(
            "SELECT games.id AS game_id, (seat.n - 1)::integer AS seat"
            " FROM games, jsonb_array_elements(games.seats) WITH ORDINALITY AS seat (value, n)"
            " WHERE seat.value->>'token_hash' = ANY(%s)"
            " UNION ALL SELECT game_id, seat FROM invites WHERE seat = -1 AND code = ANY(%s)",
            (list(token_hashes), list(token_hashes))).fetchall())
        return [(row["game_id"], row["seat"]) for row in rows]

    def execute(self, statements: Sequence[Statement]) -> None:
        def work(conn: Connection) -> None:
            for text, parameters in statements:
                conn.execute(_dialect(text), parameters)

        self._run(work, mode="transaction" if len(statements) > 1 else "statement")

    def query(self, sql: str, parameters: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        rows = self._run(lambda conn: conn.execute(_dialect(sql), parameters).fetchall())
        return [tuple(row.values()) for row in rows]

    def close(self) -> None:
        appends = getattr(self, "_appends", None)
        if appends is not None:
            appends.close()
        notifier = getattr(self, "notifier", None)
        if notifier is not None:
            notifier.close()
        self._pool.close()


APPEND = """
    WITH batch AS (
        SELECT * FROM jsonb_to_recordset(%s::jsonb) AS b (n integer, id text, expected integer, version integer,
            updated timestamptz, entries text, status boolean, totals jsonb, deals integer, over boolean,
            turn integer, seats jsonb, free integer, snapshot text, note text)
    ), locked AS (
        SELECT games.id, games.version FROM games JOIN batch USING (id) ORDER BY games.id FOR UPDATE OF games
    ), moved AS (
        UPDATE games SET updated = b.updated, version = b.version,
            totals = CASE WHEN b.status THEN b.totals ELSE games.totals END,
            deals = CASE WHEN b.status THEN b.deals ELSE games.deals END,
            over = CASE WHEN b.status THEN b.over ELSE games.over END,
            turn = CASE WHEN b.status THEN b.turn ELSE games.turn END,
            seats = coalesce(b.seats, games.seats), free_seats = coalesce(b.free, games.free_seats)
        FROM batch AS b JOIN locked USING (id)
        WHERE games.id = b.id AND locked.version = b.expected
        RETURNING b.n, b.id, b.expected, b.version, b.entries, b.snapshot, b.note
    ), logged AS (
        INSERT INTO log (game_id, version, payload)
        SELECT moved.id, moved.expected + entry.number, entry.payload
        FROM moved, jsonb_array_elements(moved.entries::jsonb) WITH ORDINALITY AS entry (payload, number)
    ), snapped AS (
        INSERT INTO snapshots (game_id, version, payload)
        SELECT moved.id, moved.version, moved.snapshot::jsonb FROM moved WHERE moved.snapshot IS NOT NULL
    )
    SELECT moved.n{notify} FROM moved"""
"""Appends to different games in one statement, so one round trip and one transaction.
``batch``: one row per append (the entries and the snapshot as JSON text, its notification's
text). ``locked``: the games' rows, locked in the order of their ids, so that two batches
(of two processes) never wait for each other in a cycle; in READ COMMITTED a row that another
transaction changed meanwhile is read as it is now. ``moved``: the optimistic check — a game
changes only if it is still at the expected version — and the new metadata. Then the log
rows and the snapshots of the games that moved, and (with LISTEN/NOTIFY) their
notifications, which PostgreSQL delivers only once the transaction has committed."""


class _Append(Pending):
    """One append waiting for its batch: its game, the version it expects, its row of
    :data:`APPEND`'s ``batch``."""

    __slots__ = ("expected", "row")
    game_id: str

    def __init__(self, game_id: str, expected: int, row: dict[str, Any]) -> None:
        super().__init__(game_id)
        self.expected = expected
        self.row = row


class _Stale(Exception):
    """A connection from the pool turned out dead before anything was committed."""


class _Slots:
    """A semaphore that serves waiters in arrival order: a freed slot goes straight to the
    longest waiter, so under load no caller waits out the timeout while others barge past."""

    def __init__(self, size: int) -> None:
        self._free = size
        self._waiters: deque[threading.Event] = deque()
        self._lock = threading.Lock()

    def acquire(self, timeout: float) -> bool:
        with self._lock:
            if self._free > 0 and not self._waiters:
                self._free -= 1
                return True
            turn = threading.Event()
            self._waiters.append(turn)
        if turn.wait(timeout):
            return True
        with self._lock:
            if turn.is_set():  # handed over just as the wait ended
                return True
            self._waiters.remove(turn)
            return False

    def release(self) -> None:
        with self._lock:
            if self._waiters:
                self._waiters.popleft().set()
            else:
                self._free += 1


class _Pool:
    """Up to ``size`` connections, each lent to one caller at a time. A caller gets an idle
    connection or, if there is none, a new one at once: so the first call after PostgreSQL
    is back works, with no background retries and no backoff to wait for (which is why this
    is not ``psycopg_pool``). A connection that broke is closed, never lent again."""

    def __init__(self, url: str, size: int, timeout: float) -> None:
        self.url = url
        self.timeout = timeout
        self._slots = _Slots(size)
        self._idle: list[Connection] = []
        self._lock = threading.Lock()
        self._closed = False

    @contextmanager
    def connection(self, *, fresh: bool) -> Iterator[tuple[Connection, bool]]:
        """A connection and whether it was idle in the pool (so perhaps dead by now)."""
        if not self._slots.acquire(timeout=self.timeout):
            raise TimeoutError(f"all PostgreSQL connections stayed busy for {self.timeout:g} s")
        try:
            conn, reused = self._take(fresh)
            try:
                yield conn, reused
            finally:
                with self._lock:
                    if conn.broken or conn.closed or self._closed:
                        conn.close()
                    else:
                        self._idle.append(conn)
        finally:
            self._slots.release()

    def _take(self, fresh: bool) -> tuple[Connection, bool]:
        with self._lock:
            if self._closed:
                raise psycopg.InterfaceError("the games database is closed")
            while self._idle and not fresh:
                conn = self._idle.pop()
                if not conn.closed and not conn.broken:
                    return conn, True
                conn.close()
        conn = psycopg.connect(self.url, autocommit=True, connect_timeout=max(1, round(self.timeout)),
                               row_factory=dict_row)
        conn.execute("SET TIME ZONE 'UTC'")
        return conn, False

    def close(self) -> None:
        with self._lock:
            self._closed = True
            for conn in self._idle:
                conn.close()
            self._idle.clear()


def _dialect(text: str) -> bytes:
    """A :data:`Statement`'s SQL for psycopg: ``%s`` placeholders instead of ``?`` (the
    statements of this package hold no ``?`` or ``%`` of their own)."""
    return text.replace("%", "%%").replace("?", "%s").encode()


def _first_line(error: BaseException | None) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _entries(conn: Connection, game_id: str, after: int, upto: int | None) -> list[Entry]:
    if upto is None:
        rows = conn.execute("SELECT version, payload FROM log WHERE game_id = %s AND version > %s ORDER BY version",
                            (game_id, after)).fetchall()
    else:
        rows = conn.execute("SELECT version, payload FROM log WHERE game_id = %s AND version > %s AND version <= %s"
                            " ORDER BY version", (game_id, after, upto)).fetchall()
    return [Entry(row["version"], row["payload"]) for row in rows]


def _notification(game_id: str, version: int, entries: Sequence[JSON] | None = None) -> sql.Composed:
    """NOTIFY in a transaction of its own that does not wait for the disk (nothing in it
    needs to be durable, and PostgreSQL holds its notification lock until the commit)."""
    return sql.SQL("BEGIN; SET LOCAL synchronous_commit TO off; SELECT pg_notify({}, {}); COMMIT").format(
        sql.Literal(CHANNEL), sql.Literal(change_text(game_id, version, entries)))


def _stamp(value: datetime) -> str:
    return value.astimezone(UTC).isoformat(timespec="milliseconds")


def _info(row: Row) -> GameInfo:
    return GameInfo(
        id=row["id"], created=_stamp(row["created"]), updated=_stamp(row["updated"]), rules=row["rules"],
        settings=row["settings"], seed=row["seed"], first_dealer=row["first_dealer"],
        seats=tuple(Seat.from_json(seat) for seat in row["seats"]), public=row["public"], version=row["version"],
        totals=tuple(row["totals"]), deals=row["deals"], over=row["over"], turn=row["turn"])


def _safe(url: str) -> str:
    """The URL without its password, for log lines."""
    try:
        info = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "(the given database)"
    host, port, dbname, user = (info.get(key) for key in ("host", "port", "dbname", "user"))
    return f"{user or ''}@{host or 'localhost'}:{port or 5432}/{dbname or ''}"


class PostgresNotifier(Notifier):
    """Change notification through PostgreSQL's ``LISTEN``/``NOTIFY`` on channel
    ``binokel_games`` (payload ``game_id:version``): every process connected to the
    database hears every change. One background thread per process listens on its own
    connection and reconnects when it is lost (then listeners get a Change(None, None))."""

    def __init__(self, url: str, *, retry: float = 1.0) -> None:
        super().__init__()
        self.url = url
        self.retry = retry
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None

    def publish(self, game_id: str, version: int, entries: Sequence[JSON] | None = None) -> None:
        try:
            with psycopg.connect(self.url, autocommit=True, connect_timeout=5) as conn:
                conn.execute(_notification(game_id, version, entries))
        except FAULTS as error:
            raise StorageUnavailable(f"cannot notify through PostgreSQL: {error}") from error

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._listen, name="binokel-listen", daemon=True)
            self._thread.start()
        self._ready.wait(5.0)  # a change right after subscribe() is heard (unless PostgreSQL is down)

    def _listen(self) -> None:
        lost = False
        delay = self.retry
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True, connect_timeout=5) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    if lost:
                        log.warning("listening for changes again on PostgreSQL at %s", _safe(self.url))
                        self.deliver(Change(None, None))  # changes in between were not heard
                    lost, delay = False, self.retry
                    self._ready.set()
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=0.5):
                            self.hear(note.payload)
            except FAULTS as error:
                if self._stop.is_set():
                    break
                if not lost:
                    log.error("lost the change notifications from PostgreSQL at %s (%s); reconnecting",
                              _safe(self.url), _first_line(error))
                lost = True
                self._stop.wait(delay)
                delay = min(delay * 2, 10.0)

    def close(self) -> None:
        super().close()
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
            self._thread = None
