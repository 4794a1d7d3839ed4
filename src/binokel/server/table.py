"""One table per game: it takes commands one at a time, persists, then tells the clients.

The table holds the immutable :class:`~binokel.game.Game` and a version number. Every
accepted change (a seat's action or a deal) makes a new game value, which is written
to the store first and only then becomes the table's game and is broadcast. Computer
opponents are driven by one background task per table.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from typing import Any

from binokel.action import GAMES
from binokel.ai import HINT_LEVEL, Bot, choose_safely, make_bot
from binokel.error import BinokelError
from binokel.game import Game
from binokel.record import game_record
from binokel.server.protocol import (HUMAN, ProtocolError, Settings, error_message, rule_changes, rule_facts,
                                     seat_names)
from binokel.server.store import Store
from binokel.state import Phase, State
from binokel.view import view

log = logging.getLogger("binokel.server")


class Client:
    """One connection watching a table; messages leave through its queue, in order."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

    def post(self, message: dict[str, Any] | None) -> None:
        """Queue a message (None closes the connection)."""
        self.queue.put_nowait(message)


class Table:
    """A game being played: seat 0 is the human, every other seat a bot."""

    def __init__(self, game_id: str, settings: Settings, seed: int, game: Game, version: int, store: Store,
                 *, think: float, budget: float) -> None:
        self.id = game_id
        self.settings = settings
        self.seed = seed
        self.game = game
        self.version = version
        self.store = store
        self.think = think
        self.budget = budget
        self.names = seat_names(settings.name, len(settings.opponents))
        self.levels: list[str | None] = [None, *settings.opponents]
        self.bots: dict[int, Bot] = {
            seat: make_bot(level, seed=(seed + seat) % 2**63) for seat, level in enumerate(self.levels) if level}
        self.lock = asyncio.Lock()
        self.clients: set[Client] = set()
        self._driver: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ what clients see

    @property
    def shown_deal(self) -> State:
        """The deal the clients see: the current one, or the finished one before the next is dealt."""
        game = self.game
        return game.deals[-2] if game.needs_deal() and len(game.deals) > 1 else game.current

    def state_message(self) -> dict[str, Any]:
        """The ``state`` message for seat 0: built from seat 0's view and public results only."""
        deal = self.shown_deal
        seen = view(deal, HUMAN)
        shown = seen.to_json()
        game = self.game
        rules = game.rules
        return {
            "type": "state",
            "version": self.version,
            "view": shown,
            "game": {
                "players": list(self.names),
                "levels": list(self.levels),
                "totals": list(game.totals),
                "deal_number": sum(1 for d in game.deals if d.phase is not Phase.DEAL),
                "rules": rules.text,
                "changes": rule_changes(rules),
                "teams": [rules.team_of(seat) for seat in range(rules.players)] if rules.has_teams else None,
                "durch_games": list(game.durch_games) if rules.durch_game else None,
                "target": rules.target,
                "over": game.is_over(),
                "winner": game.winner,
                "history": [_history(d) for d in game.deals if d.is_over()],
                "settings": {"language": self.settings.language, "deck": self.settings.deck,
                             "name": self.settings.name},
            },
            "last_trick": shown["tricks"][-1] if shown["tricks"] else None,
            **rule_facts(seen, rules),
        }

    # ------------------------------------------------------------------ connections

    def join(self, client: Client) -> None:
        self.clients.add(client)
        client.post(self.state_message())
        self.kick()

    def leave(self, client: Client) -> None:
        self.clients.discard(client)

    def _broadcast(self, message: dict[str, Any]) -> None:
        for client in self.clients:
            client.post(message)

    # ------------------------------------------------------------------ commands

    async def act(self, text: str, version: int) -> None:
        """Seat 0's action in record notation; raise ProtocolError if it is not accepted."""
        async with self.lock:
            self._check_version(version)
            game = self.game
            if game.is_over():
                raise ProtocolError("game_over")
            if game.needs_deal():
                raise ProtocolError("deal_over_next")
            state = game.current
            if state.to_move != HUMAN:
                raise ProtocolError("not_your_turn", name=self.names[state.to_move or 0])
            try:
                new = game.apply(state.parse_action(text))
            except BinokelError as error:
                raise ProtocolError(error.code, **error.params) from None
            self._commit(new)

    async def next_deal(self, version: int | None) -> None:
        """Deal the next deal once the shown one is over."""
        async with self.lock:
            if version is not None:
                self._check_version(version)
            if self.game.is_over():
                raise ProtocolError("game_over_rematch")
            if not self.game.needs_deal():
                raise ProtocolError("deal_not_over")
            self._commit(self._deal(self.game))

    def _deal(self, game: Game) -> Game:
        return game.deal_seeded(self.seed)

    async def hint(self) -> str:
        """What the strongest level would do for seat 0, from seat 0's view only."""
        async with self.lock:
            state = self.game.current
            if self.game.is_over() or self.game.needs_deal() or state.to_move != HUMAN:
                raise ProtocolError("hint_not_your_turn")
            seen = view(state, HUMAN)
            seed = f"{self.seed}:hint:{self.version}"
            rng = random.Random(seed)
        adviser = make_bot(HINT_LEVEL, seed=self.seed)  # one per request: hints may overlap, bots keep state
        action = await asyncio.to_thread(choose_safely, adviser, seen, rng, self.budget, seed=seed)
        return str(action)

    def _check_version(self, version: int) -> None:
        if version != self.version:
            raise ProtocolError("stale_version", version=version, current=self.version)

    def _commit(self, new: Game, *, kick: bool = True) -> None:
        """Store the new game, then adopt and broadcast it (the caller holds the lock)."""
        record = game_record(new, self.names)
        dealt = sum(1 for d in new.deals if d.phase is not Phase.DEAL)
        try:
            self.store.save(self.id, version=self.version + 1, record=record, totals=list(new.totals),
                            deals=dealt, over=new.is_over())
        except Exception as error:
            log.exception("could not save game %s", self.id)
            raise ProtocolError("save_failed", error=type(error).__name__) from None
        self.game, self.version = new, self.version + 1
        self._broadcast(self.state_message())
        if kick:
            self.kick()

    def error(self, error: BinokelError) -> dict[str, Any]:
        return error_message(error, self.version)

    # ------------------------------------------------------------------ computer opponents

    def kick(self) -> None:
        """Start the bot driver if a bot is to move and none is running (call under the lock
        or from the event loop; the driver clears itself under the lock)."""
        if self._driver is None and self._bot_to_move() is not None:
            self._driver = asyncio.get_running_loop().create_task(self._drive(), name=f"bots of {self.id}")

    def _bot_to_move(self) -> int | None:
        game = self.game
        if game.is_over() or game.needs_deal():
            return None
        seat = game.current.to_move
        return seat if seat is not None and seat in self.bots else None

    async def _drive(self) -> None:
        """Let the bots move, one at a time, until seat 0 is to move or the deal ends."""
        try:
            while True:
                async with self.lock:
                    seat = self._bot_to_move()
                    if seat is None:
                        self._driver = None
                        return
                    version = self.version
                    seen = view(self.game.current, seat)
                    seed = f"{self.seed}:bot:{version}"
                    rng = random.Random(seed)
                started = time.monotonic()
                action = await asyncio.to_thread(choose_safely, self.bots[seat], seen, rng, self.budget, seed=seed)
                pause = self.think - (time.monotonic() - started)  # thinking counts towards the pause
                if pause > 0:
                    await asyncio.sleep(pause)
                async with self.lock:
                    if self.version != version:
                        continue
                    try:
                        self._commit(self.game.apply(action), kick=False)
                    except (ProtocolError, BinokelError):
                        log.exception("a bot's move in game %s was not accepted", self.id)
                        self._driver = None
                        return  # the next client command (e.g. sync) starts the driver again
        except asyncio.CancelledError:
            self._driver = None
            raise

    def stop(self) -> None:
        """Cancel the bot driver (shutdown, deletion)."""
        if self._driver is not None:
            self._driver.cancel()
            self._driver = None


def _history(deal: State) -> dict[str, Any]:
    """One line of the score sheet: public results of a finished deal (no cards)."""
    return {
        "dealer": deal.dealer,
        "soloist": deal.soloist,
        "bid": deal.bid,
        "game": None if deal.game is None else str(GAMES[deal.game]),
        "outcome": deal.outcome.value if deal.outcome else None,
        "scores": list(deal.scores or ()),
        "melds": list(deal.meld_points),
        "card_points": list(deal.card_points),
    }

