"""The server tests' look into the games database, for either database (SQLite file or
PostgreSQL URL): what a game looks like once stored, rebuilt from its log as a restarted
server would, so a test can check that a refused command changed nothing.

:class:`ModelSocket` reads a websocket as the page reads it: it keeps the table's model (the
``state`` snapshot, brought up to date by each ``update``), so a test reads "the state now"
whatever the wire carried, and keeps every message as sent for the leak checks.

The ``server_db`` fixture gives the database a server under test opens: a SQLite file, or
the test run's PostgreSQL database (emptied for the test; skipped with one line where there
is none, a failure under CI=true)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from storage_support import info_of

from binokel.action import HAND_DURCH, OPEN_DURCH
from binokel.card import CARDS, Card
from binokel.game import Game
from binokel.meld import meld_cards
from binokel.record import actions_of, game_record, replay_deal
from binokel.server import persist
from binokel.server.app import create_app
from binokel.server.limits import Limits
from binokel.server.protocol import CARD_PATTERN
from binokel.server.settings import Seat
from binokel.server.storage import open_store
from binokel.state import Phase, State
from binokel.update import apply_update

Message = dict[str, Any]

FAST_LIMITS = Limits(messages_per_second=1000.0, message_burst=1000, address_messages_per_second=1000.0,
                     address_message_burst=1000, reviews_per_minute=1000, table_reviews_per_minute=1000)
"""Tests act as fast as the server answers, far beyond a person's 20 messages a second."""
TEST_HOSTS = ("testserver",)
"""TestClient's host name (its websockets always use it): answered like a name given with --allow-host."""


def fast_limits(**changes: Any) -> Limits:
    """:data:`FAST_LIMITS` with some settings changed."""
    return dataclasses.replace(FAST_LIMITS, **changes)


def app_for(db: Any, *, think: float = 0, budget: float = 0.01, **options: Any) -> Any:
    """The app under test on ``db``: fast limits and TestClient's host name unless told otherwise."""
    options.setdefault("limits", FAST_LIMITS)
    options.setdefault("allow_hosts", TEST_HOSTS)
    return create_app(db, think=think, budget=budget, **options)


@pytest.fixture(params=["sqlite", "postgres"])
def server_db(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    if request.param == "sqlite":
        return tmp_path / "games.sqlite3"
    return str(request.getfixturevalue("postgres_url"))


@dataclass(frozen=True)
class SavedGame:
    version: int
    record: dict[str, Any]
    settings: dict[str, Any]


class Saved:
    """A read of the games database as the server stored it (opened for each look)."""

    def __init__(self, db: Path | str) -> None:
        self.db = db

    def load(self, game_id: str) -> SavedGame | None:
        with open_store(self.db) as store:
            loaded = persist.load(store, game_id)
        if loaded is None:
            return None
        names = [s.name for s in loaded.info.seats]
        return SavedGame(loaded.driver.version + loaded.base, game_record(loaded.driver.game, names),
                         loaded.settings.to_json())

    def seats(self, game_id: str) -> dict[int, Seat]:
        """The taken seats by number (and at HOST_SEAT a creator who only hosts)."""
        with open_store(self.db) as store:
            info = info_of(store, game_id)
        if info is None:
            return {}
        return persist.people_of(info)[0]

    def games_of(self, hashes: list[str]) -> list[tuple[str, int]]:
        with open_store(self.db) as store:
            return store.held(hashes)

    def expire_invites(self) -> None:
        """Make every invite code out of date (as if a week had passed)."""
        with open_store(self.db) as store:
            if isinstance(self.db, str) and self.db.startswith("postgres"):
                store._run(lambda conn: conn.execute(  # type: ignore[attr-defined]
                    "UPDATE invites SET expires = '2000-01-01T00:00:00.000+00:00' WHERE seat IS DISTINCT FROM -1"),
                    mode="statement")
            else:
                store._write(lambda db: db.execute(  # type: ignore[attr-defined]
                    "UPDATE invites SET expires = '2000-01-01T00:00:00.000+00:00' WHERE seat IS NOT -1"))


# ---------------------------------------------------------------------- the truth

def true_games(db: Path, game_id: str) -> list[Game]:
    """The true game at every version, rebuilt from the full stored record: version 0 is
    the new table, version 1 the first deal dealt, then one version per action and per later deal."""
    record = Saved(db).load(game_id).record
    game = Game.new(record["rules"], record["deals"][0]["dealer"])
    games: list[Game] = [game]
    for deal in record["deals"]:
        state = replay_deal(deal, game.rules, dealer=game.current.dealer)
        game = game.deal([[CARDS[k] for k in h] for h in state.dealt], [CARDS[k] for k in state.tapp])
        games.append(game)
        for action in actions_of(state):
            game = game.apply(action)
            games.append(game)
    return games


def shown_deal(game: Game) -> State:
    return game.deals[-2] if game.needs_deal() and len(game.deals) > 1 else game.current


def knowable_while_played(deal: State, seat: int | None) -> set[Card]:
    """The cards ``seat`` (None: a spectator) may know while the deal is played: its hand, cards
    played, cards shown in melds, the Tapp once the soloist has turned it up (never after an
    open Durch from the hand), its own discard as soloist, and an open Durch soloist's hand
    once announced."""
    cards = set(deal.hand(seat)) if seat is not None else set()
    cards.update(c for trick in deal.tricks for c in trick.cards)
    cards.update(deal.current_trick.cards)
    if deal.melds is not None:
        for melds in deal.melds:
            cards.update(meld_cards(melds))
    if deal.soloist is not None and deal.phase is not Phase.TAPP and deal.game != HAND_DURCH:
        cards.update(CARDS[k] for k in deal.tapp)
    if deal.game in (OPEN_DURCH, HAND_DURCH):
        cards.update(deal.hand(deal.soloist))
    if seat is not None and deal.soloist == seat:
        cards.update(CARDS[k] for k in deal.discard)
    return cards


def cards_in(value: Any) -> set[Card]:
    """Every card named anywhere in a message (keys and values, at any depth)."""
    found: set[Card] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            found |= cards_in(key) | cards_in(item)
    elif isinstance(value, list):
        for item in value:
            found |= cards_in(item)
    elif isinstance(value, str):
        for word in value.replace(",", " ").replace(":", " ").split():
            if CARD_PATTERN.match(word.strip("'\"().")):
                found.add(Card.parse(word.strip("'\"().")))
    return found


# ---------------------------------------------------------------------- what a client holds

class Snapshot(dict[str, Any]):
    """A client's model of the table after one message: a ``state`` snapshot, or the model
    after an ``update``; ``wire`` is the message as the server sent it (for the leak checks,
    which look at both)."""

    wire: Message


class ModelSocket:
    """A websocket read as a client reads it (``binokel.update.apply_update``, the twin of
    the page's reducer). :meth:`receive_json` answers a ``state`` or an ``update`` with the
    model after it (a :class:`Snapshot`: a ``state`` of that version, however it came), and
    any other message as it came; ``presence`` and ``rematch`` update the model too. An
    update that does not follow the model fails the test (the page would resync).
    ``raw``: every message as sent; ``receive``: how a message is read (default: the
    TestClient socket's ``receive_json``); :meth:`take` applies a message read elsewhere."""

    def __init__(self, ws: Any = None, receive: Callable[[], Message] | None = None) -> None:
        self.ws = ws
        self.receive = receive or (lambda: ws.receive_json())
        self.model: Snapshot | None = None
        self.raw: list[Message] = []

    def receive_json(self) -> Message:
        return self.take(self.receive())

    def take(self, message: Message) -> Message:
        """Apply one message as sent; what :meth:`receive_json` answers for it."""
        self.raw.append(message)
        kind = message["type"]
        if kind == "update":
            assert self.model is not None and message["since"] == self.model["version"], (self.model, message)
        if kind in ("state", "update") or (self.model is not None and kind in ("presence", "rematch")):
            self.model = Snapshot(apply_update(self.model or {}, message))
            self.model.wire = message
            if kind in ("state", "update"):
                return self.model
        return message

    def __getattr__(self, name: str) -> Any:
        return getattr(self.ws, name)


def wire_of(message: Message) -> Message:
    """The message as the server sent it (a :class:`Snapshot`'s ``wire``), else ``message``."""
    return message.wire if isinstance(message, Snapshot) else message
