"""Widgets, tables and figures for lecture 14: multi-layer networks and backpropagation.

Sources: CS446 slides (seed 001), "Multi-Layer Neural Network" to "Learning with a Multi-Layer
Perceptron"; Mitchell (1997) §4.4–4.5 (XOR, Table 4.2).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import contourpy
import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.colors import BoundaryNorm
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D

from mllib import neural
from mllib import perceptron as P
from mllib.data import xor_table
from mllib.demos import explore, with_first_frame
from mllib.demos.live import animate, animate_legend, set_view
from mllib.plotting import NEGATIVE, PALETTE, POSITIVE, describe, figure, markdown_table

# mlp(xor, hidden=2, eta=XOR_ETA, epochs=XOR_EPOCHS, seed=...) solves XOR from XOR_SOLVED and
# sticks on a plateau with one point wrong from XOR_STUCK (tests/test_neural.py checks both).
XOR_ETA, XOR_EPOCHS, XOR_SOLVED, XOR_STUCK = 4.0, 800, 0, 3
# The 2-2-1 network worked by hand in the walk-through.
HAND_NETWORK = neural.network([[[0.1, -0.2], [0.3, 0.4]], [[0.5], [-0.6]]],
                              [[0.05, -0.05], [0.1]])
WIDGET_EPOCHS = 200
STEP_EPOCHS = 5


def noisy_xor(n: int = 120, *, noise: float = 0.25, seed: int = 0,
              ) -> tuple[np.ndarray, np.ndarray]:
    """n points around the four corners of XOR on {0, 1}² (Gaussian jitter ``noise``), labels
    x₁ ⊕ x₂ of the corner: shape (n, 2) and (n,)."""
    rng = np.random.default_rng(seed)
    X, t = xor_table()
    corner = rng.integers(0, 4, n)
    return X[corner] + rng.normal(0, noise, (n, 2)), t[corner]


REGION_LIMITS = (-0.75, 1.75)
REGION_GRID = np.linspace(*REGION_LIMITS, 200)
REGION_LEVELS = np.linspace(0, 1, 11)  # the shading's bands of o, as the colour bar shows them


@dataclass(frozen=True)
class _Regions:
    """A panel of decision regions: the shaded output, its o = 1/2 boundary and the rings on
    misclassified points, which :func:`_show_network` sets for a network, and the points of
    each class."""

    shade: AxesImage
    boundary: LineCollection
    rings: PathCollection
    points: tuple[PathCollection, ...]


def _regions(ax: Axes, X: np.ndarray, t: np.ndarray, *, legend: bool = True) -> _Regions:
    """A panel for a network's output over the plane (shaded in bands of 0.1, with a colour
    bar), its o = 1/2 boundary, and the data: circles t = 1, squares t = 0, black-edged; a
    point on the wrong side of the boundary gets a thick black ring, so it stays visible where
    o is near 1/2 (white). The marker legend goes at the top (``legend``; XOR's corners leave it
    free) or to the caller. :func:`_show_network` draws a network's output in it."""
    shade = ax.imshow(np.zeros((len(REGION_GRID),) * 2), origin="lower", cmap="RdBu",
                      norm=BoundaryNorm(REGION_LEVELS, 256), alpha=0.5, interpolation="nearest",
                      extent=(*REGION_LIMITS, *REGION_LIMITS))
    boundary = ax.add_collection(LineCollection([], colors="black", linewidths=1.2),
                                 autolim=False)
    bar = ax.figure.colorbar(shade, ax=ax, ticks=[0, 0.5, 1], fraction=0.05, pad=0.03)
    # below the bar: above it, it would read as the end of the panel's title, and beside it,
    # it would run into the next panel's axis label
    bar.ax.set_xlabel("o", fontsize=9)
    points = tuple(ax.scatter(*X[t == label].T, marker=marker, c=colour, edgecolors="black",
                              linewidths=0.6, s=30, label=f"t = {label}", zorder=3)
                   for label, marker, colour in ((1, "o", POSITIVE), (0, "s", NEGATIVE)))
    rings = ax.scatter([], [], marker="o", s=150, facecolors="none", edgecolors="black",
                       linewidths=1.8, label="misclassified", zorder=4)
    if legend:
        ax.legend(fontsize=7, loc="upper center", ncol=3, handletextpad=0.2, columnspacing=0.8)
    ax.set_xlim(*REGION_LIMITS)
    ax.set_ylim(*REGION_LIMITS)
    ax.set_aspect("equal")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    return _Regions(shade, boundary, rings, points)


def _show_network(regions: _Regions, net: neural.Network, X: np.ndarray, t: np.ndarray,
                  ) -> np.ndarray:
    """Draw ``net``'s output, its o = 1/2 boundary and its mistakes on (X, t) in ``regions``;
    returns which points it gets wrong, shape (n,)."""
    gx, gy = np.meshgrid(REGION_GRID, REGION_GRID)
    o = neural.predict_proba(net, np.column_stack([gx.ravel(), gy.ravel()])).reshape(gx.shape)
    regions.shade.set_data(o)
    lines = contourpy.contour_generator(gx, gy, o, line_type="Separate").lines(0.5)
    regions.boundary.set_segments(lines)
    wrong = neural.predict(net, X) != t
    regions.rings.set_offsets(X[wrong].reshape(-1, 2))
    return wrong


def _unit_boundary(w1: float, w2: float, b: float) -> str:
    """What a unit's o = ½ set is: a straight line, unless both weights are 0 and the output
    is the constant σ(b)."""
    if w1 == 0 and w2 == 0:
        constant = float(neural.sigmoid(b))
        return f"with both weights 0 its output is σ({b:g}) = {constant:.3g} everywhere, no line"
    return "its boundary o = ½ is a straight line"


def _signed(value: float) -> str:
    """A term after another: "+ 2", "− 0.5"."""
    return f"{'−' if value < 0 else '+'} {abs(value):g}"


def _point(x) -> str:
    """A point of the plane as "(1, 0)"."""
    return f"({x[0]:g}, {x[1]:g})"


def show_unit(w1: float, w2: float, b: float) -> Figure:
    """A single sigmoid unit o = σ(w₁x₁ + w₂x₂ + b): its output over the plane, with XOR's four
    points (left), and σ itself with its slope σ(1 - σ) (right)."""
    X, t = xor_table()
    net = neural.network([[[w1], [w2]]], [[b]])
    fig, (left, right) = figure(2, width=4.4, height=3.6)
    wrong = _show_network(_regions(left, X, t), net, X, t)
    right_ok = int(np.sum(~wrong))
    left.set_title(f"one unit: {right_ok} of 4 XOR points right")
    z = np.linspace(-8, 8, 200)
    right.plot(z, neural.sigmoid(z), color="black", label="σ(z)")
    right.plot(z, neural.sigmoid_derivative(z), color=PALETTE[1], linestyle="--",
               label="σ'(z) = σ(1 - σ)")
    right.plot(z, (z >= 0).astype(float), ":", color="grey", label="step [z ≥ 0]")
    right.set_xlabel("z = w·x + b")
    right.set_title("the sigmoid smooths the threshold")
    right.legend(fontsize=8)
    missed = ", ".join(_point(x) for x in X[wrong])
    return describe(fig, (
        f"One sigmoid unit o = σ({w1:g}·x₁ {_signed(w2)}·x₂ {_signed(b)}) over the plane: "
        f"{_unit_boundary(w1, w2, b)}, and it gets {right_ok} of XOR's 4 points right "
        f"(misclassified, ringed: {missed or 'none'}). Right: σ(z) rising from 0 to 1, its "
        f"slope σ(1 − σ) peaking at {float(neural.sigmoid_derivative(0.0)):g} at z = 0, and "
        f"the 0/1 step at z = 0 that σ smooths."))


@lru_cache(maxsize=4)
def xor_runs() -> tuple[neural.MLPResult, neural.MLPResult]:
    """The two XOR runs of the walk-through: (solved, stuck)."""
    X, t = xor_table()
    return tuple(neural.mlp(X, t, hidden=2, eta=XOR_ETA, epochs=XOR_EPOCHS, seed=seed)
                 for seed in (XOR_SOLVED, XOR_STUCK))


def show_xor_runs() -> Figure:
    """The decision regions after training from the two starts, and both loss curves."""
    X, t = xor_table()
    runs = xor_runs()
    fig, axes = figure(3, width=3.6, height=3.4)
    seeds = (XOR_SOLVED, XOR_STUCK)
    counts = []
    for ax, run, seed, style in zip(axes, runs, seeds, ("-", "--"), strict=False):
        right = int(np.sum(~_show_network(_regions(ax, X, t), run.network, X, t)))
        counts.append(right)
        ax.set_title(f"seed {seed}: {right} of 4 right", fontsize=10)
        axes[2].plot(run.losses, style, label=f"seed {seed}")
    axes[2].set_yscale("log")
    axes[2].set_xlabel("epoch")
    axes[2].set_ylabel("mean squared loss ½(t - o)²")
    axes[2].set_title("training loss", fontsize=10)
    axes[2].legend()
    wrong = [", ".join(_point(x) for x in X[neural.predict(run.network, X) != t]) or "none"
             for run in runs]
    return describe(fig, (
        f"Decision regions of a 2-2-1 network after {XOR_EPOCHS} epochs on XOR (η = "
        f"{XOR_ETA:g}): from seed {seeds[0]} it gets {counts[0]} of 4 points right "
        f"(misclassified: {wrong[0]}), from seed {seeds[1]} {counts[1]} of 4 (misclassified, "
        f"ringed: {wrong[1]}). Training loss on a log scale: seed {seeds[0]} falls from "
        f"{runs[0].losses[0]:.3f} to {runs[0].losses[-1]:.4f}, seed {seeds[1]} from "
        f"{runs[1].losses[0]:.3f} to {runs[1].losses[-1]:.4f}."))


def boolean_network(X, t, *, scale: float = 10.0) -> neural.Network:
    """A one-hidden-layer sigmoid network that computes any Boolean function given by its truth
    table (X (m, n) of 0/1 rows, t (m,) 0/1): one hidden unit per row with t = 1, firing only
    on that row (an AND of its literals), and an output unit that ORs them (the function's DNF).

    Hidden unit for row r: weight +s where r_i = 1 and -s where r_i = 0, bias -s·(|r| - ½), so
    its net input is s/2 on r and at most -s/2 elsewhere. Output: weight s per hidden unit,
    bias -s/2. With s = 10 every hidden unit is within σ(-5) ≈ 0.0067 of a step; the output
    unit adds up their leaks, so it can be a little further off (on a false row of 3-bit parity,
    σ(-5 + 3·10·σ(-5)) ≈ 0.0082, since three true rows are one bit away). This is why
    "multi-layer networks can represent arbitrary functions" (CS446 "Multi-Layer Neural
    Network"); the price is up to 2ⁿ hidden units.
    """
    X, t = np.asarray(X, dtype=float), np.asarray(t)
    rows = X[t == 1]
    if len(rows) == 0:
        return neural.network([np.zeros((X.shape[1], 1)), np.zeros((1, 1))], [[0.0], [-scale]])
    hidden_w = scale * (2 * rows.T - 1)  # (n, hidden)
    hidden_b = -scale * (rows.sum(axis=1) - 0.5)
    return neural.network([hidden_w, np.full((len(rows), 1), scale)],
                          [hidden_b, [-scale / 2]])


def top_layer_features(X) -> np.ndarray:
    """Two fixed threshold hidden units on XOR's inputs, [x₁ OR x₂, x₁ AND x₂], with MMDS's
    constant feature -1 appended for the output's threshold: shape (m, 2) -> (m, 3)."""
    X = np.asarray(X, dtype=float)
    hidden = np.column_stack([X.sum(axis=1) >= 1, X.sum(axis=1) >= 2]).astype(float)
    return P.add_threshold_feature(hidden)


def backprop_table(net: neural.Network, x, t: float) -> str:
    """One example through a 2-2-1 sigmoid network: net inputs, outputs, δs and gradients.

    δ here is ∂E/∂(net input), so the update is w ← w - η δ·(input); Mitchell's δ is -δ.
    """
    x = np.asarray(x, dtype=float)
    hidden, out = neural.forward(net, x[None])[1:]
    grad = neural.backprop(net, x, t)
    o = out[0, 0]
    delta_out = grad.biases[1][0]
    rows = [["input x", np.round(x, 4).tolist(), ""]]
    for j in range(hidden.shape[1]):
        z = x @ net.weights[0][:, j] + net.biases[0][j]
        rows.append([f"hidden unit {j + 1}", f"z = {z:.4f}, h = σ(z) = {hidden[0, j]:.4f}",
                     f"δ = h(1-h)·w·δ_out = {grad.biases[0][j]:.5f}"])
    z_out = hidden[0] @ net.weights[1][:, 0] + net.biases[1][0]
    rows.append(["output", f"z = {z_out:.4f}, o = σ(z) = {o:.4f}",
                 f"δ_out = (o - t)·o(1-o) = {delta_out:.5f}"])
    for j in range(hidden.shape[1]):
        rows.append([f"∂E/∂w (hidden {j + 1} → out)", f"δ_out·h = {grad.weights[1][j, 0]:.5f}",
                     ""])
        for i in range(len(x)):
            rows.append([f"∂E/∂w (x{i + 1} → hidden {j + 1})",
                         f"δ·x = {grad.weights[0][i, j]:.5f}", ""])
    return markdown_table(["quantity", "value", "error term"], rows)


class _GrowingRun:
    """The trainer's run for one (η, width, seed), trained only as far as a frame has asked.

    Moving η, the width or the seed starts a run; moving the epoch (or pressing Step or Run)
    extends it. Training on from the last network with the same generator gives exactly the
    epochs one :func:`mllib.neural.mlp` call of ``WIDGET_EPOCHS`` epochs gives: the generator
    draws the first weights, then one order of the examples per epoch, in the same sequence.
    """

    def __init__(self, eta: float, width: int, seed: int) -> None:
        self.eta, self.width = eta, width
        self.rng = np.random.default_rng(seed)
        self.history: list[neural.Epoch] = []

    def upto(self, epoch: int) -> list[neural.Epoch]:
        """The history from epoch 0 to ``epoch`` (0 <= epoch <= WIDGET_EPOCHS), training on as
        far as needed."""
        if not 0 <= epoch <= WIDGET_EPOCHS:
            raise ValueError(f"epoch must be between 0 and {WIDGET_EPOCHS}; got {epoch}.")
        if len(self.history) <= epoch:
            X, t = noisy_xor()
            start = self.history[-1].network if self.history else None
            done = len(self.history) - 1 if self.history else 0
            run = neural.mlp(X, t, hidden=self.width, eta=self.eta, epochs=max(epoch - done, 1),
                             batch_size=10, seed=self.rng, start=start)
            self.history += [replace(step, epoch=done + step.epoch)
                             for step in run.history[1 if self.history else 0:]]
        return self.history[:epoch + 1]


@lru_cache(maxsize=32)
def _growing_run(eta: float, width: int, seed: int) -> _GrowingRun:
    return _GrowingRun(eta, width, seed)


def _training(eta: float, width: int, seed: int) -> neural.MLPResult:
    """The trainer's whole run for (η, width, seed): ``WIDGET_EPOCHS`` epochs."""
    history = _growing_run(eta, width, seed).upto(WIDGET_EPOCHS)
    return neural.MLPResult(history[-1].network, tuple(history))


def training_losses(eta: float, width: int, seed: int) -> np.ndarray:
    """The trainer's mean loss after each epoch 0..``WIDGET_EPOCHS`` for (η, width, seed), the
    same cached run the widget draws, shape (WIDGET_EPOCHS + 1,)."""
    return _training(eta, width, seed).losses


def jump_ratios(high: float = 8.0, low: float = 2.0, width: int = 3,
                seeds=range(10)) -> np.ndarray:
    """For each seed of the trainer, the largest rise of the loss from one epoch to the next
    at η = ``high`` divided by that at η = ``low`` (the same widget runs), shape (len(seeds),)."""
    def largest_rise(eta: float, seed: int) -> float:
        return float(np.diff(_training(eta, width, seed).losses).max())

    return np.array([largest_rise(high, seed) / largest_rise(low, seed) for seed in seeds])


# The loss axis's top: the first of these above the highest loss so far (with 5% to spare),
# so that the axis stays put while the run goes on.
LOSS_TOPS = (0.15, 0.2, 0.3, 0.55)


def loss_top(losses: np.ndarray) -> float:
    """The loss axis's upper limit for ``losses``: the first of :data:`LOSS_TOPS` at least
    1.05 times their maximum (a mean ½(t - o)² never exceeds ½)."""
    return next(top for top in LOSS_TOPS if top >= 1.05 * float(np.max(losses)))


@dataclass(frozen=True)
class _TrainingView:
    """The trainer's figure and the artists each frame updates in place (``latest`` marks the
    loss of the epoch shown, so a one-point curve is visible too)."""

    fig: Figure
    left: Axes
    right: Axes
    regions: _Regions
    loss: Line2D
    latest: Line2D


@lru_cache(maxsize=1)
def _training_view() -> _TrainingView:
    """Build the trainer's figure once: the points, colour bar, axes and legend stay; the
    shading, boundary, rings, loss curve and titles move."""
    X, t = noisy_xor()
    fig, (left, right) = figure(2, width=4.4, height=3.6)
    regions = _regions(left, X, t, legend=False)  # the noisy points fill the panel
    loss, = right.plot([], [], color="black")
    latest, = right.plot([], [], "o", color="black", markersize=4)  # seen even at epoch 0
    right.set_xlim(0, WIDGET_EPOCHS)
    right.set_ylim(0, LOSS_TOPS[0])
    right.set_xlabel("epoch")
    right.set_ylabel("mean loss ½(t - o)²")
    legend = right.legend(*left.get_legend_handles_labels(), fontsize=8, loc="upper right",
                          title="points (left)", title_fontsize=8)
    for ax in (left, right):
        ax.set_title(" ", fontsize=10)
    # Animated artists are drawn over the static ones of their axes: the points and the legend
    # are animated too, so that the shading stays under the points and the curve under the
    # legend, as in a full draw.
    animate(regions.shade, regions.boundary, regions.rings, *regions.points, loss, latest,
            left.title, right.title)
    animate_legend(legend)
    return _TrainingView(fig, left, right, regions, loss, latest)


def show_training(eta: float, width: int, seed: int, epoch: int) -> Figure:
    """The trainer's frame: the decision regions after ``epoch`` epochs and the loss so far.

    The run for (η, width, seed) is cached and trained only as far as ``epoch``: moving the
    epoch forward trains the epochs in between, moving it back only reads the history. The
    figure is built once and redrawn in place: each call returns the same Figure.
    """
    X, t = noisy_xor()
    history = _growing_run(eta, width, seed).upto(epoch)
    losses = np.array([step.loss for step in history])
    view = _training_view()
    wrong = _show_network(view.regions, history[-1].network, X, t)
    accuracy = 1 - np.mean(wrong)
    view.left.title.set_text(f"epoch {epoch}: training accuracy {accuracy:.0%}")
    view.loss.set_data(np.arange(len(losses)), losses)
    view.latest.set_data([epoch], [losses[-1]])
    set_view(view.right, (0, WIDGET_EPOCHS), (0, loss_top(losses)))
    units = f"{width} hidden unit{'' if width == 1 else 's'}"
    view.right.title.set_text(f"η = {eta:g}, {units}, seed {seed}")
    loss = (f"went from {losses[0]:.4f} at epoch 0 to {losses[-1]:.4f}" if epoch else
            f"starts at {losses[0]:.4f}")
    return describe(view.fig, (
        f"Epoch {epoch} of training {units} with η = {eta:g} (seed {seed}) on "
        f"{len(t)} noisy XOR points: {accuracy:.0%} right, {int(wrong.sum())} misclassified "
        f"(ringed). The mean loss {loss}."))


def trainer():
    """Sliders for η, the hidden width and the seed, and an epoch slider with a Step button
    (``STEP_EPOCHS`` more epochs) and a Run toggle (a hidden ``Play`` control) that advance
    training."""
    import ipywidgets

    # the slider moves in Play's steps: Play advances only while value + step <= max, so from an
    # epoch off its grid (3, say) it would stop short of the end (at 198) and Run would then do
    # nothing
    epoch = ipywidgets.IntSlider(value=0, min=0, max=WIDGET_EPOCHS, step=STEP_EPOCHS,
                                 description="epoch", continuous_update=False)
    # The Play control keeps time in the browser, but its buttons are icons without a name: it
    # stays hidden, driven by a Run toggle (a labelled <button>, Enter or Space) linked to it.
    play = ipywidgets.Play(value=0, min=0, max=WIDGET_EPOCHS, step=STEP_EPOCHS, interval=150,
                           description="Run", layout=ipywidgets.Layout(display="none"))
    run = ipywidgets.ToggleButton(description="Run", tooltip="play the epochs to the end; "
                                  "press again to pause")
    view = explore(show_training,
                   eta=ipywidgets.FloatSlider(value=2.0, min=0.1, max=8.0, step=0.1,
                                              description="learning rate η",
                                              continuous_update=False,
                                              style={"description_width": "initial"}),
                   width=ipywidgets.IntSlider(value=3, min=1, max=8, description="hidden units",
                                              continuous_update=False,
                                              style={"description_width": "initial"}),
                   seed=ipywidgets.IntSlider(value=0, min=0, max=9, description="seed",
                                             continuous_update=False),
                   epoch=epoch)
    if isinstance(view, Figure):  # nbgrader is executing the notebook: one static frame
        return view
    ipywidgets.jslink((play, "value"), (epoch, "value"))
    ipywidgets.jslink((run, "value"), (play, "playing"))
    step = ipywidgets.Button(description="Step", tooltip=f"{STEP_EPOCHS} more epochs")

    def step_once(_button) -> None:
        epoch.value = min(epoch.value + STEP_EPOCHS, epoch.max)

    step.on_click(step_once)

    class Trainer(ipywidgets.VBox):
        """The buttons above the sliders; headless, the view's static first frame (explore)."""

        def _repr_mimebundle_(self, **kwargs) -> tuple[dict, dict]:
            return with_first_frame(super()._repr_mimebundle_(**kwargs), view.result)

    return Trainer([ipywidgets.HBox([step, run, play]), view])


def gradient_check_table(check: neural.GradientCheck, net: neural.Network) -> str:
    """Backprop's gradient beside the central difference, parameter by parameter."""
    names = [f"{kind}{layer + 1}{list(index)}" for layer, (W, b) in
             enumerate(zip(net.weights, net.biases, strict=True))
             for kind, array in (("W", W), ("b", b)) for index in np.ndindex(array.shape)]
    rows = [[name, f"{a:+.8f}", f"{n:+.8f}", f"{abs(a - n):.1e}"]
            for name, a, n in zip(names, check.analytic, check.numeric, strict=True)]
    return markdown_table(["parameter", "backprop", "central difference", "|difference|"], rows)
