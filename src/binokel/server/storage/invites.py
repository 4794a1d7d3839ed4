"""Invite codes, by their digests: a table of their own, so that a code finds its game
whichever process is asked. Written once for both databases (:meth:`Store.execute`,
:meth:`Store.query`).

>>> from binokel.server.storage import open_store, Seat
>>> store = open_store(":memory:")
>>> _ = store.create("g1", rules="standard", settings={}, seed=1, first_dealer=0, seats=[Seat("person", None, "A")])
>>> set_invites(store, "g1", [Invite("c1", "g1", 0, "2030-01-01")])
>>> find(store, "c1"), find(store, "c2")
(Invite(code_hash='c1', game_id='g1', seat=0, expires='2030-01-01'), None)
>>> store.close()
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from binokel.server.storage.base import Statement, Store

HOST_SEAT = -1
"""The seat of a creator's token when they do not sit at the table."""
NEVER = "9999-12-31T00:00:00.000+00:00"


@dataclass(frozen=True)
class Invite:
    """An invite code of a game, by its digest: for one ``seat``, or (None) the next free
    seat; ``expires`` in UTC, ISO 8601. Seat :data:`HOST_SEAT` is the creator's token when
    they do not sit at the table (it never expires and is no invite: :func:`find` never
    finds it; :meth:`Store.held` does)."""

    code_hash: str
    game_id: str
    seat: int | None
    expires: str


def set_invites(store: Store, game_id: str, invites: Sequence[Invite]) -> None:
    """Replace a game's invite codes (not the host's row at seat -1) with ``invites``. A
    host's row among them moves to this game: the token of a creator who only hosts is one
    row (its digest is the key), and a rematch keeps them as the new table's host.

    >>> from binokel.server.storage import open_store, Seat
    >>> store = open_store(":memory:")
    >>> bot = [Seat("bot", "easy", "B")]
    >>> for game in ("g1", "g2"):
    ...     _ = store.create(game, rules="standard", settings={}, seed=1, first_dealer=0, seats=bot)
    ...     set_invites(store, game, [Invite("host", game, HOST_SEAT, NEVER)])
    >>> store.held(["host"])
    [('g2', -1)]
    >>> store.close()
    """
    statements: list[Statement] = [("DELETE FROM invites WHERE game_id = ? AND (seat IS NULL OR seat >= 0)",
                                    (game_id,))]
    statements += [("DELETE FROM invites WHERE code = ? AND seat = ?", (invite.code_hash, HOST_SEAT))
                   for invite in invites if invite.seat == HOST_SEAT]
    statements += [("INSERT INTO invites (code, game_id, seat, expires) VALUES (?, ?, ?, ?)",
                    (invite.code_hash, game_id, invite.seat, invite.expires)) for invite in invites]
    store.execute(statements)


def find(store: Store, code_hash: str) -> Invite | None:
    """The invite with this code digest (expired or not), or None."""
    rows = store.query("SELECT code, game_id, seat, expires FROM invites"
                       " WHERE code = ? AND (seat IS NULL OR seat >= 0)", (code_hash,))
    return Invite(*rows[0]) if rows else None
