"""The club page (web/club/) in Chromium at 360x640: the organiser sets up an event,
registers players and draws; the scorekeeper opens the table card's link on their phone
and enters a deal by touch (a refusal shown in words, then a correction); the projector
in another context shows the standings as they change."""

from __future__ import annotations

from typing import Any

from browser_support import TIMEOUT, Browser, Server, expect, goto, keep_screenshot, open_page


def shot(page: Any, name: str) -> None:
    """``BINOKEL_SCREENSHOTS=1``: keep a screenshot for docs/club.md."""
    keep_screenshot(page, f"club-{name}", full_page=True)


def test_an_event_from_the_phone(server: Server, browser: Browser) -> None:
    organiser = open_page(browser, 360, 640, has_touch=True)
    goto(organiser, server.url + "club#/")
    organiser.get_by_test_id("club-name").fill("Feuerwehr-Binokel")
    shot(organiser, "set-up")
    organiser.get_by_test_id("club-create").tap()
    expect(organiser.get_by_role("heading", name="Feuerwehr-Binokel")).to_be_visible(timeout=TIMEOUT)
    for name in ("Anna", "Ben", "Cleo"):
        organiser.get_by_test_id("club-player-name").fill(name)
        organiser.get_by_test_id("club-register").tap()
        expect(organiser.get_by_text(name, exact=True)).to_be_visible(timeout=TIMEOUT)
    organiser.get_by_test_id("club-draw").tap()
    card = organiser.get_by_test_id("club-table-card")
    expect(card).to_have_count(1, timeout=TIMEOUT)
    link = card.locator("a.link").get_attribute("href")
    # the standings fit the phone (their 7 columns scrolled sideways): place, player and
    # total, with the rounds, the contracts won and lost and the fees in a line under the name
    standings = organiser.get_by_test_id("club-standings")
    assert standings.evaluate("t => t.parentElement.scrollWidth - t.parentElement.clientWidth") <= 0
    expect(standings.locator(".detail").first).to_have_text("Round 1: 0 · Won: 0 · Lost: 0 · To pay (€): 0.00")
    expect(card.get_by_test_id("club-qr").locator("svg")).to_be_visible()
    shot(organiser, "draw")
    organiser.emulate_media(media="print")
    shot(organiser, "table-card")
    organiser.emulate_media(media="screen")
    assert link and "#/t/" in link

    projector = open_page(browser, 1280, 720)
    event_id = link.split("#/t/")[1].split("/")[0]
    goto(projector, server.url + f"club#/s/{event_id}")
    expect(projector.get_by_test_id("club-standings")).to_be_visible(timeout=TIMEOUT)

    phone = open_page(browser, 360, 640, has_touch=True)
    goto(phone, link)
    expect(phone.get_by_test_id("club-sheet")).to_be_visible(timeout=TIMEOUT)
    assert "/t/" in phone.url and link.rsplit("/", 1)[1] not in phone.url  # the secret left the address bar
    box = phone.get_by_test_id("club-save").bounding_box()
    assert box and box["height"] >= 44
    # the soloist surrenders at 150 with a bid off the step first: refused in words
    seat = 1 if phone.get_by_test_id("club-soloist-0").is_disabled() else 0
    phone.get_by_test_id(f"club-soloist-{seat}").tap()
    phone.get_by_test_id("club-bid").fill("155")
    phone.get_by_test_id("club-surrendered").tap()
    phone.get_by_test_id("club-save").tap()
    expect(phone.get_by_test_id("club-error")).not_to_be_empty(timeout=TIMEOUT)
    expect(phone.locator("#status")).to_be_empty()  # the refusal is said once, beside the form
    phone.get_by_test_id("club-bid").fill("150")
    phone.get_by_test_id("club-save").tap()
    rows = phone.get_by_test_id("club-sheet").locator("tbody tr")
    expect(rows).to_have_count(1, timeout=TIMEOUT)
    expect(rows.first).to_contain_text("−150")
    # "Deal 1 kept" is said under Save, not in a bar over the foot of the screen
    said = phone.get_by_test_id("club-said")
    expect(said).to_have_text("Deal 1 kept")
    expect(phone.locator("#status")).to_be_empty()
    save, line = phone.get_by_test_id("club-save").bounding_box(), said.bounding_box()
    assert save and line and line["y"] >= save["y"] + save["height"], (save, line)
    shot(phone, "scorekeeper")
    # the projector heard it
    expect(projector.get_by_test_id("club-standings")).to_contain_text("−150", timeout=TIMEOUT)
    shot(projector, "projector")
    # a correction: 200 instead of 150
    phone.get_by_test_id("club-correct-1").tap()
    phone.get_by_test_id("club-bid").fill("200")
    phone.get_by_test_id("club-save").tap()
    expect(rows.first).to_contain_text("−200", timeout=TIMEOUT)
    expect(projector.get_by_test_id("club-standings")).to_contain_text("−200", timeout=TIMEOUT)
    # the organiser's audit log shows the correction with who, when and the scores before
    organiser.reload()
    organiser.wait_for_selector("html[data-ready=true]", state="attached")
    organiser.get_by_test_id("club-audit").locator("summary").tap()
    correction = organiser.get_by_test_id("club-audit").locator("tr.correction")
    expect(correction).to_have_count(1, timeout=TIMEOUT)
    expect(correction).to_contain_text("table 1")
    expect(correction).to_contain_text("→")
    # the organiser's link opens the console on another device, with the organiser's rights
    console = organiser.locator("details .link").text_content()
    assert console and f"#/o/{event_id}/" in console
    other = open_page(browser, 360, 640, has_touch=True)
    goto(other, console)
    expect(other.get_by_test_id("club-register")).to_be_visible(timeout=TIMEOUT)
    assert console.rsplit("/", 1)[1] not in other.url
    other.get_by_test_id("club-player-name").fill("Dora")
    other.get_by_test_id("club-register").tap()
    expect(other.get_by_text("Dora", exact=True)).to_be_visible(timeout=TIMEOUT)
    for page in (organiser, projector, phone, other):
        assert page.errors == []  # type: ignore[attr-defined]
        page.context.close()
