"""SQLite only: taking over the previous version's file, and faults of the disk."""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from storage_support import count_sleeps, entries_of, info_of

from binokel.game import Game
from binokel.record import game_record, replay_game
from binokel.server.storage import invites
from binokel.server.storage.migrations import MIGRATIONS
from binokel.server.storage import (
    Seat,
    SQLiteStore,
    StorageError,
    StorageUnavailable,
    open_store,
)
from previous_store import write_previous_file


def old_file(path: Path, actions: int) -> dict[str, object]:
    """A database written by the previous server: one game, ``actions`` moves into it."""
    game = Game.seeded("standard", 11).deal_seeded(11)
    for _ in range(actions):
        game = game.apply(game.legal_actions()[0])
    names = ["Anna", "Bruno", "Clara"]
    settings = {"rules": "standard", "opponents": ["easy", "hard"], "name": "Anna", "language": "de",
                "deck": "french"}
    record = game_record(game, names)
    write_previous_file(path, "old1", rules="standard", settings=settings, seed=11,
                        first_dealer=game.current.dealer, version=actions, record=record, totals=list(game.totals),
                        deals=1)
    return {"record": record, "settings": settings, "version": actions, "dealer": game.current.dealer}


def test_a_file_of_the_previous_version_opens_and_migrates(tmp_path: Path) -> None:
    path = tmp_path / "binokel.sqlite3"
    before = old_file(path, actions=5)
    with open_store(path) as store:
        assert isinstance(store, SQLiteStore) and store.migrations() == [(m.number, m.name) for m in MIGRATIONS]
        loaded = store.load("old1")
        assert loaded is not None and loaded.snapshot is not None and loaded.entries == ()
        info = loaded.info
        assert (info.version, loaded.snapshot.version) == (before["version"], before["version"])
        assert loaded.snapshot.payload == before["record"]
        assert info.settings == before["settings"] and info.rules == "standard" and info.seed == 11
        assert info.first_dealer == before["dealer"] and info.totals == (0, 0, 0) and not info.over
        assert [(s.kind, s.level, s.name, s.token_hash) for s in info.seats] == [
            ("person", None, "Anna", None), ("bot", "easy", "Bruno", None), ("bot", "hard", "Clara", None)]
        assert not info.public and [g.id for g in store.games()] == ["old1"]
        # The record still replays to the same game, and the game goes on from its version.
        assert game_record(replay_game(loaded.snapshot.payload), ["Anna", "Bruno", "Clara"]) == before["record"]
        assert store.append("old1", 5, [{"action": "x"}]) == 6
        assert [e.version for e in entries_of(store, "old1", 5)] == [6]
    tables = {row[0] for row in sqlite3.connect(path).execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == {"games", "log", "snapshots", "schema_migrations", "invites", "presence", "chat", "leases",
                      "rematches"}


def test_a_full_disk_fails_clearly_writes_nothing_and_recovers(tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    with SQLiteStore(tmp_path / "games.sqlite3") as store:
        store.create("g1", rules="standard", settings={}, seed=1, first_dealer=0,
                     seats=[Seat("bot", "easy", "B")])
        store.append("g1", 0, [{"n": 1}])
        before = store.load("g1")
        store.set_max_size(store.size())  # the disk is full now
        big = {"blob": "x" * 200_000}  # needs new pages: fails after the metadata row was updated
        with caplog.at_level(logging.ERROR, "binokel.storage"), pytest.raises(StorageUnavailable, match="full"):
            store.append("g1", 1, [{"n": 2}, big], snapshot=big)
        with pytest.raises(StorageUnavailable):
            store.create("g2", rules="standard", settings={}, seed=1, first_dealer=0,
                         seats=before.info.seats if before else (), entries=[big])
        assert "write failed" in caplog.text
        assert store.load("g1") == before and info_of(store, "g2") is None  # nothing half-written
        store.set_max_size(None)  # space again: the same append now lands
        assert store.append("g1", 1, [{"n": 2}, big], snapshot=big) == 3
        loaded = store.load("g1")
        assert loaded is not None and loaded.snapshot is not None and loaded.snapshot.version == 3


def test_a_read_only_file_reads_and_refuses_writes(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with open_store(path) as store:
        store.create("g1", rules="standard", settings={}, seed=1, first_dealer=0,
                     seats=[Seat("bot", "easy", "B")],
                     entries=[{"n": 1}])
        before = store.load("g1")
    with open_store(f"file:{path}?mode=ro") as store:
        assert store.load("g1") == before and [g.id for g in store.games()] == ["g1"]
        with pytest.raises(StorageUnavailable, match="readonly"):
            store.append("g1", 1, [{"n": 2}])
        with pytest.raises(StorageUnavailable):
            store.delete("g1")
        assert store.load("g1") == before
    with open_store(path) as store:  # writable again: it goes on
        assert store.append("g1", 1, [{"n": 2}]) == 2


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only files anyway (covered with mode=ro)")
def test_a_file_made_read_only_refuses_writes_until_it_is_writable(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with open_store(path) as store:
        store.create("g1", rules="standard", settings={}, seed=1, first_dealer=0,
                     seats=[Seat("bot", "easy", "B")])
    os.chmod(path, 0o444)
    try:
        with open_store(path) as store, pytest.raises(StorageUnavailable):
            store.append("g1", 0, [{"n": 1}])
    finally:
        os.chmod(path, 0o644)
    with open_store(path) as store:
        assert store.append("g1", 0, [{"n": 1}]) == 1


def test_an_old_file_that_cannot_be_written_does_not_open(tmp_path: Path) -> None:
    path = tmp_path / "binokel.sqlite3"
    old_file(path, actions=1)
    with pytest.raises(StorageUnavailable, match="cannot open"):
        open_store(f"file:{path}?mode=ro")  # it needs its migration, and cannot have it
    with open_store(path) as store:  # nothing was changed by the attempt
        loaded = store.load("old1")
        assert loaded is not None and loaded.info.version == 1


def test_the_target_comes_from_binokel_db_else_the_data_folder(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BINOKEL_DB", str(tmp_path / "from-env.sqlite3"))
    with open_store(None) as store:
        assert isinstance(store, SQLiteStore) and store.path == str(tmp_path / "from-env.sqlite3")
    monkeypatch.delenv("BINOKEL_DB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr("sys.platform", "linux")
    with open_store(None) as store:
        assert isinstance(store, SQLiteStore) and store.path == str(tmp_path / "data" / "binokel" / "binokel.sqlite3")
    with pytest.raises(StorageError, match="notification"):
        open_store("redis://127.0.0.1:6379/0")


def test_writers_queued_together_commit_together_and_a_refusal_undoes_only_itself(tmp_path: Path) -> None:
    """Group commit: appends that queue while the writer is busy go in one transaction, each
    under its own savepoint."""
    import threading
    import time

    from binokel.server.storage import VersionConflict

    with SQLiteStore(tmp_path / "games.sqlite3") as store:
        for game_id in ("a", "b", "c"):
            store.create(game_id, rules="standard", settings={}, seed=1, first_dealer=0,
                         seats=[Seat("bot", "easy", "B")], entries=[{"n": 1}])
        outcomes: dict[str, object] = {}

        def append(game_id: str, version: int) -> None:
            try:
                outcomes[game_id] = store.append(game_id, version, [{"n": 2}, {"n": 3}])
            except VersionConflict as conflict:
                outcomes[game_id] = conflict

        def wait_for(done: Callable[[], bool]) -> None:
            deadline = time.monotonic() + 10
            while not done() and time.monotonic() < deadline:
                time.sleep(0.01)
            assert done()

        first, store.gather.seconds = store.commits, 0.0  # a's batch is taken at once
        store._lock.acquire()  # the connection is busy: a's batch waits for it, b and c queue behind
        threads = [threading.Thread(target=append, args=args) for args in (("a", 1), ("b", 0), ("c", 1))]
        threads[0].start()
        wait_for(lambda: store._group.writing)
        for thread in threads[1:]:
            thread.start()
        wait_for(lambda: len(store._group.queue) == 2)
        store._lock.release()
        for thread in threads:
            thread.join()
        assert store.commits == first + 2  # a alone, then b and c together
        assert outcomes["a"] == 3 and outcomes["c"] == 3 and isinstance(outcomes["b"], VersionConflict)
        assert ([e.version for e in entries_of(store, "a", 0)] == [1, 2, 3]
                == [e.version for e in entries_of(store, "c", 0)])
        assert [e.version for e in entries_of(store, "b", 0)] == [1]


def test_a_file_of_the_interim_friends_server_keeps_its_seats_and_invites(tmp_path: Path) -> None:
    """The play-with-friends server kept seats (token digests) and invites in tables of its
    own: migration 2 moves the tokens into the games' seats and keeps the invites, so each
    person still holds their seat and an open seat's link still works."""
    from binokel.server import persist
    from binokel.server.seat import digest

    path = tmp_path / "binokel.sqlite3"
    game = Game.seeded("standard", 11).deal_seeded(11)
    settings = {"rules": "standard", "seats": ["me", "open", "easy"], "name": "Anna",
                "language": "en", "deck": "french"}
    write_previous_file(path, "f1", rules="standard", settings=settings, seed=11, first_dealer=game.current.dealer,
                        version=1, record=game_record(game, ["Anna", "Ben", "Karle"]), totals=[0, 0, 0], deals=1,
                        seats=[(0, "Anna", digest("anna"), True), (1, "Ben", digest("ben"), False)],
                        invites=[(digest("CODE"), None, "2030-01-01T00:00:00.000+00:00")])
    with open_store(path) as store:
        loaded = persist.load(store, "f1")
        assert loaded is not None
        assert [(n, p.name, p.token_hash, n == loaded.host) for n, p in loaded.people.items()] == [
            (0, "Anna", digest("anna"), True), (1, "Ben", digest("ben"), False)]
        assert [(s.kind, s.level) for s in loaded.info.seats] == [("person", None), ("person", None), ("bot", "easy")]
        assert loaded.info.free_seats == 0
        invite = invites.find(store, digest("CODE"))
        assert invite is not None and invite.game_id == "f1" and invite.seat is None
        assert sorted(store.held([digest("ben")])) == [("f1", 1)]


def test_while_games_write_often_an_append_waits_for_others_to_join_its_batch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables that each wait for their own append would otherwise share fewer commits (each
    one wait for the disk); a game writing alone does not wait."""
    import threading
    import time

    sleep = time.sleep
    waits = count_sleeps(monkeypatch, 2.0)
    with SQLiteStore(tmp_path / "games.sqlite3") as store:
        for game_id in ("a", "b"):
            store.create(game_id, rules="standard", settings={}, seed=1, first_dealer=0,
                         seats=[Seat("bot", "easy", "B")], entries=[{"n": 1}])
        store.append("a", 1, [{"n": 2}])
        store.gather.seconds, store.gather.often = 2.0, 60.0  # long enough for a loaded machine
        first = store.commits
        writer = threading.Thread(target=store.append, args=("b", 1, [{"n": 2}]))
        writer.start()  # another game's append, soon after a's commit: it waits for others
        deadline = time.monotonic() + 10
        while not store._group.writing and time.monotonic() < deadline:
            sleep(0.01)
        assert store._group.writing and waits == [2.0]
        assert store.append("a", 2, [{"n": 3}]) == 3  # joins its batch
        writer.join()
        assert store.commits == first + 1
        assert [e.version for e in entries_of(store, "b", 0)] == [1, 2]
        store.append("a", 3, [{"n": 4}])  # the same game as the last commit's: no wait
        assert store.commits == first + 2 and waits == [2.0]
