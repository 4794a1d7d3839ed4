"""Helpers for the play-with-friends tests: tables with people, bots and spectators driven
through Starlette's TestClient, and the per-seat leak check.

Every message a seat (or a spectator) gets is checked against the true game at the
version it names, rebuilt from the stored record: its model (the snapshot, brought up to
date by each update: ``server_support.ModelSocket``) must carry exactly
``view(deal, seat)`` at every version (a spectator: the public fields of a view), and no
message, as sent or as applied, may name a card that seat could not know at that version.
"""

from __future__ import annotations

import json
import random
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's notice about httpx versions
    from fastapi.testclient import TestClient

from binokel.card import CARDS, Card
from server_support import ModelSocket, Snapshot, app_for, cards_in, knowable_while_played, shown_deal, true_games
from binokel.update import spectator_view
from binokel.state import State
from binokel.view import view

Message = dict[str, Any]


def client_for(db: Path, think: float = 0, **options: Any) -> TestClient:
    return TestClient(app_for(db, think=think, **options))


def create(client: TestClient, rules: str, seats: list[str], **body: Any) -> Message:
    response = client.post("/api/games", json={"rules": rules, "seats": seats, "name": "Anna", **body})
    assert response.status_code == 200, response.text
    return response.json()


def join(client: TestClient, code: str, name: str) -> Message:
    response = client.post("/api/join", json={"code": code, "name": name})
    assert response.status_code == 200, response.text
    return response.json()


def seat_everybody(client: TestClient, rules: str, seats: list[str], seed: int,
                   **body: Any) -> tuple[str, dict[int, str]]:
    """A table whose open seats are all taken by friends: the game id and each person's token."""
    created = create(client, rules, seats, seed=seed, **body)
    tokens = {created["seat"]: created["token"]} if created["seat"] is not None else {}
    for invite, name in zip(created["invites"]["seats"], ("Ben", "Cleo", "Dora", "Emil", "Fritz")):
        joined = join(client, invite["code"], name)
        assert joined["seat"] == invite["seat"]
        tokens[joined["seat"]] = joined["token"]
    return created["id"], tokens


@dataclass
class Watcher:
    """One websocket at a table: a seat (None: a spectator), every message it got as sent
    (``log``), its model after each snapshot or update (``models``) and the latest (``state``)."""

    ws: Any
    seat: int | None
    log: list[Message] = field(default_factory=list)
    models: list[Snapshot] = field(default_factory=list)
    state: Message | None = None

    def __post_init__(self) -> None:
        self.reader = ModelSocket(self.ws)

    def receive(self) -> Message:
        """The next message as sent (the model, ``state``, follows it)."""
        message = self.reader.receive_json()
        self.log.append(self.reader.raw[-1])
        if isinstance(message, Snapshot):
            self.models.append(message)
        self.state = self.reader.model
        return self.reader.raw[-1]

    def until(self, version: int) -> Message:
        """Read until the state of ``version`` (every connection gets one per version); an
        error on the way fails the test (rather than waiting for a version that never comes)."""
        while self.state is None or self.state["version"] < version:
            message = self.receive()
            assert message["type"] != "error", (self.seat, version, message)
        assert self.state["version"] == version, (self.seat, self.state["version"], version)
        return self.state

    def until_type(self, kind: str) -> Message:
        while (message := self.receive())["type"] != kind:
            pass
        return message

    def send(self, message: Message) -> None:
        self.ws.send_json(message)


def connect(client: TestClient, game_id: str, token: str | None, stack: Any, version: int | None = None,
            beat: bool = False) -> Watcher:
    ws = stack.enter_context(client.websocket_connect(f"/ws/games/{game_id}"))
    ws.send_json({"type": "hello", "token": token, "version": version, **({"beat": True} if beat else {})})
    watcher = Watcher(ws, None)
    first = watcher.receive()
    while first["type"] != "state":
        assert first["type"] in ("events", "presence", "chat_log"), first
        first = watcher.receive()
    watcher.seat = first["seat"]
    return watcher


def play_deals(people: dict[int, Watcher], rng: random.Random, deals: int = 1, *, spectators: tuple[Watcher, ...] = (),
               limit: int = 5000) -> int:
    """Random legal actions by the people until ``deals`` deals are over (the bots move on
    their own); every watcher reads every version. The version reached."""
    everybody = [*people.values(), *spectators]
    version = max(w.until(w.state["version"])["version"] for w in everybody)
    finished = 0
    for _ in range(limit):
        for watcher in everybody:
            watcher.until(version)
        state = next(iter(people.values())).state
        seen, game = state["view"], state["game"]
        if seen["phase"] == "over":
            finished += 1
            if finished >= deals or game["over"]:
                return version
            for watcher in people.values():
                watcher.send({"type": "next_deal", "version": version})
            version += 1
            continue
        mover = seen["to_move"]
        if mover in people:
            mine = people[mover].state["view"]
            assert mine["legal_actions"], mine
            people[mover].send({"type": "action", "action": rng.choice(mine["legal_actions"]), "version": version})
        version += 1  # a person's action or a bot's move
    raise AssertionError("the deals did not end")


# ---------------------------------------------------------------------- the truth

def knowable(deal: State, seat: int | None) -> set[Card]:
    """What ``seat`` (None: a spectator) may know in a deal
    (:func:`server_support.knowable_while_played`), and once the deal is over all of it."""
    if deal.is_over():
        return {CARDS[k] for hand in deal.dealt for k in hand} | {CARDS[k] for k in deal.tapp}
    return knowable_while_played(deal, seat)


def check_no_leak(db: Path, game_id: str, watcher: Watcher, sent: frozenset[Card] = frozenset()) -> int:
    """Check every message ``watcher`` got, as sent, against the true game at its version
    (each event at its own), and its model after every snapshot and update: exactly the
    seat's view, nothing hidden. The number of models checked."""
    games = true_games(db, game_id)
    seat = watcher.seat
    version = 0
    for message in watcher.log:
        for event in message.get("events") or () if message["type"] in ("events", "update") else ():
            allowed = knowable(shown_deal(games[event["version"]]), seat)
            leaked = cards_in(event) - allowed
            assert not leaked, (f"seat {seat}, version {event['version']}: "
                                f"{event['kind']} shows {sorted(map(str, leaked))}")
        if message["type"] == "events":
            assert set(message) == {"type", "since", "version", "events", "stand_in"}
            continue
        version = message.get("version", version) if isinstance(message.get("version"), int) else version
        allowed = knowable(shown_deal(games[version]), seat)
        if message["type"] == "error":
            allowed = allowed | set(sent)
        leaked = cards_in(message) - allowed
        assert not leaked, f"seat {seat}, version {version}: {message['type']} shows {sorted(map(str, leaked))}"
    for model in watcher.models:
        version = model["version"]
        deal = shown_deal(games[version])
        assert model["seat"] == seat
        expected = view(deal, seat).to_json() if seat is not None else spectator_view(deal)
        assert model["view"] == json.loads(json.dumps(expected)), f"seat {seat} version {version}: not its view"
        leaked = cards_in(model) - knowable(deal, seat)
        assert not leaked, f"seat {seat}, version {version}: its model shows {sorted(map(str, leaked))}"
    return len(watcher.models)
