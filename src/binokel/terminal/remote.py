"""``binokel play --join LINK``: a seat at a server table, from the terminal.

The terminal speaks the browser's protocol (``docs/server.md``): it takes a seat with an
invite link (``…/#/join/CODE``), says hello with its seat token over the websocket, and
shows what the server sends to its seat — the seat's view and the events it may see —
so browser players and terminal players share a table. The token is kept in
``seats.json`` next to the server's default database, so ``--join …/#/game/ID`` takes the
same seat again later; ``…/#/watch/ID`` only watches.

>>> parse_link("http://example.org:8000/#/join/K7QM-2XPA")
Link(server='http://example.org:8000/', kind='join', value='K7QM-2XPA')
>>> parse_link("https://binokel.example/play/#/watch/abc123").kind
'watch'
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from binokel.card import Card, Suit
from binokel.error import BinokelError
from binokel.number import small_number
from binokel.terminal.style import Style, sort_hand

LINK_KINDS = ("join", "game", "watch", "seat")


@dataclass(frozen=True)
class Link:
    """A table link: the server's base URL, what the fragment asks (join, game, watch, seat), its value."""

    server: str
    kind: str
    value: str


def parse_link(text: str) -> Link:
    """Read an invite, watch or game link; BinokelError if it is none of them."""
    parts = urllib.parse.urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise BinokelError("join_bad_link", text=repr(text))
    kind, _, value = parts.fragment.removeprefix("/").partition("/")
    if kind not in LINK_KINDS or not value:
        raise BinokelError("join_bad_fragment", fragment=parts.fragment)
    path = parts.path if parts.path.endswith("/") else parts.path + "/"
    return Link(urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, "", "")), kind, urllib.parse.unquote(value))


def seats_file() -> Path:
    from binokel.server.store import default_db_path

    return Path(os.environ.get("BINOKEL_SEATS") or default_db_path().with_name("seats.json"))


def _held() -> dict[str, Any]:
    try:
        data = json.loads(seats_file().read_text("utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def remember(server: str, game_id: str, token: str) -> None:
    """Keep a seat token (only this user may read the file)."""
    held = _held()
    held[f"{server}#{game_id}"] = token
    path = seats_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # tokens: for this user only
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(json.dumps(held))


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            answer: dict[str, Any] = json.load(response)
            return answer
    except urllib.error.HTTPError as error:
        try:
            message = json.load(error).get("error", error.reason)
        except ValueError:
            message = error.reason
        raise BinokelError("server_says", message=message) from None
    except urllib.error.URLError as error:
        raise BinokelError("cannot_reach", url=url, reason=str(error.reason)) from None


def take_seat(link: Link, name: str) -> tuple[str, str | None]:
    """The game id and the seat token (None: watch) the link gives."""
    if link.kind == "join":
        joined = _post(link.server + "api/join", {"code": link.value, "name": name})
        remember(link.server, joined["id"], joined["token"])
        return joined["id"], joined["token"]
    if link.kind == "seat":
        game_id, _, token = link.value.partition("/")
        remember(link.server, game_id, token)
        return game_id, token
    if link.kind == "game":
        held = _held().get(f"{link.server}#{link.value}")
        if not isinstance(held, str):
            raise BinokelError("no_seat_here")
        return link.value, held
    return link.value, None


# ---------------------------------------------------------------------- the client

class RemoteTable:
    """The websocket loop: print what the seat may see, ask the person when it is their turn."""

    def __init__(self, style: Style, read: Callable[[str], str] = input,
                 write: Callable[[str], None] | None = None) -> None:
        self.style = style
        self.read = read
        self.write = write or (lambda text: print(text, flush=True))
        self.names: list[str] = []
        self.seat: int | None = None
        self.asked: int | None = None  # the version we last asked the person at
        self.over_shown: int | None = None

    def run(self, url: str, token: str | None) -> int:
        try:
            with connect(url, open_timeout=20, max_size=1 << 22) as ws:
                ws.send(json.dumps({"type": "hello", "token": token}))
                while True:
                    message = json.loads(ws.recv())
                    reply = self.handle(message)
                    if reply == "quit":
                        self.write("You left the table; your seat waits for you (a bot plays for you after a while).")
                        return 0
                    if reply == "done":
                        return 0
                    if reply is not None:
                        ws.send(json.dumps(reply))
        except ConnectionClosed as closed:
            reason = closed.rcvd.reason if closed.rcvd else 'no reason'
            raise BinokelError("server_closed", reason=reason) from None
        except OSError as error:
            raise BinokelError("cannot_connect", url=url, error=str(error)) from None
        except (EOFError, KeyboardInterrupt):
            self.write("")
            return 0

    def handle(self, message: dict[str, Any]) -> Any:
        kind = message.get("type")
        if kind == "state":
            return self.on_state(message)
        if kind == "events":
            for event in message["events"]:
                self.tell(event, message.get("stand_in"))
        elif kind == "chat":
            text = message.get("text") or message.get("phrase", "").replace("_", " ")
            self.write(f"  [{message['name']}] {text}")
        elif kind == "presence":
            away = [s["name"] for s in message["seats"] if s["kind"] == "person" and not s["connected"]]
            if message.get("waiting"):
                self.write("Waiting for friends to take their seats…")
            elif away:
                self.write(f"  (away: {', '.join(away)})")
        elif kind == "error":
            self.write(f"The server refused: {message['message']}")
            self.asked = None  # ask again when the state comes back
            return {"type": "sync"}
        return None

    def name(self, seat: int | None) -> str:
        if seat is None:
            return "?"
        return "You" if seat == self.seat else (self.names[seat] if seat < len(self.names) else f"seat {seat}")

    def tell(self, event: dict[str, Any], stand_in: int | None) -> None:
        """One event in words (only events for this seat arrive here)."""
        kind, seat = event["kind"], event.get("seat")
        if kind == "deal":
            self.write(self.style.bold(f"— Deal {event['number']}: {self.name(event['dealer'])} dealt —"))
        elif kind == "action" and seat != self.seat:
            action = event["action"]
            by = f"{self.name(seat)}{' (a bot for them)' if stand_in == seat else ''}"
            if action is None:
                self.write(f"{by} lays a card away")
            elif action == "pass":
                self.write(f"{by} passes")
            elif action.isdigit():
                self.write(f"{by} bids {action}")
            elif len(action) == 2 and action[0] in "AKQJT97" and action[1] in "SHDC":
                self.write(f"{by} plays {self.style.card(Card.parse(action))}")
            elif action in ("S", "H", "D", "C"):
                self.write(f"{by} names trump {self.style.suit(Suit.parse(action))}")
            else:
                words = {"take": "takes the Tapp", "play": "plays on", "surrender": "surrenders",
                         "durch": "plays Durch", "open_durch": "plays open Durch", "bettel": "plays Bettel",
                         "hand_durch": "plays open Durch from the hand"}
                self.write(f"{by} {words.get(action, action)}")
        elif kind == "hand" and seat == self.seat:
            self.write(f"Your cards: {self.style.cards(sort_hand([Card.parse(c) for c in event['cards']], None))}")
        elif kind == "melds":
            shown = [f"{self.name(s)} {sum(m['points'] for m in melds)}" for s, melds in enumerate(event["melds"])]
            self.write(f"Melds: {', '.join(shown)}")
        elif kind == "open_hand":
            self.write(f"{self.name(seat)} plays open: {self.style.cards(Card.parse(c) for c in event['cards'])}")
        elif kind == "tapp":
            self.write(f"The Tapp: {self.style.cards(Card.parse(c) for c in event['cards'])}")
        elif kind == "trick":
            self.write(f"Trick {event['number']} to {self.name(event['winner'])}")
        elif kind == "deal_over":
            self.write(self.style.bold(f"Deal over: {event.get('outcome', '')}".replace("_", " ")))

    def on_state(self, message: dict[str, Any]) -> Any:
        view, game = message["view"], message["game"]
        self.seat = message["seat"]
        self.names = list(game["players"])
        if game["waiting"]:
            return None
        if game["over"]:
            totals = ", ".join(f"{n} {t}" for n, t in zip(self.names, game["totals"], strict=False))
            self.write(self.style.bold(f"The game is over: {totals}"))
            return "done"
        if view["phase"] == "over":
            if self.seat is None or self.over_shown == message["version"]:
                return None
            self.over_shown = message["version"]
            totals = ", ".join(f"{n} {t}" for n, t in zip(self.names, game["totals"], strict=False))
            self.write(f"Totals: {totals}")
            answer = self.read("Press Enter for the next deal (q to leave the table): ").strip().lower()
            return "quit" if answer == "q" else {"type": "next_deal", "version": message["version"]}
        legal = view["legal_actions"]
        if not legal or self.asked == message["version"]:
            return None
        self.asked = message["version"]
        return self.ask(message, legal)

    def ask(self, message: dict[str, Any], legal: list[str]) -> Any:
        view = message["view"]
        trump = Suit.parse(view["game"]) if view["game"] in ("S", "H", "D", "C") else None
        hand = sort_hand([Card.parse(c) for c in view["hand"]], trump)
        self.write(f"Your hand: {self.style.cards(hand)}")
        if view["trick"]["cards"]:
            self.write(f"On the table: {self.style.cards(Card.parse(c) for c in view['trick']['cards'])}")
        choices = " ".join(f"{i}={a}" for i, a in enumerate(legal, 1)) if len(legal) <= 12 else \
            f"{legal[0]} … {legal[-1]} ({len(legal)} choices)"
        while True:
            answer = self.read(f"Your move [{choices}] (q to leave): ").strip()
            if answer.lower() == "q":
                return "quit"
            number = small_number(answer)
            if number is not None and 1 <= number <= len(legal) and len(legal) <= 12:
                action = legal[number - 1]
            else:
                action = next((a for a in legal if a.lower() == answer.lower()), "")
            if action:
                return {"type": "action", "action": action, "version": message["version"]}
            self.write(f"Not one of your choices: {answer!r}")


def join(link_text: str, name: str | None, style: Style) -> int:
    """``binokel play --join LINK``: take the seat and play until the game ends or you leave."""
    link = parse_link(link_text)
    if link.kind == "join" and not name:
        name = input("Your name at the table: ").strip() if sys.stdin.isatty() else ""
    game_id, token = take_seat(link, name or "Terminal")
    scheme = "wss" if link.server.startswith("https") else "ws"
    url = f"{scheme}{link.server[link.server.index(':'):]}ws/games/{urllib.parse.quote(game_id)}"
    return RemoteTable(style).run(url, token)
