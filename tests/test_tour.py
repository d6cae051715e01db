"""Every command of the README tour says what each figure is (issue 22, Deliver 1).

Each `ruleproof ...` line of the tour runs as written (in a scratch folder that sees the
repository's examples), as text and, where it does not ask for it already, with ``--json``; files
it writes (Markdown, HTML) are read too. It fails when

* a JSON estimate is malformed: a sampled or near-optimal one without its 95% interval (holding
  the mean, inside the figure's possible range), its games, seed and policy; a near-optimal one
  without the regret that applies; an exact one whose fraction is not its float; a value with a
  float and no kind (nor an exact fraction);
* a sampled or near-optimal figure appears in the text without its interval (its mean printed to
  more digits than the interval supports, or not followed by ±), or on a line calling it exact;
* a fraction longer than 20 characters appears as a headline in the text.

The tour's heavier commands (the full-size ones, every game's verify, the scenario check) are
marked slow; CI runs them.
"""
from __future__ import annotations

import json
import re
import shlex
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ruleproof.cli import app
from ruleproof.model.estimate import HEADLINE_FRACTION_DIGITS, KINDS, SAMPLED_KINDS, Estimate

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()

#: tour commands that take more than a few seconds (full-size rounds, every game, every scenario)
HEAVY = ("ruleproof verify", "solve pig --goal 100", "solve loira", "rulings rank presentes",
         "rulings check", "--players 32", "--against loira", "compare loira", "compare presentes-mini",
         "sweep pig --param goal=10..100", "board=mini,curta,media", "richer-stalls", "board-edit",
         "two-gritos")


def tour() -> list[str]:
    """The tour's `ruleproof` lines (comments dropped; lines naming files the repository does not
    have, such as `a.toml`, left out)."""
    text = (ROOT / "README.md").read_text()
    block = text.split("## A tour", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    lines = []
    for raw in block.splitlines():
        line = raw.split("  #", 1)[0].strip()
        if not line.startswith("ruleproof "):
            continue
        files = [w for w in shlex.split(line) if w.endswith((".toml", ".json")) and "/" not in w]
        if files:   # a.toml, my-rules.toml: placeholders for the reader's own files
            continue
        lines.append(line)
    return lines


def _heavy(line: str) -> bool:
    return line == "ruleproof verify" or any(h in line for h in HEAVY if h != "ruleproof verify")


def estimates(doc) -> list[dict]:
    """Every typed estimate in a JSON document, and every value-like mapping (one with a float)."""
    found = []
    if isinstance(doc, dict):
        # (a mapping whose "kind" names an evidence level but that carries no value -- a property
        # result's -- is not a figure)
        valued = "float" in doc or "mean" in doc
        if valued and ("kind" in doc and doc.get("kind") in KINDS or "fraction" in doc or "ci95" in doc):
            found.append(doc)
        for v in doc.values():
            found += estimates(v)
    elif isinstance(doc, list):
        for v in doc:
            found += estimates(v)
    return found


def check_json(doc) -> list[Estimate]:
    """The rules on every estimate of a JSON document; the sampled ones, for the text check."""
    sampled = []
    for d in estimates(doc):
        if d.get("kind") not in KINDS:
            assert d.get("fraction") and "ci95" not in d, f"an untyped figure: {d}"
            continue
        e = Estimate.from_dict(d)
        if e.kind == "exact":
            assert abs(float(Fraction(d["fraction"])) - e.value) <= 1e-9 * max(1.0, abs(e.value)), d
        elif e.kind == "solved":
            assert "tolerance" in d, d
        else:
            low, high = e.interval
            assert low <= e.value <= high, f"the interval does not hold the mean: {d}"
            assert e.games and e.games > 0 and e.seed is not None and e.policy, f"sample not named: {d}"
            if e.bounds is not None:
                assert e.bounds[0] <= low and high <= e.bounds[1], f"interval beyond the possible range: {d}"
            if e.kind == "near-optimal":
                assert isinstance(d.get("regret"), dict) and "applies" in d["regret"], d
                assert not d["regret"]["applies"] or d["regret"]["value"] is not None, d
            sampled.append(e)
    return sampled


_EXACT_WORD = re.compile(r"\bexact\b(?! engines)")


def check_text(text: str, sampled: list[Estimate], exact_fractions: list[str]) -> None:
    for e in sampled:
        shown = e.number()
        # more digits than the interval supports (a whole value, 0 or 1, is skipped: "1.000" is then
        # as likely another figure of the page as this one)
        for digits in range(e.decimals() + 1, 10) if e.value != round(e.value) else ():
            token = f"{e.value:.{digits}f}"
            # a figure followed by its own half-width at the same digits is another estimate that
            # supports them (L30's -0.17 ± 0.11 beside L01's -0.2 ± 1.0), not this one overstated
            for m in re.finditer(rf"(?<![\d.]){re.escape(token)}(?!\d)(\s*± (\d+\.?(\d*)))?", text):
                assert m.group(1) and len(m.group(3)) == digits, \
                    f"{token} printed without its interval (it is {e.text()})"
        for line in text.splitlines():
            if shown in line:
                assert not _EXACT_WORD.search(line.replace("not exact", "")), f"a sampled figure called exact: {line}"
        token = f"{e.value:.{e.decimals()}f}"
        for m in re.finditer(rf"(?<![\d.\-+]){re.escape(token)}(?!\d)", text):
            after = text[m.end():m.end() + 6]
            before = text[max(0, m.start() - 2):m.start()]
            # (or the half-width itself, when it prints as the value does: 0.0000 ± 0.0000; or the
            # interval itself where a side of it is open: 12.0 [10.9, inf), 0.000 (-inf, inf))
            assert after.startswith((" ±", " [", " (-inf")) or before.endswith("[") or before.endswith(", ") \
                or before.endswith("± "), \
                f"{token} without ± (it is {e.text()}): ...{text[max(0, m.start() - 60):m.end() + 20]}..."
    if sampled:
        assert any(w in text for w in ("sampled", "simulated", "near-optimal")), "sampled figures not said to be"
    for frac in exact_fractions:
        assert frac not in text, f"a {len(frac)}-character fraction printed as a headline"


def run_line(line: str, folder: Path) -> None:
    argv = shlex.split(line)[1:]
    docs = []
    result = runner.invoke(app, argv)
    assert result.exit_code in (0, 1), (line, result.stdout, result.stderr)
    text = result.stdout
    for flag in ("--md", "--html"):
        if flag in argv:
            text += (folder / argv[argv.index(flag) + 1]).read_text()
    if "--json" in argv:
        docs.append(json.loads(result.stdout))
        text = ""
    else:
        json_argv = [a for a in argv]
        for flag in ("--md", "--html", "--plot", "--out"):   # the files are written by the text run
            if flag in json_argv:
                i = json_argv.index(flag)
                del json_argv[i:i + 2]
        if json_argv[0] == "export":
            json_argv = [a if not a.endswith(".drn") else str(folder / "again.drn") for a in json_argv]
        res = runner.invoke(app, json_argv + ["--json"] + (["--no-files"] if json_argv[0] == "solve" else []))
        if res.exit_code in (0, 1) and res.stdout.lstrip().startswith("{"):
            docs.append(json.loads(res.stdout))
    sampled, long_fractions = [], []
    for doc in docs:
        sampled += check_json(doc)
        long_fractions += [d["fraction"] for d in estimates(doc)
                           if d.get("kind") == "exact" and len(d["fraction"]) > HEADLINE_FRACTION_DIGITS]
    check_text(text, sampled, long_fractions if argv[0] in ("solve", "compare", "report", "sweep") else [])


@pytest.fixture
def folder(tmp_path, monkeypatch):
    (tmp_path / "model").symlink_to(ROOT / "model")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("line", [pytest.param(x, marks=pytest.mark.slow) if _heavy(x) else x for x in tour()])
def test_the_tour_says_what_every_figure_is(line, folder):
    run_line(line, folder)


def test_the_checker_catches_a_bare_sample():
    """The rule has teeth: a sampled value printed to 9 digits, or as exact, or out of its range."""
    from ruleproof.model.estimate import sampled
    e = sampled(0.087, (-0.32, 0.494), 23, seed=1, policy="near-optimal", bounds=(-1, 1))
    with pytest.raises(AssertionError):
        check_text("seat 0: 0.087000000", [e], [])
    with pytest.raises(AssertionError):
        check_text("seat 0: 0.09 ± 0.41 (exact)", [e], [])
    with pytest.raises(AssertionError):
        check_text("seat 0: 0.09 and more", [e], [])
    check_text("seat 0: 0.09 ± 0.41 (sampled: 95% interval [-0.32, 0.49], 23 games)", [e], [])
    with pytest.raises(AssertionError):
        check_json({"values": [{"kind": "sampled", "float": 0.9, "fraction": None, "ci95": [0.7, 1.1],
                                "games": 20, "seed": 1, "policy": "p", "bounds": [-1, 1]}]})
    with pytest.raises(AssertionError):
        check_json({"values": [{"float": 0.087, "fraction": None}]})
    with pytest.raises(AssertionError):
        check_text("seat 0: 0.2 = 1234567890123456789012/3", [], ["1234567890123456789012/3"])
