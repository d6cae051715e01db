"""model/estimate.py: the one typed estimate behind every figure -- its digits, its range, its JSON."""
from __future__ import annotations

import math
from fractions import Fraction

import pytest

from ruleproof.model.estimate import (NOT_MEASURED, Estimate, Regret, change, exact, first_seat_advantage,
                                      near_optimal, sampled, sampled_mean, sampled_proportion, solved)
from ruleproof.model.ruleset import value_words


def test_text_shows_only_the_digits_the_interval_supports():
    e = sampled(0.087, (-0.320, 0.494), 23, seed=1, policy="near-optimal", bounds=(-1, 1))
    assert e.number() == "0.09 ± 0.41"           # two significant digits of the half-width
    assert e.text() == ("0.09 ± 0.41 (sampled: 95% interval [-0.32, 0.49], 23 games, seed 1, "
                        "policy near-optimal)")
    assert sampled(0.5306, (0.5206, 0.5406), 10_000).number() == "0.531 ± 0.010"
    assert exact(Fraction(1296, 1895)).text() == "0.683905013 = 1296/1895 (exact)"
    assert solved(0.5305927252737468, 1e-12, "Bellman residual").number() == "0.530592725"
    assert solved(0.53059, 1e-4, "tolerance").number() == "0.531"


def test_a_long_fraction_prints_as_a_float():
    big = Fraction(123456789012345678901, 987654321098765432109)
    assert len(str(big)) > 20 and str(big) not in exact(big).text()
    assert exact(big).as_dict()["fraction"] == str(big)   # the JSON keeps it
    assert exact(Fraction(3)).number() == "3" and exact(Fraction(-1)).number(signed=True) == "-1"


def test_intervals_stay_within_what_the_figure_can_be():
    # 23 games all won but one: the normal interval pokes above 1; clipped to the utility's range
    e = sampled_mean(22.0, 22.0, 23, bounds=(-1.0, 1.0))
    assert e.high == 1.0 and e.low < e.value <= 1.0
    p = sampled_proportion(0, 40)
    assert p.low == 0.0 and p.high > 0 and p.bounds == (0.0, 1.0) and p.how == "Wilson"
    # every play a success: the interval still holds the proportion (rounding put its top an ulp below)
    for n in range(1, 400):
        for k in (0, 1, n - 1, n):
            w = sampled_proportion(k, n)
            assert w.low <= w.value <= w.high and w.low < w.high, (k, n)


def _coverage(outcomes: dict[float, float], n: int, bounds: tuple[float, float]) -> float:
    """The exact probability that ``sampled_mean``'s interval over ``n`` plays covers the true
    mean, when each play gives value v with probability outcomes[v] (summed over every count
    vector: no sampling)."""
    values, probs = list(outcomes), list(outcomes.values())
    truth = sum(v * p for v, p in outcomes.items())

    def counts(k: int, left: int):
        if k == len(values) - 1:
            yield (left,)
            return
        for c in range(left + 1):
            for rest in counts(k + 1, left - c):
                yield (c,) + rest

    covered = 0.0
    for cs in counts(0, n):
        weight = math.factorial(n)
        for c, p in zip(cs, probs):
            weight = weight / math.factorial(c) * p ** c
        total = sum(c * v for c, v in zip(cs, values))
        total_sq = sum(c * v * v for c, v in zip(cs, values))
        e = sampled_mean(total, total_sq, n, bounds=bounds)
        covered += weight * (e.low <= truth <= e.high)
    return covered


def test_a_sample_where_every_play_agreed_is_not_a_certainty():
    # the policy won all 30 games: the normal interval collapsed to [1, 1] ("+1.00 ± 0.00")
    e = sampled_mean(30.0, 30.0, 30, bounds=(-1.0, 1.0))
    assert e.high == 1.0 and e.low < 0.8 and e.number(signed=True) == "+1.00 ± 0.14"
    # a paired difference that was 0 in every game: 0, give or take what 30 games resolve
    d = sampled_mean(0.0, 0.0, 30, bounds=(-2.0, 2.0))
    assert d.low < -0.2 and d.high > 0.2
    # with many games and spread the normal interval is unchanged: (0.3 -+ 1.96 sqrt(0.95 - 0.09) / sqrt(2000))
    big = sampled_mean(600.0, 1900.0, 2000, bounds=(-1.0, 1.0))
    half = 1.959963984540054 * math.sqrt((0.95 - 0.09) * 2000 / 1999 / 2000)
    assert big.high == pytest.approx(0.3 + half, abs=1e-12) and big.low == pytest.approx(0.3 - half, abs=6e-4)
    # an unbounded quantity keeps the normal approximation while the plays spread ...
    assert sampled_mean(31.0, 33.0, 30, bounds=(0.0, math.inf)).high < 1.2


def test_every_play_alike_leaves_an_unbounded_side_open():
    # 30 plays of 12 moves each: no more than 1 - 0.05^(1/30) = 0.0950 of plays differ (95%), and a
    # differing one may be anything from 0 up: [12 (1 - 0.095), inf) -- not "12 ± 0"
    e = sampled_mean(360.0, 4320.0, 30, bounds=(0.0, math.inf), seed=3)
    p = 1 - 0.05 ** (1 / 30)
    assert e.interval == (pytest.approx(12 * (1 - p)), math.inf) and e.low == pytest.approx(10.86, abs=0.005)
    assert e.number() == "12.0 [10.9, inf)" and "± 0" not in e.text()
    assert "95% interval [10.9, inf), 30 games, seed 3" in e.text()
    # nothing bounds it on either side (a paired difference of lengths): open on both
    d = sampled_mean(60.0, 120.0, 30)
    assert d.interval == (-math.inf, math.inf) and d.number(signed=True) == "+2.00 (-inf, inf)"
    # at a bound the closed side stays put: 30 plays of 0 moves
    assert sampled_mean(0.0, 0.0, 30, bounds=(0.0, math.inf)).interval == (0.0, math.inf)
    # an open end is null in JSON (plain JSON, no Infinity) and comes back open
    import json
    doc = json.loads(json.dumps(e.as_dict(), allow_nan=False))
    assert doc["ci95"] == [pytest.approx(e.low), None] and Estimate.from_dict(doc) == e
    # a change against it cannot be detected, and says why in its interval
    c = change(sampled_mean(330.0, 3630.0, 30, bounds=(0.0, math.inf)), e)
    assert c.verdict == "no detectable change" and "inf)" in c.text() and "±inf" not in c.text()


@pytest.mark.parametrize("outcomes", [{1.0: 0.99, -1.0: 0.01}, {1.0: 0.97, 0.0: 0.02, -1.0: 0.01},
                                      {1.0: 0.5, -1.0: 0.5}, {1.0: 0.05, 0.0: 0.9, -1.0: 0.05}])
def test_the_interval_covers_the_truth_near_and_far_from_a_bound(outcomes):
    # exact coverage over every outcome of 30 plays; the normal interval alone covers a 0.99
    # chance of +1 only when some game was lost: 1 - 0.99^30 = 0.26
    assert _coverage(outcomes, 30, (-1.0, 1.0)) >= 0.93


def test_a_proportion_through_the_mean_contains_wilsons_interval():
    from ruleproof.model.estimate import wilson_interval
    for n in (1, 5, 30, 200):
        for k in range(n + 1):
            e = sampled_mean(float(k), float(k), n, bounds=(0.0, 1.0))
            _, low, high = wilson_interval(k, n)
            assert e.low <= low + 1e-12 and e.high >= high - 1e-12, (k, n)


def test_json_round_trips_and_stays_plain():
    import json
    e = near_optimal(sampled(0.1, (-0.05, 0.25), 150, seed=1, policy="near-optimal", bounds=(-1.0, math.inf)),
                     Regret(False, 0.0029, "bench rung, 14 cards", "top layers"))
    d = json.loads(json.dumps(e.as_dict(), allow_nan=False))
    assert d["kind"] == "near-optimal" and d["bounds"] == [-1.0, None] and d["mean"] == d["float"] == 0.1
    assert Estimate.from_dict(d) == e
    assert Estimate.from_dict({"mean": 0.4, "ci95": [0.3, 0.5], "n": 10}).kind == "sampled"


def test_every_kind_carries_its_evidence():
    with pytest.raises(ValueError):
        Estimate("sampled", 0.1)                      # no interval, no games
    with pytest.raises(ValueError):
        Estimate("exact", 0.5)                        # no fraction
    with pytest.raises(ValueError):
        Estimate("near-optimal", 0.1, interval=(0, 0.2), games=10)   # no regret said
    with pytest.raises(ValueError):
        near_optimal(exact(Fraction(1, 2)), None)     # a near-optimal value is sampled
    assert near_optimal(sampled(0.1, (0, 0.2), 10), None).regret == NOT_MEASURED
    assert "regret not measured for this configuration" in NOT_MEASURED.text()
    assert Regret(True, 0.0009, "bench rung, 14 cards", "top layers").text().startswith("regret at most 0.0009")


def test_first_seat_advantage():
    assert first_seat_advantage([exact(Fraction(1296, 1895)), exact(Fraction(599, 1895))]).fraction == \
        Fraction(697, 1895)
    three = first_seat_advantage([exact(Fraction(1, 2)), exact(Fraction(1, 4)), exact(Fraction(1, 4))])
    assert three.fraction == Fraction(1, 4)
    s = first_seat_advantage([sampled(0.6, (0.5, 0.7), 100), sampled(0.4, (0.3, 0.5), 100)])
    assert s.kind == "sampled" and s.value == pytest.approx(0.2) and s.half_width >= 0.1
    assert first_seat_advantage([exact(Fraction(1))]) is None


def test_change_reads_like_with_like():
    assert change(solved(0.5, 1e-9), solved(0.5 + 1e-12, 1e-9)).verdict == "unchanged"
    assert change(solved(0.5, 1e-9), solved(0.51, 1e-9)).moved
    a, b = sampled(0.1, (0.0, 0.2), 50), sampled(0.3, (0.21, 0.39), 50)
    c = change(a, b)
    assert c.moved and c.delta.kind == "sampled" and c.text().startswith("+0.2")


def test_parameter_values_in_words():
    assert value_words(("F1", "F1", "F1", "F2", "grito", "grito", "fios")) == "[F1×3 F2 grito×2 fios] (7)"
    assert value_words((("estabilizador", 1), ("comunicadores", 2))) == "estabilizador 1, comunicadores 2"
    assert value_words((2, 4)) == "[2 4]" and value_words(()) == "none" and value_words("curta") == "curta"


def test_a_sampled_quantile_reads_the_sample_as_the_exact_solver_reads_a_distribution():
    """``sample_quantile`` on a sample equals Presentes' exact ``quantile`` (smallest t with
    P(T <= t) >= q) on the sample's own distribution: one definition through two commands."""
    import random
    from ruleproof.model.estimate import QUANTILES, sample_quantile
    from ruleproof.model.presentes.analysis import quantile
    rng = random.Random(7)
    for n in (1, 2, 7, 20, 101):
        xs = sorted(rng.randint(3, 12) for _ in range(n))
        dist = [Fraction(xs.count(t), n) for t in range(13)]
        for q in QUANTILES.values():
            assert sample_quantile(xs, q) == quantile(dist, q), (xs, q)


def test_the_quantile_interval_covers_the_quantile_of_a_discrete_distribution():
    """Exact coverage over every sample of 12 plays from a 4-valued distribution (ties galore):
    at least 0.95 for each reported quantile; the quantile alone as a point covers far less."""
    from itertools import combinations_with_replacement
    from ruleproof.model.estimate import QUANTILES, quantile_interval, sample_quantile
    values, probs, n = (1, 2, 3, 4), (0.1, 0.4, 0.3, 0.2), 12
    for q in QUANTILES.values():
        truth = next(v for k, v in enumerate(values) if sum(probs[:k + 1]) >= float(q) - 1e-12)
        covered = point = 0.0
        for sample in combinations_with_replacement(values, n):   # sorted samples, weighted below
            weight = float(math.factorial(n))
            for v, p in zip(values, probs):
                c = sample.count(v)
                weight *= p ** c / math.factorial(c)
            low, high = quantile_interval(sample, q, (1, math.inf))
            covered += weight * (low <= truth <= high)
            point += weight * (sample_quantile(sample, q) == truth)
        assert covered >= 0.95, (q, covered)
        assert point < covered


def test_a_difference_keeps_each_sides_lopsided_interval():
    from ruleproof.model.estimate import difference
    # symmetric sides: d +- sqrt(ha^2 + hb^2), as for two normal intervals
    a = sampled_mean(300.0, 1000.0, 2000)
    b = sampled_mean(500.0, 1100.0, 2000)
    d = difference(a, b)
    half = math.hypot(a.half_width, b.half_width)
    assert d.low == pytest.approx(d.value - half) and d.high == pytest.approx(d.value + half)
    # a side of 30 wins in 30 games: [0.86, 1.00]; B - A can be far below d (A may be lower than
    # 1) but above d only as far as B's own upper side reaches (A cannot exceed 1) -- MOVER
    won = sampled_mean(30.0, 30.0, 30, bounds=(-1.0, 1.0))
    half_way = sampled_mean(15.0, 30.0, 30, bounds=(-1.0, 1.0))
    d = difference(won, half_way)
    assert d.value == pytest.approx(-0.5)
    assert d.high == pytest.approx(-0.5 + math.hypot(half_way.high - 0.5, 1.0 - won.low))
    assert d.low == pytest.approx(-0.5 - (0.5 - half_way.low))   # A's upper side is 0
    assert d.high - d.value > d.value - d.low


def test_a_difference_of_two_samples_covers_the_true_difference():
    from ruleproof.model.estimate import difference
    # exact coverage over every pair of 20-play samples (one near the bound); 0.9726 measured
    values = (1.0, 0.0, -1.0)

    def samples(probs, n=20):
        for c0 in range(n + 1):
            for c1 in range(n - c0 + 1):
                c2 = n - c0 - c1
                w = math.factorial(n) / (math.factorial(c0) * math.factorial(c1) * math.factorial(c2))
                w *= probs[0] ** c0 * probs[1] ** c1 * probs[2] ** c2
                yield w, sampled_mean(float(c0 - c2), float(c0 + c2), n, bounds=(-1.0, 1.0))
    pa, pb = (0.5, 0.0, 0.5), (0.97, 0.02, 0.01)
    truth = sum(v * p for v, p in zip(values, pb)) - sum(v * p for v, p in zip(values, pa))
    A, B = list(samples(pa)), list(samples(pb))
    covered = sum(wa * wb for wa, a in A for wb, b in B if difference(a, b).low <= truth <= difference(a, b).high)
    assert covered >= 0.95


def test_a_simulation_table_cell_shows_an_open_side_as_open():
    # an effect no game met (0 in each of 1,000 plays of a count nothing bounds): "[0.000, inf)"
    from ruleproof.cli import _estimate_cells
    never = sampled_mean(0.0, 0.0, 1000, bounds=(0.0, math.inf)).as_dict()
    assert _estimate_cells(never)[1] == "[0.000, inf)"
    assert _estimate_cells(sampled_mean(30.0, 40.0, 1000, bounds=(0.0, math.inf)).as_dict())[1] == "[0.018, 0.042]"
