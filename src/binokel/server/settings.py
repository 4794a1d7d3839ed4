"""What a table is made of: its settings and its seats, one type each.

:class:`Settings` is chosen once, when the table is made (the protocol's ``new_game``
body is checked into one), and stored with the game. Its ``seats`` are the seat plan:
per seat ``"me"`` (the creator), ``"open"`` (a friend who joins with an invite) or a
bot level. A :class:`Seat` is one seat as it stands: a bot, or a person's seat, taken
(the digest of its token) or free; a table's people are their taken Seats by number.
Storage keeps every seat (:meth:`Settings.seat_plan`: the plan with the people in it),
the table driver reads bot or person (:meth:`Settings.driver_seats`) and presence adds
who is connected (:meth:`Seat.presence`): all three are views of the one plan.

>>> from binokel.rules import Rules
>>> settings = Settings(Rules.parse("standard"), seats=("me", "easy", "open"), name="Anna")
>>> [seat.kind for seat in settings.seat_plan({0: Seat("person", None, "Anna", "d" * 64)})], settings.me
(['person', 'bot', 'person'], 0)
>>> Settings.from_json(settings.to_json()) == settings
True
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from binokel.ai import LEVELS
from binokel.rules import Rules
from binokel.server.seat import digest
from binokel.table import Seat as DriverSeat

ME = "me"
OPEN = "open"
"""Seat kinds of the plan besides a bot level: the creator, an open seat for a friend."""
DECKS = ("french", "german")
OPPONENT_NAMES = ("Karle", "Frieda", "Sepp", "Liesl", "Gustl")
"""Names of the computer opponents, seat 1 onwards (as many as the rules seat)."""
DEFAULT_GRACE = 45.0
"""Seconds a person may be away on their turn before a bot plays for them (a table setting)."""
MAX_GRACE = 3600.0
PERSON_KIND = "person"
BOT_KIND = "bot"


def bot_name(seat: int) -> str:
    """A bot's name at ``seat`` (seat 1 gets the first name, seat 0 the last).

    >>> bot_name(1), bot_name(0)
    ('Karle', 'Gustl')
    """
    return OPPONENT_NAMES[(seat - 1) % len(OPPONENT_NAMES)]


@dataclass(frozen=True)
class SeatPresence:
    """A seat as everybody may see it (the ``seats`` of the ``presence`` message): ``kind``
    ``"person"``, ``"open"`` (free) or ``"bot"``; ``level`` the bot's (or the stand-in's)."""

    kind: str
    name: str
    level: str | None
    connected: bool = False
    stand_in: bool = False  # a bot is playing for this absent person right now

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "name": self.name, "level": self.level, "connected": self.connected,
                "stand_in": self.stand_in}


@dataclass(frozen=True)
class Seat:
    """One seat of a table: a person or a bot (with its level), the name shown, and for a
    person whose seat is taken the digest of their seat token (None while the seat is free).

    >>> seat = Seat("person", None, "Anna", digest("t0k3n"))
    >>> seat.is_held_by("t0k3n"), seat.is_held_by("guess"), seat.is_free
    (True, False, False)
    >>> Seat.from_json(seat.to_json()) == seat
    True
    """

    kind: str
    level: str | None
    name: str
    token_hash: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in (PERSON_KIND, BOT_KIND):
            raise ValueError(f"a seat is a person or a bot, not {self.kind!r}")

    @property
    def is_free(self) -> bool:
        """A person's seat nobody has taken yet."""
        return self.kind == PERSON_KIND and self.token_hash is None

    def is_held_by(self, token: str) -> bool:
        """Whether ``token`` is this seat's token (compared in constant time)."""
        return self.token_hash is not None and hmac.compare_digest(self.token_hash, digest(token))

    def presence(self, *, connected: bool = False, stand_in: bool = False, stand_in_level: str | None = None
                 ) -> SeatPresence:
        """The seat as everybody sees it: a bot is always there; a free seat is open."""
        if self.kind == BOT_KIND:
            return SeatPresence(BOT_KIND, self.name, self.level, connected=True)
        if self.is_free:
            return SeatPresence(OPEN, "", None)
        return SeatPresence(PERSON_KIND, self.name, stand_in_level, connected, stand_in)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "level": self.level, "name": self.name, "token_hash": self.token_hash}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Seat:
        return cls(data["kind"], data.get("level"), data["name"], data.get("token_hash"))


@dataclass(frozen=True)
class Settings:
    """What a table is made of (checked from the body of ``POST /api/games``)."""

    rules: Rules
    seats: tuple[str, ...] = (ME, "medium", "medium")  # the seat plan: "me", "open" or a bot level per seat
    name: str = "You"  # the creator's name (at the "me" seat)
    language: str = "en"
    deck: str = "french"
    seed: int | None = field(default=None, compare=False)
    grace: float = DEFAULT_GRACE  # seconds a person may be away on their turn before a bot plays for them
    stand_in: str = "medium"  # the level of the bot that plays for an absent person
    lobby: bool = False  # listed in the lobby while a seat is open
    next_deal_after: float = 0.0  # seconds after a deal ends until the next is dealt anyway (0: never)

    @property
    def opponents(self) -> tuple[str, ...]:
        """The bot levels, seat by seat (the bot seats only)."""
        return tuple(kind for kind in self.seats if kind in LEVELS)

    @property
    def me(self) -> int | None:
        """The creator's seat, if they sit at the table."""
        return self.seats.index(ME) if ME in self.seats else None

    @property
    def open_seats(self) -> list[int]:
        """The seats planned for friends."""
        return [seat for seat, kind in enumerate(self.seats) if kind == OPEN]

    def level(self, seat: int) -> str | None:
        """The bot level of a bot seat, else None."""
        kind = self.seats[seat]
        return kind if kind in LEVELS else None

    def driver_seats(self) -> list[DriverSeat]:
        """The table driver's seats: bots at the bot seats, people (taken or open) elsewhere,
        each with the table's stand-in for when they are away."""
        return [DriverSeat(level) if (level := self.level(seat)) else DriverSeat(stand_in=self.stand_in)
                for seat in range(len(self.seats))]

    def seat_plan(self, people: Mapping[int, Seat]) -> list[Seat]:
        """Every seat as it stands, given the people's taken seats by number: the bots with
        their level and name, the people's seats, the rest free."""
        return [Seat(BOT_KIND, level, bot_name(seat)) if (level := self.level(seat)) is not None
                else people.get(seat) or Seat(PERSON_KIND, None, "") for seat in range(len(self.seats))]

    def to_json(self) -> dict[str, Any]:
        """The settings as stored (and as the ``new_game`` body gives them, but the seed)."""
        return {"rules": self.rules.text, "seats": list(self.seats), "name": self.name,
                "language": self.language, "deck": self.deck, "grace": self.grace, "stand_in": self.stand_in,
                "lobby": self.lobby, "next_deal_after": self.next_deal_after}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], rules: str | None = None) -> Settings:
        """Stored settings, as :meth:`to_json` wrote them now or earlier: trusted, so not
        checked again as a new table's body would be (a limit that changed since must not
        lock a game out); a key that is missing takes its default. Tables stored before
        ``seats`` existed have ``opponents`` after the creator's seat 0; ``rules`` is the
        game's rule text when the settings lack it.

        >>> Settings.from_json({"opponents": ["easy", "hard"], "name": "Anna"}, "standard").seats
        ('me', 'easy', 'hard')
        """
        defaults = cls(Rules.parse(str(data.get("rules", rules or "standard"))))
        seats = data.get("seats")
        if seats is None:
            seats = [ME, *data.get("opponents", ["medium"] * (defaults.rules.players - 1))]
        return cls(defaults.rules, tuple(seats),
                   str(data.get("name", defaults.name)), str(data.get("language", defaults.language)),
                   str(data.get("deck", defaults.deck)), data.get("seed"),
                   float(data.get("grace", defaults.grace)), str(data.get("stand_in", defaults.stand_in)),
                   bool(data.get("lobby", defaults.lobby)),
                   float(data.get("next_deal_after", defaults.next_deal_after)))
