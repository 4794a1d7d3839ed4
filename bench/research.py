"""Research adapters benchmark: environment steps per second, PettingZoo and OpenSpiel,
against the raw engine in the same run.

A *step* is one decision by a seat (chance steps are not counted). Every run plays whole
deals with uniformly random legal actions:

- ``engine``: ``State.legal_actions`` / ``State.apply`` (no observation at all);
- ``engine+features``: the engine plus the acting seat's view and its feature vector and
  legal mask (what any learning agent needs at each decision, without an adapter);
- ``pettingzoo``: ``env.last()`` (observation and mask of the agent to move) and ``env.step``;
- ``openspiel``: ``state.legal_actions()``, ``state.observation_tensor(player)`` and
  ``state.apply_action`` (chance outcomes sampled by their probabilities).

Ratios are given against ``engine``. Numbers only; the tests never assert on time.

    python bench/research.py [--json] [--seconds S] [--rules R] [--seed N]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from collections.abc import Callable
from typing import Any

from binokel.research import features
from binokel.rules import Rules
from binokel.state import State
from binokel.view import view


def timed(run_deal: Callable[[int], int], seconds: float) -> dict[str, float]:
    """Play deals until ``seconds`` have passed; steps and deals per second."""
    deals = steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += run_deal(deals)
        deals += 1
    elapsed = time.perf_counter() - start
    return {"deals": deals, "steps": steps, "seconds": elapsed, "steps_per_second": steps / elapsed,
            "deals_per_second": deals / elapsed}


def engine_deal(rules: Rules, rng: random.Random, with_features: bool) -> Callable[[int], int]:
    def run(index: int) -> int:
        state = State.new(rules, index % rules.players).deal_random(rng)
        steps = 0
        while not state.is_over():
            if with_features:
                seen = view(state, state.to_move)  # type: ignore[arg-type]
                features.observation(seen)
                legal = features.legal_indices(seen)
                state = state.apply(features.action_of(rng.choice(legal), seen))
            else:
                state = state.apply(rng.choice(state.legal_actions()))
            steps += 1
        return steps
    return run


def pettingzoo_deal(rules: Rules, seed: int) -> Callable[[int], int]:
    import numpy as np

    from binokel.research.pettingzoo import env

    table = env(rules)
    rng = np.random.default_rng(seed)

    def run(index: int) -> int:
        table.reset(seed=seed + index)
        steps = 0
        for _ in table.agent_iter():
            observation, _, terminated, truncated, _ = table.last()
            if terminated or truncated:
                table.step(None)
                continue
            table.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            steps += 1
        return steps
    return run


def openspiel_deal(rules: Rules, seed: int) -> Callable[[int], int]:
    import pyspiel

    import binokel.research.openspiel  # noqa: F401 - registers the game

    game = pyspiel.load_game("binokel", {"rules": rules.text})
    rng = random.Random(seed)

    def run(index: int) -> int:
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, weights)[0])
                continue
            state.observation_tensor(state.current_player())
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
        return steps
    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per measurement (default 5)")
    parser.add_argument("--rules", default="standard", help="rule set (default standard)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    rules = Rules.parse(args.rules)
    results: dict[str, Any] = {
        "engine": timed(engine_deal(rules, random.Random(args.seed), False), args.seconds),
        "engine+features": timed(engine_deal(rules, random.Random(args.seed), True), args.seconds),
    }
    for name, make in (("pettingzoo", pettingzoo_deal), ("openspiel", openspiel_deal)):
        try:
            results[name] = timed(make(rules, args.seed), args.seconds)
        except ImportError as error:
            results[name] = {"skipped": f"{error} (pip install 'binokel[rl]')"}
    base = results["engine"]["steps_per_second"]
    for entry in results.values():
        if "steps_per_second" in entry:
            entry["ratio_to_engine"] = entry["steps_per_second"] / base
    data = {"rules": rules.text, "python": platform.python_version(), "machine": platform.machine(),
            "results": results}
    if args.json:
        print(json.dumps(data))
        return 0
    print(f"rules {rules.text}, Python {data['python']}, {args.seconds:g} s each; steps = decisions")
    for name, entry in results.items():
        if "skipped" in entry:
            print(f"  {name:<16} skipped: {entry['skipped']}")
        else:
            print(f"  {name:<16} {entry['steps_per_second']:10,.0f} steps/s  {entry['deals_per_second']:8,.1f} deals/s"
                  f"  x{entry['ratio_to_engine']:.3f} of the engine")
    return 0


if __name__ == "__main__":
    sys.exit(main())
