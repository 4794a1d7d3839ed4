"""Rules as data: a frozen :class:`Rules` value holds every option of docs/rules.md section 9.

A rule set is a named bundle of option values. Its canonical text names the base set
and lists only the options that differ from it, in declaration order:

>>> Rules.parse("standard(surrender_credit=30,target=1000)").text
'standard(target=1000,surrender_credit=30)'
>>> Rules.parse("classic40").hand_size, Rules.parse("classic40").tapp_size
(12, 4)
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field, fields
from enum import StrEnum
from functools import cached_property, lru_cache
from typing import Any

from binokel.card import CARDS, Card, Rank, Suit
from binokel.error import NotationError
from binokel.number import read_number, shown

# The options with a fixed set of words. StrEnum members are their text, so the
# canonical rule text, records and JSON read them as plain words.

class Word(StrEnum):
    """An option value that is one of a fixed set of words. It compares, hashes, prints
    and serialises as its text; its repr is the text's too, so listings of options read
    as they always did.

    >>> Deck.SEVENS == "sevens", f"{Deck.SEVENS}", repr(Deck.SEVENS), Deck("forty") is Deck.FORTY
    (True, 'sevens', "'sevens'", True)
    """

    def __repr__(self) -> str:
        return repr(self.value)

class Deck(Word):
    NINES = "nines"  # 48 cards with 9s
    SEVENS = "sevens"  # 48 cards with 7s
    FORTY = "forty"  # 40 cards, no low card


class FirstLead(Word):
    FOREHAND = "forehand"
    SOLOIST = "soloist"


class SurrenderCredit(Word):
    FIFTY = "50"
    HALF = "half"  # half the bid, rounded down to a multiple of 10
    FORTY = "40"
    THIRTY = "30"
    ZERO = "0"


class DoubleMelds(Word):
    SPECIAL = "special"
    PLAIN = "plain"


class DefenderMelds(Word):
    TRICK = "trick"
    ALWAYS = "always"


class MustBeat(Word):
    WINNER = "winner"
    LED = "led"


class Teams(Word):
    NONE = "none"
    OPPOSITE = "opposite"  # 4 players, partners opposite
    ALTERNATE = "alternate"  # 6 players, two teams of three


class Auction(Word):
    FIXED = "fixed"
    OPEN = "open"


class AllPass(Word):
    REDEAL = "redeal"
    FORCED = "forced"


class End(Word):
    SOLOIST = "soloist"
    HIGHEST = "highest"


DECKS: dict[Deck, tuple[Rank, ...]] = {
    Deck.NINES: (Rank.A, Rank.T, Rank.K, Rank.Q, Rank.J, Rank.NINE),
    Deck.SEVENS: (Rank.A, Rank.T, Rank.K, Rank.Q, Rank.J, Rank.SEVEN),
    Deck.FORTY: (Rank.A, Rank.T, Rank.K, Rank.Q, Rank.J),
}


@dataclass(frozen=True)
class Seating:
    """Who sits where in one deal: the table's topology, derived from the rules and the dealer.

    Forehand is the seat after the dealer; with ``sit_out=1`` the dealer sits out and the
    others play in seat order from forehand.

    >>> seating = Rules.parse("four-sitout").seating(3)
    >>> seating.forehand, seating.sitting_out, seating.order, seating.orders[2]
    (0, 3, (0, 1, 2), (2, 0, 1))
    """

    players: int
    dealer: int
    forehand: int
    sitting_out: int | None
    order: tuple[int, ...]
    """The seats playing this deal, in order of play from forehand."""
    orders: tuple[tuple[int, ...], ...]
    """For each seat, the seats playing in order of play starting from it (empty for the seat sitting out)."""

    def next_to(self, seat: int) -> int:
        """The playing seat after ``seat`` in order of play."""
        order = self.orders[seat]
        return order[1 % len(order)]


# Topology is asked for on every deal (scoring, the bots' searches): worked out once per shape.

@lru_cache(maxsize=64)
def _team_seats(players: int, teams: bool, team: int) -> tuple[int, ...]:
    return tuple(seat for seat in range(players) if (seat % 2 if teams else seat) == team)


@lru_cache(maxsize=64)
def _sides(players: int, teams: bool, out: int | None) -> tuple[tuple[int, ...], ...]:
    seats = [seat for seat in range(players) if seat != out]
    if not teams:
        return tuple((seat,) for seat in seats)
    return tuple(tuple(seat for seat in seats if seat % 2 == team) for team in (0, 1))


@lru_cache(maxsize=256)
def _seating(players: int, sit_out: bool, dealer: int) -> Seating:
    out = dealer if sit_out else None
    active = [s for s in range(players) if s != out]
    orders = tuple(tuple(active[(active.index(seat) + i) % len(active)] for i in range(len(active)))
                   if seat != out else () for seat in range(players))
    forehand = (dealer + 1) % players
    return Seating(players, dealer, forehand, out, orders[forehand], orders)


CARDS_MOST = 48
"""The most cards of any deck: a bound on every option that counts cards."""
TARGET_MOST = 10_000
"""The highest ``target``: a game to 10**10 would never end (the rule sets play to 500..1500)."""
DEALS_MOST = 100
"""The most ``deals`` a game of a fixed number of deals may have."""
VALUE_MOST = 10_000
"""The highest value of a contract or opening bid (``min_bid``, ``durch``, ``open_durch``, ...)."""
TEXT_MOST = 1_000
"""The longest rule text read (every option written out is about 600 characters)."""


@dataclass(frozen=True)
class Option:
    """How one option is documented and which values it accepts."""

    help: str
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    step: int | None = None
    maximum: int | None = None  # a bound on work: a game to a target of 10**10 would never end

    @property
    def words(self) -> type[StrEnum] | None:
        """The enum of an option with a fixed set of words (None for numbers and free text)."""
        first = self.choices[0] if self.choices else None
        return type(first) if isinstance(first, StrEnum) else None


def _opt(default: Any, help: str, **kwargs: Any) -> Any:
    return field(default=default, metadata={"option": Option(help, **kwargs)})


@dataclass(frozen=True)
class Rules:
    """Every rule option; the defaults are the ``standard`` rule set."""

    name: str = field(default="standard", compare=False)
    deck: Deck = _opt(Deck.NINES, "cards: 'nines' (48 with 9s), 'sevens' (48 with 7s, Dissle is the trump 7), 'forty' "
                      "(40, no low card)", choices=tuple(Deck))
    players: int = _opt(3, "seats at the table (with sit_out=1 the dealer sits out, so one fewer play)",
                        choices=(3, 4, 6))
    hand_size: int = _opt(15, "cards dealt to each player", minimum=1, maximum=CARDS_MOST)
    tapp_size: int = _opt(3, "cards dealt to the Tapp (the soloist discards as many; 0: no Tapp, the soloist names "
                          "the game at once)", minimum=0,
                          maximum=CARDS_MOST)
    packet: int = _opt(3, "cards per packet when dealing", minimum=1, maximum=CARDS_MOST)
    tapp_rounds: int = _opt(1, "the Tapp is dealt in equal parts after each of the first this many rounds", minimum=1,
                      maximum=CARDS_MOST)
    target: int = _opt(1500, "the game ends after a deal in which somebody reaches this total", minimum=10,
                  maximum=TARGET_MOST)
    deals: int = _opt(0, "play this many deals instead of to the target (0: play to the target)", minimum=0,
                 maximum=DEALS_MOST)
    min_bid: int = _opt(150, "forehand's forced opening bid", minimum=10, step=10,
                  maximum=VALUE_MOST)
    first_lead: FirstLead = _opt(FirstLead.FOREHAND, "who leads the first trick of a trump game: 'forehand' or "
                                 "'soloist'", choices=tuple(FirstLead))
    surrender_credit: SurrenderCredit = _opt(SurrenderCredit.FIFTY, "each opponent's credit (plus own melds) when the "
                                             "soloist surrenders: a number or 'half' (half the bid)",
                                             choices=tuple(SurrenderCredit))
    double_melds: DoubleMelds = _opt(DoubleMelds.SPECIAL, "double melds: 'special' (1500/1000/1000/300) or 'plain' "
                                     "(twice the single value; double binokel stays 300)", choices=tuple(DoubleMelds))
    eight_tens: int = _opt(0, "value of eight tens (0: no meld)", choices=(0, 1000))
    eight_sevens: int = _opt(0, "value of eight 7s with the sevens deck (0: no meld)", choices=(0, 1000))
    durch: int = _opt(1000, "value of Durch won or lost (0: Durch is not allowed)", minimum=0, step=10,
                 maximum=VALUE_MOST)
    failed_credit: int = _opt(0, "extra points to each defender when the contract fails", choices=(0, 30))
    defender_melds: DefenderMelds = _opt(DefenderMelds.TRICK, "defenders' melds count: 'trick' (only with an own "
                                         "trick) or 'always'", choices=tuple(DefenderMelds))
    rounding: int = _opt(0, "round each deal score to the nearest multiple (halves up); 0: no rounding",
                         choices=(0, 10))
    must_beat: MustBeat = _opt(MustBeat.WINNER, "following suit you must beat 'winner' (the card winning the trick, "
                               "standard) or 'led' (the highest card of the led suit, even after a trump)",
                               choices=tuple(MustBeat))
    sit_out: int = _opt(0, "1: four at the table, the dealer sits out each deal (gets no cards, scores 0 for it)",
                        choices=(0, 1))
    packets: str = _opt("", "packet sizes of the dealing rounds, e.g. '4-3-3' (empty: 'packet' cards every round)")
    teams: Teams = _opt(Teams.NONE, "partnerships: 'none', 'opposite' (4 players, partners opposite) or 'alternate' "
                        "(6 players, two teams of three)", choices=tuple(Teams))
    partner_exemption: int = _opt(0, "1: while your partner wins the trick you must follow suit but need not beat or "
                                  "trump", choices=(0, 1))
    auction: Auction = _opt(Auction.FIXED, "'fixed' (forced opening, exact +10, duels in seat order) or 'open' (each "
                            "in turn passes or raises by any multiple of 10)", choices=tuple(Auction))
    all_pass: AllPass = _opt(AllPass.REDEAL, "open auction, everybody passes: 'redeal' (no score, the deal passes on) "
                             "or 'forced' (Zwangsspiel: the dealer plays the minimum bid)", choices=tuple(AllPass))
    open_durch: int = _opt(0, "value of open Durch after the Tapp, the soloist's hand shown (0: not allowed; the "
                           "sources: 1500)", minimum=0, step=10, maximum=VALUE_MOST)
    hand_durch: int = _opt(0, "value of open Durch from the hand, announced instead of taking the Tapp (0: not "
                           "allowed; the sources: 2000)", minimum=0, step=10,
                           maximum=VALUE_MOST)
    durch_fail_credit: int = _opt(0, "points to each opponent (team) when a Durch fails", choices=(0, 300, 400))
    durch_game: int = _opt(0, "1: a Durch won or lost counts as a whole game won or lost instead of points",
                           choices=(0, 1))
    bettel: int = _opt(0, "value of Bettel, the soloist wins no trick (0: not allowed; 300 is our suggestion)",
                       minimum=0, step=10, maximum=VALUE_MOST)
    end: End = _opt(End.SOLOIST, "several reach the target: 'soloist' (the deal's soloist wins if among them) or "
                    "'highest' (the highest total wins)", choices=tuple(End))

    def __post_init__(self) -> None:
        for name, option, words in _CHECKS:
            value = getattr(self, name)
            _check_value(name, value, option)
            if words is not None and type(value) is not words:  # e.g. deck="forty" given as text
                object.__setattr__(self, name, words(value))
        if self.sit_out and self.players != 4:
            raise NotationError("sit_out_needs_four")
        if self.teams is Teams.OPPOSITE and (self.players != 4 or self.sit_out):
            raise NotationError("opposite_needs_four")
        if self.teams is Teams.ALTERNATE and self.players != 6:
            raise NotationError("alternate_needs_six")
        if self.players == 6 and self.teams is not Teams.ALTERNATE:
            raise NotationError("six_need_teams")
        if self.partner_exemption and self.teams is Teams.NONE:
            raise NotationError("exemption_needs_teams")
        deck = len(self.ranks) * 8
        if self.active * self.hand_size + self.tapp_size != deck:
            raise NotationError("deck_size", deck=deck, active=self.active, hand_size=self.hand_size,
                                tapp_size=self.tapp_size)
        if self.packets:
            if len(self.packets) > 3 * CARDS_MOST or not re.fullmatch(r"[1-9][0-9]?(-[1-9][0-9]?)*", self.packets):
                raise NotationError("bad_packets", value=repr(shown(self.packets)))
            if sum(self.packet_sizes) != self.hand_size:
                raise NotationError("packets_sum", packets=self.packets, hand_size=self.hand_size,
                                    example=_even_packets(self.hand_size))
        if self.hand_durch and not self.tapp_size:
            raise NotationError("hand_durch_needs_tapp")
        rounds = len(self.packet_sizes)
        if self.tapp_rounds > rounds or self.tapp_size % self.tapp_rounds:
            raise NotationError("tapp_rounds", size=self.tapp_size, parts=self.tapp_rounds, rounds=rounds)

    @property
    def active(self) -> int:
        """How many seats play each deal (the seats minus the one sitting out)."""
        return self.players - self.sit_out

    @property
    def packet_sizes(self) -> tuple[int, ...]:
        """The cards each seat gets in each dealing round.

        >>> Rules.parse("kreuz").packet_sizes, Rules.parse("standard").packet_sizes
        ((4, 3, 3), (3, 3, 3, 3, 3))
        """
        if self.packets:
            return tuple(int(p) for p in self.packets.split("-"))
        full, rest = divmod(self.hand_size, self.packet)
        return (self.packet,) * full + ((rest,) if rest else ())

    # The table's topology: the one place that knows seat order, forehand, who sits
    # out and who plays with whom.

    @cached_property
    def has_teams(self) -> bool:
        """Do partners play together (``teams`` other than ``none``)?"""
        return self.teams is not Teams.NONE

    def seating(self, dealer: int) -> Seating:
        """Who sits where in a deal dealt by ``dealer`` (see :class:`Seating`)."""
        return _seating(self.players, bool(self.sit_out), dealer)

    def sitting_out(self, dealer: int) -> int | None:
        """The seat that sits out a deal dealt by ``dealer`` (the dealer, with ``sit_out=1``), else None.

        >>> Rules.parse("four-sitout").sitting_out(2), Rules.parse("standard").sitting_out(2)
        (2, None)
        """
        return dealer if self.sit_out else None

    def next_dealer(self, dealer: int) -> int:
        """Who deals after ``dealer``: the old forehand."""
        return (dealer + 1) % self.players

    def team_of(self, seat: int) -> int:
        """The team of a seat (with teams, partners share ``seat % 2``; else the seat itself).

        >>> Rules.parse("kreuz").team_of(2), Rules.parse("standard").team_of(2)
        (0, 2)
        """
        return seat % 2 if self.teams is not Teams.NONE else seat

    def partners(self, seat: int, other: int) -> bool:
        """Do ``seat`` and ``other`` play on one side (a seat is its own partner)?

        >>> Rules.parse("sechser").partners(1, 5), Rules.parse("kreuz").partners(0, 1)
        (True, False)
        >>> Rules.parse("standard").partners(0, 2)
        False
        """
        return seat == other or (self.teams is not Teams.NONE and (seat - other) % 2 == 0)

    def team_seats(self, team: int) -> tuple[int, ...]:
        """The seats of a team (with teams: 0 or 1; else the seat itself).

        >>> Rules.parse("kreuz").team_seats(1), Rules.parse("standard").team_seats(1)
        ((1, 3), (1,))
        """
        return _team_seats(self.players, self.has_teams, team)

    def sides(self, out: int | None = None) -> tuple[tuple[int, ...], ...]:
        """The scoring units: each team's seats with teams, else each seat alone; never
        the seat ``out`` sitting out.

        >>> Rules.parse("kreuz").sides(), Rules.parse("four-sitout").sides(out=0)
        (((0, 2), (1, 3)), ((1,), (2,), (3,)))
        """
        return _sides(self.players, self.has_teams, out)

    def __hash__(self) -> int:
        # Rules key the engine's caches on hot paths: hash the compared fields only once.
        value = self.__dict__.get("_hash")
        if value is None:
            value = hash(tuple(getattr(self, f.name) for f in fields(self) if f.compare))
            object.__setattr__(self, "_hash", value)
        return value

    def __getstate__(self) -> dict[str, Any]:
        # String hashes differ between processes: a pickled copy hashes itself afresh.
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    # Derived facts, cheap to compute and read often.

    @property
    def ranks(self) -> tuple[Rank, ...]:
        return DECKS[self.deck]

    @property
    def low_rank(self) -> Rank | None:
        """The 9 or 7 of this deck (the Dissle rank), or None for 40 cards."""
        ranks = self.ranks
        return ranks[-1] if len(ranks) == 6 else None

    @property
    def deck_cards(self) -> list[Card]:
        """The full deck, two copies of every card, in canonical order."""
        return [CARDS[s * 7 + r] for s in Suit for r in self.ranks for _ in range(2)]

    @cached_property
    def deck_kinds(self) -> tuple[int, ...]:
        """The full deck as card kinds, two copies each, in canonical order."""
        return tuple(card.index for card in self.deck_cards)

    @cached_property
    def kind_mask(self) -> int:
        """Mask of the card kinds in this deck."""
        return sum(1 << (s * 7 + r) for s in Suit for r in self.ranks)

    def surrender_points(self, bid: int) -> int:
        """Each opponent's credit (before its melds) when the soloist surrenders a contract of
        ``bid``. "Half the bid" rounds down to a multiple of 10 (docs/rules.md section 10).

        >>> half = Rules.parse("standard(surrender_credit=half)")
        >>> half.surrender_points(170), half.surrender_points(180), STANDARD.surrender_points(170)
        (80, 90, 50)
        """
        if self.surrender_credit is SurrenderCredit.HALF:
            return bid // 20 * 10
        return int(self.surrender_credit)

    def round_score(self, score: int) -> int:
        """A deal score rounded as the rules say (halves up).

        >>> Rules.parse("standard(rounding=10)").round_score(245), Rules.parse("standard(rounding=10)").round_score(244)
        (250, 240)
        """
        if not self.rounding:
            return score
        return (score + self.rounding // 2) // self.rounding * self.rounding

    # Text form.

    @cached_property  # read with every view and message: worked out once per value
    def text(self) -> str:
        """The canonical text: the base set's name and the options that differ from it."""
        changed = [f"{name}={value}" for name, value, _ in self.differences()]
        return f"{self.name}({','.join(changed)})" if changed else self.name

    def differences(self, base: Rules | None = None) -> list[tuple[str, Any, Any]]:
        """The options whose value differs from ``base`` (by default this rule set's named
        base), in declaration order, as ``(name, value, base value)``.

        >>> Rules.parse("sevens(target=1000)").differences()
        [('target', 1000, 1500)]
        >>> Rules.parse("sevens(target=1000)").differences(STANDARD)
        [('deck', 'sevens', 'nines'), ('target', 1000, 1500)]
        """
        base = RULE_SETS[self.name] if base is None else base
        return [(f.name, getattr(self, f.name), getattr(base, f.name)) for f in fields(self)
                if "option" in f.metadata and getattr(self, f.name) != getattr(base, f.name)]

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Rules.parse({self.text!r})"

    def replace(self, **options: Any) -> Rules:
        """The same rule set with some options changed (values as Python or text)."""
        converted = {}
        for key, value in options.items():
            if key not in OPTIONS:
                raise NotationError("unknown_option", name=repr(key), known=", ".join(OPTIONS))
            standard, option = OPTIONS[key]
            converted[key] = _convert(key, value, standard, option)
        return dataclasses.replace(self, **converted)

    @classmethod
    def parse(cls, text: str) -> Rules:
        """Read a rule set name with optional changed options, e.g. ``sevens(target=1000)``."""
        if isinstance(text, Rules):
            return text
        if not isinstance(text, str):
            raise NotationError("rules_not_text", value=repr(text))
        if len(text) > TEXT_MOST:
            raise NotationError("rules_too_long", max=TEXT_MOST)
        match = re.fullmatch(r"\s*([A-Za-z0-9_-]+)\s*(?:\((.*)\))?\s*", text)
        if not match:
            raise NotationError("unreadable_rules", text=repr(text))
        name = ALIASES.get(match.group(1).lower(), match.group(1).lower())
        if name not in RULE_SETS:
            raise NotationError("unknown_rule_set", name=repr(match.group(1)), known=", ".join(RULE_SETS))
        changes = parse_options(match.group(2) or "")
        return RULE_SETS[name].replace(**changes) if changes else RULE_SETS[name]  # immutable: share it


def parse_options(text: str) -> dict[str, str]:
    """Changed options as written, ``"target=500, deals = 2"``, as a dict of texts (the
    values are checked when they are applied with :meth:`Rules.replace`).

    >>> parse_options("target=500, deals = 2")
    {'target': '500', 'deals': '2'}
    >>> parse_options("target")
    Traceback (most recent call last):
    ...
    binokel.error.NotationError: option 'target' needs a value, e.g. target=...
    """
    options: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep:
            raise NotationError("option_needs_value", name=repr(part), example=part)
        if key in options:
            raise NotationError("option_twice", name=repr(key))
        options[key] = value.strip()
    return options


def _even_packets(hand_size: int) -> str:
    """Packets of 3 or 4 cards adding up to ``hand_size``: a suggestion for error messages.

    >>> _even_packets(12), _even_packets(10), _even_packets(2)
    ('4-4-4', '4-3-3', '2')
    """
    for rounds in range(max(1, hand_size // 4), hand_size + 1):
        base, extra = divmod(hand_size, rounds)
        if base <= 4:
            return "-".join(str(base + (i < extra)) for i in range(rounds))
    return str(hand_size)


def _convert(key: str, value: Any, standard: Any, option: Option) -> Any:
    if isinstance(standard, int):
        if isinstance(value, bool):
            raise NotationError("option_not_number", name=key, value=repr(value))
        if isinstance(value, int):
            return value
        text = str(value).strip()
        # Any short number here (a minus too); _check_value then names the option's bounds.
        number = read_number(text.removeprefix("-"), most=10**18, code="option_not_number", name=key,
                             value=repr(shown(text)))
        return -number if text.startswith("-") else number
    text = str(value).strip().lower()
    words = option.words
    if words is not None and text in words._value2member_map_:
        return words(text)
    return text  # a wrong word is reported by _check_value


def _check_value(key: str, value: Any, option: Option) -> None:
    if option.choices is not None and value not in option.choices:
        raise NotationError("option_not_choice", name=key, choices=", ".join(map(str, option.choices)),
                            value=repr(value))
    if option.maximum is not None and value > option.maximum:
        raise NotationError("option_above_maximum", name=key, maximum=option.maximum, value=repr(value))
    if option.minimum is not None and value < option.minimum:
        raise NotationError("option_below_minimum", name=key, minimum=option.minimum, value=repr(value))
    if option.step is not None and value % option.step:
        raise NotationError("option_not_multiple", name=key, step=option.step, value=repr(value))


OPTIONS: dict[str, tuple[Any, Option]] = {
    f.name: (f.default, f.metadata["option"]) for f in fields(Rules) if "option" in f.metadata}
"""Every rule option by name: its standard value and how it is documented, in declaration order."""
_CHECKS = tuple((name, option, option.words) for name, (_, option) in OPTIONS.items())
"""What Rules.__post_init__ checks, worked out once: (name, option, its word enum or None)."""


def options() -> list[tuple[str, Any, str]]:
    """Every option as ``(name, standard value, meaning)``."""
    return [(name, standard, option.help) for name, (standard, option) in OPTIONS.items()]


def _rule_set(name: str, about: str, **options: Any) -> Rules:
    rules = Rules(name=name, **options)
    DESCRIPTIONS[name] = about
    return rules


DESCRIPTIONS: dict[str, str] = {}
RULE_SETS: dict[str, Rules] = {
    rules.name: rules
    for rules in (
        _rule_set("standard", "48 cards with 9s, 15 each, Tapp 3, target 1500 (docs/rules.md, seed 000)"),
        _rule_set("classic40", "40 cards, 12 each, Tapp 4 dealt 2 + 2 (the classic game, seeds 001/002)",
                  deck="forty", hand_size=12, tapp_size=4, tapp_rounds=2),
        _rule_set("sevens", "48 cards with 7s: Dissle is the trump 7", deck="sevens"),
        _rule_set("club", "club rules (seeds 003/004): 48 cards with 7s, open auction, Zwangsspiel when all pass, "
                  "the soloist leads, deal scores rounded to 10, +30 to each defender on failure, target 1000, "
                  "the highest total wins", deck="sevens", target=1000, first_lead="soloist", failed_credit=30,
                  rounding=10, auction="open", all_pass="forced", end="highest"),
        _rule_set("four-solo", "4 players, one against three: 40 cards, 9 each dealt 3-3-3, Tapp 4 dealt 2 + 2 "
                  "(seed 001)",
                  deck="forty", players=4, hand_size=9, tapp_size=4, tapp_rounds=2),
        _rule_set("four-sitout", "4 at the table, the dealer sits out each deal: the standard game for the other three",
                  players=4, sit_out=1),
        _rule_set("kreuz", "Kreuzbinokel: 4 players, partners opposite, 48 cards with 7s, 10 each dealt 4-3-3, "
                  "Tapp 8 dealt 4 + 4, target 500 (seeds 001, 003, 004)",
                  deck="sevens", players=4, hand_size=10, tapp_size=8, packets="4-3-3", tapp_rounds=2,
                  teams="opposite", target=500),
        _rule_set("kreuz12", "Kreuzbinokel dealt out: as kreuz, but 12 each dealt 4-4-4 and no Tapp "
                  "(the soloist names the game at once; seed 003; packets our choice)",
                  deck="sevens", players=4, hand_size=12, tapp_size=0, packets="4-4-4", tapp_rounds=1,
                  teams="opposite", target=500),
        _rule_set("sechser", "Sechser: 6 players in two teams of three (alternate seats), one 48-card deck, "
                  "7 each dealt 4-3, Tapp 6 after the first round, target 1000 (seeds 003/004; sizes our choice)",
                  players=6, hand_size=7, tapp_size=6, packets="4-3", teams="alternate", target=1000),
    )
}
ALIASES = {"default": "standard", "foursolo": "four-solo", "kreuzbinokel": "kreuz", "sechserbinokel": "sechser",
           "48": "standard", "40": "classic40", "classic": "classic40", "online": "classic40", "7s": "sevens"}
STANDARD = RULE_SETS["standard"]

