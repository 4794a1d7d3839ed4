"""A server table of three friends and a spectator, played by random legal actions in this
process (no network, no client): what bench/channel.py and bench/step.py measure a step on."""

from __future__ import annotations

import contextlib
import random
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from binokel.server.channel import Connection
from binokel.server.hall import Hall
from binokel.server.limits import Limits
from binokel.server.protocol import parse_settings
from binokel.server.storage import open_store
from binokel.server.table import Table


@dataclass
class Game:
    table: Table
    people: dict[int, Connection]  # one connection per seat
    connections: list[Connection]  # the people's and a spectator's

    async def step(self, rng: random.Random) -> None:
        """One step: everybody's next-deal click, or a random legal action of the seat to move."""
        table = self.table
        if table.driver.needs_deal():
            for connection in self.people.values():
                await table.next_deal(connection, table.version)
            return
        seat = table.driver.to_move
        assert seat is not None
        action = rng.choice(table.driver.view(seat).legal_actions)
        await table.act(self.people[seat], str(action), table.version)


@contextlib.asynccontextmanager
async def seated_game(db: str, seed: int, limits: Limits, rules: str = "standard(target=1000)") -> AsyncIterator[Game]:
    """A new table on the store ``db``: Anna and two friends seated, all three and a spectator
    connected; the table stops and the hall shuts down afterwards."""
    hall = Hall(open_store(db), think=0, budget=0.01, limits=limits)
    await hall.start()
    try:
        settings = parse_settings({"rules": rules, "seats": ["me", "open", "open"], "seed": seed, "name": "Anna"})
        table = (await hall.create(settings)).table
        for seat in table.open_seats:
            await hall.join(table, seat, f"Friend {seat}")
        people = {seat: Connection(seat, limits) for seat in range(3)}
        connections = [*people.values(), Connection(None, limits)]
        for connection in connections:
            table.join(connection)
        yield Game(table, people, connections)
        table.stop()
    finally:
        await hall.shutdown()
