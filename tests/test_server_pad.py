"""The score pad on the server (server/pad.py): sheets kept in the games database, the
scorekeeper's secret enters and corrects, the sheet's id reads; SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server_support import app_for, server_db  # noqa: F401 (the fixture: SQLite and PostgreSQL)

MADE = {"soloist": 0, "bid": 200, "game": "S", "melds": [150, 40, 20], "card_points": [90, 100, 60],
        "tricks": [4, 6, 5]}


def auth(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


@pytest.fixture
def client(server_db: Path | str) -> Any:  # noqa: F811
    with TestClient(app_for(server_db)) as client:
        yield client


def new_sheet(client: TestClient, rules: str = "standard(target=500)") -> tuple[str, str]:
    answer = client.post("/api/pad", json={"rules": rules, "players": ["Anna", "Ben", "Cleo"], "first_dealer": 2})
    assert answer.status_code == 200, answer.text
    return answer.json()["id"], answer.json()["token"]


def test_the_scorekeeper_enters_and_corrects_and_the_link_reads(client: TestClient) -> None:
    sheet_id, token = new_sheet(client)
    answer = client.post(f"/api/pad/{sheet_id}/deals", json={"deal": 1, "summary": MADE}, headers=auth(token))
    assert answer.status_code == 200 and answer.json()["totals"] == [[240, 140, 80]]
    assert answer.json()["deals"][0]["summary"]["dealer"] == 2 and answer.json()["next_dealer"] == 0
    again = client.post(f"/api/pad/{sheet_id}/deals", json={"deal": 1, "summary": MADE}, headers=auth(token))
    assert again.json()["version"] == answer.json()["version"]  # a retry is not stored twice
    corrected = {**MADE, "card_points": [40, 150, 60]}
    answer = client.post(f"/api/pad/{sheet_id}/deals", json={"deal": 1, "summary": corrected}, headers=auth(token))
    assert answer.json()["totals"] == [[-400, 190, 80]]
    seen = client.get(f"/api/pad/{sheet_id}").json()  # the read-only link, replayed from the store
    assert seen["totals"] == [[-400, 190, 80]] and seen["deals"][0]["outcome"] == "failed"
    assert seen["players"] == ["Anna", "Ben", "Cleo"] and seen["winner"] is None


def test_refusals_name_the_field_and_change_nothing(client: TestClient) -> None:
    sheet_id, token = new_sheet(client)
    bad = client.post(f"/api/pad/{sheet_id}/deals", json={"summary": {**MADE, "card_points": [300, 0, 0]}},
                      headers=auth(token))
    assert (bad.status_code, bad.json()["code"], bad.json()["params"]["field"]) == (
        400, "summary_card_points_high", "card_points[0]")
    stranger = client.post(f"/api/pad/{sheet_id}/deals", json={"summary": MADE}, headers=auth("not-the-secret"))
    assert (stranger.status_code, stranger.json()["code"]) == (403, "pad_scorekeeper_only")
    assert client.post(f"/api/pad/{sheet_id}/deals", json={"summary": MADE}).status_code == 403
    skipped = client.post(f"/api/pad/{sheet_id}/deals", json={"deal": 3, "summary": MADE}, headers=auth(token))
    assert skipped.json()["code"] == "pad_no_such_deal"
    assert client.get(f"/api/pad/{sheet_id}").json()["deals"] == []
    assert client.get("/api/pad/pad-nothing").status_code == 404
    assert client.get("/api/pad/some-game").json()["code"] == "pad_no_sheet"
    wrong = client.post("/api/pad", json={"rules": "standard", "players": ["A", "B"]})
    assert (wrong.status_code, wrong.json()["code"]) == (400, "pad_players")


def test_the_game_ends_with_the_ranking(client: TestClient) -> None:
    sheet_id, token = new_sheet(client, "standard(target=300)")
    won = {**MADE, "card_points": [150, 40, 60], "tricks": [8, 2, 5]}
    answer = client.post(f"/api/pad/{sheet_id}/deals", json={"summary": won}, headers=auth(token)).json()
    assert answer["winner"] == 0 and answer["ranking"][0] == {"seat": 0, "total": 300}
    over = client.post(f"/api/pad/{sheet_id}/deals", json={"summary": MADE}, headers=auth(token))
    assert over.json()["code"] == "pad_game_over"


def test_a_sheet_outlives_its_server_process(server_db: Path | str) -> None:  # noqa: F811
    with TestClient(app_for(server_db)) as first:
        sheet_id, token = new_sheet(first)
        first.post(f"/api/pad/{sheet_id}/deals", json={"summary": MADE}, headers=auth(token))
    with TestClient(app_for(server_db)) as second:  # another process, or the same one restarted
        assert second.get(f"/api/pad/{sheet_id}").json()["totals"] == [[240, 140, 80]]
        answer = second.post(f"/api/pad/{sheet_id}/deals", json={"summary": {**MADE, "soloist": 1,
                             "melds": [0, 150, 0], "card_points": [60, 190, 0], "tricks": [5, 10, 0]}},
                             headers=auth(token))
        assert answer.json()["totals"][-1] == [300, 480, 80]


def test_the_form_learns_the_rules_and_the_meld_list_from_the_server(client: TestClient) -> None:
    kreuz = client.get("/api/pad/rules", params={"text": "kreuz"}).json()
    assert (kreuz["players"], kreuz["teams"], kreuz["hand_size"], kreuz["can_pass"]) == (4, [[0, 2], [1, 3]], 10, False)
    club = client.get("/api/pad/rules", params={"text": "club"}).json()
    assert (club["can_pass"], club["forced"]) == (False, True)  # Zwangsspiel: the dealer plays
    assert client.get("/api/pad/rules", params={"text": "standard(auction=open)"}).json()["can_pass"] is True
    sitout = client.get("/api/pad/rules", params={"text": "four-sitout"}).json()
    assert sitout["sits_out"] == [0, 1, 2, 3] and sitout["teams"] is None
    assert "bettel" in client.get("/api/pad/rules", params={"text": "standard(bettel=300)"}).json()["games"]
    melds = {(m["name"], m["suit"]): m["points"] for m in client.get("/api/pad/rules").json()["melds"]["H"]}
    # trump's family and pair count more; every meld of the calculator is offered, doubled ones too
    assert melds[("family", "H")] == 150 and melds[("family", "S")] == 100 and melds[("pair", "H")] == 40
    assert melds[("pair", "C")] == 20 and melds[("binokel", None)] == 40 and melds[("double_binokel", None)] == 300
    assert melds[("dissle", "H")] == 10 and ("dissle", "S") not in melds
    bad = client.get("/api/pad/rules", params={"text": "standard(target=banana)"})
    assert bad.status_code == 400 and bad.json()["code"]


def test_the_sheet_as_csv(client: TestClient) -> None:
    answer = client.post("/api/pad", json={"rules": "standard", "players": ["=Anna", "Ben", "Cleo"], "first_dealer": 2})
    sheet_id, token = answer.json()["id"], answer.json()["token"]
    client.post(f"/api/pad/{sheet_id}/deals", json={"summary": MADE}, headers=auth(token))
    lines = client.get(f"/api/pad/{sheet_id}/sheet.csv").text.splitlines()
    assert lines == ["deal,dealer,soloist,bid,game,outcome,'=Anna,Ben,Cleo,total '=Anna,total Ben,total Cleo",
                     "1,Cleo,'=Anna,200,S,made,240,140,80,240,140,80"]
    assert client.get("/api/pad/pad-nothing/sheet.csv").status_code == 404
