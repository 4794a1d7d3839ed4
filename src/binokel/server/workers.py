"""``binokel serve --workers N``: N server processes on one port of one machine.

Each worker is a whole ``binokel serve`` process of its own (``--reuse-port``): it binds the
port with ``SO_REUSEPORT``, so the kernel spreads new connections over the workers, and
it shares the tables with the others through the games database (PostgreSQL, or any
database with ``--redis`` for the change notifications) — exactly as processes on other
machines would. Nothing is shared in memory, so no session needs to be sticky: a
client may reconnect to any worker. This supervisor only starts the workers, restarts one
that dies (a line says so) and stops them all on Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from types import FrameType

RESTART_PAUSE = 1.0
"""Seconds before a worker that died is started again (so a crash loop does not spin)."""


def free_port(host: str) -> int:
    """A port nobody listens on now (for ``--port 0`` with several workers)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def supervise(command: Sequence[str], count: int, *, url: str) -> int:
    """Run ``count`` workers (each ``command``), restart any that dies, until a signal."""
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    workers: list[subprocess.Popen[bytes]] = []
    try:
        workers = [subprocess.Popen(list(command)) for _ in range(count)]
        print(f"Binokel is being served at {url} by {count} worker processes "
              f"({', '.join(str(w.pid) for w in workers)}). Press Ctrl-C to stop.", flush=True)
        while not stopping:
            time.sleep(0.2)
            for index, worker in enumerate(workers):
                if worker.poll() is not None and not stopping:
                    print(f"binokel serve: worker {worker.pid} stopped (status {worker.returncode}); "
                          f"starting another in {RESTART_PAUSE:g} s", file=sys.stderr, flush=True)
                    time.sleep(RESTART_PAUSE)
                    workers[index] = subprocess.Popen(list(command))
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGINT)
        deadline = time.monotonic() + 10
        for worker in workers:
            try:
                worker.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                worker.kill()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print("Binokel server stopped.", flush=True)
    return 0


def worker_command(args: argparse.Namespace, port: int) -> list[str]:
    """The command line of one worker: this ``serve`` with one process and ``--reuse-port``."""
    argv = [sys.executable, "-m", "binokel", "serve", "--host", str(args.host), "--port", str(port),
            "--think", str(args.think), "--budget", str(args.budget),
            "--reuse-port", "--quiet"]
    for option in ("db", "redis", "public_url", "forwarded_allow_ips", "log_format"):
        value = getattr(args, option, None)
        if value:
            argv += [f"--{option.replace('_', '-')}", str(value)]
    if getattr(args, "public_metrics", False):
        argv.append("--public-metrics")
    for option in ("allow_origin", "allow_host"):  # repeatable
        for value in getattr(args, option, None) or []:
            argv += [f"--{option.replace('_', '-')}", str(value)]
    return argv


def environment_ok() -> bool:
    """SO_REUSEPORT exists here (Linux, the BSDs, macOS; not Windows)."""
    return hasattr(socket, "SO_REUSEPORT") and os.name == "posix"
