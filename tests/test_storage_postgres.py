"""PostgreSQL only (and Redis): several processes on one database hear each other's changes;
a lost connection, or PostgreSQL down and back, is survived without a restart."""

from __future__ import annotations

import logging
import os
import queue
import secrets
import threading
import urllib.parse
from pathlib import Path

import pytest
from storage_support import Proxy, entries_of, unavailable

from binokel.server.storage.migrations import MIGRATIONS
from binokel.server.storage import Change, Seat, StorageUnavailable, Store, open_store

SEATS = [Seat("person", None, "Anna"), Seat("bot", "easy", "Ben"), Seat("bot", "hard", "Cleo")]


def new_game(store: Store, game_id: str = "g1") -> None:
    store.create(game_id, rules="standard", settings={}, seed=1, first_dealer=0, seats=SEATS, entries=[{"n": 1}])


def test_a_second_process_hears_the_change_and_loads_the_new_entries(postgres_url: str) -> None:
    with open_store(postgres_url) as writer, open_store(postgres_url) as reader:
        new_game(writer)
        heard: queue.Queue[Change] = queue.Queue()
        reader.notifier.subscribe(heard.put)
        writer.append("g1", 1, [{"n": 2}, {"n": 3}])
        change = heard.get(timeout=10)
        assert change == Change("g1", 3, ({"n": 2}, {"n": 3}))  # the entries come with it
        assert [(e.version, e.payload) for e in entries_of(reader, "g1", 1)] == [(2, {"n": 2}), (3, {"n": 3})]
        import psycopg

        with psycopg.connect(postgres_url, autocommit=True) as conn:  # someone else on the channel
            conn.execute("NOTIFY binokel_games, 'not a change'")
        writer.append("g1", 3, [{"n": 4}])
        assert heard.get(timeout=10) == Change("g1", 4, ({"n": 4},))  # ignored, and the listener lives on
        big = {"n": 5, "pad": "x" * 8000}  # too long for a NOTIFY payload: only the version is said
        writer.append("g1", 4, [big])
        assert heard.get(timeout=10) == Change("g1", 5)
        assert [e.payload for e in entries_of(reader, "g1", 4)] == [big]


def test_migrations_run_once_when_processes_start_together(postgres_url: str) -> None:
    stores: list[Store] = []
    errors: list[BaseException] = []

    def start() -> None:
        try:
            stores.append(open_store(postgres_url))
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert errors == [] and len(stores) == 4
        assert stores[0].migrations() == [(m.number, m.name) for m in MIGRATIONS]  # type: ignore[attr-defined]
    finally:
        for store in stores:
            store.close()


def terminate_others(url: str) -> int:
    """pg_terminate_backend every other connection to the test database."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                            " WHERE datname = current_database() AND pid <> pg_backend_pid()").fetchall()
    return len(rows)


def test_a_terminated_connection_is_replaced_on_the_next_call(postgres_url: str,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    with open_store(postgres_url) as store:
        new_game(store)
        heard: queue.Queue[Change] = queue.Queue()
        store.notifier.subscribe(heard.put)
        with caplog.at_level(logging.WARNING, "binokel.storage"):
            assert terminate_others(postgres_url) >= 2  # the pooled connection and the listener's
            loaded = store.load("g1")  # the next call simply works, on a new connection
            assert loaded is not None and loaded.info.version == 1
            terminate_others(postgres_url)
            assert store.append("g1", 1, [{"n": 2}]) == 2  # a write too: nothing had been committed
            assert "was lost" in caplog.text and "reconnecting" in caplog.text
            # The listener reconnects, says it may have missed changes, and hears again.
            while heard.get(timeout=15) != Change(None, None):
                pass
            store.append("g1", 2, [{"n": 3}])
            before = []  # a second reconnection's notice, or version 2 if it was heard after all
            while (change := heard.get(timeout=10)) != Change("g1", 3, ({"n": 3},)):
                before.append(change)
            assert all(change in (Change(None, None), Change("g1", 2, ({"n": 2},))) for change in before)
        assert "listening for changes again" in caplog.text


def test_postgresql_down_fails_clearly_and_the_store_comes_back(postgres_url: str,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    server = urllib.parse.urlsplit(postgres_url)
    proxy = Proxy((server.hostname or "127.0.0.1", server.port or 5432))
    try:
        with open_store(proxy.url(postgres_url), timeout=2) as store, open_store(postgres_url) as direct:
            new_game(store)
            with caplog.at_level(logging.WARNING, "binokel.storage"):
                proxy.cut()  # PostgreSQL is gone
                for _ in range(3):
                    with pytest.raises(StorageUnavailable):
                        store.append("g1", 1, [{"n": 2}])
                with pytest.raises(StorageUnavailable):
                    store.load("g1")
                assert caplog.text.count("is unavailable") == 1  # said once, not per call
                assert entries_of(direct, "g1", 1) == []  # nothing written
                proxy.restore()
                assert store.append("g1", 1, [{"n": 2}]) == 2  # back, without a restart
                assert "reachable again" in caplog.text
            assert [e.version for e in entries_of(direct, "g1", 0)] == [1, 2]
    finally:
        proxy.cut()


def test_no_postgresql_at_the_address_fails_at_open() -> None:
    pytest.importorskip("psycopg", reason="PostgreSQL tests skipped: psycopg is not installed")
    with pytest.raises(StorageUnavailable, match="unavailable"):
        open_store("postgresql://postgres@127.0.0.1:9/nothing", timeout=1)


def test_redis_carries_changes_between_processes_on_sqlite(tmp_path: Path) -> None:
    """Two SQLite stores on one file (as two processes would be) hear each other through Redis."""
    redis = pytest.importorskip("redis", reason="Redis notification tests skipped: the redis package is missing")
    url = os.environ.get("BINOKEL_TEST_REDIS", "redis://127.0.0.1:6379/0")
    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.RedisError as error:
        unavailable(f"Redis notification tests skipped: no Redis at {url} ({error})")
    from binokel.server.storage.notify import RedisNotifier
    from binokel.server.storage.sqlite import SQLiteStore

    channel = f"binokel-test:{secrets.token_hex(4)}"  # not to hear other test runs
    path = tmp_path / "games.sqlite3"
    with SQLiteStore(path, notifier=RedisNotifier(url, channel=channel)) as writer, \
            SQLiteStore(path, notifier=RedisNotifier(url, channel=channel)) as reader:
        heard: queue.Queue[Change] = queue.Queue()
        reader.notifier.subscribe(heard.put)
        new_game(writer)
        assert heard.get(timeout=10) == Change("g1", 1)
        writer.append("g1", 1, [{"n": 2}])
        assert heard.get(timeout=10) == Change("g1", 2, ({"n": 2},))
        assert [e.payload for e in entries_of(reader, "g1", 1)] == [{"n": 2}]
    with open_store(path, redis=url) as store:  # open_store's way to ask for it
        assert type(store.notifier).__name__ == "RedisNotifier"


def test_one_description_makes_the_same_tables_in_both_databases(postgres_url: str, tmp_path: Path) -> None:
    """The migrations describe each table once: both databases get the same columns, in the
    same order, NULL where the description says so."""
    with open_store(tmp_path / "games.sqlite3") as lite, open_store(postgres_url) as pg:
        for migration in MIGRATIONS:
            for table in migration.tables:
                described = [(column.name, not column.null) for column in table.columns]
                in_sqlite = [(row[1], row[3] == 1) for row in lite.query(f"PRAGMA table_info({table.name})")]
                in_postgres = [(name, nullable == "NO") for name, nullable in pg.query(
                    "SELECT column_name, is_nullable FROM information_schema.columns"
                    " WHERE table_name = ? AND table_schema = current_schema() ORDER BY ordinal_position",
                    (table.name,))]
                assert in_sqlite == in_postgres == described, table.name


def test_a_payload_postgresql_refuses_fails_only_its_own_append(postgres_url: str) -> None:
    """Appends arriving together are written as one statement; one that PostgreSQL refuses
    (jsonb cannot hold the character U+0000) is refused alone, the others land."""
    import psycopg

    with open_store(postgres_url) as store:
        games = [f"b{n}" for n in range(6)]
        for game in games:
            new_game(store, game)
        start = threading.Barrier(len(games))
        outcomes: dict[str, object] = {}

        def append(game: str) -> None:
            start.wait()
            payload = {"text": "\u0000" if game == "b3" else "fine"}
            try:
                outcomes[game] = store.append(game, 1, [payload])
            except psycopg.DataError as error:
                outcomes[game] = error

        threads = [threading.Thread(target=append, args=(game,)) for game in games]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert isinstance(outcomes.pop("b3"), psycopg.DataError)
        assert outcomes == {game: 2 for game in games if game != "b3"}
        assert entries_of(store, "b3", 1) == []
