"""``binokel play``: a whole game of Binokel in the terminal against computer opponents.

Any rule set: three, four or six seats, partners, the open auction, Durch, open Durch and
Bettel. The player is seat 0, the computer opponents fill the other seats. What the terminal
shows of a deal comes only from ``binokel.view.view(state, 0)``; each computer opponent sees
only its own view.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import sys
from typing import Any

from binokel.error import BinokelError, RecordError
from binokel.game import Game
from binokel.rules import Rules

DEFAULT_SAVE = "binokel-game.json"
DEFAULT_LEVEL = "medium"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``binokel play``."""
    parser.add_argument("--rules", default=None,
                        help="rule set, e.g. kreuz or 'standard(target=1000)' (default: chosen at the start, "
                             "standard when the input is not a terminal)")
    parser.add_argument("--opponents", default=None, metavar="LEVEL[,LEVEL...]",
                        help="the computer opponents' levels, easy, medium, hard or expert: one for all, or one per "
                             f"opponent seat (default: {DEFAULT_LEVEL})")
    parser.add_argument("--seed", type=int, default=None, help="random seed: same seed, same deals")
    parser.add_argument("--lang", default="en", choices=("de", "en", "fr", "it", "pt"), help="language (default: en)")
    parser.add_argument("--name", default=None, help="your name in the game record")
    parser.add_argument("--save", default=None, metavar="FILE",
                        help=f"write the game record to FILE at the end or when you quit "
                             f"(quitting saves to ./{DEFAULT_SAVE} otherwise)")
    parser.add_argument("--resume", default=None, metavar="FILE", help="continue a game saved with q or --save")
    parser.add_argument("--no-color", action="store_true",
                        help="no colours and plain suit letters S H D C (also: NO_COLOR=1)")
    parser.add_argument("--ascii", action="store_true", help="suit letters S H D C instead of ♠♥♦♣")
    parser.add_argument("--think", type=float, default=0.5, metavar="SECONDS",
                        help="computer thinking time per decision (default: 0.5)")
    parser.add_argument("--jobs", type=_jobs, default=None, metavar="N",
                        help="processes each hard or expert opponent (and the hint) thinks in, sampling N times the "
                             "worlds in the same time (default: the number of cores; at most 8 are used)")
    parser.add_argument("--join", nargs="?", const="", default=None, metavar="LINK",
                        help="take a seat at a table of binokel serve: an invite link (http://host:8000/#/join/CODE),"
                             " #/game/ID to come back to your seat, or #/watch/ID to watch; with no link, list the"
                             " games this terminal holds a seat at")
    parser.add_argument("--trace", action="store_true", help=argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    """Play (or resume) a game; 0 when it ends or is saved, 2 on bad options."""
    from binokel.ai import HINT_LEVEL, LEVELS, make_bot
    from binokel.terminal.messages import Messages
    from binokel.terminal.players import NAMES
    from binokel.terminal.ruleset import choose_rules
    from binokel.terminal.session import Session
    from binokel.terminal.style import choose_style

    for stream in (sys.stdout, sys.stdin):
        try:
            stream.reconfigure(errors="replace")  # type: ignore[union-attr]
        except (AttributeError, ValueError):
            pass
    # A failing bot is survived quietly at the table (binokel.ai logs it): show it only when debugging.
    logging.getLogger("binokel").addHandler(
        logging.StreamHandler() if os.environ.get("BINOKEL_DEBUG") else logging.NullHandler())
    messages = Messages(args.lang)
    style = choose_style(no_color=args.no_color, ascii_only=args.ascii)
    if args.join is not None:
        try:
            from binokel.terminal.remote import join
        except ImportError as error:
            raise BinokelError("join_needs_websockets", missing=str(error.name)) from None
        return join(args.join, args.name, style, messages)
    record: dict[str, Any] = {}
    if args.resume:
        record = _load(args.resume)
        from binokel.record import replay_game
        game = replay_game(record)
        if args.rules and Rules.parse(args.rules) != game.rules:
            raise BinokelError("rules_differ", given=args.rules, saved=game.rules.text)
        seed = record.get("seed")
        if isinstance(seed, bool) or not isinstance(seed, int):
            seed = random.randrange(2**31)
    else:
        chosen_rules: Rules | None = Rules.parse(args.rules or "standard")
        if not args.rules and sys.stdin.isatty():  # a player at the keyboard chooses (Enter: standard)
            try:
                chosen_rules = choose_rules(input, lambda text: print(text, flush=True), messages, style)
            except (EOFError, KeyboardInterrupt):
                chosen_rules = None
                print()
        if chosen_rules is None:  # the player quit before the game began: nothing to save
            return 0
        rules = chosen_rules
        seed = args.seed if args.seed is not None else random.randrange(2**31)
        game = Game.seeded(rules, seed)

    seats = game.rules.players - 1
    opponents = args.opponents or ",".join(record.get("opponents") or []) or DEFAULT_LEVEL
    chosen = [level.strip().lower() for level in opponents.split(",") if level.strip()]
    if len(chosen) == 1:
        chosen *= seats
    known = LEVELS
    if len(chosen) != seats or any(level not in known for level in chosen):
        raise BinokelError("bad_opponents", seats=seats, known=", ".join(known), value=repr(opponents))

    names = record.get("players") if isinstance(record.get("players"), list) else None
    if names is None or len(names) != game.rules.players or args.name:
        names = [args.name or messages("you"), *NAMES[:seats]]
    jobs = args.jobs if args.jobs is not None else os.cpu_count() or 1
    bots = [None, *(_parallel(make_bot(level, seed=seed + seat), jobs) for seat, level in enumerate(chosen, 1))]
    hint: list[Any] = []

    def hint_bot() -> Any:
        if not hint:
            hint.append(_parallel(make_bot(HINT_LEVEL, seed=seed), jobs))
        return hint[0]

    if jobs > 1 and any(hasattr(bot, "JOBS") for bot in bots):
        from binokel.ai import parallel
        parallel.warm(jobs)  # started while the player reads the first hand

    session = Session(
        game, seed=seed, levels=chosen, names=[str(n) for n in names], bots=bots, hint_bot=hint_bot,
        messages=messages, style=style, save_path=args.save or args.resume or DEFAULT_SAVE,
        save_at_end=bool(args.save), think=max(0.0, args.think), trace=args.trace)
    return session.run(resumed=bool(args.resume))


def _jobs(text: str) -> int:
    """``--jobs``: a whole number of at least 1."""
    try:
        jobs = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"needs a whole number, not {text!r}") from None
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"needs at least 1, not {jobs}")
    return jobs


def _parallel(bot: Any, jobs: int) -> Any:
    """``bot``, thinking in ``jobs`` processes if it searches (hard, expert): a person waits
    for one opponent at a time, so each may use every core."""
    if hasattr(bot, "JOBS"):
        bot.JOBS = jobs
    return bot


def _load(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
    except OSError as error:
        raise RecordError("cannot_read", name=path, reason=str(error.strerror)) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RecordError("not_json_record", name=path, reason=str(error)) from None
    if not isinstance(data, dict):
        raise RecordError("not_game_record", name=path)
    return data
