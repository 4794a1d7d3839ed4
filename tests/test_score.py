"""One explained score: a deal's public facts (``DealSummary``) scored by ``explain``, the
way the state scores every deal it plays and a score pad scores a deal played with real
cards (RULES.md sections 4, 6, 7, 10)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from binokel.action import DURCH, Contract
from binokel.error import SummaryError
from binokel.i18n import LANGUAGES
from binokel.rules import STANDARD, Rules
from binokel.score import (DealSummary, Outcome, deal_points, durch_scores, explain, surrender_scores,
                           trump_scores)
from binokel.state import State

from conftest import random_playout, rules_strategy, seed_strategy


def summary(**fields: Any) -> DealSummary:
    base: dict[str, Any] = {"dealer": 2, "soloist": 0, "bid": 200, "game": "S", "surrendered": False,
                            "melds": [150, 40, 20], "card_points": [90, 100, 60], "tricks": [4, 6, 5]}
    base.update(fields)
    return DealSummary.from_json({k: v for k, v in base.items() if v is not ...})


def scores(rules: Rules | str, **fields: Any) -> tuple[int, ...]:
    return explain(Rules.parse(rules) if isinstance(rules, str) else rules, summary(**fields)).scores


# ---------------------------------------------------------------------- the rules' own examples

def test_the_worked_example_of_section_6() -> None:
    # A soloist who bid 200 with 90 in tricks and discards plus a trump family (150): +240.
    made = explain(STANDARD, summary(melds=[150, 0, 0]))
    assert made.scores == (240, 100, 60) and made.outcome is Outcome.MADE and made.made
    assert made.sides[0].reached == 240 and made.sides[0].terms == (("card_points", 90), ("melds", 150))
    # A total of 190 would score -400.
    failed = explain(STANDARD, summary(melds=[150, 0, 0], card_points=[40, 150, 60]))
    assert failed.scores == (-400, 150, 60) and failed.outcome is Outcome.FAILED and failed.made is False
    assert failed.sides[0].terms == (("doubled_bid", -400),) and failed.sides[0].reached == 190


def test_the_issue_example() -> None:
    explained = explain(STANDARD, summary())
    assert explained.scores == (240, 140, 80)
    assert explained.to_json()["scores"] == [240, 140, 80]
    assert explained.summary.to_json() == {"dealer": 2, "soloist": 0, "bid": 200, "game": "S", "surrendered": False,
                                           "melds": [150, 40, 20], "card_points": [90, 100, 60],
                                           "tricks": [4, 6, 5]}


def test_melds_need_a_trick_and_say_why_not() -> None:
    explained = explain(STANDARD, summary(bid=150, melds=[20, 100, 40], card_points=[200, 0, 50],
                                          tricks=[10, 0, 5]))
    assert explained.scores == (220, 0, 90)
    assert explained.seats[1].melds == 100 and not explained.seats[1].melds_count
    assert explained.seats[1].why_not == "no_trick"
    always = Rules.parse("standard(defender_melds=always)")
    assert explain(always, explained.summary).scores == (220, 100, 90)
    assert explain(always, explained.summary).seats[1].melds_count


def test_a_soloist_without_a_trick_fails_and_keeps_no_melds() -> None:
    explained = explain(STANDARD, summary(bid=150, melds=[1500, 0, 0], card_points=[30, 150, 70], tricks=[0, 8, 7]))
    assert explained.scores[0] == -300 and explained.seats[0].why_not == "no_trick"


def test_surrender_loses_the_bid_and_gives_each_opponent_the_credit_and_melds() -> None:
    surrender = {"bid": 180, "soloist": 1, "surrendered": True, "melds": [60, 0, 240], "card_points": ...,
                 "tricks": ...}
    assert scores(STANDARD, **surrender) == (110, -180, 290)
    assert scores("standard(surrender_credit=half)", **surrender) == (150, -180, 330)
    assert scores("standard(surrender_credit=0)", **surrender) == (60, -180, 240)
    # Half of 170 is 85: as a credit it rounds down to a multiple of 10 (RULES.md section 10).
    assert scores("standard(surrender_credit=half)", **{**surrender, "bid": 170}) == (140, -170, 320)
    half = explain(Rules.parse("standard(surrender_credit=half)"), summary(**{**surrender, "bid": 170}))
    assert half.sides[0].terms == (("surrender_credit", 80), ("melds", 60))
    explained = explain(STANDARD, summary(**surrender))
    assert explained.outcome is Outcome.SURRENDERED and explained.sides[1].terms == (("lost_bid", -180),)
    assert explained.sides[2].terms == (("surrender_credit", 50), ("melds", 240))


def test_durch_is_won_with_every_trick_and_lost_with_the_first_other() -> None:
    durch = {"game": "durch", "melds": ..., "card_points": ...}
    made = explain(STANDARD, summary(tricks=[15, 0, 0], **durch))
    assert made.scores == (1000, 0, 0) and made.outcome is Outcome.DURCH_MADE
    lost = explain(Rules.parse("standard(durch_fail_credit=300)"), summary(tricks=[3, 0, 1], **durch))
    assert lost.scores == (-1000, 300, 300) and lost.outcome is Outcome.DURCH_FAILED
    assert lost.sides[1].terms == (("durch_credit", 300),)
    whole = explain(Rules.parse("standard(durch_game=1)"), summary(tricks=[15, 0, 0], **durch))
    assert whole.scores == (0, 0, 0) and whole.sides[0].terms == (("whole_game", 1),)


def test_bettel() -> None:
    rules = Rules.parse("standard(bettel=300)")
    bettel = {"game": "bettel", "melds": ..., "card_points": ...}
    assert explain(rules, summary(tricks=[0, 9, 6], **bettel)).outcome is Outcome.BETTEL_MADE
    assert scores(rules, tricks=[0, 9, 6], **bettel) == (300, 0, 0)
    assert scores(rules, tricks=[1, 2, 0], **bettel) == (-300, 0, 0)


def test_rounding_after_made_or_failed_was_decided_halves_up() -> None:
    rules = Rules.parse("standard(failed_credit=30,rounding=10)")
    explained = explain(rules, summary(melds=[100, 0, 0], card_points=[45, 125, 80], tricks=[3, 7, 5]))
    assert explained.scores == (-400, 160, 110)  # 155 rounds up
    assert explained.sides[1].exact == 155 and explained.sides[1].terms[-1] == ("failed_credit", 30)
    # 145 + 50 = 195 against a bid of 200 is failed, though 195 rounds to 200.
    assert scores("standard(rounding=10)", melds=[50, 0, 0], card_points=[145, 45, 60])[0] == -400
    made = explain(Rules.parse("standard(rounding=10)"), summary(melds=[140, 0, 0], card_points=[105, 85, 60]))
    assert made.sides[0].exact == 245 and made.scores[0] == 250


def test_teams_score_once_per_team_and_every_member_shows_it() -> None:
    rules = Rules.parse("kreuz(failed_credit=30)")
    explained = explain(rules, DealSummary(0, 0, 200, "H", False, (40, 0, 20, 0), (60, 20, 70, 100),
                                           (3, 1, 2, 4)))
    assert explained.scores == (-400, 150, -400, 150)  # 190 < 200; the defenders' 120 + 30 once
    assert [side.seats for side in explained.sides] == [(0, 2), (1, 3)]


def test_the_seat_sitting_out_scores_nothing() -> None:
    rules = Rules.parse("four-sitout")
    explained = explain(rules, DealSummary(3, 0, 150, "C", False, (20, 0, 0, 0), (150, 60, 40, 0), (8, 4, 3, 0)))
    assert explained.scores == (170, 60, 40, 0)
    assert explained.sides[3].role == "out" and explained.sides[3].seats == (3,)


def test_a_redeal_scores_nothing() -> None:
    explained = explain(Rules.parse("standard(auction=open)"), DealSummary.from_json({"dealer": 1, "soloist": None}))
    assert explained.scores == (0, 0, 0) and explained.outcome is Outcome.REDEAL


def test_one_seat_s_card_points_are_worked_out_from_the_others() -> None:
    explained = explain(STANDARD, summary(card_points=[90, None, 60]))
    assert explained.summary.card_points == (90, 100, 60) and explained.scores == (240, 140, 80)
    # A defender without a trick has none: the soloist's are the rest.
    explained = explain(STANDARD, summary(card_points=[None, None, 60], tricks=[10, 0, 5]))
    assert explained.summary.card_points == (190, 0, 60)


# ---------------------------------------------------------------------- every playout, every rule set

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rules_strategy, seed=seed_strategy)
def test_a_finished_deal_s_summary_scores_as_the_state_did(rules: Rules, seed: int) -> None:
    state = random_playout(rules, seed)[-1]
    facts = DealSummary.of(state)
    again = DealSummary.from_json(json.loads(json.dumps(facts.to_json())))
    assert again == facts
    explained = explain(rules, again)  # checked: a real deal is never refused
    assert explained.scores == state.scores and explained.outcome == state.outcome
    assert sum(side.score * len(side.seats) for side in explained.sides) == sum(state.scores or ())
    for side in explained.sides:
        assert sum(points for _, points in side.terms) == side.exact or side.terms[0][0] == "whole_game"
    # The bots' fast paths score the same numbers.
    assert state.soloist is None or (state.bid is not None and state.game is not None)
    if state.soloist is not None and state.game is not None and state.bid is not None:
        out = state.sitting_out
        if state.game >= DURCH:
            made = state.outcome in (Outcome.DURCH_MADE, Outcome.BETTEL_MADE)
            assert durch_scores(rules, state.soloist, made, out, state.game) == state.scores
        elif state.surrendered:
            assert surrender_scores(rules, state.soloist, state.bid, state.meld_points, out) == state.scores
        else:
            assert trump_scores(rules, state.soloist, state.bid, state.card_points, state.meld_points, state.won,
                                out) == state.scores
            # The soloist's card points left out are worked out from the others'.
            gap = list(state.card_points)
            gap[state.soloist] = None  # type: ignore[call-overload]
            assert explain(rules, DealSummary(**{**facts.__dict__, "card_points": tuple(gap)})).scores == state.scores


def test_a_deal_in_progress_has_no_summary() -> None:
    with pytest.raises(SummaryError) as refused:
        DealSummary.of(State.new("standard", 0))
    assert refused.value.code == "summary_deal_not_over"


# ---------------------------------------------------------------------- impossible summaries

REFUSED: list[tuple[str, Any, str, str]] = [
    # rules, the summary (or changes to the issue's example), code, field
    ("standard", [1, 2], "summary_not_object", "summary"),
    ("standard", {"winner": 1}, "summary_unknown_field", "'winner'"),
    ("standard", {"soloist": ...}, "summary_missing", "soloist"),
    ("standard", {"dealer": ...}, "summary_missing", "dealer"),
    ("standard", {"bid": "200"}, "summary_not_whole_number", "bid"),
    ("standard", {"bid": 10**30}, "summary_number_too_large", "bid"),
    ("standard", {"melds": 150}, "summary_not_list", "melds"),
    ("standard", {"surrendered": "no"}, "summary_not_bool", "surrendered"),
    ("standard", {"game": 1}, "summary_not_text", "game"),
    ("standard", {"dealer": 3}, "summary_bad_seat", "dealer"),
    ("standard", {"soloist": -1}, "summary_bad_seat", "soloist"),
    ("standard", {"soloist": None}, "summary_no_redeal", "soloist"),
    ("standard(auction=open,all_pass=forced)", {"soloist": None}, "summary_no_redeal", "soloist"),
    ("four-sitout", {"dealer": 0, "melds": [0, 0, 0, 0], "card_points": [0, 0, 0, 0], "tricks": [0, 0, 0, 0]},
     "summary_soloist_out", "soloist"),
    ("standard", {"bid": ...}, "summary_missing", "bid"),
    ("standard", {"bid": 140}, "summary_bid_low", "bid"),
    ("standard(min_bid=200)", {"bid": 150}, "summary_bid_low", "bid"),
    ("standard", {"bid": 205}, "summary_bid_step", "bid"),
    ("standard", {"bid": 10**10}, "summary_bid_high", "bid"),
    ("standard", {"game": "bettel"}, "summary_bad_game", "game"),
    ("standard", {"game": "X"}, "summary_bad_game", "game"),
    ("standard", {"game": ...}, "summary_missing", "game"),
    ("standard", {"game": "durch", "surrendered": True}, "summary_surrender_not_trump", "surrendered"),
    ("standard", {"melds": ...}, "summary_missing", "melds"),
    ("standard", {"melds": [150, 40]}, "summary_length", "melds"),
    ("standard", {"melds": [150, -40, 20]}, "summary_negative", "melds[1]"),
    ("standard", {"melds": [155, 40, 20]}, "summary_melds_step", "melds[0]"),
    ("standard", {"melds": [5000, 40, 20]}, "summary_melds_high", "melds[0]"),
    ("sechser", {"dealer": 0, "melds": [1000, 0, 0, 0, 0, 0], "card_points": [250, 0, 0, 0, 0, 0],
                 "tricks": [7, 0, 0, 0, 0, 0]}, "summary_melds_high", "melds[0]"),
    ("standard", {"game": "durch", "melds": [0, 40, 0], "tricks": [15, 0, 0]}, "summary_melds_without_trump",
     "melds[1]"),
    ("four-sitout", {"dealer": 3, "melds": [0, 0, 0, 20], "card_points": [90, 100, 60, 0]},
     "summary_out_not_zero", "melds[3]"),
    ("standard", {"tricks": ...}, "summary_missing", "tricks"),
    ("standard", {"tricks": [4, 6, 4]}, "summary_tricks_sum", "tricks"),
    ("standard", {"game": "durch", "melds": ..., "tricks": [14, 0, 0]}, "summary_contract_tricks", "tricks"),
    ("standard", {"game": "durch", "melds": ..., "tricks": [3, 1, 1]}, "summary_contract_tricks", "tricks"),
    ("standard(bettel=300)", {"game": "bettel", "melds": ..., "tricks": [2, 1, 0]}, "summary_contract_tricks",
     "tricks"),
    ("standard", {"card_points": ...}, "summary_missing", "card_points"),
    ("standard", {"card_points": [90, None, None]}, "summary_missing", "card_points[2]"),
    ("standard", {"card_points": [300, 0, 0]}, "summary_card_points_high", "card_points[0]"),
    ("standard", {"card_points": [90, 100, 70]}, "summary_card_points_sum", "card_points"),
    ("standard", {"card_points": [200, 100, None]}, "summary_card_points_sum", "card_points"),
    ("standard", {"card_points": [90, 100, 60], "tricks": [4, 11, 0]}, "summary_points_without_trick",
     "card_points[2]"),
    ("standard", {"card_points": [50, 140, 60], "tricks": [0, 10, 5]}, "summary_points_without_trick",
     "card_points[0]"),
    # A Durch with points lost: every trick the soloist's, yet a defender has card points.
    ("standard", {"game": "durch", "melds": ..., "card_points": [240, 10, 0], "tricks": [15, 0, 0]},
     "summary_points_without_trick", "card_points[1]"),
    ("standard", {"game": "durch", "melds": ..., "card_points": [240, 30, 0], "tricks": [14, 1, 0]},
     "summary_card_points_over", "card_points"),
]


@pytest.mark.parametrize(("rules", "changes", "code", "field"), REFUSED, ids=[f"{r[2]}-{i}" for i, r in
                                                                             enumerate(REFUSED)])
def test_an_impossible_summary_is_refused_naming_its_field(rules: str, changes: Any, code: str, field: str) -> None:
    with pytest.raises(SummaryError) as refused:
        if isinstance(changes, dict):
            explain(Rules.parse(rules), summary(**changes))
        else:
            DealSummary.from_json(changes)
    assert (refused.value.code, refused.value.params["field"]) == (code, field)
    for lang in LANGUAGES:  # the catalogue's words, never the raw key
        assert not refused.value.render(lang).startswith("error.")


def test_every_refusal_code_is_tested() -> None:
    import ast
    from pathlib import Path

    source = (Path(__file__).resolve().parents[1] / "src" / "binokel" / "score.py").read_text("utf-8")
    codes = {node.args[0].value for node in ast.walk(ast.parse(source))
             if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "SummaryError"}
    assert codes - {code for _, _, code, _ in REFUSED} == {"summary_deal_not_over"}


def test_deal_points() -> None:
    assert {deal_points(Rules.parse(name)) for name in ("standard", "classic40", "sevens", "kreuz")} == {250}
    assert Contract.parse("open_durch").word == "open_durch"
