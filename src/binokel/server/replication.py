"""Keeping a table in step with its game in the store when several processes hold it.

Every process hears every change of the store (``store.notifier.subscribe``); a process
that sent a notification itself must know it is no news (:class:`Notices`).
"""

from __future__ import annotations

import asyncio
import collections

from binokel.server.storage import Store


class Notices:
    """The change notifications this process sent for one game, so that hearing them back is no news."""

    def __init__(self, store: Store, game_id: str) -> None:
        self.store = store
        self.game_id = game_id
        self._own: collections.Counter[int] = collections.Counter()

    def expect(self, version: int) -> None:
        """This process is about to announce ``version`` itself."""
        self._own[version] += 1

    def forget(self, version: int) -> None:
        """An announcement of ``version`` that was expected will not come (or came)."""
        self._own[version] -= 1
        if self._own[version] <= 0:
            del self._own[version]

    def is_own(self, version: int) -> bool:
        """Was a notification of ``version`` this process's own? (Then it is counted off.)"""
        if not self._own.get(version):
            return False
        self.forget(version)
        return True

    async def send(self, version: int) -> None:
        """Tell the other processes the game changed at ``version`` (not its steps: chat, presence)."""
        self.expect(version)
        await asyncio.to_thread(self.store.notify, self.game_id, version)
