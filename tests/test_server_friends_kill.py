"""kill -9 of a real ``binokel serve`` with two people at a table: nothing either was told
is lost, and each reconnects with their own token to their own seat."""

from __future__ import annotations

import json
import random
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from test_server_cli import _start, model_of

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    return json.loads(urllib.request.urlopen(request, timeout=10).read())


def receive_state(ws: Any) -> dict[str, Any]:
    """The page's model after the next snapshot or update (``ws``: :func:`model_of` a line)."""
    while (message := ws.receive_json())["type"] != "state":
        pass
    return message


def test_kill_9_with_two_people(tmp_path: Path) -> None:
    from websockets.sync.client import connect

    db = tmp_path / "games.sqlite3"
    process, url = _start(db)
    try:
        created = post(url + "api/games", {"seats": ["me", "open", "easy"], "name": "Anna", "seed": 23})
        joined = post(url + "api/join", {"code": created["invites"]["code"], "name": "Ben"})
        tokens = {0: created["token"], joined["seat"]: joined["token"]}
        socket = url.replace("http", "ws") + f"ws/games/{created['id']}"
        rng = random.Random(23)
        last: dict[int, dict[str, Any]] = {}
        with connect(socket, open_timeout=10) as anna, connect(socket, open_timeout=10) as ben:
            people = {0: model_of(anna), 1: model_of(ben)}
            for seat, ws in people.items():
                ws.send(json.dumps({"type": "hello", "token": tokens[seat]}))
                last[seat] = receive_state(ws)
            while last[0]["version"] != last[1]["version"]:  # the bot may move between the two hellos
                behind = min(last, key=lambda s: last[s]["version"])
                last[behind] = receive_state(people[behind])
            acted = 0
            while acted < 10:
                mover = max(last.values(), key=lambda m: m["version"])["view"]["to_move"]
                if mover in people and last[mover]["view"]["legal_actions"] and \
                        last[mover]["version"] == max(m["version"] for m in last.values()):
                    state = last[mover]
                    people[mover].send(json.dumps({"type": "action", "version": state["version"],
                                                   "action": rng.choice(state["view"]["legal_actions"])}))
                    acted += 1
                for seat, ws in people.items():  # everyone hears of every change
                    last[seat] = receive_state(ws)
            process.kill()  # SIGKILL: no shutdown at all
            process.wait(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
    process, url = _start(db)
    try:
        socket = url.replace("http", "ws") + f"ws/games/{created['id']}"
        for seat, token in tokens.items():
            with connect(socket, open_timeout=10) as line:
                ws = model_of(line)
                ws.send(json.dumps({"type": "hello", "token": token, "version": last[seat]["version"]}))
                again = receive_state(ws)
            assert again["seat"] == seat  # the same seat, by the same token
            assert again["version"] >= last[seat]["version"]  # nothing acknowledged is lost
            if again["version"] == last[seat]["version"]:
                assert again["view"] == last[seat]["view"]
            played = ([c for t in last[seat]["view"]["tricks"] for c in t["cards"]]
                      + last[seat]["view"]["trick"]["cards"])
            replayed = [c for t in again["view"]["tricks"] for c in t["cards"]] + again["view"]["trick"]["cards"]
            assert replayed[:len(played)] == played
            assert again["view"]["auction"][:len(last[seat]["view"]["auction"])] == last[seat]["view"]["auction"]
    finally:
        process.kill()
        process.wait(timeout=10)
