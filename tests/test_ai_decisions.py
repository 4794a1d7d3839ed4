"""The bots' decisions in constructed positions: Durch, Bettel, open Durch from the hand,
the open auction, Bettel card play and partnerships."""

from __future__ import annotations

import random

import pytest

from binokel.action import DISCARDS, ActionKind
from binokel.ai import make_bot
from binokel.ai.bots import HardBot
from binokel.card import Card, Hand, Suit
from binokel.rules import Rules
from binokel.state import Phase, State
from binokel.view import view

BUDGET = 0.01

SURE_DURCH = "AS AS TS TS KS KS QS AH AH TH TH KH AD AD TD".split()  # no eight aces: Durch is worth more
ONLY_LOW = "9S 9S JS JS 9H 9H JH JH 9D 9D JD JD 9C 9C JC".split()


@pytest.fixture(autouse=True)
def no_latency_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """The searching bots' effort follows the budget alone, not the wall clock: on a loaded
    machine the latency cap cut an expert's Bettel decision short and it chose otherwise."""
    monkeypatch.setattr(HardBot, "CLOCK", 0)


def deal(rules: str, dealer: int, fixed: dict[int, list[str]], seed: int = 1,
         tapp: list[str] | None = None) -> State:
    """A deal in which the seats in ``fixed`` hold exactly those cards (and the Tapp is
    ``tapp`` if given); the other cards are shuffled among the other seats."""
    parsed = Rules.parse(rules)
    rest = [str(c) for c in parsed.deck_cards]
    for card in [c for hand in fixed.values() for c in hand] + (tapp or []):
        rest.remove(str(Card.parse(card)))
    random.Random(seed).shuffle(rest)
    state = State.new(parsed, dealer)
    hands = []
    for seat in range(parsed.players):
        size = state.hand_size_of(seat)
        hands.append(fixed[seat] if seat in fixed else [rest.pop() for _ in range(size)])
    return state.deal(hands, tapp if tapp is not None else rest)


def soloist_at_150(rules: str, hand: list[str], seed: int = 1) -> State:
    """Seat 0 is forehand with ``hand`` and plays 150 after the others pass."""
    state = deal(rules, 2, {0: hand}, seed)
    for call in ("150", "pass", "pass"):
        state = state.apply_text(call)
    return state


def bot_plays_until(state: State, level: str, phases: tuple[str, ...]) -> State:
    """Let ``level`` decide for the seat to move while the phase is one of ``phases``."""
    bot = make_bot(level, seed=3)
    while state.phase.value in phases:
        state = state.apply(bot.choose(view(state, state.to_move), budget=BUDGET))
    return state


def named_game(rules: str, hand: list[str], level: str, seed: int = 1) -> str:
    state = bot_plays_until(soloist_at_150(rules, hand, seed), level, ("tapp", "discard", "game"))
    return str(view(state, 0).game)


@pytest.mark.parametrize("level", ["easy", "medium", "hard", "expert"])
@pytest.mark.parametrize("seed", [1, 2])
def test_a_sure_durch_is_named_when_allowed_and_worth_most(level: str, seed: int) -> None:
    assert named_game("standard", SURE_DURCH, level, seed) == "durch"
    assert named_game("standard(open_durch=1500)", SURE_DURCH, level, seed) == "open_durch"
    assert named_game("standard(durch=0)", SURE_DURCH, level, seed) in "SHDC"
    assert named_game("standard(durch=0,open_durch=1500)", SURE_DURCH, level, seed) == "open_durch"
    assert named_game("standard(durch=100)", SURE_DURCH, level, seed) in "SHDC"  # the trump game is worth more


@pytest.mark.parametrize("level", ["easy", "medium", "hard", "expert"])
def test_eight_aces_outweigh_a_durch_unless_it_wins_a_whole_game(level: str) -> None:
    aces_and_tens = "AS AS TS TS AH AH TH TH AD AD TD TD AC AC TC".split()  # a sure Durch with 1000 in melds
    assert named_game("standard", aces_and_tens, level) in "SHDC"
    assert named_game("standard(durch_game=1)", aces_and_tens, level) == "durch"


@pytest.mark.parametrize("level", ["easy", "medium", "hard", "expert"])
@pytest.mark.parametrize("seed", [1, 2])
def test_a_hand_of_low_cards_plays_bettel_only_when_allowed(level: str, seed: int) -> None:
    assert named_game("standard(bettel=300)", ONLY_LOW, level, seed) == "bettel"
    assert named_game("standard", ONLY_LOW, level, seed) in "SHDC"


@pytest.mark.parametrize("level", ["easy", "medium", "hard", "expert"])
def test_open_durch_from_the_hand_only_with_a_sure_hand(level: str) -> None:
    rules = "standard(hand_durch=2000,open_durch=1500)"
    assert named_game(rules, SURE_DURCH, level) == "hand_durch"
    strong_but_not_sure = SURE_DURCH[:-1] + ["9C"]  # the 9C could lose a trick
    assert named_game(rules, strong_but_not_sure, level) != "hand_durch"
    state = bot_plays_until(soloist_at_150(rules, ONLY_LOW), level, ("tapp",))
    assert state.phase is Phase.DISCARD  # took the Tapp


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_open_auction_bids_step_by_step_and_passes_above_its_value(level: str) -> None:
    state = deal("standard(auction=open)", 2, {0: SURE_DURCH, 1: ONLY_LOW})
    bot = make_bot(level, seed=1)
    opening = bot.choose(view(state, 0), budget=BUDGET)
    assert opening.kind is ActionKind.BID and opening.value == 150  # not the highest bid offered
    state = state.apply_text("400")
    assert str(bot.choose(view(state, 1), budget=BUDGET)) == "pass"


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_bettel_soloist_does_not_lead_a_card_nobody_can_beat(level: str) -> None:
    hand = "AS AS 9S 9H 9H JH JH 9D 9D JD JD 9C 9C JC JC".split()
    state = deal("standard(bettel=300)", 2, {0: hand}, tapp="KS KS QS".split())
    for text in ("150", "pass", "pass", "KS", "KS", "QS", "bettel"):
        state = state.apply_text(text)
    assert state.to_move == 0 and state.phase is Phase.PLAY
    card = make_bot(level, seed=1).choose(view(state, 0), budget=BUDGET)
    assert str(card) != "AS"  # both aces are here: an ace led wins the trick and loses the Bettel


def _kreuz_partner_trick(level: str) -> tuple[State, object]:
    """Kreuz with the partner exemption, hearts trump: the soloist (seat 3) leads AS, an
    opponent follows low, and its partner (seat 1), void in spades, is to move."""
    soloist = "AS TS KS QS JS 7S AH TH KH QH".split()
    partner = "7H JH TC TC KC KD QD JD 7C 7D".split()
    opponent = "7S AD AD TD TD AC AC QC JC 7C".split()
    state = deal("kreuz(partner_exemption=1)", 2, {3: soloist, 1: partner, 0: opponent})
    for text in ("150", "pass", "pass", "pass"):
        state = state.apply_text(text)
    for kind in state.tapp:  # the soloist lays the Tapp away again
        state = state.apply(DISCARDS[kind])
    state = state.apply_text("H").apply_text("play").apply_text("AS").apply_text("7S")
    return state, make_bot(level, seed=1).choose(view(state, 1), budget=BUDGET)


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_a_partner_does_not_trump_its_partners_winning_ace(level: str) -> None:
    state, action = _kreuz_partner_trick(level)
    assert state.to_move == 1
    legal = view(state, 1).legal_actions
    assert any(a.card.suit is Suit.H for a in legal)  # trumping is allowed, not required
    assert action.card.suit is not Suit.H


@pytest.mark.parametrize("level", ["easy", "medium", "hard", "expert"])
def test_a_dealer_forced_to_play_plays_the_deal_out(level: str) -> None:
    """Zwangsspiel: after two passes the dealer plays 150 whatever it calls (a pass forces
    it, a bid wins), and the bots then play the deal out."""
    state = deal("standard(auction=open,all_pass=forced)", 2, {2: ONLY_LOW}, seed=5)
    state = state.apply_text("pass").apply_text("pass")
    bots = [make_bot(level, seed=seat) for seat in range(3)]
    call = bots[2].choose(view(state, 2), budget=BUDGET)
    assert str(call) in ("pass", "150")  # bidding more than forced would be a waste
    state = state.apply(call)
    assert (state.soloist, state.bid) == (2, 150)
    while not state.is_over():
        state = state.apply(bots[state.to_move].choose(view(state, state.to_move), budget=BUDGET))
    assert state.scores is not None


@pytest.mark.parametrize("level", ["hard", "expert"])
@pytest.mark.parametrize("seed", range(6))
def test_no_trump_suit_of_few_trumps_when_another_gives_more_and_the_same_melds(level: str, seed: int) -> None:
    """Found in matches: hard named a suit of 2 trumps when another gave 4 and the same melds."""
    from binokel.ai.bots import trumps_kept, undominated
    from binokel.ai.policy import plan_contract

    state = bot_plays_until(soloist_at_150("standard", "AS 9S AH TH KH JH 9H AD TD JD 9D AC TC JC 9C".split(), seed),
                            level, ("tapp", "discard"))
    hand = Hand(view(state, 0).hand).mask
    rules = state.rules
    named = bot_plays_until(state, level, ("game",))
    game = str(view(named, 0).game)
    assert game in "SHDC"  # no game without trump with this hand
    trump = int(Suit.parse(game))
    chosen = plan_contract(hand, trump, rules)
    better = [p for p in (plan_contract(hand, t, rules) for t in range(4))
              if p.melds >= chosen.melds and trumps_kept(hand, p) >= trumps_kept(hand, chosen) + 2]
    assert not better and chosen in undominated([plan_contract(hand, t, rules) for t in range(4)], hand), game
