"""``binokel pad``: the score pad in the terminal, for a game played with real cards.

The scorekeeper enters each deal as on paper, in as few keystrokes as possible: the
soloist (or 0: everybody passed), the bid (Enter: the lowest), the game, surrendered or
not, the melds, the tricks and the card points (one seat's may be ``-``: worked out from
the others'). Each deal is scored by :func:`binokel.score.explain` (through
:class:`binokel.sheet.Sheet`); an impossible entry is refused in the catalogue's words and
only the field at fault is asked again. ``c N`` corrects deal N, ``s`` shows the sheet,
``q`` quits. The sheet is saved after every deal (``--save``, default
``binokel-pad.json``) and ``--resume FILE`` continues it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from binokel.action import BETTEL, DURCH, Contract
from binokel.error import BinokelError, SummaryError
from binokel.rules import AllPass, Auction, Rules
from binokel.score import contract_value
from binokel.sheet import Sheet
from binokel.terminal.messages import Messages

DEFAULT_SAVE = "binokel-pad.json"
YES = frozenset("yjos1")
"""First letters of yes in the five languages (yes, ja, oui, sì/sim) and 1."""
STEPS = ("soloist", "bid", "game", "surrendered", "melds", "tricks", "card_points")


class Quit(Exception):
    """The scorekeeper quits (q or the end of input): the sheet is saved already."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``binokel pad``."""
    parser.add_argument("--rules", default=None, help="rule set, e.g. club or 'standard(target=1000)' "
                        "(default: asked at the start)")
    parser.add_argument("--players", default=None, metavar="NAME,NAME,...",
                        help="the players' names in seat order (default: asked at the start)")
    parser.add_argument("--first-dealer", type=int, default=1, metavar="N",
                        help="the player who deals first, 1 to the number of players (default: 1)")
    parser.add_argument("--lang", default="en", choices=("de", "en", "fr", "it", "pt"), help="language (default: en)")
    parser.add_argument("--save", default=None, metavar="FILE", help=f"the sheet's file, written after every deal "
                        f"(default: ./{DEFAULT_SAVE}, or the file resumed)")
    parser.add_argument("--resume", default=None, metavar="FILE", help="continue a sheet saved by binokel pad")


def run(args: argparse.Namespace) -> int:
    """Keep the score until the game ends or the scorekeeper quits; 0, or 2 on bad options."""
    t = Messages(args.lang)
    pad = Pad(t, input_line=_input, say=print)
    try:
        if args.resume:
            sheet = _load(args.resume)
        else:
            sheet = pad.set_up(args.rules, args.players, args.first_dealer)
        pad.save_to = args.save or args.resume or DEFAULT_SAVE
        pad.keep(sheet)
    except Quit:
        pass
    except BinokelError as error:
        print(f"binokel pad: {t.reason(error)}", file=sys.stderr)
        return 2
    return 0


def _input(prompt: str) -> str:
    try:
        return input(prompt)
    except EOFError:
        print()
        raise Quit from None


def _load(name: str) -> Sheet:
    try:
        with open(name, encoding="utf-8") as file:
            data = json.load(file)
    except (OSError, ValueError):
        raise SummaryError("pad_not_a_sheet", field=name) from None
    return Sheet.from_json(data)


class Pad:
    """The conversation: asks, reads, refuses and shows; the sheet does the scoring."""

    def __init__(self, t: Messages, input_line: Callable[[str], str], say: Callable[[str], None]) -> None:
        self.t, self.input_line, self.say = t, input_line, say
        self.save_to = DEFAULT_SAVE

    def ask(self, prompt: str) -> str:
        answer = self.input_line(prompt).strip()
        if answer.lower() == "q":
            raise Quit
        return answer

    # ------------------------------------------------------------------ set-up

    def set_up(self, rules_text: str | None, players: str | None, first_dealer: int) -> Sheet:
        t = self.t
        while True:
            try:
                rules = Rules.parse(rules_text or self.ask(t("pad_rules")) or "standard")
                break
            except BinokelError as error:
                if rules_text:
                    raise
                self.say(t("pad_refused", reason=t.reason(error)))
        names = [n.strip() for n in players.split(",")] if players else [
            self.ask(t("pad_player", number=seat + 1)) or str(seat + 1) for seat in range(rules.players)]
        return Sheet.new(rules, names, first_dealer - 1)

    # ------------------------------------------------------------------ the game

    def keep(self, sheet: Sheet) -> Sheet:
        """Enter deals (and corrections) until the game is over and the scorekeeper is done."""
        t = self.t
        self.say(t("pad_start", rules=sheet.rules.text, players=self.names(sheet), file=self.save_to))
        self.save(sheet)
        while True:
            if sheet.is_over():
                self.show_end(sheet)
                answer = self.ask(t("pad_end"))
                if not answer:
                    return sheet
                sheet = self.command(sheet, answer) or sheet
                continue
            number = len(sheet.deals) + 1
            self.say(t("pad_deal", number=number, dealer=sheet.players[sheet.next_dealer]))
            entry = self.enter(sheet, len(sheet.deals))
            if isinstance(entry, Sheet):  # a command was given instead of a deal
                sheet = entry
                continue
            sheet = entry[0]
            self.save(sheet)
            self.show_deal(sheet, len(sheet.deals) - 1)

    def command(self, sheet: Sheet, answer: str) -> Sheet | None:
        """``s`` (the sheet) or ``c N`` (correct deal N); None when ``answer`` is neither."""
        word = answer.lower().split()
        if word == ["s"]:
            self.show_sheet(sheet)
            return sheet
        if len(word) == 2 and word[0] == "c" and word[1].isdigit():
            index = int(word[1]) - 1
            if not 0 <= index < len(sheet.deals):
                self.say(t_refused(self.t, SummaryError("pad_no_such_deal", field="deal", last=len(sheet.deals),
                                                        value=index + 1)))
                return sheet
            self.say(self.t("pad_correcting", number=index + 1, dealer=sheet.players[sheet.dealer_of(index)]))
            entry = self.enter(sheet, index)
            if isinstance(entry, tuple):
                sheet = entry[0]
                self.save(sheet)
                self.show_deal(sheet, index)
                self.show_totals(sheet)
            return sheet
        return None

    def enter(self, sheet: Sheet, index: int) -> tuple[Sheet] | Sheet:
        """Ask for deal ``index`` (a new one, or a correction) until the sheet takes it;
        a command at the first question instead gives the sheet it leaves."""
        rules, t = sheet.rules, self.t
        entry: dict[str, Any] = {}
        while True:
            # Each answer is checked at once against what is entered so far: a refusal names
            # its field, and only that question is asked again.
            pending = next((step for step in STEPS if step not in entry and self.needed(rules, entry, step)), None)
            if pending is not None:
                value = self.ask_step(sheet, index, entry, pending)
                if isinstance(value, Sheet):
                    return value
                entry[pending] = value
            try:
                summary = self.summary(rules, sheet.dealer_of(index), entry)
                new = sheet.add(summary) if index == len(sheet.deals) else sheet.correct(index, summary)
            except SummaryError as error:
                field = str(error.params.get("field", "")).partition("[")[0]
                step = field if field in STEPS else "soloist"
                if error.code == "summary_missing" and step not in entry:
                    continue  # not asked yet
                self.say(t_refused(t, error))
                if step == "soloist":
                    entry.clear()
                entry.pop(step, None)
                if step in ("tricks", "card_points"):  # the two are read together: either may be wrong
                    entry.pop("tricks", None)
                    entry.pop("card_points", None)
                continue
            if not any(step not in entry and self.needed(rules, entry, step) for step in STEPS):
                return (new,)

    @staticmethod
    def needed(rules: Rules, entry: dict[str, Any], step: str) -> bool:
        if step == "soloist":
            return True
        if entry.get("soloist") is None:
            return False
        game = entry.get("game")
        if step in ("bid", "game"):
            return True
        without_trump = game is not None and game >= DURCH
        if step == "surrendered":
            return not without_trump
        if step == "melds":
            return not without_trump
        if step == "card_points" and without_trump:
            return False  # a Durch or Bettel is decided by its tricks alone
        return not entry.get("surrendered")

    def ask_step(self, sheet: Sheet, index: int, entry: dict[str, Any], step: str) -> Any:
        rules, t = sheet.rules, self.t
        playing = [s for s in range(rules.players) if s != rules.sitting_out(sheet.dealer_of(index))]
        names = " ".join(sheet.players[s] for s in playing)
        while True:
            if step == "soloist":
                choices = ", ".join(f"{s + 1} {sheet.players[s]}" for s in playing)
                redeal = rules.auction is Auction.OPEN and rules.all_pass is not AllPass.FORCED
                answer = self.ask(t("pad_soloist_redeal" if redeal else "pad_soloist", choices=choices))
                command = self.command(sheet, answer) if answer and not answer.isdigit() else None
                if command is not None:
                    return command
                if answer == "0" and redeal:
                    return None
                if answer.isdigit() and 1 <= int(answer) <= rules.players:
                    return int(answer) - 1
                self.say(t("pad_which", choices=choices))
                continue
            if step == "bid":
                answer = self.ask(t("pad_bid", bid=rules.min_bid))
                if not answer:
                    return rules.min_bid
                if answer.isdigit() and len(answer) <= 11:
                    return int(answer)
                self.say(t_refused(t, SummaryError("summary_not_whole_number", field="bid", value=repr(answer))))
                continue
            if step == "game":
                games = [c.word for c in Contract if c < DURCH or contract_value(rules, c)]
                answer = self.ask(t("pad_game", games=" ".join(games))).lower()
                chosen = [c for c in Contract if c.word.lower() == answer or (len(answer) > 1
                          and c.word.startswith(answer) and c.word in games)]
                if len(chosen) == 1 and chosen[0].word in games:
                    return chosen[0]
                self.say(t("pad_which", choices=" ".join(games)))
                continue
            if step == "surrendered":
                return self.ask(t("pad_surrendered")).lower()[:1] in YES
            if step == "melds":
                numbers = self.numbers(t("pad_melds", names=names), len(playing), "melds", empty=0)
                if numbers is not None:
                    return self.by_seat(rules, playing, numbers)
                continue
            if step == "tricks" and entry["game"] >= DURCH:
                made = self.ask(t("pad_made")).lower()[:1] in YES
                return self.contract_tricks(rules, playing, entry["soloist"], entry["game"], made)
            if step == "tricks":
                numbers = self.numbers(t("pad_tricks", names=names), len(playing), "tricks")
                if numbers is not None:
                    return self.by_seat(rules, playing, numbers)
                continue
            numbers = self.numbers(t("pad_card_points", names=names), len(playing), "card_points", gap=True)
            if numbers is not None:
                return self.by_seat(rules, playing, numbers)

    def numbers(self, prompt: str, count: int, field: str, empty: int | None = None,
                gap: bool = False) -> list[int | None] | None:
        """One number per playing seat (Enter: all ``empty``; with ``gap``, ``-`` or a short
        line for the one to work out); None after saying what is wrong."""
        words = self.ask(prompt).replace(",", " ").split()
        if not words and empty is not None:
            return [empty] * count
        if gap and len(words) < count:
            words += ["-"] * (count - len(words))
        if len(words) != count:
            self.say(t_refused(self.t, SummaryError("summary_length", field=field, count=count, given=len(words))))
            return None
        values: list[int | None] = []
        for i, word in enumerate(words):
            if gap and word == "-":
                values.append(None)
            elif word.isdigit() and len(word) <= 11:
                values.append(int(word))
            else:
                self.say(t_refused(self.t, SummaryError("summary_not_whole_number", field=f"{field}[{i}]",
                                                        value=repr(word))))
                return None
        return values

    @staticmethod
    def by_seat(rules: Rules, playing: list[int], values: list[int | None]) -> list[int | None]:
        """Values of the playing seats spread over every seat (the seat sitting out: 0)."""
        full: list[int | None] = [0] * rules.players
        for seat, value in zip(playing, values):
            full[seat] = value
        return full

    @staticmethod
    def contract_tricks(rules: Rules, playing: list[int], soloist: int, game: Contract, made: bool) -> list[int]:
        """Tricks that decide a Durch or Bettel as entered: made, or lost at the first trick."""
        tricks = [0] * rules.players
        other = next(s for s in playing[playing.index(soloist) + 1:] + playing if s != soloist)
        if game == BETTEL:
            tricks[soloist if not made else other] = 1 if not made else rules.hand_size
        else:
            tricks[soloist if made else other] = rules.hand_size if made else 1
        return tricks

    @staticmethod
    def summary(rules: Rules, dealer: int, entry: dict[str, Any]) -> dict[str, Any]:
        data: dict[str, Any] = {"dealer": dealer, "soloist": entry.get("soloist")}
        if data["soloist"] is None:
            return data
        data["surrendered"] = bool(entry.get("surrendered"))
        if "game" in entry:
            data["game"] = entry["game"].word
        for name in ("bid", "melds", "tricks", "card_points"):
            if name in entry:
                data[name] = entry[name]
        return data

    # ------------------------------------------------------------------ showing

    def names(self, sheet: Sheet) -> str:
        return ", ".join(f"{seat + 1} {name}" for seat, name in enumerate(sheet.players))

    def side_name(self, sheet: Sheet, seat: int) -> str:
        if not sheet.rules.has_teams:
            return sheet.players[seat]
        return "+".join(sheet.players[s] for s in sheet.rules.team_seats(sheet.rules.team_of(seat)))

    def show_deal(self, sheet: Sheet, index: int) -> None:
        deal = sheet.deals[index]
        scores = "  ".join(f"{sheet.players[s]} {score:+d}" for s, score in enumerate(deal.scores))
        self.say(self.t("pad_scored", number=index + 1, outcome=self.t(f"pad_outcome_{deal.outcome.value}"),
                        scores=scores))
        self.show_totals(sheet)

    def show_totals(self, sheet: Sheet) -> None:
        totals = "  ".join(f"{name} {total}" for name, total in zip(sheet.players, sheet.totals))
        self.say(self.t("pad_totals", totals=totals))

    def show_sheet(self, sheet: Sheet) -> None:
        for index, (deal, totals) in enumerate(zip(sheet.deals, sheet.running())):
            summary = deal.summary
            who = "–" if summary.soloist is None else sheet.players[summary.soloist]
            what = "" if summary.soloist is None else f" {summary.bid} {summary.game}"
            self.say(f"{index + 1:>3}. {who}{what}: {self.t(f'pad_outcome_{deal.outcome.value}')}  "
                     + "  ".join(f"{score:+d}" for score in deal.scores) + "  | " + "  ".join(map(str, totals)))
        self.show_totals(sheet)

    def show_end(self, sheet: Sheet) -> None:
        winner = sheet.winner
        assert winner is not None
        self.say(self.t("pad_winner", name=self.side_name(sheet, winner)))
        for rank, (seat, total) in enumerate(sheet.ranking(), 1):
            self.say(f"{rank}. {self.side_name(sheet, seat)} {total}")

    def save(self, sheet: Sheet) -> None:
        """Write the sheet atomically: a crash leaves the old file or the new, never half of one."""
        temporary = f"{self.save_to}.tmp"
        with open(temporary, "w", encoding="utf-8") as file:
            json.dump(sheet.to_json(), file, ensure_ascii=False, indent=1)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, self.save_to)


def t_refused(t: Messages, error: BinokelError) -> str:
    return t("pad_refused", reason=t.reason(error))
