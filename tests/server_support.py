"""The server tests' look into the games database, for either database (SQLite file or
PostgreSQL URL): what a game looks like once stored, rebuilt from its log as a restarted
server would, so a test can check that a refused command changed nothing.

The ``server_db`` fixture gives the database a server under test opens: a SQLite file, or
the test run's PostgreSQL database (emptied for the test; skipped with one line where there
is none, a failure under CI=true)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from binokel.record import game_record
from binokel.server import persist
from binokel.server.storage import open_store


@pytest.fixture(params=["sqlite", "postgres"])
def server_db(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    if request.param == "sqlite":
        return tmp_path / "games.sqlite3"
    return str(request.getfixturevalue("postgres_url"))


@dataclass(frozen=True)
class SavedGame:
    version: int
    record: dict[str, Any]
    settings: dict[str, Any]


class Saved:
    """A read of the games database as the server stored it (opened for each look)."""

    def __init__(self, db: Path | str) -> None:
        self.db = db

    def load(self, game_id: str) -> SavedGame | None:
        with open_store(self.db) as store:
            loaded = persist.load(store, game_id)
        if loaded is None:
            return None
        names = [s.name for s in loaded.info.seats]
        return SavedGame(loaded.driver.version + loaded.base, game_record(loaded.driver.game, names),
                         loaded.settings.to_json())

    def seats(self, game_id: str) -> list[persist.SeatRow]:
        """The taken seats (and the row of a creator who only hosts)."""
        with open_store(self.db) as store:
            info = store.info(game_id)
        if info is None:
            return []
        people, host = persist.people_of(info)
        return people + ([host] if host is not None and host.seat < 0 else [])

    def games_of(self, hashes: list[str]) -> list[tuple[str, int]]:
        with open_store(self.db) as store:
            return store.held(hashes)

    def expire_invites(self) -> None:
        """Make every invite code out of date (as if a week had passed)."""
        with open_store(self.db) as store:
            if isinstance(self.db, str) and self.db.startswith("postgres"):
                store._run(lambda conn: conn.execute(  # type: ignore[attr-defined]
                    "UPDATE invites SET expires = '2000-01-01T00:00:00.000+00:00' WHERE seat IS DISTINCT FROM -1"),
                    mode="statement")
            else:
                store._write(lambda db: db.execute(  # type: ignore[attr-defined]
                    "UPDATE invites SET expires = '2000-01-01T00:00:00.000+00:00' WHERE seat IS NOT -1"))
