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

from binokel.action import BETTEL, DURCH, HAND_DURCH, OPEN_DURCH, Contract
from binokel.rules import DefenderMelds, End, Rules

LAST_TRICK_BONUS = 10
_ALWAYS, _SOLOIST = DefenderMelds.ALWAYS, End.SOLOIST  # bound once: read for every deal


def is_made(bid: int, card_points: int, meld_points: int, tricks: int) -> bool:
    """The soloist makes the contract with a trick and card points + melds >= bid."""
    return tricks > 0 and card_points + meld_points >= bid


def _own_points(rules: Rules, declarer_side: bool, cards: int, melds: int, won: int) -> int:
    """One seat's card points and counting melds: melds need an own trick (for defenders
    unless ``defender_melds=always``); a defender without a trick has no card points
    (the soloist's card points include the discard)."""
    if declarer_side:
        return cards + (melds if won else 0)
    return (cards if won else 0) + (melds if won or rules.defender_melds is _ALWAYS else 0)


def contract_made(rules: Rules, soloist: int, bid: int, card_points: Sequence[int],
                  meld_points: Sequence[int], tricks: Sequence[int]) -> bool:
    """Is the contract made? Alone: a trick and card points + melds >= bid. With teams, the
    soloist's team needs a trick and its points together (each partner's melds counting
    only with an own trick) reach the bid.

    >>> from binokel.rules import Rules
    >>> contract_made(Rules.parse("kreuz"), 0, 190, (60, 20, 70, 100), (40, 0, 20, 0), (3, 1, 2, 4))
    True
    >>> contract_made(Rules.parse("kreuz"), 0, 200, (60, 20, 70, 100), (40, 0, 20, 0), (3, 1, 2, 4))
    False
    """
    if not rules.has_teams:
        return is_made(bid, card_points[soloist], meld_points[soloist], tricks[soloist])
    team = rules.team_seats(rules.team_of(soloist))
    total = sum(_own_points(rules, True, card_points[s], meld_points[s], tricks[s]) for s in team)
    return any(tricks[s] for s in team) and total >= bid


def trump_scores(rules: Rules, soloist: int, bid: int, card_points: Sequence[int],
                 meld_points: Sequence[int], tricks: Sequence[int], out: int | None = None) -> tuple[int, ...]:
    """What a played-out trump game adds to each seat's total. ``card_points`` include
    the last-trick bonus and the soloist's discard. With teams every member of a team
    scores the team's total; ``out`` (the seat sitting out) scores 0."""
    made = contract_made(rules, soloist, bid, card_points, meld_points, tricks)
    scores = [0] * rules.players
    for team in rules.sides(out):
        declarer_side = soloist in team
        if declarer_side and not made:
            score = -2 * bid
        else:
            score = sum(_own_points(rules, declarer_side, card_points[s], meld_points[s], tricks[s]) for s in team)
            if not declarer_side and not made:
                score += rules.failed_credit
        for seat in team:
            scores[seat] = rules.round_score(score)
    return tuple(scores)


def surrender_scores(rules: Rules, soloist: int, bid: int, meld_points: Sequence[int],
                     out: int | None = None) -> tuple[int, ...]:
    """The soloist (and partners) lose the bid; each opposing player or team gets the
    credit plus own melds."""
    credit = rules.surrender_points(bid)
    scores = [0] * rules.players
    for team in rules.sides(out):
        score = -bid if soloist in team else credit + sum(meld_points[s] for s in team)
        for seat in team:
            scores[seat] = rules.round_score(score)
    return tuple(scores)


def contract_value(rules: Rules, game: int) -> int:
    """The value of a game without trump: Durch, open Durch or Bettel."""
    values = {DURCH: rules.durch, OPEN_DURCH: rules.open_durch, BETTEL: rules.bettel, HAND_DURCH: rules.hand_durch}
    return values[Contract(game)]


def contract_worth(rules: Rules, game: int) -> int | None:
    """What a game without trump is played for: its value, or None where it wins or loses
    the whole game (a Durch with ``durch_game=1``).

    >>> from binokel.rules import Rules
    >>> contract_worth(Rules.parse("standard"), DURCH), contract_worth(Rules.parse("standard(durch_game=1)"), DURCH)
    (1000, None)
    """
    if game in (DURCH, OPEN_DURCH, HAND_DURCH) and rules.durch_game:
        return None
    return contract_value(rules, game)


def durch_scores(rules: Rules, soloist: int, made: bool, out: int | None = None, game: int = DURCH) -> tuple[int, ...]:
    """Durch, open Durch or Bettel: +value or -value for the soloist (and partners); the
    opponents get nothing, or ``durch_fail_credit`` each (once per team) when a Durch fails.
    With ``durch_game=1`` a Durch scores no points at all (it counts as a whole game).

    >>> from binokel.rules import Rules
    >>> durch_scores(Rules.parse("standard(durch_fail_credit=300)"), 1, made=False)
    (300, -1000, 300)
    >>> durch_scores(Rules.parse("standard(bettel=300)"), 1, made=True, game=BETTEL)
    (0, 300, 0)
    """
    is_durch = game != BETTEL
    if is_durch and rules.durch_game:
        return (0,) * rules.players
    value = contract_value(rules, game)
    credit = rules.durch_fail_credit if is_durch and not made else 0
    scores = [0] * rules.players
    for team in rules.sides(out):
        for seat in team:
            scores[seat] = (value if made else -value) if soloist in team else credit
    return tuple(scores)


def decide_winner(rules: Rules, totals: Sequence[int], soloist: int | None, deals_played: int) -> int | None:
    """The game's winner after a deal, or None to play on (RULES.md section 8).

    >>> from binokel.rules import STANDARD
    >>> decide_winner(STANDARD, (1510, 1600, 900), soloist=0, deals_played=9)
    0
    >>> decide_winner(STANDARD, (1510, 1600, 900), soloist=2, deals_played=9)
    1
    >>> decide_winner(STANDARD, (1600, 1600, 900), soloist=2, deals_played=9) is None
    True

    With teams the winner is the team number, which is also its lowest seat:

    >>> from binokel.rules import Rules
    >>> decide_winner(Rules.parse("kreuz"), (420, 530, 420, 530), soloist=0, deals_played=4)
    1
    """
    if rules.has_teams:  # partners share their totals: decide between the teams (by the team's lowest seat)
        totals = [totals[team] for team in (0, 1)]
        soloist = None if soloist is None else rules.team_of(soloist)
    if rules.deals:
        if deals_played < rules.deals:
            return None
        contenders = list(range(len(totals)))
    else:
        contenders = [seat for seat, total in enumerate(totals) if total >= rules.target]
        if not contenders:
            return None
        if soloist in contenders and rules.end is _SOLOIST:
            return soloist
    best = max(totals[seat] for seat in contenders)
    leaders = [seat for seat in contenders if totals[seat] == best]
    return leaders[0] if len(leaders) == 1 else None
