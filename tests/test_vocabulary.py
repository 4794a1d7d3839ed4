"""The typed vocabulary (contracts, option words, phases, outcomes), the table's topology
(``Rules.seating``, partners, sides), tricks with their seats, and the SeatView's JSON."""

from __future__ import annotations

import json
import random

import pytest

from binokel.action import GAMES, Action, ActionKind, Contract
from binokel.card import Card, Suit
from binokel.error import NotationError
from binokel.rules import OPTIONS, RULE_SETS, Auction, Deck, Rules, Teams, Word
from binokel.state import Outcome, Phase, State
from binokel.view import SeatView, view


# ---------------------------------------------------------------------- contracts and option words

def test_contract_words_and_trumps() -> None:
    assert [c.word for c in Contract] == ["S", "H", "D", "C", "durch", "open_durch", "bettel", "hand_durch"]
    assert [c.trump for c in Contract][:4] == list(Suit) and all(c.trump is None for c in Contract if c >= 4)
    assert all(Contract.parse(c.word) is c for c in Contract) and Contract.parse("♥") is Contract.H
    assert [str(GAMES[c]) for c in Contract] == [c.word for c in Contract]
    assert f"{Contract.DURCH}" == "durch" and bool(Contract.S)  # spades is 0, but a game all the same
    assert {c for c in Contract if c.open_hand} == {Contract.OPEN_DURCH, Contract.HAND_DURCH}
    assert Action.game("bettel").contract is Contract.BETTEL
    with pytest.raises(NotationError):
        Contract.parse("grand")


def test_option_words_keep_their_text() -> None:
    """Rule options with a fixed set of words are enums, but the canonical text and every
    record write them as the same plain words."""
    club = Rules.parse("club(surrender_credit=half)")
    assert club.auction is Auction.OPEN and club.deck is Deck.SEVENS and club.teams is Teams.NONE
    assert club.text == "club(surrender_credit=half)" and Rules.parse(club.text) == club
    assert json.dumps({"deck": club.deck}) == '{"deck": "sevens"}'
    for name, (standard, option) in OPTIONS.items():
        if option.words is not None:
            assert isinstance(standard, Word) and option.choices == tuple(option.words), name
    for rules in RULE_SETS.values():  # every word option holds an enum member, not a bare string
        for name, (_, option) in OPTIONS.items():
            if option.words is not None:
                assert type(getattr(rules, name)) is option.words, (rules.name, name)
    assert type(Rules(deck="forty", hand_size=12, tapp_size=4, tapp_rounds=2).deck) is Deck
    with pytest.raises(NotationError, match="must be one of fixed, open"):
        Rules.parse("standard(auction=closed)")


def test_phase_and_outcome_are_their_text() -> None:
    assert Phase.PLAY == "play" and Outcome("durch_failed") is Outcome.DURCH_FAILED


# ---------------------------------------------------------------------- topology

@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_seating_for_every_rule_set_and_dealer(name: str) -> None:
    rules = RULE_SETS[name]
    for dealer in range(rules.players):
        seating = rules.seating(dealer)
        assert seating.forehand == (dealer + 1) % rules.players == rules.next_dealer(dealer)
        assert seating.sitting_out == (dealer if rules.sit_out else None) == rules.sitting_out(dealer)
        assert len(seating.order) == rules.active and seating.order[0] == seating.forehand
        assert seating.sitting_out not in seating.order and seating.orders[seating.forehand] == seating.order
        for seat in seating.order:  # every playing seat sees the same circle, starting from itself
            order = seating.orders[seat]
            assert order[0] == seat and sorted(order) == sorted(seating.order)
            assert all(seating.next_to(a) == b for a, b in zip(order, order[1:] + order[:1]))
        # The state plays in exactly this order.
        state = State.new(rules, dealer)
        assert (state.forehand, state.sitting_out, state.active_seats) == (
            seating.forehand, seating.sitting_out, seating.order)


def test_partners_and_sides() -> None:
    kreuz, sechser, standard = Rules.parse("kreuz"), Rules.parse("sechser"), Rules.parse("standard")
    assert [[kreuz.partners(a, b) for b in range(4)] for a in range(4)] == [
        [True, False, True, False], [False, True, False, True]] * 2
    assert kreuz.sides() == ((0, 2), (1, 3)) and sechser.sides() == ((0, 2, 4), (1, 3, 5))
    assert standard.sides() == ((0,), (1,), (2,)) and not standard.partners(0, 2)
    assert Rules.parse("four-sitout").sides(out=2) == ((0,), (1,), (3,))
    assert kreuz.team_seats(kreuz.team_of(3)) == (1, 3) and standard.team_seats(1) == (1,)


@pytest.mark.parametrize("name", ["four-sitout", "kreuz", "sechser", "standard"])
def test_tricks_record_the_seat_of_each_card(name: str) -> None:
    """A trick's seats are the state's play order from its leader: past the seat sitting out."""
    rng = random.Random(7)
    for dealer in range(RULE_SETS[name].players):
        state = State.new(name, dealer).deal_random(rng)
        while not state.is_over():
            if state.phase is Phase.PLAY:
                seat, trick = state.to_move, state.current_trick
                after = state.apply(rng.choice(state.legal_actions()))
                played = after.tricks[-1] if len(after.tricks) > len(state.tricks) else after.current_trick
                assert played.plays[: len(trick.plays)] == trick.plays and played.seats[len(trick.plays)] == seat
                assert state.sitting_out not in played.seats
                state = after
            else:
                state = state.apply(rng.choice(state.legal_actions()))
        for trick in state.tricks:
            assert trick.seats == state.seating.orders[trick.leader]


# ---------------------------------------------------------------------- views

@pytest.mark.parametrize("name", sorted(RULE_SETS) + ["standard(open_durch=1500,hand_durch=2000,bettel=300)"])
def test_seat_view_json_round_trip(name: str) -> None:
    """``SeatView.from_json(v.to_json()) == v`` for every seat at every step, and the JSON is
    plain (it survives json.dumps): typed fields inside, record notation outside."""
    rng = random.Random(11)
    rules = Rules.parse(name)
    checked = 0
    for dealer in range(rules.players):
        state = State.new(rules, dealer).deal_random(rng)
        while True:
            for seat in range(rules.players):
                seen = view(state, seat)
                data = json.loads(json.dumps(seen.to_json()))
                assert SeatView.from_json(data) == seen
                assert data["order"] == list(state.active_seats)
                checked += 1
            if state.is_over():
                break
            state = state.apply(rng.choice(state.legal_actions()))
    assert checked > 50


def test_seat_view_fields_are_typed() -> None:
    state = State.new("standard", dealer=2).deal_random(random.Random(3))
    for text in ("150", "pass", "pass"):
        state = state.apply_text(text)
    for kind in list(state.legal_actions())[:3]:
        state = state.apply(kind)
    state = state.apply_text("H").apply_text("play")
    seen = view(state, 1)
    assert isinstance(seen.rules, Rules) and seen.phase is Phase.PLAY and seen.game is Contract.H
    assert seen.trump is Suit.H and all(isinstance(a, Action) for a in seen.auction)
    assert [a.kind for a in seen.auction] == [ActionKind.BID, ActionKind.PASS, ActionKind.PASS]
    assert all(isinstance(c, Card) for c in seen.hand) and seen.outcome is None
