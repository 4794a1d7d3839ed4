"""Idle tables leave the server's memory: a table nobody watches, with no bot move
or hint in flight, is evicted (``Limits.idle_seconds``), and beyond ``Limits.tables_in_memory``
the tables watched least recently go first; an evicted table is reloaded from the store when
somebody comes, at the same version, and play goes on."""

from __future__ import annotations

import contextlib
import random
import threading
import time
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's notice about httpx versions
    from fastapi.testclient import TestClient

from binokel.ai import make_bot
from server_support import ModelSocket, app_for, fast_limits
from binokel.view import SeatView

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

Message = dict[str, Any]


def client_for(tmp_path: Any, **limits: Any) -> TestClient:
    return TestClient(app_for(tmp_path / "games.sqlite3",
                              limits=fast_limits(pool="thread", tables_per_minute=1000, **limits)))


def create(client: TestClient, seats: list[str], seed: int = 2) -> Message:
    response = client.post("/api/games", json={"rules": "standard", "seats": seats, "seed": seed})
    assert response.status_code == 200, response.text
    return response.json()


def my_turn(ws: Any) -> Message:
    while True:
        message = ws.receive_json()
        if message["type"] == "state" and message["view"]["to_move"] == 0 and message["view"]["legal_actions"]:
            return message


@contextlib.contextmanager
def hello(client: TestClient, game: Message) -> Iterator[Any]:
    with client.websocket_connect(f"/ws/games/{game['id']}") as connected:
        ws = ModelSocket(connected)  # snapshots and updates come as the model after them
        ws.send_json({"type": "hello", "token": game["token"]})
        yield ws


def test_an_idle_table_is_evicted_and_reloaded_at_the_same_version(tmp_path: Any) -> None:
    with client_for(tmp_path, idle_seconds=0.0) as client:
        hall = client.app.state.hall
        game = create(client, ["me", "easy", "easy"])
        with hello(client, game) as ws:
            state = my_turn(ws)
            ws.send_json({"type": "action", "action": state["view"]["legal_actions"][0], "version": state["version"]})
            state = my_turn(ws)  # the bots have moved: only seat 0 can change the table now
            assert client.portal.call(hall.sweep) == 0  # watched: it stays
        time.sleep(0.05)
        assert client.portal.call(hall.sweep) == 1
        assert game["id"] not in hall.tables
        with hello(client, game) as ws:
            back = my_turn(ws)
            assert back["version"] == state["version"] and back["view"] == state["view"]
            ws.send_json({"type": "action", "action": back["view"]["legal_actions"][0], "version": back["version"]})
            while (message := ws.receive_json())["type"] != "state":
                assert message["type"] != "error", message
            assert message["version"] == back["version"] + 1


class Held:
    """A bot that moves only when let go (so a test can look while it thinks)."""

    name = "held"

    def __init__(self, go: threading.Event, thinking: threading.Event) -> None:
        self.go = go
        self.thinking = thinking

    def choose(self, seen: SeatView, rng: random.Random | None = None, budget: float = 1.0) -> Any:
        self.thinking.set()
        assert self.go.wait(10)
        return seen.legal_actions[0]


def test_a_table_whose_bot_is_thinking_stays(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    go, thinking = threading.Event(), threading.Event()
    monkeypatch.setattr("binokel.server.runner.make_bot", lambda level, seed=None: Held(go, thinking)
                        if level == "easy" else make_bot(level, seed))
    with client_for(tmp_path, idle_seconds=0.0) as client:
        hall = client.app.state.hall
        for seed in range(40):  # a table whose first move is a bot's
            game = create(client, ["me", "easy", "easy"], seed=seed)
            if hall.tables[game["id"]].driver.to_move != 0:
                break
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:  # a spectator wakes the bots
            ws.send_json({"type": "hello", "token": None})
            assert thinking.wait(10)
        table = hall.tables[game["id"]]
        assert table.runner.moving
        client.portal.call(hall.sweep)
        assert game["id"] in hall.tables  # nobody watches, but its bot's move is in flight
        go.set()
        deadline = time.monotonic() + 10
        while table.runner.moving and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.05)
        client.portal.call(hall.sweep)
        assert game["id"] not in hall.tables


def test_beyond_the_cap_the_least_recently_watched_tables_leave_first(tmp_path: Any) -> None:
    with client_for(tmp_path, tables_in_memory=2) as client:
        hall = client.app.state.hall
        games = [create(client, ["me", "open", "open"], seed=seed) for seed in range(4)]  # no bot work
        assert list(hall.tables) == [games[2]["id"], games[3]["id"]]
        with hello(client, games[0]) as ws:  # reloaded on demand; now watched, so it stays
            while (my := ws.receive_json())["type"] != "state":
                pass
            assert my["version"] == 1 and games[0]["id"] in hall.tables and len(hall.tables) == 2
            for game in games[1:]:
                assert client.get(f"/api/games/{game['id']}/record").status_code == 200  # each reloaded in turn
                assert games[0]["id"] in hall.tables and len(hall.tables) == 2
        assert hall.evicted >= 4
