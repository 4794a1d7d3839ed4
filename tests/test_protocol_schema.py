"""The protocol's models (server/schema.py): what they refuse becomes the protocol's coded
error, in the catalogue of every language, naming the field; never a validator's text."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from binokel.i18n import LANGUAGES, catalogue, placeholders
from binokel.server.schema import CLIENT, JOIN, NEW_GAME, ProtocolError, Reader, Refusal


def refusal_of(reader: Reader[Any], data: Any) -> ProtocolError:
    with pytest.raises(ProtocolError) as refused:
        reader.read(data)
    return refused.value


def models() -> list[type[BaseModel]]:
    return [model for reader in (CLIENT, NEW_GAME, JOIN) for model in reader.models.values()]


def test_every_refusal_code_is_in_every_catalogue_with_its_params() -> None:
    codes = {"unknown_type", "unknown_field", "bad_field", "message_not_object", "body_not_object", "join_body"}
    for model in models():
        for info in model.model_fields.values():
            for refusal in (m for m in info.metadata if isinstance(m, Refusal)):
                codes |= {refusal.code} | ({refusal.item.code} if refusal.item else set())
    for lang in LANGUAGES:
        strings = catalogue(lang)["strings"]
        assert all(f"error.{code}" in strings for code in codes), (lang, sorted(codes - set(strings)))
    english = catalogue("en")["strings"]
    assert placeholders(english["error.bad_field"]) == {"field"}


@pytest.mark.parametrize(("data", "code", "params"), [
    ({"type": "hint", "chosen": [1]}, "bad_field", {"field": "chosen.0"}),
    ({"type": "hint", "chosen": "AS"}, "bad_field", {"field": "chosen"}),
    ({"type": "events", "since": -1}, "events_needs_since", {}),
    ({"type": "action", "action": "AS", "version": True}, "action_needs_version", {}),
    ({"type": "chat", "phrase": "yo"}, "bad_phrase", {"value": "'yo'"}),
    ({"type": 7}, "unknown_type", {"value": "7"}),
    ([1], "message_not_object", {}),
])
def test_a_refused_message_gets_a_coded_error(data: Any, code: str, params: dict[str, Any]) -> None:
    refused = refusal_of(CLIENT, data)
    assert refused.code == code and params.items() <= refused.params.items(), refused.params
    assert "pydantic" not in str(refused) and "Input should" not in str(refused)


@pytest.mark.parametrize(("body", "code", "params"), [
    ({"grace": True}, "bad_seconds", {"name": "grace", "value": "True"}),
    ({"next_deal_after": 4000}, "bad_seconds", {"name": "next_deal_after", "value": "4000"}),
    ({"seats": ["me", "x", "easy"]}, "bad_seat_kind", {"value": "'x'"}),
    ({"rules": "kreuz", "seats": "me"}, "seats_list", {"count": 4}),
    ({"seats": ["me", "me", "easy"]}, "one_me", {}),
    ({"lobby": 1}, "bad_lobby", {"value": "1"}),
    ({"name": "a\x07b"}, "name_control", {}),
    ({"deck": "tarot", "colour": 1}, "unknown_field", {"name": "'colour'"}),  # the unknown key first
])
def test_a_refused_new_game_names_the_field(body: Any, code: str, params: dict[str, Any]) -> None:
    refused = refusal_of(NEW_GAME, body)
    assert refused.code == code and params.items() <= refused.params.items(), refused.params


def test_a_name_is_squeezed_and_a_join_needs_one() -> None:
    assert JOIN.read({"code": "ABCD-EFGH", "name": "  Anna   Maria "}).name == "Anna Maria"
    assert refusal_of(JOIN, {"code": "ABCD-EFGH"}).code == "name_length"
    assert refusal_of(JOIN, {"code": "ABCD-EFGH", "name": "Eve", "seat": 1}).code == "join_body"
