"""Change notification through Redis pub/sub (``pip install redis``), for several processes
whatever the database: given with ``--redis redis://host:6379/0`` or ``BINOKEL_REDIS``.

A change is published after its commit. Publishing is not part of the transaction: if
Redis is unreachable at that moment the change is stored all the same and the failure is
logged (the other processes hear of the game at its next change, or when they re-read it).
"""

from __future__ import annotations

import threading

import redis

from collections.abc import Sequence

from binokel.server.storage.base import JSON, Change, Notifier, change_text, log


class RedisNotifier(Notifier):
    """Publishes each change (:func:`~binokel.server.storage.base.change_text`) on a Redis
    channel; one background thread per process listens and reconnects when the connection is lost (then listeners get a
    Change(None, None): changes in between were not heard)."""

    def __init__(self, url: str, *, channel: str = "binokel:games", retry: float = 1.0) -> None:
        super().__init__()
        self.url = url
        self.channel = channel
        self.retry = retry
        self._client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None

    def publish(self, game_id: str, version: int, entries: Sequence[JSON] | None = None) -> None:
        try:
            self._client.publish(self.channel, change_text(game_id, version, entries))
        except redis.RedisError as error:
            log.error("could not publish the change of game %s (version %d) to Redis: %s", game_id, version, error)

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._listen, name="binokel-redis", daemon=True)
            self._thread.start()
        self._ready.wait(5.0)

    def _listen(self) -> None:
        lost = False
        delay = self.retry
        while not self._stop.is_set():
            pubsub = self._client.pubsub()  # type: ignore[no-untyped-call, unused-ignore]  # typed in newer redis
            try:
                pubsub.subscribe(self.channel)
                while not self._stop.is_set():
                    message = pubsub.get_message(timeout=0.5)
                    if message is None:
                        continue
                    if message["type"] == "subscribe":
                        if lost:
                            log.warning("listening for changes again on Redis")
                            self.deliver(Change(None, None))
                        lost, delay = False, self.retry
                        self._ready.set()
                    elif message["type"] == "message":
                        data = message["data"]
                        self.hear(data.decode(errors="replace") if isinstance(data, bytes) else str(data))
            except redis.RedisError as error:
                if self._stop.is_set():
                    break
                if not lost:
                    log.error("lost the change notifications from Redis (%s); reconnecting", error)
                lost = True
                self._stop.wait(delay)
                delay = min(delay * 2, 10.0)
            finally:
                pubsub.close()

    def close(self) -> None:
        super().close()
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
            self._thread = None
        self._client.close()
