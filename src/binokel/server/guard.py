"""The server's gate: which names it answers to, which pages may use it, how much a request may send.

:class:`Guard` is a small ASGI middleware in front of the whole app (docs/server.md,
"Security"). Before any route runs it checks:

- **Host.** The server answers only to its own names (:class:`Names`): ``localhost``,
  ``127.0.0.1`` and ``[::1]``, the address it is bound to (bound to every interface:
  any IP address), the host of ``--public-url`` and of each ``--allow-origin``, and each
  ``--allow-host``. Any other ``Host`` header gets 421 ``bad_host``: a page of another
  site that makes its own name point at 127.0.0.1 (DNS rebinding) reaches nothing.
  A request with two ``Host`` (or two ``Origin``) headers is a 400 ``bad_request``
  (RFC 9112): the gate would read one, a proxy or the app perhaps the other.
- **Origin.** A websocket, and a request that changes something (POST, PUT, PATCH,
  DELETE), from a browser page of another origin is refused (403 ``bad_origin``): a page
  is allowed if it comes from the server itself (its origin is the request's own host)
  or from an origin of ``--allow-origin`` / ``--public-url``. Clients that are not
  browsers (the terminal, scripts) send no Origin and pass.
- **Content type.** A request that changes something and has a body must be JSON
  (``Content-Type: application/json``), which no cross-site form or "simple" request can
  send without the CORS preflight this server never grants; else 415 ``json_required``.
  A request without a body carries no data: the routes that take none act only with a
  seat token in ``Authorization``, a header no cross-site request can send either.
- **Body size.** A body larger than ``Limits.body_bytes`` gets 413 ``body_too_large``,
  from its ``Content-Length`` before a byte is read, or as soon as the bytes streamed
  (chunked) pass the limit.

Every refusal is the protocol's JSON error (``{"error", "code", "params"}``).

>>> names = Names.for_server("127.0.0.1")
>>> names.allows("localhost:8000"), names.allows("127.0.0.1"), names.allows("[::1]:80"), names.allows("evil.example")
(True, True, True, False)
>>> Names.for_server("0.0.0.0").allows("192.168.1.20:8000"), Names.for_server("0.0.0.0").allows("evil.example")
(True, False)
>>> origin_of("HTTPS://Binokel.Example.org:443/path")
'https://binokel.example.org'
"""

from __future__ import annotations

import ipaddress
import json
import logging
import urllib.parse
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass
from typing import Any

from starlette.requests import ClientDisconnect

from binokel.error import BinokelError
from binokel.server.schema import ProtocolError

log = logging.getLogger("binokel.server.guard")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
"""The names every server answers to: this computer."""
WILDCARDS = frozenset({"0.0.0.0", "::", ""})
"""Bind addresses meaning every interface."""
ONCE = ("host", "origin")
"""Headers the gate decides on, which a request may send only once (RFC 9112: several Host
headers are a 400): the gate reads the first; another reader might take the last."""
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
"""Methods that may change something: they need JSON (or a token) and a friendly Origin."""
MISDIRECTED = 421
"""HTTP status for a Host this server does not answer to (RFC 9110: misdirected request)."""
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def _split_host(host: str) -> str:
    """The name of a ``Host`` header, without port or IPv6 brackets, in lower case.

    >>> _split_host("[::1]:8000"), _split_host("Example.org:80"), _split_host("10.0.0.1")
    ('::1', 'example.org', '10.0.0.1')
    """
    return _host_port(host)[0]


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def origin_of(url: str) -> str | None:
    """The origin (``scheme://host[:port]``, lower case, default port left out) of a URL or
    Origin header; None if it has none (``null``, no scheme or host)."""
    try:
        parts = urllib.parse.urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme, name = parts.scheme.lower(), (parts.hostname or "").lower()
    if scheme not in DEFAULT_PORTS or not name:
        return None
    shown = f"[{name}]" if ":" in name else name
    return f"{scheme}://{shown}" + (f":{port}" if port is not None and port != DEFAULT_PORTS[scheme] else "")


@dataclass(frozen=True)
class Names:
    """The ``Host`` names a server answers to."""

    names: frozenset[str]
    any_ip: bool = False  # bound to every interface: friends use whatever address they have

    @classmethod
    def for_server(cls, host: str, public_url: str | None = None, origins: Iterable[str] = (),
                   hosts: Iterable[str] = ()) -> Names:
        """The names of a server bound to ``host``, reached at ``public_url``, used by pages
        of ``origins``, and also called ``hosts``."""
        names = set(LOCAL_NAMES) | {_split_host(name) for name in hosts}
        bound = host.strip("[]").lower()
        if bound not in WILDCARDS:
            names.add(bound)
        for url in (*([public_url] if public_url else []), *origins):
            parsed = urllib.parse.urlsplit(url)
            if parsed.hostname:
                names.add(parsed.hostname.lower())
        return cls(frozenset(names), any_ip=bound in WILDCARDS)

    def allows(self, host: str | None) -> bool:
        """Is ``host`` (a Host header; None: none was sent) one of this server's names?"""
        if host is None:
            return True  # HTTP/1.0 and health probes: no browser sends a request without Host
        name = _split_host(host)
        return name in self.names or (self.any_ip and _is_ip(name))


@dataclass(frozen=True)
class Policy:
    """What :class:`Guard` lets in."""

    names: Names
    origins: frozenset[str]  # origins besides the server's own (--allow-origin, --public-url)
    body_bytes: int

    def allows_origin(self, origin: str, host: str | None) -> bool:
        """May a page of ``origin`` use this server, reached at ``host``? Its own pages may
        (the origin's host is the request's host), and those of the allowed origins."""
        seen = origin_of(origin)
        if seen is None:
            return False
        if seen in self.origins:
            return True
        own = urllib.parse.urlsplit(seen).netloc
        return host is not None and self.names.allows(host) and _same_host(own, host)


def _same_host(netloc: str, host: str) -> bool:
    """Is an origin's ``host[:port]`` the request's Host (names in any case)?

    >>> _same_host("127.0.0.1:8000", "127.0.0.1:8000"), _same_host("[::1]:80", "[::1]:8000")
    (True, False)
    """
    return _host_port(netloc) == _host_port(host)


def _host_port(value: str) -> tuple[str, str]:
    value = value.strip().lower()
    if value.startswith("["):
        name, _, rest = value[1:].partition("]")
        return name, rest.removeprefix(":")
    if value.count(":") == 1:
        name, _, port = value.partition(":")
        return name, port
    return value, ""


class BodyTooLarge(Exception):
    """The body streamed in passed the limit (raised inside the app's ``receive``)."""


def refusal(status: int, problem: BinokelError) -> tuple[int, bytes]:
    """The JSON body of a refusal, as every route answers one."""
    body = {"error": problem.message, "code": problem.code, "params": problem.params}
    return status, json.dumps(body).encode()


class Guard:
    """ASGI middleware enforcing a :class:`Policy` before the app sees a request."""

    def __init__(self, app: ASGIApp, policy: Policy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        problem = self._check(kind, scope.get("method", "GET"), headers, _repeated(scope))
        if problem is not None:
            status, error = problem
            log.info("refused %s %s: %s", kind, scope.get("path", ""), error.code,
                     extra={"event": "refused", "code": error.code, "status": status, "client": _client(scope)})
            if kind == "http":
                await _respond(send, *refusal(status, error))
            else:
                await _deny_websocket(send)
            return
        if kind == "websocket":
            await self.app(scope, receive, send)
            return
        await self._limited(scope, receive, send)

    def _check(self, kind: str, method: str, headers: dict[str, str],
               repeated: str | None = None) -> tuple[int, ProtocolError] | None:
        policy = self.policy
        if repeated is not None:
            return 400, ProtocolError("bad_request", field=f"headers.{repeated}", reason="sent more than once")
        host = headers.get("host")
        if not policy.names.allows(host):
            return MISDIRECTED, ProtocolError("bad_host", host=repr((host or "")[:100]))
        unsafe = kind == "websocket" or method in UNSAFE_METHODS
        origin = headers.get("origin")
        if unsafe and origin is not None and not policy.allows_origin(origin, host):
            return 403, ProtocolError("bad_origin", origin=repr(origin[:100]))
        if kind == "http" and method in UNSAFE_METHODS:
            media = headers.get("content-type", "").partition(";")[0].strip().lower()
            bodiless = headers.get("content-length", "0") == "0" and "transfer-encoding" not in headers
            if media != "application/json" and not (bodiless and "content-type" not in headers):
                return 415, ProtocolError("json_required")
            length = headers.get("content-length")
            if length is not None and (not length.isascii() or not length.isdigit()
                                       or len(length) > 18 or int(length) > policy.body_bytes):
                return 413, ProtocolError("body_too_large", max=policy.body_bytes)
        return None

    async def _limited(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the app, counting the body's bytes as they stream in; past the limit, 413."""
        most = self.policy.body_bytes
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > most:
                    raise BodyTooLarge
            return message

        async def sending(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted, sending)
        except BodyTooLarge:
            if not started:
                await _respond(send, *refusal(413, ProtocolError("body_too_large", max=most)))
        except ClientDisconnect:  # gone in the middle of its body: nobody to answer, nothing to log but a line
            log.info("client gone during %s %s", scope.get("method"), scope.get("path"),
                     extra={"event": "client_gone", "client": _client(scope)})


def _headers(scope: Scope) -> dict[str, str]:
    """The request's headers by lower-case name (the first of repeated ones)."""
    found: dict[str, str] = {}
    for name, value in scope.get("headers", []):
        found.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
    return found


def _repeated(scope: Scope) -> str | None:
    """The first of the :data:`ONCE` headers the request sends more than once, else None."""
    names = [name.lower() for name, _ in scope.get("headers", [])]
    return next((name for name in ONCE if names.count(name.encode()) > 1), None)


def _client(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "?"


async def _respond(send: Send, status: int, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def _deny_websocket(send: Send) -> None:
    """Refuse a websocket handshake: a close before accepting, which the client sees as HTTP
    403. (The ASGI denial response could carry the JSON error, but uvicorn then logs an
    error for every refusal; the reason is in the server's log line instead.)"""
    await send({"type": "websocket.close", "code": 1008})
