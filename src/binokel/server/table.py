"""One table per game on the server: people, bots, spectators, presence, chat.

The rules of play live in the driver (:class:`binokel.table.Table`): it knows whose turn
it is, checks every step, and emits versioned events tagged with who may see them. This
module adds what only a server has: who holds each person's seat (by the digest of its
token), the connections watching (each with a seat or none), presence, the bots (the
table's bot seats, and a stand-in of the table's level for a person away longer than the
grace period), the next deal once the people are ready, chat, and persistence.

Every accepted step is **stored first**, then adopted by the driver and told to each
connection: the events its seat (or a spectator) may see, then that seat's state
snapshot, built from ``view(deal, seat)`` (spectators: the public fields of a view only).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from collections.abc import Callable
from typing import Any

from binokel.ai import Bot, choose_safely, make_bot
from binokel.error import BinokelError
from binokel.record import game_record
from binokel.server.limits import Bucket, Limits
from binokel.server.protocol import (
    ProtocolError,
    Settings,
    bot_name,
    error_message,
    rule_changes,
    rule_facts,
)
from binokel.server.seat import Seat, digest
from binokel.server.store import SeatRow, Store
from binokel.state import Phase, State
from binokel.table import PERSON, Change, Event, TurnError
from binokel.table import Seat as DriverSeat
from binokel.table import Table as Driver
from binokel.view import SeatView, view

log = logging.getLogger("binokel.server")

CATCH_UP = 500
"""A client that reconnects at most this many versions behind gets the missed events; further
behind, the snapshot alone."""
PRIVATE_FIELDS: dict[str, Any] = {"hand": [], "discard": None, "legal_actions": []}
"""What a spectator's view leaves out of a seat's view (everything else in a view is public)."""


class Connection:
    """One websocket watching a table: its seat (None: a spectator) and its outgoing queue."""

    def __init__(self, seat: int | None, limits: Limits, *, host: bool = False) -> None:
        self.seat = seat
        self.host = host
        self.queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.messages = Bucket(limits.messages_per_second, limits.message_burst)
        self.chat = Bucket(limits.chat_per_10_seconds / 10, limits.chat_per_10_seconds)
        self.since: int | None = None  # the version the client said it had seen (hello)

    def post(self, message: dict[str, Any] | None) -> None:
        """Queue a message (None closes the connection)."""
        self.queue.put_nowait(message)


Client = Connection  # the name before seats existed


def spectator_view(deal: State) -> dict[str, Any]:
    """What a spectator sees of a deal: a seat's view without its private fields (hand,
    discard, legal actions); every other field of a view is the same for every seat.

    >>> import random
    >>> deal = State.new("standard", dealer=0).deal_random(random.Random(1))
    >>> seen = spectator_view(deal)
    >>> seen["seat"], seen["hand"], seen["hand_sizes"]
    (None, [], [15, 15, 15])
    """
    seen = view(deal, deal.sitting_out if deal.sitting_out is not None else 0).to_json()
    return {**seen, **PRIVATE_FIELDS, "seat": None}


class Table:
    """A game being played by people and bots, watched by any number of spectators."""

    def __init__(self, game_id: str, settings: Settings, driver: Driver, store: Store, people: list[SeatRow],
                 *, think: float, budget: float, limits: Limits) -> None:
        self.id = game_id
        self.settings = settings
        self.driver = driver
        self.seed = driver.seed
        self.store = store
        self.think = think
        self.budget = budget
        self.limits = limits
        self.people: dict[int, SeatRow] = {p.seat: p for p in people if p.seat >= 0}
        self.host = next((p for p in people if p.host), None)
        self.bots: dict[int, Bot] = {
            seat: make_bot(level, seed=(self.seed + seat) % 2**63)
            for seat in range(driver.players) if (level := settings.level(seat)) is not None}
        self.stand_ins: dict[int, Bot] = {}
        self.lock = asyncio.Lock()
        self.connections: set[Connection] = set()
        self.away_since: dict[int, float] = {seat: time.monotonic() for seat in self.person_seats}
        self.standing_in: set[int] = set()  # person seats a bot plays for at the moment
        self.ready: set[int] = set()  # people who asked for the next deal
        self.deal_over_at: float | None = None
        self.chat: collections.deque[dict[str, Any]] = collections.deque(maxlen=limits.chat_kept)
        self.rematch_id: str | None = None
        self.on_rematch: Callable[[Table], Table] | None = None  # set by the hall
        self._runner: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()

    # ------------------------------------------------------------------ seats

    @property
    def game(self) -> Any:
        return self.driver.game

    @property
    def version(self) -> int:
        return self.driver.version

    @property
    def person_seats(self) -> list[int]:
        """The seats for people (taken or open)."""
        return [seat for seat in range(self.driver.players) if self.settings.level(seat) is None]

    @property
    def open_seats(self) -> list[int]:
        return [seat for seat in self.person_seats if seat not in self.people]

    @property
    def waiting(self) -> bool:
        """Are friends still to take their seats? Nobody moves until they have."""
        return bool(self.open_seats)

    @property
    def names(self) -> list[str]:
        return [self.name(seat) for seat in range(self.driver.players)]

    def name(self, seat: int) -> str:
        if seat in self.people:
            return self.people[seat].name
        return bot_name(seat) if self.settings.level(seat) else ""

    def seat_of(self, token: str) -> SeatRow | None:
        """The seat a token holds at this table (seat -1: the host who does not play), or None."""
        hashed = digest(token)
        for row in (*self.people.values(), *([self.host] if self.host else [])):
            if row.token == hashed:
                return row
        return None

    def connected(self, seat: int) -> bool:
        return any(c.seat == seat for c in self.connections)

    def seats(self) -> list[Seat]:
        """Every seat as everybody may see it (presence)."""
        result = []
        for seat in range(self.driver.players):
            level = self.settings.level(seat)
            if level is not None:
                result.append(Seat("bot", self.name(seat), level, connected=True))
            elif seat in self.people:
                result.append(Seat("person", self.name(seat), self.settings.stand_in, self.connected(seat),
                                   seat in self.standing_in))
            else:
                result.append(Seat("open", "", None))
        return result

    def presence(self) -> dict[str, Any]:
        return {"type": "presence", "seats": [s.to_json() for s in self.seats()], "waiting": self.waiting,
                "spectators": sum(1 for c in self.connections if c.seat is None),
                "ready": sorted(self.ready)}

    def seat_person(self, row: SeatRow) -> None:
        """A friend has taken a seat (already stored by the hall)."""
        self.people[row.seat] = row
        self.away_since[row.seat] = time.monotonic()
        self._broadcast_presence()
        self._broadcast_state()
        self.kick()

    # ------------------------------------------------------------------ what clients see

    def state_message(self, seat: int | None) -> dict[str, Any]:
        """The ``state`` snapshot for ``seat`` (None: a spectator), from that seat's view only."""
        driver = self.driver
        deal = driver.shown_deal
        game = driver.game
        rules = game.rules
        if seat is not None:
            seen = driver.view(seat)
            shown = seen.to_json()
            facts = rule_facts(seen, rules)
        else:
            shown = spectator_view(deal)
            facts = {**rule_facts(view(deal, 0), rules), "refusals": {}, "meld_options": None}
        return {
            "type": "state",
            "version": driver.version,
            "seat": seat,
            "view": shown,
            "game": {
                "players": self.names,
                "levels": [self.settings.level(s) for s in range(driver.players)],
                "seats": [s.to_json() for s in self.seats()],
                "waiting": self.waiting,
                "totals": list(game.totals),
                "deal_number": driver.deal_number,
                "rules": rules.text,
                "changes": rule_changes(rules),
                "teams": [rules.team_of(s) for s in range(rules.players)] if rules.teams != "none" else None,
                "durch_games": list(game.durch_games) if rules.durch_game else None,
                "target": rules.target,
                "over": game.is_over(),
                "winner": game.winner,
                "history": [_history(e) for e in driver.results],
                "settings": {"language": self.settings.language, "deck": self.settings.deck,
                             "name": self.name(seat) if seat is not None else "", "grace": self.settings.grace,
                             "lobby": self.settings.lobby},
                "ready": sorted(self.ready),
                "rematch": self.rematch_id,
            },
            "last_trick": shown["tricks"][-1] if shown["tricks"] else None,
            **facts,
        }

    def events_since(self, connection: Connection, since: int) -> None:
        """The events after version ``since`` that the connection's seat may see (a client that
        asks for what it missed; events after every change come anyway)."""
        if not 0 <= since <= self.version:
            raise ProtocolError("bad_since", last=self.version, value=since)
        connection.post(self.events_message(connection.seat, self.driver.events_for(connection.seat, since), since))

    def events_message(self, seat: int | None, events: list[Event], since: int,
                       stand_in: int | None = None) -> dict[str, Any]:
        """The events ``seat`` may see (already filtered), after version ``since``."""
        return {"type": "events", "since": since, "version": self.driver.version,
                "events": [e.to_json() for e in events if e.visibility.allows(seat)], "stand_in": stand_in}

    # ------------------------------------------------------------------ connections

    def join(self, connection: Connection, since: int | None = None) -> None:
        """A connection said hello: the missed events (if it knows a version not too long ago),
        the snapshot, who sits where, the recent chat."""
        if len(self.connections) >= self.limits.connections_per_table:
            raise ProtocolError("too_many_connections", max=self.limits.connections_per_table)
        seat = connection.seat
        self.connections.add(connection)
        if seat is not None:
            self.away_since.pop(seat, None)
            self.standing_in.discard(seat)
        if since is not None and 0 <= since <= self.version and self.version - since <= CATCH_UP:
            connection.post(self.events_message(seat, self.driver.events_for(seat, since), since))
        connection.post(self.state_message(seat))
        connection.post({"type": "chat_log", "lines": list(self.chat)})
        self._broadcast_presence()
        self.kick()

    def leave(self, connection: Connection) -> None:
        self.connections.discard(connection)
        seat = connection.seat
        if seat is not None and not self.connected(seat):
            self.away_since[seat] = time.monotonic()
            self.ready.discard(seat)
        self._broadcast_presence()
        self.kick()

    def _broadcast(self, message: dict[str, Any]) -> None:
        for connection in self.connections:
            connection.post(message)

    def _broadcast_presence(self) -> None:
        self._broadcast(self.presence())

    def _broadcast_state(self) -> None:
        cache: dict[int | None, dict[str, Any]] = {}
        for connection in self.connections:
            seat = connection.seat
            if seat not in cache:
                cache[seat] = self.state_message(seat)
            connection.post(cache[seat])

    # ------------------------------------------------------------------ commands from people

    async def act(self, connection: Connection, text: str, version: int) -> None:
        """A person's action in record notation; ProtocolError (nothing changed) if refused."""
        async with self.lock:
            seat = self._player(connection)
            self._check_version(version)
            if self.waiting:
                raise ProtocolError("waiting_for_friends")
            driver = self.driver
            if driver.is_over():
                raise ProtocolError("game_over")
            if driver.needs_deal():
                raise ProtocolError("deal_over_next")
            try:
                change = driver.propose(seat, text)
            except TurnError:
                mover = driver.to_move
                raise ProtocolError("not_your_turn", name=self.name(mover or 0)) from None
            except BinokelError as error:
                raise ProtocolError(error.code, **error.params) from None
            self._commit(change)

    async def next_deal(self, connection: Connection, version: int | None) -> None:
        """A person is ready for the next deal; it is dealt once every connected person is."""
        async with self.lock:
            seat = self._player(connection)
            if version is not None:
                self._check_version(version)
            if self.driver.is_over():
                raise ProtocolError("game_over_rematch")
            if not self.driver.needs_deal():
                raise ProtocolError("deal_not_over")
            self.ready.add(seat)
            if self._everybody_ready():
                self._deal()
            else:
                self._broadcast_presence()

    def _everybody_ready(self) -> bool:
        present = {seat for seat in self.people if self.connected(seat)}
        return present <= self.ready

    def _deal(self) -> None:
        self.ready.clear()
        self.deal_over_at = None
        self._commit(self.driver.propose_deal())

    async def hint(self, connection: Connection) -> str:
        """What the hard bot would do for the asking seat, from that seat's view only."""
        async with self.lock:
            seat = self._player(connection)
            if self.waiting or self.driver.to_move != seat:
                raise ProtocolError("hint_not_your_turn")
            seen = self.driver.view(seat)
            rng = self.driver.rng(f"hint{seat}")
        adviser = make_bot("hard", seed=self.seed)  # one per request: hints may overlap, bots keep state
        action = await asyncio.to_thread(choose_safely, adviser, seen, rng, self.budget)
        return str(action)

    async def rematch(self, connection: Connection) -> str:
        """The same people in the same seats, a fresh shuffle: one new game for everybody."""
        async with self.lock:
            self._player(connection)
            if not self.driver.is_over():
                raise ProtocolError("rematch_not_over")
            if self.rematch_id is None:
                assert self.on_rematch is not None
                self.rematch_id = self.on_rematch(self).id
                self._broadcast({"type": "rematch", "id": self.rematch_id})
            return self.rematch_id

    def say(self, connection: Connection, message: dict[str, Any]) -> None:
        """A chat line from a person at the table (rate-limited; the text is never HTML)."""
        seat = self._player(connection)
        if not connection.chat.take():
            raise ProtocolError("too_much_chat", max=self.limits.chat_per_10_seconds)
        line = {"type": "chat", "seat": seat, "name": self.name(seat), "at": time.time()}
        line.update({"phrase": message["phrase"]} if message.get("phrase") else {"text": " ".join(message["text"].split())})
        self.chat.append(line)
        self._broadcast(line)

    def _player(self, connection: Connection) -> int:
        if connection.seat is None:
            raise ProtocolError("spectator_cannot_act")
        return connection.seat

    def _check_version(self, version: int) -> None:
        if version != self.version:
            raise ProtocolError("stale_version", version=version, current=self.version)

    # ------------------------------------------------------------------ storing and telling

    def _commit(self, change: Change, stand_in: int | None = None) -> None:
        """Store the change, then adopt and tell it (the caller holds the lock)."""
        game = change.game
        dealt = sum(1 for d in game.deals if d.phase is not Phase.DEAL)
        try:
            self.store.save(self.id, version=change.version, record=game_record(game, self.names),
                            totals=list(game.totals), deals=dealt, over=game.is_over())
        except Exception as error:
            log.exception("could not save game %s", self.id)
            raise ProtocolError("save_failed", error=type(error).__name__) from None
        since = self.driver.version
        events = self.driver.commit(change)
        if self.driver.needs_deal():
            self.deal_over_at = time.monotonic()
        states: dict[int | None, dict[str, Any]] = {}
        for connection in self.connections:
            seat = connection.seat
            if seat not in states:
                states[seat] = self.state_message(seat)
            connection.post(self.events_message(seat, events, since, stand_in))
            connection.post(states[seat])
        self.kick()

    def error(self, problem: BinokelError) -> dict[str, Any]:
        return error_message(problem, self.version)

    # ------------------------------------------------------------------ bots and stand-ins

    def kick(self) -> None:
        """Wake the runner (or start it): something changed that may let a bot move."""
        self._wake.set()
        if self._runner is None or self._runner.done():
            self._runner = asyncio.get_running_loop().create_task(self._run(), name=f"bots of {self.id}")

    def _next_mover(self) -> tuple[int | None, float]:
        """The seat a bot should move for now (or None), and how long to wait before asking again."""
        driver = self.driver
        if self.waiting or driver.is_over():
            return None, -1
        if driver.needs_deal():
            after = self.settings.next_deal_after
            if after > 0 and self.deal_over_at is not None:
                return None, max(0.0, self.deal_over_at + after - time.monotonic())
            return None, -1
        seat = driver.to_move
        if seat is None or seat < 0:
            return None, -1
        if seat in self.bots:
            return seat, 0
        if self.connected(seat):
            return None, -1
        left = self.away_since.get(seat, time.monotonic()) + self.settings.grace - time.monotonic()
        return (seat, 0) if left <= 0 else (None, left)

    async def _run(self) -> None:
        """Let bots move (the table's bots, and stand-ins for people away too long), deal when
        the next-deal timeout passes; sleep until something changes."""
        while True:
            async with self.lock:
                self._wake.clear()
                seat, wait = self._next_mover()
                if seat is None and wait == 0 and self.driver.needs_deal():
                    try:
                        self._deal()  # the table's next-deal timeout has passed
                    except ProtocolError:  # not stored (logged): try again in a moment
                        self.deal_over_at = time.monotonic()
                    continue
                if seat is not None:
                    version = self.version
                    standing_in = seat not in self.bots
                    bot = self.bots.get(seat) or self._stand_in(seat)
                    if standing_in and seat not in self.standing_in:
                        self.standing_in.add(seat)
                        self._broadcast_presence()
                    seen = self.driver.view(seat)
                    rng = self.driver.rng("bot")
            if seat is None:
                if wait < 0:
                    await self._wake.wait()
                else:
                    try:
                        await asyncio.wait_for(self._wake.wait(), timeout=wait + 0.01)
                    except TimeoutError:
                        pass
                continue
            await self._move(seat, bot, seen, rng, version, standing_in)

    def _stand_in(self, seat: int) -> Bot:
        if seat not in self.stand_ins:
            self.stand_ins[seat] = make_bot(self.settings.stand_in, seed=(self.seed + 100 + seat) % 2**63)
        return self.stand_ins[seat]

    async def _move(self, seat: int, bot: Bot, seen: SeatView, rng: Any, version: int, standing_in: bool) -> None:
        started = time.monotonic()
        action = await asyncio.to_thread(choose_safely, bot, seen, rng, self.budget)
        pause = self.think - (time.monotonic() - started)  # thinking counts towards the pause
        if pause > 0:
            await asyncio.sleep(pause)
        async with self.lock:
            if self.version != version or (standing_in and self.connected(seat)):
                return  # the table moved on, or the person came back: their move now
            try:
                self._commit(self.driver.propose(seat, action), stand_in=seat if standing_in else None)
            except (ProtocolError, BinokelError):
                log.exception("a bot's move in game %s was not accepted", self.id)
                await asyncio.sleep(1)  # a save that failed: try again, but not in a tight loop

    def stop(self) -> None:
        """Cancel the runner (shutdown, deletion)."""
        if self._runner is not None:
            self._runner.cancel()
            self._runner = None


def driver_seats(settings: Settings) -> list[DriverSeat]:
    """The driver's seats: bots at the bot seats, people (taken or open) elsewhere."""
    return [DriverSeat(level) if (level := settings.level(seat)) else PERSON for seat in range(len(settings.seats))]


def _history(event: Event) -> dict[str, Any]:
    """One line of the score sheet, from a finished deal's public event (no cards)."""
    data = event.data
    return {"dealer": data["dealer"], "soloist": data["soloist"], "bid": data["bid"], "game": data["game"],
            "outcome": data["outcome"], "scores": data["scores"], "melds": data["meld_points"],
            "card_points": data["card_points"]}
