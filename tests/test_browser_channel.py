"""Browser tests of the table's channel (web/js/channel.js): a stale click is mended
silently, and a dead line shows within 2 s (with the server's beat on a quiet line, the page
sends no ping).

The page's websocket runs through Playwright's ``route_web_socket``, which can hold the
server's messages back (two tabs clicking at once) or drop everything both ways (the
network gone without a close: only a heartbeat can tell).
"""

from __future__ import annotations

import json
import re
from typing import Any

from browser_support import (CARD_EDGE, MY_TURN, Browser, Page, Server, expect, goto, my_turn, new_game, open_page,
                             play_until)

SOCKET = re.compile(r"/ws/games/")


class Line:
    """The page's websockets through a switch: ``hold`` keeps the server's messages back
    (until ``release``), ``dead`` drops every message both ways (the sockets stay open).
    ``log``: the type of every message that got through, with who sent it."""

    def __init__(self, page: Page) -> None:
        self.hold = False
        self.dead = False
        self.held: list[Any] = []
        self.routes: list[Any] = []
        self.log: list[tuple[str, str]] = []
        page.route_web_socket(SOCKET, self.connect)

    def connect(self, route: Any) -> None:
        to_server = route.connect_to_server()
        self.routes.append(route)

        def from_page(message: Any) -> None:
            if not self.dead:
                self.log.append(("page", json.loads(message)["type"]))
                to_server.send(message)

        def from_server(message: Any) -> None:
            if self.dead:
                return
            self.log.append(("server", json.loads(message)["type"]))
            if self.hold:
                self.held.append((route, message))
            else:
                route.send(message)

        route.on_message(from_page)
        to_server.on_message(from_server)

    def release(self) -> None:
        self.hold = False
        for route, message in self.held:
            route.send(message)
        self.held = []


def test_two_tabs_of_one_seat_clicking_at_once_resync_without_a_word(server: Server, browser: Browser) -> None:
    """The tab that clicked second catches up silently: never "stale version 278: the game is at
    version 279 (send sync)" nor any other internal text before the player."""
    first = open_page(browser)
    line = Line(first)
    new_game(server, first, seats=["me", "easy", "easy"], seed=2)
    second = first.context.new_page()
    goto(second, first.url)
    for page in (first, second):
        expect(page.locator(MY_TURN)).to_have_count(1)
        expect(page.get_by_test_id("action-bid")).to_be_visible()
    line.hold = True  # the first tab has not heard yet that the second one moved
    second.get_by_test_id("action-bid").click()
    second.wait_for_timeout(500)  # the server took it
    first.get_by_test_id("action-bid").click()  # at the same moment, in the other tab
    first.wait_for_timeout(300)  # the refusal is on its way back
    line.release()
    first.wait_for_timeout(1500)
    toast = first.locator("#toast")
    assert not re.search(r"version|sync|stale", toast.inner_text(), re.I), toast.inner_text()
    # The first tab shows the table as it is, as the second does.
    expect(first.get_by_test_id("status")).to_have_text(second.get_by_test_id("status").text_content() or "")
    assert not first.errors  # type: ignore[attr-defined]
    first.context.close()


def test_a_dead_line_shows_within_two_seconds_and_takes_nothing_with_it(server: Server, browser: Browser) -> None:
    """Within 2 s of a dead line the page says "reconnecting", shows no seat online and no card
    on its way (not the seat "online" and the clicked card half faded); when the line is back,
    the table is back."""
    page = open_page(browser)
    line = Line(page)
    new_game(server, page, seats=["me", "easy", "easy"], seed=2)
    expect(page.get_by_test_id("presence-0")).to_contain_text("online")
    play_until(page, lambda page, seen: my_turn(page, "play"))
    line.dead = True  # the network is gone; no close comes
    page.locator("#hand.active .card.legal").first.click(position=CARD_EDGE)
    expect(page.get_by_test_id("connection")).to_be_visible(timeout=2000)
    expect(page.get_by_test_id("connection")).to_contain_text("reconnecting")
    expect(page.get_by_test_id("presence-0")).to_have_count(0)  # nobody shown online
    assert not page.get_by_text(re.compile("^online$")).count()
    expect(page.locator("#hand .card.leaving")).to_have_count(0)  # the card is back in the hand
    expect(page.get_by_test_id("status")).to_contain_text("reconnecting")
    line.dead = False  # the next socket gets through
    expect(page.get_by_test_id("connection")).to_be_hidden(timeout=10_000)
    expect(page.get_by_test_id("presence-0")).to_contain_text("online")
    expect(page.locator(MY_TURN)).to_have_count(1)
    assert not page.errors  # type: ignore[attr-defined]
    page.context.close()


def test_a_quiet_line_is_kept_by_the_servers_beat_and_a_dead_one_shows_within_two_seconds(
        server: Server, browser: Browser) -> None:
    """The page asks for the server's beat; once it hears one it sends no ping while the table is
    quiet (the server's beat keeps the line from being silent), and when the line dies, silence
    alone shows "reconnecting" within 2 s; when the line is back, so is the table."""
    page = open_page(browser)
    line = Line(page)
    new_game(server, page, seats=["me", "easy", "easy"], seed=2)
    play_until(page, lambda page, seen: my_turn(page, "play"))  # the page's turn: nothing happens meanwhile
    for _ in range(40):
        if line.log.count(("server", "beat")) >= 3:
            break
        page.wait_for_timeout(250)
    first = line.log.index(("server", "beat"))
    assert ("page", "ping") not in line.log[first:], line.log[first:]  # the beat kept the line alive
    assert line.log[first:].count(("server", "beat")) >= 3, line.log[first:]
    line.dead = True  # the network is gone; no close comes
    expect(page.get_by_test_id("connection")).to_be_visible(timeout=2000)
    expect(page.get_by_test_id("connection")).to_contain_text("reconnecting")
    line.dead = False
    expect(page.get_by_test_id("connection")).to_be_hidden(timeout=10_000)
    expect(page.locator(MY_TURN)).to_have_count(1)
    assert not page.errors  # type: ignore[attr-defined]
    page.context.close()
