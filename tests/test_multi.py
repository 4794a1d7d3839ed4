"""Several server processes on one PostgreSQL database: two real ``binokel serve``
processes, people connected to different ones, bots; one process killed with SIGKILL in the
middle of a deal. Nothing acknowledged is lost, the person of the killed process reconnects
to the other and plays on at their version, and every bot move is in the log exactly once.

Skipped with one line where there is no PostgreSQL (a failure under CI=true).
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

pytest.importorskip("websockets.sync.client")
from websockets.exceptions import ConnectionClosed
from websockets.sync import client as websockets_sync

from binokel.server import persist
from server_support import ModelSocket
from binokel.server.storage import open_store
from binokel.table import Acted, Dealt, step_from_json

Message = dict[str, Any]
DEADLINE = 120.0  # seconds for a whole test: the processes are stopped after it whatever happens


class Server:
    """A ``binokel serve`` process on its own port, on the given database."""

    def __init__(self, db: str, *extra: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "binokel", "serve", "--port", "0", "--db", db, "--think", "0", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        found = re.search(r"http://([\d.]+):(\d+)/", line)
        assert found, line + (self.process.stderr.read() if self.process.stderr else "")
        self.url = f"http://{found[1]}:{found[2]}"
        self.ws = f"ws://{found[1]}:{found[2]}"

    def post(self, path: str, body: Any) -> Message:
        request = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            answer: Message = json.loads(response.read())
            return answer

    def get(self, path: str) -> str:
        with urllib.request.urlopen(self.url + path, timeout=10) as response:
            return str(response.read().decode())

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> str:
        """Stop the process (if it still runs); its log."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.stderr.read() if self.process.stderr else ""


@pytest.fixture
def servers(postgres_url: str) -> Iterator[list[Server]]:
    started = [Server(postgres_url), Server(postgres_url)]
    try:
        yield started
    finally:
        for server in started:
            server.stop()


@dataclass
class Person:
    """A person at a table, playing random legal actions over a real websocket; reconnects
    (to the given server) with the last version they saw when the line breaks."""

    name: str
    game_id: str
    token: str
    server: Server
    seed: int
    seat: int = -1
    version: int = 0  # the latest acknowledged version this person saw
    told: dict[int, list[Message]] = field(default_factory=dict)  # version -> events told
    acted: list[tuple[int, str]] = field(default_factory=list)  # (version made, action) acknowledged to me
    errors: list[str] = field(default_factory=list)
    deals: int = 0
    reconnects: int = 0

    def play(self, deals: int, stop: threading.Event) -> None:
        rng = random.Random(self.seed)
        while not stop.is_set() and self.deals < deals:
            try:
                self._session(rng, deals, stop)
            except (OSError, ConnectionClosed, TimeoutError) as problem:  # the line broke: reconnect
                self.errors.append(f"line broke: {problem!r}")
            if not stop.is_set() and self.deals < deals:
                self.reconnects += 1
                time.sleep(0.3)

    def _session(self, rng: random.Random, deals: int, stop: threading.Event) -> None:
        with websockets_sync.connect(f"{self.server.ws}/ws/games/{self.game_id}", open_timeout=5) as ws:
            ws.send(json.dumps({"type": "hello", "token": self.token, "version": self.version}))
            answered_at = -1
            reader = ModelSocket(ws, receive=lambda: json.loads(ws.recv(timeout=10)))
            while not stop.is_set() and self.deals < deals:
                message = reader.receive_json()  # a snapshot or an update: the model after it
                sent = reader.raw[-1]
                kind = message["type"]
                if sent["type"] in ("events", "update"):
                    # Told up to this version: a reconnect asks from here.
                    self.version = max(self.version, sent["version"])
                    for event in sent["events"]:
                        self.told.setdefault(event["version"], []).append(event)
                        if event["kind"] == "action" and event["seat"] == self.seat and event["action"]:
                            self.acted.append((event["version"], event["action"]))
                        if event["kind"] == "deal_over":
                            self.deals += 1
                if self.deals >= deals:
                    return  # played enough: not even the next deal is asked for
                if kind == "state":
                    self.seat = message["seat"]
                    self.version = max(self.version, message["version"])
                    seen = message["view"]
                    if message["version"] < self.version or answered_at == message["version"]:
                        continue
                    if message["game"]["over"]:
                        self.deals = deals
                        return
                    if seen["phase"] == "over" and message["game"]["waiting"] is False:
                        answered_at = message["version"]
                        ws.send(json.dumps({"type": "next_deal", "version": message["version"]}))
                    elif seen["to_move"] == self.seat and seen["legal_actions"]:
                        answered_at = message["version"]
                        ws.send(json.dumps({"type": "action", "action": rng.choice(seen["legal_actions"]),
                                            "version": message["version"]}))
                elif kind == "error":
                    self.errors.append(message["message"])
                    answered_at = -1  # try again on the next state


def create_table(server: Server, rules: str, seats: list[str], seed: int) -> tuple[str, str, list[str]]:
    created = server.post("/api/games", {"rules": rules, "seats": seats, "name": "Anna", "seed": seed})
    return created["id"], created["token"], [invite["code"] for invite in created["invites"]["seats"]]


def stored_steps(db: str, game_id: str) -> list[Any]:
    with open_store(db) as store:
        stored = store.load(game_id)
    assert stored is not None and stored.snapshot is None
    versions = [entry.version for entry in stored.entries]
    assert versions == list(range(1, len(versions) + 1))  # no gap, no duplicate
    return [step_from_json(entry.payload) for entry in stored.entries]


def test_two_processes_serve_one_table_and_survive_kill_9(servers: list[Server], postgres_url: str) -> None:
    a, b = servers
    # Anna (seat 0) at process A, Ben (seat 1) joins and plays at process B, an easy bot at seat 2.
    game_id, anna_token, codes = create_table(a, "standard", ["me", "open", "easy"], seed=11)
    joined = b.post("/api/join", {"code": codes[0], "name": "Ben"})
    anna = Person("Anna", game_id, anna_token, a, seed=1)
    ben = Person("Ben", game_id, joined["token"], b, seed=2)
    stop = threading.Event()
    threads = [threading.Thread(target=p.play, args=(3, stop), daemon=True) for p in (anna, ben)]
    for thread in threads:
        thread.start()
    started = time.monotonic()
    # Mid-deal of the second deal: kill B with SIGKILL; Ben's next connection goes to A.
    while time.monotonic() - started < DEADLINE and not (anna.deals >= 1 and len(anna.told) > 40):
        time.sleep(0.05)
    assert anna.deals >= 1, (anna.errors, ben.errors)
    ben.server = a
    b.kill()
    for thread in threads:
        thread.join(max(1.0, DEADLINE - (time.monotonic() - started)))
    stop.set()
    assert not any(t.is_alive() for t in threads), "the deals did not finish in time"
    print("deals", anna.deals, ben.deals, "reconnects", ben.reconnects, "versions", anna.version, ben.version,
          "errors", anna.errors[:3], ben.errors[:3])
    assert anna.deals >= 3 and ben.deals >= 3 and ben.reconnects >= 1

    steps = stored_steps(postgres_url, game_id)
    # Nothing acknowledged is lost: every step anybody was told is in the log at its version.
    for person in (anna, ben):
        assert person.version <= len(steps)
        for version, action in person.acted:
            step = steps[version - 1]
            assert isinstance(step, Acted) and str(step.action) == action and step.seat == person.seat
        for version, events in person.told.items():
            kinds = [e["kind"] for e in events]
            assert kinds.count("action") <= 1 and kinds.count("deal") <= 1, (version, kinds)  # told once
    # The log replays, and each bot move is in it exactly once: at every version where the bot
    # was to move there is exactly one entry, the bot's (a second move would be out of turn).
    with open_store(postgres_url) as store:
        loaded = persist.load(store, game_id)
    assert loaded is not None and loaded.driver.version == len(steps)
    bot_moves = sum(1 for s in steps if isinstance(s, Acted) and s.seat == 2)
    print("steps", len(steps), "bot moves", bot_moves, "told", len(anna.told), len(ben.told))
    assert bot_moves > 10 and sum(isinstance(s, Dealt) for s in steps) >= 3
    assert sum(1 for e in anna.told.values() for x in e if x["kind"] == "action" and x["seat"] == 2) == \
        sum(1 for v, s in enumerate(steps, 1) if isinstance(s, Acted) and s.seat == 2 and v > min(anna.told))
    # Metrics parse (prometheus text format) and count this process's steps.
    text = a.get("/metrics")
    from prometheus_client.parser import text_string_to_metric_families

    families = {family.name: family for family in text_string_to_metric_families(text)}
    assert families["binokel_actions"].samples[0].value > 0
    assert "binokel_action_broadcast_seconds" in families and "binokel_bot_think_seconds" in families
    assert json.loads(a.get("/healthz"))["ok"] is True


def test_a_bot_whose_process_died_is_moved_by_another(servers: list[Server], postgres_url: str) -> None:
    """A table of one person and two bots watched from both processes: kill the one that
    moved last; the other moves the bots on, and the log has each move once."""
    a, b = servers
    game_id, token, _ = create_table(b, "standard", ["me", "easy", "easy"], seed=5)
    watcher = Person("Anna", game_id, token, a, seed=3)
    on_b = Person("Anna", game_id, token, b, seed=3)  # the same person, a second tab at B
    stop = threading.Event()
    t1 = threading.Thread(target=watcher.play, args=(2, stop), daemon=True)
    t2 = threading.Thread(target=on_b.play, args=(99, stop), daemon=True)
    t1.start()
    t2.start()
    started = time.monotonic()
    while time.monotonic() - started < DEADLINE and len(watcher.told) < 15:
        time.sleep(0.05)
    b.kill()
    t1.join(DEADLINE)
    stop.set()
    t2.join(5)
    assert watcher.deals >= 2, watcher.errors
    steps = stored_steps(postgres_url, game_id)
    with open_store(postgres_url) as store:
        loaded = persist.load(store, game_id)
    assert loaded is not None and loaded.driver.version == len(steps)


def test_postgresql_going_away_and_coming_back(postgres_url: str) -> None:
    """PostgreSQL unreachable in the middle of a deal (a TCP proxy cut): an action gets a clear
    error and changes nothing, the log says so once; once it is back the same action is
    accepted, and the log says that too. Nothing acknowledged is lost."""
    from storage_support import Proxy

    host, port = "127.0.0.1", int(postgres_url.split("@127.0.0.1:")[1].split("/")[0])
    proxy = Proxy((host, port))
    server = Server(proxy.url(postgres_url))
    try:
        game_id, token, _ = create_table(server, "standard", ["me", "easy", "easy"], seed=3)
        with websockets_sync.connect(f"{server.ws}/ws/games/{game_id}", open_timeout=5) as ws:
            ws.send(json.dumps({"type": "hello", "token": token}))

            reader = ModelSocket(ws, receive=lambda: json.loads(ws.recv(timeout=30)))

            def until_my_turn() -> Message:
                while True:
                    message = reader.receive_json()
                    seen = message.get("view") or {}
                    if message["type"] == "state" and seen.get("to_move") == 0 and seen.get("legal_actions"):
                        return message

            state = until_my_turn()
            proxy.cut()
            action = state["view"]["legal_actions"][0]
            ws.send(json.dumps({"type": "action", "action": action, "version": state["version"]}))
            while (answer := reader.receive_json())["type"] != "error":
                pass
            assert "unavailable" in answer["message"] and "nothing changed" in answer["message"]
            proxy.restore()
            for _ in range(50):  # the first calls after the restore may still meet a cut connection
                ws.send(json.dumps({"type": "action", "action": action, "version": state["version"]}))
                reply = reader.receive_json()
                while reply["type"] not in ("state", "error"):
                    reply = reader.receive_json()
                if reply["type"] == "state":
                    break
                time.sleep(0.2)
            assert reply["type"] == "state" and reply["version"] == state["version"] + 1
            assert reader.raw[-1]["type"] == "update"  # the step came as an update, not a snapshot
        steps = stored_steps(postgres_url, game_id)
        assert len(steps) >= state["version"] + 1 and str(steps[state["version"]].action) == action
    finally:
        proxy.cut()
        log = server.stop()
    assert "unavailable" in log and "reachable again" in log, log


def test_workers_share_one_port(postgres_url: str) -> None:
    """``--workers 2``: two processes answer on one port (SO_REUSEPORT); a table made through
    one is played through whichever answers."""
    server = Server(postgres_url, "--workers", "2")
    try:
        seen: set[str] = set()
        deadline = time.monotonic() + 30
        while len(seen) < 2 and time.monotonic() < deadline:
            try:
                seen.add(json.loads(server.get("/healthz"))["process"])
            except OSError:
                time.sleep(0.1)  # the workers are still starting
        assert len(seen) == 2, seen
        game_id, token, _ = create_table(server, "standard", ["me", "easy", "easy"], seed=9)
        person = Person("Anna", game_id, token, server, seed=4)
        stop = threading.Event()
        player = threading.Thread(target=person.play, args=(1, stop), daemon=True)
        player.start()
        player.join(DEADLINE)
        stop.set()
        assert person.deals >= 1, person.errors
    finally:
        server.stop()


def test_a_person_connected_to_another_process_is_not_away(servers: list[Server]) -> None:
    """Anna at A, Ben at B, grace 1 s: while Ben thinks (connected to B) no process lets a bot
    stand in for him — A knows of his connection from B's presence row; once Ben's line is
    gone for good, A's stand-in plays for him after the grace period."""
    a, b = servers
    created = a.post("/api/games", {"rules": "standard", "seats": ["me", "open", "easy"], "name": "Anna",
                                    "seed": 21, "grace": 1})
    game_id = created["id"]
    ben_token = b.post("/api/join", {"code": created["invites"]["seats"][0]["code"], "name": "Ben"})["token"]
    with websockets_sync.connect(f"{a.ws}/ws/games/{game_id}") as anna, \
            websockets_sync.connect(f"{b.ws}/ws/games/{game_id}") as ben:
        anna.send(json.dumps({"type": "hello", "token": created["token"]}))
        ben.send(json.dumps({"type": "hello", "token": ben_token}))

        anna_model = ModelSocket(anna)

        def latest(ws: Any, seconds: float) -> Message:
            """The last state within ``seconds`` (Anna plays whenever it is her turn)."""
            state: Message = {}
            end = time.monotonic() + seconds
            while (left := end - time.monotonic()) > 0:
                try:
                    message = anna_model.take(json.loads(ws.recv(timeout=left)))
                except TimeoutError:
                    break
                if message["type"] == "state":
                    state = message
                    seen = message["view"]
                    if ws is anna and seen["to_move"] == 0 and seen["legal_actions"]:
                        anna.send(json.dumps({"type": "action", "action": seen["legal_actions"][0],
                                              "version": message["version"]}))
            return state

        state = latest(anna, 3.0)
        while state["view"]["to_move"] != 1:  # play on until it is Ben's turn
            state = latest(anna, 3.0)
        waiting_at = state["version"]
        time.sleep(4.0)  # four grace periods: Ben is connected (to B), so nobody plays for him
        assert latest(anna, 0.5).get("version", waiting_at) == waiting_at
        ben.close()
        moved = latest(anna, 6.0)  # now he is away: a stand-in plays for him after 1 s
        assert moved["version"] > waiting_at


def test_chat_reaches_the_people_of_the_other_process(servers: list[Server]) -> None:
    a, b = servers
    created = a.post("/api/games", {"rules": "standard", "seats": ["me", "open", "easy"], "name": "Anna", "seed": 2})
    game_id = created["id"]
    ben_token = b.post("/api/join", {"code": created["invites"]["seats"][0]["code"], "name": "Ben"})["token"]
    with websockets_sync.connect(f"{a.ws}/ws/games/{game_id}") as anna, \
            websockets_sync.connect(f"{b.ws}/ws/games/{game_id}") as ben:
        anna.send(json.dumps({"type": "hello", "token": created["token"]}))
        ben.send(json.dumps({"type": "hello", "token": ben_token}))
        time.sleep(0.5)
        anna.send(json.dumps({"type": "chat", "text": "<b>Hallo</b> Ben"}))
        heard: list[Message] = []
        end = time.monotonic() + 10
        while not heard and time.monotonic() < end:
            message: Message = json.loads(ben.recv(timeout=10))
            if message["type"] == "chat":
                heard.append(message)
        assert heard and heard[0]["text"] == "<b>Hallo</b> Ben" and heard[0]["name"] == "Anna"
    # A newcomer at a seat, at either process, gets the line in the chat log (it is kept in
    # the store); spectators get none of the chat.
    with websockets_sync.connect(f"{b.ws}/ws/games/{game_id}") as watcher:
        watcher.send(json.dumps({"type": "hello", "token": created["token"]}))
        while (message := json.loads(watcher.recv(timeout=10)))["type"] != "chat_log":
            pass
        assert [line["text"] for line in message["lines"]] == ["<b>Hallo</b> Ben"]


def test_one_process_moves_the_bot_and_none_reads_back_a_step(servers: list[Server], postgres_url: str) -> None:
    """Anna at A, Ben at B, a bot: the process holding the table's lease moves the bot and
    deals, the other does not (no refused append, one process thinks); each adopts the
    other's steps from the change notification that carries them, so no process reads the
    log back for a step it heard of (before, every heard step was read back: some 30 reads a
    deal).

    The lease is handed over when its holder's heartbeat does not renew it for
    ``LEASE_SECONDS`` (a process stopped that long, as a killed one or one starved on a
    loaded machine): then the other process takes it and moves the bot, by design. So "one
    process thinks" is asserted of the processes that took the lease
    (``binokel_leases_taken_total``): without a handover exactly the one that took it
    thinks and nothing is refused; after one, only takers think, the old holder's move in
    flight may be refused once per handover, and the log still has every step once."""
    a, b = servers
    game_id, anna_token, codes = create_table(a, "standard", ["me", "open", "easy"], seed=5)
    joined = b.post("/api/join", {"code": codes[0], "name": "Ben"})
    people = [Person("Anna", game_id, anna_token, a, seed=1), Person("Ben", game_id, joined["token"], b, seed=2)]
    stop = threading.Event()
    threads = [threading.Thread(target=p.play, args=(1, stop), daemon=True) for p in people]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(DEADLINE)
    stop.set()
    assert all(p.deals >= 1 for p in people), [p.errors for p in people]
    from prometheus_client.parser import text_string_to_metric_families

    counts = [{sample.name: sample.value for family in text_string_to_metric_families(server.get("/metrics"))
               for sample in family.samples} for server in (a, b)]
    thinkers = [name for name, count in zip("AB", counts) if count["binokel_bot_think_seconds_count"] > 0]
    takers = [name for name, count in zip("AB", counts) if count["binokel_leases_taken_total"] > 0]
    handovers = sum(count["binokel_leases_taken_total"] for count in counts) - 1
    conflicts = sum(count["binokel_version_conflicts_total"] for count in counts)
    for count in counts:
        # One look at the log when the process loaded the table (for steps announced while it
        # loaded); none for the steps it heard of, whoever holds the lease.
        assert count["binokel_log_read_backs_total"] <= 1, count["binokel_log_read_backs_total"]
    assert sum(count["binokel_changes_heard_total"] for count in counts) > 20  # a deal's steps crossed
    if handovers == 0:
        # One process held the table's lease: the other never thought for the bot nor dealt,
        # so no append was refused (without the lease both raced: some ten conflicts a deal).
        assert thinkers == takers and len(takers) == 1, (thinkers, takers)
        assert conflicts == 0, counts
    else:  # the holder's renewals came too late (printed: pytest -s shows how often)
        print(f"lease handed over {handovers:g} time(s); thinkers {thinkers}, conflicts {conflicts:g}")
        assert set(thinkers) <= set(takers), (thinkers, takers)
        assert conflicts <= handovers, counts
    stored_steps(postgres_url, game_id)  # every step once, no gap
