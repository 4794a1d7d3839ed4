"""The bots: legal actions on every kind of decision, determinism, views only."""

from __future__ import annotations

import random

import pytest

from binokel.action import Action
from binokel.ai import LEVELS, OracleBot, make_bot
from binokel.ai.bots import HardBot
from binokel.rules import Rules
from binokel.state import State
from binokel.view import SeatView, view

from ai_support import AI_RULES, random_states

BUDGET = 0.002


# The search levels are asked at every fourth state of an auction: a bid simulates whole deals
# (hard's 45 s and expert's 70 s of the matrix's ~160 s, one process, were ~600 auction states), and every
# rule set still asks for about 3 to 10 of their bids; every other decision is asked everywhere.
@pytest.mark.parametrize("rules", AI_RULES)
@pytest.mark.parametrize("level,deals,auction_every", [("easy", 3, 1), ("medium", 2, 1), ("hard", 2, 4),
                                                       ("expert", 2, 4)])
def test_bots_return_legal_actions_on_random_views(rules: str, level: str, deals: int, auction_every: int) -> None:
    rng = random.Random(f"{rules}-{level}")
    bot = make_bot(level, seed=1)
    seen_phases = set()
    auction_states = 0
    for state in random_states(rules, rng, deals):
        if state.is_over():
            continue
        seen = view(state, state.to_move)
        if seen.phase == "auction":
            auction_states += 1
            if auction_states % auction_every != 1 % auction_every:
                continue
        action = bot.choose(seen, random.Random(rng.random()), BUDGET)  # the deals never depend on what the bot draws
        assert action in seen.legal_actions
        seen_phases.add(seen.phase)
    assert {"auction", "play"} <= seen_phases
    assert ("tapp" in seen_phases) == bool(Rules.parse(rules).hand_durch)


@pytest.mark.parametrize("rules", AI_RULES)
def test_oracle_returns_legal_actions(rules: str) -> None:
    rng = random.Random(rules)
    oracle = OracleBot(seed=2)
    for state in list(random_states(rules, rng, 1))[::3]:
        if not state.is_over():
            assert oracle.choose_with_state(state, rng, BUDGET) in state.legal_actions()


@pytest.mark.parametrize("rules", AI_RULES)
@pytest.mark.parametrize("level", [*LEVELS])
def test_whole_deals_between_bots_finish(level: str, rules: str) -> None:
    """Bots of one level play a deal from the cards to the score, every action legal."""
    players = Rules.parse(rules).players
    rng = random.Random(7)
    bots = [make_bot(level, seed=seat) for seat in range(players)]
    state = State.new(rules, dealer=1).deal_random(rng)
    while not state.is_over():
        state = state.apply(bots[state.to_move].choose(view(state, state.to_move), rng, BUDGET))
    assert state.scores is not None and len(state.scores) == players


@pytest.mark.parametrize("level", [*LEVELS])
def test_same_seed_same_decisions(level: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The search levels' wall-clock cap is a latency guard that a loaded machine can hit at a
    # different moment each run; without it the same seed must give the same decisions.
    monkeypatch.setattr(HardBot, "CLOCK", 0)

    def decisions(seed: int) -> list[str]:
        rng = random.Random(3)
        bot = make_bot(level, seed=seed)
        state = State.new("standard", dealer=1).deal_random(rng)
        actions = []
        while not state.is_over():
            action = bot.choose(view(state, state.to_move), budget=BUDGET)
            actions.append(str(action))
            state = state.apply(action)
        return actions

    assert decisions(5) == decisions(5)


def test_bots_get_views_never_states() -> None:
    state = State.new("standard", dealer=0).deal_random(random.Random(1))
    for level in LEVELS:
        with pytest.raises(TypeError, match="never State"):
            make_bot(level).choose(state)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        make_bot("oracle").choose(view(state, 0))


def test_unknown_level() -> None:
    with pytest.raises(ValueError, match="unknown bot level 'x' \\(known: easy, medium, hard, expert, oracle\\)"):
        make_bot("x")


def test_not_to_move_is_an_error() -> None:
    state = State.new("standard", dealer=0).deal_random(random.Random(1))
    with pytest.raises(ValueError):
        make_bot("medium").choose(view(state, 0 if state.to_move else 2))


def test_a_bot_decision_off_the_legal_list_raises_instead_of_playing_another_move() -> None:
    """A bug in a decision shows as a BotError, never as a silent substitute move."""
    from binokel.ai import BotError, EasyBot

    class OffTheList(EasyBot):
        def bid(self, view: SeatView, rng: random.Random, budget: float) -> Action:
            return Action.bid(155)

    state = State.new("standard", dealer=2).deal_random(random.Random(1))
    state = state.apply(state.legal_actions()[0])  # the forced opening: now pass or 160
    with pytest.raises(BotError, match="chose 155, not one of pass, 160"):
        OffTheList(seed=1).choose(view(state, 1))
