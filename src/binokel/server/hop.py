"""A blocking call off the event loop, for a table's writes (a step's append, presence, notices).

``asyncio.to_thread`` costs 50–70 µs of CPU a call (a context copy, a check whether the
function is a coroutine function through :mod:`inspect`, the executor's work item and
future, and a second future chained to it). :func:`in_thread` hands the call to a few
threads of its own by a plain queue and answers with one ``call_soon_threadsafe``.
Enough threads that every table's append can wait at once for the store's group commit
(a writer that arrives while another writes joins its next batch).
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

THREADS = 64
"""The threads that run the calls (each blocks for its call, e.g. waiting for a batch's commit).
A batch of PostgreSQL appends holds only the appends whose threads wait for it: with 16, 500
tables a process filled every batch (16 appends) and the next steps waited for a thread,
0.4-0.6 s at the 95th percentile (docs/server.md, "Round sixteen"). Threads are started only
when none is idle, so a quiet server keeps a few."""

_Call = tuple[asyncio.AbstractEventLoop, "asyncio.Future[Any]", Callable[..., Any], tuple[Any, ...], dict[str, Any]]
_calls: queue.SimpleQueue[_Call] = queue.SimpleQueue()
_started = 0
_idle = 0  # threads waiting for a call (read without the lock: a thread more or less is harmless)
_lock = threading.Lock()


def in_thread(function: Callable[..., T], /, *args: Any, **kwargs: Any) -> asyncio.Future[T]:
    """Run ``function(*args, **kwargs)`` in another thread; await its result or exception.
    A cancelled wait does not stop the call (as with ``asyncio.to_thread``).

    >>> asyncio.run(_twice(21))
    42
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    _calls.put((loop, future, function, args, kwargs))
    if _idle <= 0 and _started < THREADS:  # a thread more only if none waits for work (as an executor does)
        _start_thread()
    return future


async def _twice(value: int) -> int:
    return await in_thread(lambda: 2 * value)


def _start_thread() -> None:
    global _started
    with _lock:
        if _started >= THREADS:
            return
        _started += 1
        threading.Thread(target=_serve, name=f"binokel-hop-{_started}", daemon=True).start()


def _serve() -> None:
    global _idle
    while True:
        with _lock:
            _idle += 1
        loop, future, function, args, kwargs = _calls.get()
        with _lock:
            _idle -= 1
        try:
            result = function(*args, **kwargs)
        except BaseException as error:  # noqa: BLE001 - the caller gets it
            _answer(loop, _fail, future, error)
        else:
            _answer(loop, _succeed, future, result)
        del loop, future, function, args, kwargs  # do not keep the last call's objects alive


class Settle:
    """Settles the asyncio futures of written requests on their loop, with one wake-up of
    the loop for a whole batch (a store's ``append_soon`` calls it from its writer thread
    with the requests, each with its future as ``waiter`` and its ``outcome()``). Settles
    for one loop are equal, so a batch groups its requests by loop."""

    __slots__ = ("loop",)

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Settle) and other.loop is self.loop

    def __hash__(self) -> int:
        return id(self.loop)

    def __call__(self, requests: list[Any]) -> None:
        try:
            self.loop.call_soon_threadsafe(_settle, requests)
        except RuntimeError:  # the loop is closed: nobody waits any more
            pass


def _settle(requests: list[Any]) -> None:
    for request in requests:
        future = request.waiter
        if future.done():
            continue
        try:
            future.set_result(request.outcome())
        except Exception as error:  # noqa: BLE001 - the awaiting caller gets it
            future.set_exception(error)


def _answer(loop: asyncio.AbstractEventLoop, answer: Callable[..., None], *args: Any) -> None:
    try:
        loop.call_soon_threadsafe(answer, *args)
    except RuntimeError:  # the loop is closed: nobody waits any more
        pass


def _succeed(future: asyncio.Future[Any], result: Any) -> None:
    if not future.done():
        future.set_result(result)


def _fail(future: asyncio.Future[Any], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)
