"""``binokel play --join LINK``: a terminal player (pexpect) and a websocket player share a
table of the real server with a bot, and play a deal; the terminal shows only what its
seat may know."""

from __future__ import annotations

import json
import os
import random
import re
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest
from test_browser import Server

from binokel.card import CARDS, Card
from binokel.meld import meld_cards
from binokel.record import replay_deal
from binokel.rules import Rules
from binokel.server.store import Store
from binokel.terminal.remote import parse_link

MOVE = r"Your move \[(.*)\] \(q to leave\): "
NEXT = r"Press Enter for the next deal \(q to leave the table\): "
CARD = re.compile(r"(?<![A-Za-z0-9])([ATKQJ97])([SHDC])(?![A-Za-z0-9])")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    server = Server(tmp_path / "games.db")
    server.start()
    yield server
    server.stop()


def websocket_player(url: str, token: str, stop: threading.Event, errors: list[str]) -> None:
    """Seat 0 over a plain websocket: random legal actions, passing after its first bid."""
    from websockets.sync.client import connect

    rng = random.Random(3)
    bids = 0
    try:
        with connect(url, open_timeout=10) as ws:
            ws.send(json.dumps({"type": "hello", "token": token}))
            while not stop.is_set():
                try:
                    message = json.loads(ws.recv(timeout=0.5))
                except TimeoutError:
                    continue
                if message["type"] == "error":
                    errors.append(message["message"])
                if message["type"] != "state" or not message["view"]["legal_actions"] or message["game"]["waiting"]:
                    continue  # (nobody moves until the friend has sat down)
                legal = message["view"]["legal_actions"]
                action = "pass" if bids and "pass" in legal else rng.choice(legal)
                bids += action.isdigit()
                ws.send(json.dumps({"type": "action", "action": action, "version": message["version"]}))
    except Exception as error:  # reported by the test
        errors.append(repr(error))


def test_links_are_read() -> None:
    assert parse_link("http://127.0.0.1:8000/#/game/abc").value == "abc"
    for bad in ("ftp://x/#/join/A", "http://x/#/nope/A", "http://x/", "K7QM-2XPA"):
        with pytest.raises(ValueError):
            parse_link(bad)


def test_a_terminal_and_a_websocket_player_share_a_table(server: Server, tmp_path: Path) -> None:
    created = server.post("api/games", {"rules": "standard", "seats": ["me", "open", "easy"], "name": "Anna",
                                        "seed": 17})
    link = f"{server.url}#/join/{created['invites']['code']}"
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "BINOKEL_SEATS": str(tmp_path / "seats.json")}
    child = pexpect.spawn(sys.executable, ["-m", "binokel", "play", "--join", link, "--name", "Ben", "--no-color"],
                          encoding="utf-8", timeout=60, env=env, dimensions=(60, 200))
    transcript: list[str] = []
    child.logfile_read = type("Log", (), {"write": lambda self, s: transcript.append(s), "flush": lambda self: None})()
    stop, errors = threading.Event(), []
    ws_url = server.url.replace("http", "ws") + f"ws/games/{created['id']}"
    player = threading.Thread(target=websocket_player, args=(ws_url, created["token"], stop, errors), daemon=True)
    player.start()
    try:
        bid = False
        for _ in range(200):
            kind = child.expect([MOVE, NEXT, pexpect.EOF])
            if kind == 1:
                child.sendline("q")  # the deal is over: leave the table
                child.expect(pexpect.EOF)
                break
            assert kind == 0, "the terminal client ended before the deal did"
            choices = dict(re.findall(r"(\d+)=(\S+)", child.match.group(1)))
            names = list(choices.values())
            answer = "pass" if bid and "pass" in names else names[0] if names else child.match.group(1).split()[0]
            bid = bid or answer.isdigit()
            child.sendline(answer)
        else:
            pytest.fail("the deal did not end")
    finally:
        stop.set()
        player.join(10)
        child.close()
    assert not errors, errors
    text = "".join(transcript)
    if os.environ.get("BINOKEL_SHOW"):
        print(text)
    assert "Deal over" in text and "Your hand:" in text
    # The terminal held seat 1 (the stored token digest says so) and printed no card it could not know.
    store = Store(server.db)
    assert [s.seat for s in store.seats(created["id"])] == [0, 1]
    record = store.load(created["id"]).record
    deal = replay_deal(record["deals"][0], Rules.parse("standard"), dealer=record["deals"][0]["dealer"])
    knowable = {CARDS[k] for k in deal.dealt[1]} | {c for t in deal.tricks for c in t.cards}
    knowable |= {CARDS[k] for k in deal.tapp} if deal.soloist is not None else set()
    if deal.melds:
        knowable |= {c for melds in deal.melds for c in meld_cards(melds)}
    if deal.soloist == 1:
        knowable |= {CARDS[k] for k in deal.discard}
    printed = {Card.parse(a + b) for a, b in CARD.findall(text.split("Deal over")[0])}
    assert printed and printed <= knowable, sorted(map(str, printed - knowable))
