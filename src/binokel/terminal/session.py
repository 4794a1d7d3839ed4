"""The game loop of ``binokel play``: the human at seat 0, computer opponents in the other seats.

Everything the terminal prints about a deal comes from ``view(state, 0)``; each bot sees
only ``view(state, its_seat)``. The loop never prints a card the player may not know.
When the player sits out a deal (``sit_out=1``), the bots play it and the player watches.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable, Sequence
from typing import Any

from binokel.action import (DURCH, GAMES, HAND_DURCH, PLAY_ON, SURRENDER, TAKE, Action, ActionKind,
                            Contract)
from binokel.ai import Bot, choose_safely, modest_action
from binokel.card import Card, Hand, Suit
from binokel.error import BinokelError
from binokel.game import Game
from binokel.meld import Meld, find_melds, meld_total, meld_values
from binokel.record import actions_of, game_record
from binokel.rules import Rules
from binokel.score import contract_worth
from binokel.state import Phase, State
from binokel.table import PERSON, Event, EventKind, Seat, Table
from binokel.terminal.messages import Messages
from binokel.terminal.parse import parse_input
from binokel.terminal.ruleset import rules_lines
from binokel.terminal.style import Style, sort_hand, suit_order
from binokel.view import SeatView, view

HUMAN = 0
NO_TRUMP_RULES = {"durch": "durch_rules", "open_durch": "durch_rules", "hand_durch": "durch_rules",
                  "bettel": "bettel_rules"}
"""What the soloist of each game without trump must do, announced when it is named."""


class Quit(Exception):
    """The player asked to stop (``q``, Ctrl-C or end of input)."""


class Session:
    """One game in the terminal. ``read`` and ``write`` are ``input`` and ``print`` by default."""

    def __init__(self, game: Game, *, seed: int, levels: Sequence[str], names: Sequence[str],
                 bots: Sequence[Bot | None], hint_bot: Callable[[], Bot | None], messages: Messages,
                 style: Style, save_path: str, save_at_end: bool, think: float, trace: bool = False,
                 read: Callable[[str], str] = input, write: Callable[[str], None] | None = None) -> None:
        seats = [PERSON, *(Seat(level) for level in levels)]
        self.table = Table.from_game(game, seats, seed)  # the driver: turns, deals, events
        self.seed = seed
        self.levels = list(levels)
        self.names = list(names)
        self.bots = list(bots)
        self.hint_bot = hint_bot
        self.t = messages
        self.style = style
        self.save_path = save_path
        self.save_at_end = save_at_end
        self.think = think
        self.trace = trace
        self.read = read
        self.write = write or (lambda text: print(text, flush=True))

    @property
    def game(self) -> Game:
        return self.table.game

    # ------------------------------------------------------------------ running

    def run(self, resumed: bool = False) -> int:
        """Play to the end of the game or until the player quits; the exit status."""
        try:
            self.show_rules()
            self.show_teams()
            if resumed:
                self.say(self.t("resumed", path=self.save_path))
                self.say(self.t("sheet_totals", totals=self.totals_text()))
                if not self.game.is_over() and not self.game.needs_deal():
                    self.recap()
                elif not self.game.is_over():
                    self.deal()
            if self.game.is_over():
                self.show_game_over()
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
        while not table.is_over():
            if table.needs_deal():
                if table.deal_number:
                    self.ask_next()
                self.deal()
                continue
            seat = table.to_move
            assert seat is not None
            actions = [self.bot_action(seat)] if table.is_bot(seat) else self.ask_human(self.game.current)
            for action in actions:
                self.apply(seat, action)

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
        self.announce(earlier, self.table.events_for(HUMAN, since))

    @staticmethod
    def action_count(state: State) -> int:
        """How many actions of the deal have been taken (after the cards were dealt)."""
        return len(actions_of(state)) if state.phase is not Phase.DEAL else 0

    def trace_point(self, number: int, state: State) -> None:
        """With --trace: a marker line "@@ DEAL ACTIONS" after every change, for tests."""
        if self.trace:
            self.say(f"@@ {number} {self.action_count(state)}")

    # ------------------------------------------------------------------ output helpers

    def say(self, text: str) -> None:
        self.write(text)

    def name(self, seat: int) -> str:
        return self.t("you") if seat == HUMAN else self.names[seat]

    def who(self, seat: int, key: str, **args: Any) -> str:
        """A message about ``seat``: the "you" form for the player, else with the name."""
        if seat == HUMAN:
            return self.t(f"{key}_you", **args)
        return self.t(key, name=self.names[seat], **args)

    def card(self, card: Card) -> str:
        return self.style.card(card)

    def cards(self, cards: Sequence[Card]) -> str:
        return self.style.cards(cards)

    def suit(self, suit: Suit) -> str:
        return f"{self.style.suit(suit)} {self.t('suit_' + suit.letter)}"

    def game_name(self, game: Contract | None) -> str:
        """A game ("H", "durch", "open_durch", "bettel", "hand_durch") in words."""
        if game is None:
            return "-"
        if game.trump is not None:
            return self.suit(game.trump)
        return self.t(game.word)

    def game_value(self, game: int, rules: Rules) -> str:
        """What a game without trump is worth: "±1000", or a whole game with durch_game=1."""
        worth = contract_worth(rules, game)
        return self.t("whole_game") if worth is None else f"±{worth}"

    def meld_text(self, meld: Meld) -> str:
        name = self.t("meld_" + meld.name)
        if meld.suit is not None and meld.name != "dissle":
            name = f"{name} {self.style.suit(meld.suit)}"
        return f"{name} {self.cards(meld.cards)} ({meld.points})"

    def action_text(self, action: Action) -> str:
        """An action as advice, e.g. "bid 160" or "play K♥"."""
        kind = action.kind
        if kind is ActionKind.PASS:
            return self.t("hint_pass")
        if kind is ActionKind.BID:
            return self.t("hint_bid", bid=action.value)
        if kind is ActionKind.DISCARD:
            return self.t("hint_discard", cards=self.card(action.card))
        if kind is ActionKind.GAME:
            return self.t("hint_game", game=self.game_name(action.contract))
        if kind is ActionKind.SURRENDER:
            return self.t("hint_surrender")
        if kind is ActionKind.PLAY_ON:
            return self.t("hint_play_on")
        if kind is ActionKind.TAKE:
            return self.t("hint_take")
        return self.t("hint_play", card=self.card(action.card))

    # ------------------------------------------------------------------ showing the deal

    def show_hand(self, seen: SeatView, numbered: Sequence[Action] = ()) -> None:
        """The player's hand by suit, trump first; cards of ``numbered`` actions get their number."""
        number = {a.card: i for i, a in enumerate(numbered, 1)}
        hand = sort_hand(seen.hand, seen.trump)
        label = self.t("trump") if seen.trump is not None else self.t("game_label")
        game = f"  ({label}: {self.game_name(seen.game)})" if seen.game is not None else ""
        self.say(self.t("your_hand", count=len(hand)) + game)
        for suit in suit_order(seen.trump):
            cards = [c for c in hand if c.suit is suit]
            if not cards:
                continue
            parts = []
            for card in cards:
                if card in number:
                    parts.append(f"{self.style.bold(f'[{number[card]}]')}{self.card(card)}")
                elif numbered:
                    parts.append(f"   {self.style.dim(self.card(card)) if self.style.color else self.card(card)}")
                else:
                    parts.append(self.card(card))
            marker = "*" if seen.trump is suit else " "
            self.say(f" {marker}{self.style.suit(suit)}  " + "  ".join(parts))

    def numbered_cards(self, seen: SeatView) -> list[Action]:
        """Legal card actions in the order the hand is shown."""
        order = {c: i for i, c in enumerate(sort_hand(set(seen.hand), seen.trump))}
        return sorted(seen.legal_actions, key=lambda a: order[a.card])

    def show_trick(self, seen: SeatView) -> None:
        trick = seen.trick
        number = len(seen.tricks) + 1
        if trick.cards:
            played = ", ".join(f"{self.name(seat)} {self.card(c)}" for seat, c in trick.plays)
            self.say(self.t("trick_so_far", number=number, played=played))
        else:
            self.say(self.t("trick_lead", number=number))

    def show_melds(self, seen: SeatView) -> None:
        if seen.melds is None:
            return
        first = seen.soloist if seen.soloist is not None else 0
        for i in range(seen.players):
            seat = (first + i) % seen.players
            if (seat == seen.soloist and seen.surrendered) or seat == seen.sitting_out:
                continue
            melds = seen.melds[seat]
            if melds:
                text = ", ".join(self.meld_text(m) for m in melds)
                self.say(self.who(seat, "melds", melds=text, total=meld_total(melds)))
            else:
                self.say(self.who(seat, "melds_none"))

    def recap(self) -> None:
        """After --resume: everything public so far in the current deal."""
        seen = view(self.game.current, HUMAN)
        index = len(self.game.deals)
        forehand = seen.seating.forehand
        self.say(self.style.bold(self.t("deal_header", number=index, dealer=self.name(seen.dealer),
                                        forehand=self.name(forehand))))
        if seen.auction:
            calls = [f"{self.name(seat)} {self.t('pass_word') if call.kind is ActionKind.PASS else call}"
                     for seat, call in zip(seen.callers, seen.auction)]
            self.say(self.t("auction_so_far", calls=", ".join(calls)))
        if seen.sitting_out is not None:
            self.say(self.who(seen.sitting_out, "sits_out"))
        if seen.soloist is not None:
            self.say(self.who(seen.soloist, "soloist", bid=seen.bid))
        if seen.tapp is not None:
            self.say(self.t("tapp", cards=self.cards(seen.tapp)))
        if seen.discard:
            self.say(self.t("your_discard", cards=self.cards(seen.discard)))
        if seen.game is not None and seen.soloist is not None:
            self.say(self.who(seen.soloist, "names_game", game=self.game_name(seen.game)))
        self.show_melds(seen)
        if seen.tricks:
            self.say(self.t("tricks_played", count=len(seen.tricks)))
            self.show_last(seen)
        if seen.to_move != HUMAN or seen.phase not in ("discard", "play"):  # else the prompt shows them
            if seen.trick.cards:
                self.show_trick(seen)
            self.show_open_hand(seen)
            if seen.sitting_out != HUMAN:
                self.show_hand(seen)

    def announce(self, earlier: SeatView, events: Sequence[Event]) -> None:
        """Say what the player may see of one step, event by event (``earlier``: the view before it)."""
        seen = self.table.view(HUMAN)
        for event in events:
            data = event.data
            kind = event.kind
            if kind is EventKind.ACTION:
                self.announce_action(data["seat"], data["action"], earlier, seen)
            elif kind is EventKind.SOLOIST:
                forced = all(call.kind is ActionKind.PASS for call in seen.auction)  # Zwangsspiel: everybody passed
                self.say(self.style.bold(self.who(data["seat"], "forced_soloist" if forced else "soloist",
                                                  bid=data["bid"])))
            elif kind is EventKind.TAPP:
                self.say(self.t("tapp", cards=self.cards(seen.tapp or ())))
            elif kind is EventKind.MELDS:
                self.show_melds(seen)
            elif kind is EventKind.OPEN_HAND:
                self.show_open_hand(seen)
            elif kind is EventKind.TRICK:
                trick = seen.tricks[data["number"] - 1]
                points = sum(c.points for c in trick.cards) + (10 if not any(seen.hand_sizes) else 0)
                self.say(self.style.bold(self.who(data["winner"], "wins_trick", points=points)))
            elif kind is EventKind.DEAL_OVER:
                if data["outcome"] == "redeal":
                    self.say(self.style.bold(self.t("all_passed")))
                self.show_deal_over(self.table.shown_deal, data["number"] - 1)

    def announce_action(self, seat: int, text: str | None, earlier: SeatView, seen: SeatView) -> None:
        """One seat's action (``text`` is None for a card laid away by another seat)."""
        if text is None or (earlier.phase == Phase.DISCARD.value and earlier.to_move == seat):
            if seen.phase != Phase.DISCARD.value:  # the discard is complete
                if seat == HUMAN:
                    self.say(self.t("your_discard", cards=self.cards(seen.discard or ())))
                else:
                    self.say(self.t("lays_away", name=self.names[seat], count=self.game.rules.tapp_size))
            return
        if text == "pass":
            self.say(self.who(seat, "passes"))
        elif text.isdigit():
            forced = not earlier.auction and self.game.rules.auction == "fixed"
            self.say(self.who(seat, "opens" if forced else "bids", bid=int(text)))
        elif earlier.phase == Phase.GAME.value or text == "hand_durch":
            self.say(self.style.bold(self.who(seat, "names_game", game=self.game_name(Contract.parse(text)))))
            if text in NO_TRUMP_RULES:
                self.say(self.who(seat, NO_TRUMP_RULES[text]))
        elif text == "surrender":
            self.say(self.style.bold(self.who(seat, "surrenders")))
        elif text == "play" and earlier.phase == Phase.SURRENDER.value:
            self.say(self.who(seat, "plays_on"))
        elif earlier.phase == Phase.PLAY.value:
            self.say(self.who(seat, "plays", card=self.card(Card.parse(text))))

    def show_open_hand(self, seen: SeatView) -> None:
        """Open Durch: the soloist's hand, public (the player's own hand is shown anyway)."""
        if seen.open_hand is not None and seen.soloist not in (None, HUMAN) and seen.phase == "play":
            assert seen.soloist is not None
            self.say(self.t("open_hand", name=self.names[seen.soloist],
                            cards=self.cards(sort_hand(seen.open_hand, None))))

    def show_last(self, seen: SeatView) -> None:
        if not seen.tricks:
            self.say(self.t("no_last"))
            return
        trick = seen.tricks[-1]
        assert trick.winner is not None  # a completed trick
        played = ", ".join(f"{self.name(seat)} {self.card(c)}" for seat, c in trick.plays)
        self.say(self.t("last_trick", number=len(seen.tricks), played=played, winner=self.name(trick.winner)))

    def show_deal_over(self, state: State, index: int) -> None:
        seen = view(state, HUMAN)
        self.say("")
        self.say(self.style.bold(self.deal_line("deal_over", index + 1, seen)))
        self.show_seats(seen, list(self.game.totals))
        if self.game.is_over():
            self.show_game_over()

    def show_seats(self, seen: SeatView, totals: Sequence[int]) -> None:
        """One line per player: melds, card points, the deal's score and the running total."""
        for seat in range(seen.players):
            melds = meld_total(seen.melds[seat]) if seen.melds is not None else 0
            cards = str(seen.trick_points[seat])
            if seat == seen.soloist and seen.discard is not None and seen.outcome != "surrendered":
                cards = str(seen.trick_points[seat] + sum(c.points for c in seen.discard))
            elif seat == seen.soloist and seen.outcome != "surrendered" and seen.trump is not None:
                cards += "*"  # the opponents never see the discard (it counts only in trump games)
            score = seen.scores[seat] if seen.scores is not None else 0
            line = self.t("sheet_seat", name=self.names[seat], melds=melds, cards=cards,
                          score=f"{score:+d}", total=totals[seat])
            self.say(line + (self.t("sat_out") if seat == seen.sitting_out else ""))
        if seen.soloist not in (None, HUMAN) and seen.outcome not in (None, "surrendered") and seen.trump is not None:
            self.say(self.t("without_discard"))

    def deal_line(self, key: str, number: int, seen: SeatView) -> str:
        """A deal in one line: who played what at which bid, and how it ended (or that all passed)."""
        if seen.soloist is None:
            return self.t(key + "_redeal" if seen.outcome == "redeal" else "sheet_auction", number=number)
        outcome = self.t("outcome_" + (seen.outcome or "in_progress"))
        return self.t(key, number=number, soloist=self.name(seen.soloist), bid=seen.bid,
                      game=self.game_name(seen.game), outcome=outcome)

    def show_game_over(self) -> None:
        winner = self.game.winner
        assert winner is not None  # the game is over
        total = self.game.totals[winner]
        self.say("")
        if self.game.rules.has_teams:  # the winner is a team: its number is its lowest seat
            names = ", ".join(self.name(seat) for seat in self.team(winner))
            ours = winner == self.game.rules.team_of(HUMAN)
            self.say(self.style.bold(self.t("wins_game_team_you" if ours else "wins_game_team",
                                            names=names, total=total)))
        else:
            self.say(self.style.bold(self.who(winner, "wins_game", total=total)))
        self.say(self.t("sheet_totals", totals=self.totals_text()))
        self.show_durch_games()

    def show_durch_games(self) -> None:
        """With durch_game=1: the whole games each seat won (+) or lost (-) by Durch."""
        if self.game.rules.durch_game:
            counts = ", ".join(f"{self.names[seat]} {count:+d}" for seat, count in enumerate(self.game.durch_games))
            self.say(self.t("durch_games", counts=counts))

    def team(self, team: int) -> list[int]:
        """The seats of a team."""
        return list(self.game.rules.team_seats(team))

    def show_teams(self) -> None:
        """Who plays with whom (only with partners)."""
        if self.game.rules.has_teams:
            ours, theirs = (", ".join(self.name(seat) for seat in self.team(team)) for team in (0, 1))
            self.say(self.t("teams", ours=ours, theirs=theirs))

    # ------------------------------------------------------------------ the player's turn

    def ask_human(self, state: State) -> list[Action]:
        seen = view(state, HUMAN)
        phase = state.phase
        choices: list[Action] = []
        if phase is Phase.AUCTION:
            legal = list(seen.legal_actions)
            fixed = state.rules.auction == "fixed"
            if fixed and not seen.auction:  # forehand's forced opening: nothing to decide
                return legal
            bid = next(a for a in legal if a.kind is ActionKind.BID)
            high = auction_high(seen)
            if high is None:
                self.say(self.t("no_bid_yet"))
            else:
                self.say(self.t("auction_state", bid=high[0], holder=self.name(high[1])))
            prompt = self.t("prompt_auction" if fixed else "prompt_open_auction", next=bid.value)
            choices = legal
        elif phase is Phase.TAPP:
            choices = [TAKE, GAMES[HAND_DURCH]]
            self.show_hand(seen)
            self.say(self.t("choose_tapp"))
            self.say(f"  [1] {self.t('choice_take')}")
            self.say(f"  [2] {self.t('hand_durch')} ({self.game_value(HAND_DURCH, state.rules)})")
            prompt = self.t("prompt_tapp")
        elif phase is Phase.DISCARD:
            choices = self.numbered_cards(seen)
            self.show_hand(seen, choices)
            left = state.rules.tapp_size - len(seen.discard or ())
            prompt = self.t("prompt_discard", count=left)
        elif phase is Phase.GAME:
            choices = list(seen.legal_actions)
            values = meld_values(seen.hand, state.rules)
            self.say(self.t("choose_game"))
            for i, action in enumerate(choices, 1):
                if action.value >= DURCH:
                    value = self.game_value(action.value, state.rules)
                    self.say(f"  [{i}] {self.game_name(action.contract)} ({value})")
                else:
                    total = values[Suit(action.value)]
                    self.say(f"  [{i}] {self.suit(Suit(action.value))}: {self.t('meld_value', points=total)}")
            prompt = self.t("prompt_game", count=len(choices), games=self.game_words(choices))
        elif phase is Phase.SURRENDER:
            choices = [PLAY_ON, SURRENDER]
            trump, stake = seen.trump, seen.bid
            assert trump is not None and stake is not None  # trump is named
            melds = find_melds(Hand(seen.hand), trump, state.rules)
            text = ", ".join(self.meld_text(m) for m in melds) or "-"
            self.say(self.t("your_melds_with", game=self.suit(trump), melds=text, total=meld_total(melds)))
            self.say(f"  [1] {self.t('choice_play_on', bid=seen.bid)}")
            self.say(f"  [2] {self.t('choice_surrender', bid=seen.bid, credit=state.rules.surrender_points(stake))}")
            prompt = self.t("prompt_surrender")
        else:
            choices = self.numbered_cards(seen)
            self.show_trick(seen)
            self.show_open_hand(seen)
            self.show_hand(seen, choices)
            prompt = self.t("prompt_play")
        return self.prompt(state, phase.value, prompt, choices)

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
            trial = state
            try:
                for action in parsed.actions:
                    trial = trial.apply(action)
            except BinokelError as error:
                self.say(self.t("illegal", reason=self.explain(error, state)))
                continue
            return list(parsed.actions)

    def game_words(self, choices: Sequence[Action]) -> str:
        """The words for the games without trump on offer, e.g. " or durch or bettel"."""
        return "".join(f" {self.t('or')} {action}" for action in choices if action.value >= DURCH)

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
        self.say(self.t("sheet_totals", totals=self.totals_text()))
        self.show_durch_games()

    def totals_text(self) -> str:
        """Each seat's total; with partners each team's (partners share their total)."""
        if self.game.rules.has_teams:
            return ", ".join(f"{'+'.join(self.names[seat] for seat in self.team(team))} {self.game.totals[team]}"
                             for team in (0, 1))
        return ", ".join(f"{self.names[seat]} {total}" for seat, total in enumerate(self.game.totals))

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


def auction_high(seen: SeatView) -> tuple[int, int] | None:
    """The highest bid so far and the seat holding it, from the public calls (None: no bid yet)."""
    bids = [(c.value, s) for s, c in zip(seen.callers, seen.auction) if c.kind is ActionKind.BID]
    return bids[-1] if bids else None
