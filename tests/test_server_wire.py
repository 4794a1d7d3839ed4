"""An update's text, its shared parts encoded once a step (``server/wire.py``), is exactly
``json.dumps`` of the audience's message, for every seat and the spectators, at every step
of whole games (deals, tricks won, the discard, the end of a deal, next-deal clicks, a stand-in)."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest

from binokel.server.channel import Connection
from binokel.server.hall import Hall
from binokel.server.limits import Limits
from binokel.server.protocol import parse_settings
from binokel.server.storage import open_store
from binokel.server.table import Table


async def check_game(db: Path, rules: str, players: int, seed: int) -> int:
    limits = Limits()
    hall = Hall(open_store(str(db)), think=0, budget=0.01, limits=limits)
    await hall.start()
    compared = 0
    try:
        settings = parse_settings({"rules": rules, "seats": ["me"] + ["open"] * (players - 1), "seed": seed,
                                   "name": "Anna"})
        table = (await hall.create(settings)).table
        for seat in table.open_seats:
            await hall.join(table, seat, f"Friend {seat}")
        people = {seat: Connection(seat, limits) for seat in range(players)}
        for connection in [*people.values(), Connection(None, limits)]:
            table.join(connection)
        rng = random.Random(seed)
        driver = table.driver
        while not driver.is_over() and compared < 300:
            if driver.needs_deal():
                for person in list(people.values())[:-1]:  # all but one click: the clicks are told
                    await table.next_deal(person, table.version)
                    check_every_audience(table, players, None)
                await table.next_deal(people[players - 1], table.version)
            else:
                seat = driver.to_move
                assert seat is not None
                await table.act(people[seat], str(rng.choice(driver.view(seat).legal_actions)), table.version)
            check_every_audience(table, players, compared % players if compared % 11 == 0 else None)
            compared += 1
        table.stop()
    finally:
        await hall.shutdown()
    return driver.deal_number


def check_every_audience(table: Table, players: int, stand_in: int | None) -> None:
    driver = table.driver
    events = [e for e in driver.events if e.version == driver.version]
    messages = table.messages
    for audience in [*range(players), None]:
        text = messages.update_text(audience, events, stand_in)
        assert text == json.dumps(messages.update(audience, events, stand_in)), (driver.version, audience)


GAMES = [("standard(target=1000)", 3, 1), ("kreuz(target=1000)", 4, 2), ("four-sitout(target=1000)", 4, 3),
         ("club(target=1000)", 3, 4)]


@pytest.mark.parametrize(("rules", "players", "seed"), GAMES)
def test_the_update_text_is_json_dumps_of_the_update(tmp_path: Path, rules: str, players: int, seed: int) -> None:
    assert asyncio.run(check_game(tmp_path / "games.db", rules, players, seed)) >= 2  # deals
