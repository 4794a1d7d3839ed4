"""Heuristics shared by the bots: contract evaluation, discard plans, card choice.

Everything works on integer masks (the engine's hand layout) so that the same card
rule drives the medium bot and the playouts of the hard bot.

>>> from binokel.card import Hand
>>> cards = Hand.parse("AH AH TH KH QH JH 9H AS TS KS QS JD AC TC 9D QD KD 9C").mask
>>> plan = best_contract(cards, Rules.parse("standard"))
>>> plan.game, len(plan.discard)
(<Contract.H: 1>, 3)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from binokel.action import BETTEL, DURCH, Contract
from binokel.card import (COPY, HIGHER, KIND_MASK, POINTS, SUIT_MASK, Hand, Suit, full_kinds, kinds_of, present,
                          remove_card)
from binokel.meld import find_melds, meld_cards, meld_total
from binokel.rules import Rules

from binokel.ai.fast import NO_TRUMP, beats

RANK_STRENGTH = (11, 8, 5, 4, 3, 1, 1)
"""How much a card of each rank (A T K Q J 9 7) helps to take tricks, roughly."""


@dataclass(frozen=True)
class Plan:
    """A plan for the soloist: what to lay away, the game, and the expected total."""

    discard: tuple[int, ...]
    game: Contract
    melds: int
    card_points: int  # expected, including the discard

    @property
    def total(self) -> int:
        return self.melds + self.card_points


def card_key(kind: int, trump: int) -> tuple[int, int, int]:
    """Sort key for the card to give away first: non-trump, few points, weak."""
    return (kind // 7 == trump, POINTS[kind], -(kind % 7))


def cheapest(kinds: list[int], trump: int) -> int:
    return min(kinds, key=lambda k: card_key(k, trump))


def expected_card_points(hand: int, trump: int, rules: Rules) -> int:
    """A rough estimate of the card points the soloist takes in tricks with ``hand``.

    >>> hand = Hand.parse("AH AH TH KH QH JH 9H AS TS KS QS JD AC TC 9D").mask
    >>> expected_card_points(hand, 1, Rules.parse("standard")) > 120
    True
    """
    low, high = hand & KIND_MASK, hand >> COPY
    size = hand.bit_count()
    total_tricks = rules.hand_size
    estimate = 0.0
    trumps = 0
    for suit in range(4):
        held = [k for k in kinds_of(low & SUIT_MASK[suit]) for _ in range(1 + (high >> k & 1))]
        if suit == trump:
            trumps = len(held)
            estimate += sum(RANK_STRENGTH[k % 7] for k in held) * 1.6
        else:
            aces = sum(1 for k in held if k % 7 == 0)
            tens = sum(1 for k in held if k % 7 == 1)
            estimate += aces * 14 + min(tens, aces) * 9 + max(0, len(held) - 5) * 2
    estimate += max(0, trumps - 4) * 10
    return int(estimate * total_tricks / max(size, 1) * 0.9 + 20)


@lru_cache(maxsize=8192)
def best_contract(cards: int, rules: Rules, games: tuple[int, ...] | None = None) -> Plan:
    """The best plan (discard, game) for the soloist holding ``cards`` (hand + Tapp)."""
    plans = [plan_contract(cards, game, rules) for game in (games or range(4))]
    return max(plans, key=lambda c: c.total)


@lru_cache(maxsize=16384)
def plan_contract(cards: int, trump: int, rules: Rules) -> Plan:
    """Lay away the cards least useful with ``trump``: keep meld cards, trumps and aces;
    bank points of loose tens and kings that would likely be lost."""
    hand = Hand(mask=cards)
    keep_melds = meld_cards(find_melds(hand, Suit(trump), rules)).mask
    extra = len(hand) - rules.hand_size
    candidates = []
    spare = cards
    for kind in kinds_of(keep_melds & KIND_MASK):
        spare = remove_card(spare, kind)
    for kind in kinds_of(keep_melds >> COPY):
        spare = remove_card(spare, kind)
    for card in Hand(mask=spare):
        k = card.index
        suit_cards = cards & (SUIT_MASK[k // 7] | SUIT_MASK[k // 7] << COPY)
        has_ace = suit_cards >> (k - k % 7) & 1
        value = RANK_STRENGTH[k % 7] * 2 + (30 if k // 7 == trump else 0)
        value += suit_cards.bit_count() * 2  # long suits keep their cards
        if k % 7 in (1, 2) and not has_ace:
            value -= POINTS[k]  # a loose ten or king is safer in the discard
        candidates.append((value, -POINTS[k], k))
    candidates.sort()
    discard = tuple(k for _, _, k in candidates[:extra])
    if len(discard) < extra:  # more meld cards than room: give up the cheapest cards
        rest = [k for k in kinds_of(cards & KIND_MASK) if k not in discard]
        discard += tuple(sorted(rest, key=lambda k: card_key(k, trump))[:extra - len(discard)])
    kept = cards
    for k in discard:
        kept = remove_card(kept, k)
    melds = meld_total(find_melds(Hand(mask=kept), Suit(trump), rules))
    points = expected_card_points(kept, trump, rules) + sum(POINTS[k] for k in discard)
    return Plan(discard, Contract(trump), melds, points)


def void_plan(cards: int, plan: Plan, rules: Rules) -> Plan | None:
    """A variant of the trump ``plan`` that lays away every card of its shortest side suit
    (one that fits in the discard and holds no meld card), the rest of the discard as the
    plan's; None if there is no such suit or the plan already voids it. A void lets the
    soloist trump that suit at once.

    >>> cards = Hand.parse("AH AH TH KH QH JH 9H AS TS KS QS JD AC TC 9D QD KD 9C").mask
    >>> plan = plan_contract(cards, 1, Rules.parse("standard"))
    >>> from binokel.card import CARDS
    >>> sorted(str(CARDS[k]) for k in void_plan(cards, plan, Rules.parse("standard")).discard)
    ['9C', 'AC', 'TC']
    """
    trump = int(plan.game)
    keep = meld_cards(find_melds(Hand(mask=cards), Suit(trump), rules)).mask
    extra = cards.bit_count() - rules.hand_size
    best: tuple[int, ...] | None = None
    for suit in range(4):
        if suit == trump:
            continue
        held = [k for k in kinds_of(present(cards) & SUIT_MASK[suit]) for _ in range(1 + (cards >> (k + COPY) & 1))]
        if not held or len(held) > extra or present(keep) & SUIT_MASK[suit]:
            continue
        if best is None or len(held) < len(best):
            best = tuple(held)
    if best is None:
        return None
    rest = [k for k in plan.discard if k // 7 != best[0] // 7]
    discard = best + tuple(rest[:extra - len(best)])
    if len(discard) < extra:  # the plan laid away fewer of its other cards than room is left: its cheapest
        kept = cards
        for k in discard:
            kept = remove_card(kept, k)
        spare = sorted((k for k in kinds_of(present(kept)) if not present(keep) >> k & 1),
                       key=lambda k: card_key(k, trump))
        discard += tuple(spare[:extra - len(discard)])
    if sorted(discard) == sorted(plan.discard) or len(discard) != extra:
        return None
    kept = cards
    for k in discard:
        kept = remove_card(kept, k)
    melds = meld_total(find_melds(Hand(mask=kept), Suit(trump), rules))
    points = expected_card_points(kept, trump, rules) + sum(POINTS[k] for k in discard)
    return Plan(discard, plan.game, melds, points)


def partner_share(rules: Rules, card_points: int) -> int:
    """Card points the soloist's partners may add with teams: their share of the points
    the soloist does not take, split evenly among the other playing seats (0 without teams).

    >>> from binokel.rules import Rules
    >>> partner_share(Rules.parse("kreuz"), 100), partner_share(Rules.parse("standard"), 100)
    (50, 0)
    """
    if not rules.has_teams:
        return 0
    partners = rules.active // 2 - 1
    return max(0, 250 - card_points) * partners // (rules.active - 1)


def no_trump_gaps(hand: int, game: int, rules: Rules) -> int:
    """How far ``hand`` is from a sure game without trump: for Durch (any kind), the cards
    of the deck above the lowest card held in each suit that the hand lacks; for Bettel,
    the cards below the highest held. 0 means sure for Durch (the soloist leads every
    trick) and nearly sure for Bettel (nobody can lead under the soloist's cards).

    >>> no_trump_gaps(Hand.parse("AS AS TS TS KS AH AH TH TH AD AD TD TD AC AC").mask, DURCH, Rules.parse("standard"))
    0
    >>> no_trump_gaps(Hand.parse("9S 9S JS JS 9H 9H JH JH 9D 9D JD JD 9C 9C JC").mask, BETTEL, Rules.parse("standard"))
    0
    """
    low, high = hand & KIND_MASK, hand >> COPY
    gaps = 0
    for suit in range(4):
        held = low & SUIT_MASK[suit]
        if not held:
            continue
        ranks = list(kinds_of(held))
        edge = max(ranks) if game != BETTEL else min(ranks)  # lowest card (Durch) or highest (Bettel)
        if game != BETTEL:
            wanted = HIGHER[edge] & rules.kind_mask
        else:
            wanted = SUIT_MASK[suit] & rules.kind_mask & ~HIGHER[edge] & ~(1 << edge)
        gaps += (wanted & ~low).bit_count() + (wanted & ~high).bit_count()
    return gaps


def is_sure_durch(hand: int, rules: Rules) -> bool:
    """Can the soloist, leading every trick, surely win them all? (In each suit held,
    every card above the lowest one held is in the hand.)

    >>> is_sure_durch(Hand.parse("AS AS TS TS KS AH AH TH TH AD AD TD TD AC AC").mask, Rules.parse("standard"))
    True
    """
    return no_trump_gaps(hand, DURCH, rules) == 0


def plan_no_trump(cards: int, game: int, rules: Rules) -> Plan:
    """Lay away the cards that leave the fewest gaps for ``game`` (Durch or Bettel),
    greedily one card at a time; ties keep the points out of the opponents' reach."""
    plan = _plan_no_trump(cards, game == BETTEL, rules)
    return Plan(plan.discard, Contract(game), 0, 0)


@lru_cache(maxsize=16384)
def _plan_no_trump(cards: int, bettel: bool, rules: Rules) -> Plan:
    game = BETTEL if bettel else DURCH  # every Durch has the same gaps
    extra = cards.bit_count() - rules.hand_size
    kept = cards
    discard: tuple[int, ...] = ()
    for _ in range(extra):
        kind = min(kinds_of(present(kept)),
                   key=lambda k: (no_trump_gaps(remove_card(kept, k), game, rules), -POINTS[k]))
        kept, discard = remove_card(kept, kind), discard + (kind,)
    return Plan(discard, Contract(game), 0, 0)


def choose_card(hand: int, legal: int, trick: list[int], best: int, order: tuple[int, ...], seat: int,
                game: int, soloist: int, rules: Rules, gone: int, soloist_hand: int | None = None) -> int:
    """A sound card by simple club-player rules. ``order`` lists the seats of this trick
    from its leader; ``game`` is the trump suit or a game without trump; ``gone`` holds
    every card played so far; ``soloist_hand`` the soloist's hand when known (open Durch,
    or a playout). Partners (with teams in ``rules``) and fellow defenders help each other.

    >>> hand = Hand.parse("AS 9S KH").mask
    >>> from binokel.card import CARDS as CARD_NAMES
    >>> str(CARD_NAMES[choose_card(hand, hand & KIND_MASK, [], 0, (0, 1, 2), 0, 1, 1, Rules.parse("standard"), 0)])
    'AS'
    """
    kinds = list(kinds_of(legal))
    if len(kinds) == 1:
        return kinds[0]
    out = full_kinds(gone, hand)  # kinds nobody else can still hold

    def is_master(k: int) -> bool:
        above = HIGHER[k]
        return (out & above) == above

    if game >= DURCH:
        return _no_trump_card(kinds, trick, best, order, seat, game, soloist, rules, is_master, out, soloist_hand)
    trump = game
    mine = rules.partners(seat, soloist)
    if not trick:
        return _lead(hand, kinds, mine, trump, gone, is_master)
    top = trick[best]
    to_come = order[len(trick) + 1:]
    opponents_to_come = any(rules.partners(s, soloist) != mine for s in to_come)
    winning = [k for k in kinds if beats(k, top, trump)]
    richest = lambda k: (k // 7 != trump, POINTS[k], k % 7)  # noqa: E731
    if rules.partners(order[best], soloist) == mine:
        # A partner has the trick: smear points if the opponents cannot take it; never overtake it needlessly.
        if not opponents_to_come or (top // 7 == trump and is_master(top)):
            return max(kinds, key=richest)
        return cheapest(kinds, trump)
    if winning:
        if not opponents_to_come:
            side = [k for k in winning if k // 7 != trump]
            return max(side, key=richest) if side else max(winning, key=lambda k: k % 7)
        masters = [k for k in winning if is_master(k)]
        if masters:
            return max(masters, key=richest)
        if winning[0] // 7 == trump and top // 7 != trump:
            return max(winning, key=lambda k: k % 7)  # trump in low
        return min(winning, key=lambda k: k % 7)
    return cheapest(kinds, trump)


def _no_trump_card(kinds: list[int], trick: list[int], best: int, order: tuple[int, ...], seat: int, game: int,
                   soloist: int, rules: Rules, is_master: Callable[[int], bool], out: int,
                   soloist_hand: int | None) -> int:
    """Durch: the soloist must take every trick, everybody else (a partner too) breaks it by
    taking one, and keeps the cards that can still beat one of the soloist's (when it knows
    them). Bettel: the soloist must take none; the opponents play under it, and the
    must-beat rule makes it climb; a partner helps by taking tricks."""
    bettel = game == BETTEL
    lowest = lambda k: (k % 7, -POINTS[k])  # noqa: E731  (sorts the lowest card last)
    if seat == soloist:
        if not trick:
            if bettel:  # the card the most outstanding cards can beat
                return max(kinds, key=lambda k: ((HIGHER[k] & ~out).bit_count(), k % 7))
            masters = [k for k in kinds if is_master(k)]
            return min(masters or kinds, key=lambda k: k % 7)
        top = trick[best]
        winning = [k for k in kinds if beats(k, top, NO_TRUMP)]
        if bettel:
            under = [k for k in kinds if k not in winning]
            if under:
                return min(under, key=lambda k: k % 7)  # shed the highest card that stays under
            return max(winning, key=lowest) if order[len(trick) + 1:] else min(winning, key=lambda k: k % 7)
        if winning:
            masters = [k for k in winning if is_master(k)]
            return max(masters, key=lowest) if masters else min(winning, key=lambda k: k % 7)
        return max(kinds, key=lowest)
    helper = rules.partners(seat, soloist)  # the soloist's partner
    if bettel == helper:  # Durch opponents, and the Bettel soloist's partner: take a trick
        if not trick:
            return min(kinds, key=lambda k: k % 7)
        winning = [k for k in kinds if beats(k, trick[best], NO_TRUMP)]
        if winning:
            return min(winning, key=lambda k: k % 7)
        if soloist_hand is not None and not bettel:
            held = present(soloist_hand)

            def guards(k: int) -> bool:
                return bool(held & SUIT_MASK[k // 7] & ~HIGHER[k] & ~(1 << k))

            return max(kinds, key=lambda k: (not guards(k), k % 7))  # let go of a card that beats nothing
        return max(kinds, key=lowest)
    # Bettel opponents, and the Durch soloist's partner: stay under, shed high cards when safe.
    if not trick:
        return max(kinds, key=lowest)
    soloist_to_come = soloist in order[len(trick) + 1:]
    if bettel and soloist_to_come:
        return max(kinds, key=lowest)  # play low: the soloist must go over it
    under = [k for k in kinds if not beats(k, trick[best], NO_TRUMP)]
    return min(under or kinds, key=lambda k: k % 7)


def _lead(hand: int, kinds: list[int], declarer: bool, trump: int, gone: int, is_master: Callable[[int], bool]) -> int:
    trumps = [k for k in kinds if k // 7 == trump]
    side = [k for k in kinds if k // 7 != trump]
    if declarer and trumps:
        outstanding = SUIT_MASK[trump] & ~full_kinds(gone, hand)
        if outstanding:
            top = min(trumps, key=lambda k: k % 7)
            if is_master(top) or len(trumps) >= 5:
                return top
    side_masters = [k for k in side if is_master(k)]
    if side_masters:
        return max(side_masters, key=lambda k: POINTS[k])
    if declarer and trumps and not side:
        return min(trumps, key=lambda k: k % 7)
    pool = side or kinds
    return cheapest(pool, trump)


__all__ = ["best_contract", "plan_contract", "plan_no_trump", "no_trump_gaps", "expected_card_points", "partner_share",
           "is_sure_durch", "choose_card", "void_plan", "cheapest", "card_key", "DURCH", "NO_TRUMP", "Plan"]
