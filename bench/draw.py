"""The club draw's quality: how many pairs of players meet more than once.

For each number of players (30, 42, 60, 120 by default) and each seed, an event of three
rounds at tables of three (the rest at tables of four) is drawn round after round, with
"meet as few times as possible" off (by lot alone) and on. Prints, per player count and
option, the pairs who met more than once (mean, worst over the seeds), the players who
sat at a table of four more than once, and the seconds a draw took (mean, slowest).

    python bench/draw.py [--json] [--players 30,42,60,120] [--rounds 3] [--seeds 10]

Numbers only: the test suite never asserts on time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from dataclasses import replace
from typing import Any

from binokel.club import Event, ScoredDeal, draw, repeated_pairs


def _played(event: Event) -> Event:
    """The last round with every table's deals entered (the draw looks only at who sat
    where; scores are beside the point here)."""
    last = event.rounds[-1]
    done = ScoredDeal({}, (), None, None)
    tables = tuple(replace(t, deals=(done,) * event.settings.deals) for t in last.tables)
    return replace(event, rounds=(*event.rounds[:-1], replace(last, tables=tables)))


def run_event(players: int, rounds: int, seed: int, fewest: bool) -> dict[str, Any]:
    event = Event.create({"name": "bench", "rules": "club", "rounds": rounds, "deals": 1,
                          "fewest_meetings": fewest})
    for n in range(players):
        event = event.apply({"kind": "register", "name": f"P{n}"})
    seconds = []
    for number in range(rounds):
        start = time.perf_counter()
        entry = draw(event, seed * 1000 + number)
        seconds.append(time.perf_counter() - start)
        event = _played(event.apply(entry))
    at_four = Counter(p for r in event.rounds for t in r.tables if len(t.players) == 4 for p in t.players)
    return {"repeated": repeated_pairs(event), "four_twice": sum(1 for c in at_four.values() if c > 1),
            "seconds": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--players", default="30,42,60,120")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seeds", type=int, default=10)
    args = parser.parse_args()
    results = []
    for players in (int(p) for p in args.players.split(",")):
        for fewest in (False, True):
            runs = [run_event(players, args.rounds, seed, fewest) for seed in range(args.seeds)]
            seconds = [s for run in runs for s in run["seconds"]]
            line = {"players": players, "rounds": args.rounds, "fewest_meetings": fewest, "seeds": args.seeds,
                    "repeated_mean": statistics.mean(r["repeated"] for r in runs),
                    "repeated_max": max(r["repeated"] for r in runs),
                    "four_twice_max": max(r["four_twice"] for r in runs),
                    "draw_seconds_mean": statistics.mean(seconds), "draw_seconds_max": max(seconds)}
            results.append(line)
            if not args.json:
                print(f"{players:4d} players  {'fewest meetings' if fewest else 'by lot         '}  "
                      f"pairs meeting again: mean {line['repeated_mean']:5.1f}  worst {line['repeated_max']:3d}  "
                      f"at a table of four twice: worst {line['four_twice_max']}  "
                      f"draw: mean {line['draw_seconds_mean']:.3f} s, slowest {line['draw_seconds_max']:.3f} s",
                      flush=True)
    if args.json:
        print(json.dumps({"results": results}))


if __name__ == "__main__":
    main()
