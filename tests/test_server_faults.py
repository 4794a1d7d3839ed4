"""Storage faults at a running server: a games database that refuses writes (a
full disk on demand, a real full tmpfs, a read-only file). Every refused write answers 503
``db_unavailable`` (never 500), changes nothing anybody was told of, is logged once per
outage (not per retry); a bot move is retried until it lands, and once writes work again
the server goes on by itself. Every version a client was told is in the store afterwards."""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sqlite3
import subprocess
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's notice about httpx versions
    from fastapi.testclient import TestClient

from binokel.server.storage import SQLiteStore, open_store
from server_support import ModelSocket, Saved, app_for, fast_limits

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

LIMITS = fast_limits(pool="thread", outage_calm_seconds=0.0)  # "works again" at the first write that lands
Message = dict[str, Any]


class FullDisk(SQLiteStore):
    """The SQLite store, with a disk that fills up on demand: while ``full``, every write fails
    the way SQLite's own does on a full disk (the store's error path, its log line)."""

    full = False
    refused = 0

    def _commit_locked(self, batch: list[Any]) -> None:  # every write's batch, waited for or not
        if self.full:
            self.refused += 1
            refusal = self._unavailable(sqlite3.OperationalError("database or disk is full"))
            for request in batch:
                request.error = refusal
            return
        super()._commit_locked(batch)


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[FullDisk]:
    store = FullDisk(tmp_path / "games.sqlite3")
    yield store


def client_on(store: Any, think: float = 0.0) -> TestClient:
    return TestClient(app_for(store, think=think, limits=LIMITS))


def create(client: TestClient, **body: Any) -> Message:
    response = client.post("/api/games", json={"rules": "standard", "seats": ["me", "easy", "easy"], **body})
    assert response.status_code == 200, response.text
    return response.json()


@contextlib.contextmanager
def tab(client: TestClient, game: Message) -> Iterator[Any]:
    with client.websocket_connect(f"/ws/games/{game['id']}") as connected:
        ws = ModelSocket(connected)  # snapshots and updates come as the model after them
        ws.send_json({"type": "hello", "token": game["token"]})
        yield ws


def until(ws: Any, test: Callable[[Message], bool], log: list[Message] | None = None) -> Message:
    while True:
        message = ws.receive_json()
        if log is not None:
            log.append(message)
        if test(message):
            return message


def my_turn(message: Message) -> bool:
    return message["type"] == "state" and message["view"]["to_move"] == 0 and bool(message["view"]["legal_actions"])


def is_state(message: Message) -> bool:
    return message["type"] == "state"


def unavailable(response: Any) -> None:
    assert response.status_code == 503, response.text
    body = response.json()
    assert body["code"] == "db_unavailable" and "nothing was saved" in body["error"]


def test_new_game_and_delete_answer_503_and_a_failed_delete_tells_nobody(disk: FullDisk) -> None:
    with client_on(disk) as client:
        game = create(client, seed=2)
        with tab(client, game) as ws:
            until(ws, is_state)
            disk.full = True
            unavailable(client.post("/api/games", json={"rules": "standard", "seats": ["me", "easy", "easy"]}))
            unavailable(client.delete(f"/api/games/{game['id']}", headers={"Authorization": f"Bearer {game['token']}"}))
            ws.send_json({"type": "sync"})  # the tab was not told "deleted": it still gets its state
            seen: list[Message] = []
            until(ws, is_state, seen)
            assert not [m for m in seen if m.get("code") == "game_deleted"]
            assert Saved(disk.path).load(game["id"]) is not None
            assert len(disk.games()) == 1  # the refused new game was not stored either
            disk.full = False  # space again: the same requests work, without a restart
            create(client)
            response = client.delete(f"/api/games/{game['id']}", headers={"Authorization": f"Bearer {game['token']}"})
            assert response.status_code == 200
            # Now it is told (a bot's move refused while the disk was full may have said db_unavailable first).
            told = until(ws, lambda m: m["type"] == "error" and m["code"] != "db_unavailable")
            assert told["code"] == "game_deleted"
        assert Saved(disk.path).load(game["id"]) is None


def test_an_action_refused_by_the_disk_changes_nothing_and_works_once_there_is_space(disk: FullDisk) -> None:
    with client_on(disk) as client:
        game = create(client, seed=2)
        with tab(client, game) as ws:
            state = until(ws, my_turn)
            before = Saved(disk.path).load(game["id"])
            disk.full = True
            action = state["view"]["legal_actions"][0]
            ws.send_json({"type": "action", "action": action, "version": state["version"]})
            refused = until(ws, lambda m: m["type"] in ("error", "state", "events"))
            assert refused["type"] == "error" and refused["code"] == "db_unavailable", refused
            assert Saved(disk.path).load(game["id"]) == before
            disk.full = False
            ws.send_json({"type": "action", "action": action, "version": state["version"]})
            after = until(ws, is_state)
            assert after["version"] == state["version"] + 1
            assert Saved(disk.path).load(game["id"]).version >= after["version"]


def test_a_bot_move_is_retried_until_it_lands_logged_once(disk: FullDisk, caplog: pytest.LogCaptureFixture) -> None:
    """The disk fills while a bot is to move: its move is retried (not lost, not doubled) and
    the table is told once why it waits; one log line for the outage from the store and one
    from the server, however many writes were refused; every version told is stored."""
    told: list[int] = []
    with caplog.at_level(logging.WARNING, "binokel"), client_on(disk, think=0.3) as client:
        game = create(client, seed=2)
        with tab(client, game) as ws:
            log: list[Message] = []
            state = until(ws, my_turn, log)
            # The disk fills right after our own action lands (it is acknowledged first); the
            # bots' pause (0.3 s) is not over, so their move meets the full disk.
            ws.send_json({"type": "action", "action": state["view"]["legal_actions"][0], "version": state["version"]})
            mine = until(ws, is_state, log)
            disk.full = True
            assert mine["version"] == state["version"] + 1
            notice = until(ws, lambda m: m["type"] in ("error", "state"), log)
            assert notice["type"] == "error" and notice["code"] == "db_unavailable", notice
            deadline = time.monotonic() + 10
            while disk.refused < 3 and time.monotonic() < deadline:
                time.sleep(0.05)  # several retries meet the full disk
            assert disk.refused >= 3
            assert Saved(disk.path).load(game["id"]).version == mine["version"]  # nothing half-made
            disk.full = False  # space again: the bot's move lands by itself, no client message needed
            until(ws, my_turn, log)
            told = [m["version"] for m in log if m["type"] == "state"]
        stored = Saved(disk.path).load(game["id"])
        assert stored is not None and stored.version == max(told)
        assert told == sorted(told)  # versions only go up
    server_lines = [r for r in caplog.records if r.name == "binokel.server" and r.levelno >= logging.ERROR]
    store_lines = [r for r in caplog.records if r.name == "binokel.storage" and r.levelno >= logging.ERROR]
    assert len(server_lines) == 1 and "refuses writes" in server_lines[0].getMessage(), server_lines
    assert len(store_lines) == 1 and "write failed" in store_lines[0].getMessage(), store_lines
    assert not any(r.exc_info for r in caplog.records if r.name.startswith("binokel"))  # no tracebacks
    assert any("takes writes again" in r.getMessage() for r in caplog.records)


def test_a_bot_move_that_fails_unexpectedly_is_thought_again(disk: FullDisk, monkeypatch: pytest.MonkeyPatch,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    """Whatever goes wrong while a bot thinks (a bug, the pool), its table's runner looks again:
    the bot moves, one logged failure later. (An exception ended the runner, and the table
    waited for ever for a bot.)"""
    import binokel.server.runner as runner

    thinking = runner.think_in
    failures = [RuntimeError("the first search fails")]

    async def fails_once(*args: Any, **kwargs: Any) -> Any:
        if failures:
            raise failures.pop()
        return await thinking(*args, **kwargs)

    monkeypatch.setattr(runner, "think_in", fails_once)
    with caplog.at_level(logging.ERROR, "binokel"), client_on(disk) as client:
        game = create(client, seed=2)
        with tab(client, game) as ws:
            state = until(ws, my_turn)
            ws.send_json({"type": "action", "action": state["view"]["legal_actions"][0], "version": state["version"]})
            after = until(ws, my_turn)  # both bots moved
    assert not failures and after["version"] >= state["version"] + 3
    assert ([r.getMessage() for r in caplog.records if r.exc_info]
            == [f"a bot's move at table {game['id']} failed; trying again"])


def test_acknowledged_versions_are_all_in_the_store_after_a_restart(disk: FullDisk) -> None:
    """Play with the disk filling and emptying every few steps; restart on the same file: every
    version a client was told is there, and the game continues at it."""
    told: list[int] = []
    with client_on(disk) as client:
        game = create(client, seed=5)
        with tab(client, game) as ws:
            for step in range(12):
                state = until(ws, lambda m: my_turn(m) or (is_state(m) and m["view"]["phase"] == "over"))
                told.append(state["version"])
                if state["view"]["phase"] == "over":
                    ws.send_json({"type": "next_deal", "version": state["version"]})
                    continue
                disk.full = step % 3 == 1
                ws.send_json({"type": "action", "action": state["view"]["legal_actions"][-1],
                              "version": state["version"]})
                answer = until(ws, lambda m: m["type"] in ("error", "state"))
                if answer["type"] == "state":
                    told.append(answer["version"])
                else:
                    assert answer["code"] == "db_unavailable"
                disk.full = False
                ws.send_json({"type": "sync"})
    disk.close()
    with open_store(disk.path) as store:
        stored = store.load(game["id"])
        assert stored is not None and stored.entries[-1].version >= max(told)
    with TestClient(app_for(disk.path, limits=LIMITS)) as client, tab(client, game) as ws:
        assert until(ws, is_state)["version"] >= max(told)


def test_a_read_only_database_answers_503_not_500(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with client_on(open_store(path)) as client:
        game = create(client, seed=2)
        with tab(client, game) as ws:
            until(ws, my_turn)  # the bots have moved: now it waits for seat 0
    with client_on(open_store(f"file:{path}?mode=ro")) as client:
        unavailable(client.post("/api/games", json={"rules": "standard", "seats": ["me", "easy", "easy"]}))
        assert client.get(f"/api/games/{game['id']}/record").status_code == 200  # reading still works
        with tab(client, game) as ws:
            state = until(ws, my_turn)
            ws.send_json({"type": "action", "action": state["view"]["legal_actions"][0], "version": state["version"]})
            assert until(ws, lambda m: m["type"] in ("error", "state"))["code"] == "db_unavailable"
        unavailable(client.delete(f"/api/games/{game['id']}", headers={"Authorization": f"Bearer {game['token']}"}))


@contextlib.contextmanager
def tiny_tmpfs(where: Path, size: str = "2m") -> Iterator[Path]:
    """A small tmpfs (root only; skipped elsewhere), unmounted afterwards."""
    where.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                          capture_output=True, text=True, timeout=10)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=10)


def fill(folder: Path) -> Path:
    """Fill the file system of ``folder`` to the last byte; the file that did it."""
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as out, contextlib.suppress(OSError):
        while True:
            out.write(b"\0" * 4096)
    return filler


def test_a_real_full_disk_answers_503_and_recovers(tmp_path: Path) -> None:
    with tiny_tmpfs(tmp_path / "tiny") as tiny, client_on(open_store(tiny / "games.sqlite3")) as client:
        game = create(client, seed=2)
        with tab(client, game) as ws:
            state = until(ws, my_turn)  # the bots have moved: the table waits for seat 0
            filler = fill(tiny)
            refused = 0
            for _ in range(20):  # pages free inside the file may take a few small writes first
                response = client.post("/api/games", json={"rules": "standard", "seats": ["me", "open", "open"]})
                assert response.status_code in (200, 503), response.text
                if response.status_code == 503:
                    unavailable(response)
                    refused += 1
                    break
            assert refused, "the full disk never refused a write"
            action = state["view"]["legal_actions"][0]
            ws.send_json({"type": "action", "action": action, "version": state["version"]})
            assert until(ws, lambda m: m["type"] in ("error", "state"))["code"] == "db_unavailable"
            filler.unlink()  # space again: no restart needed
            ws.send_json({"type": "action", "action": action, "version": state["version"]})
            assert until(ws, lambda m: m["type"] in ("error", "state"))["version"] == state["version"] + 1
        create(client)


class FullAfterTheGame(FullDisk):
    """The disk fills between a new game's two writes (the game, then its invite codes)."""

    fail_invites = False

    def execute(self, statements: Any) -> None:
        if self.fail_invites and "invites" in statements[0][0]:
            self.fail_invites = False
            raise self._unavailable(sqlite3.OperationalError("database or disk is full"))
        super().execute(statements)


def test_a_new_game_whose_invites_could_not_be_stored_is_taken_away(tmp_path: Path) -> None:
    store = FullAfterTheGame(tmp_path / "games.sqlite3")
    with client_on(store) as client:
        store.fail_invites = True
        unavailable(client.post("/api/games", json={"rules": "standard", "seats": ["me", "open", "easy"]}))
        assert store.games() == []  # no game nobody was told of is left behind
        assert client.post("/api/games", json={"rules": "standard", "seats": ["me", "open", "easy"]}).status_code == 200
