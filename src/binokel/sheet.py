"""A score sheet: a game played with real cards, deal by deal as a score pad writes it down.

Each deal is a :class:`~binokel.score.DealSummary` scored by :func:`~binokel.score.explain`,
the scoring of every played deal; the dealer rotates as in :class:`~binokel.game.Game`
(the old forehand deals next, a redealt deal too), and the game ends by
:func:`~binokel.score.decide_winner` (the target, or the fixed number of deals). Any
deal may be corrected: the totals and the end are worked out again from the deals.

>>> sheet = Sheet.new("standard(target=300)", ["Anna", "Ben", "Cleo"], first_dealer=2)
>>> sheet = sheet.add({"soloist": 0, "bid": 200, "game": "S", "melds": [150, 40, 20],
...                    "card_points": [90, 100, 60], "tricks": [4, 6, 5]})
>>> sheet.totals, sheet.next_dealer, sheet.winner
((240, 140, 80), 0, None)
>>> sheet = sheet.correct(0, {"soloist": 0, "bid": 200, "game": "S", "melds": [150, 40, 20],
...                           "card_points": [150, 40, 60], "tricks": [8, 2, 5]})
>>> sheet.totals, sheet.winner
((300, 80, 80), 0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from binokel.error import SummaryError
from binokel.rules import Rules
from binokel.score import DealSummary, ScoreExplanation, decide_winner, explain

FORMAT = "binokel-pad/1"
NAME_MOST = 40
"""The longest player name kept."""


@dataclass(frozen=True)
class Sheet:
    """Immutable: the rules, the players, the first dealer and every deal entered so far."""

    rules: Rules
    players: tuple[str, ...]
    first_dealer: int
    deals: tuple[ScoreExplanation, ...] = ()

    @classmethod
    def new(cls, rules: Rules | str, players: Sequence[str], first_dealer: int = 0) -> Sheet:
        """A sheet for ``players`` (one name per seat, in seat order) under ``rules``."""
        rules = Rules.parse(rules) if isinstance(rules, str) else rules
        names = tuple(str(name).strip()[:NAME_MOST] for name in players)
        if len(names) != rules.players:
            raise SummaryError("pad_players", field="players", count=rules.players, given=len(names))
        if not all(names) or len(set(names)) != len(names):
            raise SummaryError("pad_names", field="players")
        if not 0 <= first_dealer < rules.players:
            raise SummaryError("summary_bad_seat", field="first_dealer", last=rules.players - 1, value=first_dealer)
        return cls(rules, names, first_dealer)

    def dealer_of(self, index: int) -> int:
        """Who deals deal ``index`` (0-based)."""
        return (self.first_dealer + index) % self.rules.players  # the old forehand: the next seat

    @property
    def next_dealer(self) -> int:
        return self.dealer_of(len(self.deals))

    def _scored(self, index: int, entry: DealSummary | Mapping[str, Any]) -> ScoreExplanation:
        if not isinstance(entry, (DealSummary, Mapping)):
            raise SummaryError("summary_not_object", field="summary", value=repr(entry)[:20])
        data = entry.to_json() if isinstance(entry, DealSummary) else dict(entry)
        data["dealer"] = self.dealer_of(index)  # the rotation decides, not the entry
        return explain(self.rules, DealSummary.from_json(data))

    def add(self, entry: DealSummary | Mapping[str, Any]) -> Sheet:
        """The sheet with the next deal (its ``dealer`` filled in); SummaryError if it cannot
        be, or if the game is already over."""
        if self.is_over():
            raise SummaryError("pad_game_over", field="deal")
        return replace(self, deals=self.deals + (self._scored(len(self.deals), entry),))

    def correct(self, index: int, entry: DealSummary | Mapping[str, Any]) -> Sheet:
        """The sheet with deal ``index`` (0-based) replaced; the totals follow."""
        if not 0 <= index < len(self.deals):
            raise SummaryError("pad_no_such_deal", field="deal", last=len(self.deals), value=index + 1)
        deals = list(self.deals)
        deals[index] = self._scored(index, entry)
        return replace(self, deals=tuple(deals))

    def running(self) -> list[tuple[int, ...]]:
        """The totals after each deal."""
        totals = (0,) * self.rules.players
        result = []
        for deal in self.deals:
            totals = tuple(t + s for t, s in zip(totals, deal.scores))
            result.append(totals)
        return result

    @property
    def totals(self) -> tuple[int, ...]:
        running = self.running()
        return running[-1] if running else (0,) * self.rules.players

    @property
    def winner(self) -> int | None:
        """The winner (with teams: the team, also its lowest seat), after the first deal that
        decided the game; None while it goes on."""
        for number, (deal, totals) in enumerate(zip(self.deals, self.running()), 1):
            winner = decide_winner(self.rules, totals, deal.summary.soloist, number)
            if winner is not None:
                return winner
        return None

    def is_over(self) -> bool:
        return self.winner is not None

    def ranking(self) -> list[tuple[int, int]]:
        """(seat, total) from the highest total; with teams one entry per team (its lowest seat)."""
        totals = self.totals
        seats = range(2) if self.rules.has_teams else range(self.rules.players)
        return sorted(((seat, totals[seat]) for seat in seats), key=lambda pair: (-pair[1], pair[0]))

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "rules": self.rules.text, "players": list(self.players),
                "first_dealer": self.first_dealer, "deals": [deal.summary.to_json() for deal in self.deals]}

    @classmethod
    def from_json(cls, data: Any) -> Sheet:
        """A saved sheet (every deal checked and scored again)."""
        if not isinstance(data, Mapping) or data.get("format") != FORMAT:
            raise SummaryError("pad_not_a_sheet", field="format")
        deals = data.get("deals")
        if not isinstance(deals, list) or not isinstance(data.get("players"), list):
            raise SummaryError("pad_not_a_sheet", field="deals")
        first = data.get("first_dealer")
        if isinstance(first, bool) or not isinstance(first, int) or not isinstance(data.get("rules"), str):
            raise SummaryError("pad_not_a_sheet", field="first_dealer")
        sheet = cls.new(data["rules"], data["players"], first)
        for deal in deals:
            sheet = sheet.add(deal)
        return sheet
