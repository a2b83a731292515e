"""Hidden checks for the multi-layer network exercises (lecture 14).

The exercises use a network with one hidden layer of sigmoid units and one sigmoid output:
W1 of shape (d, k), b1 (k,), W2 (k,), b2 a number, and the squared loss E = ½(t - o)². The
references are ``mllib.neural`` with W2 as a (k, 1) matrix and b2 as a length-1 vector.
"""

from __future__ import annotations

import numpy as np

from mllib import neural
from mllib.grading import Case, Check, seeded
from mllib.grading.domain import finite, labels, unmet

REFERENCE = ("mllib.neural",)  # hidden from the kernel while grading
_rng = seeded(20261414)


def _sigmoid_and_slope(z):
    return neural.sigmoid(z), neural.sigmoid_derivative(z)


def sigmoid_and_slope() -> Check:
    """Check ``sigmoid_and_slope(z)`` returns (σ(z), σ(z)(1 - σ(z))) elementwise."""
    rng = _rng(1)
    cases = [
        Case("a vector of moderate values", (rng.normal(0, 3, 7),)),
        Case("a single number", (float(rng.uniform(-3, 3)),)),
        Case("a 2-D array", (rng.normal(0, 2, (3, 4)),)),
        # e^-760 underflows to 0: sigma is exactly 1 or 0 at the ends.
        Case("very large positive and negative values (about ±800), where σ is 1 or 0",
             (np.array([-1, -1, 0, 1, 1]) * np.array([rng.uniform(760, 840),
                                                       rng.uniform(30, 50), 0.0,
                                                       rng.uniform(30, 50),
                                                       rng.uniform(760, 840)]),)),
    ]
    return Check("sigmoid_and_slope", cases, _sigmoid_and_slope, tolerance=1e-10,
                 domain=_sigmoid_domain)


def _sigmoid_domain(z) -> str | None:
    return unmet(("z is a finite number or an array of them", finite(z)))


def _forward_domain(W1, b1, W2, b2, x) -> str | None:
    """The notebook's conventions: W1 (d, k), b1 (k,), W2 (k,), b2 a number, x (d,)."""
    W1 = np.asarray(W1)
    return unmet(("W1 has shape (d, k) with d, k >= 1, b1 and W2 shape (k,), b2 is a number, "
                  "x shape (d,)",
                  W1.ndim == 2 and min(W1.shape) >= 1
                  and np.shape(b1) == np.shape(W2) == W1.shape[1:] and np.ndim(b2) == 0
                  and np.shape(x) == W1.shape[:1]),
                 ("the weights and x are finite", finite(W1, b1, W2, b2, x)))


def _backward_domain(W1, b1, W2, b2, x, t) -> str | None:
    return _forward_domain(W1, b1, W2, b2, x) or unmet(("t is 0 or 1", labels(t, (0, 1))))


def _sgd_domain(W1, b1, W2, b2, x, t, eta) -> str | None:
    return _backward_domain(W1, b1, W2, b2, x, t) or unmet(("eta > 0", finite(eta) and eta > 0))


def _network(W1, b1, W2, b2) -> neural.Network:
    return neural.network([W1, np.reshape(W2, (-1, 1))], [b1, [b2]])


def _forward(W1, b1, W2, b2, x):
    hidden, out = neural.forward(_network(W1, b1, W2, b2), np.atleast_2d(x))[1:]
    return hidden[0], float(out[0, 0])


def _backward(W1, b1, W2, b2, x, t):
    grad = neural.backprop(_network(W1, b1, W2, b2), x, t)
    return grad.weights[0], grad.biases[0], grad.weights[1][:, 0], float(grad.biases[1][0])


def _sgd_step(W1, b1, W2, b2, x, t, eta):
    new = neural.sgd_step(_network(W1, b1, W2, b2), x, t, eta)
    return new.weights[0], new.biases[0], new.weights[1][:, 0], float(new.biases[1][0])


def _networks(first_offset: int, shapes):
    """(W1, b1, W2, b2, x, t, hint) for random networks of the given (d, k)."""
    out = []
    for offset, (d, k) in enumerate(shapes):
        rng = _rng(first_offset + offset)
        W1, b1 = rng.normal(0, 1, (d, k)), rng.normal(0, 0.5, k)
        W2, b2 = rng.normal(0, 1, k), float(rng.normal(0, 0.5))
        x, t = rng.normal(0, 1, d), float(offset % 2)
        out.append((W1, b1, W2, b2, x, t, f"{d} inputs, {k} hidden units, target {t:g}"))
    return out


SHAPES = [(2, 2), (3, 4), (5, 1), (1, 3)]


def forward_pass() -> Check:
    """Check ``forward(W1, b1, W2, b2, x)`` returns (h, o)."""
    cases = [Case(f"a network with {hint[: hint.index(', target')]}", (W1, b1, W2, b2, x))
             for W1, b1, W2, b2, x, _, hint in _networks(10, SHAPES)]
    return Check("forward", cases, _forward, tolerance=1e-9, domain=_forward_domain)


def backward_pass() -> Check:
    """Check ``backward(W1, b1, W2, b2, x, t)`` returns (dW1, db1, dW2, db2)."""
    cases = [Case(f"a network with {hint}", (W1, b1, W2, b2, x, t))
             for W1, b1, W2, b2, x, t, hint in _networks(20, SHAPES)]
    return Check("backward", cases, _backward, tolerance=1e-9, builds_on=("forward",),
                 domain=_backward_domain)


def sgd_step() -> Check:
    """Check ``sgd_step(W1, b1, W2, b2, x, t, eta)`` returns the updated (W1, b1, W2, b2)."""
    cases = [Case(f"a network with {hint}, η = {eta}", (W1, b1, W2, b2, x, t, eta))
             for (W1, b1, W2, b2, x, t, hint), eta in zip(_networks(30, SHAPES),
                                                          (0.5, 0.1, 2.0, 1.0), strict=True)]
    return Check("sgd_step", cases, _sgd_step, tolerance=1e-9, builds_on=("backward",),
                 domain=_sgd_domain)
