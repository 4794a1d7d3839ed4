"""The ``binokel`` command: replay, melds, rules, score-deal, deal — and the game, tournament and server.

Every error of the user's input ends with exit status 2 and one line naming the problem;
no traceback ever reaches the user.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from binokel.card import Hand, Suit, parse_cards
from binokel.error import BinokelError, RecordError, SummaryError
from binokel.game import Game
from binokel.meld import find_melds, meld_total
from binokel.record import deal_record, replay, result
from binokel.rules import DESCRIPTIONS, RULE_SETS, STANDARD, Rules, options
from binokel.score import DealSummary, explain
from binokel.state import State

USAGE_ERROR = 2

# Subcommands built around the core, each in its own module with add_arguments(parser) and run(args).
PLUGINS = {
    "play": ("binokel.terminal", "play a game in the terminal against computer opponents", ""),
    "pad": ("binokel.terminal.pad", "keep the score of a game played with real cards", ""),
    "serve": ("binokel.server", "serve the game in your browser", "serve"),
    "schema": ("binokel.server.schema_file", "write the JSON Schema of the server's protocol", "serve"),
    "tournament": ("binokel.tournament", "measure computer opponents against each other on paired deals", ""),
    "selfplay": ("binokel.research.selfplay", "write self-play deals with per-decision features for training", ""),
}


class UsageError(Exception):
    """Bad command-line input: reported as one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    """An argument parser that reports a usage error as one line instead of exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "run", None):
            parser.print_help()
            return USAGE_ERROR
        return int(args.run(args) or 0)
    except UsageError as error:
        print(f"{error} (see --help)", file=sys.stderr)
        return USAGE_ERROR
    except BinokelError as error:
        print(f"binokel: {error}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


class VersionAction(argparse.Action):
    """--version: one unwrapped line (argparse's own version action wraps it at the terminal width)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> NoReturn:
        print(version_text())
        parser.exit()


def version_text() -> str:
    """``binokel 0.1.0 (compiled core: card, state, ...; solver search in C)`` or ``binokel 0.1.0
    (pure Python)``."""
    import binokel
    from binokel.ai.solver import search_core

    names = binokel.compiled()
    if not names:
        core = "pure Python"
    elif len(names) == len(binokel.COMPILED_MODULES):
        core = "compiled core: " + ", ".join(names)
    else:  # some modules did not compile, or were edited since the build
        core = "compiled core: " + ", ".join(names) + "; pure Python: " + ", ".join(
            n for n in binokel.COMPILED_MODULES if n not in names)
    search = "; solver search in C" if search_core() == "C" else ""
    return f"binokel {binokel.__version__} ({core}{search})"


def build_parser() -> Parser:
    parser = Parser(prog="binokel", description="Binokel, the Swabian trick-and-meld card game.")
    parser.add_argument("--version", action=VersionAction, nargs=0,
                        help="print the version and whether the compiled core is active, and exit")
    sub = parser.add_subparsers(title="commands", metavar="COMMAND", parser_class=Parser)

    p = sub.add_parser("replay", help="check and score deal or game records",
                       description="Check every action of deal or game records against the rules and print the result.")
    p.add_argument("files", nargs="+", metavar="FILE", help="record files ('-' for standard input)")
    p.add_argument("--json", action="store_true", help="print one JSON object per file")
    p.set_defaults(run=run_replay)

    p = sub.add_parser("melds", help="the best melds of some cards with a trump",
                       description="Print the best melds of the given cards with that trump, and their total.")
    p.add_argument("cards", nargs="+", metavar="CARD", help="cards such as AS 10H QS (any number)")
    p.add_argument("--trump", required=True, help="trump suit: S, H, D or C")
    p.add_argument("--rules", default="standard", help="rule set (default: standard)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=run_melds)

    p = sub.add_parser("rules", help="list every rule set and option",
                       description="List every rule set and every option with its standard value and meaning.")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=run_rules)

    p = sub.add_parser("score-deal", help="score one deal's summary (JSON on standard input)",
                       description="Read one deal's summary as JSON on standard input, e.g. "
                                   '{"dealer": 2, "soloist": 0, "bid": 200, "game": "S", "surrendered": false, '
                                   '"melds": [150, 40, 20], "card_points": [90, 100, 60], "tricks": [4, 6, 5]}, '
                                   'and print {"scores": [...]} (one per seat). An impossible summary: exit status 2 '
                                   'and one line {"error": {"code", "message", "field"}}. See docs/records.md.')
    p.add_argument("--rules", default="standard", help="rule set (default: standard)")
    p.add_argument("--explain", action="store_true", help="print the whole explanation: per side what counted, "
                   "credits, the doubled bid, the exact and the rounded total")
    p.add_argument("--lang", default="en", help="language of an error's message (de, en, fr, it, pt; default en)")
    p.set_defaults(run=run_score_deal)

    p = sub.add_parser("deal", help="print a random deal record (hands and Tapp only)",
                       description="Shuffle and deal with a seed; print the deal record.")
    p.add_argument("--seed", type=int, required=True, help="random seed (same seed, same deal)")
    p.add_argument("--rules", default="standard", help="rule set (default: standard)")
    p.set_defaults(run=run_deal)

    for name, (module, about, extra) in PLUGINS.items():
        p = sub.add_parser(name, help=about, description=about[0].upper() + about[1:] + ".")
        plugin = _plugin(module)
        if plugin is None:
            p.set_defaults(run=lambda args, name=name, extra=extra: _unavailable(name, extra))
        else:
            plugin.add_arguments(p)
            p.set_defaults(run=plugin.run)
    return parser


def _plugin(module: str) -> Any:
    """The subcommand module, or None when it (or what it needs) is not installed."""
    try:
        plugin = importlib.import_module(module)
    except ImportError:
        return None
    return plugin if hasattr(plugin, "add_arguments") and hasattr(plugin, "run") else None


def _unavailable(name: str, extra: str) -> int:
    hint = f": install it with pip install 'binokel[{extra}]'" if extra else ""
    raise UsageError(f"binokel {name}: not available in this installation{hint}")


# ---------------------------------------------------------------------- replay

def run_replay(args: argparse.Namespace) -> int:
    status = 0
    for name in args.files:
        try:
            subject = replay(_load_json(name))
        except RecordError as error:
            status = USAGE_ERROR
            if args.json:
                print(json.dumps({"error": {"message": error.message, "at": error.at}}))
            else:
                print(f"binokel replay: {name}: {error}", file=sys.stderr)
            continue
        outcome = result(subject)
        if args.json:
            print(json.dumps(outcome))
        else:
            print(_describe(name, subject, outcome))
    return status


def _load_json(name: str) -> Any:
    try:
        if name == "-":
            text = sys.stdin.read()
        else:
            with open(name, encoding="utf-8") as file:
                text = file.read()
    except OSError as error:
        raise RecordError("cannot_read", name=name, reason=str(error.strerror)) from None
    except UnicodeDecodeError:
        raise RecordError("not_utf8", name=name) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError("not_json", reason=error.msg, line=error.lineno, column=error.colno) from None


def _describe(name: str, subject: State | Game, outcome: dict[str, Any]) -> str:
    if isinstance(subject, Game):
        lines = [f"{name}: game of {len(outcome['deals'])} deals ({subject.rules.text})"]
        for number, deal in enumerate(outcome["deals"], 1):
            lines.append(f"  deal {number}: " + _deal_line(deal))
        winner = outcome["winner"]
        won = f"winner: seat {winner}" if winner is not None else "no winner yet"
        if subject.rules.has_teams and winner is not None:  # with teams the winner is the team number
            won = f"winner: team {winner} (seats {', '.join(str(s) for s in range(winner, subject.players, 2))})"
        lines.append(f"  totals: {' '.join(map(str, outcome['totals']))}; {won}")
        if "durch_games" in outcome:
            lines.append(f"  whole games by Durch: {' '.join(f'{g:+d}' for g in outcome['durch_games'])}")
        return "\n".join(lines)
    lines = [f"{name}: {_deal_line(outcome)}"]
    for seat, s in enumerate(outcome["seats"]):
        melds = ", ".join(f"{m['name']}{' ' + m['suit'] if m['suit'] else ''} {m['points']}" for m in s["melds"])
        lines.append(f"  seat {seat}: melds {s['meld_points']}{' (' + melds + ')' if melds else ''}, "
                     f"cards {s['card_points']}, tricks {s['tricks']}, score {s['score']:+d}")
    return "\n".join(lines)


def _deal_line(deal: dict[str, Any]) -> str:
    if deal["outcome"] == "redeal":
        return "everybody passed: redeal, no score"
    if deal["soloist"] is None:
        return "in progress (auction)"
    game = {None: "no game named yet", "durch": "Durch", "open_durch": "open Durch", "bettel": "Bettel",
            "hand_durch": "open Durch from the hand"}.get(
        deal["game"], f"trump {deal['game']}")
    scores = " ".join(f"{s['score']:+d}" for s in deal["seats"])
    outcome = deal["outcome"].replace("_", " ")
    return f"soloist seat {deal['soloist']}, bid {deal['bid']}, {game}: {outcome}; scores {scores}"


# ---------------------------------------------------------------------- melds

def run_melds(args: argparse.Namespace) -> int:
    rules = Rules.parse(args.rules)
    trump = Suit.parse(args.trump)
    cards = parse_cards(args.cards)
    for card in cards:
        if not rules.kind_mask >> card.index & 1:
            raise UsageError(f"binokel melds: {card} is not in the {rules.deck} deck of {rules.text}")
    melds = find_melds(Hand(cards), trump, rules)
    total = meld_total(melds)
    if args.json:
        print(json.dumps({"melds": [m.to_json() for m in melds], "total": total}))
    else:
        for meld in melds:
            print(f"{meld.name.replace('_', ' '):15} {' '.join(map(str, meld.cards)):30} {meld.points:5}")
        print(f"{'total':46} {total:5}")
    return 0


# ---------------------------------------------------------------------- rules

def run_rules(args: argparse.Namespace) -> int:
    if args.json:
        print(json.dumps({
            "rule_sets": {name: {"text": rules.text, "about": DESCRIPTIONS[name],
                                 "options": {o: getattr(rules, o) for o, _, _ in options()}}
                          for name, rules in RULE_SETS.items()},
            "options": [{"name": n, "standard": d, "meaning": h} for n, d, h in options()],
        }))
        return 0
    print("Rule sets:")
    for name, rules in RULE_SETS.items():
        changed = ", ".join(f"{o}={value}" for o, value, _ in rules.differences(STANDARD))
        print(f"  {name:12} {DESCRIPTIONS[name]}" + (f"\n  {'':12} ({changed})" if changed else ""))
    print("\nOptions (standard value): change any with e.g. 'standard(target=1000,surrender_credit=30)'")
    for name, default, meaning in options():
        print(f"  {name + '=' + str(default):26} {meaning}")
    return 0


# ---------------------------------------------------------------------- score-deal

def run_score_deal(args: argparse.Namespace) -> int:
    try:
        rules = Rules.parse(args.rules)
    except BinokelError as error:
        return _score_error(error, "rules", args.lang)
    try:
        data = json.loads(sys.stdin.read())
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        reason = error.msg if isinstance(error, json.JSONDecodeError) else "not UTF-8"
        return _score_error(SummaryError("summary_not_json", field="summary", reason=reason), "summary", args.lang)
    try:
        explained = explain(rules, DealSummary.from_json(data))
    except SummaryError as error:
        return _score_error(error, str(error.params.get("field", "")), args.lang)
    print(json.dumps(explained.to_json() if args.explain else {"scores": list(explained.scores)}))
    return 0


def _score_error(error: BinokelError, field: str, lang: str) -> int:
    """One JSON line naming the problem and its field; exit status 2."""
    print(json.dumps({"error": {"code": error.code, "message": error.render(lang), "field": field}},
                     ensure_ascii=False))
    return USAGE_ERROR


# ---------------------------------------------------------------------- deal

def run_deal(args: argparse.Namespace) -> int:
    rules = Rules.parse(args.rules)
    rng = random.Random(args.seed)
    dealer = rng.randrange(rules.players)  # the first dealer by lot
    state = State.new(rules, dealer).deal_random(rng)
    print(json.dumps({**deal_record(state), "seed": args.seed}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
