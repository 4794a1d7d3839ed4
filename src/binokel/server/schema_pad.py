"""The score pad's routes (:mod:`binokel.server.pad`) as typed models: the bodies it reads
and the answers it gives, and the two parts every sheet of deals played with real cards
shows, the deal's summary and its explained score (the club's sheets and the review show
them too).

A body is read by its model (:class:`~binokel.server.schema.Reader`): a value of the
wrong kind, a missing or unknown key becomes the catalogue's code naming the ``field``.
What a deal's summary may be under the rules (card points, bids, melds) is the core's to
refuse (:func:`binokel.score.explain`, the same check for the pad, the club, the terminal
and ``binokel score-deal``); :class:`Summary` says its shape.

>>> ENTRY.read({"deal": 2, "summary": {"soloist": 0, "bid": 150, "game": "H", "surrendered": True}}).deal
2
>>> ENTRY.read({"deal": "2", "summary": {}}, last=1)
Traceback (most recent call last):
...
binokel.server.schema.ProtocolError: deal: there is no deal '2' (deals 1 to 1)
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, WithJsonSchema

from binokel.rules import Rules
from binokel.server.schema import (
    GameWord,
    OutcomeName,
    Points,
    Reader,
    Refusal,
    RuleText,
    SeatNumber,
    Sent,
    players_of,
    refused,
)
from binokel.sheet import NAME_MOST

SUMMARY_SCHEMA = WithJsonSchema({"allOf": [{"$ref": "#/$defs/Summary"}]})
"""A summary in a body: an object the core reads (and refuses, naming the field), of the shape of :class:`Summary`."""


class Summary(Sent):
    """A deal as a score pad writes it down (``binokel.score.DealSummary``, docs/records.md):
    ``melds``, ``card_points`` and ``tricks`` one per seat; what the rules make irrelevant
    (card points on a surrender) may be left out, and one seat's card points are worked out."""

    dealer: SeatNumber | None = Field(None, description="filled in from the rotation when left out")
    soloist: SeatNumber | None = Field(description="null: everybody passed (no score)")
    bid: int | None = None
    game: GameWord | None = None
    surrendered: bool = False
    melds: list[Points] | None = Field(None, description="each seat's meld total with that game")
    card_points: list[Points | None] | None = Field(None, description="each seat's points in tricks with the "
                                                    "last trick's 10 and, for the soloist, the discard")
    tricks: list[int] | None = Field(None, description="the tricks each seat took")


class SeatFacts(Sent):
    seat: SeatNumber
    melds: Points
    melds_count: bool = Field(description="the melds count (their side took a trick)")
    why_not: str | None
    card_points: Points | None
    tricks: int | None


class Side(Sent):
    """A side's score: ``terms`` add up to ``exact``, rounded to ``score``."""

    seats: list[SeatNumber]
    role: Literal["soloist", "defender", "out", "none"]
    terms: list[tuple[str, int]] = Field(description="[name, points]: card_points, melds, failed_credit, "
                                                     "doubled_bid, lost_bid, surrender_credit, contract, "
                                                     "durch_credit, whole_game")
    reached: Points | None
    exact: Points
    score: Points


class Explanation(Sent):
    """A scored deal, said term by term (``binokel.score.ScoreExplanation``)."""

    summary: Summary
    outcome: OutcomeName
    made: bool | None
    seats: list[SeatFacts]
    sides: list[Side]
    scores: list[Points] = Field(description="each seat's score of the deal")
    rounding: int


# ---------------------------------------------------------------------- bodies

def _player_name(value: str) -> str:
    # As a table's names: spaces squeezed; a name the core would cut short, or with control
    # or bidi characters (U+202E turns a neighbour's name around), is refused, not stored.
    # A blank one goes on to the core, whose refusal says every player needs a name.
    squeezed = " ".join(value.split())
    if len(squeezed) > NAME_MOST or not squeezed.isprintable():
        raise refused("pad_name", field="players", max=NAME_MOST)
    return squeezed


PlayerName = Annotated[str, AfterValidator(_player_name),
                       Field(description=f"1 to {NAME_MOST} characters, no control characters")]


class NewSheet(BaseModel):
    """The body of ``POST /api/pad``: a new sheet."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, arbitrary_types_allowed=True)

    rules: RuleText = Field(Rules.parse("standard"), json_schema_extra={"default": "standard"})
    players: Annotated[list[PlayerName], Refusal("pad_names"), Field(description="one name per seat, in seat order")]
    first_dealer: Annotated[SeatNumber, Refusal("summary_bad_seat", lambda body: {"last": players_of(body) - 1})] = 0


class DealEntry(BaseModel):
    """The body of ``POST /api/pad/{id}/deals``: deal ``deal`` (1-based; the next one, or a
    correction of an earlier one)."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    deal: Annotated[int | None, Field(ge=1, description="null or left out: the next deal"),
                    Refusal("pad_no_such_deal")] = None
    summary: Annotated[dict[str, Any], SUMMARY_SCHEMA, Refusal("summary_not_object")]


NEW_SHEET: Reader[NewSheet] = Reader(NewSheet, {None: NewSheet})
ENTRY: Reader[DealEntry] = Reader(DealEntry, {None: DealEntry})


# ---------------------------------------------------------------------- answers

class Ranked(Sent):
    seat: SeatNumber = Field(description="a seat, or with partnerships a team (its lowest seat's number)")
    total: Points


class PadSheet(Sent):
    """``GET /api/pad/{id}`` (the read-only link), and every answer of an entry."""

    id: str
    version: int = Field(description="entries stored: the creation and each deal entered or corrected")
    rules: str
    players: list[str]
    first_dealer: SeatNumber
    next_dealer: SeatNumber | None = Field(description="null once the game is over")
    rotation: list[SeatNumber] = Field(description="deal n is dealt by rotation[(n - 1) % len(rotation)]")
    deals: list[Explanation]
    totals: list[list[Points]] = Field(description="the totals after each deal")
    winner: int | None = Field(description="the winning seat (with partnerships: team), once the game is over")
    ranking: list[Ranked] | None


class PadCreated(Sent):
    """``POST /api/pad``: the new sheet and the scorekeeper's secret, shown only here."""

    id: str
    token: str = Field(description="the scorekeeper's secret (Authorization: Bearer)")
    sheet: PadSheet


class MeldOffered(Sent):
    name: str
    suit: Literal["S", "H", "D", "C"] | None
    points: Points


class PadForm(Sent):
    """``GET /api/pad/rules?text=...``: what the pad's form needs of a rule text."""

    text: str = Field(description="the canonical rule text")
    players: int
    teams: list[list[SeatNumber]] | None = Field(description="the seats of each team with partnerships")
    sits_out: list[SeatNumber | None] = Field(description="who sits out when each seat deals")
    min_bid: int
    hand_size: int
    deal_points: Points = Field(description="the card points of a deal, the last trick's 10 included")
    games: list[GameWord]
    can_pass: bool = Field(description="everybody may pass (the deal is redealt)")
    forced: bool = Field(description="when everybody passes, the dealer must play")
    target: int
    deals: int | None = Field(description="a fixed number of deals, if the rules have one")
    melds: dict[str, list[MeldOffered]] = Field(description="per trump (S, H, D, C): every meld there is")


HTTP: dict[str, tuple[str | None, type[BaseModel]]] = {
    "POST /api/pad": ("NewSheet", PadCreated),
    "GET /api/pad/rules": (None, PadForm),
    "GET /api/pad/{id}": (None, PadSheet),
    "POST /api/pad/{id}/deals": ("DealEntry", PadSheet),
}
"""The score pad's JSON routes: each one's body (a key of :data:`BODIES`) and answer model."""
BODIES: dict[str, Reader[Any]] = {"NewSheet": NEW_SHEET, "DealEntry": ENTRY}
CSV = ("GET /api/pad/{id}/sheet.csv",)
