"""The storage interface, run against both databases: SQLite (a temporary file) and
PostgreSQL (a database created for the test run; skipped with one line where there is no
PostgreSQL, a failure under CI=true)."""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Iterator

import pytest
from storage_support import count_sleeps, entries_of, info_of

from binokel.server.storage.migrations import MIGRATIONS
from binokel.server.storage import chat, invites, lease, presence
from binokel.server.storage import (
    Change,
    GameExists,
    GameNotFound,
    Seat,
    Status,
    Store,
    VersionConflict,
    open_store,
    token_hash,
)

SEATS = (Seat("person", None, "Anna", token_hash("anna's token")), Seat("bot", "easy", "Ben"),
         Seat("person", None, "a friend"))


@pytest.fixture(params=["sqlite", "postgres"])
def target(request: pytest.FixtureRequest, tmp_path) -> str:  # type: ignore[no-untyped-def]
    if request.param == "sqlite":
        return str(tmp_path / "games.sqlite3")
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
def store(target: str) -> Iterator[Store]:
    with open_store(target) as opened:
        yield opened


def new_game(store: Store, game_id: str = "g1", *, entries: int = 1, public: bool = False,
             seats: tuple[Seat, ...] = SEATS) -> None:
    store.create(game_id, rules="standard(target=1000)", settings={"name": "Anna", "language": "de"}, seed=2**62,
                 first_dealer=2, seats=seats, public=public, status=Status((0, 0, 0), 1, False, 0),
                 entries=[{"n": i} for i in range(1, entries + 1)])


def test_a_game_is_stored_as_metadata_and_a_log(store: Store) -> None:
    new_game(store, entries=2)
    loaded = store.load("g1")
    assert loaded is not None
    info = loaded.info
    assert (info.id, info.rules, info.settings, info.seed, info.first_dealer) == (
        "g1", "standard(target=1000)", {"name": "Anna", "language": "de"}, 2**62, 2)
    assert info.seats == SEATS and info.free_seats == 1 and not info.public
    assert (info.version, info.totals, info.deals, info.over, info.turn) == (2, (0, 0, 0), 1, False, 0)
    assert info.created == info.updated and info.created.endswith("+00:00")
    assert loaded.snapshot is None
    assert [(e.version, e.payload) for e in loaded.entries] == [(1, {"n": 1}), (2, {"n": 2})]
    assert store.load("nope") is None and info_of(store, "nope") is None


def test_append_numbers_the_entries_and_updates_the_metadata(store: Store) -> None:
    new_game(store)
    payloads = [{"action": "150", "seat": 0}, ["any", "json", 1.5, None, True], "ü ♥ text", 7]
    assert store.append("g1", 1, payloads[:1]) == 2
    seats = (SEATS[0], SEATS[1], Seat("person", None, "Cleo", token_hash("cleo's token")))
    assert store.append("g1", 2, payloads[1:], status=Status((10, 20, 30), 2, True, None), seats=seats) == 5
    loaded = store.load("g1")
    assert loaded is not None
    assert [e.payload for e in loaded.entries] == [{"n": 1}, *payloads]
    assert [e.version for e in loaded.entries] == [1, 2, 3, 4, 5]
    info = loaded.info
    assert (info.version, info.totals, info.deals, info.over, info.turn) == (5, (10, 20, 30), 2, True, None)
    assert info.seats == seats and info.free_seats == 0 and info.updated >= info.created
    # Without status or seats they stay as they are.
    assert store.append("g1", 5, [{"x": 1}]) == 6
    after = info_of(store, "g1")
    assert after is not None and (after.totals, after.seats, after.over) == (info.totals, seats, True)


def test_a_stale_version_is_refused_and_writes_nothing(store: Store) -> None:
    new_game(store)
    store.append("g1", 1, [{"a": 1}])
    before = store.load("g1")
    for stale in (0, 1, 3):
        with pytest.raises(VersionConflict) as caught:
            store.append("g1", stale, [{"a": 2}], status=Status((99, 99, 99), 9, True, 1))
        assert (caught.value.expected, caught.value.actual) == (stale, 2)
    assert store.load("g1") == before
    with pytest.raises(GameNotFound):
        store.append("gone", 0, [{"a": 1}])
    with pytest.raises(GameExists):
        new_game(store)
    assert store.load("g1") == before


def test_snapshots_shorten_the_load(store: Store) -> None:
    new_game(store, entries=3)
    store.append("g1", 3, [{"n": 4}], snapshot={"state": 4})
    store.append("g1", 4, [{"n": 5}, {"n": 6}])
    loaded = store.load("g1")
    assert loaded is not None and loaded.snapshot is not None
    assert (loaded.snapshot.version, loaded.snapshot.payload) == (4, {"state": 4})
    assert [e.version for e in loaded.entries] == [5, 6]
    whole = store.load("g1", from_snapshot=False)
    assert whole is not None and whole.snapshot is None
    assert [e.payload for e in whole.entries] == [{"n": i} for i in range(1, 7)]
    assert [e.version for e in entries_of(store, "g1", 4)] == [5, 6]
    assert entries_of(store, "g1", 6) == [] and entries_of(store, "nope", 0) == []
    # A snapshot at creation (a game that starts from a state, not from version 1).
    store.create("g2", rules="standard", settings={}, seed=1, first_dealer=0, seats=SEATS, snapshot={"s": 0})
    store.append("g2", 0, [{"n": 1}])
    for from_snapshot in (True, False):
        g2 = store.load("g2", from_snapshot=from_snapshot)
        assert g2 is not None and g2.snapshot is not None and g2.snapshot.payload == {"s": 0}
        assert [e.version for e in g2.entries] == [1]


def test_lists_your_games_the_lobby_and_all(store: Store) -> None:
    new_game(store, "old")
    new_game(store, "public", public=True)
    new_game(store, "full", public=True, seats=SEATS[:2])
    new_game(store, "over", public=True)
    store.append("over", 1, [{"end": True}], status=Status((1000, 0, 0), 3, True, None))
    time.sleep(0.01)  # times are kept to the millisecond: make "old" the most recent for sure
    store.append("old", 1, [{"x": 1}])
    assert [g.id for g in store.games(["public", "over", "old", "unknown", "old"])] == ["old", "public", "over"]
    assert store.games([]) == []
    assert [g.id for g in store.games(lobby=True)] == ["public"]
    assert [g.id for g in store.games()] == ["old", "full", "public", "over"]
    assert len(store.games(limit=2)) == 2
    # Taking the last free seat takes the table out of the lobby.
    store.append("public", 1, [{"join": 2}], seats=(*SEATS[:2], Seat("person", None, "Cleo", token_hash("c"))))
    assert store.games(lobby=True) == []


def test_delete_removes_the_game_and_its_log(store: Store) -> None:
    new_game(store, entries=3)
    store.append("g1", 3, [{"n": 4}], snapshot={"s": 4})
    assert store.delete("g1") and not store.delete("g1")
    assert store.load("g1") is None and entries_of(store, "g1", 0) == []
    new_game(store, entries=1)  # the id is free again, with an empty log
    loaded = store.load("g1")
    assert loaded is not None and loaded.snapshot is None and [e.version for e in loaded.entries] == [1]


def test_the_store_keeps_a_hash_of_the_seat_token_never_the_token(target: str) -> None:
    with open_store(target) as store:
        new_game(store)
        info = info_of(store, "g1")
        assert info is not None and info.seats[0].is_held_by("anna's token")
        assert not info.seats[0].is_held_by("someone else's") and not info.seats[2].is_held_by("")
    assert "anna's token" not in dump(target) and token_hash("anna's token") in dump(target)


def run_together(*work: tuple[Callable[[int], None], int]) -> None:
    """Run each ``(target, count)`` as ``count`` threads at once (target(i), i < count) and wait for all."""
    threads = [threading.Thread(target=target, args=(i,)) for target, count in work for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def dump(target: str) -> str:
    """Everything in the database, as text."""
    if target.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(target) as conn:
            return "\n".join(str(row) for table in ("games", "log", "snapshots", "schema_migrations")
                             for row in conn.execute(f"SELECT * FROM {table}").fetchall())
    import sqlite3

    db = sqlite3.connect(target)
    try:
        return "\n".join(db.iterdump())
    finally:
        db.close()


def test_migrations_are_recorded_and_run_once(target: str) -> None:
    with open_store(target) as store:
        assert store.migrations() == [(m.number, m.name) for m in MIGRATIONS]  # type: ignore[attr-defined]
        new_game(store)
    with open_store(target) as store:  # opening again migrates nothing and keeps the games
        assert store.migrations() == [(m.number, m.name) for m in MIGRATIONS]  # type: ignore[attr-defined]
        info = info_of(store, "g1")
        assert info is not None and info.version == 1


def test_listeners_hear_every_accepted_change(store: Store) -> None:
    heard: queue.Queue[Change] = queue.Queue()
    subscription = store.notifier.subscribe(heard.put)
    new_game(store)
    store.append("g1", 1, [{"a": 1}, {"a": 2}])
    with pytest.raises(VersionConflict):
        store.append("g1", 1, [{"a": 3}])
    store.notify("g1", 3)
    # An append's notification carries its entries (a listener need not read them back).
    assert [heard.get(timeout=10) for _ in range(3)] == [Change("g1", 1), Change("g1", 3, ({"a": 1}, {"a": 2})),
                                                         Change("g1", 3)]
    subscription.close()
    store.append("g1", 3, [{"a": 4}])
    store.notify("g1", 99)
    with pytest.raises(queue.Empty):
        heard.get(timeout=0.5)  # a closed subscription hears nothing (nor the refused append above)


def test_a_listener_hears_only_the_changes_it_wants(store: Store) -> None:
    """``wants`` is asked once a change, with its game and version, before its entries are read:
    here the games of g1 but its version 3 (as a process that announced it itself)."""
    heard: queue.Queue[Change] = queue.Queue()
    asked: list[tuple[str, int]] = []

    def wants(game_id: str, version: int) -> bool:
        asked.append((game_id, version))
        return game_id == "g1" and version != 3

    subscription = store.notifier.subscribe(heard.put, wants=wants)
    new_game(store, "g2")
    new_game(store, "g1")
    store.append("g2", 1, [{"a": 1}])
    store.append("g1", 1, [{"a": 2}])
    store.append("g1", 2, [{"a": 3}])
    store.notify("g2", 3)
    store.notify("g1", 3)
    store.notify("g1", 4)
    assert [heard.get(timeout=10) for _ in range(3)] == [Change("g1", 1), Change("g1", 2, ({"a": 2},)),
                                                         Change("g1", 4)]
    with pytest.raises(queue.Empty):
        heard.get(timeout=0.5)
    assert sorted(asked) == sorted([("g2", 1), ("g1", 1), ("g2", 2), ("g1", 2), ("g1", 3), ("g2", 3), ("g1", 3),
                                    ("g1", 4)])
    subscription.close()


def test_concurrent_appends_at_one_version_exactly_one_wins(target: str) -> None:
    """Two store objects (as two processes would have) and eight threads append at the same
    expected version: one append lands, seven get VersionConflict, the log has one entry."""
    stores = [open_store(target), open_store(target)]
    try:
        new_game(stores[0])
        for round_ in range(3):
            version = 1 + round_
            start = threading.Barrier(8)
            results: list[object] = []

            def append(i: int, version: int = version, start: threading.Barrier = start,
                       results: list[object] = results) -> None:
                start.wait()
                try:
                    results.append(stores[i % 2].append("g1", version, [{"writer": i}]))
                except VersionConflict as conflict:
                    results.append(conflict)

            run_together((append, 8))
            wins = [r for r in results if isinstance(r, int)]
            assert wins == [version + 1]
            assert all(isinstance(r, VersionConflict) and r.actual == version + 1 for r in results if r not in wins)
        loaded = stores[1].load("g1")
        assert loaded is not None and [e.version for e in loaded.entries] == [1, 2, 3, 4]
    finally:
        for opened in stores:
            opened.close()


def test_payloads_both_databases_refuse_are_refused_by_both(store: Store) -> None:
    new_game(store)
    with pytest.raises(ValueError):
        store.append("g1", 1, [{"x": float("nan")}])
    with pytest.raises(TypeError):
        store.append("g1", 1, [{"x": object()}])
    info = info_of(store, "g1")
    assert info is not None and info.version == 1 and entries_of(store, "g1", 1) == []
    # An append without entries changes metadata at the same version, checked all the same.
    taken = (*SEATS[:2], Seat("person", None, "Cleo", token_hash("c")))
    assert store.append("g1", 1, [], seats=taken) == 1
    with pytest.raises(VersionConflict):
        store.append("g1", 0, [], seats=SEATS)
    info = info_of(store, "g1")
    assert info is not None and info.seats == taken and info.version == 1


def test_many_writers_at_once_each_append_lands_once_in_order(store: Store) -> None:
    """Sixteen threads on their own games and two on a shared one (retrying on conflict)."""
    for t in range(16):
        new_game(store, f"own{t}")
    new_game(store, "shared")
    errors: list[BaseException] = []

    def own(t: int) -> None:
        try:
            for version in range(1, 21):
                assert store.append(f"own{t}", version, [{"t": t, "v": version}]) == version + 1
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    def shared(t: int) -> None:
        try:
            done = 0
            while done < 20:
                info = info_of(store, "shared")
                assert info is not None
                try:
                    store.append("shared", info.version, [{"writer": t, "n": done}])
                    done += 1
                except VersionConflict:
                    pass
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    run_together((own, 16), (shared, 2))
    assert errors == []
    for t in range(16):
        assert [e.payload for e in entries_of(store, f"own{t}", 1)] == [{"t": t, "v": v} for v in range(1, 21)]
    log = entries_of(store, "shared", 1)
    assert [e.version for e in log] == list(range(2, 42))
    for t in range(2):
        assert [e.payload["n"] for e in log if e.payload["writer"] == t] == list(range(20))


def test_two_stores_writing_the_same_games_at_once_land_each_append_once(target: str) -> None:
    """Two store objects (two processes) with four threads each append to the same six games,
    each thread going round them in its own order and retrying on conflict: the appends of a
    store are written in batches, and two batches holding the same games must neither
    deadlock nor lose or repeat an append."""
    stores = [open_store(target), open_store(target)]
    games = [f"g{g}" for g in range(6)]
    errors: list[BaseException] = []
    try:
        for game in games:
            new_game(stores[0], game)

        def write(writer: int) -> None:
            store = stores[writer % 2]
            order = games if writer % 2 else games[::-1]
            try:
                for n in range(10):
                    for game in order[writer % 3:] + order[:writer % 3]:
                        while True:
                            info = info_of(store, game)
                            assert info is not None
                            try:
                                store.append(game, info.version, [{"writer": writer, "n": n}])
                                break
                            except VersionConflict:
                                pass
            except BaseException as error:  # noqa: BLE001 - reported below
                errors.append(error)

        run_together((write, 8))
        assert errors == []
        for game in games:
            log = entries_of(stores[1], game, 1)
            assert [e.version for e in log] == list(range(2, 82))
            for writer in range(8):
                assert [e.payload["n"] for e in log if e.payload["writer"] == writer] == list(range(10))
    finally:
        for opened in stores:
            opened.close()


WRITER = """
import sys
from binokel.server.storage import Seat, open_store
store = open_store(sys.argv[1])
store.create("k", rules="standard", settings={}, seed=1, first_dealer=0, seats=[Seat("bot", "easy", "B")])
version = 0
while True:
    version = store.append("k", version, [{"n": version + 1, "pad": "x" * 500}])
    print(version, flush=True)  # acknowledged: on disk or committed
"""


def test_kill_9_loses_no_acknowledged_append(target: str) -> None:
    import signal
    import subprocess
    import sys

    writer = subprocess.Popen([sys.executable, "-c", WRITER, target], stdout=subprocess.PIPE, text=True)
    assert writer.stdout is not None
    acknowledged = 0
    try:
        while acknowledged < 60:
            line = writer.stdout.readline()
            assert line, "the writer stopped"
            acknowledged = int(line)
    finally:
        writer.send_signal(signal.SIGKILL)
        rest, _ = writer.communicate(timeout=30)
    acknowledged = max([acknowledged, *(int(line) for line in rest.split())])
    with open_store(target) as store:
        loaded = store.load("k")
        assert loaded is not None and loaded.info.version >= acknowledged
        assert [e.payload["n"] for e in loaded.entries] == list(range(1, loaded.info.version + 1))


# ---------------------------------------------------------------------- seats (migration 2)

def test_invites_are_found_by_their_digest_and_replaced(store: Store) -> None:
    from binokel.server.storage import HOST_SEAT, NEVER, Invite

    new_game(store)
    invites.set_invites(store, "g1", [Invite("c1", "g1", 1, "2030-01-01"), Invite("c2", "g1", None, "2030-01-01"),
                             Invite("host", "g1", HOST_SEAT, NEVER)])
    assert invites.find(store, "c1") == Invite("c1", "g1", 1, "2030-01-01")
    assert invites.find(store, "c2") is not None and invites.find(store, "host") is None  # the host's row is no invite
    invites.set_invites(store, "g1", [Invite("c3", "g1", 2, "2030-01-01")])
    assert invites.find(store, "c1") is None and invites.find(store, "c3") is not None
    assert store.held(["host"]) == [("g1", HOST_SEAT)]  # the host's row stays
    store.delete("g1")
    assert invites.find(store, "c3") is None and store.held(["host"]) == []


def test_held_finds_the_seats_of_token_digests(store: Store) -> None:
    new_game(store)  # seat 0 holds Anna's token
    seats = list(info_of(store, "g1").seats)
    seats[2] = Seat("person", None, "Cleo", token_hash("t2"))
    store.append("g1", 1, [], seats=seats)
    assert sorted(store.held([token_hash("t2"), token_hash("anna's token"), token_hash("x")])) == [("g1", 0), ("g1", 2)]
    assert store.held([]) == []


def test_presence_rows_and_their_heartbeat(store: Store) -> None:
    new_game(store)
    presence.mark(store, "g1", 0, "p1", present=True)
    presence.mark(store, "g1", 2, "p2", present=True, ready=5)
    rows = sorted(presence.rows(store, ["g1"]), key=lambda p: p.seat)
    assert [(p.seat, p.process, p.ready) for p in rows] == [(0, "p1", None), (2, "p2", 5)]
    assert all(0 <= p.age < 5 for p in rows)
    presence.touch(store, "p1")
    presence.mark(store, "g1", 2, "p2", present=False)
    assert [(p.seat, p.process) for p in presence.rows(store, ["g1", "other"])] == [(0, "p1")]
    assert presence.rows(store, []) == []


def test_chat_lines_are_kept_in_order_and_the_last_ones_read(store: Store) -> None:
    new_game(store)
    for n in range(5):
        chat.add(store, "g1", f"id{n}", {"text": f"line {n}", "seat": 0})
    assert [line["text"] for _, line in chat.recent(store, "g1", 3)] == ["line 2", "line 3", "line 4"]
    assert [line_id for line_id, _ in chat.recent(store, "g1", 10)] == [f"id{n}" for n in range(5)]
    assert chat.recent(store, "other", 10) == []
    store.delete("g1")
    assert chat.recent(store, "g1", 10) == []


def test_a_lease_has_one_holder_until_it_runs_out_or_is_given_up(store: Store) -> None:
    new_game(store)
    new_game(store, "g2")
    assert lease.claim(store, "g1", "p1", 60) and lease.claim(store, "g2", "p1", 60)
    assert not lease.claim(store, "g1", "p2", 60)  # p1 holds it
    assert lease.claim(store, "g1", "p1", -1)  # p1 keeps it (and lets it run out)
    assert lease.claim(store, "g1", "p2", 60)  # run out: p2 takes it
    lease.renew(store, "p1", -1)  # p1's remaining lease (g2) runs out too
    assert lease.claim(store, "g2", "p2", 60)
    lease.release(store, "g1", "p1")  # not p1's to give up
    assert not lease.claim(store, "g1", "p1", 60)
    lease.release(store, None, "p2")  # shutdown: every lease of p2
    assert lease.claim(store, "g1", "p1", 60) and lease.claim(store, "g2", "p1", 60)
    assert store.delete("g1") and lease.claim(store, "g2", "p1", 60)  # a deleted game takes its lease along


def test_appends_started_without_a_waiting_thread_are_told_by_batch(store: Store) -> None:
    """``append_soon`` (PostgreSQL; SQLite with its own notifier): many appends at once, no
    thread each; the writer tells the outcomes together (one call per ``tell``), a stale one as
    VersionConflict, mixed with appends that wait in threads; the listeners hear each one with
    its entries. A store that cannot says so (False) and writes nothing."""
    heard: queue.Queue[Change] = queue.Queue()
    subscription = store.notifier.subscribe(heard.put)
    for n in range(40):
        new_game(store, f"soon{n}")
    told: list[list[object]] = []
    every = threading.Event()

    def tell(requests: list[object]) -> None:
        told.append(requests)
        if sum(len(batch) for batch in told) == 41:
            every.set()

    started = [store.append_soon(f"soon{n}", 1, [{"n": n}], tell=tell, waiter=n) for n in range(40)]
    if not any(started):
        assert entries_of(store, "soon0", 1) == []
        return
    assert all(started)
    assert store.append_soon("soon0", 1, [{"stale": True}], tell=tell, waiter="stale")  # the same game again
    assert store.append("soon39", 2, [{"n": "in a thread"}]) == 3  # waits for the batch after its first
    assert every.wait(10)
    outcomes: dict[object, object] = {}
    for batch in told:
        for request in batch:
            try:
                outcomes[request.waiter] = request.outcome()  # type: ignore[attr-defined]
            except VersionConflict as conflict:
                outcomes[request.waiter] = conflict
    assert {n: outcomes[n] for n in range(40)} == {n: 2 for n in range(40)}
    assert isinstance(outcomes["stale"], VersionConflict)
    assert len(told) < 41  # told by batch, not one by one
    assert [e.payload for e in entries_of(store, "soon39", 1)] == [{"n": 39}, {"n": "in a thread"}]
    appended: set[tuple[str | None, object]] = set()
    deadline = time.monotonic() + 10
    while len(appended) < 41 and time.monotonic() < deadline:
        with contextlib.suppress(queue.Empty):
            change = heard.get(timeout=0.5)
            if change.version in (2, 3) and change.entries:
                appended.add((change.game_id, change.entries[0].get("n", change.entries[0])))
    subscription.close()
    # Each heard once written, with its entries (the one made in a thread too); the refused one never.
    assert appended == {(f"soon{n}", n) for n in range(40)} | {("soon39", "in a thread")}


def test_a_batch_waits_for_other_games_only_while_several_write_often(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both stores' group commit (:class:`Gather`): another game's write that comes soon after a
    batch waits for others to join its batch; a write of the last batch's game, or one after a
    quiet spell, is written at once."""
    from binokel.server.storage.base import Gather, GroupCommit, Pending

    sleep = time.sleep
    waits = count_sleeps(monkeypatch, 2.0)
    batches: list[list[str | None]] = []
    gather = Gather(2.0, 60.0)  # long enough for a loaded machine
    group: GroupCommit[Pending] = GroupCommit(lambda batch: batches.append([p.game_id for p in batch]),
                                              key=lambda pending: pending.game_id, gather=gather)
    group.run(Pending("a"))
    writer = threading.Thread(target=group.run, args=(Pending("b"),))
    writer.start()  # another game's write, soon after a's batch: it waits for others
    deadline = time.monotonic() + 10
    while not waits and time.monotonic() < deadline:
        sleep(0.01)
    group.run(Pending("a"))  # joins b's batch
    writer.join()
    assert batches == [["a"], ["b", "a"]] and waits == [2.0]
    group.run(Pending("a"))  # the same game as the last batch's: no wait
    gather.often = 0.0
    group.run(Pending("c"))  # another game, but nobody wrote often: no wait
    assert batches[2:] == [["a"], ["c"]] and waits == [2.0]
