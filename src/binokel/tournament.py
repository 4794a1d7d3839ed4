"""Duplicate tournaments between bots: ``binokel tournament --bots hard,medium --deals 100``.

Duplicate format, so that the luck of the cards cancels: every deal (cards and dealer
from the seed) is played once in every *seating* of the bots.

- Seats each for itself (3 seats, 4 in one against three, 4 with the dealer sitting
  out): every way to fill the seats with the bots, each bot present at least once. With
  three seats and three bots that is the 6 permutations; with two bots, A and B, the 6
  ways AAB ABA BAA ABB BAB BBA; with four seats 14 (two bots) or 36 (three). The set is
  closed under permutations of the bots, so each bot sits in every seat equally often.
- Partnerships (Kreuz, Sechser): two bots, one per team, then the teams swapped (2
  seatings); mixing bots within a team would measure nothing clear.

A bot's score for a deal is its mean score over the seats it held and that played (the
seat sitting out is left out); the paired difference of two bots on a deal is the
difference of those means, and the report gives its mean with a 95% confidence interval
over deals.

>>> import argparse
>>> parser = argparse.ArgumentParser()
>>> add_arguments(parser)
>>> args = parser.parse_args(["--bots", "easy,easy", "--deals", "1", "--jobs", "1", "--quiet"])
>>> run(args)  # doctest: +ELLIPSIS
bots: easy#1, easy#2  rules: standard  deals: 1 x 6 seatings ...
0
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from binokel.action import Action
from binokel.ai import BOT_CLASSES, OracleBot, make_bot
from binokel.error import BinokelError
from binokel.record import deal_record, game_record
from binokel.rules import STANDARD, Rules
from binokel.state import Outcome, State
from binokel.table import Deal, Over, Seat, Table, Think
from binokel.view import SeatView

DEFAULT_BUDGET = 0.1
Z95 = 1.959964


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the tournament options to ``parser``."""
    parser.add_argument("--bots", default="hard,medium",
                        help="comma-separated bot specs, 2 or 3 (2 with teams): a level with options, e.g. "
                             "expert:budget=2,hard:budget=0.5 (default hard,medium)")
    parser.add_argument("--deals", type=int, default=100, help="deals (or games with --match) to play (default 100)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the cards and the bots (default 1)")
    parser.add_argument("--rules", default="standard", help="rule set (default standard)")
    parser.add_argument("--jobs", type=int, default=0, help="worker processes (default: all cores)")
    parser.add_argument("--save", metavar="DIR", help="write every deal (or game) as a record into DIR")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--match", action="store_true", help="play whole games to the target; report win rates")
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET,
                        help=f"seconds of thinking per decision for search bots (default {DEFAULT_BUDGET})")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--sprt", type=float, metavar="DELTA", default=None,
                        help="sequential test of the first two bots' paired difference per deal: mean 0 against "
                             "mean DELTA points; stops when clear (alpha = beta = 0.05) or after --deals")
    parser.add_argument("--cluster", metavar="ADDRESS",
                        help="run the seatings on Ray: ray://HOST:PORT, or 'local' to start Ray here with --jobs "
                             "CPUs (needs binokel[cluster]; same results as a local run)")


class OptionError(ValueError):
    pass


@dataclass(frozen=True)
class BotSpec:
    """One bot of a tournament: its level and options (``expert:budget=2``)."""

    level: str
    budget: float | None = None  # seconds per decision; None: the tournament's --budget
    options: tuple[tuple[str, float], ...] = ()  # class constants to override, e.g. (("MADE_SHARE", 0.6),)

    @classmethod
    def parse(cls, text: str) -> BotSpec:
        """Read ``level[:option=value...]``; an option is ``budget`` or a bot's tuning
        constant in lower case (raises OptionError).

        >>> BotSpec.parse("expert:budget=2:made_share=0.6")
        BotSpec(level='expert', budget=2.0, options=(('MADE_SHARE', 0.6),))
        >>> try:
        ...     BotSpec.parse("hard:depth=3")
        ... except OptionError as error:
        ...     print(error)  # doctest: +ELLIPSIS
        the hard bot has no option 'depth' (known: budget, bid_worlds, clock, ...)
        """
        level, *parts = [part.strip() for part in text.strip().lower().split(":")]
        if level not in BOT_CLASSES:
            raise OptionError(f"unknown bot level {level!r} (known: {', '.join(BOT_CLASSES)})")
        known = sorted(name.lower() for name in dir(BOT_CLASSES[level])
                       if name.isupper() and isinstance(getattr(BOT_CLASSES[level], name), (int, float)))
        budget: float | None = None
        options: list[tuple[str, float]] = []
        for part in parts:
            key, sep, value = part.partition("=")
            if not sep:
                raise OptionError(f"a bot option is name=value, not {part!r} (in {text!r})")
            try:
                number = float(value)
            except ValueError:
                raise OptionError(f"the bot option {key} needs a number, not {value!r}") from None
            if key == "budget":
                if number <= 0:
                    raise OptionError(f"budget must be positive, not {value}")
                budget = number
            elif key in known:
                original = getattr(BOT_CLASSES[level], key.upper())
                options.append((key.upper(), type(original)(number)))
            else:
                raise OptionError(f"the {level} bot has no option {key!r} (known: {', '.join(['budget', *known])})")
        return cls(level, budget, tuple(options))

    def make(self, seed: int) -> Any:
        """A new bot of this spec."""
        bot = make_bot(self.level, seed)
        for key, value in self.options:
            setattr(bot, key, value)
        return bot


@dataclass(frozen=True)
class Settings:
    bots: tuple[str, ...]
    count: int
    seed: int
    rules: Rules
    jobs: int
    save: Path | None
    budget: float
    match: bool
    specs: tuple[BotSpec, ...] = ()
    sprt: float | None = None


def settings_of(args: argparse.Namespace) -> Settings:
    """Check the options; raises OptionError with a one-line message."""
    bots = tuple(b.strip().lower() for b in str(args.bots).split(",") if b.strip())
    if not 2 <= len(bots) <= 3:
        raise OptionError(f"--bots needs 2 or 3 levels, not {args.bots!r}")
    specs = tuple(BotSpec.parse(bot) for bot in bots)
    sprt = getattr(args, "sprt", None)
    if sprt is not None and sprt == 0:
        raise OptionError("--sprt needs a difference other than 0")
    if args.deals < 1:
        raise OptionError(f"--deals must be at least 1, not {args.deals}")
    if args.budget <= 0:
        raise OptionError(f"--budget must be positive, not {args.budget}")
    if args.jobs < 0:
        raise OptionError(f"--jobs must be 0 (all cores) or more, not {args.jobs}")
    try:
        rules = Rules.parse(args.rules)
    except BinokelError as error:
        raise OptionError(str(error)) from None
    if rules.has_teams and len(bots) != 2:
        raise OptionError(f"{rules.text} is played by two teams: --bots needs 2 levels, one per team")
    save = Path(args.save) if args.save else None
    if save is not None and save.exists() and not save.is_dir():
        raise OptionError(f"--save {args.save!r} is not a directory")
    jobs = args.jobs or os.cpu_count() or 1
    return Settings(bots, args.deals, args.seed, rules, jobs, save, args.budget, args.match, specs, sprt)


def seatings(bot_count: int, rules: Rules = STANDARD) -> list[tuple[int, ...]]:
    """Every seating: which bot (index) sits in each seat (see the module's description).

    >>> seatings(2)
    [(0, 0, 1), (0, 1, 0), (0, 1, 1), (1, 0, 0), (1, 0, 1), (1, 1, 0)]
    >>> len(seatings(3)), len(seatings(2, Rules.parse("four-sitout")))
    (6, 14)
    >>> seatings(2, Rules.parse("kreuz"))
    [(0, 1, 0, 1), (1, 0, 1, 0)]
    """
    if rules.has_teams:
        return [tuple((rules.team_of(seat) + swap) % 2 for seat in range(rules.players)) for swap in (0, 1)]
    return [s for s in itertools.product(range(bot_count), repeat=rules.players) if len(set(s)) == bot_count]


# ---------------------------------------------------------------------- playing

@dataclass
class SeatStats:
    """One bot's results in one seat of one played deal (or game)."""

    score: float
    played: bool = True  # False for the seat sitting out the deal
    soloist: bool = False
    made: bool = False
    surrendered: bool = False
    bid: int = 0
    won_game: bool = False
    overbid: int | None = None  # a failed trump contract: the bid minus what the soloist reached


@dataclass
class Played:
    """The result of one task: a deal (or game) in one seating."""

    index: int
    seating: tuple[int, ...]
    seats: list[SeatStats]
    latency: dict[str, dict[str, list[float]]] = field(default_factory=dict)  # bot -> kind -> seconds
    record: dict[str, Any] | None = None
    cut: dict[str, dict[str, int]] = field(default_factory=dict)  # bot -> kind -> decisions the clock cap cut short


class Bots:
    """The bots of one seating: asked by the table driver for their seats' moves (the oracle gets the state)."""

    def __init__(self, settings: Settings, seating: Sequence[int], seed: int) -> None:
        self.names = [settings.bots[b] for b in seating]
        specs = settings.specs or tuple(BotSpec.parse(name) for name in settings.bots)
        self.bots = [specs[b].make(seed * 7 + seat) for seat, b in enumerate(seating)]
        self.rngs = [random.Random(seed * 31 + seat) for seat in range(len(seating))]
        self.budgets = [specs[b].budget or settings.budget for b in seating]
        self.latency: dict[str, dict[str, list[float]]] = {}
        self.cut: dict[str, dict[str, int]] = {}

    def table(self, settings: Settings, first_dealer: int) -> Table:
        """A table with these bots in their seats."""
        return Table(settings.rules, [Seat(name) for name in self.names], seed=settings.seed,
                     first_dealer=first_dealer)

    def chooser(self, table: Table) -> Callable[[int, SeatView], Action]:
        """What :meth:`Table.play_bots` asks: each bot's choice from its view (the oracle's from the deal)."""
        def choose(seat: int, seen: SeatView) -> Action:
            bot = self.bots[seat]
            start = time.perf_counter()
            if isinstance(bot, OracleBot):
                action = bot.choose_with_state(table.game.current, self.rngs[seat], self.budgets[seat])
            else:
                action = bot.choose(seen, self.rngs[seat], self.budgets[seat])
            elapsed = time.perf_counter() - start
            self.latency.setdefault(self.names[seat], {}).setdefault(seen.phase.value, []).append(elapsed)
            cut = self.cut.setdefault(self.names[seat], {})
            cut[seen.phase.value] = cut.get(seen.phase.value, 0) + bool(getattr(bot, "clock_cut", False))
            return action
        return choose


def seed_of(seed: int, index: int) -> int:
    """The seed of deal (or game) number ``index`` in a run seeded ``seed`` (self-play's too).

    >>> seed_of(1, 2)
    100005
    """
    return seed * 100003 + index


def cards_of(seed: int, index: int) -> random.Random:
    """The generator that deals deal number ``index`` in a run seeded ``seed``: the same cards
    in every seating, and in self-play with the same seed."""
    return random.Random(f"{seed}:{index}")


def play_deal(settings: Settings, index: int, seating: tuple[int, ...]) -> Played:
    """Deal number ``index`` (cards and dealer the same in every seating), played by the bots."""
    bots = Bots(settings, seating, seed_of(settings.seed, index))
    table = bots.table(settings, first_dealer=index % settings.rules.players)
    table.deal(cards_of(settings.seed, index))
    table.play_bots(bots.chooser(table))
    state = table.game.deals[0]
    seats = [_seat_stats(state, seat) for seat in range(state.players)]
    record = deal_record(state) if settings.save else None
    if record is not None:
        record["players"] = bots.names
    return Played(index, seating, seats, bots.latency, record, bots.cut)


def _seat_stats(state: State, seat: int) -> SeatStats:
    is_soloist = seat == state.soloist
    assert state.scores is not None and (state.bid is not None or not is_soloist)  # the deal is over
    return SeatStats(
        score=state.scores[seat], played=seat != state.sitting_out, soloist=is_soloist,
        made=is_soloist and state.outcome in (Outcome.MADE, Outcome.DURCH_MADE, Outcome.BETTEL_MADE),
        surrendered=is_soloist and state.outcome is Outcome.SURRENDERED,
        bid=state.bid if is_soloist and state.bid is not None else 0,
        overbid=state.bid - state.card_points[seat] - state.meld_points[seat]
        if is_soloist and state.bid is not None and state.outcome is Outcome.FAILED else None)


def play_game(settings: Settings, index: int, seating: tuple[int, ...]) -> Played:
    """Game number ``index``, played by the bots to its end."""
    bots = Bots(settings, seating, seed_of(settings.seed, index))
    table = bots.table(settings, first_dealer=index % settings.rules.players)
    rng = random.Random(f"{settings.seed}:game:{index}")
    choose = bots.chooser(table)
    while not isinstance(step := table.next_step(), Over):
        if isinstance(step, Deal):
            table.deal(rng)
        else:
            assert isinstance(step, Think), f"a tournament has no people: {step}"
            table.act(step.seat, choose(step.seat, table.view(step.seat)))
    game, rules = table.game, settings.rules
    stats = [SeatStats(float(game.totals[seat]), won_game=game.winner == rules.team_of(seat))
             for seat in range(game.players)]
    record = game_record(game, bots.names) if settings.save else None
    return Played(index, seating, stats, bots.latency, record, bots.cut)


def _task(job: tuple[Settings, int, tuple[int, ...]]) -> Played:
    settings, index, seating = job
    return (play_game if settings.match else play_deal)(settings, index, seating)


def play_all(settings: Settings, progress: bool = True, mapper: Any = None,
             indices: Sequence[int] | None = None) -> list[Played]:
    """Every deal (or game) in every seating, on ``settings.jobs`` processes, or with
    ``mapper(function, jobs)`` (e.g. :func:`binokel.research.cluster.ray_mapper`) when given; with
    ``settings.sprt``, in batches until the sequential test decides."""
    if settings.sprt is not None and indices is None:
        return play_sequential(settings, progress, mapper)
    jobs = [(settings, index, seating) for index in (range(settings.count) if indices is None else indices)
            for seating in seatings(len(settings.bots), settings.rules)]
    results: list[Played] = []
    bar = Progress(len(jobs)) if progress else None
    pool = None
    if mapper is not None:
        stream: Iterable[Played] = mapper(_task, jobs)
    elif settings.jobs == 1:
        stream = map(_task, jobs)
    else:
        pool = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn").Pool(settings.jobs)
        stream = pool.imap_unordered(_task, jobs, chunksize=1)
    try:
        for played in stream:
            results.append(played)
            if settings.save is not None:
                _save(settings, played)
            if bar:
                bar.step()
    finally:
        if pool is not None:
            pool.terminate()
        if bar:
            bar.done()
    results.sort(key=lambda p: (p.index, p.seating))
    return results


SPRT_ALPHA = SPRT_BETA = 0.05


def sprt_decision(diffs: Sequence[float], delta: float, alpha: float = SPRT_ALPHA,
                  beta: float = SPRT_BETA) -> tuple[str | None, float]:
    """Wald's sequential test of paired differences: H0 mean 0 against H1 mean ``delta``,
    normal with the variance estimated from the data. Returns (``"H1"``, ``"H0"`` or
    None to go on, the log-likelihood ratio).

    >>> sprt_decision([20.0, 35.0, 5.0, 30.0, 25.0, 15.0] * 5, 20.0)[0]
    'H1'
    >>> sprt_decision([50.0, -60.0, 40.0], 20.0)[0] is None
    True
    """
    if len(diffs) < 2:
        return None, 0.0
    variance = statistics.variance(diffs) or 1e-9
    llr = delta * (sum(diffs) - len(diffs) * delta / 2) / variance
    if llr >= math.log((1 - beta) / alpha):
        return "H1", llr
    if llr <= math.log(beta / (1 - alpha)):
        return "H0", llr
    return None, llr


def paired_diffs(settings: Settings, results: list[Played], a: int = 0, b: int = 1) -> list[float]:
    """Per deal, bot ``a``'s mean score minus bot ``b``'s (as the report pairs them)."""
    per_deal: dict[int, list[list[float]]] = {}
    for played in results:
        scores = per_deal.setdefault(played.index, [[] for _ in settings.bots])
        for seat, bot in enumerate(played.seating):
            if played.seats[seat].played:
                scores[bot].append(played.seats[seat].won_game if settings.match else played.seats[seat].score)
    return [statistics.fmean(s[a]) - statistics.fmean(s[b]) for _, s in sorted(per_deal.items()) if s[a] and s[b]]


def play_sequential(settings: Settings, progress: bool = True, mapper: Any = None) -> list[Played]:
    """Deals in batches (of ``2 x jobs``, at least 8) until the SPRT decides or --deals are played."""
    assert settings.sprt is not None
    results: list[Played] = []
    batch = max(8, 2 * settings.jobs)
    start = 0
    while start < settings.count:
        results += play_all(settings, progress, mapper, range(start, min(settings.count, start + batch)))
        start += batch
        if sprt_decision(paired_diffs(settings, results), settings.sprt)[0] is not None:
            break
    return results


def _save(settings: Settings, played: Played) -> None:
    assert settings.save is not None  # called only when saving
    settings.save.mkdir(parents=True, exist_ok=True)
    kind = "game" if settings.match else "deal"
    name = f"{kind}-{played.index:05d}-{''.join(map(str, played.seating))}.json"
    (settings.save / name).write_text(json.dumps(played.record) + "\n")


class Progress:
    """A one-line progress bar on standard error."""

    def __init__(self, total: int) -> None:
        self.total, self.count, self.start, self.shown = total, 0, time.perf_counter(), 0.0

    def step(self) -> None:
        self.count += 1
        now = time.perf_counter()
        if now - self.shown < 0.5 and self.count < self.total:
            return
        self.shown = now
        width = 30
        filled = width * self.count // self.total
        elapsed = time.perf_counter() - self.start
        eta = elapsed / self.count * (self.total - self.count)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.count}/{self.total} "
                         f"{elapsed:5.0f}s eta {eta:5.0f}s")
        sys.stderr.flush()

    def done(self) -> None:
        sys.stderr.write("\n")
        sys.stderr.flush()


# ---------------------------------------------------------------------- statistics

def mean_ci(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and 95% confidence interval (normal approximation).

    >>> mean_ci([1.0, 2.0, 3.0])
    (2.0, 0.868..., 3.131...)
    """
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, mean, mean
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def wilson(successes: int, trials: int) -> tuple[float, float]:
    """Wilson 95% interval of a proportion.

    >>> [round(x, 3) for x in wilson(50, 100)]
    [0.404, 0.596]
    """
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = Z95 * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return centre - half, centre + half


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def report(settings: Settings, results: list[Played]) -> dict[str, Any]:
    """Per bot: mean score per deal, role rates, latency; per pair: the paired difference."""
    names = settings.bots
    labels = _labels(names)
    per_deal: dict[int, list[list[float]]] = {}
    seats: dict[int, list[SeatStats]] = {b: [] for b in range(len(names))}
    latency: dict[str, dict[str, list[float]]] = {}
    cut: dict[str, dict[str, int]] = {}
    for played in results:
        scores = per_deal.setdefault(played.index, [[] for _ in names])
        for seat, bot in enumerate(played.seating):
            stats = played.seats[seat]
            if not stats.played:
                continue  # sat out this deal: its 0 says nothing about the bot
            scores[bot].append(stats.won_game if settings.match else stats.score)
            seats[bot].append(stats)
        for name, kinds in played.latency.items():
            for kind, times in kinds.items():
                latency.setdefault(name, {}).setdefault(kind, []).extend(times)
        for name, counts in played.cut.items():
            for kind, count in counts.items():
                cut.setdefault(name, {})[kind] = cut.get(name, {}).get(kind, 0) + count
    means = {i: {d: statistics.fmean(v[i]) for d, v in per_deal.items()} for i in range(len(names))}
    bots = []
    for i, label in enumerate(labels):
        bot_stats = seats[i]
        solo = [s for s in bot_stats if s.soloist]
        entry: dict[str, Any] = {"bot": label}
        if settings.match:
            wins = sum(s.won_game for s in bot_stats)
            low, high = wilson(wins, len(bot_stats))
            entry.update(games=len(bot_stats), wins=wins, win_rate=wins / len(bot_stats), win_ci=[low, high])
        else:
            entry.update(
                mean_score=statistics.fmean(means[i].values()),
                soloist_rate=len(solo) / len(bot_stats),
                made_rate=sum(s.made for s in solo) / len(solo) if solo else None,
                surrender_rate=sum(s.surrendered for s in solo) / len(solo) if solo else None,
                mean_bid=statistics.fmean(s.bid for s in solo) if solo else None,
                mean_overbid_failed=statistics.fmean(over) if (over := [s.overbid for s in solo
                                                                       if s.overbid is not None]) else None)
        entry["latency"] = {kind: {"p50": percentile(t, 0.5), "p95": percentile(t, 0.95), "n": len(t),
                                   "clock_cut": cut.get(names[i], {}).get(kind, 0)}
                            for kind, t in sorted(latency.get(names[i], {}).items())} if _unique(names, i) else None
        bots.append(entry)
    pairs = []
    for i, j in itertools.combinations(range(len(names)), 2):
        diffs = [means[i][d] - means[j][d] for d in sorted(per_deal)]
        mean, low, high = mean_ci(diffs)
        pairs.append({"a": labels[i], "b": labels[j], "mean_diff": mean, "ci": [low, high], "n": len(diffs)})
    sprt = None
    if settings.sprt is not None:
        decision, llr = sprt_decision(paired_diffs(settings, results), settings.sprt)
        sprt = {"delta": settings.sprt, "alpha": SPRT_ALPHA, "beta": SPRT_BETA, "llr": llr,
                "decision": {"H1": f"{labels[0]} is better by {settings.sprt} or more",
                             "H0": f"{labels[0]} is not better (mean difference 0 or less)"}.get(decision or "",
                                                                                          "undecided")}
    return {"rules": settings.rules.text, "bots": list(labels), "deals": len(per_deal), "seed": settings.seed,
            "sprt": sprt,
            "budget": settings.budget, "match": settings.match,
            "seatings": len(seatings(len(names), settings.rules)),
            "results": bots, "pairs": pairs}


def _labels(names: Sequence[str]) -> list[str]:
    return [f"{n}#{i + 1}" if names.count(n) > 1 else n for i, n in enumerate(names)]


def _unique(names: Sequence[str], i: int) -> bool:
    return names.index(names[i]) == i


def format_report(data: dict[str, Any]) -> str:
    lines = [f"bots: {', '.join(data['bots'])}  rules: {data['rules']}  "
             f"{'games' if data['match'] else 'deals'}: {data['deals']} x {data['seatings']} seatings  "
             f"seed: {data['seed']}  budget: {data['budget']}s"]
    for entry in data["results"]:
        if data["match"]:
            low, high = entry["win_ci"]
            lines.append(f"  {entry['bot']:<10} wins {entry['wins']}/{entry['games']} = {entry['win_rate']:.3f} "
                         f"[{low:.3f}, {high:.3f}]")
        else:
            def rate(x: float | None) -> str:
                return "-" if x is None else f"{x:.2f}"

            bid = "-" if entry["mean_bid"] is None else f"{entry['mean_bid']:.0f}"
            over = entry.get("mean_overbid_failed")
            lines.append(f"  {entry['bot']:<10} mean {entry['mean_score']:8.1f}  soloist {rate(entry['soloist_rate'])}"
                         f"  made {rate(entry['made_rate'])}  surrendered {rate(entry['surrender_rate'])}  bid {bid}"
                         f"  overbid on failed {'-' if over is None else f'{over:.0f}'}")
        for kind, lat in (entry["latency"] or {}).items():
            lines.append(f"      {kind:<9} p50 {lat['p50'] * 1000:7.1f} ms  p95 {lat['p95'] * 1000:7.1f} ms  "
                         f"n={lat['n']}  cut short by the clock {lat.get('clock_cut', 0)}")
    for pair in data["pairs"]:
        low, high = pair["ci"]
        what = "win rate" if data["match"] else "score per deal"
        lines.append(f"  {pair['a']} - {pair['b']}: {what} {pair['mean_diff']:+.3f} "
                     f"95% CI [{low:+.3f}, {high:+.3f}] over {pair['n']}")
    if data.get("sprt"):
        sprt = data["sprt"]
        lines.append(f"  SPRT (mean 0 against {sprt['delta']:+g}, alpha {sprt['alpha']}, beta {sprt['beta']}): "
                     f"LLR {sprt['llr']:+.2f}, {sprt['decision']}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Run the tournament the options describe; 0 on success, 2 on bad options."""
    try:
        settings = settings_of(args)
    except OptionError as error:
        print(f"binokel tournament: error: {error}", file=sys.stderr)
        return 2
    mapper = None
    if getattr(args, "cluster", None):
        from binokel.research.cluster import ClusterError, ray_mapper
        try:
            mapper = ray_mapper(args.cluster, settings.jobs)
            results = play_all(settings, progress=not getattr(args, "quiet", False), mapper=mapper)
        except ClusterError as error:
            print(f"binokel tournament: error: {error}", file=sys.stderr)
            return 2
    else:
        results = play_all(settings, progress=not getattr(args, "quiet", False))
    data = report(settings, results)
    print(json.dumps(data) if args.json else format_report(data))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="binokel tournament", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
