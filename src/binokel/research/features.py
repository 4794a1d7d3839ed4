"""Fixed-size features of a seat's view and one fixed action space, for learning agents.

The PettingZoo and OpenSpiel adapters and the self-play data all use this one encoding,
so that a policy trained on one runs on the others. It reads a
:class:`~binokel.view.SeatView` and nothing else: whatever the view hides, the features
cannot reveal (tests/test_research.py scrambles hidden cards to check it).

Seats are *relative*: slot 0 is the observing seat, slot 1 the next seat in seat order,
and so on (up to six seats; unused slots stay 0). Counts of cards are per card kind
(:data:`binokel.card.CARDS` order, 28 kinds; a 40-card deck leaves its 9/7 slots at 0).
Every field and its scale is listed in :data:`FIELDS` and in docs/research.md.

The action space (:data:`ACTIONS` = 89 indices) covers every decision of every rule set:

======  ======  ==============================================================
index   count   meaning
======  ======  ==============================================================
0       1       pass
1       21      bid: index 1 is the lowest bid allowed now, each next index
                10 more (so 1..21 = lowest .. lowest + 200)
22      28      discard the card of kind ``index - 22``
50      8       name the game: S, H, D, C, durch, open_durch, bettel, hand_durch
58      3       surrender, play on, take the Tapp
61      28      play the card of kind ``index - 61``
======  ======  ==============================================================

The open auction accepts any multiple of 10 above the highest bid; the adapters offer
the lowest 21 of them (a raise of up to 200 at once). Every other legal action has its
index.

>>> import random
>>> from binokel.state import State
>>> from binokel.view import view
>>> state = State.new("standard", dealer=2).deal_random(random.Random(1))
>>> seen = view(state, 0)
>>> len(observation(seen)) == OBSERVATION_SIZE, legal_indices(seen)
(True, [1])
>>> str(action_of(1, seen)), index_of(action_of(1, seen), seen)
('150', 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from binokel.action import (
    DISCARDS,
    GAMES,
    PASS,
    PLAY_ON,
    PLAYS,
    SURRENDER,
    TAKE,
    Action,
    ActionKind,
)
from binokel.card import CARDS, Card
from binokel.meld import Meld, meld_cards, meld_total
from binokel.rules import Auction, Deck
from binokel.view import SeatView

MAX_SEATS = 6
KINDS = len(CARDS)  # 28 card kinds (suit x rank), two copies of each in a deck
BID_SLOTS = 21
"""How many bids the action space offers: the lowest allowed bid and the next 20 (+10 each)."""

PASS_INDEX = 0
BID_BASE = 1
DISCARD_BASE = BID_BASE + BID_SLOTS  # 22
GAME_BASE = DISCARD_BASE + KINDS  # 50
SURRENDER_INDEX = GAME_BASE + len(GAMES)  # 58
PLAY_ON_INDEX = SURRENDER_INDEX + 1  # 59
TAKE_INDEX = PLAY_ON_INDEX + 1  # 60
PLAY_BASE = TAKE_INDEX + 1  # 61
ACTIONS = PLAY_BASE + KINDS  # 89

PHASES = ("deal", "auction", "tapp", "discard", "game", "surrender", "play", "over")

FIELDS: tuple[tuple[str, int, str], ...] = (
    ("rules", 8, "players is 3 / 4 / 6 (one-hot), sit_out, teams, open auction, 40-card deck, deck with 7s"),
    ("phase", 8, "one-hot: " + ", ".join(PHASES)),
    ("to_move", MAX_SEATS, "relative seat to move (one-hot; none once the deal is over)"),
    ("dealer", MAX_SEATS, "relative seat of the dealer"),
    ("sitting_out", MAX_SEATS, "relative seat sitting out this deal (four-sitout), else 0"),
    ("partner", MAX_SEATS, "1 for the other members of my team (teams only)"),
    ("hand", KINDS, "my cards: copies of each kind held (0, 1, 2)"),
    ("hand_sizes", MAX_SEATS, "cards in each relative seat's hand / 10"),
    ("bids", MAX_SEATS, "highest bid each relative seat called / 1000 (0: none yet)"),
    ("passed", MAX_SEATS, "1 if the relative seat has passed"),
    ("high_bid", 1, "highest bid so far / 1000"),
    ("lowest_bid", 1, "the lowest bid allowed now / 1000 (the value of bid index 1; 0 outside the auction)"),
    ("holder", MAX_SEATS, "relative seat holding the highest bid"),
    ("soloist", MAX_SEATS, "relative seat of the soloist (after the auction)"),
    ("contract", 1, "the contract value (final bid) / 1000"),
    ("game", len(GAMES), "the game named, one-hot: S, H, D, C, durch, open_durch, bettel, hand_durch"),
    ("surrendered", 1, "1 if the soloist surrendered"),
    ("tapp", KINDS, "the Tapp once turned face up: copies of each kind"),
    ("discard", KINDS, "my own discard (the soloist only): copies of each kind"),
    ("open_hand", KINDS, "the soloist's hand in an open Durch: copies of each kind"),
    ("melds", MAX_SEATS * KINDS, "per relative seat, the cards shown in its melds"),
    ("meld_points", MAX_SEATS, "per relative seat, the points of its melds / 1000"),
    ("played", MAX_SEATS * KINDS, "per relative seat, the cards it played in completed tricks"),
    ("trick", MAX_SEATS * KINDS, "per relative seat, the card it played to the current trick"),
    ("trick_leader", MAX_SEATS, "relative seat that led the current trick"),
    ("tricks_won", MAX_SEATS, "tricks won per relative seat / 10"),
    ("trick_points", MAX_SEATS, "card points in each relative seat's tricks / 100"),
    ("tricks_done", 1, "completed tricks / 10"),
    ("scores", MAX_SEATS, "the deal's score per relative seat / 1000 (once over)"),
    ("totals", MAX_SEATS, "game totals before this deal per relative seat / 1000 (whole-game episodes)"),
    ("target", 1, "the game's target / 1000"),
)
"""Every field of the observation: name, size, meaning (and scale), in order."""

OFFSETS: dict[str, int] = {}
_at = 0
for _name, _size, _ in FIELDS:
    OFFSETS[_name] = _at
    _at += _size
OBSERVATION_SIZE = _at
"""Length of the observation vector."""


def observation(seen: SeatView, totals: Sequence[int] | None = None) -> list[float]:
    """The features of ``seen`` (and, for whole-game episodes, the game ``totals``)."""
    vector = [0.0] * OBSERVATION_SIZE
    encode_into(vector, seen, totals)
    return vector


def encode_into(vector: list[float], seen: SeatView, totals: Sequence[int] | None = None) -> None:
    """Write the features of ``seen`` into ``vector`` (all zeros, :data:`OBSERVATION_SIZE` long)."""
    rules = seen.rules
    n, me = seen.players, seen.seat
    o = OFFSETS

    def rel(seat: int) -> int:
        return (seat - me) % n

    def cards_at(offset: int, cards: Sequence[object]) -> None:
        for card in cards:
            vector[offset + card.index] += 1.0  # type: ignore[attr-defined]

    r = o["rules"]
    vector[r + (0 if n == 3 else 1 if n == 4 else 2)] = 1.0
    vector[r + 3] = float(rules.sit_out)
    vector[r + 4] = float(rules.has_teams)
    vector[r + 5] = float(rules.auction is Auction.OPEN)
    vector[r + 6] = float(rules.deck is Deck.FORTY)
    vector[r + 7] = float(rules.deck is Deck.SEVENS)
    vector[o["phase"] + PHASES.index(seen.phase)] = 1.0
    if seen.to_move is not None and seen.to_move >= 0:
        vector[o["to_move"] + rel(seen.to_move)] = 1.0
    vector[o["dealer"] + rel(seen.dealer)] = 1.0
    if seen.sitting_out is not None:
        vector[o["sitting_out"] + rel(seen.sitting_out)] = 1.0
    if rules.has_teams:
        for seat in range(n):
            if seat != me and rules.partners(seat, me):
                vector[o["partner"] + rel(seat)] = 1.0
    cards_at(o["hand"], seen.hand)
    for seat, size in enumerate(seen.hand_sizes):
        vector[o["hand_sizes"] + rel(seat)] = size / 10
    high, holder = _auction(seen)
    for call, seat in zip(seen.auction, seen.callers):
        if call.kind is ActionKind.PASS:
            vector[o["passed"] + rel(seat)] = 1.0
        else:
            at = o["bids"] + rel(seat)
            vector[at] = max(vector[at], call.value / 1000)
    vector[o["high_bid"]] = high / 1000
    if seen.phase == "auction":
        vector[o["lowest_bid"]] = lowest_bid(seen) / 1000
    if holder is not None:
        vector[o["holder"] + rel(holder)] = 1.0
    if seen.soloist is not None:
        vector[o["soloist"] + rel(seen.soloist)] = 1.0
    if seen.bid is not None:
        vector[o["contract"]] = seen.bid / 1000
    if seen.game is not None:
        vector[o["game"] + int(seen.game)] = 1.0  # a Contract is its index in GAMES
    if seen.surrendered:
        vector[o["surrendered"]] = 1.0
    if seen.tapp is not None:
        cards_at(o["tapp"], seen.tapp)
    if seen.discard is not None:
        cards_at(o["discard"], seen.discard)
    if seen.open_hand is not None:
        cards_at(o["open_hand"], seen.open_hand)
    if seen.melds is not None:
        for seat, melds in enumerate(seen.melds):
            if melds:
                shown, points = _shown(melds)
                cards_at(o["melds"] + rel(seat) * KINDS, shown)
                vector[o["meld_points"] + rel(seat)] = points / 1000
    for trick in seen.tricks:
        for seat, card in trick.plays:
            vector[o["played"] + rel(seat) * KINDS + card.index] += 1.0
    if seen.trick.plays:
        for seat, card in seen.trick.plays:
            vector[o["trick"] + rel(seat) * KINDS + card.index] = 1.0
        vector[o["trick_leader"] + rel(seen.trick.leader)] = 1.0
    for seat in range(n):
        vector[o["tricks_won"] + rel(seat)] = seen.tricks_won[seat] / 10
        vector[o["trick_points"] + rel(seat)] = seen.trick_points[seat] / 100
    vector[o["tricks_done"]] = len(seen.tricks) / 10
    if seen.scores is not None:
        for seat, score in enumerate(seen.scores):
            vector[o["scores"] + rel(seat)] = score / 1000
    if totals is not None:
        for seat, total in enumerate(totals):
            vector[o["totals"] + rel(seat)] = total / 1000
    vector[o["target"]] = rules.target / 1000


@lru_cache(maxsize=4096)
def _shown(melds: tuple[Meld, ...]) -> tuple[tuple[Card, ...], int]:
    """The cards that show some melds, and their points."""
    return tuple(meld_cards(melds)), meld_total(melds)


def _auction(seen: SeatView) -> tuple[int, int | None]:
    """The highest bid so far and who holds it."""
    high, holder = 0, None
    for call, seat in zip(seen.auction, seen.callers):
        if call.kind is ActionKind.BID and call.value > high:
            high, holder = call.value, seat
    return high, holder


def lowest_bid(seen: SeatView) -> int:
    """The lowest bid allowed now (the value of bid index 1): the minimum bid, or 10 over the highest."""
    high, holder = _auction(seen)
    return seen.rules.min_bid if holder is None else high + 10


# ---------------------------------------------------------------------- actions

def index_of(action: Action, seen: SeatView) -> int | None:
    """The index of ``action`` in the fixed action space (None for a bid beyond the offered range).

    >>> import random
    >>> from binokel.state import State
    >>> from binokel.view import view
    >>> seen = view(State.new("club", dealer=2).deal_random(random.Random(1)), 0)
    >>> index_of(Action.bid(200), seen), index_of(Action.bid(900), seen)
    (6, None)
    """
    kind = action.kind
    if kind is ActionKind.PASS:
        return PASS_INDEX
    if kind is ActionKind.BID:
        slot = (action.value - lowest_bid(seen)) // 10
        return BID_BASE + slot if 0 <= slot < BID_SLOTS and action.value % 10 == 0 else None
    if kind is ActionKind.DISCARD:
        return DISCARD_BASE + action.value
    if kind is ActionKind.GAME:
        return GAME_BASE + action.value
    if kind is ActionKind.SURRENDER:
        return SURRENDER_INDEX
    if kind is ActionKind.PLAY_ON:
        return PLAY_ON_INDEX
    if kind is ActionKind.TAKE:
        return TAKE_INDEX
    return PLAY_BASE + action.value


def action_of(index: int, seen: SeatView) -> Action:
    """The action that ``index`` stands for in ``seen`` (whether or not it is legal there)."""
    if not 0 <= index < ACTIONS:
        raise ValueError(f"an action index is from 0 to {ACTIONS - 1}, not {index!r}")
    if index == PASS_INDEX:
        return PASS
    if index < DISCARD_BASE:
        return Action.bid(lowest_bid(seen) + 10 * (index - BID_BASE))
    if index < GAME_BASE:
        return DISCARDS[index - DISCARD_BASE]
    if index < SURRENDER_INDEX:
        return GAMES[index - GAME_BASE]
    if index < PLAY_BASE:
        return (SURRENDER, PLAY_ON, TAKE)[index - SURRENDER_INDEX]
    return PLAYS[index - PLAY_BASE]


def legal_indices(seen: SeatView, max_bid: int | None = None) -> list[int]:
    """The legal actions of ``seen`` as sorted indices (empty unless the seat is to move);
    with ``max_bid``, bids above it are left out (but never every action)."""
    indices = set()
    for action in seen.legal_actions:
        if (max_bid is not None and action.kind is ActionKind.BID and action.value > max_bid
                and len(seen.legal_actions) > 1):
            continue
        index = index_of(action, seen)
        if index is not None:
            indices.add(index)
    return sorted(indices)


def action_text(index: int) -> str:
    """A name for an index, independent of the position: ``"bid+20"``, ``"play AS"``.

    >>> action_text(0), action_text(3), action_text(GAME_BASE + 4), action_text(PLAY_BASE)
    ('pass', 'bid+20', 'game durch', 'play AS')
    """
    if index == PASS_INDEX:
        return "pass"
    if index < DISCARD_BASE:
        return f"bid+{10 * (index - BID_BASE)}"
    if index < GAME_BASE:
        return f"discard {CARDS[index - DISCARD_BASE]}"
    if index < SURRENDER_INDEX:
        return f"game {GAMES[index - GAME_BASE]}"
    if index < PLAY_BASE:
        return ("surrender", "play", "take")[index - SURRENDER_INDEX]
    return f"play {CARDS[index - PLAY_BASE]}"


__all__ = [
    "ACTIONS",
    "BID_SLOTS",
    "FIELDS",
    "OBSERVATION_SIZE",
    "action_of",
    "action_text",
    "bounds",
    "encode_into",
    "index_of",
    "legal_indices",
    "lowest_bid",
    "observation",
]


_NUMERIC = {"hand_sizes", "bids", "high_bid", "lowest_bid", "contract", "meld_points", "tricks_won", "trick_points",
            "tricks_done", "scores", "totals", "target"}
_SIGNED = {"scores", "totals"}


def bounds() -> tuple[list[float], list[float]]:
    """Lower and upper bounds of every feature: counts and flags lie in [0, 2]; the scaled
    numbers in [0, 100] ([-100, 100] for scores and totals), far beyond any real deal."""
    low: list[float] = []
    high: list[float] = []
    for name, size, _ in FIELDS:
        low += [-100.0 if name in _SIGNED else 0.0] * size
        high += [100.0 if name in _NUMERIC else 2.0] * size
    return low, high
