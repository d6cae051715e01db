"""What every bench prints at its end: one row per measured run -- states, seconds, states per
second, peak memory -- and the ratio to the previous figures stored in ``bench/baseline.json``
(the figures docs/bench.md cites; a run's key there is ``<bench>/<run>``).

The ratio is baseline seconds / seconds now for the same run and the same states: above 1 is
faster. A run whose state count differs from the baseline's is flagged rather than compared.
A run that failed (a peer not installed, a child that crashed, a time limit) is one line saying
why. ``--record-baseline`` writes this run's figures as the new baseline.
"""
from __future__ import annotations

import json
import os
import resource
from pathlib import Path

BASELINE = Path(__file__).resolve().parent / "baseline.json"


def peak_mib(children: bool = False) -> float:
    """The peak resident memory of this process (or of its finished children), MiB."""
    who = resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF
    return resource.getrusage(who).ru_maxrss / 1024


def add_arguments(parser) -> None:
    parser.add_argument("--quick", action="store_true", help="a short ladder (what `make bench` runs)")
    parser.add_argument("--record-baseline", action="store_true",
                        help="store this run's figures in bench/baseline.json")


class Report:
    """Collects a bench's runs and prints them side by side with the baseline."""

    def __init__(self, bench: str, unit: str = "states"):
        self.bench, self.unit = bench, unit
        self.rows: list[dict] = []
        try:
            self.baseline = json.loads(BASELINE.read_text()).get(bench, {})
        except (OSError, json.JSONDecodeError) as exc:
            print(f"(baseline not read: {BASELINE}: {exc})")
            self.baseline = {}

    def add(self, run: str, states: int, seconds: float, peak: float | None, unit: str | None = None) -> None:
        self.rows.append({"run": run, "states": int(states), "seconds": float(seconds), "peak_mib": peak,
                          "unit": unit or self.unit})

    def fail(self, run: str, reason: str) -> None:
        self.rows.append({"run": run, "error": reason})

    def ratio(self, row: dict) -> str:
        base = self.baseline.get(row["run"])
        if base is None:
            return "no baseline"
        if base["states"] != row["states"]:
            return f"baseline had {base['states']:,} {row['unit']}: not compared"
        if not row["seconds"] or not base["seconds"]:
            return "-"
        return f"{base['seconds'] / row['seconds']:.2f}x ({base['seconds']:.3g} s before)"

    def print(self) -> None:
        load, cores = os.getloadavg()[0], os.cpu_count() or 1
        print(f"\n== {self.bench}: summary (ratio = baseline seconds / seconds now; "
              f"baseline: bench/baseline.json) ==")
        if load > cores / 2:   # the machine is shared: say so beside the figures it inflates
            print(f"(load average {load:.1f} on {cores} cores: wall-clock seconds here are inflated)")
        print(f"{'run':<34} {'states':>12} {'seconds':>9} {'per second':>12} {'peak MiB':>9}  vs baseline")
        for r in self.rows:
            if "error" in r:
                print(f"{r['run']:<34} failed: {r['error']}")
                continue
            rate = f"{r['states'] / r['seconds']:,.0f}" if r["seconds"] else "-"
            peak = f"{r['peak_mib']:.0f}" if r["peak_mib"] is not None else "-"
            print(f"{r['run']:<34} {r['states']:>12,} {r['seconds']:>9.3f} {rate:>12} {peak:>9}  {self.ratio(r)}"
                  + ("" if r["unit"] == "states" else f"  ({r['unit']})"))

    def record(self) -> None:
        try:
            doc = json.loads(BASELINE.read_text())
        except (OSError, json.JSONDecodeError):
            doc = {}
        mine = doc.setdefault(self.bench, {})
        source = f"bench --record-baseline, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
        for r in self.rows:
            if "error" not in r:
                mine[r["run"]] = {"states": r["states"], "seconds": round(r["seconds"], 4),
                                  "peak_mib": None if r["peak_mib"] is None else round(r["peak_mib"], 1),
                                  "source": source}
        BASELINE.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
        print(f"(baseline for {self.bench} written to {BASELINE})")

    def finish(self, args) -> None:
        self.print()
        if getattr(args, "record_baseline", False):
            self.record()
