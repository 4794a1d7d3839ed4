"""``binokel play --join LINK``: a seat at a server table, from the terminal.

The terminal speaks the browser's protocol (``docs/server.md``): it takes a seat with an
invite link (``…/#/join/CODE``), says hello with its seat token over the websocket, and
keeps the table's model — the last snapshot the server sent for its seat (a ``state``),
brought up to date by each step. Each step (what happened, and the model after it) is
told in words by :class:`~binokel.terminal.table_text.TableText`, exactly as the local
game tells it, and when the seat is to move the person is asked with the local game's
prompts. Seat tokens are kept in ``seats.json`` next to the server's default database,
so ``--join …/#/game/ID`` takes the same seat again later (a rematch too), and
``--join`` with no link lists them ("Your games"); ``…/#/watch/ID`` only watches.

>>> parse_link("http://example.org:8000/#/join/K7QM-2XPA")
Link(server='http://example.org:8000/', kind='join', value='K7QM-2XPA')
>>> parse_link("https://binokel.example/play/#/watch/abc123").kind
'watch'
"""

from __future__ import annotations

import json
import os
import signal
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from binokel.action import SURRENDER, Action, ActionKind
from binokel.card import Suit
from binokel.error import BinokelError
from binokel.i18n import render
from binokel.number import small_number
from binokel.rules import Rules
from binokel.state import Phase, parse_action
from binokel.terminal.messages import Messages
from binokel.terminal.parse import parse_input
from binokel.terminal.ruleset import rules_lines
from binokel.terminal.style import Style
from binokel.terminal.table_text import YES, TableText, forced_opening
from binokel.update import apply_update
from binokel.view import SeatView

T = TypeVar("T")

LINK_KINDS = ("join", "game", "watch", "seat")
MY_GAMES_TOKENS = 50
"""The most tokens ``POST /api/my-games`` takes at once (the server's ``tokens_per_request``)."""


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


def game_link(server: str, game_id: str) -> str:
    """The link that takes this terminal's seat at a game again.

    >>> game_link("http://127.0.0.1:8000/", "abc")
    'http://127.0.0.1:8000/#/game/abc'
    """
    return f"{server}#/game/{urllib.parse.quote(game_id)}"


# ---------------------------------------------------------------------- the seats this terminal holds

def seats_file() -> Path:
    from binokel.server.storage import default_db_path

    return Path(os.environ.get("BINOKEL_SEATS") or default_db_path().with_name("seats.json"))


def held_seats() -> dict[str, str]:
    """The seat tokens this terminal holds: ``"{server}#{game id}"`` → token, oldest first."""
    try:
        data = json.loads(seats_file().read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {key: token for key, token in data.items() if isinstance(token, str) and "#" in key}


def remember(server: str, game_id: str, token: str) -> None:
    """Keep a seat token (only this user may read the file)."""
    held = held_seats()
    held.pop(f"{server}#{game_id}", None)
    held[f"{server}#{game_id}"] = token  # the newest last
    path = seats_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # tokens: for this user only
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(json.dumps(held))


def tokens_by_server() -> dict[str, list[str]]:
    """The tokens held, per server, newest first (one token may hold several games: a rematch keeps it)."""
    servers: dict[str, list[str]] = {}
    for key, token in reversed(held_seats().items()):
        server = key.rpartition("#")[0]
        tokens = servers.setdefault(server, [])
        if token not in tokens:
            tokens.append(token)
    return servers


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            answer: dict[str, Any] = json.load(response)
            return answer
    except urllib.error.HTTPError as error:
        try:
            refusal = json.load(error)
        except ValueError:
            refusal = {}
        if isinstance(refusal, dict) and isinstance(refusal.get("code"), str):
            raise BinokelError(refusal["code"], **(refusal.get("params") or {})) from None
        raise BinokelError("server_says", message=error.reason) from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise BinokelError("cannot_reach", url=url, reason=str(reason)) from None


def my_games(server: str, tokens: Sequence[str]) -> list[dict[str, Any]]:
    """The server's "Your games" for these tokens (``POST /api/my-games``)."""
    games = _post(server + "api/my-games", {"tokens": list(tokens[:MY_GAMES_TOKENS])}).get("games")
    return [g for g in games if isinstance(g, dict)] if isinstance(games, list) else []


def token_for(server: str, game_id: str) -> str | None:
    """The token this terminal holds for a game: kept in seats.json, or one that the server
    says holds a seat there (a rematch asked for elsewhere keeps the same tokens)."""
    held = held_seats().get(f"{server}#{game_id}")
    if held is not None:
        return held
    for token in tokens_by_server().get(server, []):
        try:
            if any(g.get("id") == game_id for g in my_games(server, [token])):
                remember(server, game_id, token)
                return token
        except BinokelError:
            return None
    return None


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
        held = token_for(link.server, link.value)
        if held is None:
            raise BinokelError("no_seat_here")
        return link.value, held
    return link.value, None


# ---------------------------------------------------------------------- the steps

@dataclass
class Step:
    """What the terminal does after a message: send replies, leave, or follow a rematch."""

    replies: list[dict[str, Any]] = field(default_factory=list)
    leave: bool = False
    rematch: str | None = None


# ---------------------------------------------------------------------- the client

class RemoteTable(TableText):
    """The websocket loop: tell what the seat may see, ask the person when it is their turn."""

    def __init__(self, messages: Messages, style: Style, server: str, read: Callable[[str], str] = input,
                 write: Callable[[str], None] | None = None) -> None:
        super().__init__(messages, style, [], None, write or (lambda text: print(text, flush=True)))
        self.server = server
        self.read = read
        self.model: dict[str, Any] | None = None  # the last snapshot, brought up to date by each step
        self.pending: list[dict[str, Any]] = []  # events told before the state they lead to
        self.stand_in: int | None = None
        self.asked: int | None = None  # the version the person was last asked at
        self.queued: list[Action] = []  # further cards typed at one discard prompt, sent one by one
        self.over_asked: int | None = None
        self.presence: tuple[str, ...] = ()
        self.game_id = ""

    # ------------------------------------------------------------------ the connection

    def run(self, game_id: str, token: str | None) -> int:
        """Sit at the table until the person leaves or the game ends; follow rematches."""
        while True:
            self.game_id = game_id
            scheme = "wss" if self.server.startswith("https") else "ws"
            url = f"{scheme}{self.server[self.server.index(':'):]}ws/games/{urllib.parse.quote(game_id)}"
            follow = self.connect(url, token)
            if follow is None:
                return 0
            if token is not None:
                remember(self.server, follow, token)  # the rematch's seat: the same token (the server copied it)
            self.say("")
            self.say(self.style.bold(self.t("rematch_follow")))
            game_id = follow
            self.model, self.asked, self.over_asked, self.queued = None, None, None, []

    def connect(self, url: str, token: str | None) -> str | None:
        """One game's connection; the id of a rematch to follow, or None when done."""
        try:
            ws = _connect(url)
            try:
                _send(ws, {"type": "hello", "token": token})
                while True:
                    step = self.handle(json.loads(_receive(ws)))
                    for reply in step.replies:
                        _send(ws, reply)
                    if step.rematch is not None:
                        return step.rematch
                    if step.leave:
                        return None
            finally:
                _held_back(ws.close)
        except ConnectionClosed as closed:
            reason = closed.rcvd.reason if closed.rcvd and closed.rcvd.reason else "-"
            raise BinokelError("server_closed", reason=reason) from None
        except OSError as error:
            raise BinokelError("cannot_connect", url=url, error=str(error)) from None
        except (EOFError, KeyboardInterrupt):
            self.say("")
            self.left()
            return None

    def left(self) -> None:
        if self.me is not None and not (self.model and self.model["game"]["over"]):
            self.say(self.t("left_table", link=game_link(self.server, self.game_id)))

    # ------------------------------------------------------------------ messages

    def handle(self, message: dict[str, Any]) -> Step:
        """One message from the server; what to do next."""
        kind = message.get("type")
        if kind == "state":
            events, self.pending = self.pending, []
            return self.on_model(dict(message), events)
        if kind == "update":
            if self.model is None:
                return Step([{"type": "sync"}])
            self.stand_in = message.get("stand_in")
            if message.get("since", message["version"] - 1) != self.model["version"]:
                return Step([{"type": "sync"}])  # a step was missed: the snapshot instead
            return self.on_model(apply_update(self.model, message), list(message.get("events") or ()))
        if kind == "events":
            self.stand_in = message.get("stand_in")
            if self.model is not None:  # (events before the first snapshot are told by the snapshot)
                self.pending.extend(message["events"])
        elif kind == "chat":
            phrase = message.get("phrase")
            text = message.get("text") or (render(f"phrase.{phrase}", None, self.t.lang) if phrase else "")
            self.say(f"  [{message.get('name', '?')}] {text}")
        elif kind == "presence":
            self.on_presence(message)
        elif kind == "hint" and self.model is not None:
            return self.on_hint(message)
        elif kind == "rematch" and isinstance(message.get("id"), str):
            return Step(rematch=message["id"])
        elif kind == "error":
            self.asked = None  # ask again when the state comes back
            self.queued = []
            if message.get("code") != "stale_version":  # another tab of this seat moved first: resync quietly
                self.say(self.t("refused", reason=self.reason(message)))
            return Step([{"type": "sync"}])
        return Step()

    def reason(self, refusal: Mapping[str, Any]) -> str:
        """A refusal's reason code and params in the person's language."""
        code = refusal.get("code")
        if not isinstance(code, str):
            return str(refusal.get("message", ""))
        return self.t.reason(BinokelError(code, **(refusal.get("params") or {})), self.me)

    def on_presence(self, message: Mapping[str, Any]) -> None:
        seats = message.get("seats") or []
        if message.get("waiting"):
            said = ("waiting", *(s.get("name") or "" for s in seats if s.get("kind") == "open"))
            text = self.t("waiting_friends", count=sum(s.get("kind") == "open" for s in seats))
        else:
            away = tuple(s["name"] for i, s in enumerate(seats)
                         if s.get("kind") == "person" and not s.get("connected") and i != self.me)
            said = ("away", *away)
            text = self.t("away", names=", ".join(away)) if away else ""
        if said != self.presence and self.model is not None:
            self.presence = said
            if text:
                self.say(text)

    def on_model(self, model: dict[str, Any], events: list[dict[str, Any]]) -> Step:
        """A new model: tell what happened since the last one, then ask if it is the person's turn."""
        earlier = self.model
        self.model = model
        self.me = model.get("seat")
        self.names = list(model["game"]["players"])
        seen = SeatView.from_json(model["view"])
        if earlier is None:
            self.greet(model, seen)
        elif events:
            if self.stand_in is not None:
                self.say(self.who(self.stand_in, "stand_in"))
            self.announce(SeatView.from_json(earlier["view"]), events, seen)
        return self.next_move(model, seen)

    def greet(self, model: Mapping[str, Any], seen: SeatView) -> None:
        """On sitting down: who sits where, the rules, and the deal so far."""
        game = model["game"]
        rules = Rules.parse(game["rules"])
        if self.me is None:
            self.say(self.style.bold(self.t("watching")))
        else:
            self.say(self.style.bold(self.t("welcome", name=self.names[self.me])))
        self.say(rules_lines(rules, self.t)[0])
        levels = game.get("levels") or [None] * len(self.names)
        seats = game.get("seats") or [{} for _ in self.names]
        for seat, name in enumerate(self.names):
            kind = (seats[seat] or {}).get("kind") if seat < len(seats) else None
            if seat == self.me:
                what = self.t("seat_you")
            elif levels[seat]:
                what = self.t("seat_bot", level=render(f"level.{levels[seat]}", None, self.t.lang))
            elif kind == "open":
                what = self.t("seat_open")
            else:
                what = self.t("seat_person")
            dealer = self.t("seat_dealer") if seat == seen.dealer and seen.phase is not Phase.OVER else ""
            self.say(self.t("seat_line", seat=seat + 1, name=name or "…", what=what, dealer=dealer))
        self.show_teams(rules)
        totals = game.get("totals") or []
        if any(totals):
            self.say(self.t("sheet_totals", totals=self.totals_text(rules, totals)))
        if game["over"]:
            return
        if game["waiting"]:
            self.say(self.t("waiting_friends", count=sum((s or {}).get("kind") == "open" for s in seats)))
        if seen.phase is Phase.OVER:
            self.show_deal_over(seen, game["deal_number"], totals)
        else:
            self.recap(seen, game["deal_number"])

    # ------------------------------------------------------------------ telling

    def on_deal(self, data: Mapping[str, Any], seen: SeatView) -> None:
        self.say("")
        self.say(self.style.bold(self.t("deal_header", number=data["number"], dealer=self.name(data["dealer"]),
                                        forehand=self.name(seen.seating.forehand))))
        if data.get("sitting_out") is not None:
            self.say(self.who(data["sitting_out"], "sits_out"))
        if self.me is not None and data.get("sitting_out") != self.me and seen.phase is not Phase.OVER:
            self.show_hand(seen)

    def on_deal_over(self, data: Mapping[str, Any], seen: SeatView) -> None:
        assert self.model is not None
        totals = data.get("totals") or self.model["game"]["totals"]
        if seen.phase is Phase.OVER:
            self.show_deal_over(seen, data["number"], totals)
        else:  # (the next deal was dealt in the same breath: the sheet from the event alone)
            self.say(self.t("sheet_totals", totals=self.totals_text(seen.rules, totals)))

    # ------------------------------------------------------------------ asking

    def next_move(self, model: Mapping[str, Any], seen: SeatView) -> Step:
        game = model["game"]
        version = model["version"]
        if game["over"]:
            return self.game_over(model)
        if game["waiting"] or self.me is None:
            return Step()
        if seen.phase is Phase.OVER:
            if self.over_asked == version:
                return Step()
            self.over_asked = version
            answer = self.read(self.style.bold(self.t("prompt_next_table")) + " ").strip().lower()
            while answer == "s":
                self.show_sheet(model)
                answer = self.read(self.style.bold(self.t("prompt_next_table")) + " ").strip().lower()
            if answer in ("q", "quit", "exit"):
                self.left()
                return Step(leave=True)
            self.say(self.t("next_deal_waiting"))
            return Step([{"type": "next_deal", "version": version}])
        if seen.to_move != self.me or not seen.legal_actions or self.asked == version:
            return Step()
        self.asked = version
        if forced_opening(seen):
            return self.send(version, seen.legal_actions[0])
        if self.queued and seen.phase is Phase.DISCARD:
            action = self.queued.pop(0)
            if action in seen.legal_actions:
                return self.send(version, action)
        self.queued = []
        return self.ask(model, seen)

    def send(self, version: int, action: Action) -> Step:
        return Step([{"type": "action", "action": str(action), "version": version}])

    def meld_values(self, model: Mapping[str, Any]) -> dict[Suit, int]:
        """What the person's melds are worth with each trump, as the server computed them."""
        options = model.get("meld_options") or {}
        return {suit: int(options.get(suit.letter, 0)) for suit in Suit}

    def ask(self, model: Mapping[str, Any], seen: SeatView) -> Step:
        """Ask the person until they type a legal action or a command."""
        version = model["version"]
        phase, choices, prompt = self.offer(seen, self.meld_values(model))
        while True:
            text = self.read(self.style.bold(prompt) + " ")
            parsed = parse_input(text, phase, choices, self.t.words)
            if parsed.command:
                done = self.command(parsed.command, seen, model)
                if done is not None:
                    return done
                continue
            if parsed.error:
                args = dict(parsed.args, games=self.game_words(choices)) if phase == "game" else parsed.args
                self.say(self.t(parsed.error, **args))
                continue
            actions = list(parsed.actions)
            left = seen.rules.tapp_size - len(seen.discard or ())
            if seen.phase is Phase.DISCARD and len(actions) > left:
                self.say(self.t("err_too_many", count=left))
                continue
            wrong = self.refusal(actions, seen, model)
            if wrong:
                self.say(self.t("illegal", reason=wrong))
                continue
            if actions[0] == SURRENDER and not self.sure_to_surrender(seen, self.read):
                continue
            self.queued = actions[1:]
            return self.send(version, actions[0])

    def refusal(self, actions: Sequence[Action], seen: SeatView, model: Mapping[str, Any]) -> str | None:
        """Why these actions may not be taken (from the server's reasons where it gives them), or None."""
        if len(set(actions)) < len(actions):
            return self.t.reason(BinokelError("not_legal", action=str(actions[0]), phase=seen.phase.value,
                                              legal=" ".join(map(str, seen.legal_actions))), self.me)
        for action in actions:
            if seen.allows(action):
                continue
            if action.kind is ActionKind.PLAY and str(action.card) in (model.get("refusals") or {}):
                return self.reason(model["refusals"][str(action.card)])
            if action.kind in (ActionKind.PLAY, ActionKind.DISCARD) and action.card not in seen.hand:
                return self.t.reason(BinokelError("not_in_hand", seat=self.me, card=str(action.card)), self.me)
            return self.t.reason(BinokelError("not_legal", action=str(action), phase=seen.phase.value,
                                              legal=" ".join(map(str, seen.legal_actions))), self.me)
        return None

    def command(self, name: str, seen: SeatView, model: Mapping[str, Any]) -> Step | None:
        """A command typed at a prompt: a Step ends the prompt (leave, ask the server), None asks again."""
        if name == "quit":
            self.left()
            return Step(leave=True)
        if name == "hint":
            self.asked = None  # asked again when the hint comes
            return Step([{"type": "hint"}])
        if name == "help":
            self.say(self.t("help_table"))
        elif name == "rules":
            for line in rules_lines(seen.rules, self.t):
                self.say(line)
        elif name == "last":
            self.show_last(seen)
        elif name == "sheet":
            self.show_sheet(model)
        return None

    def on_hint(self, message: Mapping[str, Any]) -> Step:
        assert self.model is not None
        seen = SeatView.from_json(self.model["view"])
        try:
            advice = self.action_text(parse_action(seen.phase, str(message.get("action"))))
        except BinokelError:
            advice = str(message.get("action"))
        self.say(self.t("hint_table", advice=advice))
        return self.next_move(self.model, seen)

    def show_sheet(self, model: Mapping[str, Any]) -> None:
        """The finished deals as the server lists them, and the totals."""
        game = model["game"]
        rules = Rules.parse(game["rules"])
        for number, deal in enumerate(game.get("history") or [], 1):
            if deal.get("soloist") is None:
                self.say(self.t("sheet_deal_redeal", number=number))
                continue
            outcome = self.t("outcome_" + str(deal.get("outcome")))
            game_word = deal.get("game")
            contract = parse_action(Phase.GAME, game_word).contract if game_word else None
            self.say(self.t("sheet_deal", number=number, soloist=self.name(deal["soloist"]), bid=deal.get("bid"),
                            game=self.game_name(contract), outcome=outcome))
        self.say(self.t("sheet_totals", totals=self.totals_text(rules, game["totals"])))

    # ------------------------------------------------------------------ the end of the game

    def game_over(self, model: Mapping[str, Any]) -> Step:
        """The result, then a rematch: follow one another player asked for, ask for one, or leave."""
        game = model["game"]
        if self.over_asked == -1:
            return Step()
        self.over_asked = -1
        rules = Rules.parse(game["rules"])
        if game.get("winner") is not None:
            self.show_game_over(rules, game["winner"], game["totals"], game.get("durch_games"))
        if game.get("rematch"):
            return Step(rematch=game["rematch"])
        if self.me is None:
            self.say(self.t("game_over_watch"))
            return Step()
        answer = self.read(self.style.bold(self.t("prompt_rematch")) + " ").strip().lower()
        if answer == "r" or answer in YES:
            return Step([{"type": "rematch"}])
        if answer in ("q", "quit", "exit"):
            return Step(leave=True)
        self.say(self.t("rematch_waiting"))
        return Step()


# ---------------------------------------------------------------------- the command

def join(link_text: str, name: str | None, style: Style, messages: Messages) -> int:
    """``binokel play --join [LINK]``: take the seat and play until the game ends or you leave;
    without a link, list the games this terminal holds a seat at and offer to take one."""
    try:
        if not link_text:
            chosen = choose_game(messages, style)
            if chosen is None:
                return 0
            link = Link(chosen[0], "game", chosen[1])
        else:
            link = parse_link(link_text)
        if link.kind == "join" and not name:
            name = input(messages("prompt_name") + " ").strip() if sys.stdin.isatty() else ""
        game_id, token = take_seat(link, name or "Terminal")
        return RemoteTable(messages, style, link.server).run(game_id, token)
    except BinokelError as error:
        print(f"binokel: {messages.reason(error)}", file=sys.stderr)
        return 2


def choose_game(messages: Messages, style: Style, read: Callable[[str], str] = input,
                write: Callable[[str], None] | None = None) -> tuple[str, str] | None:
    """"Your games": the tables this terminal holds a seat at (asked of each server); the
    server and game id the person picks (None: none, or nothing to pick)."""
    say = write or (lambda text: print(text, flush=True))
    servers = tokens_by_server()
    if not servers:
        say(messages("no_games", path=str(seats_file())))
        return None
    listed: list[tuple[str, str]] = []
    say(style.bold(messages("your_games")))
    for server, tokens in servers.items():
        try:
            games = my_games(server, tokens)
        except BinokelError as error:
            say(messages("games_unreachable", server=server, reason=messages.reason(error)))
            continue
        for game in games:
            if any(game.get("id") == known for _, known in listed):
                continue
            listed.append((server, str(game.get("id"))))
            say(f"  [{len(listed)}] {game_line(game, messages)}")
            say(f"      {game_link(server, str(game.get('id')))}")
    if not listed:
        say(messages("no_games", path=str(seats_file())))
        return None
    if not sys.stdin.isatty() and read is input:
        return None
    while True:
        answer = read(style.bold(messages("prompt_game_choice", count=len(listed))) + " ").strip().lower()
        number = small_number(answer)
        if not answer or answer in ("q", "quit", "exit"):
            return None
        if number is not None and 1 <= number <= len(listed):
            return listed[number - 1]
        say(messages("err_number", number=answer, count=len(listed)))


def _connect(url: str) -> ClientConnection:
    """The game's websocket; the threads websockets starts for it (a reader, a keepalive) are
    deaf to Ctrl-C: they inherit SIGINT blocked (:func:`_held_back`), so the kernel hands it to
    the main thread, which waits for the person's answer or the next message. (A SIGINT handed
    to another thread only sets Python's flag: the main thread never woke.)"""
    return _held_back(lambda: connect(url, open_timeout=20, max_size=1 << 22))


def _receive(ws: ClientConnection) -> str | bytes:
    """The next message; Ctrl-C while waiting is raised within a quarter of a second, in
    :func:`_held_back`, never inside websockets."""
    while True:
        try:
            return _held_back(lambda: ws.recv(timeout=0.25))
        except TimeoutError:
            continue


def _send(ws: ClientConnection, message: Mapping[str, Any]) -> None:
    _held_back(lambda: ws.send(json.dumps(message)))


def _held_back(call: Callable[[], T]) -> T:
    """``call`` (into websockets) with Ctrl-C held back until it returns, then raised here.

    websockets' sync client is not safe to interrupt: a KeyboardInterrupt raised at the wrong
    instant leaves the connection's lock taken (its ``send_context`` generator suspended while
    holding it) or its reader paused, and the close handshake on the way out waits for ever."""
    if not hasattr(signal, "pthread_sigmask"):  # (not POSIX: nothing to hold it back with)
        return call()
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        return call()
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def game_line(game: Mapping[str, Any], messages: Messages) -> str:
    """One game of "Your games" in a line: rules, players, deal, totals, whose turn."""
    players = [str(p) for p in game.get("players") or []]
    seat = game.get("seat")
    if isinstance(seat, int) and 0 <= seat < len(players):
        players[seat] = messages("you_named", name=players[seat])
    totals = " ".join(str(t) for t in game.get("totals") or [])
    if game.get("over"):
        state = messages("game_state_over")
    elif game.get("waiting"):
        state = messages("game_state_waiting")
    elif game.get("to_move") is not None and game.get("to_move") == seat:
        state = messages("game_state_your_turn")
    else:
        state = messages("game_state_playing")
    return messages("game_line", rules=game.get("rules"), players=", ".join(players), deal=game.get("deals"),
                    totals=totals, state=state)
