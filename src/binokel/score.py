"""Scoring of a finished deal and the end-of-game rule (RULES.md sections 4, 6, 7, 8).

Pure functions of plain numbers, so the state machine, replays and tests share them.

>>> from binokel.rules import STANDARD
>>> trump_scores(STANDARD, soloist=0, bid=200, card_points=(90, 80, 80), meld_points=(150, 0, 0), tricks=(5, 5, 5))
(240, 80, 80)
>>> trump_scores(STANDARD, soloist=0, bid=200, card_points=(40, 120, 90), meld_points=(150, 0, 0), tricks=(5, 5, 5))
(-400, 120, 90)
"""

from __future__ import annotations

from collections.abc import Sequence

from binokel.rules import Rules

LAST_TRICK_BONUS = 10


def is_made(bid: int, card_points: int, meld_points: int, tricks: int) -> bool:
    """The soloist makes the contract with a trick and card points + melds >= bid."""
    return tricks > 0 and card_points + meld_points >= bid


def trump_scores(rules: Rules, soloist: int, bid: int, card_points: Sequence[int],
                 meld_points: Sequence[int], tricks: Sequence[int]) -> tuple[int, ...]:
    """What a played-out trump game adds to each seat's total. ``card_points`` include
    the last-trick bonus and the soloist's discard."""
    made = is_made(bid, card_points[soloist], meld_points[soloist], tricks[soloist])
    scores = []
    for seat, (cards, melds, won) in enumerate(zip(card_points, meld_points, tricks)):
        if seat == soloist:
            score = cards + melds if made else -2 * bid
        else:
            counts_melds = won > 0 or rules.defender_melds == "always"
            score = (cards if won else 0) + (melds if counts_melds else 0)
            if not made:
                score += rules.failed_credit
        scores.append(rules.round_score(score))
    return tuple(scores)


def surrender_scores(rules: Rules, soloist: int, bid: int, meld_points: Sequence[int]) -> tuple[int, ...]:
    """The soloist loses the bid; each opponent gets the credit plus own melds."""
    credit = rules.surrender_points(bid)
    return tuple(rules.round_score(-bid if seat == soloist else credit + melds)
                 for seat, melds in enumerate(meld_points))


def durch_scores(rules: Rules, soloist: int, made: bool) -> tuple[int, ...]:
    """Durch: +value or -value for the soloist, nothing for the opponents."""
    return tuple((rules.durch if made else -rules.durch) if seat == soloist else 0
                 for seat in range(rules.players))


def decide_winner(rules: Rules, totals: Sequence[int], soloist: int | None, deals_played: int) -> int | None:
    """The game's winner after a deal, or None to play on (RULES.md section 8).

    >>> from binokel.rules import STANDARD
    >>> decide_winner(STANDARD, (1510, 1600, 900), soloist=0, deals_played=9)
    0
    >>> decide_winner(STANDARD, (1510, 1600, 900), soloist=2, deals_played=9)
    1
    >>> decide_winner(STANDARD, (1600, 1600, 900), soloist=2, deals_played=9) is None
    True
    """
    if rules.deals:
        if deals_played < rules.deals:
            return None
        contenders = list(range(len(totals)))
    else:
        contenders = [seat for seat, total in enumerate(totals) if total >= rules.target]
        if not contenders:
            return None
        if soloist in contenders:
            return soloist
    best = max(totals[seat] for seat in contenders)
    leaders = [seat for seat in contenders if totals[seat] == best]
    return leaders[0] if len(leaders) == 1 else None
