"""The rematch of a finished game, the same for every server process and after a restart:
the first new game stored for it wins, and whoever asks later is given that one. Written once
for both databases (:meth:`Store.execute`, :meth:`Store.query`).

>>> from binokel.server.storage import open_store, Seat
>>> store = open_store(":memory:")
>>> _ = store.create("g1", rules="standard", settings={}, seed=1, first_dealer=0, seats=[Seat("bot", "easy", "B")])
>>> of(store, "g1") is None
True
>>> settle(store, "g1", "new1"), settle(store, "g1", "new2"), of(store, "g1")
('new1', 'new1', 'new1')
>>> store.close()
"""

from __future__ import annotations

from binokel.server.storage.base import Store


def settle(store: Store, game_id: str, made: str) -> str:
    """Record ``made`` as the game's rematch unless it has one: the rematch it has now."""
    store.execute([("INSERT INTO rematches (game_id, rematch) VALUES (?, ?) ON CONFLICT (game_id) DO NOTHING",
                    (game_id, made))])
    return of(store, game_id) or made


def of(store: Store, game_id: str) -> str | None:
    """The game's rematch, if one was made."""
    found = store.query("SELECT rematch FROM rematches WHERE game_id = ?", (game_id,))
    return str(found[0][0]) if found else None
