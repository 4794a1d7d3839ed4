"""The terminal at a server table without a server: :class:`RemoteTable` fed the protocol's
messages (a ``state`` snapshot, then ``update`` steps or the older ``events`` + ``state``),
its answers scripted. The same table is told the same way by either channel; a hint, a
stale version and a refusal are handled as docs/server.md says."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from binokel.action import ActionKind
from binokel.game import Game
from binokel.server.protocol import rule_facts
from binokel.table import PERSON, Seat, Table
from binokel.terminal.messages import Messages
from binokel.terminal.remote import RemoteTable, Step
from binokel.update import apply_update
from binokel.terminal.style import Style

SEAT = 1


def snapshot(table: Table, seat: int | None = SEAT) -> dict[str, Any]:
    """A ``state`` message as the server builds it (the parts the terminal reads)."""
    seen = table.view(seat if seat is not None else 0)
    game = table.game
    return {"type": "state", "version": table.version, "seat": seat, "view": seen.to_json(),
            "game": {"players": ["Anna", "Ben", "Frieda"], "levels": [None, None, "easy"],
                     "totals": list(game.totals), "deal_number": table.deal_number, "rules": game.rules.text,
                     "over": table.is_over(), "winner": game.winner, "waiting": False, "history": [],
                     "durch_games": None, "rematch": None,
                     "seats": [{"kind": "person"}, {"kind": "person"}, {"kind": "bot"}]},
            **rule_facts(seen, game.rules)}


def update(before: dict[str, Any], after: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """An ``update`` message: the events and only what changed (of view and game, their changed fields)."""
    patch: dict[str, Any] = {}
    for key, value in after.items():
        if key in ("type", "version"):
            continue
        if key in ("view", "game"):
            changed = {k: v for k, v in value.items() if before[key].get(k) != v}
            if changed:
                patch[key] = changed
        elif before.get(key) != value:
            patch[key] = value
    return {"type": "update", "version": after["version"], "stand_in": None, "events": events, "model": patch}


def new_table() -> Table:
    table = Table.from_game(Game.new("standard", first_dealer=1), [PERSON, PERSON, Seat("easy")], 7)
    table.deal()
    return table


def scripted(answers: list[str]) -> tuple[Iterator[str], list[str]]:
    prompts: list[str] = []
    feed = iter(answers)

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(feed)
    return read, prompts  # type: ignore[return-value]


def terminal(answers: list[str]) -> tuple[RemoteTable, list[str], list[str]]:
    read, prompts = scripted(answers)
    lines: list[str] = []
    remote = RemoteTable(Messages("en"), Style(color=False, unicode=False), "http://x/", read=read,  # type: ignore
                         write=lines.append)
    return remote, lines, prompts


def play_until(table: Table, seat: int) -> list[tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]]:
    """Let the other seats take legal actions until ``seat`` is to move; each step's
    (snapshot before, snapshot after, events for SEAT)."""
    steps = []
    while table.to_move != seat:
        before = snapshot(table)
        since = table.version
        mover = table.to_move
        assert mover is not None
        table.act(mover, table.view(mover).legal_actions[0])
        steps.append((before, snapshot(table), [e.to_json() for e in table.events_for(SEAT, since)]))
    return steps


@pytest.mark.parametrize("channel", ["update", "events"])
def test_either_channel_tells_the_same_and_asks_at_the_turn(channel: str) -> None:
    table = new_table()
    remote, lines, prompts = terminal(["p"])
    assert remote.handle(snapshot(table)).replies == []
    assert "Welcome to the table, Ben." in lines and "  Seat 3: Frieda (computer, easy)" in lines
    for before, after, events in play_until(table, SEAT):
        if channel == "update":
            message = update(before, after, events)
            assert apply_update(before, message) == after
            step = remote.handle(message)
        else:
            assert remote.handle({"type": "events", "events": events, "stand_in": None}).replies == []
            step = remote.handle(after)
    assert step.replies == [{"type": "action", "action": "pass", "version": table.version}]
    assert prompts == ["Bid 160 or pass? [160/p] "]
    assert lines[-3:] == ["Frieda opens with 150.", "Anna passes.", "Highest bid: 150 (Frieda)."], lines


def test_a_hint_is_asked_of_the_server_and_the_person_asked_again() -> None:
    table = new_table()
    remote, lines, prompts = terminal(["?", "p"])
    remote.handle(snapshot(table))
    for _before, after, events in play_until(table, SEAT):
        remote.handle({"type": "events", "events": events, "stand_in": None})
        step = remote.handle(after)
    assert step.replies == [{"type": "hint"}]
    step = remote.handle({"type": "hint", "action": "pass"})
    assert "Hint (the server's strong computer player): pass" in lines
    assert step.replies == [{"type": "action", "action": "pass", "version": table.version}]
    assert len(prompts) == 2


def test_a_stale_version_is_resynchronised_quietly_and_a_refusal_told() -> None:
    remote, lines, _ = terminal([])
    remote.handle(snapshot(new_table()))
    shown = len(lines)
    step = remote.handle({"type": "error", "message": "stale version 3: the game is at version 4 (send sync)",
                          "code": "stale_version", "params": {"version": 3, "current": 4}})
    assert step.replies == [{"type": "sync"}] and len(lines) == shown
    step = remote.handle({"type": "error", "message": "x", "code": "not_seats_turn",
                          "params": {"seat": 0, "to_move": 1}})
    assert step.replies == [{"type": "sync"}]
    assert lines[-1].startswith("The server refused: ") and "stale" not in lines[-1]


def test_a_rematch_message_is_followed() -> None:
    remote, _, _ = terminal([])
    remote.handle(snapshot(new_table()))
    assert remote.handle({"type": "rematch", "id": "NEW"}) == Step(rematch="NEW")


def test_an_open_auction_bid_above_the_offered_ones_is_sent() -> None:
    # RULES.md section 10: the open auction has no upper limit, and the terminal accepts every
    # legal bid, not only the offered ones; a bid off the tens is still refused here.
    table = Table.from_game(Game.new("club", first_dealer=0), [PERSON, PERSON, Seat("easy")], 7)
    table.deal()
    assert table.to_move == SEAT  # forehand opens
    offered = [a.value for a in table.view(SEAT).legal_actions if a.kind is ActionKind.BID]
    assert 800 > max(offered)
    remote, lines, prompts = terminal(["805", "800"])
    step = remote.handle(snapshot(table))
    assert step.replies == [{"type": "action", "action": "800", "version": table.version}], lines
    assert len(prompts) == 2 and any("805" in line for line in lines), lines
