"""Golden playthroughs: every shipped rule set's seeded deal, step by step, equals its file.

A failure prints the first differing lines. After an intended change of behaviour,
regenerate the files (``PYTHONPATH=src python -m binokel.playthrough --regenerate``) and
read the diff before committing it.
"""

from __future__ import annotations

import difflib

import pytest

from binokel.playthrough import DIRECTORY, path_of, playthrough
from binokel.rules import RULE_SETS


@pytest.mark.parametrize("rules", list(RULE_SETS))
def test_playthrough_matches_its_golden_file(rules: str) -> None:
    expected = path_of(rules).read_text(encoding="utf-8")
    actual = playthrough(rules)
    if actual != expected:
        diff = difflib.unified_diff(expected.splitlines(), actual.splitlines(), "golden", "now", lineterm="", n=1)
        pytest.fail(f"{rules}: the playthrough changed (regenerate if intended):\n" + "\n".join(list(diff)[:40]))


def test_every_rule_set_has_a_file_and_every_file_a_rule_set() -> None:
    assert sorted(p.stem for p in DIRECTORY.glob("*.txt")) == sorted(RULE_SETS)


def test_a_playthrough_ends_with_the_scores_and_shows_every_seat() -> None:
    text = playthrough("kreuz")
    assert text.splitlines()[-1].startswith("final: outcome ")
    assert all(f"  seat {seat}: hand " in text for seat in range(4))
    assert "event hand [seats 3]" in text and "event deal [everyone]" in text
