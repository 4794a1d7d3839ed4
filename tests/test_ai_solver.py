"""Differential test: the open-card solver's values equal brute force over the reference engine."""

from __future__ import annotations

import random
from functools import cache

import pytest
from ai_support import AI_RULES, random_states

from binokel.action import BETTEL, DURCH, PLAYS, ActionKind
from binokel.ai.fast import Position
from binokel.ai.search import solve
from binokel.ai.solver import Solver
from binokel.rules import Rules
from binokel.state import Phase, State


def brute_force(state: State, since: State | None = None) -> int:
    """The soloist side's gain from ``state`` on (as :class:`Solver` defines it), by
    plain minimax over :meth:`State.apply`, counting from ``since`` (by default ``state``);
    for games without trump 1 if made else 0."""
    rules = state.rules
    team = rules.team_of(state.soloist)
    side = [rules.team_of(s) == team and s != state.sitting_out for s in range(state.players)]
    start = (since or state).trick_points
    no_trump = state.game >= DURCH

    @cache
    def value(s: State) -> int:
        if s.is_over():
            if no_trump:
                return int(s.outcome.value.endswith("made"))
            return sum(s.trick_points[i] - start[i] for i in range(s.players) if side[i])
        values = [value(s.apply(a)) for a in s.legal_actions()]
        return max(values) if side[s.to_move] else min(values)

    return value(state)


def solver_result(solver: Solver, state: State, value: int) -> int:
    """The solver's value in brute force's terms (games without trump: made or not)."""
    if state.game < DURCH:
        return value
    return int(value == solver.upper_bound())


def small_positions(rules: str, cards: int, count: int, seed: int) -> list[State]:
    rng = random.Random(f"{rules}:{seed}")
    found: list[State] = []
    for state in random_states(rules, rng, 40):
        if state.phase is Phase.PLAY and sum(h.bit_count() for h in state.hands) <= cards:
            found.append(state)
            if len(found) >= count:
                break
    return found


@pytest.mark.parametrize("rules", AI_RULES)
def test_solver_value_equals_brute_force(rules: str) -> None:
    positions = small_positions(rules, 9, 6, 1)
    assert positions, "no play positions found"
    for state in positions:
        solver = Solver(Position.from_state(state))
        exact = brute_force(state)
        assert solver_result(solver, state, solver.value()) == exact, state
        # Every card's value too: the mover's best card reaches the position's value.
        values = solver.move_values()
        assert sorted(values) == [a.value for a in state.legal_actions()]
        for kind, v in values.items():
            assert solver_result(solver, state, v) == brute_force(state.apply(PLAYS[kind]), state)


@pytest.mark.parametrize("rules", ["standard", "kreuz", "classic40", "standard(bettel=300,open_durch=1500)"])
def test_solver_value_equals_brute_force_with_four_tricks_left(rules: str) -> None:
    for state in small_positions(rules, 12, 3, 2):
        solver = Solver(Position.from_state(state))
        assert solver_result(solver, state, solver.value()) == brute_force(state)
        for threshold in (1, 30, 60):
            assert solver.makes(threshold) == (brute_force(state) >= threshold) or state.game >= DURCH


def test_solver_agrees_with_the_old_solver_on_the_best_card() -> None:
    """The soloist's best card by the new solver is one the old utility search rates best
    too whenever the utility is monotone in the side's points (a trump game, soloist to move)."""
    checked = 0
    for state in small_positions("standard", 9, 30, 3):
        if state.game >= DURCH or state.to_move != state.soloist:
            continue
        position = Position.from_state(state)
        old = solve(position, state.to_move, 10**6)
        assert old is not None
        new = Solver(position).move_values()
        best_new = max(new.values())
        best_old = max(old.values())
        assert max(old[k] for k, v in new.items() if v == best_new) <= best_old
        checked += 1
    assert checked


def no_trump_positions(rules: str, cards: int, deals: int, seed: int) -> list[State]:
    """Positions of games without trump: random deals whose soloist names Durch or Bettel."""
    rng = random.Random(f"{rules}:no-trump:{seed}")
    found = []
    for _ in range(deals):
        state = State.new(rules, rng.randrange(Rules.parse(rules).players)).deal_random(rng)
        while not state.is_over() and (state.phase is not Phase.PLAY
                                       or sum(h.bit_count() for h in state.hands) > cards):
            legal = state.legal_actions()
            games = [a for a in legal if a.kind is ActionKind.GAME and a.value in (DURCH, BETTEL)]
            if games:
                action = rng.choice(games)
            elif state.phase is Phase.AUCTION:
                action = legal[0]
            elif state.phase is Phase.PLAY:  # keep the game alive: the soloist's side plays to its aim
                high = (state.to_move == state.soloist) is (state.game != BETTEL)
                action = min(legal, key=lambda a: (a.value % 7 if high else -(a.value % 7), rng.random()))
            else:
                action = rng.choice(legal)
            state = state.apply(action)
        if not state.is_over():
            found.append(state)
    return found


def test_durch_and_bettel_are_solved_as_made_or_not() -> None:
    seen = set()
    for rules in ("standard(bettel=300)", "kreuz(bettel=300)"):
        for state in no_trump_positions(rules, 12, 30, 4):
            assert state.game >= DURCH
            seen.add(state.game == BETTEL)
            solver = Solver(Position.from_state(state))
            assert solver_result(solver, state, solver.value()) == brute_force(state)
    assert True in seen  # Bettel positions; random Durch deals rarely last to the last four tricks
