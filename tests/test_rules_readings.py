"""RULES.md sections 4, 6, 7, 9 and 10 checked where earlier tests did not reach: the
shipped rule sets against section 9's table, the readings of section 10, and the order of
discard, naming, surrender, melds and the first lead. Every expected value is worked out
by hand from the text (see each comment).

The deals reuse the standard golden deal (tests/golden/made.json, dealer 2, so seat 0 is
forehand): seat 0 holds all twelve hearts and A♠ A♠ 10♠; seat 1 A♦ A♦ 10♦ 10♦ K♦ K♦ K♠ K♠
Q♠ Q♠ J♠ J♠ 9♠ 9♠ 10♠; seat 2 Q♦ Q♦ J♦ J♦ 9♦ 9♦ and the clubs but one J♣; the Tapp is J♣
9♣ 9♣.
"""

from __future__ import annotations

import random

import pytest

from binokel.error import IllegalActionError
from binokel.game import Game
from binokel.record import Record, replay, result
from binokel.rules import RULE_SETS, STANDARD, Rules
from binokel.score import durch_scores, surrender_scores, trump_scores
from binokel.state import Outcome, Phase, State

from golden_support import load

GOLDEN = load("made.json")


def seat_one_plays(rules: str, game: str) -> State:
    """The golden deal: forehand opens 150, middlehand (seat 1) bids 160, forehand and
    rearhand pass; seat 1 takes the Tapp, lays away K♠ K♠ Q♠ and names ``game``."""
    state = State.new(rules, 2).deal(GOLDEN["hands"], GOLDEN["tapp"])
    for call in ("150", "160", "pass", "pass"):
        state = state.apply_text(call)
    assert (state.soloist, state.bid, state.phase) == (1, 160, Phase.DISCARD)
    for card in ("KS", "KS", "QS"):
        state = state.apply_text(card)
    return state.apply_text(game)


# ---------------------------------------------------------------- section 9: options and rule sets

def test_standard_is_every_option_at_its_standard_value() -> None:
    # Section 9's "standard" column, option by option.
    assert Rules() == STANDARD and STANDARD.text == "standard"
    assert (STANDARD.deck, STANDARD.players, STANDARD.hand_size, STANDARD.tapp_size) == ("nines", 3, 15, 3)
    assert (STANDARD.min_bid, STANDARD.auction, STANDARD.first_lead) == (150, "fixed", "forehand")
    assert (STANDARD.surrender_credit, STANDARD.double_melds, STANDARD.eight_tens, STANDARD.eight_sevens) \
        == ("50", "special", 0, 0)
    assert (STANDARD.durch, STANDARD.failed_credit, STANDARD.defender_melds, STANDARD.rounding) \
        == (1000, 0, "trick", 0)
    assert (STANDARD.target, STANDARD.deals, STANDARD.bettel, STANDARD.open_durch, STANDARD.hand_durch) \
        == (1500, 0, 0, 0, 0)


def test_the_shipped_rule_sets_are_the_ones_section_9_names() -> None:
    classic = RULE_SETS["classic40"]  # 40 cards, 12 each, Tapp 4 (two after each of the first two rounds)
    assert (classic.deck, classic.hand_size, classic.tapp_size, classic.tapp_rounds) == ("forty", 12, 4, 2)
    assert [name for name, _, _ in RULE_SETS["sevens"].differences(STANDARD)] == ["deck"]  # 48 cards with 7s
    assert RULE_SETS["sevens"].deck == "sevens"
    solo = RULE_SETS["four-solo"]  # 4 players one against three, 40 cards: 9 / 4
    assert (solo.players, solo.teams, solo.deck, solo.hand_size, solo.tapp_size) == (4, "none", "forty", 9, 4)
    kreuz = RULE_SETS["kreuz"]  # partnership, target 500; 48 cards: 10 / 8
    assert (kreuz.players, kreuz.teams, kreuz.target, kreuz.hand_size, kreuz.tapp_size) == (4, "opposite", 500, 10, 8)
    assert (RULE_SETS["kreuz12"].hand_size, RULE_SETS["kreuz12"].tapp_size) == (12, 0)  # or 12 / 0
    club = RULE_SETS["club"]  # open auction with Zwangsspiel, soloist leads, rounding, +30 on failure, target 1000
    assert (club.auction, club.all_pass, club.first_lead) == ("open", "forced", "soloist")
    assert (club.rounding, club.failed_credit, club.target, club.end) == (10, 30, 1000, "highest")
    sitout = RULE_SETS["four-sitout"]  # 4 at the table, the dealer sitting out
    assert (sitout.players, sitout.sit_out, sitout.active) == (4, 1, 3)
    sechser = RULE_SETS["sechser"]  # 6 in two teams of three
    assert (sechser.players, sechser.teams) == (6, "alternate")


@pytest.mark.parametrize("option", [
    "min_bid=200", "min_bid=250", "surrender_credit=half", "surrender_credit=30", "surrender_credit=40",
    "surrender_credit=0", "double_melds=plain", "eight_tens=1000", "durch=0", "open_durch=1500",
    "hand_durch=2000", "durch_fail_credit=300", "durch_fail_credit=400", "durch_game=1", "failed_credit=30",
    "defender_melds=always", "rounding=10", "target=1000", "target=2000", "target=500", "deals=8",
    "first_lead=soloist", "auction=open", "bettel=300",
])
def test_every_value_seen_in_the_sources_is_an_option(option: str) -> None:
    rules = Rules.parse(f"standard({option})")
    assert rules.text == f"standard({option})" and Rules.parse(rules.text) == rules
    name, value = option.split("=")
    assert str(getattr(rules, name)) == value and getattr(STANDARD, name) != getattr(rules, name)


def test_eight_sevens_is_an_option_of_the_sevens_deck() -> None:
    assert Rules.parse("sevens(eight_sevens=1000)").eight_sevens == 1000


# ---------------------------------------------------------------- section 4: Tapp, discard, contract

def test_discarded_cards_count_for_the_soloist_and_never_form_melds() -> None:
    state = seat_one_plays("standard", "S")
    assert state.phase is Phase.SURRENDER and state.melds is None  # no meld shown before the choice
    state = state.apply_text("play")
    # Seat 1 keeps A♦ A♦ 10♦ 10♦ K♦ K♦ Q♠ J♠ J♠ 9♠ 9♠ 10♠ J♣ 9♣ 9♣: with spades trump only its
    # two Dissles (20) — kept, the K♠ K♠ Q♠ laid away would have made two trump pairs (80)
    # with the Q♠ it keeps.
    assert [m.name for m in state.melds[1]] == ["dissle", "dissle"] and state.meld_points[1] == 20
    # The discard's points (4 + 4 + 3) are the soloist's before any trick.
    assert state.card_points == (0, 11, 0)


def test_surrender_comes_right_after_naming_trump_before_any_meld() -> None:
    state = seat_one_plays("standard", "D")
    assert [str(a) for a in state.legal_actions()] == ["surrender", "play"] and state.melds is None
    state = state.apply_text("surrender")
    # Seat 1 loses its bid, 160. Each opponent: 50 + own melds with diamonds trump, no trick
    # needed: seat 0 a plain double family of hearts 1000 -> 1050; seat 2 a plain club family
    # with a second pair 120 and the two trump 9s 20 -> 190.
    assert (state.outcome, state.scores) == (Outcome.SURRENDERED, (1050, -160, 190))
    assert state.melds[1] == () and state.meld_points == (1000, 0, 140)


# ---------------------------------------------------------------- sections 6 and 7: the first lead

def test_forehand_leads_the_first_trick_not_the_soloist() -> None:
    assert seat_one_plays("standard", "S").apply_text("play").to_move == 0
    assert seat_one_plays("standard(first_lead=soloist)", "S").apply_text("play").to_move == 1


def test_durch_the_soloist_leads_and_nobody_melds() -> None:
    state = seat_one_plays("standard", "durch")
    assert state.phase is Phase.PLAY and state.to_move == 1 and state.leader == 1
    assert state.melds == ((), (), ()) and state.meld_points == (0, 0, 0)
    # With no trump a void player plays any card: seat 1 leads 10♠, seat 2 has no spade.
    state = state.apply_text("TS")
    assert {str(a) for a in state.legal_actions()} == {"QD", "JD", "9D", "AC", "TC", "KC", "QC", "JC"}
    # Seat 0 then must beat 10♠ with A♠ and ends the Durch at once: -1000, nobody else scores.
    state = state.apply_text("QD")
    assert [str(a) for a in state.legal_actions()] == ["AS"]
    state = state.apply_text("AS")
    assert (state.outcome, state.scores, len(state.tricks)) == (Outcome.DURCH_FAILED, (0, -1000, 0), 1)


def test_durch_off_is_not_offered() -> None:
    state = State.new("standard(durch=0)", 2).deal(GOLDEN["hands"], GOLDEN["tapp"])
    for action in ("150", "pass", "pass", "9C", "9C", "JC"):
        state = state.apply_text(action)
    assert [str(a) for a in state.legal_actions()] == ["S", "H", "D", "C"]
    with pytest.raises(IllegalActionError):
        state.apply_text("durch")


# ---------------------------------------------------------------- section 10: readings settled

def test_zwangsspiel_is_played_at_the_rule_set_s_minimum_bid() -> None:
    state = State.new("club(min_bid=200)", 2).deal_random(random.Random(8))
    for call in ("pass", "pass", "pass"):
        state = state.apply_text(call)
    assert (state.soloist, state.bid, state.phase) == (2, 200, Phase.DISCARD)  # the dealer


def test_the_open_auction_skips_passed_seats_and_ends_when_only_the_high_bidder_is_left() -> None:
    state = State.new("standard(auction=open)", 2).deal(GOLDEN["hands"], GOLDEN["tapp"])
    state = state.apply_text("pass").apply_text("800")  # forehand passes; middlehand opens at 800
    assert state.to_move == 2 and state.lowest_bid() == 810
    state = state.apply_text("1000")  # rearhand jumps
    assert state.to_move == 1  # forehand has passed: skipped
    state = state.apply_text("pass")
    assert (state.soloist, state.bid) == (2, 1000)


def test_failed_credit_goes_to_a_defender_without_a_trick() -> None:
    # Soloist 150 + 0 melds < 200: -400. Seat 1: 100 in tricks + 30. Seat 2 took no trick:
    # no card points, its 40 in melds do not count, but the credit does: 30.
    rules = Rules.parse("standard(failed_credit=30)")
    assert trump_scores(rules, 0, 200, (150, 100, 0), (0, 0, 40), (10, 5, 0)) == (-400, 130, 30)


def test_team_credits_go_once_per_team_and_every_member_shows_the_team_score() -> None:
    kreuz = Rules.parse("kreuz")
    # Surrender of seat 0 at 200: seats 0 and 2 lose 200 each; the defending team gets 50
    # once plus its members' melds (20 + 60): 130 for seat 1 and for seat 3.
    assert surrender_scores(kreuz, soloist=0, bid=200, meld_points=(40, 20, 0, 60)) == (-200, 130, -200, 130)
    half = kreuz.replace(surrender_credit="half")  # half of 250 is 125: 120, once
    assert surrender_scores(half, soloist=1, bid=250, meld_points=(0, 0, 0, 0)) == (120, -250, 120, -250)
    failed_durch = kreuz.replace(durch_fail_credit=300)
    assert durch_scores(failed_durch, soloist=0, made=False) == (-1000, 300, -1000, 300)


def test_rounding_is_to_the_higher_ten_on_a_half_both_signs() -> None:
    rules = Rules.parse("standard(rounding=10)")
    assert [rules.round_score(v) for v in (245, 244, 246, -245, -244, -246, 5, -5, 0)] \
        == [250, 240, 250, -240, -240, -250, 10, 0, 0]


def test_with_a_fixed_number_of_deals_a_redealt_deal_counts() -> None:
    game = Game.new("standard(auction=open,deals=2)", first_dealer=2)
    game = game.deal(GOLDEN["hands"], GOLDEN["tapp"])
    for action in ("150", "pass", "pass", "9C", "9C", "JC", "H", "surrender"):
        game = game.apply_text(action)
    # Seat 0 surrenders 150; seat 1 50 + two plain spade pairs 40, seat 2 50 + a plain club
    # family with a second pair 120.
    assert game.totals == (-150, 90, 170) and game.winner is None and game.current.dealer == 0
    game = game.deal(GOLDEN["hands"], GOLDEN["tapp"])
    for call in ("pass", "pass", "pass"):  # everybody passes: a redeal, and the second deal
        game = game.apply_text(call)
    assert game.deals[-1].outcome is Outcome.REDEAL and game.is_over() and game.winner == 2
    three = Game.new("standard(auction=open,deals=3)", first_dealer=2).deal(GOLDEN["hands"], GOLDEN["tapp"])
    for call in ("pass", "pass", "pass"):
        three = three.apply_text(call)
    assert not three.is_over() and three.needs_deal() and three.current.dealer == 0


# ---------------------------------------------------------------- RECORDS.md

def test_unknown_top_level_keys_are_kept_and_ignored() -> None:
    extra = {"event": "club night", "date": "2026-12-03", "players": ["Anna", "Ben", "Cleo"], "seed": 7}
    data = {**{k: v for k, v in GOLDEN.items() if k != "event"}, **extra}
    record = Record.from_json(data)
    assert record.extra == extra and record.to_json() == data
    assert result(record.subject) == result(replay(GOLDEN))


def test_hands_may_be_in_any_order_and_are_written_back_as_given() -> None:
    data = {**GOLDEN, "hands": [list(reversed(hand)) for hand in GOLDEN["hands"]]}
    assert result(replay(data)) == result(replay(GOLDEN))
    assert Record.from_json(data).to_json() == data


def test_forehand_is_the_seat_after_the_dealer_and_opens() -> None:
    # The same cards dealt by seat 0: forehand is seat 1, whose forced 150 comes first.
    data = {**GOLDEN, "dealer": 0}
    state = replay({k: v for k, v in data.items() if k in ("format", "rules", "dealer", "hands", "tapp")})
    assert state.to_move == 1 and [str(a) for a in state.legal_actions()] == ["150"]
