"""Abuse from outside (issue 27): each hole an outside probe found, with a test that failed
before it was closed. Where the hole is about sockets or time the test runs a real uvicorn
server on a loopback port (``Served`` of ``test_server_hostile``)."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

import httpx
from fastapi.testclient import TestClient

from binokel.i18n import catalogue
from binokel.server.app import create_app
from binokel.server.limits import Limits
from test_server_hostile import FAST, LOCAL, Served, _parse, frame, raw_websocket

Message = dict[str, Any]
CODES = {key.removeprefix("error.") for key in catalogue("en")["strings"] if key.startswith("error.")}


def app_for(db: Path | str, **options: Any) -> Any:
    options.setdefault("limits", FAST)
    return create_app(db, think=0, budget=0.01, **options)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(app_for(tmp_path / "games.db"), base_url=LOCAL) as test_client:
        yield test_client


def refusal(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """The protocol's refusal (text, a catalogue code, its params) with ``status``."""
    assert response.status_code == status, response.text
    answer = response.json()
    assert set(answer) == {"error", "code", "params"} and answer["code"] == code, answer
    assert code in CODES and isinstance(answer["params"], dict) and answer["error"]
    return dict(answer)


# ---------------------------------------------------------------------- 12: 404 and 405


@pytest.mark.parametrize(("method", "path", "status", "code"), [
    ("GET", "/nothing-here", 404, "not_found"),
    ("GET", "/api/nothing", 404, "not_found"),
    ("GET", "/static/no-such-file.js", 404, "not_found"),
    ("PUT", "/api/games", 405, "method_not_allowed"),
    ("GET", "/api/join", 405, "method_not_allowed"),
])
def test_unknown_routes_and_methods_answer_in_the_protocols_format(client: TestClient, method: str, path: str,
                                                                   status: int, code: str) -> None:
    headers = {"Content-Type": "application/json"} if method == "PUT" else {}
    answer = refusal(client.request(method, path, headers=headers), status, code)
    assert "detail" not in answer


# ---------------------------------------------------------------------- 11: health and metrics


def test_healthz_is_minimal_and_metrics_are_for_this_computer(tmp_path: Path) -> None:
    """From another address /healthz says only ok, and /metrics is refused; from this
    computer both say more (the process's name, the tables); ``public_metrics`` opens them."""
    for public in (False, True):
        app = app_for(tmp_path / f"games{public}.db", public_metrics=public)
        with TestClient(app, base_url=LOCAL, client=("203.0.113.9", 4000)) as outside:
            health = outside.get("/healthz")
            assert health.status_code == 200
            if public:
                assert "process" in health.json()
                assert outside.get("/metrics").status_code == 200
            else:
                assert health.json() == {"ok": True}
                refusal(outside.get("/metrics"), 404, "not_found")
        with TestClient(app, base_url=LOCAL, client=("127.0.0.1", 4000)) as local:
            assert local.get("/healthz").json()["process"]
            assert "binokel_" in local.get("/metrics").text
            # a request a local proxy forwards is not this computer's
            forwarded = local.get("/healthz", headers={"X-Forwarded-For": "203.0.113.9"}).json()
            assert ("process" in forwarded) == public
