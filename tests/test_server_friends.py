"""Play with friends through the real protocol: people with their own seat
tokens, bots, spectators; per-seat leak checks; impersonation; stand-in bots; chat;
invites; "your games"; rematch."""

from __future__ import annotations

import contextlib
import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from friends_support import (
    Watcher,
    check_no_leak,
    client_for,
    connect,
    create,
    join,
    play_deals,
    seat_everybody,
)
from starlette.websockets import WebSocketDisconnect

from binokel.card import Card
from binokel.server.limits import Limits
from binokel.server.seat import digest, new_token
from binokel.server.storage import open_store
from server_support import Saved as Store

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def db(server_db: Path | str) -> Path | str:
    return server_db  # each test runs on SQLite and on PostgreSQL


def stored(db: Path, game_id: str) -> tuple[int, str, int]:
    """The stored version, record and number of seats taken (to see that nothing changed)."""
    store = Store(db)
    row = store.load(game_id)
    assert row is not None
    return row.version, json.dumps(row.record, sort_keys=True), len(store.seats(game_id))


# ---------------------------------------------------------------------- complete deals, no leaks

@pytest.mark.parametrize("rules, seats, seed", [
    ("classic40", ["me", "open", "open"], 11),  # three people
    ("classic40", ["me", "hard", "open"], 12),  # two people and a bot
    ("kreuz", ["me", "easy", "open", "medium"], 13),  # two partners against two bots
    ("sechser", ["me", "easy", "open", "easy", "open", "medium"], 14),  # three people, three bots
    # every other rule set with some mix of people and bots
    ("standard", ["open", "me", "easy"], 15),
    ("sevens", ["easy", "open", "me"], 16),
    ("club", ["me", "open", "open"], 17),  # the open auction
    ("four-solo", ["me", "open", "hard", "open"], 18),
    ("four-sitout", ["me", "open", "easy", "easy"], 19),  # the dealer sits out
    ("kreuz12", ["me", "open", "open", "open"], 20),  # four people, no Tapp
    ("standard(open_durch=1500,bettel=300,hand_durch=2000)", ["me", "open", "easy"], 21),
])
def test_people_and_bots_play_complete_deals_without_leaks(db: Path, rules: str, seats: list[str], seed: int) -> None:
    with client_for(db) as client, contextlib.ExitStack() as stack:
        game_id, tokens = seat_everybody(client, rules, seats, seed)
        assert sorted(tokens) == [s for s, kind in enumerate(seats) if kind in ("me", "open")]
        people = {seat: connect(client, game_id, token, stack) for seat, token in tokens.items()}
        assert all(w.seat == seat for seat, w in people.items())
        spectator = connect(client, game_id, None, stack)
        assert spectator.seat is None and spectator.state["view"]["hand"] == []
        play_deals(people, random.Random(seed), deals=2, spectators=(spectator,))
        for watcher in (*people.values(), spectator):
            assert check_no_leak(db, game_id, watcher) >= 20
        # Every person got its own hand (in the deal after the first, unless sitting out), never
        # another's; the spectator none.
        dealt = 0
        for seat, watcher in people.items():
            hands = [e for m in watcher.log if m["type"] in ("events", "update") for e in m["events"]
                     if e["kind"] == "hand"]
            assert {e["seat"] for e in hands} <= {seat}
            dealt += len(hands)
        assert dealt >= len(people) - 1
        assert not [e for m in spectator.log if m["type"] in ("events", "update") for e in m["events"]
                    if e["kind"] == "hand"]


def test_reconnect_gets_the_missed_events_of_its_own_seat_only(db: Path) -> None:
    with client_for(db) as client, contextlib.ExitStack() as stack:
        game_id, tokens = seat_everybody(client, "standard", ["me", "open", "easy"], 21)
        people = {seat: connect(client, game_id, token, stack) for seat, token in tokens.items()}
        rng = random.Random(21)
        with contextlib.ExitStack() as away:
            ben = connect(client, game_id, tokens[1], away)
            seen = ben.state["version"]
        version = play_deals(people, rng, deals=1)
        assert version > seen + 5
        back = connect(client, game_id, tokens[1], stack, version=seen)
        catch_up = next(m for m in back.log if m["type"] == "events")
        assert catch_up["since"] == seen and catch_up["version"] == version
        got = [e["version"] for e in catch_up["events"]]
        assert got == sorted(got) and got[0] == seen + 1 and got[-1] == version
        assert all(e["seat"] == 1 for e in catch_up["events"] if e["kind"] == "hand")
        discards = [e for e in catch_up["events"] if e["kind"] == "action" and e["action"] is None]
        assert all(e["seat"] != 1 for e in discards)  # another seat's discard stays hidden
        check_no_leak(db, game_id, back)
        far = connect(client, game_id, tokens[1], stack, version=-5)  # unknown version: the snapshot only
        assert not [m for m in far.log if m["type"] == "events"] and far.state["version"] == version


# ---------------------------------------------------------------------- who may act

def test_impersonation_fails_and_changes_nothing(db: Path) -> None:
    with client_for(db, think=600) as client, contextlib.ExitStack() as stack:  # the bots ponder
        other_id, other_tokens = seat_everybody(client, "standard", ["me", "open", "easy"], 2)
        game_id, tokens = seat_everybody(client, "standard", ["me", "open", "hard"], 3)
        person = next(iter(tokens))
        watcher = connect(client, game_id, tokens[person], stack)
        state = watcher.state
        mover = state["view"]["to_move"]
        version = state["version"]
        before = stored(db, game_id)

        def refused_hello(token: Any, close: int) -> str:
            with client.websocket_connect(f"/ws/games/{game_id}") as ws:
                ws.send_json({"type": "hello", "token": token})
                answer = ws.receive_json()
                with pytest.raises(WebSocketDisconnect) as closed:
                    ws.receive_json()
                assert closed.value.code == close
                return answer["message"]

        forged = new_token()
        assert "holds no seat" in refused_hello(forged, 4403)
        assert "holds no seat" in refused_hello(other_tokens[0], 4403)  # another table's token
        assert "holds no seat" in refused_hello(digest(tokens[0]), 4403)  # the stored digest is no token
        for malformed in (12345, "", "x" * 201):  # not a text of 1-200 characters: a malformed hello
            assert "must be the seat token" in refused_hello(malformed, 1008)
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:  # acting before hello
            ws.send_json({"type": "action", "action": "150", "version": version})
            assert "first message must be" in ws.receive_json()["message"]

        # No token: a spectator, who can watch and do nothing else.
        spectator = connect(client, game_id, None, stack)
        cases: list[tuple[Watcher, Any, str]] = [
            (spectator, {"type": "action", "action": "150", "version": version}, "spectators cannot act"),
            (spectator, {"type": "next_deal"}, "spectators cannot act"),
            (spectator, {"type": "chat", "text": "hi"}, "spectators cannot act"),
            (spectator, {"type": "hint"}, "spectators cannot act"),
            (spectator, {"type": "rematch"}, "spectators cannot act"),
        ]
        not_mover = next(s for s in tokens if s != mover)
        other = watcher if person == not_mover else connect(client, game_id, tokens[not_mover], stack)
        cases += [
            (other, {"type": "action", "action": "150", "version": version}, "'s turn: seat"),
            (other, {"type": "action", "action": "150", "version": version, "seat": mover}, "only a seat's own token"),
            (other, {"type": "action", "action": "150", "version": version, "seat": 2}, "only a seat's own token"),
            (other, {"type": "hello", "token": tokens[mover]}, "hello is only the first message"),
        ]
        for who, message, expected in cases:
            who.send(message)
            answer = who.until_type("error")
            assert expected in answer["message"], (message, answer)
            assert stored(db, game_id) == before
        # HTTP: no token, another seat's, a forged one, another table's creator: no deleting, no new invites.
        for headers in ({}, {"Authorization": f"Bearer {tokens[1]}"}, {"Authorization": f"Bearer {forged}"},
                        {"Authorization": f"Bearer {other_tokens[0]}"}, {"Authorization": "Basic x"}):
            assert client.delete(f"/api/games/{game_id}", headers=headers).status_code == 403
            assert client.post(f"/api/games/{game_id}/invites", headers=headers).status_code == 403
        assert stored(db, game_id) == before
        # Nobody can list the games of others: the old list is gone; "your games" needs the tokens.
        assert client.get("/api/games").status_code in (404, 405)
        mine = client.post("/api/my-games", json={"tokens": [tokens[1], forged]}).json()["games"]
        assert [(g["id"], g["seat"]) for g in mine] == [(game_id, 1)]
        assert client.delete(f"/api/games/{game_id}",
                             headers={"Authorization": f"Bearer {tokens[0]}"}).status_code == 200
        assert Store(db).load(game_id) is None and Store(db).load(other_id) is not None


def test_a_bot_seat_has_no_token_and_cannot_be_joined(db: Path) -> None:
    with client_for(db) as client:
        created = create(client, "standard", ["me", "open", "hard"], seed=1)
        assert [i["seat"] for i in created["invites"]["seats"]] == [1]
        assert [s for _, s in Store(db).games_of([digest(created["token"])])] == [0]
        assert len(Store(db).seats(created["id"])) == 1  # the bot seat holds no token


def test_joining_taken_seats_and_wrong_codes_change_nothing(db: Path) -> None:
    with client_for(db) as client:
        created = create(client, "standard", ["me", "open", "open"], seed=4)
        game_id = created["id"]
        seat_code = created["invites"]["seats"][0]["code"]
        joined = join(client, seat_code, "Ben")
        before = stored(db, game_id)
        for body, status, message in [
            ({"code": seat_code, "name": "Eve"}, 409, "seat 1 is taken"),
            ({"code": "ABCD-EFGH", "name": "Eve"}, 404, "wrong"),
            ({"code": seat_code[:-1] + ("y" if seat_code.endswith("x") else "x"), "name": "Eve"}, 404, "wrong"),
            ({"code": "", "name": "Eve"}, 400, "code must be"),
            ({"code": "x" * 1000, "name": "Eve"}, 400, "code must be"),
            ({"code": created["invites"]["code"], "name": ""}, 400, "name must have"),
            ({"code": created["invites"]["code"], "name": "Eve", "seat": 1}, 400, "the body must be"),
            ({"id": game_id, "name": "Eve"}, 404, "no such table in the lobby"),
        ]:
            response = client.post("/api/join", json=body)
            assert response.status_code == status and message in response.json()["error"], (body, response.text)
            assert stored(db, game_id) == before
        short = created["invites"]["code"].lower().replace("-", " ")  # read out loud, typed any way
        assert join(client, short, "Cleo")["seat"] == 2
        full = client.post("/api/join", json={"code": created["invites"]["code"], "name": "Eve"})
        assert full.status_code == 409 and "every seat" in full.json()["error"]
        assert joined["token"] != created["token"]


def test_expired_and_replaced_codes(db: Path) -> None:
    with client_for(db) as client:
        created = create(client, "standard", ["me", "open", "easy"], seed=5)
        auth = {"Authorization": f"Bearer {created['token']}"}
        renewed = client.post(f"/api/games/{created['id']}/invites", headers=auth).json()
        assert renewed["invites"]["code"] != created["invites"]["code"]
        old = client.post("/api/join", json={"code": created["invites"]["code"], "name": "Eve"})
        assert old.status_code == 404
        store = Store(db)
        store.expire_invites()
        expired = client.post("/api/join", json={"code": renewed["invites"]["code"], "name": "Eve"})
        assert expired.status_code == 410 and "expired" in expired.json()["error"]
        assert len(store.seats(created["id"])) == 1


def test_tokens_are_stored_hashed_and_long(db: Path) -> None:
    with client_for(db) as client:
        _, tokens = seat_everybody(client, "standard", ["me", "open", "easy"], 6)
    if isinstance(db, str):  # PostgreSQL: what its tables hold
        import psycopg

        with psycopg.connect(db) as conn:
            raw = "".join(str(row) for table in ("games", "log", "invites", "presence")
                          for row in conn.execute(f"SELECT * FROM {table}")).encode()
    else:
        raw = b"".join(p.read_bytes() for p in Path(db).parent.iterdir())  # the database and its journal
    assert len(tokens) == 2
    for token in tokens.values():
        assert len(token) >= 43  # 256 bits, URL-safe
        assert token.encode() not in raw and digest(token).encode() in raw


# ---------------------------------------------------------------------- presence and stand-ins

def test_a_bot_stands_in_for_an_absent_person_and_they_play_on(db: Path) -> None:
    with client_for(db) as client, contextlib.ExitStack() as stack:
        game_id, tokens = seat_everybody(client, "standard", ["me", "open", "easy"], 31, grace=0.3)
        anna = connect(client, game_id, tokens[0], stack)
        rng = random.Random(31)
        with contextlib.ExitStack() as away:
            ben = connect(client, game_id, tokens[1], away)
            # Play until it is Ben's turn, then Ben's connection goes away.
            version = ben.state["version"]
            while ben.until(version)["view"]["to_move"] != 1:
                anna.until(version)
                if anna.state["view"]["to_move"] == 0:
                    anna.send({"type": "action", "action": rng.choice(anna.state["view"]["legal_actions"]),
                               "version": version})
                version += 1
            anna.until(version)
        # Ben is away on his turn: after the grace period a bot plays for him, and says so.
        marked = None
        while marked is None:
            message = anna.receive()
            if message["type"] == "presence" and message["seats"][1]["stand_in"]:
                assert not message["seats"][1]["connected"]
            if message["type"] == "update" and message["stand_in"] == 1:
                marked = message
        assert marked["events"][0]["seat"] == 1 and marked["version"] == version + 1
        time.sleep(0.05)
        # Ben returns: the seat is his again at once; the table waits for him when he is to move.
        ben = connect(client, game_id, tokens[1], stack, version=version)
        assert ben.seat == 1
        presence = ben.until_type("presence")
        assert presence["seats"][1]["connected"] and not presence["seats"][1]["stand_in"]
        people = {0: anna, 1: ben}
        play_deals(people, rng, deals=1)
        for watcher in people.values():
            check_no_leak(db, game_id, watcher)


def test_presence_and_next_deal_waits_for_every_connected_person(db: Path) -> None:
    with client_for(db) as client, contextlib.ExitStack() as stack:
        game_id, tokens = seat_everybody(client, "standard(target=300)", ["me", "open", "easy"], 41)
        people = {seat: connect(client, game_id, token, stack) for seat, token in tokens.items()}
        presence = people[1].until_type("presence")
        assert [s["kind"] for s in presence["seats"]] == ["person", "person", "bot"]
        version = play_deals(people, random.Random(41), deals=1)
        people[0].send({"type": "next_deal", "version": version})
        ready = people[1].until_type("presence")
        while ready["ready"] != [0]:
            ready = people[1].until_type("presence")
        assert people[1].state["version"] == version  # not dealt yet: Ben has not said so
        people[1].send({"type": "next_deal", "version": version})
        assert people[0].until(version + 1)["view"]["phase"] != "over"


def test_waiting_for_friends_nobody_moves(db: Path) -> None:
    with client_for(db) as client, contextlib.ExitStack() as stack:
        created = create(client, "standard", ["me", "open", "easy"], seed=8)
        anna = connect(client, created["id"], created["token"], stack)
        assert anna.state["game"]["waiting"] and anna.state["game"]["seats"][1]["kind"] == "open"
        if anna.state["view"]["to_move"] == 0:
            anna.send({"type": "action", "action": anna.state["view"]["legal_actions"][0], "version": 1})
            assert "waiting for friends" in anna.until_type("error")["message"]
        join(client, created["invites"]["code"], "Ben")
        while anna.state["game"]["waiting"]:
            anna.receive()
        assert anna.state["game"]["players"][1] == "Ben"


# ---------------------------------------------------------------------- chat, lobby, rematch, limits

def test_chat_is_text_limited_and_rate_limited(db: Path) -> None:
    limits = Limits(chat_per_10_seconds=3)
    with client_for(db, limits=limits) as client, contextlib.ExitStack() as stack:
        game_id, tokens = seat_everybody(client, "standard", ["me", "open", "easy"], 9)
        anna = connect(client, game_id, tokens[0], stack)
        ben = connect(client, game_id, tokens[1], stack)
        anna.send({"type": "chat", "text": "<script>alert(1)</script>  hi"})
        line = ben.until_type("chat")
        assert line == {**line, "seat": 0, "name": "Anna", "text": "<script>alert(1)</script> hi"}
        anna.send({"type": "chat", "phrase": "well_played"})
        assert ben.until_type("chat")["phrase"] == "well_played"
        for message, expected in [({"type": "chat", "text": "x" * 201}, "at most 200 characters"),
                                  ({"type": "chat", "text": "  "}, "needs \"text\""),
                                  ({"type": "chat", "text": "a\u0000b"}, "control characters"),
                                  ({"type": "chat", "phrase": "insult"}, "quick phrase must be")]:
            anna.send(message)
            assert expected in anna.until_type("error")["message"]
        anna.send({"type": "chat", "text": "three"})
        anna.send({"type": "chat", "text": "four"})
        assert "at most 3 messages" in anna.until_type("error")["message"]
        late = connect(client, game_id, tokens[1], stack)  # a newcomer at a seat sees the recent lines
        log = late.until_type("chat_log")
        assert [m.get("text") or m.get("phrase") for m in log["lines"]] == [
            "<script>alert(1)</script> hi", "well_played", "three"]


def test_lobby_lists_only_public_tables_with_free_seats(db: Path) -> None:
    with client_for(db) as client:
        public = create(client, "standard", ["me", "open", "easy"], seed=1, lobby=True)
        create(client, "standard", ["me", "open", "easy"], seed=2)
        tables = client.get("/api/lobby").json()["tables"]
        assert [t["id"] for t in tables] == [public["id"]]
        assert "token" not in json.dumps(tables)
        joined = client.post("/api/join", json={"id": public["id"], "name": "Ben"}).json()
        assert joined["seat"] == 1
        assert client.get("/api/lobby").json()["tables"] == []


def test_rematch_keeps_the_people_in_their_seats(db: Path) -> None:
    with client_for(db) as client, contextlib.ExitStack() as stack:
        game_id, tokens = seat_everybody(client, "standard(target=100)", ["me", "open", "easy"], 51)
        people = {seat: connect(client, game_id, token, stack) for seat, token in tokens.items()}
        rng = random.Random(51)
        while not people[0].state["game"]["over"]:
            play_deals(people, rng, deals=1)
            if not people[0].state["game"]["over"]:
                version = people[0].state["version"]
                for w in people.values():
                    w.send({"type": "next_deal", "version": version})
                for w in people.values():
                    w.until(version + 1)
        people[1].send({"type": "rematch"})
        new_id = people[0].until_type("rematch")["id"]
        assert new_id != game_id and people[1].until_type("rematch")["id"] == new_id
        again = {seat: connect(client, new_id, token, stack) for seat, token in tokens.items()}
        assert [w.seat for w in again.values()] == list(tokens)
        assert again[0].state["game"]["players"][:2] == ["Anna", "Ben"] and not again[0].state["game"]["waiting"]


def test_every_connection_is_told_of_the_rematch_once(db: Path) -> None:
    """docs/server.md, "At the table": on a rematch "every connection gets {"type": "rematch",
    "id"}" — once: each seat (the asker too, and a second tab of a seat) and the spectator.
    Before, the asker was told twice (the table's message to everybody, then an answer of its
    own). Asking again tells nothing new (everybody knows; a newcomer has it in its snapshot)."""
    with client_for(db) as client, contextlib.ExitStack() as stack:
        game_id, tokens = seat_everybody(client, "standard(deals=1)", ["me", "open", "easy"], 53)
        people = {seat: connect(client, game_id, token, stack) for seat, token in tokens.items()}
        second_tab, spectator = connect(client, game_id, tokens[0], stack), connect(client, game_id, None, stack)
        watchers = [*people.values(), second_tab, spectator]
        play_deals(people, random.Random(53), deals=1, spectators=(second_tab, spectator))
        assert people[0].state["game"]["over"]

        def told() -> list[list[str]]:
            """The rematch ids each watcher was told until the answer to a ping sent now."""
            for watcher in watchers:
                watcher.send({"type": "ping"})  # answered after anything queued before it
                watcher.until_type("pong")
            return [[m["id"] for m in w.log if m["type"] == "rematch"] for w in watchers]

        people[1].send({"type": "rematch"})
        people[1].until_type("rematch")
        new_id = people[1].log[-1]["id"]
        assert told() == [[new_id]] * len(watchers)  # seats 0 and 1, seat 0's second tab, the spectator
        people[0].send({"type": "rematch"})
        assert told() == [[new_id]] * len(watchers)
        assert connect(client, game_id, tokens[0], stack).state["game"]["rematch"] == new_id


def test_a_game_has_one_rematch_at_every_process_and_after_a_restart(db: Path) -> None:
    """docs/server.md, "At the table": a game's rematch is stored with it, so a person asking at
    another process (a second app on the same database) gets the same new game (on PostgreSQL
    that process tells its people of it without their asking), and a person
    coming back after a restart finds it in the snapshot. Before, it lived in one process's
    memory: each process, or the same one after a restart, made a rematch of its own and the
    people were split between two new tables."""
    with client_for(db) as here, client_for(db) as there, contextlib.ExitStack() as stack:
        game_id, tokens = seat_everybody(here, "standard(deals=1)", ["me", "open", "easy"], 53)
        people = {seat: connect(here, game_id, token, stack) for seat, token in tokens.items()}
        play_deals(people, random.Random(53), deals=1)
        assert people[0].state["game"]["over"]
        elsewhere = connect(there, game_id, tokens[1], stack)
        assert elsewhere.state["game"]["rematch"] is None
        people[0].send({"type": "rematch"})
        new_id = people[0].until_type("rematch")["id"]
        if isinstance(db, str):  # PostgreSQL tells the other process; two apps on one SQLite file hear nothing
            assert elsewhere.until_type("rematch")["id"] == new_id  # told without asking, once
            elsewhere.send({"type": "rematch"})  # asking again tells nothing new
            elsewhere.send({"type": "ping"})
            elsewhere.until_type("pong")
            assert [m["id"] for m in elsewhere.log if m["type"] == "rematch"] == [new_id]
        else:
            elsewhere.send({"type": "rematch"})
            assert elsewhere.until_type("rematch")["id"] == new_id
    with client_for(db) as restarted, contextlib.ExitStack() as stack:
        assert connect(restarted, game_id, tokens[1], stack).state["game"]["rematch"] == new_id
        asker = connect(restarted, game_id, tokens[0], stack)
        asker.send({"type": "rematch"})  # tells nothing new: the snapshot had it
        asker.send({"type": "ping"})
        asker.until_type("pong")
        assert asker.state["game"]["rematch"] == new_id and not [m for m in asker.log if m["type"] == "rematch"]
    store = open_store(db)
    try:
        assert sorted(info.id for info in store.games()) == sorted([game_id, new_id])  # none made and left over
    finally:
        store.close()


def test_a_rematch_keeps_a_creator_who_only_hosts(db: Path) -> None:
    """docs/server.md, "At the table": a rematch is "one new game for everybody, the same people
    in the same seats (the same token digests are copied)" — also at a table whose creator
    only hosts (every seat a friend's or a bot's). Before, the host's token digest, one row of
    the invites, could not be stored for a second game: the rematch was refused
    (`db_unavailable`) and never came."""
    with client_for(db) as client, contextlib.ExitStack() as stack:
        created = create(client, "standard(deals=1)", ["open", "open", "easy"], seed=52)
        assert created["seat"] is None
        host = {"Authorization": f"Bearer {created['token']}"}
        tokens = {}
        for invite, name in zip(created["invites"]["seats"], ("Ben", "Cleo")):
            tokens[invite["seat"]] = join(client, invite["code"], name)["token"]
        people = {seat: connect(client, created["id"], token, stack) for seat, token in tokens.items()}
        play_deals(people, random.Random(52), deals=1)
        assert people[0].state["game"]["over"]
        people[1].send({"type": "rematch"})
        while (answer := people[1].receive())["type"] not in ("rematch", "error"):
            pass
        assert answer["type"] == "rematch", answer
        new_id = answer["id"]
        assert people[0].until_type("rematch")["id"] == new_id
        again = {seat: connect(client, new_id, token, stack) for seat, token in tokens.items()}
        assert [w.seat for w in again.values()] == list(tokens)
        held = client.post("/api/my-games", json={"tokens": [created["token"]]}).json()["games"]
        assert [(g["id"], g["seat"]) for g in held] == [(new_id, None)]  # the host's newest table
        renewed = client.post(f"/api/games/{new_id}/invites", headers=host)
        assert renewed.status_code == 200, renewed.text
        assert client.delete(f"/api/games/{created['id']}", headers=host).status_code == 200  # still the old one's host
        assert client.delete(f"/api/games/{new_id}", headers=host).status_code == 200


def test_your_games_lists_a_table_once_with_the_seat_to_come_back_to(db: Path) -> None:
    """docs/server.md, "Seats and tokens": "Your games" lists each table once, however many of
    its seats the tokens hold (here a creator who only hosts and then takes two seats, for two
    people at one screen); the row names the seat to come back to — a seat played before
    hosting, the one to move first — and the token sent that holds it, which opens that seat.
    Before, the table came once per seat held (the page showed it twice, the same link)."""
    with client_for(db) as client, contextlib.ExitStack() as stack:
        created = create(client, "standard", ["open", "open", "easy"], seed=51)  # seat 1 opens the auction
        host = created["token"]
        mine = {invite["seat"]: join(client, invite["code"], name)["token"]
                for invite, name in zip(created["invites"]["seats"], ("Anna", "Ben"))}

        def rows(*tokens: str) -> list[tuple[str, int | None, str, bool]]:
            games = client.post("/api/my-games", json={"tokens": list(tokens)}).json()["games"]
            return [(g["id"], g["seat"], g.get("token"), g.get("host")) for g in games]

        assert connect(client, created["id"], mine[0], stack).state["view"]["to_move"] == 1
        assert rows(host, mine[0], mine[1]) == [(created["id"], 1, mine[1], False)]  # seat 1 is to move
        assert rows(mine[0], host) == [(created["id"], 0, mine[0], False)]  # a seat before hosting
        assert rows(host) == [(created["id"], None, host, True)]
        assert connect(client, created["id"], rows(mine[1], mine[0])[0][2], stack).seat == 1


def test_too_many_tables_a_minute(db: Path) -> None:
    with client_for(db, limits=Limits(tables_per_minute=2)) as client:
        codes = [client.post("/api/games", json={}).status_code for _ in range(3)]
        assert codes == [200, 200, 429]


def test_too_many_connections_to_a_table(db: Path) -> None:
    with client_for(db, limits=Limits(spectators_per_table=2)) as client, contextlib.ExitStack() as stack:
        created = create(client, "standard", ["me", "easy", "easy"], seed=1)
        connect(client, created["id"], None, stack)
        connect(client, created["id"], None, stack)
        with client.websocket_connect(f"/ws/games/{created['id']}") as ws:
            ws.send_json({"type": "hello", "token": None})
            assert "spectators already" in ws.receive_json()["message"]


def test_errors_name_only_the_card_sent(db: Path) -> None:
    with client_for(db, think=600) as client, contextlib.ExitStack() as stack:
        game_id, tokens = seat_everybody(client, "standard", ["me", "open", "easy"], 61)
        people = {seat: connect(client, game_id, token, stack) for seat, token in tokens.items()}
        for watcher in people.values():
            watcher.send({"type": "action", "action": "AS", "version": watcher.state["version"]})
            watcher.until_type("error")
            check_no_leak(db, game_id, watcher, sent=frozenset({Card.parse("AS")}))


@pytest.mark.parametrize("built_by", ["state", "update_text"])
def test_the_per_seat_leak_check_catches_a_leak(db: Path, monkeypatch: pytest.MonkeyPatch, built_by: str) -> None:
    """Guard the guard: a snapshot that shows the next seat's hand to a person (or any hand to
    a spectator), or an update that shows it in an event (only the message as sent has it),
    must fail the check."""
    from binokel.server.message import Messages

    honest = getattr(Messages, built_by)

    def leaky(self: Messages, seat: int | None, *rest: Any) -> dict[str, Any] | str:
        sent = honest(self, seat, *rest)
        other = 0 if seat is None else (seat + 1) % self.table.driver.players
        cards = [str(c) for c in self.table.game.current.hand(other)]
        if built_by == "state":
            return {**sent, "last_trick": {"cards": cards}}
        told = json.loads(sent)  # the update as sent: its text
        return json.dumps({**told, "events": [*told["events"], {"version": told["version"], "kind": "hand",
                                                                  "cards": cards}]})

    monkeypatch.setattr(Messages, built_by, leaky)
    with client_for(db) as client, contextlib.ExitStack() as stack:
        game_id, tokens = seat_everybody(client, "standard", ["me", "open", "easy"], 7)
        people = {seat: connect(client, game_id, token, stack) for seat, token in tokens.items()}
        watchers = [people[1], connect(client, game_id, None, stack)]
        version = max(w.state["version"] for w in (*people.values(), *watchers))
        for watcher in (*people.values(), *watchers):
            watcher.until(version)
        seen = people[0].state["view"]
        if seen["to_move"] in people:  # else the bot moves by itself
            mover = people[seen["to_move"]]
            mover.send({"type": "action", "action": mover.state["view"]["legal_actions"][0], "version": version})
        for watcher in watchers:
            watcher.until(version + 1)
            assert watcher.log[-1]["type"] == "update"
    for watcher in watchers:
        with pytest.raises(AssertionError, match="shows"):
            check_no_leak(db, game_id, watcher)


def test_invite_links_use_the_public_url_and_say_when_only_this_computer_listens(tmp_path: Path) -> None:
    with client_for(tmp_path / "a.db") as client:
        assert client.get("/api/meta").json()["listen"]["local_only"] is True
    with client_for(tmp_path / "b.db", host="0.0.0.0", public_url="https://binokel.example/club") as client:
        assert client.get("/api/meta").json()["listen"]["local_only"] is False
        created = create(client, "standard", ["me", "open", "easy"], seed=1)
        links = created["links"]
        assert links["next_seat"] == f"https://binokel.example/club/#/join/{created['invites']['code']}"
        assert links["seats"][0]["url"].startswith("https://binokel.example/club/#/join/")
        assert links["watch"] == f"https://binokel.example/club/#/watch/{created['id']}"
        assert created["token"] not in json.dumps(links)  # a link never carries a seat token


def test_too_many_messages_a_second(db: Path) -> None:
    with client_for(db, think=600, limits=Limits(messages_per_second=0.001, message_burst=3)) as client, \
            contextlib.ExitStack() as stack:
        created = create(client, "standard", ["me", "easy", "easy"], seed=1)
        anna = connect(client, created["id"], created["token"], stack)
        for _ in range(4):
            anna.send({"type": "sync"})
        assert "too many messages" in anna.until_type("error")["message"]
        assert [m["type"] for m in anna.log].count("state") == 1 + 3  # the first three were answered


def test_a_friend_who_joined_at_another_process_is_let_in(tmp_path: Path) -> None:
    """Two processes on one file that do not hear each other (as when the notice of a join
    is still on its way): B holds the table from before Ben joined at A. Ben's hello at B is
    let in once B has read the seats again (it was refused: 4403, token_no_seat; the load
    benchmark's two processes lost a seventh of their people that way)."""
    db = tmp_path / "games.sqlite3"
    with client_for(db) as a, client_for(db) as b, contextlib.ExitStack() as stack:
        created = a.post("/api/games", json={"rules": "standard", "seats": ["me", "open", "easy"]}).json()
        anna = connect(b, created["id"], created["token"], stack)  # B holds the table now
        ben = a.post("/api/join", json={"code": created["invites"]["seats"][0]["code"], "name": "Ben"}).json()
        at_b = connect(b, created["id"], ben["token"], stack)
        assert (anna.seat, at_b.seat) == (0, ben["seat"])
