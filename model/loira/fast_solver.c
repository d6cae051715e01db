/* A specialised exact solver for the Loira round, 2 to 10 players (base cards and the mini-expansion
 * cards; every ruling option that can arise there: the flags R_* below, set from Python by
 * loira_configure). Compiled once per player count: NP (-DNP=3 ...; 2 by default) sizes every
 * per-seat array, so the 2-player search copies no more than it needs.
 *
 * The same rules as model/loira/effects.py, written for speed: only turn-start states are stored
 * (a 128-bit packed key -> the value, open addressing); everything inside a turn (the draw, the
 * card's choices, escorts, reveals, the escape) is expanded by recursion. Seat rotation symmetry:
 * keys are stored with the mover as seat 0 (the rules never name a seat; offsets are clockwise).
 *
 * Values: two players, zero-sum, one double per state (seat 0's value inside the search, the
 * mover's in the table); the mover of a decision maximises its own value, so seat 0 takes the max
 * and seat 1 the min. Three or more: max^n, a vector of NP shares (the winners share 1); each mover
 * maximises its own share and, among actions of maximal value for it (within TIE), takes the first
 * in legal-action order -- the project's tie rule, the generic solver's and exact.py's. Every
 * decision below therefore tries its alternatives in the Python model's legal-action order
 * (effects.legal_actions: ascending action codes). Values are doubles (cross-checked against the
 * exact rational solver in tests/test_loira_fast.py and tests/test_loira_fast_multi.py).
 */
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#ifndef NP
#define NP 2       /* players */
#endif
#if NP < 2 || NP > 10
#error "NP must be 2..10"
#endif
#define NK 24      /* main-deck kinds: 0-8 bathroom, 9 grito .. 15 espelho, 16-23 mini-expansions */
#define NS 8       /* distinct stall values at most */
#define NX 8       /* mini-expansion kinds (set aside: kind - RAPAGOTE) */
#define QMAX 32    /* picks of one opening: its own (Diretora: up to NP) and escorts' */
#define ALL_STOPPED ((1 << NP) - 1)
/* max^n: values of the mover within this count as tied (the generic solver's float tie tolerance) */
#define TIE 1e-12
enum { GRITO = 9, TOCTOC = 10, INTERRUPTOR = 11, CHUTE = 12, DESCARGA = 13, FIOS = 14, ESPELHO = 15,
       RAPAGOTE = 16, ZELADOR = 17, DIRETORA = 18, TIA = 19, ALUNA = 20, PROFESSORA = 21,
       MERENDEIRA = 22, RALO = 23 };

typedef struct {
    int deck[NK];
    int bath[NP][9];
    int stall[NP][NS];
    int esp[NP], sw[NP];       /* Espelho, Interruptor held */
    int rolls[NP];
    int out[NS];               /* stalls out of the round */
    int stopped;               /* bit per seat */
    int turn, gritos, phys, slots;
    int ralo[NP];              /* Ralo held (L20: protects, -2) */
    int aside[NX];             /* mini-expansion cards set aside, openable instead of drawing (L19) */
    int dir;                   /* 3+ players: 1 when the play goes counter-clockwise (Toc-Toc) */
} St;

/* ---- values ------------------------------------------------------------------------------- */
#if NP == 2
#define NV 1               /* seat 0's value (seat 1's is its negation) */
#else
#define NV NP              /* each seat's share */
#endif
#ifdef EVAL
/* the policy evaluation (loira_eval, below): the true value of the seats under the evaluated policy,
 * then the policy's own look-ahead value */
#define NVAL (2 * NV)
#else
#define NVAL NV
#endif
typedef struct { double v[NVAL]; } Val;
static inline double vseat(Val x, int seat) {
#if NP == 2
    return seat ? -x.v[0] : x.v[0];
#else
    return x.v[seat];
#endif
}
static inline Val vzero(void) { Val z; for (int i = 0; i < NVAL; i++) z.v[i] = 0.0; return z; }
static inline void vadd(Val *acc, double w, Val x) { for (int i = 0; i < NVAL; i++) acc->v[i] += w * x.v[i]; }
/* the table keeps a state's value with its mover as seat 0 (rot: the mover, in the search's seats) */
static inline Val to_stored(Val x, int rot) {
#if NP == 2
    if (rot) for (int h = 0; h < NVAL; h++) x.v[h] = -x.v[h];
    return x;
#else
    Val y;
    for (int h = 0; h < NVAL; h += NV)
        for (int i = 0; i < NP; i++) y.v[h + i] = x.v[h + (i + rot) % NP];
    return y;
#endif
}
static inline Val from_stored(Val y, int rot) {
#if NP == 2
    if (rot) for (int h = 0; h < NVAL; h++) y.v[h] = -y.v[h];
    return y;
#else
    Val x;
    for (int h = 0; h < NVAL; h += NV)
        for (int i = 0; i < NP; i++) x.v[h + (i + rot) % NP] = y.v[h + i];
    return x;
#endif
}

static int S_n, S_val[NS], S_cnt[NS], R_total;
static int w_deck[NK], w_bath[9], w_stall[NS], w_esp, w_sw, w_rolls, w_phys, w_grit = 2, w_ralo, w_dir, w_turn;
#ifdef EVAL
static const int w_opt = 1;  /* the policy evaluation: the key says whether its value is the optimum */
#else
static const int w_opt = 0;
#endif
static int deck_start[NK];   /* the round's deck: cards drawn = deck_start - deck (out-of-core layers) */
static int total_bits;
static int R_start[NP];      /* rolls each seat held when the round started (L09 round-rolls) */
/* seats not interchangeable: a match's round (below), or L09 round-rolls with unequal starting
 * rolls (the Loira leaves each seat its own). Then no rotation, the key carries the turn, and
 * stored values are in the seats' own order (set_config) */
static int keep_seats;
#if NP == 2
/* a round of a match (loira_match_terminals): seat 0's value of the rest of the match after the
 * round, per (outcome: 0 seat 0 wins, 1 seat 1 wins, 2 shared; seat 0's rolls; seat 1's rolls).
 * The wins so far make the seats unequal: no seat swap then, and the key carries the turn. */
static double *match_vals;
static int match_dim;        /* total rolls + 1 */
/* which of them the search read (L15 replay: the replayed rounds the match must value too) */
static unsigned char *match_seen;
int loira_match_terminals(const double *vals, int total_rolls) {
    free(match_vals); match_vals = NULL; free(match_seen); match_seen = NULL; match_dim = 0;
    if (!vals) return 0;
    match_dim = total_rolls + 1;
    match_vals = malloc(3 * match_dim * match_dim * sizeof(double));
    match_seen = calloc(3 * match_dim * match_dim, 1);
    if (!match_vals || !match_seen) return -1;
    memcpy(match_vals, vals, 3 * match_dim * match_dim * sizeof(double));
    return 0;
}
/* the read marks of the last solve (3 * (total rolls + 1)^2 bytes, as the values) */
int loira_match_seen(unsigned char *out) {
    if (!match_seen) return -1;
    memcpy(out, match_seen, 3 * match_dim * match_dim);
    return 0;
}
static double match_value(int outcome, int r0, int r1) {
    int at = (outcome * match_dim + r0) * match_dim + r1;
    match_seen[at] = 1;
    return match_vals[at];
}
#define IN_MATCH (match_vals != NULL)
#else
#define IN_MATCH 0   /* the match is solved for 2 players only (fast.solve_match) */
int loira_match_terminals(const double *vals, int total_rolls) { (void)total_rolls; return vals ? -1 : 0; }
int loira_match_seen(unsigned char *out) { (void)out; return -1; }
#endif
int loira_players(void) { return NP; }

/* ruling alternatives (model/loira/rulings.py; fast.py FLAGS lists them in this order); 0: default */
enum { R_GRITO_ONLY, R_TIE_BATHROOM, R_TIE_WITH_INT, R_TIE_NO_NULLS, R_EMPTY_GOES_ON, R_NO_ESCAPE,
       R_ROUND_ROLLS, R_SELF_TARGET, R_FLUSH_BATHROOM_ONLY, R_ESPELHO_BATHROOM_ONLY, R_ALSO_STOPPED,
       R_ROLLS_RETURNED, R_OPENER_KEEPS, R_STOPPED_ESCORT, R_OPENING_CONTINUES, R_VICTIM_LOSES,
       R_OPTIONAL, R_SWITCH_WHEN_DRAWN, R_INVITEE_KEEPS, R_MERENDEIRA_RESETS, R_RESHUFFLE,
       R_TOCTOC_NO_REVERSE, R_COUNT };
static int RF[R_COUNT];
int loira_configure(const int *flags, int n) {
    if (n != R_COUNT) return -1;
    for (int i = 0; i < R_COUNT; i++) RF[i] = flags[i] != 0;
    return 0;
}

typedef struct { uint64_t lo, hi; Val v; } Slot;
static Slot *table;
static uint64_t cap, used;
static uint64_t visits;

/* a block of at least min_bytes with its 2 MiB-aligned interior advised onto huge pages (Linux,
 * transparent huge pages on madvise): lookups that land at random in GiBs are on 4 KiB pages nearly
 * all TLB misses too. free() releases it as any calloc'd block. */
static void *advise_huge(void *t, size_t bytes, size_t min_bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    size_t huge = (size_t)2 << 20;
    if (t && bytes >= min_bytes && bytes >= 4 * huge) {
        uintptr_t from = ((uintptr_t)t + huge - 1) & ~(uintptr_t)(huge - 1);
        uintptr_t to = ((uintptr_t)t + bytes) & ~(uintptr_t)(huge - 1);
        if (to > from) madvise((void *)from, to - from, MADV_HUGEPAGE);   /* advice only: errors are harmless */
    }
#endif
    return t;
}
/* A table is advised only from 2 GiB: under the kernel's defrag=madvise a huge-page fault may
 * compact memory first, system time that smaller tables do not win back in TLB misses (stop 54,
 * one process, runs alternated, with the advice from 8 MiB / from 2 GiB: the 13-card rung's solve,
 * a 0.8 GiB table, 20.3-20.9 s (9.4 s of it system time) / 14.6-15.7 s; the 14-card rung's, 1.6 GiB,
 * 61.1 / 60.5 s; the real deck's 150 self-play games, whose kept table is emptied each game and
 * grows again, 16.2-17.3 s (system 3.2-3.6) / 13.6-14.2 s (0.7-0.8)). Bigger tables keep it: the
 * regret ladder's evaluations, the out-of-core solver's sorted runs. */
#define HUGE_TABLE_MIN ((size_t)2 << 30)
static Slot *table_calloc(uint64_t n) {
    return advise_huge(calloc(n, sizeof(Slot)), n * sizeof(Slot), HUGE_TABLE_MIN);
}
static int bits(int n) { int b = 0; while ((1 << b) <= n) b++; return b; }

/* ---- packing ---------------------------------------------------------------------------- */
/* the key's 128 bits as one integer (gcc/clang): a field is one shift and or, no branches (the
 * same layout as two 64-bit words filled from bit 0: the out-of-core files keep their keys) */
typedef unsigned __int128 u128;
typedef struct { u128 bits; int pos; } Packer;
static inline void put(Packer *p, int value, int width) {   /* widths are below 32 */
    p->bits |= (u128)((uint64_t)value & ((1ULL << width) - 1)) << p->pos;
    p->pos += width;
}
/* pack's fields of nonzero width, as (St int index, mask, bit position), per rotation (set_config):
 * the key in a few shifts -- most of the 24 deck kinds, say, are not in a given deck */
typedef struct { int idx; uint64_t mask; int pos; } Field;
static Field plan[NP][NK + NP * (9 + NS + 4) + NS + NX + 4];
static int plan_n, stop_pos[NP], dir_pos, turn_pos, opt_pos;
/* per rotation: plan_lo fields lie wholly in the key's low word, then plan_mid (0 or 1) crosses
 * into the high word, the rest lie wholly in it -- pack and unpack shift 64-bit words, not the
 * 128-bit integer (a variable 128-bit shift is a branchless shld/shl/cmov chain per field) */
static int plan_lo[NP], plan_mid[NP];
#define AT(field) ((int)(offsetof(St, field) / sizeof(int)))
static void plan_add(Field *f, int *n, int *pos, int idx, int width) {
    if (width) f[(*n)++] = (Field){idx, (1ULL << width) - 1, *pos};
    *pos += width;
}
/* the same layout as pack_slow below (tests: test_loira_fast.py's keys agree); rotation r puts
 * seat (i + r) % NP in the key's seat i, so the mover r is the key's seat 0 */
static void make_plan(void) {
    for (int rot = 0; rot < NP; rot++) {
        Field *f = plan[rot];
        int n = 0, pos = 0;
        for (int k = 0; k < NK; k++) plan_add(f, &n, &pos, AT(deck[k]), w_deck[k]);
        for (int i = 0; i < NP; i++) {
            int seat = (i + rot) % NP;
            for (int k = 0; k < 9; k++) plan_add(f, &n, &pos, AT(bath[seat][k]), w_bath[k]);
            for (int v = 0; v < S_n; v++) plan_add(f, &n, &pos, AT(stall[seat][v]), w_stall[v]);
            plan_add(f, &n, &pos, AT(esp[seat]), w_esp); plan_add(f, &n, &pos, AT(sw[seat]), w_sw);
            plan_add(f, &n, &pos, AT(rolls[seat]), w_rolls); plan_add(f, &n, &pos, AT(ralo[seat]), w_ralo);
            stop_pos[i] = pos++;   /* the same for every rotation */
        }
        for (int v = 0; v < S_n; v++) plan_add(f, &n, &pos, AT(out[v]), w_stall[v]);
        for (int x = 0; x < NX; x++) plan_add(f, &n, &pos, AT(aside[x]), w_deck[RAPAGOTE + x]);
        plan_add(f, &n, &pos, AT(gritos), w_grit); plan_add(f, &n, &pos, AT(phys), w_phys);
        plan_add(f, &n, &pos, AT(slots), w_phys);
        dir_pos = pos; pos += w_dir;
        turn_pos = pos; pos += w_turn;
        opt_pos = pos;
        plan_n = n;
        int lo = 0;
        while (lo < n && f[lo].pos + __builtin_popcountll(f[lo].mask) <= 64) lo++;
        plan_lo[rot] = lo;
        plan_mid[rot] = lo < n && f[lo].pos < 64;
    }
}
/* opt: the policy evaluation's flag (an optimal value); the turn field is the mover's seat in the
 * rotated layout (0 once rotated) */
static void pack(const St *s, int rot, int opt, uint64_t *lo, uint64_t *hi) {
    if (keep_seats) rot = 0;
    const int *a = (const int *)s;
    const Field *f = plan[rot];
    uint64_t w0 = 0, w1 = 0;
    int i = 0;
    for (; i < plan_lo[rot]; i++) w0 |= ((uint64_t)a[f[i].idx] & f[i].mask) << f[i].pos;
    if (plan_mid[rot]) {
        uint64_t x = (uint64_t)a[f[i].idx] & f[i].mask;
        w0 |= x << f[i].pos; w1 |= x >> (64 - f[i].pos); i++;
    }
    for (; i < plan_n; i++) w1 |= ((uint64_t)a[f[i].idx] & f[i].mask) << (f[i].pos - 64);
    u128 key = (u128)w1 << 64 | w0;
    for (int i = 0; i < NP; i++) key |= (u128)((s->stopped >> ((i + rot) % NP)) & 1) << stop_pos[i];
    if (w_dir) key |= (u128)(s->dir & 1) << dir_pos;
    if (w_turn) key |= (u128)((s->turn - rot + NP) % NP) << turn_pos;
    if (w_opt) key |= (u128)(opt & 1) << opt_pos;
    *lo = (uint64_t)key; *hi = (uint64_t)(key >> 64) + 1;  /* hi never 0: 0 marks an empty slot */
}
/* the key field by field (the layout's definition; pack must give the same bits) */
static void pack_slow(const St *s, int rot, int opt, uint64_t *lo, uint64_t *hi) {
    Packer p = {0, 0};
    if (keep_seats) rot = 0;
    for (int k = 0; k < NK; k++) put(&p, s->deck[k], w_deck[k]);
    for (int i = 0; i < NP; i++) {
        int seat = (i + rot) % NP;
        for (int k = 0; k < 9; k++) put(&p, s->bath[seat][k], w_bath[k]);
        for (int v = 0; v < S_n; v++) put(&p, s->stall[seat][v], w_stall[v]);
        put(&p, s->esp[seat], w_esp); put(&p, s->sw[seat], w_sw); put(&p, s->rolls[seat], w_rolls);
        put(&p, s->ralo[seat], w_ralo);
        put(&p, (s->stopped >> seat) & 1, 1);
    }
    for (int v = 0; v < S_n; v++) put(&p, s->out[v], w_stall[v]);
    for (int x = 0; x < NX; x++) put(&p, s->aside[x], w_deck[RAPAGOTE + x]);
    put(&p, s->gritos, w_grit); put(&p, s->phys, w_phys); put(&p, s->slots, w_phys);
    put(&p, s->dir, w_dir);
    put(&p, (s->turn - rot + NP) % NP, w_turn);
    put(&p, opt, w_opt);
    *lo = (uint64_t)p.bits; *hi = (uint64_t)(p.bits >> 64) + 1;
}

static uint64_t mix(uint64_t lo, uint64_t hi) {
    uint64_t h = lo * 0x9E3779B97F4A7C15ULL ^ (hi + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
    h ^= h >> 31; h *= 0xBF58476D1CE4E5B9ULL; h ^= h >> 29;
    return h;
}
/* whether the table should double before one more state: half full, or 3/4 in a table sized at
 * once for a known count (loira_sub_value's reserve) */
static int dense = 0;
static int full(void) { return dense ? 4 * used >= 3 * cap : 2 * used >= cap; }
static int grow(void) {
    uint64_t ncap = cap ? cap * 2 : (1 << 16);
    Slot *nt = table_calloc(ncap);
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
/* the Espelho's worth: the most any card held is worth (bathroom kinds 3d + 1 and 3d + 2 are worth
 * 1 and 2, 3d nothing; L12: stalls too) -- the bathroom part without a division, it is on the
 * search's hottest path (terminal_x) */
static int espelho_value(const St *s) {
    int ones = 0, twos = 0, best = 0;
    for (int i = 0; i < NP; i++) {
        const int *b = s->bath[i];
        ones |= b[1] | b[4] | b[7];
        twos |= b[2] | b[5] | b[8];
    }
    best = twos ? 2 : ones ? 1 : 0;
    if (!RF[R_ESPELHO_BATHROOM_ONLY])                                 /* L12 */
        for (int v = 0; v < S_n; v++) if (S_val[v] > best)
            for (int i = 0; i < NP; i++) if (s->stall[i][v]) { best = S_val[v]; break; }
    return best;
}
/* ---- exact forms (loira_solve with loira_forms(1)) -------------------------------------------
 * Each stored turn state's value as an exact linear form over the next turn states' values, under
 * the decisions the double search takes: V(s) = sum c_i V(next_i) + const, c_i rationals. Every
 * leaf met in a turn (a next turn state, or a round end's score) is pushed on a stack with
 * coefficient 1; a chance node scales its outcome's stretch of the stack by the probability; a
 * decision keeps only the stretch of the alternative it takes -- unless the two values are within
 * 1e-9 (then the doubles cannot be trusted to order them): both stretches stay behind a choice
 * marker and Python decides exactly. Python sums the forms in order (fast.solve_exact): a state's
 * form is written after those of the states it refers to.
 * Terms: a next state (hi != 0: key, coefficient num/den; two players: num's sign says whether the
 * stored value is seat 0's or seat 1's; more: rot is the next state's mover, the seat its stored
 * vector starts at); a constant (hi == 0, den > 0: two players the value num/den; more: the
 * coefficient num/den of the shares of the winners in the bit mask lo); a choice marker (hi == 0,
 * den = -(mover + 1), num = terms of the first alternative, lo = of the second).
 * forms_on 2 (tapes, for settling a cycle with two players; see close_component): the same stack,
 * but coefficients are doubles (c; num/den stay 1) and every decision keeps both stretches behind a
 * marker. */
typedef struct { uint64_t lo, hi; int64_t num, den; double c; int64_t rot; } Term;
static int forms_on, forms_overflow;
static Term *fs, *fx;             /* the stack; the forms written (a header Term {lo, hi, n, 0} each) */
static size_t fs_n, fs_cap, fx_n, fx_cap;
static uint64_t near_ties;        /* decisions between values within 1e-9 (left to Python) */

static int64_t gcd64(int64_t a, int64_t b) {
    if (a < 0) a = -a;
    while (b) { int64_t t = a % b; a = b; b = t; }
    return a;
}
static int push(Term **buf, size_t *n, size_t *capacity, Term t) {
    if (*n == *capacity) {
        size_t nc = *capacity ? *capacity * 2 : 4096;
        Term *nb = realloc(*buf, nc * sizeof(Term));
        if (!nb) { forms_overflow = 1; return -1; }
        *buf = nb; *capacity = nc;
    }
    (*buf)[(*n)++] = t;
    return 0;
}
#if NP == 2
static Val leaf(double v) {
    if (forms_on && v != 0.0) push(&fs, &fs_n, &fs_cap, (Term){0, 0, (int64_t)v, 1, v, 0});
    Val x;
    for (int h = 0; h < NVAL; h++) x.v[h] = v;
    return x;
}
#else
/* a round end: the winners in `mask` share 1 */
static Val leaf_shares(unsigned mask) {
    Val x = vzero();
    int n = __builtin_popcount(mask);
    for (int h = 0; h < NVAL; h += NV)
        for (int i = 0; i < NP; i++) if ((mask >> i) & 1) x.v[h + i] = 1.0 / n;
    if (forms_on) push(&fs, &fs_n, &fs_cap, (Term){mask, 0, 1, 1, 0.0, 0});
    return x;
}
#endif
/* multiply the stack from `from` on by num/den (a chance outcome's probability) */
static void scale(size_t from, int64_t num, int64_t den) {
    if (!forms_on) return;
    if (forms_on == 2) {
        double f = (double)num / (double)den;
        for (size_t i = from; i < fs_n; i++) if (fs[i].den > 0) fs[i].c *= f;
        return;
    }
    for (size_t i = from; i < fs_n; i++) {
        if (fs[i].den < 0) continue;   /* a choice marker */
        int64_t a = fs[i].num * num, b = fs[i].den * den, g = gcd64(a, b);
        if (g > 1) { a /= g; b /= g; }
        if (b > (1LL << 40) || a > (1LL << 40) || a < -(1LL << 40)) forms_overflow = 1;
        fs[i].num = a; fs[i].den = b;
    }
}
/* the mover's choice between a (stack [m0, m1)) and b (stack [m1, top)), a first in legal order.
 * Two players: the better for the mover (a tie changes no value). More: b only when better for the
 * mover by more than TIE (the first of the best, as exact.py and the generic solver break ties). */
#ifdef EVAL
static int eval_seat;
/* the policy evaluation: the evaluated seat takes the first action of the best look-ahead value; the
 * others best-respond by the true value, and the look-ahead assumes they do by its own values */
static Val choose(int mover, Val a, Val b, size_t m0, size_t m1) {
    (void)m0; (void)m1;
    if (mover == eval_seat) {
#if NP == 2
        double x = mover ? -a.v[1] : a.v[1], y = mover ? -b.v[1] : b.v[1];
#else
        double x = a.v[NV + mover], y = b.v[NV + mover];
#endif
        return y > x + TIE ? b : a;
    }
    Val r;
    for (int h = 0; h < NVAL; h += NV) {
#if NP == 2
        double x = a.v[h], y = b.v[h];
        r.v[h] = (mover == 0 ? !(x > y) : !(x < y)) ? y : x;
#else
        int take_b = b.v[h + mover] > a.v[h + mover] + TIE;
        for (int i = 0; i < NV; i++) r.v[h + i] = take_b ? b.v[h + i] : a.v[h + i];
#endif
    }
    return r;
}
#else
static Val choose(int mover, Val a, Val b, size_t m0, size_t m1) {
#if NP == 2
    double x = a.v[0], y = b.v[0];
    int take_b = mover == 0 ? !(x > y) : !(x < y);
#else
    double x = a.v[mover], y = b.v[mover];
    int take_b = y > x + TIE;
#endif
    int near = x - y < 1e-9 && y - x < 1e-9;
    if (near && forms_on != 2) near_ties++;
    if (forms_on == 2) near = 1;   /* a tape: the choice may turn as the values settle */
    if (forms_on && near && fs_n - m1 == m1 - m0
        && !memcmp(fs + m0, fs + m1, (m1 - m0) * sizeof(Term))) {
        fs_n = m1;            /* the same form twice (e.g. two equal cards to flush): keep one */
    } else if (forms_on && near) {   /* keep both behind a marker */
        Term mark = {fs_n - m1, 0, (int64_t)(m1 - m0), -(int64_t)(mover + 1), 0, take_b};   /* rot: the double search's choice */
        if (push(&fs, &fs_n, &fs_cap, mark)) return take_b ? b : a;
        memmove(fs + m0 + 1, fs + m0, (fs_n - 1 - m0) * sizeof(Term));
        fs[m0] = mark;
    } else if (forms_on) {
        if (take_b) { memmove(fs + m0, fs + m1, (fs_n - m1) * sizeof(Term)); fs_n = m0 + (fs_n - m1); }
        else fs_n = m1;
    }
    return take_b ? b : a;
}
#endif
/* the running choice of a decision over alternatives tried in legal order: the first one is taken
 * as it is, each later one through choose */
#define PICK(mover, best, any, m0, value) do { size_t m1_ = fs_n; Val x_ = (value); \
    (best) = (any) ? choose((mover), (best), x_, (m0), m1_) : x_; (any) = 1; } while (0)

/* the end of the round: scores, the tie-break (L04, L05), shared wins; `excluded` cannot win (L28
 * no: the Loira's victim; -1 none) */
static Val terminal_x(const St *s, int excluded) {
    /* the hottest leaf of the search (every Loira reveal ends here): no Espelho held, no Espelho
     * value; the bathroom kinds by their point value (k % 3) without a division */
    int sc[NP], cards[NP], ev = 0, nulls = !(RF[R_TIE_NO_NULLS] && !RF[R_TIE_BATHROOM]);
    for (int i = 0; i < NP; i++) if (s->esp[i]) { ev = espelho_value(s); break; }
    for (int i = 0; i < NP; i++) {
        int t = 0, c = 0, stalls = 0;
        const int *b = s->bath[i];
        for (int d = 0; d < 9; d += 3) {   /* kinds 3d, 3d+1, 3d+2: worth 0, 1, 2 */
            t += b[d + 1] + 2 * b[d + 2];
            c += b[d + 1] + b[d + 2] + (nulls ? b[d] : 0);
        }
        for (int v = 0; v < S_n; v++) { t += S_val[v] * s->stall[i][v]; stalls += s->stall[i][v]; }
        t += s->esp[i] * ev + 2 * s->sw[i] + s->rolls[i] - 2 * s->ralo[i];
        if (!RF[R_TIE_BATHROOM])                                       /* L04, L05 */
            c += stalls + s->esp[i] + (RF[R_TIE_WITH_INT] ? s->sw[i] : 0);
        sc[i] = t; cards[i] = c;
    }
#if NP == 2
    if (excluded >= 0) {                                   /* L28: the other seat wins */
        if (IN_MATCH) return leaf(match_value(1 - excluded, s->rolls[0], s->rolls[1]));
        return leaf(excluded == 0 ? -1.0 : 1.0);
    }
    int outcome = sc[0] != sc[1] ? (sc[0] > sc[1] ? 0 : 1) : cards[0] != cards[1] ? (cards[0] < cards[1] ? 0 : 1) : 2;
    if (IN_MATCH) return leaf(match_value(outcome, s->rolls[0], s->rolls[1]));
    return outcome == 2 ? vzero() : leaf(outcome == 0 ? 1.0 : -1.0);
#else
    unsigned mask = 0;
    int best = -1;
    for (int i = 0; i < NP; i++) {
        if (i == excluded) continue;
        if (best < 0 || sc[i] > sc[best] || (sc[i] == sc[best] && cards[i] < cards[best])) { best = i; mask = 0; }
        if (sc[i] == sc[best] && cards[i] == cards[best]) mask |= 1u << i;
    }
    return leaf_shares(mask);
#endif
}
static Val terminal(const St *s) { return terminal_x(s, -1); }

/* ---- the round ---------------------------------------------------------------------------- */
static Val turn_value(const St *s);
/* the out-of-core hook (end of the file): while ooc_mode is set, every turn state but the first
 * one of a call is handed to ooc_successor instead of being searched */
static int ooc_mode, ooc_root;
/* L25 reshuffle (the turn graph may cycle; see "cycles" at the end of the file): the states of
 * components not yet closed wait on a stack; their slots hold ON_STACK + their position (values
 * proper lie in [-1, 1]) and the stack their value so far */
#define ON_STACK 1e9
typedef struct { uint64_t lo, hi; Val v; int loop; } Pending;   /* loop: it reads itself */
static Pending *cyc_stack;
static uint64_t cyc_n, cyc_cap, cyc_low;   /* cyc_low: the lowest stack position the current turn reached */
static uint64_t cyc_cur = UINT64_MAX;      /* the position of the state whose turn is searched */
static int sweep_mode;                     /* sweeping a component: successors are looked up, never searched */
static uint64_t cyc_hits;                  /* reads of a state of a component not yet closed */
static uint64_t tape_fallbacks;            /* components swept without tapes (their memory bound) */
static double cyc_sweeps, cyc_residual, cyc_states;   /* sweeps in all, the largest last change, states swept */
static Val close_component(uint64_t root);
static void tape_free(void);
static Val ooc_successor(const St *s, uint64_t lo, uint64_t hi, int rot);

static int deck_total(const St *s) { int t = 0; for (int k = 0; k < NK; k++) t += s->deck[k]; return t; }
static int centre(const St *s, int v) {
    int c = S_cnt[v] - s->out[v];
    for (int i = 0; i < NP; i++) c -= s->stall[i][v];
    return c;
}
static int centre_rolls(const St *s) {
    int c = R_total;
    for (int i = 0; i < NP; i++) c -= s->rolls[i];
    return c;
}
static int is_stopped(const St *s, int seat) { return (s->stopped >> seat) & 1; }
/* may others' effects reach this seat: not stopped, no Ralo (000: "imune"; L20) */
static int exposed(const St *s, int seat) { return !is_stopped(s, seat) && !s->ralo[seat]; }
/* the seat `i` places from `seat` in the direction of play (effects._play_order) */
static int along(const St *s, int seat, int i) {
#if NP == 2
    (void)s;
    return (seat + i) % 2;
#else
    return s->dir ? (seat - i % NP + NP) % NP : (seat + i) % NP;
#endif
}
/* the seat at clockwise offset `off` from `seat` (targets are offsets: effects._off) */
static int seat_at(int seat, int off) { return (seat + off) % NP; }

/* ---- the discard pile (Merendeira, L25 reshuffle) ------------------------------------------------
 * Not a field: every card of the round is in the deck, a holding, the set-aside row or the discard
 * (effects.py moves it between them and nowhere else), so the discard of a kind is what the others
 * do not hold. Shuffling it back refills the deck to deck_start - held - set aside. */
static int held(const St *s, int k) {
    int h = 0;
    for (int i = 0; i < NP; i++) {
        if (k < 9) h += s->bath[i][k];
        else if (k == ESPELHO) h += s->esp[i];
        else if (k == INTERRUPTOR) h += s->sw[i];
        else if (k == RALO) h += s->ralo[i];
    }
    return h;
}
static void reshuffle(St *s, int keep) {
    for (int k = 0; k < NK; k++) if (k != keep)
        s->deck[k] = deck_start[k] - held(s, k) - (k >= RAPAGOTE ? s->aside[k - RAPAGOTE] : 0);
}
/* the turn passes to the next seat in the direction of play that has not stopped (L13: or holds
 * an Interruptor it may still use) */
static Val end_turn(St *s) {
    if (deck_total(s) == 0 && RF[R_RESHUFFLE]) reshuffle(s, -1);       /* L25 reshuffle */
    if (deck_total(s) == 0 || s->stopped == ALL_STOPPED) return terminal(s);   /* L25, L06 */
    for (int i = 1; i <= NP; i++) {
        int seat = along(s, s->turn, i);
        if (!is_stopped(s, seat) || (RF[R_ALSO_STOPPED] && s->sw[seat])) { s->turn = seat; break; }   /* L13 */
    }
    return turn_value(s);
}
static Val card_done(St *s) {
    if (s->phys == 0 && !RF[R_EMPTY_GOES_ON]) return terminal(s);     /* L07 */
    return end_turn(s);
}
static Val card_done_copy(const St *s) { St t = *s; return card_done(&t); }
static int can_escape(const St *s, int seat) {
    for (int d = 0; d < 3; d++)
        if (s->bath[seat][3 * d] + s->bath[seat][3 * d + 1] + s->bath[seat][3 * d + 2] >= 2) return 1;
    return 0;
}
/* scoring.score (the shipped policy's rules read it: the search's own scoring is terminal_x) */
static int points(const St *s, int seat) {
    const int *b = s->bath[seat];
    int t = 0;
    for (int d = 0; d < 9; d += 3) t += b[d + 1] + 2 * b[d + 2];
    for (int v = 0; v < S_n; v++) t += S_val[v] * s->stall[seat][v];
    if (s->esp[seat]) t += s->esp[seat] * espelho_value(s);
    return t + 2 * s->sw[seat] + s->rolls[seat] - 2 * s->ralo[seat];
}
/* greedy.margin: own points minus the best other seat's */
static int lead(const St *s, int seat) {
    int best = INT_MIN;
    for (int i = 0; i < NP; i++) if (i != seat) { int p = points(s, i); if (p > best) best = p; }
    return points(s, seat) - best;
}
#ifdef EVAL
/* ---- the shipped policy's own decisions (loira_eval after loira_eval_policy) -------------------
 * With a stop rule given, the evaluated seat plays nearopt.near_optimal as shipped for two players:
 * the optimum inside its endgame (covered), and above it the escorts by the look-ahead (choose),
 * go/stop by the learned stop table (nearopt.choose: a win at once first, the margin once every
 * other seat has stopped), the rest by greedy.greedy -- the escape keeping the most points, the
 * Descarga leaving the best margin. Only what the 2-player base deck reaches (fast.py refuses the
 * rest: mini-expansion cards, the Ralo, L13 also-stopped, L29, L30). At such a decision the true
 * values follow the policy's action; the look-ahead values stay the look-ahead's own choice (an
 * escort above reads them). */
static int cur_opt, eval_k, eval_stopped_k, eval_m;
static int eval_shipped;                   /* 1: a stop rule is set (else the look-ahead candidate) */
#define STOP_RULE_CELLS (13 * 5 * 4 * 3)   /* table.features: margin -6..6, risk bucket, own / 3, Gritos */
static signed char stop_rule[STOP_RULE_CELLS];
static double risk_edges[4];
/* the stop rule (1 stop, 0 go per cell; NULL: none, the look-ahead candidate) and table.RISK_EDGES */
int loira_eval_policy(const signed char *rule, int n, const double *edges, int n_edges) {
    if (!rule) { eval_shipped = 0; return 0; }
    if (n != STOP_RULE_CELLS || n_edges != 4) return -1;
    memcpy(stop_rule, rule, sizeof stop_rule);
    memcpy(risk_edges, edges, sizeof risk_edges);
    eval_shipped = 1;
    return 0;
}
/* Endgame.covers: the endgame's region, for the decision of `mover` in s (mid-turn too) */
static int covered(const St *s, int mover) {
    int left = deck_total(s);
    if (left <= eval_k) return 1;
    if (left > eval_stopped_k) return 0;
    for (int i = 0; i < NP; i++) if (i != mover && !is_stopped(s, i)) return 0;
    return 1;
}
/* the evaluated seat's decision is the shipped policy's own (not the optimum, not the look-ahead) */
static int policy_decides(const St *s, int mover) {
    return eval_shipped && mover == eval_seat && !cur_opt && !covered(s, mover);
}
/* The shipped policy reads look-ahead values only at its escorts above the endgame: a state above
 * the region gets its look-ahead value (vhat: a reduced deck's optimum, most of the candidate's
 * states) only while such an escort is searched (ahead_wanted), else NAN until one asks for it --
 * the 16-card rung's evaluation would otherwise outgrow this machine. */
static int ahead_wanted;
static int asks_ahead(int mover) { return eval_shipped && mover == eval_seat && !cur_opt; }
/* the policy's choice between a and b (take_b): true values from it, look-ahead values by choose */
static Val policy_pick(int mover, Val a, Val b, size_t m0, size_t m1, int take_b) {
    Val r = choose(mover, a, b, m0, m1);
    const Val *t = take_b ? &b : &a;
    for (int i = 0; i < NV; i++) r.v[i] = t->v[i];
    return r;
}
/* a round end that `seat` wins alone (nearopt._wins_at_once) */
static int wins_alone(const St *s, int seat) { return vseat(terminal(s), seat) > 0.5; }
/* nearopt.choose at a turn start: 0 go, 1 stop, 2 use the Interruptor */
static int policy_turn(const St *s, int me) {
    if (s->sw[me]) { St u = *s; u.sw[me]--; if (wins_alone(&u, me)) return 2; }
    St t = *s;
    t.stopped |= 1 << me;
    if (t.stopped == ALL_STOPPED) return wins_alone(&t, me) || lead(s, me) > 0;   /* the margin rule */
    int own = points(s, me), m = lead(s, me), total = deck_total(s);
    int openers = s->deck[GRITO] + s->deck[ALUNA] + s->deck[RAPAGOTE] + s->deck[DIRETORA];
    double risk = can_escape(s, me) ? 0.0 : (double)openers / (total ? total : 1) / s->slots;
    int bucket = 0;
    for (int e = 0; e < 4; e++) bucket += risk > risk_edges[e];
    m = m < -6 ? -6 : m > 6 ? 6 : m;
    int cell = (((m + 6) * 5 + bucket) * 4 + (own < 9 ? own : 9) / 3) * 3 + (s->gritos < 2 ? s->gritos : 2);
    return stop_rule[cell];
}
#else
static int ahead_wanted;
static inline int asks_ahead(int mover) { (void)mover; return 0; }
static inline int policy_decides(const St *s, int mover) { (void)s; (void)mover; return 0; }
static inline Val policy_pick(int mover, Val a, Val b, size_t m0, size_t m1, int take_b) {
    (void)take_b; return choose(mover, a, b, m0, m1);
}
#endif
static Val loira_takes(St *s, int victim) {
    for (int k = 0; k < 9; k++) s->bath[victim][k] = 0;
    for (int v = 0; v < S_n; v++) { s->out[v] += s->stall[victim][v]; s->stall[victim][v] = 0; }
    s->esp[victim] = s->sw[victim] = s->ralo[victim] = 0;
    /* L09: back to the centre (round-rolls: the carried-over ones stay) */
    if (RF[R_ROUND_ROLLS] && s->rolls[victim] > R_start[victim]) s->rolls[victim] = R_start[victim];
    else if (!RF[R_ROUND_ROLLS]) s->rolls[victim] = 0;
    return terminal_x(s, RF[R_VICTIM_LOSES] ? victim : -1);           /* L28 */
}

/* picks: picker[i], keeper[i] for i < n; next = index of the next reveal; card = the card */
static Val after_opening(St *s, int card) {
    if (card == GRITO) {
        s->gritos++;
        if (s->gritos >= 3) return terminal(s);
    }
    return card_done(s);
}
/* own: the card's own picks (the first ones); the others are escorts' */
static Val reveal(const St *s, const int *picker, const int *keeper, int n, int own, int next, int card) {
    if (next == n) { St t = *s; return after_opening(&t, card); }
    visits++;
    int m = 0;
    for (int v = 0; v < S_n; v++) m += centre(s, v);
    double pl = 1.0 / s->slots;
    Val acc = vzero();
    /* slots 1: the Loira is certainly the card left (P 1/slots); a stall kicked out unseen may
     * still be counted in centre(), but opening it has probability 0 (centre.reveal_distribution) */
    for (int v = 0; v < S_n && s->slots > 1; v++) {
        int c = centre(s, v);
        if (!c) continue;
        St t = *s;
        t.phys--; t.slots--; t.stall[keeper[next]][v]++;
        size_t mv = fs_n;
        vadd(&acc, (1.0 - pl) * c / m, reveal(&t, picker, keeper, n, own, next + 1, card));
        scale(mv, (int64_t)(s->slots - 1) * c, (int64_t)s->slots * m);
    }
    /* the Loira */
    int victim = picker[next];
    St t = *s;
    t.phys--;
    size_t ml = fs_n;
    Val val;
    { St u = t; val = loira_takes(&u, victim); }
    if (!RF[R_NO_ESCAPE] && can_escape(&t, victim)) {                 /* L08 */
        /* the shipped policy escapes whenever it can, keeping the most points: the first pair of
         * the lowest values (greedy.greedy's ESCAPE rule) */
        int policy = policy_decides(&t, victim), cheapest = INT_MAX;
        for (int d = 0; d < 3; d++) for (int v1 = 0; v1 < 3; v1++) for (int v2 = v1; v2 < 3; v2++) {
            int need = v1 == v2 ? 2 : 1;
            if (t.bath[victim][3 * d + v1] < need || t.bath[victim][3 * d + v2] < 1) continue;
            St u = t;
            u.bath[victim][3 * d + v1]--; u.bath[victim][3 * d + v2]--;
            u.phys++; u.slots = u.phys;
            Val e;
            size_t me_ = fs_n;
            if (RF[R_OPENING_CONTINUES]) e = reveal(&u, picker, keeper, n, own, next + 1, card);   /* L27 */
            else {                                                  /* L27: Susto, the turn goes on */
                if (RF[R_ROLLS_RETURNED])                           /* L17: escorts' unopened picks */
                    for (int i = next + 1 > own ? next + 1 : own; i < n; i++) u.rolls[picker[i]]++;
                e = after_opening(&u, card);
            }
            if (policy) {
                val = policy_pick(victim, val, e, ml, me_, v1 + v2 < cheapest);
                if (v1 + v2 < cheapest) cheapest = v1 + v2;
            } else val = choose(victim, val, e, ml, me_);
        }
    }
    scale(ml, 1, s->slots);
    vadd(&acc, pl, val);
    return acc;
}
/* L21, L26: may `seat` escort this opening (n picks queued so far) */
static int escort_allowed(const St *s, int seat, const int *picker, int n) {
    if (is_stopped(s, seat) && !RF[R_STOPPED_ESCORT]) return 0;
    if (s->rolls[seat] == 0 || n >= s->phys) return 0;
    for (int i = 0; i < n; i++) if (picker[i] == seat) return 0;
    return 1;
}
/* L22: roll holders decide in clockwise seat order after the first picker, each seeing the earlier
 * decisions (from: the next offset to ask); then the picks are revealed */
static Val escorts(const St *s, int *picker, int *keeper, int n, int own, int card, int from) {
    if (!(RF[R_GRITO_ONLY] && card != GRITO))                         /* L03 */
        for (int off = from; off < NP; off++) {
            int cand = seat_at(picker[0], off);
            if (!escort_allowed(s, cand, picker, n)) continue;
            size_t m0 = fs_n;
            int asks = asks_ahead(cand);
            ahead_wanted += asks;
            Val no = escorts(s, picker, keeper, n, own, card, off + 1);
            St t = *s;
            t.rolls[cand]--;
            picker[n] = cand; keeper[n] = RF[R_OPENER_KEEPS] ? keeper[0] : cand;   /* L18 */
            size_t m1 = fs_n;
            Val yes = escorts(&t, picker, keeper, n + 1, own, card, off + 1);
            ahead_wanted -= asks;
            return choose(cand, no, yes, m0, m1);
        }
    return reveal(s, picker, keeper, n, own, 0, card);
}
/* an opening of `own` picks (picker[i], keeper[i]) */
static Val opening_n(const St *s, const int *own_picker, const int *own_keeper, int own, int card) {
    int picker[QMAX], keeper[QMAX];
    for (int i = 0; i < own; i++) { picker[i] = own_picker[i]; keeper[i] = own_keeper[i]; }
    return escorts(s, picker, keeper, own, own, card, 1);
}
static Val opening(const St *s, int first_picker, int first_keeper, int card) {
    return opening_n(s, &first_picker, &first_keeper, 1, card);
}
/* a point card of `seat` (bathroom kinds 0-8, then stalls 9 + value index: effects._point_slots)
 * discarded: L11 bathroom-only leaves the stalls out */
static int point_slots(const St *s, int seat) {
    for (int b = 0; b < 9; b++) if (s->bath[seat][b]) return 1;
    if (!RF[R_FLUSH_BATHROOM_ONLY]) for (int v = 0; v < S_n; v++) if (s->stall[seat][v]) return 1;
    return 0;
}
static void discard_slot(St *t, int seat, int slot) {
    if (slot < 9) t->bath[seat][slot]--;
    else { t->stall[seat][slot - 9]--; t->out[slot - 9]++; }
}
static int slot_held(const St *s, int seat, int slot) {
    return slot < 9 ? s->bath[seat][slot] : s->stall[seat][slot - 9];
}
static int slot_count(void) { return RF[R_FLUSH_BATHROOM_ONLY] ? 9 : 9 + S_n; }
/* Descarga on one seat's point cards (L11), tried after `*any` earlier alternatives; `best`: the
 * best margin left so far when the shipped policy chooses (NULL: the search's choice) -- greedy's
 * Descarga rule, the first card whose discard leaves the mover the best margin */
static Val flush(const St *s, int me, int target, Val val, int *any, size_t m0, int *best) {
    for (int slot = 0; slot < slot_count(); slot++) if (slot_held(s, target, slot)) {
        St t = *s; discard_slot(&t, target, slot);
        if (!best) { PICK(me, val, *any, m0, card_done(&t)); continue; }
        int margin = lead(&t, me);
        size_t m1 = fs_n;
        Val x = card_done(&t);
        val = *any ? policy_pick(me, val, x, m0, m1, margin > *best) : x;
        if (!*any || margin > *best) *best = margin;
        *any = 1;
    }
    return val;
}
/* Zelador: from the revealer on, in the direction of play, each exposed seat with a point card
 * discards one of its choice (idx: the place in that order) */
static Val zelador(const St *s, int idx) {
    if (idx == NP) return card_done_copy(s);
    int seat = along(s, s->turn, idx);
    if (idx > 0 && !exposed(s, seat)) return zelador(s, idx + 1);
    int any = 0; Val val = vzero(); size_t m0 = fs_n;
    for (int slot = 0; slot < slot_count(); slot++) if (slot_held(s, seat, slot)) {
        St t = *s; discard_slot(&t, seat, slot);
        PICK(seat, val, any, m0, zelador(&t, idx + 1));
    }
    return any ? val : zelador(s, idx + 1);
}
/* a roll taken from another exposed seat of the mover's choice (Toc-Toc, Tia); `rest` more to take
 * (Tia: 2 in all, then the card is done); toc: the Toc-Toc reverses the direction after it */
static int roll_targets(const St *s, int me) {
    for (int off = 1; off < NP; off++) { int t = seat_at(me, off); if (exposed(s, t) && s->rolls[t]) return 1; }
    return 0;
}
static Val steal(const St *s, int me, int rest, int toc) {
    if (!rest || !roll_targets(s, me)) {
        St t = *s;
        if (toc && NP > 2) t.dir ^= 1;
        return card_done(&t);
    }
    int any = 0; Val val = vzero(); size_t m0 = fs_n;
    for (int off = 1; off < NP; off++) {
        int target = seat_at(me, off);
        if (!exposed(s, target) || !s->rolls[target]) continue;
        St t = *s; t.rolls[target]--; t.rolls[me]++;
        PICK(me, val, any, m0, steal(&t, me, toc ? 0 : rest - 1, toc));
    }
    return val;
}
static Val toc_toc(const St *s, int me) {
    if (centre_rolls(s)) {
        St t = *s; t.rolls[me]++;
        if (NP > 2) t.dir ^= 1;
        return card_done(&t);
    }
    if (roll_targets(s, me)) return steal(s, me, 1, 1);
    St t = *s;
    if (NP > 2 && !RF[R_TOCTOC_NO_REVERSE]) t.dir ^= 1;               /* L36 (L24: 2 players) */
    return card_done(&t);
}
/* the seats Diretora makes open, in the direction of play from its revealer: the revealer and the
 * exposed others (expansions._diretora_openers) */
static int diretora_openers(const St *s, int *order) {
    int n = 0;
    for (int i = 0; i < NP; i++) {
        int seat = along(s, s->turn, i);
        if (i == 0 || exposed(s, seat)) order[n++] = seat;
    }
    return n;
}
static Val draw(const St *s);
static Val resolve(const St *s0, int k) {
    St s = *s0;
    int me = s.turn;
    if (k < 9) { s.bath[me][k]++; return card_done(&s); }
    switch (k) {
    case RALO: s.ralo[me]++; return card_done(&s);
    case RAPAGOTE: {                       /* the revealer opens and indicates another to open */
        if (s.phys >= 2) {
            int any = 0; Val val = vzero(); size_t m0 = fs_n;
            for (int off = 1; off < NP; off++) {
                int other = seat_at(me, off);
                if (!exposed(&s, other)) continue;
                int pk[2] = {me, other};
                PICK(me, val, any, m0, opening_n(&s, pk, pk, 2, RAPAGOTE));
            }
            if (any) return val;
        }
        return s.phys ? opening(&s, me, me, RAPAGOTE) : card_done(&s);
    }
    case ALUNA: {
        int pk[2] = {me, me}, n = s.phys < 2 ? s.phys : 2;
        return n ? opening_n(&s, pk, pk, n, ALUNA) : card_done(&s);
    }
    case DIRETORA: {
        if (!s.phys) return card_done(&s);
        int order[NP], n = diretora_openers(&s, order);
        if (n <= s.phys) return opening_n(&s, order, order, n, DIRETORA);
        /* too few stalls: the revealer chooses which of them open, as a set (offset bit masks,
         * ascending), each set opening in the order of play */
        unsigned can = 0;
        for (int i = 0; i < n; i++) can |= 1u << ((order[i] - me + NP) % NP);
        int any = 0; Val val = vzero(); size_t m0 = fs_n;
        for (unsigned mask = 1; mask < (1u << NP); mask++) {
            if ((mask & ~can) || __builtin_popcount(mask) != s.phys) continue;
            int pk[NP], c = 0;
            for (int i = 0; i < n; i++) if ((mask >> ((order[i] - me + NP) % NP)) & 1) pk[c++] = order[i];
            PICK(me, val, any, m0, opening_n(&s, pk, pk, c, DIRETORA));
        }
        return val;
    }
    case PROFESSORA: {                     /* 3+ players: two others invited, in order */
        int targets[NP], nt = 0;
        for (int off = 1; off < NP; off++) if (exposed(&s, seat_at(me, off))) targets[nt++] = seat_at(me, off);
        if (!s.phys || !nt) return card_done(&s);
        if (nt == 1) return opening(&s, targets[0], targets[0], PROFESSORA);
        int any = 0; Val val = vzero(); size_t m0 = fs_n;
        for (int a = 0; a < nt; a++) for (int b = 0; b < nt; b++) if (a != b) {
            int pk[2] = {targets[a], targets[b]};
            PICK(me, val, any, m0, opening_n(&s, pk, pk, s.phys < 2 ? 1 : 2, PROFESSORA));
        }
        return val;
    }
    case TIA: {                            /* 2 rolls: from the centre, else from others of one's choice */
        int c = centre_rolls(&s), take = c < 2 ? c : 2;
        s.rolls[me] += take;
        return steal(&s, me, 2 - take, 0);
    }
    case ZELADOR: return zelador(&s, 0);
    case MERENDEIRA:   /* the discard but Merendeiras back into the deck, then draw again (L14) */
        reshuffle(&s, MERENDEIRA);
        if (RF[R_MERENDEIRA_RESETS]) s.gritos = 0;
        return deck_total(&s) ? draw(&s) : card_done(&s);
    case ESPELHO: s.esp[me]++; return card_done(&s);
    case INTERRUPTOR: {
        s.sw[me]++;
        size_t m0 = fs_n;
        Val v = card_done_copy(&s);
        if (RF[R_SWITCH_WHEN_DRAWN]) {                               /* L30: no, then yes */
            St u = *s0; size_t m1 = fs_n;
            v = choose(me, v, terminal(&u), m0, m1);
        }
        return v;
    }
    case GRITO:
        if (!s.phys) return after_opening(&s, GRITO);                /* L07 no: nothing to open */
        return opening(&s, me, me, GRITO);
    case TOCTOC: {
        if (!RF[R_OPTIONAL]) return toc_toc(&s, me);
        size_t m0 = fs_n;                                            /* L29: decline, then apply */
        Val v = card_done_copy(&s);
        size_t m1 = fs_n;
        return choose(me, v, toc_toc(&s, me), m0, m1);
    }
    case CHUTE: {
        if (!s.phys) return card_done(&s);
        St u = s; u.phys--;
        if (!RF[R_OPTIONAL]) return card_done(&u);
        size_t m0 = fs_n;                                            /* L29: keep, then kick */
        Val v = card_done_copy(&s);
        size_t m1 = fs_n;
        return choose(me, v, card_done(&u), m0, m1);
    }
    case DESCARGA: {
        int others = 0;
        for (int off = 1; off < NP; off++) { int t = seat_at(me, off); others |= exposed(&s, t) && point_slots(&s, t); }
        int self = !others && RF[R_SELF_TARGET] && point_slots(&s, me);   /* L10 */
        if (!others && !self) return card_done(&s);
        int any = 0, margin = 0, *best = policy_decides(&s, me) ? &margin : NULL;
        Val val = vzero(); size_t m0 = fs_n;
        if (RF[R_OPTIONAL]) PICK(me, val, any, m0, card_done_copy(&s));   /* L29: decline first */
        if (self) return flush(&s, me, me, val, &any, m0, best);
        for (int off = 1; off < NP; off++) {
            int t = seat_at(me, off);
            if (exposed(&s, t)) val = flush(&s, me, t, val, &any, m0, best);
        }
        return val;
    }
    case FIOS: {
        if (!s.phys) return card_done(&s);
        int any = 0; Val val = vzero(); size_t m0 = fs_n;
        for (int off = 1; off < NP; off++) {
            int invitee = seat_at(me, off);
            if (!exposed(&s, invitee)) continue;
            PICK(me, val, any, m0, opening(&s, invitee, RF[R_INVITEE_KEEPS] ? invitee : me, FIOS));   /* L23, L33 */
        }
        if (any) return val;
        return RF[R_SELF_TARGET] ? opening(&s, me, me, FIOS) : card_done(&s);   /* L10 */
    }
    }
    return card_done(&s);
}
/* a card drawn: a mini-expansion card may be set aside (then the next card is drawn) or opened */
static Val drawn(const St *s, int k) {
    if (k < RAPAGOTE || deck_total(s) == 0) return resolve(s, k);
    St u = *s; u.aside[k - RAPAGOTE]++;
    size_t m0 = fs_n;
    Val v = draw(&u);
    size_t m1 = fs_n;
    return choose(s->turn, v, resolve(s, k), m0, m1);
}
static Val draw(const St *s) {
    int total = deck_total(s);
    Val go = vzero();
    for (int k = 0; k < NK; k++) if (s->deck[k]) {
        St u = *s; u.deck[k]--;
        size_t mk = fs_n;
        vadd(&go, (double)s->deck[k] / total, drawn(&u, k));
        scale(mk, s->deck[k], total);
    }
    return go;
}

/* ---- one turn alone, for the differential test (loira_turn) ------------------------------- */
static int probe_on, probe_n, probe_cap;
static St *probe_out;            /* the next turn-start states met, in order, without repeats */
static const double *probe_vals; /* their values (NV doubles each, in the seats' own order), or NULL (0) */
static Val probe_value(int i) {
    Val x = vzero();
    if (probe_vals) for (int j = 0; j < NV; j++) x.v[j] = probe_vals[NV * i + j];
    return x;
}
static Val probe_leaf(const St *s) {
    for (int i = 0; i < probe_n && i < probe_cap; i++)
        if (!memcmp(&probe_out[i], s, sizeof(St))) return probe_value(i);
    /* met for the first time: the order is the same on every call, so its index is known */
    if (probe_n >= probe_cap) { probe_n++; return vzero(); }
    probe_out[probe_n] = *s;
    return probe_value(probe_n++);
}

/* the value of a turn-start state from its moves, in legal order: go, stop, the Interruptor, pass
 * the Ralo (by offset), open a card set aside (by kind) */
static Val turn_body(const St *s) {
    int me = s->turn;
    if (is_stopped(s, me)) {            /* L13 also-stopped: use the Interruptor, or pass */
        St t = *s, u = *s;
        u.sw[me]--;
        size_t m0 = fs_n;
        Val use = terminal(&u);
        size_t m1 = fs_n;
        return choose(me, use, end_turn(&t), m0, m1);
    }
#ifdef EVAL
    if (policy_decides(s, me)) {        /* the shipped policy's go/stop: only its action is searched */
        int act = policy_turn(s, me);
        St t = *s;
        if (act == 2) { t.sw[me]--; return terminal(&t); }
        if (act == 1) { t.stopped |= 1 << me; return end_turn(&t); }
        return draw(s);
    }
#endif
    size_t m0 = fs_n;
    Val v = draw(s);                                                  /* go */
    { St t = *s; t.stopped |= 1 << me; size_t m1 = fs_n; v = choose(me, v, end_turn(&t), m0, m1); }   /* stop */
    if (s->sw[me]) { St u = *s; u.sw[me]--; size_t m1 = fs_n; v = choose(me, v, terminal(&u), m0, m1); }
    /* pass the Ralo to an active seat (L20: an action; the turn goes on) */
    if (s->ralo[me])
        for (int off = 1; off < NP; off++) {
            int to = seat_at(me, off);
            if (is_stopped(s, to)) continue;
            St u = *s; u.ralo[me]--; u.ralo[to]++;
            size_t m1 = fs_n; v = choose(me, v, turn_value(&u), m0, m1);
        }
    /* open a card set aside instead of drawing (L19) */
    for (int x = 0; x < NX; x++) if (s->aside[x]) {
        St u = *s; u.aside[x]--;
        size_t m1 = fs_n; v = choose(me, v, resolve(&u, RAPAGOTE + x), m0, m1);
    }
    return v;
}
#ifdef EVAL
/* ---- the near-optimal policy's evaluation (loira_eval) ------------------------------------------
 * One seat (eval_seat) follows the policy of model/loira/nearopt.py, every other seat best-responds.
 * The policy: inside its endgame region (region: at most eval_k cards left, or at most
 * eval_stopped_k with every other seat stopped) the optimum; above it, each decision looks one turn
 * ahead -- the rest of the turn searched with every seat choosing by the look-ahead values (max^n,
 * first of the best), each next turn-start state valued by its optimum if in the region, else by
 * the optimum of the same state with its deck cut to eval_m cards (reduce_deck). States of the
 * region, and every state below a reduced one, are searched for their optimum (opt: the key's flag,
 * the mover rotated to seat 0); the others for the evaluated seat's value (no rotation: the key
 * keeps the turn). A Val carries both: the true value, then the look-ahead value (the optimum's is
 * the same; above the region, a state's look-ahead value is its reduced deck's optimum). */
/* a turn-start state of the endgame's region: Endgame.covers for its mover */
static int region(const St *s) { return covered(s, s->turn); }
/* the deck cut to m cards in proportion (largest remainders first, then the lower kind): the same
 * rounding as nearopt.reduce_deck */
static void reduce_deck(int *deck, int m) {
    int total = 0;
    for (int k = 0; k < NK; k++) total += deck[k];
    if (total <= m) return;
    double rest[NK];
    int kept = 0;
    for (int k = 0; k < NK; k++) {
        double raw = (double)(deck[k] * m) / total;
        deck[k] = (int)raw; rest[k] = raw - deck[k]; kept += deck[k];
    }
    for (; kept < m; kept++) {
        int best = -1;
        for (int k = 0; k < NK; k++) if (rest[k] >= 0 && (best < 0 || rest[k] > rest[best])) best = k;
        deck[best]++; rest[best] = -1;
    }
}
/* The shipped policy's look-ahead values are searched in a table of their own, emptied when it
 * holds SIDE_MAX states: each is a reduced deck's optimum, which the evaluation's table need not
 * keep (on the 17-card rung the escorts' reduced decks outgrew this machine's memory there) */
#define SIDE_MAX (1ULL << 24)
/* the look-ahead's work in the last evaluation (loira_eval_lookahead): the reduced-deck sub-solves,
 * those whose root was searched already, the states they added, the times its table was emptied */
static uint64_t ahead_solves, ahead_repeats, ahead_states, ahead_emptied;
static void ahead_count(uint64_t before) {
    ahead_solves++;
    ahead_repeats += used == before;
    ahead_states += used - before;
}
static Slot *side_table;
static uint64_t side_cap, side_used, side_total;
static int side_dense;
static void swap_tables(void) {
    Slot *t = table; table = side_table; side_table = t;
    uint64_t c = cap; cap = side_cap; side_cap = c;
    uint64_t u = used; used = side_used; side_used = u;
    int d = dense; dense = side_dense; side_dense = d;
}
static Val vhat(const St *s) {
    St r = *s;
    reduce_deck(r.deck, eval_m);
    int saved = cur_opt;
    cur_opt = 1;
    if (!eval_shipped) {   /* the candidate keeps them with the rest (its figures as measured) */
        uint64_t before = used;
        Val w = turn_value(&r);
        ahead_count(before);
        cur_opt = saved;
        return w;
    }
    swap_tables();
    if (used >= SIDE_MAX) { side_total += used; free(table); table = NULL; cap = used = 0; ahead_emptied++; }
    if (!table && grow()) oom = 1;
    uint64_t before = used;
    Val w = oom ? vzero() : turn_value(&r);
    ahead_count(before);
    swap_tables();
    cur_opt = saved;
    return w;
}
/* the look-ahead's own table freed; the states it searched in all */
static uint64_t side_free(void) {
    uint64_t n = side_total + side_used;
    free(side_table); side_table = NULL; side_cap = side_used = side_total = 0;
    return n;
}
/* vhat when a look-ahead may read it (the candidate: always); else NAN, computed when one does */
static Val vhat_if_asked(const St *s) {
    if (ahead_wanted || !eval_shipped) return vhat(s);
    Val none;
    for (int i = 0; i < NVAL; i++) none.v[i] = NAN;
    return none;
}
#endif
static Val turn_value(const St *s) {
    if (probe_on) return probe_leaf(s);
#ifdef EVAL
    int opt = cur_opt || region(s);
    int rot = keep_seats || !opt ? 0 : s->turn;
#else
    int opt = 0;
    int rot = keep_seats ? 0 : s->turn;
#endif
    uint64_t lo, hi;
    pack(s, rot, opt, &lo, &hi);
    /* out of core: a next turn state goes to the hook (expand: the table is empty; evaluate: the
     * hook looks it up among the given values) */
    if (ooc_mode && !ooc_root) return ooc_successor(s, lo, hi, rot);
    /* out of core, the key searched is never among the successors' values (they lie one or two
     * layers on): no lookup, which in evaluate's table of hundreds of thousands is a cache miss */
    static const Slot none;
    Slot *slot = ooc_mode ? (Slot *)&none : find(lo, hi);
    /* forms: this state is a leaf of the turn that reached it (stored values are the mover's) */
#if NP == 2
    Term here = {lo, hi, rot ? -1 : 1, 1, rot ? -1.0 : 1.0, 0};
#else
    Term here = {lo, hi, 1, 1, 1.0, rot};
#endif
    if (slot->hi) {
        if (forms_on == 2) {   /* a tape: resolved here (no second lookup) -- see tape_emit */
            if (slot->v.v[0] > 2) here = (Term){(uint64_t)(slot->v.v[0] - ON_STACK), 1, 1, 1, here.c, 0};
            else here = (Term){0, 0, 0, 1, here.c * slot->v.v[0], 0};
            if (here.hi || here.c != 0) push(&fs, &fs_n, &fs_cap, here);
        } else if (forms_on) push(&fs, &fs_n, &fs_cap, here);
        if (slot->v.v[0] > 2) {   /* a state of an open component: its value so far */
            uint64_t at = (uint64_t)(slot->v.v[0] - ON_STACK);
            cyc_hits++;
            if (at < cyc_low) cyc_low = at;
            if (at == cyc_cur) cyc_stack[at].loop = 1;
            return from_stored(cyc_stack[at].v, rot);
        }
#ifdef EVAL
        if (!opt && isnan(slot->v.v[NV]) && (ahead_wanted || !eval_shipped)) {   /* asked for the first time */
            Val e = vhat(s);
            slot = find(lo, hi);   /* (vhat may have grown the table) */
            for (int i = 0; i < NV; i++) slot->v.v[NV + i] = e.v[i];
        }
#endif
        return from_stored(slot->v, rot);
    }
    if (ooc_mode) ooc_root = 0;   /* the key searched (the others went to the hook above) */
    if (sweep_mode && !oom) oom = 7;   /* a sweep met a state the first pass did not: a bug */
    if (loira_stop_requested && !oom) oom = 5;
    if (oom) return vzero();   /* aborting: unwind without more work */
    uint64_t at = 0, low_before = 0, cur_before = cyc_cur;
    if (RF[R_RESHUFFLE]) {   /* stored and stacked before its turn is searched: a cycle back reads 0 */
        if (limit && used >= limit) { oom = 3; return vzero(); }
        if (full() && grow()) { oom = 1; return vzero(); }
        if (cyc_n == cyc_cap) {
            uint64_t nc = cyc_cap ? 2 * cyc_cap : 1024;
            Pending *nb = realloc(cyc_stack, nc * sizeof(Pending));
            if (!nb) { oom = 1; return vzero(); }
            cyc_stack = nb; cyc_cap = nc;
        }
        at = cyc_n++;
        cyc_stack[at] = (Pending){lo, hi, vzero(), 0};
        slot = find(lo, hi);
        slot->lo = lo; slot->hi = hi; slot->v = vzero(); slot->v.v[0] = ON_STACK + (double)at;
        used++;
        low_before = cyc_low; cyc_low = at; cyc_cur = at;
    }
    size_t m0 = fs_n;
#ifdef EVAL
    int saved_opt = cur_opt, saved_wanted = ahead_wanted;
    cur_opt = opt; ahead_wanted = 0;   /* its own turn's look-ahead values are not this state's */
    Val v = turn_body(s);
    cur_opt = saved_opt; ahead_wanted = saved_wanted;
    if (!opt) {   /* as a next state, valued by the look-ahead at its reduced deck's optimum */
        Val e = vhat_if_asked(s);
        for (int i = 0; i < NV; i++) v.v[NV + i] = e.v[i];
    }
#else
    Val v = turn_body(s);
#endif
    if (forms_on) {   /* write this state's form, then stand for it */
        /* header: the term count (two players: negative when the form gives minus the mover's
         * value; more: rot says which seat the stored vector starts at) */
#if NP == 2
        push(&fx, &fx_n, &fx_cap, (Term){lo, hi, here.num * (int64_t)(fs_n - m0), 0, 0, 0});
#else
        push(&fx, &fx_n, &fx_cap, (Term){lo, hi, (int64_t)(fs_n - m0), 0, 0, rot});
#endif
        for (size_t i = m0; i < fs_n; i++) push(&fx, &fx_n, &fx_cap, fs[i]);
        fs_n = m0;
        push(&fs, &fs_n, &fs_cap, here);
        if (forms_overflow && !oom) oom = 6;
    }
    visits++;
    if (ooc_mode) return v;   /* out of core: the caller stores it */
    if (RF[R_RESHUFFLE]) {
        cyc_cur = cur_before;
        cyc_stack[at].v = to_stored(v, rot);
        uint64_t low = cyc_low;
        if (low == at && !oom)   /* the root of a component: settle it, then it is final */
            v = from_stored(close_component(at), rot);
        cyc_low = low < low_before ? low : low_before;
        if (deadline > 0 && (visits & 0x3FF) == 0 && now_seconds() > deadline && !oom) oom = 4;
        return v;
    }
    if (limit && used >= limit) { oom = 3; return v; }
    if (deadline > 0 && (visits & 0x3FF) == 0 && now_seconds() > deadline) { oom = 4; return v; }
    if (full()) {
        if (grow()) { oom = 1; return v; }
    }
    slot = find(lo, hi);
    slot->lo = lo; slot->hi = hi; slot->v = to_stored(v, rot);
    used++;
    return v;
}

/* ---- entry points -------------------------------------------------------------------------- */
/* the configuration's constants and key field widths; nonzero when the key needs over 127 bits */
static int set_config(const int *deck, int S, const int *vals, const int *cnts, const int *rolls,
                      int crolls) {
    S_n = S; total_bits = 0;
    for (int k = 0; k < NK; k++) { deck_start[k] = deck[k]; w_deck[k] = bits(deck[k]); total_bits += w_deck[k]; }
    int m0 = 0;
    for (int v = 0; v < S; v++) { S_val[v] = vals[v]; S_cnt[v] = cnts[v]; w_stall[v] = bits(cnts[v]); m0 += cnts[v]; }
    for (int k = 0; k < 9; k++) w_bath[k] = bits(deck[k]);
    w_esp = bits(deck[ESPELHO]); w_sw = bits(deck[INTERRUPTOR]); w_ralo = bits(deck[RALO]);
    R_total = crolls;
    int equal = 1;
    for (int i = 0; i < NP; i++) { R_start[i] = rolls[i]; R_total += rolls[i]; equal &= rolls[i] == rolls[0]; }
    w_rolls = bits(R_total); w_phys = bits(m0 + 1);
    w_dir = NP > 2 && deck[TOCTOC] > 0;       /* only a Toc-Toc turns the direction */
    int per_seat = 0;
    for (int k = 0; k < 9; k++) per_seat += w_bath[k];
    for (int v = 0; v < S; v++) per_seat += w_stall[v];
    per_seat += w_esp + w_sw + w_rolls + w_ralo + 1;
    for (int x = 0; x < NX; x++) total_bits += w_deck[RAPAGOTE + x];   /* set aside */
    keep_seats = IN_MATCH || (RF[R_ROUND_ROLLS] && !equal);
#ifdef EVAL
    w_turn = bits(NP - 1);   /* the evaluated seat's states keep the seats apart */
#else
    w_turn = keep_seats ? bits(NP - 1) : 0;
#endif
    total_bits += NP * per_seat + w_grit + 2 * w_phys + w_dir + w_turn + w_opt;
    for (int v = 0; v < S; v++) total_bits += w_stall[v];
    make_plan();
    return total_bits > 127;
}
/* set_config and the round's initial state s (seat ``turn`` left 0) */
static int configure(St *s, const int *deck, int S, const int *vals, const int *cnts, const int *rolls,
                     int crolls) {
    memset(s, 0, sizeof *s);
    if (set_config(deck, S, vals, cnts, rolls, crolls)) return -1;
    int m0 = 0;
    for (int k = 0; k < NK; k++) s->deck[k] = deck[k];
    for (int v = 0; v < S; v++) m0 += cnts[v];
    for (int i = 0; i < NP; i++) s->rolls[i] = rolls[i];
    s->phys = s->slots = m0 + 1;
    return 0;
}

/* ---- entry point ----------------------------------------------------------------------------- */
/* cfg: deck[24], S, values[S], counts[S], rolls[NP], crolls, first, max states (0: none),
 * max seconds (0: none).
 * out: value (NV doubles: two players seat 0's value, more each seat's), states, visits, table
 * bytes. Returns 0, or -1 (key too wide), -2 (out of memory), -3 (state limit reached: no value),
 * -4 (time limit reached: no value), -5 (stopped: no value), -6 (exact forms: a coefficient outgrew
 * 40 bits, or no memory for them). */
int loira_solve(const int *deck, int S, const int *vals, const int *cnts, const int *rolls, int crolls,
                int first, double max_states, double max_seconds, double *value, double *states,
                double *visit_count, double *bytes) {
    St s;
    if (configure(&s, deck, S, vals, cnts, rolls, crolls)) return -1;
    s.turn = first;
    free(table); table = NULL; cap = used = visits = 0; oom = 0; loira_stop_requested = 0;
    limit = (uint64_t)max_states;
    deadline = max_seconds > 0 ? now_seconds() + max_seconds : 0;
    if (grow()) return -2;
    cyc_n = 0; cyc_low = UINT64_MAX; cyc_hits = 0; cyc_sweeps = cyc_residual = cyc_states = 0;
    tape_fallbacks = 0;
    Val v = turn_value(&s);
    free(cyc_stack); cyc_stack = NULL; cyc_n = cyc_cap = 0;
    tape_free();
    if (!forms_on) { free(fs); fs = NULL; fs_n = fs_cap = 0; }
    for (int i = 0; i < NV; i++) value[i] = v.v[i];
    *states = (double)used; *visit_count = (double)visits; *bytes = (double)(cap * sizeof(Slot));
    free(table); table = NULL; cap = 0;
    return oom == 3 ? -3 : oom == 4 ? -4 : oom == 5 ? -5 : oom == 6 ? -6 : oom == 7 ? -7
         : oom == 8 ? -8 : oom ? -2 : 0;
}

/* Exact forms for the next loira_solve (on = 1) or none (0). After that solve, loira_forms_size
 * gives the number of Terms written and loira_forms_take copies them (5 int64 each: key lo, key hi,
 * numerator, denominator, rot; a header has denominator 0 and the term count as numerator) and
 * frees them. Returns the number of near ties met (decisions between values within 1e-9). */
void loira_forms(int on) {
    forms_on = on; forms_overflow = 0; near_ties = 0;
    free(fs); free(fx); fs = fx = NULL; fs_n = fs_cap = fx_n = fx_cap = 0;
}
double loira_forms_size(void) { return (double)fx_n; }
double loira_forms_take(int64_t *out) {
    for (size_t i = 0; i < fx_n; i++) {
        out[5 * i] = (int64_t)fx[i].lo; out[5 * i + 1] = (int64_t)fx[i].hi;
        out[5 * i + 2] = fx[i].num; out[5 * i + 3] = fx[i].den; out[5 * i + 4] = fx[i].rot;
    }
    double ties = (double)near_ties;
    loira_forms(0);
    return ties;
}

static void unpack(uint64_t lo, uint64_t hi, St *s);
static void unpack_slow(uint64_t lo, uint64_t hi, St *s);
/* One turn of the state given as sizeof(St)/sizeof(int) ints in St's field order: the next turn-start
 * states it can reach (written to succ, cap of them; the count is returned) and, when vals gives
 * the value of each (NV doubles: two players seat 0's, more each seat's), the value of this turn
 * (terminals scored here). For the differential test against the Python model. Returns -1 when
 * the key is too wide, -2 when pack and pack_slow give the state different keys (or unpack and
 * unpack_slow read its rotation-0 key differently). */
int loira_state_ints(void) { return (int)(sizeof(St) / sizeof(int)); }
int loira_turn(const int *deck, int S, const int *vals, const int *cnts, const int *rolls, int crolls,
               const int *state, int cap_out, int *succ, const double *succ_vals, double *value) {
    if (set_config(deck, S, vals, cnts, rolls, crolls)) return -1;
    St s; memcpy(&s, state, sizeof s);
    for (int rot = 0; rot < NP; rot++) {
        uint64_t a, b, c, d;
        pack(&s, rot, 0, &a, &b); pack_slow(&s, rot, 0, &c, &d);
        if (a != c || b != d) return -2;
        if (rot == 0) {   /* and the two unpacks read the key alike */
            St x, y;
            unpack(a, b, &x); unpack_slow(a, b, &y);
            if (memcmp(&x, &y, sizeof x)) return -2;
        }
    }
    probe_on = 1; probe_n = 0; probe_cap = cap_out; probe_out = (St *)succ; probe_vals = succ_vals;
    Val v = turn_body(&s);
    for (int i = 0; i < NV; i++) value[i] = v.v[i];
    probe_on = 0; probe_out = NULL; probe_vals = NULL;
    return probe_n;
}

/* the inverse of pack (rotation 0): the mover is seat 0, or (keep_seats) the key carries the turn */
static inline int get(Packer *p, int width) {
    int v = (int)((uint64_t)(p->bits >> p->pos) & ((1ULL << width) - 1));
    p->pos += width;
    return v;
}
/* the key's fields back into a state by the rotation-0 plan (pack's inverse where the key's seat 0
 * is the state's: the out-of-core keys; unpack_slow reads the layout field by field, and
 * loira_turn's differential check holds the two equal) */
static void unpack(uint64_t lo, uint64_t hi, St *s) {
    memset(s, 0, sizeof *s);
    int *a = (int *)s;
    const Field *f = plan[0];
    uint64_t w1 = hi - 1;
    int i = 0;
    for (; i < plan_lo[0]; i++) a[f[i].idx] = (int)((lo >> f[i].pos) & f[i].mask);
    if (plan_mid[0]) { a[f[i].idx] = (int)(((lo >> f[i].pos) | (w1 << (64 - f[i].pos))) & f[i].mask); i++; }
    for (; i < plan_n; i++) a[f[i].idx] = (int)((w1 >> (f[i].pos - 64)) & f[i].mask);
    u128 key = (u128)w1 << 64 | lo;
    for (int j = 0; j < NP; j++) s->stopped |= (int)((key >> stop_pos[j]) & 1) << j;
    if (w_dir) s->dir = (int)((key >> dir_pos) & 1);
    if (w_turn) s->turn = (int)((key >> turn_pos) & ((1u << w_turn) - 1));
}
static void unpack_slow(uint64_t lo, uint64_t hi, St *s) {
    Packer p = {(u128)(hi - 1) << 64 | lo, 0};
    memset(s, 0, sizeof *s);
    for (int k = 0; k < NK; k++) s->deck[k] = get(&p, w_deck[k]);
    for (int i = 0; i < NP; i++) {
        for (int k = 0; k < 9; k++) s->bath[i][k] = get(&p, w_bath[k]);
        for (int v = 0; v < S_n; v++) s->stall[i][v] = get(&p, w_stall[v]);
        s->esp[i] = get(&p, w_esp); s->sw[i] = get(&p, w_sw); s->rolls[i] = get(&p, w_rolls);
        s->ralo[i] = get(&p, w_ralo);
        s->stopped |= get(&p, 1) << i;
    }
    for (int v = 0; v < S_n; v++) s->out[v] = get(&p, w_stall[v]);
    for (int x = 0; x < NX; x++) s->aside[x] = get(&p, w_deck[RAPAGOTE + x]);
    s->gritos = get(&p, w_grit); s->phys = get(&p, w_phys); s->slots = get(&p, w_phys);
    s->dir = get(&p, w_dir);
    s->turn = get(&p, w_turn);   /* 0 once rotated: the mover is seat 0 */
}

/* ---- out of core: one turn at a time (two players) ---------------------------------------------- */
/* Layered solving (model/loira/ooc.py) stores turn-start keys on disk and asks this engine, for a
 * batch of keys, either for the successor turn-start keys each turn reaches (expand) or for the
 * mover's values once the successors' values are known (evaluate). Both run the search above on
 * the key's turn; the hook in turn_value stops it at the next turn state. */
static uint64_t *ooc_out;          /* expand: successor keys (lo, hi pairs) */
static int8_t *ooc_layer;          /* expand: their layers */
static int64_t ooc_n, ooc_cap;
static int ooc_error;              /* 1: expand buffer full, 2: evaluate met an unknown successor */

/* layers: 2 * cards drawn + (a seat has stopped); every turn moves one or two layers on */
static int layer_of(const St *s) {
    int drawn = 0;
    for (int k = 0; k < NK; k++) drawn += deck_start[k] - s->deck[k];
    return 2 * drawn + (s->stopped != 0);
}
/* Evaluate's successor values, sorted as the keys are on disk: by their stored bytes in memcmp
 * order, which is the order of the pair (bswap(lo), bswap(hi - 1)) compared as unsigned words.
 * Why not a hash table: with the roots taken in that order, their successors' lookups advance in a
 * few streams through the sorted successors (13 cards, the largest task: of 760,493 lookups, 85%
 * lie within 16 places of one of the 8 before; median 1), so a search from the nearest of a few
 * fingers reads memory the previous lookups brought into cache, where a hash table of hundreds of
 * MB misses the cache on nearly every lookup. The successors arrive as sorted runs (one per
 * partition and layer asked): merged here, not sorted. */
typedef struct { uint64_t a, b; double v; } Sorted;
static Sorted *sorted, *sorted_tmp;
static int64_t sorted_n;
#define FINGERS 16
#define FINGER_REACH 64   /* a lookup found farther than this from its finger starts a new stream */
static int64_t finger[FINGERS];
static uint64_t finger_a[FINGERS];
static unsigned finger_next;

static inline int sorted_less(const Sorted *x, uint64_t a, uint64_t b) {
    return x->a < a || (x->a == a && x->b < b);
}
static void sorted_free(void) { free(sorted); free(sorted_tmp); sorted = sorted_tmp = NULL; sorted_n = 0; }
/* the n successors as stored on disk (w bytes each: the first bytes of (lo, hi - 1)) with their
 * values, merged from their ascending runs; -1: no memory */
static int sorted_build(const uint8_t *succ, int w, const double *val, int64_t n) {
    sorted_free();
    if (n == 0) return 0;
    sorted = advise_huge(malloc((size_t)n * sizeof *sorted), (size_t)n * sizeof *sorted, 0);
    sorted_tmp = advise_huge(malloc((size_t)n * sizeof *sorted), (size_t)n * sizeof *sorted, 0);
    int64_t *runs = malloc((size_t)(n + 1) * sizeof *runs), nruns = 0;
    if (!sorted || !sorted_tmp || !runs) { free(runs); sorted_free(); return -1; }
    for (int64_t i = 0; i < n; i++) {
        uint64_t word[2] = {0, 0};   /* the stored bytes, zero above w: the key's (lo, hi - 1) */
        memcpy(word, succ + (size_t)w * i, (size_t)w);
        sorted[i] = (Sorted){__builtin_bswap64(word[0]), __builtin_bswap64(word[1]), val[i]};
        if (i == 0 || sorted_less(&sorted[i], sorted[i - 1].a, sorted[i - 1].b)) runs[nruns++] = i;
    }
    runs[nruns] = n;
    while (nruns > 1) {   /* bottom-up: merge runs pairwise until one is left */
        int64_t out = 0;
        for (int64_t r = 0; r < nruns; r += 2) {
            int64_t i = runs[r], mid = runs[r + 1], end = r + 2 <= nruns ? runs[r + 2] : n, j = mid, k = i;
            if (r + 1 == nruns) { memcpy(sorted_tmp + i, sorted + i, (size_t)(mid - i) * sizeof *sorted); runs[out++] = i; break; }
            while (i < mid && j < end)
                sorted_tmp[k++] = sorted_less(&sorted[j], sorted[i].a, sorted[i].b) ? sorted[j++] : sorted[i++];
            while (i < mid) sorted_tmp[k++] = sorted[i++];
            while (j < end) sorted_tmp[k++] = sorted[j++];
            runs[out++] = runs[r];
        }
        runs[out] = n; nruns = out;
        Sorted *t = sorted; sorted = sorted_tmp; sorted_tmp = t;
    }
    free(runs); free(sorted_tmp); sorted_tmp = NULL;
    sorted_n = n;
    for (int k = 0; k < FINGERS; k++) {
        finger[k] = n * k / FINGERS;
        finger_a[k] = sorted[finger[k]].a;
    }
    finger_next = 0;
    return 0;
}
/* the successor (lo, hi), searched from the finger whose key's first word is nearest: steps of 1,
 * 2, 4, ... away from it, then a binary search; NULL when absent */
static const Sorted *sorted_find(uint64_t lo, uint64_t hi) {
    if (!sorted_n) return NULL;
    uint64_t a = __builtin_bswap64(lo), b = __builtin_bswap64(hi - 1), near = UINT64_MAX;
    int best = 0;
    for (int k = 0; k < FINGERS; k++) {
        uint64_t d = finger_a[k] > a ? finger_a[k] - a : a - finger_a[k];
        if (d < near) { near = d; best = k; }
    }
    int64_t from = finger[best], lo_i, hi_i, step = 1;
    if (sorted_less(&sorted[from], a, b)) {          /* ahead: sorted[l] stays below the key */
        int64_t l = from;
        while (l + step < sorted_n && sorted_less(&sorted[l + step], a, b)) { l += step; step *= 2; }
        lo_i = l + 1; hi_i = l + step < sorted_n ? l + step : sorted_n;
    } else {                                          /* behind: sorted[h] stays at or above it */
        int64_t h = from;
        while (h - step >= 0 && !sorted_less(&sorted[h - step], a, b)) { h -= step; step *= 2; }
        hi_i = h; lo_i = h - step >= 0 ? h - step + 1 : 0;
    }
    while (lo_i < hi_i) {                             /* the first place at or above the key */
        int64_t mid = lo_i + (hi_i - lo_i) / 2;
        if (sorted_less(&sorted[mid], a, b)) lo_i = mid + 1; else hi_i = mid;
    }
    if (lo_i >= sorted_n || sorted[lo_i].a != a || sorted[lo_i].b != b) return NULL;
    int64_t moved = lo_i > from ? lo_i - from : from - lo_i;
    int k = moved <= FINGER_REACH ? best : (int)(finger_next++ % FINGERS);
    finger[k] = lo_i; finger_a[k] = a;
    return &sorted[lo_i];
}
/* A turn meets the same next state several times: a small direct-mapped cache of the successors
 * met lately (it fits the CPU's L2 cache; the table of every successor does not). Expand lists a
 * quarter fewer keys for Python to sort (13 cards, layer 16: 6.0 a key, not 7.9; 2.4 distinct);
 * evaluate reads a quarter of its values from it instead of searching them. (A table of every successor
 * listed gets expand down to 2.4, but its cache misses cost more than the sorting they save.) */
#define OOC_SEEN 8192
typedef struct { uint64_t lo, hi; Val v; } Seen;
static Seen ooc_seen[OOC_SEEN];
static Val ooc_successor(const St *s, uint64_t lo, uint64_t hi, int rot) {
    Seen *seen = &ooc_seen[mix(lo, hi) & (OOC_SEEN - 1)];
    if (seen->lo == lo && seen->hi == hi) return ooc_mode == 1 ? vzero() : from_stored(seen->v, rot);
    if (ooc_mode == 1) {
        if (ooc_n < ooc_cap) {
            *seen = (Seen){lo, hi, vzero()};
            ooc_out[2 * ooc_n] = lo; ooc_out[2 * ooc_n + 1] = hi;
            ooc_layer[ooc_n++] = (int8_t)layer_of(s);
        } else ooc_error = 1;
        return vzero();
    }
    const Sorted *at = sorted_find(lo, hi);
    if (!at) { ooc_error = 2; return vzero(); }
    Val v = vzero();
    v.v[0] = at->v;
    *seen = (Seen){lo, hi, v};
    return from_stored(v, rot);
}
static void ooc_table_free(void) { free(table); table = NULL; cap = used = 0; }
/* out of core the search's own table stays empty (a turn's successors go to the hook, its value to
 * the caller): a small one, so that no path meets a table that is not there */
static int fresh_table(void) {
    ooc_table_free();
    table = table_calloc(1 << 16);
    if (!table) return -1;
    cap = 1 << 16;
    return 0;
}

/* cfg as loira_solve. keys: n turn-start keys as (lo, hi) pairs, the mover as seat 0.
 * mode 0 (root): out[0..1] = the initial state's key; returns its layer (0).
 * mode 1 (expand): appends the turns' successor keys and layers to out/out_layer, most repeats
 *   dropped (capacity out_cap entries; *out_n written); returns the number of keys fully expanded (fewer than n when out
 *   filled up: call again with the rest).
 * mode 2 (evaluate): succ/succ_val hold n_succ successor keys as stored on disk (ooc_key_bytes
 *   bytes each) with their movers' values (every successor of every key); values[i] = the mover's
 *   optimal value at keys[i]; returns n.
 * Errors: -1 (key too wide), -2 (out of memory), -3 (a successor without a value), -4 (not 2 players). */
int64_t loira_expand(const int *deck, int S, const int *vals, const int *cnts, const int *rolls, int crolls,
                 int first, int mode, const uint64_t *keys, int64_t n, const uint8_t *succ,
                 const double *succ_val, int64_t n_succ, uint64_t *out, int8_t *out_layer,
                 int64_t out_cap, int64_t *out_n, double *values) {
    if (NP != 2) return -4;
    St s;
    if (configure(&s, deck, S, vals, cnts, rolls, crolls)) return -1;
    oom = 0; loira_stop_requested = 0; limit = 0; deadline = 0; ooc_error = 0;
    if (mode == 0) { pack(&s, first, 0, &out[0], &out[1]); *out_n = 1; return 0; }
    if (fresh_table()) return -2;
    if (mode == 2 && sorted_build(succ, (total_bits + 7) / 8, succ_val, n_succ)) { ooc_table_free(); return -2; }
    ooc_out = out; ooc_layer = out_layer; ooc_n = 0; ooc_cap = out_cap;
    memset(ooc_seen, 0, sizeof ooc_seen);   /* hi is never 0: no key matches an empty entry */
    ooc_mode = mode;
    int64_t i = 0;
    for (; i < n; i++) {
        int64_t mark = ooc_n;
        unpack(keys[2 * i], keys[2 * i + 1], &s);
        ooc_root = 1;
        Val v = turn_value(&s);
        if (ooc_error == 1) { ooc_n = mark; break; }   /* this key again in the next call */
        if (ooc_error) break;
        if (mode == 2) values[i] = v.v[0];
    }
    ooc_mode = 0;
    *out_n = ooc_n;
    ooc_table_free();
    sorted_free();
    if (ooc_error == 2) return -3;
    return i;
}

/* ---- L25 reshuffle: cycles ------------------------------------------------------------------------
 * When the deck refills, a turn state can come back (a Descarga flushes the card the other drew, the
 * pile is shuffled back: the round starts over). The search finds the strongly connected components
 * of the turn graph as it goes (Tarjan: a state's stack position is its index, cyc_low its lowlink);
 * a state read again while its component is open gives its value so far (0 at first). When a
 * component closes, its states are recomputed from each other's current values (Gauss-Seidel value
 * iteration, latest found first: successors mostly first) until no value moves by more than
 * CYC_TOLERANCE; everything it reaches outside is final by then, and so is it afterwards.
 * Two players: the turns are not searched again at every sweep: one search per state writes its
 * tape (the exact forms' stack with double coefficients and every decision kept, forms_on 2), whose
 * terms are then resolved once -- a state outside the component to its final value, one inside to
 * its index -- and folded (constants summed, a decision between constants made). A sweep only sums
 * the tapes: the 3.7M-state Merendeira round of stop 19 went from 124.6 s to a few seconds. Three
 * or more players sweep by searching the turns again (their values are vectors; no tapes).
 * oom 8: CYC_MAX_SWEEPS passed without settling. A component of one state that never reads itself
 * is final at once. */
#define CYC_TOLERANCE 1e-14
#define CYC_MAX_SWEEPS 100000
/* a tape op: a state of the component (ref >= 0: its index; c its coefficient), a constant
 * (ref -1: c), or a decision (ref -2 - mover; the la ops of the first alternative follow, then lb) */
typedef struct { int32_t ref, la, lb; double c; } Op;
static Op *tape;
static int64_t tape_n, tape_cap;
/* the tapes' memory bound (24 bytes an op; ~14 ops a state measured): a component whose tapes
 * would pass it is swept by searching its turns again, as before the tapes (slower, no memory) */
static int64_t tape_max_ops = 1 << 25;
static int tape_over;
void loira_tape_limit(double ops) { tape_max_ops = ops > 0 ? (int64_t)ops : 1 << 25; }
static int64_t *tape_at;           /* per state of the component: where its tape starts and ends */
static uint64_t tape_at_cap;

static int tape_push(Op op) {
    if (tape_n >= tape_max_ops) { tape_over = 1; return -1; }
    if (tape_n == tape_cap) {
        int64_t nc = tape_cap ? 2 * tape_cap : 1 << 16;
        Op *nb = realloc(tape, nc * sizeof(Op));
        if (!nb) return -1;
        tape = nb; tape_cap = nc;
    }
    tape[tape_n++] = op;
    return 0;
}
/* the tape of the stack stretch t[0, n) (a state's turn, or one alternative); turn_value wrote a
 * state outside the component as a constant (its final value times the coefficient), one inside as
 * {stack position, hi 1}. Returns the ops written, -1 when out of memory or on a state below root
 * (a bug: the component is not closed) */
static int64_t tape_emit(const Term *t, int64_t n, uint64_t root) {
    int64_t first = tape_n;
    double k = 0;
    for (int64_t i = 0; i < n;) {
        if (t[i].den < 0) {   /* a decision */
            int64_t la = t[i].num, lb = (int64_t)t[i].lo, at = tape_n;
            int mover = (int)(-t[i].den - 1);
            if (tape_push((Op){-2 - mover, 0, 0, 0})) return -1;
            int64_t ea = tape_emit(t + i + 1, la, root);
            int64_t eb = ea < 0 ? -1 : tape_emit(t + i + 1 + la, lb, root);
            if (eb < 0) return -1;
            int ca = ea == 0 || (ea == 1 && tape[at + 1].ref == -1);
            int cb = eb == 0 || (eb == 1 && tape[at + 1 + ea].ref == -1);
            if (ca && cb) {   /* between two constants: decided now */
                double a = ea ? tape[at + 1].c : 0, b = eb ? tape[at + 1 + ea].c : 0;
                k += mover == 0 ? (a > b ? a : b) : (a < b ? a : b);
                tape_n = at;
            } else { tape[at].la = (int32_t)ea; tape[at].lb = (int32_t)eb; }
            i += 1 + la + lb;
            continue;
        }
        if (t[i].hi == 0) k += t[i].c;   /* constants, final states' values among them */
        else {                           /* a state of the component: lo is its stack position */
            if (t[i].lo < root) return -1;
            if (tape_push((Op){(int32_t)(t[i].lo - root), 0, 0, t[i].c})) return -1;
        }
        i++;
    }
    if (k != 0 && tape_push((Op){-1, 0, 0, k})) return -1;
    return tape_n - first;
}
static double tape_eval(const Op *o, int64_t n, const Pending *x) {
    double sum = 0;
    for (int64_t i = 0; i < n;) {
        const Op *p = o + i;
        if (p->ref >= 0) sum += p->c * x[p->ref].v.v[0];
        else if (p->ref == -1) sum += p->c;
        else {
            double a = tape_eval(p + 1, p->la, x), b = tape_eval(p + 1 + p->la, p->lb, x);
            sum += p->ref == -2 ? (a > b ? a : b) : (a < b ? a : b);
            i += 1 + p->la + p->lb;
            continue;
        }
        i++;
    }
    return sum;
}
static void tape_free(void) {
    free(tape); tape = NULL; tape_n = tape_cap = 0;
    free(tape_at); tape_at = NULL; tape_at_cap = 0;
}
static double vdiff(Val a, Val b) {
    double d = 0;
    for (int i = 0; i < NV; i++) { double e = fabs(a.v[i] - b.v[i]); if (e > d) d = e; }
    return d;
}
static Val close_component(uint64_t root) {
    uint64_t n = cyc_n - root;
    if (n > 1 || cyc_stack[root].loop) {
        uint64_t saved_low = cyc_low, saved_cur = cyc_cur;
        int saved_forms = forms_on;
        cyc_cur = UINT64_MAX;
        sweep_mode = 1;
        double delta = 0;
        if (2 * n > tape_at_cap) {
            int64_t *nb = realloc(tape_at, 2 * n * sizeof(int64_t));
            if (nb) { tape_at = nb; tape_at_cap = 2 * n; } else oom = 1;
        }
        /* the tapes, latest found first; the search's values make the first sweep */
        tape_n = 0; tape_over = NP != 2;   /* vectors: no tapes, the sweeps search */
        forms_on = NP == 2 ? 2 : 0;
        for (uint64_t i = cyc_n; i-- > root && !oom && !tape_over;) {
            St st;
            unpack(cyc_stack[i].lo, cyc_stack[i].hi, &st);   /* the mover is seat 0 */
            fs_n = 0; forms_overflow = 0;
            Val w = turn_body(&st);
            tape_at[2 * (i - root)] = tape_n;
            if ((forms_overflow || tape_emit(fs, (int64_t)fs_n, root) < 0) && !tape_over && !oom) oom = 1;
            tape_at[2 * (i - root) + 1] = tape_n;
            double d = vdiff(w, cyc_stack[i].v);
            if (d > delta) delta = d;
            cyc_stack[i].v = w;
            visits++;
        }
        forms_on = saved_forms; fs_n = 0;
        cyc_sweeps++;
        Pending *x = cyc_stack + root;
        if (tape_over) delta = 1;   /* tapes too big (or vectors): the sweeps search the turns again */
        int sf = forms_on;
        forms_on = 0;
        for (int it = 1; it < CYC_MAX_SWEEPS && !oom && delta >= CYC_TOLERANCE; it++) {
            delta = 0;
            for (uint64_t i = n; i-- > 0 && !oom;) {
                Val w;
                if (tape_over) { St st; unpack(x[i].lo, x[i].hi, &st); w = turn_body(&st); }
                else w.v[0] = tape_eval(tape + tape_at[2 * i], tape_at[2 * i + 1] - tape_at[2 * i], x);
                double d = vdiff(w, x[i].v);
                if (d > delta) delta = d;
                x[i].v = w;
            }
            visits += n;
            cyc_sweeps++;
            if (loira_stop_requested && !oom) oom = 5;
            if (deadline > 0 && now_seconds() > deadline && !oom) oom = 4;
        }
        forms_on = sf;
        tape_fallbacks += tape_over && NP == 2;
        if (delta > cyc_residual) cyc_residual = delta;
        if (!oom && delta >= CYC_TOLERANCE) oom = 8;
        cyc_states += (double)n;
        sweep_mode = 0;
        cyc_low = saved_low; cyc_cur = saved_cur;
    }
    for (uint64_t i = root; i < cyc_n; i++) find(cyc_stack[i].lo, cyc_stack[i].hi)->v = cyc_stack[i].v;
    Val v = cyc_stack[root].v;
    cyc_n = root;
    return v;
}
/* after a loira_solve under L25 reshuffle: the sweeps made, the largest change in a component's
 * last sweep, the reads of a state whose component was open (0: no cycle met) and the states swept */
void loira_cyclic_info(double *sweeps, double *residual, double *hits, double *states) {
    *sweeps = cyc_sweeps; *residual = cyc_residual; *hits = (double)cyc_hits; *states = cyc_states;
}
/* the components swept without tapes in the last loira_solve */
double loira_tape_fallbacks(void) { return (double)tape_fallbacks; }

/* ---- a kept table: the value of any turn-start state (the near-optimal policy's exact endgame) ----
 * loira_sub_value solves the round on from the given state (St field order, as loira_turn) with a
 * table of its own, kept between calls while the configuration and the ruling flags stay the same:
 * a game's later decisions are then lookups. The global table of loira_solve is swapped out
 * meanwhile, so the two never mix. A search stopped at its state limit keeps the table: turn_value
 * stores a state only when its search ended below the limit, and once the limit is met (oom 3)
 * every later store is refused (used never falls back below it), so whatever is stored is a
 * completed value -- except under L25 reshuffle, whose states are stored before their search (an
 * open component's values are partial). Any other abnormal end (stop, out of memory), or the limit
 * under reshuffle, drops the kept table: an interrupted search may have stored wrong values there.
 * loira_sub_reset frees it. */
static Slot *sub_table;
static uint64_t sub_cap, sub_used;
static int sub_dense;   /* the kept table was sized at once (reserve): fill it to 3/4 */
#define SUB_KEY (NK + 2 * NS + 2 + NP + R_COUNT)
static int sub_key[SUB_KEY], sub_has;

void loira_sub_reset(void) { free(sub_table); sub_table = NULL; sub_cap = sub_used = 0; sub_has = 0; sub_dense = 0; }

/* returns 0, -1 (key too wide), -2 (out of memory), -3 (max_states new states reached), -5 (stopped);
 * value: the optimal value (NV doubles, as loira_solve); states: turn states kept after the call.
 * reserve: when the kept table is empty, size it at once for that many states (no doubling: the
 * peak stays at the final size) */
int loira_sub_value(const int *deck, int S, const int *vals, const int *cnts, const int *rolls,
                    int crolls, const int *state, double max_states, double reserve, double *value,
                    double *states) {
    int key[SUB_KEY] = {0};
    memcpy(key, deck, NK * sizeof(int));
    for (int v = 0; v < S && v < NS; v++) { key[NK + v] = vals[v]; key[NK + NS + v] = cnts[v]; }
    key[NK + 2 * NS] = S; key[NK + 2 * NS + 1] = crolls;
    memcpy(key + NK + 2 * NS + 2, rolls, NP * sizeof(int));
    memcpy(key + NK + 2 * NS + 2 + NP, RF, sizeof RF);
    if (!sub_has || memcmp(key, sub_key, sizeof key)) {
        loira_sub_reset();
        memcpy(sub_key, key, sizeof key); sub_has = 1;
    }
    if (set_config(deck, S, vals, cnts, rolls, crolls)) return -1;
    if (!sub_cap && reserve > 0) {
        /* sized to hold the reserve below 3/4 full, and filled that far before doubling: a 2.8e8
         * state round fits 2^29 slots (12 GiB) where the usual half-full rule would need 24 GiB */
        uint64_t want = 1 << 16;
        while (3 * want < 4 * (uint64_t)reserve + 4) want *= 2;
        sub_table = table_calloc(want);
        if (!sub_table) return -2;
        sub_cap = want; sub_dense = 1;
    }
    Slot *t0 = table; uint64_t c0 = cap, u0 = used;
    int f0 = forms_on;
    table = sub_table; cap = sub_cap; used = sub_used; forms_on = 0; dense = sub_dense;
    oom = 0; loira_stop_requested = 0; deadline = 0;
    limit = max_states > 0 ? used + (uint64_t)max_states : 0;
    St s; memcpy(&s, state, sizeof s);
    Val v = vzero();
    if (cap || !grow()) v = turn_value(&s); else oom = 1;
    sub_table = table; sub_cap = cap; sub_used = used;
    table = t0; cap = c0; used = u0; forms_on = f0; limit = 0; dense = 0;
    int rc = oom == 3 ? -3 : oom == 5 ? -5 : oom ? -2 : 0;
    oom = 0;
    if (rc && (rc != -3 || RF[R_RESHUFFLE])) loira_sub_reset();
    for (int i = 0; i < NV; i++) value[i] = v.v[i];
    *states = (double)sub_used;
    return rc;
}

#ifdef EVAL
/* The policy evaluation (see "the near-optimal policy's evaluation" above): the value of the round
 * for every seat when seat `seat` follows the policy and the others best-respond (NV doubles, as
 * loira_solve); k, stopped_k: the endgame region; m: the reduced deck. Optimal values known already
 * (the out-of-core solver's layers) may be given: n_known keys (lo, hi pairs of the 2-player engine's
 * layout: the mover as seat 0) with the mover's value, taken as they are. reserve: size the table
 * at once for that many states (filled to 3/4). Returns 0, -1 (key too wide), -2 (out of memory),
 * -3 (max_states reached), -5 (stopped), -9 (known values for more than 2 players). */
int loira_eval(const int *deck, int S, const int *vals, const int *cnts, const int *rolls, int crolls,
               int first, int seat, int k, int stopped_k, int m, const uint64_t *known,
               const double *known_val, int64_t n_known, double max_states, double reserve,
               double *value, double *states) {
    St s;
    if (configure(&s, deck, S, vals, cnts, rolls, crolls)) return -1;
    if (n_known && NP != 2) return -9;
    s.turn = first;
    eval_seat = seat; eval_k = k; eval_stopped_k = stopped_k; eval_m = m; cur_opt = 0;
    ahead_solves = ahead_repeats = ahead_states = ahead_emptied = 0;
    free(table); table = NULL; cap = used = visits = 0; oom = 0; loira_stop_requested = 0;
    limit = (uint64_t)max_states; deadline = 0; dense = reserve > 0;
    uint64_t want = 1 << 16;
    while (3 * want < 4 * (uint64_t)(reserve + n_known) + 4) want *= 2;
    table = table_calloc(want);
    if (!table) { dense = 0; return -2; }
    cap = want;
    for (int64_t i = 0; i < n_known; i++) {   /* the same state's key with the optimum's flag */
        u128 key = ((u128)(known[2 * i + 1] - 1) << 64 | known[2 * i]) | (u128)1 << opt_pos;
        uint64_t lo = (uint64_t)key, hi = (uint64_t)(key >> 64) + 1;
        if (full() && grow()) { dense = 0; return -2; }
        Slot *slot = find(lo, hi);
        if (!slot->hi) used++;
        slot->lo = lo; slot->hi = hi;
        for (int h = 0; h < NVAL; h++) slot->v.v[h] = known_val[i];
    }
    Val v = turn_value(&s);
    for (int i = 0; i < NV; i++) value[i] = v.v[i];
    *states = (double)(used + side_free());
    free(table); table = NULL; cap = 0; dense = 0;
    int rc = oom == 3 ? -3 : oom == 5 ? -5 : oom ? -2 : 0;
    oom = 0;
    return rc;
}
/* the last evaluation's look-ahead work: sub-solves, repeats, states, emptyings (see ahead_count) */
void loira_eval_lookahead(double *out) {
    out[0] = (double)ahead_solves; out[1] = (double)ahead_repeats;
    out[2] = (double)ahead_states; out[3] = (double)ahead_emptied;
}
#endif

/* ---- keys for the out-of-core solver (ooc.py) ---------------------------------------------------
 * On disk a key is its first w bytes (w = ooc_key_bytes: the bytes the configuration's fields can
 * reach), ordered as memcmp orders them, which is the order NumPy gives a "V<w>" array: these
 * routines and np.unique / np.searchsorted agree element for element (tested). They exist for
 * speed: NumPy compares V<w> items through a generic call per comparison (~0.3 us an item to sort). */

/* The bytes a key of this configuration needs: its bits (set_config's total), rounded up; 16 when
 * it needs over 127 bits (refused by loira_expand anyway). ooc.py stores key - (0, 1): pack's hi
 * word is the key's high bits plus one, so the stored bytes above these are zero. */
int ooc_key_bytes(const int *deck, int S, const int *vals, const int *cnts, const int *rolls, int crolls) {
    if (set_config(deck, S, vals, cnts, rolls, crolls)) return 16;
    return (total_bits + 7) / 8;
}

/* Sort n keys of w bytes in place (LSD radix on bytes w-1..0, skipping bytes every key shares) and
 * drop the repeats; returns how many are left, or -2 when out of memory. Compiled once per width
 * (ooc_sort_unique below): a copy of a constant size is a move or two, not a call to memcpy. */
static inline __attribute__((always_inline)) int64_t sort_unique_w(uint8_t *keys, int64_t n, const int w) {
    if (n <= 1) return n;
    uint8_t *tmp = malloc((size_t)n * w);
    int64_t (*hist)[256] = calloc(16, sizeof *hist);
    if (!tmp || !hist) { free(tmp); free(hist); return -2; }
    for (int64_t i = 0; i < n; i++)
        for (int b = 0; b < w; b++) hist[b][keys[i * w + b]]++;
    uint8_t *src = keys, *dst = tmp;
    for (int b = w - 1; b >= 0; b--) {
        if (hist[b][src[b]] == n) continue;          /* every key has this byte: no reordering */
        int64_t at[256], run = 0;
        for (int d = 0; d < 256; d++) { at[d] = run; run += hist[b][d]; }
        for (int64_t i = 0; i < n; i++) memcpy(dst + w * at[src[i * w + b]]++, src + w * i, w);
        uint8_t *t = src; src = dst; dst = t;
    }
    if (src != keys) memcpy(keys, src, (size_t)n * w);
    int64_t m = 1;
    for (int64_t i = 1; i < n; i++)
        if (memcmp(keys + w * i, keys + w * (m - 1), w) != 0) {
            if (m != i) memcpy(keys + w * m, keys + w * i, w);
            m++;
        }
    free(tmp); free(hist);
    return m;
}
int64_t ooc_sort_unique(uint8_t *keys, int64_t n, int w) {
    switch (w) {
#define WIDTH(W) case W: return sort_unique_w(keys, n, W);
    WIDTH(1) WIDTH(2) WIDTH(3) WIDTH(4) WIDTH(5) WIDTH(6) WIDTH(7) WIDTH(8)
    WIDTH(9) WIDTH(10) WIDTH(11) WIDTH(12) WIDTH(13) WIDTH(14) WIDTH(15) WIDTH(16)
#undef WIDTH
    }
    return -1;
}

/* The position of each asked key (w bytes) in the sorted unique keys (while the asked keys rise, a
 * galloping search from the previous answer: steps of 1, 2, 4, ... then a binary search, so a
 * request asking for a good share of the partition costs about one pass over it); -3 if a key is
 * absent. */
int64_t ooc_positions(const uint8_t *keys, int64_t n, const uint8_t *asked, int64_t m, uint32_t *out, int w) {
    int64_t from = 0;
    for (int64_t i = 0; i < m; i++) {
        const uint8_t *k = asked + w * i;
        if (i && memcmp(k, asked + w * (i - 1), w) < 0) from = 0;
        int64_t lo = from, hi = n, step = 1;         /* first index whose key is >= k */
        while (lo + step < n && memcmp(keys + w * (lo + step), k, w) < 0) { lo += step; step *= 2; }
        if (lo + step < n) hi = lo + step + 1;
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (memcmp(keys + w * mid, k, w) < 0) lo = mid + 1; else hi = mid;
        }
        if (lo >= n || memcmp(keys + w * lo, k, w) != 0) return -3;
        out[i] = (uint32_t)lo;
        from = lo;
    }
    return 0;
}

/* Expand's successors routed to the requests they become (ooc.py's forward task), in one pass and
 * no temporaries: successor i (pack's key (lo, hi), its layer) goes to group
 * g = (layer - from - 1) * P + partition, its partition ooc.partition_of's hash of (lo, hi) (the
 * same arithmetic), and is stored as on disk: its first w bytes of (lo, hi - 1). The groups lie one
 * after another in out (n * w bytes), each in the successors' order; counts[g] (2P of them) says how
 * many each holds. Returns 0; -1 when a successor is not one or two layers on, -2 when a key needs
 * more than w bytes (a bug: never a collision). */
int64_t ooc_route(const uint64_t *keys, const int8_t *layer, int64_t n, int from, int P, int w,
                  uint8_t *out, int64_t *counts) {
    int64_t *at = calloc(2 * (size_t)P + 1, sizeof *at);
    uint32_t *group = malloc((size_t)(n ? n : 1) * sizeof *group);
    if (!at || !group) { free(at); free(group); return -3; }
    int64_t rc = 0;
    for (int64_t i = 0; i < n && !rc; i++) {
        int step = layer[i] - from;
        uint64_t lo = keys[2 * i], hi = keys[2 * i + 1];
        uint64_t h = lo * 0x9E3779B97F4A7C15ULL ^ hi * 0xC2B2AE3D27D4EB4FULL;
        h ^= h >> 29;
        uint64_t high = hi - 1;   /* the stored bytes above w must be zero */
        int wide = w >= 16 ? 0 : w > 8 ? (high >> (8 * (w - 8))) != 0 : (w < 8 && lo >> (8 * w)) || high;
        if (step < 1 || step > 2) rc = -1;
        else if (wide) rc = -2;
        else { group[i] = (uint32_t)((step - 1) * P + (int)(h % (uint64_t)P)); at[group[i] + 1]++; }
    }
    if (!rc) {
        for (int g = 0; g < 2 * P; g++) { counts[g] = at[g + 1]; at[g + 1] += at[g]; }
        for (int64_t i = 0; i < n; i++) {
            uint64_t word[2] = {keys[2 * i], keys[2 * i + 1] - 1};
            memcpy(out + (size_t)w * at[group[i]]++, word, (size_t)w);   /* little-endian: the key's first bytes */
        }
    }
    free(at); free(group);
    return rc;
}
