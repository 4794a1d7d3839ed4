"""The game loop of ``binokel play``: the human at seat 0, computer opponents in the other seats.

Everything the terminal prints about a deal comes from ``view(state, 0)``; each bot sees
only ``view(state, its_seat)``. The loop never prints a card the player may not know.
When the player sits out a deal (``sit_out=1``), the bots play it and the player watches.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from binokel.action import SURRENDER, Action
from binokel.ai import Bot, choose_safely, modest_action
from binokel.error import BinokelError
from binokel.game import Game
from binokel.meld import meld_values
from binokel.record import actions_of, game_record
from binokel.state import Phase, State
from binokel.table import PERSON, Deal, Over, Seat, Table, Think
from binokel.terminal.messages import Messages
from binokel.terminal.parse import parse_input
from binokel.terminal.ruleset import rules_lines
from binokel.terminal.style import Style
from binokel.terminal.table_text import TableText, forced_opening
from binokel.view import SeatView, view

HUMAN = 0


class Quit(Exception):
    """The player asked to stop (``q``, Ctrl-C or end of input)."""


class Session(TableText):
    """One game in the terminal. ``read`` and ``write`` are ``input`` and ``print`` by default;
    the deal is told in words by :class:`TableText` for the player at seat 0."""

    def __init__(self, game: Game, *, seed: int, levels: Sequence[str], names: Sequence[str],
                 bots: Sequence[Bot | None], hint_bot: Callable[[], Bot | None], messages: Messages,
                 style: Style, save_path: str, save_at_end: bool, think: float, trace: bool = False,
                 read: Callable[[str], str] = input, write: Callable[[str], None] | None = None) -> None:
        super().__init__(messages, style, names, HUMAN, write or (lambda text: print(text, flush=True)))
        seats = [PERSON, *(Seat(level) for level in levels)]
        self.table = Table.from_game(game, seats, seed)  # the driver: turns, deals, events
        self.seed = seed
        self.levels = list(levels)
        self.bots = list(bots)
        self.hint_bot = hint_bot
        self.save_path = save_path
        self.save_at_end = save_at_end
        self.think = think
        self.trace = trace
        self.read = read

    @property
    def game(self) -> Game:
        return self.table.game

    # ------------------------------------------------------------------ running

    def run(self, resumed: bool = False) -> int:
        """Play to the end of the game or until the player quits; the exit status."""
        try:
            self.show_rules()
            self.show_teams(self.game.rules)
            if resumed:
                self.say(self.t("resumed", path=self.save_path))
                self.say(self.t("sheet_totals", totals=self.totals()))
                if not self.game.is_over() and not self.game.needs_deal():
                    self.recap(view(self.game.current, HUMAN), len(self.game.deals))
                elif not self.game.is_over():
                    self.deal()
            if self.game.is_over():
                self.tell_game_over()
                return 0
            self.loop()
        except (Quit, KeyboardInterrupt, EOFError) as stop:
            if not isinstance(stop, Quit):
                self.say("")
            if not self.try_save():
                return 1
            self.say(self.t("saved_quit", path=self.save_path, command=f"binokel play --resume {self.save_path}"))
            return 0
        except Exception as error:  # a bug must not lose the game: save it and say so in one line
            if os.environ.get("BINOKEL_DEBUG"):
                raise
            saved = self.try_save()
            self.say(self.t("internal_error", error=f"{type(error).__name__}: {error}")
                     + (" " + self.t("saved", path=self.save_path) if saved else ""))
            return 1
        if self.save_at_end:
            if not self.try_save():
                return 1
            self.say(self.t("saved", path=self.save_path))
        return 0

    def try_save(self) -> bool:
        """Save the record; on failure say why in one line."""
        try:
            self.save()
        except OSError as error:
            self.say(self.t("save_failed", path=self.save_path, reason=error.strerror or str(error)))
            return False
        return True

    def loop(self) -> None:
        """Ask the driver who is to move: deal, ask the player, or ask a bot; then show the events."""
        table = self.table
        while not isinstance(step := table.next_step(), Over):
            if isinstance(step, Deal):
                if table.deal_number:
                    self.ask_next()
                self.deal()
            elif isinstance(step, Think):
                self.apply(step.seat, self.bot_action(step.seat))
            else:
                for action in self.ask_human(self.game.current):
                    self.apply(step.seat, action)

    def deal(self) -> None:
        self.table.deal()
        state = self.game.current
        self.trace_point(self.table.deal_number, state)
        self.say("")
        seen = self.table.view(HUMAN)
        self.say(self.style.bold(self.t("deal_header", number=self.table.deal_number, dealer=self.name(seen.dealer),
                                        forehand=self.name(seen.seating.forehand))))
        if seen.sitting_out is not None:
            self.say(self.who(seen.sitting_out, "sits_out"))
        if seen.sitting_out != HUMAN:
            self.show_hand(seen)

    def bot_action(self, seat: int) -> Action:
        seen = self.table.view(seat)
        bot = self.bots[seat]
        seed = self.table.seed_for("bot")
        rng = random.Random(seed)
        return choose_safely(bot, seen, rng, self.think, seed=seed) if bot is not None else modest_action(seen, rng)

    def apply(self, seat: int, action: Action) -> None:
        """Take the action at the table and show the player the events it may see."""
        earlier = self.table.view(HUMAN)
        since = self.table.version
        self.table.act(seat, action)
        self.trace_point(self.table.deal_number, self.table.shown_deal)
        self.announce(earlier, [event.to_json() for event in self.table.events_for(HUMAN, since)],
                      self.table.view(HUMAN))

    @staticmethod
    def action_count(state: State) -> int:
        """How many actions of the deal have been taken (after the cards were dealt)."""
        return len(actions_of(state)) if state.phase is not Phase.DEAL else 0

    def trace_point(self, number: int, state: State) -> None:
        """With --trace: a marker line "@@ DEAL ACTIONS" after every change, for tests."""
        if self.trace:
            self.say(f"@@ {number} {self.action_count(state)}")

    # ------------------------------------------------------------------ output helpers

    def on_deal_over(self, data: Mapping[str, Any], seen: SeatView) -> None:
        self.show_deal_over(view(self.table.shown_deal, HUMAN), data["number"], self.game.totals)
        if self.game.is_over():
            self.tell_game_over()

    def tell_game_over(self) -> None:
        winner = self.game.winner
        assert winner is not None  # the game is over
        self.show_game_over(self.game.rules, winner, self.game.totals, self.game.durch_games)

    def totals(self) -> str:
        return self.totals_text(self.game.rules, self.game.totals)

    # ------------------------------------------------------------------ the player's turn

    def ask_human(self, state: State) -> list[Action]:
        seen = view(state, HUMAN)
        if forced_opening(seen):  # forehand's forced opening: nothing to decide
            return list(seen.legal_actions)
        phase, choices, prompt = self.offer(seen, meld_values(seen.hand, state.rules))
        return self.prompt(state, phase, prompt, choices)

    def prompt(self, state: State, phase: str, prompt: str, choices: Sequence[Action]) -> list[Action]:
        """Ask until the player types something legal (or a command); the actions to apply."""
        while True:
            parsed = parse_input(self.read(self.style.bold(prompt) + " "), phase, choices, self.t.words)
            if parsed.command:
                self.command(parsed.command, state)
                continue
            if parsed.error:
                args = dict(parsed.args, games=self.game_words(choices)) if phase == "game" else parsed.args
                self.say(self.t(parsed.error, **args))
                continue
            if phase == "next":
                return []
            left = state.rules.tapp_size - len(view(state, HUMAN).discard or ())
            if phase == "discard" and len(parsed.actions) > left:
                self.say(self.t("err_too_many", count=left))
                continue
            if parsed.actions[0] == SURRENDER and not self.sure_to_surrender(view(state, HUMAN), self.read):
                continue
            trial = state
            try:
                for action in parsed.actions:
                    trial = trial.apply(action)
            except BinokelError as error:
                self.say(self.t("illegal", reason=self.explain(error, state)))
                continue
            return list(parsed.actions)

    def explain(self, error: BinokelError, state: State) -> str:
        """The core's reason in the player's language (second person where it names them)."""
        return self.t.reason(error, HUMAN)

    def ask_next(self) -> None:
        self.prompt(self.game.current, "next", self.t("prompt_next"), ())

    # ------------------------------------------------------------------ commands

    def command(self, name: str, state: State) -> None:
        if name == "quit":
            raise Quit()
        if name == "help":
            self.say(self.t("help"))
        elif name == "rules":
            self.show_rules()
        elif name == "sheet":
            self.show_sheet()
        elif name == "last":
            self.show_last(view(self.game.current, HUMAN))
        elif name == "hint":
            self.show_hint(state)

    def show_hint(self, state: State) -> None:
        seen = view(state, HUMAN)
        forced_opening = seen.phase == "auction" and not seen.auction and state.rules.auction == "fixed"
        if seen.to_move != HUMAN or not seen.legal_actions or forced_opening:
            self.say(self.t("no_hint"))
            return
        bot = self.hint_bot()
        if bot is None:
            self.say(self.t("no_hint"))
            return
        steps = state.rules.tapp_size - len(seen.discard or ()) if seen.phase == "discard" else 1
        advice: list[Action] = []
        trial = state
        for _step in range(steps):
            seen = view(trial, HUMAN)
            try:
                action = bot.choose(seen, random.Random(f"{self.seed}:hint:{self.action_count(trial)}"), self.think)
                trial = trial.apply(action)
            except Exception:  # a bot that cannot advise here must not stop the game
                if os.environ.get("BINOKEL_DEBUG"):
                    raise
                self.say(self.t("no_hint"))
                return
            advice.append(action)
        if state.phase is Phase.DISCARD:
            self.say(self.t("hint", advice=self.t("hint_discard", cards=self.cards([a.card for a in advice]))))
        else:
            self.say(self.t("hint", advice=self.action_text(advice[0])))

    def show_rules(self) -> None:
        first, *rest = rules_lines(self.game.rules, self.t)
        self.say(self.style.bold(first))
        for line in rest:
            self.say(line)

    def show_sheet(self) -> None:
        deals = [d for d in self.game.deals if d.phase is not Phase.DEAL]
        if not deals:
            self.say(self.t("sheet_empty"))
            return
        self.say(self.style.bold(self.t("sheet_title")))
        running = [0] * self.game.players
        for number, state in enumerate(deals, 1):
            seen = view(state, HUMAN)
            self.say(self.deal_line("sheet_deal", number, seen))
            if seen.soloist is None:
                continue
            if seen.scores is not None:
                running = [t + score for t, score in zip(running, seen.scores)]
            self.show_seats(seen, running)
        self.say(self.t("sheet_totals", totals=self.totals()))
        self.show_durch_games(self.game.rules, self.game.durch_games)

    # ------------------------------------------------------------------ saving

    def record(self) -> dict[str, Any]:
        data = game_record(self.game, players=self.names)
        data["seed"] = self.seed
        data["opponents"] = self.levels
        return data

    def save(self) -> str:
        path = self.save_path
        text = json.dumps(self.record(), ensure_ascii=False) + "\n"
        temporary = f"{path}.tmp"
        with open(temporary, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, path)
        return path

