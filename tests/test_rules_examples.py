"""Every example and number of RULES.md, as a test (hand-checked against the text)."""

from __future__ import annotations

import re

import pytest

from binokel import Card, Hand, IllegalActionError, NotationError, Rules, State, Suit
from binokel.card import Rank
from binokel.meld import find_melds, meld_cards, meld_total
from binokel.score import decide_winner, surrender_scores, trump_scores
from binokel.view import view

STANDARD = Rules.parse("standard")


def total(cards: str, trump: str, rules: str = "standard") -> int:
    return meld_total(find_melds(Hand.parse(cards), Suit.parse(trump), Rules.parse(rules)))


def names(cards: str, trump: str, rules: str = "standard") -> list[str]:
    return [m.name for m in find_melds(Hand.parse(cards), Suit.parse(trump), Rules.parse(rules))]


# ---------------------------------------------------------------- section 1: cards and notation

def test_card_points_and_order() -> None:
    ranks = (Rank.A, Rank.T, Rank.K, Rank.Q, Rank.J, Rank.NINE, Rank.SEVEN)
    assert [r.points for r in ranks] == [11, 10, 4, 3, 2, 0, 0]
    assert Hand(STANDARD.deck_cards).points == 240
    assert Hand(Rules.parse("classic40").deck_cards).points == 240
    assert len(STANDARD.deck_cards) == 48 and len(Rules.parse("classic40").deck_cards) == 40


@pytest.mark.parametrize("text", ["TS", "10S", "ts", "10s", "T♠", "10♠", "t♤"])
def test_ten_of_spades_notations(text: str) -> None:
    assert str(Card.parse(text)) == "TS"


@pytest.mark.parametrize("text, canonical", [("OS", "QS"), ("UD", "JD"), ("a♥", "AH"), ("9♦", "9D"), ("7c", "7C")])
def test_german_letters_and_symbols(text: str, canonical: str) -> None:
    assert str(Card.parse(text)) == canonical


@pytest.mark.parametrize("text", ["", "X", "1S", "AX", "11H", "AS AS", "QQ"])
def test_unknown_cards_are_rejected(text: str) -> None:
    with pytest.raises(NotationError, match="unknown card"):
        Card.parse(text)


def test_three_copies_are_rejected() -> None:
    with pytest.raises(NotationError, match="three copies of AS"):
        Hand.parse("AS AS AS")


def test_seats_forehand_follows_dealer() -> None:
    assert State.new("standard", dealer=2).forehand == 0
    assert State.new("standard", dealer=0).forehand == 1


# ---------------------------------------------------------------- section 2: the deal

def test_deal_packets_standard() -> None:
    from binokel.state import deal_packets
    hands, tapp = deal_packets(STANDARD, forehand=0, deck=list(range(48)))
    # Round 1: 3 cards each from forehand, then 3 to the Tapp; then 4 more rounds.
    assert hands[0][:3] == (0, 1, 2) and hands[1][:3] == (3, 4, 5) and hands[2][:3] == (6, 7, 8)
    assert tapp == (9, 10, 11)
    assert hands[0][3:6] == (12, 13, 14)
    assert [len(h) for h in hands] == [15, 15, 15]


def test_deal_packets_classic40_tapp_in_two_parts() -> None:
    from binokel.state import deal_packets
    hands, tapp = deal_packets(Rules.parse("classic40"), forehand=1, deck=list(range(40)))
    assert tapp == (9, 10, 20, 21)  # two after each of the first two rounds
    assert hands[1][:3] == (0, 1, 2) and hands[0][:3] == (6, 7, 8)
    assert [len(h) for h in hands] == [12, 12, 12]


# ---------------------------------------------------------------- section 3: bidding

def dealt_state(dealer: int = 2) -> State:
    import random
    return State.new("standard", dealer).deal_random(random.Random(99))


def test_forehand_must_open_with_150() -> None:
    state = dealt_state()
    assert state.to_move == 0 and [str(a) for a in state.legal_actions()] == ["150"]
    for call in ("pass", "160"):
        with pytest.raises(IllegalActionError):
            state.apply_text(call)


def test_bids_go_up_by_exactly_ten() -> None:
    state = dealt_state().apply_text("150")
    assert state.to_move == 1 and [str(a) for a in state.legal_actions()] == ["pass", "160"]
    for call in ("150", "170", "155", "200"):
        with pytest.raises(IllegalActionError):
            state.apply_text(call)


def test_auction_order_and_soloist() -> None:
    # The RECORDS.md example: forehand 150, middlehand 160, forehand passes,
    # rearhand 170, middlehand passes: rearhand (seat 2) plays 170.
    state = dealt_state()
    for call, seat in zip(["150", "160", "pass", "170", "pass"], [0, 1, 0, 2, 1]):
        assert state.to_move == seat
        state = state.apply_text(call)
    assert (state.soloist, state.bid) == (2, 170)


def test_forehand_plays_150_when_both_pass() -> None:
    state = dealt_state().apply_text("150").apply_text("pass").apply_text("pass")
    assert (state.soloist, state.bid) == (0, 150)


def test_survivor_fights_rearhand() -> None:
    state = dealt_state()
    for call in ["150", "pass", "160", "170", "180", "pass"]:
        state = state.apply_text(call)
    # 150 fh, mh passes, rh 160, fh 170, rh 180, fh passes: rearhand plays 180.
    assert (state.soloist, state.bid) == (2, 180)


# ---------------------------------------------------------------- section 4: Tapp, discard, surrender

def test_tapp_goes_to_soloist_and_discard_counts() -> None:
    state = dealt_state().apply_text("150").apply_text("pass").apply_text("pass")
    assert len(state.hand(0)) == 18
    tapp = [Card.parse(str(c)) for c in view(state, 1).tapp]
    assert len(tapp) == 3  # face up for everyone
    for action in state.legal_actions()[:3]:
        state = state.apply(action)
    assert len(state.hand(0)) == 15 and state.phase.value == "game"


def test_surrender_scores() -> None:
    # The soloist loses the bid; each opponent scores 50 plus own melds.
    assert surrender_scores(STANDARD, soloist=1, bid=180, meld_points=(60, 0, 240)) == (110, -180, 290)
    assert surrender_scores(Rules.parse("standard(surrender_credit=half)"), 1, 180, (60, 0, 240)) == (150, -180, 330)
    assert surrender_scores(Rules.parse("standard(surrender_credit=0)"), 1, 180, (60, 0, 240)) == (60, -180, 240)


def test_half_the_bid_as_a_credit_rounds_down_to_a_multiple_of_ten() -> None:
    # RULES.md section 10: "Half the bid" as a credit rounds down to a multiple of 10.
    half = Rules.parse("standard(surrender_credit=half)")
    assert surrender_scores(half, soloist=1, bid=170, meld_points=(60, 0, 240)) == (140, -170, 320)  # 85 -> 80
    assert surrender_scores(half, soloist=0, bid=150, meld_points=(0, 0, 0)) == (-150, 70, 70)  # 75 -> 70
    assert surrender_scores(half, soloist=2, bid=200, meld_points=(0, 20, 0)) == (100, 120, -200)  # 100 stays


# ---------------------------------------------------------------- section 5: melds

@pytest.mark.parametrize("cards, trump, points, meld", [
    ("AH TH KH QH JH", "H", 150, "family"),
    ("AS TS KS QS JS", "H", 100, "family"),
    ("AH AH TH TH KH KH QH QH JH JH", "H", 1500, "double_family"),
    ("AS AS TS TS KS KS QS QS JS JS", "H", 1000, "double_family"),
    ("KH QH", "H", 40, "pair"),
    ("KS QS", "H", 20, "pair"),
    ("AS AH AD AC", "H", 100, "four_aces"),
    ("KS KH KD KC", "S", 80, "four_kings"),
    ("QS QH QD QC", "C", 60, "four_obers"),
    ("JS JH JD JC", "C", 40, "four_unters"),
    ("AS AS AH AH AD AD AC AC", "H", 1000, "eight_aces"),
    ("QS JD", "H", 40, "binokel"),
    ("QS QS JD JD", "H", 300, "double_binokel"),
    ("9H", "H", 10, "dissle"),
])
def test_meld_table(cards: str, trump: str, points: int, meld: str) -> None:
    found = find_melds(Hand.parse(cards), Suit.parse(trump))
    assert [m.name for m in found] == [meld] * len(found) and meld_total(found) == points


def test_two_distinct_pairs() -> None:
    assert total("KH KH QH QH", "H") == 80
    assert total("KS KS QS QS", "H") == 40
    assert names("KS KS QS QS", "H") == ["pair", "pair"]


def test_two_dissles() -> None:
    assert total("9H 9H", "H") == 20
    assert total("9H 9H", "S") == 0  # only the trump 9


def test_dissle_is_the_seven_with_sevens() -> None:
    assert total("7H", "H", "sevens") == 10
    assert total("7H 7H", "H", "sevens") == 20


def test_dissle_cards_follow_the_deck() -> None:
    # Meld values are shared between rule sets: the Dissle must still be the deck's card.
    assert [str(c) for m in find_melds(Hand.parse("7D"), Suit.D, Rules.parse("sevens")) for c in m.cards] == ["7D"]
    assert [str(c) for m in find_melds(Hand.parse("9D"), Suit.D, STANDARD) for c in m.cards] == ["9D"]


def test_no_dissle_without_low_cards() -> None:
    assert names("AH TH KH QH JH", "H", "classic40") == ["family"]


def test_four_tens_and_four_nines_score_nothing() -> None:
    assert total("TS TH TD TC", "H") == 0
    assert total("9S 9H 9D 9C", "S") == 10  # only the dissle (trump 9)
    assert total("TS TS TH TH TD TD TC TC", "H") == 0


def test_option_eight_tens_and_sevens() -> None:
    assert total("TS TS TH TH TD TD TC TC", "H", "standard(eight_tens=1000)") == 1000
    assert total("7S 7S 7H 7H 7D 7D 7C 7C", "C", "sevens(eight_sevens=1000)") == 1000 + 20
    assert total("7S 7S 7H 7H 7D 7D 7C 7C", "C", "sevens") == 20


def test_option_plain_double_melds() -> None:
    plain = "standard(double_melds=plain)"
    assert total("AH AH TH TH KH KH QH QH JH JH", "H", plain) == 300
    assert total("AS AS TS TS KS KS QS QS JS JS", "H", plain) == 200


def test_plain_eight_kings_is_twice_four_kings() -> None:
    found = find_melds(Hand.parse("KS KS KH KH KD KD KC KC"), Suit.C, Rules.parse("standard(double_melds=plain)"))
    assert [(m.name, m.points) for m in found] == [("eight_kings", 160)]
    found = find_melds(Hand.parse("QS QS JD JD"), Suit.C, Rules.parse("standard(double_melds=plain)"))
    assert [(m.name, m.points) for m in found] == [("double_binokel", 300)]


def test_family_pair_is_not_also_a_pair() -> None:
    assert names("AS TS KS QS JS", "H") == ["family"]
    assert total("AS TS KS KS QS QS JS", "H") == 120  # family + pair, plain
    assert total("AH TH KH KH QH QH JH", "H") == 190  # trump


def test_roundhouse_examples() -> None:
    roundhouse = "KS QS KH QH KD QD KC QC"
    assert total(roundhouse, "H") == 80 + 60 + 40 + 3 * 20 == 240
    assert total(roundhouse + " AH TH JH", "H") == 350
    assert total(roundhouse + " AS TS JS", "H") == 320


def test_one_card_in_three_types() -> None:
    # K♠ Q♠ Q♥ Q♦ Q♣ J♦: pair 20 + four obers 60 + binokel 40 (trump H); with spades trump 140.
    assert total("KS QS QH QD QC JD", "H") == 120
    assert total("KS QS QH QD QC JD", "S") == 140


def test_meld_cards_shown() -> None:
    melds = find_melds(Hand.parse("KS KS QS QS QH QD QC JD 9C"), Suit.H)
    # Two spade pairs need both K and both Q; four obers and binokel reuse a Q♠.
    assert str(meld_cards(melds)) == "KS KS QS QS QH QD JD QC"


# ---------------------------------------------------------------- section 6: play and scoring

def play_position(hands: list[str], trump: str, rules: str = "standard") -> State:
    """A deal with these full hands (the Tapp is the rest of the deck): dealer 2, forehand
    (seat 0) soloist at 150, the Tapp discarded again, ``trump`` named, play about to begin."""
    parsed = Rules.parse(rules)
    rest = list(parsed.deck_cards)
    for hand in hands:
        for card in Hand.parse(hand):
            rest.remove(card)
    state = State.new(parsed, 2).deal([Hand.parse(h) for h in hands], rest)
    state = state.apply_text("150").apply_text("pass").apply_text("pass")
    for card in rest:
        state = state.apply_text(str(card))
    return state.apply_text(trump).apply_text("play")


def legal(state: State) -> set[str]:
    return {str(a) for a in state.legal_actions()}


def test_worked_trick_example() -> None:
    # Spades trump; A leads A♥, B's only heart is the other A♥, C plays 10♥:
    # A wins the trick (the first of identical cards), worth 32.
    state = play_position(["AH KH KH QH AC AC TC TC KC KC QC QC JC JC 9C",
                           "AH AD AD TD TD KD KD QD QD JD JD 9D 9D 9C AS",
                           "TH TH QH JH JH 9H 9H AS TS TS KS KS QS QS JS"], "S")
    state = state.apply_text("AH")
    assert legal(state) == {"AH"}  # B must follow with the only heart
    state = state.apply_text("AH")
    assert legal(state) == {"TH", "QH", "JH", "9H"}  # C cannot beat A♥: any heart
    state = state.apply_text("TH")
    assert state.tricks[-1].winner == 0 and state.trick_points == (32, 0, 0)
    assert state.to_move == 0  # the winner leads the next trick


AFTER_A_TRUMP = ["KH AC AC TC TC KC KC QC QC JC JC 9C 9C AD AD",
                 "9S 9S TD TD KD KD QD QD JD JD 9D 9D AS AS TS",
                 "AH AH TH QH JH 9H 9H KH KS KS QS QS JS JS TS"]


def test_void_trumps_then_any_card_of_the_led_suit() -> None:
    state = play_position(AFTER_A_TRUMP, "S").apply_text("KH")
    assert legal(state) == {"9S", "AS", "TS"}  # void in hearts: any trump (none in the trick yet)
    with pytest.raises(IllegalActionError, match="is not a trump"):
        state.apply_text("TD")
    state = state.apply_text("9S")
    # The trick is won by a trump: any heart may follow (the standard reading).
    assert legal(state) == {"AH", "TH", "KH", "QH", "JH", "9H"}


def test_must_beat_led_variant() -> None:
    state = play_position(AFTER_A_TRUMP, "S", "standard(must_beat=led)").apply_text("KH").apply_text("9S")
    # Some clubs: beat the highest card of the led suit even after a trump.
    assert legal(state) == {"AH", "TH"}


def test_must_beat_the_trick_winner() -> None:
    state = play_position(AFTER_A_TRUMP, "S").apply_text("KH").apply_text("AS")
    assert legal(state) == {"AH", "TH", "KH", "QH", "JH", "9H"}
    state = play_position(["QH AC AC TC TC KC KC QC QC JC JC 9C 9C AD AD",
                           "KH 9S 9S TD TD KD KD QD QD JD JD 9D 9D AS TS",
                           "AH AH TH QH JH 9H 9H KH KS KS QS QS JS JS TS"], "S").apply_text("QH")
    assert legal(state) == {"KH"}  # middlehand must beat Q♥ with its K♥
    state = state.apply_text("KH")
    assert legal(state) == {"AH", "TH"}  # rearhand must beat the K♥ now winning
    with pytest.raises(IllegalActionError, match="does not beat KH"):
        state.apply_text("QH")
    with pytest.raises(IllegalActionError, match="does not follow suit"):
        state.apply_text("KS")


OVERTRUMP = ["AC AC TC TC KC KC QC QC JC JC 9C 9C AH AH TH",
             "9S KS AD AD TD TD KD KD QD QD JD JD 9D 9D TH",
             "AS AS TS TS KS QS QS JS KH KH QH QH JH JH 9H"]


def test_void_must_trump_and_overtrump() -> None:
    state = play_position(OVERTRUMP, "S").apply_text("AC")
    assert legal(state) == {"9S", "KS"}  # void in clubs: must trump
    state = state.apply_text("KS")
    assert legal(state) == {"AS", "TS"}  # void too: must overtrump the K♠
    with pytest.raises(IllegalActionError, match="does not beat KS"):
        state.apply_text("QS")


def test_neither_suit_nor_trump_any_card() -> None:
    state = play_position(OVERTRUMP, "D").apply_text("AC")
    assert legal(state) == {"AD", "TD", "KD", "QD", "JD", "9D"}  # diamonds trump: must trump
    state = play_position(OVERTRUMP, "H").apply_text("AC")
    assert legal(state) == {"TH"}
    state = state.apply_text("TH")
    # Rearhand: void in clubs, trumps (hearts) present but cannot beat T♥... K♥ does not beat T♥.
    assert legal(state) == {"KH", "QH", "JH", "9H"}


def test_scoring_worked_example() -> None:
    # A soloist who bid 200 with 90 in tricks and discards plus a trump family (150): +240.
    assert trump_scores(STANDARD, 0, 200, (90, 100, 60), (150, 0, 0), (4, 6, 5))[0] == 240
    # A total of 190 would score -400.
    assert trump_scores(STANDARD, 0, 200, (40, 150, 60), (150, 0, 0), (4, 6, 5))[0] == -400


def test_melds_need_a_trick() -> None:
    scores = trump_scores(STANDARD, 0, 150, (200, 0, 50), (20, 100, 40), (10, 0, 5))
    assert scores == (220, 0, 90)  # middlehand has no trick: its melds are cancelled
    always = Rules.parse("standard(defender_melds=always)")
    assert trump_scores(always, 0, 150, (200, 0, 50), (20, 100, 40), (10, 0, 5)) == (220, 100, 90)


def test_soloist_without_a_trick_fails() -> None:
    assert trump_scores(STANDARD, 0, 150, (30, 150, 70), (1500, 0, 0), (0, 8, 7))[0] == -300


def test_failed_contract_credit_and_rounding_options() -> None:
    rules = Rules.parse("standard(failed_credit=30,rounding=10)")
    assert trump_scores(rules, 0, 200, (45, 125, 80), (100, 0, 0), (3, 7, 5)) == (-400, 160, 110)  # 155 rounds up
    assert rules.round_score(245) == 250 and rules.round_score(244) == 240 and rules.round_score(-245) == -240


# ---------------------------------------------------------------- section 8: end of the game

def test_soloist_priority() -> None:
    assert decide_winner(STANDARD, (1500, 1700, 200), soloist=0, deals_played=7) == 0


def test_highest_opponent_wins() -> None:
    assert decide_winner(STANDARD, (1510, 1600, 1400), soloist=2, deals_played=7) == 1


def test_nobody_at_target_plays_on() -> None:
    assert decide_winner(STANDARD, (1490, 1000, 1400), soloist=0, deals_played=7) is None


def test_tie_plays_another_deal() -> None:
    assert decide_winner(STANDARD, (1600, 1600, 100), soloist=2, deals_played=7) is None
    # ... and the third player may then win it as soloist.
    assert decide_winner(STANDARD, (1620, 1620, 1500), soloist=2, deals_played=8) == 2


def test_fixed_number_of_deals() -> None:
    rules = Rules.parse("standard(deals=4)")
    assert decide_winner(rules, (300, 200, 100), soloist=0, deals_played=3) is None
    assert decide_winner(rules, (300, 200, 100), soloist=2, deals_played=4) == 0
    assert decide_winner(rules, (300, 300, 100), soloist=2, deals_played=4) is None


# ---------------------------------------------------------------- section 9: rule sets and their text

@pytest.mark.parametrize("text", ["standard", "classic40", "sevens", "standard(target=1000,surrender_credit=30)",
                                  "classic40(first_lead=soloist)", "sevens(eight_sevens=1000,rounding=10)"])
def test_rules_text_round_trips(text: str) -> None:
    assert Rules.parse(text).text == text
    assert Rules.parse(Rules.parse(text).text) == Rules.parse(text)


def test_rules_text_is_canonical() -> None:
    assert (Rules.parse("standard( surrender_credit=30 , target=1000 )").text
            == "standard(target=1000,surrender_credit=30)")
    assert Rules.parse("standard(target=1500)").text == "standard"


@pytest.mark.parametrize("text, message", [
    ("poker", "unknown rule set 'poker'"),
    ("standard(tagret=1000)", "unknown option 'tagret'"),
    ("standard(target=abc)", "option target must be a whole number"),
    ("standard(min_bid=155)", "option min_bid must be a multiple of 10"),
    ("standard(deck=forty)", "players x hand_size + tapp_size must be the deck size 40"),
    ("standard(first_lead=dealer)", "option first_lead must be one of forehand, soloist"),
    ("standard(target)", "needs a value"),
    ("standard(target=1000,target=900)", "given twice"),
    ("standard(", "cannot read rules"),
])
def test_bad_rules_are_rejected(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=re.escape(message)):
        Rules.parse(text)


def test_classic40_and_sevens_values() -> None:
    classic = Rules.parse("classic40")
    assert (classic.hand_size, classic.tapp_size, classic.low_rank) == (12, 4, None)
    assert Rules.parse("sevens").low_rank == Rank.SEVEN


def reference_meld_total(cards: list[str], trump: str, rules: Rules) -> int:
    """RULES.md section 5 written out on card counts, independently of binokel.meld."""
    count = {c: cards.count(c) for c in set(cards)}
    n = lambda card: count.get(card, 0)  # noqa: E731
    plain = rules.double_melds == "plain"
    total = 0
    for suit in "SHDC":
        is_trump = suit == trump
        family, pair = (150, 40) if is_trump else (100, 20)
        copies = min(n(r + suit) for r in "ATKQJ")
        pairs = min(n("K" + suit), n("Q" + suit))
        if copies == 2:
            total += 2 * family if plain else (1500 if is_trump else 1000)
        else:
            total += copies * family + (pairs - copies) * pair
    for rank, four in zip("AKQJ", (100, 80, 60, 40)):
        copies = min(n(rank + s) for s in "SHDC")
        total += {0: 0, 1: four, 2: 2 * four if plain else 1000}[copies]
    if rules.eight_tens and min(n("T" + s) for s in "SHDC") == 2:
        total += rules.eight_tens
    if rules.eight_sevens and min(n("7" + s) for s in "SHDC") == 2:
        total += rules.eight_sevens
    binokel = min(n("QS"), n("JD"))
    total += {0: 0, 1: 40, 2: 300}[binokel]
    low = {"nines": "9", "sevens": "7"}.get(rules.deck)
    return total + (10 * n(low + trump) if low else 0)


@pytest.mark.parametrize("rules", ["standard", "classic40", "sevens(eight_sevens=1000)",
                                   "standard(double_melds=plain,eight_tens=1000)"])
def test_melds_agree_with_a_reference_on_random_hands(rules: str) -> None:
    import random
    parsed = Rules.parse(rules)
    kinds = sorted({str(c) for c in parsed.deck_cards})
    rng = random.Random(rules)
    for _ in range(3000):
        # Many doubles, so that double families and eights of a kind come up too.
        weights = rng.choice([(4, 3, 1), (1, 2, 3), (1, 1, 8)])
        cards = [kind for kind in kinds for _ in range(rng.choices((0, 1, 2), weights)[0])]
        for trump in "SHDC":
            assert meld_total(find_melds(Hand.parse(" ".join(cards)), Suit.parse(trump), parsed)) \
                == reference_meld_total(cards, trump, parsed), (cards, trump)
