"""RULES.md sections 6, 7 and 10 written out a second time, on card texts and plain lists,
independently of binokel.trick and binokel.score: which cards are legal, who wins a trick,
what each seat scores. Random playouts of every rule variant are checked against it at
every card and at the end of every deal.

Only the public facts of a state are read (hands, the trick so far, the tricks played,
the discard, the melds shown); the reference decides everything else itself.
"""

from __future__ import annotations

import random

import pytest

from binokel.card import CARDS
from binokel.rules import Rules
from binokel.state import Phase, State

from conftest import RULE_VARIANTS, RULE_IDS

RANKS = "AT KQJ97".replace(" ", "")  # trick order, high to low
POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "7": 0}


def rank(card: str) -> int:
    return RANKS.index(card[0])


def winner_position(trick: list[str], trump: str | None) -> int:
    """Section 6: the highest trump, else the highest card of the led suit; of two identical
    cards the one played first."""
    best = 0
    for i, card in enumerate(trick):
        top = trick[best]
        if card[1] == top[1]:
            if rank(card) < rank(top):
                best = i
        elif card[1] == trump:
            best = i
    return best


def legal_cards(hand: list[str], trick: list[str], trump: str | None, rules: Rules, partner_wins: bool) -> set[str]:
    """Section 6's three steps (and the options must_beat=led and partner_exemption=1)."""
    if not trick:
        return set(hand)
    led = trick[0][1]
    top = trick[winner_position(trick, trump)]
    follow = [c for c in hand if c[1] == led]
    if follow:
        if partner_wins and rules.partner_exemption:
            return set(follow)
        if top[1] == led:
            target = top
        elif rules.must_beat == "led":
            target = min((c for c in trick if c[1] == led), key=rank)
        else:
            return set(follow)
        higher = [c for c in follow if rank(c) < rank(target)]
        return set(higher or follow)
    trumps = [c for c in hand if trump is not None and c[1] == trump]
    if trumps and not (partner_wins and rules.partner_exemption):
        if top[1] == trump:
            return set([c for c in trumps if rank(c) < rank(top)] or trumps)
        return set(trumps)
    return set(hand)


def team(rules: Rules, seat: int, players: list[int]) -> list[int]:
    if rules.teams == "none":
        return [seat]
    return [s for s in players if s % 2 == seat % 2]


def round_score(rules: Rules, value: int) -> int:
    if not rules.rounding:
        return value
    low = value - value % 10  # Python's % is never negative: low is the ten at or below
    return low + 10 if value % 10 >= 5 else low


def reference_scores(state: State) -> list[int]:
    """Sections 4, 6, 7 and 10 from the deal's public facts."""
    rules, n = state.rules, state.players
    out = state.sitting_out
    players = [s for s in range(n) if s != out]
    soloist, bid, game = state.soloist, state.bid, state.game
    scores = [0] * n
    if soloist is None:  # everybody passed, redeal
        return scores
    assert bid is not None and game is not None
    tricks = [0] * n
    cards = [0] * n
    for number, trick in enumerate(state.tricks):
        texts = [str(c) for c in trick.cards]
        winner = trick.seats[winner_position(texts, game.word if game.trump is not None else None)]
        assert winner == trick.winner
        tricks[winner] += 1
        cards[winner] += sum(POINTS[c[0]] for c in texts)
        if number == rules.hand_size - 1:
            cards[winner] += 10  # the last trick
    cards[soloist] += sum(POINTS[str(CARDS[k])[0]] for k in state.discard)  # the discard is the soloist's
    melds = list(state.meld_points)
    ours = team(rules, soloist, players)
    theirs = [s for s in players if s not in ours]
    sides = [ours] + ([theirs] if rules.teams != "none" else [[s] for s in theirs])

    def give(side: list[int], value: int) -> None:
        for seat in side:
            scores[seat] = round_score(rules, value)

    if game.trump is None:  # Durch, open Durch, Bettel
        is_bettel = game.word == "bettel"
        made = tricks[soloist] == (0 if is_bettel else rules.hand_size)
        value = {"durch": rules.durch, "open_durch": rules.open_durch, "hand_durch": rules.hand_durch,
                 "bettel": rules.bettel}[game.word]
        if not is_bettel and rules.durch_game:
            return scores
        give(ours, value if made else -value)
        for side in sides[1:]:
            give(side, rules.durch_fail_credit if not made and not is_bettel else 0)
        return scores
    if state.surrendered:
        credit = bid // 20 * 10 if rules.surrender_credit == "half" else int(rules.surrender_credit)
        give(ours, -bid)
        for side in sides[1:]:
            give(side, credit + sum(melds[s] for s in side))
        return scores

    def own(seat: int, declarer: bool) -> int:
        counts = tricks[seat] > 0 or (not declarer and rules.defender_melds == "always")
        return (cards[seat] if tricks[seat] or seat == soloist else 0) + (melds[seat] if counts else 0)

    total = sum(own(s, True) for s in ours)
    made = any(tricks[s] for s in ours) and total >= bid
    give(ours, total if made else -2 * bid)
    for side in sides[1:]:
        give(side, sum(own(s, False) for s in side) + (0 if made else rules.failed_credit))
    return scores


@pytest.mark.parametrize("rules", RULE_VARIANTS, ids=RULE_IDS)
def test_random_playouts_follow_the_reference(rules: Rules) -> None:
    for seed in range(16):
        rng = random.Random(f"{rules.text}:{seed}")
        state = State.new(rules, rng.randrange(rules.players)).deal_random(rng)
        while not state.is_over():
            legal = state.legal_actions()
            if state.phase is Phase.PLAY:
                seat = state.to_move
                assert seat is not None
                hand = [str(c) for c in state.hand(seat)]
                trick = state.current_trick
                texts = [str(c) for c in trick.cards]
                game = state.game
                assert game is not None
                partner_wins = bool(texts) and rules.partners(trick.seats[winner_position(
                    texts, game.word if game.trump is not None else None)], seat)
                expected = legal_cards(hand, texts, game.word if game.trump is not None else None, rules,
                                       partner_wins)
                assert {str(a) for a in legal} == expected, (rules.text, seed, hand, texts)
            elif state.phase is Phase.SURRENDER and rng.random() < 0.7:
                legal = [a for a in legal if str(a) == "play"]  # mostly play the game out
            state = state.apply(rng.choice(legal))
        assert list(state.scores or ()) == reference_scores(state), (rules.text, seed, state.outcome)


class ReferenceAuction:
    """Section 3 (the fixed auction, with section 9's generalisation to more seats in
    docs/decisions.md: each seat not yet heard takes on the survivor in turn) and section 10
    (the open auction) on plain numbers."""

    def __init__(self, rules: Rules, order: list[int]) -> None:
        self.rules, self.order = rules, order
        self.high: int | None = None
        self.holder: int | None = None
        self.passed: list[int] = []
        self.mover: int | None = order[0]
        self.waiting = order[2:]  # fixed: the seats still to take on the survivor
        self.result: tuple[int, int] | None = None  # (soloist, bid)
        self.redeal = False

    def lowest(self) -> int:
        return self.rules.min_bid if self.high is None else self.high + 10

    def is_legal(self, call: str) -> bool:
        if self.rules.auction == "open":
            return call == "pass" or (call.isdigit() and int(call) % 10 == 0 and int(call) >= self.lowest())
        if self.high is None:
            return call == str(self.rules.min_bid)  # forehand's forced opening
        return call in ("pass", str(self.high + 10))

    def call(self, call: str) -> None:
        seat = self.mover
        assert seat is not None
        if self.rules.auction == "open":
            if call == "pass":
                self.passed.append(seat)
            else:
                self.high, self.holder = int(call), seat
            left = [s for s in self.order if s not in self.passed]
            if self.holder is not None and left == [self.holder]:
                self.result, self.mover = (self.holder, self.high or 0), None
            elif not left:
                self.mover = None
                if self.rules.all_pass == "forced":  # Zwangsspiel: the dealer, or the last playing seat
                    self.result = (self.order[-1], self.rules.min_bid)
                else:
                    self.redeal = True
            else:
                at = self.order.index(seat)
                self.mover = next(s for s in self.order[at + 1:] + self.order[:at + 1] if s not in self.passed)
            return
        if self.high is None:
            self.high, self.holder, self.mover = int(call), seat, self.order[1]
        elif call != "pass":
            self.high, self.holder, self.mover = int(call), seat, self.holder
        elif self.waiting:  # the seat to move is never the holder: its pass ends the duel,
            self.mover, self.waiting = self.waiting[0], self.waiting[1:]  # the next seat takes it on
        else:
            self.result, self.mover = (self.holder, self.high), None


@pytest.mark.parametrize("rules", RULE_VARIANTS, ids=RULE_IDS)
def test_random_auctions_follow_the_reference(rules: Rules) -> None:
    for seed in range(40):
        rng = random.Random(f"auction:{rules.text}:{seed}")
        state = State.new(rules, rng.randrange(rules.players)).deal_random(rng)
        reference = ReferenceAuction(rules, list(state.active_seats))
        while state.phase is Phase.AUCTION:
            assert state.to_move == reference.mover
            offered = [str(a) for a in state.legal_actions()]
            assert all(reference.is_legal(call) for call in offered)
            low = reference.lowest()
            far = str(low + 10 * rng.randrange(60, 200))  # beyond what the open auction offers
            assert state.is_legal(state.parse_action(far)) is reference.is_legal(far)
            for wrong in (str(low - 10), str(low + 5)):
                assert not state.is_legal(state.parse_action(wrong)) and not reference.is_legal(wrong)
            call = far if rules.auction == "open" and rng.random() < 0.05 else rng.choice(offered)
            reference.call(call)
            state = state.apply_text(call)
        if reference.redeal:
            assert state.soloist is None and state.phase is Phase.OVER
        else:
            assert (state.soloist, state.bid) == reference.result


def reference_winner(rules: Rules, totals: list[int], soloist: int | None, deals: int) -> int | None:
    """Section 8 (and section 10's end=highest and fixed number of deals), per scoring unit."""
    units = [0, 1] if rules.teams != "none" else list(range(rules.players))
    if rules.teams != "none":
        totals = totals[:2]  # partners share their totals; a team is named by its lowest seat
        soloist = None if soloist is None else soloist % 2
    if rules.deals:
        if deals < rules.deals:
            return None
        among = units
    else:
        among = [u for u in units if totals[u] >= rules.target]
        if not among:
            return None
        if rules.end == "soloist" and soloist in among:
            return soloist
    best = max(totals[u] for u in among)
    leaders = [u for u in among if totals[u] == best]
    return leaders[0] if len(leaders) == 1 else None


@pytest.mark.parametrize("rules", RULE_VARIANTS, ids=RULE_IDS)
def test_random_games_end_as_section_8_says(rules: Rules) -> None:
    from binokel.game import Game

    rules = rules.replace(target=300) if not rules.deals else rules
    rng = random.Random(f"game:{rules.text}")
    game = Game.new(rules, first_dealer=rng.randrange(rules.players))
    totals = [0] * rules.players
    dealer = game.first_dealer
    while not game.is_over():
        assert game.current.dealer == dealer  # the old forehand deals next
        game = game.deal_random(rng)
        while not (game.is_over() or game.needs_deal()):
            legal = game.legal_actions()
            if game.current.phase is Phase.AUCTION and rules.auction == "open":
                legal = legal[:4]  # pass or one of the three lowest bids: random jumps climb far
            elif game.current.phase is Phase.SURRENDER:
                legal = [a for a in legal if str(a) == "play"] if rng.random() < 0.8 else legal
            game = game.apply(rng.choice(legal))
        deal = game.current if game.is_over() else game.deals[-2]
        totals = [t + s for t, s in zip(totals, deal.scores or ())]
        assert list(game.totals) == totals
        assert game.winner == reference_winner(rules, totals, deal.soloist, len(game.deals))
        dealer = (dealer + 1) % rules.players
        if len(game.deals) > 40:  # random open auctions climb far: enough deals checked
            break
