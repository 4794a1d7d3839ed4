"""The score pad: a sheet of deals played with real cards (binokel.sheet), and ``binokel pad``
in the terminal, fed by standard input as a scorekeeper would type."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from binokel.error import SummaryError
from binokel.game import Game
from binokel.score import DealSummary, explain
from binokel.sheet import Sheet

MADE = {"soloist": 0, "bid": 200, "game": "S", "melds": [150, 40, 20], "card_points": [90, 100, 60],
        "tricks": [4, 6, 5]}


# ---------------------------------------------------------------------- the sheet

def test_the_dealer_rotates_and_a_redeal_passes_the_deal_on() -> None:
    sheet = Sheet.new("standard(auction=open)", ["A", "B", "C"], first_dealer=1)
    sheet = sheet.add({"soloist": None}).add({**MADE, "soloist": 2})
    assert [deal.summary.dealer for deal in sheet.deals] == [1, 2] and sheet.next_dealer == 0


def test_the_seat_sitting_out_is_the_dealer() -> None:
    sheet = Sheet.new("four-sitout", ["A", "B", "C", "D"], first_dealer=3)
    sheet = sheet.add({"soloist": 0, "bid": 150, "game": "C", "melds": [20, 0, 0, 0],
                       "card_points": [150, 60, 40, 0], "tricks": [8, 4, 3, 0]})
    assert sheet.totals == (170, 60, 40, 0)
    with pytest.raises(SummaryError) as refused:  # the next dealer, seat 0, sits out
        sheet.add({"soloist": 0, "bid": 150, "game": "C", "melds": [0, 0, 0, 0],
                   "card_points": [0, 150, 60, 40], "tricks": [0, 8, 4, 3]})
    assert refused.value.params["field"] == "soloist"


def test_a_correction_recomputes_the_totals_and_the_end() -> None:
    sheet = Sheet.new("standard(target=300)", ["A", "B", "C"]).add(MADE)
    assert sheet.totals == (240, 140, 80) and not sheet.is_over()
    sheet = sheet.correct(0, {**MADE, "card_points": [150, 40, 60], "tricks": [8, 2, 5]})
    assert sheet.totals == (300, 80, 80) and sheet.winner == 0 and sheet.ranking()[0] == (0, 300)
    with pytest.raises(SummaryError) as refused:
        sheet.add(MADE)
    assert refused.value.code == "pad_game_over"
    sheet = sheet.correct(0, MADE)  # the end is undone by a correction
    assert not sheet.is_over()


def test_a_fixed_number_of_deals_ends_the_game_and_teams_rank_as_teams() -> None:
    sheet = Sheet.new("kreuz(deals=1)", ["A", "B", "C", "D"])
    sheet = sheet.add({"soloist": 1, "bid": 150, "game": "H", "melds": [0, 40, 0, 20],
                       "card_points": [60, 70, 20, 100], "tricks": [3, 3, 1, 3]})
    assert sheet.winner == 1 and sheet.ranking() == [(1, 230), (0, 80)]


def test_the_sheet_round_trips_through_json_and_refuses_what_is_not_one() -> None:
    sheet = Sheet.new("club", ["A", "B", "C"]).add({**MADE, "card_points": [90, None, 60]})
    again = Sheet.from_json(json.loads(json.dumps(sheet.to_json())))
    assert again == sheet and again.deals[0].summary.card_points == (90, 100, 60)
    assert again.deals[0].scores == explain(sheet.rules, sheet.deals[0].summary).scores
    for bad in ({}, {"format": "binokel-pad/1", "deals": 1}, []):
        with pytest.raises(SummaryError):
            Sheet.from_json(bad)
    with pytest.raises(SummaryError) as refused:
        Sheet.new("standard", ["A", "B"])
    assert refused.value.code == "pad_players"


# ---------------------------------------------------------------------- binokel pad

def pad(*args: str, typed: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "binokel", "pad", *args], input=typed, capture_output=True,
                          text=True, timeout=120, cwd=cwd)


def test_a_game_entered_in_the_terminal_to_its_end(tmp_path: Path) -> None:
    typed = "\n".join([
        "1", "200", "s", "", "150 40 20", "4 6 5", "90 - 60",  # Anna makes 240: the middle seat's 100 worked out
        "2", "", "h", "y", "40 0 20",  # Ben surrenders at 150
        "3", "", "du", "y",  # Cleo's Durch
    ]) + "\n\n"
    run = pad("--rules", "standard(target=1000)", "--players", "Anna,Ben,Cleo", typed=typed, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "Deal 1, made: Anna +240  Ben +140  Cleo +80" in run.stdout
    assert "Deal 2, surrendered: Anna +90  Ben -150  Cleo +70" in run.stdout
    assert "Game over: Cleo wins." in run.stdout and "1. Cleo 1150" in run.stdout
    saved = json.loads((tmp_path / "binokel-pad.json").read_text("utf-8"))
    assert len(saved["deals"]) == 3 and saved["deals"][0]["card_points"] == [90, 100, 60]


def test_an_impossible_entry_is_refused_in_words_and_only_its_field_asked_again(tmp_path: Path) -> None:
    typed = "\n".join(["1", "205", "200", "s", "", "155 0 0", "150 0 0", "4 6 5", "90 100 70", "4 6 5", "90 100 60"])
    run = pad("--rules", "standard", "--players", "A,B,C", "--lang", "de", typed=typed + "\n", cwd=tmp_path)
    assert "Nicht möglich: bid: ein Reizwert ist ein Vielfaches von 10, nicht 205" in run.stdout
    assert "Nicht möglich: melds[0]: Meldungen sind ein Vielfaches von 10, nicht 155" in run.stdout
    assert "die Augen ergeben 260" in run.stdout
    assert "Spiel 1, gewonnen: A +240  B +100  C +60" in run.stdout
    assert run.stdout.count("Spieler (1 A, 2 B, 3 C)") == 2  # the soloist was never asked again for deal 1
    assert "Traceback" not in run.stderr


def test_a_past_deal_is_corrected_and_a_saved_sheet_resumed(tmp_path: Path) -> None:
    first = pad("--rules", "standard(target=2000)", "--players", "A,B,C", "--save", "s.json",
                typed="1\n\ns\n\n\n15 0 0\n250\nq\n", cwd=tmp_path)
    assert "Deal 1, made: A +250  B +0  C +0" in first.stdout
    typed = "c 1\n2\n\nc\n\n\n0 15 0\n0 250\ns\n"
    run = pad("--resume", "s.json", typed=typed, cwd=tmp_path)
    assert "Correcting deal 1 (A dealt)." in run.stdout
    assert "Totals: A 0  B 250  C 0" in run.stdout
    assert "  1. B 150 C: made" in run.stdout
    assert json.loads((tmp_path / "s.json").read_text("utf-8"))["deals"][0]["soloist"] == 1


def test_a_bad_sheet_to_resume_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text("{}", "utf-8")
    run = pad("--resume", "x.json", typed="", cwd=tmp_path)
    assert run.returncode == 2 and run.stderr.strip() == "binokel pad: format: not a score sheet of binokel pad"


# ---------------------------------------------------------------------- the sheet agrees with the game

@pytest.mark.parametrize("rules", ["standard(target=600)", "club(target=500)", "four-sitout(target=500)",
                                   "kreuz(deals=4)", "standard(auction=open,deals=5,bettel=300)", "sechser(deals=3)"])
def test_a_random_game_written_down_deal_by_deal_ends_as_the_game_did(rules: str) -> None:
    rng = random.Random(rules)
    game = Game.new(rules, first_dealer=1)
    while not game.is_over():
        game = game.deal_random(rng) if game.needs_deal() else game.apply(rng.choice(game.legal_actions()))
    sheet = Sheet.new(rules, [f"P{seat}" for seat in range(game.players)], first_dealer=1)
    for deal in game.finished_deals:
        sheet = sheet.add(DealSummary.of(deal).to_json())
    assert sheet.totals == game.totals and sheet.winner == game.winner
    assert [d.summary.dealer for d in sheet.deals] == [d.dealer for d in game.finished_deals]
