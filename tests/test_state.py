"""The state machine's API: the deal step, errors that change nothing, views, games."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from binokel import IllegalActionError, NotationError, Phase, Rules, State, view
from binokel.action import PASS, Action
from binokel.game import Game
from binokel.record import deal_record, replay

GOLDEN = Path(__file__).parent / "golden"


def golden(name: str) -> State:
    return replay(json.loads((GOLDEN / name).read_text()))


def test_deal_step_is_explicit() -> None:
    state = State.new("standard", dealer=1)
    assert state.phase is Phase.DEAL and state.to_move == -1 and state.legal_actions() == []
    with pytest.raises(IllegalActionError, match="not been dealt"):
        state.apply(PASS)
    dealt = state.deal_random(random.Random(3))
    with pytest.raises(IllegalActionError, match="dealt already"):
        dealt.deal_random(random.Random(3))


@pytest.mark.parametrize("hands, tapp, message", [
    ([["AS"] * 15] * 3, ["AS"] * 3, "three copies of AS"),
    ([["AS"]] * 3, [], "hand 0 has 1 cards, not 15"),
    ([[]] * 2, [], "need 3 hands, not 2"),
])
def test_deal_validates(hands: list, tapp: list, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        State.new("standard").deal(hands, tapp)


def test_bad_dealer() -> None:
    with pytest.raises(NotationError, match="dealer must be a seat from 0 to 2, not 3"):
        State.new("standard", dealer=3)


def test_apply_rejects_non_actions_and_changes_nothing() -> None:
    state = State.new("standard", dealer=2).deal_random(random.Random(4))
    before = deal_record(state)
    for bad in ("150", None, 150):
        with pytest.raises(IllegalActionError, match="not an action"):
            state.apply(bad)  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError):
        state.apply(Action.bid(160))
    assert deal_record(state) == before and state.to_move == 0


def test_parse_action_errors_name_the_phase() -> None:
    state = State.new("standard", dealer=2).deal_random(random.Random(4))
    with pytest.raises(NotationError, match="a call is a bid like '160' or 'pass', not 'AS'"):
        state.parse_action("AS")
    state = golden("made.json")
    with pytest.raises(IllegalActionError, match="the deal is over"):
        state.parse_action("AS")
    assert state.legal_actions() == [] and state.to_move is None


def test_view_hides_and_shows_the_right_cards() -> None:
    data = json.loads((GOLDEN / "made_shared.json").read_text())
    for key in ("tricks", "surrender", "game"):
        data.pop(key)
    state = replay(data)
    soloist, other = view(state, 0), view(state, 1)
    assert [str(c) for c in soloist.discard] == ["AS", "AS", "TS"] and other.discard is None
    assert [str(c) for c in other.tapp] == ["JC", "9C", "9C"] == [str(c) for c in soloist.tapp]
    assert [str(a) for a in soloist.legal_actions] == ["S", "H", "D", "C", "durch"] and other.legal_actions == ()
    assert len(other.hand) == 15 and other.hand_sizes == (15, 15, 15)
    data.pop("discard")
    data.pop("auction")
    early = view(replay(data), 2)
    assert early.tapp is None and early.soloist is None and early.discard is None


def test_view_json_holds_only_own_hand() -> None:
    state = golden("made_shared.json")
    data = json.loads((GOLDEN / "made_shared.json").read_text())
    data["tricks"] = data["tricks"][:1]
    mid = replay(data)
    seen = view(mid, 1).to_json()
    assert seen["hand"] == [str(c) for c in mid.hand(1)]
    assert seen["discard"] is None and seen["melds"][0][0]["name"] == "double_family"
    assert view(state, 1).to_json()["scores"] == [1734, 0, 156]


def test_game_rotation_and_end() -> None:
    rng = random.Random(11)
    game = Game.new(Rules.parse("standard(target=500)"), first_dealer=1)
    dealers = []
    while not game.is_over():
        if game.needs_deal():
            dealers.append(game.current.dealer)
            game = game.deal_random(rng)
        else:
            game = game.apply(rng.choice(game.legal_actions()))
    assert dealers == [(1 + i) % 3 for i in range(len(dealers))]
    assert list(game.totals) == [sum(d.scores[s] for d in game.deals) for s in range(3)]
    with pytest.raises(IllegalActionError, match="the game is over"):
        game.apply(PASS)


def every_action() -> list[Action]:
    from binokel.action import DISCARDS, GAMES, PLAY_ON, PLAYS, SURRENDER
    return [PASS, SURRENDER, PLAY_ON, *DISCARDS, *GAMES, *PLAYS, *(Action.bid(b) for b in range(100, 400, 5))]


@pytest.mark.parametrize("rules", ["standard", "classic40", "sevens", "standard(durch=0,min_bid=200)"])
def test_apply_accepts_exactly_the_legal_actions(rules: str) -> None:
    # apply's quick legality check must agree with legal_actions() on every action.
    rng = random.Random(rules)
    universe = every_action()
    for deal in range(40):
        state = State.new(rules, dealer=deal % 3).deal_random(rng)
        while not state.is_over():
            legal = state.legal_actions()
            for action in universe:
                if action in legal:
                    continue
                with pytest.raises(IllegalActionError):
                    state.apply(action)
            state = state.apply(rng.choice(legal))


def test_views_name_the_seat_of_each_call() -> None:
    # Dealer 0, forehand 1: 150 by 1; middlehand 2 passes; rearhand 0 bids 160; 1 bids 170; 0 passes.
    state = State.new("standard", dealer=0).deal_random(random.Random(5))
    for call in ["150", "pass", "160", "170", "pass"]:
        state = state.apply_text(call)
    assert view(state, 2).callers == (1, 2, 0, 1, 0) and (state.soloist, state.bid) == (1, 170)


def test_rules_hash_is_cached_and_not_pickled() -> None:
    import pickle
    rules = Rules.parse("classic40(target=1000)")
    assert hash(rules) == hash(Rules.parse("classic40( target=1000 )"))
    copy = pickle.loads(pickle.dumps(rules))
    assert "_hash" not in copy.__dict__ and copy == rules and hash(copy) == hash(rules)
