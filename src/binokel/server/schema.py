"""The protocol of ``binokel serve`` as typed models: every websocket message of a game
table (a union per direction, told apart by ``type``) and the JSON bodies and answers of
the game's HTTP routes (:data:`HTTP`); the score pad's, the club's and the deal review's are
in :mod:`binokel.server.schema_pad`, ``schema_club`` and ``schema_review``, built on the parts
here (:func:`binokel.server.schema_file.every_route` gathers them all).

The models are the reference: ``binokel schema`` writes their JSON Schema to
``docs/protocol.schema.json`` (checked by a test against what a whole game sends). What a
client sends is validated by its model (:meth:`Reader.read`); what it gets wrong becomes
the protocol's coded error (:class:`Refusal` names a field's catalogue code), never a
validator's own text. The server builds what it sends as plain JSON (it is on the hot
path); the models of those messages are the schema, and the test holds the server to it.

>>> CLIENT.read({"type": "action", "action": "AS", "version": 3})
Action(seat=None, type='action', action='AS', version=3)
>>> CLIENT.read({"type": "action", "action": "AS"})
Traceback (most recent call last):
...
binokel.server.schema.ProtocolError: an action message needs "version": the version of the last state seen
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Generic, Literal, TypeAlias, TypeVar, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
    create_model,
    model_validator,
)
from pydantic_core import PydanticCustomError

from binokel.action import Contract
from binokel.ai import LEVELS
from binokel.error import BinokelError
from binokel.i18n import LANGUAGES, catalogue, placeholders
from binokel.rules import Rules
from binokel.score import Outcome
from binokel.server.seat import MAX_TOKEN
from binokel.server.settings import DECKS, MAX_GRACE, ME, OPEN, Settings
from binokel.state import Phase

PHRASES = ("hello", "well_played", "good_luck", "thanks", "oops", "bye")
"""Quick chat phrases; each page shows them in its own language ("Gut gespielt!")."""
if TYPE_CHECKING:
    PhaseName: TypeAlias = str
    OutcomeName: TypeAlias = str
    GameWord: TypeAlias = str
    Level: TypeAlias = str
    Language: TypeAlias = str
    Deck: TypeAlias = str
    Phrase: TypeAlias = str
    SeatKind: TypeAlias = str
else:  # the choices as the models check them and the schema lists them, from their one place
    Level, Language, Deck, Phrase = Literal[LEVELS], Literal[LANGUAGES], Literal[DECKS], Literal[PHRASES]
    SeatKind = Literal[(ME, OPEN, *LEVELS)]  # a seat of a new table's plan: the creator, a friend, a bot level
    PhaseName = Literal[tuple(phase.value for phase in Phase)]
    OutcomeName = Literal[tuple(outcome.value for outcome in Outcome)]
    GameWord = Literal[tuple(contract.word for contract in Contract)]  # S H D C durch open_durch bettel hand_durch
MAX_NAME = 40
MAX_CHAT = 200
"""Characters of one chat line."""
NUMBER_WORDS = {2: "two", 3: "three", 5: "five"}


# ---------------------------------------------------------------------- coded refusals

class ProtocolError(BinokelError):
    """Bad input from a client: the reason (code, params) goes back to it, nothing changes."""


@dataclass(frozen=True)
class Refusal:
    """The coded error of a field the model refuses: ``code`` of the catalogue, with
    ``params`` (or a function of the whole message giving them) and ``value``, the
    refused value; only the params the English template names are sent. ``item`` is the
    refusal of one entry of a list field."""

    code: str
    params: Mapping[str, Any] | Callable[[Any], Mapping[str, Any]] = field(default_factory=dict)
    item: Refusal | None = None


def refused(code: str, **params: Any) -> PydanticCustomError:
    """A validator's refusal that is already the protocol's coded error."""
    return PydanticCustomError(code, code, params)


def coded(problem: ValidationError, models: Mapping[str | None, type[BaseModel]], data: Any,
          **known: Any) -> ProtocolError:
    """The protocol's coded error for the first problem the model found: a validator's
    own code, the field's :class:`Refusal`, an unknown ``type`` or field; ``bad_field``
    naming the field otherwise. ``models`` maps each ``type`` to its model (None: one
    model); ``known`` are params the caller knows (``seat``: the connection's)."""
    problems = problem.errors(include_url=False)
    # An unknown key first, as a reader would: it may be a misspelt one of the others.
    first = next((p for p in problems if p["type"] == "extra_forbidden"), problems[0])
    kind, loc = first["type"], tuple(first["loc"])
    if f"error.{kind}" in CODES:  # raised by a validator below, with its params
        return ProtocolError(kind, **first.get("ctx", {}))
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        value = data.get("type") if isinstance(data, dict) else None
        return ProtocolError("unknown_type", value=repr(value), known=", ".join(m for m in models if m))
    if not loc:  # not an object at all
        if None not in models:
            return ProtocolError("message_not_object")
        no_params: dict[str, Any] = {}  # neither code has any
        return ProtocolError(getattr(models[None], "not_object", "body_not_object"), **no_params)
    model = models.get(None) or models.get(str(loc[0]))
    path = loc if None in models else loc[1:]
    if model is None or not path:
        return ProtocolError("bad_field", field=".".join(map(str, loc)) or "message")
    if kind == "extra_forbidden":
        code = getattr(model, "unknown_key", "unknown_field")
        named = {"name": repr(path[0]), "field": str(path[0]), "known": ", ".join(model.model_fields)}
        return ProtocolError(code, **{key: value for key, value in named.items()
                                      if key in placeholders(CODES[f"error.{code}"])})
    info = model.model_fields.get(str(path[0]))
    refusal = next((m for m in info.metadata if isinstance(m, Refusal)), None) if info else None
    if refusal is not None and refusal.item is not None and len(path) > 1:
        refusal = refusal.item
    if refusal is None:
        return ProtocolError("bad_field", field=".".join(map(str, path)))
    given = refusal.params(data) if callable(refusal.params) else refusal.params
    params = {"name": str(path[0]), "field": str(path[0]), **given, "value": repr(first.get("input")), **known}
    wanted = placeholders(CODES[f"error.{refusal.code}"])
    return ProtocolError(refusal.code, **{key: value for key, value in params.items() if key in wanted})


CODES: Mapping[str, Any] = {key: text for key, text in catalogue("en")["strings"].items() if key.startswith("error.")}

Model = TypeVar("Model")


class Reader(Generic[Model]):
    """Reads one kind of input (a message of a union, a body) into its model, or raises
    its coded error (:func:`coded`)."""

    def __init__(self, shape: Any, models: Mapping[str | None, type[BaseModel]]) -> None:
        self.adapter: TypeAdapter[Model] = TypeAdapter(shape)
        self.models = models

    @classmethod
    def union(cls, shape: Any) -> Reader[Any]:
        """A union of messages (``A | B | ...``) told apart by their ``type``."""
        tagged = {get_args(model.model_fields["type"].annotation)[0]: model for model in get_args(shape)}
        return cls(Annotated[shape, Field(discriminator="type")], tagged)

    def read(self, data: Any, **known: Any) -> Model:
        """``data`` (JSON as read) as the model; ProtocolError naming the first problem.
        ``known``: params of the refusals the caller knows (``seat``: the connection's)."""
        try:
            return self.adapter.validate_python(data)
        except ValidationError as problem:
            raise coded(problem, self.models, data, **known) from None

    @property
    def types(self) -> tuple[str, ...]:
        """The ``type`` of each message of a union."""
        return tuple(key for key in self.models if key is not None)


# ---------------------------------------------------------------------- checked values

def _name(value: str) -> str:
    squeezed = " ".join(value.split())
    if not squeezed or len(squeezed) > MAX_NAME:
        raise refused("name_length", max=MAX_NAME)
    if any(unicodedata.category(c).startswith("C") for c in squeezed):
        raise refused("name_control")
    return squeezed


Name = Annotated[str, AfterValidator(_name), Refusal("name_not_text"),
                 Field(description=f"1 to {MAX_NAME} characters, spaces squeezed, no control characters")]


def parse_rules(text: Any) -> Rules:
    """Read a rule text for a new game; the rules' own message if they refuse it.

    >>> parse_rules("kreuz(target=1000)").players
    4
    >>> parse_rules("standard(sit_out=1)")
    Traceback (most recent call last):
    ...
    binokel.server.schema.ProtocolError: sit_out=1 needs players=4 (the dealer sits out, three play)
    """
    if not isinstance(text, str):
        raise ProtocolError("rules_not_text", value=repr(text))
    try:
        return Rules.parse(text)
    except BinokelError as error:
        raise ProtocolError(error.code, **error.params) from None


def _rules(value: Any) -> Rules:
    try:
        return parse_rules(value)
    except ProtocolError as error:  # the rules' own code and message
        raise PydanticCustomError(error.code, error.code, error.params) from None


RuleText = Annotated[Rules, PlainValidator(_rules), PlainSerializer(lambda rules: rules.text),
                     WithJsonSchema({"type": "string", "description": "a rule text, e.g. standard(target=1000)"})]


def _chat_text(value: str) -> str:
    if not value.strip():
        raise refused("chat_needs_text")
    if len(value) > MAX_CHAT:
        raise refused("chat_too_long", max=MAX_CHAT)
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") for c in value):
        raise refused("chat_control")
    return value


Version = Annotated[int, Field(description="a version of the table: the number of steps taken")]
Token = Annotated[str, Field(min_length=1, max_length=MAX_TOKEN)]


# ---------------------------------------------------------------------- client -> server

class ClientMessage(BaseModel):
    """A websocket message of a client. Keys a message does not have are ignored."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)

    seat: Annotated[int | None, Refusal("not_your_seat"),
                    Field(description="if given, the connection's own seat (another is refused)")] = None


class Hello(ClientMessage):
    """The first message: the seat token (null: to watch) and the last version seen."""

    type: Literal["hello"]
    token: Annotated[Token | None, Refusal("bad_token")] = None
    version: Annotated[Version | None, Refusal("version_not_number")] = None
    beat: Annotated[bool, Field(description="tell this connection a beat when nothing else was sent for about "
                                            "a second, so it can notice a dead line without a ping")] = False


class Action(ClientMessage):
    """An action in record notation, one of ``view.legal_actions``, at the version last seen."""

    type: Literal["action"]
    action: Annotated[str, Refusal("action_needs_text")]
    version: Annotated[Version, Refusal("action_needs_version")]


class HintRequest(ClientMessage):
    """What the hint level's bot (``binokel.ai.HINT_LEVEL``) would do; ``chosen``: cards picked
    to lay away, not sent yet."""

    type: Literal["hint"]
    chosen: Annotated[list[Annotated[str, Field(max_length=3)]] | None, Field(max_length=12)] = None


class Sync(ClientMessage):
    """Send the state again."""

    type: Literal["sync"]


class Ping(ClientMessage):
    """A heartbeat: a client that did not ask for the server's ``beat`` sends it after a quiet
    moment; the server answers ``pong``."""

    type: Literal["ping"]


class NextDeal(ClientMessage):
    """This person is ready for the next deal."""

    type: Literal["next_deal"]
    version: Annotated[Version | None, Refusal("version_not_number")] = None


class RematchRequest(ClientMessage):
    """Once the game is over: a new game with the same settings, people and seats."""

    type: Literal["rematch"]


class Chat(ClientMessage):
    """A chat line of a person: a text or a quick phrase."""

    type: Literal["chat"]
    text: Annotated[str | None, AfterValidator(lambda v: v if v is None else _chat_text(v)),
                    Refusal("chat_needs_text")] = None
    phrase: Annotated[Phrase | None, Refusal("bad_phrase", {"phrases": ", ".join(PHRASES)})] = None

    @model_validator(mode="after")
    def _said(self) -> Chat:
        if self.text is None and self.phrase is None:
            raise refused("chat_needs_text")
        return self


class EventsRequest(ClientMessage):
    """The events after version ``since`` (0: all)."""

    type: Literal["events"]
    since: Annotated[Version, Field(ge=0), Refusal("events_needs_since")]


CLIENT: Reader[Hello | Action | HintRequest | Sync | Ping | NextDeal | RematchRequest | Chat | EventsRequest] = (
    Reader.union(Hello | Action | HintRequest | Sync | Ping | NextDeal | RematchRequest | Chat | EventsRequest))
"""Every message a client may send."""


# ---------------------------------------------------------------------- HTTP bodies

def players_of(body: Any) -> int:
    """The players of a body's rule text, for a refusal's words (3 if it has none that reads)."""
    try:
        return Rules.parse(body.get("rules", "standard")).players if isinstance(body, dict) else 3
    except (BinokelError, AttributeError):
        return 3


def _opponents_example(body: Any) -> dict[str, Any]:
    count = players_of(body) - 1
    return {"count": NUMBER_WORDS.get(count, str(count)),
            "example": ", ".join(['"medium"'] * (count - 1) + ['"hard"'])}


LEVEL_LIST = {"levels": ", ".join(LEVELS)}
DEFAULTS = Settings(Rules.parse("standard"))
Seconds = Annotated[float, Field(ge=0, le=MAX_GRACE), Refusal("bad_seconds", {"max": f"{MAX_GRACE:g}"})]


class NewGame(BaseModel):
    """The body of ``POST /api/games``: what a new table is made of. Every key is optional."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, arbitrary_types_allowed=True)

    rules: RuleText = Field(DEFAULTS.rules, json_schema_extra={"default": DEFAULTS.rules.text})
    seats: Annotated[list[SeatKind] | None,
                     Refusal("seats_list", lambda body: {"count": players_of(body), **LEVEL_LIST},
                             item=Refusal("bad_seat_kind", LEVEL_LIST)),
                     Field(description='per seat "me" (the creator, at most one), "open" (a friend) or a bot level')
                     ] = None
    opponents: Annotated[list[Level] | None, Refusal("opponents_list", _opponents_example,
                                                     item=Refusal("bad_level", LEVEL_LIST)),
                         Field(description="older form of seats: one level per seat after the creator's seat 0")
                         ] = None
    name: Name = DEFAULTS.name
    language: Annotated[Language, Refusal("bad_language", {"languages": ", ".join(LANGUAGES)})] = DEFAULTS.language
    deck: Annotated[Deck, Refusal("bad_deck", {"decks": ", ".join(DECKS)})] = DEFAULTS.deck
    seed: Annotated[int | None, Field(ge=0, lt=2**63), Refusal("bad_seed")] = None
    grace: Seconds = DEFAULTS.grace
    stand_in: Annotated[Level, Refusal("bad_level", LEVEL_LIST)] = DEFAULTS.stand_in
    lobby: Annotated[bool, Refusal("bad_lobby")] = DEFAULTS.lobby
    next_deal_after: Seconds = DEFAULTS.next_deal_after

    @model_validator(mode="after")
    def _seat_plan(self) -> NewGame:
        players = self.rules.players
        if self.seats is not None:
            if self.opponents is not None:
                raise refused("seats_or_opponents")
            if len(self.seats) != players:
                raise refused("seats_list", count=players, levels=LEVEL_LIST["levels"])
            if self.seats.count(ME) > 1:
                raise refused("one_me")
        elif self.opponents is not None and len(self.opponents) != players - 1:
            raise refused("opponents_list", **_opponents_example({"rules": self.rules.text}))
        return self

    def plan(self) -> tuple[str, ...]:
        """The seat plan: ``seats``, or the creator at seat 0 and ``opponents`` (default medium bots)."""
        if self.seats is not None:
            return tuple(self.seats)
        return (ME, *(self.opponents or ["medium"] * (self.rules.players - 1)))


class InviteLookup(BaseModel):
    """The body of ``POST /api/invite``."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    code: Annotated[Token, Refusal("code_not_text")]


class Join(BaseModel):
    """The body of ``POST /api/join``: an invite code, or the id of a table in the lobby."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)
    unknown_key: ClassVar[str] = "join_body"  # the refusal of a key the body does not have

    code: Annotated[Token | None, Refusal("code_not_text")] = None
    id: Annotated[str | None, Field(min_length=1, max_length=64), Refusal("join_body")] = None
    name: Annotated[Name, Field(validate_default=True)] = ""


class MyGames(BaseModel):
    """The body of ``POST /api/my-games``: the seat tokens this browser holds."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    tokens: Annotated[list[Token], Refusal("tokens_list")]


NEW_GAME: Reader[NewGame] = Reader(NewGame, {None: NewGame})
INVITE: Reader[InviteLookup] = Reader(InviteLookup, {None: InviteLookup})
JOIN: Reader[Join] = Reader(Join, {None: Join})
MY_GAMES: Reader[MyGames] = Reader(MyGames, {None: MyGames})




# ---------------------------------------------------------------------- server -> client
# What the server sends. The server builds these messages as plain JSON where it is fast;
# the models say what they contain (the schema), and tests/test_protocol_schema.py checks
# every message of whole games against them.

class Sent(BaseModel):
    """A part of a message the server sends: no key the model does not name."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


Card = Annotated[str, Field(pattern=r"^[ATKQJ97][SHDC]$", description="a card: rank and suit letter, e.g. AS")]
SeatNumber = Annotated[int, Field(ge=0, le=5)]
Points = int


class MeldShown(Sent):
    name: str
    suit: Literal["S", "H", "D", "C"] | None
    cards: list[Card]
    points: Points


class TrickShown(Sent):
    leader: SeatNumber
    cards: list[Card]
    seats: list[SeatNumber]
    winner: SeatNumber | None


class DoneTrick(TrickShown):
    points: Points = Field(description="what the trick brought its winner (the last trick's 10 included)")


class View(Sent):
    """A seat's view of the deal shown (``SeatView.to_json``); a spectator's has no hand,
    discard or legal actions and ``seat`` null."""

    rules: str
    seat: SeatNumber | None
    players: int
    dealer: SeatNumber
    phase: PhaseName
    to_move: SeatNumber | None
    tapp_size: int
    hand: list[Card]
    hand_sizes: list[int]
    auction: list[str]
    callers: list[SeatNumber]
    soloist: SeatNumber | None
    bid: int | None
    tapp: list[Card] | None
    discard: list[Card] | None
    game: GameWord | None
    surrendered: bool | None
    melds: list[list[MeldShown]] | None
    tricks: list[DoneTrick]
    trick: TrickShown
    tricks_won: list[int]
    trick_points: list[Points]
    outcome: OutcomeName | None
    scores: list[Points] | None
    legal_actions: list[str] = Field(description="in record notation, sorted; empty unless this seat is to move")
    sitting_out: SeatNumber | None
    open_hand: list[Card] | None
    order: list[SeatNumber] = Field(description="the seats in playing order from the dealer's left")
    card_points: list[Points]
    tapp_points: Points | None
    discard_points: Points | None
    rank_points: dict[str, Points]


class SeatShown(Sent):
    """A seat as everybody may see it (:class:`binokel.server.settings.SeatPresence`)."""

    kind: Literal["person", "open", "bot"]
    name: str
    level: Level | None
    connected: bool
    stand_in: bool = Field(description="a bot plays for this absent person right now")


class HistoryLine(Sent):
    """A finished deal on the score sheet."""

    dealer: SeatNumber
    soloist: SeatNumber | None = Field(description="null when everybody passed (outcome redeal)")
    bid: int | None
    game: GameWord | None
    outcome: OutcomeName
    scores: list[Points]
    melds: list[Points] = Field(description="meld points per seat")
    card_points: list[Points]


class TableSettings(Sent):
    language: Language
    deck: Deck
    name: str = Field(description="the name of the seat this message is for ('' for a spectator)")
    grace: float
    lobby: bool


class RuleChange(Sent):
    name: str
    value: Any
    standard: Any


class GameShown(Sent):
    """The game around the deal shown (the same for every seat but ``settings.name``)."""

    players: list[str]
    levels: list[Level | None]
    seats: list[SeatShown]
    waiting: bool = Field(description="friends are still to take their seats: nobody moves")
    totals: list[Points]
    deal_number: int
    rules: str
    changes: list[RuleChange]
    teams: list[int] | None = Field(description="each seat's team with partnerships, else null")
    durch_games: list[int] | None = Field(description="whole games won (+1) or lost (-1) by Durch per seat, "
                                                      "with durch_game=1, else null")
    target: int
    over: bool
    winner: int | None = Field(description="the winning seat, or with partnerships the winning team")
    history: list[HistoryLine]
    settings: TableSettings
    ready: list[SeatNumber]
    rematch: str | None


class Reason(Sent):
    code: str
    params: dict[str, Any]


class ContractWorth(Sent):
    value: int | None
    whole_game: bool


class Surrender(Sent):
    cost: int
    credit: int


class NextStep(Sent):
    """What happens next (``binokel.update.next_json``): a seat is asked, a bot thinks (for
    an absent person: ``stand_in``), the next deal, or the game is over."""

    step: Literal["ask", "think", "deal", "over"]
    seat: SeatNumber | None = None
    level: Level | None = None
    stand_in: bool | None = None
    winner: int | None = None


class StateMessage(Sent):
    """The snapshot of the table for one seat (or a spectator): on hello and on ``sync``."""

    type: Literal["state"]
    version: Version
    seat: SeatNumber | None
    view: View
    game: GameShown
    last_trick: DoneTrick | None
    next: NextStep
    refusals: dict[str, Reason] = Field(description="each card of the hand the seat may not play now, and why")
    contracts: dict[str, ContractWorth] = Field(description="each game without trump the rules offer, and its worth")
    surrender: Surrender | None
    meld_options: dict[str, Points] | None = Field(description="the soloist's melds with each trump")


class Event(BaseModel):
    """A step's event of the table driver (``binokel.table.Event``), as its audience may see it;
    the keys besides ``version`` and ``kind`` are the kind's (see ``binokel.table.EventKind``)."""

    model_config = ConfigDict(strict=True, extra="allow", frozen=True)

    version: Version
    kind: Literal["deal", "hand", "action", "soloist", "tapp", "melds", "open_hand", "trick", "deal_over",
                  "game_over"]


class EventsMessage(Sent):
    """The events after version ``since`` this connection may see."""

    type: Literal["events"]
    since: Version
    version: Version
    events: list[Event]
    stand_in: SeatNumber | None = Field(description="the person's seat a bot moved for, if one did")


def _changes_of(model: type[BaseModel], name: str, doc: str) -> Any:
    """``model`` with every field optional: the part of it a step changed (absent: unchanged)."""
    fields: dict[str, Any] = {key: (info.annotation, Field(default=None, description=info.description))
                              for key, info in model.model_fields.items()}
    return create_model(name, __base__=Sent, __doc__=doc, **fields)


if TYPE_CHECKING:
    ViewChange: TypeAlias = View
else:
    ViewChange = _changes_of(View, "ViewChange", "The fields of the audience's view a step changed "
                                                 "(a deal: all of them); the others are as they were.")


class GameChange(Sent):
    """The game facts a step may change (the rest of :class:`GameShown` changes with presence,
    a rematch, or a friend taking a seat, which sends a snapshot)."""

    totals: list[Points]
    over: bool
    winner: int | None
    deal_number: int
    durch_games: list[int] | None
    history: list[HistoryLine] | None = Field(default=None, description="the whole score sheet, when the step "
                                                                        "ended a deal; else absent")
    ready: list[SeatNumber]


class StepFacts(Sent):
    """What an update sets in the audience's model: merged into its top level, its ``view``
    and its ``game`` (``binokel.update.apply_update``; the page's ``applyUpdate``)."""

    view: ViewChange
    game: GameChange
    next: NextStep
    refusals: dict[str, Reason]
    surrender: Surrender | None
    meld_options: dict[str, Points] | None
    last_trick: DoneTrick | None = Field(default=None, description="present when the step changed it (a deal, "
                                                                   "a trick won)")


class TricksWon(Sent):
    tricks: list[DoneTrick] = Field(description="the tricks the step won, added to the view's")


class Appended(Sent):
    view: TricksWon


class UpdateMessage(Sent):
    """One step for this audience (a seat, or the spectators): its events and what it
    changed; applied to the model of version ``since`` it gives the snapshot of ``version``."""

    type: Literal["update"]
    version: Version
    since: Version
    stand_in: SeatNumber | None = Field(description="the person's seat a bot moved for, if one did")
    events: list[Event]
    model: StepFacts
    append: Appended | None = Field(default=None, description="lists the step lengthened (the tricks won)")


class PresenceMessage(Sent):
    """Who sits where and who is connected, after every change of it."""

    type: Literal["presence"]
    seats: list[SeatShown]
    waiting: bool
    spectators: int
    ready: list[SeatNumber]


class ChatLine(Sent):
    """A chat line (text is never HTML)."""

    type: Literal["chat"]
    seat: SeatNumber
    name: str
    at: float = Field(description="seconds since 1970")
    id: str
    text: str | None = None
    phrase: Phrase | None = None


class ChatLogMessage(Sent):
    """The recent chat lines, after hello (seats only)."""

    type: Literal["chat_log"]
    lines: list[ChatLine]


class HintMessage(Sent):
    """What the hint level's bot (``binokel.ai.HINT_LEVEL``) would do for this seat."""

    type: Literal["hint"]
    action: str


class RematchMessage(Sent):
    """A person asked for a rematch: its table's id."""

    type: Literal["rematch"]
    id: str


class PongMessage(Sent):
    """The answer to a ``ping`` (the heartbeat of a page that did not ask for the ``beat``), to
    its sender only."""

    type: Literal["pong"]


class ErrorMessage(Sent):
    """A refused message, to its sender only; nothing changed."""

    type: Literal["error"]
    message: str = Field(description="the English text of the reason")
    code: str = Field(description="the reason: error.<code> of the catalogue")
    params: dict[str, Any]
    version: Version | None


class BeatMessage(Sent):
    """Told a connection that asked for it (``hello`` with ``beat``) when nothing else was sent
    to it for about a second: the line is alive (server/beat.py)."""

    type: Literal["beat"]


ServerMessage = (StateMessage | UpdateMessage | EventsMessage | PresenceMessage | ChatLine | ChatLogMessage
                 | HintMessage | RematchMessage | PongMessage | ErrorMessage | BeatMessage)
SERVER: Reader[ServerMessage] = Reader.union(ServerMessage)
"""Every message the server sends over the websocket."""


# ---------------------------------------------------------------------- HTTP answers

class ErrorAnswer(Sent):
    """Every HTTP refusal: the English text, the reason (``error.<code>`` of the catalogue) and its params."""

    error: str
    code: str
    params: dict[str, Any]


class RulesAnswer(Sent):
    """``GET /api/rules``: the rules read as a new game would read them."""

    text: str = Field(description="the canonical rule text")
    players: int
    changes: list[RuleChange] = Field(description="the options that differ from the standard rule set")
    teams: list[int] = Field(description="each seat's team (every seat its own without partnerships)")
    bot_names: list[str] = Field(description="the name a computer player gets at each seat")


class RulesCheck(RulesAnswer):
    """``GET /api/rules/check``: the same answer with ``ok`` true (always HTTP 200)."""

    ok: Literal[True]


class RulesRefused(Sent):
    """``GET /api/rules/check`` of a text the rules refuse (HTTP 200 all the same)."""

    ok: Literal[False]
    error: str = Field(description="the rules' own message")


class RuleSet(RulesAnswer):
    name: str
    about: str


class OptionShown(Sent):
    name: str
    standard: Any
    meaning: str
    choices: list[Any] | None
    minimum: int | None
    maximum: int | None
    step: int | None


class Listen(Sent):
    local_only: bool
    host: str
    url: str


class Meta(Sent):
    """``GET /api/meta``: everything the new-game form offers."""

    rule_sets: list[RuleSet]
    options: list[OptionShown]
    levels: list[Level]
    languages: list[Language]
    decks: list[Deck]
    opponent_names: list[str]
    seat_kinds: list[SeatKind]
    phrases: list[Phrase]
    listen: Listen


class SeatCode(Sent):
    seat: SeatNumber
    code: str


class InviteCodes(Sent):
    code: str | None = Field(description="the table's short code, to read out (fills the next free seat)")
    seats: list[SeatCode] = Field(description="a long code per open seat, for links")


class SeatLink(Sent):
    seat: SeatNumber
    url: str


class Links(Sent):
    next_seat: str | None
    seats: list[SeatLink]
    watch: str


class Created(Sent):
    """``POST /api/games``: the new table; the token and codes are shown only here."""

    id: str
    seat: SeatNumber | None = Field(description="the creator's seat (null: they only host)")
    token: str = Field(description="the creator's seat token")
    invites: InviteCodes
    links: Links


class NewInvites(Sent):
    """``POST /api/games/{id}/invites``: new codes for the open seats (the old ones stop working)."""

    id: str
    invites: InviteCodes
    links: Links


class TableSummary(Sent):
    """What a list shows of a table."""

    id: str
    rules: str
    players: list[str]
    seats: list[SeatShown]
    totals: list[Points]
    deals: int
    over: bool
    waiting: bool
    to_move: SeatNumber | None
    updated: str | None


class InviteAnswer(TableSummary):
    """``POST /api/invite``: the table an invite leads to."""

    seat: SeatNumber | None = Field(description="the invited seat (null: the next free one)")
    open_seats: list[SeatNumber]


class Joined(Sent):
    """``POST /api/join``: the seat taken and its token."""

    id: str
    seat: SeatNumber
    token: str


class HeldTable(TableSummary):
    """A table the tokens hold a seat at, once however many of its seats they hold."""

    seat: SeatNumber | None = Field(
        description="the seat to come back to (null: a creator who does not play); of several held, a seat "
                    "played before hosting, the one to move first, else the lowest")
    token: str = Field(description="the one of the tokens sent that holds this seat: the page keeps it to come "
                                   "back (a rematch made while it was away holds the same tokens)")
    host: bool = Field(description="whether that token is the creator's (it may delete the table)")


class MyGamesAnswer(Sent):
    """``POST /api/my-games``: the tables these tokens hold a seat at, one row each."""

    games: list[HeldTable]


class Lobby(Sent):
    """``GET /api/lobby``: unfinished tables listed by their creator that have a free seat."""

    tables: list[TableSummary]


class BiddingHelp(Sent):
    melds: dict[str, Points] = Field(description="the hand's melds with each trump")
    certain: Points = Field(description="the most the melds alone are worth")
    estimate: Points | None
    safe: list[Points] | None = Field(description="[low, high]: a bid range the adviser would make")
    limit: int | None = Field(description="the highest bid the adviser would still make")
    lowest: int = Field(description="the lowest bid allowed now")


class Advice(Sent):
    """``GET /api/games/{id}/advice``: bidding help for the token's seat, from its own view."""

    phase: PhaseName
    bidding: BiddingHelp | None = Field(description="null outside the auction")


class Deleted(Sent):
    """``DELETE /api/games/{id}``."""

    deleted: str


HTTP: dict[str, tuple[str | None, type[BaseModel]]] = {
    "GET /api/meta": (None, Meta),
    "GET /api/rules": (None, RulesAnswer),
    "GET /api/rules/check": (None, RulesCheck),
    "POST /api/games": ("NewGame", Created),
    "POST /api/invite": ("InviteLookup", InviteAnswer),
    "POST /api/join": ("Join", Joined),
    "POST /api/games/{id}/invites": (None, NewInvites),
    "POST /api/my-games": ("MyGames", MyGamesAnswer),
    "GET /api/lobby": (None, Lobby),
    "DELETE /api/games/{id}": (None, Deleted),
    "GET /api/games/{id}/advice": (None, Advice),
}
"""The JSON routes of the game: each one's body (a key of :data:`BODIES`) and answer model.
Any refusal is an :class:`ErrorAnswer`; ``/api/rules/check`` may answer :class:`RulesRefused`."""

WEBSOCKET: dict[str, Reader[Any]] = {"ClientMessage": CLIENT, "ServerMessage": SERVER}
BODIES: dict[str, Reader[Any]] = {"NewGame": NEW_GAME, "InviteLookup": INVITE, "Join": JOIN, "MyGames": MY_GAMES}
