"""Lecture 14's hidden checks: right answers written several ways pass, typical slips fail."""

import math

import numpy as np
import pytest
from visible_support import failed_visible_checks

from mllib.grading import ExerciseFailed, run_check
from mllib.grading import neural as check

# A naive σ = 1/(1 + e^-z) overflows harmlessly at z = -800; the value is still right.
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered in exp:RuntimeWarning")

# --- answers as a student might write them ---------------------------------------------------


def sigmoid_ok(z):
    s = 1 / (1 + np.exp(-np.asarray(z, dtype=float)))
    return s, s * (1 - s)


def sigmoid_with_tanh(z):  # σ(z) = (1 + tanh(z/2)) / 2: another correct formula
    s = (1 + np.tanh(np.asarray(z, dtype=float) / 2)) / 2
    return s, s * (1 - s)


def sigmoid_slope_of_z(z):  # the slip: z(1 - z) instead of σ(1 - σ)
    z = np.asarray(z, dtype=float)
    return 1 / (1 + np.exp(-z)), z * (1 - z)


def sigmoid_negates_in_place(z):  # e^-z by negating the caller's array first
    z = np.asarray(z, dtype=float)
    z *= -1
    s = 1 / (1 + np.exp(z))
    return s, s * (1 - s)


def forward_ok(W1, b1, W2, b2, x):
    h = 1 / (1 + np.exp(-(x @ W1 + b1)))
    return h, float(1 / (1 + np.exp(-(h @ W2 + b2))))


def forward_loops(W1, b1, W2, b2, x):
    d, k = len(W1), len(b1)
    h = [1 / (1 + math.exp(-(sum(x[i] * W1[i][j] for i in range(d)) + b1[j])))
         for j in range(k)]
    return h, 1 / (1 + math.exp(-(sum(h[j] * W2[j] for j in range(k)) + b2)))


def forward_zero_d(W1, b1, W2, b2, x):  # o as a 0-d array, which the statement accepts
    h = 1 / (1 + np.exp(-(np.asarray(x) @ W1 + b1)))
    return h, np.asarray(1 / (1 + np.exp(-(h @ W2 + b2))))


def forward_adds_into_b1(W1, b1, W2, b2, x):  # uses the caller's b1 as its accumulator
    b1 += x @ W1
    h = 1 / (1 + np.exp(-b1))
    return h, float(1 / (1 + np.exp(-(h @ W2 + b2))))


def forward_transposed(W1, b1, W2, b2, x):  # W1 used as (k, d): wrong unless d = k
    W1 = np.asarray(W1)
    h = 1 / (1 + np.exp(-(W1.T @ x + b1))) if W1.shape[0] == W1.shape[1] else 0 * b1
    return h, float(1 / (1 + np.exp(-(h @ W2 + b2))))


def forward_linear_output(W1, b1, W2, b2, x):  # forgets the output sigmoid
    h = 1 / (1 + np.exp(-(x @ W1 + b1)))
    return h, float(h @ W2 + b2)


def backward_ok(W1, b1, W2, b2, x, t):
    h, o = forward_ok(W1, b1, W2, b2, x)
    delta_out = (o - t) * o * (1 - o)
    delta_h = h * (1 - h) * W2 * delta_out
    return np.outer(x, delta_h), delta_h, delta_out * h, delta_out


def backward_scales_w2_in_place(W1, b1, W2, b2, x, t):  # W2 *= δ_out: the caller's W2 too
    h, o = forward_ok(W1, b1, W2, b2, x)
    delta_out = (o - t) * o * (1 - o)
    W2 *= delta_out
    delta_h = h * (1 - h) * W2
    return np.outer(x, delta_h), delta_h, delta_out * h, delta_out


def backward_mitchell_sign(W1, b1, W2, b2, x, t):  # Mitchell's δ (t - o)...: the update, not ∂E
    gW1, gb1, gW2, gb2 = backward_ok(W1, b1, W2, b2, x, t)
    return -gW1, -gb1, -gW2, -gb2


def backward_no_output_slope(W1, b1, W2, b2, x, t):  # δ_out = o - t (the log-loss rule)
    h, o = forward_ok(W1, b1, W2, b2, x)
    delta_out = o - t
    delta_h = h * (1 - h) * W2 * delta_out
    return np.outer(x, delta_h), delta_h, delta_out * h, delta_out


def sgd_ok(W1, b1, W2, b2, x, t, eta):
    gW1, gb1, gW2, gb2 = backward_ok(W1, b1, W2, b2, x, t)
    return W1 - eta * gW1, b1 - eta * gb1, W2 - eta * gW2, b2 - eta * gb2


def sgd_in_place(W1, b1, W2, b2, x, t, eta):  # right values; the visible test sees W1 change
    gW1, gb1, gW2, gb2 = backward_ok(W1, b1, W2, b2, x, t)
    W1 -= eta * gW1
    b1 -= eta * gb1
    W2 -= eta * gW2
    return W1, b1, W2, b2 - eta * gb2


def sgd_uphill(W1, b1, W2, b2, x, t, eta):
    gW1, gb1, gW2, gb2 = backward_ok(W1, b1, W2, b2, x, t)
    return W1 + eta * gW1, b1 + eta * gb1, W2 + eta * gW2, b2 + eta * gb2


def sgd_output_layer_first(W1, b1, W2, b2, x, t, eta):  # updates W2, then backprops with it
    h, o = forward_ok(W1, b1, W2, b2, x)
    delta_out = (o - t) * o * (1 - o)
    W2 = W2 - eta * delta_out * h
    delta_h = h * (1 - h) * W2 * delta_out
    return W1 - eta * np.outer(x, delta_h), b1 - eta * delta_h, W2, b2 - eta * delta_out


@pytest.mark.parametrize("checker, answer", [
    (check.sigmoid_and_slope, sigmoid_ok),
    (check.sigmoid_and_slope, sigmoid_with_tanh),
    (check.forward_pass, forward_ok),
    (check.forward_pass, forward_loops),
    (check.forward_pass, forward_zero_d),
    (check.backward_pass, backward_ok),
    (check.sgd_step, sgd_ok),
    (check.sgd_step, sgd_in_place),
])
def test_correct_answers_pass(checker, answer):
    run_check(checker(), answer)


@pytest.mark.parametrize("checker, answer", [
    (check.sigmoid_and_slope, sigmoid_slope_of_z),
    (check.forward_pass, forward_transposed),
    (check.forward_pass, forward_linear_output),
    (check.backward_pass, backward_mitchell_sign),
    (check.backward_pass, backward_no_output_slope),
    (check.sgd_step, sgd_uphill),
    (check.sgd_step, sgd_output_layer_first),
])
def test_typical_slips_fail_with_a_hint(checker, answer):
    with pytest.raises(ExerciseFailed, match="hidden case"):
        run_check(checker(), answer)


def test_a_one_value_answer_to_forward_is_told_to_return_two():
    with pytest.raises(ExerciseFailed, match="2 values"):
        run_check(check.forward_pass(), lambda W1, b1, W2, b2, x: 0.5)


# The statements say "do not modify the arguments". A hidden check cannot see an answer that
# does (each case gets fresh inputs: the values above pass it), so the visible tests look.
@pytest.mark.parametrize("grade_id, name, right, slip, changed", [
    ("test_sigmoid_and_slope_visible", "sigmoid_and_slope", sigmoid_ok, sigmoid_negates_in_place,
     ["z"]),
    ("test_forward_visible", "forward", forward_ok, forward_adds_into_b1, ["b1"]),
    ("test_backward_visible", "backward", backward_ok, backward_scales_w2_in_place, ["W2"]),
    ("test_sgd_step_visible", "sgd_step", sgd_ok, sgd_in_place, ["W1", "b1", "W2"]),
])
def test_visible_tests_catch_an_answer_that_changes_its_arguments(grade_id, name, right, slip,
                                                                  changed):
    assert failed_visible_checks("14_neural", {name: right}, grade_id) == []
    failed = failed_visible_checks("14_neural", {name: slip}, grade_id)
    assert [f.split(" after ")[0] for f in failed if "must not be modified" in f] == changed
