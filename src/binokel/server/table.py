"""One table per game: the core's table driver, a store and the connections watching it.

The driver (:class:`binokel.table.Table`) decides whose turn it is, deals and emits the
versioned events with their visibility. Here every change is *proposed* to the driver
(checked, nothing changed), written to the store, and only then committed and told to the
clients: each gets the events its seat may see (an ``events`` message) and the ``state``
message of its seat. Computer opponents are driven by one background task per table,
which asks the bot for the seat's view and submits its answer like any other action.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Sequence
from typing import Any

from binokel.ai import Bot, choose_safely, make_bot
from binokel.error import BinokelError
from binokel.game import Game
from binokel.record import game_record
from binokel.server.protocol import (
    HUMAN,
    ProtocolError,
    Settings,
    error_message,
    rule_changes,
    rule_facts,
    seat_names,
)
from binokel.server.store import Store
from binokel.state import Phase
from binokel.table import PERSON, Change, Event, Seat, TurnError
from binokel.table import Table as Driver

log = logging.getLogger("binokel.server")


class Client:
    """One connection watching a table; messages leave through its queue, in order."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.seat: int | None = HUMAN  # whose events it gets (None: a spectator's)
        self.subscribed = False  # does it get an ``events`` message after every change?

    def post(self, message: dict[str, Any] | None) -> None:
        """Queue a message (None closes the connection)."""
        self.queue.put_nowait(message)


def seats_of(settings: Settings) -> list[Seat]:
    """The person in seat 0, a bot of each chosen level in the others."""
    return [PERSON, *(Seat(level) for level in settings.opponents)]


def new_driver(settings: Settings, seed: int) -> Driver:
    """A new game's driver with the first deal dealt (the first dealer drawn by lot from the seed)."""
    driver = Driver(settings.rules, seats_of(settings), seed=seed)
    driver.deal()
    return driver


def driver_of(settings: Settings, seed: int, game: Game) -> Driver:
    """The driver of a stored game (its record replayed)."""
    return Driver.from_game(game, seats_of(settings), seed)


class Table:
    """A game being played: seat 0 is the human, every other seat a bot."""

    def __init__(self, game_id: str, settings: Settings, driver: Driver, store: Store,
                 *, think: float, budget: float) -> None:
        self.id = game_id
        self.settings = settings
        self.driver = driver
        self.seed = driver.seed
        self.store = store
        self.think = think
        self.budget = budget
        self.names = seat_names(settings.name, len(settings.opponents))
        self.bots: dict[int, Bot] = {
            seat: make_bot(s.bot, seed=(self.seed + seat) % 2**63) for seat, s in enumerate(driver.seats) if s.bot}
        self.lock = asyncio.Lock()
        self.clients: set[Client] = set()
        self._bots_task: asyncio.Task[None] | None = None

    @property
    def game(self) -> Game:
        return self.driver.game

    @property
    def version(self) -> int:
        return self.driver.version

    # ------------------------------------------------------------------ what clients see

    def state_message(self, seat: int = HUMAN) -> dict[str, Any]:
        """The ``state`` message for ``seat``: its view from the driver, the public results of
        the finished deals (from the driver's public events) and the public game facts."""
        driver = self.driver
        seen = driver.view(seat)
        shown = seen.to_json()
        game = driver.game
        rules = game.rules
        return {
            "type": "state",
            "version": driver.version,
            "view": shown,
            "game": {
                "players": list(self.names),
                "levels": [s.bot for s in driver.seats],
                "totals": list(game.totals),
                "deal_number": driver.deal_number,
                "rules": rules.text,
                "changes": rule_changes(rules),
                "teams": [rules.team_of(seat) for seat in range(rules.players)] if rules.teams != "none" else None,
                "durch_games": list(game.durch_games) if rules.durch_game else None,
                "target": rules.target,
                "over": game.is_over(),
                "winner": game.winner,
                "history": [_history(e) for e in driver.results],
                "settings": {"language": self.settings.language, "deck": self.settings.deck,
                             "name": self.settings.name},
            },
            "last_trick": shown["tricks"][-1] if shown["tricks"] else None,
            **rule_facts(seen, rules),
        }

    def events_message(self, seat: int | None, events: Sequence[Event]) -> dict[str, Any]:
        """The ``events`` message: those of ``events`` that ``seat`` may see."""
        return {"type": "events", "version": self.driver.version,
                "events": [e.to_json() for e in events if e.visibility.allows(seat)]}

    # ------------------------------------------------------------------ connections

    def join(self, client: Client) -> None:
        self.clients.add(client)
        client.post(self.state_message())
        self.kick()

    def leave(self, client: Client) -> None:
        self.clients.discard(client)

    # ------------------------------------------------------------------ commands

    async def act(self, text: str, version: int) -> None:
        """Seat 0's action in record notation; raise ProtocolError if it is not accepted."""
        async with self.lock:
            self._check_version(version)
            try:
                change = self.driver.propose(HUMAN, text)
            except TurnError as refused:
                raise self._turn_error(refused) from None
            except BinokelError as error:
                raise ProtocolError(error.code, **error.params) from None
            self._commit(change)

    def _turn_error(self, refused: TurnError) -> ProtocolError:
        """The driver's refusal in the words of seat 0 (who is to move, by name)."""
        if refused.to_move is None:
            return ProtocolError("game_over")
        if refused.to_move < 0:
            return ProtocolError("deal_over_next")
        return ProtocolError("not_your_turn", name=self.names[refused.to_move])

    async def next_deal(self, version: int | None) -> None:
        """Deal the next deal once the shown one is over."""
        async with self.lock:
            if version is not None:
                self._check_version(version)
            if self.driver.is_over():
                raise ProtocolError("game_over_rematch")
            if not self.driver.needs_deal():
                raise ProtocolError("deal_not_over")
            self._commit(self.driver.propose_deal())

    async def hint(self) -> str:
        """What the hard bot would do for seat 0, from seat 0's view only."""
        async with self.lock:
            if self.driver.to_move != HUMAN:
                raise ProtocolError("hint_not_your_turn")
            seen = self.driver.view(HUMAN)
            rng = self.driver.rng("hint")
        adviser = make_bot("hard", seed=self.seed)  # one per request: hints may overlap, bots keep state
        action = await asyncio.to_thread(choose_safely, adviser, seen, rng, self.budget)
        return str(action)

    async def subscribe(self, client: Client, since: int) -> None:
        """Send the client the events after version ``since`` its seat may see (the missed ones,
        after a reconnect), and from now on the events of every change."""
        async with self.lock:
            if not 0 <= since <= self.driver.version:
                raise ProtocolError("bad_since", last=self.driver.version, value=since)
            client.post(self.events_message(client.seat, self.driver.events_for(client.seat, since)))
            client.subscribed = True

    def _check_version(self, version: int) -> None:
        if version != self.driver.version:
            raise ProtocolError("stale_version", version=version, current=self.driver.version)

    def _commit(self, change: Change, *, kick: bool = True) -> None:
        """Store the change's game, then commit it to the driver and tell the clients (under the lock)."""
        new = change.game
        dealt = sum(1 for d in new.deals if d.phase is not Phase.DEAL)
        try:
            self.store.save(self.id, version=change.version, record=game_record(new, self.names),
                            totals=list(new.totals), deals=dealt, over=new.is_over())
        except Exception as error:
            log.exception("could not save game %s", self.id)
            raise ProtocolError("save_failed", error=type(error).__name__) from None
        events = self.driver.commit(change)
        for client in self.clients:
            if client.subscribed:
                client.post(self.events_message(client.seat, events))
            client.post(self.state_message(HUMAN if client.seat is None else client.seat))
        if kick:
            self.kick()

    def error(self, error: BinokelError) -> dict[str, Any]:
        return error_message(error, self.driver.version)

    # ------------------------------------------------------------------ computer opponents

    def kick(self) -> None:
        """Start the bot task if a bot is to move and none is running (call under the lock
        or from the event loop; the task clears itself under the lock)."""
        if self._bots_task is None and self.driver.bot_to_move() is not None:
            self._bots_task = asyncio.get_running_loop().create_task(self._drive(), name=f"bots of {self.id}")

    async def _drive(self) -> None:
        """Let the bots move, one at a time, until seat 0 is to move or the deal ends."""
        try:
            while True:
                async with self.lock:
                    seat = self.driver.bot_to_move()
                    if seat is None:
                        self._bots_task = None
                        return
                    version = self.driver.version
                    seen = self.driver.view(seat)
                    # The bots' stream of earlier versions of the server (whose version 0 was the first deal):
                    # the same seed keeps giving the same bot moves.
                    rng = random.Random(f"{self.seed}:bot:{version - 1}")
                started = time.monotonic()
                action = await asyncio.to_thread(choose_safely, self.bots[seat], seen, rng, self.budget)
                pause = self.think - (time.monotonic() - started)  # thinking counts towards the pause
                if pause > 0:
                    await asyncio.sleep(pause)
                async with self.lock:
                    if self.driver.version != version:
                        continue
                    try:
                        self._commit(self.driver.propose(seat, action), kick=False)
                    except (ProtocolError, BinokelError):
                        log.exception("a bot's move in game %s was not accepted", self.id)
                        self._bots_task = None
                        return  # the next client command (e.g. sync) starts the task again
        except asyncio.CancelledError:
            self._bots_task = None
            raise

    def stop(self) -> None:
        """Cancel the bot task (shutdown, deletion)."""
        if self._bots_task is not None:
            self._bots_task.cancel()
            self._bots_task = None


def _history(event: Event) -> dict[str, Any]:
    """One line of the score sheet, from a finished deal's public event (no cards)."""
    data = event.data
    return {"dealer": data["dealer"], "soloist": data["soloist"], "bid": data["bid"], "game": data["game"],
            "outcome": data["outcome"], "scores": data["scores"], "melds": data["meld_points"],
            "card_points": data["card_points"]}
