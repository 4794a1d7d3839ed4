"""The done test of club tournaments: a whole simulated evening against a
real ``binokel serve`` on a loopback port — 42 players, 3 rounds of 12 deals at 14 tables,
14 scorekeepers entering their deals at once (threads with HTTP clients; some entries
invalid and refused, some deals corrected), one kill -9 of the server in the middle of
the second round (restarted on the same database, everybody carries on) — and the final
standings equal an independent computation from the entries the server accepted. Every
answer, accepted or refused, is one the published schema allows (docs/protocol.schema.json).

One test, not parametrized: CI runs it once (some tens of seconds)."""

from __future__ import annotations

import http.client
import json
import random
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from binokel.club import FeeSchedule
from binokel.i18n import catalogue
from binokel.rules import Rules
from binokel.score import DealSummary, explain
from club_support import random_summary
from schema_support import check_answer
from test_server_cli import SERVE

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")

PLAYERS, ROUNDS, DEALS = 42, 3, 12
CODES = {key.removeprefix("error.") for key in catalogue("en")["strings"] if key.startswith("error.")}


class Server:
    """A real ``binokel serve`` on a free loopback port; ``url`` changes when it is restarted."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.url = ""
        self.process: subprocess.Popen[str] | None = None
        self.start()

    def start(self) -> None:
        process = subprocess.Popen([sys.executable, "-c", SERVE, "--port", "0", "--db", str(self.db), "--think", "0"],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("Binokel is being served at "), line
        threading.Thread(target=process.stdout.read, daemon=True).start()  # never let its pipe fill
        self.process = process
        self.url = line.split()[-1]

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()  # SIGKILL: no shutdown at all
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


def call(server: Server, method: str, path: str, body: Any = None, secret: str | None = None,
         deadline: float = 60.0) -> tuple[int, Any]:
    """One request, repeated (the same request) while the server is away: a kill -9 between
    the request and its answer leaves the client not knowing; asking again is safe."""
    headers = {"Content-Type": "application/json"}
    if secret:
        headers["Authorization"] = f"Bearer {secret}"
    data = None if body is None else json.dumps(body).encode()
    end = time.monotonic() + deadline
    while True:
        request = urllib.request.Request(server.url + path.lstrip("/"), data=data, method=method, headers=headers)
        try:
            status, read = _answer(request)
        except (OSError, http.client.HTTPException):  # e.g. killed while an answer (or a refusal) was half sent
            if time.monotonic() > end:
                raise
            time.sleep(0.05)
            continue
        if status == 503:  # the store was briefly unavailable: nothing stored, try again
            time.sleep(0.05)
            continue
        check_answer(method, path, status, read)  # every answer is one the published schema allows
        return status, read


def _answer(request: urllib.request.Request) -> tuple[int, Any]:
    """The status and the JSON of one request's answer, a refusal's too (read whole, or raised)."""
    try:
        with urllib.request.urlopen(request, timeout=20) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def invalid(rng: random.Random, summary: dict[str, Any], rules: Rules) -> dict[str, Any]:
    """A summary no deal can have (a bid off the step, card points that do not add up)."""
    if summary.get("soloist") is None or summary.get("surrendered") or summary.get("game") == "durch":
        return {**summary, "soloist": rules.players + 2}
    if rng.random() < 0.5:
        return {**summary, "bid": summary["bid"] + 5}
    points = list(summary["card_points"])
    points[summary["soloist"]] += 10
    return {**summary, "card_points": points}


class Scorekeeper(threading.Thread):
    """One table's scorekeeper: enters the round's deals in order; now and then first an
    invalid entry (refused), a deal number skipped (refused), another table's secret
    (refused), and once a correction of an earlier deal."""

    def __init__(self, server: Server, event_id: str, round_number: int, table: dict[str, Any], secret: str,
                 other_secret: str, seed: int, progress: Counter[str]) -> None:
        super().__init__(daemon=True)
        self.server, self.event_id, self.round, self.table = server, event_id, round_number, table
        self.secret, self.other_secret, self.rng, self.progress = secret, other_secret, random.Random(seed), progress
        self.accepted: dict[int, dict[str, Any]] = {}  # deal -> the summary last acknowledged
        self.refused: list[tuple[int, str]] = []
        self.problem: BaseException | None = None

    def post(self, deal: int, summary: dict[str, Any], secret: str | None = None) -> tuple[int, Any]:
        body = {"round": self.round, "table": self.table["number"], "deal": deal, "summary": summary}
        return call(self.server, "POST", f"api/club/events/{self.event_id}/deals", body, secret or self.secret)

    def run(self) -> None:
        try:
            self.play()
        except BaseException as problem:  # noqa: BLE001 - reported by the test, not lost in a thread
            self.problem = problem

    def play(self) -> None:
        rules = Rules.parse(self.table["rules"])
        dealer = self.table["first_dealer"]
        for deal in range(1, DEALS + 1):
            summary = random_summary(self.rng, rules, dealer)
            roll = self.rng.random()
            if roll < 0.12:
                status, answer = self.post(deal, invalid(self.rng, summary, rules))
                assert status == 400 and answer["code"] in CODES, answer
                self.refused.append((status, answer["code"]))
            elif roll < 0.16 and deal < DEALS:
                status, answer = self.post(deal + 1, summary)
                assert (status, answer["code"]) == (400, "club_deal_number"), answer
                self.refused.append((status, answer["code"]))
            elif roll < 0.19:
                status, answer = self.post(deal, summary, self.other_secret)
                assert (status, answer["code"]) == (403, "club_table_secret"), answer
                self.refused.append((status, answer["code"]))
            status, answer = self.post(deal, summary)
            assert status == 200, answer
            self.accepted[deal] = summary
            self.progress["deals"] += 1
            if deal == 6:  # the scorekeeper notices a mistake three deals back and corrects it
                earlier = 3
                first = Rules.parse(self.table["rules"])
                again = random_summary(self.rng, first, self.dealer_of(first, earlier))
                status, answer = self.post(earlier, again)
                assert status == 200, answer
                self.accepted[earlier] = again
            dealer = rules.next_dealer(dealer)

    def dealer_of(self, rules: Rules, deal: int) -> int:
        dealer = self.table["first_dealer"]
        for _ in range(deal - 1):
            dealer = rules.next_dealer(dealer)
        return dealer


def expected_standings(settings: dict[str, Any], tables: dict[int, list[dict[str, Any]]],
                       accepted: dict[tuple[int, int], dict[int, dict[str, Any]]]) -> dict[int, dict[str, Any]]:
    """Each player's rounds, total, won, lost and fees, worked out from the accepted summaries."""
    rows: dict[int, dict[str, Any]] = defaultdict(lambda: {"rounds": [0] * ROUNDS, "won": 0, "lost": 0})
    for round_number, round_tables in tables.items():
        for table in round_tables:
            rules = Rules.parse(table["rules"])
            dealer = table["first_dealer"]
            for deal in range(1, DEALS + 1):
                summary = accepted[(round_number, table["number"])][deal]
                # one deal's scores are the score pad's business (binokel.score), not the event's
                scored = explain(rules, DealSummary.from_json({**summary, "dealer": dealer}))
                for seat, player in enumerate(table["players"]):
                    rows[player]["rounds"][round_number - 1] += scored.scores[seat]
                soloist = summary.get("soloist")
                if soloist is not None:
                    solo = table["players"][soloist]
                    rows[solo]["won" if scored.made else "lost"] += 1
                dealer = rules.next_dealer(dealer)
    fees = FeeSchedule.from_json(settings["fees"])
    for row in rows.values():
        row["total"] = sum(row["rounds"])
        row["fees"] = settings["entry_fee"] + fees.total(row["lost"])
    return rows


def test_a_whole_club_evening_with_a_kill_9(tmp_path: Path) -> None:
    server = Server(tmp_path / "games.sqlite3")
    try:
        settings = {"name": "Preisbinokel", "rules": "club", "rounds": ROUNDS, "deals": DEALS, "entry_fee": 1000,
                    "fees": [[1, 50], [5, 100]]}
        status, created = call(server, "POST", "api/club/events", settings)
        assert status == 200, created
        event_id, organiser = created["id"], created["organiser"]
        for n in range(PLAYERS):
            status, _ = call(server, "POST", f"api/club/events/{event_id}/entries",
                             {"kind": "register", "name": f"Spieler {n:02d}"}, organiser)
            assert status == 200
        tables: dict[int, list[dict[str, Any]]] = {}
        accepted: dict[tuple[int, int], dict[int, dict[str, Any]]] = {}
        refused: list[tuple[int, str]] = []
        killed = False
        for round_number in range(1, ROUNDS + 1):
            status, drawn = call(server, "POST", f"api/club/events/{event_id}/draw", None, organiser)
            assert status == 200, drawn
            tables[round_number] = drawn["event"]["rounds"][round_number - 1]["tables"]
            assert len(tables[round_number]) == 14
            cards = {card["table"]: card["secret"] for card in drawn["cards"]}
            progress: Counter[str] = Counter()
            keepers = [Scorekeeper(server, event_id, round_number, table, cards[table["number"]],
                                   cards[table["number"] % 14 + 1], seed=round_number * 100 + table["number"],
                                   progress=progress) for table in tables[round_number]]
            for keeper in keepers:
                keeper.start()
            if round_number == 2:  # kill -9 in the middle of the round, while all 14 are entering
                while progress["deals"] < 14 * DEALS // 2 and any(k.is_alive() for k in keepers):
                    time.sleep(0.01)
                server.kill()
                killed = True
                time.sleep(0.3)  # the scorekeepers' phones find the server gone for a moment
                server.start()
            for keeper in keepers:
                keeper.join(timeout=180)
                assert not keeper.is_alive(), "a scorekeeper did not finish"
                if keeper.problem is not None:
                    raise keeper.problem
                accepted[(round_number, keeper.table["number"])] = keeper.accepted
                refused.extend(keeper.refused)
        assert killed and len(refused) > 20 and {code for _, code in refused} >= {"club_deal_number",
                                                                                  "club_table_secret"}
        status, event = call(server, "GET", f"api/club/events/{event_id}")
        assert status == 200 and event["over"]
        expected = expected_standings(created["event"]["settings"], tables, accepted)
        got = {row["player"]: row for row in event["standings"]}
        assert len(got) == PLAYERS
        for player, row in expected.items():
            line = got[player]
            assert (line["rounds"], line["total"], line["won"], line["lost"], line["fees"]) == (
                row["rounds"], row["total"], row["won"], row["lost"], row["fees"]), (player, line, row)
        # the ranking: by total, then more won, then fewer lost; equal on all three share a place
        order = sorted(expected, key=lambda p: (-expected[p]["total"], -expected[p]["won"], expected[p]["lost"]))
        keys = [(-expected[p]["total"], -expected[p]["won"], expected[p]["lost"]) for p in order]
        places = [keys.index(key) + 1 for key in keys]
        assert [(row["place"], row["total"]) for row in event["standings"]] == [
            (place, expected[p]["total"]) for place, p in zip(places, order)]
        # every accepted entry is in the audit log, the corrections with their scores before
        status, audit = call(server, "GET", f"api/club/events/{event_id}/audit", None, organiser)
        deal_lines = [line for line in audit["audit"] if line["kind"] == "deal"]
        assert sum(1 for line in deal_lines if "before" in line) >= 14 * ROUNDS
        assert sum(1 for line in deal_lines if "before" not in line) == 14 * ROUNDS * DEALS
        # the projector's live standings show the same
        from websockets.sync.client import connect

        with connect(server.url.replace("http", "ws") + f"ws/club/{event_id}", open_timeout=10) as ws:
            live = json.loads(ws.recv(timeout=20))
        assert live["event"]["standings"] == event["standings"]
    finally:
        server.stop()
