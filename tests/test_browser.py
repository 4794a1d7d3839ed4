"""Browser tests: the real page of ``binokel serve`` driven in headless Chromium
(browser_support.py: the server, the browser and the moves of one seat; without Playwright
or Chromium every test here is skipped with the reason). Set ``BINOKEL_SCREENSHOTS=1`` to
refresh ``docs/screenshots/``.
"""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from browser_support import (MY_TURN, SCREENSHOTS, Browser, Page, Server, checked_page, deal_over, expect, goto, hand,
                             my_turn, open_page, play_until, reload, screenshots_only)


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """The page with its animations on, as most players see it."""
    yield from checked_page(browser)


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
    play_until(page, lambda p, seen: (seen.get("cards", 0) >= 2 and my_turn(p, "play")) or deal_over(p, seen))
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
    play_until(page, lambda p, seen: (seen.get("cards", 0) >= 1 and my_turn(p, "play")) or deal_over(p, seen))
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
    # The cards named by their text:
    labels = "() => [...document.querySelectorAll('#hand .card')].map(c => c.textContent).join(' ')"
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
    play_until(page, lambda p, seen: (seen.get("cards", 0) >= 2 and my_turn(p, "play")) or deal_over(p, seen))
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


@screenshots_only
def test_screenshots(server: Server, browser: Browser) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    # The phone's screenshots come from test_browser_table.py (a touch screen).
    for name, width, height, deck in [("table-desktop", 1280, 800, "french")]:
        page = open_page(browser, width, height, reduced_motion="reduce")
        start_from_form(page, server.url, deck=deck)
        play_until(page, lambda p, seen: (seen.get("cards", 0) >= 3 and my_turn(p, "play")
                                          and p.locator("#trick .card").count() >= 1)
                   or deal_over(p, seen))
        page.wait_for_timeout(300)
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
        play_until(page, deal_over)
        page.wait_for_timeout(300)
        page.screenshot(path=str(SCREENSHOTS / f"{name}-result.png"))
        page.context.close()
    page = open_page(browser, 1280, 800, reduced_motion="reduce")
    goto(page, server.seat_url(server.new_game(rules='kreuz', name='Anna', seed=4)))
    play_until(page, lambda p, seen: (seen.get("cards", 0) >= 2 and my_turn(p, "play")
               and p.locator("#trick .card").count() >= 2) or deal_over(p, seen))
    page.wait_for_timeout(300)
    page.screenshot(path=str(SCREENSHOTS / "table-kreuz.png"))
    page.context.close()
    page = open_page(browser, 1280, 800)
    goto(page, server.url)
    page.screenshot(path=str(SCREENSHOTS / "start.png"))
    page.context.close()
