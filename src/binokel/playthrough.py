"""Golden playthroughs: one seeded deal of every shipped rule set, step by step, as text.

In the manner of OpenSpiel's playthrough files: for every step (the chance step, then each
action) the public observation, each seat's view in short (hand, own discard, legal
actions), the events of the table driver with who may see them, the action taken next,
and at the end the scores. Actions are chosen by a generator seeded per rule set over the
legal actions, so any change in the rules, the views or the events shows as a readable
diff of ``tests/playthroughs/*.txt`` (checked by ``tests/test_playthrough.py``).

Regenerate after an intended change with::

    PYTHONPATH=src python -m binokel.playthrough --regenerate

>>> text = playthrough("standard")
>>> text.splitlines()[1]
'rules: standard  seed: 1  first dealer: 0'
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

from binokel.action import DURCH, PLAY_ON, TAKE, Action, ActionKind
from binokel.rules import RULE_SETS
from binokel.table import PERSON, PUBLIC_FIELDS, Event, Table, Visibility
from binokel.view import SeatView

SEED = 1
DIRECTORY = Path(__file__).resolve().parents[2] / "tests" / "playthroughs"
"""Where the files live in a source checkout."""


def playthrough(rules: str, seed: int = SEED) -> str:
    """The playthrough text of one seeded deal of ``rules``."""
    table = Table(rules, [PERSON] * RULE_SETS[rules].players, seed=seed)
    rng = random.Random(f"playthrough:{seed}")
    lines = ["# binokel playthrough (regenerate: PYTHONPATH=src python -m binokel.playthrough --regenerate)",
             f"rules: {table.rules.text}  seed: {seed}  first dealer: {table.game.first_dealer}", ""]
    events = table.deal()
    lines.append(f"step {table.version}: chance deals the cards")
    while True:
        lines += _events(events, table.players)
        lines += _observation(table)
        if table.needs_deal() or table.is_over():
            break
        seat = table.to_move
        assert seat is not None and seat >= 0
        action = choose(table.view(seat), rng)
        events = table.act(seat, action)
        lines.append(f"step {table.version}: seat {seat} takes {action}")
    deal = table.shown_deal
    lines.append(f"final: outcome {deal.outcome.value if deal.outcome else None}  scores {_list(deal.scores or ())}"
                 f"  totals {_list(table.game.totals)}")
    return "\n".join(lines) + "\n"


def choose(seen: SeatView, rng: random.Random) -> Action:
    """A seeded choice that plays a whole deal: in the auction pass or the lowest bid, take
    the Tapp, name a trump suit and play on; discards and cards at random among the legal."""
    legal = seen.legal_actions
    if seen.phase == "auction":
        return rng.choice(legal[:2])  # pass sorts before the bids
    preferred = [a for a in legal if a in (TAKE, PLAY_ON) or (a.kind is ActionKind.GAME and a.value < DURCH)]
    return rng.choice(preferred or list(legal))


def _observation(table: Table) -> list[str]:
    public = table.view(0).to_json()
    shown = {name: public[name] for name in ("phase", "to_move", *PUBLIC_FIELDS) if public[name] not in (None, [])}
    lines = [f"  public: {_compact(shown)}"]
    for seat in range(table.players):
        lines.append(f"  seat {seat}: {_seat(table.view(seat))}")
    return lines


def _seat(seen: SeatView) -> str:
    parts = [f"hand {' '.join(map(str, seen.hand)) or '-'}"]
    if seen.discard:
        parts.append(f"discard {' '.join(map(str, seen.discard))}")
    if seen.legal_actions:
        parts.append(f"legal {' '.join(map(str, seen.legal_actions))}")
    return " | ".join(parts)


def _events(events: list[Event], players: int) -> list[str]:
    return [f"  event {e.kind.value} [{_who(e.visibility, players)}]: {_compact(e.data)}" for e in events]


def _who(visibility: Visibility, players: int) -> str:
    if visibility == Visibility.everyone(players):
        return "everyone"
    seats = " ".join(map(str, sorted(visibility.seats)))
    return f"seats {seats}" + (" + spectators" if visibility.spectators else "")


def _compact(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), sort_keys=True)


def _list(values: Any) -> str:
    return " ".join(str(v) for v in values)


def path_of(rules: str, directory: Path = DIRECTORY) -> Path:
    return directory / f"{rules}.txt"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m binokel.playthrough", description=__doc__.split("\n\n")[0])
    parser.add_argument("--regenerate", action="store_true", help=f"rewrite the files in {DIRECTORY}")
    parser.add_argument("--dir", type=Path, default=DIRECTORY, help="the folder of the files")
    parser.add_argument("rules", nargs="*", help="rule sets (default: every shipped one)")
    args = parser.parse_args(argv)
    names = args.rules or list(RULE_SETS)
    if not args.regenerate:
        for name in names:
            sys.stdout.write(playthrough(name))
        return 0
    args.dir.mkdir(parents=True, exist_ok=True)
    for name in names:
        path_of(name, args.dir).write_text(playthrough(name), encoding="utf-8")
        print(f"wrote {path_of(name, args.dir)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
