"""The deal review's routes (:mod:`binokel.server.review_routes`) as typed models: the game
record it reads (a table's, ``GET /api/games/{id}/record``, or uploaded), the upload's body
and the review's answer (:func:`binokel.server.review.review_record`) with its explanation of
every number of the deal (:func:`binokel.server.review.explain_deal`). The bidding help
(``GET /api/games/{id}/advice``) is the game's (:class:`~binokel.server.schema.Advice`).

>>> REVIEW.read({"record": {}, "seat": 1}).seat
1
>>> REVIEW.read({"record": {}, "seat": "1"})
Traceback (most recent call last):
...
binokel.server.schema.ProtocolError: seat and deal must be whole numbers
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from binokel.server.schema import Card, DoneTrick, GameWord, PhaseName, Points, Reader, Refusal, SeatNumber, Sent
from binokel.server.schema_pad import Explanation

UPLOAD_BYTES = 512 * 1024
"""The largest uploaded record (a long game of many deals is some 100 KiB)."""


class DealRecord(Sent):
    """A deal of a game record (docs/records.md): the cards dealt and every action taken, in
    record notation; a deal in progress stops early (every key after its last action absent)."""

    dealer: SeatNumber
    hands: list[list[Card]] = Field(description="the cards dealt to each seat")
    tapp: list[Card]
    auction: list[str] | None = Field(None, description="every call in calling order: a bid or 'pass'")
    discard: list[Card] | None = None
    game: GameWord | None = None
    surrender: bool | None = None
    tricks: list[list[Card]] | None = Field(None, description="each trick's cards in the order played")


class GameRecord(Sent):
    """``GET /api/games/{id}/record``: the table's game as a ``binokel-game/1`` record
    (docs/records.md), without the deal in progress; what ``POST /api/review`` reads.
    Other top-level keys are kept and ignored by a reader."""

    model_config = ConfigDict(extra="allow")

    format: Literal["binokel-game/1"]
    rules: str
    players: list[str] | None = None
    first_dealer: SeatNumber | None = None
    deals: list[DealRecord]
    durch_games: list[int] | None = Field(None, description="with durch_game=1: whole games won (+1) or lost (-1)")


RECORD_SCHEMA = WithJsonSchema({"allOf": [{"$ref": "#/$defs/GameRecord"}]})
"""A record in a body: an object the core replays (and refuses, saying where), of the shape of :class:`GameRecord`."""


class ReviewUpload(BaseModel):
    """The body of ``POST /api/review``: a finished deal of an uploaded record, reviewed for a seat."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)
    not_object: ClassVar[str] = "review_body"  # the refusal of a body that is no object

    record: Annotated[dict[str, Any], Refusal("review_body"), RECORD_SCHEMA,
                      Field(description="a binokel-game/1 record (docs/records.md), read by the core's replay")]
    seat: Annotated[int, Refusal("review_numbers")] = 0
    deal: Annotated[int | None, Refusal("review_numbers"),
                    Field(description="the deal to review (0 the first; null: the last finished)")] = None


REVIEW: Reader[ReviewUpload] = Reader(ReviewUpload, {None: ReviewUpload})


class SeatNumbers(Sent):
    """One seat's numbers of the deal."""

    seat: SeatNumber
    melds: Points = Field(description="the melds shown")
    counts: bool = Field(description="the melds count (their side took a trick)")
    tricks: int
    trick_points: Points = Field(description="the cards in its tricks, the last trick's 10 apart")
    last_trick: Points = Field(description="the 10 for the last trick, or 0")
    discard: Points = Field(description="the soloist's laid-away cards, counted for the soloist")


class Unit(Sent):
    """A scoring unit (a team with partners, else a seat): how its score came about."""

    seats: list[SeatNumber]
    rule: Literal["sum", "doubled", "surrender", "credit", "contract", "redeal"]
    raw: Points = Field(description="the sum before rounding")
    score: Points = Field(description="after rounding")
    points: Points = Field(description="the points it had (cards and counting melds)")
    credit: Points


class DealExplained(Sent):
    """Every number of a finished deal (``explain_deal``): the whole explanation under ``score``."""

    seats: list[SeatNumbers]
    units: list[Unit]
    made: bool | None = Field(description="the soloist made the bid (null: no trump game played)")
    bid: int | None
    soloist: SeatNumber | None
    game: GameWord | None
    tapp: list[Card]
    discard: list[Card]
    discard_points: Points
    rounding: int
    surrendered: bool
    score: Explanation


class Decision(Sent):
    """A decision of the reviewed seat: what it did and what the hard bot would have done."""

    step: int = Field(description="the action's index in the deal")
    seat: SeatNumber
    phase: PhaseName
    played: str = Field(description="the action taken, in record notation")
    trick: int
    position: int = Field(description="the place in the trick (0: led)")
    best: str = Field(description="the hard bot's choice")
    values: dict[str, float] | None = Field(None, description="each legal card's estimated worth (the play only)")
    cost: float | None = Field(description="how much better the bot values its card than the one played "
                                           "(null: not estimated, outside the play)")


class Review(Sent):
    """``GET /api/games/{id}/review`` and ``POST /api/review``: a finished deal with every hand open."""

    seat: SeatNumber = Field(description="the seat reviewed")
    dealer: SeatNumber
    hands: list[list[Card]] = Field(description="the hands as dealt")
    play_hands: list[list[Card]] | None = Field(description="the hands when the play began (null: not played)")
    tricks: list[DoneTrick]
    decisions: list[Decision]
    explain: DealExplained
    auction: list[str]
    callers: list[SeatNumber]
    deal: int = Field(description="the deal reviewed (0 the first)")
    deals: int = Field(description="the finished deals of the record")
    spectator: bool = Field(description="asked without a seat: the soloist's decisions")
    players: list[str]
    rules: str


HTTP: dict[str, tuple[str | None, type[BaseModel]]] = {
    "GET /api/games/{id}/record": (None, GameRecord),  # the record a review reads
    "GET /api/games/{id}/review": (None, Review),
    "POST /api/review": ("ReviewUpload", Review),
}
"""The review's JSON routes: each one's body (a key of :data:`BODIES`) and answer model."""
BODIES: dict[str, Reader[Any]] = {"ReviewUpload": REVIEW}
CSV: tuple[str, ...] = ()
