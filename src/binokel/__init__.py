"""binokel — the Swabian trick-and-meld card game, as a pure-Python rules library.

The core (cards, rules, melds, actions, state, view, score, record, game) imports no
I/O library; the computer opponents, the server, the web page and the command line
are built around it.
"""

from binokel.action import Action, ActionKind
from binokel.card import CARDS, Card, Hand, Rank, Suit
from binokel.error import BinokelError, IllegalActionError, NotationError, RecordError
from binokel.meld import Meld, find_melds, meld_total
from binokel.rules import RULE_SETS, Rules
from binokel.state import Outcome, Phase, State
from binokel.trick import Trick
from binokel.view import SeatView, view

__all__ = [
    "Action", "ActionKind", "CARDS", "Card", "Hand", "Rank", "Suit", "BinokelError", "IllegalActionError",
    "NotationError", "RecordError", "Meld", "find_melds", "meld_total", "RULE_SETS", "Rules", "Outcome",
    "Phase", "State", "Trick", "SeatView", "view",
]
__version__ = "0.1.0"
