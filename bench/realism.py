"""Realism of the bots' bidding, per level, from a tournament's saved deals:
``python bench/realism.py DIR [--json]`` where DIR was written by
``binokel tournament ... --save DIR``.

Per bot (the ``players`` names of the records):

- soloist success rate: contracts made / contracts played or given up;
- surrender rate: contracts given up / contracts won in the auction;
- mean overbid on failed contracts: bid − what the soloist reached (card points with
  the discard + melds) when a played trump game failed;
- bid past reach: the share of the bot's seats (that made any bid) whose highest bid
  exceeds what the hand could reach with the best Tapp, estimated as the best plan's
  total (melds + the policy's expected card points, ``best_contract``) over
  :data:`TAPPS` random Tapps drawn from the cards not in the hand. Forehand's forced
  opening bid is not counted as a choice;
- far above the melds (the issue's measure against another program): the share of the
  bot's contracts bid at least :data:`FAR` above the best melds of the hand as dealt,
  and how often those fail (surrendered ones count as failed).

Numbers only; nothing here is a test.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from pathlib import Path
from typing import Any

from binokel.ai.knowledge import counts_of
from binokel.ai.policy import best_contract
from binokel.action import ActionKind
from binokel.card import Card, Hand, Suit, add_card
from binokel.meld import find_melds, meld_total
from binokel.record import replay
from binokel.state import Outcome, State
from binokel.view import view

TAPPS = 200
FAR = 150


def hand_melds(hand: list[Card], state: State) -> int:
    """The best meld total of a dealt hand over the four trump suits."""
    return max(meld_total(find_melds(Hand(hand), Suit(s), state.rules)) for s in range(4))


def reach(hand: list[Card], state: State, rng: random.Random) -> float:
    rules = state.rules
    mask = 0
    for card in hand:
        mask = add_card(mask, card.index)
    if not rules.tapp_size:
        return best_contract(mask, rules).total
    deck = counts_of(rules.kind_mask | rules.kind_mask << 28)
    held = counts_of(mask)
    unseen = [k for k in range(28) for _ in range(deck[k] - held[k])]
    best = 0
    for _ in range(TAPPS):
        cards = mask
        for kind in rng.sample(unseen, rules.tapp_size):
            cards = add_card(cards, kind)
        best = max(best, best_contract(cards, rules).total)
    return best


def analyse(paths: list[Path]) -> dict[str, dict[str, Any]]:
    rng = random.Random(1)
    stats: dict[str, dict[str, list[float]]] = {}
    for path in paths:
        data = json.loads(path.read_text())
        state = replay(data)
        if not isinstance(state, State):
            continue
        names = data.get("players") or [f"seat{s}" for s in range(state.players)]
        seen = view(state, 0)
        highest: dict[int, int] = {}
        for index, (call, seat) in enumerate(zip(seen.auction, seen.callers)):
            if call.kind is ActionKind.BID and index:
                highest[seat] = max(highest.get(seat, 0), int(call.value))
        for seat, bid in highest.items():
            hand = [Card.parse(c) for c in data["hands"][seat]]
            stats.setdefault(names[seat], {}).setdefault("past_reach", []).append(float(bid > reach(hand, state, rng)))
        for seat in range(state.players):
            stats.setdefault(names[seat], {}).setdefault("seats", []).append(1.0)
        soloist = state.soloist
        if soloist is None or state.outcome is Outcome.REDEAL:
            continue
        s = stats[names[soloist]]
        outcome = state.outcome
        s.setdefault("contracts", []).append(1.0)
        s.setdefault("made", []).append(float(outcome in (Outcome.MADE, Outcome.DURCH_MADE, Outcome.BETTEL_MADE)))
        s.setdefault("surrendered", []).append(float(outcome is Outcome.SURRENDERED))
        if state.bid - hand_melds([Card.parse(c) for c in data["hands"][soloist]], state) >= FAR:
            s.setdefault("far", []).append(1.0)
            s.setdefault("far_failed", []).append(float(outcome in (Outcome.FAILED, Outcome.SURRENDERED)))
        else:
            s.setdefault("far", []).append(0.0)
        if outcome is Outcome.FAILED:
            total = state.card_points[soloist] + state.meld_points[soloist]
            s.setdefault("overbid", []).append(float(state.bid - total))
    result = {}
    def mean_of(s: dict[str, list[float]], key: str) -> float | None:
        return round(statistics.fmean(s[key]), 3) if s.get(key) else None

    for name, s in sorted(stats.items()):
        def mean(key: str, s: dict[str, list[float]] = s) -> float | None:
            return mean_of(s, key)
        result[name] = {"contracts": len(s.get("contracts", [])), "success_rate": mean("made"),
                        "surrender_rate": mean("surrendered"), "failed": len(s.get("overbid", [])),
                        "mean_overbid_failed": mean("overbid"), "bidding_seats": len(s.get("past_reach", [])),
                        "bid_past_reach": mean("past_reach"), "far_share": mean("far"),
                        "far_contracts": len(s.get("far_failed", [])), "far_failed": mean("far_failed")}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    paths = sorted(p for d in args.dirs for p in d.glob("deal-*.json"))
    result = analyse(paths)
    if args.json:
        print(json.dumps({"deals": len(paths), "bots": result}))
        return
    print(f"{len(paths)} deal records")
    for name, r in result.items():
        print(f"  {name:<18} contracts {r['contracts']:4}  success {r['success_rate']}  surrender {r['surrender_rate']}"
              f"  overbid on failed {r['mean_overbid_failed']} (n={r['failed']})"
              f"  bid past reach {r['bid_past_reach']} (n={r['bidding_seats']})"
              f"  bid >= melds+{FAR}: {r['far_share']} of contracts, failed {r['far_failed']} (n={r['far_contracts']})")


if __name__ == "__main__":
    main()
