"""Driving the real ``binokel play`` command through a pseudo-terminal (pexpect)."""

from __future__ import annotations

import io
import os
import re
import sys
from collections.abc import Callable

import pexpect

from binokel.action import HAND_DURCH, OPEN_DURCH
from binokel.card import CARDS, Hand
from binokel.meld import meld_cards
from binokel.record import actions_of, replay_deal
from binokel.rules import Rules
from binokel.state import Phase, State

AUCTION = r"Bid (\d+) or pass\? \[\d+/p\] "
OPEN_AUCTION = r"Bid \(at least (\d+)\) or pass\? \[\d+\.\.\./p\] "
TAPP = r"Take the Tapp or open Durch from the hand\? \[1/2\] "
DISCARD = r"Lay away (\d) card\(s\) \(numbers or names, several at once\): "
GAME = r"Game \[1-(\d) or S H D C((?: or \w+)*)\]: "
SURRENDER = r"Play on or surrender\? \[1/2, Enter: play on\] "
CONFIRM = r"Really surrender\? You score -(\d+), each opponent \+(\d+) plus their melds\. \[y/N\] "
PLAY = r"Your card \(number or name\): "
NEXT = r"Press Enter for the next deal \(s score sheet, q save and quit\): "
PROMPTS = {"auction": AUCTION, "open_auction": OPEN_AUCTION, "tapp": TAPP, "discard": DISCARD, "game": GAME,
           "surrender": SURRENDER, "play": PLAY, "next": NEXT}
MARKER = re.compile(r"^@@ (\d+) (\d+)$")
"""The --trace marker: deal number and how many of its actions have been applied."""
CARD = re.compile(r"(?<![A-Za-z0-9])([ATKQJ97])([SHDC])(?![A-Za-z0-9])")
"""A card as printed with --no-color (canonical text, e.g. TH)."""


def spawn(*args: str, seed: int = 5, opponents: str = "easy", rules: str | None = "standard",
          env: dict | None = None, flags: tuple[str, ...] = ("--no-color",), cwd: str | None = None) -> pexpect.spawn:
    """Start ``python -m binokel play --rules RULES`` in a pseudo-terminal (``rules=None``: the rules menu;
    no ``--rules`` with ``--resume`` either); the transcript is kept in ``child.transcript``."""
    chosen = ("--rules", rules) if rules is not None and not {"--rules", "--resume"} & set(args) else ()
    return spawn_binokel(["play", "--seed", str(seed), "--opponents", opponents, "--think", "0.02", *flags,
                          *chosen, *args], env=env, cwd=cwd)


def spawn_binokel(argv: list[str], env: dict | None = None, cwd: str | None = None,
                  timeout: float = 30) -> pexpect.spawn:
    """``python -m binokel ARGV`` in a pseudo-terminal of 60 x 200 (``env`` added to this process's
    environment); the transcript is kept in ``child.transcript``."""
    environment = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    environment.pop("NO_COLOR", None)
    environment.update(env or {})
    # PYTHONPATH=src is relative: keep it pointing at this tree from another working directory.
    paths = environment.get("PYTHONPATH", "").split(os.pathsep)
    environment["PYTHONPATH"] = os.pathsep.join(os.path.abspath(path) for path in paths if path)
    child = pexpect.spawn(sys.executable, ["-m", "binokel", *argv], encoding="utf-8", timeout=timeout,
                          env=environment, dimensions=(60, 200), cwd=cwd)
    child.transcript = io.StringIO()
    child.logfile_read = child.transcript
    return child


def next_prompt(child: pexpect.spawn, prompts: dict[str, str] = PROMPTS) -> str | None:
    """Wait for the next prompt; its kind (a key of ``prompts``), or None at the end of the program."""
    kinds = list(prompts)
    index = child.expect([prompts[k] for k in kinds] + [pexpect.EOF])
    return None if index == len(kinds) else kinds[index]


def simple_answer(kind: str, child: pexpect.spawn) -> str:
    """A legal answer to every prompt: bid up to 170, take the Tapp, lay away the first cards, hearts,
    play on, the first legal card, next deal."""
    if kind in ("auction", "open_auction"):
        return "b" if int(child.match.group(1)) <= 170 else "p"
    if kind == "discard":
        return " ".join(str(n) for n in range(1, int(child.match.group(1)) + 1))
    return {"tapp": "1", "game": "2", "surrender": "1", "play": "1", "next": ""}[kind]


def play(child: pexpect.spawn, answer: Callable[[str, pexpect.spawn], str | None] = simple_answer,
         limit: int = 2000) -> int:
    """Answer prompts until the program ends (or ``answer`` returns None); the number of prompts."""
    for count in range(limit):
        kind = next_prompt(child)
        if kind is None:
            return count
        text = answer(kind, child)
        if text is None:
            return count
        child.sendline(text)
    raise AssertionError("the game did not end")


def finish(child: pexpect.spawn) -> int:
    """Wait for the program to end; its exit status."""
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus


def text_of(child: pexpect.spawn) -> str:
    return child.transcript.getvalue().replace("\r\n", "\n")


def known_cards(rules: Rules, deal: dict, actions: int) -> set[str]:
    """The cards seat 0 may know after ``actions`` actions of a deal, from the record (not from a view):
    its own dealt cards, the Tapp once turned up (never with open Durch from the hand), the soloist's
    hand once open Durch is named, cards shown in melds, cards played."""
    full = replay_deal(deal, rules)
    state = State.new(rules, deal["dealer"]).deal([[CARDS[k] for k in h] for h in full.dealt],
                                                  [CARDS[k] for k in full.tapp])
    for action in actions_of(full)[:actions]:
        state = state.apply(action)
    known = {CARDS[k] for k in state.dealt[0]}
    if state.soloist is not None and state.phase is not Phase.TAPP and state.game != HAND_DURCH:
        known |= {CARDS[k] for k in state.tapp}
    if state.game in (OPEN_DURCH, HAND_DURCH):
        known |= set(open_hand(state))
    for melds in state.melds or ():
        known |= set(meld_cards(melds))
    for trick in state.tricks:
        known |= set(trick.cards)
    known |= {CARDS[k] for k in state.trick}
    return {str(c) for c in known}


def open_hand(state: State) -> list:
    """The cards the soloist of an open Durch still holds (public from the moment it is named)."""
    return list(Hand(mask=state.hands[state.soloist]))


def check_no_hidden_card(text: str, record: dict) -> int:
    """Reconstruct each deal from the record and check every card printed in a --trace transcript
    against what seat 0 may know at that moment; the number of cards checked."""
    rules = Rules.parse(record["rules"])
    position = None
    checked = 0
    cache: dict[tuple[int, int], set[str]] = {}
    for line in text.splitlines():
        marker = MARKER.match(line.strip())
        if marker:
            position = (int(marker.group(1)), int(marker.group(2)))
            continue
        cards = CARD.findall(line)
        if not cards:
            continue
        assert position is not None, f"a card printed before the first deal: {line!r}"
        if position not in cache:
            cache[position] = known_cards(rules, record["deals"][position[0] - 1], position[1])
        hidden = {r + s for r, s in cards} - cache[position]
        assert not hidden, f"deal {position[0]} after {position[1]} actions: {line!r} shows {hidden}"
        assert "lays away" not in line, f"a discard was shown: {line!r}"
        checked += len(cards)
    return checked
