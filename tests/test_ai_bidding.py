"""The search bots' bids and surrenders by simulation: never past what the hand can
reach, no surrender of a contract the hand clearly makes, surrender of a hopeless one,
and the same decisions for the same seed."""

from __future__ import annotations

import dataclasses
import math
import random

import pytest

from binokel.action import PASS, PLAY_ON, SURRENDER
from binokel.ai import make_bot
from binokel.ai.bots import HardBot, SoloistSimulation, gives_up, simulate_soloist
from binokel.ai.expert import ExpertBot
from binokel.ai.knowledge import Knowledge
from binokel.ai.policy import best_contract, partner_share
from binokel.card import add_card
from binokel.state import State
from binokel.view import view

from test_ai_decisions import SURE_DURCH, bot_plays_until, deal

BUDGET = 0.01
WEAK = "9S 9S 9H 9H 9D 9D 9C 9C JS JH QD QC KS KH TD".split()  # no Tapp makes it worth 300
# (ONLY_LOW is not weak enough: its seven unters and the last one in the Tapp meld 1000.)
STRONG = "AH AH TH TH KH KH QH QH JH AS JS 9S JD 9D 9C".split()  # a heart family and nine trumps, no Durch


def auction_up_to(rules: str, hand: list[str], top: int, seed: int = 1) -> State:
    """Seat 0 (forehand) holds ``hand``; seats 0 and 1 bid in turn up to ``top`` (by seat 1),
    so that seat 0 is to answer with ``top`` + 10 or pass."""
    assert top >= 160 and (top - 160) % 20 == 0, "seat 1 bids 160, 180, ..."
    state = deal(rules, 2, {0: hand}, seed)
    for bid in range(150, top + 10, 10):
        state = state.apply_text(str(bid))
    assert state.to_move == 0 and state.phase.value == "auction"
    return state


@pytest.mark.parametrize("level", ["hard", "expert"])
@pytest.mark.parametrize("seed", range(3))
def test_a_hand_without_melds_never_bids_far_past_what_any_tapp_could_give(level: str, seed: int) -> None:
    state = auction_up_to("standard", WEAK, 380, seed)
    assert make_bot(level, seed=seed).choose(view(state, 0), budget=BUDGET) == PASS


def _simulation(level: str, hand: list[str], seed: int = 1) -> tuple[SoloistSimulation, State]:
    state = auction_up_to("standard", hand, 160, seed)
    seen = view(state, 0)
    bot = make_bot(level, seed=seed)
    assert isinstance(bot, HardBot)
    knowledge = Knowledge.from_view(seen)
    worlds = bot.worlds(knowledge, random.Random(seed), 24, math.inf, skip_failures=True)
    return simulate_soloist(seen, knowledge, worlds), state


@pytest.mark.parametrize("level", ["hard", "expert"])
def test_no_bid_past_the_reach_of_the_best_sampled_tapp_however_good_the_average(level: str) -> None:
    simulation, _ = _simulation(level, STRONG)
    bot = make_bot(level, seed=1)
    assert isinstance(bot, HardBot)
    assert bot.accepts(simulation, 200)  # this hand plays 200 gladly
    # Even when every simulated deal says a bid pays, nothing above the reach is bid.
    simulation.value = lambda bid: 1000.0  # type: ignore[method-assign]
    simulation.made_share = lambda bid: 1.0  # type: ignore[method-assign]
    assert bot.accepts(simulation, simulation.reach)
    assert not bot.accepts(simulation, simulation.reach + 10)


def test_the_reach_is_the_best_estimate_over_the_sampled_tapps() -> None:
    """reach >= every sampled Tapp's best plan, and a weak hand's reach is far below 400."""
    state = auction_up_to("standard", WEAK, 160)
    seen = view(state, 0)
    knowledge = Knowledge.from_view(seen)
    bot = HardBot(seed=2)
    worlds = list(bot.worlds(knowledge, random.Random(2), 20, math.inf, skip_failures=True))
    simulation = simulate_soloist(seen, knowledge, iter(worlds))
    for world in worlds:
        cards = world.hands[0]
        for kind in world.tapp:
            cards = add_card(cards, kind)
        plan = best_contract(cards, state.rules)
        assert simulation.reach >= plan.total + partner_share(state.rules, plan.card_points)
    assert simulation.reach < 400
    assert simulation.made_share(400) < 0.5


def _at_surrender(hand: list[str], bid: int, level: str, seed: int = 1) -> State:
    """Seat 0 won the auction at ``bid`` with ``hand`` and named its game (by ``level``)."""
    state = auction_up_to("standard", hand, bid - 10, seed)
    state = state.apply_text(str(bid))
    while state.phase.value == "auction":
        state = state.apply_text("pass")
    state = bot_plays_until(state, level, ("tapp", "discard", "game"))
    return state


@pytest.mark.parametrize("level", ["hard", "expert"])
@pytest.mark.parametrize("seed", range(3))
def test_a_hand_that_clearly_makes_its_contract_plays_on(level: str, seed: int) -> None:
    state = _at_surrender(STRONG, 250, level, seed)
    assert state.phase.value == "surrender"  # hearts named (no Durch with these low cards)
    assert make_bot(level, seed=seed).choose(view(state, 0), budget=BUDGET) == PLAY_ON


@pytest.mark.parametrize("level", ["hard", "expert"])
@pytest.mark.parametrize("seed", range(3))
def test_a_hopeless_contract_is_given_up(level: str, seed: int) -> None:
    """Low cards at 490: surrendering costs 490, failing 980."""
    state = _at_surrender(WEAK, 490, level, seed)
    assert state.phase.value == "surrender"
    assert make_bot(level, seed=seed).choose(view(state, 0), budget=BUDGET) == SURRENDER


def test_the_surrender_needs_a_reliable_margin() -> None:
    assert gives_up([40.0] * 20, 25, 1.64)
    assert not gives_up([40.0] * 20, 50, 1.64)  # below the margin
    assert not gives_up([400.0, -300.0] * 3, 25, 1.64)  # a high mean from few, scattered worlds
    assert gives_up([400.0, -300.0] * 3, 25, 0)  # hard's rule: the mean alone


@pytest.mark.parametrize("level", ["hard", "expert"])
def test_bids_and_surrender_are_the_same_for_the_same_seed(level: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(HardBot, "deadline", staticmethod(lambda budget: math.inf))

    def decisions(seed: int) -> list[str]:
        out = []
        for hand, top in ((STRONG, 300), (WEAK, 160), (SURE_DURCH, 400)):
            state = auction_up_to("standard", hand, top, 4)
            out.append(str(make_bot(level, seed=seed).choose(view(state, 0), random.Random(seed), BUDGET)))
        state = _at_surrender(WEAK, 310, level, 4)
        if state.phase.value == "surrender":
            out.append(str(make_bot(level, seed=seed).choose(view(state, 0), random.Random(seed), BUDGET)))
        return out

    assert decisions(5) == decisions(5)


def test_expert_passes_where_hard_still_bids_when_few_deals_reach_the_bid() -> None:
    """The expert's made share: a bid reached in under MADE_SHARE of the deals is refused
    even when its mean utility beats defending."""
    simulation, _ = _simulation("expert", STRONG)
    simulation.value = lambda bid: 1000.0  # type: ignore[method-assign]
    simulation.made_share = lambda bid: ExpertBot.MADE_SHARE - 0.01  # type: ignore[method-assign]
    bid = min(200, simulation.reach)
    assert HardBot(seed=1).accepts(simulation, bid)
    assert not ExpertBot(seed=1).accepts(simulation, bid)


@pytest.mark.parametrize("level", ["hard", "expert"])
def test_passing_is_worth_less_alone_than_with_a_partner(level: str) -> None:
    """A contract worth -50 a deal on average beats passing where the soloist plays against
    the rest (hard -80, expert -160) but not in a partner game (both -30: defending teams
    do well there)."""
    simulation, _ = _simulation(level, STRONG)
    simulation.value = lambda bid: -50.0  # type: ignore[method-assign]
    simulation.made_share = lambda bid: 1.0  # type: ignore[method-assign]
    bid = min(200, simulation.reach)
    bot = make_bot(level, seed=1)
    assert isinstance(bot, HardBot)
    assert bot.accepts(simulation, bid)
    simulation.knowledge = dataclasses.replace(simulation.knowledge, rules=State.new("kreuz", dealer=0).rules)
    assert simulation.knowledge.rules.has_teams
    assert not bot.accepts(simulation, bid)
