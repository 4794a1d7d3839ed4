"""Score pad load: what reading a sheet costs as it grows, against a real ``binokel serve``.

Every read of a sheet replays its log (each deal checked and scored again by the core), and
the live view reads it every 2 seconds per watching phone. For a sheet of 1, 40 and 200
entries (deals, then corrections of the last deal: a game here has at most 90 deals) this
measures the round trip of ``GET /api/pad/{id}`` (the live view's poll) and of a
correction ``POST /api/pad/{id}/deals`` (stored before it is answered), each against
``GET /api/meta`` (a small answer without the store) measured in the same run.

    python bench/pad.py [--json] [--sizes 1,40,200] [--reads 60]

Numbers only: the test suite never asserts on time.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from club import SERVE, call  # bench/club.py: a real server and one request

# A deal that can follow any other under the standard rules: the soloist makes 200 in spades.
DEAL = {"soloist": 0, "bid": 200, "game": "S", "melds": [150, 40, 20], "card_points": [90, 100, 60],
        "tricks": [4, 6, 5]}


CHANGES = itertools.count()
"""Each entry differs from the one before (else it would be a retry, not stored)."""


def enter(url: str, sheet: str, token: str, deal: int) -> None:
    """Deal number ``deal``: the next one, or a correction of one entered."""
    turn = next(CHANGES) % 2
    call(url, "POST", f"api/pad/{sheet}/deals", {"deal": deal, "summary": {
        **DEAL, "card_points": [90 + 10 * turn, 100 - 10 * turn, 60]}}, token)


def timed(work: Any, count: int) -> float:
    """The median of ``count`` round trips of ``work()``, in milliseconds."""
    times = []
    for _ in range(count):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,40,200", help="sheet sizes (entries) to measure at")
    parser.add_argument("--reads", type=int, default=60, help="round trips per measurement")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    sizes = sorted(int(size) for size in args.sizes.split(","))
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        process = subprocess.Popen([sys.executable, "-c", SERVE, "--port", "0", "--db", str(Path(folder) / "pad.db"),
                                    "--think", "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            assert process.stdout is not None
            url = process.stdout.readline().split()[-1]
            made = call(url, "POST", "api/pad", {"rules": "standard(deals=100)", "players": ["A", "B", "C"]})
            sheet, token = made["id"], made["token"]
            deals = 0
            for size in sizes:
                while call(url, "GET", f"api/pad/{sheet}")["version"] - 1 < size:  # entries in the log
                    deals += deals < 90  # new deals up to the 90th, then corrections of it
                    enter(url, sheet, token, deals)
                meta = timed(lambda: call(url, "GET", "api/meta"), args.reads)
                read = timed(lambda: call(url, "GET", f"api/pad/{sheet}"), args.reads)
                write = timed(lambda: enter(url, sheet, token, deals), max(5, args.reads // 4))  # noqa: B023
                rows.append({"entries": size, "meta_ms": round(meta, 2), "read_ms": round(read, 2),
                             "write_ms": round(write, 2), "read_vs_meta": round(read / meta, 2),
                             "write_vs_meta": round(write / meta, 2)})
        finally:
            process.kill()
            process.wait()
    if args.json:
        print(json.dumps({"rows": rows}))
    else:
        print(f"{'entries':>8} {'meta ms':>8} {'read ms':>8} {'write ms':>9} {'read/meta':>10} {'write/meta':>11}")
        for row in rows:
            print(f"{row['entries']:>8} {row['meta_ms']:>8} {row['read_ms']:>8} {row['write_ms']:>9} "
                  f"{row['read_vs_meta']:>10} {row['write_vs_meta']:>11}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
