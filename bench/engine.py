"""Engine benchmark: complete random deals through the public API.

Every deal goes from the chance step to the score, choosing a uniformly random legal
action at every decision (``State.new(...).deal_random(rng)``, ``legal_actions``,
``apply``). Prints deals per second and card plays per second (card plays = PLAY
actions). When OpenSpiel (``pyspiel``) is importable, its Skat is played the same way
in the same run (random legal actions, chance outcomes sampled by their probabilities)
and the ratio of card plays per second is printed as well.

The engines take turns in short rounds and are timed in CPU seconds of this process
(``time.process_time``): on a shared machine wall-clock time would measure the
neighbours. The binokel figure is that of the core this interpreter runs (compiled or
interpreted, see ``binokel --version``); ``--both`` measures the interpreted core too, in
a second process with ``BINOKEL_PURE=1``, against Skat again there.

    python bench/engine.py [--json] [--seconds S] [--rules R] [--seed N] [--both]

Numbers only: the test suite never asserts on time.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import time
from typing import Any

import binokel
from binokel.action import ActionKind
from binokel.rules import Rules
from binokel.state import State

SKAT_CARD_ACTIONS = 32  # OpenSpiel Skat: actions 0..31 are cards, higher ones are game types and pass
SKAT_DISCARDS = 2  # the declarer's two cards laid into the Skat are card actions, not card plays


def bench_binokel(rules: Rules, seconds: float, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    choice = rng.choice
    play = ActionKind.PLAY
    deals = plays = actions = 0
    dealer = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        state = State.new(rules, dealer).deal_random(rng)
        while not state.is_over():
            action = choice(state.legal_actions())
            if action.kind is play:
                plays += 1
            state = state.apply(action)
            actions += 1
        deals += 1
        dealer = (dealer + 1) % rules.players
        if deals % 16 == 0 and time.process_time() >= deadline:
            break
    elapsed = time.process_time() - start
    return _rates("binokel", rules.text, deals, plays, actions, elapsed)


def bench_skat(seconds: float, seed: int) -> dict[str, Any]:
    import pyspiel

    game = pyspiel.load_game("skat")
    rng = random.Random(seed)
    deals = plays = actions = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        state = game.new_initial_state()
        card_actions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, weights)[0])
                continue
            action = rng.choice(state.legal_actions())
            if action < SKAT_CARD_ACTIONS:
                card_actions += 1
            state.apply_action(action)
            actions += 1
        plays += max(0, card_actions - SKAT_DISCARDS)
        deals += 1
        if deals % 16 == 0 and time.process_time() >= deadline:
            break
    elapsed = time.process_time() - start
    return _rates("open_spiel skat", "skat", deals, plays, actions, elapsed)


def _rates(engine: str, rules: str, deals: int, plays: int, actions: int, elapsed: float) -> dict[str, Any]:
    return {
        "engine": engine, "rules": rules, "deals": deals, "card_plays": plays, "actions": actions,
        "seconds": round(elapsed, 3), "deals_per_second": round(deals / elapsed, 1),
        "card_plays_per_second": round(plays / elapsed, 1), "actions_per_second": round(actions / elapsed, 1),
    }


ROUNDS = 5  # the engines take turns: a drift in the machine's speed hits both alike


def _merged(parts: list[dict[str, Any]]) -> dict[str, Any]:
    total = {key: sum(p[key] for p in parts) for key in ("deals", "card_plays", "actions", "seconds")}
    return _rates(parts[0]["engine"], parts[0]["rules"], total["deals"], total["card_plays"], total["actions"],
                  total["seconds"])


def measure(rules: Rules, seconds: float, seed: int) -> dict[str, Any]:
    """binokel (the core this interpreter runs) and, if installed, OpenSpiel Skat, in turns."""
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        skat = False
    else:
        skat = True
    ours: list[dict[str, Any]] = []
    theirs: list[dict[str, Any]] = []
    for round_number in range(ROUNDS):
        ours.append(bench_binokel(rules, seconds / ROUNDS, seed + round_number))
        if skat:
            theirs.append(bench_skat(seconds / ROUNDS, seed + round_number))
    result: dict[str, Any] = {"core": list(binokel.compiled()) or "pure Python", "binokel": _merged(ours),
                              "open_spiel": _merged(theirs) if skat else None}
    if skat:
        ratio = result["binokel"]["card_plays_per_second"] / result["open_spiel"]["card_plays_per_second"]
        result["card_plays_ratio_binokel_to_skat"] = round(ratio, 3)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--seconds", type=float, default=5.0, help="CPU time per engine (default 5)")
    parser.add_argument("--rules", default="standard", help="rule set, e.g. classic40 or 'standard(must_beat=led)'")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--both", action="store_true",
                        help="also measure the interpreted core (a second process with BINOKEL_PURE=1)")
    args = parser.parse_args(argv)
    rules = Rules.parse(args.rules)

    result: dict[str, Any] = {"python": platform.python_version(), **measure(rules, args.seconds, args.seed)}
    if args.both and binokel.compiled():
        command = [sys.executable, os.path.abspath(__file__), "--json", "--seconds", str(args.seconds),
                   "--rules", args.rules, "--seed", str(args.seed)]
        out = subprocess.run(command, capture_output=True, text=True, check=True,
                             env={**os.environ, "BINOKEL_PURE": "1"})
        pure = json.loads(out.stdout)
        result["interpreted"] = {key: pure[key] for key in ("core", "binokel", "open_spiel",
                                                            "card_plays_ratio_binokel_to_skat") if key in pure}

    if args.json:
        print(json.dumps(result))
        return 0
    print(f"Python {result['python']}")
    for run in (result, result.get("interpreted")):
        if not run:
            continue
        core = run["core"] if isinstance(run["core"], str) else "compiled core: " + ", ".join(run["core"])
        print(f"binokel ({core}):")
        for key in ("binokel", "open_spiel"):
            r = run[key]
            if r is None:
                continue
            print(f"{r['engine']:>16} ({r['rules']}): {r['deals_per_second']:>9.1f} deals/s  "
                  f"{r['card_plays_per_second']:>10.1f} card plays/s  {r['actions_per_second']:>10.1f} actions/s  "
                  f"({r['deals']} deals in {r['seconds']} CPU s)")
        if run["open_spiel"] is None:
            print("open_spiel (pyspiel) is not installed: no Skat comparison")
        else:
            print(f"card plays per second, binokel / OpenSpiel Skat: {run['card_plays_ratio_binokel_to_skat']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
