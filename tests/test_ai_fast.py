"""Differential test: the fast play core agrees with the reference engine."""

from __future__ import annotations

import random

import pytest

from binokel.action import PLAYS
from binokel.card import kinds_of
from binokel.state import Phase

from binokel.ai.fast import Position
from binokel.ai.search import playout, position_value, solve

from ai_support import AI_RULES, random_states


@pytest.mark.parametrize("rules", AI_RULES)
def test_fast_core_agrees_with_engine(rules: str) -> None:
    rng = random.Random(rules)
    positions = 0
    for state in random_states(rules, rng, 12):
        if state.phase is not Phase.PLAY or (not state.trick and state.tricks):
            continue
        fast = Position.from_state(state)
        # Play the rest of the deal in both, comparing every position and the result.
        while not state.is_over():
            assert sorted(kinds_of(fast.legal_mask())) == [a.value for a in state.legal_actions()]
            assert (fast.to_move, fast.points, fast.won, fast.trick) == (
                state.to_move, list(state.trick_points), list(state.won), list(state.trick))
            kind = rng.choice(state.legal_actions()).value
            state = state.apply(PLAYS[kind])
            fast.play(kind)
            positions += 1
        assert fast.over and fast.scores() == state.scores
    assert positions > 300


@pytest.mark.parametrize("rules", AI_RULES)
def test_playout_and_solver_finish_legally(rules: str) -> None:
    rng = random.Random(2)
    solved = 0
    for state in random_states(rules, rng, 3):
        if state.phase is Phase.PLAY and sum(h.bit_count() for h in state.hands) <= 9:
            values = solve(Position.from_state(state), state.to_move)
            assert values is not None and sorted(values) == [a.value for a in state.legal_actions()]
            fast = playout(Position.from_state(state))
            assert fast.over and (fast.broken or not any(fast.hands))
            solved += 1
    assert solved


@pytest.mark.parametrize("rules", ["kreuz", "sechser(partner_exemption=1)", "kreuz(bettel=300,open_durch=1500)"])
def test_partners_value_a_deal_alike_and_opposite_to_the_other_team(rules: str) -> None:
    """The bots' aim with teams is the team's margin: partners value every finished deal the
    same, the other team exactly the opposite."""
    rng = random.Random(rules)
    finished = 0
    for state in random_states(rules, rng, 6):
        if state.phase is Phase.PLAY and not state.trick:
            p = playout(Position.from_state(state))
            values = [position_value(p, seat) for seat in range(p.players)]
            margin = p.scores()[0] - p.scores()[1] if not p.is_durch or not p.rules.durch_game else values[0]
            assert all(values[seat] == margin for seat in range(0, p.players, 2))
            assert all(values[seat] == -margin for seat in range(1, p.players, 2))
            finished += 1
    assert finished > 10
