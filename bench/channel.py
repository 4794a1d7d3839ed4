"""What telling a step costs the server: bytes sent and server CPU per step, for a snapshot
to every audience and for the update channel, measured in the same run.

One table of three people and one spectator (one connection each), played to its end by
random legal actions through the server's own table (``server/table.py``, a SQLite file in
a temporary directory), in the same process: no network, no client. Per step it counts the
bytes queued to the four connections and the CPU time (``time.process_time``, every
thread: the store's writes included) of the whole step, and of telling it alone.

- ``snapshots`` (the reference): each audience gets the step's ``events`` and a full
  ``state`` snapshot (``Messages.state``), each built and encoded once per audience,
  as the server told a step before the update channel.
- ``updates``: what the server does (``Table.adopt``): one ``update`` per audience
  (``Messages.update``), built and encoded once per audience.

    python bench/channel.py [--games 3] [--seed 1] [--json out.json]

The modes alternate game by game (the machine's load falls on both alike); the report is
each mode's figures and the ratio updates/snapshots. Numbers only: no test asserts on time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from binokel.server.channel import Connection
from binokel.server.limits import Limits
from binokel.server.table import Table
from binokel.table import Change
from table_game import seated_game

RULES = "standard(target=1000)"


def adopt_snapshots(self: Table, change: Change, stand_in: int | None = None) -> None:
    """The reference: ``Table.adopt`` telling each audience the events and a full snapshot."""
    since = self.driver.version
    events = self.commit_to_driver(change)
    self.channel.tell(lambda audience: {**self.messages.events(audience, events, since), "stand_in": stand_in})
    self.channel.tell(self.messages.state)
    self.kick()


MODES = {"snapshots": adopt_snapshots, "updates": Table.adopt}


def drain(connections: list[Connection]) -> int:
    """The bytes queued to the connections since the last call (and empty their queues)."""
    total = 0
    for connection in connections:
        while not connection.queue.empty():
            text = connection.queue.get_nowait()
            total += len(text.encode()) if text else 0
        connection.queue_bytes = 0
    return total


async def play(mode: str, seed: int, db: Path) -> dict[str, list[float]]:
    """One game to its end; per step: bytes, CPU of the step, CPU of telling it."""
    limits = Limits(pool="thread", queue_messages=10_000, queue_bytes=1 << 30)
    tell_cpu: list[float] = []
    original = Table.adopt
    adopt = MODES[mode]

    def timed(self: Table, change: Change, stand_in: int | None = None) -> None:
        started = time.process_time()
        adopt(self, change, stand_in)
        tell_cpu.append(time.process_time() - started)

    Table.adopt = timed  # type: ignore[method-assign]
    try:
        async with seated_game(str(db), seed, limits, RULES) as game:
            drain(game.connections)
            rng = random.Random(seed)
            steps: dict[str, list[float]] = {"bytes": [], "cpu": [], "tell_cpu": []}
            while not game.table.driver.is_over():
                tell_cpu.clear()
                started = time.process_time()
                await game.step(rng)
                steps["cpu"].append(time.process_time() - started)
                steps["tell_cpu"].append(sum(tell_cpu))
                steps["bytes"].append(drain(game.connections))
            return steps
    finally:
        Table.adopt = original  # type: ignore[method-assign]


def summary(steps: dict[str, list[float]]) -> dict[str, float]:
    count = len(steps["bytes"])
    return {"steps": count, "bytes_per_step": sum(steps["bytes"]) / count,
            "cpu_ms_per_step": 1000 * sum(steps["cpu"]) / count,
            "cpu_ms_median": 1000 * statistics.median(steps["cpu"]),
            "tell_cpu_ms_per_step": 1000 * sum(steps["tell_cpu"]) / count,
            "tell_cpu_ms_median": 1000 * statistics.median(steps["tell_cpu"])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3, help="games per mode (alternating), default 3")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)
    results: dict[str, dict[str, list[float]]] = {mode: {} for mode in MODES}
    with tempfile.TemporaryDirectory() as tmp:
        for game in range(args.games):
            for mode in MODES:  # alternating: the machine's load falls on both alike
                steps = asyncio.run(play(mode, args.seed + game, Path(tmp) / f"{mode}{game}.sqlite"))
                for key, values in steps.items():
                    results[mode].setdefault(key, []).extend(values)
    report: dict[str, Any] = {mode: summary(steps) for mode, steps in results.items()}
    snapshots, updates = report["snapshots"], report["updates"]
    report["ratio_updates_snapshots"] = {key: updates[key] / snapshots[key] for key in snapshots
                                         if key != "steps" and snapshots[key]}
    report["command"] = "python bench/channel.py " + " ".join(argv if argv is not None else sys.argv[1:])
    for mode in MODES:
        figures = report[mode]
        print(f"{mode:>9}: {figures['steps']:.0f} steps, {figures['bytes_per_step']:,.0f} bytes/step, "
              f"CPU {figures['cpu_ms_per_step']:.2f} ms/step (median {figures['cpu_ms_median']:.2f}; "
              f"telling it: {figures['tell_cpu_ms_per_step']:.2f} ms, median {figures['tell_cpu_ms_median']:.2f})")
    ratio = report["ratio_updates_snapshots"]
    print(f"updates/snapshots: bytes {ratio['bytes_per_step']:.3f}, CPU/step {ratio['cpu_ms_per_step']:.3f} "
          f"(median {ratio['cpu_ms_median']:.3f}), telling {ratio['tell_cpu_ms_per_step']:.3f} "
          f"(median {ratio['tell_cpu_ms_median']:.3f})")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
