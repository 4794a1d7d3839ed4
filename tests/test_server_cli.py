"""``binokel serve`` as a process: prints its address, serves, stops cleanly on Ctrl-C."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from binokel.server import add_arguments, default_db_path
from server_support import ModelSocket

SERVE = "import sys; from binokel.cli import Parser; from binokel import server; " \
        "p = Parser(); server.add_arguments(p); sys.exit(server.run(p.parse_args(sys.argv[1:])))"


def test_options_and_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import argparse

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args([])
    assert (args.host, args.port, args.db, args.open, args.think, args.budget) == \
        ("127.0.0.1", 8000, None, False, 0.6, 0.5)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    if sys.platform.startswith("linux"):
        assert default_db_path() == tmp_path / "binokel" / "binokel.sqlite3"


def test_the_bots_budget_is_checked_and_reaches_every_worker() -> None:
    import argparse

    from binokel.server import _bad_argument
    from binokel.server.workers import worker_command

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    for bad in ("0", "-1", "nan", "61"):
        assert "--budget must be" in (_bad_argument(parser.parse_args(["--budget", bad])) or "")
    args = parser.parse_args(["--budget", "0.05", "--db", "postgresql://x@h/db"])
    assert _bad_argument(args) is None
    command = worker_command(args, 8001)
    assert command[command.index("--budget") + 1] == "0.05"


@pytest.mark.skipif(sys.platform == "win32", reason="sends SIGINT")
def test_serve_prints_the_address_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    db = tmp_path / "deep" / "games.sqlite3"
    process = subprocess.Popen([sys.executable, "-c", SERVE, "--port", "0", "--db", str(db), "--think", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        assert line.startswith("Binokel is being served at http://127.0.0.1:"), line
        url = line.split()[-1]
        meta = json.loads(urllib.request.urlopen(url + "api/meta", timeout=10).read())
        assert meta["levels"] == ["easy", "medium", "hard", "expert"]
        request = urllib.request.Request(url + "api/games", data=b'{"seed": 1}', method="POST",
                                         headers={"Content-Type": "application/json"})
        game_id = json.loads(urllib.request.urlopen(request, timeout=10).read())["id"]
        assert db.exists()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert "Traceback" not in err
    assert "stopped" in out
    from server_support import Saved as Store
    assert Store(db).load(game_id) is not None


def test_bad_port_is_one_line(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-c", SERVE, "--port", "70000", "--db", str(tmp_path / "x.db")],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert result.stderr.strip() == "binokel serve: --port must be from 0 to 65535, not 70000"


def model_of(line: Any) -> ModelSocket:
    """A real websocket (``websockets``) read as the page reads it (``server_support.ModelSocket``)."""
    return ModelSocket(line, receive=lambda: json.loads(line.recv(timeout=20)))


def _start(db: Path) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen([sys.executable, "-c", SERVE, "--port", "0", "--db", str(db), "--think", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = process.stdout.readline()
    assert line.startswith("Binokel is being served at "), line
    return process, line.split()[-1]


@pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")
def test_kill_9_loses_nothing(tmp_path: Path) -> None:
    """Every state a page saw survives a hard kill: the restarted server continues there."""
    import random

    from websockets.sync.client import connect

    db = tmp_path / "games.sqlite3"
    process, url = _start(db)
    try:
        request = urllib.request.Request(url + "api/games", data=b'{"seed": 12}', method="POST",
                                         headers={"Content-Type": "application/json"})
        created = json.loads(urllib.request.urlopen(request, timeout=10).read())
        game_id, hello = created["id"], json.dumps({"type": "hello", "token": created["token"]})
        rng = random.Random(12)

        def receive_state(ws: Any) -> dict[str, Any]:
            """The page's model after the next snapshot or update."""
            while (message := ws.receive_json())["type"] != "state":
                pass
            return message

        with connect(url.replace("http", "ws") + f"ws/games/{game_id}", open_timeout=10) as line:
            ws = model_of(line)
            ws.send(hello)
            acted = 0
            while acted < 8:
                state = receive_state(ws)
                seen = state["view"]
                if seen["to_move"] == 0 and seen["legal_actions"]:
                    ws.send(json.dumps({"type": "action", "action": rng.choice(seen["legal_actions"]),
                                        "version": state["version"]}))
                    acted += 1
            last = receive_state(ws)  # the state after the last action
            process.kill()
            process.wait(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
    process, url = _start(db)
    try:
        with connect(url.replace("http", "ws") + f"ws/games/{game_id}", open_timeout=10) as line:
            ws = model_of(line)
            ws.send(hello)  # the same seat after the restart: its token is in the database (hashed)
            again = receive_state(ws)
            assert again["seat"] == 0
        assert again["version"] >= last["version"]  # bots may have moved (and saved) after the page last heard
        if again["version"] == last["version"]:
            assert again["view"] == last["view"]
        assert again["view"]["dealer"] == last["view"]["dealer"]
        assert again["view"]["auction"][:len(last["view"]["auction"])] == last["view"]["auction"]
        for key in ("soloist", "bid", "tapp", "game"):
            assert last["view"][key] is None or again["view"][key] == last["view"][key]
        played = [c for t in last["view"]["tricks"] for c in t["cards"]] + last["view"]["trick"]["cards"]
        replayed = [c for t in again["view"]["tricks"] for c in t["cards"]] + again["view"]["trick"]["cards"]
        assert replayed[:len(played)] == played
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=20)
