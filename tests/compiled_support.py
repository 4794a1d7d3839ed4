"""A digest of the core's behaviour, printed as JSON: run by tests/test_compiled.py once
compiled and once interpreted (``BINOKEL_PURE=1``), in separate processes.

``python tests/compiled_support.py DEALS`` prints ``{"compiled": [...], "deals": [...],
"solves": [...]}``: per random playout (every rule set) every state's legal actions, hands,
trick, scores and outcome; per open-card position the solver's value and move values and
a fast playout's scores.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys

import binokel
from binokel.ai.fast import Position
from binokel.ai.solver import Solver
from binokel.rules import RULE_SETS, Rules
from binokel.state import Phase, State

RULES = (*RULE_SETS, "standard(must_beat=led)", "kreuz(partner_exemption=1)", "standard(open_durch=1500,bettel=300)")


def deal_digest(rules: Rules, seed: int) -> str:
    """Every state of one random playout, hashed (a difference anywhere changes it)."""
    rng = random.Random(seed)
    state = State.new(rules, seed % rules.players).deal_random(rng)
    steps = []
    while True:
        legal = state.legal_actions()
        steps.append((state.phase.value, state.to_move, [str(a) for a in legal], state.hands, state.trick,
                      state.won, state.trick_points, str(state.melds), state.scores,
                      state.outcome and state.outcome.value))
        if state.is_over():
            break
        state = state.apply(rng.choice(legal))
    return hashlib.sha256(repr(steps).encode()).hexdigest()


def solve_digest(rules: Rules, seed: int) -> list[object] | None:
    """Solver values of a random position with at most 15 cards left, or None."""
    rng = random.Random(seed)
    state = State.new(rules, seed % rules.players).deal_random(rng)
    while state.phase is not Phase.PLAY or sum(h.bit_count() for h in state.hands) > 15:
        if state.is_over():
            return None
        state = state.apply(rng.choice(state.legal_actions()))
    # The Python search (a dict table) in both processes: this compares Cython's build of solver.py
    # with the interpreted one; the C search is checked against it by tests/test_ai_solver_core.py.
    solver = Solver(Position.from_state(state), table={})
    p = Position.from_state(state)
    while not p.over:
        legal = p.legal_mask()
        p.play(legal.bit_length() - 1)
    value = solver.value()
    # The nodes too: the same search must take the same path both ways, not only reach the same values.
    return [value, solver.nodes, sorted(solver.move_values().items()), solver.nodes, list(p.scores())]


def main(deals: int) -> dict[str, object]:
    out: dict[str, object] = {"compiled": list(binokel.compiled()), "deals": [], "solves": []}
    for text in RULES:
        rules = Rules.parse(text)
        for seed in range(deals):
            out["deals"].append([text, seed, deal_digest(rules, seed)])  # type: ignore[attr-defined]
            out["solves"].append([text, seed, solve_digest(rules, seed)])  # type: ignore[attr-defined]
    return out


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]))))
