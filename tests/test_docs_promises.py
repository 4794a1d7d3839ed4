"""What the docs promise an outsider, checked as one would check it from the docs alone:
docs/server.md ("Protocol in short", "Seats and tokens", "At the table", "Security",
"Limits and their defaults"), docs/protocol.schema.json, README.md. Each test names the
statement it holds the server (or the docs) to."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from friends_support import client_for, create
from schema_support import validator

ROOT = Path(__file__).resolve().parent.parent
SERVER_DOC = (ROOT / "docs" / "server.md").read_text("utf-8")


def section(title: str, text: str = SERVER_DOC) -> str:
    """The text of the section headed ``title`` (up to the next heading of its level or above)."""
    start = re.search(rf"^(#+) {re.escape(title)}\n", text, re.MULTILINE)
    assert start is not None, title
    level = len(start.group(1))
    end = re.compile(rf"^#{{1,{level}}} ", re.MULTILINE).search(text, start.end())
    return text[start.end():end.start() if end else len(text)]


# ---------------------------------------------------------------------- the websocket

def test_a_ping_is_answered_by_a_pong_the_schema_names(tmp_path: Path) -> None:
    """"the client sends ... `ping`", and every message of the server is a ServerMessage of
    docs/protocol.schema.json: the answer to the page's heartbeat too."""
    with client_for(tmp_path / "games.db") as client:
        game = create(client, "standard", ["me", "easy", "easy"], seed=1)
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            ws.send_json({"type": "hello", "token": game["token"]})
            for text in ('{"type":"ping"}', '{"type": "ping", "seat": 0}'):  # as the page spells it, and not
                ws.send_text(text)
                while (message := ws.receive_json())["type"] != "pong":
                    pass
                assert message == {"type": "pong"}
                validator("ServerMessage").validate(message)
    assert "`pong`" in section("Protocol in short")


# ---------------------------------------------------------------------- HTTP bodies

@pytest.mark.parametrize(("path", "body"), [
    ("/api/invite", {"code": "AAAA-BBBB", "seat": 1}),
    ("/api/my-games", {"tokens": [], "all": True}),
])
def test_every_http_body_refuses_a_key_it_does_not_have(tmp_path: Path, path: str, body: dict[str, Any]) -> None:
    """"Websocket messages ignore keys they do not have; HTTP bodies refuse them" (Protocol in
    short): ``unknown_field`` naming the key, as the new-game and join bodies do."""
    with client_for(tmp_path / "games.db") as client:
        response = client.post(path, json=body)
    assert response.status_code == 400, response.text
    unknown = next(key for key in body if key not in ("code", "tokens"))
    assert response.json()["code"] == "unknown_field" and repr(unknown) in response.json()["params"]["name"]
    validator("ErrorAnswer").validate(response.json())
