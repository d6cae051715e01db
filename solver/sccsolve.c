/* The float solve of solver/solve.py in one pass over the graph: strongly connected components by
 * Tarjan's algorithm (iterative), each solved as soon as it is found -- Tarjan finds a component
 * only after every component it has an edge to, so its successors' values are final by then.
 *
 * A component of one state without a self-loop is one Bellman backup. A cyclic component is solved
 * by Gauss-Seidel value iteration with its states in the order the depth-first search finished
 * them (a state after the states it leads to, but for the edges that close cycles), so one sweep
 * carries values back along whole chains of moves. When two sweeps in a row change the values
 * nearly proportionally (d_k ~ r d_k-1, |r| < 1, no decision switched), the error is one geometric
 * mode and its remaining sum r / (1 - r) d_k is added at once. Once a sweep changes no value by
 * more than `tol` (and after at most POLISH more sweeps towards tol / 1000, which bring the values
 * as near the fixed point as a linear solve would), one Jacobi backup of the whole component (every
 * state from the values before it) sets the values and the choices; its largest change is the
 * component's Bellman residual and must be within `tol` too. The component is then accepted only
 * if every state of it can leave it under the chosen actions (a policy that loops forever has no
 * well-defined value, and solve.py's policy iteration steers around such loops); otherwise, or
 * when it has not settled within `max_sweeps` sweeps, it is handed back to the caller (status 2),
 * which solves it by policy iteration and calls again. A component too large for `max_sweeps`
 * sweeps within one call's `budget` is handed back unswept (st[13] = 1): the caller sweeps it with
 * scc_sweep, about `budget` backups a call (so no call runs long between its checks), and gives it
 * to policy iteration only when that fails, or when the changes of the last sweeps shrink too
 * slowly to reach `tol` within `max_sweeps` (a linear solve is then cheaper).
 *
 * The tie rule is solve.py's: the first action whose value for the mover is within `tie` of the
 * maximum. Kinds: a seat (>= 0), CHANCE (-1) or TERMINAL (-2; values preset by the caller).
 *
 * The work is resumable: every piece of the search lives in the caller's arrays (`st` holds the
 * counters), and a call returns 1 after about `budget` edge visits, so the caller can report
 * progress and honour signals between calls.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define CHANCE (-1)
#define TERMINAL (-2)
#define POLISH 20   /* sweeps past tol towards tol / 1000 at most */

typedef struct {
    int64_t seats;
    const int8_t *kind;
    const int64_t *off;
    const int64_t *child;
    const int64_t *pcode;     /* per edge: 0 for a decision, else 1 + index into ptable */
    const double *ptable;     /* ptable[0] is unused */
    const int8_t *perm;       /* per edge: seat-permutation index, or NULL (every edge keeps seats) */
    const int8_t *ptab;       /* permutation p, parent seat s -> the child's seat: ptab[p * seats + s] */
    const int64_t *mark;      /* per state: -1 - its component, once found (see scc_solve) */
    double *val;              /* states * seats */
    int64_t *choice;          /* per state: the chosen edge of a decision, else -1 */
    double tol, tie;
    int64_t max_sweeps, budget;
    int64_t sweeps, jumps, backups;    /* counted for the caller's profile */
} Graph;

static inline int64_t col(const Graph *g, int64_t e, int64_t s) {
    return g->perm ? g->ptab[g->perm[e] * g->seats + s] : s;
}

/* The Bellman backup of state v from the current values, into out[seats]; returns the chosen edge
 * of a decision, else -1. A state without moves (the explorer reports it) keeps its values. */
static int64_t backup(const Graph *g, int64_t v, double *out) {
    const int64_t seats = g->seats, a = g->off[v], b = g->off[v + 1];
    const int8_t k = g->kind[v];
    if (a == b) {
        for (int64_t s = 0; s < seats; s++)
            out[s] = g->val[v * seats + s];
        return -1;
    }
    if (k == CHANCE) {
        for (int64_t s = 0; s < seats; s++)
            out[s] = 0.0;
        for (int64_t e = a; e < b; e++) {
            const double p = g->ptable[g->pcode[e]];
            const double *row = g->val + g->child[e] * seats;
            for (int64_t s = 0; s < seats; s++)
                out[s] += p * row[col(g, e, s)];
        }
        return -1;
    }
    double best = -INFINITY;
    for (int64_t e = a; e < b; e++) {
        const double q = g->val[g->child[e] * seats + col(g, e, k)];
        if (q > best)
            best = q;
    }
    int64_t chosen = a;
    while (g->val[g->child[chosen] * seats + col(g, chosen, k)] < best - g->tie)
        chosen++;
    const double *row = g->val + g->child[chosen] * seats;
    for (int64_t s = 0; s < seats; s++)
        out[s] = row[col(g, chosen, s)];
    return chosen;
}

/* Whether every state of the component `nodes[0..m)` (number `id`; `local[v]` is v's position in
 * it) can leave it under the chosen actions: a decision through its choice, a chance state through
 * any outcome. A state is marked once its move, or one of its outcomes, leaves the component or
 * reaches a marked state; sweeps in finishing order mark whole chains at once, and a sweep that
 * marks nothing new ends the search (so at most m + 1 sweeps). */
static int every_state_leaves(const Graph *g, const int64_t *nodes, int64_t m, int64_t id,
                              const int64_t *local, uint8_t *leaves) {
    for (int64_t i = 0; i < m; i++)
        leaves[i] = 0;
    int64_t marked = 0, before = -1;
    while (marked != before) {
        before = marked;
        for (int64_t i = 0; i < m; i++) {
            if (leaves[i])
                continue;
            const int64_t v = nodes[i];
            int64_t a = g->off[v], b = g->off[v + 1];
            if (g->kind[v] >= 0 && g->choice[v] >= 0) {
                a = g->choice[v];
                b = a + 1;
            }
            for (int64_t e = a; e < b; e++) {
                const int64_t w = g->child[e];
                if (g->mark[w] != -1 - id || leaves[local[w]]) {
                    leaves[i] = 1;
                    marked++;
                    break;
                }
            }
        }
    }
    return marked == m;
}

/* What the solve of one cyclic component keeps between sweeps, in memory the caller owns, so that a
 * large component's sweeps can run over several calls (see scc_sweep): the scratch rows (`out`, and
 * the last two sweeps' changes, which of the two buffers holds the last one in `cs[3]`), the last
 * HISTORY sweeps' largest changes, and in `cs`: [0] sweeps done, [1] whether the last change is
 * kept, [2] polishing sweeps done, [3] the buffer of the last change. */
#define HISTORY 10

static size_t scratch_doubles(int64_t m, int64_t seats) {
    return (size_t)(3 * m * seats + HISTORY);
}

/* Sweep the cyclic component `nodes[0..m)` (in finishing order) for at most `limit` state backups
 * (at least one sweep) and `cap` sweeps in all. 0 when settled (the residual is raised to the
 * component's), 1 when handed back (not settled within `cap`, a policy that cannot leave; or, with
 * `predict`, when the changes of the last HISTORY sweeps shrink too slowly to reach `tol` within
 * `cap`), 3 when `limit` ran out first (call again with the same scratch). */
static int sweep_cyclic(Graph *g, const int64_t *nodes, int64_t m, int64_t id, const int64_t *local,
                        double *residual, double *scratch, uint8_t *leaves, int64_t *cs, int64_t cap,
                        int64_t limit, int predict) {
    const int64_t seats = g->seats;
    double *out = scratch, *history = scratch + 3 * m * seats;
    double *last = scratch + (cs[3] ? 2 : 1) * m * seats, *delta = scratch + (cs[3] ? 1 : 2) * m * seats;
    const double tight = g->tol * 1e-3;
    for (int64_t done = 0; cs[0] < cap; done += m) {
        if (done > 0 && done + m > limit)
            return 3;
        const int64_t sweep = cs[0]++;
        g->sweeps++;
        g->backups += m;
        double change = 0.0;
        int64_t switched = 0;
        for (int64_t i = 0; i < m; i++) {
            const int64_t v = nodes[i];
            const int64_t chosen = backup(g, v, out);
            if (chosen != g->choice[v]) {
                g->choice[v] = chosen;
                switched++;
            }
            double *row = g->val + v * seats;
            for (int64_t s = 0; s < seats; s++) {
                const double d = out[s] - row[s];
                if (fabs(d) > change)
                    change = fabs(d);
                delta[i * seats + s] = d;
                row[s] = out[s];
            }
        }
        if (predict && sweep >= 2 * HISTORY && change > g->tol) {
            /* the changes' mean ratio over the last HISTORY sweeps, extrapolated to tol */
            const double before = history[sweep % HISTORY];
            const double r = before > 0.0 ? pow(change / before, 1.0 / HISTORY) : 1.0;
            if (r >= 1.0 || (double)sweep + log(g->tol / change) / log(r) > (double)cap)
                return 1;
        }
        history[sweep % HISTORY] = change;
        if (change > tight && !switched && cs[1]) {
            /* the geometric mode: r fitted by least squares, accepted when it explains every
             * change to 1% of the largest */
            double dot = 0.0, norm = 0.0, off_mode = 0.0;
            for (int64_t i = 0; i < m * seats; i++) {
                dot += delta[i] * last[i];
                norm += last[i] * last[i];
            }
            const double r = norm > 0.0 ? dot / norm : 0.0;
            for (int64_t i = 0; i < m * seats; i++) {
                const double d = fabs(delta[i] - r * last[i]);
                if (d > off_mode)
                    off_mode = d;
            }
            if (fabs(r) < 0.999 && off_mode <= 0.01 * change) {
                const double jump = r / (1.0 - r);
                for (int64_t i = 0; i < m; i++)
                    for (int64_t s = 0; s < seats; s++)
                        g->val[nodes[i] * seats + s] += jump * delta[i * seats + s];
                g->jumps++;
                cs[1] = 0;
                continue;
            }
        }
        double *t = last;
        last = delta;
        delta = t;
        cs[3] = !cs[3];
        cs[1] = 1;
        /* within tol, a few more sweeps take the values nearer the fixed point than tol (as near
         * as a linear solve would come, where the jumps make them cheap) */
        if (change > g->tol || (change > tight && cs[2]++ < POLISH))
            continue;
        /* one Jacobi backup of the whole component: its largest change is the residual */
        double jacobi = 0.0;
        for (int64_t i = 0; i < m; i++)
            g->choice[nodes[i]] = backup(g, nodes[i], out + i * seats);
        for (int64_t i = 0; i < m; i++) {
            double *row = g->val + nodes[i] * seats;
            for (int64_t s = 0; s < seats; s++) {
                const double d = fabs(out[i * seats + s] - row[s]);
                if (d > jacobi)
                    jacobi = d;
                row[s] = out[i * seats + s];
            }
        }
        if (jacobi > g->tol)
            continue;
        if (every_state_leaves(g, nodes, m, id, local, leaves)) {
            if (jacobi > *residual)
                *residual = jacobi;
            return 0;
        }
        return 1;
    }
    return 1;
}

/* A component small enough to sweep `max_sweeps` times within one call's budget, solved at once;
 * 0 when settled, 1 when handed back. */
static int solve_cyclic(Graph *g, const int64_t *nodes, int64_t m, int64_t id, const int64_t *local,
                        double *residual) {
    double *scratch = malloc(sizeof(double) * scratch_doubles(m, g->seats) + (size_t)m);
    if (!scratch)
        return 1;
    int64_t cs[4] = {0, 0, 0, 0};
    const int status = sweep_cyclic(g, nodes, m, id, local, residual, scratch,
                                    (uint8_t *)(scratch + scratch_doubles(m, g->seats)), cs,
                                    g->max_sweeps, INT64_MAX, 0);
    free(scratch);
    return status;
}

/* st (kept between calls): [0] next root to try, [1] depth of the search, [2] size of Tarjan's
 * stack, [3] states numbered, [4] components found, [5] states on cycles, [6] size of the finishing
 * stack, [7] states solved, [8] sweeps, [9] geometric jumps, [12] states backed up in sweeps; out, on
 * status 2: [10] where the component handed back starts on the finishing stack `post`, [11] its size,
 * [13] 1 when it is handed back unswept because it is large (the caller sweeps it with scc_sweep
 * and solves it by policy iteration only if that fails), 0 when its sweeps failed.
 * mark: 0 = not reached, then the order of discovery (from 1) while on Tarjan's stack, then
 * -1 - its component (numbered in the order found): one array, so the search reads one word per
 * edge; low: Tarjan's low link, then the state's position in its component.
 * Returns 0 when every state is solved, 1 when the budget ran out, 2 when a component is handed
 * back (post[st[10] .. st[10] + st[11]), numbered and counted already; the caller solves it before
 * calling again). */
int scc_solve(int64_t n, int64_t seats, const int8_t *kind, const int64_t *off, const int64_t *child,
              const int64_t *pcode, const double *ptable, const int8_t *perm, const int8_t *ptab,
              double *val, int64_t *choice, double tol, double tie, int64_t max_sweeps,
              int64_t *mark, int64_t *low, uint8_t *cyclic, int64_t *stk, int64_t *post,
              int64_t *cs_node, int64_t *cs_edge, int64_t *st, double *residual, int64_t budget) {
    Graph g = {seats, kind, off, child, pcode, ptable, perm, ptab, mark, val, choice, tol, tie,
               max_sweeps, budget, st[8], st[9], st[12]};
    int64_t root = st[0], sp = st[1], top = st[2], counter = st[3], ncomp = st[4], on_cycles = st[5];
    int64_t ptop = st[6], solved = st[7];
    int status = 0;
    for (;;) {
        if (sp == 0) {
            while (root < n && mark[root] != 0)
                root++;
            if (root == n)
                break;
            mark[root] = low[root] = ++counter;
            stk[top++] = root;
            cs_node[0] = root;
            cs_edge[0] = off[root];
            sp = 1;
        }
        const int64_t v = cs_node[sp - 1];
        const int64_t e = cs_edge[sp - 1];
        if (e < off[v + 1]) {
            cs_edge[sp - 1] = e + 1;
            const int64_t w = child[e];
            const int64_t mw = mark[w];
            if (mw == 0) {
                mark[w] = low[w] = ++counter;
                stk[top++] = w;
                cs_node[sp] = w;
                cs_edge[sp] = off[w];
                sp++;
            } else if (mw > 0 && mw < low[v]) {   /* on Tarjan's stack */
                low[v] = mw;
            }
            if (--budget <= 0) {
                status = 1;
                break;
            }
            continue;
        }
        sp--;
        post[ptop++] = v;
        if (sp > 0 && low[v] < low[cs_node[sp - 1]])
            low[cs_node[sp - 1]] = low[v];
        if (low[v] != mark[v])
            continue;
        /* v roots a component: the states above it on Tarjan's stack, which are also the last
         * ones on the finishing stack */
        int64_t start = top - 1;
        while (stk[start] != v)
            start--;
        const int64_t m = top - start;
        top = start;
        ptop -= m;
        const int64_t *nodes = post + ptop;
        int is_cyclic = m > 1;
        for (int64_t f = off[v]; !is_cyclic && f < off[v + 1]; f++)
            is_cyclic = child[f] == v;
        for (int64_t i = 0; i < m; i++) {
            mark[nodes[i]] = -1 - ncomp;
            cyclic[nodes[i]] = (uint8_t)is_cyclic;
            low[nodes[i]] = i;
        }
        solved += m;
        if (!is_cyclic) {
            if (kind[v] != TERMINAL) {
                double out[seats];
                choice[v] = backup(&g, v, out);
                for (int64_t s = 0; s < seats; s++)
                    val[v * seats + s] = out[s];
            }
        } else {
            on_cycles += m;
            /* a component too large to sweep max_sweeps times within one call's budget is handed
             * back to be swept over several calls (scc_sweep), st[13] = 1 */
            const int large = m > g.budget / (g.max_sweeps > 0 ? g.max_sweeps : 1);
            if (large || solve_cyclic(&g, nodes, m, ncomp, low, residual)) {
                st[10] = ptop;
                st[11] = m;
                st[13] = large;
                status = 2;
            }
        }
        ncomp++;
        if (status)
            break;
    }
    st[0] = root;
    st[1] = sp;
    st[2] = top;
    st[3] = counter;
    st[4] = ncomp;
    st[5] = on_cycles;
    st[6] = ptop;
    st[7] = solved;
    st[8] = g.sweeps;
    st[9] = g.jumps;
    st[12] = g.backups;
    return status;
}

/* Sweep the large component scc_solve handed back (st[10], st[11]; its number is st[4] - 1) for
 * about `budget` state backups: 0 when settled, 1 when it must be solved otherwise (policy
 * iteration), 3 when the budget ran out (call again with the same `scratch` (scc_scratch_doubles
 * doubles), `leaves` (st[11] bytes) and `cs` (4 zeros at the first call)). Sweeps are counted in st
 * as scc_solve counts them. */
int scc_sweep(int64_t seats, const int8_t *kind, const int64_t *off, const int64_t *child,
              const int64_t *pcode, const double *ptable, const int8_t *perm, const int8_t *ptab,
              double *val, int64_t *choice, double tol, double tie, int64_t max_sweeps,
              const int64_t *mark, const int64_t *low, const int64_t *post, int64_t *st,
              double *residual, double *scratch, uint8_t *leaves, int64_t *cs, int64_t budget) {
    Graph g = {seats, kind, off, child, pcode, ptable, perm, ptab, mark, val, choice, tol, tie,
               max_sweeps, budget, st[8], st[9], st[12]};
    const int status = sweep_cyclic(&g, post + st[10], st[11], st[4] - 1, low, residual, scratch,
                                    leaves, cs, max_sweeps, budget, 1);
    st[8] = g.sweeps;
    st[9] = g.jumps;
    st[12] = g.backups;
    return status;
}

int64_t scc_scratch_doubles(int64_t m, int64_t seats) {
    return (int64_t)scratch_doubles(m, seats);
}
