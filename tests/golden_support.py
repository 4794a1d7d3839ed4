"""Reading golden records and summarising replay results, shared by the golden tests."""

from __future__ import annotations

import json
from pathlib import Path

GOLDEN = Path(__file__).parent / "golden"


def load(name: str, folder: Path = GOLDEN) -> dict:
    return json.loads((folder / name).read_text())


def seat(melds: int, cards: int, tricks: int, score: int) -> dict:
    """One seat's expected line of a replay result."""
    return {"meld_points": melds, "card_points": cards, "tricks": tricks, "score": score}


def summary(outcome: dict) -> list[dict]:
    """The seats of a replay result, reduced to what :func:`seat` describes."""
    return [{k: s[k] for k in ("meld_points", "card_points", "tricks", "score")} for s in outcome["seats"]]
