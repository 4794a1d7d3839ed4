"""Bounded input in the core: numbers are ASCII digits of bounded length, options that make
work unbounded have maxima, and every refusal is a clear BinokelError (never a ValueError
of ``int``, never an internal error) — the same for the server, records and the terminal."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from binokel.error import BinokelError, NotationError, RecordError
from binokel.number import MAX_LENGTH, read_number, small_number
from binokel.record import deal_record, replay_deal
from binokel.rules import OPTIONS, TARGET_MOST, TEXT_MOST, Rules
from binokel.state import MAX_BID, Phase, State, parse_action
from binokel.terminal.parse import parse_input

UNICODE_DIGITS = ["²", "¹⁶⁰", "١٥٠", "１６０", "߁߆߀", "𝟏𝟔𝟎", "160\u200b", "1_60", "+160", "1e3", "0x10"]


@pytest.mark.parametrize("text", [*UNICODE_DIGITS, "1" * 5000, "9" * (MAX_LENGTH + 1), str(MAX_BID + 10), "-10"])
def test_a_bid_that_is_not_short_ascii_digits_is_a_notation_error(text: str) -> None:
    with pytest.raises(NotationError) as refused:
        parse_action(Phase.AUCTION, text)
    assert refused.value.code in ("bad_call", "number_too_large")
    assert len(str(refused.value)) < 200  # a 5000-digit text is not repeated back


def test_the_highest_bid_is_written_and_read_back() -> None:
    assert str(parse_action(Phase.AUCTION, str(MAX_BID))) == str(MAX_BID)
    state = State.new("club", dealer=2).deal_random(random.Random(5))
    assert state.is_legal(parse_action(Phase.AUCTION, str(MAX_BID)))
    from binokel.action import Action
    assert not state.is_legal(Action.bid(MAX_BID + 10))


@pytest.mark.parametrize("text, code", [
    ("standard(target=10000000000)", "option_above_maximum"),
    (f"standard(target={TARGET_MOST + 10})", "option_above_maximum"),
    ("standard(deals=1000000)", "option_above_maximum"),
    ("standard(durch=1000000000)", "option_above_maximum"),
    ("standard(target=²)", "option_not_number"),
    ("standard(target=١٥٠٠)", "option_not_number"),
    ("standard(min_bid=¹⁶⁰)", "option_not_number"),
    ("standard(target=" + "9" * 500 + ")", "number_too_large"),
    ("standard(target=" + "9" * 5000 + ")", "rules_too_long"),
    ("standard(packets=" + "1" * 400 + ")", "bad_packets"),
    ("x" * (TEXT_MOST + 1), "rules_too_long"),
])
def test_rule_options_that_make_work_unbounded_are_refused(text: str, code: str) -> None:
    with pytest.raises(NotationError) as refused:
        Rules.parse(text)
    assert refused.value.code == code


def test_the_maxima_hold_for_values_given_in_python_too() -> None:
    with pytest.raises(NotationError, match="at most"):
        Rules.parse("standard").replace(target=10**10)
    assert Rules.parse(f"standard(target={TARGET_MOST})").target == TARGET_MOST
    numbers = [name for name, (standard, option) in OPTIONS.items()
               if isinstance(standard, int) and not isinstance(standard, bool) and option.choices is None]
    unbounded = [name for name in numbers if OPTIONS[name][1].maximum is None]
    assert numbers and not unbounded


def test_a_record_with_a_huge_or_unicode_bid_is_a_record_error() -> None:
    state = State.new("club", dealer=2).deal_random(random.Random(5))
    record = deal_record(state)
    for call in (10**5000, MAX_BID + 10, -(10**5000), "²", "¹⁶⁰", "1" * 5000):
        with pytest.raises(RecordError) as refused:
            replay_deal({**record, "auction": [call]})
        assert refused.value.at == "auction[0]"


def test_the_terminal_reads_unicode_digits_as_a_mistake() -> None:
    state = State.new("standard", dealer=2).deal_random(random.Random(5))
    for text in UNICODE_DIGITS + ["1" * 5000]:
        for phase in ("auction", "play", "discard", "game"):
            parsed = parse_input(text, phase, state.legal_actions())
            assert not parsed.actions or not state.is_legal(parsed.actions[0])  # the terminal then says why


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40) | st.from_regex(r"[0-9]{1,60}", fullmatch=True))
def test_any_text_is_a_bid_pass_or_a_notation_error(text: str) -> None:
    try:
        action = parse_action(Phase.AUCTION, text)
    except NotationError:
        assert small_number(text) is None or small_number(text) > MAX_BID  # type: ignore[operator]
        return
    assert str(action) == "pass" or 0 <= action.value <= MAX_BID


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(OPTIONS)), st.text(max_size=30) | st.integers().map(str))
def test_any_option_value_is_read_or_refused_with_a_reason(name: str, value: str) -> None:
    try:
        Rules.parse(f"standard({name}={value})")
    except BinokelError as error:
        assert error.code and str(error)


def test_read_number_bounds() -> None:
    assert read_number("0", most=0, code="bad_call", text="") == 0
    with pytest.raises(NotationError, match="too large"):
        read_number("11", most=10, code="bad_call", text="")
