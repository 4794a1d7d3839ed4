"""``binokel play`` with every kind of table: four and six seats, partners, the seat sitting out,
the open auction, open Durch, open Durch from the hand and Bettel; choosing the rules at the
start; the rules in force; and no card the player may not see ever printed."""

from __future__ import annotations

import json
import re

import pytest

pexpect = pytest.importorskip("pexpect")

from binokel.action import GAMES, HAND_DURCH, OPEN_DURCH, TAKE, ActionKind  # noqa: E402
from binokel.card import CARDS  # noqa: E402
from binokel.game import Game  # noqa: E402
from binokel.record import actions_of, replay_deal, replay_game  # noqa: E402
from binokel.state import State  # noqa: E402
from binokel.rules import DESCRIPTIONS, Rules  # noqa: E402
from binokel.terminal.messages import Messages  # noqa: E402
from binokel.ai import make_bot  # noqa: E402
from binokel.terminal.session import Session  # noqa: E402
from binokel.terminal.style import Style  # noqa: E402
from terminal_support import (MARKER, PROMPTS, check_no_hidden_card, finish, next_prompt, play, simple_answer,  # noqa: E402
                              spawn, text_of)

DURCH_RULES = "standard(open_durch=1500,hand_durch=2000,bettel=300,durch_game=1,deals=3)"


def eager(wanted: list[str]):
    """Answers that bid up to 400 (in the open auction 20 over the lowest bid while that is at most 200:
    the player is soloist often) and name the games of ``wanted``
    in turn ("open_durch", "hand_durch", "bettel"), trump otherwise."""
    pending = list(wanted)

    def answer(kind: str, child) -> str:
        low = child.match.group(1) if kind in ("auction", "open_auction") else None
        if kind == "auction":
            return "b" if int(low) <= 400 else "p"
        if kind == "open_auction":
            return str(int(low) + 20) if int(low) <= 200 else "p"  # a jump bid, typed as a number
        if kind == "tapp":
            if pending and pending[0] == "hand_durch":
                return pending.pop(0) and "hand"
            return "take"
        if kind == "game" and pending and pending[0] in (child.match.group(2) or "").split(" or "):
            return pending.pop(0).replace("_", " ")
        return simple_answer(kind, child)

    answer.pending = pending  # type: ignore[attr-defined]
    return answer


def whole_game(tmp_path, rules: str, answer=None):
    """Play a whole game of ``rules`` with --trace; its transcript and saved record."""
    child = spawn("--trace", "--save", "game.json", rules=rules, cwd=str(tmp_path))
    play(child, answer or eager([]))
    assert finish(child) == 0
    text = text_of(child)
    assert "Traceback" not in text and "went wrong" not in text
    return text, json.loads((tmp_path / "game.json").read_text(encoding="utf-8"))


def totals_line(text: str) -> str:
    return re.findall(r"^Totals: (.*)$", text, re.MULTILINE)[-1]


@pytest.mark.parametrize("rules, deals", [("kreuz(deals=2)", 2), ("four-sitout(deals=4)", 4),
                                          ("sechser(deals=2)", 2), ("club(deals=3)", 3)])
def test_a_whole_game_at_every_table(tmp_path, rules, deals):
    text, record = whole_game(tmp_path, rules)
    game = replay_game(record)
    assert game.is_over() and len(record["deals"]) == deals == text.count("=== Deal ")
    assert record["rules"] == Rules.parse(rules).text
    assert len(record["players"]) == game.players and record["opponents"] == ["easy"] * (game.players - 1)
    assert check_no_hidden_card(text, record) > 100
    names = record["players"]
    if game.rules.teams != "none":  # partners are named, and share their total
        ours, theirs = names[0::2], names[1::2]
        assert f"Partners: {', '.join(ours)} against {', '.join(theirs)}." in text
        assert totals_line(text) == f"{'+'.join(ours)} {game.totals[0]}, {'+'.join(theirs)} {game.totals[1]}"
        winners = ", ".join(names[game.winner::2])
        assert re.search(rf"(The team of|Your team \() ?{winners}\)? wins the game", text)
    else:
        assert totals_line(text) == ", ".join(f"{n} {t}" for n, t in zip(names, game.totals))
    if game.rules.sit_out:  # every seat sits out once; the deal the player sits out runs by itself
        for number, deal in enumerate(game.deals, 1):
            seat = deal.sitting_out
            said = "You sit out this deal" if seat == 0 else f"{names[seat]} sits out this deal."
            assert said in text.split(f"=== Deal {number} ===")[1].split("=== Deal")[0]
        assert {d.sitting_out for d in game.deals} == {0, 1, 2, 3}
        assert text.count("(sat out)") == deals
    if game.rules.auction == "open":  # the lowest bid is shown, and any higher bid may be typed
        typed = re.findall(r"Bid \(at least (\d+)\) or pass\? \[\d+\.\.\./p\] (\d+)\n", text)
        assert typed and all(int(bid) == int(low) + 20 for low, bid in typed)
        assert all(f"You bid {bid}." in text for _, bid in typed)
        assert all(replay_deal(d, game.rules).soloist is not None for d in record["deals"])  # Zwangsspiel


def test_durch_games_of_every_kind_by_the_player(tmp_path):
    """Open Durch after the Tapp, open Durch from the hand instead of taking it, and Bettel."""
    answer = eager(["open_durch", "hand_durch", "bettel"])
    hinted = []

    def hint_first(kind, child):
        """At the first Tapp and game choice, ask for a hint first (the bots may or may not advise there)."""
        if kind in ("tapp", "game") and kind not in hinted:
            hinted.append(kind)
            child.sendline("?")
            child.expect(r"Hint \(strongest computer player\): (take the Tapp|name .*)\r?\n|No hint here\.")
            child.expect(PROMPTS[kind])
        return answer(kind, child)

    text, record = whole_game(tmp_path, DURCH_RULES, hint_first)
    assert not answer.pending, "the player should have named every game"
    assert hinted == ["tapp", "game"]
    assert "[2] open Durch from the hand (a whole game won or lost)" in text
    assert re.search(r"\[\d\] Bettel \(±300\)", text)
    for game in ("open Durch", "open Durch from the hand", "Bettel"):
        assert f"You name the game: {game}." in text
    assert "Bettel: you must win no trick, and you lead." in text
    assert re.search(r"Deal \d over: You played Bettel at \d+: Bettel (made|failed)\.", text)
    game = replay_game(record)
    assert f"Whole games won (+) or lost (-) by Durch: You {game.durch_games[0]:+d}" in text
    assert game.durch_games[0] != 0  # the two open Durch games counted as whole games
    assert check_no_hidden_card(text, record) > 100


class OpenDurchBot:
    """Seat 1 in the test below: bids on, takes the Tapp, lays away the first cards and names
    ``game`` (open Durch, or open Durch from the hand), then plays the first legal card."""

    def __init__(self, game: int) -> None:
        self.game = game

    def choose(self, view, rng, budget):
        legal = view.legal_actions
        for wanted in (GAMES[self.game], TAKE):
            if wanted in legal:
                return wanted
        return next(a for a in legal if a.kind is not ActionKind.PASS)  # a bid, a discard or a card


@pytest.mark.parametrize("game", [OPEN_DURCH, HAND_DURCH])
def test_an_open_hand_is_shown_only_once_it_is_public(tmp_path, game):
    lines: list[str] = []

    def read(prompt: str) -> str:
        if "Bid" in prompt:
            return "p"
        if "next deal" in prompt:  # a tied game goes on: enough
            return "q"
        assert "Your card" in prompt, prompt
        return "1"

    rules = Rules.parse("standard(open_durch=1500,hand_durch=2000,deals=1)")
    session = Session(
        Game.new(rules, first_dealer=0), seed=3, levels=["easy", "easy"], names=["You", "Ben", "Cleo"],
        bots=[None, OpenDurchBot(game), make_bot("easy", seed=2)], hint_bot=lambda: None,
        messages=Messages("en"), style=Style(color=False, unicode=False), save_path=str(tmp_path / "s.json"),
        save_at_end=True, think=0.01, trace=True, read=read, write=lines.append)
    assert session.run() == 0
    text = "\n".join(lines)
    record = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    assert check_no_hidden_card(text, record) > 20
    deal = replay_deal(record["deals"][0], rules)
    assert deal.soloist == 1 and deal.game == game
    named = text.index("Ben names the game: ")
    shown = re.findall(r"^Ben's open hand: (.*)$", text[named:], re.MULTILINE)
    assert shown, "the open hand should be shown"
    # The first showing is the soloist's whole hand: cards the player could not know before.
    first = set(shown[0].split())
    dealt, tapp = ({str(CARDS[k]) for k in cards} for cards in (deal.dealt[1], deal.tapp))
    assert first - {str(CARDS[k]) for k in deal.dealt[0]}
    assert first == dealt if game == HAND_DURCH else first <= dealt | tapp
    assert ("The Tapp:" in text) is (game == OPEN_DURCH)


def test_choosing_the_rules_and_changing_an_option(tmp_path):
    child = spawn("--save", "menu.json", rules=None, cwd=str(tmp_path))
    child.expect_exact("Rule sets:")
    about = "Kreuzbinokel: partners sit opposite, 48 cards with sevens, 10 each, a Tapp of 8, play to 500."
    child.expect_exact(f"[{list(DESCRIPTIONS).index('kreuz') + 1}] kreuz: {about}")  # the catalogue's, as on the page
    prompt = rf"Rule set \[1-{len(DESCRIPTIONS)}, a name or a rule text; Enter: standard\]: "
    child.expect(prompt)
    child.sendline("nonsense")
    child.expect_exact(f"unknown rule set 'nonsense' (known: {', '.join(DESCRIPTIONS)})")
    child.expect(prompt)
    child.sendline("7")
    child.expect_exact("Rules in force: kreuz")
    option = r"Change an option\? name=value \(\? lists the options; Enter: start the game\): "
    child.expect(option)
    child.sendline("target=7")
    child.expect_exact("option target must be at least 10, not 7")
    child.expect(option)
    child.sendline("teams")
    child.expect_exact("  teams=opposite: Partnerships: none, partners opposite (4 players) or two teams of three "
                       "on alternate seats (6 players). (values: none, opposite, alternate)")
    child.expect(option)
    child.sendline("?")
    child.expect_exact("  min_bid=150: The lowest bid; in the fixed auction forehand must open with it. "
                       "(at least 10, a multiple of 10)")
    child.expect(option)
    child.sendline("partner_exemption=1, target=300")
    child.expect_exact("Rules in force: kreuz(target=300,partner_exemption=1)")
    child.expect_exact("  partner_exemption=1: While your partner wins the trick you must follow suit but "
                       "need not beat or trump.")
    child.expect(option)
    child.sendline("")
    child.expect_exact("Partners: You, Cleo against Ben, Dora.")
    child.expect(r"=== Deal 1 ===")
    assert next_prompt(child) is not None
    child.sendline("q")
    assert finish(child) == 0
    record = json.loads((tmp_path / "menu.json").read_text(encoding="utf-8"))
    assert record["rules"] == "kreuz(target=300,partner_exemption=1)"  # the bad value changed nothing
    assert record["opponents"] == ["easy"] * 3 and record["players"] == ["You", "Ben", "Cleo", "Dora"]


def test_enter_twice_plays_the_standard_rules(tmp_path):
    child = spawn("--save", "std.json", rules=None, cwd=str(tmp_path))
    child.expect(r"Enter: standard\]: ")
    child.sendline("")
    child.expect(r"Enter: start the game\): ")
    child.sendline("")
    child.expect(r"=== Deal 1 ===")
    child.sendline("q")
    assert finish(child) == 0
    assert json.loads((tmp_path / "std.json").read_text(encoding="utf-8"))["rules"] == "standard"


@pytest.mark.parametrize("lang, heading, meaning", [
    ("en", "Rules in force: kreuz(partner_exemption=1)",
     "  partner_exemption=1: While your partner wins the trick you must follow suit but need not beat or trump."),
    # The meanings are the catalogue's, the same the page shows (binokel.i18n, meaning.*).
    ("de", "Geltende Regeln: kreuz(partner_exemption=1)", "  partner_exemption=1: Solange der Partner den Stich hat"),
    ("fr", "Règles en vigueur : kreuz(partner_exemption=1)",
     "  partner_exemption=1: Tant que votre partenaire est maître"),
])
def test_the_rules_in_force_at_the_start_and_on_request(tmp_path, lang, heading, meaning):
    child = spawn("--lang", lang, "--save", "r.json", rules="kreuz(partner_exemption=1)", cwd=str(tmp_path))
    child.expect_exact(heading)
    child.expect_exact(meaning)
    kind = next_prompt(child) if lang == "en" else None
    child.sendline("r")
    child.expect_exact(heading)
    child.expect_exact(meaning)
    if kind is not None:
        child.expect(r"\[\d+/p\] |: ")
    child.sendline("q")
    assert finish(child) == 0


@pytest.mark.parametrize("rules", ["kreuz(deals=1)", "club(deals=1)", "four-sitout(deals=1)", "sechser(deals=1)"])
def test_quit_and_resume_at_every_table(tmp_path, rules):
    child = spawn("--trace", rules=rules, cwd=str(tmp_path))
    plays = 0

    def until_third_card(kind, child):
        nonlocal plays
        plays += kind == "play"
        return "q" if plays == 3 else simple_answer(kind, child)

    play(child, until_third_card)
    assert finish(child) == 0
    assert "Game saved to binokel-game.json" in text_of(child)
    saved = json.loads((tmp_path / "binokel-game.json").read_text(encoding="utf-8"))
    assert saved["rules"] == Rules.parse(rules).text and not replay_game(saved).deals[0].is_over()

    child = spawn("--resume", "binokel-game.json", "--save", "binokel-game.json", cwd=str(tmp_path))
    child.expect_exact("Resuming the game saved in binokel-game.json")
    play(child)
    assert finish(child) == 0
    assert "Traceback" not in text_of(child)
    done = json.loads((tmp_path / "binokel-game.json").read_text(encoding="utf-8"))
    game = replay_game(done)
    assert game.is_over() and done["deals"][0]["hands"] == saved["deals"][0]["hands"]
    played = [c for t in saved["deals"][0]["tricks"] for c in t]
    assert [c for t in done["deals"][0]["tricks"] for c in t][:len(played)] == played


@pytest.mark.parametrize("stop", ["q", "interrupt"])
def test_leaving_the_rules_menu_ends_cleanly(tmp_path, stop):
    child = spawn(rules=None, cwd=str(tmp_path))
    child.expect(r"Enter: standard\]: ")
    if stop == "q":
        child.sendline("q")
    else:
        child.sendintr()
    assert finish(child) == 0
    assert "Traceback" not in text_of(child) and not list(tmp_path.iterdir())  # nothing to save yet


def test_four_sitout_names_the_player_of_each_card_in_a_trick(tmp_path):
    """Regression: with a seat sitting out, play goes round past it. The terminal once worked the
    seat of each trick card out as ``(leader + position) % players`` and named the wrong player
    whenever the dealer (sitting out) lay between the leader and a later card. Every "Trick N:"
    line must name the seats the engine records for the trick's cards."""
    text, record = whole_game(tmp_path, "four-sitout(deals=4)")
    rules = Rules.parse(record["rules"])
    names = record["players"]
    position = None
    checked = past_the_dealer = 0
    for line in text.splitlines():
        marker = MARKER.match(line.strip())
        if marker:
            position = (int(marker.group(1)), int(marker.group(2)))
            continue
        shown = re.fullmatch(r"Trick \d+: (.*)\.", line.strip())
        if not shown or shown.group(1) == "you lead":
            continue
        trick = state_at(rules, record["deals"][position[0] - 1], position[1]).current_trick
        # Shown at the player's turn: the trick holds the other seats' cards only.
        assert shown.group(1) == ", ".join(f"{names[seat]} {card}" for seat, card in trick.plays), line
        checked += 1
        past_the_dealer += any(seat != (trick.leader + i) % rules.players for i, seat in enumerate(trick.seats))
    assert checked > 10 and past_the_dealer > 0  # the tricks where the old reckoning was wrong were shown


def state_at(rules: Rules, deal: dict, actions: int) -> State:
    """The state of a recorded deal after its first ``actions`` actions."""
    full = replay_deal(deal, rules)
    state = State.new(rules, deal["dealer"]).deal([[CARDS[k] for k in h] for h in full.dealt],
                                                  [CARDS[k] for k in full.tapp])
    for action in actions_of(full)[:actions]:
        state = state.apply(action)
    return state
