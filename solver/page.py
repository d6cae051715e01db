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

from ruleproof.model.registry import get_spec
from ruleproof.model.ruleset import Ruleset

from ruleproof.model.results import FAILS, HOLDS, UNKNOWN

#: without ``--rank-timeout``, ranking the rulings gets this many seconds; the rest are named unranked
RANK_BUDGET = 60.0
SYMBOL = {HOLDS: "✓", FAILS: "✗", UNKNOWN: "?"}
NOT_RUN = "not run: the time limit was reached"


def _values(res: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"seat": i, "fraction": v["fraction"], "float": v["float"]}
            for i, v in enumerate(res.get("values") or [])]


def game_length(solved) -> dict[str, Any] | None:
    """Expected length of play from a ``solve_ruleset`` result: expected moves under the optimal
    policy when the generic engine answered, the engine's expected turns (Presentes) otherwise."""
    sol = solved.solution
    if sol is not None:
        from .rulings import expected_moves
        moves = expected_moves(sol)
        if moves is not None:
            return {"value": moves, "fraction": None, "unit": "moves",
                    "how": "expected moves from the start when every seat plays optimally "
                           "(every decision and every chance draw counts as one move)"}
    turns = solved.result.extras.get("mean_turns")
    if isinstance(turns, dict):
        return {"value": turns["float"], "fraction": turns.get("fraction"), "unit": "turns",
                "how": "expected turns from the start under the ruleset's policy (exact Markov chain)"}
    return None


def fairness(values: list[dict[str, Any]]) -> dict[str, Any] | None:
    """First-seat advantage: seat 0's value minus the mean of the other seats' values (0 = fair)."""
    if len(values) < 2:
        return None
    others = [v["float"] for v in values[1:]]
    return {"first_seat_advantage": values[0]["float"] - sum(others) / len(others),
            "meaning": "seat 0's value minus the mean value of the other seats "
                       "(0: the first seat has no edge; in the units of the value)"}


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


def build_report(ruleset: Ruleset, *, against: Ruleset | None = None, max_states: int | None = None,
                 timeout: float | None = None, rank_timeout: float | None = RANK_BUDGET,
                 progress: Callable[[str, int, int | None], None] | None = None) -> dict[str, Any]:
    """Everything the page shows about ``ruleset`` (see the module docstring). ``progress`` is
    called as ``progress(phase, done, total)``. ``timeout`` bounds the whole report: verify, solve,
    the ranking (at most ``rank_timeout`` of it) and the comparison each get what is left."""
    from .analysis import compare_rulesets, side_summary, solve_ruleset
    from .verify import verify
    start = time.perf_counter()
    deadline = None if timeout is None else start + timeout

    def left() -> float | None:
        return None if deadline is None else max(0.001, deadline - time.perf_counter())
    spec = get_spec(ruleset.game)
    say = progress or (lambda *_: None)
    say("verify", 0, None)
    rep = verify(spec, ruleset, max_states=max_states, timeout=left(),
                 progress=(lambda n, pending, _s: say("verify: explore", n, n + pending)) if progress else None,
                 phase=(lambda what, done, total: say(f"verify: {what or 'checks'}", done, total))
                 if progress else None)
    say("solve", 0, None)
    with tempfile.TemporaryDirectory(prefix="ruleproof-report-") as tmp:
        folder = Path(tmp)
        solved = solve_ruleset(ruleset, max_states=max_states, timeout=left(), out_dir=folder, progress=progress)
        res = solved.doc()
        summary_file = folder / "policy_summary.txt"
        summary = summary_file.read_text() if summary_file.exists() else None
        pictures = _pictures(folder)
    values = _values(res)
    doc: dict[str, Any] = {
        "game": ruleset.game, "ruleset": ruleset.name, "config": ruleset.as_dict(),
        "title": spec.title, "description": ruleset.description,
        "verdict": rep.status, "states": rep.states, "notes": list(rep.notes),
        "properties": [p.as_dict() for p in rep.properties],
        "solve": {"partial": res["partial"], "reason": res["reason"], "engine": res["engine"],
                  "states": res["states"], "exact": res["exact"], "method": res["method"],
                  "meaning": res["meaning"], "note": res["extras"].get("note")},
        "values": values,
        "value_meaning": res["value_meaning"],
        "fairness": fairness(values),
        "length": game_length(solved) if values else None,
        "longest_play": next((p.data.get("longest_play") for p in rep.properties
                              if p.name == "termination" and p.data), None),
        "policy_summary": summary,
        "pictures": pictures,
    }
    if spec.schema.rulings and rank_timeout is not None and rank_timeout <= 0:   # ranking skipped
        doc["rulings"] = {"budget_seconds": 0, "reference": {}, "rows": [],
                          "not_ranked": [r.id for r in spec.schema.rulings]}
    else:
        budgets = [x for x in (rank_timeout, left()) if x is not None]
        doc["rulings"] = _rank(ruleset, min(budgets) if budgets else None, progress)
    if against is not None:
        say("compare", 0, None)
        cmp = compare_rulesets(against, ruleset, max_states=max_states, timeout=left(),
                               b_side=side_summary(ruleset, rep, solved))
        doc["against"] = {"ruleset": against.name, "source": against.source,
                          "verdict": cmp["a"]["verify"], "values": cmp["a"]["values"],
                          "changes": cmp["changes"], "regressions": cmp["regressions"]}
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


# ---- the page as neutral blocks -------------------------------------------------------------------

def _num(x: float | None, digits: int = 6) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _value_text(v: dict[str, Any]) -> str:
    return f"{v['float']:.9f}" + (f" = {v['fraction']}" if v.get("fraction") and len(v["fraction"]) <= 40 else "")


def page_blocks(doc: dict[str, Any]) -> list[tuple]:
    """The page, top to bottom, as blocks: ("h1"|"h2"|"p", text), ("table", headers, rows, classes),
    ("pre", text), ("img", caption, base64), ("trace", title, lines). Classes name each row's status."""
    b: list[tuple] = [("h1", f"{doc['ruleset']} — {doc['title']}")]
    params = ", ".join(f"{k}={v}" for k, v in doc["config"]["params"].items())
    b.append(("p", f"Game {doc['game']}; source {doc['config']['source']}. Parameters: {params}."))
    if doc.get("description"):
        b.append(("p", f"The ruleset file's description: {doc['description']}"))
    counts: dict[str, int] = {}
    for p in doc["properties"]:
        counts[p["evidence"]] = counts.get(p["evidence"], 0) + 1
    b.append(("verdict", doc["verdict"], f"Verdict: {doc['verdict']} — "
              + ", ".join(f"{n} {k}" for k, n in counts.items()) + f" ({len(doc['properties'])} properties)"))
    if doc.get("against"):
        a = doc["against"]
        reg = a["regressions"]
        b.append(("p", f"Against {a['ruleset']}: " + (f"{len(reg)} regression(s)." if reg else "nothing regressed.")))

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

    b.append(("h2", "Values and fairness"))
    s = doc["solve"]
    if not doc["values"]:
        b.append(("p", f"No values: the solve stopped ({s['reason'] or 'no values'}) after {s['states']} states."))
    else:
        how = ("exact fractions" if s["exact"] else "floating point") + (f"; {s['method']}" if s["method"] else "")
        b.append(("p", f"Optimal values from the start ({s['states']:,} states; {how}). "
                       f"A seat's value is: {doc['value_meaning']}."))
        b.append(("table", ["seat", "value"], [[str(v["seat"]), _value_text(v)] for v in doc["values"]],
                  None))
        f, length = doc["fairness"], doc["length"]
        if f:
            b.append(("p", f"First-seat advantage: {f['first_seat_advantage']:+.6f} — {f['meaning']}."))
        if length:
            b.append(("p", f"Expected game length: {length['value']:.3f} {length['unit']} — {length['how']}."))
        if s.get("note"):
            b.append(("p", s["note"]))
    if doc.get("longest_play") is not None:
        b.append(("p", f"Longest possible play: {doc['longest_play']} moves (the graph has no cycle)."))

    b.append(("h2", "Rulings ranked by impact"))
    r = doc.get("rulings")
    if r is None:
        b.append(("p", f"{doc['game']} has no rulings."))
    else:
        ref = r["reference"]
        if ref.get("values"):
            b.append(("p", "Each alternative reading solved on this configuration by the generic solver "
                           "(every seat playing optimally: where the game's own solver evaluates a set "
                           "policy, as Presentes' does, the reference differs from the values above); "
                           "ranked by the largest change of any seat's value, then of the expected "
                           "moves. Reference: "
                           + ", ".join(f"seat {i} {v:.6f}" for i, v in enumerate(ref["values"]))
                           + (f"; expected moves {ref['length']:.3f}" if ref.get("length") is not None else "")
                           + "."))
        elif ref.get("error"):
            b.append(("p", f"The configuration's own readings did not solve: {ref['error']}."))
        rows = []
        for row in r["rows"]:
            if "error" in row:
                rows.append([row["ruling"], row["alternative"], "-", row["error"], "-"])
            else:
                rows.append([row["ruling"], row["alternative"], _num(row["max_value_change"]),
                             " ".join(f"{d:+.6f}" for d in row["value_change"]),
                             "-" if row["length_change"] is None else f"{row['length_change']:+.4f}"])
        if rows:
            b.append(("table", ["ruling", "alternative", "max |Δ value|", "Δ value per seat", "Δ expected moves"],
                      rows, None))
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

    if doc.get("against"):
        a = doc["against"]
        ch = a["changes"]
        b.append(("h2", f"What changed from {a['ruleset']}"))
        edits = [f"{k}: {x} → {y}" for k, (x, y) in {**ch["params"], **ch["rulings"]}.items()]
        b.append(("p", "Edit: " + ("; ".join(edits) if edits else "none (the same parameters and rulings)") + "."))
        b.append(("p", f"Verdict: {a['ruleset']} {a['verdict']}, {doc['ruleset']} {doc['verdict']}."))
        rows = [[name, x or "absent", y or "absent"] for name, (x, y) in ch["properties"].items()]
        if rows:
            b.append(("table", ["property", a["ruleset"], doc["ruleset"]], rows, None))
        else:
            b.append(("p", "Every property has the same status."))
        for name in ch["substantive_details"]:
            x, y = ch["details"][name]
            b.append(("p", f"{name}: {a['ruleset']}: {x} — {doc['ruleset']}: {y}"))
        if a["values"] and doc["values"]:
            b.append(("table", ["seat", a["ruleset"], doc["ruleset"], "change"],
                      [[str(i), f"{x['float']:.9f}", f"{y['float']:.9f}", f"{y['float'] - x['float']:+.9f}"]
                       for i, (x, y) in enumerate(zip(a["values"], doc["values"]))], None))
        if a["regressions"]:
            b.append(("table", ["regression", "why"], [[x["property"], x["why"]] for x in a["regressions"]],
                      ["fails"] * len(a["regressions"])))
        else:
            b.append(("p", "Nothing regressed."))
    b.append(("p", f"Made by ruleproof report in {doc['seconds']:.1f} s."))
    return b


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
