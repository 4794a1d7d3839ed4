"""The games database refusing writes (disk full, read-only file, PostgreSQL down), seen
from the server: counted every time, **logged once** when it starts and once when it ends.

A refused write changes nothing (the store's transactions are all or nothing), so the
server answers 503 (``db_unavailable``) to the request, tells nobody of a change, and
retries a bot move with a growing pause (:meth:`binokel.server.table.Table._move`) until
the database takes writes again — then the line saying so is logged.

>>> import logging
>>> outage = Outage()
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

log = logging.getLogger("binokel.server")


class Outage:
    """Whether writes fail at the moment, since when, and how many did."""

    def __init__(self) -> None:
        self.since: float | None = None
        self.failures = 0
        self.outages = 0  # how many outages began (for the tests and the metrics page)

    @property
    def down(self) -> bool:
        return self.since is not None

    def failed(self, what: str, error: object) -> bool:
        """A write failed; True if it is the first of an outage (then it is logged)."""
        self.failures += 1
        if self.since is not None:
            return False
        self.since = time.monotonic()
        self.outages += 1
        log.error("the games database refuses writes (%s: %s); requests get 503 and bot moves are retried "
                  "until it works again", what, error)
        return True

    def ok(self) -> None:
        """A write landed: the outage (if any) is over."""
        if self.since is None:
            return
        log.warning("the games database takes writes again after %.1f s (%d writes refused meanwhile)",
                    time.monotonic() - self.since, self.failures)
        self.since = None
        self.failures = 0
