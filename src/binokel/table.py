"""The table driver: one game at one table, for every front end (terminal, server, tournament).

A :class:`Table` holds a :class:`~binokel.game.Game`, knows which seats are people and
which are bots, and takes one *step* at a time: the chance step (:meth:`Table.deal`) or a
seat's action (:meth:`Table.act`). It refuses an action from a seat that is not to move,
and an illegal action, with an error and nothing changed. It does no I/O, has no clock and
no threads, and never thinks for a bot unless asked (:meth:`Table.play_bots`, a synchronous
helper for the terminal and the tournament).

**Versions.** ``version`` counts the steps taken: a new table is at version 0; the step
that makes version ``n`` is ``history[n - 1]``. The history (each chance step with the
cards dealt, each action with its seat) is all a store needs to keep: :meth:`Table.replay`
folds it back into the same table, without any random generator.

**Events.** Every step emits events, each tagged with the version it made and its
:class:`Visibility` (which seats, and whether spectators, may see it), in the manner of
lichess's versioned game events. What an event tells is what the views tell: the dealt
hand comes from the seat's own view, and the public events (the Tapp turned up, melds
shown, an open hand, a trick, the result) are taken from the public fields of the views
after the step, emitted when those fields change. So the events a seat may see never
hold a card its views do not show (the one addition: a finished deal's result gives the
soloist's card points with the discard, as its score already tells).
:meth:`Table.events_for` filters the stream for one seat or for a
spectator from a version on; :meth:`Table.view_at` rebuilds any seat's view at any
version by replaying the history — ``view(state, seat)`` stays the only way state
leaves for a player.

>>> import random
>>> table = Table("standard(target=300)", [PERSON, Seat("easy"), Seat("easy")], seed=7)
>>> [str(e.kind.value) for e in table.deal()]
['deal', 'hand', 'hand', 'hand']
>>> [e.visibility.allows(0) for e in table.events if e.kind is EventKind.HAND]
[True, False, False]
>>> table.to_move == table.view(table.to_move).to_move, table.version
(True, 1)
>>> seat = (table.to_move + 1) % 3
>>> table.act(seat, "pass")
Traceback (most recent call last):
...
binokel.table.TurnError: it is not seat ...'s turn: seat ... is to move
>>> table.act(table.to_move, "150")[0].data
{'seat': ..., 'action': '150', 'to_move': ...}
>>> again = Table.replay(table.rules, table.seats, table.seed, table.game.first_dealer, table.history)
>>> again.events == table.events
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from binokel.action import Action, ActionKind
from binokel.card import CARDS, Card, Hand
from binokel.error import IllegalActionError, NotationError
from binokel.game import Game
from binokel.record import actions_of
from binokel.rules import Rules
from binokel.state import CHANCE, Phase, State
from binokel.view import SeatView, own_json_from_public, view

# ---------------------------------------------------------------------- seats and visibility

@dataclass(frozen=True)
class Seat:
    """Who sits in a seat: a person (``bot`` is None) or a bot of level ``bot``. ``stand_in``
    is the policy for a person who is away: the level of the bot that plays for them (None:
    nobody does, the table waits)."""

    bot: str | None = None
    stand_in: str | None = None

    @property
    def is_bot(self) -> bool:
        return self.bot is not None


PERSON = Seat()
"""A seat for a person: the front end asks them for their actions."""


@dataclass(frozen=True)
class Visibility:
    """Who may see an event: some seats, and spectators (people watching without a seat) or not.

    >>> Visibility.everyone(3).allows(None), Visibility.only(1).allows(1), Visibility.only(1).allows(None)
    (True, True, False)
    """

    seats: frozenset[int]
    spectators: bool

    @classmethod
    def everyone(cls, players: int) -> Visibility:
        """Public: every seat and every spectator."""
        return cls(frozenset(range(players)), True)

    @classmethod
    def only(cls, seat: int) -> Visibility:
        """One seat's private information."""
        return cls(frozenset((seat,)), False)

    @classmethod
    def all_but(cls, seat: int, players: int) -> Visibility:
        """Everyone but ``seat`` (who gets its own version of the event)."""
        return cls(frozenset(range(players)) - {seat}, True)

    def allows(self, seat: int | None) -> bool:
        """May ``seat`` (None: a spectator) see the event?"""
        return self.spectators if seat is None else seat in self.seats

    def to_json(self) -> dict[str, Any]:
        return {"seats": sorted(self.seats), "spectators": self.spectators}


# ---------------------------------------------------------------------- history

@dataclass(frozen=True)
class Dealt:
    """The chance step: the cards dealt to each seat and to the Tapp."""

    hands: tuple[tuple[Card, ...], ...]
    tapp: tuple[Card, ...]

    def to_json(self) -> dict[str, Any]:
        return {"deal": {"hands": [[str(c) for c in hand] for hand in self.hands],
                         "tapp": [str(c) for c in self.tapp]}}


@dataclass(frozen=True)
class Acted:
    """A seat's action (text, as read from JSON, is parsed in the state it is applied to:
    ``"AS"`` is a discard or a card played, depending on the phase)."""

    seat: int
    action: Action | str

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "action": str(self.action)}


Step = Dealt | Acted
"""One entry of a table's history: what a store keeps, append-only."""


def step_from_json(data: Any) -> Step:
    """Read a history entry written by ``to_json``.

    >>> step_from_json({"seat": 1, "action": "pass"})
    Acted(seat=1, action='pass')
    """
    if isinstance(data, dict) and isinstance(data.get("deal"), dict):
        deal = data["deal"]
        hands, tapp = deal.get("hands"), deal.get("tapp")
        if isinstance(hands, list) and isinstance(tapp, list) and all(isinstance(h, list) for h in hands):
            return Dealt(tuple(tuple(Card.parse(c) for c in hand) for hand in hands),
                         tuple(Card.parse(c) for c in tapp))
    if isinstance(data, dict) and isinstance(data.get("seat"), int) and isinstance(data.get("action"), str):
        return Acted(data["seat"], data["action"])
    raise NotationError("bad_history_entry", value=repr(data))


# ---------------------------------------------------------------------- events

class EventKind(Enum):
    """What happened. Data keys in brackets; cards in canonical text."""

    DEAL = "deal"  # public: a deal was dealt {number, dealer, sitting_out, to_move}
    HAND = "hand"  # one seat: the cards it was dealt {seat, cards}
    ACTION = "action"  # a seat acted {seat, action, to_move}; a discard's card only to that seat (else null)
    SOLOIST = "soloist"  # public: the auction is over {seat, bid}
    TAPP = "tapp"  # public: the Tapp turned face up {cards}
    MELDS = "melds"  # public: the melds shown {melds: per seat, [Meld.to_json()]}
    OPEN_HAND = "open_hand"  # public: an open Durch soloist's hand {seat, cards}
    TRICK = "trick"  # public: a trick completed {number, leader, cards, winner}
    DEAL_OVER = "deal_over"  # public: the deal's result {number, dealer, soloist, bid, game, outcome, scores,
    #                          meld_points, card_points, totals}
    GAME_OVER = "game_over"  # public: {winner, totals, durch_games}


@dataclass(frozen=True)
class Event:
    """One thing that happened at the table, for those ``visibility`` allows."""

    version: int
    kind: EventKind
    visibility: Visibility
    data: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON, as a client receives it (the visibility stays with the table)."""
        return {"version": self.version, "kind": self.kind.value, **self.data}


@dataclass(frozen=True)
class Change:
    """A step checked against the table at ``version - 1``: the game it makes and its events.
    :meth:`Table.commit` adopts it (a server stores it first, then commits)."""

    version: int
    step: Step
    game: Game
    events: tuple[Event, ...]
    public: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)  # the shown deal's public fields
    seen: SeatView | None = field(default=None, repr=False, compare=False)  # the shown deal's, its mover's view


# ---------------------------------------------------------------------- what happens next

@dataclass(frozen=True)
class Deal:
    """Next: the chance step (the cards of the next deal are to be dealt)."""


@dataclass(frozen=True)
class Ask:
    """Next: ``seat``'s person is to act (the front end asks them and waits)."""

    seat: int


@dataclass(frozen=True)
class Think:
    """Next: a bot of ``level`` is to choose ``seat``'s action from that seat's view;
    ``stand_in``: it plays for a person who is away."""

    seat: int
    level: str
    stand_in: bool = False


@dataclass(frozen=True)
class Over:
    """The game is over: no step is left. ``winner`` is the winning seat (or team)."""

    winner: int | None


Next = Deal | Ask | Think | Over
"""What :meth:`Table.next_step` answers: every front end loops over it."""


class TurnError(IllegalActionError):
    """An action from a seat that is not to move (or while the cards are to be dealt)."""

    def __init__(self, seat: int, to_move: int | None) -> None:
        self.seat = seat
        self.to_move = to_move
        if to_move is None:
            super().__init__("game_over")
        elif to_move == CHANCE:
            super().__init__("deal_over")
        else:
            super().__init__("not_seats_turn", seat=seat, to_move=to_move)

    def __reduce__(self) -> Any:
        return (TurnError, (self.seat, self.to_move))


# ---------------------------------------------------------------------- the table

class Table:
    """One game at one table: seats, turns, the chance steps, versioned events.

    ``seats`` has one :class:`Seat` per seat of the rules. ``seed`` makes the deals (and
    :meth:`rng`) reproducible; ``first_dealer`` is drawn by lot from it unless given.
    """

    def __init__(self, rules: Rules | str, seats: Sequence[Seat], *, seed: int,
                 first_dealer: int | None = None) -> None:
        rules = Rules.parse(rules) if isinstance(rules, str) else rules
        if len(seats) != rules.players:
            raise ValueError(f"{rules.text} seats {rules.players}, not {len(seats)}")
        self.rules = rules
        self.seats = tuple(seats)
        self.seed = seed
        self._game = (Game.seeded(rules, seed) if first_dealer is None
                      else Game.new(rules, first_dealer))
        self._history: list[Step] = []
        self._events: list[Event] = []
        self._results: list[Event] = []
        self._public: dict[str, Any] | None = None  # the public fields after the last step (saves a view per step)
        self._views: dict[int, SeatView] = {}  # this version's views by seat (a server asks for each several times)

    @classmethod
    def replay(cls, rules: Rules | str, seats: Sequence[Seat], seed: int, first_dealer: int,
               history: Iterable[Step]) -> Table:
        """The table that ``history`` makes: a fold of the steps (no random generator)."""
        table = cls(rules, seats, seed=seed, first_dealer=first_dealer)
        for step in history:
            table.commit(table.propose_step(step))
        return table

    @classmethod
    def from_game(cls, game: Game, seats: Sequence[Seat], seed: int) -> Table:
        """The table that plays on ``game`` (e.g. read from a record): its deals and actions become the history."""
        steps: list[Step] = []
        for state in game.deals:
            if state.phase is Phase.DEAL:
                continue
            steps.append(Dealt(*_dealt_cards(state)))
            trial = State.new(game.rules, state.dealer).deal(*_dealt_cards(state))
            for action in actions_of(state):
                seat = trial.to_move
                assert seat is not None and seat >= 0
                steps.append(Acted(seat, action))
                trial = trial.apply(action)
        return cls.replay(game.rules, seats, seed, game.first_dealer, steps)

    # ------------------------------------------------------------------ reading

    @property
    def game(self) -> Game:
        return self._game

    @property
    def version(self) -> int:
        """How many steps have been taken."""
        return len(self._history)

    @property
    def history(self) -> tuple[Step, ...]:
        return tuple(self._history)

    @property
    def last_step(self) -> Step:
        """The step that made this version (:attr:`history`'s last, without copying the history)."""
        return self._history[-1]

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event so far, unfiltered (for the table's owner, never for a client as is)."""
        return tuple(self._events)

    @property
    def players(self) -> int:
        return self.rules.players

    def is_over(self) -> bool:
        return self._game.is_over()

    def needs_deal(self) -> bool:
        """Is the next step the chance step (dealing the cards)?"""
        return self._game.needs_deal()

    @property
    def to_move(self) -> int | None:
        """The seat to move; ``CHANCE`` (-1) when the cards are to be dealt; None when the game is over."""
        if self._game.is_over():
            return None
        return self._game.current.to_move

    def is_bot(self, seat: int) -> bool:
        return self.seats[seat].is_bot

    def bot_to_move(self) -> int | None:
        """The bot seat to move, if a bot is to move."""
        step = self.next_step()
        return step.seat if isinstance(step, Think) else None

    def next_step(self, away: Collection[int] = ()) -> Next:
        """What happens next: the cards are dealt, a person is asked, a bot thinks, or the
        game is over. ``away``: person seats whose person is not there (the front end's
        clock decides when that is); a stand-in plays for them if their seat has one.

        >>> table = Table("standard", [PERSON, Seat("easy"), Seat(stand_in="medium")], seed=3, first_dealer=1)
        >>> table.next_step()
        Deal()
        >>> _ = table.deal()
        >>> table.next_step(), table.next_step(away={2})
        (Ask(seat=2), Think(seat=2, level='medium', stand_in=True))
        """
        game = self._game
        if game.is_over():
            return Over(game.winner)
        if game.needs_deal():
            return Deal()
        seat = game.current.to_move
        assert seat is not None and seat >= 0
        sitter = self.seats[seat]
        if sitter.bot is not None:
            return Think(seat, sitter.bot)
        if seat in away and sitter.stand_in is not None:
            return Think(seat, sitter.stand_in, stand_in=True)
        return Ask(seat)

    @property
    def shown_deal(self) -> State:
        """The deal the seats look at: the current one, or the finished one until the next is dealt."""
        game = self._game
        return game.deals[-2] if game.needs_deal() and len(game.deals) > 1 else game.current

    @property
    def deal_number(self) -> int:
        """How many deals have been dealt (the shown deal's number, 1-based; 0 before the first)."""
        return self._game.dealt

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know of the shown deal now (made once per version: a view is immutable)."""
        seen = self._views.get(seat)
        if seen is None:  # the public fields from another seat's view, if one was made
            like = next(iter(self._views.values()), None)
            seen = self._views[seat] = view(self.shown_deal, seat, like)
        return seen

    def own_json(self, seat: int, omit: Collection[str] = ()) -> dict[str, Any]:
        """``self.view(seat).own_json(omit)``, from the public fields alone when they tell it
        (:func:`~binokel.view.own_json_from_public`: the seat's view is then not made)."""
        if seat not in self._views:
            own = own_json_from_public(seat, self.public_json(), omit)
            if own is not None:
                return own
        return self.view(seat).own_json(omit)

    def public_json(self) -> dict[str, Any]:
        """The fields of the shown deal's view that are the same for every seat, as JSON
        (:meth:`SeatView.public_json`; made once per version, with the step's events). Shared:
        not to be changed."""
        if self._public is None:
            self._public = view(self.shown_deal, 0).public_json()
        return self._public

    def view_at(self, version: int, seat: int) -> SeatView:
        """What ``seat`` could know at ``version``: the history replayed up to it."""
        if not 0 <= version <= self.version:
            raise ValueError(f"version must be from 0 to {self.version}, not {version}")
        return Table.replay(self.rules, self.seats, self.seed, self._game.first_dealer,
                            self._history[:version]).view(seat)

    @property
    def results(self) -> tuple[Event, ...]:
        """The public ``DEAL_OVER`` event of every finished deal: the score sheet."""
        return tuple(self._results)

    def events_for(self, seat: int | None, since: int = 0) -> list[Event]:
        """The events after version ``since`` that ``seat`` (None: a spectator) may see."""
        return [e for e in self._events[self._first_event_after(since):] if e.visibility.allows(seat)]

    def _first_event_after(self, version: int) -> int:
        low, high = 0, len(self._events)  # events are in version order: binary search
        while low < high:
            middle = (low + high) // 2
            if self._events[middle].version <= version:
                low = middle + 1
            else:
                high = middle
        return low

    def rng(self, purpose: str) -> random.Random:
        """A generator for ``purpose`` (e.g. ``"bot"``, ``"hint"``) at this version: reproducible
        from the seed, so a resumed game makes the same choices."""
        return random.Random(self.seed_for(purpose))

    def seed_for(self, purpose: str) -> str:
        """The seed of :meth:`rng` for ``purpose`` at this version (logged with a failing bot)."""
        return f"{self.seed}:{purpose}:{self.version}"

    # ------------------------------------------------------------------ steps

    def propose_deal(self, rng: random.Random | None = None) -> Change:
        """The chance step, checked but not taken: the cards from ``rng``, or from the seed
        (each deal its own generator, see :meth:`Game.deal_seeded`)."""
        self.check_deal()
        game = self._game
        dealt = game.deal_random(rng) if rng is not None else game.deal_seeded(self.seed)
        return self._change(Dealt(*_dealt_cards(dealt.current)), dealt)

    def check_deal(self, at: int | None = None) -> None:
        """Raise why the cards may not be dealt now (the game is over, the deal is not
        finished, or ``at`` is not the current version); nothing if they may."""
        if at is not None and at != self.version:
            raise IllegalActionError("stale_version", version=at, current=self.version)
        if self._game.is_over():
            raise TurnError(-1, None)
        if not self._game.needs_deal():
            raise IllegalActionError("deal_not_finished")

    def propose(self, seat: int, action: Action | str, at: int | None = None) -> Change:
        """``seat``'s action checked but not taken; raises (TurnError, IllegalActionError,
        NotationError) and changes nothing if it is not that seat's turn or not legal.
        ``at``: the version the action was decided at (a client's); refused with
        ``stale_version`` if the table is elsewhere now — the one place versions are checked."""
        game = self._game
        if not isinstance(seat, int) or not 0 <= seat < self.players:
            raise NotationError("bad_seat", last=self.players - 1, value=repr(seat))
        if at is not None and at != self.version:
            raise IllegalActionError("stale_version", version=at, current=self.version)
        to_move = self.to_move
        if to_move != seat:
            raise TurnError(seat, to_move)
        if isinstance(action, str):
            action = game.current.parse_action(action)
        return self._change(Acted(seat, action), game.apply(action))  # the history keeps the parsed action

    def propose_step(self, step: Step) -> Change:
        """A history entry, checked but not taken (the cards of a chance step are checked too)."""
        if isinstance(step, Acted):
            return self.propose(step.seat, step.action)
        game = self._game
        if game.is_over():
            raise TurnError(-1, None)
        return self._change(step, game.deal(step.hands, step.tapp))

    def commit(self, change: Change) -> list[Event]:
        """Adopt a proposed change; its events. Refused if the table moved on since."""
        if change.version != self.version + 1:
            raise IllegalActionError("stale_change", made=change.version - 1, current=self.version)
        self._game = change.game
        self._history.append(change.step)
        self._events.extend(change.events)
        self._results.extend(e for e in change.events if e.kind is EventKind.DEAL_OVER)
        self._public = change.public
        self._views = {change.seen.seat: change.seen} if change.seen is not None else {}  # made with the change
        return list(change.events)

    def deal(self, rng: random.Random | None = None) -> list[Event]:
        """Deal the next deal (see :meth:`propose_deal`); its events."""
        return self.commit(self.propose_deal(rng))

    def act(self, seat: int, action: Action | str) -> list[Event]:
        """Take ``seat``'s action (see :meth:`propose`); its events."""
        return self.commit(self.propose(seat, action))

    def play_bots(self, choose: Callable[[int, SeatView], Action]) -> list[Event]:
        """While a bot is to move (:meth:`next_step` is :class:`Think`), ask ``choose(seat, its
        view)`` and take the answer: the synchronous helper for front ends that may wait for
        bots (terminal, tournament). Stops when a person is to move, the cards are to be
        dealt or the game is over."""
        events: list[Event] = []
        while isinstance(step := self.next_step(), Think):
            events += self.act(step.seat, choose(step.seat, self.view(step.seat)))
        return events

    # ------------------------------------------------------------------ events of a step

    def _change(self, step: Step, game: Game) -> Change:
        version = self.version + 1
        if isinstance(step, Dealt):
            seen = view(game.current, _viewer(game.current))
            events, public = self._deal_events(version, game), seen.public_json()
        else:
            events, public, seen = self._action_events(version, step, self._game, game)
        return Change(version, step, game, tuple(events), public, seen)

    def _deal_events(self, version: int, game: Game) -> list[Event]:
        state = game.current
        everyone = Visibility.everyone(self.players)
        events = [Event(version, EventKind.DEAL, everyone, {
            "number": game.dealt, "dealer": state.dealer,
            "sitting_out": state.sitting_out, "to_move": state.to_move})]
        for seat in range(self.players):
            if state.hand_size_of(seat):
                events.append(Event(version, EventKind.HAND, Visibility.only(seat),
                                    {"seat": seat, "cards": _texts(Hand(mask=state.hands[seat]))}))  # the view's hand
        return events

    def _action_events(self, version: int, step: Acted, before: Game,
                       after: Game) -> tuple[list[Event], dict[str, Any], SeatView]:
        players = self.players
        everyone = Visibility.everyone(players)
        deal = after.deals[len(before.deals) - 1]  # the deal the action was taken in
        # The public fields are the same in every seat's view: read them from one seat's.
        was = self._public if self._public is not None else view(before.current, 0).public_json()
        seen = view(deal, _viewer(deal))  # the mover's: the view the next step asks for first
        now = seen.public_json(before=was)  # the same deal: its finished tricks and melds as they were
        to_move = None if after.is_over() else after.current.to_move
        seat, action = step.seat, step.action
        assert isinstance(action, Action)  # propose() parsed it
        said = {"seat": seat, "action": str(action), "to_move": to_move}
        if action.kind is ActionKind.DISCARD:  # the discard is the soloist's secret during the deal
            events = [Event(version, EventKind.ACTION, Visibility.only(seat), said),
                      Event(version, EventKind.ACTION, Visibility.all_but(seat, players), {**said, "action": None})]
        else:
            events = [Event(version, EventKind.ACTION, everyone, said)]

        def tell(kind: EventKind, data: dict[str, Any]) -> None:
            events.append(Event(version, kind, everyone, data))

        if was["soloist"] is None and now["soloist"] is not None:
            tell(EventKind.SOLOIST, {"seat": now["soloist"], "bid": now["bid"]})
        if was["tapp"] is None and now["tapp"] is not None:
            tell(EventKind.TAPP, {"cards": now["tapp"]})
        if was["melds"] is None and now["melds"] is not None:
            tell(EventKind.MELDS, {"melds": now["melds"]})
        if was["open_hand"] is None and now["open_hand"] is not None:
            tell(EventKind.OPEN_HAND, {"seat": now["soloist"], "cards": now["open_hand"]})
        if len(now["tricks"]) > len(was["tricks"]):
            tell(EventKind.TRICK, {"number": len(now["tricks"]), **now["tricks"][-1]})
        if was["outcome"] is None and now["outcome"] is not None:
            tell(EventKind.DEAL_OVER, _result(deal, after, now))
        if after.is_over():
            tell(EventKind.GAME_OVER, {"winner": after.winner, "totals": list(after.totals),
                                       "durch_games": list(after.durch_games) if self.rules.durch_game else None})
        return events, now, seen


PUBLIC_FIELDS = ("auction", "soloist", "bid", "tapp", "melds", "open_hand", "tricks", "trick", "outcome", "scores")
"""The view fields that are the same for every seat (checked by tests/test_table.py)."""


def _result(deal: State, game: Game, public: Mapping[str, Any]) -> dict[str, Any]:
    """A finished deal's public result: the score sheet's line (``public``: the public fields of
    its views). ``card_points`` include the soloist's discard (its points, not its cards), which
    the score makes public once the deal is over."""
    return {"number": game.dealt, "dealer": deal.dealer,
            **{name: public[name] for name in ("soloist", "bid", "game", "outcome", "scores")},
            "meld_points": list(deal.meld_points), "card_points": list(deal.card_points),
            "totals": list(game.totals)}


def _viewer(state: State) -> int:
    """The seat whose view a step makes with its public fields: the seat to move (its view is
    told and asked for again), else seat 0."""
    seat = state.to_move
    return seat if seat is not None and seat >= 0 else 0


def _texts(cards: Iterable[Card]) -> list[str]:
    return [str(c) for c in cards]


def _dealt_cards(state: State) -> tuple[tuple[tuple[Card, ...], ...], tuple[Card, ...]]:
    """The cards a dealt deal was dealt: each seat's hand and the Tapp."""
    return tuple(tuple(CARDS[k] for k in hand) for hand in state.dealt), tuple(CARDS[k] for k in state.tapp)


__all__ = [
    "CHANCE",
    "PERSON",
    "PUBLIC_FIELDS",
    "Acted",
    "Ask",
    "Change",
    "Deal",
    "Dealt",
    "Event",
    "EventKind",
    "Next",
    "Over",
    "Seat",
    "Step",
    "Table",
    "Think",
    "TurnError",
    "Visibility",
    "step_from_json",
]
