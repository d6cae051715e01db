"""Hypothesis: random layouts, configurations and rulings; random play keeps every invariant."""
import random

from hypothesis import given
from hypothesis import strategies as st

from ruleproof.model.presentes import SPEC
from ruleproof.proofs.presentes import Abstract, reading
from ruleproof.model.protocol import CHANCE, TERMINAL

SYMBOLS = ".*xs"


@st.composite
def configs(draw):
    inner = draw(st.lists(st.sampled_from(SYMBOLS), min_size=3, max_size=40))
    layout = "." + "".join(inner) + "."
    params = {"players": draw(st.integers(2, 6)), "dice": draw(st.integers(1, 2)),
              "sneak_range": draw(st.integers(0, 8)), "back": draw(st.integers(1, 4))}
    rulings = {rid: draw(st.sampled_from(opts)) for rid, opts in
               (("P02", ["swap-both", "gift-only"]), ("P03", ["reach-or-pass", "bounce"]),
                ("P04", ["take-from-tree", "keep"]), ("P06", ["either", "ahead"]),
                ("P11", ["choose", "random"]), ("P16", ["first-ordinary", "first-gift"]),
                ("P17", ["one", "two"]), ("P18", ["not-eligible", "eligible"]),
                ("P05", ["uniform", "printed-order"]), ("P07", ["not-eligible", "own-leader"]),
                ("P08", ["previous-seat", "behind"]), ("P14", ["tree", "steal"]),
                ("P15", ["random", "pick"]), ("P23", ["nothing", "redraw"]))}
    if draw(st.booleans()):
        params["host_skip"] = draw(st.lists(st.integers(1, 12), max_size=3))
        params["host_remove"] = [[draw(st.integers(1, 12)), draw(st.integers(0, params["players"] - 1))]]
    return layout, params, rulings, draw(st.integers(0, 2**31))


@given(configs())
def test_random_play_keeps_every_invariant(tmp_path_factory, cfg):
    layout, params, rulings, seed = cfg
    path = tmp_path_factory.mktemp("b") / "board.txt"
    path.write_text(layout)
    rs = SPEC.default().with_overrides({**params, "board": str(path)}, rulings, spec=SPEC.schema)
    g = SPEC.build(rs)
    rng = random.Random(seed)
    invariants = g.invariants()
    ab = Abstract(reading(rs, g.board.squares))   # the proofs' reading of the rules, move by move
    actions = {a.name: a for a in ab.actions()}
    s = g.initial_state()
    assert ab.abstraction(s) == ab.initial()
    for _ in range(600):
        for inv in invariants:
            assert inv.check(s) is None, (inv.name, inv.check(s), g.describe_state(s))
        assert g.key(g.from_key(g.key(s))) == g.key(s)
        cp = g.current_player(s)
        if cp == TERMINAL:
            assert sorted(x for x in s.gift if x >= 0) == sorted(
                set(range(g.num_players)) - {x for x in range(g.num_players) if s.tree >> x & 1})
            break
        f = ab.abstraction(s)
        if cp == CHANCE:
            outs = g.chance_outcomes(s)
            assert sum(p for _, p in outs) == 1 and all(p > 0 for _, p in outs)
            law: dict = {}
            for o, p in outs:
                law[ab.bind(s, o, cp)] = law.get(ab.bind(s, o, cp), 0) + p
            assert law == ab.law(f), g.describe_state(s)
            a = rng.choices([o for o, _ in outs], [float(p) for _, p in outs])[0]
        else:
            acts = g.legal_actions(s)
            assert acts == sorted(acts) and acts
            assert {ab.bind(s, x, cp) for x in acts} == ab.options(f), g.describe_state(s)
            a = rng.choice(acts)
        t = g.apply(s, a)
        bound, post = ab.bind(s, a, cp), ab.abstraction(t)
        if bound.action == "stutter":
            assert post == f
        else:
            assert actions[bound.action].relation({**f, **bound.params, "actor": cp}, post), (
                g.describe_state(s), g.describe_action(s, a), g.describe_state(t))
        assert ab.shield_kept(f, post), g.describe_state(s)
        s = t


@given(configs())
def test_simulated_games_end_in_a_consistent_reveal(tmp_path_factory, cfg):
    """After every simulated game: each gift is under the tree or with exactly one player, removed
    players hold none, arrival ranks are 0..k-1 over the seats that were not removed."""
    import numpy as np

    from ruleproof.model.presentes.config import rules_of
    from ruleproof.model.presentes.simulate import run_games
    from ruleproof.model.ruleset import RulesetError
    layout, params, rulings, seed = cfg
    path = tmp_path_factory.mktemp("b") / "board.txt"
    path.write_text(layout)
    rs = SPEC.default().with_overrides({**params, "board": str(path)}, rulings, spec=SPEC.schema)
    rules, _ = rules_of(rs)
    try:
        raw = run_games(rules, 40, seed % 1000, policy=("eager", "passive", "random")[seed % 3])
    except RulesetError as exc:  # P23 'redraw': a game reached a ★ with no eligible effect
        assert rulings["P23"] == "redraw" and exc.key == "rulings.P23"
        return
    n = rules.players
    for g in range(40):
        held = [x for x in raw["gift"][g] if x >= 0]
        assert len(held) == len(set(held)) and all(0 <= x < n for x in held)
        removed = raw["pos"][g] == rules.out
        assert (raw["gift"][g][removed] == -1).all()
        ranks = sorted(raw["rank"][g][~removed])
        assert ranks == list(range(len(ranks)))
        on_track = (raw["pos"][g] < rules.finish).sum()
        assert on_track == 0
    assert np.all(raw["turns"] >= 0)
