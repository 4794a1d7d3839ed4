"""Browser tests of the tutorial (a scripted deal at a real table, a coach that points at the
real controls and waits) and of playing a card by dragging it to the table.

The tutorial is gone through on a 360 x 640 touch screen with taps and on a desktop with
the keyboard only; it is left and resumed where it was.
"""

from __future__ import annotations

import re
import time

import pytest

from browser_support import (MY_TURN, SCREENSHOTS, Browser, Page, Server, axe_or_skip, expect, goto, key_like, my_turn,
                             new_game, open_page, play_until, reload, screenshots_only, violations)

FAST = "localStorage.setItem('binokel.settings', JSON.stringify({speed: 'off', botPause: 'short'}))"


def phone(browser: Browser) -> Page:
    page = open_page(browser, 360, 640, has_touch=True, is_mobile=True, reduced_motion="reduce")
    page.add_init_script(FAST)
    return page


def desktop(browser: Browser) -> Page:
    page = open_page(browser, 1366, 768)
    page.add_init_script(FAST)
    return page


def coach_step(page: Page, name: str, timeout: float = 30_000) -> None:
    expect(page.get_by_test_id("coach")).to_have_attribute("data-step", name, timeout=timeout)


def covered(page: Page) -> list[str]:
    """What the coach's bubble covers of the control it points at and of the trick."""
    return page.evaluate("""() => {
        const coach = document.getElementById('coach');
        if (!coach || coach.classList.contains('in-dialog')) return [];
        const b = coach.getBoundingClientRect();
        const out = [];
        for (const el of [document.querySelector('.coach-target'), document.getElementById('trick'),
                          document.getElementById('controls')]) {
            if (!el || !el.getClientRects().length) continue;
            const r = el.getBoundingClientRect();
            if (!r.width || !r.height) continue;
            if (b.left < r.right - 1 && r.left < b.right - 1 && b.top < r.bottom - 1 && r.top < b.bottom - 1)
                out.push(el.id || el.className);
        }
        const o = b.left < 0 || b.top < 0 || b.right > innerWidth + 1 || b.bottom > innerHeight + 1;
        if (o) out.push('off screen');
        return out; }""")


def check_coach(page: Page, target: str) -> None:
    """The coach rings ``target`` and its bubble covers neither it nor the trick."""
    expect(page.locator(f"{target}.coach-target")).to_have_count(1)
    page.wait_for_timeout(100)  # placed at the next frame
    assert not covered(page), (page.get_by_test_id("coach").get_attribute("data-step"), covered(page))


def announced(page: Page, text: str) -> None:
    expect(page.locator("#announcer p").filter(has_text=text).first).to_be_attached()


def tap_legal_card(page: Page) -> None:
    """A finger plays the first playable card: one tap raises it, the second plays it."""
    card = page.locator("#hand.active .card.legal").first
    box = card.bounding_box()
    assert box
    page.touchscreen.tap(box["x"] + 8, box["y"] + 24)
    expect(page.locator("#hand .card.raised")).to_have_count(1)
    box = page.locator("#hand .card.raised").bounding_box()
    assert box
    page.touchscreen.tap(box["x"] + 8, box["y"] + 24)


def tap_last_free_card(page: Page) -> None:
    """A finger on the last card of the hand not picked yet (laying away)."""
    box = page.locator("#hand .card:not(.selected)").last.bounding_box()
    assert box
    page.touchscreen.tap(box["x"] + 8, box["y"] + 30)


def test_the_whole_tutorial_by_touch_at_360x640(server: Server, browser: Browser) -> None:
    page = phone(browser)
    goto(page, server.url)
    page.get_by_test_id("tutorial-button").tap()
    coach_step(page, "welcome")
    check_coach(page, "#hand")
    expect(page.get_by_test_id("coach-count")).to_have_text(re.compile(r"Step 1 of \d+"))
    announced(page, "These are your cards")
    page.get_by_test_id("coach-next").tap()

    coach_step(page, "bid")
    check_coach(page, "#controls")
    expect(page.get_by_test_id("coach-text")).to_contain_text("tap the bid button")  # words for a finger
    page.get_by_test_id("action-bid").tap()

    coach_step(page, "discard")  # both computer players pass on this deal: the Tapp is ours
    check_coach(page, "#hand")
    expect(page.get_by_test_id("coach-text")).to_contain_text("Lay away 3 cards: tap them")
    for i in range(3):
        tap_last_free_card(page)
        expect(page.locator("#hand .card.selected")).to_have_count(i + 1)
    check_coach(page, "#controls")  # all chosen: it points at "Lay away"
    page.get_by_test_id("confirm-discard").tap()

    coach_step(page, "trump")
    said = page.locator("#announcer p").filter(has_text="Lay away").all_inner_texts()
    assert len(said) == 1 and "Lay away 3 cards" in said[0], said  # said once, while the cards go one by one
    check_coach(page, "#controls")
    # Home in the middle of it: the coach stays at its table; the start page resumes it.
    page.get_by_test_id("table-home").tap()
    expect(page.locator("#start-view")).to_be_visible()
    expect(page.get_by_test_id("coach")).to_have_count(0)
    expect(page.get_by_test_id("tutorial-button")).to_have_text("Resume the tutorial")
    page.get_by_test_id("tutorial-button").tap()
    coach_step(page, "trump")
    check_coach(page, "#controls")
    page.get_by_test_id("trump-C").tap()

    coach_step(page, "surrender")
    page.get_by_test_id("action-play").tap()

    coach_step(page, "melds")
    page.get_by_test_id("coach-next").tap()

    coach_step(page, "play")
    page.wait_for_selector(MY_TURN + "[data-phase=play]")
    check_coach(page, "#hand")
    expect(page.get_by_test_id("coach-text")).to_contain_text("drag it onto the table")
    tap_legal_card(page)

    coach_step(page, "trick")
    expect(page.get_by_test_id("coach-next")).to_be_visible()  # the trick is complete: who won it, and Next
    check_coach(page, "#trick")
    expect(page.get_by_test_id("coach-text")).to_contain_text(re.compile(r"won the trick and its \d+ points"))
    announced(page, "won the trick and its")
    page.get_by_test_id("coach-next").tap()

    coach_step(page, "rest")
    check_coach(page, "#hint-button")
    deadline = time.monotonic() + 150
    while not page.locator("#result-dialog[open]").count():
        assert time.monotonic() < deadline, "the deal did not end"
        if my_turn(page, "play") and page.locator("#hand.active .card.legal").count():
            tap_legal_card(page)
            page.wait_for_selector(f"{MY_TURN}[data-phase=play], #result-dialog[open]", timeout=30_000)
        else:
            page.wait_for_timeout(100)
            if page.locator("#hand.active .card.legal").count():
                assert not covered(page), covered(page)

    coach_step(page, "result")
    expect(page.locator("#result-dialog [data-testid=coach]")).to_be_visible()  # inside the dialog, above the result
    page.get_by_test_id("coach-done").tap()
    expect(page.get_by_test_id("coach")).to_have_count(0)
    assert page.evaluate("JSON.parse(localStorage.getItem('binokel.tutorial')).state") == "done"
    assert not page.errors  # type: ignore[attr-defined]
    page.context.close()



@pytest.mark.parametrize("lang", ["de", "fr", "it", "pt"])
def test_the_tutorial_speaks_every_language(server: Server, browser: Browser, lang: str) -> None:
    """The first four steps by touch in each other language: the coach's words are that
    language's (not English, never a catalogue key), on the bubble and in the live region."""
    page = phone(browser)
    goto(page, server.url)
    page.get_by_test_id("language-select").select_option(lang)
    expect(page.locator("html")).to_have_attribute("lang", lang)
    page.get_by_test_id("tutorial-button").tap()
    english = {"welcome": "These are your cards", "bid": "tap the bid button", "discard": "Lay away 3 cards",
               "trump": "trump"}
    for step in ("welcome", "bid", "discard", "trump"):
        coach_step(page, step)
        text = page.get_by_test_id("coach-text").inner_text()
        assert text.strip() and english[step] not in text, (lang, step, text)
        assert not key_like(page), (lang, step, key_like(page))
        if step == "welcome":
            page.get_by_test_id("coach-next").tap()
        elif step == "bid":
            page.get_by_test_id("action-bid").tap()
        elif step == "discard":
            for i in range(3):
                tap_last_free_card(page)
                expect(page.locator("#hand .card.selected")).to_have_count(i + 1)
            page.get_by_test_id("confirm-discard").tap()
    said = " ".join(page.locator("#announcer p").all_inner_texts())
    assert said and "These are your cards" not in said, (lang, said)
    page.context.close()


def keys(page: Page, *presses: str) -> None:
    for key in presses:
        page.keyboard.press(key)


def test_the_whole_tutorial_by_keyboard_left_and_resumed(server: Server, browser: Browser) -> None:
    """At a desktop, keys only: left in the middle, resumed after a reload at the same step."""
    page = desktop(browser)
    goto(page, server.url)
    page.get_by_test_id("tutorial-button").focus()
    keys(page, "Enter")
    coach_step(page, "welcome")
    check_coach(page, "#hand")
    expect(page.get_by_test_id("coach-next")).to_be_focused()  # a step to read: its Next has the focus
    keys(page, "Enter")

    coach_step(page, "bid")
    check_coach(page, "#controls")
    expect(page.get_by_test_id("coach-text")).to_contain_text("click the bid button, or press b.")  # words for a mouse
    keys(page, "b")

    coach_step(page, "discard")
    check_coach(page, "#hand")
    expect(page.get_by_test_id("coach-text")).to_contain_text("click them")
    # Left here: the coach goes, the table stays; the tutorial button now resumes.
    page.get_by_test_id("coach-leave").focus()
    keys(page, "Enter")
    expect(page.get_by_test_id("coach")).to_have_count(0)
    expect(page.locator(".coach-target")).to_have_count(0)
    announced(page, "Tutorial left")
    reload(page)
    page.wait_for_selector("#hand .card")
    page.wait_for_timeout(300)
    expect(page.get_by_test_id("coach")).to_have_count(0)  # left stays left
    goto(page, server.url)
    expect(page.get_by_test_id("tutorial-button")).to_have_text("Resume the tutorial")
    page.get_by_test_id("tutorial-button").focus()
    keys(page, "Enter")
    coach_step(page, "discard")  # where it was left, at the same table
    keys(page, "k", "Enter", "ArrowRight", "Enter", "ArrowRight", "Enter")
    expect(page.locator("#hand .card.selected")).to_have_count(3)
    check_coach(page, "#controls")
    keys(page, "d")

    coach_step(page, "trump")
    check_coach(page, "#controls")
    keys(page, "c", "Enter")  # the first suit
    coach_step(page, "surrender")
    check_coach(page, "#controls")
    keys(page, "c", "Enter")  # play on: the first button
    coach_step(page, "melds")
    expect(page.get_by_test_id("coach-next")).to_be_focused()
    keys(page, "Enter")
    coach_step(page, "play")
    page.wait_for_selector(MY_TURN + "[data-phase=play]")
    check_coach(page, "#hand")
    keys(page, "k", "Enter")
    coach_step(page, "trick")
    expect(page.get_by_test_id("coach-next")).to_be_focused()
    check_coach(page, "#trick")
    keys(page, "Enter")
    coach_step(page, "rest")
    deadline = time.monotonic() + 150
    while not page.locator("#result-dialog[open]").count():
        assert time.monotonic() < deadline, "the deal did not end"
        if my_turn(page, "play") and page.locator("#hand.active .card.legal").count():
            keys(page, "k", "Enter")
            page.wait_for_selector(f"{MY_TURN}[data-phase=play], #result-dialog[open]", timeout=30_000)
        else:
            page.wait_for_timeout(100)
    coach_step(page, "result")
    expect(page.get_by_test_id("coach-done")).to_be_focused()
    keys(page, "Enter")
    expect(page.get_by_test_id("coach")).to_have_count(0)
    assert page.evaluate("JSON.parse(localStorage.getItem('binokel.tutorial')).state") == "done"
    assert not page.errors  # type: ignore[attr-defined]
    page.context.close()


@pytest.mark.parametrize("size", [(1280, 800), (360, 640)], ids=["desktop", "phone"])
def test_axe_finds_no_violation_with_the_tutorial_open(server: Server, browser: Browser, size: tuple[int, int]) -> None:
    """The coach on the table (a step to read, a step to do) and inside the result dialog."""
    axe_or_skip()
    page = open_page(browser, *size, reduced_motion="reduce")
    page.add_init_script(FAST)
    found: list[str] = []
    try:
        goto(page, server.url)
        page.get_by_test_id("tutorial-button").click()
        coach_step(page, "welcome")
        found += violations(page, "tutorial, first step")
        page.get_by_test_id("coach-next").click()
        coach_step(page, "bid")
        found += violations(page, "tutorial, the auction")
        region = page.get_by_test_id("announcer")
        assert region.get_attribute("aria-live") == "polite"  # the steps are said politely
        announced(page, "The auction: the highest bidder plays alone")
        play_until(page, lambda p, seen: p.locator("#result-dialog[open]").count() > 0)
        coach_step(page, "result")
        found += violations(page, "tutorial, the result")
    finally:
        page.context.close()
    assert not found, "axe-core violations:\n" + "\n".join(found)


# ---------------------------------------------------------------------- dragging a card to the table

def touch_drag(page: Page, points: list[tuple[float, float]]) -> None:
    """A finger pressed at the first point, moved through the others and lifted (Chromium's own touch input)."""
    cdp = page.context.new_cdp_session(page)
    x, y = points[0]
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for x, y in points[1:]:
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
        page.wait_for_timeout(16)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def path(start: tuple[float, float], end: tuple[float, float], steps: int = 8) -> list[tuple[float, float]]:
    return [(start[0] + (end[0] - start[0]) * i / steps, start[1] + (end[1] - start[1]) * i / steps)
            for i in range(steps + 1)]


def test_a_card_dragged_to_the_table_is_played_and_a_slip_never_plays(server: Server, browser: Browser) -> None:
    page = phone(browser)
    new_game(server, page, name="Anna", seed=5)
    play_until(page, lambda p, seen: my_turn(p, "play"))
    assert my_turn(page, "play")
    version = page.get_by_test_id("table").get_attribute("data-version")
    count = page.locator("#hand .card").count()
    card = page.locator("#hand.active .card.legal").first
    name = card.get_attribute("data-card")
    box = card.bounding_box()
    assert box
    grip = (box["x"] + 10, box["y"] + 30)
    felt = page.get_by_test_id("felt").bounding_box()
    assert felt
    # A drag that ends off the table (down, below the felt) puts the card back.
    touch_drag(page, path(grip, (grip[0] + 60, 630)))
    page.wait_for_timeout(400)
    assert page.get_by_test_id("table").get_attribute("data-version") == version
    expect(page.locator("#hand .card")).to_have_count(count)
    expect(page.locator("#hand .card.dragging, #hand .card.raised")).to_have_count(0)
    # A wobbling tap (a few px) is a tap: it raises the card, it does not play it.
    touch_drag(page, [grip, (grip[0] + 3, grip[1] + 2), (grip[0] + 5, grip[1] + 3)])
    expect(page.locator(f"#hand .card.raised[data-card='{name}']")).to_have_count(1)
    page.wait_for_timeout(300)
    assert page.get_by_test_id("table").get_attribute("data-version") == version
    # Dragged onto the felt: played.
    box = page.locator(f"#hand .card[data-card='{name}']").first.bounding_box()
    assert box
    copies = page.locator(f"#hand .card[data-card='{name}']").count()
    touch_drag(page, path((box["x"] + 10, box["y"] + 30),
                          (felt["x"] + felt["width"] / 2, felt["y"] + felt["height"] / 2)))
    expect(page.locator("#hand .card")).to_have_count(count - 1)
    expect(page.locator(f"#hand .card[data-card='{name}']")).to_have_count(copies - 1)  # that card went
    assert not page.errors  # type: ignore[attr-defined]
    page.context.close()


def test_a_mouse_drags_a_card_to_the_table(server: Server, browser: Browser) -> None:
    page = desktop(browser)
    new_game(server, page, name="Anna", seed=5)
    play_until(page, lambda p, seen: my_turn(p, "play"))
    count = page.locator("#hand .card").count()
    card = page.locator("#hand.active .card.legal").first
    name = card.get_attribute("data-card")
    box = card.bounding_box()
    felt = page.get_by_test_id("felt").bounding_box()
    assert box and felt
    page.mouse.move(box["x"] + 10, box["y"] + 30)
    page.mouse.down()
    page.mouse.move(box["x"] + 200, 760, steps=6)  # off the table: put back
    page.mouse.up()
    page.wait_for_timeout(300)
    expect(page.locator("#hand .card")).to_have_count(count)
    page.mouse.move(box["x"] + 10, box["y"] + 30)
    page.mouse.down()
    page.mouse.move(felt["x"] + felt["width"] / 2, felt["y"] + felt["height"] / 2, steps=6)
    expect(page.get_by_test_id("felt")).to_have_class(re.compile(r"\bdrop-here\b"))  # the table shows where it goes
    copies = page.locator(f"#hand .card[data-card='{name}']").count()
    page.mouse.up()
    expect(page.locator("#hand .card")).to_have_count(count - 1)
    expect(page.locator(f"#hand .card[data-card='{name}']")).to_have_count(copies - 1)
    page.context.close()


# ---------------------------------------------------------------------- left-handed

def test_left_handed_puts_the_controls_and_the_bar_under_the_left_thumb(server: Server, browser: Browser) -> None:
    def boxes(page: Page) -> dict[str, dict[str, float]]:
        return page.evaluate("""() => Object.fromEntries(['action-bid', 'menu-button', 'table-home', 'hint-button',
                                                           'action-play', 'action-surrender']
            .map(id => [id, document.querySelector(`[data-testid=${id}]`)?.getBoundingClientRect().toJSON()]))""")

    def raised_shift(page: Page) -> float:
        play_until(page, lambda p, seen: my_turn(p, "play"))
        card = page.locator("#hand.active .card.legal").first
        box = card.bounding_box()
        assert box
        page.touchscreen.tap(box["x"] + 8, box["y"] + 24)
        expect(page.locator("#hand .card.raised")).to_have_count(1)
        return float(page.evaluate(
            "() => new DOMMatrix(getComputedStyle(document.querySelector('#hand .card.raised')).transform).m41"))

    shifts = {}
    for left in (False, True):
        page = open_page(browser, 360, 640, has_touch=True, is_mobile=True, reduced_motion="reduce")
        page.add_init_script(f"localStorage.setItem('binokel.settings', "
                             f"JSON.stringify({{speed: 'off', leftHanded: {str(left).lower()}}}))")
        new_game(server, page, name="Anna", seed=5)
        page.wait_for_selector(MY_TURN + "[data-phase=auction]")
        at = boxes(page)
        middle = 180
        if left:
            # The main action at the left edge; the bar's menu and hint on the left, home on the right.
            assert at["action-bid"]["x"] < 24, at
            assert at["menu-button"]["x"] + at["menu-button"]["width"] < middle, at
            assert at["menu-button"]["x"] < at["hint-button"]["x"], at
            assert at["table-home"]["x"] > middle, at
        else:
            assert abs(at["action-bid"]["x"] + at["action-bid"]["width"] / 2 - middle) < 30, at  # centred
            assert at["menu-button"]["x"] > middle and at["table-home"]["x"] < middle, at
        play_until(page, lambda p, seen: p.get_by_test_id("action-surrender").count() > 0)
        at = boxes(page)
        # Play on (the main action) comes first either way; left-handed at the left edge.
        play, surrender = at["action-play"], at["action-surrender"]
        assert play["x"] < surrender["x"] or play["y"] + play["height"] <= surrender["y"], at  # before it, or above it
        assert (at["action-play"]["x"] < 24) == left, at
        page.get_by_test_id("action-play").tap()
        shifts[left] = raised_shift(page)
        page.context.close()
    # A raised card leaves the left thumb: up and to the right (right-handed: straight up).
    assert shifts[False] == 0 and shifts[True] > 5, shifts

# ---------------------------------------------------------------------- screenshots (only when asked)

@screenshots_only
def test_screenshots_tutorial(server: Server, browser: Browser) -> None:
    """The README's tutorial: the coach at the discard, on a 390 x 844 phone."""
    page = open_page(browser, 390, 844, has_touch=True, is_mobile=True, reduced_motion="reduce")
    page.add_init_script(FAST)
    goto(page, server.url)
    page.get_by_test_id("tutorial-button").tap()
    coach_step(page, "welcome")
    page.get_by_test_id("coach-next").tap()
    coach_step(page, "bid")
    page.get_by_test_id("action-bid").tap()
    coach_step(page, "discard")
    tap_last_free_card(page)
    page.wait_for_timeout(300)
    page.screenshot(path=str(SCREENSHOTS / "tutorial-phone.png"))
    page.context.close()
