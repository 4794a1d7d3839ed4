"""The storage interface: the values it reads and writes, its errors, and the methods every
implementation has (:class:`Store`).

Every method blocks; the server runs them in a worker thread (``asyncio.to_thread``) so
the event loop never waits for a disk or a database. Every method is safe to call from
several threads at once.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, Self, TypeVar

from binokel.server.settings import Seat as Seat  # the table's seat, stored as it stands

log = logging.getLogger("binokel.storage")

# A JSON value as the standard library reads and writes it. The store never looks inside
# a payload: it is the table driver's business (a chance step, an action, a snapshot).
JSON = Any


class StorageError(Exception):
    """Base of the storage errors."""


class StorageUnavailable(StorageError):
    """The database cannot be read or written now (disk full, read-only file, PostgreSQL
    down). Nothing was written; the same call may succeed later. The server answers 503."""


class VersionConflict(StorageError):
    """:meth:`Store.append` was given a version that is no longer the game's: someone
    else (another command, another process) wrote first. Nothing was written."""

    def __init__(self, game_id: str, expected: int, actual: int) -> None:
        super().__init__(f"game {game_id} is at version {actual}, not {expected}")
        self.game_id = game_id
        self.expected = expected
        self.actual = actual


class GameNotFound(StorageError, LookupError):
    """No game has this id (never created, or deleted)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"no game {game_id}")
        self.game_id = game_id


class GameExists(StorageError):
    """:meth:`Store.create` was given an id that is taken."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id} exists")
        self.game_id = game_id


def token_hash(token: str) -> str:
    """What the store keeps of a seat token: its SHA-256, in hex. Tokens are ≥128 random
    bits, so a fast hash suffices (there is nothing to guess); a stolen database gives no
    seat away.

    >>> token_hash("abc")[:16]
    'ba7816bf8f01cfea'
    """
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Status:
    """What the lists show of a game, updated with each append: the totals, the number of
    deals, whether the game is over, and whose turn it is (None between deals or at the end)."""

    totals: tuple[int, ...] = ()
    deals: int = 0
    over: bool = False
    turn: int | None = None


NEW_STATUS = Status()
"""A new game's status until the driver says otherwise."""


@dataclass(frozen=True)
class GameInfo:
    """A game's metadata, without its log: what the lists return."""

    id: str
    created: str
    updated: str
    rules: str
    settings: dict[str, Any]
    seed: int
    first_dealer: int
    seats: tuple[Seat, ...]
    public: bool
    version: int
    totals: tuple[int, ...]
    deals: int
    over: bool
    turn: int | None

    @property
    def free_seats(self) -> int:
        return sum(seat.is_free for seat in self.seats)


@dataclass(frozen=True)
class Entry:
    """One entry of a game's log: the version it made, and its payload."""

    version: int
    payload: JSON


@dataclass(frozen=True)
class Snapshot:
    """The whole state of a game at ``version`` (after the entry of that version), so that a
    long game need not be replayed from its first entry."""

    version: int
    payload: JSON


@dataclass(frozen=True)
class StoredGame:
    """A loaded game: its metadata, the snapshot the entries start from (None when they
    start at the beginning), and the entries after it, in order."""

    info: GameInfo
    snapshot: Snapshot | None
    entries: tuple[Entry, ...] = field(default=())


@dataclass(frozen=True)
class Change:
    """A change notification: game ``game_id`` reached ``version``. ``entries``: the log
    entries that made it (versions ``version - len(entries) + 1 … version``) when the
    notification could carry them, so a listener need not read them back; None when it
    could not (too long for PostgreSQL's NOTIFY) or the change is not of the log (presence,
    chat, a deletion). A Change with ``game_id`` None means notifications may have been lost
    (the listening connection was re-established): re-read every game you follow."""

    game_id: str | None
    version: int | None
    entries: tuple[JSON, ...] | None = None


Listener = Callable[[Change], None]

CARRIED = 7900
"""The longest notification text that carries its entries (PostgreSQL refuses a NOTIFY
payload of 8000 bytes or more); a longer one says only ``game_id:version``."""


def change_text(game_id: str, version: int, entries: Sequence[JSON] | None = None, *,
                entries_text: str | None = None) -> str:
    """A notification's payload: ``game_id:version``, or with the entries a JSON object
    (``entries_text``: the entries already as JSON text, ``dumps(list(entries))``).

    >>> change_text("g1", 12), change_text("g1", 12, [{"a": 1}])
    ('g1:12', '{"g":"g1","v":12,"e":[{"a":1}]}')
    >>> change_text("g1", 12, [{"pad": "x" * CARRIED}])
    'g1:12'
    """
    if entries:
        text = f'{{"g":{dumps(game_id)},"v":{int(version)},"e":{entries_text or dumps(list(entries))}}}'
        if len(text.encode()) <= CARRIED:
            return text
    return f"{game_id}:{version}"


def parse_change(text: str) -> Change | None:
    """A notification's payload (:func:`change_text`); None for anything else (the channel
    is shared with whoever else may send on it).

    >>> parse_change("g1:12"), parse_change("junk")
    (Change(game_id='g1', version=12, entries=None), None)
    >>> parse_change('{"g":"g1","v":12,"e":[{"a":1}]}')
    Change(game_id='g1', version=12, entries=({'a': 1},))
    """
    if text.startswith("{"):
        try:
            data = json.loads(text)
            game_id, version, entries = data["g"], data["v"], data["e"]
        except (ValueError, TypeError, KeyError):
            return None
        if not isinstance(game_id, str) or not isinstance(version, int) or not isinstance(entries, list):
            return None
        return Change(game_id, version, tuple(entries))
    game_id, _, version = text.rpartition(":")
    if not game_id or not version.isascii() or not version.isdigit():
        return None
    return Change(game_id, int(version))


HEAD = re.compile(r'\{"g":("(?:[^"\\]|\\.)*"),"v":(\d+),')
"""The start of a notification that carries its entries: the game and the version."""


def change_head(text: str) -> tuple[str, int] | None:
    """The game and the version a notification's payload names, without reading the entries
    it carries (None for anything else).

    >>> change_head('{"g":"g1","v":12,"e":[{"a":1}]}'), change_head("g1:12"), change_head("junk")
    (('g1', 12), ('g1', 12), None)
    """
    found = HEAD.match(text)
    if found is not None:
        game_id = json.loads(found[1])
        return (game_id, int(found[2])) if isinstance(game_id, str) else None
    change = None if text.startswith("{") else parse_change(text)
    return (change.game_id, change.version) if change is not None and change.game_id is not None \
        and change.version is not None else None


Wants = Callable[[str, int], bool]
"""Does a listener want to hear that a game (its id) is at a version? Asked once a change, in
the thread that delivers it, before its entries are read."""


class Subscription:
    """A registered listener (``wants``: the changes it hears of; None: all); :meth:`close` stops it."""

    def __init__(self, hub: Notifier, listener: Listener, wants: Wants | None = None) -> None:
        self._hub = hub
        self.listener = listener
        self.wants = wants

    def close(self) -> None:
        self._hub.remove(self)


class Notifier(ABC):
    """Delivers change notifications to listeners, in this process or in every process.

    Listeners are called from a background thread (or, in-process, from the thread that
    wrote); they must be quick and thread-safe — an asyncio server hands the change to its
    loop with ``loop.call_soon_threadsafe``. A listener subscribed with ``wants`` hears only
    of the changes it wants (and of lost notifications): a process that holds some of the
    tables is spared the others' changes and its own steps coming back, their entries not
    even read.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscriptions: list[Subscription] = []

    def subscribe(self, listener: Listener, wants: Wants | None = None) -> Subscription:
        with self._lock:
            subscription = Subscription(self, listener, wants)
            self._subscriptions.append(subscription)
            first = len(self._subscriptions) == 1
        if first:
            self._start()
        return subscription

    def remove(self, subscription: Subscription) -> None:
        with self._lock:
            if subscription in self._subscriptions:
                self._subscriptions.remove(subscription)

    def deliver(self, change: Change) -> None:
        """Call every listener that wants the change (one that raises is logged and skipped)."""
        game_id, version = change.game_id, change.version
        self._tell(change, self._wanting(None if game_id is None or version is None else (game_id, version)))

    def hear(self, text: str) -> None:
        """A payload from the channel: delivered to the listeners that want the change (its
        entries are read only if one does)."""
        head = change_head(text)
        if head is None:
            return
        wanting = self._wanting(head)
        change = parse_change(text) if wanting else None
        if change is not None:
            self._tell(change, wanting)

    def _wanting(self, head: tuple[str, int] | None) -> list[Subscription]:
        """The subscriptions that want the change of ``head`` (None: every one), each asked once."""
        with self._lock:
            subscriptions = list(self._subscriptions)
        if head is None:
            return subscriptions
        return [s for s in subscriptions if s.wants is None or s.wants(*head)]

    @staticmethod
    def _tell(change: Change, subscriptions: list[Subscription]) -> None:
        for subscription in subscriptions:
            try:
                subscription.listener(change)
            except Exception:
                log.exception("a change listener failed on %s", change)

    @abstractmethod
    def publish(self, game_id: str, version: int, entries: Sequence[JSON] | None = None) -> None:
        """Tell every listener (of every process, where the notifier reaches that far), with
        the entries that made ``version`` where they fit (:func:`change_text`)."""

    def _start(self) -> None:  # noqa: B027 - a hook: a notifier that needs no listener keeps it empty
        """Start listening (called at the first subscription)."""

    def close(self) -> None:
        with self._lock:
            self._subscriptions.clear()


class LocalNotifier(Notifier):
    """Notification within one process (the SQLite default): publish calls the listeners
    at once, in the publishing thread.

    >>> hub = LocalNotifier()
    >>> heard = []
    >>> subscription = hub.subscribe(heard.append)
    >>> hub.publish("g1", 3, [{"a": 1}])
    >>> heard
    [Change(game_id='g1', version=3, entries=({'a': 1},))]
    """

    def publish(self, game_id: str, version: int, entries: Sequence[JSON] | None = None) -> None:
        self.deliver(Change(game_id, version, tuple(entries) if entries else None))


ORDER = " ORDER BY over ASC, updated DESC, id ASC"
"""The order of the lists: unfinished games first, then the most recently updated."""

Statement = tuple[str, Sequence[Any]]
"""SQL with ``?`` placeholders and its parameters: the form :meth:`Store.execute` and
:meth:`Store.query` take, the same for both databases (see :mod:`.presence`, :mod:`.chat`,
:mod:`.invites`)."""


class Store(ABC):
    """The games database (see the package docstring for the whole contract): ten methods.

    Seven for the games — :meth:`create`, :meth:`append`, :meth:`load`, :meth:`games`,
    :meth:`delete`, :meth:`held` and :meth:`notify` — and two through which the small
    tables that truly need their own rows (invite codes, presence, chat: modules of this
    package, each written once for both databases) read and write: :meth:`execute` and
    :meth:`query`; and :meth:`close`. :meth:`games` is written once, here; an
    implementation writes the other nine (and ``_infos``, the rows of a :meth:`games` query).

    Implementations: :class:`binokel.server.storage.sqlite.SQLiteStore` and
    :class:`binokel.server.storage.postgres.PostgresStore`; :func:`open_store` picks one.
    """

    notifier: Notifier
    clock: str
    """SQL for the database's clock in Unix seconds (presence ages are measured against one
    clock, so the machines' clocks need not agree)."""

    @abstractmethod
    def create(self, game_id: str, *, rules: str, settings: dict[str, Any], seed: int, first_dealer: int,
               seats: Sequence[Seat], public: bool = False, status: Status = NEW_STATUS,
               entries: Sequence[JSON] = (), snapshot: JSON | None = None) -> GameInfo:
        """Store a new game with its first entries (versions 1…n; the game's version is n)
        and optionally a snapshot at version n. Raise GameExists if the id is taken."""

    @abstractmethod
    def append(self, game_id: str, expected_version: int, entries: Sequence[JSON], *,
               status: Status | None = None, seats: Sequence[Seat] | None = None,
               snapshot: JSON | None = None) -> int:
        """Add ``entries`` at versions expected_version+1 … and return the new version —
        only if the game is at ``expected_version`` (else VersionConflict; GameNotFound if
        it is gone). The metadata (``status``, ``seats``, the time of the update) change in
        the same transaction; ``snapshot`` is the state after the last entry. Durable on
        return; listeners hear of the new version after the commit. With no entries it is a
        metadata change (e.g. a seat taken) at the same version, checked all the same."""

    def append_soon(self, game_id: str, expected_version: int, entries: Sequence[JSON], *,
                    tell: Callable[[list[Pending]], None], waiter: Any, status: Status | None = None,
                    seats: Sequence[Seat] | None = None, snapshot: JSON | None = None) -> bool:
        """Start :meth:`append` and return at once, True; once written, ``tell`` is called
        (from another thread) with the written requests, whose ``waiter`` is ``waiter`` and
        ``outcome()`` the new version or the error. False: this store cannot (the caller
        calls ``append`` in a thread)."""
        return False

    @abstractmethod
    def load(self, game_id: str, *, after: int | None = None, from_snapshot: bool = True) -> StoredGame | None:
        """A game, or None. ``after``: its metadata and the entries with a version above
        ``after``, in order, no snapshot (catching up after a notification; a migrated game's
        log starts after its snapshot: check that the first version is ``after + 1``).
        Otherwise ``from_snapshot``: the latest snapshot and the entries after it (the quick
        way to rebuild a game); or the whole log: every entry, on top of the snapshot it
        starts from (only a game migrated from the old format has one)."""

    def games(self, ids: Iterable[str] | None = None, *, lobby: bool = False,
              limit: int | None = None) -> list[GameInfo]:
        """Metadata, without logs. ``ids``: the games among them that exist (a browser's own,
        or one game's); ``lobby``: the public unfinished games with a free seat, the most
        recently updated first; neither: every game (administration). Except for the lobby,
        unfinished first, then the most recently updated first. At most ``limit``."""
        values: list[Any] = []
        if ids is not None:
            wanted = sorted(set(ids))
            if not wanted:
                return []
            sql, values = f"SELECT * FROM games WHERE id IN ({placeholders(len(wanted))})" + ORDER, wanted
        elif lobby:
            sql = "SELECT * FROM games WHERE public AND free_seats > 0 AND NOT over ORDER BY updated DESC, id ASC"
        else:
            sql = "SELECT * FROM games" + ORDER
        if limit is not None:
            sql, values = sql + " LIMIT ?", [*values, limit]
        return self._infos(sql, values)

    @abstractmethod
    def _infos(self, sql: str, values: Sequence[Any]) -> list[GameInfo]:
        """The games whose rows a query of ``games`` (``?`` placeholders) selects."""

    @abstractmethod
    def delete(self, game_id: str) -> bool:
        """Delete a game with its log, invites, presence and chat; False if there was none."""

    @abstractmethod
    def held(self, token_hashes: Sequence[str]) -> list[tuple[str, int]]:
        """The (game id, seat) pairs whose seat token has one of these digests (seat -1: a
        creator who does not sit at the table, an invites row). A scan of the seats: fine for
        thousands of games, an index for millions is a later migration."""

    @abstractmethod
    def execute(self, statements: Sequence[Statement]) -> None:
        """Run these writes in one transaction, durable on return (StorageUnavailable: none
        of them was written)."""

    @abstractmethod
    def query(self, sql: str, parameters: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows of one read."""

    def notify(self, game_id: str, version: int) -> None:
        """Tell every listener (``store.notifier.subscribe``) that a game changed: append does
        it by itself; this is for changes outside the log (presence, chat, a deletion)."""
        self.notifier.publish(game_id, version)

    @abstractmethod
    def close(self) -> None:
        """Release connections and stop listening."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Pending:
    """One write waiting for its batch (:class:`GroupCommit`): done once its batch was
    written, with its result or its error."""

    __slots__ = ("done", "error", "game_id", "result", "tell", "waiter")

    def __init__(self, game_id: str | None = None) -> None:
        self.game_id = game_id  # the game written (None: a write of no one game)
        self.done = False
        self.result: Any = None
        self.error: BaseException | None = None
        # Submitted without a waiting thread (GroupCommit.submit): called with the requests of
        # its batch that have the same ``tell`` once they are written, to settle their ``waiter``.
        self.tell: Callable[[list[Any]], None] | None = None
        self.waiter: Any = None

    def outcome(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.result


P = TypeVar("P", bound=Pending)


class Gather:
    """When a batch's first write waits for other games' writes to join it: while several
    games write often (the last batch, another game's, was written less than ``often``
    seconds ago) it waits ``seconds``, so one transaction and one wake of the loop serve
    several steps instead of one each; a game alone (bots playing at once) never waits.

    >>> gather = Gather(0.001, 60.0)
    >>> gather.due("a"), gather.committed("a"), gather.due("a"), gather.due("b")
    (False, None, False, True)
    """

    def __init__(self, seconds: float, often: float) -> None:
        self.seconds = seconds  # 0: every batch is written at once
        self.often = often
        self._at = float("-inf")  # when the last batch was written (time.monotonic)
        self._game: str | None = None  # the game of its last write

    def due(self, game_id: str | None) -> bool:
        """Does a batch whose first write is of ``game_id`` wait?"""
        return self.seconds > 0 and game_id is not None and game_id != self._game \
            and time.monotonic() - self._at < self.often

    def committed(self, game_id: str | None) -> None:
        """A batch was written, its last write of ``game_id``."""
        self._at, self._game = time.monotonic(), game_id


class GroupCommit(Generic[P]):
    """Writes that arrive while another batch is being written queue up, and the first of
    their threads to get the turn writes all of them together (``write(batch)`` sets each
    one's result or error; one transaction, one wait for the disk for the lot). With ``key``,
    a batch takes one write per key (a game's next append waits for the next batch).

    A request may also be :meth:`submit`-ted with no thread waiting for it: the group's own
    writer thread writes it with the next batch and then calls its ``tell``.

    >>> batches = []
    >>> group = GroupCommit(batches.append)
    >>> request = Pending()
    >>> group.run(request)
    >>> request.done, len(batches)
    (True, 1)
    """

    def __init__(self, write: Callable[[list[P]], None], key: Callable[[P], Hashable] | None = None, *,
                 gather: Gather | None = None) -> None:
        self._write = write
        self._key = key
        self.gather = gather  # when the thread that took the turn waits for more writes to join
        self._turn = threading.Condition()
        self.queue: list[P] = []
        self._writing = False
        self._writer: threading.Thread | None = None
        self._closed = False

    def run(self, request: P) -> None:
        """Queue ``request`` and return once a batch holding it was written (by this thread
        or another)."""
        with self._turn:
            self.queue.append(request)
        while True:
            with self._turn:
                while not request.done and self._writing:
                    self._turn.wait()  # another thread is writing; its next batch may take this along
                if request.done:
                    return
                self._writing = True  # this thread writes the next batch
            self._write_batch(self._take_batch())

    @property
    def writing(self) -> bool:
        """Is a batch being written (or gathered) now?"""
        return self._writing

    def submit(self, request: P) -> None:
        """Queue ``request`` (its ``tell`` set) and return at once. The group's writer thread
        (started at the first submit) writes it with the next batch and then calls ``tell``
        once for all the batch's requests with an equal ``tell`` (so one event loop is woken
        once a batch, not once a request). No thread waits for it meanwhile: a batch may hold
        every request that came while the last one was written, however many."""
        with self._turn:
            if self._closed:
                raise RuntimeError("the group commit is closed")
            self.queue.append(request)
            if self._writer is None:
                self._writer = threading.Thread(target=self._write_submitted, name="binokel-group-commit",
                                                daemon=True)
                self._writer.start()
            self._turn.notify_all()

    def close(self) -> None:
        """Stop the writer thread once the requests submitted are written."""
        with self._turn:
            self._closed = True
            self._turn.notify_all()
            writer = self._writer
        if writer is not None and writer is not threading.current_thread():
            writer.join(timeout=10.0)

    def _write_submitted(self) -> None:
        """The writer thread: write a batch whenever a submitted request waits and nobody writes."""
        while True:
            with self._turn:
                while self._writing or not any(pending.tell is not None for pending in self.queue):
                    if self._closed and not self._writing:
                        return
                    self._turn.wait()
                self._writing = True
            self._write_batch(self._take_batch())

    def _write_batch(self, batch: list[P]) -> None:
        """Write ``batch`` (the caller took the turn), mark it done, wake the waiting threads and
        tell the submitted requests."""
        stop: BaseException | None = None
        try:
            self._write(batch)
            if self.gather is not None:
                self.gather.committed(batch[-1].game_id)
        except BaseException as error:  # noqa: BLE001 - the batch failed as a whole (a stop is raised again below)
            for pending in batch:
                pending.error = pending.error or error
            if not isinstance(error, Exception):
                stop = error
        finally:
            with self._turn:
                for pending in batch:
                    pending.done = True
                self._writing = False
                self._turn.notify_all()
        told: dict[Callable[[list[Any]], None], list[P]] = {}
        for pending in batch:
            if pending.tell is not None:
                told.setdefault(pending.tell, []).append(pending)
        for tell, requests in told.items():
            try:
                tell(requests)
            except Exception:
                log.exception("telling %d appends their outcome failed", len(requests))
        if stop is not None and threading.current_thread() is not self._writer:
            raise stop

    def _take_batch(self) -> list[P]:
        """The next batch, taken by the thread that has the turn (after the gather's wait)."""
        if self.gather is not None:
            with self._turn:
                first = self.queue[0] if self.queue else None
            if first is not None and self.gather.due(first.game_id):
                time.sleep(self.gather.seconds)  # the writes that arrive meanwhile join this batch
        with self._turn:
            return self._take()

    def _take(self) -> list[P]:
        """The next batch, in arrival order (the caller holds the turn)."""
        batch: list[P] = []
        rest: list[P] = []
        if self._key is None:
            batch, self.queue = self.queue, rest
            return batch
        keys: set[Hashable] = set()
        for pending in self.queue:
            key = self._key(pending)
            (rest if key in keys else batch).append(pending)
            keys.add(key)
        self.queue = rest
        return batch


def placeholders(count: int) -> str:
    """``?, ?, …`` for an ``IN (…)`` of ``count`` values.

    >>> placeholders(3)
    '?, ?, ?'
    """
    return ", ".join("?" * count)


def now(timespec: str = "milliseconds") -> str:
    """The time of a change, as stored: UTC, ISO 8601, milliseconds (a score pad's or a
    club's entry: ``"seconds"``)."""
    return datetime.now(UTC).isoformat(timespec=timespec)


def dumps(value: JSON) -> str:
    """JSON text as stored: compact, UTF-8 kept as is; NaN and infinities are refused
    (ValueError) as PostgreSQL would refuse them, so both stores take the same payloads."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def check_seats(seats: Sequence[Seat]) -> tuple[Seat, ...]:
    if not seats or not all(isinstance(seat, Seat) for seat in seats):
        raise ValueError("a game needs its seats (Seat values)")
    return tuple(seats)
