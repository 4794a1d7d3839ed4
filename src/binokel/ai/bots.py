"""The computer opponents: easy, medium, hard, and the all-seeing oracle.

Every bot answers a :class:`SeatView` with one of its ``legal_actions`` (anything else
raises :class:`BotError`). Randomness comes only from the ``rng`` passed in (or the bot's
own, seeded at creation), and the search effort follows from ``budget`` by a fixed rate.
The hard bot also stops sampling at a wall-clock deadline (a latency cap, see
:meth:`HardBot.deadline`): when that cap cuts a search short, for example on a loaded
machine, the same seed can give a different decision. With a generous cap the effort
alone decides, and the same seed gives the same decisions.

>>> import random
>>> from binokel.state import State
>>> from binokel.view import view
>>> state = State.new("standard", dealer=2).deal_random(random.Random(1))
>>> str(MediumBot().choose(view(state, 0), random.Random(0)))
'150'
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from binokel.action import (BETTEL, DISCARDS, DURCH, GAMES, HAND_DURCH, OPEN_DURCH, PASS, PLAY_ON, PLAYS, SURRENDER,
                            TAKE, Action, ActionKind)
from binokel.card import POINTS, Hand, Suit, add_card, both_copies, count_of, counts_of, remove_card
from binokel.meld import find_melds, meld_total
from binokel.rules import Auction, FirstLead, MustBeat, Rules
from binokel.score import surrender_scores, trump_scores
from binokel.state import Phase, State, game_actions
from binokel.view import SeatView, view as view_of

import binokel.ai.parallel as parallel
from binokel.ai.fast import NO_TRUMP, Position
from binokel.ai.knowledge import Knowledge, winning_position
from binokel.ai.policy import (Plan, best_contract, choose_card, expected_card_points, no_trump_gaps, partner_share,
                               plan_contract, plan_no_trump)
from binokel.ai.sample import SamplingError, World, sample_world, world_position
from binokel.ai.search import contract_worth, opponents_of, playout, position_value, solve, utility

NO_TRUMP_BID = 1000
"""How far a bot bids with a sure game without trump: its value does not depend on the bid."""
NEAR_NO_TRUMP = 2
"""The hard bot simulates a game without trump whose hand lacks at most this many cards (see no_trump_gaps)."""


class BotError(RuntimeError):
    """A bot failed, or answered an action that is not one of its view's legal actions."""


class HeuristicBot:
    """Base of all bots: dispatches on the phase; subclasses override the decisions."""

    name = "heuristic"
    clock_cut = False
    """Did the clock cap (:meth:`HardBot.deadline`) cut the last decision short, with fewer
    worlds than its effort asked? (Counted by the tournament; only this process's worlds.)"""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed  # a server's pool rebuilds the bot from it in a worker process
        self._rng = random.Random(seed)

    def choose(self, view: SeatView, rng: random.Random | None = None, budget: float = 1.0) -> Action:
        """One of ``view.legal_actions`` (raises ValueError if the seat is not to move, and
        BotError if a decision answers anything else)."""
        if not isinstance(view, SeatView):
            raise TypeError(f"a bot receives a SeatView, never {type(view).__name__}")
        legal = view.legal_actions
        if not legal:
            raise ValueError(f"seat {view.seat} is not to move")
        self.clock_cut = False
        if len(legal) == 1:
            return legal[0]
        rng = rng if rng is not None else self._rng
        decide: dict[Phase, Callable[[SeatView, random.Random, float], Action]] = {
            Phase.AUCTION: self.bid, Phase.TAPP: self.take_or_hand_durch, Phase.DISCARD: self.discard,
            Phase.GAME: self.name_game, Phase.SURRENDER: self.surrender, Phase.PLAY: self.play,
        }
        action = decide[view.phase](view, rng, budget)
        if action not in legal:  # a bug in a decision: never hide it behind another move
            raise BotError(f"the {self.name} bot chose {action}, not one of {', '.join(map(str, legal))}")
        return action

    # Decisions; the defaults are the medium bot's rules.

    def bid(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        """The lowest bid allowed while it stays within the hand's value, else pass (in
        the open auction too: the bot raises step by step up to its estimate)."""
        lowest = _lowest_bid(view)
        return lowest if lowest.value <= self.hand_value(view, rng) else PASS

    def hand_value(self, view: SeatView, rng: random.Random) -> float:
        """The highest bid this seat is willing to play."""
        raise NotImplementedError

    def take_or_hand_durch(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        """Open Durch from the hand only when the hand alone is a sure Durch worth at least a Durch after the Tapp."""
        rules = view.rules
        if is_sure(Hand(view.hand).mask, HAND_DURCH, rules) and worth(rules, HAND_DURCH) >= max(
                [worth(rules, g) for g in (DURCH, OPEN_DURCH) if allowed(rules, g)], default=0):
            return GAMES[HAND_DURCH]
        return TAKE

    def discard(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        return DISCARDS[self.plan(view, rng, budget).discard[0]]

    def name_game(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        return GAMES[self.plan(view, rng, budget).game]

    def plan(self, view: SeatView, rng: random.Random, budget: float) -> Plan:
        """What to lay away and which game to name, for the soloist's hand now."""
        rules = view.rules
        return choose_plan(Hand(view.hand).mask, rules, _bid(view), _banked(view))

    def surrender(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        return PLAY_ON

    def play(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        knowledge = Knowledge.from_view(view)
        return PLAYS[heuristic_card(view, knowledge, knowledge.played_all)]


def _lowest_bid(view: SeatView) -> Action:
    return next(a for a in view.legal_actions if a.kind is ActionKind.BID)


def _bid(view: SeatView) -> int:
    """The bid to play (the soloist's decisions come after the auction)."""
    assert view.bid is not None, "the auction is not over"
    return view.bid


def _banked(view: SeatView) -> int:
    """Card points the soloist has laid away so far."""
    return sum(c.points for c in view.discard or ())


def allowed(rules: Rules, game: int) -> bool:
    """May the soloist name ``game`` (after the Tapp) under ``rules``?"""
    return GAMES[game] in game_actions(rules) if game != HAND_DURCH else bool(rules.hand_durch)


def worth(rules: Rules, game: int) -> int:
    """What a game without trump won is worth to the soloist (see contract_worth)."""
    return contract_worth(rules, game, 0, True)[0]


def is_sure(hand: int, game: int, rules: Rules) -> bool:
    return no_trump_gaps(hand, game, rules) == 0


def no_trump_games(rules: Rules) -> tuple[int, ...]:
    """The games without trump the soloist may name after the Tapp."""
    return tuple(g for g in (DURCH, OPEN_DURCH, BETTEL) if allowed(rules, g))


def trump_worth(plan: Plan, rules: Rules, bid: int, banked: int = 0) -> float:
    """The soloist's expected score with a trump plan (its team's, with partners): made
    with a probability that grows with the margin."""
    return expected_score(plan.total + banked + partner_share(rules, plan.card_points + banked), bid)


def expected_score(total: float, bid: int) -> float:
    """A trump game's expected score for an expected total: made (scoring the total) with a
    probability growing with the margin over the bid, else -2 x bid. A bid far above the
    total (the open auction takes any bid, RULES.md section 10) is lost for certain, not
    an overflow of ``math.exp``.

    >>> round(expected_score(300, 200)), expected_score(300, 100_000)
    (287, -200000.0)
    """
    shortfall = (bid - total) / 25
    made = 0.0 if shortfall > 700 else 1 / (1 + math.exp(shortfall))
    return made * total - (1 - made) * 2 * bid


def choose_plan(cards: int, rules: Rules, bid: int, banked: int = 0) -> Plan:
    """The best plan by simple estimates: the best trump plan, unless a game without trump
    is sure with the cards kept and worth more.

    >>> from binokel.rules import Rules
    >>> low = Hand.parse("9S 9S JS JS 9H 9H JH JH 9D 9D JD JD 9C 9C JC").mask
    >>> choose_plan(low, Rules.parse("standard(bettel=300)"), 150).game
    <Contract.BETTEL: 6>
    >>> choose_plan(low, Rules.parse("standard"), 150).game
    <Contract.S: 0>
    """
    best = best_contract(cards, rules)
    value = trump_worth(best, rules, bid, banked)
    for game in no_trump_games(rules):
        plan = plan_no_trump(cards, game, rules)
        if is_sure(_kept(cards, plan), game, rules) and worth(rules, game) > value:
            best, value = plan, worth(rules, game)
    return best


def trumps_kept(cards: int, plan: Plan) -> int:
    """How many trumps the soloist keeps with ``plan`` (0 for a game without trump)."""
    if plan.game >= DURCH:
        return 0
    kept = _kept(cards, plan)
    return sum(count_of(kept, k) for k in range(7 * plan.game, 7 * plan.game + 7))


def undominated(plans: list[Plan], cards: int) -> list[Plan]:
    """The trump plans not dominated by another with at least the same melds and two
    trumps more: a suit of 2 trumps is never named when another gives 4 and the same melds.

    >>> from binokel.rules import Rules
    >>> hand = Hand.parse("AS 9S AH TH KH JH 9H AD TD JD 9D AC TC JC 9C").mask  # melds alike in every suit
    >>> [int(p.game) for p in undominated([plan_contract(hand, t, Rules.parse("standard")) for t in range(4)], hand)]
    [1, 2, 3]
    """
    counts = [trumps_kept(cards, p) for p in plans]
    return [p for i, p in enumerate(plans)
            if not any(q.melds >= p.melds and counts[j] >= counts[i] + 2 for j, q in enumerate(plans) if j != i)]


def heuristic_card(view: SeatView, knowledge: Knowledge, gone: int) -> int:
    """The heuristic card rule applied to a view; ``gone`` is what the bot remembers."""
    legal = 0
    for action in view.legal_actions:
        legal |= 1 << action.value
    trick = [c.index for c in view.trick.cards]
    best = winning_position(trick, knowledge.trump)
    rules = knowledge.rules
    open_hand = Hand(view.open_hand).mask if view.open_hand is not None else None
    game, soloist = knowledge.game, knowledge.soloist
    assert game is not None and soloist is not None  # cards are played once the game is named
    return choose_card(knowledge.hand, legal, trick, best, knowledge.orders[view.trick.leader], view.seat,
                       game, soloist, rules, gone, open_hand)


class EasyBot(HeuristicBot):
    """Bids cautiously on its melds, plays simple rules with a little randomness, never surrenders."""

    name = "easy"
    MISTAKES = 0.15
    quick = True  # no search: a decision takes about 0.2 ms (a few ms at most), less than a hop to a worker

    def hand_value(self, view: SeatView, rng: random.Random) -> float:
        rules = view.rules
        hand = Hand(view.hand)
        melds = max(meld_total(find_melds(hand, Suit(s), rules)) for s in Suit)
        return melds + 80

    def play(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        if rng.random() < self.MISTAKES:
            return rng.choice(view.legal_actions)
        knowledge = Knowledge.from_view(view)
        return PLAYS[heuristic_card(view, knowledge, 0)]


class MediumBot(HeuristicBot):
    """Tracks cards, values its hand over possible Tapps (sure games without trump
    included), surrenders when that loses less."""

    name = "medium"
    TAPP_SAMPLES = 12
    MARGIN = 10

    def hand_value(self, view: SeatView, rng: random.Random) -> float:
        rules = view.rules
        hand = Hand(view.hand).mask
        deck = counts_of(both_copies(rules.kind_mask))
        unseen = [k for k, n in enumerate(deck) for _ in range(n - count_of(hand, k))]
        games = {BETTEL if g == BETTEL else DURCH for g in no_trump_games(rules)}  # every Durch has the same gaps
        totals = []
        for _ in range(self.TAPP_SAMPLES):
            cards = hand
            for kind in rng.sample(unseen, rules.tapp_size):
                cards = add_card(cards, kind)
            best = best_contract(cards, rules)
            total = best.total + partner_share(rules, best.card_points)
            if any(is_sure(_kept(cards, plan_no_trump(cards, g, rules)), g, rules) for g in games):
                total = max(total, NO_TRUMP_BID)
            totals.append(total)
        totals.sort()
        return totals[len(totals) // 3] - self.MARGIN  # a cautious estimate: the lower third

    def surrender(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        rules = view.rules
        hand = Hand(view.hand).mask
        trump, bid = view.trump, _bid(view)
        assert trump is not None  # the surrender decision follows naming trump
        card_points = expected_card_points(hand, trump, rules) + _banked(view)
        melds = meld_total(find_melds(Hand(mask=hand), trump, rules))
        expected = melds + card_points + partner_share(rules, card_points)
        return SURRENDER if -bid > expected_score(expected, bid) + 60 else PLAY_ON


def _kept(cards: int, plan: Plan) -> int:
    for kind in plan.discard:
        cards = remove_card(cards, kind)
    return cards


@dataclass(frozen=True)
class Tally:
    """What the sampled worlds of one decision add up to: per candidate the sum of its
    values (``totals``), the number of ``worlds``, and per world the ``values`` whose
    spread matters (the surrender's gains). Tallies of different worlds add up, so one
    decision's worlds may be evaluated in several processes (:mod:`binokel.ai.parallel`).

    >>> Tally((1.0, 2.0), 1, (0.5,)) + Tally((3.0, -1.0), 2, (4.0, 5.0))
    Tally(totals=(4.0, 1.0), worlds=3, values=(0.5, 4.0, 5.0))
    """

    totals: tuple[float, ...] = ()
    worlds: int = 0
    values: tuple[float, ...] = ()

    def __add__(self, other: Tally) -> Tally:
        return Tally(tuple(a + b for a, b in zip(self.totals, other.totals, strict=True)), self.worlds + other.worlds,
                     self.values + other.values)


def best_card(view: SeatView, tally: Tally) -> Action:
    """The card whose total over the worlds is highest (``tally.totals`` in the order of
    ``view.legal_actions``); of equal totals, the one of fewer points."""
    legal = view.legal_actions
    return legal[max(range(len(legal)), key=lambda i: (tally.totals[i], -POINTS[legal[i].value]))]


@parallel.rebuildable
class HardBot(MediumBot):
    """Perfect-information Monte Carlo: samples worlds consistent with its knowledge and
    plays each candidate out in them; exact search for the last tricks. With teams every
    evaluation is the team's margin."""

    name = "hard"
    PLAYOUTS_PER_SECOND = 1500
    """Fixed effort rate: the budget sets the number of playouts (reproducible unless the deadline cuts in)."""
    ENDGAME_CARDS = 12
    RISKY_WORLDS = 24
    """At least this many worlds weigh a game without trump that is not sure."""
    PESSIMISM = 2
    """Imagined failures added to the simulated results of such a game."""
    JOBS = 1
    """Processes that evaluate the worlds of one decision (:mod:`binokel.ai.parallel`), each
    as many as one process alone, by the same deadline; 1 in a daemonic process."""
    last_worlds = 0
    """How many worlds the last search evaluated (in all its processes)."""

    def effort(self, budget: float, minimum: int = 8) -> int:
        return max(minimum, int(budget * self.PLAYOUTS_PER_SECOND))

    CLOCK = 1
    """1: a decision stops sampling at a latency cap (:meth:`deadline`); 0: no cap, the effort
    alone decides, so that a measurement does not depend on the machine's load
    (``hard:clock=0`` in a tournament)."""

    def deadline(self, budget: float) -> float:
        """A latency cap (clock time); the effort itself follows the budget, not the clock."""
        if not self.CLOCK:
            return math.inf
        return time.perf_counter() + max(0.9 * budget, 0.25)

    def evaluate(self, tally: parallel.Tallier[parallel.P, parallel.T], view: SeatView, rng: random.Random,
                 count: int, budget: float, *args: parallel.P.args, **kwargs: parallel.P.kwargs) -> parallel.T:
        """``tally`` (one of this bot's ``*_tally`` methods, or :meth:`simulate`) of ``count``
        worlds within ``budget``, in :attr:`JOBS` processes (:func:`binokel.ai.parallel.evaluate`);
        ``args`` and ``kwargs`` (plain data) go to ``tally`` after its deadline."""
        result = parallel.evaluate(self, tally, view, rng, count, self.deadline(budget), *args, **kwargs)
        self.last_worlds = result.worlds
        return result

    def share(self, method: str, view: SeatView, rng: random.Random, count: int, deadline: float, *args: Any,
              **kwargs: Any) -> Any:
        """One share of a decision's worlds: the tally by the method named ``method``
        (how a worker process, which gets the method's name, calls it)."""
        tally: Callable[..., Any] = getattr(self, method)
        return tally(view, rng, count, deadline, *args, **kwargs)

    def sample(self, knowledge: Knowledge, rng: random.Random) -> World:
        """A world consistent with what the seat knows (raises SamplingError)."""
        return sample_world(knowledge, rng)

    def worlds(self, knowledge: Knowledge, rng: random.Random, count: int, deadline: float,
               *, skip_failures: bool = False) -> Iterator[World]:
        """Up to ``count`` sampled worlds while time is left; a world that cannot be
        sampled ends the stream (or is skipped, with ``skip_failures``)."""
        for _ in range(count):
            if time.perf_counter() > deadline:
                self.clock_cut = True
                return
            try:
                yield self.sample(knowledge, rng)
            except SamplingError:
                if not skip_failures:
                    return

    # ---------------------------------------------------------------- bidding

    BID_WORLDS = 12
    """At least this many sampled Tapps (worlds) weigh each bid."""
    DEFENDER_UTILITY = -80.0
    """What passing is taken to be worth where one soloist plays against the rest: about the
    defenders' mean utility (docs/ai.md). A bid is made only while playing it is worth more.
    -80 beat -30 by +4.5 [+0.4, +8.5] points a deal (300 paired deals at budget 0.02) and made
    hard stronger at the browser's budget (docs/ai.md)."""
    TEAM_DEFENDER_UTILITY = -30.0
    """... and with teams, where defending teams do far better (kreuz: about +20 against hard's
    contracts) and -80 made expert overbid: 70% of its contracts made, -48 a deal against hard."""

    def bid(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        """The lowest bid while the simulation says it pays (:meth:`accepts`), else pass."""
        lowest = _lowest_bid(view)
        worlds = max(self.BID_WORLDS, self.bid_effort(budget), self.FACING_WORLDS if facing_bid(view) else 0)
        simulation = self.evaluate(self.simulate, view, rng, worlds, budget)
        if not simulation.results:
            return super().bid(view, rng, budget)
        return lowest if self.accepts(simulation, lowest.value) else PASS

    def bid_effort(self, budget: float) -> int:
        """Sampled Tapps per bid at ``budget``."""
        return self.effort(budget) // 4

    def simulate(self, view: SeatView, rng: random.Random, worlds: int, deadline: float) -> SoloistSimulation:
        """The bidding's simulation of ``worlds`` sampled Tapps (and hidden hands), by ``deadline``
        (server/review.py's bidding help shows it; :meth:`accepts` weighs a bid on it)."""
        knowledge = Knowledge.from_view(view)
        facing, raiser = facing_raise(view)
        if facing and self.RAISE_TRIES:
            sampled = raise_worthy(self.worlds(knowledge, rng, worlds * self.RAISE_TRIES, deadline, skip_failures=True),
                                   raiser, facing - self.RAISE_MARGIN, worlds, knowledge.rules)
        else:
            sampled = self.worlds(knowledge, rng, worlds, deadline, skip_failures=True)
        return simulate_soloist(view, knowledge, sampled, defend=bool(self.PASS_SIMULATION))

    RAISE_TRIES = 0
    """Against a raiser, up to this many worlds are sampled per world simulated, and those in
    which the raiser's hand is worth its raise are kept (:func:`raise_worthy`): what a raise
    reveals. 0: the worlds as sampled. Off: with 3 hard's bids far above its melds failed less
    (1 of 27 against 5 of 43), but it gained on expert (expert − hard −14.3 [−28.5, −0.2] a deal
    over 59 classic40 deals), whose worlds are weighted by every call already (docs/ai.md)."""
    RAISE_MARGIN = 30
    """A raiser's dealt hand is taken to be worth at least its raise less this (its best plan's
    estimate plus :data:`TAPP_HOPE`, as expert's bidding model)."""

    PASS_SIMULATION = 1
    """1: against a raiser, passing is worth at least what this seat makes, on average over the
    same sampled deals, defending against the raiser playing its raise (its best plan for the
    Tapp, played out): a raise that the deals say fails makes passing worth more than
    :attr:`DEFENDER_UTILITY`; 0: the constant alone."""

    def passing_worth(self, simulation: SoloistSimulation) -> float:
        """What passing is worth in the auction: :attr:`DEFENDER_UTILITY` (with teams
        :attr:`TEAM_DEFENDER_UTILITY`), or against a raiser the simulated defence against its
        raise when that is worth more (:attr:`PASS_SIMULATION`)."""
        constant = self.TEAM_DEFENDER_UTILITY if simulation.knowledge.rules.has_teams else self.DEFENDER_UTILITY
        if self.PASS_SIMULATION and simulation.defence:
            return max(constant, sum(simulation.defence) / len(simulation.defence))
        return constant

    FACING_WORLDS = 48
    """At least this many sampled Tapps weigh a bid against a raiser: :attr:`FACING_SHARE` is a
    rate, and with 24 worlds a true share of 0.75 reads 0.8 or more one time in four, so a long war
    went on past the hand's worth by the luck of one decision (docs/ai.md, the auction study)."""
    FACING_SHARE = 0.85
    """Against an opponent who raised of its own will, a bid is made only while the simulated
    soloist reaches it in at least this share of the deals: a raise says the raiser's hand is
    strong, which the sampled hands do not (or, for expert, only roughly) reflect, and a
    raiser left to play a high bid fails often, so passing is worth more in a bidding war than
    :attr:`DEFENDER_UTILITY` says (docs/ai.md, the auction study)."""

    def accepts(self, simulation: SoloistSimulation, bid: int) -> bool:
        """Is ``bid`` worth playing: never past what the hand reaches with the best sampled
        Tapp, worth more than defending on average, and against a raiser reached in
        :attr:`FACING_SHARE` of the deals."""
        return (bid <= simulation.reach and simulation.value(bid) > self.passing_worth(simulation)
                and (not simulation.facing or simulation.made_share(bid) >= self.FACING_SHARE))

    # ---------------------------------------------------------------- discard, game, surrender

    def plan(self, view: SeatView, rng: random.Random, budget: float) -> Plan:
        """The plan chosen by simulation among the best trump plans and the games without
        trump that are sure or nearly so."""
        candidates, risky = self.plan_candidates(view)
        if len(candidates) == 1:
            return candidates[0]
        worlds = max(self.RISKY_WORLDS if risky else 6, self.effort(budget) // (2 * len(candidates)))
        tally = self.evaluate(self.plan_tally, view, rng, worlds, budget)
        n, count = len(candidates), tally.worlds
        totals, given_up = tally.totals[:n], tally.totals[n:]
        # A few imagined failures temper a risky game's luck in few samples (its value is far from the rest).
        means = [(totals[i] + self.PESSIMISM * risky[i]) / (count + self.PESSIMISM) if i in risky
                 else max(totals[i], given_up[i]) / max(count, 1) if candidates[i].game < DURCH
                 else totals[i] / max(count, 1) for i in range(len(candidates))]
        return candidates[max(range(len(candidates)), key=lambda i: means[i])]

    def plan_candidates(self, view: SeatView) -> tuple[list[Plan], dict[int, float]]:
        """The plans to simulate (the best two trump plans, unless the second is far behind,
        and the games without trump near enough), and the risky ones among them (see
        :func:`add_no_trump_candidates`)."""
        rules = view.rules
        hand = Hand(view.hand).mask
        trumps = sorted(undominated([plan_contract(hand, trump, rules) for trump in range(4)], hand),
                        key=lambda c: -c.total)[:2]
        if len(trumps) > 1 and trumps[0].total - trumps[1].total > 60:
            trumps = trumps[:1]
        candidates: list[Plan] = list(trumps)
        risky = add_no_trump_candidates(view, hand, candidates)
        return candidates, risky

    def plan_tally(self, view: SeatView, rng: random.Random, count: int, deadline: float) -> Tally:
        """Each candidate plan played out in ``count`` worlds: the totals of playing on, then
        those of surrendering (a trump game may still be given up), candidate by candidate."""
        rules = view.rules
        hand = Hand(view.hand).mask
        candidates, _ = self.plan_candidates(view)
        out = rules.sitting_out(view.dealer)
        opponents = opponents_of(rules, view.seat, out)
        knowledge = Knowledge.from_view(view)
        banked = tuple(c.index for c in view.discard or ())
        totals = [0.0] * len(candidates)
        given_up = [0.0] * len(candidates)
        worlds = 0
        for world in self.worlds(knowledge, rng, count, deadline):
            for i, plan in enumerate(candidates):
                hands = list(world.hands)
                hands[view.seat] = _kept(hand, plan)
                position = new_position(rules, view.dealer, hands, view.seat, _bid(view), plan.game,
                                        banked + plan.discard)
                if plan.game < DURCH:
                    given_up[i] += utility(surrender_scores(rules, view.seat, _bid(view), position.melds, out),
                                           view.seat, opponents)
                totals[i] += position_value(playout(position), view.seat)
            worlds += 1
        return Tally(tuple(totals + given_up), worlds)

    SURRENDER_WORLDS = 8
    """At least this many worlds weigh the surrender."""
    SURRENDER_MARGIN = 200.0
    """Giving up must beat playing on by this much utility per world on average: heuristic
    playouts undervalue the soloist, and with no margin hard gave up contracts that playing on
    would have made (a fifth of its surrenders; the study in docs/ai.md chose 200)."""
    SURRENDER_Z = 0.0
    """... and by this many standard errors of that mean (0: the mean alone decides)."""

    def surrender(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        tally = self.evaluate(self.surrender_tally, view, rng,
                              max(self.SURRENDER_WORLDS, self.effort(budget) // 2), budget)
        if not tally.worlds:
            return super().surrender(view, rng, budget)
        return SURRENDER if gives_up(list(tally.values), self.SURRENDER_MARGIN, self.SURRENDER_Z) else PLAY_ON

    def surrender_tally(self, view: SeatView, rng: random.Random, count: int, deadline: float) -> Tally:
        """The gains of surrendering over playing on (:func:`surrender_gains`) in ``count`` worlds."""
        knowledge = Knowledge.from_view(view)
        gains = surrender_gains(view, knowledge, self.worlds(knowledge, rng, count, deadline))
        return Tally((), len(gains), tuple(gains))

    # ---------------------------------------------------------------- card play

    def play(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        playouts = self.effort(budget)
        target = max(4, playouts // 40) if self.is_endgame(view) else max(4, playouts // len(view.legal_actions))
        tally = self.evaluate(self.play_tally, view, rng, target, budget)
        if not tally.worlds:
            return super().play(view, rng, budget)
        return best_card(view, tally)

    def is_endgame(self, view: SeatView) -> bool:
        """Few enough cards left to try the exact search in every world."""
        return sum(view.hand_sizes) <= self.ENDGAME_CARDS

    def play_tally(self, view: SeatView, rng: random.Random, count: int, deadline: float) -> Tally:
        """Each legal card played out (or searched exactly, in the endgame) in ``count`` worlds."""
        knowledge = Knowledge.from_view(view)
        legal = [a.value for a in view.legal_actions]
        totals = [0.0] * len(legal)
        worlds = 0
        endgame = self.is_endgame(view)
        for world in self.worlds(knowledge, rng, count, deadline):
            position = world_position(view, knowledge, world)
            values = solve(position, view.seat, 4000) if endgame else None
            if values is None:
                values = {}
                for kind in legal:
                    child = position.copy()
                    child.play(kind)
                    values[kind] = position_value(playout(child), view.seat)
            for i, kind in enumerate(legal):
                totals[i] += values[kind]
            worlds += 1
        return Tally(tuple(totals), worlds)


class OracleBot(HardBot):
    """Sees every card: the same search as the hard bot on the true deal. For measurement only."""

    name = "oracle"

    def choose(self, view: SeatView, rng: random.Random | None = None, budget: float = 1.0) -> Action:
        raise TypeError("the oracle needs the full state: use choose_with_state(state, rng)")

    def choose_with_state(self, state: State, rng: random.Random | None = None, budget: float = 1.0) -> Action:
        """The oracle's action for the seat to move in ``state``."""
        seat = state.to_move
        if seat is None or seat < 0:
            raise ValueError("no seat is to move")
        seen = view_of(state, seat)
        truth = World(tuple(state.hands), tuple(state.tapp), tuple(state.discard))
        oracle = _Clairvoyant(truth, self._rng if rng is None else rng)
        return HardBot.choose(oracle, seen, rng, budget)


class _Clairvoyant(HardBot):
    """The hard bot's search with the one true world instead of samples."""

    def __init__(self, truth: World, rng: random.Random) -> None:
        super().__init__()
        self._truth = truth

    def sample(self, knowledge: Knowledge, rng: random.Random) -> World:
        return self._truth

    def effort(self, budget: float, minimum: int = 8) -> int:
        return minimum  # one world: more samples would repeat the same playout


def new_position(rules: Rules, dealer: int, hands: list[int], soloist: int, bid: int, game: int,
                 discard: tuple[int, ...]) -> Position:
    """The position at the first trick, the hands after the discard, the game named."""
    p = Position.__new__(Position)
    n = rules.players
    p.rules, p.players, p.hands = rules, n, hands
    seating = rules.seating(dealer)
    p.orders = seating.orders
    p.out = seating.sitting_out
    p.game = game
    p.trump = NO_TRUMP if game >= DURCH else game
    p.soloist, p.bid = soloist, bid
    if game >= DURCH:
        p.melds = (0,) * n
    else:
        p.melds = tuple(meld_total(find_melds(Hand(mask=h), Suit(game), rules)) for h in hands)
    p.discard_points = sum(POINTS[k] for k in discard)
    p.leader = p.to_move = soloist if game >= DURCH or rules.first_lead is FirstLead.SOLOIST else seating.forehand
    p.trick, p.best = [], 0
    p.points, p.won = [0] * n, [0] * n
    p.played, p.over, p.broken = 0, False, False
    p.beat_led = rules.must_beat is MustBeat.LED
    return p


def _contract_utility(results: list[Position], bid: int, knowledge: Knowledge) -> float:
    """Mean utility of playing ``bid`` over simulated deals; in trump games surrendering
    instead when that is better on average."""
    rules, seat, out = knowledge.rules, knowledge.seat, knowledge.sitting_out
    opponents = opponents_of(rules, seat, out)
    play_on = give_up = 0.0
    for p in results:
        if p.is_durch:  # its value does not depend on the bid
            value = position_value(p, seat)
            play_on += value
            give_up += value
            continue
        play_on += utility(trump_scores(rules, seat, bid, p.card_points(), p.melds, p.won, out), seat, opponents)
        give_up += utility(surrender_scores(rules, seat, bid, p.melds, out), seat, opponents)
    return max(play_on, give_up) / len(results)


class SoloistSimulation:
    """Deals played out with one seat as soloist of its best plan, one per sampled Tapp
    (and hidden hands), bid 0: each bid is weighed afterwards. ``reach`` is the highest
    total the hand could make with the best sampled Tapp (a sure game without trump
    counts as :data:`NO_TRUMP_BID`); no bot bids past it."""

    def __init__(self, knowledge: Knowledge, results: list[Position], reach: int, facing: int = 0,
                 defence: list[float] | None = None) -> None:
        self.knowledge = knowledge
        self.results = results
        self.reach = reach
        self.facing = facing
        """The highest bid an opponent raised to of its own will (:func:`facing_bid`; 0: none)."""
        self.defence = defence or []
        """Per simulated deal (when asked for and facing a raiser): this seat's utility when the
        raiser plays its raise instead (:func:`simulate_soloist`)."""

    @property
    def worlds(self) -> int:
        """How many deals were simulated."""
        return len(self.results)

    def __add__(self, other: SoloistSimulation) -> SoloistSimulation:
        """The simulations of both sets of worlds (of one seat's view) together."""
        return SoloistSimulation(self.knowledge, self.results + other.results, max(self.reach, other.reach),
                                 max(self.facing, other.facing), self.defence + other.defence)

    def made_share(self, bid: int) -> float:
        """The share of the simulated deals in which the soloist reaches ``bid``."""
        if not self.results:
            return 0.0
        made = sum(1 for p in self.results if (p.is_durch and not p.broken)
                   or (not p.is_durch and p.soloist_total() + partner_points(p) >= bid))
        return made / len(self.results)

    def value(self, bid: int) -> float:
        """Mean utility of playing ``bid`` over the simulated deals; in trump games
        surrendering instead when that is better on average."""
        return _contract_utility(self.results, bid, self.knowledge)


def simulate_soloist(view: SeatView, knowledge: Knowledge, worlds: Iterator[World],
                     defend: bool = False) -> SoloistSimulation:
    """Play out each world with this seat as soloist of its best plan for the world's Tapp;
    with ``defend``, against a raiser (:func:`facing_bid`) also the same world with the raiser
    as soloist of its raise, this seat defending (the simulation's ``defence``)."""
    rules = knowledge.rules
    seat = view.seat
    results = []
    defence = []
    reach = 0
    facing, raiser = facing_raise(view)
    for world in worlds:
        position = play_as_soloist(view, world, seat, 0)
        results.append(position)
        if defend and facing:
            defence.append(position_value(play_as_soloist(view, world, raiser, facing), seat))
        if position.game >= DURCH:
            reach = max(reach, NO_TRUMP_BID if not position.broken else 0)
        else:
            best = best_contract(with_tapp(world, seat), rules)
            estimate = best.total + partner_share(rules, best.card_points)
            reach = max(reach, estimate, position.soloist_total() + partner_points(position))
    return SoloistSimulation(knowledge, results, reach, facing, defence)


TAPP_HOPE = 20
"""What a bidder hopes the Tapp adds to the estimated value of its hand (the bidding models)."""


def hand_estimate(hand: int, rules: Rules) -> int:
    """A quick estimate of what a dealt hand can bid: its best trump plan without a Tapp, and
    the Tapp's hope."""
    return best_contract(hand, rules).total + TAPP_HOPE


def raise_worthy(worlds: Iterable[World], raiser: int, least: int, count: int, rules: Rules) -> Iterator[World]:
    """Up to ``count`` of ``worlds`` in which ``raiser``'s hand (as dealt: in the auction) is
    estimated at ``least`` or more (:func:`hand_estimate`); if too few are, the rest are the
    others of highest estimate, in that order.

    >>> from binokel.state import State
    >>> state = State.new("standard", dealer=2).deal_random(random.Random(1))
    >>> worlds = [World(tuple(state.hands), (), ()) for _ in range(2)]  # two alike, for the example
    >>> len(list(raise_worthy(worlds, 1, 0, 1, state.rules))), len(list(raise_worthy(worlds, 1, 990, 3, state.rules)))
    (1, 2)
    """
    kept = 0
    others: list[tuple[int, int, World]] = []
    for world in worlds:
        estimate = hand_estimate(world.hands[raiser], rules)
        if estimate >= least:
            yield world
            kept += 1
            if kept == count:
                return
        else:
            others.append((estimate, -len(others), world))
    others.sort(reverse=True)
    for _, _, world in others[:count - kept]:
        yield world


def with_tapp(world: World, seat: int) -> int:
    """``seat``'s hand in ``world`` with the Tapp taken."""
    cards = world.hands[seat]
    for kind in world.tapp:
        cards = add_card(cards, kind)
    return cards


def play_as_soloist(view: SeatView, world: World, soloist: int, bid: int) -> Position:
    """``world`` played out (heuristic card rule) with ``soloist`` taking the Tapp and
    playing its best plan for it at ``bid``."""
    rules = view.rules
    cards = with_tapp(world, soloist)
    plan = choose_plan(cards, rules, max(bid, rules.min_bid))
    hands = list(world.hands)
    hands[soloist] = _kept(cards, plan)
    return playout(new_position(rules, view.dealer, hands, soloist, bid, plan.game, plan.discard))


def facing_bid(view: SeatView) -> int:
    """The highest bid an opponent of ``view.seat`` has raised to of its own will in this
    auction, 0 if none: forehand's forced opening is no raise, nor is a partner's bid.

    >>> from binokel.state import State
    >>> from binokel.view import view
    >>> state = State.new("standard", dealer=2).deal_random(random.Random(1))
    >>> state = state.apply_text("150").apply_text("160")
    >>> facing_bid(view(state, 0)), facing_bid(view(state.apply_text("170"), 1))
    (160, 170)
    >>> facing_bid(view(State.new("standard", dealer=2).deal_random(random.Random(1)).apply_text("150"), 1))
    0
    """
    return facing_raise(view)[0]


def facing_raise(view: SeatView) -> tuple[int, int]:
    """(:func:`facing_bid`, the seat that raised to it; -1 if none)."""
    rules = view.rules
    forced = rules.auction is Auction.FIXED
    high, raiser = 0, -1
    for index, (call, seat) in enumerate(zip(view.auction, view.callers)):
        if call.kind is not ActionKind.BID or seat == view.seat or rules.partners(seat, view.seat):
            continue
        if index == 0 and forced:
            continue  # forehand's forced opening says nothing about its hand
        if int(call.value) > high:
            high, raiser = int(call.value), seat
    return high, raiser


def partner_points(p: Position) -> int:
    """Points the soloist's partners add to its total (with teams)."""
    rules = p.rules
    if not rules.has_teams:
        return 0
    team = rules.team_of(p.soloist)
    return sum(p.points[s] + p.melds[s] for s in range(p.players) if s != p.soloist and rules.team_of(s) == team)


def surrender_gains(view: SeatView, knowledge: Knowledge, worlds: Iterable[World]) -> list[float]:
    """Per sampled world: the soloist's utility of surrendering minus that of playing on
    (played out by the heuristic rule)."""
    rules = knowledge.rules
    out = knowledge.sitting_out
    opponents = opponents_of(rules, view.seat, out)
    bid = _bid(view)
    gains = []
    for world in worlds:
        position = new_position(rules, view.dealer, list(world.hands), view.seat, bid, knowledge.trump,
                                tuple(c.index for c in view.discard or ()))
        give_up = utility(surrender_scores(rules, view.seat, bid, position.melds, out), view.seat, opponents)
        gains.append(give_up - position_value(playout(position), view.seat))
    return gains


def gives_up(gains: list[float], margin: float, z: float) -> bool:
    """Surrender? Only when the mean gain beats ``margin`` by ``z`` standard errors.

    >>> gives_up([30.0, 50.0, 40.0], 10, 2), gives_up([300.0, -200.0, 20.0], 10, 2), gives_up([5.0], 0, 0)
    (True, False, True)
    """
    n = len(gains)
    mean = sum(gains) / n
    if n < 2 or not z:
        return mean > margin
    spread = math.sqrt(sum((g - mean) ** 2 for g in gains) / (n - 1) / n)
    return mean - z * spread > margin


def add_no_trump_candidates(view: SeatView, hand: int, candidates: list[Plan]) -> dict[int, float]:
    """Append to ``candidates`` the games without trump this hand is near enough to play;
    return, for those that are not sure, candidate index -> the soloist's value when broken."""
    rules = view.rules
    out = rules.sitting_out(view.dealer)
    opponents = opponents_of(rules, view.seat, out)
    risky: dict[int, float] = {}
    for game in no_trump_games(rules):
        plan = plan_no_trump(hand, game, rules)
        gaps = no_trump_gaps(_kept(hand, plan), game, rules)
        if gaps <= NEAR_NO_TRUMP:
            if gaps:
                risky[len(candidates)] = utility(contract_worth(rules, game, view.seat, False, out), view.seat,
                                                 opponents)
            candidates.append(plan)
    return risky
