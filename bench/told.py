"""Everything a server table tells, as text, to compare two trees: run it on each and diff.

Seeded games (two seeds for each of eight rule sets, three or four friends and a spectator
connected, random legal actions, now and then one refused) are played in-process through
the server's own table (``server/table.py``); after every step it prints each connection's
queued messages exactly as they would be sent, every audience's ``state`` snapshot, and
now and then an ``events`` catch-up. Two trees that tell the same print the same bytes::

    python bench/told.py /tmp/old/src > old.txt; python bench/told.py src > new.txt; cmp old.txt new.txt

(About 30 s; deterministic: no clock or random generator of its own reaches a message.)
"""
import asyncio
import json
import random
import sys
import tempfile

src = sys.argv[1] if len(sys.argv) > 1 else "src"
sys.path.insert(0, src)
from binokel.server.channel import Connection  # noqa: E402
from binokel.server.hall import Hall  # noqa: E402
from binokel.server.limits import Limits  # noqa: E402
from binokel.server.protocol import parse_settings  # noqa: E402
from binokel.server.storage import open_store  # noqa: E402

RULES = [("standard(target=1000)", 3), ("kreuz(target=1000)", 4), ("four-sitout(target=1000)", 4),
         ("sevens(target=1000)", 3), ("club(target=1000)", 3), ("four-solo(target=1000)", 4),
         ("classic40(target=1000)", 3), ("kreuz12(target=1000)", 4)]

async def game(db, rules, players, seed, out):
    limits = Limits()
    hall = Hall(open_store(db), think=0, budget=0.01, limits=limits)
    await hall.start()
    try:
        settings = parse_settings({"rules": rules, "seats": ["me"] + ["open"] * (players - 1), "seed": seed,
                                   "name": "Anna"})
        table = (await hall.create(settings)).table
        for seat in table.open_seats:
            await hall.join(table, seat, f"Friend {seat}")
        people = {seat: Connection(seat, limits) for seat in range(players)}
        conns = [*people.values(), Connection(None, limits)]
        for c in conns:
            table.join(c)
        rng = random.Random(seed)
        def drain():
            for i, c in enumerate(conns):
                while not c.queue.empty():
                    out.write(f"{rules} {seed} conn{i} {c.queue.get_nowait()}\n")
                c.queue_bytes = 0
        steps = 0
        while not table.driver.is_over() and steps < 400:
            if table.driver.needs_deal():
                for c in people.values():
                    await table.next_deal(c, table.version)
            else:
                seat = table.driver.to_move
                action = rng.choice(table.driver.view(seat).legal_actions)
                if rng.random() < 0.05:  # a refused one now and then
                    try:
                        await table.act(people[(seat + 1) % players], str(action), table.version)
                    except Exception as e:  # noqa: BLE001 - whatever the tree refuses with is printed, to diff
                        out.write(f"refused {type(e).__name__} {e}\n")
                await table.act(people[seat], str(action), table.version)
            steps += 1
            drain()
            for a in [*range(players), None]:
                out.write(f"state {a} {json.dumps(table.messages.state(a))}\n")
            if steps % 7 == 0:
                c = conns[steps % len(conns)]
                table.events_since(c, max(0, table.version - 5))
                drain()
        table.stop()
    finally:
        await hall.shutdown()

def main():
    out = sys.stdout
    with tempfile.TemporaryDirectory() as tmp:
        for k, (rules, players) in enumerate(RULES):
            for seed in (1, 2):
                asyncio.run(game(f"{tmp}/g{k}_{seed}.sqlite3", rules, players, seed, out))

if __name__ == "__main__":
    main()
