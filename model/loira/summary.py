"""Loira's printable stop rule: go ("vai ao banheiro") or stop ("não pega mais cartas"), by what a
player sees, weighted by how often optimal play meets each situation."""
from __future__ import annotations

from collections import defaultdict

import numpy as np

from ruleproof.solver.tables import PolicySummary

from .scoring import score
from .cards import TOKENS
from .state import GO, GRITOS, PH, STOP_ACT, TURN, Phase

GO_WORDS = "go: 'vai ao banheiro' (draw the top card)"
STOP_WORDS = "stop: 'não pega mais cartas até o final da rodada'"


def turn_choices(sol, visits: np.ndarray):
    """(state, chose stop, weight) for every turn decision between going and stopping that optimal
    play reaches; weight = expected visits."""
    ex = sol.exploration
    game = ex.game
    kind = np.frombuffer(ex.kind, dtype=np.int8)
    for node in np.flatnonzero((kind >= 0) & (visits > 0)).tolist():
        s = ex.state(node)
        if s[PH] != Phase.TURN or game.stopped(s, s[TURN]):
            continue
        edge = int(sol.choice[node])
        if edge < 0 or ex.action[edge] not in (GO, STOP_ACT):
            continue
        if STOP_ACT not in game.legal_actions(s):
            continue
        yield s, ex.action[edge] == STOP_ACT, float(visits[node])


def constant_rule(go_weight: float, stop_weight: float) -> str | None:
    """The policy in words when it is the same in every go/stop situation, else None."""
    if go_weight + stop_weight == 0:
        return "optimal play never faces a choice between going and stopping in this configuration"
    if stop_weight == 0:
        return "the optimal player never stops: it always goes to the bathroom (draws)"
    if go_weight == 0:
        return "the optimal player always stops at its first chance"
    return None


def _share(go: float, stop: float) -> str:
    total = go + stop
    if stop == 0:
        return "go"
    if go == 0:
        return "stop"
    return f"stop {100 * stop / total:.0f}% / go {100 * go / total:.0f}%"


def summary(sol, visits: np.ndarray) -> PolicySummary:
    game = sol.exploration.game
    by_lead: dict[tuple, list[float]] = defaultdict(lambda: [0.0, 0.0])
    detail: dict[tuple, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for s, stop, w in turn_choices(sol, visits):
        me = s[TURN]
        others = [t for t in range(game.num_players) if t != me]
        own = score(game, s, me)
        best = max(score(game, s, t) for t in others)
        stopped = sum(game.stopped(s, t) for t in others)
        deck = " ".join(f"{TOKENS[k]}x{s[game.o_deck + i]}" for i, k in enumerate(game.kinds)
                        if s[game.o_deck + i]) or "empty"
        by_lead[(own - best, stopped)][stop] += w
        detail[(own, best, stopped, s[GRITOS], deck)][stop] += w
    go_w = sum(v[0] for v in by_lead.values())
    stop_w = sum(v[1] for v in by_lead.values())
    title = (f"Loira do Banheiro, {game.num_players} players: the optimal stop rule "
             f"(value = {game.value_meaning})")
    constant = constant_rule(go_w, stop_w)
    lines = [f"{GO_WORDS}; {STOP_WORDS}.",
             "Weights: expected times per round that optimal play meets the situation.", ""]
    if constant:
        lines += [constant.capitalize() + ".", ""]
    lines.append(f"Go/stop decisions per round: {go_w + stop_w:.4f} (stop in {stop_w:.4f}, go in {go_w:.4f}).")
    lines += ["", "By lead (my points minus the best opponent's) and opponents stopped:",
              f"{'lead':>5} {'stopped':>8} {'weight':>9}  optimal"]
    for (lead, stopped), (go, stop) in sorted(by_lead.items()):
        lines.append(f"{lead:>+5} {stopped:>8} {go + stop:>9.4f}  {_share(go, stop)}")
    rows = []
    for (own, best, stopped, gritos, deck), (go, stop) in sorted(detail.items(), key=lambda kv: -sum(kv[1])):
        rows.append([own, best, stopped, gritos, deck, round(go + stop, 9), round(stop / (go + stop), 9),
                     _share(go, stop)])
    stops = [r for r in rows if r[6] > 0]
    if stops:
        lines += ["", "Where optimal play stops, most frequent first (points in hand, best opponent, "
                  "opponents stopped, Gritos out, cards left in the deck); it goes everywhere else:"]
    for r in stops[:25]:
        lines.append(f"  points {r[0]:>2}, opponent {r[1]:>2}, stopped {r[2]}, gritos {r[3]}, deck [{r[4]}]: "
                     f"{r[7]} (weight {r[5]:.4f})")
    if len(stops) > 25:
        lines.append(f"  ... {len(stops) - 25} rarer ones in policy_summary.csv (every situation, with its weight)")
    columns = ["my_points", "best_opponent_points", "opponents_stopped", "gritos_out", "deck",
               "weight", "stop_share", "optimal"]
    return PolicySummary(title, "\n".join(lines), columns, rows, constant)
