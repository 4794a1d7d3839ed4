"""Root parallelism: the sampled worlds of one decision, evaluated in several processes.

A search bot (hard, expert) decides in two steps: it evaluates sampled worlds into
per-candidate sums (a *tally*: :class:`~binokel.ai.bots.Tally`, or the bidding's
:class:`~binokel.ai.bots.SoloistSimulation`), then chooses from the sums. With
``JOBS = n > 1`` :func:`evaluate` splits the first step into ``n`` *shares*: each share
samples its own worlds from a seed drawn from the decision's random generator, the
parent evaluates the first share itself while ``n - 1`` worker processes evaluate the
others, and the tallies are added in share order. Every share is as large as the whole
search at ``JOBS = 1`` and has the same clock deadline, so ``n`` processes evaluate about
``n`` times the worlds in the same time. The same seed and ``JOBS`` give the same decision
unless the deadline cuts a share short; adding the tallies of :func:`shares` evaluated one
after the other gives exactly the parallel result (``tests/test_ai_parallel.py``).

What crosses to a worker is plain data: the bot's level and the options set on it, the
name of the tally method, the seat's view as JSON (bots get views, never states), the
share's seed, its number of worlds, the time left and the decision's plain-data arguments
(the endgame's node limit); the tally comes back pickled. The workers are one small pool
per process, started at the first parallel decision (``forkserver`` where there is one,
else ``spawn``), closed at interpreter exit; a worker exits by itself when the process that
started it is gone. A bot stays serial in a daemonic process (which may not have children,
e.g. a server's worker) and inside a worker of this pool.

>>> import random
>>> shares(random.Random(1), 2) == shares(random.Random(1), 2)
True
"""

from __future__ import annotations

import atexit
import concurrent.futures
import contextlib
import logging
import math
import multiprocessing
import os
import random
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from binokel.view import SeatView

log = logging.getLogger("binokel.ai")

MAX_JOBS = 8
"""The most processes one decision uses, whatever ``JOBS`` says (``binokel play`` asks for every core)."""
GRACE = 2.0
"""Seconds past a decision's deadline the parent waits for a worker's share before giving up on it."""
WATCH_SECONDS = 0.5
"""How often a worker process looks whether the process that started it is still there."""


class Summable(Protocol):
    """A tally of worlds: tallies of disjoint sets of worlds add up."""

    def __add__(self, other: Any, /) -> Any: ...

    @property
    def worlds(self) -> int:
        """How many worlds were evaluated."""


T = TypeVar("T", bound=Summable)
P = ParamSpec("P")


class Searcher(Protocol):
    """What :func:`evaluate` needs of a bot: its level name, its ``JOBS``, and
    ``share(method, view, rng, count, deadline)``: one share's tally by the named method."""

    name: str
    JOBS: int

    def share(self, method: str, view: SeatView, rng: random.Random, count: int, deadline: float, *args: Any,
              **kwargs: Any) -> Any: ...


Tallier = Callable[Concatenate[SeatView, random.Random, int, float, P], T]
"""A bot's method that evaluates ``count`` worlds sampled with ``rng`` by a clock ``deadline``
(and, after those, any plain-data arguments of the decision)."""


_rebuildable: dict[str, type[Searcher]] = {}
"""The search levels a worker rebuilds from their names (filled by :func:`rebuildable` as
the bots' module is imported: the fork server preloads it, a spawned worker imports it
with this module's package)."""

L = TypeVar("L", bound=Searcher)


def rebuildable(level: type[L]) -> type[L]:
    """Class decorator: ``level()`` with the options of :func:`options_of` set on it is the
    bot a worker evaluates a share with (a class whose instances carry more, such as the
    oracle's clairvoyant search, stays serial)."""
    _rebuildable[level.name] = level
    return level


def jobs_of(bot: Searcher) -> int:
    """How many processes ``bot`` may use for one decision: its ``JOBS``, capped at
    :data:`MAX_JOBS`, and 1 in a daemonic process, in a worker of this pool, or for a bot
    that is not exactly a :func:`rebuildable` level (a test's subclass, the oracle's
    clairvoyant search: a worker could not rebuild it from its level)."""
    jobs = min(MAX_JOBS, int(getattr(bot, "JOBS", 1)))
    if jobs <= 1 or _in_worker or multiprocessing.current_process().daemon:
        return 1
    return jobs if _rebuildable.get(bot.name) is type(bot) else 1


def shares(rng: random.Random, jobs: int) -> list[int]:
    """The seeds of a decision's ``jobs`` shares, drawn from its generator (one job samples
    with the generator itself: exactly the serial search)."""
    return [rng.getrandbits(64) for _ in range(jobs)]


def options_of(bot: object) -> dict[str, int | float]:
    """The tuning constants set on ``bot`` itself (``expert:made_share=0.6`` in a tournament);
    ``JOBS`` is left out: a worker's share is serial."""
    return {key: value for key, value in vars(bot).items()
            if key.isupper() and key != "JOBS" and isinstance(value, (int, float))}


def evaluate(bot: Searcher, tally: Tallier[P, T], view: SeatView, rng: random.Random, count: int, deadline: float,
             *args: P.args, **kwargs: P.kwargs) -> T:
    """The tally of a decision: ``tally(view, rng, count, deadline, *args, **kwargs)`` (one of
    ``bot``'s methods) in this process, or with :func:`jobs_of` > 1, the sum of that many
    shares of ``count`` worlds each, all but the first in the pool's workers."""
    jobs = jobs_of(bot)
    total: T
    if jobs == 1:
        total = bot.share(tally.__name__, view, rng, count, deadline, *args, **kwargs)
        return total
    seeds = shares(rng, jobs)
    futures = _submit(bot, tally.__name__, view, seeds[1:], count, deadline, args, kwargs)
    total = bot.share(tally.__name__, view, random.Random(seeds[0]), count, deadline, *args, **kwargs)
    for future in futures:
        share = _result(future, deadline)
        if share is not None:
            total = total + share
    return total


# ---------------------------------------------------------------------- the pool

_lock = threading.Lock()
_pool: concurrent.futures.ProcessPoolExecutor | None = None
_size = 0
_owner = 0  # the process that started the pool (a forked child must not use or stop its parent's)
_in_worker = False


def warm(jobs: int) -> None:
    """Start the workers that decisions of ``jobs`` processes need now (without waiting), so
    that the first of them does not wait for new interpreters."""
    workers = min(jobs, MAX_JOBS) - 1
    if workers > 0 and not _in_worker and not multiprocessing.current_process().daemon:
        pool = _executor(workers)
        for _ in range(workers):
            pool.submit(os.getpid)


def close() -> None:
    """Stop the pool's workers (terminated if a share still runs); the next parallel
    decision starts a new pool. Registered to run at interpreter exit."""
    global _pool, _size
    with _lock:
        pool, _pool, _size = _pool, None, 0
    if pool is None or _owner != os.getpid():
        return
    workers = list((getattr(pool, "_processes", None) or {}).values())  # no public list of them
    pool.shutdown(wait=False, cancel_futures=True)
    reap(workers, 0.5)


def worker_pids() -> list[int]:
    """The pool's worker processes (none before the first parallel decision)."""
    pool = _pool if _owner == os.getpid() else None
    workers = (getattr(pool, "_processes", None) or {}) if pool is not None else {}
    return [process.pid for process in workers.values() if process.pid is not None]


atexit.register(close)


def _executor(workers: int) -> concurrent.futures.ProcessPoolExecutor:
    """The pool, with at least ``workers`` processes (a larger one replaces a smaller)."""
    global _pool, _size, _owner
    with _lock:
        if _pool is not None and _size >= workers and _owner == os.getpid():
            return _pool
    close()
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if "forkserver" in methods:
        # A fork server not yet running imports the bots once; every worker forked from it has them.
        context.set_forkserver_preload(["binokel.ai"])
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=context,
                                                  initializer=_worker_start, initargs=(os.getpid(),))
    with _lock:
        _pool, _size, _owner = pool, workers, os.getpid()
    return pool


def _submit(bot: Searcher, method: str, view: SeatView, seeds: list[int], count: int, deadline: float,
            args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[concurrent.futures.Future[Any]]:
    """Hand the shares of ``seeds`` to the pool; a pool that cannot start gives no futures
    (the decision then rests on the parent's share)."""
    try:
        pool = _executor(len(seeds))
        seen = view.to_json()
        level, options = bot.name, options_of(bot)
        left = max(0.0, deadline - time.perf_counter())
        sent = time.time()
        return [pool.submit(_share, level, options, method, seen, seed, count, left, sent, args, kwargs)
                for seed in seeds]
    except (OSError, RuntimeError, BrokenProcessPool) as error:
        log.warning("no worker processes for the search (%s); it stays in this process", error)
        close()
        return []


def _result(future: concurrent.futures.Future[T], deadline: float) -> T | None:
    """A worker's tally; None (and a new pool next time) if the pool broke or the share is
    far past the deadline. An error of the search itself is raised as in this process."""
    left = deadline - time.perf_counter()
    try:
        return future.result(timeout=max(0.0, left) + GRACE if math.isfinite(left) else None)
    except (BrokenProcessPool, concurrent.futures.TimeoutError, concurrent.futures.CancelledError) as error:
        log.warning("a search worker gave no answer (%s); its share is left out", type(error).__name__)
        close()
        return None


# ---------------------------------------------------------------------- in a worker

def _worker_start(parent: int) -> None:
    """A worker: never parallel itself; Ctrl-C is for the parent (which closes the pool);
    exit when the parent (or the fork server between them) is gone."""
    global _in_worker
    _in_worker = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with(parent, "binokel-watch-parent")


def exit_with(parent: int, name: str) -> None:
    """In a worker process: exit as soon as ``parent``, or the process that started this one
    (a fork server between them), is gone, so that a killed parent leaves no orphan holding
    its pipes (a daemon thread called ``name`` watches). The server's pool uses it too."""
    starter = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(WATCH_SECONDS)
            if os.getppid() != starter or not _alive(parent):
                os._exit(0)

    threading.Thread(target=watch, name=name, daemon=True).start()


def reap(processes: list[multiprocessing.process.BaseProcess], grace: float) -> None:
    """Wait ``grace`` seconds for the worker processes to end, then terminate, then kill them."""
    deadline = time.monotonic() + grace
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        with contextlib.suppress(Exception):
            if process.is_alive():
                process.terminate()
                process.join(1.0)
            if process.is_alive():
                process.kill()
                process.join(1.0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _share(level: str, options: dict[str, int | float], method: str, seen: dict[str, Any], seed: int,
           count: int, left: float, sent: float, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """In a worker: one share's tally. The deadline is the parent's, less the time the
    share waited to start (wall clocks of one machine agree; the parent's ``perf_counter``
    need not be this process's)."""
    bot = _rebuildable[level]()
    for key, value in options.items():
        setattr(bot, key, value)
    waited = min(max(0.0, time.time() - sent), left)
    return bot.share(method, SeatView.from_json(seen), random.Random(seed), count, time.perf_counter() + left - waited,
                     *args, **kwargs)


__all__ = ["MAX_JOBS", "Summable", "evaluate", "rebuildable", "shares", "jobs_of", "options_of", "warm", "close",
           "worker_pids"]
