"""A club table's scorekeeper without a connection (web/club/ with web/js/outbox.js, the
score pad's offline queue) in Chromium at 360x640 with touch: deals entered offline wait on
the phone (shown as waiting), survive a reload without a connection, and are sent in order
when the server answers again; the projector in another context then shows every deal with
the totals the core computes (:func:`binokel.club.score_deal`). A deal the server refuses
after the phone was offline turns red with its reason, holds back the later ones, and is
corrected from the form with nothing entered lost.

"Without a connection" is the phone offline (``context.set_offline``: ``navigator.onLine``,
the ``online`` event when it returns) and, in the first test, the server stopped as well:
Playwright's offline mode does not cover the service worker's own requests (it reloaded the
page from the server while "offline"), and with the server gone nothing the phone sends can
reach it, whatever path a request takes; the deals held are then read from the database."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from browser_support import (AXE, TIMEOUT, Browser, Page, Server, expect, goto, keep_screenshot, open_page, reload,
                             shown, violations)

from binokel.club import Settings, Table, score_deal
from binokel.server.storage import open_store

SETTINGS = {"name": "Feuerwehr-Binokel", "rules": "club", "rounds": 1, "deals": 12, "table_size": 3,
            "entry_fee": 0, "fees": [[1, 50]]}
PLAYERS = ["Anna", "Ben", "Cleo"]
MADE = {"soloist": 0, "bid": 200, "game": "S", "surrendered": False, "melds": [150, 40, 20],
        "tricks": [4, 6, 5], "card_points": [90, 100, None]}
SURRENDER = {"soloist": 1, "bid": 150, "game": "H", "surrendered": True, "melds": [20, 0, 40]}
CLUBS = {"soloist": 2, "bid": 160, "game": "C", "surrendered": False, "melds": [0, 20, 100],
         "tricks": [3, 2, 10], "card_points": [50, 30, None]}


def call(site: Server, path: str, body: Any = None, secret: str | None = None) -> Any:
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {secret}"} if secret else {})}
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(site.url + path, data=data, headers=headers,
                                     method="GET" if data is None else "POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def drawn_table(site: Server) -> tuple[str, str]:
    """An event with three players and its first round drawn: (event id, the table's link)."""
    made = call(site, "api/club/events", SETTINGS)
    for name in PLAYERS:
        call(site, f"api/club/events/{made['id']}/entries", {"kind": "register", "name": name}, made["organiser"])
    drawn = call(site, f"api/club/events/{made['id']}/draw", {}, made["organiser"])
    card = drawn["cards"][0]
    return made["id"], f"{site.url}club#/t/{made['id']}/1/{card['table']}/{card['secret']}"


def enter(page: Page, deal: dict[str, Any]) -> None:
    """Enter ``deal`` on the scorekeeper's sheet by touch: taps for the choices, numbers typed."""
    page.get_by_test_id(f"club-soloist-{deal['soloist']}").tap()
    page.get_by_test_id("club-bid").fill(str(deal["bid"]))
    page.get_by_test_id(f"club-game-{deal['game']}").tap()
    if deal["surrendered"]:
        page.get_by_test_id("club-surrendered").tap()
    for field in ("melds", "card_points", "tricks"):
        for seat, value in enumerate(deal.get(field) or [None] * len(PLAYERS)):
            page.get_by_test_id(f"club-{field}-{seat}").fill("" if value is None else str(value))
    page.get_by_test_id("club-save").tap()


def core_totals(site: Server, event_id: str, deals: list[dict[str, Any]]) -> list[int]:
    """Each seat's total as the core scores ``deals`` (as entered) at the event's one table
    (the server only says who deals first)."""
    event = call(site, f"api/club/events/{event_id}")
    rules = Settings.from_json(event["settings"]).table_rules(len(PLAYERS))
    table = event["rounds"][0]["tables"][0]
    seating = Table(table["number"], tuple(table["players"]), table["scorekeeper"], table["first_dealer"])
    scores = [score_deal(rules, deal, seating.dealer(rules, number)).scores
              for number, deal in enumerate(deals, start=1)]
    return [sum(deal[seat] for deal in scores) for seat in range(len(PLAYERS))]


def stored(site: Server, event_id: str) -> list[dict[str, Any]]:
    """The summaries the server holds for the event's one table."""
    return [deal["summary"] for deal in call(site, f"api/club/events/{event_id}")["rounds"][0]["tables"][0]["deals"]]


def stored_while_down(site: Server, event_id: str) -> int:
    """How many deals the stopped server's database holds for the event."""
    with open_store(str(site.db)) as store:
        event = store.load(event_id, from_snapshot=False)
    assert event is not None
    return sum(1 for entry in event.entries if entry.payload.get("kind") == "deal")


def expect_totals(page: Page, totals: list[int]) -> None:
    """The sheet's foot shows ``totals``, seat by seat."""
    expect(page.get_by_test_id("club-sheet").locator("tfoot th")).to_have_text(["Total", *map(shown, totals)],
                                                                              timeout=TIMEOUT)


def test_a_scorekeeper_offline_reloads_and_the_projector_gets_every_deal(server: Server, browser: Browser) -> None:
    event_id, link = drawn_table(server)
    phone = open_page(browser, 360, 640, has_touch=True)
    goto(phone, link)
    names = [phone.locator(f".seats .name[data-seat='{seat}']").text_content() for seat in range(3)]
    order = [PLAYERS.index(name or "") for name in names]  # the draw seats the players by lot
    def at_table(deal: dict[str, Any]) -> dict[str, Any]:
        """``deal`` (written for Anna, Ben, Cleo) for the drawn seating."""
        seated = {**deal, "soloist": order.index(deal["soloist"])}
        for field in ("melds", "card_points", "tricks"):
            if field in deal:
                seated[field] = [deal[field][order[seat]] for seat in range(3)]
        return seated
    enter(phone, at_table(MADE))
    expect(phone.get_by_test_id("club-status")).to_have_text("Online: every deal is on the server", timeout=TIMEOUT)
    expect(phone.get_by_test_id("club-row-1")).not_to_have_class("pending")

    phone.wait_for_function("navigator.serviceWorker.controller !== null")  # the worker keeps the page
    phone.wait_for_function("""async () => { const keys = await caches.keys();
        const cache = await caches.open(keys.find((k) => k.startsWith("binokel-shell-")));
        return Boolean(await cache.match("/club")) && Boolean(await cache.match("/i18n/en.json")); }""")
    phone.context.set_offline(True)
    server.stop()  # no connection at all: the service worker's requests too
    enter(phone, at_table(SURRENDER))
    expect(phone.get_by_test_id("club-status")).to_have_text("Offline, 1 deal waiting", timeout=TIMEOUT)
    enter(phone, at_table(CLUBS))
    expect(phone.get_by_test_id("club-status")).to_have_text("Offline, 2 deals waiting", timeout=TIMEOUT)
    for number in (2, 3):
        expect(phone.get_by_test_id(f"club-row-{number}")).to_have_class("pending")
        expect(phone.get_by_test_id(f"club-row-{number}")).to_contain_text("waiting")
    phone.get_by_test_id("club-soloist-1").tap()  # deal 4 half entered: a reload keeps it
    phone.get_by_test_id("club-bid").fill("170")

    reload(phone)  # opens again from the service worker, with the waiting deals and the draft
    expect(phone.get_by_test_id("club-status")).to_have_text("Offline, 2 deals waiting", timeout=TIMEOUT)
    expect(phone.get_by_test_id("club-sheet").locator("tbody tr")).to_have_count(3)
    expect(phone.get_by_test_id("club-bid")).to_have_value("170")
    expect(phone.get_by_test_id("club-soloist-1")).to_have_attribute("aria-pressed", "true")
    assert stored_while_down(server, event_id) == 1
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360  # the sheet fits the phone
    correct = phone.get_by_test_id("club-correct-3").bounding_box()
    assert correct and correct["width"] >= 44 and correct["height"] >= 44
    phone.evaluate("document.getElementById('status').textContent = ''")  # no passing toast
    keep_screenshot(phone, "club-scorekeeper-offline", full_page=True)

    server.start()  # the server is back; the phone has no connection yet
    projector = open_page(browser, 1280, 720)
    goto(projector, server.url + f"club#/s/{event_id}")
    expect(projector.get_by_test_id("club-standings")).to_be_visible(timeout=TIMEOUT)
    phone.context.set_offline(False)  # sent by themselves, in order
    expect(phone.get_by_test_id("club-status")).to_have_text("Online: every deal is on the server", timeout=TIMEOUT)
    for number in (2, 3):
        expect(phone.get_by_test_id(f"club-row-{number}")).not_to_have_class("pending")
    entered = [at_table(deal) for deal in (MADE, SURRENDER, CLUBS)]
    assert len(stored(server, event_id)) == 3
    totals = core_totals(server, event_id, entered)
    for seat, total in enumerate(totals):
        row = projector.get_by_test_id("club-standings").locator("tbody tr", has_text=names[seat] or "?")
        expect(row.locator("strong")).to_have_text(shown(total), timeout=TIMEOUT)
    expect_totals(phone, totals)
    for page in (phone, projector):
        assert page.errors == []  # type: ignore[attr-defined]
        page.context.close()


def test_a_deal_refused_after_the_phone_was_offline_is_corrected(server: Server, browser: Browser) -> None:
    event_id, link = drawn_table(server)
    phone = open_page(browser, 360, 640, has_touch=True)
    goto(phone, link)
    phone.context.set_offline(True)
    impossible = {**CLUBS, "soloist": 0, "card_points": [50, 300, None]}  # more than a deal holds
    enter(phone, impossible)
    enter(phone, SURRENDER)
    expect(phone.get_by_test_id("club-status")).to_have_text("Offline, 2 deals waiting", timeout=TIMEOUT)
    phone.context.set_offline(False)
    row = phone.get_by_test_id("club-row-1")
    expect(row).to_have_class("refused", timeout=TIMEOUT)
    expect(row).to_contain_text("more than a deal holds")
    expect(phone.get_by_test_id("club-row-2")).to_have_class("pending")  # waits for deal 1
    if AXE.exists():
        assert violations(phone, "a deal refused after being offline") == []
    phone.get_by_test_id("club-correct-1").tap()
    expect(phone.get_by_test_id("club-error")).to_contain_text("more than a deal holds")
    expect(phone.get_by_test_id("club-card_points-1")).to_have_value("300")  # nothing entered was lost
    expect(phone.get_by_test_id("club-melds-2")).to_have_value("100")
    phone.wait_for_timeout(1000)
    expect(phone.get_by_test_id("club-row-2")).to_have_class("pending")  # still not sent before deal 1
    phone.get_by_test_id("club-card_points-1").fill("30")
    phone.get_by_test_id("club-save").tap()
    expect(phone.get_by_test_id("club-status")).to_have_text("Online: every deal is on the server", timeout=TIMEOUT)
    corrected = {**impossible, "card_points": [50, 30, None]}
    assert len(stored(server, event_id)) == 2
    expect_totals(phone, core_totals(server, event_id, [corrected, SURRENDER]))
    assert phone.errors == []  # type: ignore[attr-defined]
    phone.context.close()
