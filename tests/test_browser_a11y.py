"""Browser tests of issue #23's accessibility and delivery parts: a spectator reviews a
finished deal once (bug 1), the live region speaks a whole trick, axe-core finds nothing,
plurals and dates follow the language, and the page arrives compressed and small.

They reuse the fixtures of ``test_browser.py`` (the same skips: no Playwright or no
Chromium → skipped with the reason). Games are seeded; the computer thinks for 0 s.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_browser import (  # noqa: F401 - the same skips as test_browser.py
    ARGS,
    CHROMIUM,
    Browser,
    Page,
    Server,
    expect,
    goto,
    open_page,
    pytestmark,
    sync_playwright,
)


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


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    page = open_page(browser, reduced_motion="reduce")
    yield page
    errors = page.errors  # type: ignore[attr-defined]
    page.context.close()
    assert not errors, f"errors on the page: {errors}"


def post(server: Server, path: str, body: dict) -> dict:
    request = urllib.request.Request(server.url + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


# ---------------------------------------------------------------------- bug 1: a spectator's review

def test_bug1_a_spectator_reviews_a_finished_deal_once(server: Server, page: Page) -> None:
    made = post(server, "api/games", {"seats": ["hard", "hard", "hard"], "seed": 4})
    reviews: list[tuple[str, int]] = []
    page.on("response", lambda r: reviews.append((r.url, r.status)) if "/review" in r.url else None)
    goto(page, f"{server.url}#/watch/{made['id']}")
    expect(page.locator("#result-dialog[open]")).to_be_visible(timeout=60_000)
    page.wait_for_timeout(2500)  # the flood was ~60 requests a second
    buttons = page.get_by_test_id("review-button").count()
    assert buttons == 1, f"one review button in the result, not {buttons}"
    assert 1 <= len(reviews) <= 2, f"the deal's review is asked for once, not {len(reviews)} times: {reviews[:5]}"
    assert all(status == 200 for _, status in reviews), f"a spectator may review the public record: {reviews[:5]}"
    assert all("seat=-1" not in url for url, _ in reviews)
    expect(page.get_by_test_id("explain")).to_be_visible()
    page.get_by_test_id("review-button").click()
    expect(page.get_by_test_id("review-position")).to_contain_text("Trick 1 of")
    expect(page.get_by_test_id("review-summary")).not_to_contain_text("your")  # a spectator played no card
    assert len(reviews) <= 2, "opening the review asks for nothing new"
    # The review (section 5): a clickable timeline, arrow keys, a dialog that keeps its height,
    # and the estimated cost said in words.
    dialog = page.get_by_test_id("review-dialog")
    height = dialog.bounding_box()["height"]
    page.get_by_test_id("review-dot-2").click()
    expect(page.get_by_test_id("review-position")).to_contain_text("Trick 3 of")
    page.keyboard.press("ArrowLeft")
    expect(page.get_by_test_id("review-position")).to_contain_text("Trick 2 of")
    page.keyboard.press("End")
    expect(page.get_by_test_id("review-next")).to_be_disabled()
    page.keyboard.press("Home")
    expect(page.get_by_test_id("review-position")).to_contain_text("Trick 1 of")
    assert dialog.bounding_box()["height"] == height, "the dialog keeps its height from trick to trick"
    if page.get_by_test_id("review-cost-about").count():
        page.get_by_test_id("review-cost-about").locator("summary").click()
        expect(page.get_by_test_id("review-cost-about")).to_contain_text("can be larger than the deal's score")


# ---------------------------------------------------------------------- bug 14: plurals and locales

def test_bug14_dates_in_the_browsers_locale_and_meld_names_of_the_deck(server: Server, browser: Browser) -> None:
    page = open_page(browser, locale="en-GB", reduced_motion="reduce")
    try:
        made = post(server, "api/games", {"seats": ["me", "easy", "easy"], "name": "Anna", "seed": 3})
        goto(page, server.url)
        page.evaluate("([id, token]) => localStorage.setItem('binokel.seats', "
                      "JSON.stringify({[id]: {token, seat: 0}}))", [made["id"], made["token"]])
        goto(page, server.url)
        item = page.get_by_test_id("resume-list").locator("li").first
        expect(item).to_be_visible()
        # en-GB: day first and a 24-hour clock, not the US "12/2/26, 11:30 AM".
        today = page.evaluate("new Intl.DateTimeFormat('en-GB', {dateStyle: 'short'}).format(new Date())")
        expect(item).to_contain_text(today)
        assert not any(mark in item.inner_text() for mark in ("AM", "PM")), item.inner_text()
        names = page.evaluate("""async () => { const i18n = await import('/static/js/i18n.js');
            return [i18n.meldName('four_obers', 'french'), i18n.meldName('four_obers', 'german'),
                    i18n.meldName('eight_unters', 'french'), i18n.t('cards_in_hand', {n: 1}),
                    i18n.t('cards_in_hand', {n: 1000})]; }""")
        assert names == ["Four queens", "Four obers", "Eight jacks", "1 card in hand", "1,000 cards in hand"], names
        page.get_by_test_id("language-select").select_option("fr")
        expect(page.get_by_test_id("stats-line")).to_contain_text("0 partie terminée")  # French: 0 is singular
        names = page.evaluate("""async () => { const i18n = await import('/static/js/i18n.js');
            return [i18n.meldName('four_obers', 'french'), i18n.meldName('four_unters', 'german')]; }""")
        assert names == ["Carré de dames", "Carré d'unters"], names
    finally:
        page.context.close()
