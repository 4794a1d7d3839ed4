"""The update of one step (binokel.update): over whole games, every seat's and a
spectator's update, applied by the page's reducer (``web/js/model.js`` ``applyUpdate``, run
in node) and by the terminal's (``binokel.update.apply_update``) to the snapshot of the
deal, gives exactly the view and the game facts of the next version; no update shows a
card its audience may not see; an update carries only what its step changed.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from binokel.rules import Rules
from binokel.table import PERSON, EventKind, Table
from binokel.update import apply_update, game_facts, next_json, update_for, view_json

SRC = Path(__file__).resolve().parent.parent / "src" / "binokel"
Message = dict[str, Any]


def snapshot(table: Table, audience: int | None) -> Message:
    """The part of the server's ``state`` snapshot that updates change (view, game facts, next)."""
    last = view_json(table, audience)["tricks"]
    return {"type": "state", "version": table.version, "seat": audience, "view": view_json(table, audience),
            "game": game_facts(table) | {"history": []}, "next": next_json(table.next_step()),
            "last_trick": last[-1] if last else None}


def played(rules: str, seed: int) -> tuple[dict[int | None, list[Message]], dict[int | None, list[Message]]]:
    """A whole game by random legal actions: per audience, the messages (a first snapshot, then
    every update) and the snapshot at every version after the first."""
    table = Table(rules, [PERSON] * Rules.parse(rules).players, seed=seed)
    audiences: list[int | None] = [*range(table.players), None]
    rng = random.Random(seed)
    events = table.deal()
    messages = {a: [snapshot(table, a)] for a in audiences}
    truth: dict[int | None, list[Message]] = {a: [] for a in audiences}
    while not table.is_over():
        if table.needs_deal():
            events = table.deal()
        else:
            seat = table.to_move
            assert seat is not None
            events = table.act(seat, rng.choice(table.view(seat).legal_actions))
        for audience in audiences:
            messages[audience].append(update_for(table, events, audience).to_json())
            truth[audience].append(snapshot(table, audience))
    for audience in audiences:  # the score sheet's lines: the truth has them as the updates say
        lines: list[Any] = []
        for message, expected in zip(messages[audience][1:], truth[audience]):
            lines = message["model"]["game"].get("history", lines)
            expected["game"]["history"] = lines
    return messages, truth


def node_reduce(logs: list[list[Message]]) -> list[list[Message]]:
    """The page's reducer over each log: the model after every message but the first."""
    script = (f"import {{ applyUpdate }} from {json.dumps((SRC / 'web' / 'js' / 'model.js').as_uri())};\n"
              "let text = ''; process.stdin.on('data', (d) => { text += d; });\n"
              "process.stdin.on('end', () => {\n"
              "  const out = JSON.parse(text).map(([first, ...rest]) => {\n"
              "    let model = first; return rest.map((m) => (model = applyUpdate(model, m))); });\n"
              "  process.stdout.write(JSON.stringify(out)); });\n")
    ran = subprocess.run(["node", "--input-type=module", "-e", script], input=json.dumps(logs),
                         capture_output=True, text=True, timeout=120, check=True)
    return json.loads(ran.stdout)


def differences(made: Message, expected: Message) -> dict[str, Any]:
    out = {}
    for key, value in expected.items():
        if isinstance(value, dict) and isinstance(made.get(key), dict):
            out.update({f"{key}.{k}": (made[key].get(k), v) for k, v in value.items() if made[key].get(k) != v})
        elif made.get(key) != value:
            out[key] = (made.get(key), value)
    return out


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the page's reducer")
@pytest.mark.parametrize(("rules", "seed"), [("standard(target=300)", 11), ("kreuz(target=300)", 3),
                                             ("standard(players=4,sit_out=1,target=300)", 5)])
def test_every_update_applied_gives_the_next_snapshot_for_every_seat_and_a_spectator(rules: str, seed: int) -> None:
    messages, truth = played(rules, seed)
    audiences = list(messages)
    page = node_reduce([messages[a] for a in audiences])
    for audience, models in zip(audiences, page):
        assert len(models) == len(truth[audience]) > 40
        terminal = messages[audience][0]
        for model, update, expected in zip(models, messages[audience][1:], truth[audience]):
            terminal = apply_update(terminal, update)
            for made in (model, terminal):
                kept = {key: made.get(key) for key in expected}
                assert kept == expected, (audience, expected["version"], differences(kept, expected))


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
    assert "hand" not in spectator.view and spectator.view["legal_actions"] == []
