"""Browser tests of the phone-first table: the table fits phones
held either way at every card size, cards keep a tap target of 36 x 48 px, controls are
44 x 44 px, touch play is safe, nothing covers the trick, and what players ran into.

Phone contexts are touch
contexts (``has_touch``, ``is_mobile``); ``page.tap`` is a finger, ``click`` a mouse.
"""

from __future__ import annotations

import re
import time

import pytest
from browser_support import (MY_TURN, SCREENSHOTS, Browser, Page, Server, act_with_friends, deal_over, expect, goto,
                             key_like, my_turn, new_game, open_page, play_until, surrender, screenshots_only)

PHONES = [(360, 640), (390, 844), (412, 915), (844, 390)]


def phone(browser: Browser, width: int, height: int, card_size: str = "normal", **settings: object) -> Page:
    page = open_page(browser, width, height, has_touch=True, is_mobile=True, reduced_motion="reduce")
    page.add_init_script((f"localStorage.setItem('binokel.settings', "
                          f"JSON.stringify({{cardSize: {card_size!r}, ...{settings!r}}}))")
                         .replace("True", "true").replace("False", "false"))
    return page


def sideways(page: Page) -> int:
    """How many px the page is wider than the screen (0: no sideways scrolling). The screen is
    the visual viewport: a phone's browser widens the layout viewport (innerWidth) to an
    over-wide page, so that the page would seem to fit."""
    return int(page.evaluate("() => document.documentElement.scrollWidth - visualViewport.width"))


def small_cards(page: Page) -> list[str]:
    """Cards of the hand whose top-left 36 x 48 px are not all theirs (under another card or off screen)."""
    return page.evaluate("""() => [...document.querySelectorAll('#hand .card')].filter(card => {
        const r = card.getBoundingClientRect();
        for (let x = r.left + 1; x <= r.left + 35; x += 5) for (let y = r.top + 1; y <= r.top + 47; y += 6) {
            const hit = document.elementFromPoint(x, y);
            if (!hit || hit.closest('.card') !== card) return true;
        }
        return false; }).map(c => c.dataset.card)""")


def small_controls(page: Page) -> list[str]:
    """Visible controls (not cards) smaller than 44 x 44 px."""
    return page.evaluate("""() => [...document.querySelectorAll('button, a[href], select, input, summary')]
      .filter(el => {
        if (el.closest('.card, .visually-hidden, dialog:not([open])') || el.classList.contains('card')) return false;
        const r = el.getBoundingClientRect();
        if (!r.width || !r.height || getComputedStyle(el).visibility === 'hidden') return false;
        // Off screen (the skip link):
        if (r.right <= 0 || r.left >= innerWidth || r.bottom <= 0 || r.top >= innerHeight) return false;
        if (el.type === 'checkbox' || el.type === 'radio') return false;  // their label is the target
        return r.width < 43.5 || r.height < 43.5; })
      .map(el => `${el.dataset.testid || el.id || el.textContent.trim().slice(0, 20)} ` +
                 `${Math.round(el.getBoundingClientRect().width)}x${Math.round(el.getBoundingClientRect().height)}`)""")


def small_text(page: Page) -> list[str]:
    """Visible text set in less than 12 px."""
    return page.evaluate("""() => { const out = [];
        const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        for (let node = walk.nextNode(); node; node = walk.nextNode()) {
            const el = node.parentElement;
            if (!node.textContent.trim() || !el || !el.offsetParent ||
                el.closest('.card, svg, .visually-hidden, dialog:not([open]), [hidden]')) continue;
            const size = parseFloat(getComputedStyle(el).fontSize);
            if (size < 11.95) out.push(`${node.textContent.trim().slice(0, 20)} ${size}px`);
        }
        return out; }""")


def empty_band(page: Page) -> int:
    """px between the bottom of the table (my hand's area) and the bottom of the screen."""
    return int(page.evaluate("() => innerHeight - document.querySelector('.me').getBoundingClientRect().bottom"))


# ---------------------------------------------------------------------- it fits

@pytest.mark.parametrize("card_size", ["normal", "large"])
@pytest.mark.parametrize("size", PHONES, ids=[f"{w}x{h}" for w, h in PHONES])
def test_the_table_fits_the_phone(server: Server, browser: Browser, size: tuple[int, int], card_size: str) -> None:
    """In the auction (the bidding help open) and in the play: no sideways scroll, no empty
    band under the table, each card's tap target at least 36 x 48 px, every control 44 x 44
    px, text 12 px. The bidding help, opened, pushed the hand below a 360 x 640 screen."""
    page = phone(browser, *size, card_size=card_size)
    new_game(server, page, name="Anna", seed=5)
    page.wait_for_selector(MY_TURN + "[data-phase=auction]")
    page.locator("#bid-help > summary").tap()
    expect(page.get_by_test_id("advice-certain")).to_be_visible()
    for phase in ("auction", "play"):
        if phase == "play":
            play_until(page, lambda p, seen: my_turn(p, "play") and seen.get("cards", 0) >= 1)
            assert my_turn(page, "play")
        page.wait_for_timeout(200)  # the layout after the last render
        assert sideways(page) <= 0, f"{phase}: the page is {sideways(page)} px wider than the screen"
        assert empty_band(page) <= 4, f"{phase}: {empty_band(page)} px empty under the table"
        assert page.locator("#hand .card").count() >= 10
        assert not small_cards(page), f"{phase}: cards without a 36 x 48 px tap target: {small_cards(page)}"
        assert not small_controls(page), f"{phase}: controls under 44 px: {small_controls(page)}"
        assert not small_text(page), f"{phase}: text under 12 px: {small_text(page)}"
    page.context.close()


def test_the_desktop_table_grows_with_the_screen(server: Server, browser: Browser) -> None:
    sizes = {}
    for width, height in ((1280, 800), (1920, 1080)):
        page = open_page(browser, width, height, reduced_motion="reduce")
        new_game(server, page, name="Anna", seed=5)
        sizes[width] = page.locator("#hand .card").first.bounding_box()["width"]
        assert empty_band(page) <= 4
        page.context.close()
    assert sizes[1920] >= sizes[1280] * 1.2, sizes


def test_the_menu_holds_the_rest_of_the_bar(server: Server, browser: Browser) -> None:
    page = phone(browser, 360, 640)
    new_game(server, page, name="Anna", seed=5)
    expect(page.get_by_test_id("hint-button")).to_be_visible()
    expect(page.get_by_test_id("sheet-button")).to_be_hidden()
    page.get_by_test_id("menu-button").tap()
    expect(page.get_by_test_id("menu-dialog")).to_be_visible()
    assert not small_controls(page), small_controls(page)
    page.get_by_test_id("menu-sheet-button").tap()
    expect(page.get_by_test_id("sheet-dialog")).to_be_visible()
    page.keyboard.press("Escape")
    page.get_by_test_id("menu-button").tap()
    page.get_by_test_id("menu-deck-select").select_option("german")
    expect(page.get_by_test_id("deck-select")).to_have_value("german")
    page.context.close()


# ---------------------------------------------------------------------- touch play

def legal_card(page: Page) -> str:
    return str(page.locator("#hand.active .card.legal").first.get_attribute("data-card"))


def test_a_tap_raises_a_card_and_a_second_tap_plays_it(server: Server, browser: Browser) -> None:
    page = phone(browser, 360, 640)
    new_game(server, page, name="Anna", seed=5)
    play_until(page, lambda p, seen: my_turn(p, "play") and p.locator("#hand .card.illegal").count() > 0)
    assert page.locator("#hand .card.illegal").count()
    cards = page.locator("#hand .card").count()
    # A grey card: its reason once (no tooltip beside the message), never played.
    page.locator("#hand .card.illegal").first.tap(position={"x": 10, "y": 20}, force=True)  # aria-disabled
    expect(page.get_by_test_id("toast")).to_have_class("toast show")
    expect(page.get_by_test_id("why-tip")).to_be_hidden()
    card = legal_card(page)
    target = page.locator(f"#hand .card[data-card='{card}']").first
    target.tap(position={"x": 10, "y": 20})
    expect(target).to_have_class(re.compile(r"\braised\b"))
    page.wait_for_timeout(400)
    assert page.locator("#hand .card").count() == cards, "one tap never plays"
    expect(page.get_by_test_id("turn")).to_contain_text("again")
    target.tap(position={"x": 10, "y": 20})
    expect(page.locator("#hand .card")).to_have_count(cards - 1)
    page.context.close()


def test_one_tap_play_when_chosen(server: Server, browser: Browser) -> None:
    page = phone(browser, 360, 640, oneTapPlay=True)
    new_game(server, page, name="Anna", seed=5)
    play_until(page, lambda p, seen: my_turn(p, "play"))
    cards = page.locator("#hand .card").count()
    page.locator(f"#hand .card[data-card='{legal_card(page)}']").first.tap(position={"x": 10, "y": 20})
    expect(page.locator("#hand .card")).to_have_count(cards - 1)
    page.context.close()


# ---------------------------------------------------------------------- nothing covers the game

def overlap(page: Page, a: str, b: str) -> list[str]:
    """The visible elements matching ``b`` that intersect a visible element matching ``a``."""
    return page.evaluate("""([a, b]) => { const out = [];
        const shown = (e) => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden' &&
            !e.closest('[hidden]');
        const boxes = (sel) => [...document.querySelectorAll(sel)].filter(shown)
            .map(e => [e, e.getBoundingClientRect()]);
        for (const [ea, ra] of boxes(a)) for (const [eb, rb] of boxes(b)) {
            if (ra.width && rb.width && ra.left < rb.right - 1 && rb.left < ra.right - 1 &&
                ra.top < rb.bottom - 1 && rb.top < ra.bottom - 1)
                out.push(`${ea.id || ea.className} over ${eb.id || eb.dataset.testid || eb.className}`);
        }
        return out; }""", [a, b])


@pytest.mark.parametrize("size", [(360, 640), (1366, 768)], ids=["phone", "desktop"])
def test_the_melds_never_cover_the_trick(server: Server, browser: Browser, size: tuple[int, int]) -> None:
    page = open_page(browser, *size, has_touch=size[0] < 700, is_mobile=size[0] < 700, reduced_motion="reduce",
                     animations=True)  # the finished trick stays a moment
    new_game(server, page, name="Anna", seed=5)
    play_until(page, lambda p, seen: my_turn(p, "play") and seen.get("cards", 0) >= 1)
    assert page.locator("#trick .card").count() >= 1
    expect(page.get_by_test_id("melds-2")).to_be_visible()  # beside the player
    assert not overlap(page, "#meld-reveal", "#trick .card, #status, .seat"), (
        overlap(page, "#meld-reveal", "#trick .card, #status, .seat"))
    if size[0] > 700:
        close = page.get_by_test_id("meld-reveal-close").bounding_box()
        assert close and close["width"] >= 44 and close["height"] >= 44
        page.get_by_test_id("meld-reveal-close").click()
        expect(page.get_by_test_id("meld-reveal")).to_be_hidden()
    page.context.close()


def test_the_trump_marker_never_covers_an_opponent(server: Server, browser: Browser) -> None:
    game = server.new_game(name="Anna", seed=5)
    for width, height in ((1024, 768), (1280, 800), (1366, 768), (1920, 1080)):
        page = open_page(browser, width, height, reduced_motion="reduce")
        goto(page, server.seat_url(game))
        play_until(page, lambda p, seen: my_turn(p, "play"))
        watcher = open_page(browser, width, height, reduced_motion="reduce")
        goto(watcher, f"{server.url}#/watch/{game}")
        for who in (page, watcher):
            expect(who.get_by_test_id("trump-marker")).to_be_visible()
            assert not overlap(who, "#trump-marker", ".seat"), (width, overlap(who, "#trump-marker", ".seat"))
        page.context.close()
        watcher.context.close()


def test_the_hint_never_covers_the_hand(server: Server, browser: Browser) -> None:
    page = open_page(browser, 1366, 768, reduced_motion="reduce")
    new_game(server, page, name="Anna", seed=5)
    page.wait_for_selector(MY_TURN + "[data-phase=auction]")
    page.get_by_test_id("hint-button").click()
    expect(page.get_by_test_id("toast")).to_contain_text("Suggestion")
    page.wait_for_timeout(300)  # the slide-in
    assert not overlap(page, "#toast", "#hand .card"), overlap(page, "#toast", "#hand .card")
    page.context.close()


def test_the_result_buttons_stay_where_they_are(server: Server, browser: Browser) -> None:
    """The explanation loads after the dialog opens: it must not push the buttons down."""
    page = open_page(browser, 1366, 768, reduced_motion="reduce")
    new_game(server, page, name="Anna", seed=5)
    play_until(page, lambda p, seen: False)
    button = page.get_by_test_id("result-next-deal")
    expect(button).to_be_visible()
    before = button.bounding_box()
    page.wait_for_selector("[data-testid=explain]")
    page.wait_for_timeout(200)
    after = button.bounding_box()
    assert before and after and abs(before["y"] - after["y"]) < 1, (before, after)
    page.context.close()


# ---------------------------------------------------------------------- what players ran into

@pytest.mark.parametrize("lang", ["de", "en", "fr", "it", "pt"])
def test_no_catalogue_key_reaches_the_page(server: Server, browser: Browser, lang: str) -> None:
    """Start page (every option open) and a table, in every language: words, never keys."""
    page = open_page(browser, 1280, 800, reduced_motion="reduce")
    goto(page, server.url)
    page.get_by_test_id("language-select").select_option(lang)
    expect(page.locator("html")).to_have_attribute("lang", lang)
    page.locator("#more-options-box summary").click()
    for details in page.locator("#more-options details").all():
        details.evaluate("d => d.open = true")
    assert not key_like(page), f"{lang} start page: {key_like(page)}"
    if lang == "en":
        expect(page.get_by_test_id("levels-about")).to_contain_text("expert")
        hard = page.get_by_test_id("levels-about").locator("dd").nth(2).inner_text()
        assert "strongest" not in hard, hard
    page.get_by_test_id("start-game").click()
    expect(page.locator("#hand .card").first).to_be_visible()
    assert not key_like(page), f"{lang} table: {key_like(page)}"
    page.context.close()


def test_quick_chat_phrases_are_words_on_a_fresh_page(server: Server, browser: Browser) -> None:
    page = open_page(browser, 1280, 800)
    goto(page, server.url)
    texts = page.locator("#chat-phrases button").evaluate_all("bs => bs.map(b => b.textContent)")
    assert texts and not [x for x in texts if x.startswith("phrase.")], texts
    page.context.close()


def hosted_game(server: Server, page: Page, seats: list[str], **body: object) -> dict:
    """A table made over HTTP by Anna, held by her page like the start page holds it (host, links)."""
    made = server.post("api/games", {"name": "Anna", "seats": seats, **body})
    goto(page, server.url)
    page.evaluate("""m => localStorage.setItem('binokel.seats', JSON.stringify({[m.id]: {token: m.token,
        seat: m.seat ?? 0, host: true, links: m.links, code: m.invites.code}}))""", made)
    goto(page, f"{server.url}#/game/{made['id']}")
    return made


def test_your_games_calls_friends_by_name_only(server: Server, browser: Browser) -> None:
    page = open_page(browser, 1280, 800)
    made = hosted_game(server, page, ["me", "open", "easy"], seed=5)
    server.post("api/join", {"code": made["invites"]["code"], "name": "Ben"})
    goto(page, server.url)
    item = page.get_by_test_id(f"resume-{made['id']}")
    expect(item).to_contain_text("Ben")
    text = item.inner_text()
    assert "Ben (" not in text, text
    assert "(easy)" in text, text
    page.context.close()


def test_waiting_for_friends(server: Server, browser: Browser) -> None:
    """Open seats: the creator sees whom the table waits for and no action; nobody is nameless;
    a guest is not told to send an invite they do not hold, nor to restart the server."""
    anna = open_page(browser, 1280, 800, reduced_motion="reduce")
    made = hosted_game(server, anna, ["me", "open", "open"], seed=5)
    expect(anna.locator("#hand .card").first).to_be_visible()
    expect(anna.get_by_test_id("turn")).to_contain_text("Waiting for friends")
    assert anna.locator("#controls button").count() == 0
    expect(anna.get_by_test_id("seat-1")).to_contain_text("open seat")
    assert " deals" not in anna.get_by_test_id("log").inner_text().split("\n")[0][:12], (
        anna.get_by_test_id("log").inner_text())
    ben = open_page(browser, 390, 844, has_touch=True, is_mobile=True, reduced_motion="reduce")
    goto(ben, f"{server.url}#/join/{made['invites']['code']}")
    ben.get_by_test_id("join-name").fill("Ben")
    ben.get_by_test_id("join-button").click()
    expect(ben.locator("#hand .card").first).to_be_visible()
    expect(ben.get_by_test_id("table-note")).to_be_visible()
    assert "Send them" not in ben.get_by_test_id("table-note").inner_text()
    ben.evaluate("() => document.getElementById('invite-button').click()")
    expect(ben.get_by_test_id("invite-dialog")).to_be_visible()
    expect(ben.get_by_test_id("invite-local")).to_be_hidden()
    expect(ben.get_by_test_id("invite-guest")).to_be_visible()
    anna.context.close()
    ben.context.close()


def test_spectators_and_the_next_deal(server: Server, browser: Browser) -> None:
    """Two friends and a bot, watched: the players see one watcher; the watcher is offered no
    chat input, phrases, tutorial, next deal; "Next deal" says "you are ready" and goes."""
    anna = open_page(browser, 1280, 800, reduced_motion="reduce")
    made = hosted_game(server, anna, ["me", "open", "easy"], seed=5)
    ben = open_page(browser, 1280, 800, reduced_motion="reduce")
    goto(ben, f"{server.url}#/join/{made['invites']['code']}")
    ben.get_by_test_id("join-name").fill("Ben")
    ben.get_by_test_id("join-button").click()
    expect(ben.locator("#hand .card").first).to_be_visible()
    watcher = open_page(browser, 1280, 800, reduced_motion="reduce")
    goto(watcher, f"{server.url}#/watch/{made['id']}")
    expect(watcher.get_by_test_id("table-note")).to_contain_text("watching")
    expect(anna.get_by_test_id("watchers")).to_contain_text("1 watching")
    for hidden in ("chat-input", "phrase-hello", "tutorial-button-table", "hint-button"):
        expect(watcher.get_by_test_id(hidden)).to_be_hidden()
    watcher.get_by_test_id("chat-button").click()
    assert watcher.evaluate("() => scrollY") == 0
    assert watcher.locator(".topbar").bounding_box()["y"] >= 0
    seen: dict[str, dict[str, int]] = {"anna": {}, "ben": {}}
    deadline = time.monotonic() + 200
    while not (deal_over(anna, {}) and deal_over(ben, {})):
        assert time.monotonic() < deadline
        for name, page in (("anna", anna), ("ben", ben)):
            if my_turn(page) and not deal_over(page, {}):
                try:
                    act_with_friends(page, seen[name])
                except Exception as error:
                    if "Timeout" not in type(error).__name__:
                        raise
        time.sleep(0.05)
    expect(watcher.get_by_test_id("result-dialog")).to_be_visible()
    expect(watcher.get_by_test_id("result-next-deal")).to_have_count(0)
    anna.get_by_test_id("result-next-deal").click()
    note = anna.get_by_test_id("table-note")
    expect(note).to_contain_text("You are ready")
    expect(note).to_contain_text("Ben")
    assert "clicked" not in note.inner_text() and "Anna" not in note.inner_text()
    expect(anna.get_by_test_id("next-deal")).to_have_count(0)
    expect(ben.get_by_test_id("table-note")).to_contain_text("Anna")
    for page in (anna, ben, watcher):
        page.context.close()


def test_game_over_shows_the_ranking_first(server: Server, browser: Browser) -> None:
    page = open_page(browser, 1280, 800, reduced_motion="reduce")
    new_game(server, page, rules="standard(target=100)", name="Anna", seed=5)
    play_until(page, lambda p, seen: False)
    dialog = page.get_by_test_id("result-dialog")
    expect(page.get_by_test_id("game-winner")).to_be_visible()
    first = dialog.locator("h2").first
    expect(first).to_have_attribute("data-testid", "game-winner")
    ranking = page.get_by_test_id("final-ranking")
    expect(ranking.locator("li")).to_have_count(3)
    assert ranking.bounding_box()["y"] < page.get_by_test_id("result-title").bounding_box()["y"]
    close = page.get_by_test_id("result-x")
    box = close.bounding_box()
    assert box and box["width"] >= 44 and box["height"] >= 44
    close.click()
    expect(dialog).to_be_hidden()
    page.context.close()


def test_k_goes_to_the_first_playable_card(server: Server, browser: Browser) -> None:
    page = open_page(browser, 1280, 800, reduced_motion="reduce")
    new_game(server, page, name="Anna", seed=5)
    play_until(page, lambda p, seen: my_turn(p, "play") and p.locator("#hand .card.legal").count() >= 2)
    legal = page.locator("#hand.active .card.legal")
    legal.last.focus()
    page.get_by_test_id("deal-number").evaluate("e => { e.tabIndex = -1; e.focus(); }")
    page.keyboard.press("k")
    assert page.evaluate("() => document.activeElement.dataset.card") == legal.first.get_attribute("data-card")
    page.get_by_test_id("rules-button").click()
    expect(page.get_by_test_id("rules-content")).to_contain_text("one Tab stop")
    page.context.close()


def test_a_surrender_result_does_not_contradict_itself(server: Server, browser: Browser) -> None:
    page = open_page(browser, 1280, 800, reduced_motion="reduce")
    new_game(server, page, name="Anna", seed=5)
    seen = play_until(page, surrender)
    assert seen.get("surrendered"), seen
    cards = page.locator(".result-table tbody tr td:nth-child(3)").all_inner_texts()
    assert cards and set(cards) == {"—"}, cards  # no card was played: no card points
    page.wait_for_selector("[data-testid=explain]")
    assert page.locator("[data-testid=explain] .void").count() == 0, page.get_by_test_id("explain").inner_text()
    page.context.close()


def test_the_bidding_help_follows_a_language_switch(server: Server, browser: Browser) -> None:
    page = open_page(browser, 1280, 800, reduced_motion="reduce")
    new_game(server, page, name="Anna", seed=5)
    page.wait_for_selector("[data-testid=advice-certain]")
    page.get_by_test_id("language-select").select_option("de")
    title = page.evaluate("async () => (await (await fetch('/i18n/de.json')).json()).strings.advice_title")
    expect(page.locator("#bid-help summary")).to_have_text(title)
    page.context.close()


def test_the_start_page_in_players_words(server: Server, browser: Browser) -> None:
    page = phone(browser, 360, 640)
    made = server.post("api/games", {"name": "Annabelle", "seats": ["me", "open", "easy"], "seed": 5})
    goto(page, server.url)
    page.evaluate("m => localStorage.setItem('binokel.seats', "
                  "JSON.stringify({[m.id]: {token: m.token, seat: 0, host: true}}))", made)
    goto(page, server.url)
    assert sideways(page) <= 0, sideways(page)
    # "Rules in force" does not run into "Seats".
    rules = page.locator(".rules-line").bounding_box()
    seats = page.locator(".opponents legend").bounding_box()
    assert rules and seats and rules["y"] + rules["height"] + 8 <= seats["y"], (rules, seats)
    # The join code's example is readable in full.
    cut = page.get_by_test_id("code-input").evaluate("""el => { const s = getComputedStyle(el);
        const c = document.createElement('canvas').getContext('2d');
        c.font = `${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
        return c.measureText(el.placeholder).width -
            (el.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight)); }""")
    assert cut <= 0, f"the placeholder is cut by {cut} px"
    # Your games: the scores on one line.
    scores = page.locator(f"[data-testid=resume-{made['id']}] .scores")
    expect(scores).to_be_visible()
    lines = scores.evaluate("e => e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).fontSize)")
    assert lines < 2, f"the scores take {lines:.1f} lines of text"
    # More options: groups in players' words; the technical fields behind a second step.
    page.locator("#more-options-box > summary").click()
    expect(page.get_by_test_id("options-bidding")).to_be_visible()
    visible = page.locator("#more-options .option").evaluate_all("els => els.filter(e => e.offsetParent).length")
    assert visible <= 22, visible
    expect(page.get_by_test_id("option-packets")).to_be_hidden()
    page.get_by_test_id("options-expert-toggle").click()
    expect(page.get_by_test_id("option-packets")).to_be_visible()
    assert sideways(page) <= 0, sideways(page)
    # Joining by the table's code says which seat you get.
    goto(page, f"{server.url}#/join/{made['invites']['code']}")
    expect(page.locator("#join-table li[data-yours]")).to_have_count(1)
    expect(page.locator("#join-table li[data-yours]")).to_contain_text("your seat")
    page.context.close()


def test_the_hint_counts_the_cards_picked_to_lay_away(server: Server, browser: Browser) -> None:
    page = open_page(browser, 1280, 800, reduced_motion="reduce")
    new_game(server, page, name="Anna", seed=5)
    play_until(page, lambda p, seen: my_turn(p, "discard"))
    assert my_turn(page, "discard")

    def hinted() -> str:
        page.get_by_test_id("hint-button").click()
        expect(page.locator("#hand .card.hinted")).to_have_count(1)
        return str(page.locator("#hand .card.hinted").get_attribute("data-card"))

    first = hinted()
    page.locator("#hand .card.hinted").click(position={"x": 6, "y": 24})  # picked, not yet sent
    expect(page.locator("#hand .card.selected")).to_have_count(1)
    page.wait_for_timeout(600)
    page.evaluate("() => document.querySelectorAll('#hand .card.hinted').forEach(c => c.classList.remove('hinted'))")
    again = hinted()
    card = page.locator("#hand .card.hinted")
    assert "selected" not in (card.get_attribute("class") or ""), "the hint names a card not picked yet"
    assert again != first or page.locator(f"#hand .card[data-card='{first}']").count() > 1, (first, again)
    page.context.close()


# ---------------------------------------------------------------------- screenshots (only when asked)

def test_a_forced_card_plays_itself_when_chosen(server: Server, browser: Browser) -> None:
    """The setting "play the only playable card by itself": the last card goes without a tap."""
    page = phone(browser, 360, 640, autoPlayForced=True)
    new_game(server, page, name="Anna", seed=5)
    play_until(page, lambda p, seen: my_turn(p, "play") and p.locator("#hand .card").count() == 1)
    assert not deal_over(page, {}), "we hold the last card"
    expect(page.get_by_test_id("result-dialog")).to_be_visible(timeout=8000)  # nobody tapped it
    page.context.close()


@screenshots_only
def test_screenshots_phone(server: Server, browser: Browser) -> None:
    """The README's phone table: 390 x 844 (German cards, from the start page) and 360 x 640."""
    for name, (width, height), deck in (("table-phone", (390, 844), "german"),
                                        ("table-phone-360", (360, 640), "french")):
        page = phone(browser, width, height)
        goto(page, server.url)
        page.evaluate("deck => localStorage.setItem('binokel.deck', deck)", deck)
        # No offer in the picture:
        page.evaluate("localStorage.setItem('binokel.tutorial', JSON.stringify({state: 'skipped'}))")
        new_game(server, page, name="Anna", seed=5)
        play_until(page, lambda p, seen: seen.get("cards", 0) >= 2 and my_turn(p, "play")
                   and p.locator("#trick .card").count() >= 1)
        page.mouse.move(width // 2, 150)  # the test clicks with a mouse: no hover tip in the picture
        page.evaluate("() => document.activeElement?.blur()")
        page.wait_for_timeout(400)
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
        page.context.close()
