"""Help for a person at the table: bidding help, the explanation of a deal's numbers and
the review of a finished deal with the strong (``hard``) bot's opinion.

Pure functions of a :class:`~binokel.view.SeatView` (bidding help: what the seat may know)
or of a *finished* deal (explanation, review: the whole deal is public once it is over,
docs/rules.md section 10). Nothing here ever sees a deal in progress beyond one seat's view.

>>> import random
>>> from binokel.state import State
>>> state = State.new("standard", dealer=2).deal_random(random.Random(1))
>>> help = bidding_help(view(state, 0), seed=1, worlds=8)
>>> sorted(help)
['certain', 'estimate', 'limit', 'lowest', 'melds', 'safe']
>>> sorted(help["melds"]) == ["C", "D", "H", "S"]
True
"""

from __future__ import annotations

import random
import time
from typing import Any

from binokel.action import DURCH, GAMES, Action, ActionKind
from binokel.ai import adviser
from binokel.ai.bots import HardBot
from binokel.ai.knowledge import Knowledge
from binokel.card import CARDS, POINTS, Hand, Suit
from binokel.error import BinokelError
from binokel.meld import find_melds, meld_total
from binokel.record import actions_of, replay_game
from binokel.score import LAST_TRICK_BONUS, DealSummary, SideScore, explain
from binokel.state import Phase, State
from binokel.view import SeatView, view

SUITS = ("S", "H", "D", "C")


# ---------------------------------------------------------------------- bidding help

def meld_values(hand: Hand, rules: Any) -> dict[str, int]:
    """What ``hand`` melds with each trump (before the Tapp)."""
    return {letter: meld_total(find_melds(hand, Suit.parse(letter), rules)) for letter in SUITS}


def bidding_help(seen: SeatView, *, seed: int = 0, worlds: int = 24, seconds: float = 2.0) -> dict[str, Any]:
    """What the hand in ``seen`` is worth in the auction, from that seat's view only.

    ``melds``: the melds in hand per trump; ``certain``: the best of them (they count once
    the soloist wins a trick); ``estimate``: the adviser's median total (melds + card
    points, with a sampled Tapp and its best plan) over ``worlds`` simulated deals;
    ``safe``: [low, high], the lower quartile and the median rounded down to 10 (a bid in
    this range is made in most / half of the simulated deals), kept within what may be bid
    (from ``lowest``) and what the adviser would bid (up to ``limit``), so that the two
    never contradict each other; None where the adviser would pass; ``limit``: the highest
    bid the hint level's bot (:func:`binokel.ai.adviser`) would still make with this hand
    (None: it would pass at ``lowest``).
    """
    rules = Knowledge.from_view(seen).rules
    hand = Hand(seen.hand)
    melds = meld_values(hand, rules)
    bot = adviser(seed)
    simulation = bot.simulate(seen, random.Random(seed), worlds, time.perf_counter() + seconds)
    results = simulation.results
    lowest = _lowest(seen, rules.min_bid)
    totals = sorted(p.soloist_total() for p in results if not p.is_durch)
    if totals:
        low, mid = totals[len(totals) // 4], totals[len(totals) // 2]
        safe: list[int] | None = [max(0, low // 10 * 10), max(0, mid // 10 * 10)]
        estimate: int | None = mid
    else:
        safe, estimate = None, None
    limit = None
    if results:
        bid = lowest
        while bid <= lowest + 600 and bot.accepts(simulation, bid):
            limit = bid
            bid += 10
    if safe is not None:  # one advice: no "safe" bid the adviser would not make, none below the opening
        high = min(safe[1], limit) if limit is not None else lowest - 10
        safe = [max(lowest, min(safe[0], high)), high] if high >= lowest else None
    return {"melds": melds, "certain": max(melds.values()), "estimate": estimate, "safe": safe,
            "limit": limit, "lowest": lowest}


def _lowest(seen: SeatView, minimum: int) -> int:
    bids = [a.value for a in seen.legal_actions if a.kind is ActionKind.BID]
    return min(bids) if bids else minimum


# ---------------------------------------------------------------------- explaining a deal

def explain_deal(state: State) -> dict[str, Any]:
    """Every number of a finished deal, so that the page can say how each score came about.

    Per seat: ``melds`` shown and whether they ``count`` (a trick is needed), ``tricks``
    won, ``trick_points`` (cards in tricks), ``last_trick`` (the 10 for the last trick),
    ``discard`` (the soloist's laid-away cards, counted for the soloist). Per scoring unit
    (a team with partners, else a seat): ``raw`` (the sum before rounding), ``score``
    (after rounding), and how it was reached (``rule``: ``sum``, ``doubled`` (a failed
    bid counts twice against), ``surrender``, ``credit`` or ``contract``): read from the core's
    :func:`binokel.score.explain`, whose whole explanation is under ``score``. The Tapp and
    the discard are shown to everyone once the deal is over (docs/rules.md section 10).

    >>> import random
    >>> from binokel.state import State
    >>> state = State.new("standard", dealer=2).deal_random(random.Random(5))
    >>> for text in ["150", "pass", "pass"]:
    ...     state = state.apply_text(text)
    >>> explain_deal(state)["units"]
    Traceback (most recent call last):
    ...
    ValueError: only a finished deal is explained
    """
    if not state.is_over():
        raise ValueError("only a finished deal is explained")
    explained = explain(state.rules, DealSummary.of(state))  # the core's one scoring, said term by term
    last = state.played[-1][2] if state.played else None
    discard = sum(POINTS[k] for k in state.discard)
    seats = []
    for seat, facts in enumerate(explained.seats):
        own = state.trick_points[seat] - (LAST_TRICK_BONUS if seat == last else 0)
        seats.append({"seat": seat, "melds": facts.melds, "counts": facts.melds_count, "tricks": state.won[seat],
                      "trick_points": own, "last_trick": LAST_TRICK_BONUS if seat == last else 0,
                      # After a surrender the laid-away cards count for nobody (no card is played).
                      "discard": discard if seat == state.soloist and not state.surrendered else 0})
    units = [_unit(side) for side in explained.sides if side.role != "out"]
    return {"seats": seats, "units": units, "made": explained.made if state.game is not None and state.game < DURCH
            and not state.surrendered else None, "bid": state.bid, "soloist": state.soloist,
            "game": None if state.game is None else str(GAMES[state.game]),
            "tapp": [str(CARDS[k]) for k in state.tapp], "discard": [str(CARDS[k]) for k in state.discard],
            "discard_points": discard,
            "rounding": state.rules.rounding, "surrendered": bool(state.surrendered), "score": explained.to_json()}


def _unit(side: SideScore) -> dict[str, Any]:
    """One side as the page's result dialog reads it: how its total came about (``rule``),
    the exact total (``raw``), the rounded ``score``, the ``points`` it had and its ``credit``."""
    terms = dict(side.terms)
    if side.role == "none":
        rule = "redeal"
    elif {"contract", "durch_credit", "whole_game"} & terms.keys() or not terms:
        rule = "contract"
    elif {"lost_bid", "surrender_credit"} & terms.keys():
        rule = "surrender"
    elif "doubled_bid" in terms:
        rule = "doubled"
    elif "failed_credit" in terms:
        rule = "credit"
    else:
        rule = "sum"
    points = side.reached if side.reached is not None else terms.get("card_points", 0) + terms.get("melds", 0)
    return {"seats": list(side.seats), "rule": rule, "raw": side.exact, "score": side.score, "points": points,
            "credit": terms.get("failed_credit", terms.get("surrender_credit", 0))}


# ---------------------------------------------------------------------- reviewing a finished deal

def card_values(seen: SeatView, *, seed: int = 0, worlds: int = 16, seconds: float = 1.5) -> dict[str, float]:
    """The hard bot's estimate of each legal card in ``seen`` (its utility: own score minus
    the opponents' mean, averaged over worlds sampled from the view; exact in the endgame):
    its own card-play tally (:meth:`HardBot.play_tally`)."""
    tally = HardBot(seed=seed).play_tally(seen, random.Random(seed), worlds, time.perf_counter() + seconds)
    return {str(action): round(total / max(tally.worlds, 1), 1)
            for action, total in zip(seen.legal_actions, tally.totals, strict=True)}


def review_deal(state: State, seat: int, *, seed: int = 0, worlds: int = 16, budget: float = 0.05) -> dict[str, Any]:
    """Step through a finished deal with every hand open; at each decision of ``seat`` the
    hard bot's choice from that seat's view, and for the cards played its estimated cost
    (``cost``: how much better, in points on average, the bot values its card than the
    one played; 0 when they agree).

    >>> import random
    >>> from binokel.ai import make_bot
    >>> state = State.new("standard", dealer=2).deal_random(random.Random(3))
    >>> bots = [make_bot("easy", seed=s) for s in range(3)]
    >>> while not state.is_over():
    ...     state = state.apply(bots[state.to_move].choose(view(state, state.to_move), budget=0.01))
    >>> review = review_deal(state, 0, worlds=4)
    >>> len(review["tricks"]), len(review["hands"]), all(d["seat"] == 0 for d in review["decisions"])
    (15, 3, True)
    """
    if not state.is_over():
        raise ValueError("only a finished deal is reviewed: its cards are hidden until it is over")
    rules = state.rules
    now = State.new(rules, state.dealer).deal([[CARDS[k] for k in h] for h in state.dealt],
                                                 [CARDS[k] for k in state.tapp])
    bot = HardBot(seed=seed)
    decisions = []
    play_hands: list[list[str]] | None = None
    for step, action in enumerate(actions_of(state)):
        mover = now.to_move
        if now.phase is Phase.PLAY and play_hands is None:
            play_hands = [[str(c) for c in now.hand(s)] for s in range(now.players)]
        if mover == seat:
            seen = view(now, seat)
            entry: dict[str, Any] = {"step": step, "seat": seat, "phase": now.phase.value, "played": str(action),
                                     "trick": len(now.played), "position": len(now.trick)}
            if now.phase is Phase.PLAY and len(seen.legal_actions) > 1:
                values = card_values(seen, seed=seed + step, worlds=worlds)
                best = max(values, key=lambda c: (values[c], -POINTS[_index(c)]))
                entry.update(best=best, values=values, cost=round(values[best] - values[str(action)], 1))
            elif len(seen.legal_actions) > 1:
                choice: Action = bot.choose(seen, random.Random(seed + step), budget)
                entry.update(best=str(choice), cost=None)
            else:
                entry.update(best=str(action), cost=0.0)
            decisions.append(entry)
        now = now.apply(action)
    seen = view(state, seat)
    tricks = [{"leader": t.leader, "cards": [str(c) for c in t.cards], "seats": list(t.seats), "winner": t.winner,
               "points": seen.trick_points_of(k)} for k, t in enumerate(state.tricks)]
    return {"seat": seat, "dealer": state.dealer, "hands": [[str(CARDS[k]) for k in h] for h in state.dealt],
            "play_hands": play_hands, "tricks": tricks, "decisions": decisions, "explain": explain_deal(state),
            "auction": [str(a) for a in state.calls], "callers": list(state.callers)}


def _index(card: str) -> int:
    return next(i for i, c in enumerate(CARDS) if str(c) == card)


def review_record(record: Any, seat: int | None, deal: int | None = None, *, seed: int = 0,
                  worlds: int = 16) -> dict[str, Any]:
    """Review deal ``deal`` (0-based; default the last finished one) of a ``binokel-game/1``
    record (RecordError for a bad record, BinokelError for a deal or seat that does not exist).

    ``seat`` None (a spectator, who holds no seat): the decisions of the deal's soloist
    (seat 0 in a deal nobody bid in), ``"spectator": true`` in the answer.
    """
    game = replay_game(record)
    finished = [d for d in game.deals if d.is_over()]
    if not finished:
        raise BinokelError("no_finished_deal")
    index = len(finished) - 1 if deal is None else deal
    if not 0 <= index < len(finished):
        raise BinokelError("bad_review_deal", last=len(finished) - 1, value=repr(deal))
    spectator = seat is None
    soloist = finished[index].soloist
    reviewed = seat if seat is not None else soloist if soloist is not None else 0
    if not 0 <= reviewed < game.rules.players:
        raise BinokelError("bad_seat", last=game.rules.players - 1, value=repr(seat))
    names = record.get("players") if isinstance(record, dict) else None
    if not isinstance(names, list):
        names = [f"{s + 1}" for s in range(game.rules.players)]
    return {**review_deal(finished[index], reviewed, seed=seed, worlds=worlds), "deal": index, "deals": len(finished),
            "spectator": spectator,
            "players": [str(name) for name in names],
            "rules": game.rules.text}
