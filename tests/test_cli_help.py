"""A CLI that explains itself: help on every option, each game's parameters, rulings and policies
listed, --version, and "did you mean" on misspelt names."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
import typer
from typer.testing import CliRunner

from ruleproof.cli import app, game_policies
from ruleproof.model.registry import all_specs

runner = CliRunner()
WIDE = {"COLUMNS": "200", "TERM": "dumb"}


def run(*args):
    return runner.invoke(app, list(args), env=WIDE)


def commands(group, prefix=()):
    yield prefix, group
    if hasattr(group, "commands"):
        for name, sub in group.commands.items():
            yield from commands(sub, prefix + (name,))


ALL = list(commands(typer.main.get_command(app)))
assert len(ALL) >= 10 and sum(len(c.params) for _, c in ALL) > 40


def test_every_option_and_argument_of_every_command_has_help():
    missing = [f"{' '.join(path) or 'ruleproof'} {p.name}" for path, cmd in ALL for p in cmd.params
               if not (getattr(p, "help", None) or "").strip() and p.name != "help"]
    assert not missing, missing


@pytest.mark.parametrize("path", [p for p, _ in ALL], ids=lambda p: " ".join(p) or "ruleproof")
def test_no_help_screen_shows_a_bool_metavar(path):
    result = run(*path, "--help")
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.output and "Usage" in result.output


@pytest.mark.parametrize("spec", all_specs(), ids=lambda s: s.name)
def test_games_game_lists_every_parameter_ruling_and_policy(spec):
    text = run("games", spec.name).output
    for p in spec.schema.params:
        assert f"--{p.name.replace('_', '-')}" in text and p.description[:20] in text
    for r in spec.schema.rulings:
        assert r.id in text
    for policy in game_policies(spec):
        assert policy in text
    doc = json.loads(run("games", spec.name, "--json").stdout)["games"]
    assert [d["game"] for d in doc] == [spec.name] and doc[0]["policies"] == game_policies(spec)


@pytest.mark.parametrize("command", [("solve",), ("verify",), ("simulate",), ("compare",),
                                     ("rulings", "diff"), ("rulings", "rank")])
def test_commands_that_take_game_parameters_list_them_in_their_help(command):
    text = " ".join(run(*command, "--help").output.split())   # undo the wrapping
    for spec in all_specs():
        assert f"{spec.name}:" in text
        for p in spec.schema.params:
            assert f"--{p.name.replace('_', '-')} (" in text
        assert ", ".join(game_policies(spec)) in text


def test_version():
    from importlib.metadata import version
    result = run("--version")
    assert result.exit_code == 0 and result.stdout.strip() == f"ruleproof {version('ruleproof')}"


@pytest.mark.parametrize("args, hint", [
    (("solve", "pgi", "--no-files"), "did you mean 'pig'?"),
    (("solve", "pig", "--gaol", "10", "--no-files"), "did you mean 'goal'?"),
    (("solve", "loira", "--ruling", "L4=yes", "--no-files"), "did you mean 'L04'?"),
    (("solve", "presentes", "--ruling", "P23=redrw", "--no-files"), "did you mean 'redraw'?"),
    (("games", "lora"), "did you mean 'loira'?"),
])
def test_did_you_mean(args, hint):
    result = subprocess.run([sys.executable, "-c", "import cli; cli.main()", *args], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 2 and hint in result.stderr and result.stderr.count("\n") == 1


def test_rulings_list_text_shows_cited_sentences_and_option_meanings():
    text = " ".join(run("rulings", "list", "presentes").output.split())
    from ruleproof.model.registry import get_spec
    p23 = get_spec("presentes").schema.ruling_index["P23"]
    assert " ".join(p23.cites.split())[:30] in text
    for option, meaning in p23.options.items():
        assert f"{option}: {' '.join(meaning.split())[:20]}" in text
