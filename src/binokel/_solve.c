/* binokel._solve: the open-card solver's zero-window search, in C.
 *
 * The same search as Solver._search in solver.py (the reference, which runs where this
 * module is not built): fail-soft zero-window alpha-beta over the rest of a deal with
 * every hand known, a transposition table of (lower, upper) bounds and the best lead at
 * every trick start, keyed by the cards still held and the leader. Values are identical to
 * the Python search's (tests/test_ai_solver_core.py); the nodes differ: this module orders
 * leads by what the opponents hold (leads()), skips the cards an equivalent card of the same
 * seat dominates (undominated()), keeps the move orders of follows in a small table of its
 * own, and plays the last trick without a node of its own. value() runs Solver._mtd's
 * searches, playout() gives their first guess.
 *
 * With melds (Solver's ``melds``: what a seat's first trick is worth) the seats still waiting for
 * their first trick are ``pending``, a bit each in the table's key above the cards'.
 *
 * Cards are kinds 0..27 (suit * 7 + rank, rank 0 the highest); a hand is a mask with bit
 * k the first copy of kind k and bit k + 28 the second (binokel.card). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_SEATS 6
#define KINDS 28
#define COPY 28
#define KIND_MASK ((1ULL << KINDS) - 1)
#define LAST_TRICK_BONUS 10
#define MIN_CAPACITY (1u << 16) /* entries: 1 MB, most searches of a deal never grow it (growing rehashes) */
#define MAX_CAPACITY (1u << 21) /* entries (16 bytes each): the table is cleared when full */
#define FOLLOW_BITS 13
#define FOLLOWS (1 << FOLLOW_BITS)
#define CACHED_MOVES 7 /* a suit's kinds: every follow of a suit or by trumps */

static const int RANK_POINTS[7] = {11, 10, 4, 3, 2, 0, 0};
static int POINTS[KINDS];
static uint32_t SUIT_MASK[4];
static uint32_t RANK_MASK[7];
static uint32_t HIGHER[KINDS]; /* the kinds of the same suit that beat kind k */

/* ------------------------------------------------------------------ the table */

/* Cards never change hands, so a position of the play is fully given by which of the root's
 * cards are still held: each card held at the root (a seat and a bit of its mask) has a bit
 * of a compact key, and the table's key is that key with the leader above it. The table
 * remembers the root hands (its base) the keys are for; a search from another base (another
 * world of the same deal) starts a new generation, which empties the table without touching
 * it. */

#define LEADER_SHIFT 58 /* at most 56 cards below it, the leader + 1 (never 0) in 3 bits */

typedef struct {
    uint64_t key; /* compact hands | (leader + 1) << LEADER_SHIFT */
    int16_t lo, hi;
    int8_t first; /* the best lead found, -1 if none */
    uint8_t spare;
    uint16_t generation; /* the entry is empty unless this is the table's */
} Entry;

/* The move order of a follow situation, the card that last cut the search off there first. */
typedef struct {
    uint32_t legal;
    uint16_t context; /* the card on top, the seats to play and holding it, the cards played; 0: empty */
    uint8_t count;
    int8_t moves[CACHED_MOVES];
} Follow;

typedef struct {
    PyObject_HEAD
    Entry *entries;
    size_t capacity; /* a power of two */
    int shift;       /* 64 - log2(capacity), for the multiplicative hash */
    size_t used;
    uint16_t generation;
    uint64_t base[MAX_SEATS]; /* the root hands the keys are for */
    int melds[MAX_SEATS];     /* and the melds (a new value empties the table too) */
    int seats;
    uint64_t card_bit[MAX_SEATS][2 * KINDS]; /* a seat's mask bit -> its bit of the compact key */
    uint64_t pending_bit[MAX_SEATS];         /* a seat with melds, still without a trick -> its bit */
    Follow follows[FOLLOWS]; /* the move orders of follow situations (solvers of one deal share them) */
} TableObject;

static inline Entry *slot_of(Entry *entries, int shift, size_t capacity, uint16_t generation, uint64_t key)
{
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> shift);
    for (;;) {
        Entry *e = &entries[i];
        if (e->generation != generation || e->key == key)
            return e;
        i = (i + 1) & (capacity - 1);
    }
}

static inline Entry *table_find(TableObject *t, uint64_t key)
{
    Entry *e = slot_of(t->entries, t->shift, t->capacity, t->generation, key);
    return e->generation != t->generation ? NULL : e;
}

/* A new generation: every entry becomes empty (a real clear only when the counter wraps). */
static void table_clear(TableObject *t)
{
    if (++t->generation == 0) {
        memset(t->entries, 0, t->capacity * sizeof(Entry));
        t->generation = 1;
    }
    t->used = 0;
}

static int log2_of(size_t capacity) { return 63 - __builtin_clzll((unsigned long long)capacity); }

/* Grow (or, at the largest size, clear) the table before it is half full; 0 on no memory. */
static int table_make_room(TableObject *t)
{
    if (2 * (t->used + 1) <= t->capacity)
        return 1;
    if (t->capacity >= MAX_CAPACITY) {
        table_clear(t);
        return 1;
    }
    size_t capacity = 2 * t->capacity;
    int shift = 64 - log2_of(capacity);
    Entry *entries = PyMem_Calloc(capacity, sizeof(Entry));
    if (entries == NULL)
        return 0;
    for (size_t i = 0; i < t->capacity; i++) {
        Entry *old = &t->entries[i];
        if (old->generation == t->generation)
            *slot_of(entries, shift, capacity, t->generation, old->key) = *old;
    }
    PyMem_Free(t->entries);
    t->entries = entries;
    t->capacity = capacity;
    t->shift = shift;
    return 1;
}

static int table_store(TableObject *t, uint64_t key, int lo, int hi, int first)
{
    Entry *e = slot_of(t->entries, t->shift, t->capacity, t->generation, key);
    if (e->generation != t->generation) {
        if (!table_make_room(t))
            return 0;
        e = slot_of(t->entries, t->shift, t->capacity, t->generation, key);
        e->key = key;
        e->generation = t->generation;
        t->used++;
    }
    e->lo = (int16_t)lo;
    e->hi = (int16_t)hi;
    e->first = (int8_t)first;
    return 1;
}

/* Key the table for the root hands ``base`` and ``melds`` (emptying it if it was keyed for others). */
static void table_set_base(TableObject *t, const uint64_t *base, const int *melds, int seats)
{
    if (t->seats == seats && memcmp(t->base, base, sizeof t->base) == 0 &&
        memcmp(t->melds, melds, sizeof t->melds) == 0)
        return;
    table_clear(t);
    memcpy(t->base, base, sizeof t->base);
    memcpy(t->melds, melds, sizeof t->melds);
    t->seats = seats;
    int index = 0;
    for (int seat = 0; seat < MAX_SEATS; seat++)
        for (int bit = 0; bit < 2 * KINDS; bit++)
            t->card_bit[seat][bit] = base[seat] >> bit & 1 ? 1ULL << index++ : 0;
    for (int seat = 0; seat < MAX_SEATS; seat++)
        t->pending_bit[seat] = melds[seat] ? 1ULL << index++ : 0;
}

/* ------------------------------------------------------------------ the search */

typedef struct {
    TableObject *table;
    uint64_t hands[MAX_SEATS];
    uint64_t key; /* the compact key of the hands (the table's) */
    int orders[MAX_SEATS][MAX_SEATS];
    int in_trick; /* seats that play to a trick */
    int trump;    /* -1: no trump */
    int mode;     /* 0 card points, 1 Durch, 2 Bettel */
    int beat_led, exemption;
    int side[MAX_SEATS];   /* the soloist's side: the maximising seats */
    int gainer[MAX_SEATS]; /* a trick won by this seat counts for the side */
    int melds[MAX_SEATS];  /* what the seat's first trick is worth (Solver.melds), 0 in a Durch or Bettel */
    unsigned pending;      /* the seats with melds still without a trick (their bits are in ``key``) */
    long long nodes, limit;
    int failed; /* 1: over the node limit, 2: out of memory */
} Search;

static inline int beats(int kind, int top, int trump)
{
    int suit = kind / 7;
    if (suit == top / 7)
        return kind < top; /* (a lower kind of a suit is a higher rank) */
    return suit == trump;
}

static inline int lowest_kind(uint32_t mask) { return __builtin_ctz(mask); }

/* The kinds ``hand`` may play to ``trick`` (trick.py's legal_cards). */
static uint32_t legal_cards(const Search *s, uint64_t hand, const int *trick, int n, int best, int exempt)
{
    uint32_t have = (uint32_t)((hand | (hand >> COPY)) & KIND_MASK);
    if (n == 0)
        return have;
    int led = trick[0] / 7, top = trick[best];
    uint32_t follow = have & SUIT_MASK[led];
    if (follow) {
        int target;
        if (exempt)
            return follow;
        if (top / 7 == led)
            target = top;
        else if (s->beat_led) {
            target = KINDS;
            for (int i = 0; i < n; i++)
                if (trick[i] / 7 == led && trick[i] < target)
                    target = trick[i];
        } else
            return follow;
        uint32_t higher = follow & HIGHER[target];
        return higher ? higher : follow;
    }
    if (s->trump >= 0 && !exempt) {
        uint32_t trumps = have & SUIT_MASK[s->trump];
        if (trumps) {
            if (top / 7 == s->trump) {
                uint32_t higher = trumps & HIGHER[top];
                return higher ? higher : trumps;
            }
            return trumps;
        }
    }
    return have;
}

/* ``legal`` less the cards a better one of the same seat dominates. Cards of one suit that no
 * card still in play elsewhere (another hand, this trick) separates take the same tricks in
 * every line of play: swapping them maps the lines after one onto the lines after the other,
 * trick for trick. In a Durch or Bettel they are equivalent: one of them is enough. In a
 * point game they differ in points (a higher rank scores more): where the side that takes
 * this trick is certain (its last card, or no later seat of the other side may play a card
 * above them), the higher puts more points into this trick and keeps fewer for a later one,
 * so the side wants it if the side takes this trick and the lower one if not, and the other
 * side the reverse. ``top`` is the trick's top card (-1 at a lead). */
static uint32_t undominated(const Search *s, uint32_t legal, const int *order, const int *trick, int n, int top, int holder)
{
    /* the cards of suits with two or more of them: only they can make a class */
    uint32_t pairs = legal & ~SUIT_MASK[lowest_kind(legal) / 7] ? 0 : legal; /* (one suit: the usual follow) */
    if (!pairs) {
        for (int suit = 0; suit < 4; suit++) {
            uint32_t in_suit = legal & SUIT_MASK[suit];
            if (in_suit & (in_suit - 1))
                pairs |= in_suit;
        }
        if (!pairs)
            return legal;
    }
    int seat = order[n];
    uint64_t held = 0;
    for (int i = 0; i < MAX_SEATS; i++)
        if (i != seat)
            held |= s->hands[i];
    uint32_t others = (uint32_t)((held | (held >> COPY)) & KIND_MASK);
    for (int i = 0; i < n; i++)
        others |= 1u << trick[i];
    uint32_t kept = legal & ~pairs;
    for (uint32_t cards = pairs; cards;) {
        int high = lowest_kind(cards); /* (a lower kind is a higher rank) */
        /* the class: the cards of the suit from ``high`` down to the first card in play elsewhere */
        uint32_t beyond = others & ~((1u << high) - 1), below = beyond ? (beyond & -beyond) - 1 : ~0u;
        uint32_t class = cards & SUIT_MASK[high / 7] & below;
        if (!(class & (class - 1))) {
            kept |= 1u << high;
            cards &= cards - 1;
            continue;
        }
        cards &= ~class;
        int low = 31 - __builtin_clz(class);
        class = (2u << low) - (1u << high);
        int higher = 1, fixed = 1;
        if (s->mode == 0) {
            int wins = top < 0 || beats(high, top, s->trump), winner = wins ? seat : holder;
            int on_top = wins ? high : top, led = n ? trick[0] / 7 : high / 7;
            /* a later seat can beat it with a higher card of the led suit if it holds that suit
             * (it must follow), else with a trump (above it if it is one) */
            uint32_t follows = on_top / 7 == led ? HIGHER[on_top] : 0;
            uint32_t ruffs = s->trump < 0 ? 0 : on_top / 7 == s->trump ? HIGHER[on_top] : SUIT_MASK[s->trump];
            for (int i = n + 1; i < s->in_trick && fixed; i++) {
                if (s->gainer[order[i]] == s->gainer[winner])
                    continue;
                uint64_t h = s->hands[order[i]];
                uint32_t have = (uint32_t)((h | (h >> COPY)) & KIND_MASK);
                if (have & (have & SUIT_MASK[led] ? follows : ruffs))
                    fixed = 0;
            }
            higher = s->gainer[winner] == s->side[seat];
        }
        kept |= fixed ? 1u << (higher ? high : low) : legal & class;
    }
    return kept;
}

/* The kinds of ``cards`` into ``moves`` by rank, high or low first; returns their number. */
static inline int by_rank(uint32_t cards, int low_first, int *moves)
{
    int count = 0;
    for (int i = 0; cards; i++) {
        uint32_t rank = RANK_MASK[low_first ? 6 - i : i];
        for (uint32_t rest = cards & rank; rest; rest &= rest - 1)
            moves[count++] = lowest_kind(rest);
        cards &= ~rank;
    }
    return count;
}

/* The leads of ``seat`` (its cards ``legal``), likely best first, in groups:
 * 1. side-suit cards no opponent can beat (none holds a higher card of the suit, none is void
 *    in it with a trump), high ranks first;
 * 2. low side-suit cards of suits where a partner holds the best card (no ruff by an opponent);
 * 3. other low side-suit cards, then those of suits an opponent can ruff;
 * 4. the trumps no opponent can beat, then the other trumps low first: a trump lead spends the
 *    leader's side's own trumps.
 * (Measured against "high ranks first": 0.70x the nodes, bench positions of four rule sets.) */
static int leads(const Search *s, uint32_t legal, int seat, int mine, int *moves)
{
    uint32_t partners = 0, opponents = 0, ruffed = 0, trumps = s->trump >= 0 ? SUIT_MASK[s->trump] : 0;
    const int *order = s->orders[seat];
    for (int i = 1; i < s->in_trick; i++) {
        uint64_t hand = s->hands[order[i]];
        uint32_t have = (uint32_t)((hand | (hand >> COPY)) & KIND_MASK);
        if (s->side[order[i]] == mine) {
            partners |= have;
            continue;
        }
        opponents |= have;
        if (have & trumps)
            for (int suit = 0; suit < 4; suit++)
                if (!(have & SUIT_MASK[suit]))
                    ruffed |= SUIT_MASK[suit];
    }
    uint32_t sure = 0, partner_suits = 0;
    for (int suit = 0; suit < 4; suit++) {
        uint32_t theirs = opponents & SUIT_MASK[suit], ours = partners & SUIT_MASK[suit];
        uint32_t their_best = theirs & -theirs; /* (rank 0 is the lowest bit) */
        /* of two equal cards the first played wins */
        sure |= theirs ? ((their_best << 1) - 1) & SUIT_MASK[suit] : SUIT_MASK[suit];
        if (ours && (!theirs || (ours & -ours) <= their_best))
            partner_suits |= SUIT_MASK[suit];
    }
    uint32_t plain = legal & ~trumps & ~ruffed;
    int count = by_rank(plain & sure, 0, moves);
    count += by_rank(plain & ~sure & partner_suits, 1, moves + count);
    count += by_rank(plain & ~sure & ~partner_suits, 1, moves + count);
    count += by_rank(legal & ~trumps & ruffed, 1, moves + count);
    count += by_rank(legal & trumps & sure, 0, moves + count);
    count += by_rank(legal & trumps & ~sure, 1, moves + count);
    return count;
}

/* The follows among ``legal``, likely best first (solver.py's _ordered); returns their number. */
static int ordered(const Search *s, uint32_t legal, int top, int seat, int holder, int mine, int *moves)
{
    int count = 0;
    int keys[KINDS];
    for (uint32_t rest = legal; rest; rest &= rest - 1) {
        int k = lowest_kind(rest);
        int gains = s->gainer[beats(k, top, s->trump) ? seat : holder];
        int want = mine ? gains : !gains;
        int second;
        if (s->mode == 0)
            second = gains ? -POINTS[k] : POINTS[k];
        else
            second = want ? k % 7 : -(k % 7);
        /* (not want, second, kind), packed so that plain integer order is the tuple order */
        int key = (!want) << 16 | (second + 64) << 8 | k;
        int i = count++;
        while (i > 0 && keys[i - 1] > key) {
            keys[i] = keys[i - 1];
            moves[i] = moves[i - 1];
            i--;
        }
        keys[i] = key;
        moves[i] = k;
    }
    return count;
}

static inline void to_front(int *moves, int count, int kind)
{
    for (int i = 1; i < count; i++)
        if (moves[i] == kind) {
            memmove(moves + 1, moves, (size_t)i * sizeof *moves);
            moves[0] = kind;
            return;
        }
}

/* The melds a trick of ``winner`` adds to the side's gain (``done``: the deal's last trick), and
 * the seats still pending after it into ``*after``. */
static inline int closed(const Search *s, int winner, unsigned pending, int done, unsigned *after)
{
    int extra = 0;
    if (pending >> winner & 1) {
        pending &= ~(1u << winner);
        if (s->side[winner])
            extra = s->melds[winner];
    }
    if (done)
        for (unsigned rest = pending; rest; rest &= rest - 1) {
            int seat = __builtin_ctz(rest);
            if (!s->side[seat])
                extra += s->melds[seat];
        }
    *after = pending;
    return extra;
}

/* The gain of the last trick, every seat holding one card (which sits in its first-copy bit). */
static inline int last_trick(const Search *s, int leader)
{
    const int *order = s->orders[leader];
    int top = -1, winner = leader, total = LAST_TRICK_BONUS;
    for (int i = 0; i < s->in_trick; i++) {
        int seat = order[i];
        int kind = 63 - __builtin_clzll(s->hands[seat]);
        total += POINTS[kind];
        if (top < 0 || beats(kind, top, s->trump)) {
            top = kind;
            winner = seat;
        }
    }
    unsigned after;
    int extra = s->pending ? closed(s, winner, s->pending, 1, &after) : 0;
    if (!s->gainer[winner])
        return extra;
    return s->mode == 0 ? total + extra : 1;
}

/* Fail-soft alpha-beta: a value v with true <= v if v <= alpha, true >= v if v >= beta, else
 * true == v. ``left`` is the most the side could still gain (every point or trick left),
 * kept up to date as tricks end. A zero-window search at t is the window (t - 1, t). */
static int search(Search *s, int *trick, int n, int leader, int best, int alpha, int beta, int left)
{
    if (++s->nodes > s->limit) {
        s->failed = 1;
        return 0;
    }
    if (beta <= 0)
        return 0;
    const int *order = s->orders[leader];
    int first = -1, lo = 0, hi = left;
    if (n == 0) {
        uint64_t lead_hand = s->hands[order[0]];
        if (!(lead_hand & (lead_hand - 1)))
            return last_trick(s, leader);
        Entry *entry = table_find(s->table, s->key | (uint64_t)(leader + 1) << LEADER_SHIFT);
        if (entry != NULL) {
            lo = entry->lo;
            hi = entry->hi;
            first = entry->first;
        }
        if (lo >= beta)
            return lo;
        if (hi <= alpha || lo == hi)
            return hi;
        if (lo > alpha)
            alpha = lo;
        if (hi < beta)
            beta = hi;
    }
    const int low = alpha, high = beta; /* the window searched, for the table's bounds */
    int seat = order[n];
    uint64_t hand = s->hands[seat];
    int top = -1, holder = order[best];
    uint32_t legal;
    if (n) {
        top = trick[best];
        int exempt = s->exemption && ((holder - seat) & 1) == 0;
        legal = legal_cards(s, hand, trick, n, best, exempt);
    } else
        legal = (uint32_t)((hand | (hand >> COPY)) & KIND_MASK);
    if (legal & (legal - 1))
        legal = undominated(s, legal, order, trick, n, top, holder);
    int mine = s->side[seat];
    int moves[KINDS], count;
    Follow *follow = NULL;
    uint16_t context = 0;
    if (!(legal & (legal - 1))) {
        moves[0] = lowest_kind(legal); /* a forced card: nothing to order */
        count = 1;
    } else if (n) {
        /* The order of a follow depends on these alone (the sides are the same for every solver
         * of a deal): ordered once, then looked up, with the card that cut off here last first. */
        context = (uint16_t)((top + 1) | seat << 5 | holder << 8 | n << 11 | 1 << 14);
        uint32_t index = (legal ^ (uint32_t)context << 16) * 2654435761u >> (32 - FOLLOW_BITS);
        follow = &s->table->follows[index];
        if (follow->legal == legal && follow->context == context) {
            count = follow->count;
            for (int i = 0; i < count; i++)
                moves[i] = follow->moves[i];
        } else {
            count = ordered(s, legal, top, seat, holder, mine, moves);
            if (count <= CACHED_MOVES) {
                follow->legal = legal;
                follow->context = context;
                follow->count = (uint8_t)count;
                for (int i = 0; i < count; i++)
                    follow->moves[i] = (int8_t)moves[i];
            } else
                follow = NULL;
        }
    } else {
        count = leads(s, legal, seat, mine, moves);
        if (first >= 0 && legal >> first & 1)
            to_front(moves, count, first);
    }
    int result = mine ? -1 : 1 << 20, chosen = -1, cut = 0;
    int last_card = n + 1 == s->in_trick;
    const uint64_t *card_bit = s->table->card_bit[seat];
    uint32_t beaters = 0; /* the kinds that beat the trick's top card */
    if (n)
        beaters = HIGHER[top] | (s->trump >= 0 && top / 7 != s->trump ? SUIT_MASK[s->trump] : 0);
    int trick_points = 0; /* of the cards played to this trick before */
    for (int j = 0; j < n; j++)
        trick_points += POINTS[trick[j]];
    for (int i = 0; i < count; i++) {
        int kind = moves[i];
        int bit = hand >> (kind + COPY) & 1 ? kind + COPY : kind; /* the second copy goes first */
        uint64_t card = card_bit[bit];
        s->hands[seat] = hand ^ (1ULL << bit);
        s->key ^= card;
        trick[n] = kind;
        int new_best = beaters >> kind & 1 ? n : best;
        int value;
        if (last_card) {
            int winner = order[new_best];
            int done = s->hands[winner] == 0;
            int next[MAX_SEATS];
            int taken = 1, gain;
            if (s->mode == 0) {
                taken = trick_points + POINTS[kind];
                gain = s->gainer[winner] ? taken + (done ? LAST_TRICK_BONUS : 0) : 0;
            } else
                gain = s->gainer[winner] ? 1 : 0;
            unsigned pending = s->pending;
            uint64_t key = s->key;
            if (pending) {
                unsigned after;
                gain += closed(s, winner, pending, done, &after);
                if (after != pending) {
                    taken += s->melds[winner]; /* (no longer in what the side could gain) */
                    s->pending = after;
                    s->key ^= s->table->pending_bit[winner];
                }
            }
            if (done)
                value = gain;
            else if (!(s->hands[winner] & (s->hands[winner] - 1)))
                value = gain + last_trick(s, winner); /* one card each: no need of a search */
            else
                value = gain + search(s, next, 0, winner, 0, alpha - gain, beta - gain, left - taken);
            s->pending = pending;
            s->key = key;
        } else
            value = search(s, trick, n + 1, leader, new_best, alpha, beta, left);
        s->hands[seat] = hand;
        s->key ^= card;
        if (s->failed)
            return 0;
        if (mine) {
            if (value > result) {
                result = value;
                chosen = kind;
                if (result >= beta) {
                    cut = 1;
                    break;
                }
                if (result > alpha)
                    alpha = result;
            }
        } else if (value < result) {
            result = value;
            chosen = kind;
            if (result <= alpha) {
                cut = 1;
                break;
            }
            if (result < beta)
                beta = result;
        }
    }
    if (follow != NULL && cut && chosen != moves[0] && follow->legal == legal && follow->context == context) {
        /* (the entry may hold another situation by now: then it is left alone) */
        int i = 0;
        while (follow->moves[i] != chosen)
            i++;
        memmove(follow->moves + 1, follow->moves, (size_t)i);
        follow->moves[0] = (int8_t)chosen;
    }
    if (n == 0) {
        uint64_t key = s->key | (uint64_t)(leader + 1) << LEADER_SHIFT;
        /* (the search may have cleared the table or tightened this entry meanwhile) */
        Entry *entry = table_find(s->table, key);
        lo = 0;
        hi = left;
        if (entry != NULL) {
            lo = entry->lo;
            hi = entry->hi;
        }
        if (result <= low)
            hi = hi < result ? hi : result;
        else if (result >= high)
            lo = lo > result ? lo : result;
        else
            lo = hi = result;
        if (!table_store(s->table, key, lo, hi, chosen))
            s->failed = 2;
    }
    return result;
}

/* The side's gain when every seat plays the card the search would try first (the hands are
 * restored, ``trick`` is not): a first guess at the value for Solver._mtd, cheaper than the
 * heuristic playout of the Python solver. */
static int playout(Search *s, int *trick, int n, int leader, int best)
{
    uint64_t hands[MAX_SEATS];
    memcpy(hands, s->hands, sizeof hands);
    unsigned pending = s->pending;
    int gain = 0, points = 0;
    for (int j = 0; j < n; j++)
        points += POINTS[trick[j]];
    for (;;) {
        const int *order = s->orders[leader];
        int seat = order[n], holder = order[best], moves[KINDS];
        uint64_t hand = s->hands[seat];
        uint32_t legal = n ? legal_cards(s, hand, trick, n, best, s->exemption && ((holder - seat) & 1) == 0)
                           : (uint32_t)((hand | (hand >> COPY)) & KIND_MASK);
        if (legal & (legal - 1))
            legal = undominated(s, legal, order, trick, n, n ? trick[best] : -1, holder);
        if (n)
            ordered(s, legal, trick[best], seat, holder, s->side[seat], moves);
        else
            leads(s, legal, seat, s->side[seat], moves);
        int kind = moves[0];
        s->hands[seat] = hand ^ (1ULL << (hand >> (kind + COPY) & 1 ? kind + COPY : kind));
        if (n && beats(kind, trick[best], s->trump))
            best = n;
        trick[n++] = kind;
        points += POINTS[kind];
        if (n < s->in_trick)
            continue;
        int winner = order[best], done = s->hands[winner] == 0;
        if (s->gainer[winner])
            gain += s->mode == 0 ? points + (done ? LAST_TRICK_BONUS : 0) : 1;
        if (pending)
            gain += closed(s, winner, pending, done, &pending);
        if (done)
            break;
        leader = winner;
        n = best = points = 0;
    }
    memcpy(s->hands, hands, sizeof hands);
    return gain;
}

/* ------------------------------------------------------------------ Python */

static PyObject *table_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *keywords[] = {NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, ":Table", keywords))
        return NULL;
    TableObject *self = (TableObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->entries = PyMem_Calloc(MIN_CAPACITY, sizeof(Entry));
    if (self->entries == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    self->capacity = MIN_CAPACITY;
    self->shift = 64 - log2_of(MIN_CAPACITY);
    self->used = 0;
    self->generation = 1;
    self->seats = 0; /* no base yet */
    memset(self->follows, 0, sizeof self->follows);
    return (PyObject *)self;
}

static void table_dealloc(TableObject *self)
{
    PyMem_Free(self->entries);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static Py_ssize_t table_len(TableObject *self) { return (Py_ssize_t)self->used; }

static PySequenceMethods table_as_sequence = {.sq_length = (lenfunc)table_len};

static PyTypeObject TableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "binokel._solve.Table",
    .tp_doc = PyDoc_STR("The bounds found by searches of one deal's positions (trick starts), shared by them."),
    .tp_basicsize = sizeof(TableObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = table_new,
    .tp_dealloc = (destructor)table_dealloc,
    .tp_as_sequence = &table_as_sequence,
};

static int read_ints(PyObject *sequence, int *out, int most, const char *what)
{
    PyObject *fast = PySequence_Fast(sequence, what);
    if (fast == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > most) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s: at most %d items", what, most);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long value = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (value == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        out[i] = (int)value;
    }
    Py_DECREF(fast);
    return (int)n;
}

/* Hand masks (2 to MAX_SEATS of them) into ``out``, the rest 0; their number, or -1 with an error. */
static int read_masks(PyObject *sequence, uint64_t *out, const char *what)
{
    PyObject *fast = PySequence_Fast(sequence, what);
    if (fast == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > MAX_SEATS || n < 2) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s: 2 to %d seats", what, MAX_SEATS);
        return -1;
    }
    memset(out, 0, MAX_SEATS * sizeof *out);
    for (Py_ssize_t i = 0; i < n; i++) {
        out[i] = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        if (out[i] >> (2 * KINDS)) {
            Py_DECREF(fast);
            PyErr_Format(PyExc_ValueError, "%s: masks of %d bits", what, 2 * KINDS);
            return -1;
        }
    }
    Py_DECREF(fast);
    return (int)n;
}

/* The arguments of search(), value() and playout() but the window: the position (its trick into
 * ``trick``, its length into ``*trick_length``) and the game into ``s``, checked; -1 with an
 * error if they are not a position of one deal's play (then the table is left as it was). */
static int prepare(Search *s, int *trick, int *trick_length, PyObject *table, PyObject *base_hands, PyObject *hands,
                   PyObject *trick_items, PyObject *orders, int leader, int best, int trump, int mode, int beat_led,
                   int exemption, PyObject *side, PyObject *gainer, PyObject *melds, int pending, long long limit)
{
    memset(s, 0, sizeof *s);
    s->table = (TableObject *)table;
    s->trump = trump;
    s->mode = mode;
    s->beat_led = beat_led;
    s->exemption = exemption;
    s->limit = limit;
    uint64_t base[MAX_SEATS];
    int players = read_masks(hands, s->hands, "hands");
    if (players < 0)
        return -1;
    int base_seats = read_masks(base_hands, base, "base");
    if (base_seats < 0)
        return -1;
    if (base_seats != players)
        return PyErr_Format(PyExc_ValueError, "base: one hand a seat"), -1;
    int base_cards = 0;
    for (int i = 0; i < MAX_SEATS; i++) {
        if (s->hands[i] & ~base[i])
            return PyErr_Format(PyExc_ValueError, "hands: not a part of the base hands"), -1;
        base_cards += __builtin_popcountll(base[i]);
    }
    if (base_cards > LEADER_SHIFT)
        return PyErr_Format(PyExc_ValueError, "base: at most %d cards", LEADER_SHIFT), -1;
    int flags[MAX_SEATS];
    if (read_ints(side, flags, (int)players, "side") != players)
        return PyErr_Occurred() ? -1 : (PyErr_Format(PyExc_ValueError, "side: one flag a seat"), -1);
    for (int i = 0; i < players; i++)
        s->side[i] = flags[i] != 0;
    if (read_ints(gainer, flags, (int)players, "gainer") != players)
        return PyErr_Occurred() ? -1 : (PyErr_Format(PyExc_ValueError, "gainer: one flag a seat"), -1);
    for (int i = 0; i < players; i++)
        s->gainer[i] = flags[i] != 0;
    if (read_ints(melds, flags, (int)players, "melds") != players)
        return PyErr_Occurred() ? -1 : (PyErr_Format(PyExc_ValueError, "melds: one a seat"), -1);
    int meld_seats = 0, meld_total = 0;
    for (int i = 0; i < players; i++) {
        meld_total += flags[i] > 0 ? flags[i] : 0;
        if (flags[i] < 0 || meld_total > 30000) /* (the table's bounds are 16-bit) */
            return PyErr_Format(PyExc_ValueError, "melds: 0 or more, at most 30000 together"), -1;
        s->melds[i] = mode == 0 ? flags[i] : 0; /* (no melds in a Durch or Bettel) */
        meld_seats += s->melds[i] != 0;
        if (s->melds[i] && pending >> i & 1)
            s->pending |= 1u << i;
    }
    PyObject *order_list = PySequence_Fast(orders, "orders");
    if (order_list == NULL)
        return -1;
    if (PySequence_Fast_GET_SIZE(order_list) != players) {
        Py_DECREF(order_list);
        return PyErr_Format(PyExc_ValueError, "orders: one a seat"), -1;
    }
    s->in_trick = -1;
    for (Py_ssize_t i = 0; i < players; i++) {
        int length = read_ints(PySequence_Fast_GET_ITEM(order_list, i), s->orders[i], MAX_SEATS, "order");
        if (length < 0) {
            Py_DECREF(order_list);
            return -1;
        }
        if (i == leader)
            s->in_trick = length;
    }
    Py_DECREF(order_list);
    int n = read_ints(trick_items, trick, MAX_SEATS, "trick");
    if (n < 0)
        return -1;
    if (leader < 0 || leader >= players || s->in_trick < 2 || n >= s->in_trick || (n && (best < 0 || best >= n)))
        return PyErr_Format(PyExc_ValueError, "not a position of the play"), -1;
    for (int i = 0; i < n; i++)
        if (trick[i] < 0 || trick[i] >= KINDS)
            return PyErr_Format(PyExc_ValueError, "trick: kinds 0 to %d", KINDS - 1), -1;
    /* What the search relies on: every seat of the trick leads a valid order of the same length,
     * and holds as many cards as the next to play (one fewer once it has played to this trick). */
    for (int i = 0; i < s->in_trick; i++) {
        int seat = s->orders[leader][i];
        if (seat < 0 || seat >= players)
            return PyErr_Format(PyExc_ValueError, "orders: seats 0 to %d", (int)players - 1), -1;
        for (int j = 0; j < s->in_trick; j++)
            if (s->orders[seat][j] < 0 || s->orders[seat][j] >= players)
                return PyErr_Format(PyExc_ValueError, "orders: seats 0 to %d", (int)players - 1), -1;
    }
    int cards = __builtin_popcountll(s->hands[s->orders[leader][n]]);
    for (int i = 0; i < s->in_trick; i++) {
        uint64_t hand = s->hands[s->orders[leader][i]];
        /* (a second copy is only ever held with the first: it is the one a play removes first) */
        if (hand >> (2 * KINDS) || (hand >> COPY & ~hand & KIND_MASK) || __builtin_popcountll(hand) != cards - (i < n))
            return PyErr_Format(PyExc_ValueError, "hands: not the hands of one deal's play"), -1;
    }
    if (cards < 1)
        return PyErr_Format(PyExc_ValueError, "hands: no card left to play"), -1;
    if (base_cards + meld_seats > LEADER_SHIFT)
        return PyErr_Format(PyExc_ValueError, "base: at most %d cards and seats with melds", LEADER_SHIFT), -1;
    /* Valid: only now may the table change (a new base empties it). */
    table_set_base(s->table, base, s->melds, players);
    for (int seat = 0; seat < players; seat++) {
        for (uint64_t rest = s->hands[seat]; rest; rest &= rest - 1)
            s->key |= s->table->card_bit[seat][__builtin_ctzll(rest)];
        if (s->pending >> seat & 1)
            s->key |= s->table->pending_bit[seat];
    }
    *trick_length = n;
    return 0;
}

/* The result of a search: (value or None over the node limit, nodes). */
static PyObject *outcome(const Search *s, int value)
{
    if (s->failed == 2)
        return PyErr_NoMemory();
    if (s->failed)
        return Py_BuildValue("(OL)", Py_None, s->nodes);
    return Py_BuildValue("(iL)", value, s->nodes);
}

static PyObject *solve_search(PyObject *module, PyObject *args)
{
    PyObject *table, *base_hands, *hands, *trick_items, *orders, *side, *gainer, *melds;
    int leader, best, alpha, beta, left, trump, mode, beat_led, exemption, pending;
    long long limit;
    if (!PyArg_ParseTuple(args, "O!OOOOiiiiiiippOOOiL:search", &TableType, &table, &base_hands, &hands, &trick_items,
                          &orders, &leader, &best, &alpha, &beta, &left, &trump, &mode, &beat_led, &exemption,
                          &side, &gainer, &melds, &pending, &limit))
        return NULL;
    Search s;
    int trick[MAX_SEATS], n;
    if (prepare(&s, trick, &n, table, base_hands, hands, trick_items, orders, leader, best, trump, mode, beat_led,
                exemption, side, gainer, melds, pending, limit) < 0)
        return NULL;
    int value;
    Py_BEGIN_ALLOW_THREADS
    value = search(&s, trick, n, leader, best, alpha, beta, left);
    Py_END_ALLOW_THREADS
    return outcome(&s, value);
}

/* Solver._mtd's zero-window searches for the exact value in [0, high], ``high`` the most the side
 * could gain: from ``probe`` down by the bounds that fail, then bisection. */
static PyObject *solve_value(PyObject *module, PyObject *args)
{
    PyObject *table, *base_hands, *hands, *trick_items, *orders, *side, *gainer, *melds;
    int leader, best, high, probe, trump, mode, beat_led, exemption, pending;
    long long limit;
    if (!PyArg_ParseTuple(args, "O!OOOOiiiiiippOOOiL:value", &TableType, &table, &base_hands, &hands, &trick_items,
                          &orders, &leader, &best, &high, &probe, &trump, &mode, &beat_led, &exemption, &side,
                          &gainer, &melds, &pending, &limit))
        return NULL;
    Search s;
    int trick[MAX_SEATS], n;
    if (prepare(&s, trick, &n, table, base_hands, hands, trick_items, orders, leader, best, trump, mode, beat_led,
                exemption, side, gainer, melds, pending, limit) < 0)
        return NULL;
    int low = 0, left = high;
    Py_BEGIN_ALLOW_THREADS
    probe = probe < high ? probe : high;
    probe = probe > low + 1 ? probe : low + 1;
    while (low < high) {
        int g = search(&s, trick, n, leader, best, probe - 1, probe, left);
        if (s.failed)
            break;
        if (g >= probe) {
            low = g < high ? g : high;
            low = low > probe ? low : probe;
            probe = (low + high + 1) / 2;
        } else {
            high = g > low ? g : low;
            high = high < probe - 1 ? high : probe - 1;
            probe = high;
        }
        probe = probe > low + 1 ? probe : low + 1;
        probe = probe < high ? probe : high;
    }
    Py_END_ALLOW_THREADS
    return outcome(&s, low);
}
static PyObject *solve_playout(PyObject *module, PyObject *args)
{
    PyObject *table, *base_hands, *hands, *trick_items, *orders, *side, *gainer, *melds;
    int leader, best, trump, mode, beat_led, exemption, pending;
    if (!PyArg_ParseTuple(args, "O!OOOOiiiippOOOi:playout", &TableType, &table, &base_hands, &hands, &trick_items,
                          &orders, &leader, &best, &trump, &mode, &beat_led, &exemption, &side, &gainer, &melds,
                          &pending))
        return NULL;
    Search s;
    int trick[MAX_SEATS], n;
    if (prepare(&s, trick, &n, table, base_hands, hands, trick_items, orders, leader, best, trump, mode, beat_led,
                exemption, side, gainer, melds, pending, 0) < 0)
        return NULL;
    return PyLong_FromLong(playout(&s, trick, n, leader, best));
}

static PyMethodDef methods[] = {
    {"search", solve_search, METH_VARARGS,
     PyDoc_STR("search(table, base, hands, trick, orders, leader, best, alpha, beta, left, trump, mode, beat_led, "
               "exemption, side, gainer, melds, pending, node_limit) -> (value or None over the limit, nodes): fail-soft "
               "alpha-beta; with the window (t - 1, t) Solver._search's zero-window search.")},
    {"playout", solve_playout, METH_VARARGS,
     PyDoc_STR("playout(table, base, hands, trick, orders, leader, best, trump, mode, beat_led, exemption, side, "
               "gainer, melds, pending) -> the side's gain when every seat plays the card the search would try first.")},
    {"value", solve_value, METH_VARARGS,
     PyDoc_STR("value(table, base, hands, trick, orders, leader, best, high, probe, trump, mode, beat_led, exemption, "
               "side, gainer, melds, pending, node_limit) -> (value or None over the limit, nodes): Solver._mtd's searches for the "
               "exact value in [0, high] (high: the most the side could gain), the first at probe.")},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "binokel._solve",
    PyDoc_STR("The open-card solver's search in C (binokel.ai.solver uses it where it is built)."), -1, methods,
};

PyMODINIT_FUNC PyInit__solve(void)
{
    for (int k = 0; k < KINDS; k++) {
        POINTS[k] = RANK_POINTS[k % 7];
        HIGHER[k] = ((1u << (k % 7)) - 1) << (7 * (k / 7));
    }
    for (int suit = 0; suit < 4; suit++) {
        SUIT_MASK[suit] = ((1u << 7) - 1) << (7 * suit);
        for (int rank = 0; rank < 7; rank++)
            RANK_MASK[rank] |= 1u << (7 * suit + rank);
    }

    if (PyType_Ready(&TableType) < 0)
        return NULL;
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL)
        return NULL;
    Py_INCREF(&TableType);
    if (PyModule_AddObject(module, "Table", (PyObject *)&TableType) < 0) {
        Py_DECREF(&TableType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
