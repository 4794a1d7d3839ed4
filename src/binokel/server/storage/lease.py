"""Which server process takes a table's unasked steps (its bots' moves, stand-ins, the next
deal): a lease per game, so that of the processes holding a table one thinks and deals, not
all of them. Written once for both databases (:meth:`Store.execute`, :meth:`Store.query`);
times are the database's clock (:attr:`Store.clock`).

A process *claims* a game's lease: it gets it if nobody holds it, if it holds it already,
or if the holder let it run out (``expires`` passed: a process that died renews nothing).
Its heartbeat *renews* every lease it holds; it *releases* a table's lease when it lets the
table go. Correctness never rests on the lease — every step is written with the version
check — it only keeps two processes from doing the same work.

>>> from binokel.server.storage import open_store, Seat
>>> store = open_store(":memory:")
>>> _ = store.create("g1", rules="standard", settings={}, seed=1, first_dealer=0, seats=[Seat("bot", "easy", "B")])
>>> claim(store, "g1", "p1", 15), claim(store, "g1", "p2", 15), claim(store, "g1", "p1", 15)
(True, False, True)
>>> release(store, "g1", "p1"); claim(store, "g1", "p2", 15)
True
>>> claim(store, "g1", "p1", 15)
False
>>> store.close()
"""

from __future__ import annotations

from binokel.server.storage.base import Store


def claim(store: Store, game_id: str, owner: str, seconds: float) -> bool:
    """Take (or keep) the game's lease for ``seconds``, unless another process holds it;
    whether ``owner`` holds it now."""
    store.execute([(f"INSERT INTO leases (game_id, owner, expires) VALUES (?, ?, {store.clock} + ?)"
                    " ON CONFLICT (game_id) DO UPDATE SET owner = excluded.owner, expires = excluded.expires"
                    f" WHERE leases.owner = excluded.owner OR leases.expires < {store.clock}",
                    (game_id, owner, seconds))])
    found = store.query("SELECT owner FROM leases WHERE game_id = ?", (game_id,))
    return bool(found) and found[0][0] == owner


def renew(store: Store, owner: str, seconds: float) -> None:
    """The heartbeat: every lease ``owner`` holds runs ``seconds`` from now."""
    store.execute([(f"UPDATE leases SET expires = {store.clock} + ? WHERE owner = ?", (seconds, owner))])


def release(store: Store, game_id: str | None, owner: str) -> None:
    """Give the game's lease up (None: every lease of ``owner``, at shutdown); another
    process may claim it at once."""
    if game_id is None:
        store.execute([("DELETE FROM leases WHERE owner = ?", (owner,))])
    else:
        store.execute([("DELETE FROM leases WHERE game_id = ? AND owner = ?", (game_id, owner))])
