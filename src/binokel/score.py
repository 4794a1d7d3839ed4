"""Scoring of a finished deal and the end-of-game rule (docs/rules.md sections 4, 6, 7, 8, 10).

A finished deal's public facts are a :class:`DealSummary` — what a score pad writes
down — and :func:`explain` scores it, saying per side what counted, the credits, the
doubled bid, the exact and the rounded total. The state scores every deal it plays
through :func:`explain` of its own summary, and so does a score pad for a deal played
with real cards: one scoring for both.

>>> from binokel.rules import STANDARD
>>> summary = DealSummary.from_json({"dealer": 2, "soloist": 0, "bid": 200, "game": "S", "surrendered": False,
...     "melds": [150, 40, 20], "card_points": [90, 100, 60], "tricks": [4, 6, 5]})
>>> explain(STANDARD, summary).scores
(240, 140, 80)

The side totals come from small functions of plain numbers (:func:`trump_scores`,
:func:`surrender_scores`, :func:`durch_scores`), which the bots' searches call on their
hot paths; :func:`explain` asks the same functions to write down their terms.

>>> trump_scores(STANDARD, soloist=0, bid=200, card_points=(90, 80, 80), meld_points=(150, 0, 0), tricks=(5, 5, 5))
(240, 80, 80)
>>> trump_scores(STANDARD, soloist=0, bid=200, card_points=(40, 120, 90), meld_points=(150, 0, 0), tricks=(5, 5, 5))
(-400, 120, 90)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from binokel.action import BETTEL, DURCH, HAND_DURCH, OPEN_DURCH, Contract
from binokel.card import POINTS
from binokel.error import SummaryError
from binokel.meld import meld_most
from binokel.rules import AllPass, Auction, DefenderMelds, End, Rules

if TYPE_CHECKING:
    from binokel.state import State

LAST_TRICK_BONUS = 10
MAX_BID = 9_999_999_990
"""The highest bid (10 digits): far above any deal's worth, so "no upper limit" (docs/rules.md
section 10) in practice, and every bid is short notation (:func:`binokel.number.read_number`)."""
# Bound once: read for every deal.
_ALWAYS, _SOLOIST, _FORCED, _OPEN_AUCTION = DefenderMelds.ALWAYS, End.SOLOIST, AllPass.FORCED, Auction.OPEN
Terms = list[tuple[str, int]]
"""What a side's total is made of, written down when asked (:func:`explain`): ``(term, points)``."""


def is_made(bid: int, card_points: int, meld_points: int, tricks: int) -> bool:
    """The soloist makes the contract with a trick and card points + melds >= bid."""
    return tricks > 0 and card_points + meld_points >= bid


def melds_count(rules: Rules, declarer_side: bool, won: int) -> bool:
    """Do a seat's melds count? Only with an own trick; a defender's always where
    ``defender_melds=always``."""
    return won > 0 or (not declarer_side and rules.defender_melds is _ALWAYS)


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


def _trump_side(rules: Rules, team: Sequence[int], declarer_side: bool, made: bool, bid: int,
                card_points: Sequence[int], meld_points: Sequence[int], tricks: Sequence[int],
                terms: Terms | None = None) -> int:
    """One side's exact score in a played trump game (the terms written to ``terms``)."""
    if declarer_side and not made:
        if terms is not None:
            terms.append(("doubled_bid", -2 * bid))
        return -2 * bid
    score = sum(_own_points(rules, declarer_side, card_points[s], meld_points[s], tricks[s]) for s in team)
    if terms is not None:
        terms.append(("card_points", sum(card_points[s] for s in team if declarer_side or tricks[s])))
        terms.append(("melds", sum(meld_points[s] for s in team if melds_count(rules, declarer_side, tricks[s]))))
    if not declarer_side and not made and rules.failed_credit:
        score += rules.failed_credit  # once per side (docs/rules.md section 10)
        if terms is not None:
            terms.append(("failed_credit", rules.failed_credit))
    return score


def trump_scores(rules: Rules, soloist: int, bid: int, card_points: Sequence[int],
                 meld_points: Sequence[int], tricks: Sequence[int], out: int | None = None) -> tuple[int, ...]:
    """What a played-out trump game adds to each seat's total. ``card_points`` include
    the last-trick bonus and the soloist's discard. With teams every member of a team
    scores the team's total; ``out`` (the seat sitting out) scores 0."""
    made = contract_made(rules, soloist, bid, card_points, meld_points, tricks)
    scores = [0] * rules.players
    for team in rules.sides(out):
        score = rules.round_score(_trump_side(rules, team, soloist in team, made, bid, card_points, meld_points,
                                              tricks))
        for seat in team:
            scores[seat] = score
    return tuple(scores)


def _surrender_side(rules: Rules, team: Sequence[int], declarer_side: bool, bid: int, meld_points: Sequence[int],
                    terms: Terms | None = None) -> int:
    """One side's exact score when the soloist surrenders (the terms written to ``terms``)."""
    if declarer_side:
        if terms is not None:
            terms.append(("lost_bid", -bid))
        return -bid
    credit, melds = rules.surrender_points(bid), sum(meld_points[s] for s in team)
    if terms is not None:
        terms += [("surrender_credit", credit), ("melds", melds)]
    return credit + melds


def surrender_scores(rules: Rules, soloist: int, bid: int, meld_points: Sequence[int],
                     out: int | None = None) -> tuple[int, ...]:
    """The soloist (and partners) lose the bid; each opposing player or team gets the
    credit plus own melds."""
    scores = [0] * rules.players
    for team in rules.sides(out):
        score = rules.round_score(_surrender_side(rules, team, soloist in team, bid, meld_points))
        for seat in team:
            scores[seat] = score
    return tuple(scores)


def contract_value(rules: Rules, game: int) -> int:
    """The value of a game without trump: Durch, open Durch or Bettel (0: not allowed)."""
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


def _durch_side(rules: Rules, declarer_side: bool, made: bool, game: int, terms: Terms | None = None) -> int:
    """One side's score in a Durch, open Durch or Bettel (the terms written to ``terms``)."""
    is_durch = game != BETTEL
    if is_durch and rules.durch_game:  # a whole game won or lost, no points
        if terms is not None:
            terms.append(("whole_game", (1 if made else -1) if declarer_side else 0))
        return 0
    if declarer_side:
        value = contract_value(rules, game) * (1 if made else -1)
        if terms is not None:
            terms.append(("contract", value))
        return value
    credit = rules.durch_fail_credit if is_durch and not made else 0
    if terms is not None and credit:
        terms.append(("durch_credit", credit))
    return credit


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
    scores = [0] * rules.players
    for team in rules.sides(out):
        score = rules.round_score(_durch_side(rules, soloist in team, made, game))
        for seat in team:
            scores[seat] = score
    return tuple(scores)


def decide_winner(rules: Rules, totals: Sequence[int], soloist: int | None, deals_played: int) -> int | None:
    """The game's winner after a deal, or None to play on (docs/rules.md section 8).

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


# ---------------------------------------------------------------------- a deal's summary, explained

class Outcome(StrEnum):
    """How a deal ended."""

    MADE = "made"
    FAILED = "failed"
    SURRENDERED = "surrendered"
    DURCH_MADE = "durch_made"
    DURCH_FAILED = "durch_failed"
    REDEAL = "redeal"  # open auction, everybody passed, all_pass=redeal: no score
    BETTEL_MADE = "bettel_made"
    BETTEL_FAILED = "bettel_failed"


_MADE, _FAILED, _SURRENDERED, _REDEAL = Outcome.MADE, Outcome.FAILED, Outcome.SURRENDERED, Outcome.REDEAL
_DURCH_MADE, _DURCH_FAILED = Outcome.DURCH_MADE, Outcome.DURCH_FAILED
_BETTEL_MADE, _BETTEL_FAILED = Outcome.BETTEL_MADE, Outcome.BETTEL_FAILED
_GAMES = {contract.word: contract for contract in Contract}
"""The games by their record word (the canonical text a checked summary holds)."""
_WORDS = {int(contract): contract.word for contract in Contract}
SUMMARY_FIELDS = ("dealer", "soloist", "bid", "game", "surrendered", "melds", "card_points", "tricks")


@dataclass(frozen=True)
class DealSummary:
    """The public facts of a finished deal, exactly what a score pad writes down.

    ``soloist`` None: everybody passed and the rules redeal (no score). ``game`` is the
    record's word (``"S"``, ``"H"``, ``"D"``, ``"C"``, ``"durch"``, ``"open_durch"``,
    ``"hand_durch"``, ``"bettel"``). Per seat: ``melds`` the meld total with that game,
    ``card_points`` the points in tricks with the last-trick 10 and, for the soloist, the
    discard (None where the rules make them irrelevant, e.g. on a surrender; one seat's
    None is worked out from the others), ``tricks`` the number of tricks taken.

    >>> summary = DealSummary.from_json({"dealer": 1, "soloist": 2, "bid": 150, "game": "H", "surrendered": True,
    ...                                  "melds": [40, 20, 0]})
    >>> summary.to_json()
    {'dealer': 1, 'soloist': 2, 'bid': 150, 'game': 'H', 'surrendered': True, 'melds': [40, 20, 0]}
    """

    dealer: int
    soloist: int | None
    bid: int | None = None
    game: str | None = None
    surrendered: bool = False
    melds: tuple[int, ...] | None = None
    card_points: tuple[int | None, ...] | None = None
    tricks: tuple[int, ...] | None = None

    @classmethod
    def of(cls, state: State) -> DealSummary:
        """The summary of a finished deal."""
        if not state.is_over():
            raise SummaryError("summary_deal_not_over", field="state")
        soloist, game = state.soloist, state.game
        if soloist is None or game is None:
            return cls(state.dealer, None)
        played = not state.surrendered
        return cls(state.dealer, soloist, state.bid, _WORDS[game], bool(state.surrendered), state.meld_points,
                   state.card_points if played else None, state.won if played else None)

    def to_json(self) -> dict[str, Any]:
        """The summary as JSON: the fields that are given (``soloist`` always)."""
        data: dict[str, Any] = {"dealer": self.dealer, "soloist": self.soloist}
        for name in SUMMARY_FIELDS[2:]:
            value = getattr(self, name)
            if value is not None and (name != "surrendered" or self.soloist is not None):
                data[name] = list(value) if isinstance(value, tuple) else value
        return data

    @classmethod
    def from_json(cls, data: Any) -> DealSummary:
        """Read a summary from JSON (a dict); :class:`SummaryError` naming the ``field`` for
        anything that is not of the right kind (what cannot be under the rules is for
        :func:`explain` to refuse).

        >>> DealSummary.from_json({"dealer": 0, "soloist": None}).soloist is None
        True
        >>> DealSummary.from_json({"dealer": 0, "soloist": 1, "bid": "150"})
        Traceback (most recent call last):
        ...
        binokel.error.SummaryError: bid must be a whole number, not '150'
        """
        if not isinstance(data, Mapping):
            raise SummaryError("summary_not_object", field="summary", value=_shown(data))
        for key in data:
            if key not in SUMMARY_FIELDS:
                raise SummaryError("summary_unknown_field", field=_shown(key), known=", ".join(SUMMARY_FIELDS))
        if "dealer" not in data:
            raise SummaryError("summary_missing", field="dealer")
        if "soloist" not in data:
            raise SummaryError("summary_missing", field="soloist")
        surrendered = data.get("surrendered", False)
        if surrendered is None:
            surrendered = False
        if not isinstance(surrendered, bool):
            raise SummaryError("summary_not_bool", field="surrendered", value=_shown(surrendered))
        game = data.get("game")
        if game is not None and not isinstance(game, str):
            raise SummaryError("summary_not_text", field="game", value=_shown(game))
        return cls(_whole(data["dealer"], "dealer"), _maybe_whole(data["soloist"], "soloist"),
                   _maybe_whole(data.get("bid"), "bid"), game, surrendered, _numbers(data.get("melds"), "melds"),
                   _numbers(data.get("card_points"), "card_points", gaps=True), _numbers(data.get("tricks"), "tricks"))


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 20 else text[:20] + "…"


def _whole(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SummaryError("summary_not_whole_number", field=field, value=_shown(value))
    if abs(value) > 10 * MAX_BID:  # no summary needs more digits; a huge one only costs time
        raise SummaryError("summary_number_too_large", field=field, most=10 * MAX_BID)
    return value


def _maybe_whole(value: Any, field: str) -> int | None:
    return None if value is None else _whole(value, field)


def _numbers(value: Any, field: str, gaps: bool = False) -> Any:
    """A list of whole numbers (with ``gaps``: or None) as a tuple; None when not given."""
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or len(value) > 6:
        raise SummaryError("summary_not_list", field=field, value=_shown(value))
    return tuple(None if gaps and v is None else _whole(v, f"{field}[{i}]") for i, v in enumerate(value))


@dataclass(frozen=True)
class SeatFacts:
    """One seat's part of an explained deal."""

    seat: int
    melds: int
    melds_count: bool
    why_not: str | None
    """Why shown melds do not count: ``"no_trick"`` or ``"surrendered"`` (None when they count or are 0)."""
    card_points: int | None
    tricks: int | None


@dataclass(frozen=True)
class SideScore:
    """One scoring unit (a seat, or a team with partners): its terms, exact and rounded total.

    ``role``: ``"soloist"`` (the soloist's side), ``"defender"``, ``"out"`` (sitting out) or
    ``"none"`` (a redeal: nobody played).
    ``terms`` add up to ``exact``: ``card_points``, ``melds``, ``failed_credit``,
    ``doubled_bid`` (a failed contract), ``lost_bid`` and ``surrender_credit`` (a
    surrender), ``contract`` (Durch or Bettel won or lost), ``durch_credit``, and
    ``whole_game`` (a Durch that wins (+1) or loses (-1) the whole game: no points).
    ``reached``: the soloist's side's card points and counting melds in a played trump game.
    """

    seats: tuple[int, ...]
    role: str
    terms: tuple[tuple[str, int], ...]
    reached: int | None
    exact: int
    score: int


@dataclass(frozen=True)
class ScoreExplanation:
    """A deal's scores and how they came about (:func:`explain`)."""

    summary: DealSummary
    """The summary scored, with a card points entry left out worked out."""
    outcome: Outcome
    made: bool | None
    seats: tuple[SeatFacts, ...]
    sides: tuple[SideScore, ...]
    scores: tuple[int, ...]
    rounding: int

    def to_json(self) -> dict[str, Any]:
        """The explanation for the wire."""
        return {"summary": self.summary.to_json(), "outcome": self.outcome.value, "made": self.made,
                "seats": [{"seat": f.seat, "melds": f.melds, "melds_count": f.melds_count, "why_not": f.why_not,
                           "card_points": f.card_points, "tricks": f.tricks} for f in self.seats],
                "sides": [{"seats": list(s.seats), "role": s.role, "terms": [list(t) for t in s.terms],
                           "reached": s.reached, "exact": s.exact, "score": s.score} for s in self.sides],
                "scores": list(self.scores), "rounding": self.rounding}


def explain(rules: Rules, summary: DealSummary, *, check: bool = True) -> ScoreExplanation:
    """Score a finished deal from its public facts, saying how (docs/rules.md sections 4, 6, 7, 10).

    Refuses a summary that cannot be under ``rules`` with a :class:`SummaryError` naming the
    ``field`` (``check=False``: the caller vouches for it, as the state for its own deals).

    docs/rules.md section 6's worked example, made with 240 and failed with 190:

    >>> from binokel.rules import STANDARD
    >>> made = DealSummary(2, 0, 200, "S", False, (150, 0, 0), (90, 100, 60), (4, 6, 5))
    >>> explain(STANDARD, made).scores, explain(STANDARD, made).sides[0].terms
    ((240, 100, 60), (('card_points', 90), ('melds', 150)))
    >>> failed = DealSummary(2, 0, 200, "S", False, (150, 0, 0), (40, 150, 60), (4, 6, 5))
    >>> explain(STANDARD, failed).outcome, explain(STANDARD, failed).sides[0].terms
    (<Outcome.FAILED: 'failed'>, (('doubled_bid', -400),))
    >>> explain(STANDARD, DealSummary(2, 0, 200, "S", False, (150, 0, 0), (90, 100, 70), (4, 6, 5)))
    Traceback (most recent call last):
    ...
    binokel.error.SummaryError: card_points: the card points add up to 260, but a deal played out has 250
    """
    if check:
        summary = _checked(rules, summary)
    outcome, made, scored = _scored_sides(rules, summary, explained=True)
    players, out = rules.players, rules.sitting_out(summary.dealer)
    melds = summary.melds or (0,) * players
    tricks = summary.tricks or (0,) * players
    if out is not None:
        scored.append(((out,), "out", [], None, 0))
    scored.sort(key=lambda side: side[0][0])
    sides = tuple(SideScore(team, role, tuple(terms), reached, exact, rules.round_score(exact))
                  for team, role, terms, reached, exact in scored)
    scores = [0] * players
    for side in sides:
        for seat in side.seats:
            scores[seat] = side.score
    return ScoreExplanation(summary, outcome, made, _seat_facts(rules, summary, outcome, melds, tricks), sides,
                            tuple(scores), rules.rounding)


Scored = list[tuple[tuple[int, ...], str, Terms, int | None, int]]
"""Per side: (seats, role, terms, reached, exact total)."""


def _scored_sides(rules: Rules, summary: DealSummary, explained: bool) -> tuple[Outcome, bool | None, Scored]:
    """The outcome, made or not, and each side's exact total (with ``explained``, its terms
    and what the soloist's side reached): the one scoring of a summary, for :func:`explain`
    and :func:`deal_scores`."""
    players, soloist, game_word = rules.players, summary.soloist, summary.game
    out = rules.sitting_out(summary.dealer)
    made: bool | None = None
    scored: Scored = []
    if soloist is None or game_word is None:
        return _REDEAL, None, [(team, "none", [], None, 0) for team in rules.sides(out)]
    melds = summary.melds or (0,) * players
    tricks = summary.tricks or (0,) * players
    cards = summary.card_points or (0,) * players
    bid, game = summary.bid or 0, _GAMES.get(game_word) or Contract.parse(game_word)
    if game >= DURCH:
        made = tricks[soloist] == (0 if game == BETTEL else rules.hand_size)
        outcome = (_BETTEL_MADE if made else _BETTEL_FAILED) if game == BETTEL else (
            _DURCH_MADE if made else _DURCH_FAILED)
    elif summary.surrendered:
        outcome = _SURRENDERED
    else:
        made = contract_made(rules, soloist, bid, cards, melds, tricks)  # type: ignore[arg-type]
        outcome = _MADE if made else _FAILED
    for team in rules.sides(out):
        declarer_side = soloist in team
        terms: Terms | None = [] if explained else None
        reached = None
        if game >= DURCH:
            exact = _durch_side(rules, declarer_side, bool(made), game, terms)
        elif summary.surrendered:
            exact = _surrender_side(rules, team, declarer_side, bid, melds, terms)
        else:
            exact = _trump_side(rules, team, declarer_side, bool(made), bid, cards, melds,  # type: ignore[arg-type]
                                tricks, terms)
            if declarer_side and explained:
                reached = sum(_own_points(rules, True, cards[s] or 0, melds[s], tricks[s]) for s in team)
        scored.append((team, "soloist" if declarer_side else "defender", terms or [], reached, exact))
    return outcome, made, scored


def deal_scores(rules: Rules, summary: DealSummary) -> tuple[tuple[int, ...], Outcome]:
    """:func:`explain`'s scores and outcome of a summary the caller vouches for, without the
    explanation: what the state asks for every deal it plays (the engine's playouts).

    >>> from binokel.rules import STANDARD
    >>> deal_scores(STANDARD, DealSummary(2, 0, 200, "S", False, (150, 40, 20), (90, 100, 60), (4, 6, 5)))
    ((240, 140, 80), <Outcome.MADE: 'made'>)
    """
    outcome, _, scored = _scored_sides(rules, summary, explained=False)
    scores = [0] * rules.players
    for team, _, _, _, exact in scored:
        score = rules.round_score(exact)
        for seat in team:
            scores[seat] = score
    return tuple(scores), outcome


def _seat_facts(rules: Rules, summary: DealSummary, outcome: Outcome, melds: Sequence[int],
                tricks: Sequence[int]) -> tuple[SeatFacts, ...]:
    facts = []
    soloist = summary.soloist
    for seat in range(rules.players):
        declarer_side = soloist is not None and rules.partners(seat, soloist)
        if outcome is Outcome.REDEAL or seat == rules.sitting_out(summary.dealer):
            counts, why = False, None
        elif outcome is Outcome.SURRENDERED:
            counts, why = not declarer_side, None if not declarer_side else "surrendered"
        else:
            counts = melds_count(rules, declarer_side, tricks[seat])
            why = None if counts else "no_trick"
        card_points = summary.card_points[seat] if summary.card_points else None
        facts.append(SeatFacts(seat, melds[seat], counts and melds[seat] > 0, why if melds[seat] else None,
                               card_points, summary.tricks[seat] if summary.tricks else None))
    return tuple(facts)


@lru_cache(maxsize=64)
def deal_points(rules: Rules) -> int:
    """The card points at stake in a deal: the deck's and the last trick's 10.

    >>> from binokel.rules import STANDARD
    >>> deal_points(STANDARD)
    250
    """
    return sum(POINTS[kind] for kind in rules.deck_kinds) + LAST_TRICK_BONUS


@lru_cache(maxsize=64)
def discard_most(rules: Rules) -> int:
    """The most card points a discard can hold (the soloist's card points without a trick)."""
    return sum(sorted((POINTS[kind] for kind in rules.deck_kinds), reverse=True)[:rules.tapp_size])


def _checked(rules: Rules, summary: DealSummary) -> DealSummary:
    """``summary`` if it can be under ``rules`` (a card points entry left out worked out),
    else :class:`SummaryError` naming the first offending field."""
    players = rules.players
    if not 0 <= summary.dealer < players:
        raise SummaryError("summary_bad_seat", field="dealer", last=players - 1, value=summary.dealer)
    out = rules.sitting_out(summary.dealer)
    soloist = summary.soloist
    if soloist is None:
        if rules.auction is not _OPEN_AUCTION or rules.all_pass is _FORCED:
            raise SummaryError("summary_no_redeal", field="soloist")
        return summary
    if not 0 <= soloist < players:
        raise SummaryError("summary_bad_seat", field="soloist", last=players - 1, value=soloist)
    if soloist == out:
        raise SummaryError("summary_soloist_out", field="soloist", seat=soloist)
    bid = summary.bid
    if bid is None:
        raise SummaryError("summary_missing", field="bid")
    if bid < rules.min_bid:
        raise SummaryError("summary_bid_low", field="bid", minimum=rules.min_bid, value=bid)
    if bid % 10:
        raise SummaryError("summary_bid_step", field="bid", value=bid)
    if bid > MAX_BID:
        raise SummaryError("summary_bid_high", field="bid", most=MAX_BID, value=bid)
    game = _game_of(rules, summary.game)
    if summary.surrendered and game >= DURCH:
        raise SummaryError("summary_surrender_not_trump", field="surrendered", game=game.word)
    melds = summary.melds
    if melds is None and game < DURCH:
        raise SummaryError("summary_missing", field="melds")
    if melds is not None:
        _check_seats(rules, melds, "melds", out)
        most = meld_most(rules, rules.hand_size)
        for seat, value in enumerate(melds):
            if value % 10:
                raise SummaryError("summary_melds_step", field=f"melds[{seat}]", value=value)
            if value and game >= DURCH:
                raise SummaryError("summary_melds_without_trump", field=f"melds[{seat}]", game=game.word)
            if value > most:
                raise SummaryError("summary_melds_high", field=f"melds[{seat}]", value=value, most=most)
    if summary.surrendered:
        return summary  # nothing was played: tricks and card points are not read
    tricks = summary.tricks
    if tricks is None:
        raise SummaryError("summary_missing", field="tricks")
    _check_seats(rules, tricks, "tricks", out)
    if sum(tricks) > rules.hand_size or (game < DURCH and sum(tricks) != rules.hand_size):
        raise SummaryError("summary_tricks_sum", field="tricks", total=sum(tricks), expected=rules.hand_size)
    if game >= DURCH:
        _check_durch_tricks(rules, soloist, game, tricks)
    return _checked_card_points(rules, summary, soloist, game, tricks, out)


def _game_of(rules: Rules, word: str | None) -> Contract:
    allowed = [c.word for c in Contract if c < DURCH or contract_value(rules, c)]
    if word is None:
        raise SummaryError("summary_missing", field="game")
    try:
        game = Contract.parse(word)
    except ValueError:
        raise SummaryError("summary_bad_game", field="game", value=_shown(word), games=", ".join(allowed)) from None
    if game.word not in allowed:
        raise SummaryError("summary_bad_game", field="game", value=_shown(word), games=", ".join(allowed))
    return game


def _check_seats(rules: Rules, values: Sequence[int | None], field: str, out: int | None) -> None:
    """One entry per seat, none negative, the seat sitting out with nothing."""
    if len(values) != rules.players:
        raise SummaryError("summary_length", field=field, count=rules.players, given=len(values))
    for seat, value in enumerate(values):
        if value is None:
            continue
        if value < 0:
            raise SummaryError("summary_negative", field=f"{field}[{seat}]", value=value)
        if seat == out and value:
            raise SummaryError("summary_out_not_zero", field=f"{field}[{seat}]", seat=seat)


def _check_durch_tricks(rules: Rules, soloist: int, game: Contract, tricks: Sequence[int]) -> None:
    """A Durch ends made with every trick the soloist's or lost with the first trick
    another seat takes; a Bettel made with no trick of the soloist's and every trick
    played, or lost with the soloist's first trick."""
    others = sum(tricks) - tricks[soloist]
    if game == BETTEL:
        possible = (tricks[soloist] == 0 and others == rules.hand_size) or tricks[soloist] == 1
    else:
        possible = tricks[soloist] == rules.hand_size or others == 1
    if not possible:
        raise SummaryError("summary_contract_tricks", field="tricks", game=game.word)


def _checked_card_points(rules: Rules, summary: DealSummary, soloist: int, game: Contract,
                         tricks: Sequence[int], out: int | None) -> DealSummary:
    points = summary.card_points
    if points is None:
        if game >= DURCH:
            return summary  # a Durch or Bettel is decided by its tricks alone
        raise SummaryError("summary_missing", field="card_points")
    _check_seats(rules, points, "card_points", out)
    total = deal_points(rules)
    for seat, value in enumerate(points):
        if value is None:
            continue
        if value > total:
            raise SummaryError("summary_card_points_high", field=f"card_points[{seat}]", value=value, most=total)
        if not tricks[seat]:  # no trick: nothing, or the soloist's discard
            most = discard_most(rules) if seat == soloist and game != HAND_DURCH else 0
            if value > most:
                raise SummaryError("summary_points_without_trick", field=f"card_points[{seat}]", value=value,
                                   most=most)
    playing = [seat for seat in range(rules.players) if seat != out]
    missing = [seat for seat in playing if points[seat] is None and (tricks[seat] or seat == soloist)]
    known = sum(p or 0 for p in points)
    filled = [p if p is not None else 0 for p in points]
    if game >= DURCH:  # played until the contract was decided: at most the deal's points
        if missing:
            raise SummaryError("summary_missing", field=f"card_points[{missing[0]}]")
        if known > total:
            raise SummaryError("summary_card_points_over", field="card_points", total=known, most=total)
    else:
        if len(missing) > 1:
            raise SummaryError("summary_missing", field=f"card_points[{missing[1]}]")
        if known > total or (known != total and not missing):
            raise SummaryError("summary_card_points_sum", field="card_points", total=known, expected=total)
        if missing:  # the one seat left out has the rest
            seat = missing[0]
            filled[seat] = total - known
            if not tricks[seat] and filled[seat] > discard_most(rules):
                raise SummaryError("summary_card_points_sum", field="card_points", total=known, expected=total)
    return DealSummary(summary.dealer, soloist, summary.bid, game.word, summary.surrendered, summary.melds,
                       tuple(filled), summary.tricks)
