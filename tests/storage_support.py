"""Shared fixtures for the storage tests: a fresh PostgreSQL database per test run, a
TCP proxy that can cut the line to PostgreSQL (PostgreSQL "down" without stopping it), and
short ways to the reads tests make often (the interface has one method for each kind)."""

from __future__ import annotations

import os
import secrets
import socket
import threading
import time
import urllib.parse
from collections.abc import Iterator
from typing import NoReturn

import pytest

from binokel.server.storage import Entry, GameInfo, Store

ADMIN_URL = os.environ.get("BINOKEL_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")


SKIPPED: set[str] = set()  # the reasons, said once at the end of the run


def unavailable(reason: str) -> NoReturn:
    """Skip, except on CI where PostgreSQL (and Redis) are part of the machine."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: these tests must run)", pytrace=False)
    SKIPPED.add(reason)
    pytest.skip(reason)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line per missing service, however many tests it skipped (a hook: conftest imports it)."""
    for reason in sorted(SKIPPED):
        terminalreporter.write_line(reason)


@pytest.fixture(scope="session")
def postgres_database() -> Iterator[str]:
    """The URL of a database created for this test run (dropped afterwards)."""
    try:
        import psycopg
    except ImportError:
        unavailable("PostgreSQL tests skipped: psycopg is not installed (pip install 'binokel[postgres]')")
    admin = urllib.parse.urlsplit(ADMIN_URL)
    try:
        with psycopg.connect(ADMIN_URL, autocommit=True, connect_timeout=3) as conn:
            name = f"binokel_test_{os.getpid()}_{secrets.token_hex(4)}"
            conn.execute(f"CREATE DATABASE {name}")
    except psycopg.OperationalError as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        unavailable(f"PostgreSQL tests skipped: no PostgreSQL at {admin.hostname}:{admin.port or 5432} ({first})")
    yield admin._replace(path=f"/{name}").geturl()
    with psycopg.connect(ADMIN_URL, autocommit=True, connect_timeout=3) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def postgres_url(postgres_database: str) -> str:
    """The test run's database, emptied for this test (the store migrates it afresh)."""
    import psycopg

    with psycopg.connect(postgres_database, autocommit=True) as conn:
        conn.execute("DROP SCHEMA public CASCADE")
        conn.execute("CREATE SCHEMA public")
    return postgres_database


class Proxy:
    """Relays TCP connections from a local port to ``target``; :meth:`cut` closes the port and
    every relayed connection (the database seems down), :meth:`restore` opens it again."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port: int = probe.getsockname()[1]
        probe.close()
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._server: socket.socket | None = None
        self.restore()

    def restore(self) -> None:
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", self.port))
        server.listen()
        self._server = server
        threading.Thread(target=self._accept, args=(server,), daemon=True).start()

    def _accept(self, server: socket.socket) -> None:
        while True:
            try:
                client, _ = server.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            with self._lock:
                self._sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cut(self) -> None:
        if self._server is not None:
            try:
                self._server.shutdown(socket.SHUT_RDWR)  # wakes the accept() (close alone does not)
            except OSError:
                pass
            self._server.close()
            self._server = None
        with self._lock:
            for s in self._sockets:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
            self._sockets.clear()

    def url(self, database_url: str) -> str:
        parts = urllib.parse.urlsplit(database_url)
        return parts._replace(netloc=f"{parts.username or 'postgres'}@127.0.0.1:{self.port}").geturl()


def info_of(store: Store, game_id: str) -> GameInfo | None:
    """A game's metadata, or None."""
    found = store.games([game_id])
    return found[0] if found else None


def entries_of(store: Store, game_id: str, after: int) -> list[Entry]:
    """The entries above version ``after`` ([] for a game that is not there)."""
    stored = store.load(game_id, after=after)
    return list(stored.entries) if stored is not None else []


def count_sleeps(monkeypatch: pytest.MonkeyPatch, seconds: float) -> list[float]:
    """Each ``time.sleep(seconds)`` from now on (a group commit's gather, told by its length),
    in the list returned; every sleep still sleeps."""
    waits: list[float] = []
    sleep = time.sleep

    def counted(asked: float) -> None:
        if asked == seconds:
            waits.append(asked)
        sleep(asked)

    monkeypatch.setattr(time, "sleep", counted)
    return waits
