"""The score pad survives kill -9: against a real ``binokel serve``, a scorekeeper enters and
corrects deals over HTTP while the server is killed (SIGKILL) twice in the middle and
restarted on the same database; every entry the server acknowledged is in the sheet
afterwards, and the sheet's totals equal the core's (:class:`binokel.sheet.Sheet`) over
the acknowledged entries."""

from __future__ import annotations

import random
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from binokel.rules import Rules
from binokel.sheet import Sheet
from club_support import random_summary
from test_club_tournament import Server, call

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")

RULES = "four-sitout(deals=40)"
PLAYERS = ["Anna", "Ben", "Cleo", "Dora"]
DEALS = 30


def test_acknowledged_entries_survive_kill_minus_9(tmp_path: Path) -> None:
    server = Server(tmp_path / "games.sqlite3")
    try:
        status, made = call(server, "POST", "/api/pad", {"rules": RULES, "players": PLAYERS, "first_dealer": 1})
        assert status == 200, made
        sheet_id, token = made["id"], made["token"]
        rules = Rules.parse(RULES)
        rng = random.Random(25)
        acknowledged: list[dict[str, Any]] = []  # what the server said yes to, deal by deal
        progress = threading.Event()
        problems: list[BaseException] = []

        def scorekeeper() -> None:
            try:
                while len(acknowledged) < DEALS:
                    number = len(acknowledged) + 1
                    if number > 3 and rng.random() < 0.2:  # now and then a correction of an earlier deal
                        number = rng.randrange(1, number)
                    dealer = made["sheet"]["rotation"][(number - 1) % len(PLAYERS)]
                    summary = random_summary(rng, rules, dealer)
                    status, answer = call(server, "POST", f"/api/pad/{sheet_id}/deals",
                                          {"deal": number, "summary": summary}, token)
                    assert status == 200, answer
                    if number > len(acknowledged):
                        acknowledged.append(summary)
                    else:
                        acknowledged[number - 1] = summary
                    progress.set()
            except BaseException as problem:  # noqa: BLE001 - handed to the test's thread
                problems.append(problem)

        keeper = threading.Thread(target=scorekeeper)
        keeper.start()
        killed_while_entering = 0
        for kill_after in (DEALS // 3, 2 * DEALS // 3):  # kill -9 while the scorekeeper is entering
            while len(acknowledged) < kill_after and keeper.is_alive():
                progress.wait(1)
                progress.clear()
            killed_while_entering += keeper.is_alive()
            server.kill()
            server.start()
        keeper.join(timeout=300)
        assert not keeper.is_alive() and not problems, problems
        assert killed_while_entering == 2
        server.kill()
        server.start()  # once more: everything acknowledged comes back from the disk
        status, seen = call(server, "GET", f"/api/pad/{sheet_id}")
        assert status == 200
        expected = Sheet.new(RULES, PLAYERS, first_dealer=1)
        for summary in acknowledged:
            expected = expected.add(summary)
        assert len(seen["deals"]) == DEALS
        assert [deal["scores"] for deal in seen["deals"]] == [list(deal.scores) for deal in expected.deals]
        assert seen["totals"][-1] == list(expected.totals)
    finally:
        server.stop()
