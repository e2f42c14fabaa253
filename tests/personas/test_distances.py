import math

import numpy as np
import pytest

from cultalign.stats.distances import compare, ks, pairwise, relative_improvement, significance_stars, wasserstein


def test_wasserstein_shift():
    a = np.arange(10.0)
    assert wasserstein(a, a + 0.5) == 0.5
    assert wasserstein(a, a) == 0.0


def test_ks_identical_and_disjoint():
    stat, p = ks([1, 2, 3, 4], [1, 2, 3, 4])
    assert stat == 0.0 and p == 1.0
    stat, p = ks(np.zeros(30), np.ones(30))
    assert stat == 1.0 and p < 1e-10


def test_empty_and_nan_give_nan():
    assert math.isnan(wasserstein([], [1, 2]))
    assert math.isnan(ks([np.nan], [1.0])[0])
    r = compare([1, np.nan, 3], [1, 3])
    assert r["n_a"] == 2 and r["W"] == 0.0


def test_relative_improvement():
    assert relative_improvement(0.5, 0.4) == pytest.approx(20.0)
    assert math.isnan(relative_improvement(0.0, 0.1))
    assert relative_improvement(0.4, 0.5) == pytest.approx(-25.0)


def test_pairwise_and_stars():
    rows = pairwise({"a": [1, 2, 3], "b": [2, 3, 4], "c": [1, 2, 3]})
    assert [(r["a"], r["b"]) for r in rows] == [("a", "b"), ("a", "c"), ("b", "c")]
    assert rows[1]["W"] == 0.0
    assert significance_stars(0.001) == "**" and significance_stars(0.03) == "*" and significance_stars(0.2) == ""
