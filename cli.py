"""ruleproof's command line: parse, call the library, print, map errors to exit codes.

Exit codes: 0 success (every property holds); 1 a property fails or is unproven, a regression
scenario changed, or a limit (--max-states, --timeout, memory) stopped the command (the partial
result is marked); 2 bad input (one line on stderr naming the file, key and reason), or stdout
cannot be written; 3 internal error; 130 Ctrl-C; 141 stdout closed by its reader (quietly).
Game parameters not named below are passed as ``--name value`` (e.g. ``--goal 100``) and validated
by the game; rulings as ``--ruling ID=OPTION``.
"""
from __future__ import annotations

import json
import os
import sys
import time

_STARTED = time.monotonic()  # --timeout counts from here: the whole command

from ruleproof.solver import runtime  # noqa: E402

if __name__ == "__main__":
    runtime.early_sigint()   # `python -m ruleproof.cli`: Ctrl-C while the libraries load ends it once armed

from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ruleproof.model.registry import GAMES, all_specs, get_spec, load_ruleset
from ruleproof.model.ruleset import Ruleset, RulesetError, did_you_mean
from ruleproof.model.results import FAILS, HOLDS, UNKNOWN
from ruleproof.solver import arguments


class OneLineErrors(typer.core.TyperGroup):
    """The command group: called directly (``app([...])``, as tests and library users do), a usage
    error is the same one line and exit 2 as from the console script (``_guarded``), not Typer's
    boxed help screen."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        sys.exit(_guarded(list(args) if args is not None else None))


app = typer.Typer(add_completion=False, no_args_is_help=True, cls=OneLineErrors,
                  help="ruleproof: a formal rules verifier and exhaustive solver for tabletop games.")
rulings_app = typer.Typer(add_completion=False, no_args_is_help=True,
                          help="The rulings catalog: list, diff one ruling's readings, check regressions.")
app.add_typer(rulings_app, name="rulings")
out = Console()
err = Console(stderr=True)
EXTRA = {"allow_extra_args": True, "ignore_unknown_options": True}
MAX_GAMES = arguments.MAX_GAMES  # simulate --games: beyond this a run takes days; --timeout bounds the rest


try:   # the click Typer runs on: its own copy since typer 0.28
    from typer._click.types import ParamType
except ImportError:  # pragma: no cover - older typer
    from click import ParamType


class Checked(ParamType):
    """An option checked by one of ``solver/arguments.py``'s functions as it is parsed, so every
    command gives the same argument the same answer, before any work; a refusal is Typer's
    one-line usage error ("Invalid value for '--timeout': ...")."""

    def __init__(self, check, metavar: str, **options):
        self.check, self.name, self.options = check, metavar, options

    def convert(self, value, param, ctx):
        flag = max(param.opts, key=len) if param is not None and param.opts else self.name
        try:
            return self.check(value, flag, **self.options)
        except RulesetError as exc:
            raise typer.BadParameter(exc.reason, ctx=ctx, param=param) from None


SECONDS = Checked(arguments.seconds, "SECONDS")
SECONDS_OR_ZERO = Checked(arguments.seconds, "SECONDS", zero=True)
STATES = Checked(arguments.max_states, "N")
GAME_COUNT = Checked(arguments.games, "N")
OUT_FILE = Checked(arguments.output_file, "FILE")
PLOT_FILE = Checked(arguments.output_file, "FILE", formats=arguments.PLOT_FORMATS)
OUT_FOLDER = Checked(arguments.output_folder, "DIR")
SAMPLE_HELP = ("games wherever values are sampled: simulated where the exact engines stop, and the "
               "games of an engine that samples (default: its own fixed count)")

# Help screens: a flag takes no value, so it shows no "<bool>" type (Typer shows one by default).
# (typer 0.29 added the hook; older releases show no type for flags already)
_display_type = getattr(typer.core.TyperOption, "display_type_rich", None)
if _display_type is not None:
    typer.core.TyperOption.display_type_rich = (
        lambda self, ctx: None if self.is_flag else _display_type(self, ctx))


def game_help() -> str:
    """Each game's parameters (--NAME VALUE), rulings and policies, for the help of the commands that
    take them (built when a help screen is shown: it imports every game)."""
    lines = ["Game parameters are passed as --NAME VALUE, rulings as --ruling ID=OPTION; "
             "`ruleproof games GAME` shows one game in full.", ""]
    for spec in all_specs():
        params = "; ".join(f"--{p.name.replace('_', '-')} ({p.description}; default {_short(p.default)})"
                           for p in spec.schema.params)
        ids = [r.id for r in spec.schema.rulings]
        rulings = f"{ids[0]}-{ids[-1]} ({len(ids)})" if len(ids) > 2 else ", ".join(ids) or "none"
        lines.append(f"{spec.name}: {params}. Rulings: {rulings}. Policies (--policy): "
                     f"{', '.join(game_policies(spec))}.")
        lines.append("")
    return "\n".join(lines)


def _short(value: Any) -> str:
    text = ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def game_policies(spec) -> list[str]:
    """The names ``--policy`` accepts for a game (simulate)."""
    from ruleproof.solver.montecarlo import policy_names
    return policy_names(spec)


def game_engines(spec) -> list[str]:
    """The engines ``solve`` tries for a game, in order."""
    from ruleproof.solver.analysis import engines_of
    return [e.name for e in engines_of(spec)]


class GameCommand(typer.core.TyperCommand):
    """A command that takes game parameters: its help ends with every game's parameters, rulings
    and policies."""

    def format_help(self, ctx, formatter):
        self.epilog = game_help()
        return super().format_help(ctx, formatter)


GAME_COMMAND = dict(context_settings=EXTRA, cls=GameCommand)


def show_version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version
        try:
            number = version("ruleproof")
        except PackageNotFoundError:  # running from a checkout that was never installed
            number = "unknown (not installed)"
        sys.stdout.write(f"ruleproof {number}\n")
        raise typer.Exit(0)


@app.callback()
def _options(version_: bool = typer.Option(False, "--version", callback=show_version, is_eager=True,
                                           help="print the version and exit")) -> None:
    """ruleproof: a formal rules verifier and exhaustive solver for tabletop games."""


class Exit(Exception):
    def __init__(self, code: int):
        self.code = code


#: the ruleset(s) the running command works on, for a result a limit cuts short
_current: dict[str, Any] = {}


def say_error(message: str) -> None:
    """One unwrapped line on stderr (Rich would wrap it to the terminal width)."""
    sys.stderr.write(message.replace("\n", " ") + "\n")


def fail_input(message: str) -> None:
    say_error(f"error: {message}")
    raise Exit(2)


def parse_extra(args: list[str]) -> dict[str, str | None]:
    """``--name value`` / ``--name=value`` pairs left over by Typer, as game parameter overrides."""
    params: dict[str, str | None] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("--") or len(arg) < 3:
            fail_input(f"command line: {arg}: unexpected argument")
        name, eq, value = arg[2:].partition("=")
        if not eq:
            if i + 1 >= len(args) or args[i + 1].startswith("--"):
                value = None  # reported below, once the game says whether it knows the name
            else:
                value = args[i + 1]
                i += 1
        params[name.replace("-", "_")] = value
        i += 1
    return params


def split_positionals(args: list[str]) -> tuple[list[str], list[str]]:
    """Leftover arguments that are not ``--name value`` pairs (commands with a positional after
    the game parameters), and the pairs themselves for ``parse_extra``."""
    positionals, pairs = [], []
    i = 0
    while i < len(args):
        if args[i].startswith("--"):
            pairs.append(args[i])
            if "=" not in args[i] and i + 1 < len(args) and not args[i + 1].startswith("--"):
                pairs.append(args[i + 1])
                i += 1
        else:
            positionals.append(args[i])
        i += 1
    return positionals, pairs


def resolve(target: str, players: Optional[int], extra: list[str], rulings: list[str] | None = None,
            small: bool = False, opposite: str | None = None) -> Ruleset:
    """A ruleset from a game, built-in ruleset or TOML path, with command-line overrides. With
    ``small`` (the commands that verify, compare or sweep) a bare game name is read by
    ``solver.compare.target_ruleset``: its default small configuration, or opposite a ruleset
    (``opposite``: the other side of a comparison) the built-in ruleset; ``_current["why"]``
    keeps the reason, which those commands print."""
    if small:
        from ruleproof.solver.compare import target_ruleset
        ruleset, why = target_ruleset(target, opposite)
        _current.setdefault("why", {})[target] = why
    else:
        ruleset = load_ruleset(target)
    spec = get_spec(ruleset.game)
    params: dict[str, Any] = {}
    for name, value in parse_extra(extra).items():
        if value is None:
            if name not in spec.schema.param_index:
                fail_input(f"command line: --{name.replace('_', '-')}: no such option or "
                           f"{spec.name} parameter{did_you_mean(name, spec.schema.param_index)} "
                           f"(parameters: {', '.join(spec.schema.param_index)})")
            fail_input(f"command line: --{name.replace('_', '-')}: needs a value")
        params[name] = value
    if players is not None:
        params["players"] = players
    ruling_overrides = {}
    for item in rulings or []:
        rid, eq, option = item.partition("=")
        if not eq:
            fail_input(f"command line: --ruling: expected ID=OPTION, got {item!r}")
        ruling_overrides[rid] = option
    if params or ruling_overrides:
        ruleset = ruleset.with_overrides(params, ruling_overrides, spec=spec.schema)
    _current["ruleset"] = ruleset
    return ruleset


def check_limits(max_states: Optional[int], timeout: Optional[float]) -> None:
    """--max-states and --timeout must be positive when given (a zero or negative limit is a typo)."""
    if max_states is not None and max_states < 1:
        fail_input(f"command line: --max-states: must be a positive integer, not {max_states}")
    if timeout is not None and not timeout > 0:
        fail_input(f"command line: --timeout: must be a positive number of seconds, not {timeout}")


def time_left(timeout: Optional[float]) -> Optional[float]:
    """What is left of --timeout, counted from the command's start (it bounds the whole command)."""
    if timeout is None:
        return None
    return max(0.001, timeout - (time.monotonic() - runtime.command_started()))


def emit(doc: dict[str, Any]) -> None:
    # marked before writing: a limit that strikes after this adds no second document
    _current["emitted"] = True
    sys.stdout.write(json.dumps(doc, indent=1, default=str) + "\n")


@contextmanager
def progress_bar(enabled: bool):
    """A Rich progress bar on a terminal (stderr); None elsewhere."""
    if not enabled or not err.is_terminal:
        yield None
        return
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err, transient=True) as bar:
        task = bar.add_task("starting", total=None)

        def update(phase: str, done: int, total: int | None = None) -> None:
            bar.update(task, description=escape(phase), completed=done, total=total)
        yield update


def partial_document(reason: str) -> dict[str, Any]:
    """What a limit leaves of the running command, as one JSON document: the ruleset it worked on
    and the rows it had finished (``_current["kept"]``: a key and a list the command appends to,
    such as sweep's points or rulings diff's diffs)."""
    rs = _current.get("ruleset")
    doc = {"game": rs.game if rs else None, "ruleset": rs.name if rs else None,
           "config": rs.as_dict() if rs else {}, "partial": True, "reason": reason, "values": None,
           "seconds": round(time.monotonic() - runtime.command_started(), 4)}
    if "kept" in _current:
        key, rows = _current["kept"]
        doc[key] = list(rows)
    return doc


def partial_text(reason: str) -> str:
    key, rows = _current.get("kept", ("", ()))
    kept = f"{len(rows)} {key} finished before it (--json lists them)" if rows else "no complete result"
    return f"partial result: {reason}; {kept}"


def stopped_by_limit(reason: str, as_json: bool) -> None:
    """A limit cut the command short: a marked partial result on stdout, exit 1 (nothing more
    when the command had printed its document already, the limit striking as it ended)."""
    if _current.get("emitted"):
        raise Exit(runtime.EXIT_LIMIT)
    if as_json:
        emit(partial_document(reason))
    else:
        out.print(partial_text(reason), markup=False, highlight=False, soft_wrap=True)
    raise Exit(runtime.EXIT_LIMIT)


def library_failed(exc: ImportError) -> int:
    """A library that cannot load (a broken install, a tight memory limit): one line; its code."""
    hint = " (out of memory? raise memory)" if "memory" in str(exc).lower() or "allocate" in str(exc).lower() else ""
    say_error(f"error: cannot load a library: {exc}{hint}")
    return runtime.EXIT_LIMIT if hint else 3


def run(fn, *args, timeout: float | None = None, as_json: bool = False, **kwargs) -> None:
    """Run a command body: bad input exits 2, a limit (``timeout`` bounds the whole command, see
    solver/runtime.py; memory) exits 1 with a marked partial result, Ctrl-C exits 130. A body loads
    its libraries itself, so that loading them counts toward ``--timeout`` and Ctrl-C too."""
    _current.clear()
    out_of_memory = False

    def hard_stop() -> None:  # the watchdog's last word when C code ignores the time limit
        reason = f"time limit {timeout:g} s reached"
        if as_json and _current.get("emitted"):
            return   # the document is out already: one JSON document, never two
        text = json.dumps(partial_document(reason), indent=1, default=str) if as_json else partial_text(reason)
        try:
            sys.stdout.flush()
        except BaseException:  # noqa: BLE001 - the main thread may hold the stream; write anyway
            pass
        os.write(1, (text + "\n").encode())
    try:
        try:
            with runtime.time_limit(timeout, hard_stop), runtime.stops_surface():
                fn(*args, **kwargs)
        except runtime.TimeLimit as e:
            stopped_by_limit(str(e), as_json)
        except MemoryError:
            out_of_memory = True   # handled below, once the exception's frames are freed
        if out_of_memory:
            import gc
            gc.collect()
            stopped_by_limit("out of memory (lower --max-states or raise memory)", as_json)
    except Exit as e:
        raise typer.Exit(e.code)
    except RulesetError as e:
        say_error(f"error: {e}")
        raise typer.Exit(2)
    except (runtime.Interrupted, KeyboardInterrupt):
        runtime.say_interrupted()
        raise typer.Exit(runtime.EXIT_INTERRUPTED)
    except (typer.Exit, runtime.StdoutFailed):
        raise
    except ImportError as e:
        raise typer.Exit(library_failed(e))
    except Exception as e:  # noqa: BLE001 - the last resort: one line, no traceback
        if runtime.interrupted():
            runtime.say_interrupted()
            raise typer.Exit(runtime.EXIT_INTERRUPTED)
        say_error(f"internal error: {type(e).__name__}: {e}")
        raise typer.Exit(3)


# ---- games ----------------------------------------------------------------------------------------

@app.command()
def games(game: Optional[str] = typer.Argument(None, help="one game (or one of its rulesets) in full: "
                                              "each parameter with its meaning, rulings, policies"),
          as_json: bool = typer.Option(False, "--json", help="print one JSON document")) -> None:
    """Games, their built-in rulesets, parameters, rulings (defaults first) and policies."""
    def body():
        docs = []
        specs = [get_spec(load_ruleset(game).game)] if game else all_specs()
        for spec in specs:
            docs.append({
                "game": spec.name, "title": spec.title, "summary": spec.summary,
                "rulesets": spec.builtin_rulesets(), "default_ruleset": spec.default_ruleset,
                "params": [{"name": p.name, "default": p.default, "description": p.description}
                           for p in spec.schema.params],
                "rulings": [{"id": r.id, "question": r.question, "default": r.default,
                             "alternatives": list(r.alternatives)} for r in spec.schema.rulings],
                "policies": game_policies(spec), "engines": game_engines(spec)})
        if as_json:
            emit({"games": docs})
            return
        for d in docs:
            out.print(f"[bold]{d['game']}[/bold] — {d['title']}: {d['summary']}")
            out.print(f"  rulesets: {', '.join(d['rulesets'])}")
            if game:   # one game: every parameter with its meaning
                out.print("  parameters (--NAME VALUE):")
                for p in d["params"]:
                    out.print(f"    --{p['name'].replace('_', '-')} (default {_short(p['default'])}): "
                              f"{p['description']}", markup=False, highlight=False)
            else:
                out.print("  params: " + ", ".join(f"{p['name']}={p['default']}" for p in d["params"]))
            out.print(f"  policies (simulate --policy): {', '.join(d['policies'])}", markup=False,
                      highlight=False)
            out.print(f"  engines (solve --engine, first that applies by default): {', '.join(d['engines'])}",
                      markup=False, highlight=False)
            if d["rulings"]:
                out.print(f"  rulings ({len(d['rulings'])}; default first, then the alternatives):")
            for r in d["rulings"]:
                others = f"  | {', '.join(r['alternatives'])}" if r["alternatives"] else ""
                out.print(f"    {r['id']} {r['question']}: {r['default']}{others}",
                          markup=False, highlight=False)
    run(body)


# ---- verify ---------------------------------------------------------------------------------------

CACHE_HELP = ("a folder keeping verify results and values between commands (keyed by the configuration, "
              "the options and the code; made when new; only its own files are read or written)")


def results_cache(folder: Optional[Path]):
    """The command's result cache (solver/cache.py), kept in ``folder`` too when given."""
    from ruleproof.solver.cache import scope
    return scope(folder)


@app.command(**GAME_COMMAND)
def verify(ctx: typer.Context,
           target: Optional[str] = typer.Argument(None, help="game, built-in ruleset or RULESET.toml; "
                                                  "omitted: every built-in game"),
           players: Optional[int] = typer.Option(None, "--players", help="number of players"),
           ruling: Optional[list[str]] = typer.Option(None, "--ruling", help="ID=OPTION"),
           max_states: Optional[int] = typer.Option(None, "--max-states", click_type=STATES, help="state limit"),
           timeout: Optional[float] = typer.Option(None, "--timeout", click_type=SECONDS,
                                                   help="seconds for the whole command (games share it)"),
           cache_dir: Optional[Path] = typer.Option(None, "--cache", help=CACHE_HELP),
           as_json: bool = typer.Option(False, "--json", help="print one JSON document")) -> None:
    """Exhaustive invariant checks and Z3 proofs on each game's default small configuration."""
    def body():
        from ruleproof.solver.verify import overall_status, verify_document
        from ruleproof.solver.compare import verified
        start = time.perf_counter()
        check_limits(max_states, timeout)
        if target is not None and not target.strip():
            fail_input("command line: TARGET: empty; give a game, a built-in ruleset or a .toml file")
        targets = [target] if target else list(GAMES)
        rulesets = [resolve(t, players, ctx.args, ruling, small=True) for t in targets]
        reports = []
        for rs in rulesets:
            with progress_bar(not as_json) as bar, results_cache(cache_dir):
                explored, phase = verify_progress(bar, rs.game)
                rep = verified(rs, max_states=max_states, timeout=time_left(timeout),
                               progress=explored, phase=phase)
            reports.append(rep)
        status = overall_status(reports)
        if as_json:
            doc = verify_document(reports, targets)
            doc["seconds"] = round(time.perf_counter() - start, 4)
            emit(doc)
        else:
            for r in reports:
                print_verify_report(r)
            for r in reports:
                print_verify_summary(r)
            if len(reports) > 1:
                out.print("summary: " + "; ".join(f"{r.ruleset.game} {r.status}" for r in reports),
                          markup=False, highlight=False)
            out.print(f"verify: {status}" + (" (a limit was reached before every property was decided)"
                                             if status == UNKNOWN else ""))
        if status != HOLDS:
            raise Exit(1)
    run(body, timeout=timeout, as_json=as_json)


def verify_progress(bar, game: str):
    """verify's two callbacks on one progress bar: the explorations' (states found, pending) and
    every later step's (what, done, total); an exploration is shown under the latest step's name."""
    if bar is None:
        return None, None
    step = ["explore"]

    def explored(n: int, pending: int, _seconds: float) -> None:
        bar(f"verify {game}: {step[0]}", n, n + pending)

    def phase(what: str | None, done: int, total: int | None) -> None:
        step[0] = what or step[0]
        bar(f"verify {game}: {step[0]}", done, total)
    return explored, phase


EVIDENCE_COLOUR = {"proved": "green", "exhaustive": "green", "sampled": "cyan", "fails": "red",
                   "unknown": "yellow"}


def print_verify_report(r) -> None:
    """One table per ruleset: property, evidence, the configuration it is about, detail; then the
    counterexamples (print_verify_summary ends the output)."""
    table = Table(title=f"{r.ruleset.game} ({r.ruleset.name}) — {r.states:,} states explored, "
                        f"{r.seconds:.2f} s", title_justify="left")
    for col in ("property", "evidence", "about", "detail"):
        table.add_column(col, overflow="fold")
    for p in r.properties:
        table.add_row(p.name, f"[{EVIDENCE_COLOUR[p.evidence]}]{p.evidence}[/]", p.scope, p.detail)
    out.print(table)
    for note in r.notes:
        out.print(f"note: {note}", markup=False, highlight=False)
    for p in r.properties:
        if p.counterexample:
            out.print(f"[red]counterexample for {p.name}[/red] ({p.scope}):")
            for line in p.counterexample:
                out.print("  " + line, markup=False, highlight=False)


STATUS_SYMBOL = {HOLDS: "[green]✓[/]", FAILS: "[red]✗[/]", UNKNOWN: "[yellow]?[/]"}


def print_verify_summary(r) -> None:
    """One line per property -- status, name, evidence, the configuration it is about (named once
    above the lines when most share it) -- cut to the terminal's width, then the ruleset's verdict:
    the screen the reader ends on."""
    from collections import Counter
    width = max(out.width, 60)
    scopes = Counter(p.scope for p in r.properties)
    common = scopes.most_common(1)[0][0] if scopes else ""
    name_w = min(max((len(p.name) for p in r.properties), default=8), width // 2)
    out.print(f"[bold]summary of {escape(r.ruleset.game)} ({escape(r.ruleset.name)})[/bold] "
              f"(✓ holds, ✗ fails, ? unknown), about {escape(common)} unless named:", soft_wrap=True)
    for p in r.properties:
        name = p.name if len(p.name) <= name_w else p.name[:name_w - 1] + "…"
        line = f"{name:<{name_w}}  {p.evidence:<10}" + (f"  {p.scope}" if p.scope != common else "")
        if len(line) + 2 > width:
            line = line[:width - 3] + "…"
        out.print(f"{STATUS_SYMBOL[p.status]} {escape(line.rstrip())}", highlight=False, soft_wrap=True)
    from ruleproof.solver.verify import evidence_counts
    counts = evidence_counts(r.properties)
    out.print(f"{r.ruleset.game}: {r.status} — " + ", ".join(f"{counts[k]} {k}" for k in
              ("proved", "exhaustive", "sampled", "fails", "unknown") if counts.get(k))
              + f"; {r.states:,} states, {r.seconds:.1f} s", markup=False, highlight=False)


# ---- solve ----------------------------------------------------------------------------------------

@app.command(**GAME_COMMAND)
def solve(ctx: typer.Context, target: str = typer.Argument(..., help="game, built-in ruleset or RULESET.toml"),
          players: Optional[int] = typer.Option(None, "--players", help="number of players"),
          ruling: Optional[list[str]] = typer.Option(None, "--ruling", help="ID=OPTION (repeatable)"),
          out_dir: Optional[Path] = typer.Option(None, "--out", click_type=OUT_FOLDER,
                                                 help="where to write the play table, graph "
                                                 "and picture (default: out/<ruleset>)"),
          no_files: bool = typer.Option(False, "--no-files", help="report values only, write nothing"),
          exact: Optional[bool] = typer.Option(None, "--exact/--float",
                                               help="rational arithmetic (default: when small)"),
          full: bool = typer.Option(False, "--full", help="play table of every decision state with "
                                    "every action's value (default: the states optimal play reaches)"),
          max_states: Optional[int] = typer.Option(None, "--max-states", click_type=STATES,
                                                   help="stop exploring after this "
                                                   "many states (the result is then partial, exit 1)"),
          timeout: Optional[float] = typer.Option(None, "--timeout", click_type=SECONDS,
                                                  help="stop after this many seconds "
                                                  "(the result is then partial, exit 1)"),
          engine: Optional[str] = typer.Option(None, "--engine", help="the engine to use (default: the "
                                               "game's first that applies; `ruleproof games GAME` lists them)"),
          games_: Optional[int] = typer.Option(None, "--games", min=1, max=MAX_GAMES, help="games of an "
                                               "engine that samples (Loira's near-optimal self-play; "
                                               "default: its own fixed count)"),
          seed: Optional[int] = typer.Option(None, "--seed", help="seed of those games"),
          as_json: bool = typer.Option(False, "--json", help="print one JSON document")) -> None:
    """Exact values and the optimal policy, with a play table, a printable summary and a picture.

    Files: play_table.csv (typed columns; play_table.meta.json says what each means and whose value
    it is), policy_summary.txt/.csv, policy.png and (small graphs) decision_graph.graphml."""
    def body():
        from ruleproof.solver.analysis import solve_ruleset
        from ruleproof.solver.outputs import staged_folder
        check_limits(max_states, timeout)
        rs = resolve(target, players, ctx.args, ruling)
        where = None if no_files else (out_dir or Path("out") / rs.name)
        # files go to a hidden sibling folder, swapped into place once complete (solver/outputs.py);
        # a folder that is not ruleproof's own earlier output is refused before the work
        with staged_folder(where) as stage, progress_bar(not as_json) as bar:
            res = solve_ruleset(rs, exact=exact, max_states=max_states, timeout=timeout,
                                out_dir=stage.folder if stage else None, progress=bar, full=full,
                                engine=engine, games=games_, seed=seed).doc()
            if stage is not None and not res["partial"] and res["files"]:
                res["files"] = stage.commit(
                    {"command": "solve", "target": target, "arguments": ctx.args, "game": rs.game,
                     "ruleset": rs.name, "config": rs.as_dict(), "exact": res["exact"],
                     "values": res["values"], "states": res["states"]}, res["files"])
            else:
                res["files"] = []  # a partial run keeps no files
        doc = res
        if as_json:
            emit(doc)
            if res.get("partial"):
                raise Exit(1)
            return
        if res.get("partial"):
            out.print(f"partial result: {res['reason']}; explored {res['states']} states, no values",
                      markup=False, highlight=False, soft_wrap=True)
            raise Exit(1)
        states = f"{res['states']:,} states, " if res["states"] else ""
        out.print(f"{rs.game} ({rs.name}): {states}{doc['seconds']} s, {res['engine']}: {res['method']}",
                  markup=False, highlight=False, soft_wrap=True)
        for skipped in res["skipped"]:
            out.print(f"  ({skipped['engine']} passed over: {skipped['reason']})", markup=False, highlight=False,
                      soft_wrap=True)
        for line in value_lines(res["values"]) + figure_lines(res["values"], res["figures"]):
            out.print("  " + line, markup=False, highlight=False, soft_wrap=True)
        if res["value_meaning"]:
            out.print(f"  each seat's value above ({res['meaning']}), and the play table's value for the seat "
                      f"to move: {res['value_meaning']}", markup=False, highlight=False, soft_wrap=True)
        if res["extras"].get("printable"):   # an engine's own table, as a player reads it
            out.print(res["extras"]["printable"], markup=False, highlight=False, soft_wrap=True)
        constant = (res["extras"].get("policy_summary") or {}).get("constant")
        if constant:
            out.print(f"  policy: {constant}", markup=False, highlight=False, soft_wrap=True)
        for f in res["files"]:
            out.print(f"  wrote {f}", markup=False, highlight=False, soft_wrap=True)
        if where is not None and not res["files"]:
            out.print(f"  no files written to {where}: {res['extras'].get('note') or 'this engine writes none'}",
                      markup=False, highlight=False, soft_wrap=True)
    run(body, timeout=timeout, as_json=as_json)


def value_lines(values: list[dict[str, Any]]) -> list[str]:
    """One line per seat: the value to the digits its evidence supports, and what it is (exact,
    solved, sampled with its interval, near-optimal with the regret that applies)."""
    from ruleproof.model.estimate import HEADLINE_FRACTION_DIGITS, Estimate
    lines = []
    for seat, v in enumerate(values):
        e = Estimate.from_dict(v)
        lines.append(f"seat {seat}: {e.text()}")
        if e.kind == "exact" and len(str(e.fraction)) > HEADLINE_FRACTION_DIGITS:
            lines[-1] += f" (its {len(str(e.fraction))}-character fraction is in --json)"
    return lines


def figure_lines(values: list[dict[str, Any]], figures: list[dict[str, Any]]) -> list[str]:
    """The first-seat advantage (from the values, unless the engine measured it play by play) and
    the engine's other figures (P(seat k finishes first) against the fair share, ...), each with
    what it is."""
    from ruleproof.model.estimate import FIRST_SEAT_ADVANTAGE_MEANING, Estimate, first_seat_advantage
    lines = []
    own = next((f for f in figures if f["name"] == "first_seat_advantage"), None)
    adv = Estimate.from_dict(own["estimates"][0]) if own else \
        first_seat_advantage([Estimate.from_dict(v) for v in values])
    if adv is not None:
        lines.append(f"first-seat advantage: {adv.text(signed=True)} -- {FIRST_SEAT_ADVANTAGE_MEANING}")
    for f in figures:
        if f["name"] == "first_seat_advantage":
            continue
        ests = [Estimate.from_dict(e) for e in f["estimates"]]
        kinds = {e.evidence() for e in ests}
        body = ", ".join((f"seat {i} " if f["per_seat"] else "") + e.number() for i, e in enumerate(ests))
        fair = f"; fair share {f['fair_share']}" if f.get("fair_share") else ""
        lines.append(f"{f['meaning']}: {body} ({'; '.join(sorted(kinds))}{fair})")
    return lines


# ---- report -----------------------------------------------------------------------------------------

@app.command(**GAME_COMMAND)
def report(ctx: typer.Context,
           target: str = typer.Argument(..., help="game (its small configuration, as verify), built-in "
                                        "ruleset or RULESET.toml"),
           html_file: Optional[Path] = typer.Option(None, "--html", click_type=OUT_FILE,
                                                    help="write the page as one "
                                                    "self-contained HTML file (CSS and pictures inside)"),
           md_file: Optional[Path] = typer.Option(None, "--md", click_type=OUT_FILE,
                                                  help="write the page as Markdown "
                                                  "(pictures as data URLs)"),
           against: Optional[str] = typer.Option(None, "--against", help="another ruleset, read as compare "
                                                 "reads its A (a game name opposite a ruleset file: its "
                                                 "built-in ruleset): the page also says what the edit "
                                                 "from it changed, as compare does"),
           games_: Optional[int] = typer.Option(None, "--games", min=1, max=MAX_GAMES, help=SAMPLE_HELP),
           seed: Optional[int] = typer.Option(None, "--seed", help="seed of those games"),
           policy: Optional[str] = typer.Option(None, "--policy", help="policy of the simulated games "
                                                "(default: the game's simulate default)"),
           players: Optional[int] = typer.Option(None, "--players", help="number of players"),
           ruling: Optional[list[str]] = typer.Option(None, "--ruling", help="ID=OPTION (both sides "
                                                      "with --against)"),
           max_states: Optional[int] = typer.Option(None, "--max-states", click_type=STATES,
                                                    help="state limit for verify "
                                                    "and solve"),
           timeout: Optional[float] = typer.Option(None, "--timeout", click_type=SECONDS,
                                                   help="seconds for the whole report "
                                                   "(each phase gets what is left)"),
           rank_timeout: Optional[float] = typer.Option(None, "--rank-timeout", click_type=SECONDS_OR_ZERO,
                                                        help="seconds for ranking the rulings (the page "
                                                        "names those left unranked; 0 skips; default: "
                                                        "no clock, a fixed amount of work)"),
           cache_dir: Optional[Path] = typer.Option(None, "--cache", help=CACHE_HELP),
           as_json: bool = typer.Option(False, "--json", help="print the page's data as one JSON document")) -> None:
    """One page per ruleset: properties with their evidence, values and fairness (first-seat
    advantage, game length), the rulings ranked by impact, the policy summary and pictures, and
    with --against what the edit changed. Without --html/--md the Markdown goes to stdout.
    Exit 1 when the verdict is fails or unknown, the values could not be computed within the
    limits, or --against finds a regression."""
    def body():
        from ruleproof.solver.page import build_report, exit_code, json_view, render_markdown, write_page
        check_limits(max_states, timeout)
        if html_file is not None and md_file is not None and html_file == md_file:
            fail_input(f"command line: --md: {str(md_file)!r} is also the --html file")
        if against:   # the two sides read as compare reads them (A = --against, B = the target)
            if load_ruleset(against).game != load_ruleset(target).game:
                fail_input(f"command line: --against: {against} is a {load_ruleset(against).game} ruleset, "
                           f"{target} a {load_ruleset(target).game} one")
            other, rs, why_a, why_b = resolve_pair(against, target, players, ctx.args, ruling)
        else:
            rs, other, why_a = resolve(target, players, ctx.args, ruling, small=True), None, ""
            why_b = _current["why"][target]
        with progress_bar(not as_json) as bar, results_cache(cache_dir):
            doc = build_report(rs, against=other, max_states=max_states, timeout=time_left(timeout),
                               rank_timeout=rank_timeout, progress=bar, why=(why_b, why_a),
                               games=games_, seed=seed, policy=policy)
        # (the paths were checked as the options were parsed; solver/outputs.py writes them)
        written = [str(write_page(doc, path, flag)) for flag, path in (("--html", html_file), ("--md", md_file))
                   if path is not None]
        if as_json:
            emit(json_view(doc))
        elif not written:
            sys.stdout.write(render_markdown(doc))
        else:
            for path in written:
                out.print(f"wrote {path}", markup=False, highlight=False, soft_wrap=True)
            regressions = doc.get("against", {}).get("regressions")
            out.print(f"report {doc['ruleset']}: verdict {doc['verdict']}"
                      + ("; values not computed within the limits" if doc["solve"]["partial"] else "")
                      + (f"; {len(regressions)} regression(s) against {doc['against']['a']['ruleset']}"
                         if regressions else ""), markup=False, highlight=False, soft_wrap=True)
        if exit_code(doc):
            raise Exit(1)
    run(body, timeout=timeout, as_json=as_json)


# ---- sweep ------------------------------------------------------------------------------------------

@app.command(**GAME_COMMAND)
def sweep(ctx: typer.Context,
          target: str = typer.Argument(..., help="game (its small configuration, as verify), built-in "
                                       "ruleset or RULESET.toml"),
          param: list[str] = typer.Option(..., "--param", help="NAME=RANGE: LOW..HIGH[:STEP] (10..30:5) "
                                          "or a comma list (mini,curta); repeat for a grid"),
          games_: Optional[int] = typer.Option(None, "--games", click_type=GAME_COUNT,
                                               help="games per sampled point: simulated where the exact "
                                               "solver stops (default 2,000), and the games of an engine "
                                               "that samples (default: its own fixed count)"),
          seed: Optional[int] = typer.Option(None, "--seed", help="random seed of the sampled points "
                                             "(default 0; an engine that samples: its own)"),
          policy: Optional[str] = typer.Option(None, "--policy", help="policy of the simulated points "
                                               "(default: the game's simulate default)"),
          simulate_only: bool = typer.Option(False, "--simulate-only", help="simulate every point; "
                                             "do not try the exact solver"),
          players: Optional[int] = typer.Option(None, "--players", help="number of players (fixed)"),
          ruling: Optional[list[str]] = typer.Option(None, "--ruling", help="ID=OPTION (fixed)"),
          max_states: Optional[int] = typer.Option(None, "--max-states", click_type=STATES,
                                                   help="state limit of each "
                                                   "point's exact solve"),
          point_timeout: Optional[float] = typer.Option(None, "--point-timeout", click_type=SECONDS,
                                                        help="seconds for each point's exact solve; "
                                                        "beyond it the point is simulated (default: no "
                                                        "clock, the state limits decide)"),
          timeout: Optional[float] = typer.Option(None, "--timeout", click_type=SECONDS,
                                                  help="seconds for the whole sweep "
                                                  "(points not reached are listed as not run)"),
          plot: Optional[Path] = typer.Option(None, "--plot", click_type=PLOT_FILE,
                                              help="write a plot (.png, .svg or .pdf): each seat's "
                                              "value against the first parameter"),
          cache_dir: Optional[Path] = typer.Option(None, "--cache", help=CACHE_HELP),
          as_json: bool = typer.Option(False, "--json", help="print one JSON document")) -> None:
    """Values and game length over a grid of parameter values: exact where the solver finishes
    within the per-point limits, simulated beyond (each row says which, and under which policy)."""
    def body():
        from ruleproof.solver.sweep import check_grid, parse_param, plot_sweep, run_sweep
        axes = [parse_param(item) for item in param]
        check_grid(axes)   # its size, before a single point is made
        fixed = parse_extra(split_positionals(ctx.args)[1])
        for name, _ in axes:
            if name in fixed or (name == "players" and players is not None):
                fail_input(f"command line: --param {name}: also given as a fixed --{name.replace('_', '-')}")
        rs = resolve(target, players, ctx.args, ruling, small=True)
        spec = get_spec(rs.game)
        for name, _ in axes:
            if name not in spec.schema.param_index:
                fail_input(f"command line: --param {name}: not a {spec.name} parameter"
                           f"{did_you_mean(name, spec.schema.param_index)} "
                           f"(parameters: {', '.join(spec.schema.param_index)})")
        reserve = 0.3   # seconds kept from --timeout to print (and draw) the points finished
        if plot is not None:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot  # noqa: F401 - loaded now, so drawing after the sweep is quick
            reserve += 0.4
        rows: list = []
        _current["kept"] = ("points", rows)   # a hard stop still reports the points finished
        with progress_bar(not as_json) as bar, results_cache(cache_dir):
            res = run_sweep(rs, axes, max_states=max_states, timeout=point_timeout, games=games_,
                            seed=seed, policy=policy, simulate_only=simulate_only, progress=bar, rows=rows,
                            deadline=None if timeout is None
                            else time.perf_counter() + max(0.0, time_left(timeout) - reserve))
        from ruleproof.solver.compare import describe_config
        from ruleproof.solver.sweep import PLOTTED
        doc = {"game": rs.game, "ruleset": rs.name, "config": rs.as_dict(),
               "configuration": {"why": _current["why"][target], "differs_from_built_in": describe_config(rs)},
               **res}
        if plot is not None and any(r["method"] in PLOTTED for r in res["points"]):
            doc["plot"] = str(plot_sweep(res, plot, f"{rs.name}: each seat's value by {res['params'][0]}"))
        elif plot is not None:
            doc["plot_note"] = f"{plot} not written: no point has a value"
        if as_json:
            emit(doc)
        else:
            print_sweep(doc)
            if res["partial"]:
                missing = sum(r["method"] == "not run" for r in res["points"])
                out.print(f"partial result: {res['reason']}; {missing} of {len(res['points'])} points not run",
                          markup=False, highlight=False, soft_wrap=True)
        if res["partial"]:
            raise Exit(runtime.EXIT_LIMIT)
    run(body, timeout=timeout, as_json=as_json)


def plain_table(headers: list[str], rows: list[list[str]]) -> list[str]:
    """Aligned text columns that never fold a figure across lines (a wide table stays wide)."""
    widths = [max(len(str(c)) for c in col) for col in zip(headers, *rows)]
    lines = ["  ".join(str(h).ljust(w) for h, w in zip(headers, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    return lines


def print_sweep(doc: dict[str, Any]) -> None:
    """The sweep's table: each point's kind (exact, solved, near-optimal, simulated) and policy,
    each seat's value to the digits its evidence supports (± half the 95% interval when sampled),
    the first-seat advantage and the length; then what the sampled points are."""
    from ruleproof.model.estimate import Estimate
    out.print(f"{doc['game']} ({doc['ruleset']}): {len(doc['points'])} points, {doc['seconds']} s; "
              f"a seat's value is {doc['value_meaning']}", markup=False, highlight=False, soft_wrap=True)
    why = (doc.get("configuration") or {}).get("why")
    if why:
        out.print(f"configuration: {doc['configuration']['differs_from_built_in']} -- {why}",
                  markup=False, highlight=False, soft_wrap=True)
    seats = max((len(r.get("values") or []) for r in doc["points"]), default=0)
    units = {r["length"]["unit"] for r in doc["points"] if r.get("length")}
    unit = units.pop() if len(units) == 1 else None
    headers = doc["params"] + ["kind"] + [f"seat {i}" for i in range(seats)] + \
        ["first-seat adv.", f"length ({unit})" if unit else "length", "states", "s"]
    rows = []
    for r in doc["points"]:
        values = [Estimate.from_dict(e).number(compact=True) for e in r.get("estimates") or []]
        values += ["-"] * (seats - len(values))
        adv = "-" if not r.get("first_seat_advantage") else \
            Estimate.from_dict(r["first_seat_advantage"]).number(signed=True, compact=True)
        length = r.get("length")
        length_text = "-" if not length else Estimate.from_dict(length["estimate"]).number(compact=True) + \
            ("" if unit else f" {length['unit']}")
        rows.append([_short(r["point"][k]) for k in doc["params"]] + [r["method"], *values, adv, length_text,
                    "-" if not r.get("states") else f"{r['states']:,}", f"{r['seconds']:.2f}"])
    for line in plain_table(headers, rows):
        out.print(line, markup=False, highlight=False, soft_wrap=True)
    sampled = [r for r in doc["points"] if r.get("estimates") and Estimate.from_dict(r["estimates"][0]).is_sampled]
    for r in sampled:
        e = Estimate.from_dict(r["estimates"][0])
        where = " ".join(f"{k}={_short(v)}" for k, v in r["point"].items())
        out.print(f"{where}: sampled, not exact -- seat 0 {e.text()}", markup=False, highlight=False,
                  soft_wrap=True)
    if sampled:
        out.print("± is half the 95% interval; a sampled value is the named policy's, not optimal play's",
                  markup=False, highlight=False, soft_wrap=True)
    reasons: dict[str, list[str]] = {}
    for r in doc["points"]:
        if r.get("exact_stopped"):
            where = " ".join(f"{k}={_short(v)}" for k, v in r["point"].items())
            reasons.setdefault(r["exact_stopped"], []).append(where)
    for reason, where in reasons.items():
        out.print(f"exact solve stopped ({reason}) at: {'; '.join(where)}", markup=False, highlight=False,
                  soft_wrap=True)
    for r in doc["points"]:
        if r["method"] in ("failed", "not run"):
            where = ", ".join(f"{k}={_short(v)}" for k, v in r["point"].items())
            out.print(f"no result at {where}: {r['why']}", markup=False, highlight=False, soft_wrap=True)
    if doc.get("plot"):
        out.print(f"wrote {doc['plot']}", markup=False, highlight=False, soft_wrap=True)
    elif doc.get("plot_note"):
        out.print(doc["plot_note"], markup=False, highlight=False, soft_wrap=True)


# ---- export -----------------------------------------------------------------------------------------

@app.command(context_settings=EXTRA)
def export(ctx: typer.Context, target: str = typer.Argument(..., help="game, built-in ruleset or RULESET.toml"),
           fmt: str = typer.Option(..., "--format", help="prism, drn (Storm's explicit format) or jani"),
           policy: Optional[str] = typer.Option(None, "--policy", help="optimal, random or a named "
                                                "policy: write the Markov chain it induces"),
           free_seat: Optional[list[int]] = typer.Option(None, "--free-seat", help="with --policy: this "
                                                         "seat's decisions stay free (an MDP)"),
           smg: bool = typer.Option(False, "--smg", help="a stochastic game, each seat a player "
                                    "(PRISM-games syntax)"),
           players: Optional[int] = typer.Option(None, "--players", help="number of players"),
           ruling: Optional[list[str]] = typer.Option(None, "--ruling", help="ID=OPTION"),
           max_states: Optional[int] = typer.Option(None, "--max-states", click_type=STATES,
                                                    help="stop exploring beyond this many states"),
           timeout: Optional[float] = typer.Option(None, "--timeout", click_type=SECONDS,
                                                   help="seconds for the whole "
                                                   "export (exploring, building, writing)"),
           as_json: bool = typer.Option(False, "--json", help="print one JSON document")) -> None:
    """Write the explored model to FILE for Storm/PRISM: an MDP of every seat's choices, or the chain a
    policy induces; labels name the mover, terminal states and each seat's win; rewards count turns.
    Usage: ruleproof export RULESET --format prism|drn|jani FILE [--policy ...] [game parameters]."""
    def body():
        from ruleproof.solver.export import export_ruleset
        check_limits(max_states, timeout)
        files, extra = split_positionals(ctx.args)
        if len(files) != 1:
            fail_input("command line: FILE: give exactly one output file"
                       + (f" (got {', '.join(files)})" if files else ""))
        file = arguments.output_file(files[0], "FILE")   # before the work: see solver/outputs.py
        rs = resolve(target, players, extra, ruling)
        res = export_ruleset(rs, fmt, file, policy=policy, free_seats=free_seat or (), smg=smg,
                             max_states=max_states, timeout=time_left(timeout))
        doc = {"game": rs.game, "ruleset": rs.name, "config": rs.as_dict(), **res}
        doc["seconds"] = round(doc["seconds"], 4)
        if as_json:
            emit(doc)
        elif res["partial"]:
            out.print(f"partial exploration: {res['reason']}; explored {res['explored_states']} states, "
                      "nothing written", markup=False, soft_wrap=True)
        else:
            out.print(f"{rs.game} ({rs.name}): wrote {res['kind']} {file} ({fmt}): {res['states']} states, "
                      f"{res['choices']} choices, {res['transitions']} transitions, {doc['seconds']} s",
                      markup=False, highlight=False, soft_wrap=True)
            if "values" in res:
                turns = f"; expected turns {res['expected_turns']}" if "expected_turns" in res else ""
                out.print(f"  our exact values: {', '.join(res['values'])}{turns}", markup=False, soft_wrap=True)
        if res["partial"]:
            raise Exit(1)
    run(body, timeout=timeout, as_json=as_json)


# ---- simulate ---------------------------------------------------------------------------------------

@app.command(**GAME_COMMAND)
def simulate(ctx: typer.Context, target: str = typer.Argument(..., help="game, built-in ruleset or RULESET.toml"),
             games_: int = typer.Option(1000, "--games", click_type=GAME_COUNT, help="number of games"),
             seed: int = typer.Option(0, "--seed", help="random seed (the same seed, the same games)"),
             policy: Optional[str] = typer.Option(None, "--policy", help="policy name (see the game)"),
             players: Optional[int] = typer.Option(None, "--players", help="number of players"),
             ruling: Optional[list[str]] = typer.Option(None, "--ruling", help="ID=OPTION"),
             timeout: Optional[float] = typer.Option(None, "--timeout", click_type=SECONDS,
                                                     help="seconds for the whole run"),
             as_json: bool = typer.Option(False, "--json", help="print one JSON document")) -> None:
    """Seeded Monte Carlo with 95% confidence intervals."""
    def body():
        from ruleproof.solver import montecarlo
        check_limits(None, timeout)
        rs = resolve(target, players, ctx.args, ruling)
        with progress_bar(not as_json) as bar:
            prog = (lambda d, t: bar("simulate", d, t)) if bar else None
            doc = montecarlo.simulate_ruleset(rs, games_, seed, policy, prog)
        if as_json:
            emit(doc)
        else:
            print_simulation(doc)
    run(body, timeout=timeout, as_json=as_json)


#: beyond this many seats, simulate summarises each per-seat figure before listing every seat
MANY_SEATS = 6
#: keys of a simulation estimate that are not the estimate itself (shown beside it)
_ESTIMATE_EXTRA = ("quantiles", "quantile_intervals", "min", "max", "fair_share")


def _is_estimate(value: Any) -> bool:
    return isinstance(value, dict) and ("kind" in value or "ci95" in value)


def _estimate_cells(value: dict[str, Any]) -> tuple[str, str, str]:
    """(figure, 95% interval, what else the engine measured beside it) for a sampled estimate."""
    from ruleproof.model.estimate import Estimate, interval_text, quantiles_text
    e = Estimate.from_dict(value)
    interval = "" if not e.is_sampled else interval_text(e.low, e.high, e.decimals())
    notes = []
    if value.get("quantiles"):
        notes.append("quantiles " + quantiles_text(value["quantiles"], value.get("quantile_intervals")))
    if value.get("min") is not None:
        notes.append(f"min {value['min']}, max {value['max']}")
    if value.get("fair_share"):
        notes.append(f"fair share {value['fair_share']}")
    return e.number(), interval, "; ".join(notes)


def _words(name: str) -> str:
    return name.replace("_", " ")


def _facts(extras: dict[str, Any]) -> list[str]:
    """The engine's plain facts (board, players, ...), as words."""
    out = []
    for key, value in extras.items():
        if _is_estimate(value) or isinstance(value, (dict, list)) or key == "labels":
            continue
        out.append(f"{_words(key)}: {value:.6g}" if isinstance(value, float) else f"{_words(key)}: {value}")
    return out


def _estimate_groups(extras: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Groups of estimates among the engine's extras (e.g. Presentes' effects per game)."""
    return [(key, value) for key, value in extras.items()
            if isinstance(value, dict) and value and all(_is_estimate(v) for v in value.values())]


def print_simulation(doc: dict[str, Any]) -> None:
    """Overall figures first, then each seat's: with many seats, each per-seat figure summarised
    (lowest and highest seat, the fair share) before the seat-by-seat table."""
    def say(text: str) -> None:
        out.print(text, markup=False, highlight=False, soft_wrap=True)
    seats = doc["seats"]
    say(f"{doc['game']} ({doc['ruleset']}): {doc['games']:,} games, seed {doc.get('seed')}, "
        f"policy {doc['policy']}, {doc['seconds']} s")
    say("every figure is sampled: the mean ± half its 95% interval (clipped to what the figure can be), "
        "the digits that interval supports")
    facts = _facts(doc["extras"])
    if facts:
        say("  " + "; ".join(facts))
    table = Table(title="overall", title_justify="left")
    for column in ("figure", "mean ± half-interval", "95% interval", ""):
        table.add_column(column, overflow="fold")
    for name, value in doc["metrics"].items():
        if _is_estimate(value):
            table.add_row(_words(name), *_estimate_cells(value))
    if table.row_count:
        out.print(table)
    labels = doc["extras"].get("labels") or {}
    for group, values in _estimate_groups(doc["extras"]):
        table = Table(title=_words(group), title_justify="left")
        for column in ("figure", "mean ± half-interval", "95% interval"):
            table.add_column(column, overflow="fold")
        for name, value in values.items():
            table.add_row(labels.get(name, _words(name)), *_estimate_cells(value)[:2])
        out.print(table)
    names = list(dict.fromkeys(k for s in seats for k, v in s.items() if _is_estimate(v)))
    if not names:
        return
    if len(seats) > MANY_SEATS:
        from ruleproof.model.estimate import Estimate
        summary = Table(title=f"per seat, summarised ({len(seats)} seats; every seat below)",
                        title_justify="left")
        for column in ("figure", "lowest", "highest", "fair share", "seats whose interval excludes it"):
            summary.add_column(column, overflow="fold")
        for name in names:
            got = [(i, Estimate.from_dict(s[name])) for i, s in enumerate(seats) if name in s]
            lo = min(got, key=lambda x: x[1].value)
            hi = max(got, key=lambda x: x[1].value)
            fair = 1 / len(seats) if name == "finish_first" else None
            away = "-" if fair is None else \
                (", ".join(str(i) for i, e in got if not e.low <= fair <= e.high) or "none")
            summary.add_row(_words(name), f"{lo[1].number()} (seat {lo[0]})", f"{hi[1].number()} (seat {hi[0]})",
                            "-" if fair is None else f"1/{len(seats)} = {fair:.4f}", away)
        out.print(summary)
    table = Table(title="per seat (mean ± half the 95% interval)", title_justify="left")
    table.add_column("seat")
    for name in names:
        table.add_column(_words(name), overflow="fold")
    for i, s in enumerate(seats):
        table.add_row(str(i), *[_estimate_cells(s[n])[0] if n in s else "-" for n in names])
    out.print(table)


# ---- rulings ----------------------------------------------------------------------------------------

@rulings_app.command("list")
def rulings_list(game: Optional[str] = typer.Argument(None, help="game or ruleset; omitted: every game"),
                 as_json: bool = typer.Option(False, "--json", help="print one JSON document")) -> None:
    """Every ruling: id, question, default, alternatives and the sentence it interprets."""
    def body():
        if game is not None and not game.strip():
            fail_input("command line: GAME: empty; give a game, a built-in ruleset or a .toml file")
        specs = [get_spec(load_ruleset(game).game)] if game else all_specs()
        docs = [{"game": s.name, "rulings": [{"id": r.id, "question": r.question, "default": r.default,
                                              "alternatives": list(r.alternatives),
                                              "options": dict(r.options), "cites": r.cites}
                                             for r in s.schema.rulings]} for s in specs]
        if as_json:
            emit({"game": game or "all", "ruleset": "catalog", "config": {"games": [d["game"] for d in docs]},
                  "games": docs, "seconds": 0.0})
            return
        for d in docs:
            table = Table(title=d["game"], title_justify="left", show_lines=True)
            for col in ("id", "question and the sentence it interprets", "options (default first)"):
                table.add_column(col, overflow="fold")
            for r in d["rulings"]:
                options = "\n".join(f"{'* ' if o == r['default'] else '  '}{o}: {meaning}"
                                     for o, meaning in r["options"].items())
                table.add_row(r["id"], f"{r['question']}\n[dim]cites:[/dim] {escape(r['cites'])}", escape(options))
            out.print(table)
            out.print("* the default reading; --ruling ID=OPTION picks another", markup=False)
    run(body)


@rulings_app.command("diff", **GAME_COMMAND)
def rulings_diff(ctx: typer.Context, target: str = typer.Argument(..., help="game or RULESET.toml"),
                 ruling_id: str = typer.Argument(..., metavar="RULING", help="the ruling id, e.g. L04"),
                 option: Optional[str] = typer.Option(None, "--option", help="alternative (default: each)"),
                 players: Optional[int] = typer.Option(None, "--players", help="number of players"),
                 timeout: Optional[float] = typer.Option(None, "--timeout", click_type=SECONDS,
                                                         help="seconds for the whole command"),
                 as_json: bool = typer.Option(False, "--json", help="print one JSON document")) -> None:
    """Where a ruling's readings part. One of three answers per alternative: parts (a shortest
    situation and the change in optimal values), harmless (exhaustive over the configurations
    named), or not exercised (by the configuration given; larger ones searched in part)."""
    def body():
        from ruleproof.solver.rulings import known_ruling, ruling_diff
        start = time.perf_counter()
        rs = resolve(target, players, ctx.args, small=True)
        r = known_ruling(get_spec(rs.game), ruling_id)
        current = rs.rulings[ruling_id]
        if option is not None and option == current:
            fail_input(f"command line: --option: {option!r} is already the reading of {ruling_id} in "
                       f"{rs.name}; name another option ({', '.join(o for o in r.options if o != current) or 'none'})")
        options = [option] if option else [o for o in r.options if o != current]
        diffs: list = []
        _current["kept"] = ("diffs", diffs)   # a time limit still reports the diffs finished
        with progress_bar(not as_json) as bar:
            for o in options:
                diffs.append(ruling_diff(rs, ruling_id, o, progress=bar))
        doc = {"game": rs.game, "ruleset": rs.name, "config": rs.as_dict(), "diffs": diffs,
               "seconds": round(time.perf_counter() - start, 4)}
        if not options:
            doc["note"] = f"{ruling_id} has a single reading ({current}): nothing to compare"
        if as_json:
            emit(doc)
            return
        if not options:
            out.print(doc["note"], markup=False)
        for d in diffs:
            out.print(f"[bold]{d['ruling']}[/bold] {d['default']} vs {d['alternative']}: ", end="")
            if d["verdict"] == "parts":
                out.print(f"parts on {d['configuration']} after {d['depth']} moves ({d['how']})",
                          markup=False, highlight=False)
                if d.get("note"):
                    out.print("  " + d["note"], markup=False, highlight=False)
                for line in d["situation"]:
                    out.print("  " + line, markup=False, highlight=False)
                out.print(f"  values: {_diff_values_text(d)}", markup=False, highlight=False)
            elif d["verdict"] == "harmless":
                out.print("harmless: " + d["proof"], markup=False, highlight=False)
            else:
                out.print(d["note"], markup=False, highlight=False)
    run(body, timeout=timeout, as_json=as_json)


def _diff_values_text(d: dict[str, Any]) -> str:
    if "value_change" in d:
        return "; ".join(f"seat {i} {c['fraction'] or format(c['float'], '+.6f')}"
                         for i, c in enumerate(d["value_change"])) + " (alternative minus reading)"
    return "; ".join(f"{k}: {v if isinstance(v, str) else ', '.join(value_lines(v))}"
                     for k, v in d.get("values", {}).items())


@rulings_app.command("rank", **GAME_COMMAND)
def rulings_rank(ctx: typer.Context,
                 target: str = typer.Argument(..., help="game (its small configuration) or RULESET.toml"),
                 only: Optional[str] = typer.Option(None, "--only", help="comma-separated ruling ids"),
                 players: Optional[int] = typer.Option(None, "--players", help="number of players"),
                 timeout: Optional[float] = typer.Option(None, "--timeout", click_type=SECONDS,
                                                         help="seconds in all"),
                 games_: Optional[int] = typer.Option(None, "--games", click_type=GAME_COUNT,
                                                      help="paired games per reading where the "
                                                      "configuration is too big to solve (default 200)"),
                 seed: Optional[int] = typer.Option(None, "--seed", help="seed of the paired games (default 0)"),
                 policy: Optional[str] = typer.Option(None, "--policy", help="policy of the paired games "
                                                      "(default: the game's simulate default)"),
                 cache_dir: Optional[Path] = typer.Option(None, "--cache", help=CACHE_HELP),
                 as_json: bool = typer.Option(False, "--json", help="print one JSON document")) -> None:
    """Every ruling alternative ranked by how far it moves the values (each seat's optimal value)
    and the expected length of play, on one configuration (named in the output). A configuration
    too big to solve is ranked by paired seeded games (both readings in the same games: common
    random numbers), each change with its 95% interval."""
    def body():
        from ruleproof.model.estimate import Estimate
        from ruleproof.solver.rulings import known_ruling, rank_rulings
        start = time.perf_counter()
        check_limits(None, timeout)
        rs = resolve(target, players, ctx.args, small=True)
        ids = [x.strip() for x in only.split(",")] if only else None
        for rid in ids or []:
            known_ruling(get_spec(rs.game), rid, "--only")
        with progress_bar(not as_json) as bar, results_cache(cache_dir):
            res = rank_rulings(rs.game, ruleset=rs, only=ids, timeout=time_left(timeout), progress=bar,
                               games=games_, seed=seed, policy=policy)
        doc = {"game": rs.game, "ruleset": rs.name, "config": rs.as_dict(), **res,
               "seconds": round(time.perf_counter() - start, 4)}
        if as_json:
            emit(doc)
            return
        ref = res["reference"]
        sp = ref.get("sampled")
        kinds = {r.get("evidence", "exact") for r in res["rows"] if "value_change" in r}
        # what the ranking is of: the optimum where the readings solve, else the paired games' play
        of = ("the optimal values" if not kinds or kinds == {"exact"} else
              f"the values of play by the {sp['policy']} policy in paired games" if kinds == {"sampled"} and sp
              else "the optimal values where the readings solve, else the values of play in paired games")
        from ruleproof.solver.compare import describe_config
        out.print(f"{rs.game} ({rs.name}): rulings ranked by their effect on {of}; "
                  f"configuration: {describe_config(rs)} -- {_current['why'][target]}", markup=False,
                  highlight=False, soft_wrap=True)
        if "error" not in ref:
            out.print("  reference: " + ", ".join(f"seat {i} {v:.6f}" for i, v in enumerate(ref["values"]))
                      + (f"; expected moves {ref['length']:.3f}" if ref["length"] is not None else ""),
                      markup=False)
        elif not sp:
            out.print(f"  the configuration's own readings did not solve: {ref['error']}", markup=False)
        if sp:   # the rows (or all of them) beyond the exact solve: paired games
            why = f"too big to solve ({ref['error']})" if "error" in ref else "readings too big to solve"
            out.print(f"  {why}: each reading played in the same {sp['games']:,} seeded games (seed "
                      f"{sp['seed']}, policy {sp['policy']}); reference in those games (mean ± half its "
                      "95% interval): " + ", ".join(f"seat {i} {Estimate.from_dict(e).number(signed=True)}"
                                                    for i, e in enumerate(sp["value_estimates"]))
                      + (f"; moves {Estimate.from_dict(sp['length_estimate']).number()}"
                         if sp.get("length_estimate") else ""),
                      markup=False, highlight=False, soft_wrap=True)
        from ruleproof.solver.page import rank_row
        headers = ["ruling", "alternative", "effect", "max |Δ value|", "Δ value per seat", "Δ expected moves"]
        for line in plain_table(headers, [rank_row(row) for row in res["rows"]]):
            out.print(line, markup=False, highlight=False, soft_wrap=True)
        open_ended = any(e.get("ci95") and None in e["ci95"] for r in res["rows"]
                         for e in [r.get("length_change_estimate") or {}, *r.get("value_change_estimates", [])])
        notes = (["changes with ±: sampled, the mean over the paired games ± half its 95% interval (the "
                  "policy's values, not the optimum)"] if "sampled" in kinds else []) + \
                (["an interval with inf: every paired game alike, which is no certainty for a figure nothing "
                  "bounds (a play's length): that side stays open"] if open_ended else []) + \
                (["changes without ±: exact values compared in floats (exact to the digits shown)"]
                 if "exact" in kinds or not kinds else [])
        out.print("; ".join(notes) + "; 'not exercised': this configuration cannot bring the ruling into play",
                  markup=False, highlight=False, soft_wrap=True)
    run(body, timeout=timeout, as_json=as_json)


@rulings_app.command("check")
def rulings_check(game: Optional[str] = typer.Argument(None, help="game; omitted: every game"),
                  record: bool = typer.Option(False, "--record", help="store current results as expected"),
                  timeout: Optional[float] = typer.Option(None, "--timeout", click_type=SECONDS,
                                                          help="seconds for the whole command"),
                  as_json: bool = typer.Option(False, "--json", help="print one JSON document")) -> None:
    """Re-run the stored ruling regression scenarios (model/<game>/scenarios.json); exit 1 on any change."""
    def body():
        from ruleproof.solver.analysis import check_games, record_scenarios
        start = time.perf_counter()
        if game is not None and game not in GAMES:
            fail_input(f"command line: GAME: rulings check takes a game name ({', '.join(GAMES)}), "
                       f"not {game!r}; the scenarios are stored in each game's folder")
        names = [game] if game else list(GAMES)
        if record:
            paths = [str(record_scenarios(n)) for n in names]
            emit({"game": game or "all", "recorded": paths}) if as_json else out.print(f"recorded {paths}")
            return
        with progress_bar(not as_json) as bar:
            rows = check_games(names, progress=(lambda n, d, t: bar(f"rulings check {n}", d, t)) if bar else None)
        changed = [(n, r) for n, rs in rows.items() for r in rs if not r["same"]]
        if as_json:
            emit({"game": game or "all", "ruleset": "defaults", "config": {"games": names},
                  "scenarios": rows, "changed": len(changed), "seconds": round(time.perf_counter() - start, 4)})
        else:
            for n, rs in rows.items():
                out.print(f"{n}: {len(rs)} scenarios, {sum(not r['same'] for r in rs)} changed")
            for n, r in changed:
                out.print(f"  changed {n}:{r['scenario']}: {scenario_change_text(r)}", markup=False)
                for line in r.get("first_change") or []:
                    out.print(f"    {line}", markup=False)
        if changed:
            raise Exit(1)
    run(body, timeout=timeout, as_json=as_json)


def scenario_change_text(row: dict[str, Any]) -> str:
    """What changed in one scenario: the error, the values, the state count, or (the start alike)
    some state's moves or value -- narrated below by its first differing state."""
    want, got = row["expected"] or {}, row["got"] or {}
    if "error" in got:
        return f"the model now raises {got['error']}"
    parts = [f"{k} {want.get(k)} -> {got.get(k)}" for k in ("values", "states") if want.get(k) != got.get(k)]
    if not parts and want.get("digest") != got.get("digest"):
        parts.append("the start is alike, but some state's moves, value or optimal move changed")
    return "; ".join(parts) or f"expected {want}, got {got}"


# ---- deduce / compare ---------------------------------------------------------------------------------

@app.command()
def deduce(view: Path = typer.Argument(..., help="a Bomb Busters VIEW.json position file"),
           timeout: Optional[float] = typer.Option(None, "--timeout", click_type=SECONDS,
                                                   help="seconds for the whole command"),
           as_json: bool = typer.Option(False, "--json", help="print one JSON document")) -> None:
    """Bomb Busters: exact wire probabilities from one player's view."""
    def body():
        from ruleproof.solver.analysis import deduce_file
        doc, text = deduce_file(view)
        if as_json:
            emit(doc)
        else:
            out.print(text, markup=False, highlight=False)
    run(body, timeout=timeout, as_json=as_json)


def resolve_pair(a: str, b: str | None, players: Optional[int], extra: list[str],
                 ruling: list[str] | None) -> tuple[Ruleset, Ruleset, str, str]:
    """The two sides of ``compare`` and ``report --against`` (A the reference, B the edit), each
    with why it is the configuration it is: one reading of the targets for both commands. B
    omitted: A with the command line's overrides (A itself without them)."""
    if b is None:
        rsa = resolve(a, None, [], None, small=True)
        rsb = resolve(a, players, extra, ruling, small=True)
        why = _current["why"][a]
        return rsa, rsb, why, why + "; with the command line's overrides"
    rsa = resolve(a, players, extra, ruling, small=True, opposite=b)
    rsb = resolve(b, players, extra, ruling, small=True, opposite=a)
    if rsa.game != rsb.game:
        fail_input(f"command line: B: {b} is a {rsb.game} ruleset, {a} a {rsa.game} one")
    return rsa, rsb, _current["why"][a], _current["why"][b]


@app.command(**GAME_COMMAND)
def compare(ctx: typer.Context,
            a: str = typer.Argument(..., help="ruleset A: a game (its small configuration; opposite a "
                                    "ruleset file, its built-in ruleset), built-in ruleset or RULESET.toml"),
            b: Optional[str] = typer.Argument(None, help="ruleset B; omitted: A with the --ruling and "
                                              "parameter overrides given"),
            players: Optional[int] = typer.Option(None, "--players", help="number of players (both sides)"),
            ruling: Optional[list[str]] = typer.Option(None, "--ruling", help="ID=OPTION (B only when B is "
                                                       "omitted, else both sides)"),
            games_: Optional[int] = typer.Option(None, "--games", click_type=GAME_COUNT, help=SAMPLE_HELP),
            seed: Optional[int] = typer.Option(None, "--seed", help="seed of those games"),
            policy: Optional[str] = typer.Option(None, "--policy", help="policy of the simulated games "
                                                 "(default: the game's simulate default)"),
            max_states: Optional[int] = typer.Option(None, "--max-states", click_type=STATES,
                                                     help="state limit per side"),
            timeout: Optional[float] = typer.Option(None, "--timeout", click_type=SECONDS,
                                                    help="seconds for the whole command (both sides share it)"),
            cache_dir: Optional[Path] = typer.Option(None, "--cache", help=CACHE_HELP),
            as_json: bool = typer.Option(False, "--json", help="print one JSON document")) -> None:
    """What a rule edit changes: the figures that moved first (values per seat, first-seat
    advantage, game length, the game's own figures; a sampled figure moves only when its 95%
    intervals separate, or over the same seeded games when its paired differences' interval
    excludes 0), then the properties whose verdict changed, then the regressions.
    Exit 1 when B fails or cannot decide a property A holds, or when values could not be computed."""
    def body():
        from ruleproof.solver.compare import compare_rulesets
        start = time.perf_counter()
        check_limits(max_states, timeout)
        if b is None and not (ruling or ctx.args or players is not None):
            fail_input("command line: B: give ruleset B, or overrides (--ruling ID=OPTION, --NAME VALUE) "
                       "that turn A into B")
        rsa, rsb, why_a, why_b = resolve_pair(a, b, players, ctx.args, ruling)
        _current["ruleset"] = rsa
        with results_cache(cache_dir):
            res = compare_rulesets(rsa, rsb, why=(why_a, why_b), max_states=max_states,
                                   timeout=time_left(timeout), games=games_, seed=seed, policy=policy)
        doc = {"game": rsa.game, "ruleset": f"{rsa.name} vs {rsb.name}",
               "config": {"a": rsa.as_dict(), "b": rsb.as_dict()}, **res,
               "seconds": round(time.perf_counter() - start, 4)}
        if as_json:
            emit(doc)
        else:
            from ruleproof.solver.page import comparison_text
            for line in comparison_text(doc):
                out.print(line, markup=False, highlight=False, soft_wrap=True)
            out.print("compare: " + comparison_verdict(doc), markup=False, highlight=False)
        if res["regressions"]:
            raise Exit(1)
    run(body, timeout=timeout, as_json=as_json)


def comparison_verdict(doc: dict[str, Any]) -> str:
    n = len(doc["regressions"])
    return {"regresses": f"B regresses ({n} regression{'s' if n != 1 else ''}; exit 1)",
            "changes": "B changes what is listed above; nothing regressed",
            "no detectable change": "no detectable change; nothing regressed",
            "unchanged": "nothing changed; nothing regressed",
            "undecided": "not decided within the limits: nothing above shows B worse than A (exit 1)"}[doc["verdict"]]


def main(argv: list[str] | None = None) -> None:
    """The console script: Typer's own usage errors (unknown options, values of the wrong type)
    become one line on stderr with exit code 2, like every other bad input; nothing escapes as a
    traceback (see ``_guarded``)."""
    import errno
    real_stdout = sys.stdout
    try:   # text that is not valid Unicode (a name read from a file) prints escaped, never fails
        real_stdout.reconfigure(errors="backslashreplace")
    except (AttributeError, ValueError, OSError):
        pass
    sys.stdout = runtime.GuardedStdout(real_stdout)
    # the console script arms the watchdogs (Ctrl-C, --timeout); in-process callers (tests) do not
    watchdogs = runtime.armed(_STARTED, lambda line: os.write(2, (line + "\n").encode())) \
        if argv is None else nullcontext()
    if argv is None:
        runtime.no_full_collections()
    try:
        with watchdogs:
            code = _guarded(argv)
            sys.stdout.flush()
    except runtime.Interrupted:   # Ctrl-C while the command line loaded (see runtime.armed)
        runtime.say_interrupted()
        code = runtime.EXIT_INTERRUPTED
    except runtime.StdoutFailed as exc:
        if exc.error.errno == errno.EPIPE:  # the reader went away (`| head`): quietly, like Unix tools
            try:
                os.dup2(os.open(os.devnull, os.O_WRONLY), real_stdout.fileno())
            except OSError:
                pass
            code = runtime.EXIT_BROKEN_PIPE
        else:
            try:  # nothing more can reach the full stdout: keep the interpreter from retrying
                os.dup2(os.open(os.devnull, os.O_WRONLY), real_stdout.fileno())
            except OSError:
                pass
            say_error(f"error: cannot write to standard output ({exc})")
            code = 2
    finally:
        sys.stdout = real_stdout
    if argv is None:  # the console script: skip the interpreter's teardown (freeing a large graph
        sys.stderr.flush()  # object by object takes a second), the streams flushed first
        os._exit(code)
    sys.exit(code)


def _guarded(argv: list[str] | None) -> int:
    """Run the command line; every exception becomes an exit code and at most one line."""
    command = typer.main.get_command(app)
    try:
        code = command.main(args=argv, prog_name="ruleproof", standalone_mode=False)
    except typer.TyperException as exc:
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        if type(exc).__name__ == "NoArgsIsHelpError":
            return 0  # no command given: the help has been shown
        say_error(f"error: command line: {message}")
        return getattr(exc, "exit_code", 2) or 2
    except (typer.Abort, runtime.Interrupted, KeyboardInterrupt):
        runtime.say_interrupted()
        return runtime.EXIT_INTERRUPTED
    except runtime.StdoutFailed:
        raise
    except runtime.TimeLimit as exc:  # outside a command body (e.g. while loading a library)
        say_error(f"partial result: {exc}; no complete result")
        return runtime.EXIT_LIMIT
    except MemoryError:
        say_error("error: out of memory before the command could finish (lower --max-states or raise memory)")
        return runtime.EXIT_LIMIT
    except ImportError as exc:
        return library_failed(exc)
    except Exception as exc:  # noqa: BLE001 - the last resort: one line, no traceback
        say_error(f"internal error: {type(exc).__name__}: {exc}")
        return 3
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    main()
