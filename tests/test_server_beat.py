"""The server's beat (server/beat.py): a look tells exactly the connections that were quiet
long enough, however their posts reordered them, and stops early for the rest."""

from __future__ import annotations

import random

from binokel.server.beat import BEAT, QUIET_SECONDS, Beat
from binokel.server.channel import Connection
from binokel.server.limits import Limits


def test_a_look_beats_exactly_the_quiet_connections_in_any_order_of_posts() -> None:
    rng = random.Random(18)
    beat = Beat()
    connections = [Connection(n % 3, Limits()) for n in range(200)]
    for connection in connections:
        beat.enlist(connection)
    for _ in range(300):  # posts in a random order: each moves its connection last
        rng.choice(connections).post('{"type":"update"}')
    # Times set afresh, in the order the posts left them (what real posts do).
    for at, connection in enumerate(beat.connections):
        connection.told_at = 100.0 + at / 100
    now = 100.0 + QUIET_SECONDS + 1.0
    quiet = {c for c in connections if c.told_at <= now - QUIET_SECONDS}
    assert 0 < len(quiet) < len(connections)
    for connection in connections:
        while not connection.queue.empty():
            connection.queue.get_nowait()
    assert beat.sweep(now) == len(quiet)
    assert {c for c in connections if not c.queue.empty()} == quiet
    assert all(c.queue.get_nowait() == BEAT for c in quiet)
    assert list(beat.connections)[-len(quiet):] == [c for c in beat.connections if c in quiet]  # now the last
    assert beat.sweep(now) == 0  # told just now: nobody is quiet


def test_a_dropped_or_discarded_connection_does_not_hold_up_a_look() -> None:
    beat = Beat()
    dropped, gone, quiet = (Connection(0, Limits()) for _ in range(3))
    for connection in (dropped, gone, quiet):
        beat.enlist(connection)
        connection.told_at = 1.0
    dropped.drop()  # its posts are ignored: it is not moved by them
    beat.discard(gone)
    gone.post('{"type":"update"}')  # no longer ordered by the beat
    assert list(beat.connections) == [dropped, quiet]
    assert beat.sweep(10.0) == 2 and quiet.queue.get_nowait() == BEAT and dropped.queue.empty()
    # The next look: the dropped one is still quiet (the app closes it soon), and the look
    # stops at the connection told a beat just now.
    assert beat.sweep(quiet.told_at + QUIET_SECONDS / 2) == 1 and quiet.queue.empty() and dropped.queue.empty()
