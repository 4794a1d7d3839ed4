"""Decision latency of the bots per level and decision kind: ``python bench/ai.py [--json]``.

Plays a few deals between bots of one level and times every decision. Prints p50/p95
in milliseconds (or one JSON object with --json). Any rule text works (``--rules
"kreuz(bettel=300)"``); ``game`` is the choice of trump, Durch, open Durch or Bettel and
``tapp`` the choice of open Durch from the hand. Benchmarks are not tests: nothing here
asserts on time.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from binokel.ai import LEVELS, make_bot
from binokel.rules import Rules
from binokel.state import State
from binokel.view import view


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
    args = parser.parse_args()
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
