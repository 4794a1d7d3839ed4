"""The page's heartbeat (web/js/channel.js) on a fake clock in node: a dead line shows within
2 s whether the server beats (server/beat.py: the page then sends no ping) or is an older one
that only answers pings; a page whose own timers stalled, or a server a little late, is not
taken for a dead line. Millisecond steps, no real time: the browser tests drive the real page
(tests/test_browser_channel.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from binokel.server.beat import QUIET_SECONDS, TICK_SECONDS

HERE = Path(__file__).resolve().parent
CHANNEL = HERE.parent / "src" / "binokel" / "web" / "js" / "channel.js"
SERVER = {"quiet": round(QUIET_SECONDS * 1000), "tick": round(TICK_SECONDS * 1000)}
DEATHS = [3000, 3001, 3050, 3137, 3333, 3555, 3777, 3999, 6543]

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node runs the page's channel")


def runs(*runs: dict[str, Any]) -> list[dict[str, Any]]:
    ran = subprocess.run(["node", str(HERE / "channel_clock.mjs"), CHANNEL.as_uri()], input=json.dumps(runs),
                         capture_output=True, text=True, timeout=120, check=True)
    return list(json.loads(ran.stdout))


@pytest.mark.parametrize("beats", [True, False], ids=["server beats", "older server"])
def test_a_dead_line_shows_within_two_seconds(beats: bool) -> None:
    results = runs(*({**SERVER, "beats": beats, "death": death} for death in DEATHS))
    for death, result in zip(DEATHS, results):
        assert result["hello"]["beat"] is True
        assert result["offline"] is not None and 0 <= result["offline"] <= 2000, (death, result)
        if beats:
            assert result["pings"] == 0, (death, result)  # the beat kept the line from being quiet
        else:
            assert result["pings"] >= 3, (death, result)


@pytest.mark.parametrize("beats", [True, False], ids=["server beats", "older server"])
def test_a_page_whose_timers_stalled_or_a_late_server_is_no_dead_line(beats: bool) -> None:
    stalled, late = runs({**SERVER, "beats": beats, "death": 30_000, "until": 15_000, "stall": [5000, 3000]},
                         {**SERVER, "beats": beats, "death": 30_000, "until": 15_000, "lag": 600})
    assert stalled["offline"] is None and late["offline"] is None, (stalled, late)
    if beats:
        assert stalled["pings"] == 1  # on waking, a ping rather than a verdict from silence it could not hear
        assert late["pings"] <= 1  # at most one before the hello's answers (and the first beat) came
