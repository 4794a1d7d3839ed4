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

from functools import lru_cache

from binokel.action import BETTEL
from binokel.ai.fast import Position
from binokel.ai.policy import choose_card
from binokel.card import POINTS, kinds_of
from binokel.rules import Rules
from binokel.score import durch_scores


@lru_cache(maxsize=512)
def opponents_of(rules: Rules, seat: int, out: int | None) -> tuple[int, ...]:
    """The seats whose scores count against ``seat``'s: the other team, else every other playing seat.

    >>> from binokel.rules import Rules
    >>> opponents_of(Rules.parse("kreuz"), 0, None), opponents_of(Rules.parse("four-sitout"), 0, 3)
    ((1, 3), (1, 2))
    """
    return tuple(s for s in range(rules.players) if s != out and not rules.partners(s, seat))


def utility(scores: tuple[int, ...], seat: int, opponents: tuple[int, ...] | None = None) -> float:
    """A seat's result relative to its opponents (by default every other seat): own
    score minus their mean. Partners share their score, so with teams this is the team's
    margin.

    >>> utility((240, 80, 80), 0), utility((240, 80, 80), 1)
    (160.0, -80.0)
    """
    if opponents is None:
        opponents = tuple(i for i in range(len(scores)) if i != seat)
    return scores[seat] - sum(scores[i] for i in opponents) / len(opponents)


def contract_worth(rules: Rules, game: int, soloist: int, made: bool, out: int | None = None) -> tuple[int, ...]:
    """What a game without trump is worth to each seat, as the bots weigh it: its scores,
    except that a Durch counting as a whole game (``durch_game=1``) is worth the target.

    >>> from binokel.action import DURCH
    >>> contract_worth(Rules.parse("standard(durch_game=1)"), DURCH, 1, made=True)
    (0, 1500, 0)
    """
    if game != BETTEL and rules.durch_game:
        value = rules.target if made else -rules.target
        return tuple(value if rules.partners(s, soloist) and s != out else 0
                     for s in range(rules.players))
    return durch_scores(rules, soloist, made, out, game)


def position_value(p: Position, seat: int) -> float:
    """The utility for ``seat`` of a finished position."""
    if p.is_durch:
        scores = contract_worth(p.rules, p.game, p.soloist, not p.broken, p.out)
    else:
        scores = p.scores()
    return utility(scores, seat, opponents_of(p.rules, seat, p.out))


def playout(position: Position) -> Position:
    """Play ``position`` to the end with the heuristic card rule for every seat (in place)."""
    p = position
    while not p.over:
        seat = p.to_move
        legal = p.legal_mask()
        if legal & (legal - 1):
            kind = choose_card(p.hands[seat], legal, p.trick, p.best, p.orders[p.leader], seat, p.game,
                               p.soloist, p.rules, p.played, p.hands[p.soloist])
        else:
            kind = legal.bit_length() - 1
        p.play(kind)
    return p


def cards_left(position: Position) -> int:
    """Cards still to be played in the deal."""
    return sum(h.bit_count() for h in position.hands)


def solve(position: Position, seat: int, node_limit: int = 20000) -> dict[int, float] | None:
    """Exact search to the end: the utility for ``seat`` of each legal card, or None if
    more than ``node_limit`` nodes are needed. Partners (with teams) play for ``seat``'s
    team; every other seat plays against it (paranoid: for a defender in a game of one
    against several it undervalues the fellow defenders).

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
    rules = position.rules
    allies = {s for s in range(rules.players) if rules.partners(s, seat)}

    def search(p: Position, alpha: float, beta: float) -> float:
        nonlocal nodes
        if p.over:
            return position_value(p, seat)
        nodes += 1
        if nodes > node_limit:
            raise _Abort
        legal = sorted(kinds_of(p.legal_mask()), key=lambda k: -POINTS[k])
        maximise = p.to_move in allies
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


__all__ = ["utility", "opponents_of", "contract_worth", "position_value", "playout", "solve", "cards_left"]
