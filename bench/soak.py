"""Soak: hostile traffic and ordinary play together against a real ``binokel serve``, for a set time.

Starts a server (``nice``-d, 127.0.0.1, a temporary SQLite file, its log in a file), then
for ``--seconds`` runs side by side:

- the load generator (``bench/load.py capacity --url ...``: tables of people playing);
- hostile clients: random frames (the fuzzer's: wrong types, huge numbers, Unicode digits,
  binary, invalid UTF-8, unknown fields, stale and out-of-turn actions) over websockets,
  random HTTP requests (wrong content types, huge and chunked bodies, foreign Host and
  Origin headers), websockets from another origin, and clients that stop reading;

and prints what it saw: requests and frames sent, answers by HTTP status and by error
code, close codes, the server's RSS before, at the peak and after the clients left, the
tracebacks in the server's log (should be 0) and the load generator's own report.

    python bench/soak.py [--seconds 20] [--hostile 8] [--tables 6] [--slow 20] [--json]

Bounded: the run stops after ``--seconds`` (plus setup and a few seconds to wind down).
Numbers only; the test suite never asserts on time.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

ROOT = Path(__file__).resolve().parent.parent
UNICODE_DIGITS = ["²", "¹⁶⁰", "١٥٠", "１６０", "𝟏𝟔𝟎", "1" * 5000, "-160", "1e3"]
TYPES = ["hello", "action", "hint", "sync", "next_deal", "rematch", "chat", "events", "dance", ""]


def rss(pid: int) -> int:
    """Resident bytes of a process (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0


def start_server(db: str, log: Path) -> tuple[subprocess.Popen[str], str]:
    command = ["nice", "-n", "5", sys.executable, "-m", "binokel", "serve", "--port", "0", "--db", db,
               "--think", "0", "--log-format", "json"]
    # bench/load.py replays seeded tables with seats for people: a development server's setting
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "BINOKEL_SEEDS_WITH_FRIENDS": "1"}
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log.open("w"), text=True, env=env)
    assert server.stdout is not None
    found = re.search(r"http://[\d.]+:\d+", server.stdout.readline())
    if not found:
        server.kill()
        raise SystemExit("the server did not start")
    for _ in range(100):
        try:
            if httpx.get(found[0] + "/healthz", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.1)
    return server, found[0]


def random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 2 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 1, 2**31, 2**70, -(2**70), rng.randrange(-10, 100)])
    if kind == 3:
        return rng.choice([0.5, -1e300, 1e300])
    if kind == 4:
        return rng.choice(UNICODE_DIGITS)
    if kind == 5:
        return "".join(chr(rng.randrange(32, 0x2FFF)) for _ in range(rng.randrange(12)))
    if kind in (6, 7):
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {f"k{i}": random_value(rng, depth + 1) for i in range(rng.randrange(4))}


def random_frame(rng: random.Random, version: int) -> str | bytes:
    """One hostile frame: mostly protocol-shaped messages with wrong parts."""
    roll = rng.random()
    if roll < 0.1:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))  # binary
    if roll < 0.15:
        return rng.choice(["x" * 20_000, "[" * 50_000, "{nope", "NaN", '{"type": "sync"' + "}" * 5])
    message: dict[str, Any] = {"type": rng.choice(TYPES)}
    for key in ("action", "version", "since", "seat", "text", "phrase", "token", "unknown"):
        if rng.random() < 0.4:
            message[key] = random_value(rng)
    if message["type"] == "action" and rng.random() < 0.5:
        message.update(action=rng.choice(UNICODE_DIGITS + ["pass", "160", "AS"]),
                       version=rng.choice([version, version - 1, version + 5]))
    return json.dumps(message)


class Seen:
    """What the hostile clients saw."""

    def __init__(self) -> None:
        self.requests = 0
        self.frames = 0
        self.statuses: collections.Counter[int] = collections.Counter()
        self.codes: collections.Counter[str] = collections.Counter()
        self.closes: collections.Counter[str] = collections.Counter()
        self.errors: collections.Counter[str] = collections.Counter()


async def fuzz_socket(url: str, game_id: str, token: str | None, rng: random.Random, stop: asyncio.Event,
                      seen: Seen) -> None:
    """Random frames over one websocket, reconnecting whenever the server closes it."""
    while not stop.is_set():
        try:
            async with connect(f"{url}/ws/games/{game_id}", open_timeout=10, ping_interval=None,
                               max_size=None) as ws:
                await ws.send(json.dumps({"type": "hello", "token": token}))
                version = 0
                while not stop.is_set():
                    await ws.send(random_frame(rng, version))
                    seen.frames += 1
                    try:
                        while True:
                            reply = json.loads(await asyncio.wait_for(ws.recv(), 0.05))
                            version = reply.get("version") or version
                            if reply.get("type") == "error":
                                seen.codes[reply.get("code", "?")] += 1
                    except TimeoutError:
                        pass
        except ConnectionClosed as closed:
            seen.closes[str(closed.rcvd.code if closed.rcvd else "none")] += 1
        except (OSError, InvalidStatus, TimeoutError) as error:
            seen.errors[type(error).__name__] += 1
            await asyncio.sleep(0.2)


def raw_ws(port: int, path: str, headers: str = "", buffer: int | None = None) -> tuple[socket.socket, bytes]:
    """A websocket opened by hand, and the server's answer to the handshake."""
    sock = socket.socket()
    if buffer:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, buffer)
    sock.settimeout(5)
    sock.connect(("127.0.0.1", port))
    sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                  "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                  f"Sec-WebSocket-Version: 13\r\n{headers}\r\n").encode())
    answer = b""
    while b"\r\n\r\n" not in answer:  # frames sent before the 101 would be read as part of the request
        chunk = sock.recv(1)
        if not chunk:
            break
        answer += chunk
    return sock, answer


def masked(payload: bytes, opcode: int = 1) -> bytes:
    size = len(payload)
    length = bytes([0x80 | size]) if size < 126 else bytes([0x80 | 126]) + size.to_bytes(2, "big")
    head = bytes([0x80 | opcode]) + length
    return head + b"\0\0\0\0" + payload


async def raw_attacks(url: str, game_id: str, rng: random.Random, stop: asyncio.Event, seen: Seen,
                      slow_count: int) -> None:
    """Invalid UTF-8 frames, foreign-origin websockets and clients that stop reading."""
    port = int(url.rsplit(":", 1)[1])
    path = f"/ws/games/{game_id}"
    slow: list[socket.socket] = []
    while not stop.is_set():
        choice = rng.randrange(3)
        try:
            if choice == 0:
                sock, _ = await asyncio.to_thread(raw_ws, port, path)
                sock.sendall(masked(b"\xff\xfe" + bytes(rng.randrange(256) for _ in range(8))))
                seen.frames += 1
                sock.close()
            elif choice == 1:
                sock, answer = await asyncio.to_thread(raw_ws, port, path, "Origin: https://evil.example\r\n")
                seen.closes["origin " + answer[9:12].decode(errors="replace")] += 1
                sock.close()
            elif len(slow) < slow_count:
                sock, _ = await asyncio.to_thread(raw_ws, port, path, "", 2048)
                sock.sendall(masked(json.dumps({"type": "hello", "token": None}).encode()))
                slow.append(sock)  # never read again
        except OSError as error:
            seen.errors[type(error).__name__] += 1
        await asyncio.sleep(0.05)
    for sock in slow:
        sock.close()


async def fuzz_http(url: str, game_id: str, rng: random.Random, stop: asyncio.Event, seen: Seen) -> None:
    routes = [("POST", "/api/games"), ("POST", "/api/join"), ("POST", "/api/invite"), ("POST", "/api/my-games"),
              ("GET", "/api/rules?text=standard(target=10000000000)"), ("GET", "/api/rules?text=standard(target=²)"),
              ("POST", f"/api/games/{game_id}/invites"), ("DELETE", f"/api/games/{game_id}"),
              ("GET", f"/api/games/{game_id}/record"), ("POST", "/api/review")]
    async with httpx.AsyncClient(base_url=url, timeout=10) as http:
        while not stop.is_set():
            method, path = rng.choice(routes)
            headers = {}
            roll = rng.random()
            content: Any = json.dumps(random_value(rng)).encode()
            if roll < 0.15:
                headers["content-type"] = "text/plain"
            elif roll < 0.25:
                headers["host"] = "evil.example"
            elif roll < 0.35:
                headers.update({"origin": "https://evil.example", "content-type": "application/json"})
            elif roll < 0.4:
                headers["content-type"] = "application/json"
                content = b"x" * (600 * 1024)
            else:
                headers["content-type"] = "application/json"
            try:
                response = await http.request(method, path, content=None if method == "GET" else content,
                                              headers=headers)
                seen.statuses[response.status_code] += 1
                if response.status_code >= 400 and "json" in response.headers.get("content-type", ""):
                    with_code = response.json()
                    if isinstance(with_code, dict) and "code" in with_code:
                        seen.codes[str(with_code["code"])] += 1
            except httpx.HTTPError as error:
                seen.errors[type(error).__name__] += 1
            seen.requests += 1
            await asyncio.sleep(0)


async def hostile(url: str, clients: int, seconds: float, seed: int, slow: int,
                  probes: collections.Counter[str] | None = None) -> Seen:
    seen = Seen()
    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=url, timeout=10) as http:
        game = (await http.post("/api/games", json={"seats": ["me", "open", "easy"]})).json()
        bots = (await http.post("/api/games", json={"seats": ["easy", "easy", "easy"], "seed": seed,
                                                    "rules": "standard(target=10000)",
                                                    "next_deal_after": 0.01})).json()  # a busy table
    stop = asyncio.Event()
    ws_url = "ws" + url[4:]
    tasks = [asyncio.ensure_future(fuzz_socket(ws_url, game["id"], game["token"] if i % 2 else None,
                                               random.Random(rng.random()), stop, seen)) for i in range(clients)]
    tasks.append(asyncio.ensure_future(fuzz_http(url, game["id"], random.Random(rng.random()), stop, seen)))
    tasks.append(asyncio.ensure_future(raw_attacks(url, bots["id"], random.Random(rng.random()), stop, seen,
                                                   slow)))
    if probes is not None:
        tasks += await abuse(url, seconds, seed, stop, seen, probes)
    await asyncio.sleep(seconds)
    stop.set()
    await asyncio.wait(tasks, timeout=15)
    for task in tasks:
        task.cancel()
    return seen


# ---------------------------------------------------------------------- a hostile client's abuse patterns
# Each comes from its own loopback address (any 127.x address is this computer), as an
# attacker's would, so the load generator's tables (127.0.0.1) keep their own quotas.


async def events_flood(ws_url: str, game_id: str, source: str, stop: asyncio.Event, seen: Seen) -> None:
    """Spectators asking for the whole history (``events`` since 0) as fast as they may."""
    while not stop.is_set():
        try:
            async with connect(f"{ws_url}/ws/games/{game_id}", local_addr=(source, 0), max_size=None) as ws:
                await ws.send(json.dumps({"type": "hello", "token": None}))
                while not stop.is_set():
                    await ws.send(json.dumps({"type": "events", "since": 0}))
                    seen.frames += 1
                    with contextlib.suppress(TimeoutError):
                        answer = json.loads(await asyncio.wait_for(ws.recv(), 0.05))
                        if answer.get("type") == "error":
                            seen.codes[str(answer.get("code"))] += 1
        except (ConnectionClosed, OSError, InvalidStatus) as error:
            seen.closes[f"events flood: {getattr(getattr(error, 'rcvd', None), 'code', type(error).__name__)}"] += 1
            await asyncio.sleep(0.2)


async def review_flood(url: str, game_id: str, source: str, stop: asyncio.Event, seen: Seen) -> None:
    """Reviews of a finished deal of the busy bot table, again and again."""
    transport = httpx.AsyncHTTPTransport(local_address=source)
    async with httpx.AsyncClient(base_url=url, timeout=60, transport=transport) as http:
        while not stop.is_set():
            try:
                response = await http.get(f"/api/games/{game_id}/review", params={"deal": 0, "seat": 0})
                seen.statuses[response.status_code] += 1
                if response.status_code >= 400:
                    seen.codes[str(response.json().get("code"))] += 1
                    await asyncio.sleep(0.05)
            except httpx.HTTPError as error:
                seen.errors[type(error).__name__] += 1
            seen.requests += 1


async def spectator_crowd(ws_url: str, game_id: str, sources: list[str], size: int, stop: asyncio.Event,
                          seen: Seen) -> None:
    """``size`` watch-link sockets from each source held open (refused ones counted)."""
    held = []
    for source in sources:
        for _ in range(size):
            try:
                ws = await connect(f"{ws_url}/ws/games/{game_id}", local_addr=(source, 0))
                await ws.send(json.dumps({"type": "hello", "token": None}))
                first = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if first.get("type") == "error":
                    seen.codes[str(first.get("code"))] += 1
                held.append(ws)
            except (ConnectionClosed, OSError, InvalidStatus, TimeoutError) as error:
                seen.errors[f"crowd: {type(error).__name__}"] += 1
    await stop.wait()
    for ws in held:
        with contextlib.suppress(Exception):
            await ws.close()


async def seat_probe(ws_url: str, game_id: str, token: str, stop: asyncio.Event, seen: Seen,
                     probes: collections.Counter[str]) -> None:
    """The seat's holder reconnects now and then: never locked out by the crowd."""
    while not stop.is_set():
        await asyncio.sleep(2)
        try:
            async with connect(f"{ws_url}/ws/games/{game_id}") as ws:
                await ws.send(json.dumps({"type": "hello", "token": token}))
                first = json.loads(await asyncio.wait_for(ws.recv(), 10))
                probes["locked_out" if first.get("type") == "error" else "seated"] += 1
        except (ConnectionClosed, OSError, InvalidStatus, TimeoutError):
            probes["locked_out"] += 1


async def transport_abuse(url: str, source: str, rng: random.Random, stop: asyncio.Event, seen: Seen) -> None:
    """Slow bodies (a byte now and then), huge heads (200 KB), forged X-Forwarded-For."""
    host, port = "127.0.0.1", int(url.rsplit(":", 1)[1])
    trickling: list[socket.socket] = []
    transport = httpx.AsyncHTTPTransport(local_address=source)
    async with httpx.AsyncClient(base_url=url, timeout=10, transport=transport) as http:
        while not stop.is_set():
            choice = rng.randrange(3)
            try:
                if choice == 0 and len(trickling) < 40:
                    sock = socket.create_connection((host, port), source_address=(source, 0))
                    sock.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                                 b"\r\nContent-Length: 5000\r\n\r\n{")
                    trickling.append(sock)
                elif choice == 1:
                    sock = socket.create_connection((host, port), source_address=(source, 0))
                    with contextlib.suppress(OSError):
                        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 200_000
                                     + b"\r\n\r\n")
                    sock.settimeout(5)
                    with contextlib.suppress(OSError):
                        answer = await asyncio.to_thread(sock.recv, 200)
                        seen.statuses[int(answer.split(b" ")[1]) if answer[:5] == b"HTTP/" else 0] += 1
                    sock.close()
                else:
                    forged = f"{rng.randrange(1, 255)}.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(256)}"
                    response = await http.post("/api/games", json={"seats": ["easy", "easy", "easy"]},
                                               headers={"X-Forwarded-For": forged})
                    seen.statuses[response.status_code] += 1
                    if response.status_code == 200:  # a table made: take it away again
                        answer = response.json()
                        await http.request("DELETE", f"/api/games/{answer['id']}",
                                           headers={"Authorization": f"Bearer {answer['token']}"})
                seen.requests += 1
                for sock in list(trickling):  # a byte each
                    try:
                        sock.sendall(b" ")
                    except OSError:
                        seen.closes["slow body cut off"] += 1
                        trickling.remove(sock)
                        sock.close()
            except (OSError, httpx.HTTPError) as error:
                seen.errors[f"transport: {type(error).__name__}"] += 1
            await asyncio.sleep(0.1)
    for sock in trickling:
        sock.close()


async def abuse(url: str, seconds: float, seed: int, stop: asyncio.Event, seen: Seen,
                probes: collections.Counter[str]) -> list[asyncio.Future[None]]:
    """Start the abuse patterns (they run until ``stop``)."""
    rng = random.Random(seed)
    ws_url = "ws" + url[4:]
    async with httpx.AsyncClient(base_url=url, timeout=10) as http:
        watched = (await http.post("/api/games", json={"seats": ["me", "open", "easy"]})).json()
        reviewed = (await http.post("/api/games", json={"seats": ["easy", "easy", "easy"],
                                                        "rules": "standard(deals=1)"})).json()
    # the reviewed table plays its one deal while somebody watches it
    watcher = await connect(f"{ws_url}/ws/games/{reviewed['id']}")
    await watcher.send(json.dumps({"type": "hello", "token": None}))
    tasks = [asyncio.ensure_future(events_flood(ws_url, watched["id"], f"127.0.0.{20 + n}", stop, seen))
             for n in range(10)]
    tasks += [asyncio.ensure_future(review_flood(url, reviewed["id"], f"127.0.0.{40 + n}", stop, seen))
              for n in range(4)]
    tasks.append(asyncio.ensure_future(spectator_crowd(ws_url, watched["id"], [f"127.0.0.{60 + n}" for n in range(5)],
                                                       12, stop, seen)))
    tasks.append(asyncio.ensure_future(seat_probe(ws_url, watched["id"], watched["token"], stop, seen, probes)))
    tasks += [asyncio.ensure_future(transport_abuse(url, f"127.0.0.{80 + n}", random.Random(rng.random()), stop,
                                                    seen)) for n in range(3)]

    async def close_watcher() -> None:
        await stop.wait()
        with contextlib.suppress(Exception):
            await watcher.close()
    tasks.append(asyncio.ensure_future(close_watcher()))
    return tasks


def tracebacks(log: Path) -> int:
    """Tracebacks (or errors) in the server's JSON log."""
    count = 0
    for line in log.read_text(errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            count += "Traceback" in line
            continue
        count += "traceback" in entry or entry.get("level") in ("error", "critical")
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="how long both run (default 20)")
    parser.add_argument("--hostile", type=int, default=8, help="fuzzing websockets at once (default 8)")
    parser.add_argument("--tables", type=int, default=6, help="tables of the load generator (default 6)")
    parser.add_argument("--slow", type=int, default=20, help="spectators of a busy bot table that stop reading "
                        "(default 20)")
    parser.add_argument("--baseline", type=float, default=0.0, metavar="SECONDS",
                        help="first run the load generator alone this long, for its unloaded latency (default 0: no)")
    parser.add_argument("--no-abuse", action="store_true", help="leave out the abuse patterns (events replay "
                        "floods, review floods, spectator crowds, slow bodies, huge heads, forged forwarded headers)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "server.log"
        server, url = start_server(str(Path(tmp) / "games.sqlite3"), log)
        try:
            baseline = None
            if args.baseline > 0:  # the same tables' latency with nobody else on the server
                subprocess.run([sys.executable, str(ROOT / "bench" / "load.py"), "capacity", "--url", url,
                                "--tables", str(args.tables), "--seconds", str(args.baseline), "--warmup", "1",
                                "--json", str(Path(tmp) / "baseline.json")], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
                               timeout=args.baseline + 180)
                with contextlib.suppress(OSError, ValueError):
                    baseline = json.loads((Path(tmp) / "baseline.json").read_text()).get("latency_ms")
                time.sleep(3)
            probes: collections.Counter[str] = collections.Counter()
            before = rss(server.pid)
            load = subprocess.Popen([sys.executable, str(ROOT / "bench" / "load.py"), "capacity", "--url", url,
                                     "--tables", str(args.tables), "--seconds", str(args.seconds), "--warmup", "1",
                                     "--json", str(Path(tmp) / "load.json")],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
            peak = [before]

            async def watch() -> Seen:
                async def sample() -> None:
                    while True:
                        peak.append(rss(server.pid))
                        await asyncio.sleep(0.5)
                sampler = asyncio.ensure_future(sample())
                try:
                    return await hostile(url, args.hostile, args.seconds, args.seed, args.slow,
                                         None if args.no_abuse else probes)
                finally:
                    sampler.cancel()

            seen = asyncio.run(watch())
            load.wait(timeout=args.seconds + 180)
            time.sleep(3)  # the clients are gone: let the server let go of them
            after = rss(server.pid)
            health = httpx.get(url + "/healthz", timeout=10).status_code
            exposition = httpx.get(url + "/metrics", timeout=10).text
            refused = {found[1]: float(found[2]) for found in
                       re.finditer(r'^binokel_refused_total\{reason="([^"]+)"\} (\S+)$', exposition, re.M)}
            connections = re.search(r"^binokel_connections (\S+)$", exposition, re.M)
            load_path = Path(tmp) / "load.json"
            load_report = json.loads(load_path.read_text()) if load_path.exists() else None
        finally:
            server.terminate()
            server.wait(timeout=30)
        report = {
            "seconds": args.seconds, "hostile_websockets": args.hostile, "load_tables": args.tables,
            "slow_readers": args.slow,
            "http_requests": seen.requests, "frames": seen.frames,
            "http_statuses": dict(sorted(seen.statuses.items())),
            "server_errors_5xx": sum(n for status, n in seen.statuses.items() if status >= 500),
            "error_codes": dict(seen.codes.most_common()), "closes": dict(seen.closes.most_common()),
            "client_side_errors": dict(seen.errors),
            "rss_mb": {"before": round(before / 2**20, 1), "peak": round(max(peak) / 2**20, 1),
                       "after": round(after / 2**20, 1)},
            "tracebacks_in_log": tracebacks(log), "healthz_after": health,
            "server_refused": refused, "server_connections_after": float(connections[1]) if connections else None,
            "load": {key: load_report.get(key) for key in ("people_actions", "server_steps_per_second", "errors",
                                                            "latency_ms", "connections_failed")
                     if key in load_report} if load_report else None,
            "load_unloaded_latency_ms": baseline,
            "seat_probes": dict(probes),
        }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"soak of {args.seconds:g} s: {seen.requests} hostile HTTP requests, {seen.frames} hostile frames, "
          f"load generator on {args.tables} tables")
    print(f"  HTTP statuses: {report['http_statuses']} (5xx: {report['server_errors_5xx']})")
    print(f"  error codes:   {report['error_codes']}")
    print(f"  closes:        {report['closes']}")
    print(f"  server RSS:    {report['rss_mb']['before']} MB before, {report['rss_mb']['peak']} MB at the peak, "
          f"{report['rss_mb']['after']} MB after")
    print(f"  slow readers dropped by the server: {refused.get('too_slow', 0):g}; connections left after: "
          f"{report['server_connections_after']}")
    print(f"  tracebacks in the server log: {report['tracebacks_in_log']}; /healthz after: {health}")
    print(f"  load generator: {report['load']}")
    print(f"  the same tables unloaded (--baseline): {baseline}")
    print(f"  the seat holder reconnecting beside the spectator crowd: {dict(probes)}")


if __name__ == "__main__":
    main()
