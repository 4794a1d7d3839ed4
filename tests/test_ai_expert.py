"""The expert bot's pieces: the auction and play models that weigh sampled worlds, and
the conversion of the solver's gain into a seat's utility."""

from __future__ import annotations

import random
from typing import Any

import pytest
from ai_support import random_states

from binokel.action import DURCH
from binokel.ai.expert import auction_calls, auction_weight, play_weight, side_utility
from binokel.ai.fast import Position
from binokel.ai.knowledge import Knowledge
from binokel.ai.sample import World, dealt_hands, sample_world
from binokel.ai.search import playout, position_value
from binokel.ai.solver import Solver
from binokel.state import Phase
from binokel.view import view


@pytest.mark.parametrize("rules", ["standard", "kreuz", "classic40", "four-sitout"])
def test_world_weights_are_probabilities_and_the_true_world_is_possible(rules: str) -> None:
    rng = random.Random(rules)
    checked = 0
    for state in random_states(rules, rng, 4):
        if state.is_over() or state.phase is not Phase.PLAY:
            continue
        seen = view(state, state.to_move)
        knowledge = Knowledge.from_view(seen)
        truth = World(tuple(state.hands), tuple(state.tapp), tuple(state.discard))
        weight = play_weight(seen, knowledge, truth)
        assert 0 < weight <= 1
        calls = auction_calls(seen)
        assert seen.seat not in calls
        assert 0 < auction_weight(dealt_hands(knowledge, truth), calls, knowledge) <= 1
        sampled = sample_world(knowledge, rng)
        assert 0 < play_weight(seen, knowledge, sampled) <= 1
        checked += 1
    assert checked > 20


def test_a_high_bidder_is_more_likely_to_hold_a_strong_hand() -> None:
    """The auction model: worlds in which the seat that bid high holds a strong hand weigh more."""
    rng = random.Random(5)
    for state in random_states("standard", rng, 30):
        if state.phase is Phase.PLAY and state.bid >= 200 and state.to_move != state.soloist:
            break
    else:
        pytest.skip("no high bid in these deals")
    seen = view(state, state.to_move)
    knowledge = Knowledge.from_view(seen)
    calls = auction_calls(seen)
    assert calls[state.soloist][0] is not None
    truth = World(tuple(state.hands), tuple(state.tapp), tuple(state.discard))
    strong = auction_weight(dealt_hands(knowledge, truth), calls, knowledge)
    assert 0 < strong <= 1


@pytest.mark.parametrize("rules", ["standard", "kreuz", "standard(bettel=300)"])
def test_side_utility_of_the_exact_gain_matches_the_played_out_result(rules: str) -> None:
    """At the last trick the utility from the solver's gain is the finished deal's, up to the
    other side's split (taken as even, each seat with a trick: its melds may count when
    in fact they do not)."""
    rng = random.Random(rules)
    checked = 0
    for state in random_states(rules, rng, 10):
        if state.phase is not Phase.PLAY or sum(h.bit_count() for h in state.hands) != len(state.hands) - (
                state.sitting_out is not None) or state.trick:
            continue
        p = Position.from_state(state)
        gain = Solver(p).value()
        done = playout(p.copy())
        slack = 0 if p.game >= DURCH else max(p.melds[s] for s in range(p.players) if s != p.soloist) + 1
        assert abs(side_utility(p, p.soloist, gain) - position_value(done, p.soloist)) <= slack
        checked += 1
    assert checked


@pytest.mark.parametrize("team_play", [0, 1])
def test_in_partner_games_expert_bids_and_names_trump_as_hard(monkeypatch: pytest.MonkeyPatch,
                                                              team_play: int) -> None:
    """Kreuz measured expert's bidding and trump choice weaker than hard's (docs/ai.md): there
    it answers as hard (but for the share a bid against the other team needs,
    TEAM_FACING_SHARE, here set to hard's), and in the card play too unless TEAM_PLAY."""
    from binokel.ai import make_bot
    from binokel.ai.bots import HardBot

    # By effort alone: on a loaded machine the clock cap may cut one of the two searches short.
    monkeypatch.setattr(HardBot, "CLOCK", 0)
    rng = random.Random(5)
    checked = 0
    for state in random_states("kreuz", rng, 3):
        if state.is_over() or state.to_move is None or len(state.legal_actions()) < 2:
            continue
        seen = view(state, state.to_move)
        if team_play and seen.phase is Phase.PLAY:
            continue
        expert = make_bot("expert")
        expert.TEAM_PLAY = team_play
        expert.TEAM_FACING_SHARE = HardBot.FACING_SHARE
        hard = make_bot("hard")
        assert expert.choose(seen, random.Random(checked), budget=0.01) == hard.choose(
            seen, random.Random(checked), budget=0.01), seen.phase
        checked += 1
    assert checked >= 10


def test_in_partner_games_expert_plays_its_cards_by_its_own_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """With TEAM_PLAY, the card play of a partner game goes through expert's weighted worlds
    (every seat's plays read by the play model) and, near the end, the exact solver."""
    from binokel.ai import make_bot
    from binokel.ai.expert import ExpertBot

    monkeypatch.setattr(ExpertBot, "CLOCK", 0)
    calls: list[str] = []
    original_solve, original_worlds = ExpertBot.solve_tally, ExpertBot.worlds

    def solve_tally(self: ExpertBot, *args: Any, **kwargs: Any) -> Any:
        calls.append("solve")
        return original_solve(self, *args, **kwargs)

    def worlds(self: ExpertBot, *args: Any, **kwargs: Any) -> Any:
        calls.append("worlds")
        return original_worlds(self, *args, **kwargs)

    monkeypatch.setattr(ExpertBot, "solve_tally", solve_tally)
    monkeypatch.setattr(ExpertBot, "worlds", worlds)
    rng = random.Random(7)
    for state in random_states("kreuz", rng, 4):
        if state.is_over() or state.to_move is None or len(state.legal_actions()) < 2:
            continue
        seen = view(state, state.to_move)
        if seen.phase is Phase.PLAY:
            assert make_bot("expert").choose(seen, random.Random(1), budget=0.01) in seen.legal_actions
    assert "solve" in calls and "worlds" in calls



def test_with_the_trick_takers_tracked_the_last_trick_s_utility_is_the_result() -> None:
    """Sechser, the last trick (one card each), the contract made: the utility from the solver's gain
    with first_trick_melds is the finished deal's exactly (a partner's melds counting only if it
    takes the trick; with the contract made every split of the gain gives the same margin), where
    the gain alone is not always. (A failed contract's depends on the split the gain does not tell.)"""
    from binokel.ai.expert import first_trick_melds

    rng = random.Random("takers")
    checked = plain_off = 0
    for state in random_states("sechser", rng, 120):
        if state.phase is not Phase.PLAY or state.trick or sum(h.bit_count() for h in state.hands) != 6:
            continue
        p = Position.from_state(state)
        if p.game >= DURCH:
            continue
        melds = first_trick_melds(p)
        done = playout(p.copy())
        if done.scores()[p.soloist] < 0:
            continue
        for seat in range(p.players):
            exact = position_value(done, seat)
            assert side_utility(p, seat, Solver(p, melds=melds).value(), melds) == exact
            plain_off += side_utility(p, seat, Solver(p).value()) != exact
        checked += 1
    assert checked >= 8
    assert plain_off, "no deal where the untracked gain misjudges the last trick: the test would miss the tracking"


@pytest.mark.parametrize("rules, differs", [("sechser", True), ("kreuz", False)])
def test_trio_solver_takers_changes_sechser_card_play_only(rules: str, differs: bool) -> None:
    """The measurement option is off by default; on, expert's solved card values change in some
    sechser decisions (teams of three), never in kreuz."""
    from binokel.ai.expert import ExpertBot

    assert ExpertBot.TRIO_SOLVER_TAKERS == 0
    rng = random.Random(f"takers:{rules}")
    changed = checked = 0
    for state in random_states(rules, rng, 6):
        if state.phase is not Phase.PLAY or state.to_move is None or len(state.legal_actions()) < 2:
            continue
        if sum(h.bit_count() for h in state.hands) > 3 * len(state.hands):
            continue
        seen = view(state, state.to_move)
        tallies = []
        for option in (0, 1):
            bot = ExpertBot()
            bot.CLOCK, bot.TRIO_SOLVER_TAKERS = 0, option
            tallies.append(bot.solve_tally(seen, random.Random(7), 8, float("inf"), 200_000))
        assert tallies[0].worlds == tallies[1].worlds
        changed += tallies[0].totals != tallies[1].totals
        checked += 1
    assert checked >= 10
    assert bool(changed) == differs
