"""The ``binokel`` command, run as a user would: output, exit status, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden"


def binokel(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "binokel", *args], input=stdin, capture_output=True,
                          text=True, timeout=120)


def assert_one_line_error(run: subprocess.CompletedProcess[str], text: str) -> None:
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert text in run.stderr


# ---------------------------------------------------------------- replay

def test_replay_json_deal() -> None:
    run = binokel("replay", str(GOLDEN / "made_shared.json"), "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert (data["outcome"], data["soloist"], data["bid"], data["game"]) == ("made", 0, 150, "H")
    assert [s["score"] for s in data["seats"]] == [1734, 0, 156]


def test_replay_several_files_one_line_each_in_order(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "binokel-deal/1", "rules": "standard", "dealer": 7}')
    run = binokel("replay", "--json", str(GOLDEN / "made.json"), str(bad), str(GOLDEN / "durch_failed.json"))
    assert run.returncode == 2
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert lines[0]["outcome"] == "made" and lines[2]["outcome"] == "durch_failed"
    assert lines[1] == {"error": {"message": "dealer must be a seat from 0 to 2, not 7", "at": "dealer"}}


def test_replay_error_names_the_entry(tmp_path: Path) -> None:
    data = json.loads((GOLDEN / "made.json").read_text())
    data["tricks"][3][1] = "ZS"
    path = tmp_path / "x.json"
    path.write_text(json.dumps(data))
    run = binokel("replay", "--json", str(path))
    assert run.returncode == 2
    assert json.loads(run.stdout)["error"]["at"] == "tricks[3][1]"
    assert_one_line_error(binokel("replay", str(path)), "tricks[3][1]: unknown card 'ZS'")


def test_replay_standard_input_and_text_output() -> None:
    run = binokel("replay", "-", stdin=(GOLDEN / "surrendered.json").read_text())
    assert run.returncode == 0
    assert "surrendered" in run.stdout and "score -150" in run.stdout


def test_replay_game_record() -> None:
    deal = json.loads((GOLDEN / "made.json").read_text())
    game = {"format": "binokel-game/1", "rules": "standard", "players": ["A", "B", "C"],
            "deals": [{k: v for k, v in deal.items() if k not in ("format", "rules")}]}
    run = binokel("replay", "--json", "-", stdin=json.dumps(game))
    assert run.returncode == 0
    data = json.loads(run.stdout)
    assert data["totals"] == [1770, 0, 0] and data["winner"] == 0 and len(data["deals"]) == 1


@pytest.mark.parametrize("content, message", [
    ("{not json", "not JSON"),
    ("[]", "a record must be a JSON object"),
    ('{"format": "binokel-deal/1"}', "the record names no rules"),
])
def test_replay_malformed_files(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(content)
    assert_one_line_error(binokel("replay", str(path)), message)


def test_replay_missing_file() -> None:
    assert_one_line_error(binokel("replay", "/nonexistent/x.json"), "cannot read /nonexistent/x.json")


# ---------------------------------------------------------------- melds

def test_melds_json_roundhouse() -> None:
    run = binokel("melds", "KS", "QS", "KH", "QH", "KD", "QD", "KC", "QC", "--trump", "H", "--json")
    assert run.returncode == 0
    data = json.loads(run.stdout)
    assert data["total"] == 240
    assert sorted(m["name"] for m in data["melds"]) == ["four_kings", "four_obers", "pair", "pair", "pair", "pair"]


def test_melds_text_accepts_all_notations() -> None:
    run = binokel("melds", "a♥", "10H", "kh", "OH", "UH", "--trump", "♥")
    assert run.returncode == 0 and "150" in run.stdout.splitlines()[-1]


@pytest.mark.parametrize("args, message", [
    (["AS", "AS", "AS", "--trump", "S"], "three copies of AS"),
    (["AS", "XY", "--trump", "S"], "unknown card 'XY'"),
    (["AS", "--trump", "Q"], "unknown suit 'Q'"),
    (["AS"], "the following arguments are required: --trump"),
    (["7S", "--trump", "S"], "7S is not in the nines deck"),
    (["AS", "--trump", "S", "--rules", "nope"], "unknown rule set 'nope'"),
])
def test_melds_bad_input(args: list[str], message: str) -> None:
    assert_one_line_error(binokel("melds", *args), message)


def test_melds_with_sevens() -> None:
    run = binokel("melds", "7S", "7S", "--trump", "S", "--rules", "sevens", "--json")
    assert json.loads(run.stdout)["total"] == 20


# ---------------------------------------------------------------- rules and deal

def test_rules_lists_every_rule_set_and_option() -> None:
    from binokel.rules import RULE_SETS, options
    run = binokel("rules")
    assert run.returncode == 0
    for name in RULE_SETS:
        assert name in run.stdout
    for name, default, _ in options():
        assert f"{name}={default}" in run.stdout
    data = json.loads(binokel("rules", "--json").stdout)
    assert set(data["rule_sets"]) == set(RULE_SETS)


def test_deal_is_reproducible_and_replayable() -> None:
    first = binokel("deal", "--seed", "42")
    assert first.returncode == 0 and first.stdout == binokel("deal", "--seed", "42").stdout
    record = json.loads(first.stdout)
    assert set(record) == {"format", "rules", "dealer", "hands", "tapp", "seed"}
    assert [len(h) for h in record["hands"]] == [15, 15, 15] and len(record["tapp"]) == 3
    assert binokel("deal", "--seed", "43").stdout != first.stdout
    replayed = binokel("replay", "--json", "-", stdin=first.stdout)
    assert json.loads(replayed.stdout)["outcome"] == "in_progress"


def test_deal_classic40() -> None:
    record = json.loads(binokel("deal", "--seed", "1", "--rules", "classic40").stdout)
    assert [len(h) for h in record["hands"]] == [12, 12, 12] and len(record["tapp"]) == 4
    assert record["rules"] == "classic40"


# ---------------------------------------------------------------- score-deal

ISSUE_SUMMARY = {"dealer": 2, "soloist": 0, "bid": 200, "game": "S", "surrendered": False,
                 "melds": [150, 40, 20], "card_points": [90, 100, 60], "tricks": [4, 6, 5]}


def test_score_deal_prints_the_scores() -> None:
    run = binokel("score-deal", "--rules", "standard", stdin=json.dumps(ISSUE_SUMMARY))
    assert run.returncode == 0 and json.loads(run.stdout) == {"scores": [240, 140, 80]}
    failed = {**ISSUE_SUMMARY, "card_points": [40, 150, 60]}
    assert json.loads(binokel("score-deal", stdin=json.dumps(failed)).stdout) == {"scores": [-400, 190, 80]}


def test_score_deal_rounds_and_sums_teams_as_the_rules_say() -> None:
    summary = {"dealer": 3, "soloist": 0, "bid": 200, "game": "H", "melds": [40, 0, 20, 0],
               "card_points": [60, 25, 70, 95], "tricks": [3, 1, 2, 4]}
    run = binokel("score-deal", "--rules", "kreuz(failed_credit=30,rounding=10)", stdin=json.dumps(summary))
    assert json.loads(run.stdout) == {"scores": [-400, 150, -400, 150]}  # 120 + 30 once per team


def test_score_deal_explains() -> None:
    run = binokel("score-deal", "--explain", stdin=json.dumps({**ISSUE_SUMMARY, "card_points": [90, None, 60]}))
    explained = json.loads(run.stdout)
    assert explained["scores"] == [240, 140, 80] and explained["outcome"] == "made"
    assert explained["summary"]["card_points"] == [90, 100, 60]  # the one left out, worked out
    assert explained["sides"][0]["terms"] == [["card_points", 90], ["melds", 150]]


@pytest.mark.parametrize("args, stdin, code, field", [
    ([], json.dumps({**ISSUE_SUMMARY, "card_points": [300, 0, 0]}), "summary_card_points_high", "card_points[0]"),
    ([], json.dumps({**ISSUE_SUMMARY, "bid": 140}), "summary_bid_low", "bid"),
    ([], json.dumps({**ISSUE_SUMMARY, "melds": [155, 40, 20]}), "summary_melds_step", "melds[0]"),
    ([], "{", "summary_not_json", "summary"),
    ([], "[]", "summary_not_object", "summary"),
    (["--rules", "nope"], json.dumps(ISSUE_SUMMARY), "unknown_rule_set", "rules"),
])
def test_score_deal_refuses_with_one_json_line(args: list[str], stdin: str, code: str, field: str) -> None:
    run = binokel("score-deal", *args, stdin=stdin)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    (line,) = run.stdout.strip().splitlines()
    error = json.loads(line)["error"]
    assert (error["code"], error["field"]) == (code, field) and error["message"]


def test_score_deal_speaks_the_language_asked() -> None:
    run = binokel("score-deal", "--lang", "de", stdin=json.dumps({**ISSUE_SUMMARY, "bid": 205}))
    assert json.loads(run.stdout)["error"]["message"] == "bid: ein Reizwert ist ein Vielfaches von 10, nicht 205"


@pytest.mark.parametrize("args, message", [
    (["deal"], "the following arguments are required: --seed"),
    (["deal", "--seed", "x"], "invalid int value: 'x'"),
    (["deal", "--seed", "1", "--rules", "standard(target=0)"], "option target must be at least 10"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
])
def test_bad_command_lines(args: list[str], message: str) -> None:
    assert_one_line_error(binokel(*args), message)


def test_help_everywhere() -> None:
    for command in ([], ["replay"], ["melds"], ["rules"], ["deal"], ["score-deal"]):
        run = binokel(*command, "--help")
        assert run.returncode == 0 and "usage: binokel" in run.stdout
