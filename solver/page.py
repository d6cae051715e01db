"""``ruleproof report``: one self-contained page per ruleset, in HTML or Markdown.

``build_report`` gathers what a designer reads about one ruleset -- every property with its evidence,
the optimal values and fairness, the rulings ranked by impact, the printable policy summary and the
policy pictures, and (``against``) what the edit from another ruleset changed -- into one JSON-able
document. ``page_blocks`` turns that document into a list of neutral blocks (headings, paragraphs,
tables, preformatted text, pictures); ``render_html`` and ``render_markdown`` only lay those blocks
out, so the two formats always say the same thing. The HTML embeds its CSS and its pictures (PNG as
base64 data URLs): it loads nothing from anywhere.
"""
from __future__ import annotations

import base64
import html
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from ruleproof.model.estimate import FIRST_SEAT_ADVANTAGE_MEANING, Estimate, quantiles_text
from ruleproof.model.registry import get_spec
from ruleproof.model.ruleset import Ruleset

from ruleproof.model.results import FAILS, HOLDS, UNKNOWN

from . import cache
from .compare import _words, overridden
from .outputs import stamp, write_file

#: without ``--rank-timeout`` the ranking is a fixed amount of work (exact solves within their state
#: limit, else a fixed number of paired seeded games): the same rows under any load
RANK_BUDGET = None
SYMBOL = {HOLDS: "✓", FAILS: "✗", UNKNOWN: "?"}
NOT_RUN = "not run: the time limit was reached"


def _pictures(folder: Path) -> list[dict[str, Any]]:
    return [{"file": p.name, "png_base64": base64.b64encode(p.read_bytes()).decode("ascii")}
            for p in sorted(folder.glob("*.png"))]


def _rank(ruleset: Ruleset, budget: float | None, progress: Callable | None) -> dict[str, Any] | None:
    """The rulings ranked by ``rank_rulings`` within ``budget`` seconds; those the budget did not
    reach are listed by id (None: the game has no rulings)."""
    if not get_spec(ruleset.game).schema.rulings:
        return None
    from .rulings import rank_rulings
    res = rank_rulings(ruleset.game, ruleset=ruleset, timeout=budget, progress=progress)
    ranked = [r for r in res["rows"] if r.get("error") != NOT_RUN]
    unranked = sorted({r["ruling"] for r in res["rows"] if r.get("error") == NOT_RUN})
    return {"budget_seconds": budget, "reference": res["reference"], "rows": ranked,
            "not_ranked": unranked}


@cache.scoped   # the page's sides share results with each other and --cache
def build_report(ruleset: Ruleset, *, against: Ruleset | None = None, max_states: int | None = None,
                 timeout: float | None = None, rank_timeout: float | None = RANK_BUDGET,
                 progress: Callable[[str, int, int | None], None] | None = None,
                 why: tuple[str, str] = ("", ""), games: int | None = None, seed: int | None = None,
                 policy: str | None = None) -> dict[str, Any]:
    """Everything the page shows about ``ruleset`` (see the module docstring). ``why``: why the
    ruleset (and ``against``) is the configuration it is (``solver.compare.target_ruleset``).
    ``progress`` is called as ``progress(phase, done, total)``. ``timeout`` bounds the whole
    report: verify, values, the ranking (at most ``rank_timeout`` of it) and the comparison each
    get what is left. ``games``/``seed``/``policy``: the sampling wherever values are sampled.
    With ``against``, both sides go through ``compare.side`` and ``compare.compare_sides``, as in
    ``compare``."""
    from . import beside
    from .compare import parallel_evaluations, parallel_sides, side_summary_of, verify_cold_side_first
    start = time.perf_counter()
    deadline = None if timeout is None else start + timeout

    def left() -> float | None:
        return None if deadline is None else max(0.001, deadline - time.perf_counter())
    spec = get_spec(ruleset.game)
    say = progress or (lambda *_: None)
    say("verify", 0, None)
    sample = dict(games=games, seed=seed, policy=policy)
    kw = dict(max_states=max_states, deadline=deadline, **sample)
    parallel = against is not None and parallel_sides(against, ruleset, timeout, kw)
    if against is not None:
        verify_cold_side_first(ruleset, against, kw, **_verify_hooks(say, progress))
        parallel = parallel or parallel_evaluations(against, ruleset, timeout, kw)
    # the side it is compared with computed meanwhile on the second core when both are heavy or
    # their exact evaluations big (the same figures: fixed work each; solver/beside.py)
    other = beside.Beside(side_summary_of, against, why[1],
                          dict(max_states=max_states, deadline=deadline, other=ruleset, **sample), enabled=parallel)
    with other:   # leaving early (an error, Ctrl-C) ends the worker
        return _build(ruleset, spec, other, start, left, say, sample, against=against, max_states=max_states,
                      deadline=deadline, rank_timeout=rank_timeout, progress=progress, why=why)


def _verify_hooks(say: Callable, progress: Callable | None) -> dict[str, Callable | None]:
    """The page's verify progress (``compare.side``'s ``explored`` and ``phase`` hooks)."""
    if progress is None:
        return dict(explored=None, phase=None)
    return dict(explored=lambda n, pending, _s: say("verify: explore", n, n + pending),
                phase=lambda what, done, total: say(f"verify: {what or 'checks'}", done, total))


def _build(ruleset: Ruleset, spec, other, start: float, left: Callable[[], float | None], say: Callable,
           sample: dict[str, Any], *, against: Ruleset | None, max_states: int | None, deadline: float | None,
           rank_timeout: float | None, progress: Callable | None, why: tuple[str, str]) -> dict[str, Any]:
    """``build_report``'s body; ``other`` gives the side it is compared with (``against``)."""
    from .compare import compare_sides, side
    with tempfile.TemporaryDirectory(prefix="ruleproof-report-") as tmp:
        folder = Path(tmp)
        summary_b, rep, ev = side(
            ruleset, why[0], max_states=max_states, deadline=deadline, out_dir=folder, progress=progress,
            other=against, **_verify_hooks(say, progress), **sample)
        summary_file = folder / "policy_summary.txt"
        summary = summary_file.read_text() if summary_file.exists() else None
        pictures = _pictures(folder)
    solved = ev.solved
    res = solved.doc() if solved is not None else None
    values = [{"seat": i, **e.as_dict()} for i, e in enumerate(ev.values or ())]
    doc: dict[str, Any] = {
        "game": ruleset.game, "ruleset": ruleset.name, "config": ruleset.as_dict(),
        "title": spec.title, "description": ruleset.description,
        "configuration": {**summary_b["configuration"], "overridden": overridden(ruleset)},
        "verdict": rep.status, "states": rep.states, "notes": list(rep.notes),
        "properties": [p.as_dict() for p in rep.properties],
        "solve": {"partial": ev.values is None, "reason": ev.why if ev.values is None else None,
                  "method": ev.method, "engine": ev.engine, "states": ev.states,
                  "exact": ev.method == "exact", "how": res["method"] if res else None,
                  "meaning": res["meaning"] if res else None, "policy": ev.policy,
                  "exact_stopped": ev.why if ev.values is not None else None,
                  "note": res["extras"].get("note") if res else None},
        "values": values,
        "value_meaning": ev.value_meaning,
        "fairness": None if ev.advantage is None else
        {"first_seat_advantage": ev.advantage.as_dict(), "meaning": FIRST_SEAT_ADVANTAGE_MEANING},
        "length": None if ev.length is None else {**ev.length, "estimate": ev.length["estimate"].as_dict()},
        "figures": [f.as_dict() for f in ev.figures],
        "longest_play": summary_b["longest_play"],
        "policy_summary": summary,
        "pictures": pictures,
    }
    # the other side's worker done first when there is one (the two sides are about the same work):
    # the ranking then has both cores again
    summary_a = other.result() if other.job is not None else None
    if spec.schema.rulings and rank_timeout is not None and rank_timeout <= 0:   # ranking skipped
        doc["rulings"] = {"budget_seconds": 0, "reference": {}, "rows": [],
                          "not_ranked": [r.id for r in spec.schema.rulings]}
    else:
        budgets = [x for x in (rank_timeout, left()) if x is not None]
        doc["rulings"] = _rank(ruleset, min(budgets) if budgets else None, progress)
    if against is not None:
        say("compare", 0, None)
        if summary_a is None:
            summary_a = other.result()
        doc["against"] = compare_sides(against, ruleset, summary_a, summary_b)
    doc["seconds"] = round(time.perf_counter() - start, 4)
    return doc


def exit_code(doc: dict[str, Any]) -> int:
    """1 when the verdict is fails or unknown, the values could not be computed within the limits,
    or ``--against`` found regressions; 0 otherwise."""
    bad = doc["verdict"] != HOLDS or doc["solve"]["partial"] or bool(doc.get("against", {}).get("regressions"))
    return 1 if bad else 0


def json_view(doc: dict[str, Any]) -> dict[str, Any]:
    """The document for ``--json``: pictures by name and size rather than their bytes."""
    out = dict(doc)
    out["pictures"] = [{"file": p["file"], "bytes": len(base64.b64decode(p["png_base64"]))}
                       for p in doc["pictures"]]
    return out


# ---- what an edit changed: one rendering for compare's text and the page ---------------------------

def _cell(v: Any) -> str:
    """A compared quantity as text: an estimate to its digits, a plain number or word as it is."""
    if isinstance(v, dict) and "kind" in v:
        return Estimate.from_dict(v).number()
    return "-" if v is None else str(v)


def left_out_text(labels: list[str]) -> str:
    """What a comparison's side says of the paired companions it left out (``verify``'s ``skip``)."""
    return (f"left out, as the other side has no such configuration: {'; '.join(labels)} "
            "(verify alone checks them)")


def comparison_parts(cmp: dict[str, Any]) -> dict[str, Any]:
    """The comparison (``compare.compare_sides``) as pieces both renderers lay out alike: each
    side's first line, the edit, the figures that moved (and one line for those that did not),
    the properties whose verdict changed (the rest folded into one line), findings that differ,
    the regressions."""
    a, b, ch = cmp["a"], cmp["b"], cmp["changes"]
    sides = []
    for label, s in (("A", a), ("B", b)):
        c = s.get("configuration") or {}
        why = f" -- {c['why']}" if c.get("why") else ""
        sides.append(f"{label} = {s['ruleset']} ({s['source']}): {c.get('differs_from_built_in', '')}{why}")
    edits = [f"{k} {_words(x)} -> {_words(y)}" for k, (x, y) in {**ch["params"], **ch["rulings"]}.items()]
    evidence = []
    for label, s in (("A", a), ("B", b)):
        if s["values"]:
            e = Estimate.from_dict(s["values"][0])
            what = e.evidence() if e.is_sampled else e.kind
            evidence.append(f"{label}'s values: {what} (engine {s['engine']}"
                            + (f"; exact engines stopped: {s['exact_stopped']}" if s.get("exact_stopped") else "") + ")")
    if cmp.get("paired"):
        evidence.append(f"changes read game by game: {cmp['paired']}")
    moved = [[f["figure"] + ("" if f["seat"] is None else f", seat {f['seat']}"), _cell(f["a"]), _cell(f["b"]),
              f["text"]] for f in cmp["moved"]]
    still = [f for f in cmp["figures"] if not f["moved"]]
    groups: dict[str, list[str]] = {}
    for f in still:
        groups.setdefault(f["text"] if f["verdict"] == "unchanged" else f["verdict"], []).append(
            f["figure"] + ("" if f["seat"] is None else f" {f['seat']}"))
    not_moved = "; ".join(f"{', '.join(names)}: " + (
        "unchanged" if verdict == "unchanged" else
        "no detectable change (" + ", ".join(f["text"].split("(", 1)[1].rstrip(")") for f in still
                                             if f["verdict"] == verdict and f["text"].startswith(verdict)) + ")")
        for verdict, names in groups.items())
    props = [[name, x or "absent", y or "absent"] for name, (x, y) in ch["properties"].items()]
    same = ch["unchanged_properties"]
    folded = (f"{same['count']} properties keep their verdict ({' / '.join(same['statuses']) or '-'}) on both "
              "sides (each side on its own configurations)") if same["count"] else ""
    left_out = [f"{label}: {left_out_text(s['left_out'])}" for label, s in (("A", a), ("B", b)) if s.get("left_out")]
    details = [(name, *ch["details"][name]) for name in ch["substantive_details"]]
    la, lb = ch["longest_play"]
    longest = None if la is None and lb is None else (
        f"longest play (moves): A {la if la is not None else 'unbounded (cycles)'}, "
        f"B {lb if lb is not None else 'unbounded (cycles)'}")
    regressions = [[r["property"], r["why"]] for r in cmp["regressions"]]
    trace = next((b.get("counterexamples", {}).get(r["property"]) for r in cmp["regressions"]
                  if b.get("counterexamples", {}).get(r["property"])), None)
    return {"sides": sides, "edit": edits, "evidence": evidence, "moved": moved, "not_moved": not_moved,
            "properties": props, "folded": folded, "details": details, "longest": longest,
            "regressions": regressions, "trace": trace, "verify": f"A {a['verify']}, B {b['verify']}",
            "left_out": left_out}


def comparison_text(cmp: dict[str, Any]) -> list[str]:
    """``compare``'s lines (the page shows the same parts as tables)."""
    p = comparison_parts(cmp)
    lines = [f"{cmp['a']['ruleset']} vs {cmp['b']['ruleset']} ({cmp.get('game', '')})".replace(" ()", "")]
    lines += p["sides"]
    lines.append("  edit: " + ("; ".join(p["edit"]) if p["edit"] else "none (the same parameters and rulings)"))
    lines += ["  " + x for x in p["evidence"]]
    lines.append("what moved (A -> B):" if p["moved"] else "what moved: nothing detectable")
    lines += [f"  {name}: {x} -> {y} ({d})" for name, x, y, d in p["moved"]]
    if p["not_moved"]:
        lines.append(f"  not moved: {p['not_moved']}")
    lines.append(f"verify: {p['verify']}")
    lines += [f"  {name}: {x} -> {y}" for name, x, y in p["properties"]]
    if p["folded"]:
        lines.append(f"  {p['folded']}")
    lines += [f"  {x}" for x in p["left_out"]]
    for name, x, y in p["details"]:
        lines += [f"  {name}:", f"    A: {x}", f"    B: {y}"]
    if p["longest"]:
        lines.append(f"  {p['longest']}")
    if p["regressions"]:
        lines.append(f"regressions ({len(p['regressions'])}):")
        lines += [f"  {name}: {why}" for name, why in p["regressions"]]
        lines += [f"    {line}" for line in p["trace"] or []]
    return lines


# ---- the page as neutral blocks -------------------------------------------------------------------

def _num(x: float | None, digits: int = 6) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def page_blocks(doc: dict[str, Any]) -> list[tuple]:
    """The page, top to bottom, as blocks: ("h1"|"h2"|"p", text), ("table", headers, rows, classes),
    ("pre", text), ("img", caption, base64), ("trace", title, lines). Classes name each row's status."""
    b: list[tuple] = [("h1", f"{doc['ruleset']} — {doc['title']}")]
    conf = doc.get("configuration") or {}
    b.append(("p", f"Configuration: {doc['ruleset']} ({doc['config']['source']}): "
                   f"{conf.get('differs_from_built_in', '')}" + (f" — {conf['why']}." if conf.get("why") else ".")))
    params = ", ".join(f"{k} {_words(v)}" for k, v in doc["config"]["params"].items())
    b.append(("p", f"Game {doc['game']}. Parameters: {params}."))
    if doc.get("description"):
        others = conf.get("overridden") or []
        b.append(("p", f"The ruleset file's description: {doc['description']}" + (
            f" (of the file as written: {', '.join(others)} set here instead)" if others else "")))
    counts: dict[str, int] = {}
    for p in doc["properties"]:
        counts[p["evidence"]] = counts.get(p["evidence"], 0) + 1
    b.append(("verdict", doc["verdict"], f"Verdict: {doc['verdict']} — "
              + ", ".join(f"{n} {k}" for k, n in counts.items()) + f" ({len(doc['properties'])} properties)"))
    if doc.get("against"):
        reg = doc["against"]["regressions"]
        b.append(("p", f"Against {doc['against']['a']['ruleset']}: " + (
            f"{len(reg)} regression(s)." if reg else f"nothing regressed ({doc['against']['verdict']}).")))

    b.append(("h2", "Values and fairness"))
    s = doc["solve"]
    if not doc["values"]:
        b.append(("p", f"No values: the solve stopped ({s['reason'] or 'no values'})."))
    else:
        first = Estimate.from_dict(doc["values"][0])
        if first.is_sampled:
            stopped = f"; the exact engines stopped: {s['exact_stopped']}" if s.get("exact_stopped") else ""
            how = f"Values {first.evidence()} (engine {s['engine']}{stopped})."
        else:
            how = (f"Values {first.kind} ({s['engine']}; {s['how']}; {s['states']:,} states)."
                   if s.get("states") else f"Values {first.kind} ({s['engine']}).")
        b.append(("p", how + f" A seat's value is: {doc['value_meaning']}."))
        b.append(("table", ["seat", "value", "what it is"],
                  [[str(v["seat"]), Estimate.from_dict(v).number(), Estimate.from_dict(v).evidence()]
                   for v in doc["values"]], None))
        f, length = doc["fairness"], doc["length"]
        if f:
            adv = Estimate.from_dict(f["first_seat_advantage"])
            b.append(("p", f"First-seat advantage: {adv.number(signed=True)} ({adv.evidence()}) — {f['meaning']}."))
        if length:
            e = Estimate.from_dict(length["estimate"])
            dist = length.get("distribution") or {}
            b.append(("p", f"Expected game length: {e.number()} {length['unit']} ({e.evidence()}) — {length['how']}."
                      + (" Quantiles: " + quantiles_text(dist, length.get("distribution_intervals"))
                         + ("" if not length.get("distribution_intervals") else
                            " (each with its distribution-free 95% interval)") + "." if dist else "")))
        for fig in doc.get("figures") or []:
            ests = [Estimate.from_dict(e) for e in fig["estimates"]]
            fair = f"; fair share {fig['fair_share']}" if fig.get("fair_share") else ""
            text = ", ".join((f"seat {i} " if fig["per_seat"] else "") + e.number() for i, e in enumerate(ests))
            b.append(("p", f"{fig['meaning'][:1].upper() + fig['meaning'][1:]}: {text} ({ests[0].kind}{fair})."))
        if s.get("note"):
            b.append(("p", s["note"]))
    if doc.get("longest_play") is not None:
        b.append(("p", f"Longest possible play: {doc['longest_play']} moves (the graph has no cycle)."))

    if doc.get("against"):
        cmp = doc["against"]
        parts = comparison_parts(cmp)
        b.append(("h2", f"What changed from {cmp['a']['ruleset']}"))
        for line in parts["sides"]:
            b.append(("p", line))
        b.append(("p", "Edit: " + ("; ".join(parts["edit"]) if parts["edit"] else
                                   "none (the same parameters and rulings)") + "."))
        for line in parts["evidence"]:
            b.append(("p", line + "."))
        if parts["moved"]:
            b.append(("table", ["moved", cmp["a"]["ruleset"], doc["ruleset"], "change"], parts["moved"], None))
        else:
            b.append(("p", "What moved: nothing detectable."))
        if parts["not_moved"]:
            b.append(("p", f"Not moved: {parts['not_moved']}."))
        b.append(("p", f"Verify: {parts['verify']}."))
        if parts["properties"]:
            b.append(("table", ["property", cmp["a"]["ruleset"], doc["ruleset"]], parts["properties"], None))
        if parts["folded"]:
            b.append(("p", parts["folded"][:1].upper() + parts["folded"][1:] + "."))
        b += [("p", x + ".") for x in parts["left_out"]]
        for name, x, y in parts["details"]:
            b.append(("p", f"{name}: {cmp['a']['ruleset']}: {x} — {doc['ruleset']}: {y}"))
        if parts["regressions"]:
            b.append(("table", ["regression", "why"], parts["regressions"], ["fails"] * len(parts["regressions"])))
        else:
            b.append(("p", "Nothing regressed."))

    b.append(("h2", "Properties"))
    b.append(("p", "Evidence levels: proved (Z3, tied to the code), exhaustive (every reachable state of "
                   "the configuration named), sampled (random plays, not a proof), fails (a witness "
                   "below), unknown (not decided within the limits). Each claim is about the "
                   "configuration in its 'about' column only."))
    b.append(("table", ["", "property", "evidence", "about", "detail"],
              [[SYMBOL[p["status"]], p["name"], p["evidence"], p["scope"], p["detail"]] for p in doc["properties"]],
              [p["status"] for p in doc["properties"]]))
    for note in doc["notes"]:
        b.append(("p", f"Note: {note}"))
    for p in doc["properties"]:
        if p.get("counterexample"):
            b.append(("trace", f"Counterexample for {p['name']} ({p['scope']})", p["counterexample"]))

    b.append(("h2", "Rulings ranked by impact"))
    r = doc.get("rulings")
    if r is None:
        b.append(("p", f"{doc['game']} has no rulings."))
    else:
        ref = r["reference"]
        if ref.get("values"):
            b.append(("p", "Each alternative reading solved exactly on this configuration by the generic "
                           "solver (every seat playing optimally: where the game's own solver evaluates a "
                           "set policy, as Presentes' does, the reference differs from the values above); "
                           "ranked by the largest change of any seat's value, then of the expected "
                           "moves. Reference: "
                           + ", ".join(f"seat {i} {v:.6f}" for i, v in enumerate(ref["values"]))
                           + (f"; expected moves {ref['length']:.3f}" if ref.get("length") is not None else "")
                           + "."))
        elif ref.get("error") and not ref.get("sampled"):
            b.append(("p", f"The configuration's own readings did not solve: {ref['error']}."))
        if ref.get("sampled"):
            sp = ref["sampled"]
            b.append(("p", ("Too big to solve here" if ref.get("error") else "Some readings are too big to solve")
                      + f": each of those readings is played in the same {sp['games']:,} seeded games as the "
                      f"configuration's own (seed {sp['seed']}, policy {sp['policy']}: common random numbers), "
                      "and its change is the mean over those paired games ± half the 95% interval -- the "
                      "policy's values, not the optimum. Reference in those games (mean ± half its 95% "
                      "interval): " + ", ".join(f"seat {i} {Estimate.from_dict(e).number(signed=True)}"
                                               for i, e in enumerate(sp["value_estimates"])) + "."))
        rows = [rank_row(row) for row in r["rows"]]
        if rows:
            b.append(("table", ["ruling", "alternative", "effect", "max |Δ value|", "Δ value per seat",
                                "Δ expected moves"], rows, None))
        if r["not_ranked"]:
            b.append(("p", f"Not ranked within the budget of {r['budget_seconds']:g} s: "
                           f"{', '.join(r['not_ranked'])} (raise --rank-timeout)."))

    b.append(("h2", "Policy"))
    if doc.get("policy_summary"):
        b.append(("pre", doc["policy_summary"].rstrip()))
    else:
        b.append(("p", "This game's solver writes no printable policy summary for this configuration."))
    for pic in doc["pictures"]:
        b.append(("img", pic["file"], pic["png_base64"]))
    b.append(("p", f"Made by ruleproof report in {doc['seconds']:.1f} s."))
    return b


def rank_row(row: dict[str, Any]) -> list[str]:
    """One ``rulings rank`` row as cells: ruling, alternative, effect (moves the values, no change,
    or not exercised by this configuration), max |Δ value|, Δ per seat, Δ expected moves."""
    if "error" in row:
        return [row["ruling"], row["alternative"], row["error"], "-", "-", "-"]
    if not row.get("exercised", True):
        return [row["ruling"], row["alternative"], row["effect"], "-", "-", "-"]
    if row.get("value_change_estimates"):   # paired games: each change with its 95% interval
        from ruleproof.model.estimate import Estimate
        changes = [Estimate.from_dict(d) for d in row["value_change_estimates"]]
        biggest = max(changes, key=lambda c: abs(c.value))
        return [row["ruling"], row["alternative"], row.get("effect", ""),
                _plain_abs(biggest), " ".join(c.number(signed=True) for c in changes),
                Estimate.from_dict(row["length_change_estimate"]).number(signed=True)]
    length = "-" if row["length_change"] is None else f"{row['length_change']:+.4f}"
    return [row["ruling"], row["alternative"], row.get("effect", ""), f"{row['max_value_change']:.6f}",
            " ".join(f"{d:+.6f}" for d in row["value_change"]), length]


def _plain_abs(change) -> str:
    """|Δ| of a sampled change, to the digits its interval supports, with the interval's half-width."""
    from dataclasses import replace
    if change.value >= 0:
        return change.number()
    return replace(change, value=-change.value, interval=(-change.interval[1], -change.interval[0])).number()


CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1100px;margin:1.5em auto;
padding:0 1em;color:#1d2330;background:#fff;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:2px solid #d8dde6;padding-bottom:.15em;margin-top:1.6em}
table{border-collapse:collapse;margin:.6em 0;font-size:.9em;width:100%}
th,td{border:1px solid #d8dde6;padding:.3em .5em;text-align:left;vertical-align:top}
th{background:#eef1f6}tr.holds td:first-child{color:#177a2a;font-weight:bold}
tr.fails td{background:#fde8e8}tr.fails td:first-child{color:#b3261e;font-weight:bold}
tr.unknown td{background:#fff6d6}
.verdict{display:inline-block;padding:.35em .8em;border-radius:.4em;font-weight:bold;font-size:1.1em}
.verdict.holds{background:#dff3e3;color:#145c22}.verdict.fails{background:#fde8e8;color:#8c1d18}
.verdict.unknown{background:#fff0c2;color:#6b5200}
pre{background:#f5f7fa;border:1px solid #d8dde6;padding:.7em;overflow-x:auto;font-size:.85em}
figure{margin:1em 0}figure img{max-width:100%;border:1px solid #d8dde6}figcaption{font-size:.85em;color:#555}
"""


def render_html(doc: dict[str, Any]) -> str:
    e = html.escape
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f'<meta name="generator" content="{stamp("report")}">',
             f"<title>{e(doc['ruleset'])} — ruleproof report</title>", f"<style>{CSS}</style></head><body>"]
    for block in page_blocks(doc):
        kind = block[0]
        if kind in ("h1", "h2", "p"):
            parts.append(f"<{kind}>{e(block[1])}</{kind}>")
        elif kind == "verdict":
            parts.append(f'<p><span class="verdict {e(block[1])}">{e(block[2])}</span></p>')
        elif kind == "table":
            _, headers, rows, classes = block
            parts.append("<table><thead><tr>" + "".join(f"<th>{e(h)}</th>" for h in headers) + "</tr></thead><tbody>")
            for i, row in enumerate(rows):
                cls = f' class="{e(classes[i])}"' if classes else ""
                parts.append(f"<tr{cls}>" + "".join(f"<td>{e(str(c))}</td>" for c in row) + "</tr>")
            parts.append("</tbody></table>")
        elif kind == "pre":
            parts.append(f"<pre>{e(block[1])}</pre>")
        elif kind == "trace":
            parts.append(f"<p><strong>{e(block[1])}</strong></p><pre>{e(chr(10).join(block[2]))}</pre>")
        elif kind == "img":
            parts.append(f'<figure><img alt="{e(block[1])}" src="data:image/png;base64,{block[2]}">'
                         f"<figcaption>{e(block[1])}</figcaption></figure>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_markdown(doc: dict[str, Any]) -> str:
    lines: list[str] = []
    for block in page_blocks(doc):
        kind = block[0]
        if kind == "h1":
            lines += [f"# {block[1]}", ""]
        elif kind == "h2":
            lines += [f"## {block[1]}", ""]
        elif kind == "p":
            lines += [block[1], ""]
        elif kind == "verdict":
            lines += [f"**{block[2]}**", ""]
        elif kind == "table":
            _, headers, rows, _classes = block
            lines.append("| " + " | ".join(_md_cell(h) or " " for h in headers) + " |")
            lines.append("|" + "---|" * len(headers))
            lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
            lines.append("")
        elif kind == "pre":
            lines += ["```", block[1], "```", ""]
        elif kind == "trace":
            lines += [f"**{block[1]}**", "", "```", *block[2], "```", ""]
        elif kind == "img":
            lines += [f"![{block[1]}](data:image/png;base64,{block[2]})", ""]
    return "\n".join(lines)


def write_page(doc: dict[str, Any], path: Path, flag: str) -> Path:
    """The page as HTML (``flag`` ``--html``) or Markdown, written beside ``path`` and renamed into
    place (``solver/outputs.py``); the Markdown file opens with a comment that marks it as ours."""
    text = render_html(doc) if flag == "--html" else f"<!-- {stamp('report')} -->\n" + render_markdown(doc)
    with write_file(path, flag) as fh:
        fh.write(text)
    return path
