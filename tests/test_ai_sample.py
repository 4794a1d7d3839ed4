"""Knowledge and sampling: sampled worlds reproduce the seat's view and respect every fact."""

from __future__ import annotations

import random

import pytest

from hypothesis import given, settings, strategies as st

from binokel.card import COPY, KIND_MASK, SUIT_MASK, Hand
from binokel.rules import Rules
from binokel.state import Phase, State
from binokel.view import view

from binokel.ai.fast import Position
from binokel.ai.knowledge import Knowledge
from binokel.card import add_masks, count_of as count
from binokel.ai.sample import build_state, sample_world, world_position

from ai_support import AI_RULES, random_states


def _states(seed: int, rules: str, deals: int = 1) -> list[State]:
    return list(random_states(rules, random.Random(seed), deals))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), rules=st.sampled_from(AI_RULES), seat=st.integers(0, 5))
def test_sampled_world_reproduces_the_view(seed: int, rules: str, seat: int) -> None:
    rng = random.Random(seed)
    seat %= Rules.parse(rules).players
    for state in _states(seed, rules)[::3]:
        seen = view(state, seat)
        knowledge = Knowledge.from_view(seen)
        world = sample_world(knowledge, rng)
        sampled = build_state(seen, world)
        assert view(sampled, seat) == seen
        if state.phase is Phase.PLAY:
            fast, reference = world_position(seen, knowledge, world), Position.from_state(sampled)
            assert all(getattr(fast, name) == getattr(reference, name) for name in Position.__slots__)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), rules=st.sampled_from(AI_RULES))
def test_known_facts_hold_in_the_real_deal_and_in_samples(seed: int, rules: str) -> None:
    rng = random.Random(seed)
    players = Rules.parse(rules).players
    for state in _states(seed, rules)[::4]:
        for seat in range(players):
            knowledge = Knowledge.from_view(view(state, seat))
            worlds = [state.hands, sample_world(knowledge, rng).hands]
            for hands in worlds:
                for other in range(players):
                    hand = hands[other]
                    present = (hand | hand >> COPY) & KIND_MASK
                    shown = knowledge.shown[other]
                    assert add_masks(0, shown) == shown
                    assert all(count(hand, k) >= count(shown, k) for k in range(28))
                    extra = [k for k in range(28) if count(hand, k) > count(shown, k)]
                    assert not any(knowledge.excluded[other] >> k & 1 for k in extra)
                    for suit in range(4):
                        if knowledge.is_void(other, suit):
                            assert not present & SUIT_MASK[suit]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), rules=st.sampled_from(AI_RULES), seat=st.integers(0, 5))
def test_scrambling_hidden_cards_leaves_knowledge_unchanged(seed: int, rules: str, seat: int) -> None:
    """Deals that differ only in cards hidden from ``seat`` give it the same knowledge."""
    rng = random.Random(seed)
    seat %= Rules.parse(rules).players
    for state in _states(seed, rules)[::4]:
        seen = view(state, seat)
        knowledge = Knowledge.from_view(seen)
        other = build_state(seen, sample_world(knowledge, rng))
        assert Knowledge.from_view(view(other, seat)) == knowledge


def test_sampler_handles_meld_constraints_late_in_the_deal() -> None:
    rng = random.Random(5)
    checked = 0
    for state in random_states("standard", rng, 6):
        if state.phase is Phase.PLAY and state.melds and any(state.melds):
            for seat in range(3):
                seen = view(state, seat)
                assert view(build_state(seen, sample_world(Knowledge.from_view(seen), rng)), seat) == seen
                checked += 1
    assert checked > 100


def test_knowledge_from_tricks() -> None:
    state = State.new("standard", dealer=2).deal(
        ["AH AH KH KH QH QH JH JH 9H 9H AD AD TD TD KD".split(),
         "TH TH KD QD QD JD JD 9D 9D AC AC TC TC KC KC".split(),
         "AS AS TS TS KS KS QS QS JS JS 9S 9S QC QC JC".split()],
        "JC 9C 9C".split())
    for text in ("150", "pass", "pass", "JC", "9C", "9C", "H", "play", "AD", "9D", "QC", "TD", "9D"):
        state = state.apply_text(text)
    knowledge = Knowledge.from_view(view(state, 0))
    diamonds, hearts = 2, 1
    assert knowledge.is_void(2, diamonds) and knowledge.is_void(2, hearts)  # no diamond, no trump
    assert not knowledge.is_void(1, diamonds)
    assert knowledge.excluded[1] >> Hand.parse("AD").mask.bit_length() - 1 & 1  # could not beat TD
    assert not knowledge.excluded[1] >> Hand.parse("KD").mask.bit_length() - 1 & 1


@pytest.mark.parametrize("rules", AI_RULES)
def test_sampler_reproduces_every_seat_in_every_rule_set(rules: str) -> None:
    """Every seat, every few states of two deals: sampled worlds reproduce the view exactly
    (hidden Tapp, sit-out, open Durch's public hand, partner exemption facts included)."""
    rng = random.Random(rules)
    players = Rules.parse(rules).players
    checked = 0
    for state in _states(11, rules, 2)[::5]:
        for seat in range(players):
            seen = view(state, seat)
            knowledge = Knowledge.from_view(seen)
            world = sample_world(knowledge, rng)
            assert view(build_state(seen, world), seat) == seen
            if seen.open_hand is not None:
                assert world.hands[seen.soloist] == Hand(seen.open_hand).mask
            checked += 1
    assert checked >= 20


def test_open_durch_hand_is_known_to_the_defenders() -> None:
    rng = random.Random(4)
    seen_open = 0
    for state in random_states("standard(open_durch=1500,hand_durch=2000)", rng, 30):
        if state.phase is Phase.PLAY and state.game >= 5 and state.to_move != state.soloist:
            seen = view(state, state.to_move)
            assert seen.open_hand is not None
            knowledge = Knowledge.from_view(seen)
            assert knowledge.shown[state.soloist] == state.hands[state.soloist]
            for _ in range(3):
                assert sample_world(knowledge, rng).hands[state.soloist] == state.hands[state.soloist]
            seen_open += 1
    assert seen_open > 5
