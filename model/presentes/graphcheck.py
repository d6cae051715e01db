"""Graph checks on the full protocol state graph of a small configuration.

One breadth-first exploration (shortest witnesses) gives:

* **termination under every policy**: the greatest set of non-terminal states in which chance
  never leaves the set and some decision stays in it is empty; an end component avoiding the
  reveal would survive this fixpoint, so its emptiness means the game ends with probability 1
  whatever the players choose (and from every reachable state an end is reachable);
* **shield safety on every transition**: a player on a shield square, other than the one whose
  turn it is, never loses their gift or their place through an effect or a choice;
* **bad-luck squares always draw an effect** (Volte without a gift, De volta à árvore with one);
* **luck squares with no eligible effect** (P23): every reachable situation where a ★ draws from
  an empty list, with the shortest play reaching one; under P23 'redraw' such a draw comes back
  to itself forever, so reaching one fails termination (the game hangs there).
"""
from __future__ import annotations

import time
from collections import deque

from ruleproof.model.protocol import CHANCE, TERMINAL
from ruleproof.model.limits import NO_LIMITS, Limits
from ruleproof.model.results import FAILS, HOLDS, UNKNOWN, PropertyResult

from .board import Square
from .rules import Effect, Phase, St


def relabel_gifts(s: St) -> St:
    """The same situation with the gifts renamed canonically (holders in seat order, then the tree).

    No rule looks at which gift is which (only utilities do), so renaming gifts is a symmetry of
    the game graph; quotienting by it keeps end components, shield breaches and P23 situations.
    """
    label: dict[int, int] = {}
    for g in s.gift:
        if g >= 0 and g not in label:
            label[g] = len(label)
    rest = [g for g in range(s.tree.bit_length()) if s.tree >> g & 1]
    for g in rest:
        label[g] = len(label)
    tree = 0
    for g in rest:
        tree |= 1 << label[g]
    return s._replace(gift=tuple(label[g] if g >= 0 else -1 for g in s.gift), tree=tree)


class Graph:
    def __init__(self, game, max_states: int = 3_000_000, symmetric: bool = False,
                 limits: Limits = NO_LIMITS):
        """Breadth-first from the start; stops (``complete`` False, ``stop_reason``) beyond
        ``max_states`` states or at the deadline of ``limits``."""
        self.game = game
        self.limits = limits
        r = game.rules
        canon = relabel_gifts if symmetric else (lambda x: x)
        start = canon(game.initial_state())
        self.states: list[St] = [start]
        index = {start: 0}
        self.kind: list[int] = []
        self.succ: list[list[int]] = []
        self.parent: list[tuple[int, object]] = [(-1, None)]
        self.no_effect: list[int] = []
        self.bad_no_effect: list[int] = []
        self.shield_breach: tuple[int, object, str] | None = None
        self.complete = True
        self.stop_reason = ""
        i = 0
        while i < len(self.states):
            if i & 1023 == 0 and limits.expired():
                self.complete = False
                self.stop_reason = f"time limit reached after {len(self.states)} states"
                break
            if i & 16383 == 0:
                limits.report(None, i, len(self.states))   # states expanded, of those found
            s = self.states[i]
            cp = game.current_player(s)
            self.kind.append(cp)
            if cp == TERMINAL:
                self.succ.append([])
                i += 1
                continue
            acts = [a for a, _ in game.chance_outcomes(s)] if cp == CHANCE else game.legal_actions(s)
            kids = []
            for a in acts:
                t = game.apply(s, a)
                if self.shield_breach is None:
                    why = _shield_breach(r, s, t)
                    if why:
                        self.shield_breach = (i, a, why)
                t = canon(t)
                j = index.get(t)
                if j is None:
                    j = index[t] = len(self.states)
                    self.states.append(t)
                    self.parent.append((i, a))
                kids.append(j)
            if s.phase == Phase.LUCK and acts and acts[0][0] == Effect.NOTHING:
                self.no_effect.append(i)
            if s.phase == Phase.BAD and acts and acts[0][0] == Effect.NOTHING:
                self.bad_no_effect.append(i)
            self.succ.append(kids)
            i += 1
            if len(self.states) > max_states:
                self.complete = False
                self.stop_reason = f"state limit {max_states} reached"
                break

    def trace(self, node: int, note: str = "") -> list[str]:
        g = self.game
        path = []
        while node > 0:
            p, a = self.parent[node]
            path.append((p, a, node))
            node = p
        lines = [f"start: {g.describe_state(self.states[0])}"]
        for step, (p, a, c) in enumerate(reversed(path), 1):
            who = g.seat_name(self.kind[p])
            lines.append(f"{step}. {who}: {g.describe_action(self.states[p], a)} -> "
                         f"{g.describe_state(self.states[c])}")
        if note:
            lines.append(note)
        return lines

    def lasso(self, node: int, keep: set[int]) -> tuple[list[str], bool]:
        """The shortest play to ``node``, then a cycle through states of ``keep`` (a set chance
        cannot leave and some choice stays in) that play can repeat forever; and whether that
        cycle redraws an empty luck draw (P23 'redraw')."""
        g, lines, redraw = self.game, self.trace(node), False
        seen: dict[int, int] = {}
        steps: list[tuple[int, object, int]] = []
        u = node
        while u not in seen:
            seen[u] = len(steps)
            s = self.states[u]
            cp = self.kind[u]
            acts = [a for a, _ in g.chance_outcomes(s)] if cp == CHANCE else list(g.legal_actions(s))
            k = next(k for k, v in enumerate(self.succ[u]) if v in keep)
            steps.append((u, acts[k], self.succ[u][k]))
            u = self.succ[u][k]
        lines.append("then forever:" if seen[u] == 0 else "then:")
        for i, (a, act, b) in enumerate(steps):
            if i == seen[u] and i:
                lines.append("then forever:")
            s = self.states[a]
            redraw |= s.phase == Phase.LUCK and act == (Effect.NOTHING, 1)
            lines.append(f"  {g.seat_name(self.kind[a])}: {g.describe_action(s, act)} -> "
                         f"{g.describe_state(self.states[b])}")
        if redraw:
            lines.append("no eligible effect: redrawn forever (P23 'redraw')")
        return lines, redraw

    def trapped(self) -> list[int] | None:
        """The greatest set of non-terminal states an adversary can keep play in forever
        (None if the deadline of the graph's limits comes first)."""
        limits = self.limits
        n = len(self.succ)
        pred: list[list[int]] = [[] for _ in range(n)]
        for u, kids in enumerate(self.succ):
            for v in kids:
                pred[v].append(u)
        alive = [self.kind[u] != TERMINAL for u in range(n)]
        count = [len(set(kids)) for kids in self.succ]
        queue = deque(u for u in range(n) if not alive[u])
        popped = 0
        while queue:
            popped += 1
            if popped & 4095 == 0 and limits.expired():
                return None
            v = queue.popleft()
            for u in set(pred[v]):
                if not alive[u]:
                    continue
                if self.kind[u] == CHANCE:
                    alive[u] = False
                    queue.append(u)
                else:
                    count[u] -= 1
                    if count[u] == 0:
                        alive[u] = False
                        queue.append(u)
        return [u for u in range(n) if alive[u]]


def _shield_breach(r, s: St, t: St) -> str:
    if t.phase in (Phase.OVER, Phase.TREE_LAST):
        return ""  # the reveal moves the last player to the finish, not an effect
    fin = r.finish
    for j in range(r.players):
        if j == s.turn or s.pos[j] >= fin or r.squares[s.pos[j]] != Square.SHIELD:
            continue
        if t.pos[j] == r.out:
            continue  # the host removed them (P28): the shield protects from players, not the host
        if t.pos[j] != s.pos[j]:
            return f"shielded P{j} moved from {s.pos[j]} to {t.pos[j]}"
        if s.gift[j] >= 0 and t.gift[j] != s.gift[j]:
            return f"shielded P{j} lost gift g{s.gift[j]}"
    return ""


def graph_checks(game, label: str, max_states: int = 3_000_000, symmetric: bool = False,
                 limits: Limits = NO_LIMITS) -> list[PropertyResult]:
    """The properties above; ``limits`` can stop the exploration or the fixpoint (unknown)."""
    t0 = time.perf_counter()
    g = Graph(game, max_states, symmetric, limits)
    build = time.perf_counter() - t0
    n = len(g.states)
    scope = f"{label}: {n} states" + (" (up to renaming gifts)" if symmetric else "")
    out = []
    if not g.complete:
        return _partial(g, label, build)
    trapped = g.trapped()
    if trapped is None:
        g.stop_reason = f"{scope}: time limit reached while looking for end components"
        return _partial(g, label, time.perf_counter() - t0)
    if trapped:
        lasso, redraw = g.lasso(min(trapped), set(trapped))  # BFS order: the shallowest trapped state
        why = ("P23 'redraw' redraws a ★ with no eligible effect forever and play reaches one: the "
               "game hangs there" if redraw else "the players can keep the game going forever")
        out.append(PropertyResult(
            f"termination-every-policy [{label}]", FAILS,
            f"{scope}: {len(trapped)} reachable states lie in an end component that avoids the reveal "
            f"({why}); the shortest play into it and a cycle it can repeat forever",
            lasso, "graph", time.perf_counter() - t0, {"trapped_states": len(trapped)}))
    else:
        out.append(PropertyResult(
            f"termination-every-policy [{label}]", HOLDS,
            f"{scope}: no end component avoids the reveal, so the game ends with probability 1 "
            "under every policy (and an end is reachable from every reachable state)",
            kind="graph", seconds=time.perf_counter() - t0, data={"states": n}))
    if g.shield_breach is not None:
        out.append(_breach(g, label))
    else:
        out.append(PropertyResult(f"shield-safety-transitions [{label}]", HOLDS,
                                  f"{scope}: no transition takes the gift or the place of a shielded "
                                  "player other than the mover", kind="exhaustive"))
    if g.no_effect:
        node = g.no_effect[0]
        out.append(PropertyResult(
            f"luck-square-without-effect [{label}]", FAILS if game.rules.redraw else HOLDS,
            f"{scope}: a ★ with no eligible effect occurs in {len(g.no_effect)} states, always with "
            "the mover holding a gift and every other player on the track shielded"
            + (" (one of them ahead, P07 'own-leader')" if game.rules.own_leader else "")
            + ("; P23 'redraw': the game hangs there" if game.rules.redraw else "; P23: nothing happens"),
            g.trace(node, "no eligible effect") if game.rules.redraw else None, kind="exhaustive",
            data={"states": len(g.no_effect), "shortest_witness": g.trace(node, "no eligible effect")}))
    else:
        out.append(PropertyResult(f"luck-square-without-effect [{label}]", HOLDS,
                                  f"{scope}: never reachable", kind="exhaustive"))
    if g.bad_no_effect:
        out.append(PropertyResult(f"bad-luck-always-has-effect [{label}]", FAILS,
                                  "a ☠ square with no eligible effect", g.trace(g.bad_no_effect[0]),
                                  "exhaustive"))
    else:
        out.append(PropertyResult(f"bad-luck-always-has-effect [{label}]", HOLDS,
                                  f"{scope}: every ☠ reached draws an effect (Volte 3 casas without a "
                                  "gift, De volta à árvore with one)", kind="exhaustive"))
    bad = [u for u in g.no_effect if not _all_others_shielded(game.rules, g.states[u])]
    if bad:
        out.append(PropertyResult(f"luck-square-without-effect-characterised [{label}]", FAILS,
                                  "a ★ without eligible effect outside the proved situation",
                                  g.trace(bad[0]), "exhaustive"))
    return out


def _partial(g: Graph, label: str, seconds: float) -> list[PropertyResult]:
    """An incomplete graph decides nothing but a breach it already met (a real counterexample)."""
    out = [PropertyResult(f"termination-every-policy [{label}]", UNKNOWN, g.stop_reason, kind="graph",
                          seconds=seconds)]
    if g.shield_breach is not None:
        out.append(_breach(g, label))
    return out


def _breach(g: Graph, label: str) -> PropertyResult:
    node, a, why = g.shield_breach
    return PropertyResult(f"shield-safety-transitions [{label}]", FAILS, why,
                          g.trace(node, f"then {g.game.describe_action(g.states[node], a)}: {why}"),
                          "exhaustive")


def _all_others_shielded(r, s: St) -> bool:
    """The proved situation (z3-luck-without-effect-exactly), with P07 'own-leader' if chosen."""
    fin = r.finish
    others = [j for j in range(r.players) if j != s.turn and s.pos[j] < fin]
    if r.own_leader and not any(s.pos[j] > s.pos[s.turn] for j in others):
        return False
    return s.gift[s.turn] >= 0 and all(r.squares[s.pos[j]] == Square.SHIELD for j in others)
