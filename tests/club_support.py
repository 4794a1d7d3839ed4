"""Random deal summaries for club tests: a trump game, a surrender, all passed or a Durch,
at a table of three or four (the dealer sitting out), as a scorekeeper would enter them;
and the next message of the projector's websocket, with a time limit."""

from __future__ import annotations

import itertools
import queue
import random
import threading
from typing import Any

import pytest

from binokel.rules import AllPass, Auction, Rules


def _split(rng: random.Random, total: int, parts: int, step: int = 1) -> list[int]:
    cuts = sorted(rng.randrange(0, total // step + 1) for _ in range(parts - 1))
    bounds = [0, *cuts, total // step]
    return [(b - a) * step for a, b in itertools.pairwise(bounds)]


def random_summary(rng: random.Random, rules: Rules, dealer: int) -> dict[str, Any]:
    """A possible summary of a deal dealt by ``dealer`` (who sits out at a table of four)."""
    out = rules.sitting_out(dealer)
    seats = [s for s in range(rules.players) if s != out]
    roll = rng.random()
    if roll < 0.04 and rules.auction is Auction.OPEN and rules.all_pass is AllPass.REDEAL:
        return {"soloist": None}  # everybody passed and the cards are dealt again
    soloist = rng.choice(seats)
    melds = [0 if s == out else rng.choice((0, 0, 20, 40, 60, 80, 100, 150, 240)) for s in range(rules.players)]
    bid = rng.randrange(rules.min_bid, rules.min_bid + 200, 10)
    if roll < 0.07 and rules.durch:
        tricks = [0] * rules.players
        tricks[soloist] = rules.hand_size if rng.random() < 0.6 else rules.hand_size - 1
        if tricks[soloist] < rules.hand_size:
            tricks[next(s for s in seats if s != soloist)] = 1
        return {"soloist": soloist, "bid": bid, "game": "durch", "surrendered": False,
                "melds": [0] * rules.players, "card_points": _durch_points(rules, tricks, soloist, seats),
                "tricks": tricks}
    game = rng.choice("SHDC")
    if roll < 0.2:
        return {"soloist": soloist, "bid": bid, "game": game, "surrendered": True, "melds": melds}
    # every seat takes a trick, but now and then a defender takes none (and no card points)
    blank = rng.choice([s for s in seats if s != soloist]) if rng.random() < 0.15 else None
    takers = [s for s in seats if s != blank]
    tricks_active = [t + 1 for t in _split(rng, rules.hand_size - len(takers), len(takers))]
    points_active = _split(rng, 250, len(takers), 10)
    tricks, points = [0] * rules.players, [0] * rules.players
    for seat, t, p in zip(takers, tricks_active, points_active):
        tricks[seat] = t
        points[seat] = p
    return {"soloist": soloist, "bid": bid, "game": game, "surrendered": False, "melds": melds,
            "card_points": points, "tricks": tricks}


def _durch_points(rules: Rules, tricks: list[int], soloist: int, seats: list[int]) -> list[int]:
    points = [0] * rules.players
    points[soloist] = 250
    loser = next((s for s in seats if s != soloist and tricks[s]), None)
    if loser is not None:
        points[soloist], points[loser] = 230, 20
    return points


def summary_for(table: dict[str, Any], deal: int, seed: int = 0) -> dict[str, Any]:
    """A random summary of deal ``deal`` (1-based) of a drawn table (a public answer's)."""
    rules = Rules.parse(table["rules"])
    dealer = table["first_dealer"]
    for _ in range(deal - 1):
        dealer = rules.next_dealer(dealer)
    return random_summary(random.Random(seed * 100 + deal), rules, dealer)


def receive(ws: Any, seconds: float = 20.0) -> Any:
    """The next message of a TestClient websocket, or a failure after ``seconds`` (not a hang)."""
    answers: queue.Queue[Any] = queue.Queue()
    threading.Thread(target=lambda: answers.put(ws.receive_json()), daemon=True).start()
    try:
        return answers.get(timeout=seconds)
    except queue.Empty:
        pytest.fail(f"no message within {seconds} s")
