"""Multi-layer networks of sigmoid units trained by backpropagation.

Sources
-------
- CS446 slides (seed 001), "Multi-Layer Neural Network", "Basic Units" and "Learning with a
  Multi-Layer Perceptron": stacks of units; the threshold sgn(w·x) replaced by the smooth
  o = [1 + exp(-w·x)]⁻¹ (Rumelhart, Hinton & Williams 1986); a differentiable error such as the
  sum of squares; its derivatives with respect to every weight, found by back-propagation, used
  for gradient descent.
- Mitchell, *Machine Learning* (1997), §4.5.2 (Table 4.2): the per-example backpropagation
  rule with δ_output = o(1 - o)(t - o) for E = ½(t - o)², and the XOR problem (§4.4.1) that a
  single unit cannot represent.

Conventions
-----------
Labels t are 0 or 1 (CS446's concept-learning convention) and the network has one sigmoid
output o ∈ (0, 1); it predicts 1 when o >= 1/2. A layer maps a row vector a to a @ W + b with
W of shape (fan_in, fan_out), so a batch X of shape (m, d) flows through as rows. The loss of a
batch is the MEAN over its examples of ``"squared"``: ½(t - o)² or ``"log"``:
-[t log o + (1 - t) log(1 - o)], so a per-example step (m = 1) is Mitchell's rule exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from mllib.validation import as_matrix, positive, positive_int

ACTIVATIONS = ("sigmoid", "tanh")
LOSSES = ("squared", "log")


# numpy scalars rather than Python ones in the training loop's arithmetic: numpy converts a
# Python number on every call, which costs more than the operation on the loop's tiny arrays.
_ONE = np.float64(1.0)


def sigmoid(z) -> np.ndarray:
    """σ(z) = 1 / (1 + e^(-z)), elementwise; for z < -709, e^(-z) overflows to inf without a
    warning and σ = 0 (its true value is below 1e-308)."""
    with np.errstate(over="ignore"):
        return _sigmoid_in_place(np.array(z, dtype=float))


def _sigmoid_in_place(z: np.ndarray) -> np.ndarray:
    """σ(z) written over z in four calls; the caller silences the overflow of e^(-z) for
    z < -709 (``np.errstate(over="ignore")``), where σ = 1 / inf = 0."""
    np.negative(z, out=z)
    np.exp(z, out=z)
    z += _ONE
    return np.divide(_ONE, z, out=z)


def sigmoid_derivative(z) -> np.ndarray:
    """σ'(z) = σ(z)(1 - σ(z)): the unit's slope, largest (1/4) at z = 0."""
    s = sigmoid(z)
    return s * (1 - s)


def _activate_in_place(z: np.ndarray, activation: str) -> np.ndarray:
    """The activation of the pre-activations z, written over z."""
    return _sigmoid_in_place(z) if activation == "sigmoid" else np.tanh(z, out=z)


def _slope(a: np.ndarray, activation: str) -> np.ndarray:
    """The activation's derivative written through its output a: σ' = a(1 - a), tanh' = 1 - a²."""
    return a * (_ONE - a) if activation == "sigmoid" else _ONE - a * a


@dataclass(frozen=True)
class Network:
    """A fully connected network: hidden layers of ``activation`` units, one sigmoid output.

    Attributes
    ----------
    weights : tuple of ndarray
        ``weights[l]`` has shape (fan_in, fan_out); the last is (h, 1).
    biases : tuple of ndarray
        ``biases[l]`` has shape (fan_out,).
    activation : str
        ``"sigmoid"`` or ``"tanh"`` for the hidden units.
    loss : str
        ``"squared"`` or ``"log"``.
    """

    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]
    activation: str = "sigmoid"
    loss: str = "squared"

    @property
    def sizes(self) -> tuple[int, ...]:
        """(d, h₁, ..., 1): the width of every layer, input first."""
        return (self.weights[0].shape[0], *(W.shape[1] for W in self.weights))


def network(weights, biases, *, activation: str = "sigmoid", loss: str = "squared") -> Network:
    """Build and check a :class:`Network` from lists of weight matrices and bias vectors."""
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {ACTIVATIONS}; got {activation!r}.")
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}; got {loss!r}.")
    weights = tuple(as_matrix(W, f"weights[{i}]") for i, W in enumerate(weights))
    biases = tuple(np.asarray(b, dtype=float) for b in biases)
    if not weights or len(weights) != len(biases):
        raise ValueError("give one bias vector per weight matrix, and at least one layer.")
    for i, (W, b) in enumerate(zip(weights, biases, strict=True)):
        if b.shape != (W.shape[1],) or not np.all(np.isfinite(b)):
            raise ValueError(f"biases[{i}] must be a finite vector of length {W.shape[1]}.")
        if i and W.shape[0] != weights[i - 1].shape[1]:
            raise ValueError(f"weights[{i}] has {W.shape[0]} rows but layer {i} has "
                             f"{weights[i - 1].shape[1]} units.")
    if weights[-1].shape[1] != 1:
        raise ValueError("the last layer must have a single output unit.")
    return Network(weights, biases, activation, loss)


def init_network(sizes, *, seed=0, scale: float = 1.0, activation: str = "sigmoid",
                 loss: str = "squared") -> Network:
    """Weights and biases drawn uniformly from [-scale, scale], layer by layer (W then b).

    ``sizes`` is (d, h₁, ..., 1). ``seed`` is an int or a ``numpy.random.Generator``; the draws
    come in the order W₁, b₁, W₂, b₂, ... so a plain loop can repeat them.
    """
    sizes = [positive_int(s, "layer size") for s in sizes]
    scale = positive(scale, "scale")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    weights, biases = [], []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
        weights.append(rng.uniform(-scale, scale, (fan_in, fan_out)))
        biases.append(rng.uniform(-scale, scale, fan_out))
    return network(weights, biases, activation=activation, loss=loss)


def forward(net: Network, X) -> list[np.ndarray]:
    """The forward pass: the outputs of every layer, input first.

    a⁰ = X, shape (m, d); aˡ = g(aˡ⁻¹ Wˡ + bˡ) with g the hidden activation, and the sigmoid for
    the last layer, whose output o = a^L has shape (m, 1).
    """
    X = as_matrix(X)
    if X.shape[1] != net.sizes[0]:
        raise ValueError(f"X has {X.shape[1]} features; the network takes {net.sizes[0]}.")
    return _layers(net.weights, net.biases, net.activation, X)


def _layers(weights, biases, activation: str, X: np.ndarray) -> list[np.ndarray]:
    """:func:`forward` without the input checks."""
    layers = [X]
    with np.errstate(over="ignore"):  # see _sigmoid_in_place
        for i, (W, b) in enumerate(zip(weights, biases, strict=True)):
            last = i == len(weights) - 1
            z = layers[-1] @ W + b
            layers.append(_activate_in_place(z, "sigmoid" if last else activation))
    return layers


def predict_proba(net: Network, X) -> np.ndarray:
    """The network's output o for each row of X, shape (m, d) -> (m,)."""
    return forward(net, X)[-1][:, 0]


def predict(net: Network, X) -> np.ndarray:
    """Labels 0/1 for each row of X: 1 when o >= 1/2."""
    return (predict_proba(net, X) >= 0.5).astype(int)


def _targets(y, m: int) -> np.ndarray:
    t = np.asarray(y, dtype=float).reshape(-1)
    if t.shape != (m,):
        raise ValueError(f"X has {m} rows but y has {t.size} labels; they must match.")
    if not np.all((t == 0) | (t == 1)):
        raise ValueError("labels must be 0 or 1 (the sigmoid output's range).")
    return t[:, None]


def loss(net: Network, X, y) -> float:
    """The mean loss over the rows of X: ½(t - o)² or -[t log o + (1 - t) log(1 - o)]."""
    o = predict_proba(net, X)[:, None]
    return _loss(o, _targets(y, o.shape[0]), net.loss)


def _loss(o: np.ndarray, t: np.ndarray, name: str) -> float:
    if name == "squared":
        return float(np.mean(0.5 * (t - o) ** 2))
    with np.errstate(divide="ignore"):
        return float(-np.mean(t * np.log(o) + (1 - t) * np.log1p(-o)))


def backprop(net: Network, x, y) -> Network:
    """The gradient of the mean loss with respect to every weight and bias, by backpropagation.

    Forward pass, then the error terms δ from the output back (Mitchell Table 4.2, written for
    the gradient, δ = ∂E/∂(net input), which is minus Mitchell's δ):

        δ^L = (o - t) o (1 - o)     for the squared loss,
        δ^L = o - t                 for the log loss (the sigmoid's slope cancels),
        δˡ  = (δˡ⁺¹ Wˡ⁺¹ᵀ) ⊙ g'(aˡ) for a hidden layer,

    and ∂E/∂Wˡ = aˡ⁻¹ᵀ δˡ / m, ∂E/∂bˡ = Σ_rows δˡ / m.

    Parameters
    ----------
    net : Network
    x : array_like of shape (d,) or (m, d)
        One example or a batch.
    y : float or array_like of shape (m,)
        Labels 0/1.

    Returns
    -------
    Network
        The gradients, in a Network of the same shapes (``weights`` hold ∂E/∂W, ``biases``
        ∂E/∂b).
    """
    X = np.atleast_2d(np.asarray(x, dtype=float))
    t = _targets(y, X.shape[0])
    grad_w, grad_b = _gradients(net, forward(net, X), t)
    return replace(net, weights=grad_w, biases=grad_b)


def _gradients(net: Network, layers: list[np.ndarray], t: np.ndarray):
    """:func:`backprop` from a forward pass's ``layers`` and targets t of shape (m, 1)."""
    o = layers[-1]
    delta = (o - t) * o * (1 - o) if net.loss == "squared" else o - t
    grad_w, grad_b = [], []
    for i in range(len(net.weights) - 1, -1, -1):
        grad_w.append(layers[i].T @ delta / len(t))
        grad_b.append(delta.sum(axis=0) / len(t))
        if i:
            delta = (delta @ net.weights[i].T) * _slope(layers[i], net.activation)
    return tuple(reversed(grad_w)), tuple(reversed(grad_b))


def sgd_step(net: Network, x, y, eta: float) -> Network:
    """One gradient-descent step on the example or batch (x, y): θ ← θ - η ∂E/∂θ."""
    X = np.atleast_2d(np.asarray(x, dtype=float))
    return _step(net, forward(net, X), _targets(y, X.shape[0]), positive(eta, "eta"))


def _step(net: Network, layers: list[np.ndarray], t: np.ndarray, eta: float) -> Network:
    grad_w, grad_b = _gradients(net, layers, t)
    return Network(tuple(W - eta * g for W, g in zip(net.weights, grad_w, strict=True)),
                   tuple(b - eta * g for b, g in zip(net.biases, grad_b, strict=True)),
                   net.activation, net.loss)


@dataclass(frozen=True)
class GradientCheck:
    """Backprop's gradient against central differences, both flattened to shape (p,)."""

    analytic: np.ndarray
    numeric: np.ndarray
    max_error: float


def _flat(net: Network) -> np.ndarray:
    return np.concatenate([a.ravel() for pair in zip(net.weights, net.biases, strict=True)
                           for a in pair])


def _unflat(net: Network, theta: np.ndarray) -> Network:
    arrays, start = [], 0
    for a in (a for pair in zip(net.weights, net.biases, strict=True) for a in pair):
        arrays.append(theta[start:start + a.size].reshape(a.shape))
        start += a.size
    return replace(net, weights=tuple(arrays[0::2]), biases=tuple(arrays[1::2]))


def gradient_check(net: Network, x, y, *, eps: float = 1e-5) -> GradientCheck:
    """Compare :func:`backprop` with (E(θ + ε eᵢ) - E(θ - ε eᵢ)) / 2ε for every parameter θᵢ.

    The central difference is accurate to O(ε²). ``max_error`` is the largest
    |analytic - numeric| / max(1, |analytic| + |numeric|), a relative error for large
    gradients and an absolute one for small.
    """
    eps = positive(eps, "eps")
    X = np.atleast_2d(np.asarray(x, dtype=float))
    theta = _flat(net)
    numeric = np.empty_like(theta)
    for i in range(theta.size):
        step = np.zeros_like(theta)
        step[i] = eps
        numeric[i] = (loss(_unflat(net, theta + step), X, y)
                      - loss(_unflat(net, theta - step), X, y)) / (2 * eps)
    analytic = _flat(backprop(net, X, y))
    error = np.abs(analytic - numeric) / np.maximum(1, np.abs(analytic) + np.abs(numeric))
    return GradientCheck(analytic, numeric, float(error.max()))


@dataclass(frozen=True)
class Epoch:
    """The network after ``epoch`` passes over the data, and its mean training loss."""

    epoch: int
    loss: float
    network: Network


@dataclass(frozen=True)
class MLPResult:
    """The trained network and one :class:`Epoch` per pass (``history[0]`` is the start)."""

    network: Network
    history: tuple[Epoch, ...]

    @property
    def losses(self) -> np.ndarray:
        return np.array([step.loss for step in self.history])


def mlp(X, y, *, hidden=(2,), activation: str = "sigmoid", loss: str = "squared",
        eta: float = 0.5, epochs: int = 1000, batch_size: int = 1, seed=0,
        scale: float = 1.0, start: Network | None = None) -> MLPResult:
    """Train a network with one or two hidden layers by backpropagation (CS446; Mitchell §4.5).

    Each epoch visits the examples in a fresh random order and takes one :func:`sgd_step` per
    batch of ``batch_size`` consecutive examples of that order (``batch_size=1`` is Mitchell's
    per-example rule; ``batch_size=len(X)`` is full-batch gradient descent).

    Parameters
    ----------
    X : array_like of shape (m, d)
    y : array_like of shape (m,)
        Labels 0/1.
    hidden : int or tuple of one or two ints
        The hidden layers' widths.
    activation, loss : str
        See :class:`Network`.
    eta : float
        The learning rate η > 0.
    epochs : int
        Passes over the data, >= 1.
    batch_size : int
        Examples per step, >= 1.
    seed : int or numpy.random.Generator
        One generator draws the initial weights (:func:`init_network`, uniform in
        [-scale, scale]) and then each epoch's order (``rng.permutation(m)``).
    start : Network, optional
        Start from these weights instead of drawing them (the generator then only orders the
        examples); its own activation, loss and widths are used, and ``hidden``,
        ``activation``, ``loss`` and ``scale`` are ignored.

    Returns
    -------
    MLPResult
    """
    X = as_matrix(X)
    t = _targets(y, X.shape[0])[:, 0]
    hidden = (hidden,) if np.isscalar(hidden) else tuple(hidden)
    if len(hidden) not in (1, 2):
        raise ValueError(f"hidden must give one or two layer widths; got {hidden!r}.")
    eta, epochs = positive(eta, "eta"), positive_int(epochs, "epochs")
    batch_size = positive_int(batch_size, "batch_size")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    if start is None:
        net = init_network((X.shape[1], *hidden, 1), seed=rng, scale=scale,
                           activation=activation, loss=loss)
    elif start.sizes[0] != X.shape[1] or not 2 <= len(start.weights) <= 3:
        raise ValueError(f"start must take {X.shape[1]} inputs and have one or two hidden "
                         f"layers; it has sizes {start.sizes}.")
    else:
        net = start
    history = _train(net, X, t[:, None], rng, eta=eta, epochs=epochs, batch_size=batch_size)
    return MLPResult(history[-1].network, history)


def _train(net: Network, X: np.ndarray, t: np.ndarray, rng: np.random.Generator, *,
           eta: float, epochs: int, batch_size: int) -> tuple[Epoch, ...]:
    """:func:`mlp`'s loop: ``epochs`` passes of :func:`sgd_step` over batches of a fresh order.

    Why not call :func:`sgd_step`: on small data a step is dozens of numpy calls on arrays of
    a few numbers, so the calls' overhead is the cost (lecture 14's trainer takes 2400 steps
    per slider move). This loop takes the same steps in about half the calls: each layer's
    weights and bias are one block [Wˡ; bˡ] whose input carries a column of ones, so one
    product gives a layer's net input and one its gradient (:func:`_forward_with_ones`); the
    blocks are views into one vector θ, updated in place by one θ ← θ - η ∂E/∂θ; a Network
    is built once per epoch. The random stream and the sequence of steps are sgd_step's; the
    sums round in another order (each bias inside the product, η/m applied at once), so the
    results agree with sgd_step's to rounding (tests/test_neural.py checks 1e-12).
    """
    theta = _flat(net)  # W¹, b¹, W², b², ... in a row: each [Wˡ; bˡ] is one contiguous block
    gradient = np.empty_like(theta)
    blocks, gradient_blocks = _blocks(net, theta), _blocks(net, gradient)
    ones = np.ones((len(X), 1))
    X_ones, eta = np.concatenate((X, ones), axis=1), np.float64(eta)

    def snapshot(epoch: int) -> Epoch:
        o = _forward_with_ones(blocks, net.activation, X_ones, ones)[-1]
        return Epoch(epoch, _loss(o, t, net.loss), _unflat(net, theta.copy()))

    with np.errstate(over="ignore"):  # see _sigmoid_in_place
        history = [snapshot(0)]
        for epoch in range(1, epochs + 1):
            order = rng.permutation(len(t))
            X_ordered, t_ordered = X_ones[order], t[order]
            for begin in range(0, len(t), batch_size):
                batch = slice(begin, begin + batch_size)
                inputs, slopes, o = _forward_with_ones(blocks, net.activation, X_ordered[batch],
                                                       ones)
                _gradient_sums_into(gradient_blocks, blocks, net.loss, inputs, slopes, o,
                                    t_ordered[batch])
                gradient *= eta / len(o)  # one product: (η/m)·Σ rather than η·(Σ/m)
                theta -= gradient
            history.append(snapshot(epoch))
    return tuple(history)


def _blocks(net: Network, vector: np.ndarray) -> list[np.ndarray]:
    """Views into a vector laid out as :func:`_flat` lays out ``net``: layer l's [Wˡ; bˡ], of
    shape (fan_in + 1, fan_out) (bˡ is the last row)."""
    blocks, start = [], 0
    for fan_in, fan_out in (W.shape for W in net.weights):
        size = (fan_in + 1) * fan_out
        blocks.append(vector[start:start + size].reshape(fan_in + 1, fan_out))
        start += size
    return blocks


def _forward_with_ones(blocks: list[np.ndarray], activation: str, A: np.ndarray,
                       ones: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """:func:`_layers` for [Wˡ; bˡ] blocks: from A = [a⁰ 1], every layer's input [aˡ⁻¹ 1] (so
    that [a 1] [W; b] = a W + b), each hidden layer's slope g'(aˡ) and the output o. ``ones``
    is a column of at least len(A) ones."""
    inputs, slopes = [A], []
    for block in blocks[:-1]:
        # The slope from aˡ before the ones join it: column slices are slow operands.
        a = _activate_in_place(inputs[-1].dot(block), activation)
        slopes.append(_slope(a, activation))
        inputs.append(np.concatenate((a, ones[:len(a)]), axis=1))
    return inputs, slopes, _sigmoid_in_place(inputs[-1].dot(blocks[-1]))


def _gradient_sums_into(gradient_blocks: list[np.ndarray], blocks: list[np.ndarray], loss: str,
                        inputs: list[np.ndarray], slopes: list[np.ndarray], o: np.ndarray,
                        t: np.ndarray) -> None:
    """:func:`_gradients` times m, for a pass of :func:`_forward_with_ones`, written into
    ``gradient_blocks`` (the caller scales them by η/m): [aˡ⁻¹ 1]ᵀ δˡ = [aˡ⁻¹ᵀ δˡ; Σ_rows δˡ]."""
    delta = o - t
    if loss == "squared":
        delta *= o
        delta *= _ONE - o
    for i in range(len(blocks) - 1, -1, -1):
        gradient_blocks[i][...] = inputs[i].T.dot(delta)
        if i:
            delta = delta.dot(blocks[i][:-1].T)  # the error term back through Wˡ, not bˡ
            delta *= slopes[i - 1]
