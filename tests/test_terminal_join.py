"""``binokel play --join LINK``: a terminal player (pexpect) and a websocket player share a
table of the real server with a bot, and play a deal; the terminal shows only what its
seat may know."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pexpect
import pytest
from browser_support import Server

from binokel.card import CARDS, Card
from binokel.meld import meld_cards, meld_values
from binokel.record import replay_deal
from binokel.rules import Rules
from server_support import Saved as Store
from binokel.terminal.remote import _connect, parse_link
from binokel.update import apply_update
from terminal_support import CARD, CONFIRM, PROMPTS, next_prompt, simple_answer, spawn_binokel, text_of

NEXT = r"Press Enter for the next deal \(s score sheet, q leaves the table\): "
REMATCH = r"r asks for a rematch, Enter waits for one, q leaves: "
TABLE_PROMPTS = {**PROMPTS, "next": NEXT, "confirm": CONFIRM, "rematch": REMATCH}
"""The prompts of the terminal at a server table: the local game's, its own next deal and rematch."""


def spawn_join(tmp_path: Path, *args: str) -> pexpect.spawn:
    """``binokel play --join ARGS --no-color`` in a pseudo-terminal, its seats.json in ``tmp_path``."""
    return spawn_binokel(["play", "--join", *args, "--no-color"], env={"BINOKEL_SEATS": str(tmp_path / "seats.json")},
                         timeout=60)


def next_table_prompt(child: pexpect.spawn) -> str | None:
    """The kind of the next prompt (a key of TABLE_PROMPTS), None when the program ended."""
    return next_prompt(child, TABLE_PROMPTS)


def websocket_player(url: str, token: str, stop: threading.Event, errors: list[str], passing: bool = False,
                     until_seat: int | None = None, until_over: bool = False) -> None:
    """A seat over a plain websocket: random legal actions, passing after its first bid (``passing``:
    from the start); with ``until_seat`` it stops once that seat is to move after a call, with
    ``until_over`` once the game is over."""
    from websockets.sync.client import connect

    rng = random.Random(3)
    bids = 0
    model: dict | None = None  # the seat's model: the snapshot, brought up to date by each update
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
                if message["type"] == "state":
                    model = message
                elif message["type"] == "update" and model is not None:
                    model = apply_update(model, message)
                else:
                    continue
                if until_over and model["game"]["over"]:
                    return
                if until_seat is not None and model["view"]["auction"] and model["view"]["to_move"] == until_seat:
                    return
                if not model["view"]["legal_actions"] or model["game"]["waiting"]:
                    continue  # (nobody moves until the friend has sat down)
                legal = model["view"]["legal_actions"]
                action = "pass" if (bids or passing) and "pass" in legal else rng.choice(legal)
                bids += action.isdigit()
                ws.send(json.dumps({"type": "action", "action": action, "version": model["version"]}))
    except Exception as error:  # noqa: BLE001 - any failure of the thread is reported by the test
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
    child = spawn_join(tmp_path, link, "--name", "Ben")
    stop, errors = threading.Event(), []
    ws_url = server.url.replace("http", "ws") + f"ws/games/{created['id']}"
    player = threading.Thread(target=websocket_player, args=(ws_url, created["token"], stop, errors), daemon=True)
    player.start()
    try:
        for _ in range(200):
            kind = next_table_prompt(child)
            if kind == "next":
                child.sendline("q")  # the deal is over: leave the table
                child.expect(pexpect.EOF)
                break
            assert kind is not None, "the terminal client ended before the deal did"
            child.sendline(simple_answer(kind, child) if kind in PROMPTS else "")
        else:
            pytest.fail("the deal did not end")
    finally:
        stop.set()
        player.join(10)
        child.close()
    assert not errors, errors
    text = text_of(child)
    if os.environ.get("BINOKEL_SHOW"):
        print(text)
    assert "Your hand" in text and "=== Deal 1 ===" in text
    # The terminal held seat 1 (the stored token digest says so) and printed no card it could not know.
    store = Store(server.db)
    assert sorted(store.seats(created["id"])) == [0, 1]
    record = store.load(created["id"]).record
    deal = replay_deal(record["deals"][0], Rules.parse("standard"), dealer=record["deals"][0]["dealer"])
    knowable = {CARDS[k] for k in deal.dealt[1]} | {c for t in deal.tricks for c in t.cards}
    knowable |= {CARDS[k] for k in deal.tapp} if deal.soloist is not None else set()
    if deal.melds:
        knowable |= {c for melds in deal.melds for c in meld_cards(melds)}
    if deal.soloist == 1:
        knowable |= {CARDS[k] for k in deal.discard}
    printed = {Card.parse(a + b) for a, b in CARD.findall(text.split("Deal 1 over")[0])}
    assert printed and printed <= knowable, sorted(map(str, printed - knowable))


def run_player(server: Server, game_id: str, token: str, **options: object) -> tuple[threading.Thread, threading.Event,
                                                                                    list[str]]:
    stop: threading.Event = threading.Event()
    errors: list[str] = []
    url = server.url.replace("http", "ws") + f"ws/games/{game_id}"
    player = threading.Thread(target=websocket_player, args=(url, token, stop, errors), kwargs=options, daemon=True)
    player.start()
    return player, stop, errors


def test_on_sitting_down_the_terminal_shows_the_table_the_hand_and_the_auction(server: Server, tmp_path: Path) -> None:
    """Right after joining the terminal shows the table, the hand and the auction, before it is the person's turn."""
    created = server.post("api/games", {"rules": "standard", "seats": ["me", "open", "easy"], "name": "Anna",
                                        "seed": 7})  # seed 7: Ben (seat 2) deals, Frieda opens, Anna, then Ben
    child = spawn_join(tmp_path, f"{server.url}#/join/{created['invites']['code']}", "--name", "Ben")
    try:
        child.expect(r"Your hand \(15 cards\):\r\n(.*\r\n){4}", timeout=30)  # before any prompt: Anna is away
        greeting = text_of(child)
        child.sendintr()  # Ctrl-C: leave; the seat waits
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert "Welcome to the table, Ben." in greeting
    for line in ("Seat 1: Anna (a person)", "Seat 2: Ben (you) — deals", "Seat 3: Frieda (computer, easy)",
                 "=== Deal 1 === Dealer: You. Forehand: Frieda."):
        assert line in greeting, line
    assert "Rules in force: standard" in greeting
    link = f"{server.url}#/game/{created['id']}"
    assert f"Come back with: binokel play --join {link}" in text_of(child)
    # Anna passes; when Ben comes back it is his turn, and he is told the calls so far before he is asked.
    player, stop, errors = run_player(server, created["id"], created["token"], passing=True, until_seat=1)
    player.join(30)
    stop.set()
    assert not errors, errors
    back = spawn_join(tmp_path, link)
    try:
        assert next_table_prompt(back) == "auction"
        text = text_of(back)
        back.sendintr()
        back.expect(pexpect.EOF)
    finally:
        back.close()
    assert "Welcome to the table, Ben." in text and "Your hand (15 cards):" in text
    assert re.search(r"Auction so far: Frieda \d+, Anna pass\.", text), text
    assert text.index("Auction so far") < text.index("Bid ")


def printed_meld_values(text: str) -> dict[str, int]:
    """The trump prompt's meld values, e.g. "  [1] S spades: your melds 40"."""
    return {suit: int(points) for suit, points in re.findall(r"\[\d\] ([SHDC]) \w+: your melds (\d+)", text)}


def test_the_soloist_is_asked_as_at_home_and_follows_the_rematch(server: Server, tmp_path: Path) -> None:
    """The soloist is asked as at home ("lay away 3", not "Your move [AS … JC (14 choices)]"), sees the
    meld values at the trump prompt, plays on by default (a surrender is confirmed), and a rematch in
    the same seat is listed by ``--join`` without a link."""
    created = server.post("api/games", {"rules": "standard(deals=1)", "seats": ["me", "open", "easy"],
                                        "name": "Anna", "seed": 7})
    player, stop, errors = run_player(server, created["id"], created["token"], passing=True)
    child = spawn_join(tmp_path, f"{server.url}#/join/{created['invites']['code']}", "--name", "Ben")
    seen: list[str] = []
    try:
        for _ in range(200):
            kind = next_table_prompt(child)
            assert kind is not None, text_of(child)
            seen.append(kind)
            if kind == "discard":
                left = Rules.parse("standard").tapp_size  # as many as the Tapp brought (3 with three seats)
                assert child.match.group(1) == str(left)
                child.sendline(" ".join(str(n) for n in range(1, left + 1)))
            elif kind == "game":
                child.sendline("H")
            elif kind == "surrender":
                child.sendline("2" if seen.count("surrender") == 1 else "")  # surrender?.. no; then Enter: play on
            elif kind == "confirm":
                child.sendline("")  # not sure: back to the choice
            elif kind == "auction":
                child.sendline("b")
            elif kind == "rematch":
                child.sendline("r")
                break
            else:
                child.sendline(simple_answer(kind, child))
        child.expect("A rematch: the same seats, new cards.")
        child.expect("Welcome to the table, Ben.")
        child.expect(r"Your hand \(15 cards\):")
        child.sendintr()
        child.expect(pexpect.EOF)
    finally:
        stop.set()
        player.join(10)
        child.close()
    text = text_of(child)
    if os.environ.get("BINOKEL_SHOW"):
        print(text)
    assert not errors, errors
    assert seen.count("surrender") == 2 and seen.count("confirm") == 1 and "discard" in seen
    assert "Your move" not in text and "You play on." in text and "wins the game" in text
    store = Store(server.db)
    record = store.load(created["id"]).record
    deal = replay_deal(record["deals"][0], Rules.parse("standard"), dealer=record["deals"][0]["dealer"])
    assert deal.soloist == 1 and not deal.surrendered
    kept = Counter(deal.dealt[1]) + Counter(deal.tapp) - Counter(deal.discard)  # (two of each card)
    worth = meld_values([CARDS[k] for k in kept.elements()], Rules.parse("standard"))
    assert printed_meld_values(text) == {suit.letter: points for suit, points in worth.items()}
    assert f"Really surrender? You score -{deal.bid}" in text
    # The rematch: the same token holds the same seat, kept for --join; --join alone lists both games.
    held = json.loads((tmp_path / "seats.json").read_text())
    ids = [key.rpartition("#")[2] for key in held]
    assert created["id"] in ids and len(ids) == 2 and len(set(held.values())) == 1
    listing = spawn_join(tmp_path)
    try:
        listing.expect(r"Which game\? \[1-2, Enter: none\] ")
        games = text_of(listing)
        number = 1 if ids[1] in games.split("[2]")[0] else 2
        listing.sendline(str(number))
        listing.expect("Welcome to the table, Ben.")
        listing.sendintr()
        listing.expect(pexpect.EOF)
    finally:
        listing.close()
    assert "Your games:" in games and "Ben (you)" in games
    for game_id in ids:
        assert f"{server.url}#/game/{game_id}" in games


def test_the_terminal_speaks_the_players_language(server: Server, tmp_path: Path) -> None:
    """The terminal at a server table speaks the language --lang asks for."""
    created = server.post("api/games", {"rules": "standard", "seats": ["me", "open", "easy"], "name": "Anna",
                                        "seed": 7})
    child = spawn_join(tmp_path, f"{server.url}#/join/{created['invites']['code']}", "--name", "Ben", "--lang", "de")
    try:
        child.expect(r"Deine Karten \(15\):\r\n(.*\r\n){4}", timeout=30)
        child.sendintr()
        child.expect(pexpect.EOF)
    finally:
        child.close()
    text = text_of(child)
    for line in ("Willkommen am Tisch, Ben.", "Platz 2: Ben (du) — gibt", "Platz 3: Frieda (Computer, leicht)",
                 "Du hast den Tisch verlassen"):
        assert line in text, line
    assert "Welcome" not in text and "Seat " not in text and "You left" not in text


def test_a_rematch_asked_by_another_player_is_followed_in_the_same_seat(server: Server, tmp_path: Path) -> None:
    """At game over the terminal follows a rematch another player asked for, in the same seat; and
    ``--join …#/game/NEWID`` finds that seat (never "this terminal holds no seat")."""
    created = server.post("api/games", {"rules": "standard(deals=1)", "seats": ["me", "open", "easy"],
                                        "name": "Anna", "seed": 7})
    ben = server.post("api/join", {"code": created["invites"]["code"], "name": "Ben"})
    players = [run_player(server, created["id"], token, until_over=True) for token in (created["token"], ben["token"])]
    for player, _stop, errors in players:
        player.join(120)
        assert not player.is_alive() and not errors, errors
    child = spawn_join(tmp_path, f"{server.url}#/seat/{created['id']}/{ben['token']}")
    try:
        assert next_table_prompt(child) == "rematch"
        child.sendline("")  # Enter: wait for somebody to ask
        child.expect("Waiting for a rematch")
        from websockets.sync.client import connect

        with connect(server.url.replace("http", "ws") + f"ws/games/{created['id']}", open_timeout=10) as ws:
            ws.send(json.dumps({"type": "hello", "token": created["token"]}))  # Anna asks for the rematch
            ws.send(json.dumps({"type": "rematch"}))
            rematch = next(m for m in (json.loads(ws.recv(timeout=10)) for _ in range(20)) if m["type"] == "rematch")
        child.expect("A rematch: the same seats, new cards.")
        child.expect("Welcome to the table, Ben.")
        child.expect(r"Your hand \(15 cards\):")
        child.sendintr()
        child.expect(pexpect.EOF)
    finally:
        child.close()
    text = text_of(child)
    assert "wins the game" in text and "Totals:" in text
    seats = tmp_path / "seats.json"
    held = json.loads(seats.read_text())
    assert held[f"{server.url}#{rematch['id']}"] == ben["token"]
    # A rematch asked while this terminal was away: the server knows the token's seat there.
    del held[f"{server.url}#{rematch['id']}"]
    seats.write_text(json.dumps(held))
    back = spawn_join(tmp_path, f"{server.url}#/game/{rematch['id']}")
    try:
        back.expect("Welcome to the table, Ben.")
        back.sendintr()
        back.expect(pexpect.EOF)
    finally:
        back.close()
    assert "holds no seat" not in text_of(back)


def test_a_watch_link_watches_without_a_seat(server: Server, tmp_path: Path) -> None:
    """``#/watch/ID``: the table and every public step, no hand, never a prompt; the game's end."""
    created = server.post("api/games", {"rules": "standard(deals=1)", "seats": ["easy", "easy", "easy"],
                                        "name": "Anna", "seed": 3})
    child = spawn_join(tmp_path, f"{server.url}#/watch/{created['id']}")
    try:
        child.expect("wins the game")
        child.expect("The game is over.")
        child.sendintr()
        child.expect(pexpect.EOF)
    finally:
        child.close()
    text = text_of(child)
    assert text.startswith("You are watching this table.") and "(you)" not in text
    assert "Your hand" not in text and "You " not in text.removeprefix("You are watching")
    assert not (tmp_path / "seats.json").exists()


def _blocked_signals(thread: threading.Thread) -> int:
    """The signal mask of ``thread`` (its SigBlk line in /proc)."""
    status = Path(f"/proc/self/task/{thread.native_id}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigBlk:")), 16)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads signal masks from Linux's /proc")
def test_ctrl_c_reaches_the_thread_that_waits_for_the_answer(server: Server) -> None:
    """The connection's reader thread blocks SIGINT, so the kernel hands Ctrl-C to the thread
    reading the person's answer (in CI a ^C at a prompt once did nothing for 60 s)."""
    created = server.post("api/games", {"seats": ["me", "easy", "easy"], "name": "Anna", "seed": 3})
    sigint = 1 << (signal.SIGINT - 1)
    with _connect(server.url.replace("http", "ws") + f"ws/games/{created['id']}") as ws:
        reader, keepalive = ws.recv_events_thread, ws.keepalive_thread
        assert reader.is_alive() and _blocked_signals(reader) & sigint
        assert keepalive is not None and keepalive.is_alive() and _blocked_signals(keepalive) & sigint
        assert not _blocked_signals(threading.current_thread()) & sigint


CTRL_C_AS_A_SEND_ENDS = """
import contextlib, os, signal, sys, threading
from websockets.sync.server import serve
from binokel.terminal.messages import Messages
from binokel.terminal.remote import RemoteTable
from binokel.terminal.style import Style

def drain(ws):
    with contextlib.suppress(Exception):
        for _ in ws:
            pass

server = serve(drain, "127.0.0.1", 0)
threading.Thread(target=server.serve_forever, daemon=True).start()

def ctrl_c(frame, event, arg):
    # Ctrl-C as websockets' send() leaves "with self.send_context()": that generator holds the lock.
    if event == "call" and frame.f_code is contextlib._GeneratorContextManager.__exit__.__code__ \\
            and frame.f_back.f_code.co_name == "send":
        sys.settrace(None)
        signal.raise_signal(signal.SIGINT)

sys.settrace(ctrl_c)
table = RemoteTable(Messages("en"), Style(False, False), "http://127.0.0.1/")
table.connect(f"ws://127.0.0.1:{server.socket.getsockname()[1]}/", None)
print("left the table", flush=True)
os._exit(0)  # (the server's threads would hold the interpreter)
"""


def test_ctrl_c_in_the_middle_of_a_send_leaves_the_table(tmp_path: Path) -> None:
    """Ctrl-C never lands inside websockets' code: its sync client is not safe to interrupt.
    Here a real SIGINT arrives (a trace hook picks the instant) as ``send`` leaves its
    ``send_context``, whose generator still holds the connection's lock: the
    KeyboardInterrupt left the lock taken, and the close handshake on the way out waited for
    it for ever (a ^C after the rematch once did nothing for 60 s under load; this instant is
    one way to get there). Now SIGINT is held back while the terminal is in websockets and
    raised when it is out: the program leaves the table at once."""
    source = str(Path(__import__("binokel").__file__).parent.parent)
    environment = {**os.environ, "PYTHONPATH": source}
    try:
        run = subprocess.run([sys.executable, "-W", "ignore", "-c", CTRL_C_AS_A_SEND_ENDS], env=environment,
                             capture_output=True, text=True, timeout=60, cwd=tmp_path)
    except subprocess.TimeoutExpired:
        pytest.fail("Ctrl-C during a send: leaving the table hung (the connection's lock was left taken)")
    assert run.stdout.strip() == "left the table", run.stderr
