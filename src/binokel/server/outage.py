"""The games database refusing writes (disk full, read-only file, PostgreSQL down), seen
from the server: counted every time, **logged once** when it starts and once when it ends.

A refused write changes nothing (the store's transactions are all or nothing), so the
server answers 503 (``db_unavailable``) to the request, tells nobody of a change, and
retries a bot move with a growing pause (:meth:`binokel.server.runner.StepRunner._store`) until
the database takes writes again — then the line saying so is logged.

>>> import logging
>>> outage = Outage(calm=0.0)
>>> logging.disable(logging.ERROR)
>>> outage.failed("a step of game g1", "disk full"), outage.failed("a new game", "disk full"), outage.down
(True, False, True)
>>> logging.disable(logging.NOTSET)
>>> outage.ok(); outage.down, outage.failures
(False, 0)
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

log = logging.getLogger("binokel.server")


CALM = 5.0
"""Seconds after the last refused write before a write that lands ends the outage (the
default of ``Limits.outage_calm_seconds``): a nearly full disk refuses some writes and takes
others, by turns, and that is one outage, not one per write."""


class Outage:
    """Whether writes fail at the moment, since when, and how many did. An outage ends with
    a write that lands ``calm`` seconds or more after the last refused one."""

    def __init__(self, calm: float = CALM, clock: Callable[[], float] = time.monotonic) -> None:
        self.calm = calm
        self.clock = clock
        self.since: float | None = None
        self.last_failure = 0.0
        self.failures = 0
        self.outages = 0  # how many outages began (for the tests and the metrics page)

    @property
    def down(self) -> bool:
        return self.since is not None

    def failed(self, what: str, error: object) -> bool:
        """A write failed; True if it is the first of an outage (then it is logged)."""
        self.failures += 1
        self.last_failure = self.clock()
        if self.since is not None:
            return False
        self.since = self.last_failure
        self.outages += 1
        log.error("the games database refuses writes (%s: %s); requests get 503 and bot moves are retried "
                  "until it works again", what, error)
        return True

    def ok(self) -> None:
        """A write landed: the outage (if any) is over, unless a write was refused within ``calm``."""
        if self.since is None or self.clock() - self.last_failure < self.calm:
            return
        log.warning("the games database takes writes again after %.1f s (%d writes refused meanwhile)",
                    self.clock() - self.since, self.failures)
        self.since = None
        self.failures = 0
