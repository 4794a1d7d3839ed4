"""What the browser tests share: ``binokel serve`` in a subprocess, pages in headless
Chromium, and one seat's moves at the table.

tests/conftest.py hands the fixtures ``server`` and ``browser`` (and a default ``page``) to
every test module; the helpers are imported by name. The browser needs the Playwright
Python package and a Chromium binary (Debian's ``chromium`` package; ``BINOKEL_CHROMIUM``
may point elsewhere): without them every test that asks for it is skipped with the reason.
``BINOKEL_SCREENSHOTS=1`` refreshes ``docs/screenshots/``.
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
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("BINOKEL_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
try:
    from playwright.sync_api import Browser, Page, expect, sync_playwright
    from playwright.sync_api import Error as PlaywrightError
except ImportError:  # pragma: no cover - the ``browser`` fixture skips with the reason
    sync_playwright = None
    Browser = Page = expect = PlaywrightError = None  # type: ignore[assignment,misc]

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "docs" / "screenshots"
screenshots_only = pytest.mark.skipif(not os.environ.get("BINOKEL_SCREENSHOTS"),
                                      reason="set BINOKEL_SCREENSHOTS=1 to refresh docs/screenshots")
TIMEOUT = 20_000  # ms for one step of the page
# Seconds a bot, a hint or the bidding help thinks at the tests' servers: the browser tests try the
# page, not the bots' strength (tests/test_ai*.py), and the browser's 0.5 s cost most of their time.
BOT_BUDGET = "0.05"
SHORT = {"timeout": 3000}  # for a click on what the page already shows


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
            [sys.executable, "-m", "binokel", "serve", "--port", str(self.port), "--db", str(self.db), "--think", "0",
             "--budget", BOT_BUDGET],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 60  # a bound, not a measure: a loaded machine starts it slowly
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "api/meta", timeout=1) as response:
                    if response.status == 200:
                        return
            except OSError:
                if self.process.poll() is not None:
                    raise RuntimeError(f"binokel serve exited: {self.process.stdout.read()}") from None
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
    if sync_playwright is None:
        pytest.skip("the playwright Python package is not installed (pip install playwright)")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium browser at {CHROMIUM} (apt-get install chromium)")
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


# A page starts with the player's "Animations: off" unless the test asks for them (``animations``)
# or stored settings of its own: a deal played through took 16.5 s with reduced motion (the pauses
# between cards, capped at 0.45 s) and 6.0 s without.
ANIMATIONS_OFF = ("localStorage.getItem('binokel.settings') === null"
                  " && localStorage.setItem('binokel.settings', JSON.stringify({speed: 'off'}))")


def open_page(browser: Browser, width: int = 1280, height: int = 800, locale: str = "en-US",
              animations: bool = False, **options) -> Page:
    context = browser.new_context(viewport={"width": width, "height": height}, locale=locale, **options)
    if not animations:
        context.add_init_script(ANIMATIONS_OFF)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    return page


def checked_page(browser: Browser, **options: Any) -> Iterator[Page]:
    """A page for a fixture to yield: closed afterwards, and the test fails on any script error."""
    page = open_page(browser, **options)
    yield page
    errors = page.errors  # type: ignore[attr-defined]
    page.context.close()
    assert not errors, f"errors on the page: {errors}"


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A desktop page with reduced motion and the animations off."""
    yield from checked_page(browser, reduced_motion="reduce")


@pytest.fixture
def animated_page(browser: Browser) -> Iterator[Page]:
    """A desktop page with reduced motion (short pauses) and the animations on, as a player has them."""
    yield from checked_page(browser, reduced_motion="reduce", animations=True)


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
        except PlaywrightError:  # not yet (a timeout), or the page between two states: look again
            continue
        if done(page, seen) or deal_over(page, seen):
            return seen
        try:
            act(page, seen)
        except Exception as error:  # the page moved on between looking and clicking
            if "Timeout" not in type(error).__name__:
                raise
    raise AssertionError(f"the deal did not finish in time; seen {seen}; {where(page)}")


def where(page: Page) -> str:
    """What a stuck test needs to know: the page's address, whose turn the table shows, any error shown."""
    table = page.locator("[data-testid=table]")
    turn = table.first.get_attribute("data-turn") if table.count() else None
    errors = page.locator(".error:not(:empty):visible, [role=alert]:not(:empty):visible").all_inner_texts()
    return f"at {page.url}, turn {turn!r}, errors shown {errors}"


def act(page: Page, seen: dict[str, int]) -> None:
    if page.get_by_test_id("action-bid").count():
        seen["auction"] = seen.get("auction", 0) + 1
        page.get_by_test_id("action-bid").click(**SHORT)
    elif page.get_by_test_id("confirm-discard").count():
        seen["discard"] = 1
        assert page.locator("#tapp .card:not(.back)").count() >= 3  # the Tapp is face up
        need = int(re.search(r"\d+", page.get_by_test_id("discard-info").inner_text()).group())
        cards = page.locator("#hand .card")
        for i in range(need):
            cards.nth(cards.count() - 1 - i).click(position=CARD_EDGE, **SHORT)
        expect(page.get_by_test_id("discard-info")).to_contain_text("banked")
        page.get_by_test_id("confirm-discard").click(**SHORT)
        expect(page.get_by_test_id("confirm-discard")).to_have_count(0)
    elif page.get_by_test_id("trump-H").count():
        seen["trump"] = 1
        expect(page.get_by_test_id("trump-S")).to_contain_text("melds")
        expect(page.get_by_test_id("trump-durch")).to_be_visible()
        page.get_by_test_id("trump-H").click(**SHORT)
    elif page.get_by_test_id("action-play").count():
        seen["surrender"] = 1
        expect(page.get_by_test_id("action-surrender")).to_contain_text("−")
        page.get_by_test_id("action-play").click(**SHORT)
    elif page.locator("#hand.active .card.legal").count():
        seen["cards"] = seen.get("cards", 0) + 1
        why = page.locator("#hand.active .card.illegal").evaluate_all("cards => cards.map(c => c.dataset.why)")
        for reason in why:  # the server's reason (the engine's own), rendered by the page
            assert re.search(r"does not follow suit|does not beat|is not a trump", reason), reason
        seen["reasons"] = seen.get("reasons", 0) + len(why)
        page.locator("#hand.active .card.legal").first.click(position=CARD_EDGE, **SHORT)


def deal_over(page: Page, seen: dict[str, int]) -> bool:
    return page.locator("#result-dialog[open]").count() > 0


def shown(n: int) -> str:
    """A number as the page writes it in English (the minus sign U+2212)."""
    return f"{n:,}".replace("-", "\u2212")


def keep_screenshot(page: Page, name: str, full_page: bool = False) -> None:
    """``BINOKEL_SCREENSHOTS=1``: keep the page as ``docs/screenshots/NAME.png`` (for the docs)."""
    if os.environ.get("BINOKEL_SCREENSHOTS"):
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=full_page)


def new_game(server: Server, page: Page, **body: object) -> str:
    """A seeded game made over HTTP, its seat token kept in the page's browser, the page on it."""
    made = server.post("api/games", body)
    goto(page, server.url)
    page.evaluate("([id, token]) => localStorage.setItem('binokel.seats', JSON.stringify("
                  "{...JSON.parse(localStorage.getItem('binokel.seats') || '{}'), [id]: {token, seat: 0}}))",
                  [made["id"], made["token"]])
    goto(page, f"{server.url}#/game/{made['id']}")
    expect(page.locator("#hand .card").first).to_be_visible()
    return str(made["id"])


def act_with_friends(page: Page, seen: dict[str, int]) -> None:
    """The page's own move (``act``), but people pass after one bid: the
    page's ``act`` always bids and relies on bots to pass."""
    if seen.get("auction", 0) >= 1 and page.get_by_test_id("action-pass").count():
        seen["passed"] = 1
        page.get_by_test_id("action-pass").click(**SHORT)
    else:
        act(page, seen)


def surrender(page: Page, seen: dict[str, int]) -> bool:
    """A ``done`` for play_until: surrender when asked (the deal then ends)."""
    if page.get_by_test_id("action-surrender").count():
        page.get_by_test_id("action-surrender").click(**SHORT)
        page.get_by_test_id("confirm-ok").click(**SHORT)
        seen["surrendered"] = 1
        page.wait_for_selector("#result-dialog[open]")
        return True
    return False


# ---------------------------------------------------------------------- what the page shows

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


def axe_or_skip() -> Path:
    """axe-core as ``scripts/test`` installs it (npm ci); without it the test skips, on CI fails."""
    if AXE.exists():
        return AXE
    reason = (f"axe-core is not installed at {AXE}: run npm ci (scripts/test does)" if os.environ.get("PATH") and
              any((Path(p) / "node").exists() for p in os.environ["PATH"].split(os.pathsep))
              else "node is not installed (axe-core comes from npm; scripts/test installs both)")
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: the accessibility test must run)", pytrace=False)
    pytest.skip(reason)


def violations(page: Page, where: str) -> list[str]:
    """axe-core's violations on the page as it is now (WCAG 2.x A and AA and best practices)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate("""async () => {
        const result = await axe.run(document, { resultTypes: ["violations"] });
        return result.violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ` +
            v.nodes.slice(0, 4).map((n) => n.target.join(" ") + (n.failureSummary ?
                " [" + n.failureSummary.split("\\n").slice(1).join("; ").slice(0, 160) + "]" : "")).join(" | ")); }""")
    return [f"{where}: {line}" for line in found]


def key_like(page: Page) -> list[str]:
    """Keys shown as they are (a word like ``level_about.expert`` whose first part is a prefix of
    the catalogue's keys, whether or not the key exists): text, options, labels, titles."""
    return page.evaluate("""async () => {
        const keys = Object.keys((await (await fetch('/i18n/en.json')).json()).strings);
        const prefixes = new Set(keys.filter(k => k.includes('.')).map(k => k.split('.')[0]));
        const out = new Set();
        const look = (text) => { for (const word of String(text || '').split(/[\\s:,;()"“”]+/))
            if (/^[a-z][a-z0-9_]*(\\.[a-z0-9_]+)+$/.test(word) && prefixes.has(word.split('.')[0])) out.add(word); };
        const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        for (let n = walk.nextNode(); n; n = walk.nextNode())
            if (!n.parentElement.closest('script, style')) look(n.textContent);
        for (const el of document.querySelectorAll('[aria-label], [title], [placeholder]'))
            ['aria-label', 'title', 'placeholder'].forEach(a => look(el.getAttribute(a)));
        return [...out]; }""")
