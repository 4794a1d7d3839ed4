"""The computer opponents: easy, medium, hard, and the all-seeing oracle.

Every bot answers a :class:`SeatView` with one of its ``legal_actions``. Randomness
comes only from the ``rng`` passed in (or the bot's own, seeded at creation), and the
search effort follows from ``budget`` by a fixed rate, never from the clock, so the
same seed gives the same decisions.

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
from collections.abc import Callable, Iterator

from binokel.action import DISCARDS, DURCH, GAMES, PASS, PLAY_ON, PLAYS, SURRENDER, Action
from binokel.card import COPY, POINTS, Hand, Suit, add_card, remove_card
from binokel.meld import find_melds, meld_total
from binokel.rules import Rules
from binokel.state import State
from binokel.view import SeatView, view as view_of

from binokel.ai.fast import NO_TRUMP, Position, beats
from binokel.ai.knowledge import Knowledge, counts_of, rules_of
from binokel.ai.policy import best_contract, choose_card, expected_card_points, is_sure_durch, plan_contract
from binokel.ai.sample import SamplingError, World, sample_world, world_position
from binokel.ai.search import playout, solve, utility

DEFENDER_UTILITY = -30.0
"""A defender's typical result relative to the others (the soloist usually makes it)."""


class HeuristicBot:
    """Base of all bots: dispatches on the phase; subclasses override the decisions."""

    name = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: SeatView, rng: random.Random | None = None, budget: float = 1.0) -> Action:
        """One of ``view.legal_actions`` (raises ValueError if the seat is not to move)."""
        if not isinstance(view, SeatView):
            raise TypeError(f"a bot receives a SeatView, never {type(view).__name__}")
        legal = view.legal_actions
        if not legal:
            raise ValueError(f"seat {view.seat} is not to move")
        if len(legal) == 1:
            return legal[0]
        rng = rng if rng is not None else self._rng
        decide: dict[str, Callable[[SeatView, random.Random, float], Action]] = {
            "auction": self.bid, "discard": self.discard, "game": self.name_game,
            "surrender": self.surrender, "play": self.play,
        }
        action = decide[view.phase](view, rng, budget)
        return action if action in legal else legal[0]

    # Decisions; the defaults are the medium bot's rules.

    def bid(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        raise_to = view.legal_actions[-1]
        return raise_to if raise_to.value <= self.hand_value(view, rng) else PASS

    def hand_value(self, view: SeatView, rng: random.Random) -> float:
        """The highest bid this seat is willing to play."""
        raise NotImplementedError

    def discard(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        rules = rules_of(view.rules)
        plan = best_contract(Hand(view.hand).mask, rules)
        return DISCARDS[plan.discard[0]]

    def name_game(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        rules = rules_of(view.rules)
        hand = Hand(view.hand).mask
        if is_sure_durch(hand, rules):
            return GAMES[DURCH]
        return GAMES[best_contract(hand, rules).game]

    def surrender(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        return PLAY_ON

    def play(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        knowledge = Knowledge.from_view(view)
        return PLAYS[heuristic_card(view, knowledge, knowledge.played_all)]


def heuristic_card(view: SeatView, knowledge: Knowledge, gone: int) -> int:
    """The heuristic card rule applied to a view; ``gone`` is what the bot remembers."""
    legal = 0
    for action in view.legal_actions:
        legal |= 1 << action.value
    trick = [c.index for c in view.trick.cards]
    best = 0
    for i in range(1, len(trick)):
        if beats(trick[i], trick[best], knowledge.trump):
            best = i
    return choose_card(knowledge.hand, legal, trick, best, view.trick.leader, view.seat, view.players,
                       knowledge.trump, knowledge.soloist, gone)


class EasyBot(HeuristicBot):
    """Bids cautiously on its melds, plays simple rules with a little randomness, never surrenders."""

    name = "easy"
    MISTAKES = 0.15

    def hand_value(self, view: SeatView, rng: random.Random) -> float:
        rules = rules_of(view.rules)
        hand = Hand(view.hand)
        melds = max(meld_total(find_melds(hand, Suit(s), rules)) for s in Suit)
        return melds + 80

    def play(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        if rng.random() < self.MISTAKES:
            return rng.choice(view.legal_actions)
        knowledge = Knowledge.from_view(view)
        return PLAYS[heuristic_card(view, knowledge, 0)]


class MediumBot(HeuristicBot):
    """Tracks cards, values its hand over possible Tapps, surrenders when that loses less."""

    name = "medium"
    TAPP_SAMPLES = 12
    MARGIN = 10

    def hand_value(self, view: SeatView, rng: random.Random) -> float:
        rules = rules_of(view.rules)
        hand = Hand(view.hand).mask
        unseen = [k for k, n in enumerate(counts_of(_deck(rules))) for _ in range(n - _count(hand, k))]
        totals = []
        for _ in range(self.TAPP_SAMPLES):
            cards = hand
            for kind in rng.sample(unseen, rules.tapp_size):
                cards = add_card(cards, kind)
            totals.append(best_contract(cards, rules).total)
        totals.sort()
        return totals[len(totals) // 3] - self.MARGIN  # a cautious estimate: the lower third

    def surrender(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        rules = rules_of(view.rules)
        hand = Hand(view.hand).mask
        trump = Suit.parse(view.game)
        banked = sum(c.points for c in view.discard or ())
        expected = meld_total(find_melds(Hand(mask=hand), trump, rules)) + expected_card_points(hand, trump, rules) + banked
        made = 1 / (1 + math.exp(-(expected - view.bid) / 25))
        play_on = made * expected - (1 - made) * 2 * view.bid
        return SURRENDER if -view.bid > play_on + 60 else PLAY_ON


def _deck(rules: Rules) -> int:
    return rules.kind_mask | rules.kind_mask << COPY


def _count(mask: int, kind: int) -> int:
    return (mask >> kind & 1) + (mask >> (kind + COPY) & 1)


class HardBot(MediumBot):
    """Perfect-information Monte Carlo: samples worlds consistent with its knowledge and
    plays each candidate out in them; exact search for the last tricks."""

    name = "hard"
    PLAYOUTS_PER_SECOND = 1500
    """Fixed effort rate: the budget sets the number of playouts, so results are reproducible."""
    ENDGAME_CARDS = 12
    BID_WORLDS = 40

    def effort(self, budget: float, minimum: int = 8) -> int:
        return max(minimum, int(budget * self.PLAYOUTS_PER_SECOND))

    @staticmethod
    def deadline(budget: float) -> float:
        """A latency cap (clock time); the effort itself follows the budget, not the clock."""
        return time.perf_counter() + max(0.9 * budget, 0.25)

    def sample(self, knowledge: Knowledge, rng: random.Random) -> World:
        """A world consistent with what the seat knows (raises SamplingError)."""
        return sample_world(knowledge, rng)

    def worlds(self, knowledge: Knowledge, rng: random.Random, count: int, deadline: float,
               *, skip_failures: bool = False) -> Iterator[World]:
        """Up to ``count`` sampled worlds while time is left; a world that cannot be
        sampled ends the stream (or is skipped, with ``skip_failures``)."""
        for _ in range(count):
            if time.perf_counter() > deadline:
                return
            try:
                yield self.sample(knowledge, rng)
            except SamplingError:
                if not skip_failures:
                    return

    # ---------------------------------------------------------------- bidding

    def bid(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        raise_to = view.legal_actions[-1]
        knowledge = Knowledge.from_view(view)
        results = self._soloist_results(view, knowledge, rng, max(12, self.effort(budget) // 4),
                                        self.deadline(budget))
        if not results:
            return super().bid(view, rng, budget)
        value = _contract_utility(results, raise_to.value, rules_of(view.rules))
        return raise_to if value > DEFENDER_UTILITY else PASS

    def _soloist_results(self, view: SeatView, knowledge: Knowledge, rng: random.Random,
                         worlds: int, deadline: float) -> list[tuple[list[int], tuple[int, ...], list[int], int]]:
        """Play out sampled deals with this seat as soloist of its best plan: per world the
        card points, melds, tricks won and the soloist's seat."""
        rules = knowledge.rules
        seat = view.seat
        results = []
        for world in self.worlds(knowledge, rng, worlds, deadline, skip_failures=True):
            cards = world.hands[seat]
            for kind in world.tapp:
                cards = add_card(cards, kind)
            plan = best_contract(cards, rules)
            kept = cards
            for kind in plan.discard:
                kept = remove_card(kept, kind)
            hands = list(world.hands)
            hands[seat] = kept
            position = new_position(rules, view.dealer, hands, seat, 0, plan.game, plan.discard)
            playout(position)
            results.append((position.card_points(), position.melds, position.won, seat))
        return results

    # ---------------------------------------------------------------- discard, game, surrender

    def discard(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        plan = self._plan(view, rng, budget)
        return DISCARDS[plan[0][0]]

    def name_game(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        rules = rules_of(view.rules)
        hand = Hand(view.hand).mask
        if is_sure_durch(hand, rules):
            return GAMES[DURCH]
        return GAMES[self._plan(view, rng, budget)[1]]

    def _plan(self, view: SeatView, rng: random.Random, budget: float) -> tuple[tuple[int, ...], int]:
        """(cards still to lay away, trump) chosen by simulation among the best plans."""
        rules = rules_of(view.rules)
        hand = Hand(view.hand).mask
        candidates = sorted((plan_contract(hand, trump, rules) for trump in range(4)), key=lambda c: -c.total)[:2]
        if candidates[0].total - candidates[1].total > 60:
            candidates = candidates[:1]
        if len(candidates) == 1:
            return candidates[0].discard, candidates[0].game
        knowledge = Knowledge.from_view(view)
        banked = tuple(c.index for c in view.discard or ())
        worlds = max(6, self.effort(budget) // (2 * len(candidates)))
        scores = [0.0] * len(candidates)
        for world in self.worlds(knowledge, rng, worlds, self.deadline(budget)):
            for i, plan in enumerate(candidates):
                kept = hand
                for kind in plan.discard:
                    kept = remove_card(kept, kind)
                hands = list(world.hands)
                hands[view.seat] = kept
                position = new_position(rules, view.dealer, hands, view.seat, view.bid, plan.game,
                                        banked + plan.discard)
                scores[i] += utility(playout(position).scores(), view.seat)
        best = candidates[max(range(len(candidates)), key=lambda i: scores[i])]
        return best.discard, best.game

    def surrender(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        knowledge = Knowledge.from_view(view)
        rules = knowledge.rules
        trump = knowledge.trump
        worlds = max(8, self.effort(budget) // 2)
        play_on = give_up = 0.0
        count = 0
        for world in self.worlds(knowledge, rng, worlds, self.deadline(budget)):
            position = new_position(rules, view.dealer, list(world.hands), view.seat, view.bid, trump,
                                    tuple(c.index for c in view.discard or ()))
            melds = position.melds
            give_up += utility(tuple(-view.bid if s == view.seat else rules.surrender_points(view.bid) + melds[s]
                                     for s in range(view.players)), view.seat)
            play_on += utility(playout(position).scores(), view.seat)
            count += 1
        if not count:
            return super().surrender(view, rng, budget)
        return SURRENDER if give_up > play_on else PLAY_ON

    # ---------------------------------------------------------------- card play

    def play(self, view: SeatView, rng: random.Random, budget: float) -> Action:
        knowledge = Knowledge.from_view(view)
        legal = [a.value for a in view.legal_actions]
        totals = dict.fromkeys(legal, 0.0)
        worlds = 0
        endgame = sum(view.hand_sizes) <= self.ENDGAME_CARDS
        playouts = self.effort(budget)
        target = max(4, playouts // len(legal)) if not endgame else max(4, playouts // 40)
        for world in self.worlds(knowledge, rng, target, self.deadline(budget)):
            position = world_position(view, knowledge, world)
            values = solve(position, view.seat, 4000) if endgame else None
            if values is None:
                values = {}
                for kind in legal:
                    child = position.copy()
                    child.play(kind)
                    values[kind] = utility(playout(child).scores(), view.seat)
            for kind in legal:
                totals[kind] += values[kind]
            worlds += 1
        if not worlds:
            return super().play(view, rng, budget)
        return PLAYS[max(legal, key=lambda k: (totals[k], -POINTS[k]))]


class OracleBot(HardBot):
    """Sees every card: the same search as the hard bot on the true deal. For measurement only."""

    name = "oracle"

    def choose(self, view: SeatView, rng: random.Random | None = None, budget: float = 1.0) -> Action:
        raise TypeError("the oracle needs the full state: use choose_with_state(state, rng)")

    def choose_with_state(self, state: State, rng: random.Random | None = None, budget: float = 1.0) -> Action:
        """The oracle's action for the seat to move in ``state``."""
        seen = view_of(state, state.to_move)
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
    p.trump = NO_TRUMP if game == DURCH else game
    p.soloist, p.bid = soloist, bid
    if game == DURCH:
        p.melds = (0,) * n
    else:
        p.melds = tuple(meld_total(find_melds(Hand(mask=h), Suit(game), rules)) for h in hands)
    p.discard_points = sum(POINTS[k] for k in discard)
    forehand = (dealer + 1) % n
    p.leader = p.to_move = soloist if game == DURCH or rules.first_lead == "soloist" else forehand
    p.trick, p.best = [], 0
    p.points, p.won = [0] * n, [0] * n
    p.played, p.over, p.durch_failed = 0, False, False
    p.beat_led = rules.must_beat == "led"
    return p


def _contract_utility(results: list, bid: int, rules: Rules) -> float:
    """Mean utility of playing ``bid`` over simulated results, surrendering when that is better."""
    from binokel.score import trump_scores
    total = 0.0
    for card_points, melds, won, seat in results:
        scores = trump_scores(rules, seat, bid, card_points, melds, won)
        total += utility(scores, seat)
    play_on = total / len(results)
    surrender = -bid - sum(rules.surrender_points(bid) + sum(r[1][s] for r in results) / len(results)
                           for s in range(rules.players) if s != results[0][3]) / (rules.players - 1)
    return max(play_on, surrender)
