"""Export an explored game to probabilistic model checkers: PRISM, Storm's DRN and JANI.

Game-agnostic: the input is ``solver.explore``'s graph (and, for policies, ``solver.solve``'s
choices). The model written has

* one state per reachable (explored state, seat orientation) pair: games that explore with seat
  symmetry store one representative per class, so the export *unfolds* it again -- a state keeps
  the permutation that maps real seats to the representative's seats, so that labels and rewards
  name real seats (``win0`` is the first player's win, whichever representative stands for it);
* at a decision state, one choice per legal action (the nondeterminism of every seat), or only the
  policy's action for the seats a policy fixes; at a chance state, one choice with the outcome
  probabilities as exact fractions;
* every terminal state moving with probability 1 to one extra absorbing state labelled ``done``,
  so that rewards paid *in* a terminal state are collected by ``R=? [F "done"]``.

Labels: ``init``, ``seat<r>`` (seat r to move), ``chance``, ``terminal``, ``done``, ``win<r>``
(terminal, seat r's return is the game's maximal utility), plus ``game_<name>`` for each feature
the game's optional ``labels(state)`` method reports. Reward structures (state rewards):
``turns`` is 1 in every decision state (a *decision move*; a chance event is not a turn), and
``ret<r>`` is paid in terminal states: seat r's return minus the game's minimal utility (shifted
so that rewards are never negative, which Storm's reachability rewards require).

The kinds written: ``mdp`` (every free seat's decisions as nondeterminism), ``dtmc`` (a policy
fixes every seat) and ``smg`` (PRISM-games' stochastic game: each seat a player owning its actions,
chance and bookkeeping states owned by a ``nature`` player).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Callable, Iterable, TextIO

from ruleproof.model.protocol import CHANCE, TERMINAL

from .explore import Exploration
from .rational import solve_sparse

SINK = -3
FORMATS = ("prism", "drn", "jani")

#: picks a decision state's moves: (node, representative state) -> [(edge, probability), ...]
Chooser = Callable[[int, object], list[tuple[int, Fraction]]]


class ExportError(ValueError):
    """A request the export cannot honour (say, an incomplete exploration)."""


@dataclass
class Choice:
    name: str                               # the action (sanitised) or "chance"/"end"/"loop"
    targets: list[tuple[int, Fraction]]     # (state, probability), probabilities add up to 1


@dataclass
class Model:
    kind: str                               # "mdp", "dtmc" or "smg"
    players: int
    owner: list[int]                        # per state: real seat, CHANCE, TERMINAL or SINK
    choices: list[list[Choice]]
    labels: list[set[str]]
    rewards: dict[str, dict[int, Fraction]] = field(default_factory=dict)
    init: int = 0
    node: list[int] = field(default_factory=list)   # per state: the explored node it unfolds

    @property
    def num_states(self) -> int:
        return len(self.owner)

    @property
    def num_choices(self) -> int:
        return sum(len(c) for c in self.choices)

    @property
    def num_transitions(self) -> int:
        return sum(len(ch.targets) for cs in self.choices for ch in cs)

    def label_names(self) -> list[str]:
        return sorted(set().union(*self.labels))


def _ident(text: str) -> str:
    """A name safe in PRISM, DRN and JANI: letters, digits and underscores, not starting with a digit."""
    out = "".join(c if c.isalnum() else "_" for c in str(text)).strip("_") or "a"
    return out if not out[0].isdigit() else "a_" + out


def optimal_chooser(sol) -> Chooser:
    """Our solver's policy: the chosen edge of each decision node (the tie rule included)."""
    return lambda node, state: [(int(sol.choice[node]), Fraction(1))]


def action_chooser(ex: Exploration, policy: Callable) -> Chooser:
    """A deterministic named policy (state -> action), applied to each explored state."""
    def choose(node, state):
        action = policy(state)
        for edge in ex.edges(node):
            if ex.action[edge] == action:
                return [(edge, Fraction(1))]
        raise ExportError(f"the policy chose {action!r}, not a legal action in "
                          f"{ex.game.describe_state(state)}")
    return choose


def uniform_chooser(ex: Exploration) -> Chooser:
    """Every legal action with equal (exact) probability."""
    def choose(node, state):
        edges = list(ex.edges(node))
        return [(e, Fraction(1, len(edges))) for e in edges]
    return choose


def build_model(ex: Exploration, chooser: Chooser | None = None, free_seats: Iterable[int] = (),
                smg: bool = False) -> Model:
    """Unfold the explored graph into an explicit model.

    ``chooser`` fixes the decisions of every seat not in ``free_seats``; without one every seat is
    free (an MDP, or with ``smg`` a stochastic game). A chain that fixes every seat is a DTMC."""
    if not ex.complete:
        raise ExportError(f"the exploration is partial ({ex.stop_reason}); nothing to export")
    game = ex.game
    n = game.num_players
    free = set(range(n)) if chooser is None else set(free_seats)
    if smg and (chooser is not None and free != set(range(n))):
        raise ExportError("a stochastic game leaves every seat free; drop --policy")
    kind = "smg" if smg else "dtmc" if not free else "mdp"
    perms = game.seat_permutations if ex.perm is not None else (tuple(range(n)),)
    root_perm = game.canonicalize(game.initial_state())[1] if ex.perm is not None else 0
    low = game.min_utility

    index: dict[tuple[int, tuple[int, ...]], int] = {}
    todo: list[tuple[int, tuple[int, ...]]] = []

    def state_id(node: int, sigma: tuple[int, ...]) -> int:
        key = (node, sigma)
        found = index.get(key)
        if found is None:
            found = index[key] = len(todo)
            todo.append(key)
        return found

    # sigma maps each real seat to the representative's seat standing for it; along an edge with
    # seat permutation pi the representative's seat s becomes the child's pi[s]
    state_id(0, tuple(perms[root_perm]))
    model = Model(kind, n, [], [], [])
    model.rewards = {"turns": {}, **{f"ret{r}": {} for r in range(n)}}
    sink = None
    i = 0
    while i < len(todo):
        node, sigma = todo[i]
        if node == -1:   # the absorbing state after the terminals
            model.owner.append(SINK)
            model.choices.append([Choice("loop", [(i, Fraction(1))])])
            model.labels.append({"done"})
            model.node.append(-1)
            i += 1
            continue
        rep_seat = int(ex.kind[node])
        state = ex.state(node)
        labels = {f"game_{_ident(f)}" for f in getattr(game, "labels", lambda s: ())(state)}
        choices: list[Choice] = []
        if rep_seat == TERMINAL:
            owner = TERMINAL
            ret = ex.returns[node]
            labels.add("terminal")
            for r in range(n):
                value = ret[sigma[r]]
                if value == game.max_utility:
                    labels.add(f"win{r}")
                if value != low:
                    model.rewards[f"ret{r}"][i] = value - low
            if sink is None:
                sink = state_id(-1, ())
            choices.append(Choice("end", [(sink, Fraction(1))]))
        elif rep_seat == CHANCE:
            owner = CHANCE
            labels.add("chance")
            choices.append(Choice("chance", _targets(ex, node, sigma, perms, state_id,
                                                       [(e, ex.prob[e]) for e in ex.edges(node)])))
        else:
            owner = sigma.index(rep_seat)
            labels.add(f"seat{owner}")
            model.rewards["turns"][i] = Fraction(1)
            if owner in free:
                moves = [[(e, Fraction(1))] for e in ex.edges(node)]
            else:
                moves = [chooser(node, state)]
            for move in moves:
                name = ("policy" if len(move) > 1 else
                        _ident(game.describe_action(state, ex.action[move[0][0]])))
                choices.append(Choice(name, _targets(ex, node, sigma, perms, state_id, move)))
        model.owner.append(owner)
        model.choices.append(choices)
        model.labels.append(labels)
        model.node.append(node)
        i += 1
    model.labels[0].add("init")
    return model


def _targets(ex, node, sigma, perms, state_id, weighted) -> list[tuple[int, Fraction]]:
    merged: dict[int, Fraction] = {}
    for edge, p in weighted:
        pi = perms[ex.perm[edge]] if ex.perm is not None else perms[0]
        target = state_id(int(ex.child[edge]), tuple(pi[s] for s in sigma))
        merged[target] = merged.get(target, Fraction(0)) + p
    return list(merged.items())


def renumber(model: Model) -> Model:
    """States sorted by their labels and rewards (initial state kept first), so that each label
    and reward value covers a few contiguous ranges: PRISM and JANI then say ``s>=a & s<=b``
    instead of listing every state."""
    def signature(i):
        return (i != model.init, sorted(model.labels[i]),
                [str(model.rewards[r].get(i, 0)) for r in sorted(model.rewards)])
    order = sorted(range(model.num_states), key=signature)
    new = {old: k for k, old in enumerate(order)}
    return Model(model.kind, model.players, [model.owner[o] for o in order],
                 [[Choice(c.name, [(new[t], p) for t, p in c.targets]) for c in model.choices[o]]
                  for o in order],
                 [model.labels[o] for o in order],
                 {r: {new[i]: v for i, v in vals.items()} for r, vals in model.rewards.items()},
                 new[model.init], [model.node[o] for o in order])


# ---- writers ------------------------------------------------------------------------------------

def _ranges(ids: Iterable[int]) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for i in sorted(ids):
        if out and out[-1][1] == i - 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return [(a, b) for a, b in out]


def _prism_set(ids: Iterable[int]) -> str:
    parts = [f"s={a}" if a == b else f"(s>={a}&s<={b})" for a, b in _ranges(ids)]
    return "|".join(parts) if parts else "false"


def _by_value(values: dict[int, Fraction]) -> dict[Fraction, list[int]]:
    groups: dict[Fraction, list[int]] = {}
    for i, v in values.items():
        groups.setdefault(v, []).append(i)
    return groups


def _header(model: Model, title: str, comment: str) -> list[str]:
    return [f"{comment} {title}",
            f"{comment} written by ruleproof (solver/export.py): {model.num_states} states, "
            f"{model.num_choices} choices, {model.num_transitions} transitions",
            f"{comment} rewards: turns = 1 per decision state; ret<r> = seat r's return minus the "
            f"game's minimal utility, paid in terminal states (query R{{\"ret0\"}}=? [F \"done\"])"]


class _Lines:
    """Lines written as they come, a block at a time: a model of millions of transitions is never
    held as one string (that took gigabytes, and one long C call Ctrl-C could not interrupt)."""
    BLOCK = 4096

    def __init__(self, fh: TextIO, first: Iterable[str] = ()):
        self.fh, self.buffer = fh, list(first)

    def append(self, line: str) -> None:
        self.buffer.append(line)
        if len(self.buffer) >= self.BLOCK:
            self.flush()

    def __iadd__(self, lines: Iterable[str]) -> "_Lines":
        for line in lines:
            self.append(line)
        return self

    def flush(self) -> None:
        if self.buffer:
            self.fh.write("\n".join(self.buffer) + "\n")
            self.buffer = []


def write_prism(model: Model, fh: TextIO, title: str = "") -> None:
    n = model.num_states
    lines = _Lines(fh, _header(model, title, "//"))
    lines.append(model.kind)
    if model.kind == "smg":
        actions = {r: sorted({f"p{r}_{k}" for i in range(n) if model.owner[i] == r
                              for k in range(len(model.choices[i]))}) for r in range(model.players)}
        for r in range(model.players):
            lines += [f"player seat{r}", "  " + ", ".join(f"[{a}]" for a in actions[r]), "endplayer"]
        lines += ["player nature", "  game", "endplayer"]
    lines += ["", "module game", f"  s : [0..{n - 1}] init {model.init};"]
    for i in range(n):
        for k, ch in enumerate(model.choices[i]):
            label = f"p{model.owner[i]}_{k}" if model.kind == "smg" and model.owner[i] >= 0 else ""
            update = " + ".join(f"{p}:(s'={t})" for t, p in ch.targets)
            lines.append(f"  [{label}] s={i} -> {update}; // {ch.name}")
    lines += ["endmodule", ""]
    for name in model.label_names():
        if name != "init":
            lines.append(f'label "{name}" = {_prism_set(i for i in range(n) if name in model.labels[i])};')
    for reward, values in model.rewards.items():
        lines.append(f'rewards "{reward}"')
        for value, ids in sorted(_by_value(values).items()):
            lines.append(f"  {_prism_set(ids)} : {value};")
        lines.append("endrewards")
    lines.flush()


def write_drn(model: Model, fh: TextIO, title: str = "") -> None:
    if model.kind == "smg":
        raise ExportError("DRN has no stochastic-game form here; use --format prism for a game")
    rewards = list(model.rewards)
    lines = _Lines(fh, _header(model, title, "//"))
    lines += [f"@type: {model.kind.upper()}", "@value_type: rational", "@parameters", "",
              "@reward_models", " ".join(rewards), "@nr_states", str(model.num_states),
              "@nr_choices", str(model.num_choices), "@model"]
    for i in range(model.num_states):
        reward = ", ".join(str(model.rewards[r].get(i, 0)) for r in rewards)
        lines.append(f"state {i} [{reward}] " + " ".join(sorted(model.labels[i])))
        for ch in model.choices[i]:
            lines.append(f"\taction {ch.name}")
            lines += [f"\t\t{t} : {p}" for t, p in ch.targets]
    lines.flush()


def _jani_set(ids: Iterable[int]):
    terms = []
    for a, b in _ranges(ids):
        terms.append({"op": "=", "left": "s", "right": a} if a == b else
                     {"op": "∧", "left": {"op": "≥", "left": "s", "right": a},
                      "right": {"op": "≤", "left": "s", "right": b}})
    if not terms:
        return False
    while len(terms) > 1:   # a balanced tree of disjunctions: a chain thousands deep is slow to parse
        terms = [{"op": "∨", "left": a, "right": b} for a, b in zip(terms[::2], terms[1::2])] + \
                ([terms[-1]] if len(terms) % 2 else [])
    return terms[0]


def _jani_number(x: Fraction):
    return int(x) if x.denominator == 1 else {"op": "/", "left": x.numerator, "right": x.denominator}


def write_jani(model: Model, fh: TextIO, title: str = "") -> None:
    """The JANI document, its edges written one at a time (see ``_Lines``)."""
    if model.kind == "smg":
        raise ExportError("JANI's stochastic games are not written here; use --format prism for a game")
    n = model.num_states
    names = [x for x in model.label_names() if x != "init"]
    variables = [{"name": x, "type": "bool", "transient": True, "initial-value": False} for x in names]
    variables += [{"name": r, "type": "real", "transient": True, "initial-value": 0}
                  for r in model.rewards]
    variables.append({"name": "s", "type": {"kind": "bounded", "base": "int", "lower-bound": 0,
                                            "upper-bound": n - 1}, "initial-value": model.init})
    head = {"jani-version": 1, "name": title or "ruleproof", "type": model.kind,
            "metadata": {"description": " ".join(line.lstrip("/ ") for line in _header(model, title, "//"))},
            "features": ["derived-operators"], "actions": [], "constants": [],
            "variables": variables, "properties": [],
            "system": {"elements": [{"automaton": "game"}]}}
    locations = [{"name": "l", "transient-values": [
        {"ref": x, "value": _jani_set(i for i in range(n) if x in model.labels[i])} for x in names]}]
    fh.write(json.dumps(head, ensure_ascii=False)[:-1] + ', "automata": [{"name": "game", "locations": '
             + json.dumps(locations, ensure_ascii=False) + ', "initial-locations": ["l"], "edges": [')
    lines = _Lines(fh)
    first = True
    for i in range(n):
        # a state reward is paid on each of the state's edges (JANI's edge assignments)
        paid = [{"ref": r, "value": _jani_number(v[i])} for r, v in model.rewards.items() if i in v]
        for ch in model.choices[i]:
            edge = {"location": "l", "guard": {"exp": {"op": "=", "left": "s", "right": i}},
                    "destinations": [{"location": "l", "probability": {"exp": _jani_number(p)},
                                      "assignments": [{"ref": "s", "value": t}]} for t, p in ch.targets]}
            if paid:
                edge["assignments"] = paid
            lines.append(("" if first else ",") + json.dumps(edge, ensure_ascii=False))
            first = False
    lines.flush()
    fh.write("]}]}\n")


def expected_turns(ex: Exploration, chooser: Chooser) -> Fraction:
    """The exact expected number of decision moves from the start when every seat follows
    ``chooser``, computed on the explored graph itself (a count of moves does not depend on which
    seat a representative stands for), independently of ``build_model``'s unfolding: the induced
    chain's linear system, solved by the shared rational module (component by component)."""
    succ: dict[int, list[tuple[int, Fraction]]] = {}
    stack = [0]
    while stack:
        node = stack.pop()
        if node in succ:
            continue
        seat = int(ex.kind[node])
        if seat == TERMINAL:
            succ[node] = []
            continue
        moves = ([(e, ex.prob[e]) for e in ex.edges(node)] if seat == CHANCE
                 else chooser(node, ex.state(node)))
        succ[node] = [(int(ex.child[e]), p) for e, p in moves]
        stack.extend(c for c, _ in succ[node] if c not in succ)
    local = {v: k for k, v in enumerate(succ)}
    # x_v - sum_c p x_c = 1 at a decision, 0 elsewhere
    rows, rhs = [], []
    for v, out in succ.items():
        row = {local[v]: Fraction(1)}
        for c, p in out:
            row[local[c]] = row.get(local[c], Fraction(0)) - p
        rows.append(row)
        rhs.append([Fraction(int(ex.kind[v] >= 0))])
    return solve_sparse(rows, rhs)[local[0]][0]


WRITERS = {"prism": write_prism, "drn": write_drn, "jani": write_jani}


def write_model(model: Model, fmt: str, fh: TextIO, title: str = "") -> None:
    if fmt not in WRITERS:
        raise ExportError(f"unknown format {fmt!r} (formats: {', '.join(FORMATS)})")
    WRITERS[fmt](model, fh, title)


# ---- the command behind ``ruleproof export`` ------------------------------------------------------

def policy_chooser(spec, ex: Exploration, name: str) -> tuple[Chooser, object | None]:
    """``optimal`` (our solver's policy; also returns the solution), ``random`` (uniform over the
    legal actions, exactly) or one of the game's named deterministic policies."""
    from ruleproof.model.ruleset import RulesetError

    from .engines import EXACT_CYCLIC_LIMIT, EXACT_LIMIT
    from .solve import solve
    if name == "optimal":
        sol = solve(ex)
        if ex.num_states <= EXACT_LIMIT and sol.cyclic_states <= EXACT_CYCLIC_LIMIT:
            sol = solve(ex, exact=True)
        return optimal_chooser(sol), sol
    if name == "random":
        return uniform_chooser(ex), None
    named = spec.policies
    if name not in named:
        raise RulesetError("command line", "--policy", f"unknown policy {name!r} (known: optimal, "
                           f"random{''.join(', ' + k for k in named)})")
    return action_chooser(ex, named[name](ex.game)), None


def export_ruleset(ruleset, fmt: str, path, *, policy: str | None = None,
                   free_seats: Iterable[int] = (), smg: bool = False,
                   max_states: int | None = None, timeout: float | None = None) -> dict:
    """Explore ``ruleset``, build the model asked for and write it to ``path``; the summary
    (sizes, the kind written, and our own exact values of the initial state when known)."""
    import time

    from ruleproof.model.registry import get_spec
    from ruleproof.model.ruleset import RulesetError

    from .explore import explore
    from .outputs import check_file, write_file
    start = time.perf_counter()
    if fmt not in FORMATS:
        raise RulesetError("command line", "--format", f"unknown format {fmt!r} (formats: {', '.join(FORMATS)})")
    path = check_file(Path(path), "FILE")   # before the work: a folder, a FIFO, someone's file
    spec = get_spec(ruleset.game)
    game = spec.build(ruleset)
    free = sorted(set(free_seats))
    if free and policy is None:
        raise RulesetError("command line", "--free-seat", "needs --policy (the policy the other seats follow)")
    if any(not 0 <= s < game.num_players for s in free):
        raise RulesetError("command line", "--free-seat", f"seats are 0..{game.num_players - 1}, not {free}")
    if smg and policy is not None:
        raise RulesetError("command line", "--smg", "a stochastic game leaves every seat free; drop --policy")
    if smg and fmt != "prism":
        raise RulesetError("command line", "--smg", "stochastic games are written in PRISM-games syntax only "
                           "(--format prism)")
    ex = explore(game, max_states=max_states, timeout=timeout)
    doc: dict = {"explored_states": ex.num_states, "format": fmt, "file": str(path)}
    if not ex.complete:
        doc.update(partial=True, reason=ex.stop_reason, seconds=time.perf_counter() - start)
        return doc
    chooser, sol = policy_chooser(spec, ex, policy) if policy is not None else (None, None)
    model = renumber(build_model(ex, chooser, free, smg=smg))
    # beside the target, renamed into place when complete; the header stamps it as ours
    with write_file(Path(path), "FILE") as fh:
        write_model(model, fmt, fh, f"{ruleset.game} ({ruleset.name})")
    doc.update(partial=False, kind=model.kind, policy=policy, free_seats=free,
               states=model.num_states, choices=model.num_choices, transitions=model.num_transitions,
               labels=model.label_names(), rewards=list(model.rewards))
    if sol is not None and sol.exact is not None:
        perms = game.seat_permutations if ex.perm is not None else (tuple(range(game.num_players)),)
        sigma = perms[game.canonicalize(game.initial_state())[1] if ex.perm is not None else 0]
        doc["values"] = [str(sol.exact[0][sigma[r]]) for r in range(game.num_players)]
        if not free:
            doc["expected_turns"] = str(expected_turns(ex, chooser))
    doc["seconds"] = time.perf_counter() - start
    return doc
