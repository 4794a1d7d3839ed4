"""Which server process holds a connection of which seat: a table of its own, refreshed by
each process's heartbeat, so every process knows who is away (a killed process's rows go
stale). Times are the database's clock (:attr:`Store.clock`). Written once for both
databases (:meth:`Store.execute`, :meth:`Store.query`).

>>> from binokel.server.storage import open_store, Seat
>>> store = open_store(":memory:")
>>> _ = store.create("g1", rules="standard", settings={}, seed=1, first_dealer=0, seats=[Seat("person", None, "A")])
>>> mark(store, "g1", 0, "p1", present=True, ready=4)
>>> [(row.seat, row.process, row.ready, row.age < 5) for row in rows(store, ["g1"])]
[(0, 'p1', 4, True)]
>>> mark(store, "g1", 0, "p1", present=False)
>>> rows(store, ["g1"])
[]
>>> store.close()
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from binokel.server.storage.base import Store, placeholders


@dataclass(frozen=True)
class Presence:
    """A seat with a connection to a server ``process`` (``age``: seconds since that
    process last said so), and ``ready``: the version at which the seat asked for the
    next deal (None: not asked)."""

    game_id: str
    seat: int
    process: str
    age: float
    ready: int | None


def mark(store: Store, game_id: str, seat: int, process: str, *, present: bool, ready: int | None = None) -> None:
    """Record that ``process`` holds a connection of the seat (``present``) or no longer."""
    if present:
        store.execute([(f"INSERT INTO presence (game_id, seat, process, seen, ready) VALUES (?, ?, ?, {store.clock}, ?)"
                        " ON CONFLICT (game_id, seat, process) DO UPDATE SET seen = excluded.seen,"
                        " ready = excluded.ready", (game_id, seat, process, ready))])
    else:
        store.execute([("DELETE FROM presence WHERE game_id = ? AND seat = ? AND process = ?",
                        (game_id, seat, process))])


def touch(store: Store, process: str) -> None:
    """The heartbeat: every presence row of ``process`` is fresh again."""
    store.execute([(f"UPDATE presence SET seen = {store.clock} WHERE process = ?", (process,))])


def rows(store: Store, game_ids: Sequence[str]) -> list[Presence]:
    """The presence rows of these games (stale ones too: the caller judges ``age``)."""
    if not game_ids:
        return []
    found = store.query(f"SELECT game_id, seat, process, {store.clock} - seen, ready FROM presence"
                        f" WHERE game_id IN ({placeholders(len(game_ids))})", list(game_ids))
    return [Presence(game_id, seat, process, max(0.0, float(age)), ready)
            for game_id, seat, process, age, ready in found]
