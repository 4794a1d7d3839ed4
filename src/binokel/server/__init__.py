"""``binokel serve``: the browser game, served by FastAPI and uvicorn.

The web framework is imported only when the server runs, so the rest of the command
line stays quick. The protocol is documented in :mod:`binokel.server.protocol`.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import math
import os
import socket
import sys
import threading
import webbrowser

from binokel.server.logs import FORMATS as LOG_FORMATS
from binokel.server.storage import default_db_path

__all__ = ["add_arguments", "default_db_path", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default: 127.0.0.1, this computer only; 0.0.0.0 lets friends"
                             " on other machines join)")
    parser.add_argument("--public-url", default=None, metavar="URL",
                        help="the address friends reach this server at (behind a reverse proxy or tunnel);"
                             " invite links are made from it")
    parser.add_argument("--allow-origin", action="append", default=[], metavar="URL",
                        help="another origin whose pages may use this server (repeatable), e.g."
                             " https://cards.example.org; its own pages (and --public-url's) always may")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="another name this server answers to (repeatable), e.g. mybox.local; it always"
                             " answers to localhost, its address and the host of --public-url")
    parser.add_argument("--forwarded-allow-ips", default=None, metavar="IPS",
                        help="proxies trusted to say the client's address in X-Forwarded-For (comma-separated"
                             " addresses or networks, '*' for any; default: $FORWARDED_ALLOW_IPS, else none: not"
                             " even 127.0.0.1, which any local process or TCP tunnel could use)")
    parser.add_argument("--public-metrics", action="store_true",
                        help="serve /metrics and the process's name in /healthz to every client (default: to"
                             " this computer only)")
    parser.add_argument("--log-format", choices=LOG_FORMATS, default="text",
                        help="one line per event as text (default) or as JSON")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on; 0 picks a free one (default: 8000)")
    parser.add_argument("--db", default=None, metavar="PATH|URL",
                        help="the games database: a SQLite file, or postgresql://user@host/db for several"
                             f" processes (default: $BINOKEL_DB, else {default_db_path()})")
    parser.add_argument("--redis", default=None, metavar="URL",
                        help="redis://host:6379/0 for change notification between processes"
                             " (default: $BINOKEL_REDIS; PostgreSQL notifies by itself)")
    parser.add_argument("--workers", type=int, default=1, metavar="N",
                        help="server processes on this port (needs PostgreSQL or --redis; default: 1)")
    parser.add_argument("--reuse-port", action="store_true",
                        help="bind with SO_REUSEPORT, so several processes share the port")
    parser.add_argument("--quiet", action="store_true", help=argparse.SUPPRESS)  # a worker of --workers
    parser.add_argument("--open", action="store_true", help="open the game in a web browser")
    parser.add_argument("--think", type=float, default=0.6, metavar="SECONDS",
                        help="least time between a computer opponent's move and the change before it,"
                             " so play can be followed (default: 0.6)")
    parser.add_argument("--budget", type=float, default=0.5, metavar="SECONDS",
                        help="how long a computer opponent, a hint or the bidding help may think about one"
                             " decision (default: 0.5; less answers sooner and plays weaker)")


def run(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C; print the address first."""
    try:  # the web framework is there (_serve imports it)
        for module in ("uvicorn", "binokel.server.app", "binokel.server.transport"):
            importlib.import_module(module)
    except ImportError as error:
        return _fail(f"needs FastAPI and uvicorn ({error.name} is missing): pip install 'binokel[serve]'")
    problem = _bad_argument(args)
    if problem is not None:
        return _fail(problem)
    db = args.db or os.environ.get("BINOKEL_DB") or default_db_path()
    if getattr(args, "workers", 1) > 1:
        return _supervise(args, db)
    return _serve(args, db)


def _bad_argument(args: argparse.Namespace) -> str | None:
    """What is wrong with the command line's numbers and URLs, if anything."""
    if not 0 <= args.port <= 65535:
        return f"--port must be from 0 to 65535, not {args.port}"
    if not math.isfinite(args.think) or args.think < 0:
        return f"--think must be a number of seconds >= 0, not {args.think}"
    if not math.isfinite(args.budget) or not 0 < args.budget <= 60:
        return f"--budget must be a number of seconds above 0 and at most 60, not {args.budget}"
    public_url = getattr(args, "public_url", None)
    if public_url is not None and not public_url.startswith(("http://", "https://")):
        return f"--public-url must start with http:// or https://, not {public_url!r}"
    workers = getattr(args, "workers", 1)
    if workers < 1:
        return f"--workers must be 1 or more, not {workers}"
    return None


def _supervise(args: argparse.Namespace, db: str | os.PathLike[str]) -> int:
    """``--workers N``: start N server processes on one port and watch over them."""
    import binokel.server.workers as supervisor
    from binokel.server.storage import is_postgres_url

    if not (is_postgres_url(db) or args.redis or os.environ.get("BINOKEL_REDIS")):
        return _fail("--workers needs a database all of them share and hear: --db postgresql://… (or --redis)")
    if not supervisor.environment_ok():
        return _fail("--workers needs SO_REUSEPORT (Linux, BSD, macOS); start the processes yourself")
    port = args.port or supervisor.free_port(args.host)
    args.db = str(db)
    url = f"http://{f'[{args.host}]' if ':' in args.host else args.host}:{port}/"
    return supervisor.supervise(supervisor.worker_command(args, port), args.workers, url=url)


def _serve(args: argparse.Namespace, db: str | os.PathLike[str]) -> int:
    """One server process: open the database, listen, say where, serve until Ctrl-C."""
    import uvicorn

    from binokel.server.app import create_app
    from binokel.server.guard import origin_of
    from binokel.server.limits import Limits
    from binokel.server.logs import configure
    from binokel.server.transport import uvicorn_config

    configure(getattr(args, "log_format", "text"))
    allow_origins = getattr(args, "allow_origin", None) or []
    for origin in allow_origins:
        if origin_of(origin) is None:
            return _fail(f"--allow-origin must be an origin such as https://cards.example.org, not {origin!r}")
    limits = Limits()
    public_url = getattr(args, "public_url", None)
    try:
        app = create_app(db, think=args.think, budget=args.budget, host=args.host, public_url=public_url,
                         redis=args.redis, limits=limits, allow_origins=allow_origins,
                         allow_hosts=getattr(args, "allow_host", None) or [],
                         public_metrics=getattr(args, "public_metrics", False))
    except Exception as error:  # noqa: BLE001 - sqlite3, PostgreSQL or OS errors: one line, no traceback
        return _fail(f"cannot open the database {_safe_db(db)}: {error}")
    try:
        sock = _listen(args.host, args.port, reuse_port=args.reuse_port)
    except OSError as error:
        return _fail(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}")
    _announce(args, sock, _safe_db(db))
    forwarded = getattr(args, "forwarded_allow_ips", None) or os.environ.get("FORWARDED_ALLOW_IPS") or None
    _raise_file_limit()
    _calm_collector()
    server = uvicorn.Server(uvicorn_config(app, limits, forwarded_allow_ips=forwarded))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass  # uvicorn re-raises the Ctrl-C it handled; the shutdown is complete
    finally:
        sock.close()
    print("Binokel server stopped.", flush=True)
    return 0


def _announce(args: argparse.Namespace, sock: socket.socket, shown: str) -> None:
    """Say where the server is (and who can reach it); open it in a browser if asked."""
    from binokel.server.app import lan_address

    host, port = sock.getsockname()[:2]
    url = f"http://{f'[{host}]' if ':' in host else host}:{port}/"
    public_url = getattr(args, "public_url", None)
    if args.quiet:
        print(f"Binokel worker {os.getpid()} is serving {url}", flush=True)
    else:
        print(f"Binokel is being served at {url}", flush=True)
        if public_url:
            print(f"Friends join at {public_url} (invite links use it).", flush=True)
        elif host in ("0.0.0.0", "::"):
            print(f"Friends on your network can open http://{lan_address()}:{port}/", flush=True)
        else:
            print("Only this computer can open it; to play with friends: binokel serve --host 0.0.0.0", flush=True)
        print(f"Games are saved in {shown}. Press Ctrl-C to stop.", flush=True)
    if args.open:
        threading.Timer(0.5, webbrowser.open, (url,)).start()


FILES_WANTED = 65536
"""Open files the server asks for (each connection is one; docs/server.md, "Open files")."""
FILES_ADVISED = 4096
"""Fewer than this and ``serve`` says so: a few addresses at their connection bound use them up."""


COLLECT_EVERY = 50_000
"""Allocations (less frees) of container objects between two of the cycle collector's young
collections (Python's default: 700). See :func:`_calm_collector`."""


def _calm_collector() -> None:
    """Let the cycle collector stop the event loop less. With Python's default thresholds a
    server of 500 tables collected its oldest generation every ~6 s, each a pause of the whole
    process of 0.3-0.9 s (the whole heap is traversed, ~0.2-0.5 million objects): every action
    arriving meanwhile waited that long (docs/server.md, "Round sixteen"). A step's objects
    and the messages of a version live for seconds, long enough to outlive two young
    collections at the default rate and be promoted; collected every 50,000 allocations they
    die young, and the oldest generation is rarely looked at. The objects made while starting
    (modules, the app) are frozen: no collection traverses them again."""
    gc.freeze()
    gc.set_threshold(COLLECT_EVERY, 20, 10)


def _raise_file_limit() -> None:
    """Raise the soft limit of open files towards the hard one (a common soft default is 1,024,
    which a few addresses at ``http_connections_per_address`` would use up); warn if low."""
    try:
        import resource
    except ImportError:  # not on Windows
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = FILES_WANTED if hard == resource.RLIM_INFINITY else min(FILES_WANTED, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    if soft != resource.RLIM_INFINITY and soft < FILES_ADVISED:
        print(f"binokel serve: only {soft} open files allowed (ulimit -n); a public server wants"
              f" {FILES_ADVISED} or more (docs/server.md, \"Open files\")", file=sys.stderr, flush=True)


def _safe_db(db: object) -> str:
    """The database as a log line may show it: a URL without its password."""
    text = str(db)
    if "://" in text and "@" in text:
        scheme, _, rest = text.partition("://")
        credentials, _, place = rest.rpartition("@")
        return f"{scheme}://{credentials.partition(':')[0]}@{place}"
    return text


def _listen(host: str, port: int, *, reuse_port: bool = False) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)  # several processes, one port
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def _fail(message: str) -> int:
    print(f"binokel serve: {message}", file=sys.stderr)
    return 2
