"""``binokel play`` driven through a pseudo-terminal: whole games, saving and resuming,
bad input at every prompt, and no card the player may not see ever printed."""

from __future__ import annotations

import json
import re

import pytest

pexpect = pytest.importorskip("pexpect")

from binokel.card import CARDS  # noqa: E402
from binokel.record import game_record, replay_deal, replay_game  # noqa: E402
from binokel.rules import Rules  # noqa: E402
from terminal_support import (AUCTION, CARD, DISCARD, GAME, NEXT, PLAY, PROMPTS, SURRENDER,  # noqa: E402
                              check_no_hidden_card, finish, next_prompt, play, simple_answer, spawn, text_of)


@pytest.fixture(scope="module")
def full_game(tmp_path_factory):
    """One whole game (seed 5, two easy opponents) with --trace: its transcript and saved record."""
    path = tmp_path_factory.mktemp("game") / "game.json"
    child = spawn("--trace", "--save", str(path))
    prompts = play(child)
    assert finish(child) == 0
    return text_of(child), json.loads(path.read_text(encoding="utf-8")), prompts


def test_a_whole_game_is_played_to_the_target_and_saved(full_game):
    text, record, prompts = full_game
    assert "Traceback" not in text
    assert prompts > 15
    game = replay_game(record)
    assert game.is_over() and max(game.totals) >= 1500
    assert record["seed"] == 5 and record["opponents"] == ["easy", "easy"]
    assert record["players"] == ["You", "Ben", "Cleo"]
    winner = "You win the game" if game.winner == 0 else f"{record['players'][game.winner]} wins the game"
    assert winner in text
    assert "Game record saved to" in text
    # Every deal is announced, every trick's winner too.
    assert text.count("=== Deal ") == len(record["deals"])
    tricks = sum(len(d.get("tricks", [])) for d in record["deals"])
    assert len(re.findall(r"-> (You|Ben|Cleo) wins? the trick", text)) == tricks


def test_no_hidden_card_is_ever_printed(full_game):
    """Reconstruct each deal from the record and check every printed card against what seat 0 may
    know at that moment (the --trace markers say how many actions of which deal were applied)."""
    text, record, _ = full_game
    checked = check_no_hidden_card(text, record)
    rules = Rules.parse(record["rules"])
    soloists = set()
    for deal in record["deals"]:
        soloists.add(replay_deal(deal, rules).soloist)
    assert checked > 500
    assert 0 in soloists and soloists - {0}, "the game should have deals with and without the player as soloist"


def test_quit_saves_and_resume_continues(tmp_path, full_game):
    _, straight, _ = full_game
    child = spawn(cwd=str(tmp_path))
    plays = 0

    def until_third_card(kind, child):
        nonlocal plays
        if kind == "play":
            plays += 1
            if plays == 3:
                return "q"
        return {"auction": "p", "discard": "1 2 3", "game": "2", "surrender": "1", "play": "1", "next": ""}[kind]

    play(child, until_third_card)
    assert finish(child) == 0
    text = text_of(child)
    assert "Game saved to binokel-game.json. Continue it with: binokel play --resume binokel-game.json" in text
    saved = json.loads((tmp_path / "binokel-game.json").read_text(encoding="utf-8"))
    assert saved["seed"] == 5 and saved["opponents"] == ["easy", "easy"]
    partial = saved["deals"][0]
    assert partial["hands"] == straight["deals"][0]["hands"]
    played = sum(len(t) for t in partial["tricks"])

    child = spawn("--resume", "binokel-game.json", cwd=str(tmp_path))
    child.expect("Resuming the game saved in binokel-game.json")
    deals = 0

    def to_second_deal(kind, child):
        nonlocal deals
        if kind == "next":
            deals += 1
            return "q" if deals == 1 else ""
        return {"auction": "p", "discard": "1 2 3", "game": "2", "surrender": "1", "play": "1"}[kind]

    play(child, to_second_deal)
    assert finish(child) == 0
    assert "Traceback" not in text_of(child)
    resumed = json.loads((tmp_path / "binokel-game.json").read_text(encoding="utf-8"))
    first = resumed["deals"][0]
    assert first["hands"] == partial["hands"] and first["auction"] == partial["auction"]
    assert sum(map(len, first["tricks"])) == 45
    assert [c for t in first["tricks"] for c in t][:played] == [c for t in partial["tricks"] for c in t]
    assert replay_game(resumed).deals[0].is_over()
    # The seed in the record makes the next deal the same as without the interruption.
    game = replay_game(resumed)
    assert game.needs_deal()


def test_resume_deals_the_same_cards_as_an_uninterrupted_game(tmp_path, full_game):
    _, straight, _ = full_game
    first = dict(straight, deals=straight["deals"][:1])
    (tmp_path / "one.json").write_text(json.dumps(first), encoding="utf-8")
    child = spawn("--resume", "one.json", cwd=str(tmp_path))
    child.expect(r"=== Deal 2 ===")
    assert next_prompt(child) is not None
    child.sendline("q")
    assert finish(child) == 0
    again = json.loads((tmp_path / "one.json").read_text(encoding="utf-8"))
    assert again["deals"][1]["hands"] == straight["deals"][1]["hands"]
    assert again["deals"][1]["tapp"] == straight["deals"][1]["tapp"]


@pytest.mark.parametrize("stop", ["interrupt", "eof"])
def test_ctrl_c_and_end_of_input_save_and_exit_cleanly(tmp_path, stop):
    child = spawn("--save", "out.json", cwd=str(tmp_path))
    assert next_prompt(child) is not None
    if stop == "interrupt":
        child.sendintr()
    else:
        child.sendeof()
    child.expect("Game saved to out.json")
    assert finish(child) == 0
    assert "Traceback" not in text_of(child)
    saved = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert saved["deals"][0]["auction"][0] == "150"


def expect_reason(child, reason: str, prompt: str) -> None:
    """The answer to bad input: exactly one line with the reason, then the same prompt again."""
    child.expect(prompt)
    lines = [line for line in child.before.replace("\r\n", "\n").split("\n") if line.strip()]
    assert len(lines) <= 2, lines  # the echoed input (if not empty) and the reason
    assert re.search(reason, lines[-1]), lines[-1]


def test_bad_input_at_every_prompt_gets_a_reason_and_the_prompt_again(tmp_path):
    """Play (bidding always, so the player becomes soloist) until every prompt kind has been
    given bad input; each time one line says why and the same prompt comes back."""
    child = spawn("--save", "bad.json", cwd=str(tmp_path))
    tested: set[str] = set()
    kinds = {"auction", "discard", "game", "surrender", "play", "illegal card"}
    deals = 0
    while True:
        kind = next_prompt(child)
        assert kind is not None, "the game ended early"
        screen = child.before
        if kind == "auction":
            if kind not in tested:
                for text, reason in [("xyz", r"^Type the bid shown or p to pass, not 'xyz'\.$"),
                                     ("999", r"^Not allowed: 999 is not legal in the auction phase "
                                             r"\(legal: pass, \d+\)\.$"),
                                     ("", r"^Please type a choice \(h for help\)\.$")]:
                    child.sendline(text)
                    expect_reason(child, reason, AUCTION)
                tested.add(kind)
            child.sendline("b")
        elif kind == "discard":
            if kind not in tested:
                hand = {r + s for r, s in CARD.findall(screen.split("Your hand")[-1])}
                absent = next(str(c) for c in CARDS if str(c) not in hand and str(c)[0] in "ATKQJ9")
                for text, reason in [("ZZ", r"^'ZZ' is not a card"),
                                     ("99", r"^There is no choice 99: the numbers go from 1 to \d+\.$"),
                                     ("1 2 3 4", r"^Only 3 more cards to lay away\.$"),
                                     (absent, rf"^Not allowed: {absent} is not in the soloist's hand\.$")]:
                    child.sendline(text)
                    expect_reason(child, reason, DISCARD)
                tested.add(kind)
                child.sendline("1")  # one card now, two later: applied one by one
                child.expect(r"Lay away 2 card\(s\)")
                child.sendline("1 2")
            else:
                child.sendline(" ".join(str(n) for n in range(1, int(child.match.group(1)) + 1)))
        elif kind == "game":
            if kind not in tested:
                for text in ("x", "7", "pass"):
                    child.sendline(text)
                    expect_reason(child, r"^Choose a number 1-5, a suit S H D C or durch\.$", GAME)
                tested.add(kind)
            child.sendline("H")
        elif kind == "surrender":
            if kind not in tested:
                child.sendline("maybe")
                expect_reason(child, r"^Type 1 to play on or 2 to surrender, not 'maybe'\.$", SURRENDER)
                tested.add(kind)
            child.sendline("1")
        elif kind == "play":
            screen = screen.split("Your hand")[-1]
            if kind not in tested:
                for text, reason in [("ZZ", r"^'ZZ' is not a card"), ("1 2", r"^Play one card at a time\.$"),
                                     ("0", r"^There is no choice 0")]:
                    child.sendline(text)
                    expect_reason(child, reason, PLAY)
                tested.add(kind)
            legal = set(re.findall(r"\[\d+\]([ATKQJ9][SHDC])", screen))
            illegal = {r + s for r, s in CARD.findall(screen)} - legal
            if illegal and "illegal card" not in tested:
                card = sorted(illegal)[0]
                child.sendline(card)
                expect_reason(child, rf"^Not allowed: {card} (does not follow suit|does not beat|is not a trump)", PLAY)
                tested.add("illegal card")
            child.sendline("1")
        else:
            deals += 1
            if tested == kinds or deals == 6:
                break
            child.sendline("x")
            expect_reason(child, r"^Press Enter to go on \(h for help\)\.$", NEXT)
            child.sendline("")
    assert tested == kinds
    child.sendline("q")
    assert finish(child) == 0
    assert "Traceback" not in text_of(child)


def answer_until(child, wanted: str) -> None:
    """Answer simply until a prompt of kind ``wanted`` is shown."""
    while (kind := next_prompt(child)) != wanted:
        assert kind is not None
        child.sendline(simple_answer(kind, child))


def test_commands_at_a_prompt(tmp_path):
    child = spawn("--save", "c.json", cwd=str(tmp_path))
    kind = next_prompt(child)
    prompt = PROMPTS[kind]
    for command, answer in [("?", r"Hint \(strongest computer player\): "),
                            ("h", r"Commands at any prompt:"), ("r", r"Rules in force: standard"),
                            ("s", r"Score sheet"), ("l", r"No trick has been completed yet\."),
                            ("help", r"Commands at any prompt:")]:
        child.sendline(command)
        child.expect(answer)
        child.expect(prompt)
    child.sendline(simple_answer(kind, child))
    answer_until(child, "play")
    child.sendline("?")
    child.expect(r"Hint \(strongest computer player\): play ([ATKQJ9][SHDC])")
    child.expect(PLAY)
    child.sendline("1")
    answer_until(child, "play")
    child.sendline("l")
    child.expect(r"Last trick \(#1\): .*; won by (You|Ben|Cleo)\.")
    child.sendline("s")
    child.expect(r"Deal 1: soloist (You|Ben|Cleo), bid \d+, game")
    child.expect(PLAY)
    child.sendline("q")
    assert finish(child) == 0


@pytest.mark.parametrize("lang, opening, hand, saved", [
    ("de", "Du eröffnest mit 150 (Pflicht).", "Deine Karten (15):", "Partie in l.json gespeichert."),
    ("en", "You open with 150 (forced).", "Your hand (15 cards):", "Game saved to l.json."),
    ("fr", "Vous ouvrez à 150 (obligatoire).", "Votre main (15 cartes) :", "Partie enregistrée dans l.json."),
    ("it", "Apri a 150 (obbligatorio).", "La tua mano (15 carte):", "Partita salvata in l.json."),
    ("pt", "Você abre com 150 (obrigatório).", "A sua mão (15 cartas):", "Partida guardada em l.json."),
])
def test_every_language(tmp_path, lang, opening, hand, saved):
    child = spawn("--lang", lang, "--save", "l.json", cwd=str(tmp_path))
    child.expect_exact(hand)
    child.expect_exact(opening)
    child.sendline("q")  # read at whichever prompt comes next
    child.expect_exact(saved)
    assert finish(child) == 0
    assert "Traceback" not in text_of(child)


def test_german_auction_words(tmp_path):
    """In deal 2 the player is rearhand and always has a call to make."""
    child = spawn("--lang", "de", "--save", "de.json", cwd=str(tmp_path))
    child.sendline("q")
    child.expect_exact("gespeichert")
    finish(child)
    record = json.loads((tmp_path / "de.json").read_text(encoding="utf-8"))
    game = replay_game(record)
    while not game.deals[0].is_over():  # finish deal 1 with the first legal action everywhere
        game = game.apply(game.legal_actions()[0])
    data = {**game_record(game, record["players"]), "seed": 5, "opponents": ["easy", "easy"]}
    (tmp_path / "de.json").write_text(json.dumps(data), encoding="utf-8")
    child = spawn("--resume", "de.json", "--lang", "de", cwd=str(tmp_path))
    child.expect(r"(\d+) reizen oder passe\? \[\d+/p\] ")
    child.sendline("passe")
    child.expect_exact("Du sagst passe.")
    child.sendline("q")
    child.expect_exact("Partie in de.json gespeichert.")
    assert finish(child) == 0


def test_colour_and_suit_symbols(tmp_path):
    child = spawn("--save", "x.json", flags=(), cwd=str(tmp_path))
    child.expect(r"You open with 150")
    colourful = child.before
    child.sendline("q")
    finish(child)
    assert "\x1b[" in colourful and "♠" in colourful

    child = spawn("--save", "x.json", flags=(), env={"NO_COLOR": "1"}, cwd=str(tmp_path))
    child.expect(r"You open with 150")
    plain = child.before
    child.sendline("q")
    finish(child)
    assert "\x1b[" not in plain and "♠" in plain

    child = spawn("--save", "x.json", flags=(), env={"PYTHONIOENCODING": "ascii"}, cwd=str(tmp_path))
    child.expect(r"You open with 150")
    letters = re.sub(r"\x1b\[[0-9;]*m", "", child.before)
    child.sendline("q")
    assert finish(child) == 0
    assert "♠" not in letters and re.search(r"\b[ATKQJ9][SHDC]\b", letters)


def test_bad_options_are_one_line_errors(tmp_path):
    for args, message in [(("--opponents", "easy,grand"), "--opponents takes one level or 2 levels"),
                          (("--resume", "missing.json"), "cannot read missing.json"),
                          (("--rules", "nonsense"), "unknown rule set")]:
        child = spawn(*args, cwd=str(tmp_path))
        child.expect(message)
        assert finish(child) == 2
        assert "Traceback" not in text_of(child)


def german_prompt(key: str) -> str:
    """The regex of a terminal prompt in German, from the one catalogue (its params as groups)."""
    from binokel.i18n import catalogue

    template = catalogue("de")["strings"][f"terminal.{key}"]
    seen: set[str] = set()

    def group(match: re.Match[str]) -> str:  # a param used twice matches the same text twice
        name = match.group(1)
        first = name not in seen
        seen.add(name)
        return f"(?P<{name}>[^\\r\\n]*?)" if first else f"(?P={name})"

    return re.sub(r"\\\{(\w+)\\\}", group, re.escape(template)) + " "


def test_an_illegal_card_is_refused_in_german(tmp_path):
    """``binokel play --lang de``: the core's reason for a refused card, from the same catalogue
    as the page's, in German; and a card the player does not hold, in the second person."""
    prompts = {kind: german_prompt(f"prompt_{kind}") for kind in
               ("auction", "open_auction", "tapp", "discard", "game", "surrender", "play", "next")}
    kinds = list(prompts)
    child = spawn("--lang", "de", "--save", "de.json", cwd=str(tmp_path))
    refused = absent = False
    for _ in range(400):
        index = child.expect([prompts[k] for k in kinds] + [pexpect.EOF])
        assert index < len(kinds), f"the game ended early: {text_of(child)[-1500:]}"
        kind, screen = kinds[index], child.before.split("Deine Karten")[-1]
        if kind == "play":
            held = {r + s for r, s in CARD.findall(screen)}
            legal = set(re.findall(r"\[\d+\]([ATKQJ9][SHDC])", screen))
            if not absent:
                card = next(str(c) for c in CARDS if str(c) not in held and str(c)[0] in "ATKQJ9")
                child.sendline(card)
                expect_reason(child, rf"^Nicht erlaubt: Du hast {card} nicht auf der Hand\.$", prompts["play"])
                absent = True
            illegal = held - legal
            if illegal:
                card = sorted(illegal)[0]
                child.sendline(card)
                expect_reason(child, rf"^Nicht erlaubt: {card} (bedient nicht: [SHDC] wurde ausgespielt"
                                     rf"|sticht [ATKQJ9][SHDC] nicht|ist kein Trumpf)", prompts["play"])
                refused = True
                break
            child.sendline("1")
        elif kind == "discard":
            child.sendline(" ".join(str(n) for n in range(1, int(child.match.group("count")) + 1)))
        else:
            child.sendline({"auction": "b", "open_auction": "p", "tapp": "1", "game": "H", "surrender": "1",
                            "next": ""}[kind])
    assert refused and absent
    child.sendline("q")
    child.expect_exact("gespeichert")
    assert finish(child) == 0
    assert "Traceback" not in text_of(child)
