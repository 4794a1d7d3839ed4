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
  and how often those fail (surrendered ones count as failed);
- utility as soloist and as defender: the mean of the seat's score minus its opponents'
  mean score (``binokel.ai.search.utility``, the bots' own measure) over the deals it won
  the auction and over those it defended: what passing is really worth, which the bidding
  compares playing against (``HardBot.DEFENDER_UTILITY``);
- wrong surrenders: every surrendered contract is played on instead, from the true deal,
  by :data:`JUDGE` bots in every seat (budget :data:`JUDGE_BUDGET`, :data:`JUDGE_RUNS`
  seeds): how many of them playing on would have made (in the majority of the runs), and
  the mean utility the soloist lost by surrendering (positive: surrendering was worse).
  A sure game without trump counts as reaching :data:`NO_TRUMP_REACH` in "bid past reach".

``--surrender-study N`` compares surrender rules instead (see :func:`surrender_study`).

Numbers only; nothing here is a test.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from pathlib import Path
from typing import Any

from binokel.ai import make_bot
from binokel.action import PLAY_ON
from binokel.ai.bots import HardBot, gives_up, no_trump_games, surrender_gains
from binokel.ai.knowledge import Knowledge
from binokel.ai.knowledge import counts_of
from binokel.ai.policy import Plan, best_contract, no_trump_gaps, partner_share, plan_no_trump
from binokel.ai.search import opponents_of, utility
from binokel.action import ActionKind
from binokel.card import Card, Hand, Suit, add_card, remove_card
from binokel.meld import find_melds, meld_total
from binokel.record import replay, replay_deal
from binokel.score import surrender_scores
from binokel.state import Outcome, State
from binokel.view import view

TAPPS = 200
FAR = 150
JUDGE = "hard"
JUDGE_BUDGET = 0.02
JUDGE_RUNS = 3
NO_TRUMP_REACH = 1000


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
        plan = best_contract(cards, rules)
        best = max(best, plan.total + partner_share(rules, plan.card_points))
        if any(no_trump_gaps(kept(cards, plan_no_trump(cards, g, rules)), g, rules) == 0
               for g in no_trump_games(rules)):
            best = max(best, NO_TRUMP_REACH)
    return best


def kept(cards: int, plan: Plan) -> int:
    for kind in plan.discard:
        cards = remove_card(cards, kind)
    return cards


def judge_play_on(data: dict[str, Any], runs: int = JUDGE_RUNS) -> tuple[float, float]:
    """A surrendered deal played on by judge bots: (share of runs made, mean utility
    of playing on minus surrendering, for the soloist)."""
    return judge_state(replay_deal(dict(data, surrender=False, tricks=[])), runs)


def judge_state(start: State, runs: int = JUDGE_RUNS) -> tuple[float, float]:
    """From the first trick of ``start``, played out by judge bots ``runs`` times: (share
    made, the soloist's mean utility of playing on minus that of surrendering)."""
    soloist, bid = start.soloist, start.bid
    assert soloist is not None
    out = start.rules.sitting_out(start.dealer)
    opponents = opponents_of(start.rules, soloist, out)
    melds = [meld_total(find_melds(Hand(mask=h), Suit(int(start.game or 0)), start.rules)) for h in start.hands]
    give_up = utility(surrender_scores(start.rules, soloist, bid, melds, out), soloist, opponents)
    made = gain = 0.0
    for run in range(runs):
        bots = [make_bot(JUDGE, seed=run * 10 + seat) for seat in range(start.players)]
        rng = random.Random(run)
        state = start
        while not state.is_over():
            state = state.apply(bots[state.to_move].choose(view(state, state.to_move), rng, JUDGE_BUDGET))
        made += float(state.outcome is Outcome.MADE)
        assert state.scores is not None
        gain += utility(tuple(state.scores), soloist, opponents) - give_up
    return made / runs, gain / runs


def analyse(paths: list[Path], judge: bool = True, reaches: bool = True) -> dict[str, dict[str, Any]]:
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
        for seat, bid in highest.items() if reaches else ():  # the Tapps drawn: most of the time taken
            hand = [Card.parse(c) for c in data["hands"][seat]]
            stats.setdefault(names[seat], {}).setdefault("past_reach", []).append(float(bid > reach(hand, state, rng)))
        for seat in range(state.players):
            stats.setdefault(names[seat], {}).setdefault("seats", []).append(1.0)
        soloist = state.soloist
        if soloist is None or state.outcome is Outcome.REDEAL:
            continue
        for seat in range(state.players):
            if seat != state.sitting_out:
                role = "soloist_utility" if seat == soloist else "defender_utility"
                stats[names[seat]].setdefault(role, []).append(
                    utility(state.scores, seat, opponents_of(state.rules, seat, state.sitting_out)))
        s = stats[names[soloist]]
        outcome = state.outcome
        s.setdefault("contracts", []).append(1.0)
        s.setdefault("made", []).append(float(outcome in (Outcome.MADE, Outcome.DURCH_MADE, Outcome.BETTEL_MADE)))
        s.setdefault("surrendered", []).append(float(outcome is Outcome.SURRENDERED))
        if outcome is Outcome.SURRENDERED and judge:
            share, gain = judge_play_on(data)
            s.setdefault("surrender_wrong", []).append(float(share > 0.5))
            s.setdefault("surrender_cost", []).append(gain)
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
                        "far_contracts": len(s.get("far_failed", [])), "far_failed": mean("far_failed"),
                        "surrenders": len(s.get("surrender_wrong", [])), "surrender_wrong": mean("surrender_wrong"),
                        "surrender_cost": mean("surrender_cost"), "soloist_utility": mean("soloist_utility"),
                        "defender_utility": mean("defender_utility")}
    return result


RULES_TRIED = {"mean > 0": (0.0, 0.0), "margin 25": (25.0, 0.0), "z 1.64": (0.0, 1.64),
               "margin 25, z 1.64": (25.0, 1.64), "margin 50": (50.0, 0.0), "margin 100": (100.0, 0.0),
               "margin 150": (150.0, 0.0), "margin 200": (200.0, 0.0), "margin 100, z 1.64": (100.0, 1.64),
               "margin 200, z 1.64": (200.0, 1.64)}


def surrender_study(positions: int, seed: int, worlds: int) -> dict[str, Any]:
    """Surrender rules compared on doubtful contracts: seat 0 is made soloist at a bid
    around its hand's estimate (−40 to +120), hard discards and names trump; the
    per-world gains of surrendering (``worlds`` worlds, as the bots compute them) are fed
    to each rule of :data:`RULES_TRIED`; where any rule surrenders the contract is played
    on by the judge bots. Regret: the utility lost against the better of the two actions
    by the judge (the same for every rule where all play on, so not counted)."""
    rng = random.Random(seed)
    bot = HardBot(seed=seed)
    regret: dict[str, list[float]] = {name: [] for name in RULES_TRIED}
    surrenders = dict.fromkeys(RULES_TRIED, 0)
    wrong = dict.fromkeys(RULES_TRIED, 0)
    judged = found = 0
    while found < positions:
        state = State.new("standard", dealer=2).deal_random(rng)
        plan = best_contract(state.hands[0], state.rules)
        bid = max(150, (plan.total + rng.randint(-40, 120) - 150) // 20 * 20 + 150)
        for call in range(150, bid + 10, 10):
            state = state.apply_text(str(call))
        state = state.apply_text("pass").apply_text("pass")
        while state.phase.value in ("tapp", "discard", "game"):
            state = state.apply(bot.choose(view(state, 0), rng, 0.05))
        if state.phase.value != "surrender":
            continue
        found += 1
        seen = view(state, 0)
        knowledge = Knowledge.from_view(seen)
        gains = surrender_gains(seen, knowledge, bot.worlds(knowledge, rng, worlds, float("inf")))
        choices = {name: gives_up(gains, margin, z) for name, (margin, z) in RULES_TRIED.items()}
        for name, give in choices.items():
            surrenders[name] += give
        if not any(choices.values()):
            continue  # every rule plays on: the same result for all of them
        judged += 1
        made, gain = judge_state(state.apply(PLAY_ON))
        for name, give in choices.items():
            regret[name].append(max(0.0, gain) if give else max(0.0, -gain))
            wrong[name] += give and made > 0.5
    first = next(iter(RULES_TRIED))
    paired = {}
    for name in RULES_TRIED:
        diffs = [a - b for a, b in zip(regret[first], regret[name])]
        mean = statistics.fmean(diffs) if diffs else 0.0
        half = 1.96 * statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else 0.0
        # Per position (every position: those where all play on count 0).
        scale = len(diffs) / positions
        paired[name] = [round(mean * scale, 2), round((mean - half) * scale, 2), round((mean + half) * scale, 2)]
    return {"positions": positions, "judged": judged, "worlds": worlds,
            "rules": {name: {"surrenders": surrenders[name], "surrendered_but_made": wrong[name],
                             "regret_per_position": round(sum(regret[name]) / positions, 2),
                             f"regret saved against {first}, 95% CI": paired[name]} for name in RULES_TRIED}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="*", type=Path)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-judge", action="store_true", help="do not play surrendered deals on")
    parser.add_argument("--no-reach", action="store_true", help="do not estimate bids past reach (faster)")
    parser.add_argument("--surrender-study", type=int, metavar="N", help="compare surrender rules on N contracts")
    parser.add_argument("--worlds", type=int, default=32, help="worlds per surrender in the study (default 32)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.surrender_study:
        print(json.dumps(surrender_study(args.surrender_study, args.seed, args.worlds)))
        return
    paths = sorted(p for d in args.dirs for p in d.glob("deal-*.json"))
    result = analyse(paths, judge=not args.no_judge, reaches=not args.no_reach)
    if args.json:
        print(json.dumps({"deals": len(paths), "bots": result}))
        return
    print(f"{len(paths)} deal records")
    for name, r in result.items():
        print(f"  {name:<18} contracts {r['contracts']:4}  success {r['success_rate']}  surrender {r['surrender_rate']}"
              f"  overbid on failed {r['mean_overbid_failed']} (n={r['failed']})"
              f"  bid past reach {r['bid_past_reach']} (n={r['bidding_seats']})"
              f"  bid >= melds+{FAR}: {r['far_share']} of contracts, failed {r['far_failed']} (n={r['far_contracts']})"
              f"  surrenders that playing on would have made {r['surrender_wrong']} (n={r['surrenders']},"
              f" mean cost of surrendering {r['surrender_cost']})"
              f"  utility as soloist {r['soloist_utility']}, as defender {r['defender_utility']}")


if __name__ == "__main__":
    main()
