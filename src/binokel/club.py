"""Club tournaments (Preisbinokel) played with real cards: the event, the draw, the entries,
the standings, the fees, a series of events. Pure: no clock, no files, no randomness of its
own (a draw is made from a seed that is passed in).

An event is an append-only log of entries (plain JSON: what the organiser and the
scorekeepers did, with who and when); :meth:`Event.apply` checks one entry and returns the
next event, or raises :class:`ClubError` (a reason code with params, ``field`` naming the
entry's field where one is at fault) and changes nothing. Replaying the log rebuilds the
event, so the server stores entries, never a second copy of the standings.

>>> event = Event.create({"name": "Winter cup", "rules": "club", "rounds": 1, "deals": 1})
>>> for name in ("Anna", "Ben", "Cleo"):
...     event = event.apply({"kind": "register", "name": name, "by": "organiser", "at": "19:00"})
>>> event = event.apply(draw(event, seed=7))
>>> table = event.rounds[0].tables[0]
>>> table.number, sorted(table.players), table.scorekeeper in table.players
(1, [0, 1, 2], True)
>>> soloist = table.players.index(0)  # Anna plays 200 in hearts and makes it
>>> summary = {"soloist": soloist, "bid": 200, "game": "H", "surrendered": False,
...            "melds": [150 if s == soloist else 20 for s in range(3)],
...            "card_points": [130 if s == soloist else 60 for s in range(3)], "tricks": [5, 5, 5]}
>>> event = event.apply({"kind": "deal", "round": 1, "table": 1, "deal": 1, "summary": summary,
...                      "by": "table 1", "at": "19:10"})
>>> [(row.place, row.name, row.total, row.won) for row in standings(event)]
[(1, 'Anna', 280, 1), (2, 'Ben', 80, 0), (2, 'Cleo', 80, 0)]
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Any, TypeGuard

from binokel.error import BinokelError
from binokel.rules import Rules
from binokel.score import DealSummary, explain

MAX_PLAYERS = 600
"""The most players an event takes (the largest Preisbinokel we know of has some 150)."""
MAX_ROUNDS = 10
MAX_DEALS = 60
"""The most deals a table plays in one round."""
MAX_NAME = 60
"""The longest name of a player or an event, in characters."""
MAX_MONEY = 100_000
"""The largest fee or entry fee, in cents (1000 €)."""
TIE_BREAKS = ("total", "won", "lost", "played")
"""What the ranking may compare, in the order the event names: ``total`` (more points),
``won`` (more deals won as soloist), ``lost`` (fewer deals lost as soloist — the "lost
games" the fees are paid for), ``played`` (fewer deals played: the same total from fewer
deals, as at a table of four)."""
DEFAULT_TIE_BREAKS = ("total", "won", "lost")
KINDS = ("create", "register", "rename", "drop", "return", "draw", "deal")
"""The kinds of log entry."""


class ClubError(BinokelError):
    """A refused entry of an event: the reason code and its params; nothing changed."""


# ---------------------------------------------------------------------- money


def euros(cents: int) -> str:
    """Cents as euros, the way a price list writes them.

    >>> euros(50), euros(1250), euros(-5)
    ('0.50', '12.50', '-0.05')
    """
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100}.{abs(cents) % 100:02d}"


@dataclass(frozen=True)
class FeeSchedule:
    """The fee per lost game: ``steps`` are (from the n-th lost game on, cents each), the
    first from game 1. The usual schedule: 0.50 € a lost game, 1 € from the fifth.

    >>> fees = FeeSchedule(((1, 50), (5, 100)))
    >>> [fees.fee(n) for n in range(1, 7)], fees.total(6)
    ([50, 50, 50, 50, 100, 100], 400)
    >>> FeeSchedule.from_json([[1, 50], [5, 100]]) == fees, fees.to_json()
    (True, [[1, 50], [5, 100]])
    """

    steps: tuple[tuple[int, int], ...] = ((1, 50), (5, 100))

    def fee(self, n: int) -> int:
        """The fee for the ``n``-th lost game (1-based), in cents."""
        return next((cents for start, cents in reversed(self.steps) if n >= start), 0)

    def total(self, lost: int) -> int:
        """What ``lost`` lost games cost together, in cents."""
        return sum(self.fee(n) for n in range(1, lost + 1))

    def to_json(self) -> list[list[int]]:
        return [[start, cents] for start, cents in self.steps]

    @classmethod
    def from_json(cls, data: Any) -> FeeSchedule:
        if not isinstance(data, list) or not 1 <= len(data) <= 10:
            raise ClubError("club_fees", field="fees")
        steps: list[tuple[int, int]] = []
        for step in data:
            if (not isinstance(step, list) or len(step) != 2 or not all(_is_int(v) for v in step)
                    or not 0 <= step[1] <= MAX_MONEY):
                raise ClubError("club_fees", field="fees")
            steps.append((step[0], step[1]))
        starts = [start for start, _ in steps]
        if starts[0] != 1 or starts != sorted(set(starts)):
            raise ClubError("club_fees", field="fees")
        return cls(tuple(steps))


# ---------------------------------------------------------------------- the event's settings


@dataclass(frozen=True)
class Settings:
    """What the organiser fixes when creating an event (money in cents).

    ``rules`` is a rule text for three active players (``club``, ``standard``, any that
    ``Rules.parse`` takes); a table of four plays the same rules with the dealer sitting
    out (``players=4,sit_out=1``), so the seat that sits out rotates with the deal.
    ``table_size`` 3 or 4 is the size most tables get; where the players do not divide
    evenly, the rest sit at tables of the other size (:func:`table_sizes`).

    >>> settings = Settings.from_json({"name": "Cup", "rules": "club", "rounds": 3, "deals": 12})
    >>> settings.table_rules(4).text, settings.tie_breaks
    ('club(players=4,sit_out=1)', ('total', 'won', 'lost'))
    >>> Settings.from_json(settings.to_json()) == settings
    True
    """

    name: str
    rules: Rules
    rounds: int = 3
    deals: int = 12
    table_size: int = 3
    fees: FeeSchedule = field(default_factory=FeeSchedule)
    entry_fee: int = 0
    tie_breaks: tuple[str, ...] = DEFAULT_TIE_BREAKS
    fewest_meetings: bool = True

    def table_rules(self, seats: int) -> Rules:
        """The rules of a table with ``seats`` players (3, or 4 with the dealer sitting out)."""
        return self.rules if seats == 3 else self.rules.replace(players=4, sit_out=1)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "rules": self.rules.text, "rounds": self.rounds, "deals": self.deals,
                "table_size": self.table_size, "fees": self.fees.to_json(), "entry_fee": self.entry_fee,
                "tie_breaks": list(self.tie_breaks), "fewest_meetings": self.fewest_meetings}

    @classmethod
    def from_json(cls, data: Any) -> Settings:
        """Settings from JSON; ClubError naming the field at fault."""
        if not isinstance(data, dict):
            raise ClubError("club_settings_object")
        unknown = sorted(set(data) - set(_SETTINGS_KEYS))
        if unknown:
            raise ClubError("club_unknown_field", field=unknown[0])
        name = _name(data.get("name"), "name")
        text = data.get("rules", "club")
        if not isinstance(text, str) or len(text) > 400:
            raise ClubError("club_rules", field="rules")
        try:
            rules = Rules.parse(text)
        except BinokelError:
            raise ClubError("club_rules", field="rules") from None
        if rules.has_teams or rules.players - rules.sit_out != 3:
            raise ClubError("club_rules_three", field="rules")
        rules = rules.replace(players=3, sit_out=0)  # "four-sitout" names the tables of four: the base is three
        rounds = _count(data.get("rounds", 3), "rounds", MAX_ROUNDS)
        deals = _count(data.get("deals", 12), "deals", MAX_DEALS)
        size = data.get("table_size", 3)
        if size not in (3, 4) or not _is_int(size):
            raise ClubError("club_table_size", field="table_size")
        fees = FeeSchedule.from_json(data["fees"]) if "fees" in data else FeeSchedule()
        entry_fee = data.get("entry_fee", 0)
        if not _is_int(entry_fee) or not 0 <= entry_fee <= MAX_MONEY:
            raise ClubError("club_money", field="entry_fee", max=MAX_MONEY)
        ties = data.get("tie_breaks", list(DEFAULT_TIE_BREAKS))
        if (not isinstance(ties, list) or not ties or len(set(ties)) != len(ties)
                or not all(t in TIE_BREAKS for t in ties)):
            raise ClubError("club_tie_breaks", field="tie_breaks", choices=", ".join(TIE_BREAKS))
        fewest = data.get("fewest_meetings", True)
        if not isinstance(fewest, bool):
            raise ClubError("club_not_bool", field="fewest_meetings")
        return cls(name, rules, rounds, deals, size, fees, entry_fee, tuple(ties), fewest)


_SETTINGS_KEYS = ("name", "rules", "rounds", "deals", "table_size", "fees", "entry_fee", "tie_breaks",
                  "fewest_meetings")


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _count(value: Any, name: str, most: int) -> int:
    if not _is_int(value) or not 1 <= value <= most:
        raise ClubError("club_count", field=name, max=most)
    return int(value)


def _name(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME or not value.isprintable():
        raise ClubError("club_name", field=name, max=MAX_NAME)
    return " ".join(value.split())


# ---------------------------------------------------------------------- scoring one deal


@dataclass(frozen=True)
class ScoredDeal:
    """A deal as entered and what it scored: the summary (JSON as entered, the dealer filled
    in), each seat's score, and the soloist's result (``made`` None: nobody played)."""

    summary: dict[str, Any]
    scores: tuple[int, ...]
    soloist: int | None
    made: bool | None


def score_deal(rules: Rules, summary: Any, dealer: int) -> ScoredDeal:
    """Score one deal's summary (see docs/records.md) at a table with these rules, whose
    dealer is ``dealer`` (the summary may leave it out; a different one is refused).

    >>> scored = score_deal(Rules.parse("club"), {"soloist": 0, "bid": 200, "game": "S",
    ...     "surrendered": True, "melds": [100, 40, 20]}, dealer=2)
    >>> scored.scores, scored.made
    ((-200, 90, 70), False)
    """
    if not isinstance(summary, dict):
        raise ClubError("club_summary_object", field="summary")
    if summary.get("dealer", dealer) != dealer:
        raise ClubError("club_wrong_dealer", field="summary.dealer", dealer=dealer)
    summary = {**summary, "dealer": dealer}
    scores, soloist, made = _explain(rules, summary)
    return ScoredDeal(summary, scores, soloist, made)


def _explain(rules: Rules, summary: dict[str, Any]) -> tuple[tuple[int, ...], int | None, bool | None]:
    """The seat scores of a summary and the soloist's result, by the one scoring of
    :func:`binokel.score.explain` (the score pad's, and a played deal's); its refusals
    become ClubErrors with the same code and params (``field`` names the summary's field)."""
    try:
        explained = explain(rules, DealSummary.from_json(summary))
    except BinokelError as error:
        raise ClubError(error.code, **error.params) from None
    soloist = explained.summary.soloist
    if soloist is None:
        return tuple(explained.scores), None, None
    return tuple(explained.scores), soloist, explained.made is True  # a surrender is a game lost


# ---------------------------------------------------------------------- the event


@dataclass(frozen=True)
class Player:
    """A registered player: ``id`` is the order of registration; ``joined`` the first round
    they can be drawn for; ``dropped`` the round from which they are no longer drawn."""

    id: int
    name: str
    joined: int = 1
    dropped: int | None = None

    def is_active(self, round_number: int) -> bool:
        return self.joined <= round_number and (self.dropped is None or round_number < self.dropped)


@dataclass(frozen=True)
class Table:
    """A drawn table of a round: its number, the players in seat order, who keeps the score
    and the seat that deals first; ``deals`` the deals entered so far, in order."""

    number: int
    players: tuple[int, ...]
    scorekeeper: int
    first_dealer: int
    deals: tuple[ScoredDeal, ...] = ()

    def dealer(self, rules: Rules, deal: int) -> int:
        """The seat that deals the ``deal``-th deal (1-based): the dealer passes on as the
        rules say (at a table of four, the dealer is the one sitting out).

        >>> Table(1, (4, 5, 6), 4, 2).dealer(Rules.parse("club"), 2)
        0
        """
        seat = self.first_dealer
        for _ in range(deal - 1):
            seat = rules.next_dealer(seat)
        return seat

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "players": list(self.players), "scorekeeper": self.scorekeeper,
                "first_dealer": self.first_dealer}


@dataclass(frozen=True)
class Round:
    number: int
    tables: tuple[Table, ...]

    def table(self, number: int) -> Table:
        return self.tables[number - 1]

    def is_complete(self, deals: int) -> bool:
        return all(len(table.deals) == deals for table in self.tables)


@dataclass(frozen=True)
class AuditLine:
    """One entry of the log as the organiser reads it: when, who, what, and for a corrected
    deal the scores before and after."""

    at: str
    by: str
    kind: str
    detail: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"at": self.at, "by": self.by, "kind": self.kind, **self.detail}


@dataclass(frozen=True)
class Event:
    """An event as its log made it: settings, players, rounds drawn (with their deals), and
    the audit log. Immutable: :meth:`apply` returns the next event."""

    settings: Settings
    players: tuple[Player, ...] = ()
    rounds: tuple[Round, ...] = ()
    audit: tuple[AuditLine, ...] = ()

    @classmethod
    def create(cls, settings: Any, by: str = "organiser", at: str = "") -> Event:
        """A new event from its settings (JSON, as :meth:`Settings.from_json` reads it)."""
        return cls(Settings.from_json(settings), audit=(AuditLine(at, by, "create", {}),))

    @classmethod
    def replay(cls, entries: Iterable[Any]) -> Event:
        """The event a log makes: its first entry creates it (kind ``create``)."""
        event: Event | None = None
        for entry in entries:
            if event is None:
                if not isinstance(entry, dict) or entry.get("kind") != "create":
                    raise ClubError("club_log_start")
                event = cls.create(entry.get("settings"), str(entry.get("by", "organiser")), str(entry.get("at", "")))
            else:
                event = event.apply(entry)
        if event is None:
            raise ClubError("club_log_start")
        return event

    @property
    def round_number(self) -> int:
        """The round being played (0 before the first draw)."""
        return len(self.rounds)

    def is_over(self) -> bool:
        return len(self.rounds) == self.settings.rounds and self.rounds[-1].is_complete(self.settings.deals)

    def active_players(self, round_number: int) -> list[Player]:
        """The players to be drawn for ``round_number``."""
        return [p for p in self.players if p.is_active(round_number)]

    def player_named(self, name: str) -> Player | None:
        return next((p for p in self.players if p.name.casefold() == name.casefold()), None)

    # -------------------------------------------------------------- entries

    def apply(self, entry: Any) -> Event:
        """The event after one log entry; ClubError (nothing changed) if it is refused.

        Every entry has ``kind``, ``by`` (who: "organiser", "table 3", ...) and ``at`` (when,
        as the server's clock said). The kinds: ``register`` (name), ``rename`` (player,
        name), ``drop`` / ``return`` (player; from the next round on), ``draw`` (round, tables:
        as :func:`draw` makes it), ``deal`` (round, table, deal — 1-based — and summary: a
        new deal is the table's next one; an earlier one is a correction, kept in the
        audit log with the scores before and after).
        """
        if not isinstance(entry, dict):
            raise ClubError("club_entry_object")
        kind = entry.get("kind")
        if kind not in KINDS or kind == "create":
            raise ClubError("club_entry_kind", field="kind", kinds=", ".join(KINDS[1:]))
        by, at = entry.get("by", ""), entry.get("at", "")
        if not isinstance(by, str) or not isinstance(at, str) or len(by) > 80 or len(at) > 40:
            raise ClubError("club_entry_who", field="by")
        method = getattr(self, f"_{kind}")
        event, detail = method(entry)
        assert isinstance(event, Event)
        return replace(event, audit=event.audit + (AuditLine(at, by, kind, detail),))

    def _register(self, entry: dict[str, Any]) -> tuple[Event, dict[str, Any]]:
        name = _name(entry.get("name"), "name")
        if self.player_named(name) is not None:
            raise ClubError("club_name_taken", field="name", name=name)
        if len(self.players) >= MAX_PLAYERS:
            raise ClubError("club_too_many_players", max=MAX_PLAYERS)
        if self.is_over():
            raise ClubError("club_event_over")
        player = Player(len(self.players), name, joined=self.round_number + 1)
        return replace(self, players=self.players + (player,)), {"player": player.id, "name": name}

    def _player(self, entry: dict[str, Any]) -> Player:
        player = entry.get("player")
        if not _is_int(player) or not 0 <= player < len(self.players):
            raise ClubError("club_no_player", field="player")
        return self.players[player]

    def _rename(self, entry: dict[str, Any]) -> tuple[Event, dict[str, Any]]:
        player = self._player(entry)
        name = _name(entry.get("name"), "name")
        other = self.player_named(name)
        if other is not None and other.id != player.id:
            raise ClubError("club_name_taken", field="name", name=name)
        return self._with_player(replace(player, name=name)), {"player": player.id, "name": name, "was": player.name}

    def _drop(self, entry: dict[str, Any]) -> tuple[Event, dict[str, Any]]:
        player = self._player(entry)
        if player.dropped is not None:
            raise ClubError("club_already_dropped", field="player", name=player.name)
        return self._with_player(replace(player, dropped=self.round_number + 1)), {"player": player.id}

    def _return(self, entry: dict[str, Any]) -> tuple[Event, dict[str, Any]]:
        player = self._player(entry)
        if player.dropped is None:
            raise ClubError("club_not_dropped", field="player", name=player.name)
        return self._with_player(replace(player, dropped=None)), {"player": player.id}

    def _with_player(self, player: Player) -> Event:
        players = list(self.players)
        players[player.id] = player
        return replace(self, players=tuple(players))

    def _draw(self, entry: dict[str, Any]) -> tuple[Event, dict[str, Any]]:
        number = self.round_number + 1
        if entry.get("round") != number:
            raise ClubError("club_wrong_round", field="round", round=number)
        if number > self.settings.rounds:
            raise ClubError("club_event_over")
        if self.rounds and not self.rounds[-1].is_complete(self.settings.deals):
            raise ClubError("club_round_open", round=number - 1)
        active = {p.id for p in self.active_players(number)}
        sizes = table_sizes(len(active), self.settings.table_size)
        if sizes is None:
            raise ClubError("club_cannot_seat", count=len(active))
        tables = entry.get("tables")
        if not isinstance(tables, list) or len(tables) != len(sizes):
            raise ClubError("club_draw_tables", field="tables")
        drawn: list[Table] = []
        for index, data in enumerate(tables, 1):
            if not isinstance(data, dict) or data.get("number") != index:
                raise ClubError("club_draw_tables", field="tables")
            players = data.get("players")
            if not isinstance(players, list) or len(players) not in (3, 4) or not all(_is_int(p) for p in players):
                raise ClubError("club_draw_tables", field="tables")
            scorekeeper, dealer = data.get("scorekeeper"), data.get("first_dealer")
            if (not _is_int(scorekeeper) or scorekeeper not in players or not _is_int(dealer)
                    or not 0 <= dealer < len(players)):
                raise ClubError("club_draw_tables", field="tables")
            drawn.append(Table(index, tuple(players), scorekeeper, dealer))
        seated = [p for table in drawn for p in table.players]
        if sorted(seated) != sorted(active) or sorted(len(t.players) for t in drawn) != sorted(sizes):
            raise ClubError("club_draw_players", field="tables")
        round_ = Round(number, tuple(drawn))
        return replace(self, rounds=self.rounds + (round_,)), {"round": number, "tables": len(drawn)}

    def _deal(self, entry: dict[str, Any]) -> tuple[Event, dict[str, Any]]:
        round_number, table_number, deal = entry.get("round"), entry.get("table"), entry.get("deal")
        if not _is_int(round_number) or not 1 <= round_number <= self.round_number:
            raise ClubError("club_no_round", field="round")
        round_ = self.rounds[round_number - 1]
        if not _is_int(table_number) or not 1 <= table_number <= len(round_.tables):
            raise ClubError("club_no_table", field="table")
        table = round_.table(table_number)
        entered = len(table.deals)
        if not _is_int(deal) or not 1 <= deal <= min(entered + 1, self.settings.deals):
            raise ClubError("club_deal_number", field="deal", next=min(entered + 1, self.settings.deals))
        rules = self.settings.table_rules(len(table.players))
        scored = score_deal(rules, entry.get("summary"), table.dealer(rules, deal))
        deals = list(table.deals)
        detail: dict[str, Any] = {"round": round_number, "table": table_number, "deal": deal,
                                  "scores": list(scored.scores)}
        if deal <= entered:
            detail["before"] = list(deals[deal - 1].scores)
            deals[deal - 1] = scored
        else:
            deals.append(scored)
        tables = list(round_.tables)
        tables[table_number - 1] = replace(table, deals=tuple(deals))
        rounds = list(self.rounds)
        rounds[round_number - 1] = replace(round_, tables=tuple(tables))
        return replace(self, rounds=tuple(rounds)), detail

    def corrections(self) -> list[AuditLine]:
        """The audit lines of deals entered again (corrections), oldest first."""
        return [line for line in self.audit if "before" in line.detail]


# ---------------------------------------------------------------------- the draw


def table_sizes(count: int, size: int = 3) -> list[int] | None:
    """How ``count`` players sit at tables of ``size``: as many tables of that size as can
    be, the rest at tables of the other size (3 and 4; tables of four sit one out per
    deal). None where it cannot be done (fewer than three players; five).

    >>> table_sizes(9), table_sizes(10), table_sizes(11), table_sizes(5)
    ([3, 3, 3], [4, 3, 3], [4, 4, 3], None)
    >>> table_sizes(10, 4), table_sizes(11, 4)
    ([4, 3, 3], [4, 4, 3])
    """
    other = 7 - size
    for extra in range(size):  # the fewest tables of the other size
        rest = count - extra * other
        if rest >= 0 and rest % size == 0:
            sizes = [size] * (rest // size) + [other] * extra
            return sorted(sizes, reverse=True) if sizes else None
    return None


def meetings(event: Event, before: int | None = None) -> Counter[tuple[int, int]]:
    """How often each pair of players has sat at the same table (in the rounds before
    ``before``; all rounds drawn by default), keyed by the pair in order."""
    count: Counter[tuple[int, int]] = Counter()
    for round_ in event.rounds[: None if before is None else before - 1]:
        for table in round_.tables:
            count.update(combinations(sorted(table.players), 2))
    return count


def repeated_pairs(event: Event) -> int:
    """The number of pairs who have met more than once (what "meet as few times as
    possible" keeps low)."""
    return sum(1 for times in meetings(event).values() if times > 1)


def draw(event: Event, seed: int, *, fewest_meetings: bool | None = None, tries: int = 40) -> dict[str, Any]:
    """The draw of the next round, as its log entry: the active players at tables by lot
    (``seed``); with ``fewest_meetings`` (the event's setting by default) the lot is
    improved by swapping players between tables until no pair meets again that can be
    avoided (a local search from ``tries`` random starts; the fewest meetings found win),
    and nobody sits at a table of four twice while others have not. Each table gets its
    number, a scorekeeper (by lot among those who kept score least often) and the seat
    that deals first (by lot).

    >>> event = Event.create({"name": "Cup", "rules": "club"})
    >>> for n in range(9):
    ...     event = event.apply({"kind": "register", "name": f"P{n}"})
    >>> entry = draw(event, seed=1)
    >>> entry["round"], [len(t["players"]) for t in entry["tables"]]
    (1, [3, 3, 3])
    """
    number = event.round_number + 1
    active = [p.id for p in event.active_players(number)]
    sizes = table_sizes(len(active), event.settings.table_size)
    if sizes is None:
        raise ClubError("club_cannot_seat", count=len(active))
    rng = random.Random(seed)
    met = meetings(event)
    at_four: Counter[int] = Counter(p for r in event.rounds for t in r.tables if len(t.players) == 4
                                    for p in t.players)
    fewest = event.settings.fewest_meetings if fewest_meetings is None else fewest_meetings
    groups = _seat(active, sizes, rng, met, at_four, tries if fewest else 0)
    kept: Counter[int] = Counter(t.scorekeeper for r in event.rounds for t in r.tables)
    tables = []
    for index, group in enumerate(groups, 1):
        rng.shuffle(group)
        least = min(kept[p] for p in group)
        scorekeeper = rng.choice([p for p in group if kept[p] == least])
        tables.append({"number": index, "players": group, "scorekeeper": scorekeeper,
                       "first_dealer": rng.randrange(len(group))})
    return {"kind": "draw", "round": number, "tables": tables}


REPEAT_COST = 1000
"""What a pair meeting again costs in the draw's search, against 1 per earlier table of
four of a player put at a table of four again: meetings come first."""


def _seat(players: list[int], sizes: list[int], rng: random.Random, met: Mapping[tuple[int, int], int],
          at_four: Mapping[int, int], tries: int) -> list[list[int]]:
    """Players in groups of ``sizes``: by lot, then (``tries`` > 0) improved by swaps."""

    def cut(order: list[int]) -> list[list[int]]:
        groups, start = [], 0
        for size in sizes:
            groups.append(order[start:start + size])
            start += size
        return groups

    order = list(players)
    rng.shuffle(order)
    best = cut(order)
    if tries <= 0:
        return best

    def pair_cost(a: int, b: int) -> int:
        return REPEAT_COST * met.get((a, b) if a < b else (b, a), 0)

    def cost_in(player: int, group: list[int], leaving: int | None = None) -> int:
        """What ``player`` adds to ``group`` (without ``leaving``)."""
        total = sum(pair_cost(player, other) for other in group if other != leaving and other != player)
        return total + (at_four.get(player, 0) if len(group) == 4 else 0)

    def total_cost(groups: list[list[int]]) -> int:
        return sum(sum(pair_cost(a, b) for a, b in combinations(g, 2)) + sum(at_four.get(p, 0) for p in g if
                                                                            len(g) == 4) for g in groups)

    best_cost = total_cost(best)
    for attempt in range(tries):
        if best_cost == _floor(at_four, sizes, players):
            break
        if attempt:
            rng.shuffle(order)
        groups = cut(order)
        improved = True
        while improved:
            improved = False
            for gi, gj in combinations(range(len(groups)), 2):
                a_group, b_group = groups[gi], groups[gj]
                for ai, a in enumerate(a_group):
                    for bi, b in enumerate(b_group):
                        now = cost_in(a, a_group) + cost_in(b, b_group)
                        then = cost_in(a, b_group, leaving=b) + cost_in(b, a_group, leaving=a)
                        if then < now:
                            a_group[ai], b_group[bi] = b, a
                            a = b
                            improved = True
        cost = total_cost(groups)
        if cost < best_cost:
            best, best_cost = [list(g) for g in groups], cost
    return best


def _floor(at_four: Mapping[int, int], sizes: list[int], players: list[int]) -> int:
    """The least cost a draw can have: no pair again, and the tables of four filled by the
    players who sat at one least often."""
    seats_of_four = sum(size for size in sizes if size == 4)
    return sum(sorted(at_four.get(p, 0) for p in players)[:seats_of_four])


# ---------------------------------------------------------------------- standings


@dataclass(frozen=True)
class Standing:
    """One player's line of the standings: place (shared where every tie-break is equal),
    points per round and in total, deals played, won and lost as soloist, and fees (cents:
    the entry fee and the lost games' fees)."""

    place: int
    player: int
    name: str
    rounds: tuple[int, ...]
    total: int
    played: int
    won: int
    lost: int
    fees: int
    dropped: bool = False

    def key(self, tie_breaks: Sequence[str]) -> tuple[int, ...]:
        """The sort key: better first."""
        value = {"total": -self.total, "won": -self.won, "lost": self.lost, "played": self.played}
        return tuple(value[name] for name in tie_breaks)

    def to_json(self) -> dict[str, Any]:
        return {"place": self.place, "player": self.player, "name": self.name, "rounds": list(self.rounds),
                "total": self.total, "played": self.played, "won": self.won, "lost": self.lost,
                "fees": self.fees, "dropped": self.dropped}


def standings(event: Event, through: int | None = None, only: int | None = None) -> list[Standing]:
    """The ranking after the rounds up to ``through`` (all by default), or of round ``only``
    alone; ordered by the event's tie-breaks, ties sharing a place. Every registered player
    who has played (or is still in) is listed; deals entered so far count.

    >>> event = Event.create({"name": "Cup", "rules": "club", "rounds": 1, "deals": 2})
    >>> [row.name for row in standings(event)]
    []
    """
    settings = event.settings
    count = len(event.rounds) if through is None else through
    chosen = [r for r in event.rounds[:count] if only is None or r.number == only]
    per_round: dict[int, list[int]] = {p.id: [0] * len(chosen) for p in event.players}
    played: Counter[int] = Counter()
    won: Counter[int] = Counter()
    lost: Counter[int] = Counter()
    for index, round_ in enumerate(chosen):
        for table in round_.tables:
            rules = settings.table_rules(len(table.players))
            for number, deal in enumerate(table.deals, 1):
                out = rules.sitting_out(table.dealer(rules, number))
                for seat, player in enumerate(table.players):
                    per_round[player][index] += deal.scores[seat]
                    played[player] += seat != out
                if deal.soloist is not None and deal.made is not None:
                    (won if deal.made else lost)[table.players[deal.soloist]] += 1
    seated = {p for r in chosen for t in r.tables for p in t.players}
    rows = [Standing(0, p.id, p.name, tuple(per_round[p.id]), sum(per_round[p.id]), played[p.id], won[p.id],
                     lost[p.id], settings.entry_fee + settings.fees.total(lost[p.id]), p.dropped is not None)
            for p in event.players if p.id in seated or (only is None and p.dropped is None)]
    return _ranked(rows, settings.tie_breaks)


def _ranked(rows: list[Standing], tie_breaks: Sequence[str]) -> list[Standing]:
    rows.sort(key=lambda row: (row.key(tie_breaks), row.name.casefold(), row.player))
    ranked: list[Standing] = []
    for index, row in enumerate(rows):
        tied = ranked and ranked[-1].key(tie_breaks) == row.key(tie_breaks)
        ranked.append(replace(row, place=ranked[-1].place if tied else index + 1))
    return ranked


def series(events: Sequence[Event]) -> list[Standing]:
    """Several events added up, player by player (the same name is the same player, letter
    case aside): points, deals, wins, losses and fees of every event; ranked by the first
    event's tie-breaks. ``rounds`` holds each event's total (0 where absent).

    >>> one = Event.create({"name": "Night 1", "rules": "club"})
    >>> two = Event.create({"name": "Night 2", "rules": "club"})
    >>> series([one, two])
    []
    """
    if not events:
        return []
    totals: dict[str, dict[str, Any]] = {}
    for index, event in enumerate(events):
        for row in standings(event):
            key = row.name.casefold()
            line = totals.setdefault(key, {"name": row.name, "events": [0] * len(events), "played": 0, "won": 0,
                                           "lost": 0, "fees": 0})
            line["events"][index] = row.total
            for name in ("played", "won", "lost", "fees"):
                line[name] += getattr(row, name)
    rows = [Standing(0, index, line["name"], tuple(line["events"]), sum(line["events"]), line["played"],
                     line["won"], line["lost"], line["fees"]) for index, line in enumerate(totals.values())]
    return _ranked(rows, events[0].settings.tie_breaks)


# ---------------------------------------------------------------------- CSV


class _Lines:
    """A file-like list of text for :mod:`csv` (the core writes no files)."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return len(text)


def standings_csv(rows: Sequence[Standing], round_label: str = "round") -> str:
    """The standings as CSV (comma-separated, a header line; fees in euros), for a
    spreadsheet. ``round_label`` heads the per-round columns ("event" for a series).

    >>> print(standings_csv([Standing(1, 0, "Anna", (300, 120), 420, 24, 3, 1, 550)]), end="")
    place,name,round 1,round 2,total,played,won,lost,fees,dropped
    1,Anna,300,120,420,24,3,1,5.50,
    """
    import csv

    lines = _Lines()
    writer = csv.writer(lines, lineterminator="\n")
    count = max((len(row.rounds) for row in rows), default=0)
    writer.writerow(["place", "name", *(f"{round_label} {n}" for n in range(1, count + 1)), "total", "played",
                     "won", "lost", "fees", "dropped"])
    for row in rows:
        writer.writerow([row.place, spreadsheet_cell(row.name), *row.rounds, *[0] * (count - len(row.rounds)),
                         row.total, row.played, row.won, row.lost, euros(row.fees), "yes" if row.dropped else ""])
    return "".join(lines.parts)


def spreadsheet_cell(text: str) -> str:
    """A name as a spreadsheet cell: never read as a formula (CSV injection)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def deals_csv(event: Event) -> str:
    """Every deal entered: round, table, deal, player names in seat order and their scores.

    >>> deals_csv(Event.create({"name": "Cup", "rules": "club"}))
    'round,table,deal,dealer,players,scores\\n'
    """
    import csv

    lines = _Lines()
    writer = csv.writer(lines, lineterminator="\n")
    writer.writerow(["round", "table", "deal", "dealer", "players", "scores"])
    names = {p.id: p.name for p in event.players}
    for round_ in event.rounds:
        for table in round_.tables:
            for number, deal in enumerate(table.deals, 1):
                dealer = names[table.players[deal.summary["dealer"]]]
                writer.writerow([round_.number, table.number, number, spreadsheet_cell(dealer),
                                 " / ".join(spreadsheet_cell(names[p]) for p in table.players),
                                 " / ".join(str(s) for s in deal.scores)])
    return "".join(lines.parts)
