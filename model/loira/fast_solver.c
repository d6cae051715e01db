/* A specialised exact solver for the 2-player Loira round (base cards, default rulings).
 *
 * The same rules as model/loira/effects.py, written for speed: only turn-start states are stored
 * (a 128-bit packed key -> the mover's value, open addressing); everything inside a turn (the draw,
 * the card's choices, escorts, reveals, the escape) is expanded by recursion. Seat swap symmetry:
 * keys are stored with the mover as seat 0. Values are doubles (cross-checked against the exact
 * rational solver in tests/test_loira_fast.py).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NK 16      /* main-deck kinds used: 0-8 bathroom, 9 grito .. 15 espelho */
#define NS 8       /* distinct stall values at most */
enum { GRITO = 9, TOCTOC = 10, INTERRUPTOR = 11, CHUTE = 12, DESCARGA = 13, FIOS = 14, ESPELHO = 15 };

typedef struct {
    int deck[NK];
    int bath[2][9];
    int stall[2][NS];
    int esp[2], sw[2];       /* Espelho, Interruptor held */
    int rolls[2];
    int out[NS];             /* stalls out of the round */
    int stopped;             /* bit per seat */
    int turn, gritos, phys, slots;
} St;

static int K_init[NK], S_n, S_val[NS], S_cnt[NS], R_total;
static int w_deck[NK], w_bath[9], w_stall[NS], w_esp, w_sw, w_rolls, w_phys, w_grit = 2;
static int total_bits;

typedef struct { uint64_t lo, hi; double v; } Slot;
static Slot *table;
static uint64_t cap, used;
static uint64_t visits;

static int bits(int n) { int b = 0; while ((1 << b) <= n) b++; return b; }

/* ---- packing ---------------------------------------------------------------------------- */
typedef struct { uint64_t lo, hi; int pos; } Packer;
static void put(Packer *p, int value, int width) {
    /* a whole field at a time (it may straddle the two words); widths are below 32 */
    uint64_t v = (uint64_t)value & ((1ULL << width) - 1);
    if (p->pos >= 64) p->hi |= v << (p->pos - 64);
    else {
        p->lo |= v << p->pos;
        if (p->pos + width > 64) p->hi |= v >> (64 - p->pos);
    }
    p->pos += width;
}
static void pack(const St *s, int swap, uint64_t *lo, uint64_t *hi) {
    Packer p = {0, 0, 0};
    for (int k = 0; k < NK; k++) put(&p, s->deck[k], w_deck[k]);
    for (int i = 0; i < 2; i++) {
        int seat = swap ? 1 - i : i;
        for (int k = 0; k < 9; k++) put(&p, s->bath[seat][k], w_bath[k]);
        for (int v = 0; v < S_n; v++) put(&p, s->stall[seat][v], w_stall[v]);
        put(&p, s->esp[seat], w_esp); put(&p, s->sw[seat], w_sw); put(&p, s->rolls[seat], w_rolls);
        put(&p, (s->stopped >> seat) & 1, 1);
    }
    for (int v = 0; v < S_n; v++) put(&p, s->out[v], w_stall[v]);
    put(&p, s->gritos, w_grit); put(&p, s->phys, w_phys); put(&p, s->slots, w_phys);
    *lo = p.lo; *hi = p.hi + 1;  /* hi never 0: 0 marks an empty slot */
}

static uint64_t mix(uint64_t lo, uint64_t hi) {
    uint64_t h = lo * 0x9E3779B97F4A7C15ULL ^ (hi + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
    h ^= h >> 31; h *= 0xBF58476D1CE4E5B9ULL; h ^= h >> 29;
    return h;
}
static int grow(void) {
    uint64_t ncap = cap ? cap * 2 : (1 << 16);
    Slot *nt = calloc(ncap, sizeof(Slot));
    if (!nt) return -1;
    for (uint64_t i = 0; i < cap; i++) if (table[i].hi) {
        uint64_t j = mix(table[i].lo, table[i].hi) & (ncap - 1);
        while (nt[j].hi) j = (j + 1) & (ncap - 1);
        nt[j] = table[i];
    }
    free(table); table = nt; cap = ncap;
    return 0;
}
static Slot *find(uint64_t lo, uint64_t hi) {
    uint64_t j = mix(lo, hi) & (cap - 1);
    while (table[j].hi && (table[j].lo != lo || table[j].hi != hi)) j = (j + 1) & (cap - 1);
    return &table[j];
}
static int oom;
static uint64_t limit;  /* stop after this many stored states (0: no limit) */
static double deadline; /* stop after this monotonic time in seconds (0: no limit) */
/* set from another thread (Ctrl-C, the command's time limit): unwind at once, no value */
volatile int loira_stop_requested;

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- scoring ------------------------------------------------------------------------------ */
static int espelho_value(const St *s) {
    int best = 0;
    for (int i = 0; i < 2; i++) {
        for (int k = 0; k < 9; k++) if (s->bath[i][k] && k % 3 > best) best = k % 3;
        for (int v = 0; v < S_n; v++) if (s->stall[i][v] && S_val[v] > best) best = S_val[v];
    }
    return best;
}
static double terminal(const St *s) {
    int sc[2], cards[2], ev = espelho_value(s);
    for (int i = 0; i < 2; i++) {
        int t = 0, c = 0;
        for (int k = 0; k < 9; k++) { t += (k % 3) * s->bath[i][k]; c += s->bath[i][k]; }
        for (int v = 0; v < S_n; v++) { t += S_val[v] * s->stall[i][v]; c += s->stall[i][v]; }
        t += s->esp[i] * ev + 2 * s->sw[i] + s->rolls[i];
        c += s->esp[i];
        sc[i] = t; cards[i] = c;
    }
    if (sc[0] != sc[1]) return sc[0] > sc[1] ? 1.0 : -1.0;
    if (cards[0] != cards[1]) return cards[0] < cards[1] ? 1.0 : -1.0;
    return 0.0;
}

/* ---- the round ---------------------------------------------------------------------------- */
static double turn_value(const St *s);
/* the out-of-core hook (end of the file): while ooc_mode is set, every turn state but the first
 * one of a call is handed to ooc_successor instead of being searched */
static int ooc_mode, ooc_root;
static double ooc_successor(const St *s, uint64_t lo, uint64_t hi);

static int deck_total(const St *s) { int t = 0; for (int k = 0; k < NK; k++) t += s->deck[k]; return t; }
static int centre(const St *s, int v) { return S_cnt[v] - s->stall[0][v] - s->stall[1][v] - s->out[v]; }
static double best(int mover, double a, double b) { return mover == 0 ? (a > b ? a : b) : (a < b ? a : b); }

static double end_turn(St *s) {
    if (deck_total(s) == 0 || s->stopped == 3) return terminal(s);   /* L25, L06 */
    int other = 1 - s->turn;
    if (!((s->stopped >> other) & 1)) s->turn = other;
    return turn_value(s);
}
static double card_done(St *s) {
    if (s->phys == 0) return terminal(s);                             /* L07 */
    return end_turn(s);
}
static int can_escape(const St *s, int seat) {
    for (int d = 0; d < 3; d++)
        if (s->bath[seat][3 * d] + s->bath[seat][3 * d + 1] + s->bath[seat][3 * d + 2] >= 2) return 1;
    return 0;
}
static double loira_takes(St *s, int victim) {
    for (int k = 0; k < 9; k++) s->bath[victim][k] = 0;
    for (int v = 0; v < S_n; v++) { s->out[v] += s->stall[victim][v]; s->stall[victim][v] = 0; }
    s->esp[victim] = s->sw[victim] = 0;
    s->rolls[victim] = 0;                                             /* L09: back to the centre */
    return terminal(s);
}

/* picks: picker[i], keeper[i] for i < n; next = index of the next reveal; card = the card */
static double after_opening(St *s, int card) {
    if (card == GRITO) {
        s->gritos++;
        if (s->gritos >= 3) return terminal(s);
    }
    return card_done(s);
}
static double reveal(const St *s, const int *picker, const int *keeper, int n, int next, int card) {
    if (next == n) { St t = *s; return after_opening(&t, card); }
    visits++;
    int m = 0;
    for (int v = 0; v < S_n; v++) m += centre(s, v);
    double pl = 1.0 / s->slots, acc = 0.0;
    for (int v = 0; v < S_n; v++) {
        int c = centre(s, v);
        if (!c) continue;
        St t = *s;
        t.phys--; t.slots--; t.stall[keeper[next]][v]++;
        acc += (1.0 - pl) * c / m * reveal(&t, picker, keeper, n, next + 1, card);
    }
    /* the Loira */
    int victim = picker[next];
    St t = *s;
    t.phys--;
    double lose;
    { St u = t; lose = loira_takes(&u, victim); }
    double val = lose;
    if (can_escape(&t, victim)) {
        for (int d = 0; d < 3; d++) for (int v1 = 0; v1 < 3; v1++) for (int v2 = v1; v2 < 3; v2++) {
            int need = v1 == v2 ? 2 : 1;
            if (t.bath[victim][3 * d + v1] < need || t.bath[victim][3 * d + v2] < 1) continue;
            St u = t;
            u.bath[victim][3 * d + v1]--; u.bath[victim][3 * d + v2]--;
            u.phys++; u.slots = u.phys;
            double e = after_opening(&u, card);                     /* L27: Susto, the turn goes on */
            val = best(victim, val, e);
        }
    }
    return acc + pl * val;
}
static double opening(const St *s, int first_picker, int first_keeper, int card) {
    int picker[2] = {first_picker, -1}, keeper[2] = {first_keeper, -1};
    int cand = 1 - first_picker;                                      /* L22: the only other seat */
    double no = reveal(s, picker, keeper, 1, 0, card);
    if (((s->stopped >> cand) & 1) || s->rolls[cand] == 0 || s->phys <= 1) return no;
    St t = *s;
    t.rolls[cand]--;
    picker[1] = cand; keeper[1] = cand;                               /* L18 */
    double yes = reveal(&t, picker, keeper, 2, 0, card);
    return best(cand, no, yes);
}
static double resolve(const St *s0, int k) {
    St s = *s0;
    int me = s.turn, other = 1 - me;
    int other_active = !((s.stopped >> other) & 1);
    if (k < 9) { s.bath[me][k]++; return card_done(&s); }
    switch (k) {
    case ESPELHO: s.esp[me]++; return card_done(&s);
    case INTERRUPTOR: s.sw[me]++; return card_done(&s);
    case GRITO: return opening(&s, me, me, GRITO);
    case TOCTOC: {
        int centre_rolls = R_total - s.rolls[0] - s.rolls[1];
        if (centre_rolls) s.rolls[me]++;
        else if (other_active && s.rolls[other]) { s.rolls[other]--; s.rolls[me]++; }
        return card_done(&s);
    }
    case CHUTE: if (s.phys) s.phys--; return card_done(&s);
    case DESCARGA: {
        if (!other_active) return card_done(&s);
        int any = 0; double val = 0;
        for (int b = 0; b < 9; b++) if (s.bath[other][b]) {
            St t = s; t.bath[other][b]--;
            double v = card_done(&t); val = any ? best(me, val, v) : v; any = 1;
        }
        for (int v = 0; v < S_n; v++) if (s.stall[other][v]) {
            St t = s; t.stall[other][v]--; t.out[v]++;
            double x = card_done(&t); val = any ? best(me, val, x) : x; any = 1;
        }
        return any ? val : card_done(&s);
    }
    case FIOS:
        if (!s.phys || !other_active) return card_done(&s);      /* L10 */
        return opening(&s, other, me, FIOS);                      /* L23, L33 */
    }
    return card_done(&s);
}
static double turn_value(const St *s) {
    int swap = s->turn == 1;
    uint64_t lo, hi;
    pack(s, swap, &lo, &hi);
    Slot *slot = find(lo, hi);
    if (slot->hi) return swap ? -slot->v : slot->v;
    if (ooc_mode) { if (ooc_root) ooc_root = 0; else return ooc_successor(s, lo, hi); }
    if (loira_stop_requested && !oom) oom = 5;
    if (oom) return 0.0;   /* aborting: unwind without more work */
    int me = s->turn;
    /* stop */
    St t = *s; t.stopped |= 1 << me;
    double v = end_turn(&t);
    /* use the Interruptor */
    if (s->sw[me]) { St u = *s; u.sw[me]--; v = best(me, v, terminal(&u)); }
    /* go */
    int total = deck_total(s);
    double go = 0;
    for (int k = 0; k < NK; k++) if (s->deck[k]) {
        St u = *s; u.deck[k]--;
        go += (double)s->deck[k] / total * resolve(&u, k);
    }
    v = best(me, go, v);   /* ties: go first (legal order: go < stop < switch) does not change v */
    visits++;
    if (ooc_mode) return v;   /* out of core: the caller stores it */
    if (limit && used >= limit) { oom = 3; return v; }
    if (deadline > 0 && (visits & 0x3FF) == 0 && now_seconds() > deadline) { oom = 4; return v; }
    if (used * 2 >= cap) {
        if (grow()) { oom = 1; return v; }
    }
    slot = find(lo, hi);
    slot->lo = lo; slot->hi = hi; slot->v = swap ? -v : v;
    used++;
    return v;
}

/* the globals of one configuration (widths of the key fields) and its initial state s */
static int configure(St *s, const int *deck, int S, const int *vals, const int *cnts, int r0, int r1,
                     int crolls) {
    memset(s, 0, sizeof *s);
    S_n = S; total_bits = 0;
    for (int k = 0; k < NK; k++) { K_init[k] = deck[k]; s->deck[k] = deck[k]; w_deck[k] = bits(deck[k]); total_bits += w_deck[k]; }
    int m0 = 0;
    for (int v = 0; v < S; v++) { S_val[v] = vals[v]; S_cnt[v] = cnts[v]; w_stall[v] = bits(cnts[v]); m0 += cnts[v]; }
    for (int k = 0; k < 9; k++) w_bath[k] = bits(deck[k]);
    w_esp = bits(deck[ESPELHO]); w_sw = bits(deck[INTERRUPTOR]);
    R_total = r0 + r1 + crolls; w_rolls = bits(R_total); w_phys = bits(m0 + 1);
    int per_seat = 0;
    for (int k = 0; k < 9; k++) per_seat += w_bath[k];
    for (int v = 0; v < S; v++) per_seat += w_stall[v];
    per_seat += w_esp + w_sw + w_rolls + 1;
    total_bits += 2 * per_seat + w_grit + 2 * w_phys;
    for (int v = 0; v < S; v++) total_bits += w_stall[v];
    if (total_bits > 127) return -1;
    s->rolls[0] = r0; s->rolls[1] = r1;
    s->phys = s->slots = m0 + 1;
    return 0;
}

/* ---- entry point ----------------------------------------------------------------------------- */
/* cfg: deck[16], S, values[S], counts[S], rolls0, rolls1, crolls, first, max states (0: none),
 * max seconds (0: none).
 * out: value, states, visits, table bytes. Returns 0, or -1 (key too wide), -2 (out of memory),
 * -3 (state limit reached: no value), -4 (time limit reached: no value), -5 (stopped: no value). */
int loira_solve(const int *deck, int S, const int *vals, const int *cnts, int r0, int r1, int crolls,
                int first, double max_states, double max_seconds, double *value, double *states,
                double *visit_count, double *bytes) {
    St s;
    if (configure(&s, deck, S, vals, cnts, r0, r1, crolls)) return -1;
    s.turn = first;
    free(table); table = NULL; cap = used = visits = 0; oom = 0; loira_stop_requested = 0;
    limit = (uint64_t)max_states;
    deadline = max_seconds > 0 ? now_seconds() + max_seconds : 0;
    if (grow()) return -2;
    double v = turn_value(&s);
    *value = v; *states = (double)used; *visit_count = (double)visits; *bytes = (double)(cap * sizeof(Slot));
    free(table); table = NULL; cap = 0;
    return oom == 3 ? -3 : oom == 4 ? -4 : oom == 5 ? -5 : oom ? -2 : 0;
}

/* ---- out of core: one turn at a time ------------------------------------------------------------ */
/* Layered solving (model/loira/ooc.py) stores turn-start keys on disk and asks this engine, for a
 * batch of keys, either for the successor turn-start keys each turn reaches (expand) or for the
 * mover's values once the successors' values are known (evaluate). Both run the search above on
 * the key's turn; the hook in turn_value stops it at the next turn state. */
static uint64_t *ooc_out;          /* expand: successor keys (lo, hi pairs) */
static int8_t *ooc_layer;          /* expand: their layers */
static int64_t ooc_n, ooc_cap;
static int ooc_error;              /* 1: expand buffer full, 2: evaluate met an unknown successor */

static int get(Packer *p, int width) {
    uint64_t v;
    if (p->pos >= 64) v = p->hi >> (p->pos - 64);
    else {
        v = p->lo >> p->pos;
        if (p->pos + width > 64) v |= p->hi << (64 - p->pos);
    }
    p->pos += width;
    return (int)(v & ((1ULL << width) - 1));
}
/* the inverse of pack (swap 0): the mover is seat 0 */
static void unpack(uint64_t lo, uint64_t hi, St *s) {
    Packer p = {lo, hi - 1, 0};
    memset(s, 0, sizeof *s);
    for (int k = 0; k < NK; k++) s->deck[k] = get(&p, w_deck[k]);
    for (int i = 0; i < 2; i++) {
        for (int k = 0; k < 9; k++) s->bath[i][k] = get(&p, w_bath[k]);
        for (int v = 0; v < S_n; v++) s->stall[i][v] = get(&p, w_stall[v]);
        s->esp[i] = get(&p, w_esp); s->sw[i] = get(&p, w_sw); s->rolls[i] = get(&p, w_rolls);
        s->stopped |= get(&p, 1) << i;
    }
    for (int v = 0; v < S_n; v++) s->out[v] = get(&p, w_stall[v]);
    s->gritos = get(&p, w_grit); s->phys = get(&p, w_phys); s->slots = get(&p, w_phys);
}
/* layers: 2 * cards drawn + (a seat has stopped); every turn moves one or two layers on */
static int layer_of(const St *s) {
    int drawn = 0;
    for (int k = 0; k < NK; k++) drawn += K_init[k] - s->deck[k];
    return 2 * drawn + (s->stopped != 0);
}
static double ooc_successor(const St *s, uint64_t lo, uint64_t hi) {
    if (ooc_mode == 1) {
        if (ooc_n < ooc_cap) {
            ooc_out[2 * ooc_n] = lo; ooc_out[2 * ooc_n + 1] = hi;
            ooc_layer[ooc_n++] = (int8_t)layer_of(s);
        } else ooc_error = 1;
    } else ooc_error = 2;
    return 0.0;
}
static int fresh_table(int64_t entries) {
    free(table); table = NULL; cap = used = 0;
    uint64_t want = 1 << 16;
    while (want < 2 * (uint64_t)entries + 2) want *= 2;
    table = calloc(want, sizeof(Slot));
    if (!table) return -1;
    cap = want;
    return 0;
}

/* cfg as loira_solve. keys: n turn-start keys as (lo, hi) pairs, the mover as seat 0.
 * mode 0 (root): out[0..1] = the initial state's key; returns its layer (0).
 * mode 1 (expand): appends each turn's successor keys and layers to out/out_layer (capacity out_cap
 *   entries; *out_n written); returns the number of keys fully expanded (fewer than n when out
 *   filled up: call again with the rest).
 * mode 2 (evaluate): succ/succ_val hold n_succ successor keys with their movers' values (every
 *   successor of every key); values[i] = the mover's optimal value at keys[i]; returns n.
 * Errors: -1 (key too wide), -2 (out of memory), -3 (a successor without a value). */
int64_t loira_expand(const int *deck, int S, const int *vals, const int *cnts, int r0, int r1, int crolls,
                 int first, int mode, const uint64_t *keys, int64_t n, const uint64_t *succ,
                 const double *succ_val, int64_t n_succ, uint64_t *out, int8_t *out_layer,
                 int64_t out_cap, int64_t *out_n, double *values) {
    St s;
    if (configure(&s, deck, S, vals, cnts, r0, r1, crolls)) return -1;
    oom = 0; loira_stop_requested = 0; limit = 0; deadline = 0; ooc_error = 0;
    if (mode == 0) { pack(&s, first == 1, &out[0], &out[1]); *out_n = 1; return 0; }
    if (fresh_table(mode == 2 ? n_succ : 0)) return -2;
    if (mode == 2)
        for (int64_t i = 0; i < n_succ; i++) {
            Slot *slot = find(succ[2 * i], succ[2 * i + 1]);
            slot->lo = succ[2 * i]; slot->hi = succ[2 * i + 1]; slot->v = succ_val[i];
            used++;
        }
    ooc_out = out; ooc_layer = out_layer; ooc_n = 0; ooc_cap = out_cap;
    ooc_mode = mode;
    int64_t i = 0;
    for (; i < n; i++) {
        int64_t mark = ooc_n;
        unpack(keys[2 * i], keys[2 * i + 1], &s);
        ooc_root = 1;
        double v = turn_value(&s);
        if (ooc_error == 1) { ooc_n = mark; break; }   /* this key again in the next call */
        if (ooc_error) break;
        if (mode == 2) values[i] = v;
    }
    ooc_mode = 0;
    *out_n = ooc_n;
    free(table); table = NULL; cap = used = 0;
    if (ooc_error == 2) return -3;
    return i;
}
