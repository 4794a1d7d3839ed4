"""The protocol of ``binokel serve`` as typed models: every websocket message (a union
per direction, told apart by ``type``) and every JSON body and answer of the HTTP API.

The models are the reference: ``binokel schema`` writes their JSON Schema to
``docs/protocol.schema.json`` (checked by a test against what a whole game sends). What a
client sends is validated by its model (:func:`read`); what it gets wrong becomes the
protocol's coded error (:class:`Refusal` names a field's catalogue code), never a
validator's own text.

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
    model_validator,
)
from pydantic_core import PydanticCustomError

from binokel.ai import LEVELS
from binokel.error import BinokelError
from binokel.i18n import LANGUAGES, catalogue, placeholders
from binokel.rules import Rules
from binokel.server.seat import MAX_TOKEN
from binokel.server.settings import DECKS, MAX_GRACE, ME, OPEN, Settings

PHRASES = ("hello", "well_played", "good_luck", "thanks", "oops", "bye")
"""Quick chat phrases; each page shows them in its own language ("Gut gespielt!")."""
if TYPE_CHECKING:
    Level: TypeAlias = str
    Language: TypeAlias = str
    Deck: TypeAlias = str
    Phrase: TypeAlias = str
    SeatKind: TypeAlias = str
else:  # the choices as the models check them and the schema lists them, from their one place
    Level, Language, Deck, Phrase = Literal[LEVELS], Literal[LANGUAGES], Literal[DECKS], Literal[PHRASES]
    SeatKind = Literal[(ME, OPEN, *LEVELS)]  # a seat of a new table's plan: the creator, a friend, a bot level
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
        return ProtocolError("body_not_object" if None in models else "message_not_object")
    model = models.get(None) or models.get(str(loc[0]))
    path = loc if None in models else loc[1:]
    if model is None or not path:
        return ProtocolError("bad_field", field=".".join(map(str, loc)) or "message")
    if kind == "extra_forbidden":
        code = getattr(model, "unknown_key", "unknown_field")
        return ProtocolError(code, **({} if code != "unknown_field" else
                                      {"name": repr(path[0]), "known": ", ".join(model.model_fields)}))
    info = model.model_fields.get(str(path[0]))
    refusal = next((m for m in info.metadata if isinstance(m, Refusal)), None) if info else None
    if refusal is not None and refusal.item is not None and len(path) > 1:
        refusal = refusal.item
    if refusal is None:
        return ProtocolError("bad_field", field=".".join(map(str, path)))
    given = refusal.params(data) if callable(refusal.params) else refusal.params
    params = {"name": str(path[0]), **given, "value": repr(first.get("input")), **known}
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


class Action(ClientMessage):
    """An action in record notation, one of ``view.legal_actions``, at the version last seen."""

    type: Literal["action"]
    action: Annotated[str, Refusal("action_needs_text")]
    version: Annotated[Version, Refusal("action_needs_version")]


class Hint(ClientMessage):
    """What the ``hard`` bot would do; ``chosen``: cards picked to lay away, not sent yet."""

    type: Literal["hint"]
    chosen: Annotated[list[Annotated[str, Field(max_length=3)]] | None, Field(max_length=12)] = None


class Sync(ClientMessage):
    """Send the state again."""

    type: Literal["sync"]


class NextDeal(ClientMessage):
    """This person is ready for the next deal."""

    type: Literal["next_deal"]
    version: Annotated[Version | None, Refusal("version_not_number")] = None


class Rematch(ClientMessage):
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


class Events(ClientMessage):
    """The events after version ``since`` (0: all)."""

    type: Literal["events"]
    since: Annotated[Version, Field(ge=0), Refusal("events_needs_since")]


CLIENT: Reader[Hello | Action | Hint | Sync | NextDeal | Rematch | Chat | Events] = Reader.union(
    Hello | Action | Hint | Sync | NextDeal | Rematch | Chat | Events)
"""Every message a client may send."""


# ---------------------------------------------------------------------- HTTP bodies

def _players(body: Any) -> int:
    try:
        return Rules.parse(body.get("rules", "standard")).players if isinstance(body, dict) else 3
    except (BinokelError, AttributeError):
        return 3


def _opponents_example(body: Any) -> dict[str, Any]:
    count = _players(body) - 1
    return {"count": NUMBER_WORDS.get(count, str(count)),
            "example": ", ".join(['"medium"'] * (count - 1) + ['"hard"'])}


LEVEL_LIST = {"levels": ", ".join(LEVELS)}
DEFAULTS = Settings(Rules.parse("standard"))
Seconds = Annotated[float, Field(ge=0, le=MAX_GRACE), Refusal("bad_seconds", {"max": f"{MAX_GRACE:g}"})]


class NewGame(BaseModel):
    """The body of ``POST /api/games``: what a new table is made of. Every key is optional."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, arbitrary_types_allowed=True)

    rules: RuleText = DEFAULTS.rules
    seats: Annotated[list[SeatKind] | None,
                     Refusal("seats_list", lambda body: {"count": _players(body), **LEVEL_LIST},
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

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)

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

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)

    tokens: Annotated[list[Token], Refusal("tokens_list")]


NEW_GAME: Reader[NewGame] = Reader(NewGame, {None: NewGame})
INVITE: Reader[InviteLookup] = Reader(InviteLookup, {None: InviteLookup})
JOIN: Reader[Join] = Reader(Join, {None: Join})
MY_GAMES: Reader[MyGames] = Reader(MyGames, {None: MyGames})
