"""Widgets, figures and tables for the walk-through "Online learning II" (lecture 12).

Sources: CS446 (linear threshold functions, Winnow and its extensions, the thick separator),
Gupta §3 (experts; algorithms of Littlestone and Warmuth 1994), Balcan §1.2 (TD_γ bound).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from matplotlib.figure import Figure

from mllib import online
from mllib import perceptron as P
from mllib.data import noisy
from mllib.plotting import figure, markdown_table

# --- Threshold functions ---------------------------------------------------------------------


def truth_table(columns: dict[str, tuple[list[float], float]], n: int) -> str:
    """A Markdown truth table over all 2ⁿ inputs, one column per named threshold function
    (weights, θ), each output 1 when w·x >= θ (CS446)."""
    X = online.boolean_inputs(n)
    outputs = [online.threshold_function(w, theta, X) for w, theta in columns.values()]
    header = [f"x{j + 1}" for j in range(n)] + list(columns)
    rows = [[*x.astype(int), *(out[i] for out in outputs)] for i, x in enumerate(X)]
    return markdown_table(header, rows)


def xor_search_table(max_weights=(1, 2, 3, 4)) -> str:
    """For OR, AND and XOR on two inputs: integer weights found by brute force, per range."""
    X = online.boolean_inputs(2)
    targets = {"OR": [0, 1, 1, 1], "AND": [0, 0, 0, 1], "XOR": [0, 1, 1, 0]}
    rows = []
    for name, labels in targets.items():
        cells = []
        for m in max_weights:
            found = online.find_threshold_weights(X, labels, max_weight=m)
            cells.append("none" if found is None else
                         f"w = {found[0].astype(int).tolist()}, θ = {found[1]}")
        rows.append([name, *cells])
    return markdown_table(["target", *(f"weights in [−{m}, {m}]" for m in max_weights)], rows)


# --- Winnow against the perceptron -----------------------------------------------------------


@dataclass(frozen=True)
class Scaling:
    """Mistakes to convergence as the number of variables n grows, for a fixed k-disjunction.

    Attributes
    ----------
    ns : ndarray of shape (m,)
    winnow, perceptron : ndarray of shape (m,)
        Mean mistakes over the trials.
    k : int
    """

    ns: np.ndarray
    winnow: np.ndarray
    perceptron: np.ndarray
    k: int


def sparse_disjunction(n: int, k: int, m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """m random examples over n variables labelled by the disjunction of the first k. The
    irrelevant variables are on with probability ½; each relevant one with probability
    1 - 2^(-1/k), so that half of the examples are negative whatever k."""
    rng = np.random.default_rng(seed)
    X = (rng.random((m, n)) < 0.5).astype(float)
    X[:, :k] = rng.random((m, k)) < 1 - 0.5 ** (1 / k)  # P(no relevant variable on) = ½
    return X, np.where(X[:, :k].any(axis=1), 1.0, -1.0)


@lru_cache(maxsize=2)
def winnow_vs_perceptron(ns=(8, 16, 32, 64, 128, 256), k: int = 2, m: int = 400,
                         trials: int = 3) -> Scaling:
    """Run Winnow (θ = n) and the perceptron with a learned threshold (MMDS §12.2.4) on the
    same samples until a clean pass; average the mistakes over ``trials`` seeds."""
    winnow, perceptron = [], []
    for n in ns:
        w_runs, p_runs = [], []
        for seed in range(trials):
            X, y = sparse_disjunction(n, k, m, seed)
            w_runs.append(P.winnow(X, y, max_epochs=200).mistakes)
            p_runs.append(P.perceptron(P.add_threshold_feature(X), y, max_epochs=200).mistakes)
        winnow.append(np.mean(w_runs))
        perceptron.append(np.mean(p_runs))
    return Scaling(np.array(ns), np.array(winnow), np.array(perceptron), k)


def show_scaling(result: Scaling) -> Figure:
    """Mistakes against n on a log-2 axis: Winnow's grow like log n, the perceptron's like n."""
    fig, (ax,) = figure(1, width=6, height=3.8)
    ax.plot(result.ns, result.perceptron, "s-", color="tab:orange", label="perceptron")
    ax.plot(result.ns, result.winnow, "o-", color="tab:blue", label="Winnow")
    bound = [online.winnow_bound(result.k, n) for n in result.ns]
    ax.plot(result.ns, bound, ":", color="tab:blue", label="Winnow's bound 3k(⌊log₂ n⌋+1)+1")
    ax.set_xscale("log", base=2)
    ax.set(xlabel="number of variables n", ylabel="mistakes until a clean pass",
           title=f"a {result.k}-disjunction among n variables")
    ax.legend(fontsize=8)
    return fig


def extensions_table(seed: int = 4) -> str:
    """Which member of the Winnow family learns which target (mistakes, and whether it reached a
    clean pass within 50 epochs): monotone x1 ∨ x2, non-monotone x1 ∨ ¬x2, and x1 ∧ ¬x2."""
    rng = np.random.default_rng(seed)
    X = (rng.random((300, 8)) < 0.5).astype(float)
    targets = {
        "x1 ∨ x2": (X[:, 0] == 1) | (X[:, 1] == 1),
        "x1 ∨ ¬x2": (X[:, 0] == 1) | (X[:, 1] == 0),
        "x1 ∧ ¬x2": (X[:, 0] == 1) & (X[:, 1] == 0),
    }
    learners = {
        "Winnow": lambda y: P.winnow(X, y, max_epochs=50),
        "Winnow with elimination": lambda y: online.winnow_elimination(X, y, max_epochs=50),
        "Winnow on [x, 1 − x]": lambda y: online.winnow_duplicated(X, y, max_epochs=50),
        "Balanced Winnow": lambda y: online.balanced_winnow(X, y, max_epochs=50),
    }
    rows = []
    for name, learn in learners.items():
        cells = []
        for target in targets.values():
            result = learn(np.where(target, 1.0, -1.0))
            cells.append(f"{result.mistakes} {'✓' if result.converged else '✗ (not learned)'}")
        rows.append([name, *cells])
    return markdown_table(["learner", *targets], rows)


# --- A shifting target -----------------------------------------------------------------------


@dataclass(frozen=True)
class Shift:
    """Cumulative mistakes of Winnow and Winnow-R on a stream whose target changes at ``at``."""

    winnow: np.ndarray
    winnow_r: np.ndarray
    at: int
    lowest_weight: float


def shifting_target(n: int = 32, length: int = 4000, seed: int = 0) -> Shift:
    """The target is x1 ∨ x2 for the first half, then x3 ∨ x4. Before the shift x3 occurs only
    in negative examples, so plain Winnow keeps halving its weight; Winnow-R stops it at ½."""
    rng = np.random.default_rng(seed)
    at = length // 2
    X = (rng.random((length, n)) < 0.5).astype(float)
    first = X[:at, [0, 1]].any(axis=1)
    X[:at, 2] = np.where(first, 0.0, rng.random(at) < 0.7)
    y = np.where(np.r_[first, X[at:, [2, 3]].any(axis=1)], 1.0, -1.0)
    plain, robust = online.winnow_stream(X, y), online.winnow_r(X, y)
    mistakes = [np.cumsum([not v.correct for v in run.history]) for run in (plain, robust)]
    return Shift(mistakes[0], mistakes[1], at, float(plain.history[at - 1].w[2]))


def show_shift(shift: Shift) -> Figure:
    """Cumulative mistakes of Winnow and Winnow-R, with the moment of the shift marked."""
    fig, (ax,) = figure(1, width=6, height=3.6)
    t = np.arange(1, len(shift.winnow) + 1)
    ax.plot(t, shift.winnow, color="tab:orange", label="Winnow")
    ax.plot(t, shift.winnow_r, color="tab:blue", label="Winnow-R (weights >= ½)")
    ax.axvline(shift.at, color="grey", linestyle="--", linewidth=0.8)
    ax.annotate("target becomes x3 ∨ x4", (shift.at, 0), (shift.at * 1.05, 5), fontsize=8)
    ax.set(xlabel="examples seen", ylabel="cumulative mistakes",
           title="a shifting target (CS446's Winnow-R)")
    ax.legend(fontsize=8, loc="upper left")
    return fig


# --- Experts ---------------------------------------------------------------------------------


@lru_cache(maxsize=16)
def experts_problem(noise: float, *, n_experts: int = 16, rounds: int = 300, seed: int = 7
                    ) -> tuple[np.ndarray, np.ndarray]:
    """N experts predicting ±1 outcomes; expert j is wrong with probability noise·j/(N - 1), so
    expert 0 is perfect when noise is 0 and the best expert errs at rate 0 … noise."""
    rng = np.random.default_rng(seed)
    outcomes = rng.choice([-1.0, 1.0], rounds)
    rates = noise * np.linspace(0.1, 1.0, n_experts)
    wrong = rng.random((rounds, n_experts)) < rates
    predictions = np.where(wrong, -outcomes[:, None], outcomes[:, None])
    predictions.setflags(write=False)
    return predictions, outcomes


def show_experts(beta: float, noise: float) -> Figure:
    """Cumulative mistakes: the best expert, deterministic and randomised weighted majority (the
    latter's expectation), and the deterministic bound; β = 0 draws halving alone."""
    predictions, outcomes = experts_problem(noise)
    wm = online.weighted_majority(predictions, outcomes, beta=beta)
    wrong = predictions != outcomes[:, None]
    best = int(np.argmin(wm.expert_mistakes))
    t = np.arange(1, len(outcomes) + 1)
    fig, (ax,) = figure(1, width=7.0, height=3.8)
    ax.plot(t, np.cumsum(wrong[:, best]), color="black", label=f"best expert ({best})")
    ax.plot(t, np.cumsum([r.prediction != r.outcome for r in wm.history]), color="tab:blue",
            label="weighted majority")
    if beta > 0:  # β = 0 is halving; randomised WM needs β > 0
        rwm = online.randomized_weighted_majority(predictions, outcomes, beta=beta)
        ax.plot(t, np.cumsum([r.p_wrong for r in rwm.history]), color="tab:green",
                label="randomised WM (expected)")
        bound = online.weighted_majority_bound(wm.expert_mistakes.min(), predictions.shape[1], beta)
        ax.axhline(bound, color="tab:blue", linestyle=":", label=f"WM bound {bound:.1f}")
    ax.set(xlabel="round", ylabel="cumulative mistakes",
           title=f"{predictions.shape[1]} experts, β = {beta:g}, noise {noise:g}")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return fig


# --- Balcan's bound --------------------------------------------------------------------------


def balcan_table(flips=(0.0, 0.02, 0.05, 0.1, 0.2), gamma: float = 0.1, n: int = 200,
                 seed: int = 1) -> str:
    """The perceptron's mistakes in one pass over noisy data against (R/γ)² + 2·TD_γ/γ, with w*
    the clean labels' separator (the bound holds for every unit w* and γ)."""
    rows = []
    for flip in flips:
        X, y, w_star = noisy(n, 2, margin=gamma, flip=flip, seed=seed)
        mistakes = P.perceptron(X, y, max_epochs=1).mistakes
        td = online.total_margin_deficit(w_star, X, y, gamma)
        bound = online.balcan_nonseparable_bound(P.radius(X), gamma, td)
        rows.append([f"{flip:.0%}", mistakes, f"{td:.2f}", f"{bound:.1f}"])
    return markdown_table(["labels flipped", "perceptron mistakes (1 pass)", "TD_γ",
                           "(R/γ)² + 2·TD_γ/γ"], rows)
