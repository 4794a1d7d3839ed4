"""What a person reads of a refusal: the words of every error, as the server (and the
terminal) and the page render them, are whole sentences — no ``{placeholder}`` left unfilled,
no brace written twice (the catalogue's Python format syntax, ``{{`` for one brace), and the
page says what the terminal says.

Found by probing a running server as a hostile client: the first message of a websocket
that is not a hello was answered ``the first message must be {{"type": "hello", ...}}``,
``POST /api/my-games`` with a malformed token ``tokens must be a list of at most {max} seat
tokens`` (no ``max`` in its params), and a spectator naming a seat ``this connection holds
seat None``.
"""

from __future__ import annotations

import json
import re
import shutil
import string
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from binokel.i18n import LANGUAGES, catalogue, placeholders, render, source
from server_support import app_for

SRC = Path(__file__).resolve().parents[1] / "src" / "binokel"
LEFT_OVER = re.compile(r"\{\{|\}\}|\{\w+(?::[^{}]*)?\}")
"""A placeholder not filled in, or a doubled brace not made one."""


def error_templates(lang: str) -> dict[str, str]:
    """The language's error sentences that are one template (not plural forms)."""
    return {key: text for key, text in catalogue(lang)["strings"].items()
            if key.startswith("error.") and isinstance(text, str)}


def filled(text: str) -> dict[str, str]:
    """Params for every placeholder of ``text`` (a value no format spec changes)."""
    return {name: "P" * 8 for name in placeholders(text)}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_error_renders_as_a_whole_sentence(lang: str) -> None:
    """Every error sentence, with the params it names (none for most), leaves no placeholder
    and no doubled brace: ``{{"type": "hello"}}`` is shown as ``{"type": "hello"}``."""
    for key, text in error_templates(lang).items():
        params = filled(text)
        with_params = render(key, params, lang)
        assert not LEFT_OVER.search(with_params), (key, with_params)
        if not params:
            assert render(key, None, lang) == with_params == string.Formatter().vformat(text, (), {}), key


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (the page's i18n.js runs in node here)")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_page_renders_every_error_as_the_terminal_does(lang: str) -> None:
    """The page's ``t`` (i18n.js) gives every error sentence the words Python's ``render``
    gives it (the terminal's, and the ``message`` of the server's errors), braces included."""
    script = (f"import {{ setLanguage, t }} from {json.dumps((SRC / 'web' / 'js' / 'i18n.js').as_uri())};\n"
              "const chunks = [];\n"
              "for await (const chunk of process.stdin) chunks.push(chunk);\n"
              "const [lang, catalogues, asked] = JSON.parse(Buffer.concat(chunks).toString('utf8'));\n"
              "globalThis.localStorage = { getItem: () => null, setItem: () => {} };\n"
              "globalThis.document = { documentElement: {}, querySelectorAll: () => [] };\n"
              "globalThis.fetch = async (url) => ({ ok: true, json: async () => catalogues[url] });\n"
              "await setLanguage('en');\n"
              "if (lang !== 'en') await setLanguage(lang);\n"
              "console.log(JSON.stringify(Object.fromEntries(asked.map(([key, params]) => [key, t(key, params)]))));\n")
    asked = [(key, filled(text)) for key, text in error_templates(lang).items()]
    catalogues = {f"/i18n/{name}.json": json.loads(source(name)) for name in {"en", lang}}
    ran = subprocess.run(["node", "--input-type=module", "-e", script], input=json.dumps([lang, catalogues, asked]),
                         capture_output=True, text=True, timeout=60, check=True)
    page = json.loads(ran.stdout)
    for key, params in asked:
        assert page[key] == render(key, params, lang), key


# ---------------------------------------------------------------------- the server's refusals


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(app_for(tmp_path / "games.db")) as test_client:
        yield test_client


def is_whole(answer: dict[str, Any]) -> bool:
    """An error whose English words have every param filled in and no doubled brace."""
    return not LEFT_OVER.search(answer["message" if "message" in answer else "error"])


def test_a_first_message_that_is_no_hello_is_refused_in_whole_words(client: TestClient) -> None:
    game = client.post("/api/games", json={"seats": ["me", "easy", "easy"]}).json()
    with client.websocket_connect(f"/ws/games/{game['id']}") as socket:
        socket.send_text(json.dumps({"type": "sync"}))
        refused = socket.receive_json()
    assert refused["code"] == "hello_first" and is_whole(refused), refused
    assert '{"type": "hello"' in refused["message"]


def test_a_malformed_token_list_is_refused_with_its_limit(client: TestClient) -> None:
    for tokens in (["x" * 5000], "not a list", [1, 2]):
        answer = client.post("/api/my-games", json={"tokens": tokens})
        body = answer.json()
        assert answer.status_code == 400 and body["code"] == "tokens_list", body
        assert body["params"] == {"max": 50} and is_whole(body), body
    over = client.post("/api/my-games", json={"tokens": ["x"] * 51}).json()
    assert over["params"] == {"max": 50} and over["error"] == body["error"]  # the same words either way


def test_a_review_body_that_is_no_json_is_refused_in_whole_words(client: TestClient) -> None:
    answer = client.post("/api/review", content=b"[", headers={"content-type": "application/json"})
    body = answer.json()
    assert answer.status_code == 400 and body["code"] == "review_body" and is_whole(body), body


def test_a_spectator_naming_a_seat_is_told_spectators_cannot_act(client: TestClient) -> None:
    """Not ``this connection holds seat None``; and the game is unchanged (a table waiting for
    friends: no bot moves it on meanwhile)."""
    game = client.post("/api/games", json={"seats": ["me", "open", "open"]}).json()
    with client.websocket_connect(f"/ws/games/{game['id']}") as socket:
        socket.send_text(json.dumps({"type": "hello", "token": None}))
        state = socket.receive_json()
        assert state["type"] == "state"
        for seat in (0, "0", 10**40):
            socket.send_text(json.dumps({"type": "action", "action": "pass", "version": state["version"],
                                         "seat": seat}))
            while (refused := socket.receive_json())["type"] != "error":
                pass
            assert refused["code"] == "spectator_cannot_act" and "None" not in refused["message"], refused
        socket.send_text(json.dumps({"type": "sync"}))
        while (again := socket.receive_json())["type"] != "state":
            pass
    assert again["version"] == state["version"] and again["view"] == state["view"]


@pytest.mark.parametrize(("text", "reason"), [
    ("[" * 8000 + "]" * 8000, "nested too deeply"),
    ('{"type": "events", "since": ' + "9" * 5000 + "}", "a number with too many digits"),
    ('{"type": "action", "action": "AS", "version": NaN}', "NaN is not JSON"),
    ('{"type": "sync",}', "Expecting property name enclosed in double quotes: line 1 column 17 (char 16)"),
])
def test_malformed_json_is_told_in_the_protocols_words_not_the_interpreters(text: str, reason: str) -> None:
    """Found by a probe: a websocket message of 8,000 nested arrays (16 KB, under the limit)
    was answered "maximum recursion depth exceeded while decoding a JSON array from a
    unicode string", one with a 5,000-digit number "... use sys.set_int_max_str_digits() to
    increase the limit": the interpreter's words. Where the reader says where, it still does."""
    from binokel.server.protocol import brief, parse_message
    from binokel.server.schema import ProtocolError

    assert len(text.encode()) <= 16 * 1024
    with pytest.raises(ProtocolError) as refused:
        parse_message(text)
    assert (refused.value.code, refused.value.params) == ("malformed_json", {"reason": reason})
    assert brief(refused.value)[0] == f"malformed JSON: {reason}"


def test_the_live_rules_check_repeats_at_most_100_characters_of_the_text(client: TestClient) -> None:
    """Found by a probe: ``GET /api/rules/check?text=xxx…`` (900 characters) answered with all
    900 in its objection; every other refusal repeats at most 100 (docs/server.md, Security)."""
    text = "x" * 900
    checked = client.get("/api/rules/check", params={"text": text}).json()
    refused = client.get("/api/rules", params={"text": text}).json()
    assert checked["ok"] is False and checked["error"] == refused["error"], (checked, refused)
    assert "x" * 99 in checked["error"] and "x" * 101 not in checked["error"] and "…" in checked["error"]
