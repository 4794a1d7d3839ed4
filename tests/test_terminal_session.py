"""The terminal's game loop in-process, with scripted input: information flows only through views."""

from __future__ import annotations

import sys
import json

import binokel.terminal.session as session_module
from binokel.action import PASS
from binokel.game import Game
from binokel.record import replay_game
from binokel.terminal.messages import Messages
from binokel.ai import make_bot
from binokel.terminal.session import Session
from binokel.terminal.style import Style
from binokel.table import Table
from binokel.view import view as real_view


def scripted(answers):
    """``input`` replacement: answers by prompt text; None ends the input (like Ctrl-D)."""
    def read(prompt: str) -> str:
        for start, answer in answers:
            if start in prompt:
                text = answer(prompt) if callable(answer) else answer
                if text is None:
                    raise EOFError
                return text
        raise AssertionError(f"unexpected prompt {prompt!r}")
    return read


def make_session(tmp_path, read, lines, rules="standard(target=500)"):
    game = Game.new(rules, first_dealer=2)
    bots = [None, make_bot("easy", seed=1), make_bot("easy", seed=2)]
    return Session(game, seed=11, levels=["easy", "easy"], names=["Anna", "Ben", "Cleo"], bots=bots,
                   hint_bot=lambda: make_bot("hard", seed=3), messages=Messages("en"),
                   style=Style(color=False, unicode=False), save_path=str(tmp_path / "s.json"),
                   save_at_end=True, think=0.01, read=read, write=lines.append)


def test_the_terminal_looks_at_other_seats_only_to_ask_their_bots(tmp_path, monkeypatch):
    calls = []

    def spy(state, seat):
        caller = sys._getframe(1).f_code.co_name
        calls.append((seat, caller))
        return real_view(state, seat)

    def table_spy(table, seat):  # the driver's view of a seat, as the session asks for it
        calls.append((seat, sys._getframe(1).f_code.co_name))
        return real_view(table.shown_deal, seat)

    monkeypatch.setattr(session_module, "view", spy)
    monkeypatch.setattr(Table, "view", table_spy)
    lines: list[str] = []
    read = scripted([("Bid", "b"), ("Lay away", "1 2 3"), ("Game", "2"), ("surrender", "1"),
                     ("Your card", "1"), ("next deal", "")])
    status = make_session(tmp_path, read, lines).run()
    assert status == 0
    assert any("wins the game" in line for line in lines)
    others = {caller for seat, caller in calls if seat != 0}
    assert others == {"bot_action"}
    record = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    assert record["players"] == ["Anna", "Ben", "Cleo"] and record["seed"] == 11


def test_surrender_and_durch_by_the_player(tmp_path):
    lines: list[str] = []
    games = iter(["H", "durch", "C", "S"] * 20)
    surrender = iter(["2", "1"] * 20)
    answer = scripted([("Bid", "b"), ("Lay away", "1 2 3"), ("Game", lambda p: next(games)),
                       ("Really surrender", "y"), ("surrender", lambda p: next(surrender)), ("Your card", "1"),
                       ("next deal", "")])
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return answer(prompt)
    make_session(tmp_path, read, lines, rules="standard(target=3000)").run()
    text = "\n".join(lines)
    assert "You surrender." in text
    assert any(p.startswith("Really surrender? You score -") for p in prompts)  # surrendering is confirmed
    assert "surrender: you score -" in text and "each opponent +50 plus their melds" in text
    assert "You name the game: Durch." in text
    assert "Durch: you must win every trick, and you lead." in text


def test_end_of_input_saves(tmp_path):
    lines: list[str] = []
    read = scripted([("Bid", None), ("Lay away", None), ("Your card", None)])
    assert make_session(tmp_path, read, lines).run() == 0
    assert any(line.startswith("Game saved to") for line in lines)
    assert json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))["deals"]


class Passer:
    """A computer opponent that always passes (and otherwise plays the first legal action)."""

    def choose(self, view, rng, budget):
        return PASS if PASS in view.legal_actions else view.legal_actions[0]


def test_everybody_passes_in_the_open_auction_and_the_deal_is_redealt(tmp_path):
    lines: list[str] = []
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        if "next deal" in prompt:
            return "s" if prompts.count(prompt) == 1 else "q"
        assert "Bid (at least 150) or pass?" in prompt  # nobody has bid: the lowest bid is the minimum
        return "p"

    game = Game.new("club(all_pass=redeal)", first_dealer=0)
    session = Session(game, seed=11, levels=["easy", "easy"], names=["Anna", "Ben", "Cleo"],
                      bots=[None, Passer(), Passer()], hint_bot=lambda: None, messages=Messages("en"),
                      style=Style(color=False, unicode=False), save_path=str(tmp_path / "s.json"),
                      save_at_end=False, think=0.01, read=read, write=lines.append)
    assert session.run() == 0
    assert "No bid yet." in lines
    assert "Everybody passed: no score, the next dealer deals." in lines
    assert "Deal 1 over: everybody passed, no score." in lines
    assert "Deal 1: everybody passed, no score." in lines  # the score sheet
    record = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    assert record["deals"][0]["auction"] == ["pass"] * 3 and replay_game(record).totals == (0, 0, 0)
