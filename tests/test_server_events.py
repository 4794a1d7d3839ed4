"""The server's event stream: the table driver's events, filtered for seat 0 (each step's in
its update), missed ones after a reconnect, and never a card hidden from seat 0 (the same
leak check as seat 0's model at every version)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_server import Message, check_no_leak, client_for, new_game, play_deal, seat_ws, until_ready

from server_support import Saved as Store, wire_of

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def db(server_db: Path | str) -> Path | str:
    return server_db  # on SQLite and on PostgreSQL


@pytest.fixture
def client(db: Path) -> Iterator[object]:
    with client_for(db) as c:
        yield c


def test_events_since_a_version_then_after_every_change(client, db: Path) -> None:
    game_id = new_game(client, seed=12)
    log: list[Message] = []
    with seat_ws(client, game_id, events=True) as ws:
        first = ws.receive_json()
        log.append(first)
        ws.send_json({"type": "events", "since": 0})
        # The bots may move meanwhile (their events come to every connection): wait for the answer.
        while (missed := ws.receive_json())["type"] != "events" or missed["since"] != 0:
            log.append(missed)
        log.append(missed)
        assert missed["version"] >= first["version"] == 1
        kinds = [e["kind"] for e in missed["events"]]
        assert kinds[:2] == ["deal", "hand"] and kinds.count("hand") == 1  # seat 0's hand only
        assert missed["events"][1]["seat"] == 0 and missed["events"][1]["cards"] == first["view"]["hand"]
        ws.send_json({"type": "sync"})  # a fresh state: the bots' states may have come before the events
        over = play_deal(ws, log, random.Random(3))
        assert over["view"]["phase"] == "over"
    answer = next(i for i, m in enumerate(log) if m is missed)  # (events streamed before it repeat in it)
    streamed = [wire_of(m) for m in log[answer:] if wire_of(m)["type"] in ("events", "update")]
    versions = [e["version"] for m in streamed for e in m["events"]]
    assert versions == sorted(versions) and versions[-1] == over["version"]
    assert any(e["kind"] == "deal_over" for m in streamed for e in m["events"])
    hidden = [e for m in streamed for e in m["events"] if e["kind"] == "action" and e["action"] is None]
    soloist = over["view"]["soloist"]
    assert soloist == 0 or len(hidden) == 3  # another soloist's discard: three cards laid away, unseen
    assert check_no_leak(db, game_id, log) > 3


def test_a_reconnecting_client_gets_the_missed_events_of_its_seat_only(client, db: Path) -> None:
    game_id = new_game(client, seed=5)
    with seat_ws(client, game_id, events=True) as ws:
        state = until_ready(ws, [])
        if state["view"]["legal_actions"]:
            ws.send_json({"type": "action", "action": state["view"]["legal_actions"][0], "version": state["version"]})
            until_ready(ws, [])
    seen = 1
    with seat_ws(client, game_id, events=True) as ws:
        now = ws.receive_json()
        ws.send_json({"type": "events", "since": seen})
        missed = ws.receive_json()
        assert missed["type"] == "events" and missed["version"] == now["version"]  # seat 0 is to move
        assert all(seen < e["version"] <= now["version"] for e in missed["events"])
        assert not any(e["kind"] == "hand" for e in missed["events"])
        check_no_leak(db, game_id, [now, missed])
        ws.send_json({"type": "events", "since": 10**6})
        refused = ws.receive_json()
        assert refused["type"] == "error" and "since must be a version" in refused["message"]
        ws.send_json({"type": "events"})
        assert "needs \"since\"" in ws.receive_json()["message"]
    assert Store(db).load(game_id) is not None
