"""Browser tests of the table's details: marks, tooltips, hints, the bidding help, the result explained,
settings, statistics, the keyboard, the phone, and the bugs a newcomer hit.

Games are seeded and the computer opponents think for 0 s; animations are shortened with
``reduced_motion``.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from browser_support import (MY_TURN, SCREENSHOTS, Browser, Page, Server, checked_page, deal_over, expect, goto,
                             my_turn, new_game, open_page, play_until, surrender, screenshots_only)

if TYPE_CHECKING:
    from playwright.sync_api import Request

# ---------------------------------------------------------------------- the bugs a newcomer hit

def test_tapp_marker_visible_and_trump_marked(server: Server, page: Page) -> None:
    new_game(server, page, name="Anna", seed=5)
    play_until(page, lambda p, seen: my_turn(p, "discard"))
    assert my_turn(page, "discard"), "we never pass, so we get the Tapp"
    page.mouse.move(0, 0)  # a hovered card is lifted over its neighbours
    marks = page.locator("#hand .card .tapp-mark")
    assert marks.count() >= 1, "the cards from the Tapp carry a marker"
    # Each marker is on the visible part of its card: nothing lies over its middle.
    covered = marks.evaluate_all("""marks => marks.filter(m => {
        const r = m.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return !hit || hit.closest('.card') !== m.closest('.card'); }).map(m => {
            const r = m.getBoundingClientRect();
            const h = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return m.closest(".card").dataset.card + " under " + (h ? h.outerHTML.slice(0, 120) : "nothing") +
                " at " + JSON.stringify(r); })""")
    assert not covered, f"Tapp markers hidden under other cards: {covered}"
    play_until(page, lambda p, seen: my_turn(p, "play"))
    marker = page.get_by_test_id("trump-marker")
    expect(marker).to_be_visible()
    expect(marker).to_contain_text("hearts")  # act() names hearts
    trumps = page.locator("#hand .card[data-card$=H]")
    assert trumps.count() == page.locator("#hand .card.trump").count() > 0


def test_no_hover_style_after_a_click_or_on_touch(server: Server, page: Page) -> None:
    goto(page, server.url)
    page.get_by_test_id("rules-button").click()
    page.get_by_test_id("tab-rules").click()
    page.mouse.move(0, 0)
    style = "el => getComputedStyle(el).backgroundColor"
    selected = page.get_by_test_id("tab-rules").evaluate(style)
    page.get_by_test_id("tab-glossary").click()  # the mouse stays on it
    assert page.get_by_test_id("tab-glossary").evaluate(style) == selected, "the chosen tab looks chosen, not hovered"
    # Hover styles only where there is a real hover (a mouse), never stuck after a tap.
    loose = page.evaluate("""() => {
        const out = [];
        const walk = (rules, media) => { for (const r of rules) {
            if (r.cssRules && r.conditionText !== undefined)
                walk(r.cssRules, media || /hover:\\s*hover/.test(r.conditionText));
            else if (r.selectorText && r.selectorText.includes(':hover') && !media) out.push(r.selectorText); } };
        for (const sheet of document.styleSheets) walk(sheet.cssRules, false);
        return out; }""")
    assert not loose, f"hover rules outside @media (hover: hover): {loose}"


def test_why_not_tooltip_stays_on_screen(server: Server, browser: Browser) -> None:
    page = open_page(browser, 360, 640, reduced_motion="reduce")
    new_game(server, page, name="Anna", seed=5)
    play_until(page, lambda p, seen: my_turn(p, "play") and p.locator("#hand .card.illegal").count() > 0)
    assert page.locator("#hand .card.illegal").count(), "a turn with cards that may not be played"
    for card in [page.locator("#hand .card.illegal").first, page.locator("#hand .card.illegal").last]:
        card.hover(position={"x": 6, "y": 24}, force=True)  # the visible strip of an overlapped card
        tip = page.get_by_test_id("why-tip")
        expect(tip).to_be_visible()
        expect(tip).to_have_text(card.get_attribute("data-why"))
        box = tip.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 360, f"the tooltip leaves the screen: {box}"
    page.context.close()


def test_one_minus_sign(server: Server, page: Page) -> None:
    new_game(server, page, name="Anna", seed=5)
    seen = play_until(page, surrender)
    assert seen.get("surrendered"), seen
    page.get_by_test_id("result-sheet").click()
    sheet = page.get_by_test_id("score-sheet").inner_text()
    assert "−" in sheet
    assert not re.search(r"-\d", sheet), f"a hyphen as minus sign: {sheet!r}"
    page.keyboard.press("Escape")
    for text in [page.get_by_test_id("result-dialog").inner_text(), page.get_by_test_id("scoreboard").inner_text(),
                 page.get_by_test_id("log").inner_text()]:
        assert not re.search(r"-\d", text), text


def test_a_card_clicked_out_of_turn_says_why(server: Server, page: Page) -> None:
    new_game(server, page, name="Anna", seed=5)
    page.wait_for_selector(MY_TURN + "[data-phase=auction]")
    page.locator("#hand .card").first.click(position={"x": 8, "y": 30}, force=True)  # aria-disabled, yet clickable
    expect(page.get_by_test_id("toast")).to_have_class(re.compile(r"\bshow\b"))
    expect(page.get_by_test_id("toast")).to_contain_text("auction")


def test_hint_toast_goes_with_its_phase(server: Server, page: Page) -> None:
    new_game(server, page, name="Anna", seed=5)
    page.wait_for_selector(MY_TURN + "[data-phase=auction]")
    page.get_by_test_id("hint-button").click()
    toast = page.get_by_test_id("toast")
    expect(toast).to_have_class(re.compile(r"\bshow\b"))
    expect(toast).to_contain_text("Suggestion")
    version = page.get_by_test_id("table").get_attribute("data-version")
    page.get_by_test_id("action-bid").click()
    page.wait_for_function(f"() => document.querySelector('[data-testid=table]').dataset.version !== '{version}'")
    expect(toast).not_to_have_class(re.compile(r"\bshow\b"), timeout=1200)


def test_meld_panel_stays_through_the_first_trick(server: Server, animated_page: Page) -> None:
    # With the animations on: off, a trick the bots complete at once leaves the table before
    # the page can see a card in it (the test then waited in vain under load).
    page = animated_page
    new_game(server, page, name="Anna", seed=5)
    play_until(page, lambda p, seen: my_turn(p, "play"))
    assert my_turn(page, "play")
    reveal = page.get_by_test_id("meld-reveal")
    expect(reveal).to_be_visible()
    page.locator("#hand.active .card.legal").first.click()
    page.wait_for_selector("#trick .card")
    expect(reveal).to_be_visible()
    page.get_by_test_id("meld-reveal-close").click()
    expect(reveal).to_be_hidden()


def test_open_auction_status(server: Server, page: Page) -> None:
    new_game(server, page, rules="club", name="Anna", seed=12)
    checked = 0
    for _ in range(6):
        page.wait_for_selector(f"{MY_TURN}, #result-dialog[open]")
        if not my_turn(page, "auction"):
            break
        status = page.get_by_test_id("status").inner_text()
        lowest = page.get_by_test_id("bid-select").locator("option").first.get_attribute("value")
        assert re.search(rf"{lowest}\b.*or more", status), status
        assert not re.search(r"bid:\s*$", status, re.MULTILINE), f"a highest bid without a number: {status!r}"
        calls = page.locator("#felt .bubble:not(.passed)").count()
        if not calls:
            assert "No bid yet" in status or "open" in status.lower(), status
        checked += 1
        page.get_by_test_id("action-bid").click()
        page.wait_for_function("() => document.querySelector('[data-testid=table]').dataset.turn !== 'sent'")
    assert checked


def test_resume_list_shows_options_opponents_and_turn(server: Server, page: Page) -> None:
    goto(page, server.url)
    page.locator("#more-options-box summary").click()
    page.get_by_test_id("option-target").fill("1000")
    expect(page.get_by_test_id("rules-text")).to_have_text("standard(target=1000)")
    page.get_by_test_id("level-1").select_option("hard")
    page.get_by_test_id("start-game").click()
    expect(page.locator("#hand .card").first).to_be_visible()
    page.get_by_test_id("home-link").click()
    item = page.get_by_test_id("resume-list").locator("a").first
    expect(item).to_contain_text("1,000")
    expect(item).to_contain_text("Target")
    expect(item).to_contain_text("Karle")
    expect(item).to_contain_text("hard")
    expect(item).to_contain_text(re.compile(r"turn|to move", re.IGNORECASE))  # "Your turn" or "Karle to move"


def test_kreuz_team_score_counted_once(server: Server, page: Page) -> None:
    new_game(server, page, rules="kreuz", name="Anna", seed=4)
    play_until(page, deal_over)
    rows = page.locator("#result .result-table tbody tr")
    expect(rows).to_have_count(2)  # one row per team, not per player
    for row in range(2):
        expect(rows.nth(row).locator("th")).to_contain_text(" + ")  # named by both partners
    scores = page.locator("#result [data-testid^=deal-score-]").all_inner_texts()
    assert len(scores) == 2 and all(re.fullmatch(r"[+−]?[\d,]+", s) for s in scores), scores


def test_numbers_have_units(server: Server, page: Page) -> None:
    new_game(server, page, name="Anna", seed=5)
    play_until(page, deal_over)
    line = page.locator("#log li.important").first.inner_text()
    scores = re.findall(r"[+−]\d[\d,]*(?:\s*\w+)?", line)
    assert len(scores) == 3, line
    for score in scores:
        assert re.search(r"\d\s*(points|pts)$", score), f"a score without its unit in {line!r}"
    expect(page.locator("#result .result-table thead")).to_contain_text("points")


def test_no_console_errors_in_normal_play(server: Server, page: Page) -> None:
    messages: list[str] = []
    page.on("console", lambda m: messages.append(m.text) if m.type == "error" else None)
    goto(page, server.url)
    page.get_by_test_id("rule-set").select_option("kreuz")
    page.locator("#more-options-box summary").click()
    page.get_by_test_id("option-players").select_option("6")
    expect(page.get_by_test_id("rules-error")).not_to_be_empty()
    page.get_by_test_id("option-players").select_option("")
    page.get_by_test_id("rule-set").select_option("standard")
    page.get_by_test_id("start-game").click()
    play_until(page, lambda p, seen: seen.get("cards", 0) >= 2)
    assert not messages, messages


@pytest.fixture
def page_without_worker(browser: Browser) -> Iterator[Page]:
    """A page whose requests are routed and counted without the shell's service worker: Playwright's
    docs say routing does not see what a worker handles and ask to block workers when routing, and
    whether the worker has taken the page by the time it starts a game is a race. (One CI run under
    load saw no POST at all while the game started; not reproduced, this is the one race we found.)"""
    yield from checked_page(browser, reduced_motion="reduce", service_workers="block")


def test_start_right_after_changing_the_rules_on_a_slow_line(server: Server, page_without_worker: Page) -> None:
    """Changing the rule set and tapping "Deal" at once, while the rules checks are slow: the
    start takes its seats from its own check, not from the rule set before (a 4-seat kreuz
    table was sent as "standard", and the server refused it; a CI run caught it under load)."""
    page = page_without_worker
    posted: list[str] = []
    def count(request: Request) -> None:
        if request.method == "POST" and request.url.endswith("/api/games"):
            posted.append(request.post_data or "")
    page.context.on("request", count)
    goto(page, server.url)
    page.get_by_test_id("rule-set").select_option("kreuz")
    page.locator("#more-options-box summary").click()
    page.get_by_test_id("option-players").select_option("6")
    expect(page.get_by_test_id("rules-error")).not_to_be_empty()
    page.route("**/api/rules/check*", lambda route: (time.sleep(0.3), route.continue_()))
    # One task, as a quick thumb on a busy phone: the check of the option's change is still
    # waiting for its timer when the start asks.
    page.evaluate("""() => {
        const players = document.querySelector('[data-testid=option-players]');
        players.value = ''; players.dispatchEvent(new Event('change', {bubbles: true}));
        const set = document.querySelector('[data-testid=rule-set]');
        set.value = 'standard'; set.dispatchEvent(new Event('change', {bubbles: true}));
        document.querySelector('[data-testid=start-game]').click();
    }""")
    expect(page.locator("#hand .card").first).to_be_visible()
    expect(page.get_by_test_id("new-game-error")).to_be_empty()
    assert len(posted) == 1 and json.loads(posted[0])["seats"] == ["me", "medium", "medium"], posted


@pytest.mark.parametrize("width", [768, 1024, 1280])
def test_start_page_without_gaps(server: Server, browser: Browser, width: int) -> None:
    page = open_page(browser, width, 900)
    goto(page, server.url)
    gaps = page.evaluate("""() => {
        const out = [];
        for (const box of document.querySelectorAll('#start-view .panel')) {
            const kids = [...box.children].filter(k => k.getBoundingClientRect().height > 0);
            for (let i = 1; i < kids.length; i++) {
                const gap = kids[i].getBoundingClientRect().top - kids[i - 1].getBoundingClientRect().bottom;
                if (gap > 28) out.push(`${kids[i - 1].id || kids[i - 1].tagName} → ` +
                                       `${kids[i].id || kids[i].tagName}: ${Math.round(gap)}`);
            }
            if (box.closest('.start-side')) continue;
        }
        for (const p of document.querySelectorAll('#start-view .error:empty'))
            if (p.getBoundingClientRect().height > 0) out.push(`empty ${p.id}`);
        return out; }""")
    assert not gaps, gaps
    # The two columns end level (no empty area under the shorter one).
    if width >= 900:
        bottoms = page.locator("#start-view > *").evaluate_all("els => els.map(e => e.getBoundingClientRect().bottom)")
        assert max(bottoms) - min(bottoms) < 40, bottoms
    page.context.close()


# ---------------------------------------------------------------------- explain, review

def test_bidding_help_in_the_auction(server: Server, page: Page) -> None:
    new_game(server, page, name="Anna", seed=5)
    page.wait_for_selector(MY_TURN + "[data-phase=auction]")
    help_ = page.get_by_test_id("bid-help")
    expect(help_).to_be_visible()
    expect(page.get_by_test_id("advice-certain")).to_contain_text(re.compile(r"Certain: \d+ points"))
    expect(page.get_by_test_id("advice-safe")).to_contain_text(re.compile(r"Safe bid: [\d,]+–[\d,]+"))
    expect(page.get_by_test_id("advice-limit")).to_contain_text("strong computer")
    play_until(page, lambda p, seen: not my_turn(p, "auction") and my_turn(p))
    expect(help_).to_be_hidden()


def test_result_explains_every_number_and_the_review_shows_the_bots_alternative(server: Server, page: Page,
                                                                               tmp_path: Path) -> None:
    game = new_game(server, page, name="Anna", seed=5)
    play_until(page, deal_over)
    explain = page.get_by_test_id("explain")
    expect(explain).to_be_visible(timeout=30_000)  # the server reviews the deal first, on a busy machine too
    expect(page.get_by_test_id("explain-unit")).to_have_count(3)
    expect(explain).to_contain_text("last trick +10")
    expect(page.get_by_test_id("explain-tapp")).to_be_visible()  # the Tapp, shown to everyone after the deal
    expect(page.get_by_test_id("explain-discarded")).to_be_visible()
    page.get_by_test_id("review-button").click()
    review = page.get_by_test_id("review-dialog")
    expect(review).to_be_visible()
    expect(page.get_by_test_id("review-position")).to_have_text("Trick 1 of 15")
    expect(page.get_by_test_id("review-summary")).to_contain_text("of your 15 cards")
    differ = 0
    for trick in range(15):
        if page.locator("[data-testid=review-note].differ").count():
            expect(page.get_by_test_id("review-note")).to_contain_text(
                re.compile(r"would have played the .+: \+[\d.]+ points on average"))
            differ += 1
        if trick < 14:
            page.get_by_test_id("review-next").click()
            expect(page.get_by_test_id("review-position")).to_have_text(f"Trick {trick + 2} of 15")
    assert differ, "playing the first legal card always, the strong computer disagrees somewhere"
    assert page.locator(".review-hands .review-seat").count() == 3  # every hand open
    page.keyboard.press("Escape")
    # The same deal from the record file, uploaded on the start page.
    record = tmp_path / "game.json"
    with urllib.request.urlopen(f"{server.url}api/games/{game}/record", timeout=10) as response:
        record.write_bytes(response.read())
    goto(page, server.url)
    page.get_by_test_id("review-upload").set_input_files(str(record))
    expect(page.get_by_test_id("review-position")).to_have_text("Trick 1 of 15")
    expect(page.get_by_test_id("review-summary")).to_contain_text("of your 15 cards")


# ---------------------------------------------------------------------- settings, sound

def test_settings_persist_and_take_effect(server: Server, page: Page) -> None:
    goto(page, server.url)
    page.get_by_test_id("settings-button").click()
    page.get_by_test_id("setting-speed").select_option("off")
    page.get_by_test_id("setting-botPause").select_option("short")
    page.get_by_test_id("setting-cardSize").select_option("large")
    page.get_by_test_id("setting-sound").check()
    page.get_by_test_id("setting-confirmSurrender").uncheck()
    page.get_by_test_id("setting-leftHanded").check()
    page.keyboard.press("Escape")
    page.reload()
    page.wait_for_selector("html[data-ready=true]", state="attached")
    body = page.locator("body")
    expect(body).to_have_attribute("data-speed", "off")
    expect(body).to_have_attribute("data-card-size", "large")
    expect(body).to_have_class(re.compile(r"\bleft-handed\b"))
    page.get_by_test_id("settings-button").click()
    expect(page.get_by_test_id("setting-botPause")).to_have_value("short")
    expect(page.get_by_test_id("setting-sound")).to_be_checked()
    expect(page.get_by_test_id("setting-confirmSurrender")).not_to_be_checked()
    page.keyboard.press("Escape")
    # In a game: sounds are played, and surrendering asks nothing.
    new_game(server, page, name="Anna", seed=5)
    play_until(page, lambda p, seen: p.get_by_test_id("action-surrender").count() > 0)
    page.get_by_test_id("action-surrender").click()
    expect(page.get_by_test_id("confirm-dialog")).to_be_hidden()
    page.wait_for_selector("#result-dialog[open]")
    expect(page.get_by_test_id("result-title")).to_contain_text("surrendered")
    assert int(page.locator("body").get_attribute("data-sounds") or 0) > 0


def test_sound_is_off_by_default(server: Server, page: Page) -> None:
    new_game(server, page, name="Anna", seed=5)
    play_until(page, lambda p, seen: seen.get("cards", 0) >= 2)
    assert page.locator("body").get_attribute("data-sounds") is None


# ---------------------------------------------------------------------- keyboard

def test_keyboard_only_whole_deal(server: Server, page: Page) -> None:
    new_game(server, page, name="Anna", seed=5)
    page.keyboard.press("?")
    expect(page.get_by_test_id("keys-dialog")).to_be_visible()
    expect(page.get_by_test_id("keys-dialog")).to_contain_text("Enter")
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("keys-dialog")).to_be_hidden()
    active = "() => { const a = document.activeElement; return a ? (a.className + ' ' + (a.dataset.card || '')) : ''; }"
    seen: set[str] = set()
    tab_checked = False
    for _ in range(80):
        page.wait_for_selector(f"{MY_TURN}, #result-dialog[open]")
        if deal_over(page, {}):
            break
        phase = page.get_by_test_id("table").get_attribute("data-phase")
        version = page.get_by_test_id("table").get_attribute("data-version")
        seen.add(phase or "")
        if phase == "auction":
            page.keyboard.press("b")
        elif phase == "discard":
            need = int(re.search(r"\d+", page.get_by_test_id("discard-info").inner_text()).group())
            page.keyboard.press("k")
            page.keyboard.press("End")
            for _ in range(need):
                page.keyboard.press("Enter")
                page.keyboard.press("ArrowLeft")
            expect(page.locator("#hand .card.selected")).to_have_count(need)
            page.keyboard.press("d")
        elif phase in ("game", "surrender", "tapp"):
            page.keyboard.press("c")
            page.keyboard.press("Enter")
        elif phase == "play":
            page.keyboard.press("k")
            assert "card" in page.evaluate(active)
            if not tab_checked:  # the hand is one tab stop: Tab leaves it
                page.keyboard.press("Tab")
                assert "card" not in page.evaluate(active).split(" ")
                page.keyboard.press("k")
                tab_checked = True
            page.keyboard.press("Home")
            for _ in range(20):
                if " legal" in " " + page.evaluate(active):
                    break
                page.keyboard.press("ArrowRight")
            page.keyboard.press("Enter")
        page.wait_for_function(f"() => document.querySelector('[data-testid=table]').dataset.version !== '{version}'"
                               " || document.querySelector('#result-dialog[open]')")
    assert deal_over(page, {}), "the deal was played to its end with the keyboard alone"
    assert {"auction", "discard", "game", "play"} <= seen, seen
    expect(page.get_by_test_id("result-title")).not_to_be_empty()
    page.keyboard.press("n")
    expect(page.get_by_test_id("deal-number")).to_contain_text("Deal 2")


# ---------------------------------------------------------------------- phone

def fits(page: Page) -> list[str]:
    """What leaves a 360 × 640 screen: the page scrolls, or a card or control is off screen."""
    return page.evaluate("""() => {
        const out = [];
        const h = innerHeight, w = innerWidth;
        if (document.documentElement.scrollHeight > h + 1)
            out.push(`page ${document.documentElement.scrollHeight}px tall`);
        if (document.documentElement.scrollWidth > w + 1)
            out.push(`page ${document.documentElement.scrollWidth}px wide`);
        for (const el of document.querySelectorAll('#hand .card, #controls button, #controls select, #status')) {
            const r = el.getBoundingClientRect();
            if (r.bottom > h + 1 || r.top < 0 || r.right > w + 1 || r.left < -1)
                out.push(`${el.dataset.testid || el.id} at ${Math.round(r.left)},${Math.round(r.top)}`);
        }
        return out; }""")


def test_phone_360x640_fits_without_scrolling(server: Server, browser: Browser) -> None:
    page = open_page(browser, 360, 640, has_touch=True, is_mobile=True, reduced_motion="reduce")
    new_game(server, page, name="Anna", seed=5)
    page.wait_for_selector(MY_TURN + "[data-phase=auction]")
    page.wait_for_selector("[data-testid=advice-certain]", state="attached")  # the bidding help is in
    expect(page.get_by_test_id("tutorial-offer")).to_be_visible()
    assert not fits(page), fits(page)
    # A toast never covers the cards.
    page.locator("#hand .card").first.click(position={"x": 5, "y": 30}, force=True)
    expect(page.get_by_test_id("toast")).to_have_class(re.compile(r"\bshow\b"))
    page.wait_for_timeout(300)  # the toast's slide-in
    toast = page.get_by_test_id("toast").bounding_box()
    hand_box = page.get_by_test_id("hand").bounding_box()
    assert toast and hand_box and toast["y"] + toast["height"] <= hand_box["y"], (toast, hand_box)
    checked = set()
    for phase in ("discard", "game", "play"):
        play_until(page, lambda p, seen, phase=phase: my_turn(p, phase))
        if my_turn(page, phase):
            assert not fits(page), (phase, fits(page))
            checked.add(phase)
    assert "play" in checked, checked
    page.context.close()


# ---------------------------------------------------------------------- history and statistics

def test_statistics_count_a_finished_game(server: Server, page: Page) -> None:
    goto(page, server.url)
    expect(page.get_by_test_id("stats-line")).to_contain_text("0 games finished")
    new_game(server, page, rules="standard(target=100)", name="Anna", seed=5)
    play_until(page, deal_over)
    expect(page.get_by_test_id("game-winner")).to_be_visible()  # a target of 100: one deal ends the game
    goto(page, server.url)
    expect(page.get_by_test_id("stats-line")).to_contain_text(
        re.compile(r"1 game finished, [01] won, 1 deal in this browser"))
    page.get_by_test_id("stats-button").click()
    expect(page.get_by_test_id("stats-played")).to_have_text("1")
    expect(page.get_by_test_id("stats-group")).to_have_count(1)
    expect(page.get_by_test_id("stats-soloist")).to_contain_text("of 1")  # we never pass: we were the soloist
    expect(page.get_by_test_id("stats-average-bid")).to_have_text(re.compile(r"^\d[\d,]*$"))
    expect(page.get_by_test_id("stats-game")).to_have_count(1)
    page.get_by_test_id("stats-sheet").click()
    expect(page.locator("#stats-dialog [data-testid=sheet-row]")).to_have_count(1)
    page.get_by_test_id("stats-review").first.click()
    # The strong computer thinks, on a busy machine too.
    expect(page.get_by_test_id("review-position")).to_have_text("Trick 1 of 15", timeout=30_000)


# ---------------------------------------------------------------------- tutorial

def test_tutorial_offered_once_and_opened_from_the_table(server: Server, page: Page) -> None:
    """Offered once at a first game; "No thanks" is kept; the table's Tutorial button opens it
    at its own table (the walk through itself: test_browser_tutorial.py)."""
    game = new_game(server, page, name="Anna", seed=5)
    expect(page.get_by_test_id("tutorial-offer")).to_be_visible()
    page.get_by_test_id("tutorial-no").click()
    expect(page.get_by_test_id("tutorial-offer")).to_be_hidden()
    page.reload()
    page.wait_for_selector("#hand .card")
    expect(page.get_by_test_id("tutorial-offer")).to_have_count(0)  # answered once: not offered again
    expect(page.get_by_test_id("coach")).to_have_count(0)
    page.get_by_test_id("tutorial-button-table").click()
    expect(page.get_by_test_id("coach")).to_have_attribute("data-step", "welcome")
    assert game not in page.url  # a table of its own, the game before stays in "Your games"
    expect(page.get_by_test_id("tutorial-button-table")).to_have_text("Resume the tutorial")


def test_level_descriptions_on_the_start_page(server: Server, page: Page) -> None:
    goto(page, server.url)
    levels = page.get_by_test_id("levels-about")
    for word in ("easy", "medium", "hard"):
        expect(levels.locator("dt", has_text=word)).to_have_count(1)
    expect(levels).to_contain_text("never surrenders")
    page.get_by_test_id("language-select").select_option("de")
    expect(levels).to_contain_text("gibt nie auf")


# ---------------------------------------------------------------------- installable, offline

def test_installable_and_says_when_the_server_is_away(server: Server, page: Page) -> None:
    goto(page, server.url)
    manifest = page.evaluate("async () => (await fetch(document.querySelector('link[rel=manifest]').href)).json()")
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        assert page.evaluate("async (src) => (await fetch(src)).ok", icon["src"]), icon
    # The service worker takes the page; then its files are kept.
    page.evaluate("async () => { await navigator.serviceWorker.ready; }")
    page.reload()
    page.wait_for_selector("html[data-ready=true]", state="attached")
    assert page.evaluate("() => Boolean(navigator.serviceWorker.controller)")
    page.wait_for_function("async () => (await (await caches.open('binokel-static-v1')).keys()).length >= 6")
    expect(page.get_by_test_id("offline")).to_be_hidden()
    server.stop()
    page.reload()
    expect(page.get_by_test_id("offline")).to_be_visible()
    expect(page.get_by_test_id("offline")).to_contain_text("cannot be reached")
    expect(page.get_by_test_id("start-game")).to_be_visible()  # the page itself came from the kept files
    server.start()
    page.wait_for_selector("html[data-ready=true]:not([data-offline])", state="attached", timeout=15_000)
    expect(page.get_by_test_id("offline")).to_be_hidden()


# ---------------------------------------------------------------------- table feel

def test_deal_animation_marks_and_celebration(server: Server, animated_page: Page) -> None:
    page = animated_page
    new_game(server, page, rules="standard(target=100)", name="Anna", seed=5)
    page.wait_for_selector("#hand.dealing", state="attached", timeout=5000)  # the cards are dealt in
    play_until(page, lambda p, seen: my_turn(p, "play"))
    expect(page.get_by_test_id("trump-marker")).to_contain_text("Anna")  # trump and soloist, always
    expect(page.locator("#felt .seat.is-soloist, .me .seat.is-soloist")).to_have_count(1)
    play_until(page, deal_over)
    expect(page.get_by_test_id("game-winner")).to_contain_text("You win")
    page.wait_for_selector("[data-testid=celebration]", state="attached", timeout=5000)


# ---------------------------------------------------------------------- screenshots (only when asked)

@screenshots_only
def test_screenshots_details(server: Server, browser: Browser) -> None:
    page = open_page(browser, 1280, 800, reduced_motion="reduce")
    # No offer in the pictures:
    page.add_init_script("localStorage.setItem('binokel.tutorial', JSON.stringify({state: 'skipped'}))")
    new_game(server, page, name="Anna", seed=5)
    page.wait_for_selector("[data-testid=advice-certain]")
    page.screenshot(path=str(SCREENSHOTS / "bidding-help.png"))
    play_until(page, deal_over)
    page.wait_for_selector("[data-testid=explain]")
    page.get_by_test_id("result-dialog").screenshot(path=str(SCREENSHOTS / "result-explained.png"))
    page.get_by_test_id("review-button").click()
    for _ in range(3):
        page.get_by_test_id("review-next").click()
    page.screenshot(path=str(SCREENSHOTS / "deal-review.png"))
    page.keyboard.press("Escape")
    page.keyboard.press("Escape")
    goto(page, server.url)
    page.get_by_test_id("stats-button").click()
    page.screenshot(path=str(SCREENSHOTS / "statistics.png"))
    page.context.close()  # the phone's screenshots come from test_browser_table.py


def test_a_game_can_be_deleted_from_the_resume_list(server: Server, page: Page) -> None:
    """The creator deletes a game from "your games" (after confirming): it leaves the list and
    the server forgets it (its record answers 404)."""
    goto(page, server.url)
    page.get_by_test_id("start-game").click()
    expect(page.locator("#hand .card").first).to_be_visible()
    game_id = page.evaluate("() => location.hash.split('/').pop()")
    page.get_by_test_id("home-link").click()
    expect(page.get_by_test_id(f"resume-{game_id}")).to_be_visible()
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_test_id(f"forget-{game_id}").click()
    expect(page.get_by_test_id(f"resume-{game_id}")).to_have_count(0)
    assert page.evaluate("id => JSON.parse(localStorage.getItem('binokel.seats') || '{}')[id] === undefined", game_id)
    status = page.evaluate("async id => (await fetch(`/api/games/${id}/record`)).status", game_id)
    assert status == 404
