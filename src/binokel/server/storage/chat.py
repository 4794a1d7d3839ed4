"""A table's chat lines: a table of their own, so that people connected to different
processes read each other, and a restarted server shows the recent lines. Written once for
both databases (:meth:`Store.execute`, :meth:`Store.query`).

>>> from binokel.server.storage import open_store, Seat
>>> store = open_store(":memory:")
>>> _ = store.create("g1", rules="standard", settings={}, seed=1, first_dealer=0, seats=[Seat("person", None, "A")])
>>> add(store, "g1", "a", {"text": "hi"}); add(store, "g1", "b", {"text": "ho"})
>>> recent(store, "g1", 1)
[('b', {'text': 'ho'})]
>>> store.close()
"""

from __future__ import annotations

import json

from binokel.server.storage.base import JSON, Store, dumps


def add(store: Store, game_id: str, line_id: str, line: JSON) -> None:
    """Keep a chat line of a game (``line_id``: its own unique id)."""
    store.execute([(f"INSERT INTO chat (game_id, id, at, line) VALUES (?, ?, {store.clock}, ?)",
                    (game_id, line_id, dumps(line)))])


def recent(store: Store, game_id: str, limit: int) -> list[tuple[str, JSON]]:
    """The last ``limit`` chat lines of a game, oldest first, each with its id."""
    found = store.query("SELECT id, line FROM chat WHERE game_id = ? ORDER BY at DESC, id DESC LIMIT ?",
                        (game_id, limit))
    return [(line_id, json.loads(line)) for line_id, line in reversed(found)]
