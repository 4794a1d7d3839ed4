"""Engine benchmark: complete random deals through the public API.

Every deal goes from the chance step to the score, choosing a uniformly random legal
action at every decision (``State.new(...).deal_random(rng)``, ``legal_actions``,
``apply``). Prints deals per second and card plays per second (card plays = PLAY
actions). When OpenSpiel (``pyspiel``) is importable, its Skat is played the same way
in the same run (random legal actions, chance outcomes sampled by their probabilities)
and the ratio of card plays per second is printed as well.

    python bench/engine.py [--json] [--seconds S] [--rules R] [--seed N]

Numbers only: the test suite never asserts on time.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from typing import Any

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
    start = time.perf_counter()
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
        if deals % 16 == 0 and time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    return _rates("binokel", rules.text, deals, plays, actions, elapsed)


def bench_skat(seconds: float, seed: int) -> dict[str, Any]:
    import pyspiel

    game = pyspiel.load_game("skat")
    rng = random.Random(seed)
    deals = plays = actions = 0
    start = time.perf_counter()
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
        if deals % 16 == 0 and time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    return _rates("open_spiel skat", "skat", deals, plays, actions, elapsed)


def _rates(engine: str, rules: str, deals: int, plays: int, actions: int, elapsed: float) -> dict[str, Any]:
    return {
        "engine": engine, "rules": rules, "deals": deals, "card_plays": plays, "actions": actions,
        "seconds": round(elapsed, 3), "deals_per_second": round(deals / elapsed, 1),
        "card_plays_per_second": round(plays / elapsed, 1), "actions_per_second": round(actions / elapsed, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--seconds", type=float, default=5.0, help="time per engine (default 5)")
    parser.add_argument("--rules", default="standard", help="rule set, e.g. classic40 or 'standard(must_beat=led)'")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rules = Rules.parse(args.rules)

    result: dict[str, Any] = {"python": platform.python_version(), "binokel": bench_binokel(rules, args.seconds, args.seed)}
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        result["open_spiel"] = None
        skat_note = "open_spiel (pyspiel) is not installed: no Skat comparison"
    else:
        result["open_spiel"] = bench_skat(args.seconds, args.seed)
        ratio = result["binokel"]["card_plays_per_second"] / result["open_spiel"]["card_plays_per_second"]
        result["card_plays_ratio_binokel_to_skat"] = round(ratio, 3)
        skat_note = None

    if args.json:
        print(json.dumps(result))
        return 0
    print(f"Python {result['python']}")
    for key in ("binokel", "open_spiel"):
        r = result[key]
        if r is None:
            continue
        print(f"{r['engine']:>16} ({r['rules']}): {r['deals_per_second']:>9.1f} deals/s  "
              f"{r['card_plays_per_second']:>10.1f} card plays/s  {r['actions_per_second']:>10.1f} actions/s  "
              f"({r['deals']} deals in {r['seconds']} s)")
    if skat_note:
        print(skat_note)
    else:
        print(f"card plays per second, binokel / OpenSpiel Skat: {result['card_plays_ratio_binokel_to_skat']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
