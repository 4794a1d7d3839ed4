"""The update channel end to end: over a real server game (two people, a bot, a spectator),
each step reaches every connection as one ``update``; the model a client builds from them
(``binokel.update.apply_update``, the page's reducer's twin) is, at every version compared,
exactly the fresh snapshot a ``sync`` brings, for every seat and the spectator; and no
message as sent shows a card hidden from its audience.
"""

from __future__ import annotations

import contextlib
import random
from pathlib import Path
from typing import Any

import pytest
from friends_support import Watcher, check_no_leak, client_for, connect, seat_everybody

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

Message = dict[str, Any]


def resynced(watcher: Watcher) -> tuple[Message, Message]:
    """Ask for a snapshot; the model just before it came, and the snapshot as sent."""
    watcher.send({"type": "sync"})
    while True:
        model = watcher.state
        message = watcher.receive()
        assert message["type"] != "error", message
        if message["type"] == "state":
            assert model is not None
            return model, message


def test_the_model_built_from_updates_is_the_snapshot_a_sync_brings(tmp_path: Path) -> None:
    rng = random.Random(8)
    with client_for(tmp_path / "games.db") as client, contextlib.ExitStack() as stack:
        game_id, tokens = seat_everybody(client, "standard(target=300)", ["me", "open", "easy"], seed=8)
        people = {seat: connect(client, game_id, token, stack) for seat, token in tokens.items()}
        spectator = connect(client, game_id, None, stack)
        everybody = [*people.values(), spectator]
        version = max(w.state["version"] for w in everybody if w.state is not None)
        compared: list[int] = []
        for step in range(5000):
            for watcher in everybody:
                watcher.until(version)
            state = people[0].state
            assert state is not None
            seen, mover = state["view"], state["view"]["to_move"]
            # The table waits for a person (or for the next deal, or it is over): nothing moves
            # while everybody asks for a snapshot.
            waits = state["game"]["over"] or seen["phase"] == "over" or mover in people
            if waits and (step % 5 == 0 or state["game"]["over"]):
                for watcher in everybody:
                    model, snapshot = resynced(watcher)
                    assert model == snapshot, (watcher.seat, version)
                compared.append(version)
            if state["game"]["over"]:
                break
            if seen["phase"] == "over":
                for watcher in people.values():
                    watcher.send({"type": "next_deal", "version": version})
            elif mover in people:
                mine = people[mover].state
                assert mine is not None
                people[mover].send({"type": "action", "action": rng.choice(mine["view"]["legal_actions"]),
                                    "version": version})
            version += 1
        else:
            raise AssertionError("the game did not end")
    assert len(compared) >= 10 and compared[-1] == version
    for watcher in everybody:
        told = [m["type"] for m in watcher.log]
        first = next(m for m in watcher.log if m["type"] == "state")["version"]
        # One snapshot on hello and one per sync; every step since the hello came as one update.
        assert told.count("state") == 1 + len(compared), watcher.seat
        assert told.count("update") == version - first, watcher.seat
        assert check_no_leak(tmp_path / "games.db", game_id, watcher) == len(watcher.models) >= 40
