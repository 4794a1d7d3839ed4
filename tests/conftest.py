"""Shared helpers for the engine tests: rule variants and seeded random playouts.

Playouts go through the public API only (``State.new(...).deal_random(rng)``,
``legal_actions``, ``apply``), choosing a uniformly random legal action at every
decision, so a seed fully determines a playout.
"""

from __future__ import annotations

import os
import random
from collections import Counter

import pytest
from hypothesis import strategies as st

from binokel.card import CARDS, Card
from binokel.rules import RULE_SETS, Rules
from binokel.state import State

# A bot that fails or answers an illegal action raises in the tests (binokel.ai.choose_safely),
# in this process and in the programs the tests start (they inherit the environment).
os.environ["BINOKEL_STRICT_BOTS"] = "1"
# The server tests replay fixed deals with friends at the table: a creator's seed is taken
# there too (a public server refuses it, Limits.seeds_with_friends), here and in the servers started.
os.environ["BINOKEL_SEEDS_WITH_FRIENDS"] = "1"
# The doctests of a compiled core module (setup.py): its __file__ is the .so next to the .py collected.
os.environ.setdefault("PY_IGNORE_IMPORTMISMATCH", "1")

# Every shipped rule set, plus option variants that change the play, the scoring or the melds.
VARIANT_TEXTS = (
    "standard(first_lead=soloist)",
    "standard(must_beat=led)",
    "standard(durch=0)",
    "standard(rounding=10,failed_credit=30,defender_melds=always)",
    "standard(double_melds=plain,eight_tens=1000)",
    "sevens(eight_sevens=1000,surrender_credit=half)",
    "classic40(must_beat=led,first_lead=soloist)",
    # seats, teams, the open auction
    "four-solo(deck=nines,hand_size=11)",
    "kreuz(partner_exemption=1,rounding=10,failed_credit=30)",
    "sechser(partner_exemption=1,end=highest)",
    "standard(auction=open)",
    "standard(auction=open,all_pass=forced,first_lead=soloist)",
    "four-sitout(auction=open,end=highest)",
    # contracts
    "standard(open_durch=1500,bettel=300,durch_fail_credit=300)",
    "kreuz(open_durch=1500,bettel=300,durch_game=1)",
    "standard(hand_durch=2000,open_durch=1500,durch_fail_credit=400)",
    "four-sitout(hand_durch=2000,auction=open,all_pass=forced)",
    "kreuz12(auction=open,open_durch=1500,bettel=300,partner_exemption=1)",  # no Tapp
)
RULE_VARIANTS: tuple[Rules, ...] = tuple(RULE_SETS.values()) + tuple(Rules.parse(t) for t in VARIANT_TEXTS)
RULE_IDS = [r.text for r in RULE_VARIANTS]

rules_strategy = st.sampled_from(RULE_VARIANTS)
seed_strategy = st.integers(min_value=0, max_value=2**32 - 1)


def parametrize_rules(func):
    """Run a test once per rule set and variant (new rule sets are picked up automatically)."""
    return pytest.mark.parametrize("rules", RULE_VARIANTS, ids=RULE_IDS)(func)


def random_playout(rules: Rules | str, seed: int, dealer: int | None = None) -> list[State]:
    """Every state of one random deal, from just after the deal to the end (inclusive).

    The dealer is drawn from the seed unless given; each decision is a uniformly random
    legal action.
    """
    rules = Rules.parse(rules) if isinstance(rules, str) else rules
    rng = random.Random(seed)
    if dealer is None:
        dealer = rng.randrange(rules.players)
    state = State.new(rules, dealer).deal_random(rng)
    states = [state]
    while not state.is_over():
        state = state.apply(rng.choice(state.legal_actions()))
        states.append(state)
    return states


def played_cards(state: State) -> list[Card]:
    """Every card played so far: the completed tricks and the current one."""
    return [c for trick in state.tricks for c in trick.cards] + list(state.current_trick.cards)


def card_counter(cards) -> Counter:
    return Counter(str(c) for c in cards)


def kinds_to_cards(kinds) -> list[Card]:
    return [CARDS[k] for k in kinds]


# PostgreSQL for the tests that run against both databases (storage_support.py).
from storage_support import postgres_database, postgres_url, pytest_terminal_summary  # noqa: F401, E402
# The browser tests' `binokel serve`, Chromium and default page (browser_support.py).
from browser_support import animated_page, browser, page, server  # noqa: F401, E402

try:
    from server_support import server_db  # noqa: F401
except ImportError:  # no server extras (pip install binokel[test] without serve): the core tests still run
    SERVER_TESTS = ("test_server*.py", "test_browser*.py", "test_multi.py", "test_storage*.py",
                    "test_terminal_join.py", "test_research.py")
    collect_ignore_glob = list(SERVER_TESTS)
