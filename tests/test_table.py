"""The table driver: turns, chance steps, versioned events and their visibility, replay."""

from __future__ import annotations

import dataclasses
import json
import random
import re
from typing import Any

import pytest
from conftest import RULE_IDS, RULE_VARIANTS

from binokel.action import HAND_DURCH, ActionKind
from binokel.error import IllegalActionError, NotationError
from binokel.record import game_record
from binokel.rules import Rules
from binokel.state import CHANCE
from binokel.table import (PERSON, PUBLIC_FIELDS, Acted, Dealt, EventKind, Seat, Table, TurnError, Visibility,
                           step_from_json)
from binokel.view import SeatView, view

CARD = re.compile(r"^[ATKQJ97][SHDC]$")


def cards_in(value: Any) -> set[str]:
    """Every card text anywhere in a JSON value."""
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return {value} if isinstance(value, str) and CARD.match(value) else set()


def bots(rules: Rules, people: tuple[int, ...] = ()) -> list[Seat]:
    return [PERSON if seat in people else Seat("easy") for seat in range(rules.players)]


def chooser(rng: random.Random):
    """A random legal action, leaning to the games without trump so that open hands show up."""
    def choose(seat: int, seen: SeatView) -> Any:
        legal = seen.legal_actions
        if seen.phase in ("game", "tapp") and rng.random() < 0.5:
            return legal[-1]
        return rng.choice(legal)
    return choose


def play(table: Table, rng: random.Random, deals: int = 1) -> None:
    """Random legal actions for every seat (people too) through ``act``, for ``deals`` deals."""
    choose = chooser(rng)
    dealt = 0
    while not table.is_over():
        if table.needs_deal():
            if dealt == deals:
                return
            table.deal()
            dealt += 1
            continue
        seat = table.to_move
        table.act(seat, choose(seat, table.view(seat)))


def snapshot(table: Table) -> tuple[int, str, int]:
    return table.version, json.dumps(game_record(table.game), sort_keys=True), len(table.events)


def test_a_seat_out_of_turn_is_refused_and_nothing_changes() -> None:
    table = Table("standard", bots(Rules.parse("standard"), people=(0,)), seed=3)
    with pytest.raises(TurnError, match="the deal is over"):
        table.act(0, "150")  # nothing dealt yet
    table.deal()
    before = snapshot(table)
    mover = table.to_move
    other = (mover + 1) % 3
    with pytest.raises(TurnError, match=f"it is not seat {other}'s turn: seat {mover} is to move") as refused:
        table.act(other, "150")
    assert (refused.value.seat, refused.value.to_move) == (other, mover)
    with pytest.raises(IllegalActionError):
        table.act(mover, "pass")  # forehand must open with 150
    with pytest.raises(NotationError):
        table.act(mover, "dance")
    with pytest.raises(NotationError):
        table.act(7, "150")
    with pytest.raises(IllegalActionError, match="not finished"):
        table.deal()
    assert snapshot(table) == before


def test_a_stale_change_is_refused() -> None:
    table = Table("standard", bots(Rules.parse("standard")), seed=4)
    table.deal()
    change = table.propose(table.to_move, "150")
    assert table.version == 1  # proposing changes nothing
    table.commit(change)
    with pytest.raises(IllegalActionError, match="made at version 1, the table is at version 2"):
        table.commit(change)


def test_the_same_seed_deals_the_same_cards_and_the_first_dealer_by_lot() -> None:
    rules = Rules.parse("standard")
    one, two = Table(rules, bots(rules), seed=9), Table(rules, bots(rules), seed=9)
    one.deal()
    two.deal()
    assert one.history == two.history and one.events == two.events
    assert one.game.first_dealer == random.Random(9).randrange(3)
    given = Table(rules, bots(rules), seed=9, first_dealer=2)
    given.deal()
    assert given.game.current.dealer == 2
    own = Table(rules, bots(rules), seed=9, first_dealer=2)
    own.deal(random.Random(1))
    assert own.history != given.history


@pytest.mark.parametrize("rules", RULE_VARIANTS, ids=RULE_IDS)
def test_events_never_show_a_seat_or_a_spectator_more_than_its_views(rules: Rules) -> None:
    """Every card in an event a seat may see is in one of that seat's views of the deal so far
    (a spectator: in the public fields); the deal record comes only once the deal is over."""
    for seed in range(3):
        table = Table(rules, bots(rules), seed=seed)
        rng = random.Random(seed)
        choose = chooser(rng)
        known: dict[int | None, set[str]] = {}
        checked = 0
        while (not table.is_over() and table.deal_number < 2) or table.to_move not in (CHANCE, None):
            since = table.version
            if table.needs_deal():
                table.deal()
                known = {seat: set() for seat in [*range(rules.players), None]}
            else:
                table.act(table.to_move, choose(table.to_move, table.view(table.to_move)))
            for seat in range(rules.players):
                known[seat] |= cards_in(table.view(seat).to_json())
            public = table.view(0).to_json()
            known[None] |= cards_in({name: public[name] for name in PUBLIC_FIELDS})
            for seat in known:
                for event in table.events_for(seat, since):
                    data = event.to_json()
                    leaked = cards_in(data) - known[seat]
                    assert not leaked, f"seat {seat} sees {sorted(leaked)} in {event}"
                    checked += 1
        assert checked > 50


@pytest.mark.parametrize("rules", RULE_VARIANTS, ids=RULE_IDS)
def test_public_fields_are_the_same_in_every_seats_view(rules: Rules) -> None:
    table = Table(rules, bots(rules), seed=5)
    rng = random.Random(5)
    table.deal()
    choose = chooser(rng)
    while not table.needs_deal() and not table.is_over():
        shown = [table.view(seat).to_json() for seat in range(rules.players)]
        for name in PUBLIC_FIELDS:
            assert len({json.dumps(s[name]) for s in shown}) == 1, name
        # Every field but a seat's own is the same for every seat: the server builds them once.
        public = table.public_json()
        assert all(table.view(seat).public_json() == public for seat in range(rules.players))
        assert all(json.dumps(table.view(seat).to_json(public=public)) == json.dumps(shown[seat])
                   for seat in range(rules.players))
        deal = table.shown_deal  # a seat's view made from another's is the same as made anew
        assert all(view(deal, seat, like=view(deal, (seat + 1) % rules.players)) == view(deal, seat)
                   for seat in range(rules.players))
        table.act(table.to_move, choose(table.to_move, table.view(table.to_move)))


@pytest.mark.parametrize("rules", RULE_VARIANTS, ids=RULE_IDS)
def test_what_a_change_carries_is_the_shown_deal_after_it(rules: Rules) -> None:
    """The public fields and seat 0's view a change carries (made while proposing it, the
    public fields from the last step's) are those of the shown deal it leaves, through deal
    ends and the game's end."""
    table = Table(dataclasses.replace(rules, target=10), bots(rules), seed=7)  # mostly over in a deal or three
    choose = chooser(random.Random(7))
    while not table.is_over() and table.version < 400:
        if table.needs_deal():
            table.deal()
        else:
            table.act(table.to_move, choose(table.to_move, table.view(table.to_move)))
        fresh = view(table.shown_deal, 0)
        assert table.public_json() == fresh.public_json()
        assert table.view(0) == fresh


def test_who_sees_what_in_one_deal() -> None:
    """The hand to its seat only, the discard's cards to the soloist only, the Tapp to all once
    turned, and the result with the whole record to everybody."""
    rules = Rules.parse("standard")
    table = Table(rules, bots(rules), seed=11)
    events = table.deal()
    hands = [e for e in events if e.kind is EventKind.HAND]
    assert [e.visibility for e in hands] == [Visibility.only(s) for s in range(3)]
    assert [len(e.data["cards"]) for e in hands] == [15] * 3
    assert not any(e.kind is EventKind.HAND for e in table.events_for(None))
    while table.to_move is not None and table.game.current.phase.value == "auction":
        table.act(table.to_move, "pass" if table.game.current.calls else "150")
    soloist = table.game.current.soloist
    turned = [e for e in table.events if e.kind is EventKind.TAPP]
    assert len(turned) == 1 and turned[0].visibility == Visibility.everyone(3)
    assert turned[0].data["cards"] == [str(c) for c in table.view(1).tapp]
    card = table.view(soloist).legal_actions[0]
    table.act(soloist, card)
    mine, theirs = (e for e in table.events if e.kind is EventKind.ACTION and e.version == table.version)
    assert mine.visibility == Visibility.only(soloist) and mine.data["action"] == str(card)
    assert theirs.visibility == Visibility.all_but(soloist, 3) and theirs.data["action"] is None
    assert [e.data["action"] for e in table.events_for(soloist, table.version - 1)] == [str(card)]
    assert [e.data["action"] for e in table.events_for(None, table.version - 1)] == [None]
    play(table, random.Random(1), deals=0)
    over = [e for e in table.events if e.kind is EventKind.DEAL_OVER]
    deal = table.game.deals[0]
    assert len(over) == 1 and over[0].visibility == Visibility.everyone(3)
    assert over[0].data == {"number": 1, "dealer": deal.dealer, "soloist": soloist, "bid": 150,
                            "game": table.view(0).to_json()["game"], "outcome": deal.outcome.value,
                            "scores": list(deal.scores), "meld_points": list(deal.meld_points),
                            "card_points": list(deal.card_points), "totals": list(table.game.totals)}


def test_an_open_durch_shows_the_soloists_hand_to_everybody() -> None:
    rules = Rules.parse("standard(open_durch=1500)")
    for seed in range(40):
        table = Table(rules, bots(rules), seed=seed)
        table.deal()
        while table.game.current.phase.value not in ("game", "over"):
            seat = table.to_move
            table.act(seat, table.view(seat).legal_actions[0])
        if table.game.current.phase.value == "game":
            break
    soloist = table.to_move
    table.act(soloist, "open_durch")
    shown = [e for e in table.events if e.kind is EventKind.OPEN_HAND]
    assert len(shown) == 1 and shown[0].visibility == Visibility.everyone(3)
    assert shown[0].data == {"seat": soloist, "cards": [str(c) for c in table.view(soloist).hand]}
    assert shown[0] in table.events_for(None)


@pytest.mark.parametrize("rules", ["standard", "kreuz", "four-sitout(hand_durch=2000,auction=open,all_pass=forced)",
                                   "sechser", "club"])
def test_replaying_the_history_rebuilds_the_same_table(rules: str) -> None:
    parsed = Rules.parse(rules)
    table = Table(parsed, bots(parsed), seed=21)
    play(table, random.Random(2), deals=2)
    saved = json.loads(json.dumps([step.to_json() for step in table.history]))
    again = Table.replay(rules, table.seats, 21, table.game.first_dealer, map(step_from_json, saved))
    assert again.events == table.events and again.history == table.history
    assert game_record(again.game) == game_record(table.game)
    assert Table.from_game(table.game, table.seats, 21).events == table.events


def test_a_seats_view_at_any_version_is_rebuilt() -> None:
    rules = Rules.parse("standard")
    table = Table(rules, bots(rules), seed=8)
    rng = random.Random(8)
    seen: list[list[SeatView]] = [[table.view(s) for s in range(3)]]
    while table.deal_number < 2 or not table.needs_deal():
        if table.needs_deal():
            table.deal()
        else:
            table.act(table.to_move, rng.choice(table.view(table.to_move).legal_actions))
        seen.append([table.view(s) for s in range(3)])
    for version in (0, 1, 2, 17, len(seen) // 2, len(seen) - 1):
        for seat in range(3):
            assert table.view_at(version, seat) == seen[version][seat]
    with pytest.raises(ValueError):
        table.view_at(len(seen), 0)


def test_events_for_a_seat_from_a_version() -> None:
    rules = Rules.parse("standard")
    table = Table(rules, bots(rules), seed=2)
    play(table, random.Random(3), deals=1)
    versions = [e.version for e in table.events]
    assert versions == sorted(versions) and versions[-1] == table.version
    for since in (0, 5, table.version - 1, table.version):
        for seat in (0, 1, 2, None):
            got = table.events_for(seat, since)
            assert got == [e for e in table.events if e.version > since and e.visibility.allows(seat)]
    assert table.events_for(1, table.version) == []


def test_play_bots_stops_for_a_person_and_for_the_deal() -> None:
    rules = Rules.parse("standard")
    table = Table(rules, [PERSON, Seat("easy"), Seat("medium")], seed=6)
    asked: list[int] = []

    def choose(seat: int, seen: SeatView) -> Any:
        assert seen.seat == seat and seen.hand == view(table.game.current, seat).hand
        asked.append(seat)
        return seen.legal_actions[0]

    assert table.play_bots(choose) == [] and table.needs_deal()  # the chance step is the front end's
    table.deal()
    while not table.needs_deal():
        table.play_bots(choose)
        if table.needs_deal():
            break
        assert table.to_move == 0 and not table.is_bot(0) and table.bot_to_move() is None
        table.act(0, table.view(0).legal_actions[-1])
    assert asked and 0 not in asked


def test_history_entries_in_json() -> None:
    dealt = Dealt((), ())
    assert step_from_json(dealt.to_json()) == dealt
    assert step_from_json({"seat": 2, "action": "AS"}) == Acted(2, "AS")
    with pytest.raises(NotationError):
        step_from_json({"seat": "2", "action": "AS"})


def test_each_seat_says_who_sits_there() -> None:
    rules = Rules.parse("kreuz")
    table = Table(rules, [PERSON, Seat("hard"), PERSON, Seat("easy")], seed=1)
    assert [table.is_bot(s) for s in range(4)] == [False, True, False, True]
    assert table.seats[1].bot == "hard"
    with pytest.raises(ValueError, match="seats 4, not 3"):
        Table(rules, [PERSON] * 3, seed=1)


def test_the_discard_action_is_the_only_hidden_action() -> None:
    rules = Rules.parse("standard(hand_durch=2000)")
    table = Table(rules, bots(rules), seed=13)
    play(table, random.Random(13), deals=1)
    private = 0
    for event in table.events:
        step = table.history[event.version - 1]
        if event.kind is EventKind.ACTION and not event.visibility.spectators:
            assert isinstance(step, Acted) and step.action.kind is ActionKind.DISCARD
            private += 1
    assert private == rules.tapp_size or table.game.deals[0].game == HAND_DURCH or table.game.deals[0].soloist is None
