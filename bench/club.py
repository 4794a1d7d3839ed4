"""Club tournament load: scorekeepers entering deals at once against a real ``binokel serve``.

For each number of tables (14 and 40 by default: 42 and 120 players), an event is set up
on a fresh server (a temporary SQLite file, or ``--postgres URL`` of a throwaway database), the players registered
and one round drawn; then one thread per table enters ``--deals`` deals as fast as the
server answers (every entry is stored before it is answered), while ``--watchers``
projectors follow the live standings by websocket (each update counted). Prints the deals stored per
second, the median and 95th percentile of an entry's round trip, and the time to draw
and to read the public standings at the end.

    python bench/club.py [--json] [--tables 14,40] [--deals 12] [--watchers 1] [--postgres URL]

Numbers only: the test suite never asserts on time.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

SERVE = "import sys; from binokel.cli import Parser; from binokel import server; " \
        "p = Parser(); server.add_arguments(p); sys.exit(server.run(p.parse_args(sys.argv[1:])))"


def call(url: str, method: str, path: str, body: Any = None, secret: str | None = None) -> Any:
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {secret}"} if secret else {})}
    request = urllib.request.Request(url + path, data=None if body is None else json.dumps(body).encode(),
                                     method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.loads(answer.read())


def summary(rng: random.Random, dealer: int) -> dict[str, Any]:
    """A made or failed trump game at a table of three (the dealer is checked by the server)."""
    soloist = rng.randrange(3)
    points = [80, 80, 90]
    rng.shuffle(points)
    return {"dealer": dealer, "soloist": soloist, "bid": rng.randrange(150, 300, 10), "game": rng.choice("SHDC"),
            "surrendered": False, "melds": [rng.choice((0, 20, 40, 100)) for _ in range(3)],
            "card_points": points, "tricks": [5, 5, 5]}


def watch(url: str, event_id: str, heard: list[int], stop: threading.Event) -> None:
    """A projector: reads the live standings until ``stop``; each update's version into ``heard``."""
    from websockets.sync.client import connect

    with connect(url.replace("http", "ws") + f"ws/club/{event_id}", open_timeout=10) as ws:
        while not stop.is_set():
            try:
                heard.append(json.loads(ws.recv(timeout=0.5))["version"])
            except TimeoutError:
                continue


def run(tables: int, deals: int, db: str, watchers: int) -> dict[str, Any]:
    process = subprocess.Popen([sys.executable, "-c", SERVE, "--port", "0", "--db", db, "--think", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[-1]
        threading.Thread(target=process.stdout.read, daemon=True).start()
        created = call(url, "POST", "api/club/events", {"name": "bench", "rules": "club", "rounds": 1,
                                                         "deals": deals})
        event_id, organiser = created["id"], created["organiser"]
        for n in range(tables * 3):
            call(url, "POST", f"api/club/events/{event_id}/entries", {"kind": "register", "name": f"P{n}"}, organiser)
        start = time.perf_counter()
        drawn = call(url, "POST", f"api/club/events/{event_id}/draw", None, organiser)
        draw_seconds = time.perf_counter() - start
        secrets = {card["table"]: card["secret"] for card in drawn["cards"]}
        seconds: list[float] = []
        lock = threading.Lock()

        def keeper(table: dict[str, Any]) -> None:
            rng = random.Random(table["number"])
            for deal in range(1, deals + 1):
                dealer = (table["first_dealer"] + deal - 1) % 3
                body = {"round": 1, "table": table["number"], "deal": deal, "summary": summary(rng, dealer)}
                began = time.perf_counter()
                call(url, "POST", f"api/club/events/{event_id}/deals", body, secrets[table["number"]])
                with lock:
                    seconds.append(time.perf_counter() - began)

        stop = threading.Event()
        heard: list[list[int]] = [[] for _ in range(watchers)]
        projectors = [threading.Thread(target=watch, args=(url, event_id, h, stop)) for h in heard]
        for projector in projectors:
            projector.start()
        threads = [threading.Thread(target=keeper, args=(t,)) for t in drawn["event"]["rounds"][0]["tables"]]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - start
        time.sleep(1)  # the last update reaches the projectors
        stop.set()
        for projector in projectors:
            projector.join()
        start = time.perf_counter()
        event = call(url, "GET", f"api/club/events/{event_id}")
        read_seconds = time.perf_counter() - start
        assert event["rounds"][0]["complete"]
        seconds.sort()
        return {"tables": tables, "players": tables * 3, "deals": len(seconds), "deals_per_second": len(seconds) / wall,
                "entry_median_ms": 1000 * statistics.median(seconds),
                "entry_p95_ms": 1000 * seconds[int(0.95 * (len(seconds) - 1))], "draw_ms": 1000 * draw_seconds,
                "standings_read_ms": 1000 * read_seconds, "watchers": watchers,
                "updates_per_watcher": statistics.mean(len(h) for h in heard) if heard else 0,
                "watchers_saw_the_end": all(h and h[-1] == event["version"] for h in heard)}
    finally:
        process.kill()
        process.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--tables", default="14,40")
    parser.add_argument("--deals", type=int, default=12)
    parser.add_argument("--watchers", type=int, default=1, help="projectors following the live standings")
    parser.add_argument("--postgres", help="a postgresql:// URL instead of a temporary SQLite file")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for index, tables in enumerate(int(t) for t in args.tables.split(",")):
            db = args.postgres or str(Path(folder) / f"club{index}.sqlite3")
            line = run(tables, args.deals, db, args.watchers)
            line["database"] = "postgres" if args.postgres else "sqlite"
            results.append(line)
            if not args.json:
                print(f"{tables:3d} tables ({line['players']} players, {line['database']}): {line['deals']} deals, "
                      f"{line['deals_per_second']:.0f} deals/s, entry median {line['entry_median_ms']:.1f} ms, "
                      f"p95 {line['entry_p95_ms']:.1f} ms; draw {line['draw_ms']:.0f} ms, "
                      f"public event read {line['standings_read_ms']:.0f} ms; {line['watchers']} projector(s): "
                      f"{line['updates_per_watcher']:.0f} updates each, saw the end: {line['watchers_saw_the_end']}",
                      flush=True)
    if args.json:
        print(json.dumps({"results": results}))


if __name__ == "__main__":
    main()
