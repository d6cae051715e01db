"""Every figure says what it is: one typed estimate behind every number the tool prints or writes.

Four kinds, and what each carries:

* ``exact``: a ``Fraction`` (its float beside it);
* ``solved``: a float from a numerical method, with the tolerance it meets (a Bellman residual,
  double-precision rounding) and how;
* ``sampled``: the mean over ``games`` seeded plays, its 95% interval clipped to the range the
  quantity can take (``bounds``), the seed and the policy that played;
* ``near-optimal``: a near-optimal policy's own value, sampled as above, plus the regret figure
  that applies to this configuration -- or, when none was measured on it, that it was not
  (``Regret``), and how it was measured.

Text shows only the digits the evidence supports (an interval's half-width to two significant
digits); a comparison of two estimates (``change``) calls a sampled difference a change only when
the intervals separate; over paired plays (``paired_change``) when the paired differences'
interval excludes 0. This module is core: it imports nothing from the solver.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Mapping, Sequence

EXACT, SOLVED, SAMPLED, NEAR_OPTIMAL = "exact", "solved", "sampled", "near-optimal"
KINDS = (EXACT, SOLVED, SAMPLED, NEAR_OPTIMAL)
#: the kinds that come from plays and carry an interval
SAMPLED_KINDS = (SAMPLED, NEAR_OPTIMAL)
#: a fraction with more digits than this prints as a float in text (JSON and CSV keep it)
HEADLINE_FRACTION_DIGITS = 20
#: the most decimals any float is printed with
MAX_DECIMALS = 9
Z95 = 1.959963984540054


# ---- intervals -------------------------------------------------------------------------------------

def normal_interval(total: float, total_sq: float, n: int) -> tuple[float, float, float]:
    """(mean, low, high): the normal-approximation 95% interval of a mean from running sums."""
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0) * n / max(n - 1, 1)
    half = Z95 * math.sqrt(var / n)
    return mean, mean - half, mean + half


def bounded_interval(total: float, total_sq: float, n: int,
                     bounds: tuple[float, float]) -> tuple[float, float, float]:
    """(mean, low, high) of a mean of plays that each lie in finite ``bounds``: the hull of the
    normal interval and the normal interval of the sample widened by z^2/2 pseudo-plays at each
    bound (Agresti and Coull's adjustment; for a 0/1 quantity it is their interval). The normal
    interval alone collapses to a point when every play gave the same value (30 wins in 30 games
    are not a certain win) and is too narrow near a bound; the hull never is, and with many plays
    and some spread it is the normal interval."""
    mean, low, high = normal_interval(total, total_sq, n)
    if n == 0:
        return mean, low, high
    lo, hi = bounds
    pseudo = Z95 * Z95 / 2
    _, a_low, a_high = normal_interval(total + pseudo * (lo + hi), total_sq + pseudo * (lo * lo + hi * hi),
                                       n + 2 * pseudo)
    return mean, min(low, a_low), max(high, a_high)


def unspread_interval(value: float, n: int, bounds: tuple[float, float] | None) -> tuple[float, float]:
    """A 95% interval for the mean of a quantity when all ``n`` plays gave ``value``: the normal
    interval collapses to the point, yet a play that differs may still come. At most ``p = 1 -
    0.05^(1/n)`` of the plays differ (95%, Clopper-Pearson for none seen in ``n``); such a play lies
    anywhere in ``bounds``, so the mean lies within ``p`` of the way to each bound -- an infinite
    bound leaves that side open (``inf``): no finite interval is honest without one."""
    lo, hi = (-math.inf, math.inf) if bounds is None else (float(bounds[0]), float(bounds[1]))
    p = 1.0 - 0.05 ** (1.0 / max(n, 1))
    low = value if lo >= value else value - p * (value - lo)
    high = value if hi <= value else value + p * (hi - value)
    return low, high


def interval_text(low: float, high: float, decimals: int) -> str:
    """``[0.86, 1.00]``; an open side reads ``(-inf`` or ``inf)``, as ``quantiles_text`` writes it."""
    left = "(-inf" if low == -math.inf else f"[{_plain(low, decimals)}"
    right = "inf)" if high == math.inf else f"{_plain(high, decimals)}]"
    return f"{left}, {right}"


def interval_json(interval: Sequence[float]) -> list[float | None]:
    """An interval (or ``bounds``) as JSON: an open (infinite) end is null."""
    return [x if math.isfinite(x) else None for x in interval]


def interval_from_json(pair: Sequence[float | None]) -> tuple[float, float]:
    """Back from ``interval_json``: a null end is open."""
    return (-math.inf if pair[0] is None else pair[0], math.inf if pair[1] is None else pair[1])


def wilson_interval(successes: int, n: int) -> tuple[float, float, float]:
    """(proportion, low, high): the Wilson score 95% interval (sound near 0 and 1)."""
    if n == 0:
        return math.nan, math.nan, math.nan
    p = successes / n
    den = 1 + Z95 * Z95 / n
    centre = (p + Z95 * Z95 / (2 * n)) / den
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 * Z95 / (4 * n * n)) / den
    # at 0 or n successes one end is the proportion itself, which rounding can miss by an ulp
    # (30 of 30 gave a high of 0.9999999999999999, below the proportion 1.0)
    return p, min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half))


# ---- quantiles of a length -------------------------------------------------------------------------

#: the quantiles of a game's length the tool reports, by name
QUANTILES = {"p05": Fraction(1, 20), "p25": Fraction(1, 4), "p50": Fraction(1, 2), "p75": Fraction(3, 4),
             "p95": Fraction(19, 20), "p99": Fraction(99, 100)}


def sample_quantile(ordered: Sequence[float], q: Fraction) -> float:
    """The ``q``-quantile of a sorted sample by the definition the exact solvers use for a
    distribution (the smallest t with P(T <= t) >= q): the smallest observed value with at least
    ``q`` of the plays at or below it -- an observed value, so whole turns stay whole."""
    k = max(math.ceil(Fraction(q) * len(ordered)), 1)
    return ordered[k - 1]


def quantile_interval(ordered: Sequence[float], q: Fraction,
                      bounds: tuple[float, float] = (-math.inf, math.inf)) -> tuple[float, float]:
    """A 95% interval for the ``q``-quantile (as ``sample_quantile`` defines it) of the
    distribution a sorted sample was drawn from, whatever that distribution: order statistics
    [X_(l), X_(u)] with P(B <= l - 1) <= 0.025 and P(B <= u - 1) >= 0.975 for B ~ Binomial(n, q).
    At least l plays lie at or below the quantile with probability >= 0.975, fewer than u lie
    below it with probability >= 0.975, so the interval covers it with probability >= 0.95 (ties
    included). A side the plays cannot bound is the quantity's own bound (often infinite)."""
    import numpy as np
    from scipy.stats import binom
    n = len(ordered)
    if n == 0:
        return float(bounds[0]), float(bounds[1])
    cdf = binom.cdf(np.arange(n + 1), n, float(q))          # cdf[k] = P(B <= k)
    below = np.nonzero(cdf <= 0.025)[0]                       # candidates for l - 1
    above = np.nonzero(cdf >= 0.975)[0]                       # candidates for u - 1
    low = float(ordered[int(below[-1])]) if len(below) and below[-1] + 1 <= n else float(bounds[0])
    high = float(ordered[int(above[0])]) if len(above) and above[0] + 1 <= n else float(bounds[1])
    return low, high


def quantiles_text(values: Mapping[str, Any], intervals: Mapping[str, Any] | None = None) -> str:
    """``p05 15 [14, 16], p99 24 [23, inf)`` for sampled quantiles (each with its 95% interval),
    ``p05 15, p50 19`` for exact ones; a quantile beyond the computed horizon reads "beyond"."""
    def one(name: str, v: Any) -> str:
        text = f"{name} {'beyond' if v is None else format(v, 'g')}"
        iv = (intervals or {}).get(name)
        if iv is not None:
            low = "-inf" if iv[0] is None else format(iv[0], "g")
            text += f" [{low}, {'inf)' if iv[1] is None else format(iv[1], 'g') + ']'}"
        return text
    return ", ".join(one(k, v) for k, v in values.items())


# ---- the regret that applies to a near-optimal value ------------------------------------------------

@dataclass(frozen=True)
class Regret:
    """How far a near-optimal policy may be from optimal play on one configuration.

    ``applies``: the figure was measured on this very configuration (then ``value`` is its regret
    there). Otherwise nothing was measured on it: ``value`` and ``measured_on`` may name the
    closest configuration that was measured, which is context, not a bound here."""
    applies: bool
    value: float | None = None
    measured_on: str = ""
    how: str = ""

    def text(self) -> str:
        if self.applies and self.value is not None:
            return f"regret at most {_plain(self.value, 4)} (measured on this configuration: {self.how})"
        closest = ""
        if self.value is not None and self.measured_on:
            closest = (f"; closest measured: {self.measured_on}, regret {_plain(self.value, 4)}, "
                       "not a bound here")
        return "regret not measured for this configuration" + closest

    def as_dict(self) -> dict[str, Any]:
        return {"applies": self.applies, "value": self.value, "measured_on": self.measured_on,
                "how": self.how}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Regret":
        return cls(bool(d.get("applies")), d.get("value"), d.get("measured_on", ""), d.get("how", ""))


NOT_MEASURED = Regret(False)


# ---- the estimate ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Estimate:
    """One figure and what it is (see the module docstring). Build one with ``exact``,
    ``solved``, ``sampled`` or ``near_optimal``."""
    kind: str
    value: float
    fraction: Fraction | None = None
    tolerance: float | None = None
    interval: tuple[float, float] | None = None
    games: int | None = None
    seed: int | None = None
    policy: str | None = None
    bounds: tuple[float, float] | None = None
    regret: Regret | None = None
    how: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind {self.kind!r} is not one of {KINDS}")
        if self.kind == EXACT and self.fraction is None:
            raise ValueError("an exact estimate needs its fraction")
        if self.kind in SAMPLED_KINDS and (self.interval is None or self.games is None):
            raise ValueError(f"a {self.kind} estimate needs its interval and its number of games")
        if self.kind == NEAR_OPTIMAL and self.regret is None:
            raise ValueError("a near-optimal estimate says which regret applies (or that none was measured)")

    # -- what it is --
    @property
    def is_sampled(self) -> bool:
        return self.kind in SAMPLED_KINDS

    @property
    def half_width(self) -> float:
        """Half the 95% interval (sampled), the tolerance (solved), 0 (exact)."""
        if self.is_sampled:
            low, high = self.interval
            return (high - low) / 2
        return self.tolerance or 0.0

    @property
    def low(self) -> float:
        return self.interval[0] if self.is_sampled else self.value - (self.tolerance or 0.0)

    @property
    def high(self) -> float:
        return self.interval[1] if self.is_sampled else self.value + (self.tolerance or 0.0)

    def decimals(self) -> int:
        """The decimals the evidence supports: two significant digits of a sampled interval's
        half-width; a solved value's tolerance; nine for an exact one."""
        if self.kind == EXACT:
            return MAX_DECIMALS
        if self.kind == SOLVED:
            tol = self.tolerance or 0.0
            return MAX_DECIMALS if tol <= 0 else max(1, min(MAX_DECIMALS, -math.floor(math.log10(tol)) - 1))
        half = self.half_width
        if half == math.inf:   # an open side: the closed side's reach, if it has one
            half = min((x for x in (self.value - self.low, self.high - self.value) if 0 < x < math.inf),
                       default=0.0)
        if not half > 0:   # every play gave the same outcome: as many digits as the games resolve
            return max(1, min(6, math.ceil(math.log10(max(self.games or 1, 2)))))
        return max(0, min(MAX_DECIMALS, 1 - math.floor(math.log10(half))))

    # -- text --
    def number(self, signed: bool = False, compact: bool = False) -> str:
        """The figure alone, to the digits it supports (a sampled one with ± half its interval; an
        exact one with its fraction when that is at most ``HEADLINE_FRACTION_DIGITS`` long).
        ``compact`` (table cells): exact and solved figures to six decimals, no fraction."""
        d = self.decimals()
        if compact and not self.is_sampled:
            return _plain(self.value, min(d, 6), signed)
        if self.kind == EXACT:
            frac, short = self.fraction, len(str(self.fraction)) <= HEADLINE_FRACTION_DIGITS
            if frac.denominator == 1 and short:
                return f"{'+' if signed and frac > 0 else ''}{frac}"
            return _plain(self.value, d, signed) + (f" = {frac}" if short else "")
        text = _plain(self.value, d, signed)
        if self.is_sampled and self.half_width == math.inf:   # an open side: the interval itself
            text += f" {interval_text(*self.interval, d)}"
        elif self.is_sampled:
            text += f" ± {_plain(self.half_width, d)}"
        return text

    def evidence(self) -> str:
        """What the figure is, without the figure: the kind and what backs it."""
        if self.kind == EXACT:
            return "exact"
        if self.kind == SOLVED:
            tol = "" if self.tolerance is None else f" {self.tolerance:.0e}"
            return f"solved, {self.how or 'tolerance'}{tol}"
        low, high = self.interval
        d = self.decimals()
        played = f"{self.games:,} games" + ("" if self.seed is None else f", seed {self.seed}") \
            + ("" if not self.policy else f", policy {self.policy}")
        text = f"{self.kind}: 95% interval {interval_text(low, high, d)}, {played}"
        if self.kind == NEAR_OPTIMAL:
            text += "; " + self.regret.text()
        return text

    def text(self, signed: bool = False) -> str:
        """The figure and what it is, e.g. ``0.09 ± 0.41 (sampled: 95% interval ..., 23 games, seed 1,
        policy lookahead)`` or ``0.683905013 = 1296/1895 (exact)``."""
        return f"{self.number(signed)} ({self.evidence()})"

    # -- JSON --
    def as_dict(self) -> dict[str, Any]:
        """Plain JSON: ``kind``, ``float`` and ``fraction`` always (``fraction`` null unless exact);
        a sampled figure also ``mean``, ``ci95``, ``n`` (as every simulation estimate), ``games``,
        ``seed``, ``policy``, ``bounds`` (null for an unbounded side); a solved one ``tolerance``; a near-optimal one ``regret``."""
        out: dict[str, Any] = {"kind": self.kind, "float": self.value,
                               "fraction": None if self.fraction is None else str(self.fraction)}
        if self.kind == SOLVED:
            out["tolerance"] = self.tolerance
        if self.is_sampled:
            out.update(mean=self.value, ci95=interval_json(self.interval), n=self.games, games=self.games,
                       seed=self.seed, policy=self.policy,
                       bounds=None if self.bounds is None else interval_json(self.bounds))
        if self.regret is not None:
            out["regret"] = self.regret.as_dict()
        if self.how:
            out["how"] = self.how
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Estimate":
        """Back from ``as_dict`` (or from a bare simulation estimate ``{"mean", "ci95", "n"}``)."""
        kind = d.get("kind") or (SAMPLED if "ci95" in d else EXACT if d.get("fraction") else SOLVED)
        value = d.get("float", d.get("mean"))
        frac = Fraction(d["fraction"]) if d.get("fraction") else None
        interval = None if d.get("ci95") is None else interval_from_json(d["ci95"])
        bounds = None if d.get("bounds") is None else interval_from_json(d["bounds"])
        regret = Regret.from_dict(d["regret"]) if d.get("regret") else None
        return cls(kind, float(value), frac, d.get("tolerance"), interval, d.get("games", d.get("n")),
                   d.get("seed"), d.get("policy"), bounds, regret, d.get("how", ""))


def _plain(x: float, decimals: int, signed: bool = False) -> str:
    text = f"{x:{'+' if signed else ''}.{decimals}f}"
    return text.lstrip("+-") if float(text) == 0 else text   # no "-0.00"


# ---- constructors ----------------------------------------------------------------------------------

def exact(x: Fraction | int) -> Estimate:
    x = Fraction(x)
    return Estimate(EXACT, float(x), fraction=x)


def solved(x: float, tolerance: float | None, how: str = "tolerance") -> Estimate:
    return Estimate(SOLVED, float(x), tolerance=tolerance, how=how)


def of_value(x: Fraction | float, tolerance: float | None = None, how: str = "tolerance") -> Estimate:
    """A computed value: exact when it is a Fraction, else solved to ``tolerance``."""
    return exact(x) if isinstance(x, Fraction) else solved(x, tolerance, how)


def clip(interval: tuple[float, float], bounds: tuple[float, float] | None) -> tuple[float, float]:
    low, high = interval
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return float(low), float(high)


def sampled(mean: float, interval: tuple[float, float], games: int, *, seed: int | None = None,
            policy: str | None = None, bounds: tuple[float, float] | None = None,
            how: str = "normal approximation") -> Estimate:
    """A seeded sample's mean and 95% interval, clipped to the quantity's possible range."""
    bounds = None if bounds is None else (float(bounds[0]), float(bounds[1]))
    return Estimate(SAMPLED, float(mean), interval=clip(interval, bounds), games=int(games), seed=seed,
                    policy=policy, bounds=bounds, how=how)


def sampled_mean(total: float, total_sq: float, games: int, **kw: Any) -> Estimate:
    """The mean of ``games`` plays from running sums; its interval is ``bounded_interval``'s when
    ``bounds`` are finite on both sides, else the normal approximation's -- unless every play gave
    the same value, where that one collapses to a point: then ``unspread_interval``'s, open on a
    side nothing bounds."""
    bounds = kw.get("bounds")
    if bounds is not None and all(math.isfinite(float(b)) for b in bounds):
        mean, low, high = bounded_interval(total, total_sq, games, (float(bounds[0]), float(bounds[1])))
        kw.setdefault("how", "normal approximation, widened near the bounds (Agresti-Coull)")
    else:
        mean, low, high = normal_interval(total, total_sq, games)
        if games > 0 and total_sq / games - mean * mean <= 1e-12 * max(1.0, mean * mean):
            low, high = unspread_interval(mean, games, bounds)
            kw["how"] = (f"every play gave the same value; at most {1 - 0.05 ** (1 / games):.2g} of plays "
                         f"differ (95%), and a side nothing bounds stays open")
    return sampled(mean, (low, high), games, **kw)


def sampled_proportion(successes: int, games: int, **kw: Any) -> Estimate:
    p, low, high = wilson_interval(successes, games)
    return sampled(p, (low, high), games, bounds=(0.0, 1.0), how="Wilson", **kw)


def near_optimal(sample: Estimate, regret: Regret | None) -> Estimate:
    """A near-optimal policy's sampled value with the regret that applies (None: not measured)."""
    if not sample.is_sampled:
        raise ValueError("a near-optimal value is the policy's sampled value")
    return replace(sample, kind=NEAR_OPTIMAL, regret=regret or NOT_MEASURED)


def as_estimate(x: Any) -> Estimate:
    """An Estimate from an Estimate, its JSON form, or a bare Fraction / float (exact / solved)."""
    if isinstance(x, Estimate):
        return x
    if isinstance(x, Mapping):
        return Estimate.from_dict(x)
    return of_value(x)


# ---- combining and comparing ------------------------------------------------------------------------

def difference(a: Estimate, b: Estimate) -> Estimate:
    """b - a, with the evidence of the weaker side: exact when both are. A sampled difference of
    independent samples combines each side's distances to its own interval's ends (Zou and Donner's
    MOVER): low = d - sqrt((b - b.low)^2 + (a.high - a)^2), high = d + sqrt((b.high - b)^2 +
    (a - a.low)^2). With symmetric intervals it is d +- sqrt(ha^2 + hb^2); near a bound, where an
    interval is lopsided (30 wins in 30: [0.86, 1.00]), each end keeps the side it comes from,
    rather than half the width on both."""
    if a.kind == EXACT and b.kind == EXACT:
        return exact(b.fraction - a.fraction)
    d = b.value - a.value
    if a.is_sampled or b.is_sampled:
        low = d - math.hypot(b.value - b.low, a.high - a.value)
        high = d + math.hypot(b.high - b.value, a.value - a.low)
        games = min(x.games for x in (a, b) if x.is_sampled)
        src = b if b.is_sampled else a
        return Estimate(SAMPLED, d, interval=(low, high), games=games, seed=src.seed,
                        policy=src.policy, how="difference of two samples (MOVER)")
    return solved(d, (a.tolerance or 0.0) + (b.tolerance or 0.0), "sum of the two tolerances")


#: verdicts of ``change``
CHANGED, UNCHANGED, NOT_DETECTED = "changed", "unchanged", "no detectable change"


@dataclass(frozen=True)
class Change:
    """How a figure moved from A to B: ``verdict`` is changed, unchanged (exact or solved and
    equal within tolerance) or no detectable change (sampled intervals that overlap)."""
    a: Estimate
    b: Estimate
    delta: Estimate
    verdict: str

    @property
    def moved(self) -> bool:
        return self.verdict == CHANGED

    def text(self) -> str:
        if self.verdict == CHANGED:
            return f"{self.delta.number(signed=True)}"
        if self.verdict == NOT_DETECTED and self.delta.half_width == math.inf:
            return f"no detectable change (95% interval {interval_text(*self.delta.interval, self.delta.decimals())})"
        if self.verdict == NOT_DETECTED:
            return f"no detectable change (±{_plain(self.delta.half_width, self.delta.decimals())})"
        return "unchanged"

    def as_dict(self) -> dict[str, Any]:
        return {"a": self.a.as_dict(), "b": self.b.as_dict(), "difference": self.delta.as_dict(),
                "verdict": self.verdict, "text": self.text()}


def change(a: Estimate, b: Estimate) -> Change:
    """Like compared with like: exact figures change when their fractions differ, solved ones when
    they differ by more than both tolerances, sampled ones only when the 95% intervals separate."""
    delta = difference(a, b)
    if a.kind == EXACT and b.kind == EXACT:
        verdict = CHANGED if a.fraction != b.fraction else UNCHANGED
    elif a.is_sampled or b.is_sampled:
        verdict = CHANGED if (a.high < b.low or b.high < a.low) else NOT_DETECTED
    else:
        tol = max((a.tolerance or 0.0) + (b.tolerance or 0.0), 1e-12)
        verdict = CHANGED if abs(b.value - a.value) > tol else UNCHANGED
    return Change(a, b, delta, verdict)


def paired_difference(xs: Sequence[float], ys: Sequence[float], *, seed: int | None, policy: str | None,
                      bounds: tuple[float, float] | None) -> Estimate:
    """The mean of y - x over paired plays (play i of each side drawn from the same random stream:
    common random numbers), sampled with its 95% interval: the pairs are independent of each other,
    so the spread is that of the differences -- the luck the two sides share cancels. ``bounds``:
    the range of one x or y (a difference lies within minus to plus its width)."""
    d = [y - x for x, y in zip(xs, ys)]
    width = None if bounds is None else float(bounds[1]) - float(bounds[0])
    return sampled_mean(sum(d), sum(v * v for v in d), len(d), seed=seed, policy=policy,
                        bounds=None if width is None else (-width, width),
                        how="normal approximation widened near the bounds (Agresti-Coull), paired games "
                            "(common random numbers)")


def paired_change(a: Estimate, b: Estimate, delta: Estimate) -> Change:
    """Like compared with like over paired plays: ``delta`` is ``paired_difference`` of the plays
    behind ``a`` and ``b``; the figure moved when its interval excludes 0."""
    return Change(a, b, delta, CHANGED if delta.low > 0 or delta.high < 0 else NOT_DETECTED)


# ---- named figures ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Figure:
    """A named quantity a solve or a simulation measured: one estimate overall or one per seat,
    what it means, and (for shares such as P(seat k finishes first)) the fair share to read it by."""
    name: str
    meaning: str
    estimates: tuple[Estimate, ...]
    per_seat: bool = False
    fair_share: Fraction | None = None

    def as_dict(self) -> dict[str, Any]:
        out = {"name": self.name, "meaning": self.meaning, "per_seat": self.per_seat,
               "estimates": [e.as_dict() for e in self.estimates]}
        if self.fair_share is not None:
            out["fair_share"] = str(self.fair_share)
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Figure":
        fair = d.get("fair_share")
        return cls(d["name"], d.get("meaning", ""), tuple(Estimate.from_dict(e) for e in d["estimates"]),
                   bool(d.get("per_seat")), None if fair is None else Fraction(fair))


def first_seat_advantage(values: Sequence[Estimate]) -> Estimate | None:
    """Seat 0's value minus the mean of the other seats' values (0: no first-seat edge), with the
    evidence of its inputs: exact from exact values; from sampled ones an interval that treats the
    seats' samples as independent (conservative when they come from the same plays)."""
    if len(values) < 2:
        return None
    others = values[1:]
    k = len(others)
    if all(v.kind == EXACT for v in values):
        return exact(values[0].fraction - sum((v.fraction for v in others), Fraction(0)) / k)
    value = values[0].value - sum(v.value for v in others) / k
    if any(v.is_sampled for v in values):
        half = math.sqrt(values[0].half_width ** 2 + sum(v.half_width ** 2 for v in others) / (k * k))
        src = next(v for v in values if v.is_sampled)
        return Estimate(SAMPLED, value, interval=(value - half, value + half), games=src.games,
                        seed=src.seed, policy=src.policy, how="from the seats' intervals")
    tol = values[0].tolerance or 0.0
    tol += sum((v.tolerance or 0.0) for v in others) / k
    return solved(value, tol, "from the seats' tolerances")


FIRST_SEAT_ADVANTAGE_MEANING = ("seat 0's value minus the mean value of the other seats (0: the first "
                                "seat has no edge; in the units of the value)")
