"""The club routes (binokel.server.club): per-role secrets, entries stored before they are
acknowledged, refusals coded, the public link read-only, live standings by websocket."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from binokel.club import Event
from club_support import receive, summary_for
from server_support import app_for, server_db  # noqa: F401 (the fixture: SQLite and PostgreSQL)



def auth(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


@pytest.fixture
def client(server_db: Path | str) -> Any:  # noqa: F811
    with TestClient(app_for(server_db)) as client:
        yield client


def new_event(client: TestClient, players: int = 6, **settings: Any) -> tuple[str, str]:
    answer = client.post("/api/club/events", json={"name": "Winter cup", "rules": "club", "rounds": 2, "deals": 2,
                                                   **settings})
    assert answer.status_code == 200, answer.text
    event_id, organiser = answer.json()["id"], answer.json()["organiser"]
    for n in range(players):
        answer = client.post(f"/api/club/events/{event_id}/entries", json={"kind": "register", "name": f"P{n}"},
                             headers=auth(organiser))
        assert answer.status_code == 200, answer.text
    return event_id, organiser



def test_a_round_by_the_scorekeepers_with_their_table_secrets(client: TestClient) -> None:
    event_id, organiser = new_event(client)
    drawn = client.post(f"/api/club/events/{event_id}/draw", headers=auth(organiser)).json()
    cards = {card["table"]: card["secret"] for card in drawn["cards"]}
    tables = drawn["event"]["rounds"][0]["tables"]
    assert len(cards) == len(tables) == 2
    for table in tables:
        for deal in (1, 2):
            body = {"round": 1, "table": table["number"], "deal": deal, "summary": summary_for(table, deal)}
            answer = client.post(f"/api/club/events/{event_id}/deals", json=body, headers=auth(cards[table["number"]]))
            assert answer.status_code == 200 and answer.json()["stored"], answer.text
            again = client.post(f"/api/club/events/{event_id}/deals", json=body, headers=auth(cards[table["number"]]))
            assert again.status_code == 200 and not again.json()["stored"]  # a retry is not stored twice
    public = client.get(f"/api/club/events/{event_id}").json()
    assert public["rounds"][0]["complete"] and len(public["standings"]) == 6
    assert "organiser" not in str(public) and cards[1] not in str(public)
    audit = client.get(f"/api/club/events/{event_id}/audit", headers=auth(organiser)).json()["audit"]
    assert [line["by"] for line in audit if line["kind"] == "deal"] == ["table 1", "table 1", "table 2", "table 2"]


def test_secrets_are_per_role_and_per_table(client: TestClient) -> None:
    event_id, organiser = new_event(client)
    drawn = client.post(f"/api/club/events/{event_id}/draw", headers=auth(organiser)).json()
    table = drawn["event"]["rounds"][0]["tables"][0]
    other = next(c["secret"] for c in drawn["cards"] if c["table"] != table["number"])
    body = {"round": 1, "table": table["number"], "deal": 1, "summary": summary_for(table, 1)}
    for headers in ({}, auth(other), auth("guess")):
        answer = client.post(f"/api/club/events/{event_id}/deals", json=body, headers=headers)
        assert (answer.status_code, answer.json()["code"]) == (403, "club_table_secret")
    own = next(c["secret"] for c in drawn["cards"] if c["table"] == table["number"])
    for path in ("draw", "audit"):
        method = client.post if path == "draw" else client.get
        answer = method(f"/api/club/events/{event_id}/{path}", headers=auth(own))
        assert (answer.status_code, answer.json()["code"]) == (403, "club_organiser_only")
    answer = client.post(f"/api/club/events/{event_id}/entries", json={"kind": "register", "name": "X"})
    assert answer.status_code == 403
    # the organiser may enter for any table
    answer = client.post(f"/api/club/events/{event_id}/deals", json=body, headers=auth(organiser))
    assert answer.status_code == 200
    # new keys: the old card stops working
    renewed = client.post(f"/api/club/events/{event_id}/keys", headers=auth(organiser)).json()
    body = {**body, "deal": 2, "summary": summary_for(table, 2)}
    answer = client.post(f"/api/club/events/{event_id}/deals", json=body, headers=auth(own))
    assert answer.status_code == 403
    fresh = next(c["secret"] for c in renewed["cards"] if c["table"] == table["number"])
    answer = client.post(f"/api/club/events/{event_id}/deals", json=body, headers=auth(fresh))
    assert answer.status_code == 200, answer.text


def test_refusals_are_coded_and_change_nothing(client: TestClient) -> None:
    answer = client.post("/api/club/events", json={"name": "X", "rules": "kreuz"})
    assert (answer.status_code, answer.json()["code"], answer.json()["params"]) == (
        400, "club_rules_three", {"field": "rules"})
    assert client.get("/api/club/events/club-nothing").status_code == 404
    assert client.get("/api/club/events/some-game").json()["code"] == "club_no_event"
    event_id, organiser = new_event(client, players=5)
    answer = client.post(f"/api/club/events/{event_id}/draw", headers=auth(organiser))
    assert (answer.status_code, answer.json()["code"]) == (400, "club_cannot_seat")
    client.post(f"/api/club/events/{event_id}/entries", json={"kind": "register", "name": "P5"},
                headers=auth(organiser))
    drawn = client.post(f"/api/club/events/{event_id}/draw", headers=auth(organiser)).json()
    table = drawn["event"]["rounds"][0]["tables"][0]
    secret = next(c["secret"] for c in drawn["cards"] if c["table"] == table["number"])
    bad = {**summary_for(table, 1), "soloist": 0, "bid": 155, "game": "H", "surrendered": True}
    before = client.get(f"/api/club/events/{event_id}").json()
    answer = client.post(f"/api/club/events/{event_id}/deals", json={"round": 1, "table": table["number"], "deal": 1,
                                                                      "summary": bad}, headers=auth(secret))
    assert answer.status_code == 400 and answer.json()["params"]["field"].endswith("bid")
    answer = client.post(f"/api/club/events/{event_id}/deals", json={"round": 1, "table": table["number"], "deal": 3,
                                                                      "summary": bad}, headers=auth(secret))
    assert answer.json()["code"] == "club_deal_number"
    assert client.get(f"/api/club/events/{event_id}").json() == before
    answer = client.post(f"/api/club/events/{event_id}/deals", content=b"x" * 20000,
                         headers={**auth(secret), "Content-Type": "application/json"})
    assert answer.status_code == 413


def test_a_scorekeeper_cannot_change_a_closed_round_the_organiser_can(client: TestClient) -> None:
    event_id, organiser = new_event(client, players=3)
    drawn = client.post(f"/api/club/events/{event_id}/draw", headers=auth(organiser)).json()
    table, secret = drawn["event"]["rounds"][0]["tables"][0], drawn["cards"][0]["secret"]
    for deal in (1, 2):
        client.post(f"/api/club/events/{event_id}/deals", headers=auth(secret),
                    json={"round": 1, "table": 1, "deal": deal, "summary": summary_for(table, deal)})
    client.post(f"/api/club/events/{event_id}/draw", headers=auth(organiser))
    fix = {"round": 1, "table": 1, "deal": 1, "summary": summary_for(table, 1, seed=9)}
    answer = client.post(f"/api/club/events/{event_id}/deals", headers=auth(secret), json=fix)
    assert (answer.status_code, answer.json()["code"]) == (403, "club_round_closed")
    answer = client.post(f"/api/club/events/{event_id}/deals", headers=auth(organiser), json=fix)
    assert answer.status_code == 200 and answer.json()["stored"]
    audit = client.get(f"/api/club/events/{event_id}/audit", headers=auth(organiser)).json()["audit"]
    assert audit[-1]["by"] == "organiser" and "before" in audit[-1] and audit[-1]["at"]


def test_the_event_survives_a_restart_and_csv_and_live_standings(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    with TestClient(app_for(db)) as client:
        event_id, organiser = new_event(client, players=4)
        drawn = client.post(f"/api/club/events/{event_id}/draw", headers=auth(organiser)).json()
        table, secret = drawn["event"]["rounds"][0]["tables"][0], drawn["cards"][0]["secret"]
        with client.websocket_connect(f"/ws/club/{event_id}") as ws:
            first = receive(ws)
            assert first["type"] == "event" and first["event"]["round"] == 1
            client.post(f"/api/club/events/{event_id}/deals", headers=auth(secret),
                        json={"round": 1, "table": 1, "deal": 1, "summary": summary_for(table, 1)})
            update = receive(ws)
            assert update["version"] == first["version"] + 1
            assert update["event"]["rounds"][0]["tables"][0]["deals"]
        before = client.get(f"/api/club/events/{event_id}").json()
    with TestClient(app_for(db)) as client:
        assert client.get(f"/api/club/events/{event_id}").json() == before
        answer = client.post(f"/api/club/events/{event_id}/deals", headers=auth(secret),
                             json={"round": 1, "table": 1, "deal": 2, "summary": summary_for(table, 2)})
        assert answer.status_code == 200  # the table's secret works after the restart
        text = client.get(f"/api/club/events/{event_id}/standings.csv").text
        assert text.startswith("place,name,round 1,total") and text.count("\n") == 5
        assert client.get(f"/api/club/events/{event_id}/deals.csv").text.count("\n") == 3
        series = client.get(f"/api/club/series?ids={event_id},{event_id}").json()
        assert len(series["standings"]) == 4
        stored = client.app.state.hall.store.load(event_id, from_snapshot=False)
        assert Event.replay(e.payload for e in stored.entries).settings.name == "Winter cup"
        assert secret not in str([e.payload for e in stored.entries])  # only digests are stored


def test_fuzzed_club_requests_get_no_server_error(client: TestClient) -> None:
    """Any body, any secret, any id at every club route: a coded refusal or an answer, never a 5xx."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from binokel.i18n import catalogue

    codes = {key.removeprefix("error.") for key in catalogue("en")["strings"] if key.startswith("error.")}
    event_id, organiser = new_event(client)
    drawn = client.post(f"/api/club/events/{event_id}/draw", headers=auth(organiser)).json()
    table_secret = drawn["cards"][0]["secret"]
    scalars = st.none() | st.booleans() | st.integers(-3, 2**70) | st.text(max_size=8) | st.floats(allow_nan=False)
    values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["kind", "name", "player", "round", "table", "deal", "summary", "soloist", "bid", "game",
                         "melds", "card_points", "tricks", "dealer", "rules", "rounds", "deals", "fees"]), inner,
        max_size=6), max_leaves=12)
    routes = [("POST", "/api/club/events"), ("POST", "/api/club/events/{id}/entries"),
              ("POST", "/api/club/events/{id}/deals"), ("POST", "/api/club/events/{id}/draw"),
              ("POST", "/api/club/events/{id}/keys"), ("GET", "/api/club/events/{id}"),
              ("GET", "/api/club/events/{id}/audit"), ("GET", "/api/club/events/{id}/standings.csv")]

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(route=st.sampled_from(routes), body=values, ident=st.sampled_from([event_id, "club-x", "x" * 200, "¹⁶⁰"]),
           secret=st.sampled_from([None, organiser, table_secret, "x"]))
    def check(route: tuple[str, str], body: Any, ident: str, secret: str | None) -> None:
        method, path = route
        if path.endswith("/draw") and secret == organiser and ident == event_id:
            secret = None  # drawing the next round is no attack (and would need the round's deals)
        headers = {**(auth(secret) if secret else {}), "Content-Type": "application/json"}
        answer = client.request(method, path.replace("{id}", ident), headers=headers,
                                content=json.dumps(body).encode() if method == "POST" else None)
        assert answer.status_code < 500, answer.text
        if answer.status_code >= 400:
            assert answer.json()["code"] in codes, answer.text

    check()


def test_a_watcher_at_another_process_hears_every_entry(tmp_path: Path) -> None:
    """Two server processes on one database (here: two apps on one store, whose notifier
    reaches both): a projector watching at the second sees what the first stored."""
    from binokel.server.storage import open_store

    store = open_store(tmp_path / "games.sqlite3")
    with TestClient(app_for(store)) as first, TestClient(app_for(store)) as second:
        event_id, organiser = new_event(first, players=3)
        drawn = first.post(f"/api/club/events/{event_id}/draw", headers=auth(organiser)).json()
        table, secret = drawn["event"]["rounds"][0]["tables"][0], drawn["cards"][0]["secret"]
        with second.websocket_connect(f"/ws/club/{event_id}") as ws:
            seen = receive(ws)["version"]
            answer = first.post(f"/api/club/events/{event_id}/deals", headers=auth(secret),
                                json={"round": 1, "table": 1, "deal": 1, "summary": summary_for(table, 1)})
            assert answer.json()["version"] == seen + 1
            update = receive(ws)
            assert update["version"] == seen + 1 and update["event"]["rounds"][0]["tables"][0]["deals"]
        # and the second process takes the next deal on top of it (its copy caught up)
        answer = second.post(f"/api/club/events/{event_id}/deals", headers=auth(secret),
                             json={"round": 1, "table": 1, "deal": 2, "summary": summary_for(table, 2)})
        assert answer.status_code == 200 and answer.json()["version"] == seen + 2
