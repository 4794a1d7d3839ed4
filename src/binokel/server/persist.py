"""The seam between a server table and the storage package (:mod:`binokel.server.storage`).

A table is stored as the storage package's game: metadata (rules, settings, seed, first
dealer, the seats with the digests of their tokens) plus an append-only log with **one entry
per step of the table driver** (:class:`binokel.table.Dealt` or :class:`binokel.table.Acted`,
as their ``to_json``). Loading a table replays its log (:meth:`binokel.table.Table.replay`);
a game migrated from the previous server starts from its snapshot, a ``binokel-game/1``
record, read by :meth:`binokel.table.Table.from_game`.

**Versions.** The store's version of a game is the number of its last entry. For a table
made by this server it equals the driver's version; for a migrated game the driver's
version of the snapshot may differ from the old row's, so a :class:`Loaded` table carries
``base``: store version = ``base`` + driver version.

Every function here blocks (it calls the store): the server runs them with
``asyncio.to_thread``. None of them touches a connection or a message.

>>> from binokel.server.storage import open_store
>>> from binokel.rules import Rules
>>> from binokel.server.settings import Settings
>>> from binokel.table import Table as Driver
>>> store = open_store(":memory:")
>>> settings = Settings(Rules.parse("standard"), seats=("me", "easy", "open"), seed=5)
>>> driver = Driver(settings.rules, settings.driver_seats(), seed=5)
>>> change = driver.propose_deal()
>>> from binokel.server.settings import Seat
>>> create(store, "t1", settings, change, {0: Seat("person", None, "Anna", "d" * 64)}, 0, [])
>>> _ = driver.commit(change)
>>> act = driver.propose(driver.to_move, driver.view(driver.to_move).legal_actions[0])
>>> store.append("t1", 1, entries_of([act]), status=status(act.game))
2
>>> loaded = load(store, "t1")
>>> loaded.driver.history == driver.history + (act.step,), loaded.people, loaded.host
(True, {0: Seat(kind='person', level=None, name='Anna', token_hash='ddd...')}, 0)
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from binokel.error import BinokelError
from binokel.game import Game
from binokel.record import replay_game
from binokel.server.settings import Seat, Settings
from binokel.server.storage import Entry, GameInfo, Status, Store
from binokel.server.storage.invites import HOST_SEAT, NEVER, Invite, set_invites
from binokel.table import Change, Step, step_from_json
from binokel.table import Table as Driver

log = logging.getLogger("binokel.server")

PROCESS = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
"""This server process, as its presence rows name it (unique across machines and restarts)."""


def later(seconds: float) -> str:
    """The time ``seconds`` from now, in the store's format (for invite expiry)."""
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat(timespec="milliseconds")


def monotonic_at(stamp: str | None) -> float | None:
    """The monotonic clock's reading at a stored time (:func:`now`'s format); None if
    there is none or it does not read.

    >>> import time
    >>> from binokel.server.storage import now
    >>> ago = monotonic_at(now())
    >>> ago is not None and abs(ago - time.monotonic()) < 5
    True
    >>> monotonic_at(None), monotonic_at("not a time")
    (None, None)
    """
    if stamp is None:
        return None
    try:
        then = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    if then.tzinfo is None:
        then = then.replace(tzinfo=UTC)
    return time.monotonic() - max(0.0, (datetime.now(UTC) - then).total_seconds())


def status(game: Game) -> Status:
    """What the lists show of a game: totals, deals dealt, over, whose turn."""
    to_move = None if game.is_over() or game.needs_deal() else game.current.to_move
    return Status(tuple(game.totals), game.dealt, game.is_over(),
                  to_move if to_move is not None and to_move >= 0 else None)


def _blob(settings: Settings, people: Mapping[int, Seat], host: int | None) -> dict[str, Any]:
    """The settings as stored: the table's settings, the creator's seat (-1: hosts only) and,
    for a creator who does not sit, the digest of their token."""
    blob: dict[str, Any] = {"table": settings.to_json(), "host": host}
    if host == HOST_SEAT:
        blob["host_token"] = people[HOST_SEAT].token_hash
        blob["host_name"] = people[HOST_SEAT].name
    return blob


def create(store: Store, game_id: str, settings: Settings, change: Change, people: Mapping[int, Seat],
           host: int | None, invites: Sequence[Invite], seed: int | None = None) -> None:
    """Store a new table whose first step (the first deal) is ``change``, with its people
    (their taken seats by number; at :data:`HOST_SEAT` a creator who only hosts), the
    creator's seat ``host`` and the invites. The game is stored first, then the invites (a
    game without its invites is a table nobody was told of yet: the creator's answer comes
    after both)."""
    seed = change_seed = seed if seed is not None else settings.seed
    assert change_seed is not None
    store.create(game_id, rules=settings.rules.text, settings=_blob(settings, people, host), seed=change_seed,
                 first_dealer=change.game.first_dealer, seats=settings.seat_plan(people), public=settings.lobby,
                 status=status(change.game), entries=[change.step.to_json()])
    rows = list(invites)
    hosting = people.get(HOST_SEAT)
    if host == HOST_SEAT and hosting is not None and hosting.token_hash is not None:
        rows.append(Invite(hosting.token_hash, game_id, HOST_SEAT, NEVER))
    if rows:
        set_invites(store, game_id, rows)


def entries_of(changes: Sequence[Change], *, stand_in: bool = False) -> list[dict[str, Any]]:
    """The log entries of ``changes``' steps, to append at the version before them (``stand_in``:
    the actions were a bot's for an absent person, kept in the entry so every process can say so)."""
    return [{**c.step.to_json(), "stand_in": True} if stand_in else c.step.to_json() for c in changes]


@dataclass
class Loaded:
    """A table as stored: its settings, the driver at the stored version, its people."""

    info: GameInfo
    settings: Settings
    driver: Driver
    people: dict[int, Seat]  # the taken seats by number; at HOST_SEAT a creator who only hosts
    host: int | None  # the creator's seat (HOST_SEAT: hosts only)
    base: int  # store version - driver version (0 but for games of the previous server)


def people_of(info: GameInfo) -> tuple[dict[int, Seat], int | None]:
    """The taken seats by number (a creator who only hosts at :data:`HOST_SEAT`) and the creator's seat."""
    blob = info.settings
    host = blob.get("host")  # also in a migrated game's settings (migration 2)
    people = {seat: s for seat, s in enumerate(info.seats) if s.kind == "person" and s.token_hash}
    if host == HOST_SEAT and blob.get("host_token"):
        people[HOST_SEAT] = Seat("person", None, str(blob.get("host_name", "")), str(blob["host_token"]))
    return people, host if host in people else None


def load(store: Store, game_id: str) -> Loaded | None:
    """A table rebuilt from its log (from the snapshot of a migrated game), or None."""
    stored = store.load(game_id)
    if stored is None:
        return None
    info = stored.info
    try:
        settings = settings_of(info)
        seats = settings.driver_seats()
        if stored.snapshot is not None:
            driver = Driver.from_game(replay_game(stored.snapshot.payload), seats, info.seed)
            base = stored.snapshot.version - driver.version
        else:
            driver = Driver(settings.rules, seats, seed=info.seed, first_dealer=info.first_dealer)
            base = 0
        for entry in stored.entries:
            driver.commit(driver.propose_step(step_from_json(entry.payload)))
    except (BinokelError, ValueError, KeyError, TypeError):
        log.exception("stored game %s cannot be replayed", game_id)
        return None
    people, host = people_of(info)
    return Loaded(info, settings, driver, people, host, base)


def settings_of(info: GameInfo) -> Settings:
    """The table's settings (a game of the previous server stored them at the top level)."""
    blob = info.settings
    if "table" in blob:
        return Settings.from_json(blob["table"], info.rules)
    return Settings.from_json({key: value for key, value in blob.items() if key in OLD_SETTINGS}, info.rules)


OLD_SETTINGS = ("rules", "opponents", "name", "language", "deck")
"""What the previous server's settings held that a table still reads."""


def missed(store: Store, game_id: str, after: int) -> list[tuple[Step, int | None]]:
    """The steps the log has after store version ``after`` (written by another process), in
    order, each with the seat a bot stood in for (or None); the caller proposes and commits
    them one by one."""
    stored = store.load(game_id, after=after)
    return steps_of(after, stored.entries if stored is not None else ())


def steps_of(after: int, entries: Sequence[Entry]) -> list[tuple[Step, int | None]]:
    """The steps of log entries read back or carried by a change notification, from version
    ``after + 1`` on, as :func:`missed` gives them."""
    steps: list[tuple[Step, int | None]] = []
    for expected, entry in enumerate(entries, after + 1):
        if entry.version != expected:
            break  # a gap cannot be: the log is append-only; stop at what is certain
        step = step_from_json(entry.payload)
        stand_in = entry.payload.get("seat") if isinstance(entry.payload, dict) and entry.payload.get("stand_in") \
            else None
        steps.append((step, stand_in if isinstance(stand_in, int) else None))
    return steps
