"""Tests for mllib.data: the worked data of MMDS Fig. 12.6 and the seeded synthetic samples."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_support import examples

from mllib.data import SPAM_WORDS, mmds_spam, noisy, separable


def test_mmds_spam_is_fig_12_6():
    X, y, words = mmds_spam()
    # Typed from MMDS Fig. 12.6.
    assert words == ("and", "viagra", "the", "of", "nigeria") == SPAM_WORDS
    assert X.tolist() == [
        [1, 1, 0, 1, 1],  # a  +1
        [0, 0, 1, 1, 0],  # b  -1
        [0, 1, 1, 0, 0],  # c  +1
        [1, 0, 0, 1, 0],  # d  -1
        [1, 0, 1, 0, 1],  # e  +1
        [1, 0, 1, 1, 0],  # f  -1
    ]
    assert y.tolist() == [+1, -1, +1, -1, +1, -1]
    assert X.dtype == y.dtype == np.float64


def test_mmds_spam_returns_fresh_arrays():
    X, y, _ = mmds_spam()
    X[0, 0], y[0] = 99, 99
    X2, y2, _ = mmds_spam()
    assert X2[0, 0] == 1 and y2[0] == 1


@examples(80)
@given(
    n=st.integers(1, 200),
    d=st.integers(1, 8),
    margin=st.floats(0.01, 0.5),
    radius=st.floats(0.5, 20),
    seed=st.integers(0, 2**32 - 1),
)
def test_separable_has_the_promised_shape_labels_margin_and_radius(n, d, margin, radius, seed):
    margin = margin * radius  # 0 < γ < R
    X, y, w_star = separable(n, d, margin=margin, radius=radius, seed=seed)
    assert X.shape == (n, d) and y.shape == (n,) and w_star.shape == (d,)
    assert set(y.tolist()) <= {-1.0, 1.0}
    assert np.linalg.norm(w_star) == pytest.approx(1.0, abs=1e-12)
    # separable() filters candidates with its own product; recomputed here (another BLAS call
    # shape) a score may differ in the last bits, hence the 1e-12 relative slack.
    assert np.all(y * (X @ w_star) >= margin - 1e-12 * radius)
    assert np.all(np.linalg.norm(X, axis=1) <= radius * (1 + 1e-12))


def test_separable_draws_both_classes_and_fills_the_ball():
    X, y, w_star = separable(4000, 3, margin=0.1, radius=2.0, seed=0)
    assert 0.4 < np.mean(y == 1) < 0.6
    norms = np.linalg.norm(X, axis=1)
    assert norms.max() > 1.9  # uniform in the ball, not on a shell near the centre
    # Uniform in a 3-ball: P(‖x‖ <= R/2) = 1/8 before removing the slab, which removes a bit more
    # of the inner ball than of the outer shell.
    assert 0.08 < np.mean(norms <= 1.0) < 0.13


def test_separable_is_reproducible_from_its_seed():
    first = separable(50, 3, margin=0.2, seed=42)
    again = separable(50, 3, margin=0.2, seed=42)
    other = separable(50, 3, margin=0.2, seed=43)
    for a, b in zip(first, again, strict=True):
        assert np.array_equal(a, b)
    assert not np.array_equal(first[0], other[0])
    assert not np.array_equal(first[2], other[2])


def test_separable_accepts_a_generator_and_draws_from_it():
    X1, y1, w1 = separable(30, 2, seed=np.random.default_rng(7))
    X2, y2, w2 = separable(30, 2, seed=np.random.default_rng(7))
    assert np.array_equal(X1, X2) and np.array_equal(y1, y2) and np.array_equal(w1, w2)
    # The same Generator, used twice, gives two different samples: its state moves on.
    rng = np.random.default_rng(7)
    a, b = separable(30, 2, seed=rng), separable(30, 2, seed=rng)
    assert np.array_equal(a[0], X1)
    assert not np.array_equal(a[0], b[0])
    # An int seed s is the same as default_rng(s).
    assert np.array_equal(separable(30, 2, seed=7)[0], X1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"margin": 1.0, "radius": 1.0}, r"margin \(1\.0\) must be smaller than radius \(1\.0\)"),
        ({"margin": 2.0, "radius": 1.0}, r"margin \(2\.0\) must be smaller than radius"),
        ({"margin": 0.0}, r"margin must be a positive number"),
        ({"margin": -0.1}, r"margin must be a positive number"),
        ({"radius": 0.0}, r"radius must be a positive number"),
        ({"radius": np.inf}, r"radius must be a positive number"),
        ({"n": 0}, r"n must be a whole number >= 1"),
        ({"n": 2.5}, r"n must be a whole number >= 1"),
        ({"d": 0}, r"d must be a whole number >= 1"),
    ],
)
def test_separable_rejects_bad_parameters(kwargs, message):
    args = {"n": 10, "d": 2} | kwargs
    with pytest.raises(ValueError, match=message):
        separable(args.pop("n"), args.pop("d"), **args)


@pytest.mark.parametrize(("n", "flip"), [(200, 0.1), (1000, 0.05), (37, 0.3), (50, 0.001)])
def test_noisy_flips_the_requested_fraction_of_separable_labels(n, flip):
    X, y, w_star = noisy(n, 3, margin=0.1, flip=flip, seed=5)
    clean = np.where(X @ w_star > 0, 1.0, -1.0)
    flipped = np.count_nonzero(y != clean)
    # round(flip·n) examples, and at least one.
    assert flipped == max(1, round(flip * n))
    assert abs(flipped - flip * n) <= 1
    # So w* no longer separates the sample.
    assert np.min(y * (X @ w_star)) < 0
    assert set(y.tolist()) <= {-1.0, 1.0}


def test_noisy_is_separable_with_some_labels_flipped():
    # Same seed: the same points and w* as separable(); only labels differ.
    X, y, w_star = noisy(300, 4, margin=0.2, flip=0.1, seed=9)
    Xs, ys, ws = separable(300, 4, margin=0.2, seed=9)
    assert np.array_equal(X, Xs) and np.array_equal(w_star, ws)
    assert np.count_nonzero(y != ys) == 30


def test_noisy_with_zero_flip_is_separable_and_reproducible():
    X, y, w_star = noisy(100, 2, flip=0.0, seed=3)
    assert np.all(y * (X @ w_star) >= 0.1 - 1e-12)  # rounding slack, as for separable() above
    again = noisy(100, 2, flip=0.0, seed=3)
    assert all(np.array_equal(a, b) for a, b in zip((X, y, w_star), again, strict=True))
    assert not np.array_equal(noisy(100, 2, seed=3)[1], noisy(100, 2, seed=4)[1])


@pytest.mark.parametrize("flip", [-0.1, 1.5, np.nan])
def test_noisy_rejects_a_flip_outside_zero_one(flip):
    with pytest.raises(ValueError, match=r"flip must be a fraction in \[0, 1\]"):
        noisy(10, 2, flip=flip)
