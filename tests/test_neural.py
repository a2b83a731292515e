"""Tests for mllib.neural (CS446 multi-layer networks; Mitchell §4.5, Table 4.2).

Oracles: central finite differences written here, a plain per-example loop of Mitchell's
update rule, scikit-learn's MLPClassifier (full-batch SGD, log loss; test-only), and XOR.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_support import examples
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier

from mllib.data import xor_table
from mllib.neural import (
    backprop,
    forward,
    gradient_check,
    init_network,
    loss,
    mlp,
    network,
    predict,
    predict_proba,
    sgd_step,
    sigmoid,
    sigmoid_derivative,
)

FAST = examples(30)


def test_sigmoid_values_and_derivative():
    assert sigmoid(0.0) == 0.5
    assert sigmoid_derivative(0.0) == 0.25  # the steepest slope
    z = np.linspace(-30, 30, 61)
    np.testing.assert_allclose(sigmoid(-z), 1 - sigmoid(z), atol=1e-15)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning far out in the tails
        assert sigmoid(-1000.0) == 0.0 and sigmoid(1000.0) == 1.0
    h = 1e-6
    np.testing.assert_allclose(sigmoid_derivative(z), (sigmoid(z + h) - sigmoid(z - h)) / (2 * h),
                               atol=1e-9)  # central difference: O(h²) plus rounding ~1e-10


def numeric_gradient(net, X, y, h=1e-6):
    """Central differences of the mean loss for every weight and bias, written out here."""
    grads = []
    for group in ("weights", "biases"):
        for i, array in enumerate(getattr(net, group)):
            g = np.zeros_like(array)
            for index in np.ndindex(array.shape):
                values = []
                for sign in (1, -1):
                    moved = [a.copy() for a in getattr(net, group)]
                    moved[i][index] += sign * h
                    other = net.biases if group == "weights" else net.weights
                    args = (moved, other) if group == "weights" else (other, moved)
                    values.append(loss(network(*args, activation=net.activation,
                                                loss=net.loss), X, y))
                g[index] = (values[0] - values[1]) / (2 * h)
            grads.append(g)
    return grads


@FAST
@given(seed=st.integers(0, 10**6), d=st.integers(1, 4), widths=st.lists(st.integers(1, 4),
       min_size=1, max_size=2), m=st.integers(1, 5),
       activation=st.sampled_from(["sigmoid", "tanh"]),
       loss_name=st.sampled_from(["squared", "log"]))
def test_backprop_equals_finite_differences(seed, d, widths, m, activation, loss_name):
    rng = np.random.default_rng(seed)
    net = init_network((d, *widths, 1), seed=rng, scale=1.5, activation=activation,
                       loss=loss_name)
    X, y = rng.normal(size=(m, d)), rng.integers(0, 2, m)
    grad = backprop(net, X, y)
    expected = numeric_gradient(net, X, y)
    got = [*grad.weights, *grad.biases]
    for g, e in zip(got, expected, strict=True):
        # Central differences with h = 1e-6 on losses of order 1: truncation O(h²) ≈ 1e-12,
        # rounding ≈ 1e-16/1e-6 = 1e-10; 1e-6 leaves a wide margin.
        np.testing.assert_allclose(g, e, atol=1e-6)
    assert gradient_check(net, X, y).max_error < 1e-6


def test_one_example_follows_mitchells_rule_on_a_2_2_1_network():
    # Mitchell Table 4.2 by hand: δ_out = o(1 - o)(t - o), δ_h = o_h(1 - o_h) w_h δ_out, and
    # Δw = η δ x for the squared loss ½(t - o)².
    W1, b1 = np.array([[0.1, -0.2], [0.3, 0.4]]), np.array([0.05, -0.05])
    W2, b2 = np.array([[0.5], [-0.6]]), np.array([0.1])
    x, t, eta = np.array([1.0, 0.0]), 1.0, 0.5
    hidden = 1 / (1 + np.exp(-(x @ W1 + b1)))
    o = 1 / (1 + np.exp(-(hidden @ W2 + b2)))[0]
    delta_out = o * (1 - o) * (t - o)
    delta_h = hidden * (1 - hidden) * W2[:, 0] * delta_out
    net = network([W1, W2], [b1, b2])
    after = sgd_step(net, x, t, eta)
    np.testing.assert_allclose(after.weights[1][:, 0], W2[:, 0] + eta * delta_out * hidden)
    np.testing.assert_allclose(after.biases[1], b2 + eta * delta_out)
    np.testing.assert_allclose(after.weights[0], W1 + eta * np.outer(x, delta_h))
    np.testing.assert_allclose(after.biases[0], b1 + eta * delta_h)
    np.testing.assert_allclose(predict_proba(net, x[None]), [o])


def plain_loop(X, t, sizes, eta, epochs, seed):
    """Per-example backprop for one hidden sigmoid layer, squared loss, as Mitchell writes it,
    with the same random draws as mlp (init W1, b1, W2, b2, then one permutation per epoch)."""
    rng = np.random.default_rng(seed)
    d, h, _ = sizes
    W1, b1 = rng.uniform(-1, 1, (d, h)), rng.uniform(-1, 1, h)
    W2, b2 = rng.uniform(-1, 1, (h, 1)), rng.uniform(-1, 1, 1)
    for _ in range(epochs):
        for i in rng.permutation(len(t)):
            hidden = [1 / (1 + np.exp(-(X[i] @ W1[:, j] + b1[j]))) for j in range(h)]
            o = 1 / (1 + np.exp(-(sum(hidden[j] * W2[j, 0] for j in range(h)) + b2[0])))
            delta_out = o * (1 - o) * (t[i] - o)
            for j in range(h):
                delta_h = hidden[j] * (1 - hidden[j]) * W2[j, 0] * delta_out
                W2[j, 0] += eta * delta_out * hidden[j]
                W1[:, j] += eta * delta_h * X[i]
                b1[j] += eta * delta_h
            b2[0] += eta * delta_out
    return network([W1, W2], [b1, b2])


def test_training_matches_a_plain_loop_of_the_same_updates():
    rng = np.random.default_rng(11)
    X, t = rng.normal(size=(12, 3)), rng.integers(0, 2, 12)
    result = mlp(X, t, hidden=4, eta=0.7, epochs=30, seed=5)
    expected = plain_loop(X, t, (3, 4, 1), 0.7, 30, 5)
    X_new = rng.normal(size=(20, 3))
    np.testing.assert_allclose(predict_proba(result.network, X_new),
                               predict_proba(expected, X_new), rtol=1e-10)


def sgd_step_training(X, t, net, rng, *, eta, epochs, batch_size):
    """mlp's documented loop written with the readable reference sgd_step: one generator
    ordering the examples each epoch, one step per batch of that order; the network after
    each epoch."""
    networks = [net]
    for _ in range(epochs):
        order = rng.permutation(len(t))
        for begin in range(0, len(t), batch_size):
            batch = order[begin:begin + batch_size]
            net = sgd_step(net, X[batch], t[batch], eta)
        networks.append(net)
    return networks


@pytest.mark.parametrize(("hidden", "activation", "loss_name", "batch_size", "from_start"), [
    ((3,), "sigmoid", "squared", 1, False),
    ((3,), "sigmoid", "squared", 2, True),
    ((4, 2), "sigmoid", "squared", 13, False),  # 13 = m: full-batch gradient descent
    ((2,), "tanh", "log", 1, True),
    ((3, 3), "tanh", "squared", 2, False),
    ((4, 2), "sigmoid", "log", 5, True),  # 13 = 5 + 5 + 3: the last batch is shorter
])
def test_mlp_takes_the_steps_of_sgd_step(hidden, activation, loss_name, batch_size,
                                         from_start):
    rng = np.random.default_rng(21)
    X, t = rng.normal(size=(13, 3)), rng.integers(0, 2, 13)
    sizes, epochs, eta = (3, *hidden, 1), 15, 0.8
    start = init_network(sizes, seed=4, activation=activation, loss=loss_name)
    kwargs = dict(hidden=hidden, activation=activation, loss=loss_name, eta=eta,
                  epochs=epochs, batch_size=batch_size)
    if from_start:
        result = mlp(X, t, seed=8, start=start, **kwargs)
        reference_rng = np.random.default_rng(8)
    else:  # mlp draws the weights from the same generator that orders the examples
        result = mlp(X, t, seed=8, **kwargs)
        reference_rng = np.random.default_rng(8)
        start = init_network(sizes, seed=reference_rng, activation=activation, loss=loss_name)
    expected = sgd_step_training(X, t, start, reference_rng, eta=eta, epochs=epochs,
                                 batch_size=batch_size)
    assert len(result.history) == epochs + 1
    for step, net in zip(result.history, expected, strict=True):
        # The same operations on the same numbers; mlp's fast loop adds each bias inside the
        # matrix product and sums the batch's gradients there, so the sums may round in
        # another order: agreement to a few ulps per step, far inside 1e-12 after 15 epochs.
        for got, want in zip((*step.network.weights, *step.network.biases),
                             (*net.weights, *net.biases), strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(step.loss, loss(net, X, t), rtol=1e-12)
    assert result.network is result.history[-1].network
    assert (result.network.activation, result.network.loss) == (activation, loss_name)


@pytest.mark.parametrize("hidden", [(3,), (4, 2)])
def test_full_batch_log_loss_matches_sklearn_mlpclassifier(hidden):
    rng = np.random.default_rng(2)
    X, t = rng.normal(size=(40, 3)), rng.integers(0, 2, 40)
    start = init_network((3, *hidden, 1), seed=3, scale=0.5, loss="log")
    ours = mlp(X, t, hidden=hidden, loss="log", eta=0.3, epochs=25, batch_size=40, start=start)
    oracle = MLPClassifier(hidden_layer_sizes=hidden, activation="logistic", solver="sgd",
                           learning_rate_init=0.3, momentum=0.0, alpha=0.0, batch_size=40,
                           shuffle=False, max_iter=1, warm_start=True, tol=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        oracle.fit(X, t)  # sets up the classes and layers; the weights are replaced next
        oracle.coefs_ = [W.copy() for W in start.weights]
        oracle.intercepts_ = [b.copy() for b in start.biases]
        for _ in range(25):
            oracle.fit(X, t)
    # Same arithmetic in another order: agreement to rounding after 25 steps.
    np.testing.assert_allclose(predict_proba(ours.network, X), oracle.predict_proba(X)[:, 1],
                               rtol=1e-9)
    assert ours.losses[-1] < ours.losses[0]


def test_two_hidden_units_learn_xor_from_some_starts_and_not_others():
    X, t = xor_table()
    solved = mlp(X, t, hidden=2, eta=4.0, epochs=800, seed=0)
    stuck = mlp(X, t, hidden=2, eta=4.0, epochs=800, seed=3)
    assert predict(solved.network, X).tolist() == [0, 1, 1, 0]
    assert solved.losses[-1] < 0.01
    assert predict(stuck.network, X).tolist() != [0, 1, 1, 0]
    assert stuck.losses[-1] > 0.05  # a plateau: one of the four points stays wrong


def test_history_starts_at_the_initial_network():
    X, t = xor_table()
    result = mlp(X, t, hidden=(3,), epochs=5, seed=1)
    assert [step.epoch for step in result.history] == list(range(6))
    start = init_network((2, 3, 1), seed=1)
    np.testing.assert_array_equal(result.history[0].network.weights[0], start.weights[0])
    assert len(forward(result.network, X)) == 3


def test_bad_input_is_rejected():
    X, t = xor_table()
    with pytest.raises(ValueError, match="0 or 1"):
        mlp(X, 2 * t - 1)
    with pytest.raises(ValueError, match="one or two"):
        mlp(X, t, hidden=(2, 2, 2))
    with pytest.raises(ValueError, match="activation"):
        mlp(X, t, activation="relu")
    with pytest.raises(ValueError, match="eta"):
        mlp(X, t, eta=0)
    with pytest.raises(ValueError, match="features"):
        predict(init_network((3, 2, 1)), X)
    with pytest.raises(ValueError, match="start must take 2 inputs"):
        mlp(X, t, start=init_network((3, 2, 1)))
    with pytest.raises(ValueError, match="single output"):
        network([np.ones((2, 2))], [np.zeros(2)])


@pytest.mark.parametrize(("name", "o", "delta"), [
    ("squared", 0.01, -0.009801), ("log", 0.01, -0.99),
    ("squared", 0.49, -0.127449), ("log", 0.49, -0.51)])
def test_exercise_5b_reference_answer(name, o, delta):
    # Ex 5(b): δ_out = ∂E/∂z for t = 1 is (o - t)·o(1 - o) for the squared error and o - t for
    # the cross-entropy (about 101 and 4 times larger at o = 0.01 and 0.49). Oracle: a central
    # difference of the loss in the output unit's bias, which is z when its weight is 0; its
    # error, of order eps² times a third derivative, is far below the rel=1e-6 asked.
    z, eps = np.log(o / (1 - o)), 1e-5

    def error(b: float) -> float:
        return loss(network([[[0.0]]], [[b]], loss=name), [[1.0]], [1.0])

    assert (error(z + eps) - error(z - eps)) / (2 * eps) == pytest.approx(delta, rel=1e-6)
