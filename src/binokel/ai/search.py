"""Search on fully known positions: heuristic playouts and an exact endgame solver.

The hard bot runs these in worlds sampled from its knowledge (perfect-information
Monte Carlo); the oracle runs them on the true deal.

>>> import random
>>> from binokel.state import State
>>> from binokel.ai.fast import Position
>>> state = State.new("standard", dealer=2).deal_random(random.Random(4))
>>> for text in ("150", "pass", "pass"):
...     state = state.apply_text(text)
>>> for _ in range(3):
...     state = state.apply(state.legal_actions()[0])
>>> position = Position.from_state(state.apply_text("H").apply_text("play"))
>>> len(playout(position.copy()).scores())
3
"""

from __future__ import annotations

from binokel.card import POINTS, kinds_of

from binokel.ai.fast import Position
from binokel.ai.policy import choose_card


def utility(scores: tuple[int, ...], seat: int) -> float:
    """A seat's result relative to the others: own score minus their mean.

    >>> utility((240, 80, 80), 0), utility((240, 80, 80), 1)
    (160.0, -80.0)
    """
    others = [s for i, s in enumerate(scores) if i != seat]
    return scores[seat] - sum(others) / len(others)


def playout(position: Position) -> Position:
    """Play ``position`` to the end with the heuristic card rule for every seat (in place)."""
    p = position
    while not p.over:
        seat = p.to_move
        legal = p.legal_mask()
        if legal & (legal - 1):
            kind = choose_card(p.hands[seat], legal, p.trick, p.best, p.leader, seat, p.players, p.trump,
                               p.soloist, p.played)
        else:
            kind = legal.bit_length() - 1
        p.play(kind)
    return p


def cards_left(position: Position) -> int:
    """Cards still to be played in the deal."""
    return sum(h.bit_count() for h in position.hands)


def solve(position: Position, seat: int, node_limit: int = 20000) -> dict[int, float] | None:
    """Exact search to the end: the utility for ``seat`` of each legal card, or None if
    more than ``node_limit`` nodes are needed. Paranoid: the other seats play against
    ``seat`` (right for the soloist; for a defender it undervalues the partner).

    >>> import random
    >>> from binokel.state import State
    >>> state = State.new("standard", dealer=2).deal_random(random.Random(4))
    >>> for text in ("150", "pass", "pass"):
    ...     state = state.apply_text(text)
    >>> for _ in range(3):
    ...     state = state.apply(state.legal_actions()[0])
    >>> state = state.apply_text("H").apply_text("play")
    >>> while sum(h.bit_count() for h in state.hands) > 9:
    ...     state = state.apply(state.legal_actions()[0])
    >>> values = solve(Position.from_state(state), state.to_move)
    >>> sorted(values) == [a.value for a in state.legal_actions()]
    True
    """
    nodes = 0

    def search(p: Position, alpha: float, beta: float) -> float:
        nonlocal nodes
        if p.over:
            return utility(p.scores(), seat)
        nodes += 1
        if nodes > node_limit:
            raise _Abort
        legal = sorted(kinds_of(p.legal_mask()), key=lambda k: -POINTS[k])
        maximise = p.to_move == seat
        best = -1e9 if maximise else 1e9
        for kind in legal:
            child = p.copy()
            child.play(kind)
            value = search(child, alpha, beta)
            if maximise:
                best = max(best, value)
                alpha = max(alpha, value)
            else:
                best = min(best, value)
                beta = min(beta, value)
            if alpha >= beta:
                break
        return best

    values = {}
    try:
        for kind in kinds_of(position.legal_mask()):
            child = position.copy()
            child.play(kind)
            values[kind] = search(child, -1e9, 1e9)
    except _Abort:
        return None
    return values


class _Abort(Exception):
    pass


__all__ = ["utility", "playout", "solve", "cards_left"]
