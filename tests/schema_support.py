"""The committed protocol schema (docs/protocol.schema.json) for tests: a validator of each
of its ``$defs``, and the check of one HTTP answer against its route's ``x-http`` entry."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import jsonschema

from binokel.server.schema_file import SCHEMA_FILE

DOCUMENT: dict[str, Any] = json.loads((Path(__file__).resolve().parent.parent / SCHEMA_FILE).read_text("utf-8"))


@functools.cache
def validator(name: str) -> Any:
    """A validator of ``$defs/<name>`` of the committed schema file."""
    return jsonschema.Draft202012Validator({**DOCUMENT, "anyOf": [{"$ref": f"#/$defs/{name}"}]})


def def_name(ref: str) -> str:
    return ref.rsplit("/", 1)[1]


@functools.cache
def _patterns() -> list[tuple[int, re.Pattern[str], str]]:
    # A literal segment wins over a placeholder ("GET /api/pad/rules" before "GET /api/pad/{id}").
    return [(count, re.compile(re.escape(route).replace(r"\{id\}", "[^/]+") + "$"), route)
            for count, route in sorted((route.count("{"), route) for route in DOCUMENT["x-http"])]


def route_of(method: str, path: str) -> str:
    """The ``x-http`` key of a request: ``route_of("POST", "/api/pad/pad-x/deals")`` is
    ``"POST /api/pad/{id}/deals"``."""
    asked = f"{method} /{path.split('?')[0].lstrip('/')}"
    return next(route for _, pattern, route in _patterns() if pattern.match(asked))


def check_answer(method: str, path: str, status: int, answer: Any) -> str:
    """Validate a JSON answer against its route's answer (HTTP 200) or refusal; its route."""
    route = route_of(method, path)
    entry = DOCUMENT["x-http"][route]
    validator(def_name(entry["answer" if status == 200 else "refusal"])).validate(answer)
    return route
