"""Delivering the page: compressed, cached by ETag, and held by the service worker.

- Every response of some size is gzip-compressed when the client accepts it (Starlette's
  ``GZipMiddleware``; the websocket is untouched).
- The page, its static files and the catalogues are sent with ``Cache-Control: no-cache``
  and an ETag: a browser keeps them and asks again with ``If-None-Match``, and a file that
  did not change costs a ``304`` with no body. (No content-hashed names: the page's ES
  modules import each other by plain relative names.)
- The service worker (``/sw.js``) is sent with the app shell filled in: every file the
  page needs to start (the page, its styles, scripts, icon and manifest) and a version
  made from their contents, so a new release replaces the old cache and a second visit
  opens without the server, up to the page's "server unreachable" notice.

``add_delivery(app)`` adds both middlewares; ``service_worker()`` is the ``/sw.js`` body.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from functools import cache
from importlib import resources
from pathlib import Path

from fastapi import FastAPI
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

COMPRESS_FROM = 500
"""Bytes: smaller responses are sent as they are (gzip would not save a packet)."""
REVALIDATED = ("/static/", "/i18n/")
"""Paths (besides the page ``/`` and ``/sw.js``) kept by browsers and revalidated by ETag."""
SHELL_FOLDERS = ("css", "js", "pad", "club")
SHELL_FILES = ("img/icon.svg", "img/icon-192.png", "manifest.webmanifest")
PAGES = {"/": "index.html", "/pad": "pad/index.html", "/club": "club/index.html"}
"""The pages the worker keeps (the score pad and a club table's sheet open offline too), by
their files under ``web``."""
SHELL_MARK = "// @shell"
"""The line of ``sw.js`` that the server replaces by the shell's list and version."""


def web_dir() -> Path:
    """The folder of the static front-end (``binokel/web``, shipped as package data)."""
    return Path(str(resources.files("binokel").joinpath("web")))


def shell_paths(web: Path) -> list[str]:
    """The URLs of the app shell: the page and every style and script under ``web``.

    >>> paths = shell_paths(web_dir())
    >>> paths[0], "/static/js/app.js" in paths, "/static/css/style.css" in paths
    ('/', True, True)
    """
    files = [f for folder in SHELL_FOLDERS for f in sorted((web / folder).glob("*")) if f.is_file()]
    files += [web / name for name in SHELL_FILES if (web / name).is_file()]
    return [*PAGES] + [f"/static/{f.relative_to(web).as_posix()}" for f in files if f.name != "index.html"]


def _version(web: Path, paths: Iterable[str]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        file = web / PAGES.get(path, path.removeprefix("/static/"))
        digest.update(path.encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()[:16]


@cache
def service_worker(web: Path | None = None) -> bytes:
    """``sw.js`` with its shell and version filled in (read once per process: a release
    is a restart).

    >>> text = service_worker().decode()
    >>> "const SHELL = [" in text and '"/static/js/announce.js"' in text and "const VERSION = " in text
    True
    >>> 'const PAGES = ["/", "/pad", "/club"];' in text
    True
    """
    web = web or web_dir()
    paths = shell_paths(web)
    source = (web / "sw.js").read_text("utf-8")
    line = (f"const SHELL = {_js_list(paths)};\nconst PAGES = {_js_list(list(PAGES))};\n"
            f"const VERSION = \"{_version(web, paths)}\";")
    return source.replace(SHELL_MARK, line, 1).encode()


def _js_list(items: list[str]) -> str:
    return "[" + ", ".join(f'"{item}"' for item in items) + "]"


class Revalidate:
    """``Cache-Control: no-cache`` and an ETag on the page, ``/sw.js``, static files and
    catalogues (GET); ``304`` when the client's ``If-None-Match`` matches. Static
    files come with Starlette's ETag; other responses (the page's routes) get one made from
    their body, which is then held back until it is complete (they are small)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        kept = path in PAGES or path == "/sw.js" or path.startswith(REVALIDATED)
        if scope["type"] != "http" or scope.get("method") != "GET" or not kept:
            await self.app(scope, receive, send)
            return
        asked = dict(scope.get("headers", [])).get(b"if-none-match", b"").decode("latin-1")
        start: Message | None = None
        body: list[bytes] = []

        async def answer(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
                return
            if start is None or start["status"] != 200:  # errors and 304s pass as they are
                if start is not None:
                    await send(start)
                    start = None
                await send(message)
                return
            body.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            headers = [(k, v) for k, v in start["headers"] if k.lower() != b"cache-control"]
            etag = next((v.decode("latin-1") for k, v in headers if k.lower() == b"etag"), None)
            if etag is None:
                etag = '"' + hashlib.sha256(b"".join(body)).hexdigest()[:32] + '"'
                headers.append((b"etag", etag.encode("latin-1")))
            headers.append((b"cache-control", b"no-cache"))
            if asked and etag in (tag.strip() for tag in asked.split(",")):
                kept_headers = [(k, v) for k, v in headers if k.lower() not in (b"content-length", b"content-type")]
                await send({"type": "http.response.start", "status": 304, "headers": kept_headers})
                await send({"type": "http.response.body", "body": b""})
                return
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": b"".join(body)})

        await self.app(scope, receive, answer)


def add_delivery(app: FastAPI) -> None:
    """Compression (outermost: it compresses what the inner layers answer) and revalidation."""
    app.add_middleware(Revalidate)
    app.add_middleware(GZipMiddleware, minimum_size=COMPRESS_FROM)
