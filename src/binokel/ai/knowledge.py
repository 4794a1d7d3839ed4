"""What one seat knows about the hidden cards, derived from its :class:`SeatView` alone.

Facts (docs/rules.md section 6, as ``State.legal_actions`` enforces them; ``trick.legal_cards``):

- a player who followed suit without beating a card of the led suit that was winning
  holds nothing higher in that suit;
- a player who did not follow is void in the led suit; one who then did not trump
  holds no trump; one who trumped without overtrumping holds no higher trump;
- shown melds stay in the hand until played, and because every seat shows its *best*
  melds, a card that would have raised the total is not in that hand;
- in an open Durch the soloist's whole hand is public (``SeatView.open_hand``);
- with ``partner_exemption=1`` a seat whose partner was winning the trick needed to
  follow suit only, so its play then says no more than that.

>>> import random
>>> from binokel.state import State
>>> from binokel.view import view
>>> state = State.new("standard", dealer=2).deal_random(random.Random(3))
>>> knowledge = Knowledge.from_view(view(state, 0))
>>> knowledge.hand.bit_count(), knowledge.unseen_count()
(15, 33)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from binokel.action import DURCH, Contract
from binokel.card import (COPY, HIGHER, KIND_MASK, SUIT_MASK, Hand, Suit, add_card, add_masks, counts_of, kinds_of,
                          mask_of_counts)
from binokel.meld import Meld, find_melds, meld_cards, meld_total
from binokel.rules import MustBeat, Rules
from binokel.view import SeatView

from binokel.ai.fast import NO_TRUMP, beats


@dataclass(frozen=True)
class Knowledge:
    """One seat's knowledge. Masks use the engine's hand layout; per-seat tuples are by seat."""

    rules: Rules
    seat: int
    players: int
    soloist: int | None
    game: Contract | None
    dealer: int
    hand: int  # my hand now
    played: tuple[int, ...]  # cards each seat has played
    tapp: tuple[int, ...] | None  # kinds, once shown (None while face down, for good after a hand Durch)
    discard: tuple[int, ...] | None  # my own discard, if I am the soloist
    discarded: int  # how many cards the soloist has laid away so far
    hand_sizes: tuple[int, ...]
    melds: tuple[tuple[Meld, ...], ...] | None
    surrendered: bool | None
    shown: tuple[int, ...]  # meld cards still in each hand
    excluded: tuple[int, ...]  # kinds a seat holds no (further) copy of beyond ``shown``

    @property
    def trump(self) -> int:
        """The trump suit, or NO_TRUMP (Durch or not yet named)."""
        return self.game if self.game is not None and self.game < DURCH else NO_TRUMP

    @property
    def sitting_out(self) -> int | None:
        return self.rules.sitting_out(self.dealer)

    @property
    def orders(self) -> tuple[tuple[int, ...], ...]:
        """Per seat, the playing seats in order of play from it."""
        return self.rules.seating(self.dealer).orders

    @property
    def played_all(self) -> int:
        mask = 0
        for seat_played in self.played:
            mask = add_masks(mask, seat_played)
        return mask

    def unseen_count(self) -> int:
        """Cards this seat has not seen: other hands, an unshown Tapp, a hidden discard."""
        others = sum(size for seat, size in enumerate(self.hand_sizes) if seat != self.seat)
        tapp = self.rules.tapp_size if self.tapp is None else 0
        discard = self.discarded if self.soloist is not None and self.seat != self.soloist else 0
        return others + tapp + discard

    def is_void(self, seat: int, suit: int) -> bool:
        in_deck = SUIT_MASK[suit] & self.rules.kind_mask
        return not (self.shown[seat] & (SUIT_MASK[suit] | SUIT_MASK[suit] << COPY)) and (
            self.excluded[seat] & in_deck) == in_deck

    def meld_constrained(self, seat: int) -> bool:
        """Must ``seat``'s hand (with its played cards) reproduce its shown melds exactly?"""
        if self.melds is None or self.game is None or self.game >= DURCH:
            return False
        return not (seat == self.soloist and self.surrendered)

    @classmethod
    def from_view(cls, view: SeatView) -> Knowledge:
        """Everything ``view`` implies about the hidden cards."""
        rules = view.rules
        n = view.players
        game = view.game
        trump = game if game is not None and game < DURCH else NO_TRUMP
        beat_led = rules.must_beat is MustBeat.LED
        played = [0] * n
        excluded = [0] * n
        tricks = list(view.tricks) + ([view.trick] if view.trick.plays else [])
        for trick in tricks:
            kinds = [c.index for c in trick.cards]
            seats = trick.seats
            for position, kind in enumerate(kinds):
                seat = seats[position]
                played[seat] = add_card(played[seat], kind)
                if position:
                    exempt = bool(rules.partner_exemption) and rules.partners(
                        seats[winning_position(kinds[:position], trump)], seat)
                    excluded[seat] |= _play_facts(kinds[:position], kind, trump, beat_led, exempt)
        shown = [0] * n
        if view.melds is not None and game is not None and game < DURCH:
            for seat in range(n):
                if seat == view.soloist and view.surrendered:
                    continue  # a surrendering soloist shows nothing
                in_hand, extra = _meld_facts(view.melds[seat], played[seat], game, rules)
                shown[seat] = in_hand
                excluded[seat] |= extra
        hand = Hand(view.hand).mask
        soloist = view.soloist
        if view.open_hand is not None and soloist is not None:  # open Durch: the soloist's hand is public
            shown[soloist] = Hand(view.open_hand).mask
            excluded[soloist] = KIND_MASK
        discarded = 0
        if soloist is not None and view.tapp is not None:  # the Tapp was taken: the rest was laid away
            discarded = rules.hand_size + rules.tapp_size - view.hand_sizes[soloist] - played[soloist].bit_count()
        return cls(
            rules=rules, seat=view.seat, players=n, soloist=soloist, game=game, dealer=view.dealer, hand=hand,
            played=tuple(played),
            tapp=tuple(c.index for c in view.tapp) if view.tapp is not None else None,
            discard=tuple(c.index for c in view.discard) if view.discard is not None else None,
            discarded=discarded, hand_sizes=view.hand_sizes, melds=view.melds, surrendered=view.surrendered,
            shown=tuple(shown), excluded=tuple(e & KIND_MASK for e in excluded))


def winning_position(trick: list[int], trump: int) -> int:
    """The position of the card winning ``trick`` so far."""
    best = 0
    for i in range(1, len(trick)):
        if beats(trick[i], trick[best], trump):
            best = i
    return best


def _play_facts(before: list[int], kind: int, trump: int, beat_led: bool, exempt: bool = False) -> int:
    """Kinds the player of ``kind`` cannot hold, given the trick's cards ``before`` it
    (``exempt``: the partner exemption applied, so only following suit was required)."""
    led = before[0] // 7
    top = before[winning_position(before, trump)]
    suit = kind // 7
    if exempt:
        return SUIT_MASK[led] if suit != led else 0
    if suit == led:
        if top // 7 == led:
            target = top
        elif beat_led:
            target = min(k for k in before if k // 7 == led)
        else:
            return 0
        # Following without beating the target: nothing above it in the led suit.
        return HIGHER[target] if not kind % 7 < target % 7 else 0
    facts = SUIT_MASK[led]
    if trump >= 0:
        if suit != trump:
            facts |= SUIT_MASK[trump]
        elif top // 7 == trump and not kind % 7 < top % 7:
            facts |= HIGHER[top]
    return facts


@lru_cache(maxsize=4096)
def _meld_facts(melds: tuple[Meld, ...], played: int, trump: int, rules: Rules) -> tuple[int, int]:
    """(meld cards still in hand, kinds that would have raised the shown total)."""
    shown = meld_cards(melds).mask
    shown_counts, played_counts = counts_of(shown), counts_of(played)
    known = [max(a, b) for a, b in zip(shown_counts, played_counts)]
    in_hand = mask_of_counts([max(0, a - b) for a, b in zip(shown_counts, played_counts)])
    total = meld_total(melds)
    excluded = 0
    for kind in kinds_of(rules.kind_mask):
        if known[kind] < 2:
            known[kind] += 1
            if meld_total(find_melds(Hand(mask=mask_of_counts(known)), Suit(trump), rules)) > total:
                excluded |= 1 << kind
            known[kind] -= 1
    return in_hand, excluded
