"""The server's limits, in one place, and the token bucket that enforces the rates.

Every limit gives a clear error and changes nothing (see ``docs/server.md``). The
hardening issue builds on these: the numbers are settings of :class:`Limits`.

>>> bucket = Bucket(rate=1.0, burst=2, now=0.0)
>>> [bucket.take(0.0), bucket.take(0.0), bucket.take(0.0), bucket.take(1.0)]
[True, True, False, True]
"""

from __future__ import annotations

import functools
import ipaddress
import os
import time
from collections import Counter, OrderedDict
from dataclasses import dataclass, field


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
    queue_bytes: int = 1024 * 1024  # ... or this many bytes of them
    tabs_per_seat: int = 8  # connections holding one seat (a person's tabs and devices)
    spectators_per_table: int = 30  # watchers without a seat; the seats' room is never theirs
    spectators_per_address: int = 10  # watchers from one client address, over all tables
    connections_per_address: int = 60  # websockets from one client address, over all tables
    http_connections_per_address: int = 100  # TCP connections from one client address (websockets included)
    events_versions: int = 500  # the most versions one "events" request (or a hello) may ask to be sent again
    events_per_minute: int = 30  # "events" requests per connection
    tables_per_minute: int = 20  # new tables (and rematches) per client address
    joins_per_minute: int = 30  # join attempts (codes tried) per client address
    failed_codes_per_minute: int = 60  # wrong invite codes from everybody together; beyond it short codes wait
    chat_chars: int = 200  # one chat line
    chat_per_10_seconds: int = 5  # chat lines per connection
    chat_kept: int = 50  # the last lines a newcomer sees
    presence_seconds: float = 1.0  # spectators coming and going are told to a table at most this often
    tokens_per_request: int = 50  # "your games": tokens one browser may ask about at once
    hello_seconds: float = 10.0  # a new connection must say hello within this time
    head_seconds: float = 10.0  # an HTTP request's line and headers must arrive within this time
    head_bytes: int = 16 * 1024  # an HTTP request's line and headers; 431 beyond
    body_seconds: float = 10.0  # an HTTP body may take this long, then must have come at least ...
    body_bytes_per_second: int = 4096  # ... this fast on average, else the connection is closed (408)
    # A creator-chosen seed at a table with seats for people: off (the chooser would know every
    # friend's hand); the tests, which replay fixed deals with friends, set BINOKEL_SEEDS_WITH_FRIENDS=1.
    seeds_with_friends: bool = field(default_factory=lambda: os.environ.get("BINOKEL_SEEDS_WITH_FRIENDS") == "1")

    # -- scheduling and faults (server/pool.py, docs/server.md "Scheduling and faults")
    pool: str = "process"  # where bots and hints think: "process" (every core) or "thread"
    pool_workers: int = 0  # searches at once (0: one per core)
    hints_per_minute: int = 6  # per seat at a table (all its tabs), besides one hint at a time
    hint_seconds: float = 5.0  # a hint not worked out within this time is refused (hints_busy)
    reviews_per_minute: int = 20  # deal reviews and bidding advice per client address (advice: once per auction turn)
    table_reviews_per_minute: int = 40  # ... and per table (an uploaded record: per address)
    review_seconds: float = 30.0  # a review not worked out within this time is refused (reviews_busy)
    review_slots: int = 1  # pool slots reviews may hold at once (bot moves and hints keep the others)
    save_retry_seconds: float = 5.0  # the longest pause between tries to save a bot move
    outage_calm_seconds: float = 5.0  # a write outage ends with a write this long after the last refused one
    # A table nobody watches here, with no search in flight, leaves this process's memory: with
    # several processes another may be serving it, and holding it here would only repeat that
    # work (and its bots' thinking); it is loaded from the store when somebody connects here.
    idle_seconds: float = 20.0
    tables_in_memory: int = 2000  # beyond this, the tables watched least recently leave first


class Bucket:
    """A token bucket: ``rate`` per second on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: int, now: float | None = None) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = time.monotonic() if now is None else now

    def ready(self, now: float | None = None) -> bool:
        """Is there a token to spend (none is spent)?"""
        now = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        return self.tokens >= 1

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


class AddressBuckets(KeyedBuckets):
    """One bucket per client address, keyed by :func:`address_key` (IPv6: per /64).

    >>> buckets = AddressBuckets(rate=0.0, burst=1)
    >>> buckets.take("2001:db8::1"), buckets.take("2001:db8::2"), buckets.take("2001:db8:0:1::1")
    (True, False, True)
    """

    def take(self, key: str, now: float | None = None) -> bool:
        return super().take(address_key(key), now)


@functools.lru_cache(maxsize=4096)  # parsed once per address, not once per message
def address_key(address: str) -> str:
    """The key of a client address for the per-address quotas: an IPv4 address itself, an
    IPv6 address its /64 network (one subscriber gets a whole /64 and may use any address
    of it); anything else (a test client's name) itself.

    >>> address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:ffff::9")
    True
    >>> address_key("2001:db8:1:3::1"), address_key("10.0.0.1"), address_key("::ffff:10.0.0.1")
    ('2001:db8:1:3::/64', '10.0.0.1', '10.0.0.1')
    """
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, 64), strict=False))
    return str(parsed)


class Counted:
    """How many of something each key holds open, at most ``most`` each.

    >>> held = Counted(1)
    >>> held.add("a"), held.add("a"), held.add("b")
    (True, False, True)
    >>> held.remove("a"); held.add("a")
    True
    """

    def __init__(self, most: int) -> None:
        self.most = most
        self.open: Counter[str] = Counter()

    def add(self, key: str) -> bool:
        """Count one more for ``key``; False (not counted) if it holds the most already."""
        if self.open[key] >= self.most:
            return False
        self.open[key] += 1
        return True

    def remove(self, key: str) -> None:
        """One of ``key``'s closed (a key with none left is forgotten)."""
        self.open[key] -= 1
        if self.open[key] <= 0:
            del self.open[key]


class Quotas:
    """The per-address budgets of one server process: new tables (and rematches), joins,
    websocket messages, the websockets (and the spectators among them) each address holds
    open, deal reviews; and the one budget of everybody together: wrong invite codes.
    Addresses are keyed by :func:`address_key` (IPv6 by its /64).

    >>> quotas = Quotas(Limits(connections_per_address=1))
    >>> quotas.connect("10.0.0.1"), quotas.connect("10.0.0.1"), quotas.connect("10.0.0.2")
    (True, False, True)
    >>> quotas.disconnect("10.0.0.1"); quotas.connect("10.0.0.1")
    True
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.tables = AddressBuckets(limits.tables_per_minute / 60, limits.tables_per_minute)
        self.joins = AddressBuckets(limits.joins_per_minute / 60, limits.joins_per_minute)
        self.messages = AddressBuckets(limits.address_messages_per_second, limits.address_message_burst)
        self.reviews = AddressBuckets(limits.reviews_per_minute / 60, limits.reviews_per_minute)
        self.table_reviews = KeyedBuckets(limits.table_reviews_per_minute / 60, limits.table_reviews_per_minute)
        # Wrong codes from every address together: rotating addresses do not multiply it
        # (docs/server.md, "Invite codes against guessing", has the arithmetic).
        self.failed_codes = Bucket(limits.failed_codes_per_minute / 60, limits.failed_codes_per_minute)
        self.websockets = Counted(limits.connections_per_address)
        self.spectators = Counted(limits.spectators_per_address)

    @property
    def open(self) -> Counter[str]:
        return self.websockets.open

    def connect(self, address: str) -> bool:
        """Count a new websocket of ``address``; False (not counted) if it holds the most already."""
        return self.websockets.add(address_key(address))

    def disconnect(self, address: str) -> None:
        """A websocket of ``address`` closed."""
        self.websockets.remove(address_key(address))
