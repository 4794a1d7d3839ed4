"""A deal in words for one seat: what the local game (``session.py``) and the terminal at a
server table (``remote.py``) both print, from a :class:`~binokel.view.SeatView` only.

Both front ends tell the same events the same way and offer the same numbered choices;
only where the view comes from differs (the local driver, or the server's messages).

>>> from binokel.terminal.messages import Messages
>>> from binokel.terminal.style import Style
>>> lines = []
>>> text = TableText(Messages("en"), Style(color=False, unicode=False), ["Anna", "Ben", "Cleo"], 1, lines.append)
>>> text.who(1, "passes"), text.who(2, "passes")
('You pass.', 'Cleo passes.')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from binokel.action import DURCH, GAMES, HAND_DURCH, PLAY_ON, SURRENDER, TAKE, Action, ActionKind, Contract
from binokel.card import Card, Hand, Suit
from binokel.meld import Meld, find_melds, meld_total
from binokel.rules import Rules
from binokel.score import contract_worth
from binokel.state import Phase
from binokel.terminal.messages import Messages
from binokel.terminal.style import Style, sort_hand, suit_order
from binokel.view import SeatView

NO_TRUMP_RULES = {"durch": "durch_rules", "open_durch": "durch_rules", "hand_durch": "durch_rules",
                  "bettel": "bettel_rules"}
"""What the soloist of each game without trump must do, announced when it is named."""


ACTION_OF: dict[str, Callable[[Mapping[str, Any]], str | None]] = {
    "action": lambda data: data["action"],
    "call": lambda data: data["call"],
    "discard": lambda data: data["card"],  # None: another seat's card, unseen
    "tapp_taken": lambda data: "take",
    "game_named": lambda data: data["game"],
    "surrender": lambda data: "surrender" if data["surrender"] else "play",
    "card_played": lambda data: data["card"],
}
"""The kinds of event that tell a seat's action, and that action in record notation
(``action`` is the table driver's one kind for all of them before typed events)."""
YES = ("y", "yes", "j", "ja", "o", "oui", "s", "si", "sì", "sim")
"""Yes in the five languages (the catalogue's surrender words count too)."""
KIND_NAMES = {"soloist": "auction_won", "tapp": "tapp_shown", "trick": "trick_won", "deal_over": "deal_scored"}
"""The table driver's event kinds before typed events, by their typed names (docs/server.md)."""


class TableText:
    """The sentences about a table for the person at seat ``me`` (None: a spectator), written with ``write``."""

    def __init__(self, messages: Messages, style: Style, names: Sequence[str], me: int | None,
                 write: Callable[[str], None]) -> None:
        self.t = messages
        self.style = style
        self.names = list(names)
        self.me = me
        self.write = write

    def say(self, text: str) -> None:
        self.write(text)

    # ------------------------------------------------------------------ words

    def name(self, seat: int) -> str:
        if seat == self.me:
            return self.t("you")
        return self.names[seat] if 0 <= seat < len(self.names) else "?"

    def who(self, seat: int, key: str, **args: Any) -> str:
        """A message about ``seat``: the "you" form for the player, else with the name."""
        if seat == self.me:
            return self.t(f"{key}_you", **args)
        return self.t(key, name=self.name(seat), **args)

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

    def game_words(self, choices: Sequence[Action]) -> str:
        """The words for the games without trump on offer, e.g. " or durch or bettel"."""
        return "".join(f" {self.t('or')} {action}" for action in choices if action.value >= DURCH)

    # ------------------------------------------------------------------ the deal

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

    def show_auction(self, seen: SeatView) -> None:
        """The calls so far, in one line (nothing before the first call)."""
        if seen.auction:
            calls = [f"{self.name(seat)} {self.t('pass_word') if call.kind is ActionKind.PASS else call}"
                     for seat, call in zip(seen.callers, seen.auction)]
            self.say(self.t("auction_so_far", calls=", ".join(calls)))

    def recap(self, seen: SeatView, number: int) -> None:
        """Everything public so far in the deal (after --resume, or on sitting down at a server table)."""
        self.say(self.style.bold(self.t("deal_header", number=number, dealer=self.name(seen.dealer),
                                        forehand=self.name(seen.seating.forehand))))
        self.show_auction(seen)
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
        if seen.to_move != self.me or seen.phase not in (Phase.DISCARD, Phase.PLAY):  # else the prompt shows them
            if seen.trick.cards:
                self.show_trick(seen)
            self.show_open_hand(seen)
            if self.me is not None and seen.sitting_out != self.me:
                self.show_hand(seen)

    def announce(self, earlier: SeatView, events: Sequence[Mapping[str, Any]], seen: SeatView) -> None:
        """Say what the player may see of one step, event by event (as JSON: ``{"kind", ...data}``;
        ``earlier``: the view before it, ``seen``: after it)."""
        for data in events:
            kind = KIND_NAMES.get(data["kind"], data["kind"])
            if kind in ACTION_OF:
                self.announce_action(data["seat"], ACTION_OF[kind](data), earlier, seen)
            elif kind == "auction_won":
                forced = all(call.kind is ActionKind.PASS for call in seen.auction)  # Zwangsspiel: everybody passed
                self.say(self.style.bold(self.who(data["seat"], "forced_soloist" if forced else "soloist",
                                                  bid=data["bid"])))
            elif kind == "tapp_shown":
                self.say(self.t("tapp", cards=self.cards([Card.parse(c) for c in data["cards"]])))
            elif kind == "melds":
                self.show_melds(seen)
            elif kind == "open_hand":
                self.show_open_hand(seen)
            elif kind == "trick_won":
                self.say(self.style.bold(self.who(data["winner"], "wins_trick", points=data["points"])))
            elif kind == "deal_scored":
                if data["outcome"] == "redeal":
                    self.say(self.style.bold(self.t("all_passed")))
                self.on_deal_over(data, seen)
            elif kind == "deal":
                self.on_deal(data, seen)

    def on_deal(self, data: Mapping[str, Any], seen: SeatView) -> None:
        """A new deal was dealt (the local game says so itself when it deals)."""

    def on_deal_over(self, data: Mapping[str, Any], seen: SeatView) -> None:
        """A deal ended: the score sheet of it."""

    def announce_action(self, seat: int, text: str | None, earlier: SeatView, seen: SeatView) -> None:
        """One seat's action (``text`` is None for a card laid away by another seat)."""
        if text is None or (earlier.phase is Phase.DISCARD and earlier.to_move == seat):
            if seen.phase is not Phase.DISCARD:  # the discard is complete
                if seat == self.me:
                    self.say(self.t("your_discard", cards=self.cards(seen.discard or ())))
                else:
                    self.say(self.t("lays_away", name=self.name(seat), count=seen.rules.tapp_size))
            return
        if text == "pass":
            self.say(self.who(seat, "passes"))
        elif text.isdigit():
            forced = not earlier.auction and seen.rules.auction == "fixed"
            self.say(self.who(seat, "opens" if forced else "bids", bid=int(text)))
        elif earlier.phase is Phase.GAME or text == "hand_durch":
            self.say(self.style.bold(self.who(seat, "names_game", game=self.game_name(Contract.parse(text)))))
            if text in NO_TRUMP_RULES:
                self.say(self.who(seat, NO_TRUMP_RULES[text]))
        elif text == "surrender":
            self.say(self.style.bold(self.who(seat, "surrenders")))
        elif text == "play" and earlier.phase is Phase.SURRENDER:
            self.say(self.who(seat, "plays_on"))
        elif earlier.phase is Phase.PLAY:
            self.say(self.who(seat, "plays", card=self.card(Card.parse(text))))

    def show_open_hand(self, seen: SeatView) -> None:
        """Open Durch: the soloist's hand, public (the player's own hand is shown anyway)."""
        if seen.open_hand is not None and seen.soloist not in (None, self.me) and seen.phase is Phase.PLAY:
            assert seen.soloist is not None
            self.say(self.t("open_hand", name=self.name(seen.soloist),
                            cards=self.cards(sort_hand(seen.open_hand, None))))

    def show_last(self, seen: SeatView) -> None:
        if not seen.tricks:
            self.say(self.t("no_last"))
            return
        trick = seen.tricks[-1]
        assert trick.winner is not None  # a completed trick
        played = ", ".join(f"{self.name(seat)} {self.card(c)}" for seat, c in trick.plays)
        self.say(self.t("last_trick", number=len(seen.tricks), played=played, winner=self.name(trick.winner)))

    def show_seats(self, seen: SeatView, totals: Sequence[int]) -> None:
        """One line per player: melds, card points, the deal's score and the running total."""
        for seat in range(seen.players):
            melds = meld_total(seen.melds[seat]) if seen.melds is not None else 0
            # The view's card points hold the discard for the soloist's own view; a surrender counts none.
            surrendered = seen.outcome == "surrendered"
            cards = str(seen.trick_points[seat] if surrendered else seen.card_points[seat])
            if seen.discard is None and seat == seen.soloist and not surrendered and seen.trump is not None:
                cards += "*"  # the opponents never see the discard (it counts only in trump games)
            score = seen.scores[seat] if seen.scores is not None else 0
            line = self.t("sheet_seat", name=self.names[seat], melds=melds, cards=cards,
                          score=f"{score:+d}", total=totals[seat])
            self.say(line + (self.t("sat_out") if seat == seen.sitting_out else ""))
        if seen.soloist not in (None, self.me) and seen.outcome not in (None, "surrendered") \
                and seen.trump is not None:
            self.say(self.t("without_discard"))

    def deal_line(self, key: str, number: int, seen: SeatView) -> str:
        """A deal in one line: who played what at which bid, and how it ended (or that all passed)."""
        if seen.soloist is None:
            return self.t(key + "_redeal" if seen.outcome == "redeal" else "sheet_auction", number=number)
        outcome = self.t("outcome_" + (seen.outcome or "in_progress"))
        return self.t(key, number=number, soloist=self.name(seen.soloist), bid=seen.bid,
                      game=self.game_name(seen.game), outcome=outcome)

    def show_deal_over(self, seen: SeatView, number: int, totals: Sequence[int]) -> None:
        self.say("")
        self.say(self.style.bold(self.deal_line("deal_over", number, seen)))
        self.show_seats(seen, totals)

    # ------------------------------------------------------------------ the game

    def totals_text(self, rules: Rules, totals: Sequence[int]) -> str:
        """Each seat's total; with partners each team's (partners share their total)."""
        if rules.has_teams:
            return ", ".join(f"{'+'.join(self.names[seat] for seat in rules.team_seats(team))} {totals[team]}"
                             for team in (0, 1))
        return ", ".join(f"{self.names[seat]} {total}" for seat, total in enumerate(totals))

    def show_game_over(self, rules: Rules, winner: int, totals: Sequence[int],
                       durch_games: Sequence[int] | None) -> None:
        """Who won the game (a team with partners: its number is its lowest seat) and the totals."""
        total = totals[winner]
        self.say("")
        if rules.has_teams:
            names = ", ".join(self.name(seat) for seat in rules.team_seats(winner))
            ours = self.me is not None and winner == rules.team_of(self.me)
            self.say(self.style.bold(self.t("wins_game_team_you" if ours else "wins_game_team",
                                            names=names, total=total)))
        else:
            self.say(self.style.bold(self.who(winner, "wins_game", total=total)))
        self.say(self.t("sheet_totals", totals=self.totals_text(rules, totals)))
        self.show_durch_games(rules, durch_games)

    def show_durch_games(self, rules: Rules, durch_games: Sequence[int] | None) -> None:
        """With durch_game=1: the whole games each seat won (+) or lost (-) by Durch."""
        if rules.durch_game and durch_games is not None:
            counts = ", ".join(f"{self.names[seat]} {count:+d}" for seat, count in enumerate(durch_games))
            self.say(self.t("durch_games", counts=counts))

    def show_teams(self, rules: Rules) -> None:
        """Who plays with whom (only with partners)."""
        if rules.has_teams:
            ours, theirs = (", ".join(self.name(seat) for seat in rules.team_seats(team)) for team in (0, 1))
            self.say(self.t("teams", ours=ours, theirs=theirs))

    # ------------------------------------------------------------------ the player's turn

    def offer(self, seen: SeatView, meld_values: Mapping[Suit, int]) -> tuple[str, list[Action], str]:
        """Show what the player chooses from at this turn: the phase, the numbered choices
        and the prompt. ``meld_values``: what the player's melds are worth with each trump
        (shown when naming the game)."""
        phase = seen.phase
        rules = seen.rules
        choices: list[Action]
        if phase is Phase.AUCTION:
            choices = list(seen.legal_actions)
            bid = next(a for a in choices if a.kind is ActionKind.BID)
            high = auction_high(seen)
            if high is None:
                self.say(self.t("no_bid_yet"))
            else:
                self.say(self.t("auction_state", bid=high[0], holder=self.name(high[1])))
            prompt = self.t("prompt_auction" if rules.auction == "fixed" else "prompt_open_auction", next=bid.value)
        elif phase is Phase.TAPP:
            choices = [TAKE, GAMES[HAND_DURCH]]
            self.show_hand(seen)
            self.say(self.t("choose_tapp"))
            self.say(f"  [1] {self.t('choice_take')}")
            self.say(f"  [2] {self.t('hand_durch')} ({self.game_value(HAND_DURCH, rules)})")
            prompt = self.t("prompt_tapp")
        elif phase is Phase.DISCARD:
            choices = self.numbered_cards(seen)
            self.show_hand(seen, choices)
            prompt = self.t("prompt_discard", count=rules.tapp_size - len(seen.discard or ()))
        elif phase is Phase.GAME:
            choices = list(seen.legal_actions)
            self.say(self.t("choose_game"))
            for i, action in enumerate(choices, 1):
                if action.value >= DURCH:
                    self.say(f"  [{i}] {self.game_name(action.contract)} ({self.game_value(action.value, rules)})")
                else:
                    total = meld_values[Suit(action.value)]
                    self.say(f"  [{i}] {self.suit(Suit(action.value))}: {self.t('meld_value', points=total)}")
            prompt = self.t("prompt_game", count=len(choices), games=self.game_words(choices))
        elif phase is Phase.SURRENDER:
            choices = [PLAY_ON, SURRENDER]
            trump, stake = seen.trump, seen.bid
            assert trump is not None and stake is not None  # trump is named
            melds = find_melds(Hand(seen.hand), trump, rules)
            text = ", ".join(self.meld_text(m) for m in melds) or "-"
            self.say(self.t("your_melds_with", game=self.suit(trump), melds=text, total=meld_total(melds)))
            self.say(f"  [1] {self.t('choice_play_on', bid=stake)}")
            self.say(f"  [2] {self.t('choice_surrender', bid=stake, credit=rules.surrender_points(stake))}")
            prompt = self.t("prompt_surrender")
        else:
            choices = self.numbered_cards(seen)
            self.show_trick(seen)
            self.show_open_hand(seen)
            self.show_hand(seen, choices)
            prompt = self.t("prompt_play")
        return phase.value, choices, prompt


    def sure_to_surrender(self, seen: SeatView, read: Callable[[str], str]) -> bool:
        """Surrendering costs the bid: ask once more (Enter: no)."""
        stake = seen.bid or 0
        answer = read(self.style.bold(self.t("confirm_surrender", bid=stake,
                                             credit=seen.rules.surrender_points(stake))) + " ")
        word = answer.strip().lower()
        return word in YES or word in (w.lower() for w in self.t.words.get("surrender", ()))


def forced_opening(seen: SeatView) -> bool:
    """Forehand's opening call of a fixed auction: nothing to decide."""
    return seen.phase is Phase.AUCTION and seen.rules.auction == "fixed" and not seen.auction


def auction_high(seen: SeatView) -> tuple[int, int] | None:
    """The highest bid so far and the seat holding it, from the public calls (None: no bid yet)."""
    bids = [(c.value, s) for s, c in zip(seen.callers, seen.auction) if c.kind is ActionKind.BID]
    return bids[-1] if bids else None
