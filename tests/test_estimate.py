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
