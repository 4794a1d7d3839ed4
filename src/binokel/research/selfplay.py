"""Self-play data: ``binokel selfplay --bots hard,hard,hard --deals N --out deals.jsonl``.

Each line of the output is one deal: its record (docs/records.md deal format, with ``players``,
``seed`` and ``index`` added) plus ``scores`` and ``decisions``, one entry per decision
in the order taken::

    {"seat": 1,                       # who decided
     "x": [[17, 1.0], [40, 2.0], ...],# the observation (binokel.research.features), sparse: [index, value] pairs
     "legal": [0, 1],                 # the legal action indices (the mask's ones)
     "action": 1,                     # the index taken (null: a bid beyond the offered range)
     "text": "160",                   # the action in record notation
     "reward": -320}                  # that seat's score for the deal

The observation of a decision is built from the deciding seat's view only, exactly as
the PettingZoo and OpenSpiel adapters build it, so a policy trained on these lines plays
in either. :func:`load_arrays` turns a file into numpy arrays.

The same ``--seed`` gives the same deals and the same decisions (bots seeded per deal).

>>> import io, json
>>> out = io.StringIO()
>>> write_deals(Plan(("easy",), 1, 5, "standard", 0.01), out)
1
>>> line = json.loads(out.getvalue())
>>> line["format"], len(line["decisions"]) > 10, line["decisions"][0]["text"]
('binokel-deal/1', True, '150')
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from binokel.research import features
from binokel.ai import BOT_CLASSES, LEVELS, choose_safely, make_bot
from binokel.error import BinokelError
from binokel.record import deal_record
from binokel.rules import Rules
from binokel.table import Deal, Over, Seat, Table, Think
from binokel.tournament import cards_of, seed_of


@dataclass(frozen=True)
class Plan:
    """What to play: bot levels (one, or one per seat), deals, seed, rules, thinking budget."""

    bots: tuple[str, ...]
    deals: int
    seed: int
    rules: str
    budget: float
    start: int = 0  # index of the first deal


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bots", default="medium", help="comma-separated levels: one for every seat, or one per seat "
                        f"({', '.join(LEVELS)}; default medium)")
    parser.add_argument("--deals", type=int, default=100, help="deals to play (default 100)")
    parser.add_argument("--out", default="-", help="output file, JSON lines ('-': standard output, the default)")
    parser.add_argument("--rules", default="standard", help="rule set (default standard)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the cards and the bots (default 1)")
    parser.add_argument("--budget", type=float, default=0.1, help="seconds per decision for search bots (default 0.1)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")


def plan_of(args: argparse.Namespace) -> Plan:
    """Check the options; raises ValueError with a one-line message."""
    bots = tuple(b.strip().lower() for b in str(args.bots).split(",") if b.strip())
    try:
        rules = Rules.parse(args.rules)
    except BinokelError as error:
        raise ValueError(str(error)) from None
    if len(bots) not in (1, rules.players):
        raise ValueError(f"--bots needs one level or {rules.players} (one per seat), not {args.bots!r}")
    for bot in bots:
        if bot not in BOT_CLASSES or bot == "oracle":
            raise ValueError(f"unknown bot level {bot!r} (known: {', '.join(LEVELS)}; the oracle sees hidden cards)")
    if args.deals < 1:
        raise ValueError(f"--deals must be at least 1, not {args.deals}")
    if args.budget <= 0 or args.jobs < 1:
        raise ValueError("--budget must be positive and --jobs at least 1")
    return Plan(bots, args.deals, args.seed, rules.text, args.budget)


def play_deal(plan: Plan, index: int) -> dict[str, Any]:
    """Deal number ``index``: the record plus every decision's features. The table driver
    says who moves; the bots and their generators are the table's (seeded by its seed)."""
    rules = Rules.parse(plan.rules)
    names = [plan.bots[seat % len(plan.bots)] for seat in range(rules.players)]
    table = Table(rules, [Seat(name) for name in names], seed=seed_of(plan.seed, index),
                  first_dealer=index % rules.players)
    bots = [make_bot(name, seed=int(table.rng(f"bot{seat}").getrandbits(63))) for seat, name in enumerate(names)]
    decisions: list[dict[str, Any]] = []
    while not isinstance(step := table.next_step(), Over):
        if isinstance(step, Deal):
            if table.deal_number:  # one deal per record
                break
            table.deal(cards_of(plan.seed, index))
            continue
        assert isinstance(step, Think), f"self-play has no people: {step}"
        seen = table.view(step.seat)
        action = choose_safely(bots[step.seat], seen, table.rng(f"bot{step.seat}"), plan.budget,
                               seed=table.seed_for(f"bot{step.seat}"))
        vector = features.observation(seen)
        decisions.append({"seat": step.seat, "x": [[i, v] for i, v in enumerate(vector) if v],
                          "legal": features.legal_indices(seen), "action": features.index_of(action, seen),
                          "text": str(action)})
        table.act(step.seat, action)
    state = table.game.deals[0]
    scores = list(state.scores or ())
    for decision in decisions:
        decision["reward"] = scores[decision["seat"]]
    record = deal_record(state)
    record.update(players=names, seed=plan.seed, index=index, scores=scores, decisions=decisions)
    return record


def _job(job: tuple[Plan, int]) -> dict[str, Any]:
    return play_deal(*job)


def deals(plan: Plan, jobs: int = 1) -> Iterator[dict[str, Any]]:
    """Every deal of the plan, in order (on ``jobs`` processes)."""
    work = [(plan, plan.start + i) for i in range(plan.deals)]
    if jobs == 1:
        yield from map(_job, work)
        return
    context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    with context.Pool(jobs) as pool:
        yield from pool.imap(_job, work)


def write_deals(plan: Plan, out: IO[str], jobs: int = 1) -> int:
    """Write the plan's deals as JSON lines; returns how many."""
    count = 0
    for record in deals(plan, jobs):
        out.write(json.dumps(record, separators=(",", ":")) + "\n")
        count += 1
    return count


def run(args: argparse.Namespace) -> int:
    try:
        plan = plan_of(args)
    except ValueError as error:
        print(f"binokel selfplay: error: {error}", file=sys.stderr)
        return 2
    if args.out == "-":
        write_deals(plan, sys.stdout, args.jobs)
    else:
        with open(args.out, "w", encoding="utf-8") as out:
            count = write_deals(plan, out, args.jobs)
        print(f"wrote {count} deals to {args.out}", file=sys.stderr)
    return 0


# ---------------------------------------------------------------------- reading

def load_arrays(path: str) -> dict[str, Any]:
    """A self-play file as numpy arrays (needs ``binokel[rl]``): ``x`` (observations,
    float32), ``mask`` (legal actions, bool), ``action`` (index taken, -1 if none),
    ``reward`` (the seat's deal score), ``seat`` and ``deal`` (the line number)."""
    import numpy as np

    rows: list[tuple[int, dict[str, Any]]] = []
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines):
            if line.strip():
                rows += [(number, d) for d in json.loads(line)["decisions"]]
    x = np.zeros((len(rows), features.OBSERVATION_SIZE), np.float32)
    mask = np.zeros((len(rows), features.ACTIONS), bool)
    for row, (_, decision) in enumerate(rows):
        if decision["x"]:
            where, values = zip(*decision["x"])
            x[row, list(where)] = values
        mask[row, decision["legal"]] = True
    return {
        "x": x, "mask": mask,
        "action": np.array([-1 if d["action"] is None else d["action"] for _, d in rows], np.int64),
        "reward": np.array([d["reward"] for _, d in rows], np.float32),
        "seat": np.array([d["seat"] for _, d in rows], np.int64),
        "deal": np.array([n for n, _ in rows], np.int64),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="binokel selfplay", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
