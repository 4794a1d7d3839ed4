"""Storage benchmark: the cost of an append and of a load as a game grows.

One game, appended to one entry at a time as a server does (one entry per accepted
action, a deal's chance step every 40 entries, realistic payload sizes), on each backend:
SQLite (a temporary file, WAL, ``synchronous=FULL``) and PostgreSQL (a temporary database
on ``--postgres``, skipped with a line if there is none). (The previous store, which
rewrote the whole record on every change, is gone; its figures stay in docs/server.md.)
Prints, per backend, appends/s in the first and the last window of appends; then,
the headline, ``--window`` appends to the long game and to a new game taken in turns (so
that both meet the same machine) and the ratio of their median times — about 1 means the
cost of an append does not grow with the game's length; and the time to load the game at
several lengths, the whole log and from the latest snapshot (one every
``--snapshot-every`` entries). Then ``--tables`` threads append to their own games at once
(as a server's worker threads would for that many busy tables): appends/s in all.
``--no-sync`` leaves out waiting for the disk.

    python bench/store.py [--json] [--entries N] [--window W] [--tables T] [--no-sync]
                          [--backends sqlite,postgres] [--postgres URL]

Numbers only: the test suite never asserts on time.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import secrets
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from binokel.server.storage import (
    Seat,
    SQLiteStore,
    Status,
    StorageUnavailable,
    Store,
    open_store,
)

CARDS = [f"{rank}{suit}" for suit in "SHDC" for rank in "ATKQJ9" for _ in range(2)]
SEATS = [Seat("person", None, "Anna"), Seat("bot", "easy", "Ben"), Seat("bot", "hard", "Cleo")]


def payload(version: int) -> dict[str, Any]:
    """An entry as the table driver might write it: a deal every 40 entries, else an action."""
    if version % 40 == 1:
        return {"type": "deal", "dealer": version % 3, "hands": [CARDS[i::3] for i in range(3)], "tapp": CARDS[:3]}
    return {"type": "action", "seat": version % 3, "action": CARDS[version % 48]}


def snapshot(version: int) -> dict[str, Any]:
    """A snapshot the size of a game state with its score sheet."""
    return {"type": "snapshot", "version": version, "hands": [CARDS[i::3] for i in range(3)],
            "sheet": [[version, 120, 0, 0]] * min(60, version // 40 + 1)}


def status(version: int) -> Status:
    return Status((version, 0, 0), version // 40 + 1, False, version % 3)


@contextmanager
def sqlite_target() -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="binokel-bench-") as folder:
        yield str(Path(folder) / "games.sqlite3")


@contextmanager
def postgres_target(admin: str) -> Iterator[str]:
    import psycopg

    name = f"binokel_bench_{os.getpid()}_{secrets.token_hex(3)}"
    try:
        with psycopg.connect(admin, autocommit=True, connect_timeout=3) as conn:
            conn.execute(f"CREATE DATABASE {name}")
    except psycopg.OperationalError as error:
        raise StorageUnavailable(f"no PostgreSQL at {_safe(admin)}: {error}") from error
    try:
        yield urllib.parse.urlsplit(admin)._replace(path=f"/{name}").geturl()
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _safe(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return f"{parts.hostname}:{parts.port or 5432}"


def timed(call: Callable[[], object], repeat: int = 3) -> float:
    """The best of ``repeat`` runs, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def bench_store(store: Store, entries: int, window: int, every: int, checkpoints: list[int]) -> dict[str, Any]:
    def append(game_id: str, version: int) -> float:
        snap = snapshot(version) if version % every == 0 else None
        start = time.perf_counter()
        store.append(game_id, version - 1, [payload(version)], status=status(version), snapshot=snap)
        return time.perf_counter() - start

    for game_id in ("long", "fresh"):
        store.create(game_id, rules="standard", settings={"name": "Anna"}, seed=1, first_dealer=0, seats=SEATS,
                     status=status(0))
    times: list[float] = []
    loads: list[dict[str, Any]] = []
    for version in range(1, entries + 1):
        times.append(append("long", version))
        if version in checkpoints:
            loads.append({"entries": version,
                          "load_all_ms": round(1000 * timed(lambda: store.load("long", from_snapshot=False)), 3),
                          "load_snapshot_ms": round(1000 * timed(lambda: store.load("long")), 3)})
    # Interleaved, so that both see the same machine: the long game against a new one.
    pairs = [(append("long", entries + i), append("fresh", i)) for i in range(1, window + 1)]
    return summary(times, pairs, window) | {"loads": loads}


def bench_concurrent(store: Store, tables: int, appends: int) -> dict[str, Any]:
    """``tables`` threads, each appending ``appends`` entries to its own game, as the worker
    threads of a server with that many busy tables would: appends/s in all."""
    for t in range(tables):
        store.create(f"busy{t}", rules="standard", settings={}, seed=t, first_dealer=0, seats=SEATS)
    start_line = threading.Barrier(tables + 1)

    def run(t: int) -> None:
        start_line.wait()
        for version in range(1, appends + 1):
            store.append(f"busy{t}", version - 1, [payload(version)], status=status(version))

    threads = [threading.Thread(target=run, args=(t,)) for t in range(tables)]
    for thread in threads:
        thread.start()
    start_line.wait()
    start = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    return {"tables": tables, "appends": tables * appends, "appends_per_s": round(tables * appends / elapsed, 1)}


def summary(times: list[float], pairs: list[tuple[float, float]], window: int) -> dict[str, Any]:
    window = min(window, len(times) // 2) or 1
    early, late = times[:window], times[-window:]
    long, fresh = [p[0] for p in pairs], [p[1] for p in pairs]
    return {
        "appends": len(times),
        "appends_per_s": round(len(times) / sum(times), 1),
        "early_appends_per_s": round(window / sum(early), 1),
        "late_appends_per_s": round(window / sum(late), 1),
        "early_p50_ms": round(1000 * statistics.median(early), 3),
        "late_p50_ms": round(1000 * statistics.median(late), 3),
        # The headline: appends to the long game and to a new one, taken in turns (so both
        # see the same machine), as a ratio of medians (fsync times on a shared machine are
        # noisy, the middle append is not). About 1: the cost does not grow with length.
        "long_p50_ms": round(1000 * statistics.median(long), 3),
        "fresh_p50_ms": round(1000 * statistics.median(fresh), 3),
        "long_over_fresh": round(statistics.median(long) / statistics.median(fresh), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--entries", type=int, default=4000, help="appends per backend (default 4000 = 100 deals)")
    parser.add_argument("--window", type=int, default=400, help="appends in the early and the late window")
    parser.add_argument("--snapshot-every", type=int, default=400, help="a snapshot every N entries")
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--tables", type=int, default=16,
                        help="then this many threads append to their own games at once (0: not)")
    parser.add_argument("--concurrent-appends", type=int, default=200, help="appends per thread")
    parser.add_argument("--no-sync", action="store_true",
                        help="do not wait for the disk (SQLite synchronous=OFF, PostgreSQL synchronous_commit=off):"
                             " the cost of the work itself, without fsync noise")
    parser.add_argument("--postgres", default=os.environ.get("BINOKEL_BENCH_POSTGRES",
                                                             "postgresql://postgres@127.0.0.1:5432/postgres"),
                        help="a PostgreSQL server to create a temporary database on")
    args = parser.parse_args()
    checkpoints = sorted({n for n in (100, 1000, 4000, 16000, 64000, args.entries) if n <= args.entries})
    results: dict[str, Any] = {"entries": args.entries, "sync": not args.no_sync, "python": platform.python_version(),
                               "backends": {}}
    for backend in args.backends.split(","):
        try:
            maker = sqlite_target() if backend == "sqlite" else postgres_target(args.postgres)
            with maker as target:
                if args.no_sync and backend == "postgres":
                    target += "?options=-c%20synchronous_commit%3Doff"
                with open_store(target) as store:
                    if args.no_sync and isinstance(store, SQLiteStore):
                        store._db.execute("PRAGMA synchronous=OFF")
                    result = bench_store(store, args.entries, args.window, args.snapshot_every, checkpoints)
                    if args.tables:
                        result["concurrent"] = bench_concurrent(store, args.tables, args.concurrent_appends)
        except (ImportError, StorageUnavailable, OSError) as error:
            result = {"skipped": f"{type(error).__name__}: {error}".splitlines()[0]}
        results["backends"][backend] = result
        if not args.json:
            report(backend, result)
    if args.json:
        print(json.dumps(results))


def report(backend: str, result: dict[str, Any]) -> None:
    if "skipped" in result:
        print(f"{backend}: skipped ({result['skipped']})")
        return
    print(f"{backend}: {result['appends']} appends, {result['appends_per_s']}/s;"
          f" early {result['early_appends_per_s']}/s (p50 {result['early_p50_ms']} ms),"
          f" late {result['late_appends_per_s']}/s (p50 {result['late_p50_ms']} ms)")
    print(f"  in turns with a new game: p50 {result['long_p50_ms']} ms at {result['appends']} entries,"
          f" {result['fresh_p50_ms']} ms at 0: ratio {result['long_over_fresh']}")
    if "concurrent" in result:
        concurrent = result["concurrent"]
        print(f"  {concurrent['tables']} threads on their own games at once: {concurrent['appends_per_s']} appends/s")
    for load in result["loads"]:
        print(f"  load at {load['entries']:>6} entries: whole log {load['load_all_ms']:>9.3f} ms,"
              f" from the latest snapshot {load['load_snapshot_ms']:>8.3f} ms")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
