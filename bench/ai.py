"""Decision latency of the bots per level and decision kind: ``python bench/ai.py [--json]``.

Plays a few deals between bots of one level and times every decision. Prints p50/p95
in milliseconds (or one JSON object with --json). Any rule text works (``--rules
"kreuz(bettel=300)"``); ``game`` is the choice of trump, Durch, open Durch or Bettel and
``tapp`` the choice of open Durch from the hand. Benchmarks are not tests: nothing here
asserts on time.

``--jobs 1,2`` measures root parallelism instead (``binokel.ai.parallel``): the positions
of ``--deals`` deals (played by medium bots) are decided by the level once per value of
``JOBS``, with the same seed per position, and it prints per decision kind the worlds
evaluated per decision (mean), the ratio to the first value and the wall time. With
``--clock`` the effort rate is raised 1000-fold so that the clock deadline alone ends every
search: the ratio is then how many more worlds the processes evaluate in the same time.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time

from typing import Any

from binokel.ai import LEVELS, make_bot, parallel
from binokel.rules import Rules
from binokel.state import State
from binokel.view import SeatView, view


def measure(level: str, deals: int, budget: float, rules: str, seed: int) -> dict[str, list[float]]:
    rng = random.Random(seed)
    players = Rules.parse(rules).players
    bots = [make_bot(level, seed=seat) for seat in range(players)]
    times: dict[str, list[float]] = {}
    for index in range(deals):
        state = State.new(rules, dealer=index % players).deal_random(rng)
        while not state.is_over():
            seen = view(state, state.to_move)
            start = time.perf_counter()
            action = bots[state.to_move].choose(seen, rng, budget)
            times.setdefault(seen.phase, []).append(time.perf_counter() - start)
            state = state.apply(action)
    return times


def positions(deals: int, rules: str, seed: int) -> list[SeatView]:
    """The views of every decision with a choice in ``deals`` deals of medium bots."""
    rng = random.Random(seed)
    players = Rules.parse(rules).players
    bots = [make_bot("medium", seed=seat) for seat in range(players)]
    views = []
    for index in range(deals):
        state = State.new(rules, dealer=index % players).deal_random(rng)
        while not state.is_over():
            seen = view(state, state.to_move)
            if len(seen.legal_actions) > 1:
                views.append(seen)
            state = state.apply(bots[state.to_move].choose(seen, rng, 0.01))
    return views


def measure_jobs(level: str, views: list[SeatView], jobs: list[int], budget: float,
                 clock: bool) -> dict[int, dict[str, Any]]:
    """Per value of JOBS and decision kind: the worlds each decision evaluated and its wall
    time. The values take turns position by position, so a change in the machine's load
    falls on all of them alike."""
    bots: dict[int, Any] = {}
    for j in jobs:
        bots[j] = make_bot(level, seed=1)
        bots[j].JOBS = j
        if clock:
            bots[j].PLAYOUTS_PER_SECOND *= 1000
        bots[j].choose(views[-1], random.Random(0), budget)  # start the workers before timing
    result: dict[int, dict[str, Any]] = {j: {} for j in jobs}
    for index, seen in enumerate(views):
        for j, bot in bots.items():
            bot.last_worlds = 0
            cpu = cpu_seconds()
            start = time.perf_counter()
            bot.choose(seen, random.Random(index), budget)
            elapsed = time.perf_counter() - start
            kind = result[j].setdefault(seen.phase, {"worlds": [], "seconds": [], "cpu": []})
            kind["worlds"].append(bot.last_worlds)
            kind["seconds"].append(elapsed)
            kind["cpu"].append(cpu_seconds() - cpu)
    return result


def cpu_seconds() -> float:
    """CPU time of this process and of the search's worker processes (Linux: /proc; elsewhere
    this process only)."""
    total = time.process_time()
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    for pid in parallel.worker_pids():
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(") ", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return total


def compare_jobs(args: argparse.Namespace) -> None:
    views = positions(args.deals, args.rules, args.seed)
    jobs = [int(j) for j in args.jobs.split(",")]
    report: dict[str, Any] = {}
    for level in args.levels.split(","):
        runs = measure_jobs(level, views, jobs, args.budget, args.clock)
        kinds: dict[str, Any] = {}
        for kind in sorted(runs[jobs[0]]):
            rows = {}
            for j in jobs:
                worlds, seconds = runs[j][kind]["worlds"], runs[j][kind]["seconds"]
                rows[j] = {"worlds_mean": round(sum(worlds) / len(worlds), 1),
                           "p50_ms": round(percentile(seconds, 0.5) * 1000, 1),
                           "p95_ms": round(percentile(seconds, 0.95) * 1000, 1)}
            base = sum(runs[jobs[0]][kind]["worlds"])
            kinds[kind] = {"n": len(runs[jobs[0]][kind]["worlds"]), "jobs": rows,
                           "ratio": {j: round(sum(runs[j][kind]["worlds"]) / base, 2) if base else None for j in jobs}}
        total = {j: sum(sum(runs[j][k]["worlds"]) for k in runs[j]) for j in jobs}
        cpu = {j: sum(sum(runs[j][k]["cpu"]) for k in runs[j]) for j in jobs}
        report[level] = {"kinds": kinds, "ratio": {j: round(total[j] / total[jobs[0]], 2) if total[jobs[0]] else None
                                                   for j in jobs},
                         "worlds_per_cpu_second": {j: round(total[j] / cpu[j], 1) if cpu[j] else None for j in jobs}}
    parallel.close()
    load = round(os.getloadavg()[0], 2)
    if args.json:
        print(json.dumps({"budget": args.budget, "rules": args.rules, "clock": args.clock, "positions": len(views),
                          "cpus": os.cpu_count(), "load_after": load, "levels": report}))
        return
    print(f"budget {args.budget}s, rules {args.rules}, {len(views)} positions, clock only: {args.clock}, "
          f"{os.cpu_count()} cpus, load average after: {load}")
    for level, entry in report.items():
        for kind, stats in entry["kinds"].items():
            cells = "  ".join(f"jobs={j}: {row['worlds_mean']:7.1f} worlds p50 {row['p50_ms']:7.1f} ms "
                              f"p95 {row['p95_ms']:7.1f} ms" for j, row in stats["jobs"].items())
            ratios = " ".join(f"{r}" for j, r in stats["ratio"].items() if j != jobs[0])
            print(f"{level:<7} {kind:<9} n={stats['n']:<3} {cells}  ratio {ratios}")
        per_cpu = ", ".join(f"jobs={j}: {r}" for j, r in entry["worlds_per_cpu_second"].items())
        print(f"{level:<7} all worlds: ratio {' '.join(str(r) for j, r in entry['ratio'].items() if j != jobs[0])}; "
              f"worlds per CPU second: {per_cpu}")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--deals", type=int, default=3)
    parser.add_argument("--budget", type=float, default=1.0, help="the budget passed to choose (default 1.0)")
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", default=None, metavar="J1,J2",
                        help="compare worlds per decision at these JOBS values instead (e.g. 1,2)")
    parser.add_argument("--clock", action="store_true",
                        help="with --jobs: the clock deadline alone ends each search (effort rate x 1000)")
    args = parser.parse_args()
    if args.jobs:
        compare_jobs(args)
        return
    result = {}
    for level in args.levels.split(","):
        times = measure(level, args.deals, args.budget, args.rules, args.seed)
        result[level] = {kind: {"p50_ms": round(percentile(t, 0.5) * 1000, 2),
                                "p95_ms": round(percentile(t, 0.95) * 1000, 2), "n": len(t)}
                         for kind, t in sorted(times.items())}
    if args.json:
        print(json.dumps({"budget": args.budget, "rules": args.rules, "levels": result}))
        return
    print(f"budget {args.budget}s, rules {args.rules}")
    for level, kinds in result.items():
        for kind, stats in kinds.items():
            print(f"{level:<7} {kind:<9} p50 {stats['p50_ms']:8.2f} ms  p95 {stats['p95_ms']:8.2f} ms  n={stats['n']}")


if __name__ == "__main__":
    main()
