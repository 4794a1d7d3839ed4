"""The server's beat: a quiet line is told ``beat`` every 0.8 s, from one sweep.

The page must notice a dead line within 2 s, even when no close ever comes. A page that
says ``"beat": true`` in its hello is told a ``beat`` after the hello's answers, and then
hears something at least every ~0.85 s (a ``beat`` when nothing else was sent), so silence
alone tells it the line is gone and it sends no ``ping``. One timer per process looks at
the beating connections ten times a second and posts a beat to each that was sent nothing
for ``QUIET_SECONDS``: a beat costs the server one send, where a page's ping costs the
frame's read, its handling and the ``pong``'s send (docs/server.md "Round eight"). A page
that does not ask (an older one) keeps pinging and is answered as before; a client that
does not ask (the terminal, the tests) hears no beat.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict

from binokel.server.channel import Connection

BEAT = '{"type":"beat"}'
"""What a quiet line is told (encoded once)."""
QUIET_SECONDS = 0.75
"""A connection sent nothing for this long is told a beat at the next look ..."""
TICK_SECONDS = 0.1
"""... and the looks come this often: a quiet line hears a beat every 0.8 s, and no line
waits more than ~0.85 s for a message while the server keeps up. The page allows 1.8 s of
silence, so a server late by up to ~0.95 s is not taken for a dead line: about what a ping
allowed (answered within 1 s of going out after 0.6–0.8 s of quiet). With 0.95 s here (a beat
a second) the bench's pages lost their line more often on a saturated machine
(docs/server.md "Round eight")."""


class Beat:
    """The connections of this process that asked for a beat, and the timer that tells
    the quiet ones. The timer runs while there is a connection to look at.

    The connections are kept in the order they were last told something, the quietest first
    (a post moves its connection last: :attr:`Connection.quiet_order`), so a look stops at the
    first that is not quiet: it costs the beats it sends, not the connections it has."""

    def __init__(self) -> None:
        self.connections: OrderedDict[Connection, None] = OrderedDict()
        self._timer: asyncio.TimerHandle | None = None
        self._due = 0.0  # the loop's time of the next look
        self._loop: asyncio.AbstractEventLoop | None = None

    def add(self, connection: Connection) -> None:
        """Beat ``connection`` at once (so its client knows that this server beats) and then
        whenever it is quiet, until :meth:`discard`."""
        self.enlist(connection)
        connection.post(BEAT)
        loop = asyncio.get_running_loop()
        if self._timer is None or self._loop is not loop:  # (an app is served by one loop; a test's may change)
            self.stop()
            self._loop = loop
            self._due = loop.time() + TICK_SECONDS
            self._timer = loop.call_at(self._due, self._tick, loop)

    def enlist(self, connection: Connection) -> None:
        """Look at ``connection`` from now on (:meth:`add` without the first beat and the timer)."""
        self.connections[connection] = None
        connection.quiet_order = self.connections

    def discard(self, connection: Connection) -> None:
        self.connections.pop(connection, None)
        connection.quiet_order = None

    def sweep(self, now: float) -> int:
        """Post a beat to each connection sent nothing since ``now - QUIET_SECONDS``
        (``time.monotonic``, as :attr:`Connection.told_at`); how many were told.

        >>> from binokel.server.limits import Limits
        >>> beat, quiet, busy = Beat(), Connection(0, Limits()), Connection(1, Limits())
        >>> beat.enlist(quiet); beat.enlist(busy)
        >>> quiet.told_at, busy.told_at = 10.0, 10.5
        >>> beat.sweep(11.0), quiet.queue.get_nowait(), busy.queue.qsize(), list(beat.connections) == [busy, quiet]
        (1, '{"type":"beat"}', 0, True)
        """
        due = now - QUIET_SECONDS
        connections = self.connections
        told = 0
        for _ in range(len(connections)):  # each at most once, whatever its post did
            connection = next(iter(connections))
            if connection.told_at > due:
                break  # the rest were told something later still
            connection.post(BEAT)  # sets its told_at and moves it last
            connections.move_to_end(connection)  # (a dropped connection's post does neither)
            told += 1
        return told

    def _tick(self, loop: asyncio.AbstractEventLoop) -> None:
        if not self.connections:
            self._timer = None
            return
        self.sweep(time.monotonic())
        # A steady pace (not TICK_SECONDS after this look's work), and no catching up after a stall.
        self._due = max(self._due + TICK_SECONDS, loop.time())
        self._timer = loop.call_at(self._due, self._tick, loop)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
