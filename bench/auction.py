"""The auction study: how the bidding's simulation saw the contracts the bots won, from a
tournament's saved deals: ``python bench/auction.py DIR... [--budget 0.02] [--json]``
where DIR was written by ``binokel tournament ... --save DIR``.

For every contract a search bot (hard, expert; the records' ``players`` names, options
included) won, the auction is replayed to the soloist's last bid and the bot's own bidding
simulation is run again on that view (the worlds the bot would sample, expert's weighted by
the other seats' calls; no clock cap). Per bot it reports, split by whether an opponent had
raised of its own will (:func:`binokel.ai.bots.facing_bid`) and whether the bid was at
least :data:`FAR` above the melds of the hand as dealt (the issue's measure):

- how many such contracts failed (surrendered ones count as failed);
- the simulated share of deals reaching the bid (``made_share``) against the outcome, by
  buckets: is the simulation calibrated where the bots bid against each other?
- for each made-share floor of :data:`FLOORS`: how many contracts the floor would have
  refused at that last bid, how many of those failed, and the failure rate of the rest.

The floor is applied to one decision only (the last bid); in a game the auction would have
gone on differently (the other bidder wins lower), which only a tournament measures.

Numbers only; nothing here is a test.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from pathlib import Path
from typing import Any

from binokel.action import ActionKind
from binokel.ai.bots import HardBot, facing_bid
from binokel.ai.expert import ExpertBot
from binokel.card import Card, Hand, Suit
from binokel.meld import find_melds, meld_total
from binokel.record import replay_deal
from binokel.rules import Rules
from binokel.state import Outcome
from binokel.tournament import BotSpec
from binokel.view import view

FAR = 150
FLOORS = (0.55, 0.65, 0.75, 0.8, 0.85, 0.9)
BUCKETS = ((0.0, 0.55), (0.55, 0.7), (0.7, 0.85), (0.85, 0.95), (0.95, 1.01))


def hand_melds(hand: list[Card], rules: Rules) -> int:
    """The best meld total of a dealt hand over the four trump suits (as realism.py)."""
    return max(meld_total(find_melds(Hand(hand), Suit(s), rules)) for s in range(4))


def study(paths: list[Path], budget: float, seed: int = 1) -> dict[str, list[dict[str, Any]]]:
    """Per bot name, one row per contract it won: made share, value, facing, far, failed."""
    rows: dict[str, list[dict[str, Any]]] = {}
    for number, path in enumerate(paths):
        data = json.loads(path.read_text())
        state = replay_deal(data)
        soloist = state.soloist
        names = data.get("players") or []
        if soloist is None or state.outcome is Outcome.REDEAL or not names:
            continue
        spec = BotSpec.parse(names[soloist])
        bot = spec.make(seed + number)
        if not isinstance(bot, HardBot):
            continue
        calls = data["auction"]
        seen_all = view(state, soloist)
        last = max(i for i, (call, seat) in enumerate(zip(seen_all.auction, seen_all.callers))
                   if seat == soloist and call.kind is ActionKind.BID)
        at = replay_deal({k: v for k, v in data.items() if k in ("format", "rules", "dealer", "hands", "tapp")}
                         | {"auction": calls[:last]})
        seen = view(at, soloist)
        bid = int(seen_all.auction[last].value)
        if last == 0 and at.rules.auction.value == "fixed":
            continue  # forehand's forced opening: no choice
        bot.CLOCK = 0
        if isinstance(bot, ExpertBot):
            bot._view = seen
        rng = random.Random(seed * 1000 + number)
        worlds = max(bot.BID_WORLDS, bot.bid_effort(budget), bot.FACING_WORLDS if facing_bid(seen) else 0)
        simulation = bot.evaluate(bot.simulate, seen, rng, worlds, budget)
        if isinstance(bot, ExpertBot):
            bot._view = None
        melds = hand_melds([Card.parse(c) for c in data["hands"][soloist]], state.rules)
        failed = state.outcome in (Outcome.FAILED, Outcome.SURRENDERED)  # as realism.py counts them
        rows.setdefault(names[soloist], []).append({
            "deal": path.name, "bid": bid, "melds": melds, "far": bid - melds >= FAR, "facing": facing_bid(seen),
            "made_share": simulation.made_share(bid), "value": simulation.value(bid), "reach": simulation.reach,
            "failed": failed, "worlds": simulation.worlds})
    return rows


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def rate(group: list[dict[str, Any]]) -> str:
        return f"{sum(r['failed'] for r in group)} of {len(group)}"

    out: dict[str, Any] = {"contracts": rate(rows)}
    for label, group in (("facing a raiser", [r for r in rows if r["facing"]]),
                         ("far (bid >= melds + 150)", [r for r in rows if r["far"]]),
                         ("far and facing", [r for r in rows if r["far"] and r["facing"]])):
        entry: dict[str, Any] = {"failed": rate(group)}
        if group:
            entry["mean made_share"] = round(statistics.fmean(r["made_share"] for r in group), 3)
        entry["calibration"] = {f"{lo:.2f}-{min(hi, 1):.2f}": rate([r for r in group if lo <= r["made_share"] < hi])
                                for lo, hi in BUCKETS}
        entry["floors"] = {}
        for floor in FLOORS:
            refused = [r for r in group if r["made_share"] < floor]
            kept = [r for r in group if r["made_share"] >= floor]
            entry["floors"][str(floor)] = {"refused (failed of them)": rate(refused), "rest failed": rate(kept)}
        out[label] = entry
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+", type=Path)
    parser.add_argument("--budget", type=float, default=0.02)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    paths = sorted(p for d in args.dirs for p in d.glob("deal-*.json"))
    rows = study(paths, args.budget, args.seed)
    result = {name: summary(r) for name, r in sorted(rows.items())}
    if args.json:
        print(json.dumps({"records": len(paths), "bots": result, "rows": rows}))
        return
    print(f"{len(paths)} deal records")
    for name, entry in result.items():
        print(f"{name}: {json.dumps(entry, indent=1)}")


if __name__ == "__main__":
    main()
