"""The server's limits, in one place, and the token bucket that enforces the rates.

Every limit gives a clear error and changes nothing (see ``docs/server.md``). The
hardening issue builds on these: the numbers are settings of :class:`Limits`.

>>> bucket = Bucket(rate=1.0, burst=2, now=0.0)
>>> [bucket.take(0.0), bucket.take(0.0), bucket.take(0.0), bucket.take(1.0)]
[True, True, False, True]
"""

from __future__ import annotations

import time
from collections import Counter, OrderedDict
from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Bounds on what one client may ask of the server (docs/server.md, "Security", lists
    them all with their defaults; a test checks that it does)."""

    message_bytes: int = 16 * 1024  # one websocket message, and the body of a small JSON request
    frame_bytes: int = 64 * 1024  # one websocket frame at the transport (uvicorn ws_max_size): closed 1009 beyond
    body_bytes: int = 512 * 1024  # any HTTP request body (the largest: a record to review); 413 beyond
    messages_per_second: float = 20.0  # per connection, on average ...
    message_burst: int = 60  # ... with this many at once
    address_messages_per_second: float = 100.0  # per client address, all its connections together ...
    address_message_burst: int = 300  # ... with this many at once
    queue_messages: int = 256  # messages waiting for one connection; a client that far behind is dropped (4408)
    connections_per_table: int = 40  # people, their extra tabs and spectators together
    connections_per_address: int = 60  # websockets from one client address, over all tables
    tables_per_minute: int = 20  # new tables (and rematches) per client address
    joins_per_minute: int = 30  # join attempts (codes tried) per client address
    chat_chars: int = 200  # one chat line
    chat_per_10_seconds: int = 5  # chat lines per connection
    chat_kept: int = 50  # the last lines a newcomer sees
    tokens_per_request: int = 50  # "your games": tokens one browser may ask about at once
    hello_seconds: float = 10.0  # a new connection must say hello within this time
    head_seconds: float = 10.0  # an HTTP request's line and headers must arrive within this time

    # -- scheduling and faults (issue 12; server/pool.py, docs/server.md "Scheduling and faults")
    pool: str = "process"  # where bots and hints think: "process" (every core) or "thread"
    pool_workers: int = 0  # searches at once (0: one per core)
    hints_per_minute: int = 6  # per seat at a table (all its tabs), besides one hint at a time
    hint_seconds: float = 5.0  # a hint not worked out within this time is refused (hints_busy)
    save_retry_seconds: float = 5.0  # the longest pause between tries to save a bot move
    idle_seconds: float = 20.0  # a table nobody watches here, with no search in flight, leaves memory
    tables_in_memory: int = 2000  # beyond this, the tables watched least recently leave first


class Bucket:
    """A token bucket: ``rate`` per second on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: int, now: float | None = None) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = time.monotonic() if now is None else now

    def take(self, now: float | None = None) -> bool:
        """Spend one token if there is one; False means over the limit."""
        now = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class KeyedBuckets:
    """One bucket per key (a client address), the least recently used forgotten beyond ``size``.

    >>> buckets = KeyedBuckets(rate=0.0, burst=1)
    >>> buckets.take("a"), buckets.take("a"), buckets.take("b")
    (True, False, True)
    """

    def __init__(self, rate: float, burst: int, size: int = 10_000) -> None:
        self.rate = rate
        self.burst = burst
        self.size = size
        self.buckets: OrderedDict[str, Bucket] = OrderedDict()

    def take(self, key: str, now: float | None = None) -> bool:
        bucket = self.buckets.pop(key, None) or Bucket(self.rate, self.burst, now)
        self.buckets[key] = bucket
        while len(self.buckets) > self.size:
            self.buckets.popitem(last=False)
        return bucket.take(now)


class Quotas:
    """The per-address budgets of one server process: new tables (and rematches), joins,
    websocket messages, and the websockets each address holds open.

    >>> quotas = Quotas(Limits(connections_per_address=1))
    >>> quotas.connect("10.0.0.1"), quotas.connect("10.0.0.1"), quotas.connect("10.0.0.2")
    (True, False, True)
    >>> quotas.disconnect("10.0.0.1"); quotas.connect("10.0.0.1")
    True
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.tables = KeyedBuckets(limits.tables_per_minute / 60, limits.tables_per_minute)
        self.joins = KeyedBuckets(limits.joins_per_minute / 60, limits.joins_per_minute)
        self.messages = KeyedBuckets(limits.address_messages_per_second, limits.address_message_burst)
        self.open: Counter[str] = Counter()

    def connect(self, address: str) -> bool:
        """Count a new websocket of ``address``; False (not counted) if it holds the most already."""
        if self.open[address] >= self.limits.connections_per_address:
            return False
        self.open[address] += 1
        return True

    def disconnect(self, address: str) -> None:
        """A websocket of ``address`` closed (an address with none left is forgotten)."""
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]
