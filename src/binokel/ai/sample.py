"""Sampling complete deals consistent with everything one seat knows.

A :class:`World` places every card the seat has not seen: the other hands, the Tapp
before it is shown, the soloist's discard (for the other seats). Cards are placed
with the Hall condition checked over the few hidden places, so the constraints from
:class:`~binokel.ai.knowledge.Knowledge` (voids, "no higher" facts, shown melds) never
fail; the exact shown melds (no *extra* meld from two cards together) are then
checked by rejection.

>>> import random
>>> from binokel.state import State
>>> from binokel.view import view
>>> state = State.new("standard", dealer=2).deal_random(random.Random(3))
>>> seen = view(state, 1)
>>> world = sample_world(Knowledge.from_view(seen), random.Random(1))
>>> view(build_state(seen, world), 1) == seen
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from binokel.action import DISCARDS, DURCH, GAMES, HAND_DURCH, PLAY_ON, PLAYS, SURRENDER, TAKE
from binokel.card import CARDS, Hand, Suit, add_masks, both_copies, counts_of, mask_of
from binokel.meld import find_melds
from binokel.rules import MustBeat
from binokel.state import Outcome, Phase, State
from binokel.view import SeatView

from binokel.ai.fast import POINTS, Position
from binokel.ai.knowledge import Knowledge, winning_position

MAX_TRIES = 400


class SamplingError(Exception):
    """No consistent world was found (the knowledge is contradictory or too tight)."""


@dataclass(frozen=True)
class World:
    """One guess of the hidden cards: every seat's hand now, the Tapp and the discard."""

    hands: tuple[int, ...]  # masks, by seat (the viewer's own hand included)
    tapp: tuple[int, ...]  # kinds
    discard: tuple[int, ...]  # kinds (the soloist's discard so far; empty before it)


def sample_world(knowledge: Knowledge, rng: random.Random, max_tries: int = MAX_TRIES) -> World:
    """A random world consistent with ``knowledge``; raises SamplingError if none is found."""
    k = knowledge
    rules = k.rules
    me, soloist = k.seat, k.soloist
    deck = counts_of(both_copies(rules.kind_mask))
    free = deck[:]
    _subtract(free, k.hand)
    _subtract(free, k.played_all)
    seats = [seat for seat in range(k.players) if seat not in (me, k.sitting_out)]
    places: list[str | int] = list(seats)  # the other seats, then "tapp" or "discard" where cards may hide
    capacity: dict[str | int, int] = {seat: k.hand_sizes[seat] - k.shown[seat].bit_count() for seat in seats}
    for seat in seats:
        _subtract(free, k.shown[seat])
    reserved: list[int] = []  # Tapp cards still with the soloist: in hand or discard
    if k.tapp is None:  # face down: before the soloist takes it, or for good after a hand Durch
        if rules.tapp_size:
            places.append("tapp")
            capacity["tapp"] = rules.tapp_size
    elif me == soloist:
        _subtract(free, mask_of(k.discard or ()))
    else:
        assert soloist is not None  # the Tapp is shown once the auction is won
        if k.discarded:
            places.append("discard")
            capacity["discard"] = k.discarded
        tapp_left = counts_of(mask_of(k.tapp or ()))
        _subtract(tapp_left, k.played[soloist])
        _subtract(tapp_left, k.shown[soloist])
        for kind, n in enumerate(tapp_left):
            reserved += [kind] * max(0, n)
            free[kind] -= max(0, n)
    if min(free) < 0 or any(c < 0 for c in capacity.values()):
        raise SamplingError("the seat's knowledge is inconsistent")
    cards = [kind for kind, n in enumerate(free) for _ in range(n)]

    index = {place: i for i, place in enumerate(places)}
    everywhere = (1 << len(places)) - 1
    allowed_of: dict[tuple[int, bool], int] = {}

    def allowed(kind: int, is_reserved: bool) -> int:
        key = (kind, is_reserved)
        if key not in allowed_of:
            bits = 0
            for place, i in index.items():
                if is_reserved and place not in (soloist, "discard"):
                    continue
                if isinstance(place, int) and k.excluded[place] >> kind & 1:
                    continue
                bits |= 1 << i
            allowed_of[key] = bits
        return allowed_of[key]

    pieces = [(kind, allowed(kind, False)) for kind in cards] + [(kind, allowed(kind, True)) for kind in reserved]
    constrained = [p for p in pieces if p[1] != everywhere]
    loose_pieces = [p for p in pieces if p[1] == everywhere]
    if any(bits == 0 for _, bits in constrained):
        raise SamplingError("a card fits nowhere")
    checked = [seat for seat in seats if k.meld_constrained(seat)]
    trump = None
    if checked:  # melds are shown in trump games only
        assert k.game is not None and k.game.trump is not None
        trump = k.game.trump
    for _ in range(max_tries):
        placed = _place(constrained, loose_pieces, [capacity[p] for p in places], rng)
        if placed is None:
            raise SamplingError("the hidden cards cannot be placed")
        if trump is not None and not _repair(placed, places, checked, k, trump, rng):
            continue
        hands = [k.hand if seat == me else k.shown[seat] for seat in range(k.players)]
        tapp: list[int] = list(k.tapp or ())
        discard: list[int] = list(k.discard or ()) if me == soloist else []
        for place, pile in zip(places, placed):
            kinds = [kind for kind, _ in pile]
            if place == "tapp":
                tapp = kinds
            elif place == "discard":
                discard = kinds
            else:
                assert isinstance(place, int)
                hands[place] = add_masks(hands[place], mask_of(kinds))
        return World(tuple(hands), tuple(tapp), tuple(discard))
    raise SamplingError(f"no world reproduces the shown melds in {max_tries} tries")


REPAIR_STEPS = 400


def _repair(placed: list[list[tuple[int, int]]], places: list[str | int], checked: list[int], k: Knowledge,
            trump: Suit, rng: random.Random) -> bool:
    """Swap cards between places until every checked seat shows exactly its melds.

    A hand holds at least its shown meld cards, so its best total is at least the shown
    total; the excess is the error to drive to zero."""
    index = {place: i for i, place in enumerate(places)}
    melds = k.melds
    assert melds is not None  # checked seats have shown melds
    targets = {seat: sum(m.points for m in melds[seat]) for seat in checked}

    def excess(seat: int) -> int:
        pile = placed[index[seat]]
        hand = add_masks(add_masks(k.shown[seat], k.played[seat]), mask_of([kind for kind, _ in pile]))
        return sum(m.points for m in find_melds(Hand(mask=hand), trump, k.rules)) - targets[seat]

    errors = {seat: excess(seat) for seat in checked}
    for _ in range(REPAIR_STEPS):
        bad = [seat for seat in checked if errors[seat]]
        if not bad:
            return all(_shows(k.shown[seat], seat, k, trump, placed[index[seat]]) for seat in checked)
        i = index[rng.choice(bad)]
        j = rng.randrange(len(places) - 1)
        j += j >= i
        if not placed[i] or not placed[j]:
            continue
        a, b = rng.randrange(len(placed[i])), rng.randrange(len(placed[j]))
        (kind_a, bits_a), (kind_b, bits_b) = placed[i][a], placed[j][b]
        if not (bits_a >> j & 1 and bits_b >> i & 1) or kind_a == kind_b:
            continue
        placed[i][a], placed[j][b] = placed[j][b], placed[i][a]
        touched = [seat for seat in (places[i], places[j]) if seat in errors]
        new = {seat: excess(seat) for seat in touched}
        if sum(new.values()) <= sum(errors[seat] for seat in touched):
            errors.update(new)
        else:
            placed[i][a], placed[j][b] = placed[j][b], placed[i][a]
    return False


def _shows(shown: int, seat: int, k: Knowledge, trump: Suit, pile: list[tuple[int, int]]) -> bool:
    """Would ``seat`` holding ``shown`` and ``pile`` (plus its played cards) show exactly its melds?"""
    hand = add_masks(add_masks(shown, k.played[seat]), mask_of([kind for kind, _ in pile]))
    return k.melds is not None and tuple(find_melds(Hand(mask=hand), trump, k.rules)) == k.melds[seat]


def _place(constrained: list[tuple[int, int]], loose: list[tuple[int, int]], capacity: list[int],
           rng: random.Random) -> list[list[tuple[int, int]]] | None:
    """Put each card in one allowed place, filling every place exactly (Hall-checked)."""
    places = len(capacity)
    room = capacity[:]
    result: list[list[tuple[int, int]]] = [[] for _ in range(places)]
    pending = constrained[:]
    rng.shuffle(pending)
    pending.sort(key=lambda p: p[1].bit_count())
    groups: dict[int, int] = {}
    for _, bits in pending:
        groups[bits] = groups.get(bits, 0) + 1
    if not _feasible(groups, room, places):
        return None
    for piece in pending:
        bits = piece[1]
        groups[bits] -= 1
        options = [i for i in range(places) if bits >> i & 1 and room[i] > 0]
        rng.shuffle(options)
        options.sort(key=lambda i: -room[i] * rng.random())
        for i in options:
            room[i] -= 1
            if _feasible(groups, room, places):
                result[i].append(piece)
                break
            room[i] += 1
        else:
            return None
    rest = loose[:]
    rng.shuffle(rest)
    start = 0
    for i in range(places):
        result[i].extend(rest[start:start + room[i]])
        start += room[i]
    return result


def _feasible(groups: dict[int, int], room: list[int], places: int) -> bool:
    """Hall's condition: every set of places has room for the cards confined to it."""
    active = [(bits, n) for bits, n in groups.items() if n]
    if not active:
        return True
    for subset in range(1, 1 << places):
        need = sum(n for bits, n in active if bits & ~subset == 0)
        if need and need > sum(room[i] for i in range(places) if subset >> i & 1):
            return False
    return True


def _subtract(counts: list[int], mask: int) -> None:
    for kind, n in enumerate(counts_of(mask)):
        counts[kind] -= n


def dealt_hands(knowledge: Knowledge, world: World) -> list[list[int]]:
    """The hands as dealt, from the hands now and the public history."""
    hands = []
    for seat, hand in enumerate(world.hands):
        counts = counts_of(add_masks(hand, knowledge.played[seat]))
        if seat == knowledge.soloist and knowledge.tapp is not None:  # the Tapp was taken
            for kind in world.discard:
                counts[kind] += 1
            for kind in world.tapp:
                counts[kind] -= 1
        hands.append([kind for kind, n in enumerate(counts) for _ in range(n)])
    return hands


def build_state(view: SeatView, world: World) -> State:
    """The real :class:`State` of ``world``: deal it, then replay the public actions."""
    knowledge = Knowledge.from_view(view)
    rules = knowledge.rules
    hands = dealt_hands(knowledge, world)
    state = State.new(rules, view.dealer).deal([[CARDS[k] for k in h] for h in hands],
                                               [CARDS[k] for k in world.tapp])
    for call in view.auction:
        state = state.apply(call)
    if state.phase is Phase.TAPP and (knowledge.game == HAND_DURCH or knowledge.tapp is not None):
        state = state.apply(GAMES[HAND_DURCH] if knowledge.game == HAND_DURCH else TAKE)
    for kind in world.discard:
        state = state.apply(DISCARDS[kind])
    if knowledge.game is not None and knowledge.game != HAND_DURCH:
        state = state.apply(GAMES[knowledge.game])
        if knowledge.game < DURCH and view.surrendered is not None:
            state = state.apply(SURRENDER if view.surrendered else PLAY_ON)
    for trick in list(view.tricks) + [view.trick]:
        for card in trick.cards:
            state = state.apply(PLAYS[card.index])
    return state


def world_position(view: SeatView, knowledge: Knowledge, world: World) -> Position:
    """The play phase of ``world`` as a fast :class:`Position` (no replay needed)."""
    game, soloist, bid, to_move = knowledge.game, knowledge.soloist, view.bid, view.to_move
    assert game is not None and soloist is not None and bid is not None and to_move is not None  # the play phase
    p = Position.__new__(Position)
    rules = knowledge.rules
    p.rules = rules
    p.players = knowledge.players
    p.orders = knowledge.orders
    p.out = knowledge.sitting_out
    p.hands = list(world.hands)
    p.game = game
    p.trump = knowledge.trump
    p.soloist = soloist
    p.bid = bid
    p.melds = tuple(sum(m.points for m in seat) for seat in view.melds) if view.melds else (0,) * p.players
    p.discard_points = sum(POINTS[k] for k in world.discard)
    p.leader = view.trick.leader
    p.to_move = to_move
    p.trick = [c.index for c in view.trick.cards]
    p.best = winning_position(p.trick, p.trump)
    p.points = list(view.trick_points)
    p.won = list(view.tricks_won)
    p.played = knowledge.played_all
    p.over = view.phase is Phase.OVER
    p.broken = p.over and view.outcome in (Outcome.DURCH_FAILED, Outcome.BETTEL_FAILED)
    p.beat_led = rules.must_beat is MustBeat.LED
    return p


__all__ = ["World", "SamplingError", "sample_world", "build_state", "world_position", "dealt_hands"]
