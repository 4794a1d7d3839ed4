"""The expert bot: the hard bot's sampled worlds, weighted by what the opponents did,
with bids, surrender and the trump choice decided by simulation, and the exact
open-card solver for the last tricks.

What it adds to :class:`~binokel.ai.bots.HardBot` (measured in ``docs/ai.md``):

- **inference**: worlds are sampled several times over and resampled by how likely each
  other seat's auction is under a model of bidding: a seat that bid ``B`` holds a hand
  worth about ``B`` or more, a seat that passed when ``L`` was needed one worth less
  (:func:`auction_weight`); no world contradicts what is known (the sampler's facts);
- **bidding** (the loop shared with hard, :func:`~binokel.ai.bots.simulate_soloist`):
  over sampled Tapps and hidden hands the seat is simulated as soloist of its best plan
  for each Tapp; the lowest bid is made only while it is within the hand's reach with the
  best sampled Tapp, worth more than defending (surrender counted; defending is worth
  :attr:`ExpertBot.DEFENDER_UTILITY`, what defenders really score, not hard's guess),
  *and* reached in at least :attr:`ExpertBot.MADE_SHARE` of the deals;
- **surrender** by hard's rule (giving up must beat playing on by
  :attr:`ExpertBot.SURRENDER_MARGIN` a world, :func:`~binokel.ai.bots.gives_up`: playouts
  undervalue the soloist), over at least :attr:`ExpertBot.SURRENDER_WORLDS` worlds;
- **trump choice** among every trump suit near the best plan, not just the two best,
  simulated in the same worlds; plans within :attr:`ExpertBot.TIE` of the best go to the
  one keeping more trumps (optionally a discard that voids a side suit,
  :attr:`ExpertBot.DISCARD_VARIANTS`);
- **card play**: from :attr:`ExpertBot.SOLVER_TRICKS` tricks left on, each world is solved
  exactly by :class:`~binokel.ai.solver.Solver` as soon as the budget's nodes
  (:attr:`ExpertBot.SOLVER_RATE`) suffice for it; before that, playouts as the hard bot.

In partner games (teams) it bids, lays away, names the game and surrenders as the hard bot
(there its own bidding measured weaker), but bids on against the other team's
raises while a smaller share of the deals reaches the bid (:attr:`ExpertBot.TEAM_FACING_SHARE`),
and plays its cards by its own search (:attr:`ExpertBot.TEAM_PLAY`).

>>> import random
>>> from binokel.state import State
>>> from binokel.view import view
>>> state = State.new("standard", dealer=2).deal_random(random.Random(1))
>>> bot = ExpertBot(seed=1)
>>> bot.choose(view(state, 0), budget=0.01) in view(state, 0).legal_actions
True
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterator, Sequence
from typing import Any

from binokel.action import DURCH, PASS, Action, ActionKind
from binokel.ai.bots import (HardBot, SoloistSimulation, Tally, _kept, add_no_trump_candidates, best_card,
                             hand_estimate, new_position, trumps_kept, undominated)
import binokel.ai.parallel as parallel
from binokel.ai.fast import Position
from binokel.ai.knowledge import Knowledge
from binokel.card import add_masks
from binokel.ai.policy import (
    Plan,
    choose_card,
    plan_contract,
    void_plan,
)
from binokel.ai.sample import World, dealt_hands, world_position
from binokel.ai.search import (
    contract_worth,
    opponents_of,
    playout,
    position_value,
    utility,
)
from binokel.ai.solver import SolveAborted, Solver, new_table, search_core
from binokel.card import POINTS, Hand, mask_points
from binokel.rules import DefenderMelds, Rules
from binokel.score import surrender_scores, trump_scores
from binokel.view import SeatView

BID_SPREAD = 30.0
"""How far (in points) a bid may stray from the hand's estimated value in the bidding model."""


def auction_calls(view: SeatView) -> dict[int, tuple[int | None, int | None]]:
    """Per other seat: (its highest bid, the lowest bid it would have needed when it passed)."""
    rules = view.rules
    high = 0
    seen: dict[int, tuple[int | None, int | None]] = {}
    for call, seat in zip(view.auction, view.callers):
        bid, passed = seen.get(seat, (None, None))
        if call.kind is ActionKind.BID:
            bid = int(call.value)
            high = max(high, bid)
        elif call == PASS:
            passed = high + 10 if high else rules.min_bid
        seen[seat] = (bid, passed)
    seen.pop(view.seat, None)
    return seen


def auction_weight(dealt: list[list[int]], calls: dict[int, tuple[int | None, int | None]],
                   knowledge: Knowledge) -> float:
    """How likely the other seats' auction is with these dealt hands (up to a constant)."""
    weight = 1.0
    for seat, (bid, passed) in calls.items():
        mask = 0
        for kind in dealt[seat]:
            mask = mask | (1 << (kind + 28)) if mask >> kind & 1 else mask | (1 << kind)
        value = hand_estimate(mask, knowledge.rules)
        if bid is not None:
            weight *= _sigmoid((value - bid) / BID_SPREAD)
        if passed is not None:
            weight *= _sigmoid((passed - value) / BID_SPREAD)
    return weight


POLICY_TRUST = 0.6
"""The play model: another seat plays the heuristic card rule's choice with this probability,
any other legal card with the rest, evenly."""


def play_weight(view: SeatView, knowledge: Knowledge, world: World) -> float:
    """How likely the other seats' card plays so far are in ``world`` under the play model:
    the deal is replayed from the first trick with the world's hands."""
    tricks = list(view.tricks) + ([view.trick] if view.trick.cards else [])
    if not tricks or knowledge.game is None or knowledge.soloist is None:
        return 1.0
    hands = [add_masks(hand, played) for hand, played in zip(world.hands, knowledge.played)]
    p = new_position(knowledge.rules, view.dealer, hands, knowledge.soloist, view.bid or 0, knowledge.game,
                     world.discard)
    weight = 1.0
    for trick in tricks:
        for card in trick.cards:
            seat = p.to_move
            legal = p.legal_mask()
            if seat != view.seat and legal & (legal - 1):
                choice = choose_card(p.hands[seat], legal, p.trick, p.best, p.orders[p.leader], seat, p.game,
                                     p.soloist, knowledge.rules, p.played, None)
                options = legal.bit_count()
                weight *= POLICY_TRUST if choice == card.index else (1 - POLICY_TRUST) / (options - 1)
            p.play(card.index)
    return weight


def effective_size(weights: list[float]) -> float:
    """Kish's effective sample size of weighted samples: (sum w)^2 / sum w^2.

    >>> effective_size([1.0, 1.0, 1.0, 1.0]), effective_size([1.0, 0.0, 0.0, 0.0])
    (4.0, 1.0)
    """
    total = sum(weights)
    squares = sum(w * w for w in weights)
    return total * total / squares if squares else 0.0


def tempered(weights: list[float], least: float) -> list[float]:
    """``weights`` raised to the largest power in [0, 1] (by bisection, to 1/64) whose
    effective size is at least ``least`` (power 0: all equal). Tempering keeps the order of
    the weights and spreads them: the likelihood of extreme calls is only a model.

    >>> tempered([1.0, 0.5], 1.0)
    [1.0, 0.5]
    >>> [round(w, 3) for w in tempered([1.0, 1e-6, 1e-6, 1e-6], 2.0)]
    [1.0, 0.178, 0.178, 0.178]
    """
    if effective_size(weights) >= least:
        return weights
    top = max(weights)
    scaled = [w / top for w in weights]  # so that small powers do not underflow
    low, high = 0.0, 1.0
    for _ in range(6):
        middle = (low + high) / 2
        if effective_size([w ** middle if w > 0 else 0.0 for w in scaled]) >= least:
            low = middle
        else:
            high = middle
    return [w ** low if w > 0 else 0.0 for w in scaled]


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, x))))


def _is_trio(rules: Rules) -> bool:
    """Two teams of three (sechser)?"""
    return rules.has_teams and len(rules.team_seats(0)) == 3


def first_trick_melds(p: Position) -> list[int]:
    """What each seat's first trick from ``p`` on is worth to the solver's gain (its ``melds``):
    half the seat's melds (the gain counts card points, which move between the sides, once;
    a meld counts for one side only) while they wait for the seat's first trick, else 0.

    >>> from binokel.ai.fast import Position
    >>> p = Position.__new__(Position)
    >>> p.rules, p.players, p.out, p.melds, p.won = Rules.parse("sechser"), 6, None, (40, 0, 20, 0, 0, 150), [0] * 6
    >>> p.won[2] = 1
    >>> first_trick_melds(p)
    [20, 0, 0, 0, 0, 75]
    """
    always = p.rules.defender_melds is DefenderMelds.ALWAYS
    soloist_team = p.rules.team_of(p.soloist) if always else None
    return [0 if s == p.out or p.won[s] or (always and p.rules.team_of(s) != soloist_team) else p.melds[s] // 2
            for s in range(p.players)]


def _by_sum(seats: list[int], melds: Sequence[int]) -> list[tuple[int, ...]]:
    """Every subset of ``seats``, the largest sum of their ``melds`` first."""
    subsets = [tuple(s for i, s in enumerate(seats) if bits >> i & 1) for bits in range(1 << len(seats))]
    return sorted(subsets, key=lambda subset: -sum(melds[s] for s in subset))


def _tracked_utility(p: Position, seat: int, gain: int, melds: Sequence[int]) -> float:
    """:func:`side_utility` of a gain by :class:`Solver` with ``melds``: the side's card points
    plus the melds of its seats that take a first trick and of the other side's seats that take
    none. Which seats those are, the value alone does not say: of the splits that fit it, the
    one with the most melds of the side's seats, then of the other side's, is taken. (With the
    contract made the utility is the same for every split; only made or not depends on it.)"""
    rules = p.rules
    team = rules.team_of(p.soloist)
    playing = [s for s in range(p.players) if s != p.out]
    mine = [s for s in playing if rules.team_of(s) == team]
    others = [s for s in playing if rules.team_of(s) != team]
    left = sum(mask_points(h) for h in p.hands) + sum(POINTS[k] for k in p.trick) + 10
    waiting_mine = [s for s in mine if melds[s]]
    waiting_others = [s for s in others if melds[s]]
    split: tuple[int, tuple[int, ...], tuple[int, ...]] = (max(0, min(gain, left)), (), ())
    for takers in _by_sum(waiting_mine, melds):
        fits = [(gain - sum(melds[s] for s in takers + idle), idle) for idle in _by_sum(waiting_others, melds)]
        fit = next(((g, idle) for g, idle in fits if 0 <= g <= left
                    and (not g or takers or len(waiting_mine) < len(mine))
                    and (g == left or len(idle) < len(others))), None)
        if fit is not None:
            split = (fit[0], takers, fit[1])
            break
    card_gain, takers, idle = split
    points = p.card_points()
    won = list(p.won)
    points[p.soloist] += card_gain
    for s in takers:
        won[s] += 1
    if card_gain and not takers:
        won[next((s for s in mine if not melds[s]), p.soloist)] += 1
    rest = left - card_gain
    taking = [s for s in others if s not in idle]
    for i, s in enumerate(taking):
        points[s] += rest // len(taking) + (i < rest % len(taking))
        if rest or melds[s]:
            won[s] += 1
    scores = trump_scores(rules, p.soloist, p.bid, points, p.melds, won, p.out)
    return utility(scores, seat, opponents_of(rules, seat, p.out))


def side_utility(p: Position, seat: int, gain: int, melds: Sequence[int] | None = None) -> float:
    """``seat``'s utility when the soloist's side gains ``gain`` more (as :class:`Solver`
    counts it) from position ``p``: the rest of the points go to the other side, split
    evenly. Without ``melds`` the gain is counted as the soloist's, so a partner of the soloist
    without a trick so far wins none and its melds do not count (with teams a seat's melds need
    an own trick), and every seat of the other side is taken to win a trick when that side gains
    anything; with the ``melds`` the solver was given, the gain says who takes a trick
    (:func:`_tracked_utility`)."""
    rules = p.rules
    opponents = opponents_of(rules, seat, p.out)
    if p.is_durch:
        tricks_left = -(-(sum(h.bit_count() for h in p.hands) + len(p.trick)) // len(p.orders[p.leader]))
        made = gain >= tricks_left
        return utility(contract_worth(rules, p.game, p.soloist, made, p.out), seat, opponents)
    if melds is not None and any(melds):
        return _tracked_utility(p, seat, gain, melds)
    team = rules.team_of(p.soloist)
    playing = [s for s in range(p.players) if s != p.out]
    others = [s for s in playing if rules.team_of(s) != team]
    left = sum(mask_points(h) for h in p.hands) + sum(POINTS[k] for k in p.trick) + 10
    points = p.card_points()
    won = list(p.won)
    points[p.soloist] += gain
    if gain:
        won[p.soloist] += 1
    rest = left - gain
    for i, s in enumerate(others):
        points[s] += rest // len(others) + (i < rest % len(others))
        if rest:
            won[s] += 1  # an approximation: every seat of the other side is taken to win a trick
    scores = trump_scores(rules, p.soloist, p.bid, points, p.melds, won, p.out)
    return utility(scores, seat, opponents)


@parallel.rebuildable
class ExpertBot(HardBot):
    """The hard bot with inference, bidding and surrender by simulation, and the exact
    solver for the last tricks (see the module's description)."""

    name = "expert"
    PLAYOUTS_PER_SECOND = 2500
    INFERENCE = 1
    """1: resample the worlds by the auction (and play) model; 0: plain sampling as hard."""
    PLAY_MODEL = 1
    """1: weigh worlds by the other seats' card plays too (0: by the auction only)."""
    OVERSAMPLE = 3
    """Worlds sampled per world kept, for the resampling by the auction's likelihood."""
    AUCTION_SPREAD = 0.5
    """In the auction the weights are tempered (:func:`tempered`) until the pool's effective
    size is at least this share of the worlds kept: after high raises a few pooled worlds
    carry almost all the weight, and the bid would rest on two or three distinct deals."""
    MADE_SHARE = 0.55
    """The lowest share of simulated deals in which the soloist must reach a bid to make it."""
    SURRENDER_WORLDS = 32
    """At least this many worlds weigh the surrender. (A further test by 1.64 standard errors
    saved nothing in the surrender study and kept expert from giving up in kreuz, where it
    lost 41 of 195 contracts against hard's 26 of 205: dropped, docs/ai.md.)"""
    SOLVER_TRICKS = 9
    """Tricks left from which the sampled worlds are solved exactly, when the budget allows it:
    the first world must be solved within its share of the budget's nodes, else playouts decide."""
    SOLVER_RATE = {"C": 8_000_000, "Python": 500_000}[search_core()]
    """Solver nodes per second of budget (by the search that runs: the C one is ~15x faster)."""
    SOLVER_WORLDS = 48
    """At most this many worlds are solved for one card (more budget: deeper positions instead)."""
    SOLVER_NODES = 5000
    """Nodes a world may take at least, whatever the budget."""
    DISCARD_VARIANTS = 0
    """1: the best trump plan is also simulated with a discard that voids its shortest side suit."""
    TIE = 5.0
    """Simulated plans within this many utility points a deal of the best are a tie."""
    TRUMP_WINDOW = 40
    """Trump plans whose estimate is within this many points of the best are simulated."""
    TRIO_SOLVER_TAKERS = 0
    """Teams of three (a measurement option, round twelve): 1 has the exact solver track who takes
    a trick, a seat's melds counting once it takes one (:func:`first_trick_melds`)."""

    # ------------------------------------------------------------------ worlds

    def worlds(self, knowledge: Knowledge, rng: random.Random, count: int, deadline: float,
               *, skip_failures: bool = False) -> Iterator[World]:
        """Worlds resampled by the likelihood of the other seats' auction and card plays."""
        view = self._view
        calls = auction_calls(view) if view is not None else {}
        if view is None or not self.INFERENCE or (not calls and not view.tricks):
            yield from super().worlds(knowledge, rng, count, deadline, skip_failures=skip_failures)
            return
        pool: list[World] = []
        weights: list[float] = []
        # The pool may take 40% of the time left: the worlds still have to be played out.
        start = time.perf_counter()
        pool_deadline = start + 0.4 * max(0.0, deadline - start)
        for world in super().worlds(knowledge, rng, count * self.OVERSAMPLE, pool_deadline, skip_failures=True):
            pool.append(world)
            weight = auction_weight(dealt_hands(knowledge, world), calls, knowledge) if calls else 1.0
            if self.PLAY_MODEL and view.phase == "play":
                weight *= play_weight(view, knowledge, world)
            weights.append(weight)
        if not pool:
            return
        if sum(weights) <= 0:
            weights = [1.0] * len(pool)
        elif view.phase == "auction":
            weights = tempered(weights, min(count, len(pool)) * self.AUCTION_SPREAD)
        for world in rng.choices(pool, weights, k=min(count, len(pool))):
            if time.perf_counter() > deadline:
                self.clock_cut = True
                return
            yield world

    _view: SeatView | None = None  # the view being decided, for the auction model of ``worlds``

    TEAM_PLAY = 1
    """Partner games: 1: expert's card play (worlds weighted by every seat's plays, its
    partner's included, and the exact solver, which plays the partners as one side); 0: the
    card play of hard. Bidding, discard and surrender are hard's there in either case (but for
    :attr:`TEAM_FACING_SHARE`)."""
    TEAM_FACING_SHARE = 0.75
    """In partner games a bid against a raiser of the other team needs this share of the
    simulated deals reached (hard: :attr:`FACING_SHARE`). The soloist's team takes the whole
    Tapp, so the team that passes does badly: in kreuz the defenders' mean utility was -151 a
    deal, and 82% of the contracts, every one won against a raise, were made (docs/ai.md, round
    eight); a war lost at a share that hard refuses costs more than the bids that fail."""

    def choose(self, view: SeatView, rng: random.Random | None = None, budget: float = 1.0) -> Action:
        if view.rules.has_teams and not (view.phase == "play" and self.TEAM_PLAY):
            # Partner games: expert's own bidding and trump choice measured weaker than hard's
            # there (kreuz: -42.8 [-76.0, -9.6] a deal over 200 paired deals; in sechser no other
            # share, passing value, rule for a partner's raise or own plan measured better,
            # round nine; docs/ai.md).
            partner_game = self.partner_game_bot()
            try:
                return partner_game.choose(view, rng if rng is not None else self._rng, budget)
            finally:
                self.clock_cut = partner_game.clock_cut
        self._view = view
        try:
            return super().choose(view, rng, budget)
        finally:
            self._view = None

    def partner_game_bot(self) -> HardBot:
        """The hard bot that bids, lays away, names the game and surrenders for expert in
        partner games: hard's with this bot's settings and :attr:`TEAM_FACING_SHARE`."""
        bot = HardBot()
        bot.JOBS, bot.CLOCK, bot.FACING_SHARE = self.JOBS, self.CLOCK, self.TEAM_FACING_SHARE
        return bot

    def share(self, method: str, view: SeatView, rng: random.Random, count: int, deadline: float, *args: Any,
              **kwargs: Any) -> Any:
        """As hard; the worlds are weighted by the models of ``view`` (in a worker, the view of the share)."""
        outer, self._view = self._view, view
        try:
            return super().share(method, view, rng, count, deadline, *args, **kwargs)
        finally:
            self._view = outer

    # ------------------------------------------------------------------ bidding

    BID_WORLDS = 24
    DEFENDER_UTILITY = -160.0
    """What passing is worth where the soloist plays alone. The mean utility of the defenders in
    hard's and expert's deals is about -80 (docs/ai.md; hard's value since round five), and
    bidding on while playing beats -80 won expert +9 points a deal over hard at -30; on fresh
    deals each time, -120 beat -80 by +5.2 [+1.5, +8.8] (450 paired deals) and -160 beat -120
    by +3.7 [+0.7, +6.8] (450; budget 0.02). The measured value is taken, not the mean
    (docs/ai.md, round four)."""

    def bid_effort(self, budget: float) -> int:
        return self.effort(budget) // 3

    def accepts(self, simulation: SoloistSimulation, bid: int) -> bool:
        """As hard, and only while the soloist reaches ``bid`` in :attr:`MADE_SHARE` of the deals."""
        return super().accepts(simulation, bid) and simulation.made_share(bid) >= self.MADE_SHARE

    # ------------------------------------------------------------------ discard and game

    def plan(self, view: SeatView, rng: random.Random, budget: float) -> Plan:
        candidates, risky = self.plan_candidates(view)
        if len(candidates) == 1:
            return candidates[0]
        worlds = max(self.RISKY_WORLDS if risky else 12, self.effort(budget) // (2 * len(candidates)))
        tally = self.evaluate(self.plan_tally, view, rng, worlds, budget)
        totals, count = tally.totals, tally.worlds
        if not count:
            return candidates[0]
        means = [(totals[i] + self.PESSIMISM * risky[i]) / (count + self.PESSIMISM) if i in risky
                 else totals[i] / count for i in range(len(candidates))]
        best = max(means)
        # Near-ties go to the plan keeping more trumps (a longer suit), then to the earlier (better estimate).
        near = [i for i, m in enumerate(means) if m >= best - self.TIE]
        hand = Hand(view.hand).mask
        return candidates[min(near, key=lambda i: (-trumps_kept(hand, candidates[i]), i))]

    def plan_candidates(self, view: SeatView) -> tuple[list[Plan], dict[int, float]]:
        """Every trump plan within :attr:`TRUMP_WINDOW` of the best estimate, undominated, more
        trumps kept first among equal estimates (optionally a void-a-suit discard), and the
        games without trump near enough."""
        rules = view.rules
        hand = Hand(view.hand).mask
        plans = undominated([plan_contract(hand, trump, rules) for trump in range(4)], hand)
        top = max(c.total for c in plans)
        trumps = [c for c in plans if c.total >= top - self.TRUMP_WINDOW]
        # Among plans of equal estimate, more trumps kept first (the simulation breaks near-ties by this order).
        trumps.sort(key=lambda c: (-c.total, -trumps_kept(hand, c)))
        candidates: list[Plan] = list(trumps)
        if self.DISCARD_VARIANTS:  # last, so that a near-tie keeps the policy's discard
            candidates += [v for v in (void_plan(hand, trumps[0], rules),) if v is not None]
        risky = add_no_trump_candidates(view, hand, candidates)
        return candidates, risky

    def plan_tally(self, view: SeatView, rng: random.Random, count: int, deadline: float) -> Tally:
        """Each candidate plan played out in ``count`` worlds; a trump game's value in a world
        is the better of playing on and surrendering."""
        rules = view.rules
        hand = Hand(view.hand).mask
        candidates, _ = self.plan_candidates(view)
        out = rules.sitting_out(view.dealer)
        opponents = opponents_of(rules, view.seat, out)
        knowledge = Knowledge.from_view(view)
        banked = tuple(c.index for c in view.discard or ())
        totals = [0.0] * len(candidates)
        worlds = 0
        for world in self.worlds(knowledge, rng, count, deadline):
            for i, plan in enumerate(candidates):
                hands = list(world.hands)
                hands[view.seat] = _kept(hand, plan)
                position = new_position(rules, view.dealer, hands, view.seat, view.bid or 0, plan.game,
                                        banked + plan.discard)
                value = position_value(playout(position), view.seat)
                if plan.game < DURCH:
                    value = max(value, utility(surrender_scores(rules, view.seat, view.bid or 0, position.melds, out),
                                               view.seat, opponents))
                totals[i] += value
            worlds += 1
        return Tally(tuple(totals), worlds)

    # ------------------------------------------------------------------ card play

    def play(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        tricks_left = -(-sum(view.hand_sizes) // max(1, sum(1 for n in view.hand_sizes if n) or 1))
        if tricks_left > self.SOLVER_TRICKS:
            return super().play(view, rng, budget)
        count = min(self.SOLVER_WORLDS, max(8, self.effort(budget) // 20))
        nodes = max(self.SOLVER_NODES, int(budget * self.SOLVER_RATE) // count)
        tally = self.evaluate(self.solve_tally, view, rng, count, budget, nodes)
        if not tally.worlds:
            return super().play(view, rng, budget)
        return best_card(view, tally)

    def solve_tally(self, view: SeatView, rng: random.Random, count: int, deadline: float, nodes: int) -> Tally:
        """Each legal card's value by the exact solver, within ``nodes`` a world, in up to
        ``count`` worlds: a world the solver gives up on is left out, and none is solved if it
        gives up on the first (too deep for this budget: the playouts decide)."""
        knowledge = Knowledge.from_view(view)
        legal = [a.value for a in view.legal_actions]
        totals = [0.0] * len(legal)
        worlds = 0
        table = new_table()
        takers = bool(self.TRIO_SOLVER_TAKERS) and _is_trio(view.rules)
        for world in self.worlds(knowledge, rng, count, deadline):
            position = world_position(view, knowledge, world)
            melds = first_trick_melds(position) if takers and not position.is_durch else None
            try:
                gains = Solver(position, table, nodes, melds).move_values()
            except SolveAborted:
                if not worlds:
                    break  # too deep for this budget: the playouts decide
                continue
            for i, kind in enumerate(legal):
                totals[i] += side_utility(position, view.seat, gains[kind], melds)
            worlds += 1
        return Tally(tuple(totals), worlds)


__all__ = ["ExpertBot", "auction_calls", "auction_weight", "effective_size", "hand_estimate", "side_utility",
           "tempered"]

