"""Browser tests of what a person on a phone ran into, in every language of the page: at
360 x 640 and 390 x 844 held upright and at 640 x 360 on its side, with a touch screen.

Each test here failed before the fix it covers (docs: CHANGELOG, round thirteen's phone
walk). Where the defect lives in the words (a longer German or Portuguese heading), the
test runs in every language.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_support import (Browser, Page, Server, axe_or_skip, deal_over, expect, goto, my_turn, new_game, open_page,
                             play_until, violations)

LANGUAGES = ["de", "en", "fr", "it", "pt"]
PHONES = [(360, 640), (390, 844), (640, 360)]


def phone(browser: Browser, width: int, height: int, lang: str) -> Page:
    """A touch screen of ``width`` x ``height`` with the page in ``lang``."""
    page = open_page(browser, width, height, has_touch=True, is_mobile=True, reduced_motion="reduce")
    page.add_init_script(f"localStorage.setItem('binokel.language', {lang!r})")
    return page


def outside(page: Page, dialog: str) -> list[str]:
    """What of the open ``dialog`` lies beyond its right edge or the screen's, or scrolls
    sideways inside it (a column cut off)."""
    return page.evaluate("""(selector) => {
        const dialog = document.querySelector(selector);
        const edge = Math.min(dialog.getBoundingClientRect().right, innerWidth) + 1;
        const out = [...dialog.querySelectorAll('*')].filter(el => el.getBoundingClientRect().right > edge)
            .map(el => `${el.tagName} "${el.textContent.trim().slice(0, 20)}" ` +
                       `to ${Math.round(el.getBoundingClientRect().right)}`);
        for (const el of [dialog, ...dialog.querySelectorAll('*')])
            if (el.scrollWidth > el.clientWidth + 1 && ['auto', 'scroll'].includes(getComputedStyle(el).overflowX))
                out.push(`${el.id || el.className} scrolls sideways ${el.scrollWidth} > ${el.clientWidth}`);
        return out.slice(0, 6); }""", dialog)


# ---------------------------------------------------------------------- the result and the score sheet

# Two deals as the server keeps them (game.history), with four-digit scores.
GAME = {"players": ["Annabelle", "Karle", "Frieda"], "teams": None, "target": 1500, "rules": "standard",
        "deal_number": 2, "over": False, "winner": None, "totals": [1496, -1122, 102],
        "history": [{"soloist": 0, "bid": 170, "game": "H", "outcome": "made", "scores": [496, 122, 102],
                     "melds": [430, 0, 40], "card_points": [66, 122, 62]},
                    {"soloist": 1, "bid": 1000, "game": "durch", "outcome": "durch_failed", "scores": [1000, -1244, 0],
                     "melds": [0, 0, 0], "card_points": [0, 0, 0]}]}
RESULT = {"seat": 0, "soloist": 0, "bid": 170, "game": "H", "outcome": "made", "surrendered": False, "phase": "over",
          "scores": [496, 122, 102], "card_points": [66, 122, 62], "melds": [[], [], []]}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_result_and_the_score_sheet_fit_the_phone(server: Server, browser: Browser, lang: str) -> None:
    """The deal's result and the score sheet, drawn by the page's own sheet.js into its
    dialogs: every column on the screen (the German result cut off "Gesamt", the sheet its
    third player, in every language), nothing to scroll sideways."""
    for size in PHONES:
        page = phone(browser, *size, lang)
        goto(page, server.url)
        page.evaluate("""async ([game, view]) => {
            const sheet = await import('/static/js/sheet.js');
            document.getElementById('result').innerHTML = sheet.dealResult({ view, game, seat: 0 }, 'french');
            document.getElementById('result-dialog').showModal(); }""", [GAME, RESULT])
        assert not outside(page, "#result-dialog"), (lang, size, "result", outside(page, "#result-dialog"))
        page.evaluate("""async (game) => {
            const sheet = await import('/static/js/sheet.js');
            document.getElementById('result-dialog').close();
            document.getElementById('sheet').innerHTML = sheet.renderSheet(game, 'german');
            document.getElementById('sheet-dialog').showModal(); }""", GAME)
        assert not outside(page, "#sheet-dialog"), (lang, size, "sheet", outside(page, "#sheet-dialog"))
        assert page.get_by_test_id("sheet-row").count() == 2
        page.context.close()


# ---------------------------------------------------------------------- a deal played to its end on a phone

@pytest.fixture(scope="module")
def finished(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Page]:
    """One deal played to its end at 360 x 640 (the result open), for the tests that look at
    what a finished deal shows; each leaves the result open as it found it."""
    server = Server(Path(tmp_path_factory.mktemp("phone")) / "games.db")
    server.start()
    page = phone(browser, 360, 640, "en")
    try:
        new_game(server, page, name="Anna", seed=5)
        play_until(page, deal_over)
        expect(page.get_by_test_id("explain")).to_be_visible(timeout=60_000)
        yield page
    finally:
        page.context.close()
        server.stop()


def height(page: Page, selector: str) -> float:
    box = page.locator(selector).first.bounding_box()
    assert box, selector
    return box["height"]


def test_a_disclosure_is_tall_enough_for_a_finger(finished: Page) -> None:
    """"How the scores came about" in the result and the review's two disclosures were
    16 px high: under WCAG 2.5.8's 24 px, far from the 44 px of every other control."""
    page = finished
    assert height(page, "[data-testid=explain] summary") >= 44
    page.get_by_test_id("review-button").tap()
    expect(page.get_by_test_id("review-position")).to_be_visible(timeout=60_000)
    for selector in ("[data-testid=review-decisions] summary", "[data-testid=review-cost-about] summary"):
        if page.locator(selector).count():
            assert height(page, selector) >= 44, selector
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("review-dialog")).to_be_hidden()


def test_axe_finds_nothing_in_what_a_finished_deal_opens_on_a_phone(finished: Page) -> None:
    """The rules, the score sheet (empty and with the deal), the rules in force, the table
    behind the result and the game log: axe-core found the rules, the sheet and the closed
    log drawer scrolling without a keyboard stop (scrollable-region-focusable) and the empty
    sheet's grey at 4.47:1 (color-contrast)."""
    axe_or_skip()
    page = finished
    found: list[str] = []
    page.get_by_test_id("result-sheet").tap()
    expect(page.get_by_test_id("sheet-dialog")).to_be_visible()
    found += violations(page, "score sheet")
    page.evaluate("""async () => { const sheet = await import('/static/js/sheet.js');
        document.getElementById('sheet').innerHTML = sheet.renderSheet({players: ['Anna', 'Karle', 'Frieda'],
            totals: [0, 0, 0], history: [], target: 1500, rules: 'standard', teams: null}, 'french'); }""")
    found += violations(page, "empty score sheet")
    page.keyboard.press("Escape")
    page.get_by_test_id("result-close").tap()
    expect(page.get_by_test_id("result-dialog")).to_be_hidden()
    found += violations(page, "the table after the deal")
    for item, dialog in (("menu-rules-button", "rules-dialog"), ("menu-in-force-button", "in-force-dialog")):
        page.get_by_test_id("menu-button").tap()
        page.get_by_test_id(item).tap()
        expect(page.get_by_test_id(dialog)).to_be_visible()
        found += violations(page, dialog)
        page.keyboard.press("Escape")
    page.get_by_test_id("menu-button").tap()
    page.get_by_test_id("menu-log-button").tap()
    expect(page.get_by_test_id("log-panel")).to_be_in_viewport()
    found += violations(page, "the game log")
    page.locator("#log-panel .close").tap()
    hidden = page.evaluate("getComputedStyle(document.getElementById('log-panel')).visibility")
    reopen_the_result(page)  # as the fixture promises the next test, whatever failed here
    assert not found, "axe-core violations:\n" + "\n".join(found)
    assert hidden == "hidden", "a closed drawer is no tab stop off the screen"


def test_the_log_drawer_takes_the_focus_and_gives_it_back(finished: Page) -> None:
    """Opened from the menu, the game log's drawer left the keyboard's focus behind it on
    the table. As a dialog does, it now takes the focus and gives it back to the menu's
    button when it closes (its close button, or Escape)."""
    page = finished
    page.get_by_test_id("result-close").tap()
    focus = """(() => { const el = document.activeElement;
        return el.closest('#log-panel') ? 'drawer' : el.dataset.testid || el.tagName; })()"""
    try:
        for close in ("Enter", "Escape"):
            page.get_by_test_id("menu-button").tap()
            page.get_by_test_id("menu-log-button").tap()
            expect(page.get_by_test_id("log-panel")).to_be_in_viewport()
            assert page.evaluate(focus) == "drawer", page.evaluate(focus)
            page.keyboard.press(close)  # Enter: on the close button, where the focus went
            expect(page.get_by_test_id("log-panel")).not_to_be_in_viewport()
            assert page.evaluate(focus) == "menu-button", (close, page.evaluate(focus))
    finally:
        reopen_the_result(page)


def test_the_chat_takes_the_focus_and_gives_it_back(finished: Page) -> None:
    """Opened from the menu, the chat took the focus into its input but left it on the hidden
    panel when it closed: the next Tab started from nowhere. It now gives the focus back to the
    menu's button, closed by its close button or by Escape."""
    page = finished
    page.get_by_test_id("result-close").tap()
    focus = """(() => { const el = document.activeElement;
        return el.closest('#chat-panel') ? 'chat:' + (el.dataset.testid || el.id)
            : el.dataset.testid || el.tagName; })()"""
    try:
        for close in ("tap", "Escape"):
            page.get_by_test_id("menu-button").tap()
            page.get_by_test_id("menu-chat-button").tap()
            expect(page.get_by_test_id("chat-panel")).to_be_visible()
            assert page.evaluate(focus) == "chat:chat-input", page.evaluate(focus)
            if close == "tap":
                page.locator("#chat-close").tap()
            else:
                page.keyboard.press("Escape")
            expect(page.get_by_test_id("chat-panel")).to_be_hidden()
            assert page.evaluate(focus) == "menu-button", (close, page.evaluate(focus))
    finally:
        reopen_the_result(page)


def reopen_the_result(page: Page) -> None:
    """The finished deal's result open again, as a reload of the table shows it."""
    page.reload()
    expect(page.get_by_test_id("result-dialog")).to_be_visible(timeout=60_000)
    expect(page.get_by_test_id("explain")).to_be_visible()


# ---------------------------------------------------------------------- my own line at the table

def cut(page: Page, selector: str) -> list[str]:
    """Text of ``selector`` that does not show whole: clipped by the box or beyond the screen."""
    return page.evaluate("""(selector) => [...document.querySelectorAll(selector)].filter(el => {
        const r = el.getBoundingClientRect(), box = el.closest('.seat').getBoundingClientRect();
        return el.scrollWidth > el.clientWidth + 1 || r.right > Math.min(box.right, innerWidth) + 1; })
        .map(el => el.textContent)""", selector)


def test_my_line_shows_my_melds_in_every_language(server: Server, browser: Browser) -> None:
    """At 360 px my seat's line ("Forehand · tricks 0 · 0 pts · melds 430") was cut off
    with an ellipsis before the melds, in every language: on a phone nowhere else shows
    my melds' total during the play."""
    page = phone(browser, 360, 640, "en")
    new_game(server, page, name="Anna", seed=5)
    play_until(page, lambda p, seen: my_turn(p, "play"))
    assert my_turn(page, "play")
    for lang in LANGUAGES:
        page.get_by_test_id("menu-button").tap()
        page.get_by_test_id("menu-language-select").select_option(lang)
        page.keyboard.press("Escape")
        expect(page.locator("html")).to_have_attribute("lang", lang)
        melds = page.evaluate("async (lang) => (await (await fetch(`/i18n/${lang}.json`)).json()).strings.melds_worth",
                              lang)
        expect(page.locator(".seat.mine .seat-info")).to_contain_text(melds.split("{")[0].strip())
        assert not cut(page, ".seat.mine .seat-info"), (lang, cut(page, ".seat.mine .seat-info"))
    page.context.close()


# ---------------------------------------------------------------------- the score pad

@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_score_pad_fits_the_phone(server: Server, browser: Browser, lang: str) -> None:
    """A sheet of Annabelle, Bartholomäus and Cleo at 360 x 640: the sheet scrolled sideways
    (389 px in 336, every language) and a visually hidden header of its last column widened
    the page to 419 px; the deal's form cut the names ("Anna…")."""
    page = phone(browser, 360, 640, lang)
    goto(page, server.url + "pad#/")
    page.get_by_test_id("pad-rules").fill("standard")
    page.get_by_test_id("pad-rules").press("Tab")
    for seat, name in enumerate(["Annabelle", "Bartholomäus", "Cleo"]):
        page.get_by_test_id(f"pad-player-{seat}").fill(name)
    page.get_by_test_id("pad-create").tap()
    expect(page.get_by_test_id("pad-deal-title")).to_be_visible()
    page.get_by_test_id("pad-soloist-0").tap()
    page.get_by_test_id("pad-bid").fill("200")
    page.get_by_test_id("pad-game-S").tap()
    page.get_by_test_id("pad-played").tap()
    names = page.locator(".entries .name").evaluate_all(
        "els => els.filter(e => e.scrollWidth > e.clientWidth).map(e => e.textContent)")
    assert not names, f"{lang}: names cut in the deal's form: {names}"
    for seat, (melds, tricks, points) in enumerate([(150, 4, 90), (40, 6, 100), (20, 5, None)]):
        page.get_by_test_id(f"pad-melds-{seat}").fill(str(melds))
        page.get_by_test_id(f"pad-tricks-{seat}").fill(str(tricks))
        page.get_by_test_id(f"pad-card_points-{seat}").fill("" if points is None else str(points))
    page.get_by_test_id("pad-save").tap()
    expect(page.get_by_test_id("pad-row-1")).not_to_have_class("pending")
    widths = page.evaluate("""() => ({ page: document.scrollingElement.scrollWidth, layout: innerWidth,
        sheet: [...document.querySelectorAll('.sheet-wrap')].map(e => e.scrollWidth - e.clientWidth) })""")
    assert widths["page"] <= 360 and widths["layout"] <= 360, (lang, widths)
    assert all(extra <= 0 for extra in widths["sheet"]), (lang, widths)
    page.context.close()


# ---------------------------------------------------------------------- the start page's bar

def cut_selects(page: Page, selector: str = ".top-actions select", every: bool = False) -> list[str]:
    """Visible selects whose chosen words (``every``: any option's words, as any may be
    chosen) are wider than the room inside them."""
    return page.evaluate("""([selector, every]) => { const ctx = document.createElement('canvas').getContext('2d');
        return [...document.querySelectorAll(selector)].filter(el => el.offsetParent).map(el => {
            const s = getComputedStyle(el);
            ctx.font = `${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
            const room = el.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight) - 18;  // the arrow
            const words = every ? [...el.options].map(o => o.textContent) : [el.selectedOptions[0]?.textContent ?? ''];
            const cut = words.find(w => ctx.measureText(w).width > room + 1);
            return cut === undefined ? null : `${el.id}: ${cut}`;
        }).filter(Boolean); }""", [selector, every])


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_bars_selects_show_their_words(server: Server, browser: Browser, lang: str) -> None:
    """The start page's bar on a phone on its side (640 x 360): the cards' select, 96 px
    wide, showed "French car", "Französisc"; upright (360 x 640) it leaves the bar. The new
    game's selects (seats and every rule option), two or three side by side at 640 px, cut
    their words in every language ("Computador: especiali", "selon les règles : le donn")."""
    for size in ((640, 360), (360, 640)):
        page = phone(browser, *size, lang)
        goto(page, server.url)
        assert not cut_selects(page), (lang, size, cut_selects(page))
        assert page.evaluate("document.scrollingElement.scrollWidth") <= size[0]
        if size == (640, 360):
            page.locator("#more-options-box > summary").tap()
            page.get_by_test_id("options-expert-toggle").tap()
            expect(page.get_by_test_id("option-packets")).to_be_visible()
            form = "#new-game-form select"
            assert not cut_selects(page, form, every=True), (lang, size, cut_selects(page, form, every=True))
        page.context.close()


# ---------------------------------------------------------------------- the score pad's and the club's titles

@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_pad_and_the_club_are_titled_in_the_page_s_language(server: Server, browser: Browser, lang: str) -> None:
    """The tab's title (what a screen reader says first) stayed "Binokel — score pad" and
    "Binokel — club tournament" in every language."""
    page = phone(browser, 360, 640, lang)
    strings = None
    for path, key in (("pad#/", "pad.title"), ("club#/", "club.title")):
        goto(page, server.url + path)
        strings = strings or page.evaluate("async (lang) => (await (await fetch(`/i18n/${lang}.json`)).json()).strings",
                                           lang)
        expect(page).to_have_title(f"Binokel — {strings[key]}")
    page.context.close()


def test_every_dialog_a_finished_deal_opens_has_a_name(finished: Page) -> None:
    """A screen reader announced the result, the score sheet, the review and the settings
    as "dialog" and nothing more: they had no accessible name."""
    page = finished
    expect(page.get_by_role("dialog", name="You made the contract of 170!")).to_be_visible()
    page.get_by_test_id("result-sheet").tap()
    expect(page.get_by_role("dialog", name="Score sheet")).to_be_visible()
    page.keyboard.press("Escape")
    page.get_by_test_id("review-button").tap()
    expect(page.get_by_role("dialog", name="Deal review")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("review-dialog")).to_be_hidden()
