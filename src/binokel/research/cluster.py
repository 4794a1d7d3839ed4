"""Tournaments on a Ray cluster: ``binokel tournament ... --cluster ray://HOST:PORT``
(or ``--cluster local`` to start Ray on this machine); needs ``pip install 'binokel[cluster]'``.

A tournament is a list of independent jobs (one deal or game in one seating), each
seeded from the tournament's seed alone, so where a job runs does not change its result:
a cluster run reports exactly what a local run with the same seed reports (only the
measured thinking times differ). :func:`ray_mapper` gives the tournament a way to map its
job function over the jobs on Ray; results come back as they finish, and the tournament
sorts them.

On a remote cluster (``ray://...``) the binokel package is shipped to the workers with
Ray's ``runtime_env`` (``py_modules``), so the cluster needs only Python and Ray.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

Job = TypeVar("Job")
Result = TypeVar("Result")
Mapper = Callable[[Callable[[Any], Any], Iterable[Any]], Iterator[Any]]


class ClusterError(RuntimeError):
    """Ray is missing or the cluster cannot be reached: a one-line message for the user."""


def ray_mapper(address: str, cpus: int | None = None) -> Mapper:
    """A function ``map(job_function, jobs)`` that runs the jobs as Ray tasks and yields
    their results as they finish. ``address`` is ``"local"`` (start Ray here with ``cpus``
    CPUs) or a cluster address such as ``ray://head:10001``. If Ray is already initialised
    in this process (a test, a notebook), that session is used as it is."""
    try:
        import ray
    except ImportError:
        raise ClusterError("--cluster needs Ray: pip install 'binokel[cluster]'") from None

    def run(function: Callable[[Job], Result], jobs: Iterable[Job]) -> Iterator[Result]:
        started = False
        if not ray.is_initialized():
            try:
                if address == "local":
                    ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False,
                             runtime_env={"env_vars": {"PYTHONPATH": _python_path()}})
                else:
                    ray.init(address=address, log_to_driver=False,
                             runtime_env={"py_modules": [str(Path(__file__).resolve().parent)]})
            except Exception as error:  # noqa: BLE001 - Ray raises many kinds; the user needs one line
                raise ClusterError(f"cannot start Ray at {address!r}: {error}") from None
            started = True
        try:
            task = ray.remote(function)
            pending = [task.remote(job) for job in jobs]
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                yield from ray.get(done)
        finally:
            if started:
                ray.shutdown()

    return run


def _python_path() -> str:
    """The workers of a local Ray find binokel where this process found it (a source tree too)."""
    here = str(Path(__file__).resolve().parent.parent)
    paths = [here] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != here]
    return os.pathsep.join(paths)


__all__ = ["ClusterError", "Mapper", "ray_mapper"]
