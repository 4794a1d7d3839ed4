"""Where one step's server CPU goes: the driver's proposal, the store's write, telling it, the rest.

One table of three people and a spectator (one connection each) is played to its end by
random legal actions through the server's own table (``server/table.py``), in this process:
no network, no client. Each part is timed with the CPU clock of the thread that runs it
(the store's write runs in a worker thread, PostgreSQL's in its batch writer); "rest" is the
step's CPU (every thread of the process) less the parts: the table's own work, the hops to
the worker thread, the event loop. ``bench/load.py`` measures the whole server under load;
this says where a step's CPU goes.

    python bench/step.py [--games 2] [--db postgresql://…] [--json out.json]

Numbers only (no test asserts on time).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from binokel.server.limits import Limits
from binokel.server.storage.sqlite import SQLiteStore
from binokel.server.table import Table
from binokel.table import Table as Driver
from table_game import seated_game

PARTS = ("propose", "store", "tell")
spent = dict.fromkeys(PARTS, 0.0)


def timed(owner: Any, name: str, part: str) -> None:
    """Count the CPU time of ``owner.name`` (in the thread that calls it) to ``part``."""
    original: Callable[..., Any] = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.thread_time()
        try:
            return original(*args, **kwargs)
        finally:
            spent[part] += time.thread_time() - started

    setattr(owner, name, wrapper)


async def play(seed: int, db: str) -> tuple[int, float, dict[str, float]]:
    """One game to its end: the steps, their CPU seconds, and each part's."""
    async with seated_game(db, seed, Limits()) as game:
        rng = random.Random(seed)
        for part in PARTS:
            spent[part] = 0.0
        steps, cpu = 0, 0.0
        while not game.table.driver.is_over():
            started = time.process_time()
            await game.step(rng)
            cpu += time.process_time() - started
            steps += 1
            for connection in game.connections:  # what a sender task would take off the queues
                while not connection.queue.empty():
                    connection.queue.get_nowait()
                connection.queue_bytes = 0
        return steps, cpu, dict(spent)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", default=None, help="a database URL (default: a temporary SQLite file per game)")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    timed(Driver, "propose", "propose")
    timed(Driver, "propose_deal", "propose")
    # The store's write wherever it runs: SQLite's append in a worker thread, PostgreSQL's batch
    # in whichever thread writes it (its appends need no thread of their own).
    timed(SQLiteStore, "append", "store")
    try:
        from binokel.server.storage.postgres import PostgresStore
    except ImportError:  # no psycopg: only SQLite is measured
        pass
    else:
        timed(PostgresStore, "_write_appends", "store")
    timed(Table, "adopt", "tell")
    steps, cpu = 0, 0.0
    parts = dict.fromkeys(PARTS, 0.0)
    with tempfile.TemporaryDirectory() as tmp:
        for game in range(args.games):
            db = args.db or str(Path(tmp) / f"game{game}.sqlite3")
            played, used, found = asyncio.run(play(args.seed + game, db))
            steps, cpu = steps + played, cpu + used
            for part in PARTS:
                parts[part] += found[part]
    report = {"steps": steps, "cpu_ms_per_step": round(1000 * cpu / steps, 3),
              **{f"{part}_ms_per_step": round(1000 * parts[part] / steps, 3) for part in PARTS},
              "rest_ms_per_step": round(1000 * (cpu - sum(parts.values())) / steps, 3),
              "db": "postgresql" if (args.db or "").startswith("postgres") else "sqlite"}
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":  # the bot pool's worker processes import this module again
    raise SystemExit(main())
