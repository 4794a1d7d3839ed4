"""The server's health and its Prometheus metrics (``GET /healthz``, ``GET /metrics``).

Metrics are kept in one :class:`Metrics` per app (its own registry, so two apps in one
test process do not share counters) and exposed in the Prometheus text format by
``prometheus-client`` (part of ``binokel[serve]``). Per process: a site with several
processes scrapes each of them (their ``process`` label tells them apart).

>>> metrics = Metrics("test")
>>> metrics.actions.inc()
>>> b"binokel_actions_total 1.0" in metrics.exposition()
True
"""

from __future__ import annotations

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
THINK_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0)


class Metrics:
    """The counters, gauges and histograms of one server process."""

    def __init__(self, process: str) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        registry = self.registry
        self.info = Gauge("binokel_process", "This server process (value 1; the label names it)", ["process"],
                          registry=registry)
        self.info.labels(process).set(1)
        self.tables = Gauge("binokel_tables_open", "Tables held in this process's memory", registry=registry)
        self.connections = Gauge("binokel_connections", "Open websocket connections (players and spectators)",
                                 registry=registry)
        self.actions = Counter("binokel_actions", "Steps stored by this process (actions, bot moves, deals)",
                               registry=registry)
        self.heard = Counter("binokel_changes_heard", "Steps written by other processes and forwarded from here",
                             registry=registry)
        self.read_backs = Counter("binokel_log_read_backs",
                                  "Reads of the log for steps other processes announced: after a lost notification, "
                                  "or one too long to carry its steps", registry=registry)
        self.latency = Histogram("binokel_action_broadcast_seconds",
                                 "From a person's action arriving to its events queued for every watcher",
                                 buckets=LATENCY_BUCKETS, registry=registry)
        self.think = Histogram("binokel_bot_think_seconds", "A bot's search for one move (stand-ins included)",
                               buckets=THINK_BUCKETS, registry=registry)
        self.db_errors = Counter("binokel_db_errors", "Calls to the games database that failed (unavailable)",
                                 registry=registry)
        self.conflicts = Counter("binokel_version_conflicts",
                                 "Appends refused because another process wrote first (then caught up)",
                                 registry=registry)
        self.leases_taken = Counter("binokel_leases_taken",
                                    "Table leases this process took: its first claim of a table, or one granted "
                                    "after another process held the lease (a handover)", registry=registry)
        self.refused = Counter("binokel_refused", "Requests, connections and messages refused by a limit or "
                               "the gate (docs/server.md, Security), by reason code", ["reason"], registry=registry)

    def exposition(self) -> bytes:
        """The metrics in the Prometheus text format."""
        return bytes(generate_latest(self.registry))


CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
