"""The score pad's page (web/pad/) in Chromium at 360x640 with touch: the scorekeeper
starts a sheet from the start page, enters a deal by touch, has an impossible entry
refused in words without losing it, corrects an earlier deal, loses the connection,
enters two more (kept on the phone, shown as waiting), comes back online; the live view
in another browser context then shows every deal with the totals the core computes
(:class:`binokel.sheet.Sheet`) from the same summaries."""

from __future__ import annotations

import os
import re
from typing import Any

from browser_support import (AXE, TIMEOUT, Browser, Page, Server, axe_or_skip, expect, goto, keep_screenshot, open_page,
                             shown, reload, violations)

from binokel.sheet import Sheet

RULES = "standard(target=2000)"
PLAYERS = ["Anna", "Ben", "Cleo"]
MADE = {"soloist": 0, "bid": 200, "game": "S", "surrendered": False, "melds": [150, 40, 20],
        "tricks": [4, 6, 5], "card_points": [90, 100, None]}
FAILED = {**MADE, "card_points": [40, 150, None]}
SURRENDER = {"soloist": 1, "bid": 150, "game": "H", "surrendered": True, "melds": [20, 0, 40]}
DURCH = {"soloist": 2, "bid": 160, "game": "durch", "tricks": [0, 0, 15]}
CLUBS = {"soloist": 0, "bid": 150, "game": "C", "surrendered": False, "melds": [100, 0, 0], "tricks": [10, 3, 2],
         "card_points": [170, 50, None]}


def shot(page: Any, name: str) -> None:
    """``BINOKEL_SCREENSHOTS=1``: keep a screenshot for docs/pad.md."""
    if os.environ.get("BINOKEL_SCREENSHOTS"):
        page.evaluate("document.getElementById('status').textContent = ''")  # no passing toast
    keep_screenshot(page, f"pad-{name}", full_page=True)


def covered(page: Page, testids: list[str]) -> list[str]:
    """Of these controls, each brought to the screen's foot, those that something covers
    there (the status line at the foot of the screen covered the form's last buttons)."""
    return page.evaluate("""(ids) => ids.filter((id) => {
        const el = document.querySelector(`[data-testid="${id}"]`);
        el.scrollIntoView({ block: "end" });
        const r = el.getBoundingClientRect();
        return !el.contains(document.elementFromPoint(r.left + r.width / 2, r.bottom - 3)); })""", testids)


def enter(page: Page, deal: dict[str, Any], *, meld_from_list: bool = False) -> None:
    """Enter ``deal`` on the pad by touch: taps for the choices, the numbers typed."""
    page.get_by_test_id(f"pad-soloist-{deal['soloist']}").tap()
    page.get_by_test_id("pad-bid").fill(str(deal["bid"]))
    page.get_by_test_id(f"pad-game-{deal['game']}").tap()
    if deal["game"] == "durch":
        page.get_by_test_id("pad-made" if deal["tricks"][deal["soloist"]] else "pad-lost").tap()
    else:
        page.get_by_test_id("pad-surrendered" if deal["surrendered"] else "pad-played").tap()
        for seat, melds in enumerate(deal["melds"]):
            if meld_from_list and melds == 40:  # the binokel, picked from the meld list
                page.get_by_test_id(f"pad-melds-{seat}").fill("")
                page.get_by_test_id(f"pad-meld-open-{seat}").tap()
                page.get_by_test_id("pad-meld-binokel").tap()
                expect(page.get_by_text(re.compile(r": \+40, melds 40"))).to_be_visible()  # said for 5 s
                assert not covered(page, ["pad-meld-done", "pad-save", "pad-new-entry"])
                page.get_by_test_id("pad-meld-done").tap()
                expect(page.get_by_test_id(f"pad-melds-{seat}")).to_have_value("40")
            else:
                page.get_by_test_id(f"pad-melds-{seat}").fill(str(melds) if melds else "")
        if not deal["surrendered"]:
            for seat, (tricks, points) in enumerate(zip(deal["tricks"], deal["card_points"])):
                page.get_by_test_id(f"pad-tricks-{seat}").fill(str(tricks))
                page.get_by_test_id(f"pad-card_points-{seat}").fill("" if points is None else str(points))
    page.get_by_test_id("pad-save").tap()


def test_a_sheet_by_touch_corrected_offline_and_followed_live(server: Server, browser: Browser) -> None:
    phone = open_page(browser, 360, 640, has_touch=True)
    goto(phone, server.url)
    phone.get_by_test_id("score-pad-link").tap()  # the start page's entry
    phone.wait_for_selector("html[data-ready=true]", state="attached")
    phone.get_by_test_id("pad-rules").fill(RULES)
    phone.get_by_test_id("pad-rules").press("Tab")  # the rule text is read: three players
    expect(phone.get_by_test_id("pad-player-2")).to_be_visible(timeout=TIMEOUT)
    for seat, name in enumerate(PLAYERS[:2]):
        phone.get_by_test_id(f"pad-player-{seat}").fill(name)
    phone.get_by_test_id("pad-create").tap()  # a name missing: refused in words
    expect(phone.get_by_test_id("pad-error")).to_contain_text("every player needs a name", timeout=TIMEOUT)
    phone.get_by_test_id("pad-player-2").fill(PLAYERS[2])
    shot(phone, "set-up")
    phone.get_by_test_id("pad-create").tap()
    expect(phone.get_by_test_id("pad-deal-title")).to_have_text("Deal 1 — Anna deals", timeout=TIMEOUT)
    for control in ("pad-soloist-0", "pad-save"):
        box = phone.get_by_test_id(control).bounding_box()
        assert box and box["height"] >= 44, (control, box)

    # deal 1 by touch, first with card points no deal can hold: refused in words, nothing lost
    enter(phone, {**MADE, "card_points": [300, 100, None]}, meld_from_list=True)
    expect(phone.get_by_test_id("pad-error")).to_contain_text("card points of Anna", timeout=TIMEOUT)
    expect(phone.get_by_test_id("pad-card_points-0")).to_have_attribute("aria-invalid", "true")
    expect(phone.get_by_test_id("pad-melds-1")).to_have_value("40")  # what was entered is still there
    expect(phone.get_by_test_id("pad-tricks-1")).to_have_value("6")
    reload(phone)  # the draft is on the phone: a reload loses nothing either
    expect(phone.get_by_test_id("pad-melds-1")).to_have_value("40", timeout=TIMEOUT)
    expect(phone.get_by_test_id("pad-card_points-0")).to_have_value("300")
    expect(phone.get_by_test_id("pad-game-S")).to_have_attribute("aria-pressed", "true")
    phone.get_by_test_id("pad-card_points-0").fill("90")
    phone.get_by_test_id("pad-save").tap()
    expect(phone.get_by_test_id("pad-total-0")).to_have_text("240", timeout=TIMEOUT)
    enter(phone, SURRENDER)
    expect(phone.get_by_test_id("pad-row-2")).not_to_have_class("pending", timeout=TIMEOUT)
    expect(phone.get_by_test_id("pad-deal-title")).to_have_text("Deal 3 — Cleo deals")

    # a correction of deal 1: the soloist had 40, not 90 (failed); the totals follow
    phone.get_by_test_id("pad-correct-1").tap()
    expect(phone.get_by_test_id("pad-deal-title")).to_have_text("Correcting deal 1 (Anna dealt)")
    expect(phone.get_by_test_id("pad-melds-0")).to_have_value("150")
    phone.get_by_test_id("pad-card_points-0").fill("40")
    phone.get_by_test_id("pad-card_points-1").fill("150")
    shot(phone, "scorekeeper")
    phone.get_by_test_id("pad-save").tap()
    expected = Sheet.new(RULES, PLAYERS).add(FAILED).add(SURRENDER)
    expect(phone.get_by_test_id("pad-total-0")).to_have_text(shown(expected.totals[0]), timeout=TIMEOUT)

    view_link = phone.get_by_test_id("pad-view-link").get_attribute("href")
    assert view_link and "#/v/pad-" in view_link
    watcher = open_page(browser, 360, 640, has_touch=True)
    goto(watcher, view_link)
    expect(watcher.get_by_test_id("pad-sheet").locator("tbody tr")).to_have_count(2, timeout=TIMEOUT)

    # offline: two more deals wait on the phone (whose service worker keeps the page)
    phone.wait_for_function("navigator.serviceWorker.controller !== null")
    phone.wait_for_function("""async () => { const keys = await caches.keys();
        const cache = await caches.open(keys.find((k) => k.startsWith("binokel-shell-")));
        return Boolean(await cache.match("/pad")) && Boolean(await cache.match("/i18n/en.json")); }""")
    phone.context.set_offline(True)
    enter(phone, DURCH)
    expect(phone.get_by_test_id("pad-status")).to_have_text("Offline, 1 deal waiting", timeout=TIMEOUT)
    enter(phone, CLUBS)
    expect(phone.get_by_test_id("pad-status")).to_have_text("Offline, 2 deals waiting", timeout=TIMEOUT)
    for number in (3, 4):
        expect(phone.get_by_test_id(f"pad-row-{number}")).to_have_class("pending")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360  # nothing sticks out of the phone
    reload(phone)  # the page opens again without a connection, the waiting deals with it
    expect(phone.get_by_test_id("pad-status")).to_have_text("Offline, 2 deals waiting", timeout=TIMEOUT)
    expect(phone.get_by_test_id("pad-row-4")).to_have_class("pending")
    shot(phone, "offline")
    expect(watcher.get_by_test_id("pad-sheet").locator("tbody tr")).to_have_count(2)  # the server has two

    # back online: the phone sends them, the live view shows all four with the core's totals
    phone.context.set_offline(False)
    expect(phone.get_by_test_id("pad-status")).to_have_text("Online: every deal is on the server", timeout=TIMEOUT)
    expected = expected.add(DURCH).add(CLUBS)
    rows = watcher.get_by_test_id("pad-sheet").locator("tbody tr")
    expect(rows).to_have_count(4, timeout=TIMEOUT)
    for seat, total in enumerate(expected.totals):
        expect(watcher.get_by_test_id(f"pad-total-{seat}")).to_have_text(shown(total), timeout=TIMEOUT)
        expect(phone.get_by_test_id(f"pad-total-{seat}")).to_have_text(shown(total))
    for row, deal in enumerate(expected.deals):
        expect(rows.nth(row)).to_contain_text(shown(deal.scores[0]))
    shot(watcher, "live-view")
    watcher.emulate_media(media="print")
    shot(watcher, "print")

    # opened without a connection and nothing waiting: it says so, and sees the server come back
    phone.context.set_offline(True)
    reload(phone)
    expect(phone.get_by_test_id("pad-status")).to_have_text("Offline, 0 deals waiting", timeout=TIMEOUT)
    phone.context.set_offline(False)
    expect(phone.get_by_test_id("pad-status")).to_have_text("Online: every deal is on the server", timeout=TIMEOUT)

    # a reload resumes the sheet from the phone's list
    goto(phone, server.url + "pad#/")
    phone.get_by_test_id("pad-resume").first.tap()
    expect(phone.get_by_test_id("pad-total-0")).to_have_text(shown(expected.totals[0]), timeout=TIMEOUT)
    for page in (phone, watcher):
        assert page.errors == []  # type: ignore[attr-defined]
        page.context.close()


def test_axe_finds_no_violation_on_the_pad(server: Server, browser: Browser) -> None:
    axe_or_skip()
    phone = open_page(browser, 360, 640, has_touch=True, reduced_motion="reduce")
    found: list[str] = []
    try:
        goto(phone, server.url + "pad#/")
        found += violations(phone, "new sheet")
        for seat, name in enumerate(PLAYERS):
            phone.get_by_test_id(f"pad-player-{seat}").fill(name)
        phone.get_by_test_id("pad-create").tap()
        expect(phone.get_by_test_id("pad-deal-title")).to_be_visible(timeout=TIMEOUT)
        phone.get_by_test_id("pad-soloist-0").tap()
        phone.get_by_test_id("pad-game-H").tap()
        phone.get_by_test_id("pad-meld-open-1").tap()
        found += violations(phone, "a deal with the meld list")
        enter(phone, {**MADE, "card_points": [300, 100, None]})
        expect(phone.get_by_test_id("pad-error")).not_to_be_empty(timeout=TIMEOUT)
        found += violations(phone, "a refused deal")
        phone.get_by_test_id("pad-card_points-0").fill("90")
        phone.get_by_test_id("pad-save").tap()
        expect(phone.get_by_test_id("pad-row-1")).to_be_visible(timeout=TIMEOUT)
        phone.locator("details.share > summary").tap()
        found += violations(phone, "the sheet, shared")
        goto(phone, phone.get_by_test_id("pad-view-link").get_attribute("href") or "")
        expect(phone.get_by_test_id("pad-row-1")).to_be_visible(timeout=TIMEOUT)
        found += violations(phone, "the live view")
        assert phone.errors == []  # type: ignore[attr-defined]
    finally:
        phone.context.close()
    assert not found, "axe-core violations:\n" + "\n".join(found)


KREUZ = "kreuz(target=400)"
FOUR = ["Anna", "Ben", "Cleo", "Dora"]
TEAM_DEAL = {"soloist": 0, "bid": 150, "game": "H", "surrendered": False, "melds": [100, 0, 40, 0],
             "tricks": [3, 2, 3, 2], "card_points": [80, 50, 70, None]}
WINNING = {"soloist": 1, "bid": 160, "game": "S", "surrendered": False, "melds": [0, 150, 0, 20],
           "tricks": [2, 4, 1, 3], "card_points": [30, 120, 20, None]}


def test_a_deal_refused_after_the_phone_was_offline_is_corrected_and_the_team_wins(
        server: Server, browser: Browser) -> None:
    phone = open_page(browser, 360, 640, has_touch=True)
    goto(phone, server.url + "pad#/")
    phone.get_by_test_id("pad-rule-set").select_option("kreuz")
    expect(phone.get_by_test_id("pad-player-3")).to_be_visible(timeout=TIMEOUT)
    for seat, name in enumerate(FOUR):
        phone.get_by_test_id(f"pad-player-{seat}").fill(name)
    expect(phone.get_by_test_id("pad-teams")).to_have_text("Teams: Anna & Cleo against Ben & Dora")
    phone.get_by_test_id("pad-rules").fill(KREUZ)
    phone.get_by_test_id("pad-rules").press("Tab")
    phone.get_by_test_id("pad-create").tap()
    expect(phone.get_by_test_id("pad-deal-title")).to_have_text("Deal 1 — Anna deals", timeout=TIMEOUT)

    phone.context.set_offline(True)
    enter(phone, {**TEAM_DEAL, "bid": 155})  # off the step: only the server can say so, later
    enter(phone, WINNING)
    expect(phone.get_by_test_id("pad-status")).to_have_text("Offline, 2 deals waiting", timeout=TIMEOUT)
    phone.context.set_offline(False)
    row = phone.get_by_test_id("pad-row-1")
    expect(row).to_have_class("refused", timeout=TIMEOUT)
    expect(row).to_contain_text("a bid is a multiple of 10, not 155")
    expect(phone.get_by_test_id("pad-row-2")).to_have_class("pending")  # waits for deal 1
    if AXE.exists():
        assert violations(phone, "a deal refused after being offline") == []
    phone.get_by_test_id("pad-correct-1").tap()
    expect(phone.get_by_test_id("pad-error")).to_contain_text("multiple of 10")
    expect(phone.get_by_test_id("pad-bid")).to_have_value("155")
    expect(phone.get_by_test_id("pad-melds-2")).to_have_value("40")  # nothing entered was lost
    phone.context.set_offline(True)  # the phone's connection comes and goes meanwhile:
    phone.context.set_offline(False)  # deal 2 is not sent before deal 1
    phone.wait_for_timeout(1000)
    expect(phone.get_by_test_id("pad-row-2")).to_have_class("pending")
    phone.get_by_test_id("pad-bid").fill("150")
    phone.get_by_test_id("pad-save").tap()

    expected = Sheet.new(KREUZ, FOUR).add(TEAM_DEAL).add(WINNING)
    expect(phone.get_by_test_id("pad-winner")).to_have_text("Game over: Ben & Dora win.", timeout=TIMEOUT)
    for seat, total in enumerate(expected.totals):
        expect(phone.get_by_test_id(f"pad-total-{seat}")).to_have_text(shown(total))
    expect(phone.get_by_test_id("pad-save")).to_be_hidden()  # the game is over: only corrections
    phone.get_by_test_id("pad-correct-2").tap()
    expect(phone.get_by_test_id("pad-save")).to_be_visible()
    assert phone.errors == []  # type: ignore[attr-defined]
    phone.context.close()


def test_the_scorekeeper_s_link_on_another_phone_at_a_table_of_four_with_one_sitting_out(
        server: Server, browser: Browser) -> None:
    made = server.post("api/pad", {"rules": "four-sitout", "players": FOUR, "first_dealer": 1})
    phone = open_page(browser, 360, 640, has_touch=True)
    goto(phone, f"{server.url}pad#/k/{made['id']}/{made['token']}")
    expect(phone.get_by_test_id("pad-deal-title")).to_have_text("Deal 1 — Ben deals", timeout=TIMEOUT)
    assert made["token"] not in phone.url  # the secret left the address bar (it is kept on the phone)
    expect(phone.get_by_test_id("pad-soloist-1")).to_be_disabled()  # the dealer sits out
    phone.get_by_test_id("pad-soloist-2").tap()
    phone.get_by_test_id("pad-game-D").tap()
    phone.get_by_test_id("pad-surrendered").tap()
    expect(phone.get_by_test_id("pad-melds-1")).to_be_disabled()
    expect(phone.get_by_test_id("pad-tricks-0")).to_be_hidden()  # a surrender: melds only
    phone.get_by_test_id("pad-melds-0").fill("60")
    phone.get_by_test_id("pad-save").tap()
    expected = Sheet.new("four-sitout", FOUR, first_dealer=1).add(
        {"soloist": 2, "bid": 150, "game": "D", "surrendered": True, "melds": [60, 0, 0, 0]})
    for seat, total in enumerate(expected.totals):
        expect(phone.get_by_test_id(f"pad-total-{seat}")).to_have_text(shown(total), timeout=TIMEOUT)
    expect(phone.get_by_test_id("pad-deal-title")).to_have_text("Deal 2 — Cleo deals")
    expect(phone.get_by_test_id("pad-soloist-2")).to_be_disabled()
    assert phone.errors == []  # type: ignore[attr-defined]
    phone.context.close()
