"""Browser tests: the real page of ``binokel serve`` driven in headless Chromium.

They need the Playwright Python package and a Chromium binary (Debian's ``chromium``
package; ``BINOKEL_CHROMIUM`` may point elsewhere). Without them every test here is
skipped with the reason. Set ``BINOKEL_SCREENSHOTS=1`` to refresh ``docs/screenshots/``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("BINOKEL_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
try:
    from playwright.sync_api import Browser, Page, expect, sync_playwright
except ImportError:  # pragma: no cover - depends on the environment
    sync_playwright = None

pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="the playwright Python package is not installed (pip install playwright)"),
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no Chromium browser at {CHROMIUM} (apt-get install chromium)"),
]

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "docs" / "screenshots"
TIMEOUT = 20_000  # ms for one step of the page


# ---------------------------------------------------------------------- fixtures

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """``binokel serve`` in a subprocess, on a fixed port so that it can be restarted."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        self.tokens: dict[str, str] = {}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "binokel", "serve", "--port", str(self.port), "--db", str(self.db), "--think", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 60  # a bound, not a measure: a loaded machine starts it slowly
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "api/meta", timeout=1) as response:
                    if response.status == 200:
                        return
            except OSError:
                if self.process.poll() is not None:
                    raise RuntimeError(f"binokel serve exited: {self.process.stdout.read()}")
                time.sleep(0.1)
        self.process.kill()  # no server left running after a failed start
        self.process.wait()
        raise RuntimeError("binokel serve did not start within 60 s")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process and self.process.stdout:
            self.process.stdout.close()
        self.process = None

    def post(self, path: str, body: dict) -> dict:
        request = urllib.request.Request(self.url + path, data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    def new_game(self, **body) -> str:
        """A new game (the creator's token is kept for :meth:`seat_url`); its id."""
        created = self.post("api/games", body)
        self.tokens[created["id"]] = created["token"]
        return created["id"]

    def seat_url(self, game: str, token: str | None = None) -> str:
        """The page of a game for the holder of a seat: the token travels in the fragment only."""
        return f"{self.url}#/seat/{game}/{token or self.tokens[game]}"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    server = Server(tmp_path / "games.db")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield browser
        browser.close()


def goto(page: Page, url: str) -> None:
    """Open ``url`` and wait until the page's script is live (it marks <html data-ready>)."""
    page.goto(url)
    page.wait_for_selector("html[data-ready=true]", state="attached")


def reload(page: Page) -> None:
    page.reload()
    page.wait_for_selector("html[data-ready=true]", state="attached")


def open_page(browser: Browser, width: int = 1280, height: int = 800, locale: str = "en-US", **options) -> Page:
    context = browser.new_context(viewport={"width": width, "height": height}, locale=locale, **options)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    return page


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    page = open_page(browser)
    yield page
    errors = page.errors  # type: ignore[attr-defined]
    page.context.close()
    assert not errors, f"errors on the page: {errors}"


# ---------------------------------------------------------------------- driving the page

def hand(page: Page) -> list[str]:
    return sorted(page.locator("#hand .card").evaluate_all("cards => cards.map(c => c.dataset.card)"))


MY_TURN = "[data-testid=table][data-turn=me]"
CARD_EDGE = {"x": 6, "y": 24}  # the left strip of a card in the hand: the next card never covers it


def my_turn(page: Page, phase: str | None = None) -> bool:
    return page.locator(MY_TURN + (f"[data-phase={phase}]" if phase else "")).count() > 0


def play_until(page: Page, done, limit: float = 150) -> dict[str, int]:
    """Play the human's turns until ``done(page, seen)`` holds on the human's turn or the deal is over."""
    seen: dict[str, int] = {}
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            page.wait_for_selector(f"{MY_TURN}, #result-dialog[open]", timeout=TIMEOUT)
        except Exception:
            continue
        if done(page, seen) or deal_over(page, seen):
            return seen
        try:
            act(page, seen)
        except Exception as error:  # the page moved on between looking and clicking
            if "Timeout" not in type(error).__name__:
                raise
    raise AssertionError(f"the deal did not finish in time; seen {seen}")


def act(page: Page, seen: dict[str, int]) -> None:
    short = {"timeout": 3000}
    if page.get_by_test_id("action-bid").count():
        seen["auction"] = seen.get("auction", 0) + 1
        page.get_by_test_id("action-bid").click(**short)
    elif page.get_by_test_id("confirm-discard").count():
        seen["discard"] = 1
        assert page.locator("#tapp .card:not(.back)").count() >= 3  # the Tapp is face up
        need = int(re.search(r"\d+", page.get_by_test_id("discard-info").inner_text()).group())
        cards = page.locator("#hand .card")
        for i in range(need):
            cards.nth(cards.count() - 1 - i).click(position=CARD_EDGE, **short)
        expect(page.get_by_test_id("discard-info")).to_contain_text("banked")
        page.get_by_test_id("confirm-discard").click(**short)
        expect(page.get_by_test_id("confirm-discard")).to_have_count(0)
    elif page.get_by_test_id("trump-H").count():
        seen["trump"] = 1
        expect(page.get_by_test_id("trump-S")).to_contain_text("melds")
        expect(page.get_by_test_id("trump-durch")).to_be_visible()
        page.get_by_test_id("trump-H").click(**short)
    elif page.get_by_test_id("action-play").count():
        seen["surrender"] = 1
        expect(page.get_by_test_id("action-surrender")).to_contain_text("−")
        page.get_by_test_id("action-play").click(**short)
    elif page.locator("#hand.active .card.legal").count():
        seen["cards"] = seen.get("cards", 0) + 1
        why = page.locator("#hand.active .card.illegal").evaluate_all("cards => cards.map(c => c.dataset.why)")
        for reason in why:  # the server's reason (the engine's own), rendered by the page
            assert re.search(r"does not follow suit|does not beat|is not a trump", reason), reason
        seen["reasons"] = seen.get("reasons", 0) + len(why)
        page.locator("#hand.active .card.legal").first.click(position=CARD_EDGE, **short)


def deal_over(page: Page, seen: dict[str, int]) -> bool:
    return page.locator("#result-dialog[open]").count() > 0


def start_from_form(page: Page, url: str, name: str = "Anna", deck: str = "french") -> None:
    goto(page, url)
    page.get_by_test_id("player-name").fill(name)
    page.get_by_test_id(f"deck-{deck}").check(force=True)
    page.get_by_test_id("start-game").click()
    expect(page.get_by_test_id("table")).to_be_visible()
    expect(page.locator("#hand .card").first).to_be_visible()


# ---------------------------------------------------------------------- tests

def test_a_whole_deal_by_clicking(server: Server, page: Page) -> None:
    start_from_form(page, server.url)
    expect(page.get_by_test_id("seat-0")).to_contain_text("Anna")
    seen = play_until(page, deal_over)
    # We never pass, so we win the auction: Tapp, discard, trump, the play-or-surrender choice.
    assert {"auction", "discard", "trump", "surrender", "cards"} <= set(seen), seen
    expect(page.get_by_test_id("result-title")).not_to_be_empty()
    assert page.locator("#log li").count() > 15
    page.get_by_test_id("result-sheet").click()
    expect(page.get_by_test_id("sheet-row")).to_have_count(1)
    expect(page.get_by_test_id("score-sheet")).to_contain_text("Anna")
    page.keyboard.press("Escape")  # closes the score sheet, back to the result
    # The next deal starts when asked for.
    page.get_by_test_id("result-next-deal").click()
    expect(page.get_by_test_id("deal-number")).to_contain_text("Deal 2")
    expect(page.get_by_test_id("status")).not_to_contain_text("over")


def test_reload_in_the_middle_resumes(server: Server, page: Page) -> None:
    start_from_form(page, server.url)
    play_until(page, lambda p, seen: seen.get("cards", 0) >= 2 and my_turn(p, "play") or deal_over(p, seen))
    expect(page.locator(MY_TURN)).to_have_count(1)
    before, url = hand(page), page.url
    reload(page)
    expect(page.locator(MY_TURN)).to_have_count(1)
    assert page.url == url and hand(page) == before
    play_until(page, deal_over)
    # The unfinished game is listed on the start page.
    goto(page, server.url)
    expect(page.get_by_test_id("resume-list").locator("a")).to_have_count(1)


def test_server_restart_in_the_middle_resumes(server: Server, page: Page) -> None:
    start_from_form(page, server.url)
    play_until(page, lambda p, seen: seen.get("cards", 0) >= 1 and my_turn(p, "play") or deal_over(p, seen))
    expect(page.locator(MY_TURN)).to_have_count(1)
    before = hand(page)
    server.stop()
    expect(page.get_by_test_id("connection")).to_be_visible()
    server.start()
    expect(page.get_by_test_id("connection")).to_be_hidden(timeout=15_000)
    expect(page.locator(MY_TURN)).to_have_count(1)
    assert hand(page) == before
    play_until(page, deal_over)


def test_language_and_deck_switch(server: Server, page: Page) -> None:
    goto(page, server.url)
    expect(page.get_by_test_id("rules-button")).to_have_text("Rules")
    page.get_by_test_id("language-select").select_option("de")
    expect(page.get_by_test_id("rules-button")).to_have_text("Regeln")
    expect(page.get_by_test_id("start-game")).to_have_text("Karten geben")
    page.get_by_test_id("rules-button").click()
    expect(page.get_by_test_id("rules-content")).to_contain_text("Reizen")
    page.get_by_test_id("tab-glossary").click()
    expect(page.get_by_test_id("rules-content")).to_contain_text("Dapp")
    page.keyboard.press("Escape")
    for lang, word in [("fr", "Règles"), ("it", "Regole"), ("pt", "Regras"), ("en", "Rules")]:
        page.get_by_test_id("language-select").select_option(lang)
        expect(page.get_by_test_id("rules-button")).to_have_text(word)
    page.get_by_test_id("language-select").select_option("de")
    game = server.new_game(name="Anna", seed=7)
    goto(page, server.seat_url(game))
    expect(page.locator("#hand .card").first).to_be_visible()
    labels = "() => [...document.querySelectorAll('#hand .card')].map(c => c.textContent).join(' ')"  # named by their text
    page.get_by_test_id("deck-select").select_option("german")
    page.wait_for_function(f"() => /Eichel|Grün|Schellen/.test(({labels})())")
    assert not re.search(r"Kreuz|Pik|Karo", page.evaluate(labels))
    page.get_by_test_id("deck-select").select_option("french")
    page.wait_for_function(f"() => /Kreuz|Pik|Karo/.test(({labels})())")
    # The choice is remembered after a reload.
    page.get_by_test_id("language-select").select_option("it")
    reload(page)
    expect(page.get_by_test_id("rules-button")).to_have_text("Regole")


def test_the_log_speaks_to_the_player_named_you(server: Server, page: Page) -> None:
    game = server.new_game(seed=7)  # the player's default name is "You"
    goto(page, server.seat_url(game))
    play_until(page, lambda p, seen: seen.get("auction", 0) >= 1)
    log = page.get_by_test_id("log")
    expect(log).to_contain_text(re.compile(r"You bid \d"))
    assert not re.search(r"You (bids|passes|wins|plays|deals|sits)\b", log.text_content())
    page.get_by_test_id("language-select").select_option("de")
    expect(log).to_contain_text(re.compile(r"Sie reizen \d"))
    assert not re.search(r"Sie (reizt|passt|gewinnt|erhält|spielt|gibt)\b", log.text_content())


def test_browser_language_is_the_default(server: Server, browser: Browser) -> None:
    page = open_page(browser, locale="fr-FR")
    goto(page, server.url)
    expect(page.get_by_test_id("start-game")).to_have_text("Distribuer")
    page.context.close()


def test_phone_viewport(server: Server, browser: Browser) -> None:
    page = open_page(browser, 390, 844, has_touch=True, is_mobile=True)
    start_from_form(page, server.url, deck="german")
    play_until(page, lambda p, seen: seen.get("cards", 0) >= 2 and my_turn(p, "play") or deal_over(p, seen))
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 392, f"the page is {width}px wide on a 390px phone"
    for box in page.locator("#hand .card").evaluate_all("cards => cards.map(c => c.getBoundingClientRect().right)"):
        assert box <= 391
    expect(page.get_by_test_id("status")).to_be_visible()
    assert not page.errors  # type: ignore[attr-defined]
    page.context.close()


def test_keyboard_plays_a_card(server: Server, page: Page) -> None:
    game = server.new_game(name="Anna", seed=3)
    goto(page, server.seat_url(game))
    play_until(page, lambda p, seen: my_turn(p, "play") or deal_over(p, seen))
    if deal_over(page, {}):
        pytest.skip("the deal ended before a card could be played")
    count = page.locator("#hand .card").count()
    page.locator("#hand.active .card.legal").first.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#hand .card")).to_have_count(count - 1)


def test_kreuz_with_a_changed_option_from_the_start_page(server: Server, page: Page) -> None:
    from binokel.error import NotationError
    from binokel.rules import Rules

    goto(page, server.url)
    page.get_by_test_id("rule-set").select_option("kreuz")
    expect(page.get_by_test_id("opponent-levels").locator("select")).to_have_count(4)  # one per seat: me, friends, bots
    expect(page.get_by_test_id("level-0")).to_have_value("me")
    expect(page.get_by_test_id("opponent-levels").locator("label").nth(2)).to_contain_text("Partner")
    page.locator("#more-options-box summary").click()
    # A bad combination gets the rules' own objection, live and on starting; nothing is created.
    page.get_by_test_id("option-players").select_option("6")
    with pytest.raises(NotationError) as refused:
        Rules.parse("kreuz(players=6)")
    expect(page.get_by_test_id("rules-error")).to_have_text(str(refused.value))
    page.get_by_test_id("start-game").click()
    expect(page.get_by_test_id("new-game-error")).to_contain_text(str(refused.value))
    assert "#/game/" not in page.url
    page.get_by_test_id("option-players").select_option("")
    page.get_by_test_id("option-target").fill("1000")
    expect(page.get_by_test_id("rules-text")).to_have_text("kreuz(target=1000)")
    expect(page.get_by_test_id("rules-error")).to_be_empty()
    page.get_by_test_id("start-game").click()
    expect(page.get_by_test_id("table")).to_be_visible()
    # Four seats, my partner opposite, the team totals, the rules in force with the change.
    for seat in range(4):
        expect(page.get_by_test_id(f"seat-{seat}")).to_be_visible()
    expect(page.locator("#felt .seat")).to_have_count(3)
    expect(page.get_by_test_id("partner-2")).to_be_visible()
    expect(page.locator("#felt .seat.partner")).to_have_count(1)
    expect(page.locator("#scoreboard .score-chip")).to_have_count(2)
    page.get_by_test_id("in-force-button").click()
    expect(page.get_by_test_id("in-force-text")).to_have_text("kreuz(target=1000)")
    expect(page.get_by_test_id("change-target")).to_contain_text("1000")
    expect(page.get_by_test_id("change-teams")).to_contain_text("partners opposite")


def test_a_club_deal_with_the_open_auction_by_clicking(server: Server, browser: Browser) -> None:
    page = open_page(browser, reduced_motion="reduce")  # shorter pauses between the cards
    game = server.new_game(rules="club", name="Anna", seed=12)
    goto(page, server.seat_url(game))
    expect(page.get_by_test_id("rules-button")).to_be_visible()
    stepped = False
    while not stepped:  # on our first bid, look at the stepper over the legal bids
        page.wait_for_selector(f"{MY_TURN}, #result-dialog[open]")
        if deal_over(page, {}) or not my_turn(page, "auction"):
            break
        options = page.get_by_test_id("bid-select").locator("option")
        expect(options).to_have_count(51)
        low = int(options.first.get_attribute("value"))
        page.get_by_test_id("bid-up").click()
        expect(page.get_by_test_id("action-bid")).to_contain_text(str(low + 10))
        page.get_by_test_id("bid-down").click()
        expect(page.get_by_test_id("action-bid")).to_contain_text(str(low))
        stepped = True
    seen = play_until(page, deal_over)
    assert stepped and {"auction", "discard", "trump", "cards"} <= set(seen), seen
    expect(page.get_by_test_id("result-title")).not_to_be_empty()
    page.get_by_test_id("result-next-deal").click()
    expect(page.get_by_test_id("deal-number")).to_contain_text("Deal 2")
    assert not page.errors  # type: ignore[attr-defined]
    page.context.close()


def test_the_tapp_choice_and_the_contracts_without_trump(server: Server, browser: Browser) -> None:
    page = open_page(browser, reduced_motion="reduce")
    game = server.new_game(rules="standard(hand_durch=2000,open_durch=1500,bettel=300)", name="Anna", seed=11)
    goto(page, server.seat_url(game))
    # We never pass, so we win the auction; then the choice: take the Tapp or open Durch from the hand.
    play_until(page, lambda page, seen: my_turn(page, "tapp"))
    assert my_turn(page, "tapp"), "the deal ended before the Tapp choice"
    expect(page.get_by_test_id("action-hand_durch")).to_contain_text("2,000")
    expect(page.locator("#tapp .card.back")).to_have_count(3)  # still face down while we decide
    page.get_by_test_id("action-take").click()
    play_until(page, lambda page, seen: my_turn(page, "game"))
    expect(page.get_by_test_id("trump-open_durch")).to_contain_text("1,500")
    expect(page.get_by_test_id("trump-bettel")).to_contain_text("300")
    expect(page.get_by_test_id("trump-durch")).to_contain_text("1,000")
    seen = play_until(page, deal_over)
    assert {"trump", "cards"} <= set(seen), seen
    assert not page.errors  # type: ignore[attr-defined]
    page.context.close()


def test_why_a_card_is_refused_comes_from_the_server_in_german(server: Server, page: Page) -> None:
    """The page holds no rules (no legal.js): the reason for a greyed card is the server's
    reason code, shown in the player's language."""
    game = server.new_game(name="Anna", seed=3)
    goto(page, server.seat_url(game))
    refused = "#hand.active .card.illegal"
    for _ in range(4):  # a few deals at most, until seat 0 holds a card it may not play
        play_until(page, lambda p, seen: my_turn(p, "play") and p.locator(refused).count() > 0)
        if my_turn(page, "play") and page.locator(refused).count():
            break
        page.get_by_test_id("result-next-deal").click()
    else:
        pytest.fail("no refused card in four deals")
    english = page.locator(refused).first.get_attribute("data-why")
    assert re.search(r"does not follow suit|does not beat|is not a trump", english), english
    page.get_by_test_id("language-select").select_option("de")
    page.wait_for_function(f"() => !/does not/.test(document.querySelector('{refused}').dataset.why)")
    german = page.locator(refused).first.get_attribute("data-why")
    assert re.search(r"bedient nicht|sticht .+ nicht|ist kein Trumpf", german), german
    scripts = page.evaluate("() => performance.getEntriesByType('resource').map(e => e.name)")
    assert any(name.endswith("/js/table.js") for name in scripts) and not any("legal.js" in name for name in scripts)
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(server.url + "static/js/legal.js", timeout=5)
    assert missing.value.code == 404


@pytest.mark.skipif(not os.environ.get("BINOKEL_SCREENSHOTS"), reason="set BINOKEL_SCREENSHOTS=1 to refresh docs/screenshots")
def test_screenshots(server: Server, browser: Browser) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    # The phone's screenshots come from test_browser_table.py (a touch screen).
    for name, width, height, deck in [("table-desktop", 1280, 800, "french")]:
        page = open_page(browser, width, height, reduced_motion="reduce")
        start_from_form(page, server.url, deck=deck)
        play_until(page, lambda p, seen: seen.get("cards", 0) >= 3 and my_turn(p, "play") and p.locator("#trick .card").count() >= 1
                   or deal_over(p, seen))
        page.wait_for_timeout(300)
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
        play_until(page, deal_over)
        page.wait_for_timeout(300)
        page.screenshot(path=str(SCREENSHOTS / f"{name}-result.png"))
        page.context.close()
    page = open_page(browser, 1280, 800, reduced_motion="reduce")
    goto(page, server.seat_url(server.new_game(rules='kreuz', name='Anna', seed=4)))
    play_until(page, lambda p, seen: seen.get("cards", 0) >= 2 and my_turn(p, "play")
               and p.locator("#trick .card").count() >= 2 or deal_over(p, seen))
    page.wait_for_timeout(300)
    page.screenshot(path=str(SCREENSHOTS / "table-kreuz.png"))
    page.context.close()
    page = open_page(browser, 1280, 800)
    goto(page, server.url)
    page.screenshot(path=str(SCREENSHOTS / "start.png"))
    page.context.close()
