"""Two versions of the code on the same deals: ``python bench/versions.py OLD NEW --bot hard
--against medium [--json]``, where OLD and NEW were written by ``binokel tournament --bots
hard,medium --seed S --save DIR`` run from two checkouts (same rules, seed, deals and
budget; the cards of a deal depend only on the seed and its number).

Per deal and per run: the bot's mean score over the seats it held in all seatings minus
``--against``'s (the tournament's own pairing). Then, paired by deal, NEW's margin minus
OLD's: how much the change moved the bot against the same opponent on the same cards.
The records are scored by this checkout's engine (``binokel.record``), so a record the
current rules refuse stops the run.

Numbers only; nothing here is a test.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
from pathlib import Path
from typing import Any

from binokel.record import replay_deal
from binokel.tournament import mean_ci

RECORD = re.compile(r"deal-(\d+)-\d+\.json")


def margins(directory: Path, bot: str, against: str) -> dict[int, float]:
    """Deal number -> ``bot``'s mean score minus ``against``'s over the deal's saved seatings."""
    scores: dict[int, dict[str, list[int]]] = {}
    for path in sorted(directory.iterdir()):
        match = RECORD.fullmatch(path.name)
        if match is None:
            continue
        record = json.loads(path.read_text())
        state = replay_deal(record)
        assert state.scores is not None, f"{path}: the deal is not finished"
        per_bot = scores.setdefault(int(match.group(1)), {bot: [], against: []})
        for seat, name in enumerate(record["players"]):
            if name in per_bot:
                per_bot[name].append(state.scores[seat])
    return {deal: statistics.fmean(s[bot]) - statistics.fmean(s[against])
            for deal, s in scores.items() if s[bot] and s[against]}


def compare(old: Path, new: Path, bot: str, against: str) -> dict[str, Any]:
    before, after = margins(old, bot, against), margins(new, bot, against)
    deals = sorted(before.keys() & after.keys())
    if not deals:
        raise SystemExit("no deal was played in both runs")

    def summary(values: list[float]) -> dict[str, Any]:
        mean, low, high = mean_ci(values)
        return {"mean": mean, "ci": [low, high]}

    return {"bot": bot, "against": against, "deals": len(deals),
            "old": summary([before[d] for d in deals]), "new": summary([after[d] for d in deals]),
            "new_minus_old": summary([after[d] - before[d] for d in deals])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path, help="records of the old code (binokel tournament --save)")
    parser.add_argument("new", type=Path, help="records of the new code, same seed and settings")
    parser.add_argument("--bot", default="hard", help="the level that changed (default hard)")
    parser.add_argument("--against", default="medium", help="its opponent in both runs (default medium)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    report = compare(args.old, args.new, args.bot, args.against)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{report['deals']} deals played by both versions, {args.bot} - {args.against} a deal:")
    for key in ("old", "new", "new_minus_old"):
        low, high = report[key]["ci"]
        print(f"  {key.replace('_', ' '):>13}: {report[key]['mean']:+.1f} [{low:+.1f}, {high:+.1f}]")


if __name__ == "__main__":
    main()
