"""Open-card solver benchmark: ``python bench/solve.py [--json] [--positions N]``.

A fixed set of positions (the same on every run): for each rule set, deals bid and
discarded by medium bots, then played by the heuristic card rule up to a trick start
with 9, 12 or 15 tricks left (as the hand size allows). Every hand is open. Each
position is solved exactly by :class:`binokel.ai.solver.Solver` (the soloist side's
best gain; its search in C where that is built), by the same solver's Python search
(``--python``, compiled by Cython where that is built) and, in the same run, by the old
utility search (``binokel.ai.search.solve``, which values every legal card); both get a
node limit, and a position over the limit counts as unfinished. Prints the median CPU time
per position (``time.process_time``: the machine is shared, and wall-clock time would
measure the neighbours), the nodes, and the ratio old / new over the positions both
finished. Numbers only: nothing asserts on time. The solver runs as this interpreter has it
(compiled or interpreted, see ``binokel --version``; ``BINOKEL_PURE=1`` for the interpreted
one).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

import binokel
from binokel.ai import make_bot
from binokel.ai.fast import Position
from binokel.ai.policy import choose_card
from binokel.ai.search import solve
from binokel.ai.solver import SolveAborted, Solver, Table, new_table, search_core
from binokel.rules import Rules
from binokel.state import Phase, State
from binokel.view import view

RULE_SETS = ("standard", "classic40", "kreuz", "standard(bettel=300)")


def positions(rules_text: str, tricks_left: int, count: int, seed: int) -> list[Position]:
    """``count`` open positions at a trick start with ``tricks_left`` tricks to play."""
    rules = Rules.parse(rules_text)
    found: list[Position] = []
    index = 0
    while len(found) < count and index < 50 * count:
        rng = random.Random(f"solve:{rules_text}:{seed}:{index}")
        index += 1
        state = State.new(rules, dealer=index % rules.players).deal_random(rng)
        bots = [make_bot("medium", seed=seat) for seat in range(rules.players)]
        while state.phase is not Phase.PLAY and not state.is_over():
            state = state.apply(bots[state.to_move].choose(view(state, state.to_move), rng))
        if state.is_over():
            continue
        p = Position.from_state(state)
        while not p.over and (p.trick or sum(h.bit_count() for h in p.hands) > tricks_left * len(p.order)):
            legal = p.legal_mask()
            seat = p.to_move
            p.play(choose_card(p.hands[seat], legal, p.trick, p.best, p.order, seat, p.game, p.soloist, rules,
                               p.played, p.hands[p.soloist]) if legal & (legal - 1) else legal.bit_length() - 1)
        if not p.over and sum(h.bit_count() for h in p.hands) == tricks_left * len(p.order):
            found.append(p)
    return found


def time_new(p: Position, limit: int, table: Table | None = None) -> tuple[float | None, int]:
    solver = Solver(p, table if table is not None else new_table(), node_limit=limit)
    start = time.process_time()
    try:
        solver.value()
    except SolveAborted:
        return None, solver.nodes
    return time.process_time() - start, solver.nodes


def time_old(p: Position, limit: int) -> float | None:
    start = time.process_time()
    return time.process_time() - start if solve(p.copy(), p.to_move, limit) is not None else None


def median_ms(values: list[float]) -> float | None:
    return round(statistics.median(values) * 1000, 2) if values else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--positions", type=int, default=8, help="positions per rule set and depth (default 8)")
    parser.add_argument("--tricks", default="9,12,15", help="tricks left (default 9,12,15)")
    parser.add_argument("--rules", default=";".join(RULE_SETS),
                        help="rule sets separated by ';' (default: %(default)s)")
    parser.add_argument("--limit", type=int, default=2_000_000, help="node limit of the new solver")
    parser.add_argument("--old-limit", type=int, default=300_000, help="node limit of the old solver")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--python", action="store_true",
                        help="also time the solver's Python search (where the C one runs): their ratio")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    core = list(binokel.compiled()) or "pure Python"
    if not args.json:
        print(f"core: {core if isinstance(core, str) else 'compiled ' + ', '.join(core)}; search: {search_core()}")
    for rules_text in args.rules.split(";"):
        rules = Rules.parse(rules_text)
        for left in (int(x) for x in args.tricks.split(",")):
            if left > rules.hand_size:
                continue
            new_times, old_times, ratios, nodes, python_ratios = [], [], [], [], []
            unfinished_new = unfinished_old = 0
            for p in positions(rules_text, left, args.positions, args.seed):
                t_new, n = time_new(p, args.limit)
                if args.python and search_core() == "C" and t_new is not None:
                    t_python, _ = time_new(p, args.limit, {})
                    if t_python is not None:
                        python_ratios.append(t_python / t_new)
                t_old = time_old(p, args.old_limit)
                if t_new is None:
                    unfinished_new += 1
                else:
                    new_times.append(t_new)
                    nodes.append(n)
                if t_old is None:
                    unfinished_old += 1
                else:
                    old_times.append(t_old)
                if t_new is not None and t_old is not None:
                    ratios.append(t_old / t_new)
            rows.append({"rules": rules_text, "tricks_left": left, "positions": len(new_times) + unfinished_new,
                         "new_median_ms": median_ms(new_times), "new_unfinished": unfinished_new,
                         "new_median_nodes": int(statistics.median(nodes)) if nodes else None,
                         "old_median_ms": median_ms(old_times), "old_unfinished": unfinished_old,
                         "old_over_new_median": round(statistics.median(ratios), 2) if ratios else None,
                         "python_over_c_median": round(statistics.median(python_ratios), 1) if python_ratios else None})
            if not args.json:
                r = rows[-1]
                print(f"{rules_text:<22} {left:>2} tricks left: new median {r['new_median_ms']} ms "
                      f"({r['new_median_nodes']} nodes, {unfinished_new}/{r['positions']} over {args.limit} nodes)  "
                      f"old median {r['old_median_ms']} ms ({unfinished_old} over {args.old_limit} nodes)  "
                      f"old/new {r['old_over_new_median']}"
                      + (f"  Python search / C {r['python_over_c_median']}" if python_ratios else ""), flush=True)
    if args.json:
        print(json.dumps({"core": core, "search": search_core(), "limit": args.limit, "old_limit": args.old_limit,
                          "rows": rows}))


if __name__ == "__main__":
    main()
