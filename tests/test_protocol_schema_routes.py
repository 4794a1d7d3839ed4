"""The score pad's, the club's and the review's routes against the published schema
(docs/protocol.schema.json, from server/schema_pad.py, schema_club.py, schema_review.py):
every answer of a whole pad session, a whole club event run through the server and the
reviews validates, and so does every body sent; hostile bodies get the catalogue's codes
and change nothing stored."""

from __future__ import annotations

import contextlib
import json
import random
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from friends_support import client_for, connect, play_deals, seat_everybody
from pydantic import TypeAdapter

from binokel.club import ClubError, Settings
from binokel.i18n import LANGUAGES, catalogue
from binokel.score import SUMMARY_FIELDS
from binokel.server import schema_club, schema_pad, schema_review
from binokel.server.schema import ProtocolError, Refusal
from binokel.server.schema_file import every_route
from club_support import receive, summary_for
from schema_support import DOCUMENT, check_answer, def_name, validator
from server_support import app_for

CODES = {key.removeprefix("error.") for key in catalogue("en")["strings"] if key.startswith("error.")}
MADE = {"soloist": 0, "bid": 200, "game": "S", "melds": [150, 40, 20], "card_points": [90, 100, 60],
        "tricks": [4, 6, 5]}
IMPOSSIBLE = {**MADE, "card_points": [300, 0, 0]}
"""A summary the core refuses: the good body of a hostile test, so that no variant of it is stored."""
ROUTES = {**schema_pad.HTTP, **schema_club.HTTP, **schema_review.HTTP}


def auth(secret: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"} if secret else {}


class Checked:
    """A client whose every JSON answer (and every body of a 200) is validated against the
    route's ``x-http`` entry of the committed schema; it counts the routes answered."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.answered: Counter[str] = Counter()

    def __call__(self, route: str, path: str, body: Any = None, secret: str | None = None,
                 status: int = 200) -> Any:
        entry = DOCUMENT["x-http"][route]
        response = self.client.request(route.split()[0], path, json=body, headers=auth(secret))
        assert response.status_code == status, response.text
        answer = response.json()
        assert check_answer(route.split()[0], path, status, answer) == route
        if status == 200:
            if body is not None:
                validator(def_name(entry["body"])).validate(body)
            model = ROUTES[route][1]  # and the model itself, which says more (JSON: tuples are arrays)
            TypeAdapter(model).validate_json(json.dumps(answer))
        else:
            assert answer["code"] in CODES and "Input should" not in answer["error"], answer
        self.answered[route] += status == 200
        return answer


@pytest.fixture
def checked(tmp_path: Path) -> Iterator[Checked]:
    with TestClient(app_for(tmp_path / "games.sqlite3")) as client:
        yield Checked(client)


def test_the_committed_schema_lists_every_route_of_the_pad_club_and_review() -> None:
    routes = every_route()
    assert set(ROUTES) | set(routes.csv) <= set(DOCUMENT["x-http"])
    assert {"ClubMessage", "NewSheet", "DealEntry", "EventSettings", "EventEntry", "TableDeal",
            "ReviewUpload"} <= set(DOCUMENT["$defs"])
    for route in routes.csv:
        assert DOCUMENT["x-http"][route]["content"] == "text/csv"


def test_every_api_route_of_the_app_is_in_the_schema(tmp_path: Path) -> None:
    """A route added to the app without its models fails this test."""
    routes = set()
    for route in app_for(tmp_path / "games.sqlite3").routes:
        if isinstance(route, APIRoute) and route.path.startswith("/api/"):
            routes |= {f"{method} {re.sub(r'[{][a-z_]+[}]', '{id}', route.path)}" for method in route.methods}
    assert routes == set(DOCUMENT["x-http"]), routes ^ set(DOCUMENT["x-http"])


def test_the_summary_model_has_the_cores_fields() -> None:
    """The schema's summary is the core's (binokel.score.DealSummary), field for field."""
    assert tuple(schema_pad.Summary.model_fields) == SUMMARY_FIELDS


def test_every_refusal_code_of_the_route_models_is_in_every_catalogue() -> None:
    codes = {"unknown_field", "club_unknown_field", "bad_field", "body_not_object", "review_body"}
    for reader in (*schema_pad.BODIES.values(), *schema_club.BODIES.values(), *schema_review.BODIES.values()):
        for model in reader.models.values():
            for info in model.model_fields.values():
                codes |= {m.code for m in info.metadata if isinstance(m, Refusal)}
    for lang in LANGUAGES:
        strings = catalogue(lang)["strings"]
        assert all(f"error.{code}" in strings for code in codes), (lang, sorted(codes - set(strings)))


@pytest.mark.parametrize(("reader", "body", "code", "params"), [
    (schema_pad.NEW_SHEET, {"rules": "kreuz", "players": ["A", "B", "C", "D"], "first_dealer": "1"},
     "summary_bad_seat", {"field": "first_dealer", "last": 3, "value": "'1'"}),
    (schema_pad.NEW_SHEET, {"players": "ABC"}, "pad_names", {"field": "players"}),
    (schema_pad.NEW_SHEET, {"rules": 3, "players": []}, "rules_not_text", {"value": "3"}),
    (schema_pad.ENTRY, {"deal": 0, "summary": {}}, "pad_no_such_deal", {"field": "deal", "value": "0"}),
    (schema_pad.ENTRY, {"summary": [1]}, "summary_not_object", {"field": "summary"}),
    (schema_pad.ENTRY, {"summary": {}, "deals": 1}, "unknown_field", {"name": "'deals'"}),
    (schema_club.ENTRY, {"kind": "win"}, "club_entry_kind", {"field": "kind"}),
    (schema_club.ENTRY, {"kind": "drop", "player": "3"}, "club_no_player", {"field": "player"}),
    (schema_club.DEAL, {"round": "1", "table": 1, "deal": 1, "summary": {}}, "club_no_round", {"field": "round"}),
    (schema_club.DEAL, {"round": 1, "table": 1, "summary": {}}, "bad_field", {"field": "deal"}),
    (schema_club.DEAL, {"round": 1, "table": 1, "deal": 1, "summary": "x"}, "club_summary_object",
     {"field": "summary"}),
    (schema_review.REVIEW, {"record": {}, "note": 1}, "unknown_field", {"name": "'note'"}),
])
def test_a_refused_body_names_its_field(reader: Any, body: Any, code: str, params: dict[str, Any]) -> None:
    with pytest.raises(ProtocolError) as refused:
        reader.read(body, **({"last": 0} if reader is schema_pad.ENTRY else {}))  # the route knows the deals
    assert (refused.value.code, params.items() <= refused.value.params.items()) == (code, True), refused.value.params
    assert "Input should" not in str(refused.value)


@pytest.mark.parametrize("body", [
    {"name": ""}, {"name": 7}, {"name": "Cup", "rules": ["club"]}, {"name": "Cup", "rounds": "2"},
    {"name": "Cup", "deals": 0}, {"name": "Cup", "table_size": 5}, {"name": "Cup", "fees": [[1]]},
    {"name": "Cup", "entry_fee": -1}, {"name": "Cup", "tie_breaks": ["luck"]}, {"name": "Cup", "fewest_meetings": 1},
    {"name": "Cup", "colour": 1},
])
def test_the_club_settings_model_refuses_as_the_core_does(body: dict[str, Any]) -> None:
    """The model reads a new event's settings before the core (binokel.club.Settings) does;
    whichever sees a fault, the organiser gets the same code naming the same field."""
    with pytest.raises(ProtocolError) as model:
        schema_club.SETTINGS.read(body)
    with pytest.raises(ClubError) as core:
        Settings.from_json(body)
    assert (model.value.code, model.value.params.get("field")) == (core.value.code, core.value.params.get("field"))


# ---------------------------------------------------------------------- a whole pad session

def test_every_answer_of_a_whole_pad_session_is_in_the_schema(checked: Checked) -> None:
    call = checked
    for text in ("standard", "kreuz", "standard(players=4,sit_out=1)", "standard(bettel=300)", "sechser"):
        call("GET /api/pad/rules", f"/api/pad/rules?text={text}")
    call("GET /api/pad/rules", "/api/pad/rules?text=poker", status=400)
    made = call("POST /api/pad", "/api/pad", {"rules": "standard(auction=open,target=700)",
                                              "players": ["Anna", "Ben", "Cleo"], "first_dealer": 2})
    sheet_id, token = made["id"], made["token"]
    route, path = "POST /api/pad/{id}/deals", f"/api/pad/{sheet_id}/deals"
    call(route, path, {"summary": MADE}, token)
    call(route, path, {"deal": 1, "summary": MADE}, token)  # a retry: stored once
    call(route, path, {"deal": 1, "summary": {**MADE, "card_points": [40, 150, 60]}}, token)  # a correction
    call(route, path, {"summary": {"soloist": None}}, token)  # everybody passed
    call(route, path, {"summary": {"soloist": 1, "bid": 150, "game": "H", "surrendered": True,
                                   "melds": [20, 40, 0]}}, token)
    call(route, path, {"summary": {**MADE, "card_points": [300, 0, 0]}}, token, status=400)
    call(route, path, {"summary": MADE}, None, status=403)
    seen = call("GET /api/pad/{id}", f"/api/pad/{sheet_id}")  # the live view
    assert len(seen["deals"]) == 3 and seen["winner"] is None
    while seen["winner"] is None:
        won = {**MADE, "card_points": [150, 40, 60], "tricks": [8, 2, 5]}
        seen = call(route, path, {"summary": won}, token)
    assert seen["ranking"] and seen["next_dealer"] is None
    call(route, path, {"summary": MADE}, token, status=400)  # the game is over
    csv = checked.client.get(f"/api/pad/{sheet_id}/sheet.csv")
    assert csv.status_code == 200 and csv.headers["content-type"].startswith("text/csv")
    teams = call("POST /api/pad", "/api/pad", {"rules": "kreuz(target=300)", "players": ["A", "B", "C", "D"]})
    summary = {"soloist": 0, "bid": 200, "game": "S", "melds": [150, 40, 20, 0],
               "card_points": [90, 60, 50, 50], "tricks": [3, 3, 2, 2]}
    while not call("GET /api/pad/{id}", f"/api/pad/{teams['id']}")["ranking"]:
        call(route, f"/api/pad/{teams['id']}/deals", {"summary": summary}, teams["token"])
    call("GET /api/pad/{id}", "/api/pad/pad-nothing", status=404)
    assert all(checked.answered[route] for route in schema_pad.HTTP), checked.answered


# ---------------------------------------------------------------------- a whole club event


def test_every_answer_of_a_whole_club_event_is_in_the_schema(checked: Checked) -> None:
    call, client = checked, checked.client
    messages = validator("ClubMessage")
    created = call("POST /api/club/events", "/api/club/events",
                   {"name": "Winter cup", "rules": "club", "rounds": 2, "deals": 2, "table_size": 3,
                    "fees": [[1, 50], [5, 100]], "entry_fee": 500, "tie_breaks": ["total", "won"],
                    "fewest_meetings": True})
    event_id, organiser = created["id"], created["organiser"]
    call("POST /api/club/events", "/api/club/events", {"name": "X", "rules": "kreuz"}, status=400)
    base = f"/api/club/events/{event_id}"
    entries = "POST /api/club/events/{id}/entries"
    with client.websocket_connect(f"/ws/club/{event_id}") as projector:
        messages.validate(receive(projector))
        for n in range(8):
            call(entries, f"{base}/entries", {"kind": "register", "name": f"P{n}"}, organiser)
        call(entries, f"{base}/entries", {"kind": "rename", "player": 7, "name": "Paula"}, organiser)
        call(entries, f"{base}/entries", {"kind": "drop", "player": 6}, organiser)
        call(entries, f"{base}/entries", {"kind": "return", "player": 6}, organiser)
        call(entries, f"{base}/entries", {"kind": "register", "name": "P0"}, organiser, status=400)
        seen = receive(projector)  # the watchers hear of the changes together
        messages.validate(seen)
        assert seen["type"] == "event"
    for round_number in (1, 2):
        drawn = call("POST /api/club/events/{id}/draw", f"{base}/draw", secret=organiser)
        if round_number == 1:
            drawn = {**drawn, "cards": call("POST /api/club/events/{id}/keys", f"{base}/keys",
                                            secret=organiser)["cards"]}  # a lost card: new ones
        cards = {card["table"]: card["secret"] for card in drawn["cards"]}
        for table in drawn["event"]["rounds"][-1]["tables"]:
            body: dict[str, Any] = {}
            for deal in (1, 2):
                body = {"round": round_number, "table": table["number"], "deal": deal,
                        "summary": summary_for(table, deal, round_number)}
                call("POST /api/club/events/{id}/deals", f"{base}/deals", body, cards[table["number"]])
            call("POST /api/club/events/{id}/deals", f"{base}/deals", body, cards[table["number"]])  # a retry
            corrected = {**body, "deal": 1, "summary": summary_for(table, 1, 7)}  # the organiser corrects
            call("POST /api/club/events/{id}/deals", f"{base}/deals", corrected, organiser)
            call("POST /api/club/events/{id}/deals", f"{base}/deals", {**body, "deal": 3}, cards[table["number"]],
                 status=400)
        call("GET /api/club/events/{id}", base)
    public = call("GET /api/club/events/{id}", base)
    assert public["over"] and len(public["round_standings"]) == 2
    audit = call("GET /api/club/events/{id}/audit", f"{base}/audit", secret=organiser)["audit"]
    assert {line["kind"] for line in audit} == {"create", "register", "rename", "drop", "return", "draw", "deal"}
    assert any("before" in line for line in audit)
    call("GET /api/club/events/{id}/audit", f"{base}/audit", status=403)
    call("GET /api/club/series", f"/api/club/series?ids={event_id},{event_id}")
    call("GET /api/club/series", "/api/club/series?ids=", status=400)
    for name in ("standings.csv", "deals.csv"):
        answer = client.get(f"{base}/{name}")
        assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/csv")
    with client.websocket_connect("/ws/club/club-nothing") as nothing:
        refused = receive(nothing)
        messages.validate(refused)
        assert refused["type"] == "error" and refused["code"] == "club_no_event"
    assert all(checked.answered[route] for route in schema_club.HTTP), checked.answered


# ---------------------------------------------------------------------- reviews

def test_every_review_answer_is_in_the_schema(tmp_path: Path) -> None:
    """A finished deal of a real table, reviewed for its seat, for a spectator, and uploaded."""
    with client_for(tmp_path / "games.db") as client, contextlib.ExitStack() as stack:
        checked = Checked(client)
        game_id, tokens = seat_everybody(client, "standard", ["me", "open", "easy"], seed=4)
        checked("GET /api/games/{id}/review", f"/api/games/{game_id}/review", status=400)  # nothing finished
        people = {seat: connect(client, game_id, token, stack) for seat, token in tokens.items()}
        play_deals(people, random.Random(3), deals=1)
        checked("GET /api/games/{id}/review", f"/api/games/{game_id}/review", secret=tokens[0])
        watched = checked("GET /api/games/{id}/review", f"/api/games/{game_id}/review?deal=0")
        assert watched["spectator"] is True
        record = checked("GET /api/games/{id}/record", f"/api/games/{game_id}/record")
        assert len(record["deals"]) == 1 and len(record["players"]) == 3
        checked("POST /api/review", "/api/review", {"record": record, "seat": 2})
        checked("POST /api/review", "/api/review", {"record": {"format": "nope"}}, status=400)
    assert all(checked.answered[route] for route in schema_review.HTTP), checked.answered


# ---------------------------------------------------------------------- hostile bodies

HUGE = "x" * 6000
HOSTILE: list[tuple[Any, str | None]] = [
    (b"{not json", "body_not_object"), (b"", "body_not_object"), ([1, 2], "body_not_object"),
    ("text", "body_not_object"), (None, "body_not_object"), (7, "body_not_object"),
]
"""Bodies no route takes, and the code each route's model gives them (None: the route's own)."""


def hostile_bodies(good: dict[str, Any], unknown: str) -> Iterator[tuple[Any, dict[str, Any] | None]]:
    """Bodies made from a good one: each key of the wrong kind, each key missing, an unknown
    key with a huge value (under the size limit: refused as ``unknown``), and far over the limit."""
    for key, value in good.items():
        for wrong in (True, "1" if not isinstance(value, str) else 1, [value], {"a": value}, 2**70, -1.5):
            yield {**good, key: wrong}, None
        yield {k: v for k, v in good.items() if k != key}, None
    yield {**good, HUGE[:40]: HUGE}, {"status": 400, "code": unknown}
    yield {**good, "extra": HUGE * 100}, {"status": 413, "code": "body_too_large"}


def test_hostile_bodies_get_coded_refusals_and_change_nothing(checked: Checked) -> None:
    client = checked.client
    made = client.post("/api/pad", json={"rules": "standard", "players": ["A", "B", "C"]}).json()
    sheet, token = made["id"], made["token"]
    client.post(f"/api/pad/{sheet}/deals", json={"summary": MADE}, headers=auth(token))
    event = client.post("/api/club/events", json={"name": "Cup", "rounds": 1, "deals": 1}).json()
    event_id, organiser = event["id"], event["organiser"]
    for n in range(6):
        client.post(f"/api/club/events/{event_id}/entries", json={"kind": "register", "name": f"P{n}"},
                    headers=auth(organiser))
    drawn = client.post(f"/api/club/events/{event_id}/draw", headers=auth(organiser)).json()
    table = drawn["event"]["rounds"][0]["tables"][0]

    def stored() -> tuple[Any, Any]:
        return (client.get(f"/api/pad/{sheet}").json(), client.get(f"/api/club/events/{event_id}").json())

    before = stored()
    routes = [
        ("/api/pad", {"rules": "standard", "players": ["A", "B", "C"], "first_dealer": 1}, None),
        (f"/api/pad/{sheet}/deals", {"deal": 1, "summary": IMPOSSIBLE}, token),
        ("/api/club/events", {"name": "Cup", "rules": "club", "rounds": 2, "deals": 3}, None),
        (f"/api/club/events/{event_id}/entries", {"kind": "register", "name": "Q"}, organiser),
        (f"/api/club/events/{event_id}/deals",
         {"round": 1, "table": table["number"], "deal": 1, "summary": IMPOSSIBLE}, organiser),
        ("/api/review", {"record": {"format": "binokel-game/1"}, "seat": 0, "deal": 0}, None),
    ]
    refused = Counter[str]()
    for path, good, key in routes:
        cases = [(body, {"code": "review_body" if path == "/api/review" else code}) for body, code in HOSTILE]
        unknown = "club_unknown_field" if path.startswith("/api/club") else "unknown_field"
        for body, expected in [*cases, *hostile_bodies(good, unknown)]:
            content = body if isinstance(body, bytes) else json.dumps(body).encode()
            answer = client.post(path, content=content, headers={**auth(key), "Content-Type": "application/json"})
            if answer.status_code == 200 and path in ("/api/pad", "/api/club/events"):
                continue  # a creation that is good after all (a key left out has its default)
            assert answer.status_code in (400, 413), (path, body, answer.text)
            data = answer.json()
            assert set(data) == {"error", "code", "params"} and data["code"] in CODES, data
            assert "Input should" not in data["error"] and "pydantic" not in data["error"], data
            if expected is not None:
                assert expected.items() <= {"code": data["code"], "status": answer.status_code}.items(), (
                    path, body, data)
            validator("ErrorAnswer").validate(data)
            refused[data["code"]] += 1
    assert stored() == before  # nothing a hostile body said was stored
    # the models' own codes, the field named, not one generic refusal for everything
    assert {"unknown_field", "club_unknown_field", "bad_field", "pad_no_such_deal", "summary_not_object",
            "club_count", "club_name", "club_summary_object", "club_no_round", "review_numbers",
            "body_too_large", "body_not_object"} <= set(refused), refused
