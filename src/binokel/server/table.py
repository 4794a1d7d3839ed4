"""One table per game on the server: the command queue and mailbox around the driver.

The rules of play live in the driver (:class:`binokel.table.Table`): it knows whose turn
it is, checks every step, and emits versioned events tagged with who may see them. A
:class:`Table` adds what only a server has — who holds each person's seat (by the digest
of its token), the connections watching (each with a seat or none), the people's commands
taken one at a time — and holds the collaborators that do the rest:

- :class:`~binokel.server.replication.Replication`: every step is stored first, then
  adopted and told; steps other processes stored are adopted as they are heard;
- :class:`~binokel.server.runner.StepRunner`: the bots' moves, the stand-ins' and the next
  deal, taken while this process holds the table's :class:`~binokel.server.runner.Lease`;
- :class:`~binokel.server.attendance.Attendance`: who is connected (here or at another
  process), away, stood in for, ready for the next deal;
- :class:`~binokel.server.message.Messages`: what each audience is sent (snapshot,
  update, events, presence), from its own view only;
- :class:`~binokel.server.chat.ChatRoom` and :class:`~binokel.server.hint.Hints`.

A change is told to each audience (each seat, and the spectators as one) as one
``update`` (:func:`binokel.update.update_for`): the events that audience may see and the
facts the step changed, from ``view(deal, seat)`` only (spectators: the public fields of a
view), built and encoded once per audience however many tabs watch. A full ``state``
snapshot goes only to a connection that says hello or asks to ``sync`` (and to everybody
when a friend takes a seat, which changes the names at the table).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

from binokel.error import BinokelError
import binokel.server.persist as persist
from binokel.server.attendance import Attendance
from binokel.server.chat import ChatRoom
from binokel.server.hint import Hints, after_discards
from binokel.server.limits import Limits
from binokel.server.message import Messages
from binokel.server.metrics import Metrics
from binokel.server.outage import Outage
from binokel.server.pool import Pool
from binokel.server.persist import PROCESS
from binokel.server.protocol import error_message
from binokel.server.replication import Notices, Replication
from binokel.server.runner import Lease, StepRunner
from binokel.server.schema import Chat, ProtocolError
from binokel.server.settings import Seat, SeatPresence, Settings, bot_name
from binokel.server.storage import HOST_SEAT, Presence, Store, now
from binokel.server.channel import Channel, Connection
from binokel.table import Ask, Change, Event, EventKind, Think
from binokel.table import Table as Driver

T = TypeVar("T")


class Table:
    """A game being played by people and bots, watched by any number of spectators."""

    def __init__(self, game_id: str, settings: Settings, driver: Driver, store: Store, people: Mapping[int, Seat],
                 host: int | None, *, think: float, budget: float, limits: Limits, base: int = 0,
                 metrics: Metrics | None = None, updated: str | None = None, pool: Pool | None = None,
                 outage: Outage | None = None) -> None:
        self.id = game_id
        self.settings = settings
        self.driver = driver
        self.seed = driver.seed
        self.store = store
        self.limits = limits
        self.people: dict[int, Seat] = {seat: person for seat, person in people.items() if seat >= 0}  # taken
        self.host = host  # the creator's seat (HOST_SEAT: they only host, with the token of host_only)
        self.host_only = people.get(HOST_SEAT)
        self.lock = asyncio.Lock()
        self.channel = Channel()
        # When the deal in the score sheet ended: for a table loaded at its score sheet (a restart,
        # eviction, another process) its last step's stored time, so ``next_deal_after`` runs from there.
        self.deal_over_at: float | None = persist.monotonic_at(updated) if driver.needs_deal() else None
        self.rematch_id: str | None = None
        self.on_rematch: Callable[[Table], Awaitable[str]] | None = None  # set by the hall: the rematch's id
        self.on_deleted: Callable[[Table], None] | None = None  # set by the hall
        # The store's version is base + the driver's (base is 0 but for a game of the previous
        # server); the versions announced here (not mistaken for another process's change).
        self.base = base
        self.metrics = metrics or Metrics(PROCESS)
        self.updated = updated or now()
        self.notices = Notices(store, game_id)
        self.attendance = Attendance(game_id, store, self.channel, self.notices, self.metrics,
                                     person_seats=self.person_seats, grace=settings.grace,
                                     version=lambda: self.stored_version)
        self.chat = ChatRoom(game_id, store, self.channel, self.notices, self.metrics, limits,
                             version=lambda: self.stored_version)
        self._tasks: set[asyncio.Task[Any]] = set()
        self.deleted = False
        self.watched_at = time.monotonic()  # when this process last had a connection to the table
        # The pool the bots and hints think in (None: a thread each), the database outage
        # shared by the hall's tables, and what takes the steps nobody is asked for.
        self.pool = pool
        self.outage = outage or Outage()
        self.lease = Lease(store, game_id, self.metrics)
        self.runner = StepRunner(self, self.lease, pause=think, budget=budget)
        self.hints = Hints(game_id, limits, pool, budget=budget, seed=driver.seed)
        self.replication = Replication(self)
        self.messages = Messages(self)

    # ------------------------------------------------------------------ seats

    @property
    def connections(self) -> set[Connection]:
        return self.channel.connections

    @property
    def game(self) -> Any:
        return self.driver.game

    @property
    def version(self) -> int:
        return self.driver.version

    @property
    def person_seats(self) -> list[int]:
        """The seats for people (taken or open)."""
        return [seat for seat, sitter in enumerate(self.driver.seats) if not sitter.is_bot]

    @property
    def open_seats(self) -> list[int]:
        return [seat for seat in self.person_seats if seat not in self.people]

    @property
    def waiting(self) -> bool:
        """Are friends still to take their seats? Nobody moves until they have."""
        return any(seat not in self.people for seat in self.person_seats)  # open_seats' test, stopping at the first

    @property
    def names(self) -> list[str]:
        return [self.name(seat) for seat in range(self.driver.players)]

    def name(self, seat: int) -> str:
        if seat in self.people:
            return self.people[seat].name
        return bot_name(seat) if self.driver.is_bot(seat) else ""

    def seat_of(self, token: str) -> int | None:
        """The seat a token holds at this table (HOST_SEAT: the creator who does not play), or None."""
        held = {**self.people, **({HOST_SEAT: self.host_only} if self.host_only else {})}
        return next((seat for seat, person in held.items() if person.is_held_by(token)), None)

    def is_host(self, seat: int | None) -> bool:
        """Is ``seat`` (as :meth:`seat_of` gives it) the creator's?"""
        return seat is not None and seat == self.host

    @property
    def stored_version(self) -> int:
        """The version of the table in the store (the driver's, but for old games)."""
        return self.driver.version + self.base

    def seats(self) -> list[SeatPresence]:
        """Every seat as everybody may see it (presence)."""
        attendance = self.attendance
        return [seat.presence(connected=attendance.connected(number), stand_in=number in attendance.standing_in,
                              stand_in_level=self.settings.stand_in)
                for number, seat in enumerate(self.settings.seat_plan(self.people))]

    def seat_person(self, seat: int, person: Seat) -> None:
        """A friend has taken a seat (already stored by the hall)."""
        self.people[seat] = person
        self.attendance.seated(seat)
        # The names at the table change (rare): a snapshot first, so that nobody's model says
        # "no longer waiting" without the friend's name; then the presence (the spectators' count).
        self.channel.tell(self.messages.state)
        self._broadcast_presence()
        self.kick()

    # ------------------------------------------------------------------ what clients see

    def events_since(self, connection: Connection, since: int) -> None:
        """The events after version ``since`` that the connection's seat may see (a client that
        asks for what it missed; each update carries its step's events anyway)."""
        if not connection.events.take():  # every request counts, answered or refused
            raise ProtocolError("too_many_events", max=self.limits.events_per_minute)
        if not 0 <= since <= self.version:
            raise ProtocolError("bad_since", last=self.version, value=since)
        most = self.limits.events_versions
        if self.version - since > most:  # a whole history per 40-byte request: sync gives the state
            raise ProtocolError("events_too_far", max=most, last=self.version)
        connection.post(self.messages.events(connection.seat, self.driver.events_for(connection.seat, since), since))

    # ------------------------------------------------------------------ connections

    def join(self, connection: Connection, since: int | None = None) -> None:
        """A connection said hello: the missed events (if it knows a version not too long ago),
        the snapshot, who sits where, the recent chat."""
        seat = connection.seat
        # Spectators have their own room, so however many watch, a seat's holder gets in.
        if seat is None and sum(1 for c in self.connections if c.seat is None) >= self.limits.spectators_per_table:
            raise ProtocolError("too_many_spectators", max=self.limits.spectators_per_table)
        if seat is not None and sum(1 for c in self.connections if c.seat == seat) >= self.limits.tabs_per_seat:
            raise ProtocolError("too_many_tabs", max=self.limits.tabs_per_seat)
        self.connections.add(connection)
        self.metrics.connections.inc()
        if seat is not None:
            self.attendance.arrived(seat)
            self._spawn(self.attendance.share(seat))
        if since is not None and 0 <= since <= self.version and self.version - since <= self.limits.events_versions:
            connection.post(self.messages.events(seat, self.driver.events_for(seat, since), since))
        connection.post(self.messages.state(seat))
        if seat is not None:  # chat is for the seats: a spectator reads none of it
            connection.post({"type": "chat_log", "lines": list(self.chat)})
        self._broadcast_presence(calm=seat is None)
        self.kick()

    def is_idle(self, seconds: float) -> bool:
        """May the table leave this process's memory? Nobody connected for ``seconds``, no
        command under way, no bot move or hint in flight (it is reloaded from the store when
        somebody comes; a bot's next move waits until then)."""
        return (not self.connections and self.unwatched_for() >= seconds and not self.lock.locked()
                and not self.runner.moving and not self.hints.in_flight)

    def unwatched_for(self) -> float:
        """Seconds since this process last had a connection to the table (0 while it has one)."""
        return 0.0 if self.connections else time.monotonic() - self.watched_at

    def leave(self, connection: Connection) -> None:
        self.watched_at = time.monotonic()
        if connection in self.connections:
            self.metrics.connections.dec()
        self.connections.discard(connection)
        seat = connection.seat
        if seat is not None and self.attendance.departed(seat):  # its last connection here
            self._spawn(self.attendance.share(seat))
        self._broadcast_presence(calm=seat is None)
        self.kick()

    def _broadcast_presence(self, calm: bool = False) -> None:  # calm: a spectator came or went, told calmly
        self.channel.broadcast_calmly(self.messages.presence, self.limits.presence_seconds if calm else 0.0)

    # ------------------------------------------------------------------ commands from people

    async def act(self, connection: Connection, text: str, version: int) -> None:
        """A person's action in record notation; ProtocolError (nothing changed) if refused."""
        started = time.perf_counter()
        if isinstance(version, int) and version > self.version:
            await self.catch_up(version)  # the client heard of a step (from another process) before this one
        async with self.lock:
            seat = self._player(connection)
            if self.waiting:
                raise ProtocolError("waiting_for_friends")
            # The driver judges (turn, legality, version); a second try follows another
            # process's step, which the driver then refuses as stale.
            for _attempt in range(2):
                if await self.replication.commit(_judged(lambda: self.driver.propose(seat, text, at=version))):
                    self.metrics.latency.observe(time.perf_counter() - started)
                    return
            raise ProtocolError("db_unavailable")

    async def next_deal(self, connection: Connection, version: int | None) -> None:
        """A person is ready for the next deal; it is dealt once every connected person is."""
        async with self.lock:
            seat = self._player(connection)
            _judged(lambda: self.driver.check_deal(at=version))
            self.attendance.ready.add(seat)
            self._spawn(self.attendance.share(seat))
            if self.everybody_ready():
                await self.deal()
            else:
                self._broadcast_presence()

    def everybody_ready(self) -> bool:
        """Has somebody asked for the next deal, and every connected person (at any process)?"""
        return self.attendance.everybody_ready(self.people)

    async def deal(self) -> bool:
        return await self.replication.commit(self.driver.propose_deal())

    async def hint(self, connection: Connection, chosen: list[str] | None = None) -> str:
        """What the strongest measured level would do for the asking seat, from its view only
        (:class:`binokel.server.hint.Hints`). ``chosen``: cards the player has picked to lay
        away but not sent yet; the hint is the next card after them."""
        async with self.lock:
            seat = self._player(connection)
            step = self.driver.next_step()
            if self.waiting or not isinstance(step, Ask | Think) or step.seat != seat:
                raise ProtocolError("hint_not_your_turn")
            self.hints.admit(seat)
            seen = after_discards(self.driver, seat, chosen) if chosen else self.driver.view(seat)
            seed = self.driver.seed_for(f"hint{seat}")
        return await self.hints.think(seat, seen, seed)

    async def rematch(self, connection: Connection) -> None:
        """The same people in the same seats, a fresh shuffle: one new game for everybody, told
        once to every connection (the asker too; later ones find it in the snapshot)."""
        async with self.lock:
            self._player(connection)
            if not self.driver.is_over():
                raise ProtocolError("rematch_not_over")
            if self.rematch_id is None:
                assert self.on_rematch is not None
                self.rematch_made(await self.on_rematch(self))

    def rematch_made(self, game_id: str) -> None:  # here or by another process: told once
        if self.rematch_id is None:
            self.rematch_id = game_id
            self.channel.broadcast({"type": "rematch", "id": game_id})

    def say(self, connection: Connection, message: Chat) -> None:
        """A chat line from a person at the table (:class:`binokel.server.chat.ChatRoom`)."""
        seat = self._player(connection)
        self._spawn(self.chat.share(self.chat.say(connection, seat, self.name(seat), message)))

    def _player(self, connection: Connection) -> int:
        if connection.seat is None:
            raise ProtocolError("spectator_cannot_act")
        return connection.seat

    # ------------------------------------------------------------------ storing and telling

    def adopt(self, change: Change, stand_in: int | None = None) -> None:
        """Commit a stored change to the driver and tell every connection here."""
        events = self.commit_to_driver(change)
        self.channel.tell(lambda audience: self.messages.update_text(audience, events, stand_in))
        self.kick()

    def commit_to_driver(self, change: Change) -> list[Event]:
        """Commit a stored change to the driver (a new deal clears the next-deal clicks; the end
        of a deal starts its clock): the change's events."""
        events = self.driver.commit(change)
        if any(e.kind is EventKind.DEAL for e in events):
            self.attendance.ready.clear()
            self.deal_over_at = None
        if self.driver.needs_deal():
            self.deal_over_at = time.monotonic()
        return events

    # ------------------------------------------------------------------ other processes

    def heard(self, version: int | None, entries: Sequence[Any] | None = None) -> None:
        """The store says the game is at ``version`` (:meth:`Replication.heard`)."""
        self.replication.heard(version, entries)

    async def catch_up(self, seen: int = 0) -> None:
        """Adopt the steps other processes stored (:meth:`Replication.catch_up`)."""
        await self.replication.catch_up(seen)

    async def refresh(self) -> None:
        """Re-read the seats, presence rows and chat (:meth:`Replication.refresh`)."""
        await self.replication.refresh()

    def set_elsewhere(self, rows: list[Presence]) -> None:
        """The presence rows of this table, read from the store (:class:`Attendance`)."""
        if self.attendance.set_elsewhere(rows):
            self._broadcast_presence()
            self.kick()

    def close_deleted(self) -> None:
        """The game was deleted (here or by another process): say so and close every connection."""
        if self.deleted:
            return
        self.deleted = True
        self.stop()
        for connection in list(self.connections):
            connection.post(self.error(ProtocolError("game_deleted")))
            connection.post(None)
        if self.on_deleted is not None:
            self.on_deleted(self)

    def _spawn(self, work: Awaitable[Any]) -> None:
        """Run ``work`` in the background, keeping a reference until it is done."""
        task: asyncio.Task[Any] = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def error(self, problem: BinokelError) -> dict[str, Any]:
        return error_message(problem, self.version)

    # ------------------------------------------------------------------ bots and stand-ins

    def kick(self) -> None:
        """Wake the step runner (or start it): something changed that may let a bot move."""
        self.runner.kick()

    def stand_in(self, seat: int) -> None:
        """A bot plays for ``seat``'s person, away too long (told to everybody once)."""
        if self.attendance.stand_in(seat):
            self._broadcast_presence()

    def stop(self) -> None:
        """Cancel the runner and background work (shutdown, deletion)."""
        self.runner.stop()
        self.replication.stop()
        for task in list(self._tasks):
            task.cancel()


def _judged(judge: Callable[[], T]) -> T:
    """The driver's judgement; its refusal (code and params unchanged) for the client."""
    try:
        return judge()
    except BinokelError as error:
        raise ProtocolError(error.code, **error.params) from None
