"""One deal of Binokel as an immutable state machine.

A deal starts in :attr:`Phase.DEAL`, where chance deals the cards (:meth:`State.deal`
or :meth:`State.deal_random`); from then on the seat in :attr:`State.to_move` chooses
one of :meth:`State.legal_actions` and :meth:`State.apply` returns the next state.

>>> import random
>>> state = State.new("standard", dealer=2).deal_random(random.Random(7))
>>> state.phase, state.to_move, [str(a) for a in state.legal_actions()]
(<Phase.AUCTION: 'auction'>, 0, ['150'])
>>> state = state.apply_text("150").apply_text("pass").apply_text("pass")
>>> state.phase, state.soloist, state.bid
(<Phase.DISCARD: 'discard'>, 0, 150)
"""

from __future__ import annotations

import random
from functools import lru_cache
from operator import itemgetter
from collections.abc import Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from binokel.action import (BETTEL, DISCARDS, DURCH, GAMES, HAND_DURCH, OPEN_DURCH, PASS, PLAY_ON, PLAYS, SURRENDER,
                            TAKE, Action, ActionKind, Contract)
from binokel.card import CARDS, COPY, POINTS, Card, Hand, add_card, mask_of, present, remove_card
from binokel.error import IllegalActionError, NotationError
from binokel.meld import Meld, meld_total, melds_of_mask
from binokel.number import read_number, shown
from binokel.rules import AllPass, Auction, FirstLead, MustBeat, Rules, Seating
# MAX_BID and Outcome are re-exported: older importers (record, view, game, ...) read them from here
from binokel.score import LAST_TRICK_BONUS, MAX_BID as MAX_BID, DealSummary, Outcome as Outcome, deal_scores
from binokel.trick import NO_TRUMP, Trick, card_refusal, legal_cards

if TYPE_CHECKING:
    from binokel import _cython as cython
else:  # Cython's pure-Python mode: C types of a few hot locals when compiled (setup.py)
    try:
        import cython
    except ImportError:
        from binokel import _cython as cython

CHANCE = -1
"""``to_move`` while the cards are being dealt."""

OPEN_BID_SPAN = 500
"""How far above the lowest bid the open auction's offered bids reach (:meth:`State.legal_actions`).
Any higher multiple of 10 is legal as well (docs/rules.md section 10): ``apply`` accepts it."""


class Phase(StrEnum):
    DEAL = "deal"
    AUCTION = "auction"
    TAPP = "tapp"  # hand_durch only: the soloist takes the Tapp or plays open Durch from the hand
    DISCARD = "discard"
    GAME = "game"  # the soloist names the contract: a trump suit, Durch, open Durch or Bettel
    SURRENDER = "surrender"  # the soloist surrenders or plays on
    PLAY = "play"
    OVER = "over"


class State:
    """An immutable snapshot of one deal. Read its attributes; never set them."""

    rules: Rules
    dealer: int
    phase: Phase
    to_move: int | None
    hands: tuple[int, ...]  # current hands as masks
    dealt: tuple[tuple[int, ...], ...]  # each seat's dealt cards (kinds) as listed
    tapp: tuple[int, ...]
    calls: tuple[Action, ...]
    callers: tuple[int, ...]  # the seat that made each call
    holder: int | None  # seat holding the highest bid
    high: int
    challengers: tuple[int, ...]  # seats still to take on the holder
    passed: tuple[int, ...]  # seats out of the auction (the open auction)
    soloist: int | None
    bid: int | None
    discard: tuple[int, ...]
    game: Contract | None
    surrendered: bool | None
    melds: tuple[tuple[Meld, ...], ...] | None
    leader: int
    trick: tuple[int, ...]  # kinds in the current trick
    best: int  # position of the currently winning card in the trick
    played: tuple[tuple[int, tuple[int, ...], int], ...]  # completed tricks: (leader, kinds, winner)
    seating: Seating  # who sits where this deal (from the rules and the dealer)
    won: tuple[int, ...]  # tricks won per seat
    trick_points: tuple[int, ...]  # card points from tricks (and last-trick bonus) per seat
    scores: tuple[int, ...] | None
    outcome: Outcome | None
    if TYPE_CHECKING:  # caches kept out of __annotations__ (the public attributes)
        _order: tuple[tuple[int, ...], ...]  # seating.orders, read on the hot path
        _legal: int | None  # the legal card kinds in the play phase, computed once

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("State is immutable: use apply()")

    def _copy(self) -> State:
        new = State.__new__(State)
        new.__dict__.update(self.__dict__)
        return new

    # ------------------------------------------------------------------ creation

    @classmethod
    def new(cls, rules: Rules | str = "standard", dealer: int = 0) -> State:
        """A deal about to be dealt by ``dealer``."""
        rules = Rules.parse(rules) if isinstance(rules, str) else rules
        if not isinstance(dealer, int) or not 0 <= dealer < rules.players:
            raise NotationError("bad_dealer", last=rules.players - 1, value=repr(dealer))
        state = cls.__new__(cls)
        n = rules.players
        seating = rules.seating(dealer)
        state.__dict__.update(
            rules=rules, dealer=dealer, phase=_P_DEAL, to_move=CHANCE, hands=(0,) * n, dealt=((),) * n,
            tapp=(), calls=(), callers=(), holder=None, high=0, challengers=(), passed=(), soloist=None, bid=None,
            discard=(), game=None, surrendered=None, melds=None, leader=seating.forehand, trick=(), best=0, played=(),
            won=(0,) * n, trick_points=(0,) * n, scores=None, outcome=None, _legal=None, seating=seating,
            _order=seating.orders)
        return state

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def forehand(self) -> int:
        return self.seating.forehand

    @property
    def tapp_in_centre(self) -> bool:
        """Is the Tapp still face down in the centre (before the auction ends, while the
        soloist decides, and for good after an open Durch from the hand)?"""
        return self.soloist is None or self.phase is _P_TAPP or self.game == HAND_DURCH

    @property
    def sitting_out(self) -> int | None:
        """The seat that sits out this deal (the dealer, with ``sit_out=1``), else None."""
        return self.seating.sitting_out

    @property
    def active_seats(self) -> tuple[int, ...]:
        """The seats playing this deal, in order of play from forehand."""
        return self.seating.order

    def hand_size_of(self, seat: int) -> int:
        """How many cards ``seat`` is dealt (none for the seat sitting out)."""
        return 0 if seat == self.sitting_out else self.rules.hand_size

    def deal(self, hands: Sequence[Sequence[Card | str]], tapp: Sequence[Card | str]) -> State:
        """The chance step with given cards: ``hands`` by seat and the ``tapp``."""
        if self.phase is not _P_DEAL:
            raise IllegalActionError("already_dealt")
        rules = self.rules
        if len(hands) != rules.players:
            raise NotationError("hand_count", count=rules.players, given=len(hands))
        kinds = [tuple(_kind(c) for c in hand) for hand in hands]
        tapp_kinds = tuple(_kind(c) for c in tapp)
        for seat, hand in enumerate(kinds):
            if len(hand) != self.hand_size_of(seat):
                raise NotationError("hand_size_out" if seat == self.sitting_out else "hand_size",
                                    seat=seat, given=len(hand), count=self.hand_size_of(seat))
        if len(tapp_kinds) != rules.tapp_size:
            raise NotationError("tapp_count", given=len(tapp_kinds), count=rules.tapp_size)
        check_deck(rules, [*kinds, tapp_kinds])
        return self._dealt(tuple(kinds), tapp_kinds)

    def _dealt(self, hands: tuple[tuple[int, ...], ...], tapp: tuple[int, ...]) -> State:
        new = self._copy()
        d = new.__dict__
        d["dealt"] = hands
        d["tapp"] = tapp
        d["hands"] = tuple(mask_of(hand) for hand in hands)
        d["phase"] = _P_AUCTION
        d["to_move"] = self.forehand
        return new

    def deal_random(self, rng: random.Random) -> State:
        """The chance step: shuffle and deal in packets, the Tapp after the first rounds."""
        if self.phase is not _P_DEAL:
            raise IllegalActionError("already_dealt")
        # Sorting by random keys is a uniform shuffle, and faster here than random.shuffle: the
        # keys are drawn in deck order, and the sort is stable (as sorted(deck, key=...) was).
        kinds = self.rules.deck_kinds
        key = rng.random
        keys = [key() for _ in kinds]
        deck = [kinds[i] for i in sorted(range(len(keys)), key=keys.__getitem__)]
        return self._dealt(*deal_packets(self.rules, self.forehand, deck))

    # ------------------------------------------------------------------ queries

    def is_over(self) -> bool:
        return self.phase is _P_OVER

    def hand(self, seat: int) -> Hand:
        return Hand(mask=self.hands[seat])

    @property
    def tricks(self) -> tuple[Trick, ...]:
        """The completed tricks, in order, each card with the seat that played it."""
        # Kept once built (as "_tricks", not an annotated attribute: absent until asked for). A
        # state's successors copy its attributes and only ever append to ``played``, so the
        # tricks a state holds are the first of any successor's.
        known: tuple[Trick, ...] = self.__dict__.get("_tricks", ())
        played = self.played
        if len(known) == len(played):
            return known
        orders = self._order
        tricks = known + tuple(Trick(leader, tuple(zip(orders[leader], (CARDS[k] for k in kinds))), winner)
                               for leader, kinds, winner in played[len(known):])
        self.__dict__["_tricks"] = tricks
        return tricks

    @property
    def current_trick(self) -> Trick:
        """The trick being played (its ``winner`` is the seat winning it so far, None when empty)."""
        order = self._order[self.leader]
        winner = order[self.best] if self.trick else None
        return Trick(self.leader, tuple(zip(order, (CARDS[k] for k in self.trick))), winner)

    def legal_actions(self) -> list[Action]:
        """The legal actions of the seat to move, sorted; the two copies of a card are one action.

        In the open auction the bids have no upper limit: this lists the *offered* bids,
        pass and the lowest bid up to :data:`OPEN_BID_SPAN` more; ``apply`` accepts any
        higher multiple of 10 as well (see :meth:`is_legal`).
        """
        phase = self.phase
        if phase is _PLAY:
            mask = self._legal
            if mask is None:
                mask = self.__dict__["_legal"] = self._legal_play_mask()
            return [*_PLAYS_S[mask & 0x7F], *_PLAYS_H[mask >> 7 & 0x7F], *_PLAYS_D[mask >> 14 & 0x7F],
                    *_PLAYS_C[mask >> 21]]
        if phase is _P_AUCTION:
            if self.rules.auction is _OPEN:
                low = self.lowest_bid()
                return [PASS] + [_bid(v) for v in range(low, min(low + OPEN_BID_SPAN, MAX_BID) + 1, 10)]
            if self.holder is None:
                return [_bid(self.rules.min_bid)]
            return [PASS, _bid(self.high + 10)] if self.high < MAX_BID else [PASS]
        if phase is _P_DISCARD:
            seat = self.to_move
            if TYPE_CHECKING:  # the discard phase has a seat to move (no runtime check in playouts)
                assert seat is not None
            return _actions_of(_SUIT_DISCARDS, present(self.hands[seat]))
        if phase is _P_GAME:
            return list(game_actions(self.rules))
        if phase is _P_TAPP:
            return [GAMES[HAND_DURCH], TAKE]
        if phase is _P_SURRENDER:
            return [SURRENDER, PLAY_ON]
        return []

    @property
    def _mover(self) -> int:
        """The seat to move, where the phase says a seat is to move."""
        seat = self.to_move
        assert seat is not None and seat >= 0, "no seat is to move"
        return seat

    def lowest_bid(self) -> int:
        """The lowest bid allowed now: the minimum, or 10 over the highest bid."""
        return self.rules.min_bid if self.holder is None else self.high + 10

    def _legal_mask(self) -> int:
        """The legal card kinds of the seat to move, computed once per state."""
        mask = self._legal
        if mask is None:
            mask = self.__dict__["_legal"] = self._legal_play_mask()
        return mask

    def _legal_play_mask(self) -> int:
        seat, game = self.to_move, self.game
        if TYPE_CHECKING:  # the play phase has a seat to move and a contract; no runtime check on the hot path
            assert seat is not None and game is not None
        exempt = self.rules.partner_exemption != 0 and bool(self.trick) and self._partner_wins()
        return legal_cards(self.hands[seat], self.trick, self.best, game if game < DURCH else -1,
                           self.rules.must_beat is _LED, exempt)

    def _partner_wins(self) -> bool:
        """Is the trick being won by a partner of the seat to move?"""
        return self.rules.partners(self._order[self.leader][self.best], self._mover)

    def is_legal(self, action: Action) -> bool:
        """Is ``action`` legal now? The same answer as ``action in legal_actions()``, quicker,
        except in the open auction, where any multiple of 10 from the lowest bid up is
        legal, not only the offered ones.

        >>> state = State.new("club", dealer=2).deal_random(random.Random(1))
        >>> state.is_legal(Action.bid(5000)), Action.bid(5000) in state.legal_actions()
        (True, False)
        >>> state.is_legal(Action.bid(5005))
        False
        """
        phase, kind = self.phase, action.kind
        if phase is _P_AUCTION:
            if self.rules.auction is _OPEN:
                if kind is _A_PASS:
                    return True
                # docs/rules.md section 10: no upper limit, any multiple of 10 from the lowest bid up.
                return kind is _A_BID and self.lowest_bid() <= action.value <= MAX_BID \
                    and action.value % 10 == 0
            if self.holder is None:
                return kind is _A_BID and action.value == self.rules.min_bid
            return kind is _A_PASS or (kind is _A_BID and action.value == self.high + 10 <= MAX_BID)
        if phase is _P_DISCARD:
            seat = self.to_move
            if TYPE_CHECKING:
                assert seat is not None
            return kind is _A_DISCARD and bool(self.hands[seat] >> action.value & 1)
        if phase is _P_GAME:
            return kind is _A_GAME and action in game_actions(self.rules)
        if phase is _P_SURRENDER:
            return kind is _A_SURRENDER or kind is _A_PLAY_ON
        if phase is _P_PLAY:
            return kind is _A_PLAY and bool(self._legal_mask() >> action.value & 1)
        if phase is _P_TAPP:
            return action == TAKE or action == GAMES[HAND_DURCH]
        return False

    def why_illegal(self, action: Action) -> str:
        """A sentence saying why ``action`` is not legal now (empty if it is legal)."""
        refusal = self.refusal(action)
        return "" if refusal is None else IllegalActionError(refusal[0], **refusal[1]).message

    def refusal(self, action: Action) -> tuple[str, dict[str, Any]] | None:
        """Why ``action`` is not legal now, as a reason code and its params (None if legal).

        >>> import random
        >>> state = State.new("standard", dealer=2).deal_random(random.Random(1))
        >>> state.refusal(Action.bid(170))
        ('not_legal', {'action': '170', 'phase': 'auction', 'legal': '150'})
        """
        if self.phase is _P_OVER:
            return "deal_over", {}
        if self.phase is _P_DEAL:
            return "not_dealt", {}
        if self.is_legal(action):
            return None
        legal = self.legal_actions()
        if self.phase is _P_PLAY and action.kind is _A_PLAY:
            return self._card_refusal(action.value)
        if action.kind is _A_DISCARD and self.phase is _P_DISCARD:
            return "not_in_soloist_hand", {"action": str(action)}
        expected = ", ".join(map(str, legal[:8])) + (" …" if len(legal) > 8 else "")
        return "not_legal", {"action": str(action), "phase": self.phase.value, "legal": expected}

    def _card_refusal(self, kind: int) -> tuple[str, dict[str, Any]]:
        seat, game = self._mover, self.game
        if not self.hands[seat] >> kind & 1:
            return "not_in_hand", {"seat": seat, "card": str(CARDS[kind])}
        return card_refusal(present(self.hands[seat]), self.trick, self.best,
                            game if game is not None and game < DURCH else NO_TRUMP, kind)

    # ------------------------------------------------------------------ transitions

    def apply_text(self, text: str) -> State:
        """Apply an action given in record notation (``"160"``, ``"pass"``, ``"AS"``, ``"H"`` ...)."""
        return self.apply(self.parse_action(text))

    def parse_action(self, text: str) -> Action:
        """Read an action in record notation, interpreted in the current phase."""
        return parse_action(self.phase, text)

    def apply(self, action: Action) -> State:
        """The state after the seat to move takes ``action``; raises IllegalActionError
        (and changes nothing) if it is not legal."""
        if not isinstance(action, Action):
            raise IllegalActionError("not_an_action", value=repr(action))
        if self.phase is _PLAY and action.kind is _PLAY_KIND:
            mask = self._legal
            if mask is None:
                mask = self.__dict__["_legal"] = self._legal_play_mask()
            kind = action.value
            if not mask >> kind & 1:
                code, params = self._card_refusal(kind)
                raise IllegalActionError(code, **params)
            return self._play(kind)
        if not self.is_legal(action):
            code, params = self.refusal(action) or ("not_legal_now", {"action": str(action)})
            raise IllegalActionError(code, **params)
        phase = self.phase
        if phase is _P_AUCTION:
            return self._call(action)
        if phase is _P_DISCARD:
            return self._discard(action.value)
        if phase is _P_GAME:
            return self._name_game(action.value)
        if phase is _P_TAPP:
            return self._name_game(HAND_DURCH) if action.kind is _A_GAME else self._take_tapp()
        return self._surrender(action == SURRENDER)

    def _call(self, action: Action) -> State:
        new = self._copy()
        d = new.__dict__
        d["calls"] = self.calls + (action,)
        d["callers"] = self.callers + (self.to_move,)
        if self.rules.auction is _OPEN:
            return new._open_call(action)
        order = self.active_seats
        if self.holder is None:  # forehand's forced opening
            d["holder"], d["high"] = self.to_move, action.value
            d["challengers"] = order[2:]
            d["to_move"] = order[1]
            return new
        if action.kind is _A_BID:
            d["holder"], d["to_move"], d["high"] = self.to_move, self.holder, action.value
            return new
        # A pass ends this duel: the survivor holds, the next challenger (if any) takes over.
        survivor = self.holder
        if self.challengers:
            d["to_move"], d["challengers"] = self.challengers[0], self.challengers[1:]
            return new
        return new._auction_won(survivor, self.high)

    def _open_call(self, action: Action) -> State:
        """The open auction: in turn from forehand, pass (out for good) or raise; it ends when
        all but the highest bidder have passed, or when everybody has passed."""
        d = self.__dict__
        seat = self.to_move
        if action.kind is _A_BID:
            d["holder"], d["high"] = seat, action.value
        else:
            d["passed"] = self.passed + (seat,)
        order = self.active_seats
        remaining = [s for s in order if s not in self.passed]
        if self.holder is not None and remaining == [self.holder]:
            return self._auction_won(self.holder, self.high)
        if not remaining:
            if self.rules.all_pass is AllPass.FORCED:  # Zwangsspiel: the dealer (the last to call) plays the minimum
                return self._auction_won(order[-1], self.rules.min_bid)
            d["phase"], d["to_move"] = _P_OVER, None
            return self._scored()
        at = order.index(seat)
        d["to_move"] = next(s for s in order[at + 1:] + order[:at + 1] if s not in self.passed)
        return self

    def _auction_won(self, survivor: int, bid: int) -> State:
        """The auction is over: the soloist takes the Tapp into hand."""
        d = self.__dict__
        d["soloist"], d["bid"], d["to_move"] = survivor, bid, survivor
        if self.rules.hand_durch:  # first the choice: take the Tapp or open Durch from the hand
            d["phase"] = _P_TAPP
            return self
        return self._take_tapp(copy=False)

    def _take_tapp(self, copy: bool = True) -> State:
        """The soloist turns the Tapp face up and takes it into hand."""
        new = self._copy() if copy else self
        d = new.__dict__
        survivor = self.soloist
        if TYPE_CHECKING:  # called once the auction is won
            assert survivor is not None
        d["phase"] = _P_DISCARD if self.tapp else _P_GAME  # no Tapp: nothing to take or lay away
        hand = self.hands[survivor]
        for kind in self.tapp:
            hand = add_card(hand, kind)
        d["hands"] = _replace(self.hands, survivor, hand)
        return new

    def _discard(self, kind: int) -> State:
        new = self._copy()
        d = new.__dict__
        soloist = self.soloist
        if TYPE_CHECKING:  # the discard phase has a soloist
            assert soloist is not None
        d["hands"] = _replace(self.hands, soloist, remove_card(self.hands[soloist], kind))
        d["discard"] = self.discard + (kind,)
        if len(d["discard"]) == self.rules.tapp_size:
            d["phase"] = _P_GAME
        return new

    def _name_game(self, game: int) -> State:
        new = self._copy()
        d = new.__dict__
        d["game"] = game = _CONTRACTS[game]  # the member, without Contract()'s slower lookup
        if game >= DURCH:  # Durch, open Durch, Bettel: no trump, no melds, the soloist leads
            d["surrendered"] = False
            d["melds"] = ((),) * self.players
            d["phase"], d["leader"], d["to_move"] = _P_PLAY, self.soloist, self.soloist
        else:
            d["phase"] = _P_SURRENDER
        return new

    def _surrender(self, surrender: bool) -> State:
        new = self._copy()
        d = new.__dict__
        d["surrendered"] = surrender
        soloist, bid, game = self.soloist, self.bid, self.game
        assert soloist is not None and bid is not None and game is not None
        melds = tuple(
            () if surrender and seat == soloist else tuple(melds_of_mask(hand, game, self.rules))
            for seat, hand in enumerate(self.hands))
        d["melds"] = melds
        if surrender:
            d["phase"], d["to_move"] = _P_OVER, None
            return new._scored()
        leader = self.soloist if self.rules.first_lead is _SOLOIST else self.forehand
        d["phase"], d["leader"], d["to_move"] = _P_PLAY, leader, leader
        return new

    @cython.locals(d=dict, old=dict, kind=cython.int, seat=cython.int, hand=cython.ulonglong, bit=cython.ulonglong,
                   size=cython.int, best=cython.int, top=cython.int, winner=cython.int, points=cython.int)
    def _play(self, kind: int) -> State:
        # The hot path of every search and playout: plain integer work, no helpers; the
        # attributes read from the instance dict (compiled, a typed dict beats getattr).
        old = self.__dict__
        new = State.__new__(State)
        d = new.__dict__
        d.update(old)
        d["_legal"] = None
        seat = old["to_move"]
        hands = old["hands"]
        hand = hands[seat]
        bit = 1 << (kind + COPY)
        hand = hand ^ bit if hand & bit else hand ^ (1 << kind)
        hands = hands[:seat] + (hand,) + hands[seat + 1:]
        d["hands"] = hands
        before = old["trick"]
        trick = before + (kind,)
        size = len(trick)
        order = old["_order"][old["leader"]]
        best = old["best"]
        if before:
            top = before[best]
            if kind // 7 == top // 7:
                if kind % 7 < top % 7:
                    best = d["best"] = size - 1
            elif kind // 7 == old["game"]:
                best = d["best"] = size - 1
        if size < len(order):
            d["trick"] = trick
            d["to_move"] = order[size]
            return new
        winner = order[best]
        points = 0
        for k in trick:
            points += POINTS[k]
        last = not hands[winner]
        if last:
            points += LAST_TRICK_BONUS
        d["played"] = old["played"] + ((old["leader"], trick, winner),)
        won, trick_points = list(old["won"]), list(old["trick_points"])
        won[winner] += 1
        trick_points[winner] += points
        d["won"], d["trick_points"] = tuple(won), tuple(trick_points)
        d["trick"], d["best"], d["leader"], d["to_move"] = (), 0, winner, winner
        game: Contract = old["game"]
        if game >= DURCH and (winner == old["soloist"]) is (game == BETTEL):  # the contract is broken
            return new._finish()
        if last:
            return new._finish()
        return new

    def _finish(self) -> State:
        self.__dict__["phase"], self.__dict__["to_move"] = _P_OVER, None
        return self._scored()

    def _scored(self) -> State:
        """A finished deal scored as every deal is: :func:`binokel.score.explain` of its summary
        (:func:`~binokel.score.deal_scores`: its scores and outcome alone)."""
        self.__dict__["scores"], self.__dict__["outcome"] = deal_scores(self.rules, DealSummary.of(self))
        return self

    # ------------------------------------------------------------------ derived results

    @property
    def card_points(self) -> tuple[int, ...]:
        """Card points per seat: tricks, last-trick bonus and, for the soloist, the discard."""
        discard = sum(POINTS[k] for k in self.discard)
        return tuple(p + (discard if seat == self.soloist else 0) for seat, p in enumerate(self.trick_points))

    @property
    def meld_points(self) -> tuple[int, ...]:
        """The value of the melds shown by each seat (whether or not they count)."""
        if self.melds is None:
            return (0,) * self.players
        return tuple(meld_total(m) for m in self.melds)

    def __repr__(self) -> str:
        return f"<State {self.rules.text} dealer={self.dealer} phase={self.phase.value} to_move={self.to_move}>"


def parse_action(phase: Phase, text: str) -> Action:
    """Read an action in record notation, interpreted in ``phase`` (a card is a discard
    in the discard phase and a card play in the play phase).

    >>> parse_action(Phase.AUCTION, "160"), parse_action(Phase.PLAY, "10h")
    (<Action bid 160>, <Action play TH>)
    """
    if not isinstance(text, str):
        raise NotationError("action_not_text", value=repr(text))
    word = text.strip().lower()
    if phase is _P_AUCTION:
        if word == "pass":
            return PASS
        return Action.bid(read_number(word, most=MAX_BID, code="bad_call", text=repr(shown(text))))
    if phase is _P_DISCARD:
        return Action.discard(Card.parse(text))
    if phase is _P_GAME:
        try:
            return Action.game(text)
        except NotationError:
            raise NotationError("bad_game", text=repr(text)) from None
    if phase is _P_TAPP:
        if word == "take":
            return TAKE
        if word == "hand_durch":
            return GAMES[HAND_DURCH]
        raise NotationError("bad_tapp_answer", text=repr(text))
    if phase is _P_SURRENDER:
        if word in ("surrender", "play"):
            return SURRENDER if word == "surrender" else PLAY_ON
        raise NotationError("bad_surrender_answer", text=repr(text))
    if phase is _P_PLAY:
        return Action.play(Card.parse(text))
    raise IllegalActionError("deal_over" if phase is _P_OVER else "not_dealt")


# Enum members read on hot paths, bound once (a module global is quicker than Enum.MEMBER:
# Python 3.11 looks a member up in about 90 ns, a global in 7).
_A_BID = ActionKind.BID
_A_DISCARD = ActionKind.DISCARD
_A_GAME = ActionKind.GAME
_A_PASS = ActionKind.PASS
_A_PLAY = ActionKind.PLAY
_A_PLAY_ON = ActionKind.PLAY_ON
_A_SURRENDER = ActionKind.SURRENDER
_P_AUCTION = Phase.AUCTION
_P_DEAL = Phase.DEAL
_P_DISCARD = Phase.DISCARD
_P_GAME = Phase.GAME
_P_OVER = Phase.OVER
_P_PLAY = Phase.PLAY
_P_SURRENDER = Phase.SURRENDER
_P_TAPP = Phase.TAPP
_PLAY, _PLAY_KIND = _P_PLAY, _A_PLAY
_OPEN, _LED = Auction.OPEN, MustBeat.LED
_CONTRACTS = tuple(Contract)
_SOLOIST = FirstLead.SOLOIST


def _suit_tables(actions: tuple[Action, ...]) -> tuple[tuple[tuple[Action, ...], ...], ...]:
    """Per suit, the actions of each 7-bit pattern of ranks: legal_actions' lookup table."""
    return tuple(tuple(tuple(actions[suit * 7 + rank] for rank in range(7) if pattern >> rank & 1)
                       for pattern in range(128)) for suit in range(4))


_SUIT_PLAYS = _suit_tables(PLAYS)
_PLAYS_S, _PLAYS_H, _PLAYS_D, _PLAYS_C = _SUIT_PLAYS
_SUIT_DISCARDS = _suit_tables(DISCARDS)


def _actions_of(tables: tuple[tuple[tuple[Action, ...], ...], ...], mask: int) -> list[Action]:
    """The actions of the card kinds in ``mask``, in card order."""
    return [*tables[0][mask & 0x7F], *tables[1][mask >> 7 & 0x7F], *tables[2][mask >> 14 & 0x7F],
            *tables[3][mask >> 21]]


_BIDS: dict[int, Action] = {}


def _bid(value: int) -> Action:
    """``Action.bid(value)``, built once per value (actions are immutable values)."""
    action = _BIDS.get(value)
    if action is None:
        action = _BIDS[value] = Action.bid(value)
    return action


def _replace(values: tuple[int, ...], index: int, value: int) -> tuple[int, ...]:
    return values[:index] + (value,) + values[index + 1:]


def _kind(card: Card | str) -> int:
    return (Card.parse(card) if isinstance(card, str) else card).index


def check_deck(rules: Rules, piles: Sequence[Sequence[int]]) -> None:
    """Raise unless ``piles`` together are exactly the deck of ``rules`` (sizes checked elsewhere)."""
    in_deck = rules.kind_mask
    count = [0] * len(CARDS)
    for pile in piles:
        for kind in pile:
            if not in_deck >> kind & 1:
                raise NotationError("not_in_deck", card=str(CARDS[kind]), deck=rules.deck)
            count[kind] += 1
            if count[kind] > 2:
                raise NotationError("third_copy", card=str(CARDS[kind]))


def deal_packets(rules: Rules, forehand: int,
                 deck: Sequence[int]) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """Deal a shuffled deck in packets starting with forehand; after each of the first
    ``tapp_rounds`` rounds, an equal part of the Tapp goes to the centre.

    >>> hands, tapp = deal_packets(Rules(), 1, list(range(48)))
    >>> hands[1][:4], tapp, hands[0][:4]
    ((0, 1, 2, 12), (9, 10, 11), (6, 7, 8, 18))
    """
    seats, tapp = _deal_plan(rules, forehand)
    return tuple(tuple(take(deck)) for take in seats), tuple(tapp(deck))


@lru_cache(maxsize=64)
def game_actions(rules: Rules) -> tuple[Action, ...]:
    """The games the soloist may name: the four trump suits, then Durch, open Durch and
    Bettel where the rules allow them."""
    allowed = {DURCH: rules.durch, OPEN_DURCH: rules.open_durch, BETTEL: rules.bettel}
    return tuple(GAMES[:4]) + tuple(GAMES[g] for g, value in allowed.items() if value)


@lru_cache(maxsize=64)
def _deal_plan(rules: Rules, forehand: int) -> tuple[tuple[Any, ...], Any]:
    """Which deck positions each seat and the Tapp receive (computed once per rules and forehand)."""
    n = rules.players
    order = rules.seating((forehand - 1) % n).order
    positions: list[list[int]] = [[] for _ in range(n)]
    tapp: list[int] = []
    part = rules.tapp_size // rules.tapp_rounds
    top = 0
    for round_number, take in enumerate(rules.packet_sizes, 1):
        for seat in order:
            positions[seat] += range(top, top + take)
            top += take
        if round_number <= rules.tapp_rounds:
            tapp += range(top, top + part)
            top += part
    return tuple(_getter(p) for p in positions), _getter(tapp)


def _getter(positions: list[int]) -> Any:
    """A function picking these positions of a sequence, always as a tuple."""
    if not positions:
        return lambda deck: ()
    return itemgetter(*positions) if len(positions) > 1 else lambda deck: (deck[positions[0]],)
