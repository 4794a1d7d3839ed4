"""An exact open-card solver for the rest of a deal: what the soloist's side takes.

The objective is the classic one of double-dummy solvers for trick games: the soloist
and its partners (one side) against everyone else (the other side), with every hand
known. The side's *gain* is

- in a trump game: the card points of the tricks it wins from here on (the last-trick
  bonus included, the cards already in the current trick included);
- in a Durch: the number of tricks it wins from here on (the Durch is made when that
  is every trick left);
- in a Bettel: the number of tricks the *other* side wins (made when that is every trick).

In a trump game the solver can also track who takes a trick (``melds``, off by default): a
seat's melds count only once it takes a trick (RULES.md section 6), so with ``melds[seat]``
the points a first trick of ``seat`` is worth (0 for a seat that has one already or no melds)
the gain adds the melds of the side's seats that take a first trick from here and of the other
side's seats that take none (what the other side's first trick costs the side). The seats
still without a trick are part of the transposition table's key.

:meth:`Solver.value` returns the exact minimax gain, :meth:`Solver.move_values` the
gain after each legal card, :meth:`Solver.makes` whether the side reaches a threshold.
They run fail-soft zero-window alpha-beta searches (for a value: the first a margin
above a heuristic playout's gain, down by the bounds that fail, then bisection) sharing one transposition table
of bounds, keyed by the hands and the leader at every trick start (the gain of the
remaining tricks depends on nothing else). The two copies of a card are one move.
Cards of adjacent rank (no card still in play between them) are equivalent for
taking tricks, but merging them is exact only when they score alike, and no Binokel
deck has two ranks of equal points (A 11, 10 10, K 4, O 3, U 2, 9 or 7 0): so nothing
more is merged. Moves are ordered cheaply: a card that wins the
trick for its side first, high points to a trick one's own side takes, low points
otherwise; the best lead found before first.

The search itself (:meth:`Solver._search`) also exists in C, ``binokel._solve``,
built by the install where a C compiler works: the same search with the same values,
and more pruning — leads ordered by what the opponents hold, and a card skipped where
an equivalent one of the same seat dominates it (see ``_solve.c``) — so its node counts
differ; its value's searches loop in C, their first guess its own playout. It is
20–80 times faster than this module compiled by Cython. The solver uses it unless it
is not built or ``BINOKEL_PURE`` covers ``ai.solver``; :func:`search_core` says which runs.

It is checked against brute force over the reference engine (``tests/test_ai_solver.py``),
the C search against this module's (``tests/test_ai_solver_core.py``), and timed by
``bench/solve.py``.

>>> import random
>>> from binokel.state import State
>>> from binokel.ai.fast import Position
>>> state = State.new("standard", dealer=2).deal_random(random.Random(4))
>>> for text in ("150", "pass", "pass"):
...     state = state.apply_text(text)
>>> for _ in range(3):
...     state = state.apply(state.legal_actions()[0])
>>> state = state.apply_text("H").apply_text("play")
>>> while sum(h.bit_count() for h in state.hands) > 12:
...     state = state.apply(state.legal_actions()[0])
>>> solver = Solver(Position.from_state(state))
>>> value = solver.value()
>>> 0 <= value <= solver.upper_bound()
True
>>> max(solver.move_values().values()) == value  # the soloist's side is to move here
True
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Union

from binokel.action import BETTEL
from binokel.ai.fast import Position
from binokel.card import COPY, KIND_MASK, POINTS
from binokel.score import LAST_TRICK_BONUS
from binokel.trick import NO_TRUMP, beats, legal_cards

if TYPE_CHECKING:
    from binokel import _cython as cython
    import binokel._solve as _solve
else:  # Cython's pure-Python mode: C types of a few hot locals when compiled (setup.py)
    try:
        import cython
    except ImportError:
        from binokel import _cython as cython

_SHIFT = 56  # bits of one hand mask in the transposition key
_ABOVE_GUESS = 20  # card points over a guess where the value's first search starts (Solver._mtd)


def _load_core() -> ModuleType | None:
    """The C search, unless it is not built or BINOKEL_PURE asks for the interpreted solver."""
    pure = os.environ.get("BINOKEL_PURE", "").strip()
    if pure in ("1", "yes", "true") or "ai.solver" in (n.strip() for n in pure.split(",")):
        return None
    try:
        import binokel._solve as _solve
    except ImportError:
        return None
    return _solve


_core = _load_core()

Table = Union[dict[int, tuple[int, int, int]], "_solve.Table"]
"""The bounds the searches of one deal's positions share (:func:`new_table`)."""


def new_table() -> Table:
    """An empty table for :class:`Solver`: several solvers of positions of one deal (the
    same soloist and game, for example one per sampled world) may share it."""
    return _core.Table() if _core is not None else {}


def search_core() -> str:
    """Which search runs: ``"C"`` (``binokel._solve``) or ``"Python"`` (this module,
    compiled by Cython or not).

    >>> search_core() in ("C", "Python")
    True
    """
    return "C" if _core is not None else "Python"


class SolveAborted(Exception):
    """The search needed more nodes than its limit (the solver can be asked again with more)."""


class Solver:
    """Exact search of one open-card position (the hands of ``position`` are all known).

    The position is not changed. A solver keeps its transposition table, so asking for
    :meth:`value` and then :meth:`move_values` of the same position is cheap."""

    def __init__(self, position: Position, table: Table | None = None, node_limit: int | None = None,
                 melds: Sequence[int] | None = None) -> None:
        p = position
        self.node_limit = node_limit if node_limit is not None else 1 << 62
        self.position = p
        self.rules = p.rules
        soloist_team = p.rules.team_of(p.soloist)
        # side[seat]: True for the soloist's side (the maximising side).
        self.side = tuple(p.rules.team_of(s) == soloist_team and s != p.out for s in range(p.players))
        # gainer[seat]: a trick won by ``seat`` counts for the side (a Durch or Bettel is the soloist's own).
        if p.trump != NO_TRUMP:
            self.gainer = self.side
        elif p.game == BETTEL:
            self.gainer = tuple(s != p.soloist for s in range(p.players))
        else:
            self.gainer = tuple(s == p.soloist for s in range(p.players))
        self.trump = p.trump
        self.mode = 0 if p.trump != NO_TRUMP else (2 if p.game == BETTEL else 1)  # 0 points, 1 Durch, 2 Bettel
        # melds[seat]: what the seat's first trick from here is worth (the module's description); the
        # seats with melds left to count are ``pending`` (a bit a seat), keyed in the table.
        counted = tuple(max(0, int(m)) for m in melds) if melds is not None and self.mode == 0 else ()
        if counted and len(counted) != p.players:
            raise ValueError("melds: one a seat")
        self.melds = counted if any(counted) else (0,) * p.players
        self.pending = sum(1 << s for s in range(p.players) if self.melds[s])
        self.table: Table = new_table() if table is None else table
        self._follow_orders: dict[int, tuple[int, ...]] = {}  # the move order by legal cards, winning card, seats
        self.nodes = 0

    # ------------------------------------------------------------------ bounds

    def upper_bound(self) -> int:
        """The most the soloist's side could gain from here (every point or trick left)."""
        p = self.position
        return self._most(p.hands, p.trick, p.leader, self.pending)

    def _most(self, hands: list[int], trick: list[int], leader: int, pending: int) -> int:
        """The most the side could gain with these hands and this trick: every point or trick left
        (and the melds of the seats ``pending``)."""
        if self.mode:
            return -(-(sum(h.bit_count() for h in hands) + len(trick)) // max(1, len(self.position.orders[leader])))
        return (sum(_mask_points(h) for h in hands) + sum(POINTS[k] for k in trick) + LAST_TRICK_BONUS
                + _pending_melds(self.melds, pending))

    def _closed(self, winner: int, pending: int, done: bool) -> tuple[int, int]:
        """What the melds add to the side's gain when ``winner`` takes a trick (``done``: the
        deal's last), and the seats still without a trick after it."""
        extra = 0
        if pending >> winner & 1:
            pending ^= 1 << winner
            if self.side[winner]:
                extra = self.melds[winner]
        if done and pending:
            extra += sum(self.melds[s] for s in range(len(self.melds)) if pending >> s & 1 and not self.side[s])
        return extra, pending

    # ------------------------------------------------------------------ driver

    def value(self, guess: int | None = None) -> int:
        """The exact gain of the soloist's side from here with best play by everyone."""
        p = self.position
        if guess is None and not self.mode:
            if isinstance(self.table, dict):
                guess = self.playout_gain()
            else:  # the C search's own playout: its first choices (cheaper, about as good a guess)
                assert _core is not None
                guess = _core.playout(self.table, p.hands, p.hands, p.trick, p.orders, p.leader, p.best, self.trump,
                                      self.mode, p.beat_led, bool(p.rules.partner_exemption), self.side, self.gainer,
                                      self.melds, self.pending)
        return self._mtd(list(p.hands), list(p.trick), p.leader, p.best, guess, self.pending)

    def playout_gain(self) -> int:
        """The side's gain when the heuristic card rule plays the rest: a first guess."""
        from binokel.ai.search import (
            playout,  # the search module imports this one's users
        )

        p = self.position
        before = sum(p.points[s] for s in range(p.players) if self.gainer[s])
        done = playout(p.copy())
        gain = sum(done.points[s] for s in range(p.players) if self.gainer[s]) - before
        for s in range(p.players):
            if self.pending >> s & 1 and (done.won[s] > p.won[s]) == self.side[s]:
                gain += self.melds[s]
        return gain

    def move_values(self) -> dict[int, int]:
        """For each legal card of the seat to move, the side's exact gain after playing it
        (the current trick's points included)."""
        p = self.position
        values: dict[int, int] = {}
        legal = p.legal_mask()
        guess: int | None = None
        for kind in _kinds(legal):
            hands = list(p.hands)
            trick = list(p.trick)
            seat = p.to_move
            hands[seat] = _remove(hands[seat], kind)
            trick.append(kind)
            best = p.best if len(trick) == 1 or not beats(kind, trick[p.best], self.trump) else len(trick) - 1
            order = p.orders[p.leader]
            if len(trick) == len(order):
                winner = order[best]
                gain = self._gain(trick, winner, not hands[winner])
                extra, pending = self._closed(winner, self.pending, not hands[winner])
                gain += extra
                if not any(hands):
                    values[kind] = gain
                    continue
                values[kind] = gain + self._mtd(hands, [], winner, 0, None if guess is None else guess - gain, pending)
            else:
                values[kind] = self._mtd(hands, trick, p.leader, best, guess, self.pending)
            guess = values[kind]
        return values

    def makes(self, threshold: int) -> bool:
        """Can the soloist's side gain at least ``threshold`` from here? (One zero-window search.)"""
        p = self.position
        return self._search(list(p.hands), list(p.trick), p.leader, p.best, threshold, self.pending) >= threshold

    def _gain(self, trick: list[int], winner: int, last: bool) -> int:
        if not self.gainer[winner]:
            return 0
        if self.mode == 0:
            return sum(POINTS[k] for k in trick) + (LAST_TRICK_BONUS if last else 0)
        return 1

    def _mtd(self, hands: list[int], trick: list[int], leader: int, best: int, guess: int | None,
             pending: int) -> int:
        """Zero-window searches closing in on the exact value from above: a fail-soft search
        that fails low returns a tight upper bound, one that fails high hardly more than its
        threshold (the bounds of a point game are weak that way). So the first search is a
        margin over ``guess`` (or at the most there is), each next one at the upper bound the
        last returned, until one succeeds: then bisection of what is still open."""
        low = 0
        high = self._most(hands, trick, leader, pending)
        probe = high if guess is None else min(max(guess + _ABOVE_GUESS, low + 1), high)
        if not isinstance(self.table, dict):  # the C search's table: the same searches, looped in C
            assert _core is not None
            p = self.position
            value, nodes = _core.value(self.table, p.hands, hands, trick, p.orders, leader, best, high, probe,
                                       self.trump, self.mode, p.beat_led, bool(p.rules.partner_exemption), self.side,
                                       self.gainer, self.melds, pending, self.node_limit - self.nodes)
            self.nodes += nodes
            if value is None:
                raise SolveAborted(f"more than {self.node_limit} nodes")
            return int(value)
        while low < high:
            g = self._search(hands, trick, leader, best, probe, pending)
            if g >= probe:
                low = max(probe, min(g, high))
                probe = (low + high + 1) // 2
            else:
                high = min(probe - 1, max(g, low))
                probe = high
            probe = min(max(probe, low + 1), high)
        return low

    # ------------------------------------------------------------------ search

    def _search(self, hands: list[int], trick: list[int], leader: int, best: int, threshold: int,
                pending: int) -> int:
        """Fail-soft zero-window search: a value ``v`` with ``true >= v`` if ``v >= threshold``,
        else ``true <= v``. ``hands`` and ``trick`` are restored before it returns."""
        p = self.position
        if not isinstance(self.table, dict):  # the C search's table: the same search in C
            assert _core is not None
            # p.hands: the root the table's compact keys are for (it empties itself for another root)
            value, nodes = _core.search(self.table, p.hands, hands, trick, p.orders, leader, best, threshold - 1,
                                        threshold, self._most(hands, trick, leader, pending), self.trump, self.mode,
                                        p.beat_led, bool(p.rules.partner_exemption), self.side, self.gainer,
                                        self.melds, pending, self.node_limit - self.nodes)
            self.nodes += nodes
            if value is None:
                raise SolveAborted(f"more than {self.node_limit} nodes")
            return int(value)
        orders = p.orders
        trump = self.trump
        side = self.side
        gainer = self.gainer
        mode = self.mode
        beat_led = p.beat_led
        exemption = bool(p.rules.partner_exemption)
        table = self.table
        limit = self.node_limit
        shift = _SHIFT
        points = POINTS
        bonus = LAST_TRICK_BONUS

        follow_orders = self._follow_orders
        melds = self.melds
        closed = self._closed

        @cython.locals(leader=cython.int, best=cython.int, t=cython.int, left=cython.int, n=cython.int,
                       pending=cython.int, extra=cython.int, after=cython.int,
                       seat=cython.int, top=cython.int, kind=cython.int, new_best=cython.int, winner=cython.int,
                       result=cython.int, value=cython.int, gain=cython.int, taken=cython.int, chosen=cython.int,
                       mine=cython.bint, last_card=cython.bint, done=cython.bint, k=cython.int,
                       hand=cython.ulonglong, legal=cython.ulonglong, lead_hand=cython.ulonglong)
        def search(trick: list[int], leader: int, best: int, t: int, left: int, pending: int) -> int:
            # left: the most the side could still gain (_most of hands and trick), kept
            # up to date as tricks end instead of being counted again at every table entry;
            # pending: the seats whose melds wait for their first trick (Solver.melds).
            self.nodes += 1
            if self.nodes > limit:
                raise SolveAborted(f"more than {limit} nodes")
            if t <= 0:
                return 0
            order = orders[leader]
            n = len(trick)
            key = 0
            if n == 0:
                lead_hand = hands[order[0]]
                if not lead_hand & (lead_hand - 1):
                    # One card each (every seat in play holds as many as the leader): the last
                    # trick plays itself, with no table entry to make.
                    top = -1
                    winner = leader
                    total = bonus
                    for s in order:
                        kind = hands[s].bit_length() - 1  # a lone card sits in its first-copy bit
                        total += points[kind]
                        if top < 0 or beats(kind, top, trump):
                            top, winner = kind, s
                    extra = closed(winner, pending, True)[0] if pending else 0
                    if not gainer[winner]:
                        return extra
                    return total + extra if mode == 0 else 1
                for h in hands:
                    key = (key << shift) | h
                key = (key << 3 | leader) << 6 | pending
                entry = table.get(key)
                if entry is not None:
                    lo, hi, first = entry
                    if lo >= t:
                        return lo
                    if hi < t:
                        return hi
                else:
                    first = -1
                    lo = 0
                    hi = left
                    if hi < t:
                        table[key] = (lo, hi, -1)
                        return hi
            seat = order[n]
            hand = hands[seat]
            if n:
                top = trick[best]
                exempt = exemption and (order[best] - seat) % 2 == 0
                legal = legal_cards(hand, trick, best, trump, beat_led, bool(exempt))
            else:
                top = -1
                legal = (hand | hand >> COPY) & KIND_MASK
            mine = side[seat]
            if n:
                # The order of the moves depends on these alone (the sides are the solver's).
                order_key = legal << 16 | (top + 1) << 8 | seat << 4 | order[best]
                cached = follow_orders.get(order_key)
                if cached is None:
                    cached = follow_orders[order_key] = tuple(_ordered(legal, top, best, order, n, gainer, mine,
                                                                       trump, mode))
                moves: Sequence[int] = cached
            else:
                leads = _ordered(legal, top, best, order, n, gainer, mine, trump, mode)
                if len(leads) > 1 and first in leads:
                    leads.remove(first)
                    leads.insert(0, first)
                moves = leads
            result = -1 if mine else 1 << 20
            chosen = -1
            last_card = n + 1 == len(order)
            for kind in moves:
                hands[seat] = _remove(hand, kind)
                trick.append(kind)
                # beats(kind, top, trump), inline: the innermost loop of the search
                if n and (kind % 7 < top % 7 if kind // 7 == top // 7 else kind // 7 == trump):
                    new_best = n
                else:
                    new_best = best
                if last_card:
                    winner = order[new_best]
                    done = not hands[winner]
                    if mode == 0:
                        taken = 0
                        for k in trick:
                            taken += points[k]
                        gain = taken + (bonus if done else 0) if gainer[winner] else 0
                        after = pending
                        if pending:
                            extra, after = closed(winner, pending, done)
                            gain += extra
                            if after != pending:
                                taken += melds[winner]  # (no longer in what the side could gain)
                        if not done:
                            value = gain + search([], winner, 0, t - gain, left - taken, after)
                        else:
                            value = gain
                    else:
                        gain = 1 if gainer[winner] else 0
                        value = gain if done else gain + search([], winner, 0, t - gain, left - 1, 0)
                else:
                    value = search(trick, leader, new_best, t, left, pending)
                trick.pop()
                hands[seat] = hand
                if mine:
                    if value > result:
                        result, chosen = value, kind
                        if result >= t:
                            break
                elif value < result:
                    result, chosen = value, kind
                    if result < t:
                        break
            if n and chosen != moves[0] and (result >= t if mine else result < t):
                # A cutoff by a later card: try it first the next time these cards meet here (a new
                # tuple: a search further up may be going through the old one).
                # (A loop, not a generator: a generator would capture the C-typed local when compiled.)
                reordered = [chosen]
                for m in moves:
                    if m != chosen:
                        reordered.append(m)
                follow_orders[order_key] = tuple(reordered)
            if n == 0:
                entry = table.get(key)
                lo, hi, _ = entry if entry is not None else (0, left, -1)
                if result >= t:
                    lo = max(lo, result)
                else:
                    hi = min(hi, result)
                table[key] = (lo, hi, chosen)
            return result

        return search(trick, leader, best, threshold, self._most(hands, trick, leader, pending), pending)


def _ordered(legal: int, top: int, best: int, order: tuple[int, ...], n: int, gainer: tuple[bool, ...],
             mine: bool, trump: int, mode: int) -> list[int]:
    """The moves among ``legal``, likely best first."""
    if n == 0:
        # Lead: high cards first (aces before tens...): they take tricks or draw out the rest.
        lead = _LEADS.get(legal)
        if lead is None:
            lead = _LEADS[legal] = tuple(sorted(_kinds(legal), key=lambda k: (k % 7, -POINTS[k])))
        return list(lead)
    kinds = _kinds(legal)
    if len(kinds) < 2:
        return kinds
    seat = order[n]
    holder = order[best]
    scored = []
    for k in kinds:
        gains = gainer[seat if beats(k, top, trump) else holder]
        want = gains if mine else not gains
        if mode == 0:
            # Points to a trick the side takes help it, to one the others take help them.
            scored.append((not want, -POINTS[k] if gains else POINTS[k], k))
        else:
            scored.append((not want, k % 7 if want else -(k % 7), k))
    scored.sort()
    return [k for _, _, k in scored]


_LEADS: dict[int, tuple[int, ...]] = {}
_KINDS: dict[int, tuple[int, ...]] = {}


def _kinds(mask: int) -> list[int]:
    kinds = _KINDS.get(mask)
    if kinds is None:
        out = []
        rest = mask
        while rest:
            low = rest & -rest
            out.append(low.bit_length() - 1)
            rest ^= low
        kinds = _KINDS[mask] = tuple(out)
    return list(kinds)


@cython.locals(mask=cython.ulonglong, kind=cython.int, bit=cython.ulonglong)
def _remove(mask: int, kind: int) -> int:
    bit = 1 << (kind + COPY)
    return mask ^ bit if mask & bit else mask ^ (1 << kind)


def _pending_melds(melds: Sequence[int], pending: int) -> int:
    """The melds of the seats ``pending`` (a bit a seat)."""
    return sum(m for s, m in enumerate(melds) if pending >> s & 1)


_SUIT_POINTS: dict[int, int] = {}


def _mask_points(mask: int) -> int:
    """Card points of a hand mask (cached per 7-bit suit chunk)."""
    total = 0
    while mask:
        chunk = mask & 0x7F
        mask >>= 7
        if chunk:
            value = _SUIT_POINTS.get(chunk)
            if value is None:
                value = _SUIT_POINTS[chunk] = sum(POINTS[r] for r in range(7) if chunk >> r & 1)
            total += value
    return total


__all__ = ["SolveAborted", "Solver", "Table", "new_table", "search_core"]
