"""Differential test of the open-card solver on larger positions: its value (MTD probes over
a shared transposition table, the last trick scored without search...) equals a plain
full-window alpha-beta over :class:`binokel.ai.fast.Position` with none of those, and
agrees with its own threshold answers."""

from __future__ import annotations

import random

import pytest

from binokel.ai.fast import Position
from binokel.ai.solver import Solver
from binokel.rules import Rules
from binokel.state import Phase, State
from binokel.trick import NO_TRUMP


def reference_value(p: Position, side: tuple[bool, ...], gainer: tuple[bool, ...], alpha: int, beta: int) -> int:
    """The side's gain from ``p`` on, by full-window alpha-beta (no table, no ordering)."""
    if p.over or not any(p.hands):
        return 0
    maximise = side[p.to_move]
    best = -1 if maximise else 1 << 20
    legal = p.legal_mask()
    while legal:
        kind = (legal & -legal).bit_length() - 1
        legal &= legal - 1
        q = p.copy()
        q.broken = q.over = False
        before = list(q.points), list(q.won)
        q.play(kind)
        if q.trick:
            value = reference_value(q, side, gainer, alpha, beta)
        else:  # a trick ended: what it brought the side, then the rest
            winner = q.leader
            gain = 0
            if gainer[winner]:
                gain = (q.points[winner] - before[0][winner]) if q.trump != NO_TRUMP else 1
            q.over = False  # the solver counts on after a broken Durch or Bettel
            value = gain + reference_value(q, side, gainer, alpha - gain, beta - gain)
        if maximise:
            best = max(best, value)
            alpha = max(alpha, best)
        else:
            best = min(best, value)
            beta = min(beta, best)
        if alpha >= beta:
            break
    return best


def positions(rules_text: str, cards_left: int, count: int, seed: int) -> list[State]:
    """Random play positions (random legal play up to a trick start) with ``cards_left`` cards in the hands."""
    rules = Rules.parse(rules_text)
    rng = random.Random(f"{rules_text}:{seed}")
    found: list[State] = []
    while len(found) < count:
        state = State.new(rules, rng.randrange(rules.players)).deal_random(rng)
        while not state.is_over() and (state.phase is not Phase.PLAY or state.trick
                                       or sum(h.bit_count() for h in state.hands) > cards_left):
            legal = state.legal_actions()
            action = legal[-1] if state.phase is Phase.SURRENDER else rng.choice(legal)
            state = state.apply(action)
        if not state.is_over() and sum(h.bit_count() for h in state.hands) == cards_left:
            found.append(state)
    return found


@pytest.mark.parametrize("rules", ["standard", "classic40", "kreuz", "standard(bettel=300,open_durch=1500)"])
def test_solver_value_equals_plain_alpha_beta(rules: str) -> None:
    players = len(Rules.parse(rules).seating(0).order)
    for state in positions(rules, 5 * players, 4, 1):
        p = Position.from_state(state)
        solver = Solver(p)
        value = solver.value()
        assert value == reference_value(p, solver.side, solver.gainer, -1, 1 << 20), state
        assert solver.makes(value) and not solver.makes(value + 1)
        values = solver.move_values().values()  # the mover's best card reaches the value
        assert (max(values) if solver.side[p.to_move] else min(values)) == value


@pytest.mark.parametrize("rules", ["standard", "kreuz"])
def test_solver_threshold_answers_bracket_its_value_with_nine_tricks_left(rules: str) -> None:
    players = len(Rules.parse(rules).seating(0).order)
    for state in positions(rules, 9 * players, 2, 3):
        solver = Solver(Position.from_state(state))
        value = solver.value()
        fresh = Solver(Position.from_state(state))  # a new table: the answers do not lean on value()'s
        assert fresh.makes(value) and not fresh.makes(value + 1)


def reference_with_melds(p: Position, side: tuple[bool, ...], melds: list[int], pending: int, alpha: int,
                         beta: int) -> int:
    """The side's gain from ``p`` on with who takes a trick tracked, by full-window alpha-beta:
    card points of the side's tricks, the melds of the side's ``pending`` seats that take a trick,
    and of the other side's that take none by the end."""
    if not any(p.hands):
        return sum(m for s, m in enumerate(melds) if pending >> s & 1 and not side[s])
    maximise = side[p.to_move]
    best = -1 if maximise else 1 << 20
    legal = p.legal_mask()
    while legal:
        kind = (legal & -legal).bit_length() - 1
        legal &= legal - 1
        q = p.copy()
        before = list(q.points)
        q.play(kind)
        if q.trick:
            value = reference_with_melds(q, side, melds, pending, alpha, beta)
        else:
            winner = q.leader
            gain = q.points[winner] - before[winner] if side[winner] else 0
            after = pending
            if pending >> winner & 1:
                after ^= 1 << winner
                gain += melds[winner] if side[winner] else 0
            value = gain + reference_with_melds(q, side, melds, after, alpha - gain, beta - gain)
        if maximise:
            best = max(best, value)
            alpha = max(alpha, best)
        else:
            best = min(best, value)
            beta = min(beta, best)
        if alpha >= beta:
            break
    return best


@pytest.mark.parametrize("rules", ["standard", "kreuz", "sechser"])
def test_with_melds_the_solver_value_equals_plain_alpha_beta(rules: str) -> None:
    """Who takes a trick tracked (Solver's ``melds``): a seat with melds and no trick so far, taking
    its first, adds its melds for the side, or for the other side takes them away."""
    players = len(Rules.parse(rules).seating(0).order)
    rng = random.Random(rules)
    checked = changed = 0
    for state in positions(rules, 4 * players, 6, 2):
        p = Position.from_state(state)
        if p.trump == NO_TRUMP:
            continue
        melds = [rng.choice((0, 10, 20, 40, 75)) for _ in range(p.players)]
        solver = Solver(p, melds=melds)
        value = solver.value()
        assert value == reference_with_melds(p, solver.side, melds, solver.pending, -1, 1 << 20), state
        assert solver.makes(value) and not solver.makes(value + 1)
        values = solver.move_values().values()
        assert (max(values) if solver.side[p.to_move] else min(values)) == value
        checked += 1
        changed += value != Solver(p).value()
    assert checked >= 4 and changed
