"""The protocol's models (server/schema.py): what they refuse becomes the protocol's coded
error, in the catalogue of every language, naming the field; never a validator's text."""

from __future__ import annotations

import contextlib
import json
import random
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from friends_support import client_for, connect, play_deals, seat_everybody
from pydantic import BaseModel

from binokel.i18n import LANGUAGES, catalogue, placeholders
from binokel.server.schema import (
    CLIENT,
    HTTP,
    JOIN,
    NEW_GAME,
    SERVER,
    ProtocolError,
    Reader,
    Refusal,
)
from binokel.server.schema_file import SCHEMA_FILE, schema_text
from binokel.server.schema_review import REVIEW


def refusal_of(reader: Reader[Any], data: Any) -> ProtocolError:
    with pytest.raises(ProtocolError) as refused:
        reader.read(data)
    return refused.value


def models() -> list[type[BaseModel]]:
    return [model for reader in (CLIENT, NEW_GAME, JOIN) for model in reader.models.values()]


def test_every_refusal_code_is_in_every_catalogue_with_its_params() -> None:
    codes = {"unknown_type", "unknown_field", "bad_field", "message_not_object", "body_not_object", "join_body"}
    for model in models():
        for info in model.model_fields.values():
            for refusal in (m for m in info.metadata if isinstance(m, Refusal)):
                codes |= {refusal.code} | ({refusal.item.code} if refusal.item else set())
    for lang in LANGUAGES:
        strings = catalogue(lang)["strings"]
        assert all(f"error.{code}" in strings for code in codes), (lang, sorted(codes - set(strings)))
    english = catalogue("en")["strings"]
    assert placeholders(english["error.bad_field"]) == {"field"}


@pytest.mark.parametrize(("data", "code", "params"), [
    ({"type": "hint", "chosen": [1]}, "bad_field", {"field": "chosen.0"}),
    ({"type": "hint", "chosen": "AS"}, "bad_field", {"field": "chosen"}),
    ({"type": "events", "since": -1}, "events_needs_since", {}),
    ({"type": "action", "action": "AS", "version": True}, "action_needs_version", {}),
    ({"type": "chat", "phrase": "yo"}, "bad_phrase", {"value": "'yo'"}),
    ({"type": 7}, "unknown_type", {"value": "7"}),
    ([1], "message_not_object", {}),
])
def test_a_refused_message_gets_a_coded_error(data: Any, code: str, params: dict[str, Any]) -> None:
    refused = refusal_of(CLIENT, data)
    assert refused.code == code and params.items() <= refused.params.items(), refused.params
    assert "pydantic" not in str(refused) and "Input should" not in str(refused)


@pytest.mark.parametrize(("body", "code", "params"), [
    ({"grace": True}, "bad_seconds", {"name": "grace", "value": "True"}),
    ({"next_deal_after": 4000}, "bad_seconds", {"name": "next_deal_after", "value": "4000"}),
    ({"seats": ["me", "x", "easy"]}, "bad_seat_kind", {"value": "'x'"}),
    ({"rules": "kreuz", "seats": "me"}, "seats_list", {"count": 4}),
    ({"seats": ["me", "me", "easy"]}, "one_me", {}),
    ({"lobby": 1}, "bad_lobby", {"value": "1"}),
    ({"name": "a\x07b"}, "name_control", {}),
    ({"deck": "tarot", "colour": 1}, "unknown_field", {"name": "'colour'"}),  # the unknown key first
])
def test_a_refused_new_game_names_the_field(body: Any, code: str, params: dict[str, Any]) -> None:
    refused = refusal_of(NEW_GAME, body)
    assert refused.code == code and params.items() <= refused.params.items(), refused.params


@pytest.mark.parametrize(("body", "code"), [
    ([1], "review_body"), ({"seat": 0}, "review_body"), ({"record": {}, "seat": "0"}, "review_numbers"),
    ({"record": {}, "deal": True}, "review_numbers")])
def test_a_refused_review_upload_keeps_its_codes(body: Any, code: str) -> None:
    assert refusal_of(REVIEW, body).code == code


def test_a_name_is_squeezed_and_a_join_needs_one() -> None:
    assert JOIN.read({"code": "ABCD-EFGH", "name": "  Anna   Maria "}).name == "Anna Maria"
    assert refusal_of(JOIN, {"code": "ABCD-EFGH"}).code == "name_length"
    assert refusal_of(JOIN, {"code": "ABCD-EFGH", "name": "Eve", "seat": 1}).code == "join_body"


# ---------------------------------------------------------------------- the published schema

SCHEMA = Path(__file__).parent.parent / SCHEMA_FILE


def schema_validator(name: str) -> Any:
    """A JSON Schema validator of ``$defs/<name>`` of the committed schema file."""
    document = json.loads(SCHEMA.read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(document)
    return jsonschema.Draft202012Validator({**document, "anyOf": [{"$ref": f"#/$defs/{name}"}]})


def test_the_committed_schema_is_the_generated_one() -> None:
    assert SCHEMA.read_text("utf-8") == schema_text(), "run: binokel schema -o docs/protocol.schema.json"


def test_the_schema_file_refuses_what_the_models_refuse() -> None:
    client = schema_validator("ClientMessage")
    client.validate({"type": "action", "action": "AS", "version": 3})
    for wrong in ({"type": "action", "action": "AS"}, {"type": "dance"}, {"type": "events", "since": -1},
                  {"type": "chat", "phrase": "yo"}):
        assert not client.is_valid(wrong), wrong
    body = schema_validator("NewGame")
    body.validate({"rules": "kreuz", "seats": ["me", "open", "hard", "easy"], "grace": 30})
    assert not body.is_valid({"deck": "tarot"}) and not body.is_valid({"colour": "red"})


def test_binokel_schema_writes_the_file(tmp_path: Path) -> None:
    from binokel.cli import main

    assert main(["schema", "-o", str(tmp_path / "schema.json")]) == 0
    assert (tmp_path / "schema.json").read_text("utf-8") == SCHEMA.read_text("utf-8")


# ---------------------------------------------------------------------- what the server sends

def test_every_message_of_a_whole_game_is_in_the_schema(tmp_path: Path) -> None:
    """Two people, a bot and a spectator play a game to its end, with chat, a hint, a refused
    message, a heartbeat (an older page's ping), a rematch, an events request and a quiet line told
    a beat: every message any of them gets is one of the schema's (``SERVER``), and every kind of
    message and event comes up."""
    with client_for(tmp_path / "games.db") as client, contextlib.ExitStack() as stack:
        game_id, tokens = seat_everybody(client, "standard(target=500)", ["me", "open", "easy"], seed=3)
        people = {seat: connect(client, game_id, token, stack) for seat, token in tokens.items()}
        watcher = connect(client, game_id, None, stack)
        people[0].send({"type": "dance"})
        assert people[0].until_type("error")["code"] == "unknown_type"
        people[1].send({"type": "ping"})  # an older page's heartbeat, answered by a pong
        people[1].until_type("pong")
        people[1].send({"type": "chat", "text": "Grüß Gott"})
        people[0].send({"type": "chat", "phrase": "good_luck"})
        for person in people.values():
            person.until_type("chat")
            person.until_type("chat")
        mover = people.get(people[0].state["view"]["to_move"]) if people[0].state else None
        if mover is not None:
            mover.send({"type": "hint"})
            mover.until_type("hint")
        version = play_deals(people, random.Random(3), deals=1000, spectators=(watcher,))
        assert people[0].state is not None and people[0].state["game"]["over"]
        people[1].send({"type": "events", "since": version - 1})
        people[1].until_type("events")
        people[0].send({"type": "rematch"})
        for person in (*people.values(), watcher):
            person.until_type("rematch")
        beating = connect(client, game_id, None, stack, beat=True)  # the page's: told a beat on a quiet line
        beating.until_type("beat")
        logs = [message for person in (*people.values(), watcher, beating) for message in person.log]
    validator = schema_validator("ServerMessage")
    for message in logs:
        validator.validate(message)  # raises, naming the place, if the published schema does not allow it
        SERVER.adapter.validate_python(message)  # and the models, which say more (a type per tag)
    assert {m["type"] for m in logs} == set(SERVER.types)
    told = {e["kind"] for m in logs if m["type"] in ("events", "update") for e in m["events"]}
    assert told >= {"deal", "hand", "trick", "deal_over", "game_over"}
    assert any(m["type"] == "update" and m.get("append") for m in logs)  # a trick won: added, not resent
    assert any(m["type"] == "state" and m["seat"] is None for m in logs)  # the spectator's too


def test_every_http_answer_of_the_game_routes_is_in_the_schema(tmp_path: Path) -> None:
    """Each JSON route of ``HTTP`` answered and refused once; every body sent and every answer
    validates against the committed schema (the body's and the answer's ``$defs``)."""
    document = json.loads(SCHEMA.read_text("utf-8"))
    routes = document["x-http"]
    assert set(HTTP) <= set(routes)
    answered: dict[str, int] = {}

    def call(route: str, path: str, body: Any = None, **options: Any) -> Any:
        method = route.split()[0]
        response = client.request(method, path, json=body, **options)
        answer = response.json()
        name = routes[route]["answer" if response.status_code == 200 else "refusal"].rsplit("/", 1)[1]
        schema_validator(name).validate(answer)
        if body is not None and response.status_code == 200:
            schema_validator(routes[route]["body"].rsplit("/", 1)[1]).validate(body)
        answered[route] = answered.get(route, 0) + (response.status_code == 200)
        return answer

    with client_for(tmp_path / "games.db") as client:
        call("GET /api/meta", "/api/meta")
        call("GET /api/rules", "/api/rules?text=kreuz(target=1000)")
        call("GET /api/rules", "/api/rules?text=poker")
        call("GET /api/rules/check", "/api/rules/check?text=sechser")
        schema_validator("RulesRefused").validate(client.get("/api/rules/check?text=poker").json())
        call("POST /api/games", "/api/games", {"deck": "tarot"})
        created = call("POST /api/games", "/api/games",
                       {"rules": "standard", "seats": ["me", "open", "easy"], "name": "Anna", "lobby": True})
        call("POST /api/invite", "/api/invite", {"code": created["invites"]["code"]})
        call("GET /api/lobby", "/api/lobby")
        renewed = call("POST /api/games/{id}/invites", f"/api/games/{created['id']}/invites",
                       headers={"Authorization": f"Bearer {created['token']}"})
        joined = call("POST /api/join", "/api/join", {"code": renewed["invites"]["code"], "name": "Ben"})
        call("POST /api/join", "/api/join", {"code": renewed["invites"]["code"], "name": "Cleo"})  # full: 409
        call("POST /api/my-games", "/api/my-games", {"tokens": [created["token"], joined["token"]]})
        call("GET /api/games/{id}/advice", f"/api/games/{created['id']}/advice",
             headers={"Authorization": f"Bearer {joined['token']}"})
        call("GET /api/games/{id}/advice", f"/api/games/{created['id']}/advice")  # no token: 403
        call("DELETE /api/games/{id}", f"/api/games/{created['id']}",
             headers={"Authorization": f"Bearer {created['token']}"})
    assert set(answered) == set(HTTP) and all(answered.values()), answered
