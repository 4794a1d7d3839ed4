"""The one voice: every refusal is a reason code with params, rendered by the one catalogue
(``binokel.i18n``) in five languages; the English text is what the library always said."""

from __future__ import annotations

import ast
import json
import pickle
import random
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from binokel.action import Action
from binokel.card import Card, Hand, Suit
from binokel.error import BinokelError, IllegalActionError, RecordError
from binokel.i18n import LANGUAGES, PLURAL_FORMS, catalogue, placeholders, plural_form, render
from binokel.record import deal_record, replay
from binokel.rules import Rules
from binokel.state import State

SRC = Path(__file__).resolve().parents[1] / "src" / "binokel"
CORE = ["card", "rules", "action", "trick", "meld", "score", "state", "view", "game", "record", "error", "sheet"]
"""The pure core (``table`` joins it when it exists), then the front ends that refuse input."""
REFUSING = [SRC / f"{name}.py" for name in CORE] + [SRC / "cli.py", SRC / "tournament.py", SRC / "club.py",
                                                    *sorted((SRC / "server").glob("*.py")),
                                                    *sorted((SRC / "terminal").glob("*.py"))]
ERRORS = {"BinokelError", "NotationError", "IllegalActionError", "RecordError", "SummaryError", "ProtocolError",
          "Refused", "ClubError"}
"""``Refused(status, code, **params)`` (the server's HTTP refusals) has its code second."""


def strings(lang: str) -> dict[str, str]:
    return catalogue(lang)["strings"]


# ---------------------------------------------------------------------- the catalogue

@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_has_every_key_and_only_the_english_params(lang: str) -> None:
    english, table = strings("en"), strings(lang)
    assert set(table) == set(english), sorted(set(table) ^ set(english))
    for key, text in english.items():
        # A translation may leave a parameter out (e.g. a count the example shows), never invent one.
        assert placeholders(table[key]) <= placeholders(text), (lang, key, table[key])
        if key.startswith("error."):  # the page reads the same templates: plain {name} only
            assert not re.search(r"\{\w+[!:]", table[key]), (lang, key)
    assert catalogue(lang)["lang"] == lang


def test_every_template_renders_in_python() -> None:
    """Python's str.format reads every template (the page's t() reads a subset of it)."""
    for lang in LANGUAGES:
        for value in strings(lang).values():
            for text in value.values() if isinstance(value, dict) else [value]:
                names = placeholders(text)
                if names:
                    text.format(**{name: 1 for name in names})


# ---------------------------------------------------------------------- plural forms

PLURAL_COUNTS = (0, 1, 2, 3, 5, 11, 21, 100, 1000)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_plural_templates_have_known_forms_chosen_by_a_count(lang: str) -> None:
    plural = {key: value for key, value in strings(lang).items() if isinstance(value, dict)}
    assert len(plural) >= 6, "the counted sentences have plural forms"
    for key, forms in plural.items():
        assert "other" in forms and set(forms) <= set(PLURAL_FORMS), (lang, key, sorted(forms))
        assert placeholders(forms["other"]) & {"n", "count"}, (lang, key, "the count that chooses the form")
        assert isinstance(strings("en")[key], dict), (lang, key, "plural in English too")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_one_and_many_tricks_in_every_language(lang: str) -> None:
    one = {"de": "1 Stich gespielt.", "en": "1 trick played.", "fr": "1 pli joué.", "it": "1 presa giocata.",
           "pt": "1 vaza jogada."}[lang]
    assert render("terminal.tricks_played", {"count": 1}, lang) == one
    assert render("terminal.tricks_played", {"count": 2}, lang) != one.replace("1", "2")
    # French and Portuguese count 0 as one ("0 pli joué"); the others say "0 tricks".
    zero = render("terminal.tricks_played", {"count": 0}, lang)
    assert (zero == one.replace("1", "0")) is (lang in ("fr", "pt")), zero


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (the page's i18n.js runs in node here)")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_page_and_the_terminal_choose_the_same_plural_form(lang: str) -> None:
    """The page's ``pluralForm`` (i18n.js, Intl.PluralRules) picks the form the terminal's
    ``plural_form`` picks, for every plural template and count."""
    script = (f"import {{ pluralForm }} from {json.dumps((SRC / 'web' / 'js' / 'i18n.js').as_uri())};\n"
              "const [lang, counts, forms] = JSON.parse(process.argv[1]);\n"
              "const out = {};\n"
              "for (const n of counts) out[n] = Object.fromEntries(Object.entries(forms)"
              ".map(([k, v]) => [k, pluralForm(v, { n }, lang)]));\n"
              "console.log(JSON.stringify(out));\n")
    plural = {key: value for key, value in strings(lang).items() if isinstance(value, dict)}
    ran = subprocess.run(["node", "--input-type=module", "-e", script, json.dumps([lang, PLURAL_COUNTS, plural])],
                         capture_output=True, text=True, timeout=60, check=True)
    page = json.loads(ran.stdout)
    for n in PLURAL_COUNTS:
        for key, forms in plural.items():
            assert page[str(n)][key] == forms.get(plural_form(lang, n), forms["other"]), (lang, n, key)


def _raise_sites(path: Path) -> list[tuple[int, str, ast.Call]]:
    """Every construction of a library error in ``path``: (line, class, call)."""
    tree = ast.parse(path.read_text("utf-8"))
    return [(node.lineno, node.func.id, node) for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ERRORS]


def _codes(node: ast.expr) -> list[str] | None:
    """The literal code(s) of a call's first argument; None when it passes on another error's code."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        inner = [_codes(node.body), _codes(node.orelse)]
        return [code for codes in inner if codes for code in codes]
    return None


def test_every_raise_site_has_a_code_in_every_language_with_its_params() -> None:
    english = strings("en")
    checked = 0
    for path in REFUSING:
        if not path.exists():
            continue
        for line, name, call in _raise_sites(path):
            where = f"{path.name}:{line}"
            if name == "BinokelError" and path.name == "error.py":
                continue  # the class itself, rebuilding a pickled error
            first = 1 if name == "Refused" else 0
            assert len(call.args) > first, f"{where}: {name} without a reason code"
            codes = _codes(call.args[first])
            keywords = {k.arg for k in call.keywords if k.arg is not None}
            passes_on = any(k.arg is None for k in call.keywords)
            if codes is None:  # re-raised with another error's code: ``X(error.code, **error.params)``
                assert passes_on and not keywords, f"{where}: a computed code must come with its params (**)"
                continue
            for code in codes:
                for lang in LANGUAGES:
                    assert f"error.{code}" in strings(lang), f"{where}: error.{code} missing in {lang}"
                assert keywords == placeholders(english[f"error.{code}"]), (where, code, keywords)
                checked += 1
    assert checked > 100


def test_every_reason_a_card_is_refused_is_in_the_catalogue() -> None:
    """The codes returned (not raised) by the card refusals: ``return "code", {params}``."""
    english = strings("en")
    found = 0
    for path in (SRC / "trick.py", SRC / "state.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and len(node.value.elts) == 2:
                code, params = node.value.elts
                if isinstance(code, ast.Constant) and isinstance(code.value, str) and isinstance(params, ast.Dict):
                    keys = {k.value for k in params.keys if isinstance(k, ast.Constant)}
                    assert keys == placeholders(english[f"error.{code.value}"]), (path.name, code.value)
                    found += 1
    assert found >= 8


def test_every_terminal_key_exists() -> None:
    """Every ``t("key")`` / ``self.t("key")`` of the terminal is a ``terminal.key`` of the catalogue."""
    used: set[str] = set()
    for path in (SRC / "terminal").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)
                    and ((isinstance(node.func, ast.Name) and node.func.id == "t")
                         or (isinstance(node.func, ast.Attribute) and node.func.attr in ("t", "who")))):
                used.add(node.args[0].value)
    assert len(used) > 60
    missing = {key for key in used if f"terminal.{key}" not in strings("en")}
    assert not missing, sorted(missing)


# ---------------------------------------------------------------------- the English text is unchanged

def step(state: State) -> State:
    legal = state.legal_actions()
    return state.apply(legal[-1] if str(legal[0]) == "surrender" else legal[0])


def played(seed: int, steps: int, rules: str = "standard") -> State:
    state = State.new(rules, dealer=0).deal_random(random.Random(seed))
    for _ in range(steps):
        state = step(state)
    return state


def record(seed: int, **change: Any) -> dict[str, Any]:
    data = deal_record(played(seed, 0).apply_text("150"))
    data.update(change)
    return data


# Each expression raises; the text is the one the library gave before reason codes (taken
# from the main branch when the codes came in).
BEFORE = [
    ('Card.parse("XX")', "unknown card 'XX' (expected rank A T K Q J 9 7 then suit S H D C, e.g. 'TH')"),
    ('Card.parse(5)', "a card must be text like 'AS', not 5"),
    ('Suit.parse("Z")', "unknown suit 'Z' (expected S, H, D or C)"),
    ('Hand(["AS", "AS", "AS"])', 'three copies of AS: the deck holds two of each card'),
    ('Rules.parse("standard(sit_out=1)")', 'sit_out=1 needs players=4 (the dealer sits out, three play)'),
    ('Rules.parse("standard(teams=opposite)")', 'teams=opposite needs players=4 (and sit_out=0)'),
    ('Rules.parse("standard(teams=alternate)")', 'teams=alternate needs players=6'),
    ('Rules.parse("standard(players=6)")', 'six players play in two teams: teams=alternate'),
    ('Rules.parse("standard(partner_exemption=1)")', 'partner_exemption=1 needs teams'),
    ('Rules.parse("standard(hand_size=14)")',
     'active players x hand_size + tapp_size must be the deck size 48, not 3 x 14 + 3'),
    ('Rules.parse("kreuz(packets=4-4)")',
     'packets 4-4 must add up to hand_size 10 (change packets too, e.g. packets=4-3-3)'),
    ('Rules.parse("kreuz(packets=x)")', "option packets must look like '4-3-3', not 'x'"),
    ('Rules.parse("standard(tapp_rounds=2)")', 'a Tapp of 3 cannot be dealt in 2 equal parts within 5 rounds'),
    ('Rules.parse("standard(foo=1)")',
     "unknown option 'foo' (options: deck, players, hand_size, tapp_size, packet, tapp_rounds, target, deals, min_bid, "
     "first_lead, surrender_credit, double_melds, eight_tens, eight_sevens, durch, failed_credit, defender_melds, "
     "rounding, must_beat, sit_out, packets, teams, partner_exemption, auction, all_pass, open_durch, hand_durch, "
     "durch_fail_credit, durch_game, bettel, end)"),
    ('Rules.parse(5)', "rules must be text like 'standard', not 5"),
    ('Rules.parse("standard(((")',
     "cannot read rules 'standard(((' (expected e.g. 'standard' or 'standard(target=1000)')"),
    ('Rules.parse("poker")',
     "unknown rule set 'poker' (known: standard, classic40, sevens, club, four-solo, four-sitout, kreuz, kreuz12, "
     "sechser)"),
    ('Rules.parse("standard(target)")', "option 'target' needs a value, e.g. target=..."),
    ('Rules.parse("standard(target=1000,target=2000)")', "option 'target' is given twice"),
    ('Rules.parse("standard(target=x)")', "option target must be a whole number, not 'x'"),
    ('Rules.parse("standard").replace(target=True)', 'option target must be a whole number, not True'),
    ('Rules.parse("standard(deck=x)")', "option deck must be one of nines, sevens, forty, not 'x'"),
    ('Rules.parse("standard(target=-10)")', 'option target must be at least 10, not -10'),
    ('Rules.parse("standard(hand_durch=1000,tapp_size=0,hand_size=16)")',
     'hand_durch needs a Tapp to leave unused (tapp_size at least 1)'),
    ('State.new("standard", dealer=9)', 'dealer must be a seat from 0 to 2, not 9'),
    ('played(1, 0).deal_random(random.Random(1))', 'the cards have been dealt already'),
    ('State.new("standard").deal([[]], [])', 'need 3 hands, not 1'),
    ('State.new("standard").deal([["AS"], ["AS"], ["AS"]], [])', 'hand 0 has 1 cards, not 15'),
    ('State.new("four-sitout").deal([["AS"], ["AS"], ["AS"], ["AS"]], [])',
     'hand 0 has 1 cards, not 0 (the dealer sits out)'),
    ('played(1, 0).parse_action(5)', 'an action must be text, not 5'),
    ('played(1, 0).parse_action("xx")', "a call is a bid like '160' or 'pass', not 'xx'"),
    ('played(1, 0).apply_text("170")', '170 is not legal in the auction phase (legal: 150)'),
    ('played(1, 0).apply_text("AS")', "a call is a bid like '160' or 'pass', not 'AS'"),
    ('played(1, 0).apply(5)', 'not an action: 5 (apply_text reads record notation)'),
    ('State.new("standard").apply_text("pass")', 'the cards have not been dealt yet'),
    ('replay(5)', 'a record must be a JSON object'),
    ('replay({"format": "x"})', "format: unknown format 'x' (expected 'binokel-deal/1' or 'binokel-game/1')"),
    ('replay({"format": "binokel-deal/1"})', 'rules: the record names no rules'),
    ('replay({"format": "binokel-deal/1", "rules": "standard"})', 'dealer: the deal names no dealer'),
    ('replay({"format": "binokel-deal/1", "rules": "standard", "dealer": 9})',
     'dealer: dealer must be a seat from 0 to 2, not 9'),
    ('replay(record(1, auction=["150", "many"]))', "auction[1]: a call is a bid like '160' or 'pass', not 'many'"),
    # Was 'auction[1]: a call is a bid like "160" or "pass", not 1.5': the record's own spelling of the state's
    # reason, now one code (bad_call).
    ('replay(record(1, auction=["150", 1.5]))', "auction[1]: a call is a bid like '160' or 'pass', not 1.5"),
    ('replay(record(1, discard=["AS"]))', 'discard: discard is given, but the deal is in the auction phase'),
    ('replay(record(1, tricks=[["AS"]]))', 'tricks: tricks is given, but the deal is in the auction phase'),
    ('replay(record(1, surrender="yes"))', "surrender: surrender must be true or false, not 'yes'"),
    ('replay(record(1, hands=[[], [], []]))', 'hands[0]: has 0 cards, not 15'),
    ('replay(record(1, tapp=["AS", "AS", "AS"]))', 'tapp[0]: three copies of AS: the deck holds two of each card'),
    ('replay(record(1, tapp=["7S", "AS", "AS"]))', 'tapp[0]: 7S is not in the nines deck of standard'),
    ('replay(record(1, hands=5))', 'hands: hands must be a list of 3 hands'),
    ('replay(record(1, tricks=5))', 'tricks: tricks must be a list'),
    ('replay({"format": "binokel-game/1", "rules": "standard", "players": ["a"]})',
     'players: players must list 3 names'),
    ('replay({"format": "binokel-game/1", "rules": "standard", "deals": 5})',
     'deals: deals must be a list of deal records'),
    ('replay({"format": "binokel-game/1", "rules": "standard", "deals": [{"dealer": 7}]})',
     'deals[0].dealer: dealer must be a seat from 0 to 2, not 7'),
    ('deal_record(State.new("standard"))', 'a deal has no record before the cards are dealt'),
    ('played(0, 9).apply_text("TH")', 'TH does not follow suit: S was led and must be followed'),
    ('played(0, 9).apply_text("AS")', 'seat 2 does not hold AS'),
    ('played(0, 10).apply_text("9S")', '9S does not beat KS: a higher S must be played'),
    ('played(8, 36).apply_text("9H")', '9H is not a trump: void in D, a trump must be played'),
    ('played(94, 19).apply_text("TS")', 'TS does not beat TS: a higher trump must be played'),
]


@pytest.mark.parametrize("expression, text", BEFORE)
def test_the_english_text_is_unchanged(expression: str, text: str) -> None:
    names = {"Card": Card, "Hand": Hand, "Suit": Suit, "Rules": Rules, "State": State, "Action": Action,
             "replay": replay, "deal_record": deal_record, "played": played, "record": record, "random": random}
    with pytest.raises(BinokelError) as refused:
        eval(expression, names)
    error = refused.value
    assert str(error) == text
    assert f"error.{error.code}" in strings("en")
    # Every language says it, with the same params.
    for lang in LANGUAGES:
        assert error.render(lang) and "{" not in error.render(lang)


def test_the_reasons_cover_every_kind_of_refused_card() -> None:
    codes = set()
    for expression, _ in BEFORE:
        if expression.startswith("played(") and ".apply_text(" in expression:
            try:
                eval(expression, {"played": played})
            except BinokelError as error:
                codes.add(error.code)
    assert {"must_follow_suit", "must_beat", "must_trump", "must_overtrump", "not_in_hand"} <= codes


def test_a_reason_in_other_languages() -> None:
    error = IllegalActionError("must_follow_suit", card="TH", suit="S")
    assert error.render("de") == "TH bedient nicht: S wurde ausgespielt und muss bedient werden"
    assert error.render("fr").startswith("TH ne fournit pas")
    assert error.render("xx") == str(error)  # an unknown language: English
    assert render("error.not_in_hand", {"seat": 0, "card": "AS"}, "it", you=True) == "non hai AS"
    assert render("error.not_in_hand", {"seat": 0, "card": "AS"}, "it") == "il posto 0 non ha AS"


def test_errors_keep_code_params_and_place_across_processes() -> None:
    error = RecordError("trick_size", "tricks[3]", count=3, given=2)
    again = pickle.loads(pickle.dumps(error))
    assert (type(again), again.code, again.params, again.at, str(again)) == (
        RecordError, "trick_size", {"count": 3, "given": 2}, "tricks[3]", "tricks[3]: a trick has 3 cards, not 2")
    assert error.to_json() == {"code": "trick_size", "params": {"count": 3, "given": 2}}


def test_the_server_serves_the_catalogue(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from binokel.i18n import catalogue, source
    from binokel.server.limits import Limits
    from server_support import app_for

    with TestClient(app_for(tmp_path / "games.db", limits=Limits())) as client:
        for lang in LANGUAGES:
            answer = client.get(f"/i18n/{lang}.json")
            assert answer.status_code == 200 and answer.content == source(lang)
            # The page gets every string but the terminal's own, which no page file asks for.
            sent = set(answer.json()["strings"])
            assert sent == {key for key in catalogue(lang)["strings"] if not key.startswith("terminal.")}
        web = Path(__file__).resolve().parents[1] / "src" / "binokel" / "web"
        asking = [str(f) for f in web.rglob("*")
                  if f.suffix in (".js", ".html") and "terminal." in f.read_text("utf-8")]
        assert not asking, asking
        missing = client.get("/i18n/xx.json")
        assert missing.status_code == 404 and missing.json()["code"] == "bad_language"
