"""``ruleproof report``: the page's content, its exit codes, and the HTML as a real browser shows it."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from ruleproof.cli import app
from ruleproof.model.registry import get_spec
from ruleproof.solver.page import build_report, page_blocks, render_html, render_markdown

runner = CliRunner()
CHROMIUM = Path("/usr/bin/chromium")
BROWSER_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def run(*args):
    return runner.invoke(app, list(args))


@pytest.fixture(scope="module")
def pig_page(tmp_path_factory):
    """Pig to 12: one report, written as HTML and Markdown (about 3 s)."""
    folder = tmp_path_factory.mktemp("report")
    html, md = folder / "pig.html", folder / "pig.md"
    result = run("report", "pig", "--goal", "12", "--html", str(html), "--md", str(md))
    assert result.exit_code == 0, result.stdout
    return result, html, md


def test_report_pig_content(pig_page):
    result, html, md = pig_page
    assert "report pig: verdict holds" in result.stdout
    page = html.read_text()
    # self-contained: no external resource of any kind
    assert not re.search(r"""(src|href)\s*=\s*["'](?!data:)""", page)
    assert "<style>" in page and "data:image/png;base64," in page
    text = md.read_text()
    # Pig to 12: P(first player wins) = 1296/1895, cross-checked against the solve command's value
    solved = json.loads(run("solve", "pig", "--goal", "12", "--no-files", "--json").stdout)
    assert solved["values"][0]["fraction"] == "1296/1895"
    assert "0.683905013 = 1296/1895" in text and "599/1895" in text
    advantage = float(Fraction(1296, 1895) - Fraction(599, 1895))
    assert f"First-seat advantage: {advantage:+.6f}" in text
    assert "Expected game length:" in text and "moves" in text
    for name in ("pig-state-invariant", "pig-turn-progress", "termination", "legal-actions"):
        assert name in text
    assert "pig has no rulings" in text
    assert "The optimal player never holds" in text   # the policy summary of goal 12


def test_report_markdown_and_html_say_the_same():
    """Both renderers lay out the same blocks: every paragraph of the one is in the other."""
    spec = get_spec("pig")
    rs = spec.default().with_overrides({"goal": 6}, spec=spec.schema)
    doc = build_report(rs)
    html, md = render_html(doc), render_markdown(doc)
    import html as htmllib
    for block in page_blocks(doc):
        if block[0] == "p":
            assert block[1] in md and htmllib.escape(block[1]) in html


def test_report_exit_codes_and_json(tmp_path):
    # a state limit too small to explore or solve: verify decides what it can on sampled plays
    # (each property's evidence says so), and the values are simulated as sweep and compare
    # simulate them, the page saying so (sampled, with the interval, the games, the seed and the
    # policy) and why the exact engines stopped
    page = tmp_path / "p.md"
    result = run("report", "pig", "--max-states", "10", "--games", "300", "--seed", "3", "--md", str(page))
    # the three-seat companion cannot be explored within 10 states either: undecided, so the
    # verdict is unknown (exit 1), never green with a companion unchecked
    assert result.exit_code == 1 and "verdict unknown" in result.stdout
    assert "| ? | companion [companion: 3 players" in page.read_text()
    assert "sampled" in page.read_text().split("## Values and fairness")[0]
    assert "values not computed" not in result.stdout
    text = page.read_text()
    assert "Values sampled" in text and "state limit 10" in text
    assert "300 games, seed 3, policy random" in text and "95% interval [" in text
    assert "exact" not in text.split("## Values and fairness")[1].split("##")[0].replace("exact engines", "")
    doc = json.loads(run("report", "pig", "--goal", "6", "--json").stdout)
    assert doc["verdict"] == "holds" and doc["pictures"][0]["file"] == "policy.png"
    assert doc["pictures"][0]["bytes"] > 1000 and "png_base64" not in doc["pictures"][0]
    # stdout gets the Markdown when no file is named
    plain = run("report", "pig", "--goal", "6")
    assert plain.exit_code == 0 and plain.stdout.startswith("# pig")


def test_report_against_names_the_edit_and_its_regressions(tmp_path):
    """A 4-faced die against the 6-faced one: values change; nothing regresses (exit 0). A
    ruleset whose limit leaves B undecided regresses (exit 1), as compare."""
    edit = tmp_path / "d4.toml"
    edit.write_text('extends = "pig"\nname = "pig-d4"\n[params]\nfaces = 4\n')
    result = run("report", str(edit), "--goal", "8", "--against", "pig")
    assert result.exit_code == 0, result.stdout
    assert "What changed from pig" in result.stdout and "faces 6 -> 4" in result.stdout
    assert "Nothing regressed." in result.stdout
    # Loira's tiny deck (one Grito: the deck can run out) against the same deck with three Gritos
    # (it cannot): B fails a property A holds, a regression, exit 1, as compare
    three = tmp_path / "three-gritos.toml"
    three.write_text('extends = "loira"\nname = "three-gritos"\n[params]\nplayers = 2\n'
                     'deck = ["F1", "F2", "M1", "grito", "grito", "grito"]\nstalls = [2, 4]\ncentre_rolls = 1\n')
    bad = run("report", "model/loira/examples/tiny.toml", "--against", str(three), "--rank-timeout", "0", "--json")
    assert bad.exit_code == 1
    regressions = json.loads(bad.stdout)["against"]["regressions"]
    # (A proves it for three Gritos, `loira-deck-never-empty`; B's explored check of the same claim fails)
    assert {"property": "deck-never-empty", "a": None, "b": "fails", "why": "B fails it"} in regressions


def test_report_bad_input():
    result = run("report", "pig", "--html", ".")
    assert result.exit_code == 2 and "is a folder" in result.stderr
    result = run("report", "pig", "--against", "loira")
    assert result.exit_code == 2 and "--against" in result.stderr


needs_chromium = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium "
                                    "(/usr/bin/chromium): apt-get install -y chromium (.ci/run installs it)")


def browser_view(html: Path, folder: Path) -> tuple[np.ndarray, str]:
    """The page as headless Chromium renders it: the screenshot's pixels and the DOM's text."""
    import matplotlib.image as mpimg
    shot = folder / "page.png"
    flags = BROWSER_FLAGS + [f"--user-data-dir={folder / 'profile'}"]
    subprocess.run([str(CHROMIUM), *flags, f"--screenshot={shot}", "--window-size=1200,2000",
                    html.as_uri()], check=True, capture_output=True, timeout=120)
    if shutil.which("file"):
        assert "PNG image data" in subprocess.run(["file", str(shot)], capture_output=True, text=True).stdout
    dom = subprocess.run([str(CHROMIUM), *flags, "--dump-dom", html.as_uri()], check=True,
                         capture_output=True, text=True, timeout=120).stdout
    return mpimg.imread(shot), re.sub(r"<[^>]+>", " ", dom)


def assert_real_picture(pixels: np.ndarray, badge: str) -> None:
    """Not blank: not one flat colour, some dark ink (text, the policy picture), and the verdict
    badge's colour on screen."""
    assert pixels.shape[:2] == (2000, 1200)
    grey = pixels[..., :3].mean(axis=2)
    assert grey.std() > 0.05 and (grey < 0.5).mean() > 0.005
    colour = np.array([int(badge[i:i + 2], 16) for i in (1, 3, 5)]) / 255
    assert np.all(np.abs(pixels[..., :3] - colour) < 0.02, axis=2).sum() > 500


@needs_chromium
def test_report_html_in_a_headless_browser(pig_page, tmp_path):
    """Pig: a screenshot that is a real, non-blank picture, and the DOM's text carrying the
    ruleset, the verdict, a property and the exact value."""
    _, html, _ = pig_page
    pixels, text = browser_view(html, tmp_path)
    assert_real_picture(pixels, "#dff3e3")          # the green "holds" badge
    assert "pig — Pig" in text and "Verdict: holds" in text
    assert "pig-state-invariant" in text and "1296/1895" in text


@needs_chromium
def test_loira_report_in_a_headless_browser(tmp_path):
    """Loira's tiny example: the deck can run out, so the verdict is fails (exit 1), with its
    counterexample and the reach-weighted stop-rule summary on the page."""
    html = tmp_path / "loira.html"
    result = run("report", "model/loira/examples/tiny.toml", "--html", str(html), "--rank-timeout", "0")
    assert result.exit_code == 1 and "verdict fails" in result.stdout
    pixels, text = browser_view(html, tmp_path)
    assert_real_picture(pixels, "#fde8e8")          # the red "fails" badge
    assert "loira-tiny — Loira do Banheiro" in text and "Verdict: fails" in text
    assert "Counterexample for deck-never-empty" in text and "38/405" in text
    assert "Not ranked within the budget of 0 s" in text


@pytest.mark.slow
@needs_chromium
def test_presentes_report_in_a_headless_browser(tmp_path):
    """Presentes' small configuration (about 13 s, most of it ranking the rulings)."""
    html = tmp_path / "presentes.html"
    result = run("report", "presentes", "--html", str(html), "--rank-timeout", "10")
    assert result.exit_code == 0, result.stdout
    pixels, text = browser_view(html, tmp_path)
    assert_real_picture(pixels, "#dff3e3")
    assert "presentes — Presentes (the gift race)" in text and "Verdict: holds" in text
    # (the exact length is printed to its digits: 4.604710583 turns, exact)
    assert "z3-gift-conservation" in html.read_text() and "Expected game length: 4.6047" in text
