"""``binokel serve``: the browser game, served by FastAPI and uvicorn.

The web framework is imported only when the server runs, so the rest of the command
line stays quick. The protocol is documented in :mod:`binokel.server.protocol`.
"""

from __future__ import annotations

import argparse
import math
import socket
import sys
import threading
import webbrowser
from pathlib import Path

from binokel.server.store import default_db_path

__all__ = ["add_arguments", "run", "default_db_path"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on; 0 picks a free one (default: 8000)")
    parser.add_argument("--db", type=Path, default=None, metavar="PATH",
                        help=f"SQLite file of the saved games (default: {default_db_path()})")
    parser.add_argument("--open", action="store_true", help="open the game in a web browser")
    parser.add_argument("--think", type=float, default=0.6, metavar="SECONDS",
                        help="least time between a computer opponent's move and the change before it,"
                             " so play can be followed (default: 0.6)")


def run(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C; print the address first."""
    try:
        import uvicorn

        from binokel.server.app import create_app
    except ImportError as error:
        return _fail(f"needs FastAPI and uvicorn ({error.name} is missing): pip install 'binokel[serve]'")

    if not 0 <= args.port <= 65535:
        return _fail(f"--port must be from 0 to 65535, not {args.port}")
    if not math.isfinite(args.think) or args.think < 0:
        return _fail(f"--think must be a number of seconds >= 0, not {args.think}")
    db = args.db or default_db_path()
    try:
        app = create_app(db, think=args.think)
    except Exception as error:  # noqa: BLE001 - sqlite3 or OS errors: one line, no traceback
        return _fail(f"cannot open the database {db}: {error}")
    try:
        sock = _listen(args.host, args.port)
    except OSError as error:
        return _fail(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}")
    host, port = sock.getsockname()[:2]
    url = f"http://{f'[{host}]' if ':' in host else host}:{port}/"
    print(f"Binokel is being served at {url}", flush=True)
    print(f"Games are saved in {db}. Press Ctrl-C to stop.", flush=True)
    if args.open:
        threading.Timer(0.5, webbrowser.open, (url,)).start()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", ws_max_size=1 << 20, lifespan="on"))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass  # uvicorn re-raises the Ctrl-C it handled; the shutdown is complete
    finally:
        sock.close()
    print("Binokel server stopped.", flush=True)
    return 0


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
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
