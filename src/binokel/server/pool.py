"""Where the server's bots and hints think: one bounded pool, fair across tables.

A bot's move and a hint are searches (tenths of a second to seconds of CPU each). They
all go through one :class:`Pool` per server process, with ``workers`` slots:

- **processes** by default (``Limits.pool = "process"``): worker processes of a
  ``forkserver`` context (``spawn`` where there is none), so the searches use every core
  and never hold the event loop's interpreter lock. What crosses to a worker is plain
  data: the table's bot as its *level*, its own seed and the tuning options set on it
  (the worker rebuilds exactly that bot, so a table's seed makes its moves reproducible in
  a process as in a thread), the seat's view as JSON (bots get views, never states), the
  table's random generator for this choice, the budget and the seed; the answer comes
  back as the index of the chosen action among the view's legal actions, checked once, by
  :func:`binokel.ai.choose_safely` in the worker. A bot that is not a standard level (a test's stand-in
  object) thinks in a thread instead. ``Limits.pool = "thread"`` runs every search in
  threads (tests, or a machine where processes are not wanted).
- **quick bots think at once**: a standard bot that does not search (``quick``: the easy
  level, about 0.2 ms a decision) is rebuilt and answers right where it is asked, as a worker
  would (the same bot, seed, options and generator, so the same move), without a slot: a hop
  to a worker process (pickling the view, two pipes, the worker's wake-up) costs more than
  its decision.
- **fair**: a table has at most one search in the pool at a time; a free slot goes to
  the next table (round robin) that has a waiting *bot move*, and only when no move
  waits to the next table with a waiting *hint*. So a flood of hints at one table can
  take one slot at most, and a table's bot move waits for at most one search of every
  other table with a waiting move (``tests/test_server_pool.py``).
- **an explicit lifecycle**: :meth:`Pool.start` in the app's lifespan, :meth:`Pool.stop`
  when it ends: queued searches are cancelled, the executor is shut down with
  ``cancel_futures``, and worker processes still alive after a short grace are
  terminated (then killed). A worker ignores Ctrl-C (its server stops it) and exits by
  itself when the server process is gone (it watches its parent), so a server killed with
  ``-9`` leaves no orphan holding its output pipes open.

>>> import asyncio, random
>>> from binokel.ai import make_bot
>>> from binokel.state import State
>>> from binokel.view import view
>>> seen = view(State.new("standard", dealer=0).deal_random(random.Random(1)), 1)
>>> async def one() -> str:
...     pool = Pool("thread", workers=1)
...     await pool.start()
...     try:
...         return str(await pool.think("t1", make_bot("easy"), seen, random.Random(2), 0.01))
...     finally:
...         await pool.stop()
>>> asyncio.run(one()) in {str(a) for a in seen.legal_actions}
True
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import copy
import logging
import multiprocessing
import os
import random
import signal
import threading
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Any

from binokel.action import Action
from binokel.ai import BOT_CLASSES, Bot, choose_safely, make_bot
from binokel.ai.parallel import exit_with, options_of, reap
from binokel.view import SeatView

log = logging.getLogger("binokel.server")

KINDS = ("process", "thread")
"""Where searches run (``Limits.pool``)."""
STOP_GRACE = 2.0
"""Seconds a worker process may take to finish its search at shutdown before it is terminated."""


class PoolClosed(RuntimeError):
    """The pool is stopped (the server is shutting down): nothing more is thought."""


@dataclass(eq=False)
class _Job:
    table: str
    hint: bool
    bot: Bot | None
    view: SeatView | None
    rng: random.Random | None
    budget: float
    seed: object
    future: asyncio.Future[Any] = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    work: Callable[[], Any] | None = None  # a help job (a review, advice): a picklable call, its answer returned


class Pool:
    """A bounded, fair pool for bot moves and hints (see the module docstring)."""

    def __init__(self, kind: str = "process", workers: int = 0, help_slots: int = 1) -> None:
        if kind not in KINDS:
            raise ValueError(f"pool must be one of {', '.join(KINDS)}, not {kind!r}")
        self.kind = kind
        self.workers = workers if workers > 0 else max(1, os.cpu_count() or 1)
        self.help_slots = max(1, help_slots)  # help jobs (reviews, advice) running at once, at most
        self._moves: dict[str, collections.deque[_Job]] = {}
        self._hints: dict[str, collections.deque[_Job]] = {}
        self._help: dict[str, collections.deque[_Job]] = {}
        self._turns: collections.deque[str] = collections.deque()  # round robin: tables with waiting jobs
        self._running: dict[str, _Job] = {}  # table -> its one search in the pool
        self._processes: concurrent.futures.ProcessPoolExecutor | None = None
        self._threads: ThreadPoolExecutor | None = None
        self._started = False
        self._closed = False
        self.started_jobs: list[tuple[str, bool]] = []  # (table, hint) in start order, the last few
        self.broken = 0  # how often the worker processes had to be replaced

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Make the executors (at app start). Process workers are started now, in a thread, so
        the first bot move does not wait for a new interpreter."""
        if self._started:
            return
        self._started = True
        self._closed = False
        self._threads = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="binokel-think")
        if self.kind == "process":
            try:
                self._processes = self._new_processes()
                await asyncio.to_thread(_warm, self._processes, self.workers)
            except Exception as error:  # noqa: BLE001 - no processes here: threads still think
                log.warning("bot worker processes could not be started (%s); bots think in threads", error)
                self._drop_processes()

    def _new_processes(self) -> concurrent.futures.ProcessPoolExecutor:
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
        if "forkserver" in methods:
            # The fork server imports only the bots (not the web app, not __main__); every
            # worker forked from it starts with them loaded.
            context.set_forkserver_preload(["binokel.server.pool"])
        return concurrent.futures.ProcessPoolExecutor(max_workers=self.workers, mp_context=context,
                                                      initializer=_worker_start, initargs=(os.getpid(),))

    async def stop(self) -> None:
        """Cancel what waits, stop the executors; worker processes get :data:`STOP_GRACE` seconds."""
        self._closed = True
        self._started = False
        for queues in (self._moves, self._hints, self._help):
            for jobs in queues.values():
                for job in jobs:
                    job.future.cancel()
            queues.clear()
        self._turns.clear()
        processes = self._drop_processes()
        threads, self._threads = self._threads, None
        if threads is not None:
            threads.shutdown(wait=False, cancel_futures=True)  # a running search ends within its budget
        if processes:
            await asyncio.to_thread(reap, processes, STOP_GRACE)

    def _drop_processes(self) -> list[multiprocessing.process.BaseProcess]:
        """Shut the process executor down without waiting; its worker processes (to reap)."""
        executor, self._processes = self._processes, None
        if executor is None:
            return []
        workers = list(getattr(executor, "_processes", {}).values())  # no public list of them
        executor.shutdown(wait=False, cancel_futures=True)
        return workers

    # ------------------------------------------------------------------ thinking

    async def think(self, table: str, bot: Bot, view: SeatView, rng: random.Random, budget: float, *,
                    seed: object = None, hint: bool = False) -> Action:
        """The bot's checked answer to ``view`` (:func:`binokel.ai.choose_safely`), thought in
        the pool when it is the table's turn. Cancelling the caller takes a waiting job out
        of the queue (a running search finishes, its answer unused)."""
        if self._closed:
            raise PoolClosed("the pool is stopped")
        if not self._started:
            # Used without start() (an app driven without its lifespan): threads only, so no
            # process is left that nobody stops.
            self._started = True
            self._threads = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="binokel-think")
        level = _standard_level(bot)
        if level is not None and getattr(bot, "quick", False):
            return _decide(level, getattr(bot, "seed", None), options_of(bot), view, copy.copy(rng), budget, seed)
        job = _Job(table, hint, bot, view, rng, budget, seed)
        (self._hints if hint else self._moves).setdefault(table, collections.deque()).append(job)
        if table not in self._turns:
            self._turns.append(table)
        self._dispatch()
        try:
            return await asyncio.shield(job.future)
        except asyncio.CancelledError:
            if not job.future.done():
                self._withdraw(job)
            # a running search's answer (or error) comes later and nobody reads it
            job.future.add_done_callback(lambda done: done.cancelled() or done.exception())
            raise

    async def run(self, key: str, work: Callable[[], Any]) -> Any:
        """``work()`` (a picklable call: a module-level function with its arguments, e.g. a
        ``functools.partial``) as a **help** job of ``key`` (a table, or an address for an
        uploaded record): after every waiting bot move and hint, at most ``help_slots`` at
        once, one per key, round robin; in a worker process where there are some. Its
        answer (or its exception) is returned."""
        if self._closed:
            raise PoolClosed("the pool is stopped")
        if not self._started:
            self._started = True
            self._threads = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="binokel-think")
        key = f"help:{key}"  # never in the way of the table's own bot move
        job = _Job(key, False, None, None, None, 0.0, None, work=work)
        self._help.setdefault(key, collections.deque()).append(job)
        if key not in self._turns:
            self._turns.append(key)
        self._dispatch()
        try:
            return await asyncio.shield(job.future)
        except asyncio.CancelledError:
            if not job.future.done():
                self._withdraw(job)
            job.future.add_done_callback(lambda done: done.cancelled() or done.exception())
            raise

    def waiting(self, table: str) -> int:
        """Jobs of ``table`` waiting or running in the pool."""
        return (len(self._moves.get(table, ())) + len(self._hints.get(table, ()))
                + (1 if table in self._running else 0))

    def worker_pids(self) -> list[int]:
        """The worker processes' ids (none in thread mode)."""
        executor = self._processes
        workers = getattr(executor, "_processes", None) or {}
        return [process.pid for process in workers.values() if process.pid is not None]

    @property
    def busy(self) -> int:
        return len(self._running)

    def _withdraw(self, job: _Job) -> None:
        queues = self._help if job.work is not None else self._hints if job.hint else self._moves
        jobs = queues.get(job.table)
        if jobs is not None and job in jobs:
            jobs.remove(job)
            if not jobs:
                del queues[job.table]
        job.future.cancel()

    def _next(self) -> _Job | None:
        """The next job to start: round robin over the tables with nothing running, bot moves
        before hints."""
        helping = sum(1 for job in self._running.values() if job.work is not None)
        for queues in (self._moves, self._hints, self._help):
            if queues is self._help and helping >= self.help_slots:
                break
            for _ in range(len(self._turns)):
                table = self._turns[0]
                self._turns.rotate(-1)
                jobs = queues.get(table)
                if jobs and table not in self._running:
                    job = jobs.popleft()
                    if not jobs:
                        del queues[table]
                    return job
        return None

    def _dispatch(self) -> None:
        """Start jobs while a slot is free."""
        while len(self._running) < self.workers:
            job = self._next()
            if job is None:
                break
            self._running[job.table] = job
            self.started_jobs.append((job.table, job.hint))
            del self.started_jobs[:-1000]
            asyncio.get_running_loop().create_task(self._run(job), name=f"think for {job.table}")
        for table in list(self._turns):  # forget the tables with nothing left
            if table not in self._moves and table not in self._hints and table not in self._help \
                    and table not in self._running:
                self._turns.remove(table)

    async def _run(self, job: _Job) -> None:
        try:
            action = await self._call(job)
        except BaseException as error:  # handed to the waiting caller
            if not job.future.done():
                if isinstance(error, asyncio.CancelledError):
                    job.future.cancel()
                else:
                    job.future.set_exception(error)
            if not isinstance(error, Exception):
                raise
        else:
            if not job.future.done():
                job.future.set_result(action)
        finally:
            self._running.pop(job.table, None)
            if job.table in self._turns:  # it had its turn: the other tables come first
                self._turns.remove(job.table)
                self._turns.append(job.table)
            if not self._closed:
                self._dispatch()

    async def _call(self, job: _Job) -> Any:
        if job.work is not None:
            done, answer = await self._in_process(job.work)
            return answer if done else await self._in_thread(job.work)
        assert job.bot is not None and job.view is not None and job.rng is not None
        level = _standard_level(job.bot)
        if level is not None:
            done, index = await self._in_process(_think, level, getattr(job.bot, "seed", None), options_of(job.bot),
                                                 job.view.to_json(), job.rng, job.budget, job.seed)
            if done:
                return job.view.legal_actions[index]
        return await self._in_thread(_choose, job.bot, job.view, job.rng, job.budget, job.seed)

    async def _in_thread(self, call: Callable[..., Any], *args: Any) -> Any:
        """``call(*args)`` in one of the pool's threads."""
        if self._threads is None:
            raise PoolClosed("the pool is not running")
        return await asyncio.get_running_loop().run_in_executor(self._threads, call, *args)

    async def _in_process(self, call: Callable[..., Any], *args: Any) -> tuple[bool, Any]:
        """``call(*args)`` in a worker process: (True, its answer), or (False, None) when there
        are no workers, a worker died (new ones for the next jobs), or the workers were replaced
        before this job ran (another job found them broken; the replaced executor cancels what
        it had not started). The caller then runs it in a thread, so its table does not wait."""
        if self._processes is None:
            return False, None
        try:
            return True, await asyncio.wrap_future(self._processes.submit(call, *args))
        except BrokenProcessPool:  # killed, out of memory
            self.broken += 1
            log.error("a bot worker process died; starting new ones")
            self._replace_processes()
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the wait itself was cancelled, not the job by a replaced executor
        return False, None

    def _replace_processes(self) -> None:
        if self._closed:
            return
        old = self._drop_processes()
        threading.Thread(target=reap, args=(old, STOP_GRACE), daemon=True).start()
        try:
            self._processes = self._new_processes()
        except Exception:  # threads still think
            log.exception("no new bot worker processes; bots think in threads")


async def think_in(pool: Pool | None, table: str, bot: Bot, view: SeatView, rng: random.Random, budget: float, *,
                   seed: object = None, hint: bool = False) -> Action:
    """The bot's checked answer to ``view``, thought in ``pool`` (a thread of its own without one)."""
    if pool is None:
        return await asyncio.to_thread(choose_safely, bot, view, rng, budget, seed=seed)
    return await pool.think(table, bot, view, rng, budget, seed=seed, hint=hint)


# ---------------------------------------------------------------------- in the workers

def _worker_start(server: int) -> None:
    """A worker process: Ctrl-C is for the server (it stops the workers); exit when the server
    (or the fork server between them) is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if not logging.getLogger().handlers:  # a failing bot's line looks like the server's own
        logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    exit_with(server, "binokel-watch-server")


def _ready() -> int:
    return os.getpid()


def _think(level: str, bot_seed: int | None, options: dict[str, int | float], seen: dict[str, Any],
           rng: random.Random, budget: float, seed: object) -> int:
    """In a worker: :func:`_decide` for the view sent as JSON; the answer is its index among
    the legal actions."""
    view = SeatView.from_json(seen)
    return view.legal_actions.index(_decide(level, bot_seed, options, view, rng, budget, seed))


def _decide(level: str, bot_seed: int | None, options: dict[str, int | float], view: SeatView,
            rng: random.Random, budget: float, seed: object) -> Action:
    """The table's bot, rebuilt from its level, seed and options, chooses for the view, checked
    by :func:`choose_safely` (in a worker, or at once for a quick bot)."""
    bot = make_bot(level, seed=bot_seed)
    for key, value in options.items():
        setattr(bot, key, value)
    return choose_safely(bot, view, rng, budget, seed=seed)


def _standard_level(bot: Bot) -> str | None:
    """The level of a standard bot (one a worker can rebuild); None for another (a test's)."""
    level = getattr(bot, "name", None)
    return level if isinstance(level, str) and type(bot) is BOT_CLASSES.get(level) else None


def _choose(bot: Bot, view: SeatView, rng: random.Random, budget: float, seed: object) -> Action:
    return choose_safely(bot, view, rng, budget, seed=seed)



# ---------------------------------------------------------------------- in the server

def _warm(executor: concurrent.futures.ProcessPoolExecutor, workers: int) -> None:
    """Start the worker processes (a no-op job each) and wait for them, bounded."""
    futures = [executor.submit(_ready) for _ in range(workers)]
    concurrent.futures.wait(futures, timeout=30)
    for future in futures:
        future.result(timeout=0)  # an error here means no processes: the caller falls back
