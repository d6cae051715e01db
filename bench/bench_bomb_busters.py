"""Bench for Bomb Busters: exact deduction time by number of hidden wires, and policy games/s.

    .venv/bin/python bench/bench_bomb_busters.py [--games N] [--seed S] [--players 2,3,4,5]
    .venv/bin/python bench/bench_bomb_busters.py --quick   # what `make bench` runs: 1 timed game, 5 played

Part 0 times the whole ``deduce`` command's compute (the engine, the ranked play table and the
Detector Duplo table with its both-red risks) on every example view and on untokened full-size
set-ups of 2-5 players: DP states, CPU seconds, states/s, peak traced memory, and the ratio to the
CPU seconds the same hook took before session 17 (``BEFORE_S17``). ``--deduce-only`` runs it alone.
Part 1 plays seeded full-size games with the "most likely cut" policy and times the deduction
engine on the acting player's view at every decision, bucketed by hidden wires (other players'
uncut wires whose value is not shown), from the set-up position (36+ hidden at 4-5 players) down.
Part 2 runs the Monte Carlo hook per player count and prints games/s and the win rate with its
95% interval.

With ``--peer PATH`` (a folder holding the public probability calculator CzJLee/Bomb-Busters:
``bomb_busters.py`` and ``compute_probabilities.py``), part 3 runs that calculator side by side with
ours on the same 4-player positions, each engine in its own subprocess with a timeout, and prints
both times and the largest difference between their probabilities. The peer is imported only then,
and only in its subprocess. ``--peer-only`` skips parts 1 and 2.
"""
from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import Report, add_arguments, peak_mib  # noqa: E402

from ruleproof.model.bomb_busters import SPEC  # noqa: E402
from ruleproof.model.bomb_busters.game import build  # noqa: E402
from ruleproof.model.bomb_busters.deduce import deduce, plays  # noqa: E402
from ruleproof.model.bomb_busters.observe import position  # noqa: E402
from ruleproof.model.bomb_busters.policy import POLICIES  # noqa: E402
from ruleproof.model.bomb_busters.state import Phase  # noqa: E402
from ruleproof.model.protocol import CHANCE, TERMINAL  # noqa: E402
from ruleproof.solver.montecarlo import simulate_ruleset  # noqa: E402


def deduction_times(players: int, games: int, seed: int) -> dict[int, list[float]]:
    rs = SPEC.default().with_overrides({"players": players}, spec=SPEC.schema, source="bench")
    game = build(rs)
    policy = POLICIES["likely"](game)
    rng = random.Random(seed)
    buckets: dict[int, list[float]] = {}
    for _ in range(games):
        s = game.initial_state()
        while game.current_player(s) != TERMINAL:
            who = game.current_player(s)
            if who == CHANCE:
                outcomes = game.chance_outcomes(s)
                a = rng.choices([o for o, _ in outcomes], [float(p) for _, p in outcomes])[0]
            else:
                if s.phase == Phase.PLAY and not s.pending:
                    pos = position(game, s, s.seat)
                    start = time.process_time()  # CPU time: the machine may be shared
                    plays(deduce(pos))
                    buckets.setdefault(pos.hidden_count(), []).append(time.process_time() - start)
                a = policy(s)
            s = game.apply(s, a)
    return buckets


EXAMPLES = Path(__file__).resolve().parent.parent / "model" / "bomb_busters" / "examples"
#: CPU seconds of the deduce hook (engine, play table, Detector Duplo table) per example before
#: session 17's shared-table Duplo and seeded both-red passes (this machine, best of 3): the ratio
BEFORE_S17 = {"format-example.json": 0.0005, "midgame-3p.json": 0.0049, "slot-next-to-2.json": 0.0003,
              "start-4p.json": 0.0666, "start-5p-2of3-reds.json": 0.1859, "start-5p.json": 0.2264,
              "training-2p.json": 0.0012,
              "untokened 2p, 2 of 3 red (seed 1)": 0.0329, "untokened 3p, 2 of 3 red (seed 1)": 0.0335,
              "untokened 4p, 2 of 3 red (seed 1)": 0.1286, "untokened 5p, 2 of 3 red (seed 1)": 1.2148}


def _deduce_command(pos) -> dict:
    from ruleproof.model.bomb_busters.report import report
    return report(deduce(pos))


def deduce_command_times(counts: list[int], seed: int) -> None:
    import tracemalloc
    from ruleproof.model.bomb_busters.view import load_view
    print("== the deduce command's compute: engine + play table + Detector Duplo table (CPU s, best of 3) ==")
    print(f"{'view':<34} {'hidden':>6} {'states':>7} {'seconds':>8} {'states/s':>9} {'peak MB':>8} {'vs before':>9}")
    cases = [(path.name, load_view(path)) for path in sorted(EXAMPLES.glob("*.json"))]
    cases += [(f"untokened {p}p, 2 of 3 red (seed {seed})", untokened_view(p, seed, (2, 6, 10), 2, (3, 9), 2))
              for p in counts]
    for name, pos in cases:
        times = []
        for _ in range(3):
            start = time.process_time()
            out = _deduce_command(pos)
            times.append(time.process_time() - start)
        tracemalloc.start()
        _deduce_command(pos)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        best = min(times)
        before = BEFORE_S17.get(name)
        ratio = f"{before / best:.1f}x" if before else "-"
        print(f"{name:<34} {out['hidden_wires']:>6} {out['dp_states']:>7} {best:>8.4f} "
              f"{out['dp_states'] / max(best, 1e-9):>9.0f} {peak:>8.1f} {ratio:>9}", flush=True)
    print()


def untokened_view(players: int, seed: int, reds, red_in: int, yellows, yellow_in: int, blue_values: int = 12):
    """A set-up position with no info tokens at all (the hardest case): every other wire hidden."""
    from ruleproof.model.bomb_busters import tiles as T
    from ruleproof.model.bomb_busters.mission import rack_sizes, racks_for
    from ruleproof.model.bomb_busters.view import parse_view
    rng = random.Random(seed)
    pool = T.blue_pool(blue_values, 4) + [T.red(v) for v in rng.sample(reds, red_in)] + \
        [T.yellow(v) for v in rng.sample(yellows, yellow_in)]
    rng.shuffle(pool)
    owners = racks_for(players)
    racks, i = [], 0
    for n in rack_sizes(len(pool), len(owners)):
        racks.append(sorted(pool[i:i + n]))
        i += n
    hands = [{"name": f"p{p}", "racks": [[T.show(t) for t in r] if p == 0 else ["?"] * len(r)
                                        for r, o in zip(racks, owners) if o == p]} for p in range(players)]
    return parse_view({"format": "bomb-busters-view/1",
                       "mission": {"blue_values": blue_values, "blue_copies": 4,
                                   "red": {"values": list(reds), "in_play": red_in},
                                   "yellow": {"values": list(yellows), "in_play": yellow_in}},
                       "viewer": "p0", "hands": hands})


# ---- part 3: the public calculator CzJLee/Bomb-Busters, run as a peer (--peer PATH) -------------

def peer_blocker(pos) -> str | None:
    """Why the peer cannot be given exactly this view, or None. Its calculator mode has one stand
    per player, blue/yellow info tokens, and "holds at least one" deductions from failed cuts."""
    from ruleproof.model.bomb_busters import tiles as T
    if any(sum(1 for h, _ in pos.racks if h == hand) > 1 for hand, _ in pos.racks) or len(pos.own) > 1:
        return "two racks in one hand"
    for hand, slots in pos.racks:
        for sl in slots:
            if sl.excluded or sl.category == T.RED_ANY:
                return "exclusion or known-red slot"
    for c in pos.claims:
        shown = [sl.tile for h, sl_ in pos.racks if h == c.hand for sl in sl_ if sl.tile is not None]
        if c.at_least > 1 or any(T.matches(t, c.named) for t in shown):
            return "claim the peer reads differently"
    return None


def _peer_game(pos, bb):
    """The same view in the peer's own API: GameState.from_partial_state (its calculator mode),
    cut wires and info tokens as its slot states, claims as its MustHaveValue constraints."""
    from ruleproof.model.bomb_busters import tiles as T
    C = bb.WireColor
    offset = {0: 0.0, 1: 0.1, 5: 0.5}

    def wire(t):
        return bb.Wire({0: C.BLUE, 1: C.YELLOW, 5: C.RED}[t % 10], t // 10 + offset[t % 10])

    stands = []
    for h in range(len(pos.names)):
        if h == pos.viewer:
            slots = [bb.Slot(wire(t), bb.SlotState.CUT if cut else bb.SlotState.HIDDEN) for t, cut in pos.own[0]]
        else:
            slots = []
            for sl in next(s for hand, s in pos.racks if hand == h):
                if sl.cut:
                    slots.append(bb.Slot(wire(sl.tile), bb.SlotState.CUT))
                elif sl.tile is not None:  # blue info token, as the peer's own "iN" parser builds it
                    slots.append(bb.Slot(wire(sl.tile), bb.SlotState.INFO_REVEALED, T.value(sl.tile)))
                elif sl.category == T.YELLOW:
                    slots.append(bb.Slot(None, bb.SlotState.INFO_REVEALED, "YELLOW"))
                else:
                    slots.append(bb.Slot(None))
        stands.append(bb.TileStand(slots))
    colours = [None if not cands else [T.value(t) for t in cands] if k == len(cands)
               else ([T.value(t) for t in cands], k)  # "X de Y": the peer's discard slots
               for cands, k in ((pos.yellow_candidates, pos.yellow_in_play), (pos.red_candidates, pos.red_in_play))]
    claims = [bb.MustHaveValue(c.hand, "YELLOW" if c.named == T.YELLOW else T.value(c.named)) for c in pos.claims]
    return bb.GameState.from_partial_state(
        list(pos.names), stands, active_player_index=pos.viewer, constraints=claims,
        blue_wires=[wire(t) for t in T.blue_pool(pos.blue_values, pos.blue_copies)],
        yellow_wires=colours[0], red_wires=colours[1])


def _worker(engine: str, view_file: str, peer: str | None) -> None:
    """One engine on one view, in this process; prints CPU seconds and every marginal as JSON."""
    from ruleproof.model.bomb_busters.view import load_view
    resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
    pos = load_view(Path(view_file))
    probs: dict[str, float] = {}
    mc = False
    if engine == "ours":
        start = time.process_time()
        d = deduce(pos)
        seconds = time.process_time() - start
        for k, (hand, slots) in enumerate(pos.racks):
            for j, sl in enumerate(slots):
                if not sl.cut and sl.tile is None:
                    for t, p in d.probs[k][j].items():
                        probs[f"{hand},{j},{t}"] = float(p)
    else:
        sys.path.insert(0, peer)
        import bomb_busters as bb
        import compute_probabilities as cp
        game = _peer_game(pos, bb)
        mc = cp.count_hidden_positions(game, pos.viewer) > cp.MC_POSITION_THRESHOLD
        print(json.dumps({"mc": mc}), flush=True)  # its own analysis would sample above this size
        start = time.process_time()
        out = cp.compute_position_probabilities(game, pos.viewer, show_progress=False)  # its exact solver
        seconds = time.process_time() - start
        for (hand, j), counter in out.items():
            total = sum(counter.values())
            for w, n in counter.items():
                probs[f"{hand},{j},{round(w.sort_value * 10)}"] = n / total
    print(json.dumps({"seconds": seconds, "probs": probs, "mc": mc}))


def peer_positions(seed: int) -> list[tuple[str, object]]:
    """4-player positions for the ladder: set-up views with no wire shown on another rack (blue
    values and colours chosen to give N hidden wires), and views reached in seeded standard games."""
    from math import ceil
    out = []
    for target in (16, 20, 22, 24, 26, 28, 30, 38):
        for v in range(12, 3, -1):
            hit = [(r, y) for r, y in ((1, 2), (0, 0), (1, 0), (0, 2), (2, 2), (1, 4), (2, 4))
                   if 4 * v + r + y - ceil((4 * v + r + y) / 4) == target]
            if hit:
                r, y = hit[0]
                reds = (3, 6, 8, 10)[:r + 1] if r else ()
                out.append((f"set-up, blue 1-{v}, red {r}/{len(reds)}, yellow {y}/{y}",
                            untokened_view(4, seed, reds, r, (2, 4, 7, 10)[:y], y, v)))
                break
    targets, found = {20, 22, 24, 26, 28, 30, 32}, {}
    rs = SPEC.default().with_overrides({"players": 4}, spec=SPEC.schema, source="bench")
    game = build(rs)
    policy = POLICIES["likely"](game)
    rng = random.Random(seed)
    for _ in range(40):
        s = game.initial_state()
        while game.current_player(s) != TERMINAL and len(found) < len(targets):
            if game.current_player(s) == CHANCE:
                outcomes = game.chance_outcomes(s)
                a = rng.choices([o for o, _ in outcomes], [float(p) for _, p in outcomes])[0]
            else:
                if s.phase == Phase.PLAY and not s.pending:
                    pos = position(game, s, s.seat)
                    n = pos.hidden_count()
                    if n in targets and n not in found and peer_blocker(pos) is None:
                        found[n] = pos
                a = policy(s)
            s = game.apply(s, a)
    out += [("mid-game, standard mission", found[n]) for n in sorted(found, reverse=True)]
    return out


def _run(engine: str, view_file: Path, peer: str, timeout: float) -> tuple[dict | str, bool | None]:
    """(result dict or a short reason, whether the peer's own analysis would use Monte Carlo)."""
    cmd = [sys.executable, __file__, "--_worker", engine, str(view_file), "--peer", peer]
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        out = run.stdout
        res = json.loads(out.strip().splitlines()[-1]) if run.returncode == 0 else \
            "failed: " + (run.stderr.strip().splitlines() or ["?"])[-1][:30]
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        res = f"> {timeout:g} s"  # no answer within the timeout
    mc = json.loads(out.strip().splitlines()[0])["mc"] if engine == "peer" and out.strip() else None
    return res, mc


def _max_diff(a: dict, b: dict) -> str:
    slots_a, slots_b = ({k.rsplit(",", 1)[0] for k in x} for x in (a, b))
    both = {k for k in a.keys() | b.keys() if k.rsplit(",", 1)[0] in slots_a & slots_b}
    diff = f"{max(abs(a.get(k, 0.0) - b.get(k, 0.0)) for k in both):.1e}"
    return diff + (f" ({len(slots_a ^ slots_b)} slots one-sided)" if slots_a != slots_b else "")


def peer_comparison(peer: str, timeout: float, seed: int) -> None:
    from ruleproof.model.bomb_busters.brute import brute_force
    from ruleproof.model.bomb_busters.observe import view_json
    from ruleproof.model.bomb_busters.view import parse_view
    print(f"\n== peer: CzJLee/Bomb-Busters (exact solver) from {peer}, 4 players, CPU s, timeout {timeout:g} s ==")
    print(f"{'position':<38} {'hidden':>6} {'ours s':>7} {'peer s':>10} {'ratio':>7} {'max |dp|':>8} {'peer default':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        stuck: set[str] = set()  # families where the peer already gave no answer at a smaller size
        for i, (label, pos) in enumerate(sorted(peer_positions(seed), key=lambda lp: (lp[0][:4], lp[1].hidden_count()))):
            f = Path(tmp, f"view{i}.json")
            f.write_text(json.dumps(view_json(pos)))
            ours, _ = _run("ours", f, peer, timeout)
            if label[:4] in stuck:
                other, mc = "not run", None  # a smaller view of this family already timed out
            else:
                other, mc = _run("peer", f, peer, timeout)
                if not isinstance(other, dict):
                    stuck.add(label[:4])
            o_s = f"{ours['seconds']:.3f}" if isinstance(ours, dict) else ours
            p_s = f"{other['seconds']:.2f}" if isinstance(other, dict) else other
            ratio = diff = "-"
            if isinstance(ours, dict) and isinstance(other, dict):
                ratio = f"{other['seconds'] / max(ours['seconds'], 1e-6):.0f}x"
                diff = _max_diff(ours["probs"], other["probs"])
            default = {None: "-", False: "exact", True: "Monte Carlo"}[mc]
            print(f"{label:<38} {pos.hidden_count():>6} {o_s:>7} {p_s:>10} {ratio:>7} {diff:>8} {default:>12}",
                  flush=True)

        print("\n   who is right where they differ: tiny views with a wire shown on another rack, against brute.py")
        print(f"   {'view':<48} {'ours vs brute':>13} {'peer vs brute':>13}")
        tiny = {"4 hands, blue 1-2 x4, bia [? x2]": [["1", "2"], ["?", "x2"], ["?", "?"], ["?", "?"]],
                "4 hands, blue 1-3 x2, bia [? ?2] (info token)": [["1", "3"], ["?", "?2"], ["?"], ["?"]]}
        for j, (label, racks) in enumerate(tiny.items()):
            copies = 4 if "x4" in label else 2
            data = {"format": "bomb-busters-view/1", "viewer": "p0",
                    "mission": {"blue_values": 2 if "1-2" in label else 3, "blue_copies": copies},
                    "hands": [{"name": f"p{h}", "racks": [r]} for h, r in enumerate(racks)]}
            pos = parse_view(data)
            f = Path(tmp, f"tiny{j}.json")
            f.write_text(json.dumps(data))
            _, exact = brute_force(pos)
            truth = {f"{hand},{s},{t}": float(p) for k, (hand, slots) in enumerate(pos.racks)
                     for s, sl in enumerate(slots) if not sl.cut and sl.tile is None for t, p in exact[k][s].items()}
            ours, _ = _run("ours", f, peer, timeout)
            other, _ = _run("peer", f, peer, timeout)
            print(f"   {label:<48} {_max_diff(ours['probs'], truth):>13} {_max_diff(other['probs'], truth):>13}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20, help="Monte Carlo games per player count")
    ap.add_argument("--deduce-games", type=int, default=3, help="games timed per player count")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--players", default="2,3,4,5")
    ap.add_argument("--peer", metavar="PATH", help="folder with the peer calculator's source (part 3)")
    ap.add_argument("--peer-timeout", type=float, default=120.0, help="seconds per engine and position")
    ap.add_argument("--peer-only", action="store_true", help="run part 3 only")
    ap.add_argument("--deduce-only", action="store_true", help="run part 0 only (the deduce command)")
    ap.add_argument("--_worker", nargs=2, help=argparse.SUPPRESS)
    add_arguments(ap)
    args = ap.parse_args()
    if args._worker:
        _worker(*args._worker, args.peer)
        return
    if args.quick:
        args.games, args.deduce_games = 5, 1
    counts = [int(p) for p in args.players.split(",")]
    report = Report("bomb-busters")
    if not args.peer_only:
        deduce_command_times(counts, args.seed)
        if args.deduce_only:
            return
        parts_1_2(counts, args, report)
    if args.peer:
        peer_comparison(str(Path(args.peer).resolve()), args.peer_timeout, args.seed)
    else:
        print("\n(peer comparison skipped: pass --peer PATH, a folder with CzJLee/Bomb-Busters' source)")
        report.fail("peer calculator", "skipped: pass --peer PATH (CzJLee/Bomb-Busters' source)")
    report.finish(args)


def parts_1_2(counts: list[int], args, report: Report) -> None:
    print("== exact deduction (marginals + ranked play table), CPU seconds by hidden wires ==")
    print(f"{'players':>7} {'hidden':>6} {'n':>4} {'mean':>9} {'max':>9}")
    for players in counts:
        buckets = deduction_times(players, args.deduce_games, args.seed)
        for hidden in sorted(buckets, reverse=True):
            if hidden % 4 and hidden != max(buckets):
                continue  # every 4th row, plus the largest
            xs = buckets[hidden]
            print(f"{players:>7} {hidden:>6} {len(xs):>4} {statistics.mean(xs):>9.4f} {max(xs):>9.4f}")

    print("\n== worst case: set-up without info tokens, more colours (CPU seconds) ==")
    print(f"{'players':>7} {'hidden':>6} {'red':>7} {'yellow':>7} {'states':>7} {'seconds':>8}")
    for players in counts:
        for reds, red_in, yellows, yellow_in in (((3, 8), 1, (4, 10), 2), ((2, 5, 9), 2, (1, 4, 7, 10), 4),
                                                 ((1, 3, 6, 9, 11), 3, (2, 5, 8, 11), 4)):
            pos = untokened_view(players, args.seed, reds, red_in, yellows, yellow_in)
            start = time.process_time()
            d = deduce(pos)
            plays(d)
            cpu = time.process_time() - start
            print(f"{players:>7} {pos.hidden_count():>6} {f'{red_in}/{len(reds)}':>7} "
                  f"{f'{yellow_in}/{len(yellows)}':>7} {d.states:>7} {cpu:>8.3f}")
            report.add(f"deduce {players}p red {red_in}/{len(reds)} yellow {yellow_in}/{len(yellows)}",
                       d.states, cpu, peak_mib())
    print("\n== policy 'likely' (most likely cut), standard set-up ==")
    print(f"{'players':>7} {'games':>6} {'games/s':>8} {'win rate':>9} {'95% CI':>20}")
    for players in counts:
        rs = SPEC.default().with_overrides({"players": players}, spec=SPEC.schema, source="bench")
        start = time.perf_counter()
        out = simulate_ruleset(rs, args.games, args.seed, "likely")
        report.add(f"simulate {players}p likely", out["games"], time.perf_counter() - start, peak_mib(),
                   unit="games")
        win = out["metrics"]["win_rate"]
        lo, hi = win["ci95"]
        print(f"{players:>7} {out['games']:>6} {out['games_per_second']:>8.2f} "
              f"{win['mean']:>9.3f} {f'[{lo:.3f}, {hi:.3f}]':>20}")


if __name__ == "__main__":
    main()
