"""Load benchmark: simulated people over real websockets against a ``binokel serve``.

The benchmark starts the server itself (``nice``-d, on 127.0.0.1, a temporary SQLite file
unless ``--db`` names a database; ``--workers N`` for N processes: one ``serve --workers N``
whose kernel spreads the sockets, or with ``--route table`` N servers on N ports, each
table's people at one of them, as a proxy routing by game id would) or uses a running one
(``--url``). It makes ``--tables`` tables of people (``POST /api/games`` and two joins),
connects each person's websocket and plays for ``--seconds``, then stops by itself and
prints (and with ``--json FILE`` writes) what it measured. Each table's requests come from
its own loopback address (127.1.x.y), as different people's would, so the server's
per-address limits apply per table and not to the whole benchmark.

Modes:

- ``capacity``: every person acts as soon as it is their turn (a random legal action).
  Reports steps/s stored by the server (people's actions, bots' moves, deals), the server's
  CPU time (all its processes) and so **actions per second per server core**, the latency
  from sending an action to hearing it back (p50/p95/p99), and errors.
- ``idle``: everybody is seated and connected and nobody acts (the first person to move
  thinks for ever; a bot does not move at a table of people): what a table costs the
  server while people think, ``server_cpu_cores`` per ``tables``.
- ``realistic``: each person thinks 1–3 s before each action (and before "next deal");
  every ``--bot-every``-th table has an easy bot in its third seat. Reports the latency from
  a person's action to the update that tells it (bots' thinking is not in it: only people's
  actions are timed), errors, the server's RSS and CPU.

    python bench/load.py capacity --tables 50 --seconds 30 [--db postgresql://…] [--workers 2 [--route table]]
    python bench/load.py realistic --tables 1000 --seconds 60 --json out.json

Bounded: ``--seconds`` of play after everybody is seated (plus the time to seat them, itself
bounded by ``--setup-seconds``), then every socket is closed and the server stopped. Numbers
only: the test suite never asserts on time. The load generator shares the machine's cores
with the server; its own CPU time is reported too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
from binokel.server.limits import Bucket, Limits
from binokel.update import apply_update  # this tree's reading of the channel (the page's twin)

TICKS = os.sysconf("SC_CLK_TCK")
PING = json.dumps({"type": "ping"}, separators=(",", ":"))  # as the page's JSON.stringify writes it
SILENT = 1.8  # as web/js/channel.js: once the server's beat was heard, this much silence is a dead line
ANSWER = 1.0  # ... before it, a ping unanswered this long is


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)  # seconds, action sent -> heard back
    actions: int = 0  # people's actions acknowledged
    errors: list[str] = field(default_factory=list)
    deals: int = 0
    measuring: bool = False
    pings: int = 0  # pings sent (while measuring)
    beats: int = 0  # beats heard (while measuring)
    lines_lost: int = 0  # a line the page would have taken for dead (while measuring; nobody reconnects here)


@dataclass
class Line:
    """A person's heartbeat, as the page keeps it (web/js/channel.js)."""

    heard: float  # when a message last came (time.monotonic)
    pinged: float = 0.0  # when the unanswered ping went out (0: none)
    beating: bool = False  # the server's beat was heard: silence alone tells a dead line

    def heard_now(self, kind: str, stats: Stats) -> None:
        """A message came: would the page have taken the line for dead before it?"""
        now = time.monotonic()
        lost = (now - self.pinged >= ANSWER) if self.pinged else (self.beating and now - self.heard >= SILENT)
        if stats.measuring:
            stats.lines_lost += lost
            stats.beats += kind == "beat"
        self.heard, self.pinged = now, 0.0
        self.beating = self.beating or kind == "beat"


def source_address(table: int) -> str:
    """The loopback address a table's people come from (Linux routes all of 127/8 to lo)."""
    return f"127.1.{table // 250}.{table % 250 + 1}"


async def make_table(http: str, index: int, bot: bool) -> tuple[str, list[str]]:
    """A table of three people (or two and an easy bot): its id and the people's tokens (the
    server picks the seed: a table with friends may not choose its deals)."""
    seats = ["me", "open", "easy" if bot else "open"]
    created = await post_json(http, "/api/games", {"rules": "standard", "seats": seats, "name": "P0"}, index)
    tokens = [created["token"]]
    for number, invite in enumerate(created["invites"]["seats"], 1):
        joined = await post_json(http, "/api/join", {"code": invite["code"], "name": f"P{number}"}, index)
        tokens.append(joined["token"])
    return created["id"], tokens


async def post_json(http: str, path: str, body: dict[str, Any], table: int) -> Any:
    """One POST over a plain HTTP/1.1 connection of its own, from the table's address. (A
    generic client per table costs the load generator more CPU than the server spends.)"""
    parts = urllib.parse.urlsplit(http)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    local = (source_address(table), 0) if host.startswith("127.") else None
    reader, writer = await asyncio.open_connection(host, port, local_addr=local)
    try:
        data = json.dumps(body).encode()
        writer.write(f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode() + data)
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        status = int(head.split(" ", 2)[1])
        text = await reader.read()
        if "transfer-encoding: chunked" in head.lower():
            text = _unchunk(text)
        if status != 200:
            raise RuntimeError(f"{path} answered {status}: {text[:100]!r}")
        return json.loads(text)
    finally:
        writer.close()


def _unchunk(raw: bytes) -> bytes:
    body = b""
    while raw:
        size, _, rest = raw.partition(b"\r\n")
        length = int(size, 16)
        if length == 0:
            break
        body, raw = body + rest[:length], rest[length + 2:]
    return body


async def person(ws_url: str, table: int, game_id: str, token: str, think: tuple[float, float],
                 stats: Stats, rng: random.Random, quiet: float = 0.0, beat: bool = True) -> None:
    """One person at a table: acts on their turn (after thinking), asks for the next deal;
    until the game ends or the run cancels them. A plain receive loop: the generator's CPU
    per message stays small (it shares the cores with the server). ``quiet`` > 0: the page's
    heartbeat too: the hello asks for the server's beat (unless not ``beat``: an older page),
    and until one is heard a ping goes out after ``quiet`` seconds without a message."""
    host = urllib.parse.urlsplit(ws_url).hostname or "127.0.0.1"
    local = (source_address(table), 0) if host.startswith("127.") else None
    async with connect(f"{ws_url}/ws/games/{game_id}", local_addr=local, open_timeout=60, ping_interval=None,
                       max_size=None) as ws:
        hello: dict[str, Any] = {"type": "hello", "token": token}
        if quiet > 0 and beat:
            hello["beat"] = True
        await ws.send(json.dumps(hello))
        line = Line(time.monotonic())
        beating = asyncio.ensure_future(heartbeat(ws, quiet, line, stats)) if quiet > 0 else None
        try:
            await follow(ws, think, stats, rng, line)
        finally:
            if beating is not None:
                beating.cancel()


async def heartbeat(ws: Any, quiet: float, line: Line, stats: Stats) -> None:
    """As web/js/channel.js: one ``ping`` after ``quiet`` seconds without a message (its
    ``pong`` is a message, so a quiet line is pinged about every ``quiet`` seconds), until
    the server's beat is heard (then the server keeps the line from being quiet)."""
    while not line.beating:
        due = (line.pinged or line.heard) + quiet - time.monotonic()
        if due > 0:
            await asyncio.sleep(due)
            continue
        line.pinged = time.monotonic()  # not twice while the pong is on its way
        stats.pings += stats.measuring
        await ws.send(PING)


async def follow(ws: Any, think: tuple[float, float], stats: Stats, rng: random.Random, line: Line) -> None:
    """A person's receive loop (``person``). While a person thinks, the loop reads on (as the
    page does: the server's beats and pongs are heard meanwhile); the move goes out from a task."""
    pending: list[tuple[int, float] | None] = [None]  # (version acted at, when sent)
    answered = -1
    model: dict[str, Any] = {}  # the last snapshot, brought up to date by each update (as the page does)
    thinker: asyncio.Future[None] | None = None
    # A person acting at once (capacity) keeps under the server's limit of messages per
    # connection, as a person would: a table that runs fast is not refused for flooding.
    limits = Limits()
    pace = Bucket(0.9 * limits.messages_per_second, limits.message_burst // 2) if think[1] == 0 else None
    try:
        async for text in ws:
            message = json.loads(text)
            kind = message["type"]
            line.heard_now(kind, stats)
            version = message.get("version")
            # The step is told by its ``update`` (or, from a server before the update
            # channel, by its ``events`` and then a ``state``).
            sent = pending[0]
            if sent is not None and isinstance(version, int) and version > sent[0] and kind in ("update", "events"):
                if stats.measuring:
                    stats.latencies.append(time.perf_counter() - sent[1])
                    stats.actions += 1
                pending[0] = None
            if kind == "error":
                if stats.measuring:
                    stats.errors.append(str(message.get("message"))[:120])
                pending[0], answered = None, -1
                continue
            if kind not in ("state", "update") or (kind == "update" and not model):
                continue
            model = apply_update(model, message)
            if version == answered:
                continue
            seen = model["view"]
            if model["game"]["over"]:
                break
            if seen["phase"] == "over" or (seen["to_move"] == model["seat"] and seen["legal_actions"]):
                answered = version
                move = reply(ws, think, rng, version, None if seen["phase"] == "over" else seen["legal_actions"],
                             pending, stats, pace)
                if think[1] > 0:
                    thinker = asyncio.ensure_future(move)
                else:
                    await move
    finally:
        if thinker is not None:
            thinker.cancel()


async def reply(ws: Any, think: tuple[float, float], rng: random.Random, version: int, legal: list[str] | None,
                pending: list[tuple[int, float] | None], stats: Stats, pace: Bucket | None = None) -> None:
    """After thinking (or, acting at once, within ``pace``): a legal action (``legal``), or
    ready for the next deal (None)."""
    await thinking(think, rng)
    while pace is not None and not pace.take():
        await asyncio.sleep((1 - pace.tokens) / pace.rate)
    if legal is None:
        await ws.send(json.dumps({"type": "next_deal", "version": version}))
        if stats.measuring:
            stats.deals += 1
        return
    action = rng.choice(legal)
    pending[0] = (version, time.perf_counter())
    await ws.send(json.dumps({"type": "action", "action": action, "version": version}))


async def thinking(think: tuple[float, float], rng: random.Random) -> None:
    if think[0] == math.inf:
        await asyncio.get_running_loop().create_future()  # for ever (until the run cancels the person)
    elif think[1] > 0:
        await asyncio.sleep(rng.uniform(*think))


# ---------------------------------------------------------------------- the server and its processes

def start_server(db: str, workers: int, src: Path | None = None) -> tuple[subprocess.Popen[str], str]:
    command = ["nice", "-n", "5", sys.executable, "-m", "binokel", "serve", "--port", "0", "--db", db,
               "--think", "0", "--workers", str(workers)]
    env = {**os.environ, "PYTHONPATH": str(src or Path(__file__).resolve().parent.parent / "src")}
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    assert server.stdout is not None
    line = server.stdout.readline()
    found = re.search(r"http://[\d.]+:\d+", line)
    if not found:
        server.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    for _ in range(300):  # the workers of --workers start after the supervisor's line
        try:
            if httpx.get(found[0] + "/healthz", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    return server, found[0]


def process_tree(root: int) -> list[int]:
    """``root`` and its descendants (the workers of ``--workers``)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def cpu_and_rss(pids: list[int]) -> tuple[float, int]:
    """CPU seconds (user + system) and resident bytes of these processes."""
    cpu, rss = 0.0, 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            cpu += (int(fields[11]) + int(fields[12])) / TICKS
            rss += int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    return cpu, rss


def postgres_pids() -> list[int]:
    """This machine's PostgreSQL processes (the server's own backends among them): their CPU
    competes with the server's on a small machine and is not in the server's."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if stat[stat.find("(") + 1:stat.rfind(")")] == "postgres":
                found.append(int(entry.name))
    return found


def machine_busy() -> float:
    """Seconds of CPU the whole machine spent busy (every core; /proc/stat's first line)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / TICKS  # all but idle and iowait


def percentile(values: list[float], share: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def metric(text: str, name: str) -> float:
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(name + " "))


# ---------------------------------------------------------------------- one run

async def run(args: argparse.Namespace) -> dict[str, Any]:
    servers: list[subprocess.Popen[str]] = []
    urls = [args.url] if args.url else []
    tmp = None
    if not urls:
        db = args.db
        if db is None:
            tmp = tempfile.TemporaryDirectory()
            db = str(Path(tmp.name) / "games.sqlite3")
        # --route table: one process per port, each table at one of them (as a proxy that
        # routes by game id would); else one `serve --workers K` whose kernel spreads sockets.
        for _ in range(args.workers if args.route == "table" else 1):
            started, url = start_server(db, 1 if args.route == "table" else args.workers, args.src)
            servers.append(started)
            urls.append(url)
    https = [url.rstrip("/") for url in urls]
    server = bool(servers)
    processes = args.workers if args.route == "spread" else 1  # behind each address

    def tree() -> list[int]:
        return [pid for started in servers for pid in process_tree(started.pid)]

    def metrics_now() -> Any:
        return asyncio.gather(*(fetch_all(http, processes) for http in https))
    rng = random.Random(args.seed)
    think = {"realistic": (1.0, 3.0), "capacity": (0.0, 0.0), "idle": (math.inf, math.inf)}[args.mode]
    stats = Stats()
    tables: list[tuple[int, str, list[str]]] = []
    setup_failures: list[str] = []
    timed_out = False
    wall = setup = 0.0
    cpu_before = cpu_after = pg_before = pg_after = busy_before = busy_after = 0.0
    local_postgres = args.url is None and (args.db or "").startswith("postgres")
    rss = 0
    metrics_before = metrics_after = ""
    own_start = resource.getrusage(resource.RUSAGE_SELF)
    own_before = own_after = own_start
    people: list[asyncio.Future[None]] = []
    try:
        started = time.monotonic()
        cpu_start, _ = cpu_and_rss(tree())
        semaphore = asyncio.Semaphore(20)

        async def seat(index: int) -> tuple[int, str, list[str]]:
            """Make a table, and its people connect at once (as friends following a link would)."""
            async with semaphore:
                bot = args.mode == "realistic" and args.bot_every > 0 and index % args.bot_every == 0
                http = https[index % len(https)]
                game_id, tokens = await make_table(http, index, bot)
            people.extend(asyncio.ensure_future(person("ws" + http[4:], index, game_id, token, think, stats,
                                                       random.Random(rng.random()), args.heartbeat,
                                                       not args.no_beat))
                          for token in tokens)
            return index, game_id, tokens

        seating = [asyncio.ensure_future(seat(i)) for i in range(args.tables)]
        done, pending = await asyncio.wait(seating, timeout=args.setup_seconds)
        for task in pending:
            task.cancel()
        timed_out = bool(pending)
        for task in done:
            if task.exception() is None:
                tables.append(task.result())
            else:
                setup_failures.append(repr(task.exception())[:120])
        setup = time.monotonic() - started
        setup_cpu = cpu_and_rss(tree())[0] - cpu_start
        if not timed_out and tables:
            await asyncio.sleep(args.warmup)
            pids = tree()
            cpu_before, _ = cpu_and_rss(pids)
            pg_pids = postgres_pids() if local_postgres else []
            pg_before, busy_before = cpu_and_rss(pg_pids)[0], machine_busy()
            own_before = resource.getrusage(resource.RUSAGE_SELF)
            metrics_before = "\n".join(await metrics_now()) if server else ""
            stats.measuring = True
            measured_from = time.monotonic()
            await asyncio.sleep(args.seconds)
            stats.measuring = False
            wall = time.monotonic() - measured_from
            cpu_after, rss = cpu_and_rss(pids)
            pg_after, busy_after = cpu_and_rss(pg_pids)[0], machine_busy()
            own_after = resource.getrusage(resource.RUSAGE_SELF)
            metrics_after = "\n".join(await metrics_now()) if server else ""
        else:
            own_after = resource.getrusage(resource.RUSAGE_SELF)
        # Every socket's end is collected here (a refused or reset one is counted, never a
        # traceback): those that ended by themselves, then the rest once cancelled (their
        # sockets close; a socket that breaks while closing is no failure of the run).
        early = {task for task in people if task.done()}
        for task in people:
            task.cancel()
        ended, _ = await asyncio.wait(people, timeout=30) if people else (set(), set())
        crashed = [repr(task.exception())[:120] for task in ended if not task.cancelled() and task.exception()
                   and (task in early or not isinstance(task.exception(), (ConnectionClosed, OSError)))]
    finally:
        for task in people:
            task.cancel()
        for started in servers:
            started.send_signal(2)
        for started in servers:
            try:
                started.wait(20)
            except subprocess.TimeoutExpired:
                started.kill()
        if tmp is not None:
            tmp.cleanup()
    steps = metric(metrics_after, "binokel_actions_total") - metric(metrics_before, "binokel_actions_total")
    server_cpu = cpu_after - cpu_before
    cores = server_cpu / wall if wall else 0.0
    own_cpu = (own_after.ru_utime + own_after.ru_stime) - (own_before.ru_utime + own_before.ru_stime)
    own_setup_cpu = (own_before.ru_utime + own_before.ru_stime) - (own_start.ru_utime + own_start.ru_stime) \
        if wall else own_cpu
    ms = [1000 * x for x in stats.latencies]
    report: dict[str, Any] = {
        "mode": args.mode, "tables": args.tables, "tables_seated": len(tables),
        "setup_timed_out": timed_out, "setup_failures": len(setup_failures),
        "setup_failure_examples": sorted(set(setup_failures))[:3],
        "setup_server_cpu_seconds": round(setup_cpu, 1) if server else None,
        "setup_load_generator_cpu_seconds": round(own_setup_cpu, 1),
        "people": sum(len(t[2]) for t in tables),
        "db": "postgresql" if (args.db or "").startswith("postgres") else ("sqlite" if args.url is None else "?"),
        "workers": args.workers, "route": args.route if args.workers > 1 else None, "heartbeat": args.heartbeat,
        "beat_asked": bool(args.heartbeat) and not args.no_beat,
        "seconds": round(wall, 1), "setup_seconds": round(setup, 1),
        "people_actions": stats.actions,
        "people_actions_per_second": round(stats.actions / wall, 1) if wall else None,
        "server_steps_per_second": round(steps / wall, 1) if server and wall else None,
        "server_cpu_cores": round(cores, 2) if server else None,
        "server_cpu_seconds": round(server_cpu, 3) if server else None,
        "steps_per_second_per_core": round(steps / server_cpu, 1) if server and server_cpu else None,
        "latency_ms": {"p50": _round(percentile(ms, 0.50)), "p95": _round(percentile(ms, 0.95)),
                       "p99": _round(percentile(ms, 0.99)), "mean": _round(statistics.fmean(ms) if ms else None)},
        "errors": len(stats.errors), "error_examples": sorted(set(stats.errors))[:5],
        # The heartbeat (--heartbeat): pings sent, the server's beats heard, and how often a page
        # would have shown "reconnecting" (a ping unanswered for 1 s, or 1.8 s of silence after a beat).
        "pings_per_second": round(stats.pings / wall, 1) if wall else None,
        "beats_per_second": round(stats.beats / wall, 1) if wall else None,
        "lines_lost": stats.lines_lost,
        "connections_failed": len(crashed), "failure_examples": sorted(set(crashed))[:3],
        "server_side_share_within_ms": server_shares(metrics_before, metrics_after) if server else None,
        # Several processes: steps forwarded from another, appends refused because another
        # wrote first (work done twice), reads of the log for announced steps.
        "server_counts": {name: metric(metrics_after, f"binokel_{name}_total")
                          - metric(metrics_before, f"binokel_{name}_total")
                          for name in ("changes_heard", "version_conflicts", "log_read_backs")} if server else None,
        "server_rss_mb": round(rss / 2**20, 1) if server else None,
        "load_generator_cpu_cores": round(own_cpu / wall, 2) if wall else None,
        # PostgreSQL's own processes (every one on this machine), and the whole machine's busy
        # cores (the server, the generator, the database and whatever else runs beside them).
        "postgres_cpu_cores": round((pg_after - pg_before) / wall, 2) if wall and local_postgres else None,
        "machine_busy_cores": round((busy_after - busy_before) / wall, 2) if wall else None,
        "load_average": round(os.getloadavg()[0], 1),
        "machine_cores": os.cpu_count(),
    }
    return report


def buckets(text: str, name: str) -> dict[float, float]:
    """A histogram's cumulative bucket counts (summed over the processes' expositions)."""
    found: dict[float, float] = {}
    for line in text.splitlines():
        if line.startswith(name + "_bucket{"):
            bound = line.split('le="', 1)[1].split('"', 1)[0]
            if bound != "+Inf":
                found[float(bound)] = found.get(float(bound), 0.0) + float(line.rsplit(" ", 1)[1])
    return found


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def server_shares(before: str, after: str) -> dict[str, float]:
    """The share of people's actions the server handled (arrival to events queued, the
    database write included) within each bound: where the latency is spent."""
    name = "binokel_action_broadcast_seconds"
    start, end = buckets(before, name), buckets(after, name)
    total = metric(after, name + "_count") - metric(before, name + "_count")
    return {f"{1000 * bound:g}": round((end[bound] - start.get(bound, 0.0)) / total, 3)
            for bound in sorted(end) if total and bound in (0.005, 0.01, 0.05, 0.1, 0.25, 1.0)}


async def fetch_all(http: str, workers: int) -> str:
    """Every worker's metrics, one after the other (each new connection reaches some worker:
    ask until each has answered)."""
    texts: dict[str, str] = {}
    for _ in range(100):
        text = await fetch(http, "/metrics")
        label = re.search(r'binokel_process\{process="([^"]+)"\}', text)
        texts[label[1] if label else ""] = text
        if len(texts) >= workers:
            break
    return "\n".join(texts.values())


async def fetch(http: str, path: str) -> str:
    async with httpx.AsyncClient(timeout=10) as client:
        return (await client.get(http + path)).text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["capacity", "realistic", "idle"])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20.0, help="measured play (default 20)")
    parser.add_argument("--warmup", type=float, default=3.0, help="play before measuring (default 3)")
    parser.add_argument("--setup-seconds", type=float, default=120.0, help="bound on seating everybody")
    parser.add_argument("--db", default=None, help="the server's database (default: a temporary SQLite file)")
    parser.add_argument("--workers", type=int, default=1, help="server processes (needs PostgreSQL)")
    parser.add_argument("--route", choices=["spread", "table"], default="spread",
                        help="with --workers K: spread (one `serve --workers K`, the kernel spreads the sockets) or"
                             " table (K processes on K ports, each table's people at one: a proxy routing by game id)")
    parser.add_argument("--url", default=None, help="a running server instead of starting one")
    parser.add_argument("--src", type=Path, default=None,
                        help="start the server from this source folder (a reference: e.g. an older commit's src)")
    parser.add_argument("--bot-every", type=int, default=4, help="realistic: every n-th table has a bot")
    parser.add_argument("--heartbeat", type=float, default=0.0,
                        help="the page's heartbeat (0.6; default 0: off): each person asks for the server's beat and,"
                             " until one is heard, pings after this many quiet seconds, as the page does")
    parser.add_argument("--no-beat", action="store_true",
                        help="with --heartbeat: people do not ask for the beat and ping all along (an older page)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, default=None, help="also write the report to this file")
    args = parser.parse_args()
    if args.seconds > 600 or args.tables > 5000:
        raise SystemExit("bounded: at most 600 seconds and 5000 tables")
    report = asyncio.run(run(args))
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    if report["setup_timed_out"]:
        raise SystemExit(f"not everybody was seated within --setup-seconds {args.setup_seconds:g}: "
                         f"{report['tables_seated']} of {args.tables} tables (what was measured is above)")


if __name__ == "__main__":
    main()
