"""Perft: the number of legal action sequences from fixed positions, per rule set.

Positions are deal records in ``tests/perft/positions.json`` (as python-chess keeps
perft files), each with pinned counts ``counts[d - 1]`` = the number of action
sequences of length ``d`` from the position (the chess convention: a deal that ends
earlier adds nothing at that depth). The engine's count must equal the pinned number
and the count of :class:`Ref`, a deliberately plain re-implementation of RULES.md
sections 3, 4, 6 and 7 on lists of card strings that shares no code with the engine.

Regenerate the data file (after a deliberate rule change only) with
``python tests/test_perft.py --generate``.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from binokel.record import deal_record, replay_deal
from binokel.rules import RULE_SETS, Rules
from binokel.state import Phase, State

DATA = Path(__file__).parent / "perft" / "positions.json"
RANK_ORDER = "ATKQJ97"  # trick order, highest first
SUITS = "SHDC"


def rank(card: str) -> int:
    return RANK_ORDER.index(card[0])


def suit(card: str) -> str:
    return card[1]


def trick_winner_position(trick: list[str], trump: str | None) -> int:
    """RULES.md section 6: the highest trump, else the highest card of the led suit;
    of two identical cards the one played first."""
    trumps = [i for i, c in enumerate(trick) if suit(c) == trump]
    candidates = trumps or [i for i, c in enumerate(trick) if suit(c) == suit(trick[0])]
    return min(candidates, key=lambda i: (rank(trick[i]), i))


def legal_cards(hand: list[str], trick: list[str], trump: str | None, must_beat: str,
                partner_winning: bool = False) -> list[str]:
    """RULES.md section 6 precedence: follow (and beat), else trump (and overtrump), else any.
    ``partner_winning`` (option partner_exemption): follow suit, but no need to beat or trump."""
    cards = sorted(set(hand))
    if not trick:
        return cards
    led = suit(trick[0])
    winning = trick[trick_winner_position(trick, trump)]
    follow = [c for c in cards if suit(c) == led]
    if follow:
        if suit(winning) == led:
            to_beat = winning
        elif must_beat == "led":  # option: beat the highest card of the led suit even after a trump
            to_beat = min((c for c in trick if suit(c) == led), key=rank)
        else:
            return follow
        if partner_winning:
            return follow
        higher = [c for c in follow if rank(c) < rank(to_beat)]
        return higher or follow
    trumps = [c for c in cards if suit(c) == trump]
    if trumps and partner_winning:
        return cards
    if trumps:
        if suit(winning) == trump:
            higher = [c for c in trumps if rank(c) < rank(winning)]
            return higher or trumps
        return trumps
    return cards


class Ref:
    """A plain model of one deal from the dealt cards: auction, discard, game, surrender, play."""

    def __init__(self, rules: Rules, dealer: int, hands: list[list[str]], tapp: list[str]) -> None:
        self.rules = rules
        self.n = rules.players
        self.forehand = (dealer + 1) % self.n
        # The seats that play, from forehand (with sit_out the dealer gets no cards and never moves).
        self.order = [(self.forehand + i) % self.n for i in range(self.n)
                      if not (rules.sit_out and (self.forehand + i) % self.n == dealer)]
        self.passed: list[int] = []  # open auction: seats out
        self.holder = None  # open auction: the seat with the highest bid
        self.hands = [list(h) for h in hands]
        self.tapp = list(tapp)
        self.phase = "auction"
        self.calls: list[str] = []
        self.speaker = self.forehand  # the seat to call
        self.other = None  # the other seat of the current duel (it holds the high bid)
        self.waiting = self.order[1:]  # seats still to take part
        self.high = 0
        self.soloist = None
        self.discard: list[str] = []
        self.trump: str | None = None
        self.durch = False
        self.leader = 0
        self.trick: list[str] = []

    def copy(self) -> Ref:
        new = Ref.__new__(Ref)
        new.__dict__.update(self.__dict__)
        new.hands = [list(h) for h in self.hands]
        new.calls, new.discard = list(self.calls), list(self.discard)
        new.trick, new.waiting = list(self.trick), list(self.waiting)
        new.passed = list(self.passed)
        return new

    def to_move(self) -> int:
        if self.phase == "auction":
            return self.speaker
        if self.phase == "play":
            return self.seat_after(self.leader, len(self.trick))
        return self.soloist

    def seat_after(self, seat: int, steps: int) -> int:
        return self.order[(self.order.index(seat) + steps) % len(self.order)]

    def moves(self) -> list[str]:
        """The legal actions in record notation."""
        if self.phase == "tapp":
            return ["hand_durch", "take"]
        if self.phase == "auction" and self.rules.auction == "open":
            low = self.rules.min_bid if self.holder is None else self.high + 10
            return ["pass"] + [str(v) for v in range(low, low + 501, 10)]
        if self.phase == "auction":
            if not self.calls:
                return [str(self.rules.min_bid)]
            return ["pass", str(self.high + 10)]
        if self.phase == "discard":
            return sorted(set(self.hands[self.soloist]))
        if self.phase == "game":
            return list(SUITS) + [word for word, value in (("durch", self.rules.durch),
                                                           ("open_durch", self.rules.open_durch),
                                                           ("bettel", self.rules.bettel)) if value]
        if self.phase == "surrender":
            return ["surrender", "play"]
        if self.phase == "play":
            seat = self.to_move()
            partner = False
            if self.trick and self.rules.partner_exemption:
                winner = self.seat_after(self.leader, trick_winner_position(self.trick, self.trump))
                partner = winner % 2 == seat % 2
            return legal_cards(self.hands[seat], self.trick, self.trump, self.rules.must_beat, partner)
        return []

    def play(self, move: str) -> Ref:
        if move not in self.moves():
            raise ValueError(f"illegal {move} in {self.phase}")
        new = self.copy()
        getattr(new, "_" + self.phase)(move)
        return new

    def _auction(self, move: str) -> None:
        if self.rules.auction == "open":
            return self._open_auction(move)
        self.calls.append(move)
        if len(self.calls) == 1:  # forehand's forced opening; middlehand answers first
            self.high = int(move)
            self.other, self.speaker = self.forehand, self.waiting.pop(0)
        elif move != "pass":  # the duel goes on, the other seat answers
            self.high = int(move)
            self.speaker, self.other = self.other, self.speaker
        elif self.waiting:  # the other seat survives and meets the next seat
            self.speaker = self.waiting.pop(0)
        else:
            self.soloist = self.other
            self._won_auction()

    def _open_auction(self, move: str) -> None:
        """Each in turn passes (out for good) or raises; over when only the highest bidder
        is left, or when all have passed (redeal, or the dealer plays the minimum)."""
        self.calls.append(move)
        if move == "pass":
            self.passed.append(self.speaker)
        else:
            self.high, self.holder = int(move), self.speaker
        left = [s for s in self.order if s not in self.passed]
        if left == [self.holder] or not left:
            if not left and self.rules.all_pass == "redeal":
                self.phase = "over"
                return
            if not left:
                self.holder, self.high = self.order[-1], self.rules.min_bid
            self.soloist = self.holder
            self._won_auction()
            return
        step = 1
        while self.seat_after(self.speaker, step) in self.passed:
            step += 1
        self.speaker = self.seat_after(self.speaker, step)

    def _won_auction(self) -> None:
        if self.rules.hand_durch:  # the soloist first chooses: take the Tapp or open Durch from the hand
            self.phase = "tapp"
        else:
            self._tapp("take")

    def _tapp(self, move: str) -> None:
        if move == "take":
            self.hands[self.soloist] += self.tapp
            self.phase = "discard" if self.tapp else "game"  # no Tapp: nothing to lay away
        else:
            self.durch, self.phase, self.leader = move, "play", self.soloist

    def _discard(self, card: str) -> None:
        self.hands[self.soloist].remove(card)
        self.discard.append(card)
        if len(self.discard) == len(self.tapp):
            self.phase = "game"

    def _game(self, game: str) -> None:
        if game in ("durch", "open_durch", "bettel"):  # no trump, no melds, the soloist leads
            self.durch = game
            self.phase, self.leader = "play", self.soloist
        else:
            self.trump, self.phase = game, "surrender"

    def _surrender(self, answer: str) -> None:
        if answer == "surrender":
            self.phase = "over"
        else:
            self.phase = "play"
            self.leader = self.soloist if self.rules.first_lead == "soloist" else self.forehand

    def _play(self, card: str) -> None:
        self.hands[self.to_move()].remove(card)
        self.trick.append(card)
        if len(self.trick) < len(self.order):
            return
        winner = self.seat_after(self.leader, trick_winner_position(self.trick, self.trump))
        self.trick, self.leader = [], winner
        if self.durch == "bettel":
            broken = winner == self.soloist  # Bettel: the soloist's first trick ends it
        else:
            broken = bool(self.durch) and winner != self.soloist
        if broken or not any(self.hands):
            self.phase = "over"

    @classmethod
    def from_record(cls, record: dict) -> Ref:
        rules = Rules.parse(record["rules"])
        ref = cls(rules, record["dealer"], record["hands"], record["tapp"])
        moves = list(record.get("auction", []))
        if rules.hand_durch and record.get("game") == "hand_durch":
            moves.append("hand_durch")
        elif rules.hand_durch and ("discard" in record or "game" in record):
            moves.append("take")
        moves += record.get("discard", [])
        if "game" in record and record["game"] != "hand_durch":
            moves.append(record["game"])
            if record["game"] in SUITS:
                moves.append("surrender" if record["surrender"] else "play")
        moves += [card for trick in record.get("tricks", []) for card in trick]
        for move in moves:
            ref = ref.play(move)
        return ref


def ref_perft(ref: Ref, depth: int) -> int:
    if depth <= 1:
        return len(ref.moves()) if depth else 1
    return sum(ref_perft(ref.play(move), depth - 1) for move in ref.moves())


def engine_perft(state: State, depth: int) -> list[int]:
    """``[perft(1), ..., perft(depth)]`` in one walk of the tree."""
    counts = [0] * depth

    def walk(state: State, level: int) -> None:
        actions = state.legal_actions()
        counts[level] += len(actions)
        if level + 1 < depth:
            for action in actions:
                walk(state.apply(action), level + 1)

    if depth:
        walk(state, 0)
    return counts


def load_positions() -> list[dict]:
    return json.loads(DATA.read_text()) if DATA.exists() else []


POSITIONS = load_positions()


def test_every_rule_set_has_perft_positions() -> None:
    covered = {Rules.parse(p["record"]["rules"]).name for p in POSITIONS}
    assert covered >= set(RULE_SETS)
    assert {p["kind"] for p in POSITIONS} >= {"deal", "game", "play", "mid-trick", "durch"}


@pytest.mark.parametrize("position", POSITIONS, ids=[p["name"] for p in POSITIONS])
def test_perft(position: dict) -> None:
    record = position["record"]
    state = replay_deal(record)
    ref = Ref.from_record(record)
    assert ref.to_move() == state.to_move and ref.phase == state.phase.value
    assert [sorted(h) for h in ref.hands] == [sorted(str(c) for c in state.hand(seat)) for seat in range(state.players)]
    counts = position["counts"]
    assert engine_perft(state, len(counts)) == counts
    assert ref_perft(ref, len(counts)) == counts[-1]


LOCKSTEP = [p for p in POSITIONS if p["kind"] in ("game", "play", "mid-trick", "durch") and p["counts"][-1] < 5000]


@pytest.mark.parametrize("position", LOCKSTEP, ids=[p["name"] for p in LOCKSTEP])
def test_engine_and_reference_agree_move_by_move(position: dict) -> None:
    """Lockstep walk of the whole perft tree: the same legal moves at every node."""
    nodes = 0

    def walk(state: State, ref: Ref, depth: int) -> None:
        nonlocal nodes
        nodes += 1
        engine_moves = [str(a) for a in state.legal_actions()]
        assert sorted(engine_moves) == sorted(ref.moves()), deal_record(state)
        assert state.to_move == (ref.to_move() if ref.phase != "over" else None)
        if depth:
            for move in engine_moves:
                walk(state.apply(state.parse_action(move)), ref.play(move), depth - 1)

    walk(replay_deal(position["record"]), Ref.from_record(position["record"]), len(position["counts"]))
    assert nodes > 10


def test_reference_model_sanity() -> None:
    """Hand-checked cases from RULES.md for the reference model itself."""
    # Worked example (seed 000): spades trump, A leads AH, B's only heart is the other AH, C plays TH.
    assert trick_winner_position(["AH", "AH", "TH"], "S") == 0
    assert legal_cards(["AH", "KS"], ["AH"], "S", "winner") == ["AH"]
    # Must beat when possible, else any card of the led suit.
    assert legal_cards(["AH", "KH", "9H"], ["TH"], "S", "winner") == ["AH"]
    assert legal_cards(["KH", "9H", "AS"], ["TH"], "S", "winner") == ["9H", "KH"]
    # Led suit trumped: any card of the led suit (standard) or beat the led suit's best (option).
    assert legal_cards(["AH", "KH"], ["TH", "9S"], "S", "winner") == ["AH", "KH"]
    assert legal_cards(["AH", "KH"], ["TH", "9S"], "S", "led") == ["AH"]
    # Void: trump, and overtrump when possible.
    assert legal_cards(["QS", "AS", "AD"], ["TH", "KS"], "S", "winner") == ["AS"]
    assert legal_cards(["QS", "JS", "AD"], ["TH", "KS"], "S", "winner") == ["JS", "QS"]
    assert legal_cards(["AD", "KC"], ["TH", "KS"], "S", "winner") == ["AD", "KC"]
    # Durch: no trump, a void seat plays any card.
    assert legal_cards(["AD", "KC"], ["TH"], None, "winner") == ["AD", "KC"]
    # Auction: 150 pass pass leaves forehand the soloist at 150.
    rules = Rules()
    ref = Ref(rules, 2, [[], [], []], ["KH", "9C", "JD"])
    for call in ("150", "160", "pass", "170", "180", "pass"):
        ref = ref.play(call)
    assert ref.soloist == 1 and ref.high == 180  # middlehand beat forehand, then outlasted rearhand
    ref = Ref(rules, 2, [[]] * 3, ["KH", "9C", "JD"]).play("150").play("pass").play("pass")
    assert ref.soloist == 0 and ref.phase == "discard"


# ---------------------------------------------------------------------- data generation

def _advance(state: State, rng: random.Random, until) -> State:
    while not until(state):
        state = state.apply(rng.choice(state.legal_actions()))
    return state


def _generate() -> list[dict]:
    """Build the positions from fixed seeds (used once; the records are what the tests read)."""
    specs = []
    for text, deal_depth in (("standard", 7), ("classic40", 7), ("sevens", 7), ("standard(must_beat=led)", 6),
                             ("standard(first_lead=soloist)", 6), ("standard(durch=0)", 6),
                             # added with seats, teams and the open auction (the positions above are unchanged):
                             ("four-solo", 6), ("four-sitout", 6), ("kreuz", 6), ("sechser", 6),
                             ("kreuz(partner_exemption=1)", 5), ("club", 2), ("standard(auction=open,sit_out=0)", 2),
                             ("standard(open_durch=1500,bettel=300)", 6),
                             ("kreuz12(bettel=300)", 6)):  # the Tapp of 0 (added later)
        specs.append((text, deal_depth))
    positions = []
    for number, (text, deal_depth) in enumerate(specs):
        rules = Rules.parse(text)
        rng = random.Random(1000 + number)
        dealt = State.new(rules, number % rules.players).deal_random(rng)
        positions.append({"name": f"{rules.text}-deal", "kind": "deal", "record": deal_record(dealt)})
        positions[-1]["depth"] = deal_depth
        # The game phase: name a game, surrender or play on, the first cards.
        at_game = _advance(dealt, rng, lambda s: s.phase is Phase.GAME)
        positions.append({"name": f"{rules.text}-game", "kind": "game", "record": deal_record(at_game), "depth": 5})
        # Trump games played on, near the end and in the middle of a trick.
        for kind, tricks_left, extra, depth in (("play", 3, 0, 9), ("play", 5, 0, 15), ("mid-trick", 4, 1, 11)):
            trial = random.Random(rng.randrange(2**32))
            state = _advance(dealt, trial, lambda s: s.phase is Phase.GAME)
            state = state.apply(state.parse_action(trial.choice("SHDC"))).apply_text("play")
            # (_advance calls it at once; the defaults only make the binding explicit)
            state = _advance(state, trial, lambda s, played=rules.hand_size - tricks_left, extra=extra:
                             len(s.tricks) == played and len(s.trick) == extra)
            if engine_perft(state, depth)[-1] > 20000:  # keep the suite fast: one trick less
                depth, tricks_left = depth - 3, tricks_left - 1
                for _ in range(rules.players):
                    state = state.apply(trial.choice(state.legal_actions()))
            positions.append({"name": f"{rules.text}-{kind}-{tricks_left}", "kind": kind,
                              "record": deal_record(state), "depth": depth})
        if rules.durch:
            state = _advance(dealt, rng, lambda s: s.phase is Phase.GAME).apply_text("durch")
            positions.append({"name": f"{rules.text}-durch", "kind": "durch", "record": deal_record(state), "depth": 6})
        for word in ("open_durch", "bettel"):
            if getattr(rules, word):
                state = _advance(dealt, rng, lambda s: s.phase is Phase.GAME).apply_text(word)
                positions.append({"name": f"{rules.text}-{word}", "kind": "durch", "record": deal_record(state),
                                  "depth": 6})
    # Open Durch from the hand: the deal with its choice after the auction, and the Durch itself.
    rules = Rules.parse("standard(hand_durch=2000)")
    rng = random.Random(3000)
    dealt = State.new(rules, 1).deal_random(rng)
    positions.append({"name": f"{rules.text}-deal", "kind": "deal", "record": deal_record(dealt), "depth": 6})
    at_tapp = _advance(dealt, rng, lambda s: s.phase is Phase.TAPP)
    positions.append({"name": f"{rules.text}-tapp", "kind": "game", "record": deal_record(at_tapp), "depth": 5})
    positions.append({"name": f"{rules.text}-hand_durch", "kind": "durch",
                      "record": deal_record(at_tapp.apply_text("hand_durch")), "depth": 6})
    for position in positions:
        state = replay_deal(position["record"])
        position["counts"] = engine_perft(state, position.pop("depth"))
    return positions


if __name__ == "__main__":
    if sys.argv[1:] == ["--generate"]:
        DATA.parent.mkdir(exist_ok=True)
        DATA.write_text(json.dumps(_generate(), indent=1) + "\n")
        print(f"wrote {DATA}")
