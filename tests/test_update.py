"""The update channel over a whole game: every seat and a spectator get a snapshot on hello,
then one ``update`` per step; the page's reducer (``web/js/model.js`` ``applyUpdate``, run
in node) and the terminal's (``binokel.update.apply_update``) applied to every message
must give exactly the snapshot the server sends at that version (asked with ``sync``
after every step), and no message may show a card its audience may not know.
"""

from __future__ import annotations

import contextlib
import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from friends_support import Watcher, check_no_leak, client_for, connect, seat_everybody

from binokel.rules import Rules
from binokel.table import PERSON, EventKind, Table
from binokel.update import apply_update, update_for

SRC = Path(__file__).resolve().parent.parent / "src" / "binokel"
Message = dict[str, Any]

def node_models(logs: list[list[Message]]) -> list[list[Message]]:
    """For each log: the model the page's reducer made just before each snapshot after the first."""
    script = (f"import {{ applyUpdate }} from {json.dumps((SRC / 'web' / 'js' / 'model.js').as_uri())};\n"
              "let text = ''; process.stdin.on('data', (d) => { text += d; });\n"
              "process.stdin.on('end', () => {\n"
              "  const out = JSON.parse(text).map((log) => {\n"
              "    let model = null; const before = [];\n"
              "    for (const m of log) { if (m.type === 'state' && model) before.push(model); "
              "model = model || m.type === 'state' ? applyUpdate(model, m) : model; }\n"
              "    return before; });\n"
              "  process.stdout.write(JSON.stringify(out)); });\n")
    ran = subprocess.run(["node", "--input-type=module", "-e", script], input=json.dumps(logs),
                         capture_output=True, text=True, timeout=120, check=True)
    return json.loads(ran.stdout)


def python_models(log: list[Message]) -> list[Message]:
    model: Message | None = None
    before = []
    for message in log:
        if message["type"] == "state" and model is not None:
            before.append(model)
        if model is not None or message["type"] == "state":
            model = apply_update(model or {}, message)
    return before


def differences(made: Message, snapshot: Message) -> dict[str, Any]:
    """What differs, field by field (of view and game too)."""
    out = {}
    for key, value in snapshot.items():
        if isinstance(value, dict) and isinstance(made.get(key), dict):
            out.update({f"{key}.{k}": (made[key].get(k), v) for k, v in value.items() if made[key].get(k) != v})
        elif made.get(key) != value:
            out[key] = (made.get(key), value)
    return out


def read_until(watcher: Watcher, kind: str, version: int) -> Message:
    while True:
        message = watcher.receive()
        assert message["type"] != "error", message
        if message["type"] == kind and message["version"] >= version:
            assert message["version"] == version, (watcher.seat, message["version"], version)
            return message


def play_with_syncs(people: dict[int, Watcher], everybody: list[Watcher], rng: random.Random) -> int:
    """Random legal actions until the game is over; after every step each watcher reads its
    update and asks for the snapshot (``sync``). The number of steps."""
    version = everybody[0].state["version"]
    steps = 0
    while not everybody[0].state["game"]["over"]:
        model = people[0].state
        seen = model["view"]
        if seen["phase"] == "over":
            for watcher in people.values():
                watcher.send({"type": "next_deal", "version": version})
        else:
            mover = people[seen["to_move"]]
            mover.send({"type": "action", "action": rng.choice(mover.state["view"]["legal_actions"]),
                        "version": version})
        version += 1
        steps += 1
        for watcher in everybody:
            read_until(watcher, "update", version)
            watcher.send({"type": "sync"})
            read_until(watcher, "state", version)
        assert steps < 3000, "the game did not end"
    return steps


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the page's reducer")
@pytest.mark.parametrize(("rules", "seed"), [("standard(target=300)", 11), ("kreuz(target=300)", 3),
                                             ("standard(players=4,sit_out=1,target=300)", 5)])
def test_every_update_applied_to_the_snapshot_is_the_next_snapshot_for_every_seat_and_a_spectator(
        tmp_path: Path, rules: str, seed: int) -> None:
    db = tmp_path / "games.sqlite"
    with client_for(db) as client, contextlib.ExitStack() as stack:
        seats = ["me"] + ["open"] * (Rules.parse(rules).players - 1)
        game_id, tokens = seat_everybody(client, rules, seats, seed=seed)
        people = {seat: connect(client, game_id, token, stack) for seat, token in tokens.items()}
        spectator = connect(client, game_id, None, stack)
        everybody = [*people.values(), spectator]
        steps = play_with_syncs(people, everybody, random.Random(5))
        logs = [w.log for w in everybody]
        kinds = {m["type"] for log in logs for m in log}
        assert "update" in kinds and steps > 40
        page = node_models(logs)
        for watcher, log, before in zip(everybody, logs, page):
            snapshots = [m for m in log if m["type"] == "state"][1:]
            assert len(before) == len(snapshots) == steps, (watcher.seat, len(before), steps)
            for made, snapshot in zip(before, snapshots):
                assert made == snapshot, (watcher.seat, snapshot["version"], differences(made, snapshot))
            assert python_models(log) == snapshots
            # Every message of the whole game, per seat: nothing it may not know.
            assert check_no_leak(db, game_id, watcher) >= 2 * steps


def test_an_update_carries_only_the_fields_its_step_changed() -> None:
    """A call changes the auction and the turn, not the hands of the other seats; a deal sends everything."""
    table = Table("standard", [PERSON] * 3, seed=4, first_dealer=0)
    dealt = update_for(table, table.deal(), 1)
    assert {"hand", "rules", "order", "tricks"} <= set(dealt.view)
    assert [e.kind for e in dealt.events] == [EventKind.DEAL, EventKind.HAND]  # its own hand only
    mover = table.to_move
    assert mover is not None
    events = table.act(mover, "150")
    other = update_for(table, events, (mover + 1) % 3)
    assert {"auction", "callers", "to_move", "legal_actions"} <= set(other.view)
    assert not {"hand", "rules", "tricks", "melds", "tapp"} & set(other.view)
    assert "hand" in update_for(table, events, mover).view
    spectator = update_for(table, events, None)
    assert "hand" not in spectator.view and "legal_actions" in spectator.view
