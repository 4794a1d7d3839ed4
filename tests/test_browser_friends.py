"""Play with friends in real browsers: three people in three browser contexts (no shared
storage) play a deal of ``standard`` by clicking, one reloads in the middle, a fourth
context watches; chat shows ``<script>`` as text. ``BINOKEL_SCREENSHOTS=1`` refreshes the
invite dialog, the table of friends and the spectator view in ``docs/screenshots/``."""

from __future__ import annotations

import time

from browser_support import (Browser, Page, Server, act_with_friends, deal_over, expect, goto, keep_screenshot, my_turn,
                             open_page)


def sit_down(page: Page, name: str) -> None:
    expect(page.get_by_test_id("join-view")).to_be_visible()
    expect(page.get_by_test_id("join-table").locator("li")).to_have_count(3)
    page.get_by_test_id("join-name").fill(name)
    page.get_by_test_id("join-button").click()
    expect(page.get_by_test_id("table")).to_be_visible()
    expect(page.locator("#hand .card").first).to_be_visible()


def test_three_friends_and_a_spectator_play_a_deal(server: Server, browser: Browser) -> None:
    anna, ben, cleo, watcher = (open_page(browser, 1280, 800) for _ in range(4))
    try:
        # Anna makes a table for three people: herself and two friends.
        goto(anna, server.url)
        anna.get_by_test_id("player-name").fill("Anna")
        anna.get_by_test_id("level-1").select_option("open")
        anna.get_by_test_id("level-2").select_option("open")
        anna.get_by_test_id("start-game").click()
        dialog = anna.get_by_test_id("invite-dialog")
        expect(dialog).to_be_visible()
        expect(anna.get_by_test_id("invite-local")).to_be_visible()  # the test server listens on 127.0.0.1
        code = anna.get_by_test_id("invite-code").inner_text()
        assert len(code) == 9 and code[4] == "-"
        ben_link = anna.get_by_test_id("invite-link-1").input_value()
        watch_link = anna.get_by_test_id("watch-link").input_value()
        assert "#/join/" in ben_link and "#/watch/" in watch_link
        keep_screenshot(anna, "invite-dialog")
        dialog.locator("button.close").click()
        expect(anna.get_by_test_id("table-note")).to_contain_text("Waiting for friends")

        # Ben opens his link; Cleo types the code read out loud; both sit down.
        goto(ben, ben_link)
        sit_down(ben, "Ben")
        goto(cleo, server.url)
        cleo.get_by_test_id("code-input").fill(code.lower())
        cleo.get_by_test_id("code-go").click()
        sit_down(cleo, "Cleo")
        for page, seat in ((anna, 0), (ben, 1), (cleo, 2)):
            expect(page.get_by_test_id(f"seat-{seat}")).to_be_visible()
        expect(anna.get_by_test_id("table-note")).to_be_hidden()
        expect(anna.get_by_test_id("presence-1")).to_have_text("online")
        expect(anna.get_by_test_id("seat-2")).to_contain_text("Cleo")

        # A spectator watches: no hand, ever; told plainly that they watch.
        goto(watcher, watch_link)
        expect(watcher.get_by_test_id("table-note")).to_contain_text("You are watching")
        expect(watcher.get_by_test_id("hint-button")).to_be_hidden()

        # Chat: markup is shown as text, never run.
        anna.get_by_test_id("chat-button").click()
        anna.get_by_test_id("chat-input").fill("<script>window.pwned = 1</script><b>hi</b>")
        anna.get_by_test_id("chat-send").click()
        ben.get_by_test_id("chat-button").click()
        line = ben.get_by_test_id("chat-line").last
        expect(line).to_contain_text("<script>window.pwned = 1</script><b>hi</b>")
        assert ben.locator("#chat-lines script, #chat-lines b b").count() == 0
        assert ben.evaluate("() => window.pwned") is None
        ben.get_by_test_id("phrase-well_played").click()
        expect(anna.get_by_test_id("chat-line").last).to_contain_text("Well played!")
        for page in (anna, ben):
            page.get_by_test_id("chat-button").click()

        # They play the deal by clicking, each in their own browser; Ben reloads midway.
        people = {"anna": anna, "ben": ben, "cleo": cleo}
        seen: dict[str, dict[str, int]] = {name: {} for name in people}
        actions, reloaded, spectated = 0, False, False
        deadline = time.monotonic() + 240
        while not all(deal_over(p, {}) for p in people.values()):
            assert time.monotonic() < deadline, f"the deal did not finish: {seen}"
            moved = False
            for name, page in people.items():
                if my_turn(page) and not deal_over(page, {}):
                    try:
                        act_with_friends(page, seen[name])
                        actions += 1
                        moved = True
                    except Exception as error:  # the page moved on between looking and clicking
                        if "Timeout" not in type(error).__name__:
                            raise
            if actions >= 12 and not reloaded:
                ben.reload()
                ben.wait_for_selector("html[data-ready=true]", state="attached")
                expect(ben.get_by_test_id("seat-1")).to_contain_text("Ben")  # the same seat after the reload
                expect(ben.locator("#hand .card").first).to_be_visible()
                reloaded = True
            if actions >= 20 and not spectated and watcher.locator("[data-testid=trick-card]").count():
                assert watcher.locator("#hand .card").count() == 0
                keep_screenshot(watcher, "spectator-view")
                keep_screenshot(anna, "friends-table")
                spectated = True
            if not moved:
                time.sleep(0.05)
        assert reloaded and sum(s.get("cards", 0) for s in seen.values()) >= 10
        assert watcher.locator("#hand .card").count() == 0
        for page in people.values():
            expect(page.get_by_test_id("result-title")).not_to_be_empty()
        for page in (*people.values(), watcher):
            assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        for page in (anna, ben, cleo, watcher):
            page.context.close()
