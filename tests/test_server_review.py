"""Bidding help, the explanation of a deal's numbers and the review of finished deals
(server/review.py, server/review_routes.py)."""

from __future__ import annotations

import random

import pytest
from test_server import (  # noqa: F401
    TOKENS,
    client,
    client_for,
    db,
    new_game,
    play_deal,
    seat_ws,
    until_ready,
)

from binokel.view import view
from binokel.ai import make_bot
from binokel.error import BinokelError
from binokel.game import Game
from binokel.record import game_record
from binokel.server.review import bidding_help, explain_deal, review_deal, review_record
from binokel.state import State

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def played(rules: str, seed: int, levels: tuple[str, ...] = ("medium", "medium", "medium")) -> State:
    state = State.new(rules, dealer=0).deal_random(random.Random(seed))
    bots = [make_bot(levels[s % len(levels)], seed=s) for s in range(state.players)]
    while not state.is_over():
        state = state.apply(bots[state.to_move].choose(view(state, state.to_move), budget=0.01))
    return state


@pytest.mark.parametrize(("rules", "seed"),
                         [("standard", s) for s in range(6)] + [("kreuz", 1), ("kreuz", 2), ("club", 3)])
def test_explanation_adds_up_to_the_scores(rules: str, seed: int) -> None:
    state = played(rules, seed)
    explained = explain_deal(state)
    for unit in explained["units"]:
        assert unit["score"] == state.scores[unit["seats"][0]]
        if unit["rule"] == "sum":  # every term is listed: the sum is the score (before rounding)
            terms = sum(s["trick_points"] + s["last_trick"] + s["discard"] + (s["melds"] if s["counts"] else 0)
                        for s in explained["seats"] if s["seat"] in unit["seats"])
            assert unit["raw"] == terms
        if unit["rule"] == "doubled":
            assert unit["raw"] == -2 * state.bid
        assert state.rules.round_score(unit["raw"]) == unit["score"]
    assert sum(s["last_trick"] for s in explained["seats"]) == (10 if state.played else 0)
    assert len(explained["tapp"]) == state.rules.tapp_size  # shown to everyone after the deal
    for seat in explained["seats"]:
        if seat["melds"] and not seat["tricks"] and seat["seat"] == state.soloist:
            assert not seat["counts"]  # melds need a trick


def test_a_deal_in_progress_is_neither_explained_nor_reviewed() -> None:
    state = State.new("standard", dealer=0).deal_random(random.Random(1))
    with pytest.raises(ValueError, match="finished"):
        explain_deal(state)
    with pytest.raises(ValueError, match="finished"):
        review_deal(state, 0)


def test_review_names_the_bots_choice_and_its_cost() -> None:
    state = played("standard", 4, ("easy", "easy", "easy"))
    review = review_deal(state, 1, worlds=6)
    plays = [d for d in review["decisions"] if d["phase"] == "play"]
    assert len(plays) == 15 and all(d["seat"] == 1 for d in review["decisions"])
    for decision in plays:
        if "values" in decision:
            assert decision["best"] in decision["values"] and decision["played"] in decision["values"]
            assert decision["cost"] == round(decision["values"][decision["best"]]
                                             - decision["values"][decision["played"]], 1)
            assert decision["cost"] >= 0
    assert any(d.get("cost") for d in plays), "an easy bot's play differs from the hard bot's somewhere"
    assert len(review["tricks"]) == 15 and len(review["play_hands"][1]) == 15


def test_bidding_help_sees_only_the_view() -> None:
    state = State.new("standard", dealer=2).deal_random(random.Random(7))
    seen = view(state, 0)
    help_ = bidding_help(seen, seed=3, worlds=12)
    assert help_["certain"] == max(help_["melds"].values())
    low, high = help_["safe"]
    assert 0 <= low <= high and low % 10 == 0 and high % 10 == 0
    assert help_["lowest"] == 150
    # The same view with other hidden cards gives the same help: only the view is read.
    other = State.new("standard", dealer=2).deal([[str(c) for c in state.hand(0)], *_shuffled_rest(state)],
                                                 _tapp_of(state))
    assert bidding_help(view(other, 0), seed=3, worlds=12) == help_


def _shuffled_rest(state: State) -> list[list[str]]:
    rest = [str(c) for s in (1, 2) for c in state.hand(s)] + [str(c) for c in _tapp_cards(state)]
    random.Random(99).shuffle(rest)
    return [rest[:15], rest[15:30]]


def _tapp_cards(state: State) -> list[str]:
    from binokel.card import CARDS
    return [str(CARDS[k]) for k in state.tapp]


def _tapp_of(state: State) -> list[str]:
    rest = [str(c) for s in (1, 2) for c in state.hand(s)] + _tapp_cards(state)
    random.Random(99).shuffle(rest)
    return rest[30:]


def test_review_of_an_uploaded_record() -> None:
    game = Game.seeded("standard", 5)
    game = game.deal_seeded(5) if game.needs_deal() else game
    bots = [make_bot("easy", seed=s) for s in range(3)]
    while not game.needs_deal():
        seat = game.current.to_move
        game = game.apply(bots[seat].choose(view(game.current, seat), budget=0.01))
    record = game_record(game, ["A", "B", "C"])
    review = review_record(record, 0, worlds=4)
    assert review["deal"] == 0 and review["deals"] == 1 and review["players"] == ["A", "B", "C"]
    with pytest.raises(BinokelError) as deal:
        review_record(record, 0, 3)
    with pytest.raises(BinokelError) as seat:
        review_record(record, 3)
    assert (deal.value.code, deal.value.params) == ("bad_review_deal", {"last": 0, "value": "3"})
    assert (seat.value.code, seat.value.params) == ("bad_seat", {"last": 2, "value": "3"})
    watched = review_record(record, None, worlds=4)
    assert watched["spectator"] is True and watched["seat"] == watched["explain"]["soloist"]


def test_http_review_advice_and_rules_check(client) -> None:  # noqa: F811
    game_id = new_game(client, seed=11)
    token = TOKENS[game_id]
    # No finished deal yet: nothing to review (the deal in progress is never sent).
    assert client.get(f"/api/games/{game_id}/review").status_code == 400
    with seat_ws(client, game_id) as ws:
        log: list = []
        first = until_ready(ws, log)
        if first["view"]["phase"] == "auction" and first["view"]["to_move"] == 0:
            advice = client.get(f"/api/games/{game_id}/advice", headers={"Authorization": f"Bearer {token}"})
            assert advice.status_code == 200 and advice.json()["bidding"]["lowest"] >= 150
        assert client.get(f"/api/games/{game_id}/advice").status_code == 403
        play_deal(ws, log, random.Random(2), first)
    review = client.get(f"/api/games/{game_id}/review", headers={"Authorization": f"Bearer {token}"})
    assert review.status_code == 200, review.text
    body = review.json()
    assert body["seat"] == 0 and body["deal"] == 0 and len(body["hands"]) == 3 and body["spectator"] is False
    # A spectator (no token, no seat) reviews the public record from the soloist's seat.
    watched = client.get(f"/api/games/{game_id}/review", params={"deal": 0})
    assert watched.status_code == 200, watched.text
    assert watched.json()["spectator"] is True and watched.json()["seat"] == watched.json()["explain"]["soloist"]
    assert client.get(f"/api/games/{game_id}/review", params={"seat": -1}).json()["code"] == "bad_seat"
    record = client.get(f"/api/games/{game_id}/record").json()
    upload = client.post("/api/review", json={"record": record, "seat": 1})
    assert upload.status_code == 200 and upload.json()["seat"] == 1
    assert client.post("/api/review", json={"record": {"format": "nope"}}).status_code == 400
    assert client.get("/api/rules/check", params={"text": "kreuz(players=6)"}).json()["ok"] is False
    assert client.get("/api/rules/check", params={"text": "kreuz"}).json() == {
        "ok": True, **client.get("/api/rules", params={"text": "kreuz"}).json()}


@pytest.mark.parametrize("seed", range(8))
def test_bidding_help_never_contradicts_itself(seed: int) -> None:
    """Never "Safe bid: 180-220" beside "would bid up to 210", nor "140-160" (below the opening
    150) beside "would pass": the safe range lies within [lowest, limit]."""
    state = State.new("standard", dealer=2).deal_random(random.Random(seed))
    help_ = bidding_help(view(state, 0), seed=3, worlds=12)
    if help_["limit"] is None:
        assert help_["safe"] is None, help_
    elif help_["safe"] is not None:
        low, high = help_["safe"]
        assert help_["lowest"] <= low <= high <= help_["limit"], help_


def test_a_surrender_is_explained_without_contradiction() -> None:
    """Never the defenders' melds "not counted: no trick" beside "credit plus own melds", nor the
    laid-away cards' points for the surrendering soloist."""
    state = State.new("standard", dealer=2).deal_random(random.Random(5))
    for text in ["150", "pass", "pass"]:
        state = state.apply_text(text)
    while "surrender" not in [str(a) for a in state.legal_actions()]:
        state = state.apply(state.legal_actions()[0])
    state = state.apply_text("surrender")
    explained = explain_deal(state)
    for seat in explained["seats"]:
        if seat["seat"] == state.soloist:
            assert seat["discard"] == 0 and not seat["counts"], seat
        else:
            assert seat["counts"] == bool(seat["melds"]), seat
    for unit in explained["units"]:
        if state.soloist not in unit["seats"]:
            assert unit["raw"] == unit["credit"] + sum(s["melds"] for s in explained["seats"]
                                                       if s["seat"] in unit["seats"] and s["counts"])


def test_a_deal_bid_far_above_any_hand_is_reviewed_and_advised(client) -> None:  # noqa: F811
    """The open auction takes any multiple of 10 (RULES.md section 10): a deal won at 20,000,
    uploaded for review (every seat), answers 200 with the bots' choices,
    and the bidding help after such a bid answers too. Before, the bots' estimate of a
    contract overflowed ``math.exp`` and the review was a 500."""
    game = Game.new("club(deals=1)", 0).deal_random(random.Random(3))
    game = game.apply_text("20000")  # forehand, far above any hand
    help_ = bidding_help(view(game.current, game.current.to_move), seed=1)
    assert help_["lowest"] == 20010 and (help_["limit"] is None or help_["limit"] < 20010), help_
    bots = [make_bot("easy", seed=s) for s in range(3)]
    while not game.current.is_over():
        seat = game.current.to_move
        game = game.apply(bots[seat].choose(view(game.current, seat), budget=0.01))
    record = game_record(game, ["A", "B", "C"])
    assert record["deals"][0]["auction"][0] == "20000"
    for seat in (0, 1, 2):
        answer = client.post("/api/review", json={"record": record, "seat": seat, "deal": 0})
        assert answer.status_code == 200, answer.text
        assert answer.json()["decisions"], answer.json()
