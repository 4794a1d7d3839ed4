"""Browser tests of accessibility and delivery parts: a spectator reviews a finished deal
once, the live region speaks a whole trick, axe-core finds nothing, plurals and dates follow
the language, and the page arrives compressed and small.

Games are seeded; the computer thinks for 0 s.
"""

from __future__ import annotations

import re

import pytest
from browser_support import (MY_TURN, Browser, Page, Server, act, axe_or_skip, deal_over, expect, goto, my_turn,
                             open_page, play_until, violations)


# ---------------------------------------------------------------------- a spectator's review

def test_a_spectator_reviews_a_finished_deal_once(server: Server, page: Page) -> None:
    made = server.post("api/games", {"seats": ["hard", "hard", "hard"], "seed": 4})
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
    # The bidding, the Tapp, laying away and trump are reviewed too (the soloist's, for a spectator).
    page.get_by_test_id("review-decisions").locator("summary").click()
    decisions = page.get_by_test_id("review-decision")
    assert decisions.count() >= 1
    expect(decisions.first).to_contain_text(re.compile(r"^Bidding: \w+ chose (Bid \d+|Pass); the strong computer"))
    # The review: a clickable timeline, arrow keys, a dialog that keeps its height,
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


# ---------------------------------------------------------------------- plurals and locales

def test_dates_in_the_browsers_locale_and_meld_names_of_the_deck(server: Server, browser: Browser) -> None:
    page = open_page(browser, locale="en-GB", reduced_motion="reduce")
    try:
        made = server.post("api/games", {"seats": ["me", "easy", "easy"], "name": "Anna", "seed": 3})
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


# ---------------------------------------------------------------------- a game that speaks

def lines(page: Page) -> list[str]:
    return page.get_by_test_id("announcer").locator("p").all_inner_texts()


def test_the_live_region_speaks_a_whole_trick_once(server: Server, page: Page) -> None:
    made = server.post("api/games", {"seats": ["me", "medium", "medium"], "name": "Anna", "seed": 5})
    goto(page, server.url)
    page.evaluate("([id, token]) => localStorage.setItem('binokel.seats', "
                  "JSON.stringify({[id]: {token, seat: 0}}))", [made["id"], made["token"]])
    goto(page, f"{server.url}#/game/{made['id']}")
    region = page.get_by_test_id("announcer")
    assert region.get_attribute("aria-live") == "polite" and region.get_attribute("role") == "log"
    assert page.get_by_test_id("status").get_attribute("aria-live") is None, "one live region: said once"
    # The auction: our bid and the others' calls, then who won it and the trump named.
    play_until(page, lambda p, seen: my_turn(p, "play") and p.locator("#trick .card").count() == 0)
    # Read once the table is drawn: straight after the address changes the seats may not be yet.
    names = page.evaluate("() => [...document.querySelectorAll('.seat .name')].map(e => e.textContent)")
    said = " ".join(lines(page))
    assert "You bid 150." in said, said
    assert re.search(r"(Karle|Frieda|Anna|\w+) passes\.", said), said
    assert "You win the auction at" in said and "You name trump: hearts." in said, said
    assert "The Tapp: " in said and "Your turn." in said, said
    # A whole trick: our card, the two others' cards with their players, the winner and points.
    before = len(lines(page))
    card = page.locator("#hand.active .card.legal").first
    name = card.locator(".card-name").inner_text()
    act(page, {})
    expect(region).to_contain_text(re.compile(r"wins? the trick, \d+ points\."), timeout=20_000)
    page.wait_for_timeout(500)
    trick = " ".join(lines(page)[before:])
    assert trick.startswith(f"You: {name}."), trick
    plays = [(who, what) for who, what in re.findall(r"(\w+): ([\w ]+ of \w+)\.", trick) if who != "You"]
    assert len(plays) == 2 and {who for who, _ in plays} <= set(names) - {"Anna"}, (trick, names)
    assert len(re.findall(r"the trick", trick)) == 1, f"the trick is said once: {trick}"
    # The trick area is a list of "player: card".
    listed = page.locator("#trick[role=list] [role=listitem]").all_inner_texts()
    assert all(": " in item for item in listed), listed
    # Cleared, it is no list and carries no list's label (axe: aria-prohibited-attr).
    cleared = page.wait_for_function("""() => { const t = document.getElementById('trick');
        return t.children.length === 0 && {role: t.getAttribute('role'), label: t.getAttribute('aria-label')}; }""")
    assert cleared.json_value() == {"role": None, "label": None}, cleared.json_value()


# ---------------------------------------------------------------------- axe-core: 0 violations

@pytest.mark.parametrize("size", [(1280, 800), (390, 844)], ids=["desktop", "phone"])
def test_axe_finds_no_violation_anywhere(server: Server, browser: Browser, size: tuple[int, int]) -> None:
    axe_or_skip()
    page = open_page(browser, *size, reduced_motion="reduce")
    found: list[str] = []
    try:
        goto(page, server.url)
        found += violations(page, "start page")
        page.get_by_test_id("settings-button").click()
        expect(page.get_by_test_id("settings-dialog")).to_be_visible()
        found += violations(page, "settings")
        page.keyboard.press("Escape")
        page.get_by_test_id("stats-button").click()
        expect(page.get_by_test_id("stats-dialog")).to_be_visible()
        found += violations(page, "statistics")
        page.keyboard.press("Escape")
        made = server.post("api/games", {"seats": ["me", "hard", "hard"], "name": "Anna", "seed": 5})
        page.evaluate("([id, token]) => localStorage.setItem('binokel.seats', "
                      "JSON.stringify({[id]: {token, seat: 0}}))", [made["id"], made["token"]])
        goto(page, f"{server.url}#/game/{made['id']}")
        page.wait_for_selector(MY_TURN + "[data-phase=auction]")
        found += violations(page, "table mid-auction")
        play_until(page, lambda p, seen: my_turn(p, "play") and p.locator("#trick .card").count() > 0)
        found += violations(page, "table mid-play")
        play_until(page, deal_over)
        expect(page.get_by_test_id("explain")).to_be_visible(timeout=60_000)
        found += violations(page, "result dialog")
        page.get_by_test_id("review-button").click()
        expect(page.get_by_test_id("review-position")).to_be_visible(timeout=60_000)
        found += violations(page, "review")
    finally:
        page.context.close()
    assert not found, "axe-core violations:\n" + "\n".join(found)


# ---------------------------------------------------------------------- delivery

COLD_LOAD_BYTES = 120_000


def test_cold_first_load_is_small_and_a_second_visit_opens_offline(server: Server, browser: Browser) -> None:
    page = open_page(browser, reduced_motion="reduce")
    try:
        goto(page, server.url)
        page.wait_for_load_state("networkidle")
        sent = page.evaluate("""() => [...performance.getEntriesByType("navigation"),
                                        ...performance.getEntriesByType("resource")]
            .map((e) => ({ name: e.name, bytes: e.transferSize,
                           encoded: e.encodedBodySize, decoded: e.decodedBodySize }))""")
        total = sum(entry["bytes"] for entry in sent)
        print(f"cold first load: {total} bytes transferred over {len(sent)} requests "
              f"({sum(e['decoded'] for e in sent)} bytes unpacked)")
        assert total <= COLD_LOAD_BYTES, sorted(sent, key=lambda e: -e["bytes"])[:8]
        scripts = [e for e in sent if e["name"].endswith(".js")]
        assert scripts and all(e["encoded"] < e["decoded"] for e in scripts if e["decoded"] > 2000), "sent compressed"
        # The service worker holds the whole shell: with the server gone, a second visit
        # still opens the page (in its language) and says that the server is away.
        page.evaluate("navigator.serviceWorker.ready")
        page.wait_for_function("navigator.serviceWorker.controller !== null")
        page.wait_for_function("""async () => { const keys = await caches.keys();
            const cache = await caches.open(keys.find((k) => k.startsWith("binokel-shell-")));
            return Boolean(await cache.match("/static/js/announce.js")) &&
                Boolean(await cache.match("/i18n/en.json")); }""")
        server.stop()
        goto(page, server.url)
        expect(page.get_by_test_id("offline")).to_be_visible()
        expect(page.get_by_test_id("start-game")).to_have_text("Deal the cards")
    finally:
        page.context.close()
