"""The club tournament's routes (:mod:`binokel.server.club`) as typed models: the bodies the
organiser and the scorekeepers send, the answers, and the projector's websocket messages.

A body is read by its model: a value of the wrong kind, a missing or unknown key becomes
the club's catalogue code naming the ``field`` (the codes the core gives the same fault).
The event's own checks (a name taken, a deal out of turn, a summary that cannot be under
the rules) are the core's, :meth:`binokel.club.Event.apply`, which replays stored logs too;
the defaults are the core's (:class:`binokel.club.Settings`).

>>> SETTINGS.read({"name": "Cup", "rounds": 2}).model_dump()["deals"]
12
>>> SETTINGS.read({"name": "Cup", "rounds": "2"})
Traceback (most recent call last):
...
binokel.server.schema.ProtocolError: rounds: a whole number from 1 to 10
>>> DEAL.read({"round": 1, "table": 2, "deal": 1, "summary": {}, "note": "x"}).round
Traceback (most recent call last):
...
binokel.server.schema.ProtocolError: unknown field note
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field

from binokel.club import KINDS, MAX_DEALS, MAX_MONEY, MAX_NAME, MAX_ROUNDS, TIE_BREAKS
from binokel.club import Settings as CoreSettings
from binokel.server.schema import Points, Reader, Refusal, SeatNumber, Sent
from binokel.server.schema_pad import SUMMARY_SCHEMA, Summary

ENTRY_KINDS = ("register", "rename", "drop", "return")
"""The entries the organiser sends (the core's others: the event's creation, a draw, a deal)."""
if TYPE_CHECKING:
    TieBreak: TypeAlias = str
    EntryKind: TypeAlias = str
    LogKind: TypeAlias = str
else:  # the choices as the core names them
    TieBreak, EntryKind, LogKind = Literal[TIE_BREAKS], Literal[ENTRY_KINDS], Literal[KINDS]
DEFAULTS = CoreSettings.from_json({"name": "defaults"}).to_json()
"""The core's defaults of an event's settings."""


class Body(BaseModel):
    """A club body: exactly its keys (another is refused as the core refuses it)."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)
    unknown_key: ClassVar[str] = "club_unknown_field"


class EventSettings(Body):
    """The body of ``POST /api/club/events`` (only ``name`` is needed), and the event's
    settings in every answer (``rules`` then the canonical text). Money in cents."""

    name: Annotated[str, Field(min_length=1, max_length=MAX_NAME), Refusal("club_name", {"max": MAX_NAME})]
    rules: Annotated[str, Field(max_length=400, description="a rule text for three active players"),
                     Refusal("club_rules")] = DEFAULTS["rules"]
    rounds: Annotated[int, Field(ge=1, le=MAX_ROUNDS), Refusal("club_count", {"max": MAX_ROUNDS})] = DEFAULTS["rounds"]
    deals: Annotated[int, Field(ge=1, le=MAX_DEALS, description="deals per round"),
                     Refusal("club_count", {"max": MAX_DEALS})] = DEFAULTS["deals"]
    table_size: Annotated[Literal[3, 4], Field(description="most tables' size (four: one sits out each deal)"),
                          Refusal("club_table_size")] = DEFAULTS["table_size"]
    fees: Annotated[list[Annotated[list[int], Field(min_length=2, max_length=2)]],
                    Field(description="[from the n-th lost game, cents each], the first from game 1"),
                    Refusal("club_fees")] = Field(default_factory=lambda: DEFAULTS["fees"])
    entry_fee: Annotated[int, Field(ge=0, le=MAX_MONEY), Refusal("club_money", {"max": MAX_MONEY})] = (
        DEFAULTS["entry_fee"])
    tie_breaks: Annotated[list[TieBreak], Refusal("club_tie_breaks", {"choices": ", ".join(TIE_BREAKS)}),
                          Field(description="the order in which a tie is broken")] = (
        Field(default_factory=lambda: DEFAULTS["tie_breaks"]))
    fewest_meetings: Annotated[bool, Refusal("club_not_bool"),
                               Field(description="draw so that players meet as few times as possible")] = (
        DEFAULTS["fewest_meetings"])


class EventEntry(Body):
    """The body of ``POST /api/club/events/{id}/entries`` (organiser): ``register`` (name),
    ``rename`` (player, name), ``drop`` / ``return`` (player)."""

    kind: Annotated[EntryKind, Refusal("club_entry_kind", {"kinds": ", ".join(ENTRY_KINDS)})]
    name: Annotated[str | None, Refusal("club_name", {"max": MAX_NAME})] = None
    player: Annotated[int | None, Refusal("club_no_player"), Field(description="a player's id")] = None


class TableDeal(Body):
    """The body of ``POST /api/club/events/{id}/deals`` (the table's secret, or the
    organiser): the table's next deal, or a correction of an earlier one (1-based)."""

    round: Annotated[int, Refusal("club_no_round")]
    table: Annotated[int, Refusal("club_no_table")]
    deal: int
    summary: Annotated[dict[str, Any], SUMMARY_SCHEMA, Refusal("club_summary_object")]


SETTINGS: Reader[EventSettings] = Reader(EventSettings, {None: EventSettings})
ENTRY: Reader[EventEntry] = Reader(EventEntry, {None: EventEntry})
DEAL: Reader[TableDeal] = Reader(TableDeal, {None: TableDeal})


# ---------------------------------------------------------------------- answers

class ClubPlayer(Sent):
    id: int = Field(description="the order of registration, from 0")
    name: str
    joined: int = Field(description="the first round they can be drawn for")
    dropped: int | None = Field(description="the round from which they are no longer drawn")


class ScoredEntry(Sent):
    summary: Summary
    scores: list[Points]


class ClubTable(Sent):
    """A table's sheet: its players, who deals next, every deal entered and the totals."""

    number: int
    players: list[int] = Field(description="the players' ids in seat order")
    names: list[str]
    scorekeeper: int = Field(description="the scorekeeper's player id")
    first_dealer: SeatNumber
    rules: str = Field(description="this table's rules (a table of four: the dealer sits out)")
    next_dealer: SeatNumber | None = Field(description="null once the round's deals are entered")
    deals: list[ScoredEntry]
    totals: list[Points]


class ClubRound(Sent):
    number: int
    complete: bool
    tables: list[ClubTable]


class StandingRow(Sent):
    """A player's line of the standings (money in cents)."""

    place: int = Field(description="shared where every tie-break is equal")
    player: int
    name: str
    rounds: list[Points]
    total: Points
    played: int
    won: int
    lost: int
    fees: int = Field(description="the entry fee and the lost games' fees")
    dropped: bool


class PublicEvent(Sent):
    """``GET /api/club/events/{id}``: everything the public link shows."""

    id: str
    version: int
    settings: EventSettings
    players: list[ClubPlayer]
    round: int = Field(description="the round being played (0 before the first draw)")
    over: bool
    rounds: list[ClubRound]
    standings: list[StandingRow]
    round_standings: list[list[StandingRow]]


class EventCreated(Sent):
    """``POST /api/club/events``: the organiser's secret, shown only here."""

    id: str
    organiser: str
    event: PublicEvent


class TableCard(Sent):
    """A table's secret for its card (shown once)."""

    round: int
    table: int
    secret: str


class Drawn(Sent):
    """``POST /api/club/events/{id}/draw``: the next round's tables and their cards."""

    round: int
    cards: list[TableCard]
    event: PublicEvent


class NewKeys(Sent):
    """``POST /api/club/events/{id}/keys``: new cards for the round being played (the old ones stop working)."""

    round: int
    cards: list[TableCard]


class DealStored(Sent):
    """``POST /api/club/events/{id}/deals``: the table's sheet after the entry."""

    stored: bool = Field(description="false: the same deal was stored so already (a retry)")
    version: int
    table: ClubTable


class AuditEntry(Sent):
    """A line of the audit log: when, who, what; a corrected deal's scores ``before``."""

    at: str
    by: str
    kind: LogKind
    player: int | None = None
    name: str | None = None
    was: str | None = Field(None, description="the name before a rename")
    round: int | None = None
    tables: int | None = None
    table: int | None = None
    deal: int | None = None
    scores: list[Points] | None = None
    before: list[Points] | None = None


class Audit(Sent):
    """``GET /api/club/events/{id}/audit`` (organiser)."""

    audit: list[AuditEntry]


class Series(Sent):
    """``GET /api/club/series?ids=a,b``: several events added up."""

    events: list[str] = Field(description="the events' names")
    standings: list[StandingRow]


class EventMessage(Sent):
    """The public event, at once and after each change (``/ws/club/{id}``, read-only)."""

    type: Literal["event"]
    version: int
    event: PublicEvent


class WatchRefused(Sent):
    """Why the projector's websocket is closed (no event, too many watchers)."""

    type: Literal["error"]
    code: str
    params: dict[str, Any]


CLUB_MESSAGES: Reader[EventMessage | WatchRefused] = Reader.union(EventMessage | WatchRefused)
"""Every message of ``/ws/club/{id}`` (the watcher sends none)."""
HTTP: dict[str, tuple[str | None, type[BaseModel]]] = {
    "POST /api/club/events": ("EventSettings", EventCreated),
    "GET /api/club/events/{id}": (None, PublicEvent),
    "POST /api/club/events/{id}/entries": ("EventEntry", PublicEvent),
    "POST /api/club/events/{id}/draw": (None, Drawn),
    "POST /api/club/events/{id}/keys": (None, NewKeys),
    "POST /api/club/events/{id}/deals": ("TableDeal", DealStored),
    "GET /api/club/events/{id}/audit": (None, Audit),
    "GET /api/club/series": (None, Series),
}
"""The club's JSON routes: each one's body (a key of :data:`BODIES`) and answer model."""
BODIES: dict[str, Reader[Any]] = {"EventSettings": SETTINGS, "EventEntry": ENTRY, "TableDeal": DEAL}
CSV = ("GET /api/club/events/{id}/standings.csv", "GET /api/club/events/{id}/deals.csv")
WEBSOCKET: dict[str, Reader[Any]] = {"ClubMessage": CLUB_MESSAGES}
