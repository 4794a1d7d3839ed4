"""Records (RECORDS.md): hand-checked golden deals and games, round trips, malformed input.

The golden deals share one deal (dealer 2, so seat 0 is forehand):
seat 0 holds all twelve hearts and A♠ A♠ 10♠, seat 1 diamonds and spades, seat 2
diamonds and clubs; the Tapp is J♣ 9♣ 9♣. With hearts trump seat 0 melds a double
trump family (1500) and two Dissles (20) = 1520; seat 1 two plain spade pairs (40);
seat 2 a club family with a second pair (120).
"""

from __future__ import annotations

import copy
import json

import pytest

from binokel.error import RecordError
from binokel.game import Game
from binokel.record import Record, deal_record, game_record, replay, result

from golden_support import load, seat, summary


# Expected results, worked out by hand from RULES.md (see each comment).
GOLDEN_RESULTS = {
    # Seat 0 takes all 15 tricks: 240 card points + 10 last trick = 250 (2 of them in the
    # discard J♣ 9♣ 9♣); 250 + 1520 melds = 1770 >= 150. Opponents have no trick: 0.
    "made.json": ("made", 0, 150, "H", [seat(1520, 250, 15, 1770), seat(40, 0, 0, 0), seat(120, 0, 0, 0)]),
    # Seat 2 wins the first three club tricks (11 + 11 + 14 = 36) and melds 120: 156.
    # Seat 0 discards A♠ A♠ 10♠ (32), trumps the fourth trick (12) and takes the rest
    # (160 + 10 last): 214 + 1520 = 1734. Seat 1 takes no trick: its 40 are cancelled.
    "made_shared.json": ("made", 0, 150, "H", [seat(1520, 214, 12, 1734), seat(40, 0, 0, 0), seat(120, 36, 3, 156)]),
    # The same play after bidding up to 1790: 1770 < 1790, so -2 x 1790.
    "failed.json": ("failed", 0, 1790, "H", [seat(1520, 250, 15, -3580), seat(40, 0, 0, 0), seat(120, 0, 0, 0)]),
    # Surrender: -150; each opponent 50 + own melds with hearts trump; no melds for the soloist.
    "surrendered.json": ("surrendered", 0, 150, "H", [seat(0, 2, 0, -150), seat(40, 0, 0, 90), seat(120, 0, 0, 170)]),
    # Durch: no melds; seat 0 wins every trick: +1000, opponents nothing.
    "durch_made.json": ("durch_made", 0, 150, "durch", [seat(0, 250, 15, 1000), seat(0, 0, 0, 0), seat(0, 0, 0, 0)]),
    # Durch, discarding A♠ A♠ J♣ (24): seat 0 leads 9♣, seat 2 takes it with A♣ (9♣ A♦ A♣ = 22):
    # the deal ends at once with -1000.
    "durch_failed.json": ("durch_failed", 0, 150, "durch",
                          [seat(0, 24, 0, -1000), seat(0, 0, 0, 0), seat(0, 22, 1, 0)]),
}


@pytest.mark.parametrize("name", sorted(GOLDEN_RESULTS))
def test_golden_deal(name: str) -> None:
    outcome, soloist, bid, game, seats = GOLDEN_RESULTS[name]
    data = result(replay(load(name)))
    assert (data["outcome"], data["soloist"], data["bid"], data["game"]) == (outcome, soloist, bid, game)
    assert summary(data) == seats
    assert list(data) == ["soloist", "bid", "game", "outcome", "seats"]


def test_golden_melds_listed() -> None:
    data = result(replay(load("made.json")))
    assert data["seats"][0]["melds"] == [
        {"name": "double_family", "suit": "H", "cards": ["AH", "AH", "TH", "TH", "KH", "KH", "QH", "QH", "JH", "JH"],
         "points": 1500},
        {"name": "dissle", "suit": "H", "cards": ["9H"], "points": 10},
        {"name": "dissle", "suit": "H", "cards": ["9H"], "points": 10},
    ]
    assert data["seats"][2]["melds"] == [
        {"name": "family", "suit": "C", "cards": ["AC", "TC", "KC", "QC", "JC"], "points": 100},
        {"name": "pair", "suit": "C", "cards": ["KC", "QC"], "points": 20},
    ]


@pytest.mark.parametrize("name", sorted(GOLDEN_RESULTS))
def test_golden_round_trip(name: str) -> None:
    data = load(name)
    record = Record.from_json(data)
    assert record.to_json() == data  # unknown keys such as "event" are kept


def test_in_progress_records() -> None:
    data = load("made_shared.json")
    for cut in ("tricks", "surrender", "game", "discard"):
        data.pop(cut)
        out = result(replay(data))
        assert out["outcome"] == "in_progress" and all(s["score"] == 0 for s in out["seats"])
        assert out["soloist"] == 0 and out["bid"] == 150
    data.pop("auction")
    out = result(replay(data))
    assert (out["soloist"], out["bid"], out["game"]) == (None, None, None)


def test_partial_trick_and_partial_auction() -> None:
    data = load("made_shared.json")
    data["tricks"] = data["tricks"][:4] + [data["tricks"][4][:2]]
    state = replay(data)
    assert state.to_move == 2 and len(state.trick) == 2
    assert deal_record(state) == data
    data = load("made.json")
    data["auction"] = ["150", "160"]
    for key in ("discard", "game", "surrender", "tricks", "event"):
        data.pop(key)
    state = replay(data)
    assert state.to_move == 0 and deal_record(state) == data


# ---------------------------------------------------------------- games

def game_of(deals: list[dict], rules: str) -> dict:
    strip = [{k: v for k, v in d.items() if k not in ("format", "rules", "event")} for d in deals]
    return {"format": "binokel-game/1", "rules": rules, "players": ["Anna", "Ben", "Cleo"], "deals": strip}


def with_dealer(deal: dict, dealer: int, auction: list[str]) -> dict:
    deal = copy.deepcopy(deal)
    deal["dealer"], deal["auction"] = dealer, auction
    return deal


def test_game_soloist_reaches_target() -> None:
    game = replay(game_of([load("made.json")], "standard"))
    assert isinstance(game, Game)
    out = result(game)
    assert out["totals"] == [1770, 0, 0] and out["winner"] == 0 and len(out["deals"]) == 1


def test_game_both_opponents_over_target() -> None:
    # Surrender: (-150, 90, 170); with target 80 both opponents are over: the higher wins.
    out = result(replay(game_of([load("surrendered.json")], "standard(target=80)")))
    assert out["totals"] == [-150, 90, 170] and out["winner"] == 2


def test_game_tie_then_another_deal() -> None:
    # With +30 to each defender on a failed contract and target 30, the failed deal leaves
    # the opponents tied at 30: another deal. Dealer 0 next (the old forehand); seat 1
    # opens, seat 0 takes it at 160 and surrenders: (-160, 90, 170). Seat 2 wins.
    rules = "standard(target=30,failed_credit=30)"
    second = with_dealer(load("surrendered.json"), 0, ["150", "pass", "160", "pass"])
    out = result(replay(game_of([load("failed.json"), second], rules)))
    assert [d["outcome"] for d in out["deals"]] == ["failed", "surrendered"]
    assert [s["score"] for s in out["deals"][0]["seats"]] == [-3580, 30, 30]
    assert [s["score"] for s in out["deals"][1]["seats"]] == [-160, 90, 170]
    assert out["totals"] == [-3740, 120, 200] and out["winner"] == 2


def test_game_record_checks_dealer_rotation() -> None:
    rules = "standard(target=30,failed_credit=30)"
    second = with_dealer(load("surrendered.json"), 1, ["150", "pass", "pass"])
    with pytest.raises(RecordError) as error:
        replay(game_of([load("failed.json"), second], rules))
    assert error.value.at == "deals[1].dealer"


def test_game_record_rejects_deals_after_the_end() -> None:
    with pytest.raises(RecordError) as error:
        replay(game_of([load("made.json"), with_dealer(load("made.json"), 0, ["150"])], "standard"))
    assert error.value.at == "deals[1]" and "game is over" in error.value.message


def test_game_record_round_trip() -> None:
    data = game_of([load("surrendered.json")], "standard")
    data["first_dealer"] = data["deals"][0]["dealer"]  # written in every game record (RECORDS.md)
    game = replay(data)
    assert game_record(game, ["Anna", "Ben", "Cleo"]) == data
    assert Record.from_json({**data, "event": "club night"}).to_json() == {**data, "event": "club night"}


# ---------------------------------------------------------------- malformed records

def broken(name: str, **changes: object) -> dict:
    data = load(name)
    for key, value in changes.items():
        if value is None:
            data.pop(key)
        else:
            data[key] = value
    return data


def hands_with(seat: int, index: int, card: str) -> list[list[str]]:
    hands = load("made.json")["hands"]
    hands[seat][index] = card
    return hands


MADE_TRICKS = load("made.json")["tricks"]

MALFORMED = [
    ("not an object", ["a list"], None, "a record must be a JSON object"),
    ("unknown format", broken("made.json", format="binokel/9"), "format", "unknown format"),
    ("unknown rules", broken("made.json", rules="skat"), "rules", "unknown rule set 'skat'"),
    ("bad option", broken("made.json", rules="standard(target=x)"), "rules", "option target must be a whole number"),
    ("dealer out of range", broken("made.json", dealer=3), "dealer", "dealer must be a seat from 0 to 2"),
    ("wrong card name", broken("made.json", hands=hands_with(1, 3, "ZZ")), "hands[1][3]", "unknown card 'ZZ'"),
    ("three copies", broken("made.json", hands=hands_with(1, 3, "AH")), "hands[1][3]", "three copies of AH"),
    ("card not in deck", broken("made.json", hands=hands_with(2, 0, "7S")),
     "hands[2][0]", "7S is not in the nines deck"),
    ("short hand", broken("made.json", hands=load("made.json")["hands"][:2] + [load("made.json")["hands"][2][:14]]),
     "hands[2]", "has 14 cards, not 15"),
    ("two hands", broken("made.json", hands=load("made.json")["hands"][:2]), "hands", "must be a list of 3 hands"),
    ("big tapp", broken("made.json", tapp=["JC", "9C", "9C", "AS"]), "tapp", "has 4 cards, not 3"),
    ("no opening", broken("made.json", auction=["pass"]), "auction[0]", "pass is not legal"),
    ("off the ladder", broken("made.json", auction=["150", "170"]), "auction[1]", "170 is not legal"),
    ("not a call", broken("made.json", auction=["150", "many"]), "auction[1]", "a call is a bid like '160' or 'pass'"),
    ("call after the end", broken("made.json", auction=["150", "pass", "pass", "pass"]),
     "auction[3]", "the auction is over"),
    ("discard not held", broken("made.json", discard=["9C", "9C", "9S"]),
     "discard[2]", "9S is not in the soloist's hand"),
    ("discard too many", broken("made.json", discard=["9C", "9C", "JC", "AS"]),
     "discard[3]", "discards 3 cards, not more"),
    ("discard early", broken("made.json", auction=["150"]),
     "discard", "discard is given, but the deal is in the auction phase"),
    ("unknown game", broken("made.json", game="X"), "game", "the game is a trump suit"),
    ("surrender a Durch", broken("durch_made.json", surrender=True), "surrender", "a Durch cannot be surrendered"),
    ("surrender not a bool", broken("made.json", surrender="no"), "surrender", "surrender must be true or false"),
    ("tricks after surrender", broken("surrendered.json", tricks=MADE_TRICKS),
     "tricks", "tricks is given, but the deal is in the over phase"),
    ("must follow suit", broken("made_shared.json", tricks=[["9C", "9S", "QD"]]),
     "tricks[0][2]", "QD does not follow suit"),
    ("not held", broken("made_shared.json", tricks=load("made_shared.json")["tricks"][:3] + [["TC", "AS", "JS"]]),
     "tricks[3][1]", "seat 0 does not hold AS"),
    ("void must trump", broken("made_shared.json", discard=["AS", "AS", "JC"],
                               tricks=[["9C", "9S", "AC"], ["AC", "9C", "9S"], ["TC", "TS", "JS"]]),
     "tricks[2][1]", "TS is not a trump"),
    ("must follow the lead", broken("made.json", tricks=[["AS", "AD", "QD"]]),
     "tricks[0][1]", "AD does not follow suit: S was led"),
    ("short trick inside", broken("made.json", tricks=[["AH", "AD"], ["AH", "AD", "QD"]]),
     "tricks[0]", "a trick has 3 cards, not 2"),
    ("long last trick", broken("made.json", tricks=[MADE_TRICKS[0] + MADE_TRICKS[1][:1]]),
     "tricks[0]", "a trick has 3 cards, not 4"),
    ("two tricks as one", broken("made.json", tricks=MADE_TRICKS[:2] + [MADE_TRICKS[2] + MADE_TRICKS[3]]),
     "tricks[2]", "a trick has 3 cards, not 6"),
    ("play after the end", broken("made.json", tricks=MADE_TRICKS + [["AH", "AD", "QD"]]),
     "tricks[15]", "the deal is over"),
    ("play after a lost Durch", broken("durch_failed.json", tricks=[["9C", "AD", "AC"], ["AH", "AD", "QD"]]),
     "tricks[1]", "the deal is over"),
    ("card not text", broken("made.json", tricks=[["AH", 5]]), "tricks[0][1]", "a card must be text"),
    ("tricks not a list", broken("made.json", tricks="AH"), "tricks", "tricks must be a list"),
]


@pytest.mark.parametrize("data, at, message", [m[1:] for m in MALFORMED], ids=[m[0] for m in MALFORMED])
def test_malformed_records(data: object, at: str | None, message: str) -> None:
    with pytest.raises(RecordError) as error:
        replay(data)
    assert error.value.at == at
    assert message in error.value.message


def test_any_trump_wins_when_void() -> None:
    # Seat 0, void in clubs after trick 3, may trump the fourth club trick with any heart.
    data = broken("made_shared.json", tricks=load("made_shared.json")["tricks"][:3] + [["TC", "AH", "JS"]])
    assert replay(data).played[-1][2] == 0


# ---------------------------------------------------------------------- first_dealer (RECORDS.md)

def test_a_game_record_names_its_first_dealer_and_a_game_without_deals_replays_to_it() -> None:
    from binokel.game import Game
    from binokel.record import game_record, replay_game

    game = Game.new("kreuz", first_dealer=3)
    record = game_record(game)
    assert record["first_dealer"] == 3 and record["deals"] == []
    again = replay_game(json.loads(json.dumps(record)))
    assert again.first_dealer == 3 and again.current.dealer == 3
    assert game_record(again) == record


def test_first_dealer_must_match_the_first_deal_and_may_be_absent() -> None:
    import random

    from binokel.error import RecordError
    from binokel.game import Game
    from binokel.record import game_record, replay_game

    game = Game.new("standard", first_dealer=1).deal_random(random.Random(4))
    record = game_record(game)
    assert record["first_dealer"] == 1 == record["deals"][0]["dealer"]
    assert replay_game(record).first_dealer == 1
    without = {k: v for k, v in record.items() if k != "first_dealer"}
    assert replay_game(without).current.dealer == 1  # readers accept records without it
    for wrong, message in ((2, "first_dealer is 2, but the first deal is dealt by 1"),
                           (3, "first_dealer must be a seat from 0 to 2, not 3"),
                           (True, "first_dealer must be a seat from 0 to 2, not True")):
        with pytest.raises(RecordError, match=message) as refused:
            replay_game({**record, "first_dealer": wrong})
        assert refused.value.at == "first_dealer"
