"""The tournament harness: options, duplicate seatings, statistics, saved records."""

from __future__ import annotations

import argparse
import json
import math

import pytest

from binokel.ai.bots import HardBot
from binokel.record import replay
from binokel.rules import Rules
from binokel.tournament import add_arguments, mean_ci, run, seatings, wilson


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


@pytest.mark.parametrize("rules", ["standard", "four-solo", "four-sitout"])
def test_seatings_are_fair(rules: str) -> None:
    parsed = Rules.parse(rules)
    for bots in (2, 3):
        chosen = seatings(bots, parsed)
        assert len(chosen) == len(set(chosen)) == {3: 6, 4: {2: 14, 3: 36}[bots]}[parsed.players]
        for bot in range(bots):
            per_seat = [sum(s[seat] == bot for s in chosen) for seat in range(parsed.players)]
            assert len(set(per_seat)) == 1  # every bot sits in every seat equally often


@pytest.mark.parametrize("rules", ["kreuz", "sechser"])
def test_team_seatings_put_one_bot_per_team_both_ways(rules: str) -> None:
    parsed = Rules.parse(rules)
    chosen = seatings(2, parsed)
    assert len(chosen) == 2
    for seating in chosen:
        assert all(seating[seat] == seating[seat % 2] for seat in range(parsed.players))  # partners: one bot
    assert {s[0] for s in chosen} == {0, 1}  # each bot plays each team


@pytest.mark.parametrize("rules,seatings_count", [("kreuz", 2), ("four-sitout", 14)])
def test_tournaments_of_four_seats_report_paired_results(rules: str, seatings_count: int, tmp_path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert run(_args("--bots", "medium,easy", "--rules", rules, "--deals", "2", "--seed", "4", "--jobs", "1",
                     "--json", "--quiet", "--save", str(tmp_path))) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["seatings"] == seatings_count and data["rules"] == rules
    pair = data["pairs"][0]
    assert (pair["a"], pair["b"], pair["n"]) == ("medium", "easy", 2)
    low, high = pair["ci"]
    assert low <= pair["mean_diff"] <= high
    files = sorted(tmp_path.iterdir())
    assert len(files) == 2 * seatings_count
    for path in files:
        assert replay(json.loads(path.read_text())).is_over()


def test_same_bot_on_both_teams_is_exactly_even(capsys: pytest.CaptureFixture[str]) -> None:
    """Both teams of one bot on the same cards, swapped: the paired difference is 0."""
    assert run(_args("--bots", "medium,medium", "--rules", "kreuz", "--deals", "2", "--jobs", "1", "--json",
                     "--quiet")) == 0
    assert json.loads(capsys.readouterr().out)["pairs"][0]["mean_diff"] == 0


def test_bot_against_itself_is_near_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(_args("--bots", "medium,medium", "--deals", "4", "--seed", "3", "--jobs", "1", "--json",
                     "--quiet")) == 0
    data = json.loads(capsys.readouterr().out)
    pair = data["pairs"][0]
    low, high = pair["ci"]
    assert low <= 0 <= high and abs(pair["mean_diff"]) < 1e-9  # same bot, same seeds: identical play
    assert {r["bot"] for r in data["results"]} == {"medium#1", "medium#2"}


def test_report_fields_and_saved_records(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(_args("--bots", "hard,easy", "--deals", "1", "--seed", "5", "--jobs", "2", "--json", "--quiet",
                     "--budget", "0.002", "--save", str(tmp_path))) == 0
    data = json.loads(capsys.readouterr().out)
    hard = data["results"][0]
    assert set(hard) >= {"mean_score", "soloist_rate", "made_rate", "surrender_rate", "mean_bid", "latency"}
    assert "play" in hard["latency"] and set(hard["latency"]["play"]) == {"p50", "p95", "n", "clock_cut"}
    files = sorted(tmp_path.iterdir())
    assert len(files) == 6
    for path in files:
        state = replay(json.loads(path.read_text()))
        assert state.is_over()


def test_match_reports_win_rates(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(_args("--bots", "easy,medium", "--deals", "1", "--match", "--rules", "standard(target=300)",
                     "--jobs", "1", "--quiet", "--save", str(tmp_path))) == 0
    out = capsys.readouterr().out
    assert "wins" in out and "win rate" in out
    for path in tmp_path.iterdir():
        assert replay(json.loads(path.read_text())).is_over()


@pytest.mark.parametrize("argv", [
    ("--bots", "hard"), ("--bots", "hard,grand"), ("--deals", "0"), ("--rules", "nonsense"),
    ("--budget", "-1"), ("--jobs", "-2"), ("--bots", "hard,medium,easy", "--rules", "kreuz"),
])
def test_bad_options_exit_2_with_one_line(argv: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(_args(*argv, "--quiet")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error" in err and "Traceback" not in err


def test_statistics() -> None:
    mean, low, high = mean_ci([10.0, 12.0, 14.0, 16.0])
    assert mean == 13.0 and low < 13.0 < high
    low, high = wilson(0, 10)
    assert low == 0.0 and 0.2 < high < 0.35


def test_bot_specs_set_budget_and_options() -> None:
    from binokel.tournament import BotSpec, OptionError, settings_of

    settings = settings_of(_args("--bots", "expert:budget=2,hard:budget=0.5:endgame_cards=9", "--budget", "0.1"))
    assert settings.specs == (BotSpec("expert", 2.0), BotSpec("hard", 0.5, (("ENDGAME_CARDS", 9),)))
    bot = settings.specs[1].make(1)
    assert bot.ENDGAME_CARDS == 9 and type(bot).ENDGAME_CARDS != 9  # the instance, not the class
    assert BotSpec.parse(" Medium ") == BotSpec("medium")
    for bad in ("grand", "hard:budget", "hard:budget=x", "hard:budget=0", "hard:depth=3"):
        with pytest.raises(OptionError):
            BotSpec.parse(bad)


def test_bot_spec_budgets_reach_the_bots(capsys: pytest.CaptureFixture[str]) -> None:
    """Each bot thinks with its own budget: same level, different budgets, different labels."""
    assert run(_args("--bots", "easy:budget=0.5,easy:budget=0.01", "--deals", "1", "--jobs", "1", "--json",
                     "--quiet")) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["bots"] == ["easy:budget=0.5", "easy:budget=0.01"]


def test_sprt_decides_on_synthetic_differences() -> None:
    import random

    from binokel.tournament import sprt_decision

    rng = random.Random(1)
    better = [rng.gauss(30, 80) for _ in range(400)]
    equal = [rng.gauss(0, 80) for _ in range(400)]
    assert sprt_decision(better, 30.0)[0] == "H1"
    assert sprt_decision(equal, 30.0)[0] == "H0"
    assert sprt_decision(better[:5], 30.0)[0] is None  # too few deals to tell
    # The decision comes as soon as the evidence is clear: an SPRT stops early on a clear edge.
    decided_at = next(n for n in range(2, 400) if sprt_decision(better[:n], 30.0)[0] is not None)
    assert decided_at < 200


def test_sprt_stops_the_tournament_early(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(_args("--bots", "medium,easy", "--deals", "200", "--jobs", "1", "--json", "--quiet",
                     "--sprt", "1000")) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["sprt"]["decision"].startswith("medium is not better")  # no bot is 1000 points a deal better
    assert data["deals"] < 200


@pytest.mark.parametrize("cap", [0.0, math.inf])
def test_decisions_the_clock_cap_cut_short_are_counted(cap: float, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Every search's deadline already past (0): hard's searches are all cut short and
    counted; no clock (inf): none is. Medium does not search."""
    monkeypatch.setattr(HardBot, "deadline", staticmethod(lambda budget: cap))
    assert run(_args("--bots", "hard,medium", "--deals", "1", "--seed", "3", "--jobs", "1", "--budget", "0.01",
                     "--json", "--quiet")) == 0
    hard, medium = json.loads(capsys.readouterr().out)["results"]
    cut = {kind: entry["clock_cut"] for kind, entry in hard["latency"].items()}
    if cap == 0.0:
        assert cut["auction"] > 0 and 0 < cut["play"] <= hard["latency"]["play"]["n"]
    else:
        assert not any(cut.values())
    assert not any(entry["clock_cut"] for entry in medium["latency"].values())
