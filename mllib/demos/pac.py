"""Widgets and tables for the PAC walk-through (lecture 03).

Sources: CS446 slides (seed 001), "Computational Learning Theory" (Occam's razor, the
elimination algorithm, agnostic learning, the VC and lower bounds); Balcan 10-601 (seed 004) for
the online-to-PAC conversion used in the notebook.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from matplotlib.figure import Figure

from mllib import pac
from mllib.plotting import NEGATIVE, POSITIVE, figure, markdown_table

# The target of the simulations: x1 ∧ ¬x2 ∧ x3 over n = 10 variables.
N_VARIABLES = 10
TARGET = pac.make_conjunction(N_VARIABLES, positive=[0, 2], negative=[1])
DISTRIBUTIONS = {
    "uniform bits (p = ½)": np.full(N_VARIABLES, 0.5),
    "irrelevant bits mostly 1 (p = 0.9)": np.array([0.5, 0.5, 0.5] + [0.9] * 7),
}
H_SIZE = pac.conjunction_count(N_VARIABLES) + 1  # the conjunctions and the always-false one
EPS_GRID = np.geomspace(0.005, 0.5, 60)


@dataclass(frozen=True)
class SampleSizes:
    """Occam and agnostic sample sizes over a grid of ε, for one |H| and δ.

    Attributes
    ----------
    eps : ndarray of shape (k,)
    occam, agnostic : ndarray of int, shape (k,)
        :func:`mllib.pac.occam_sample_size` and :func:`mllib.pac.agnostic_sample_size` at each ε.
    """

    eps: np.ndarray
    occam: np.ndarray
    agnostic: np.ndarray


def sample_sizes(h_size, delta: float, eps=EPS_GRID) -> SampleSizes:
    """The two finite-class bounds along a grid of ε (shape (k,))."""
    eps = np.asarray(eps, dtype=float)
    return SampleSizes(eps, np.array([pac.occam_sample_size(h_size, e, delta) for e in eps]),
                       np.array([pac.agnostic_sample_size(h_size, e, delta) for e in eps]))


def show_sample_sizes(eps: float, delta: float, log10_h: float) -> Figure:
    """The ε/δ/|H| sliders' frame: m against ε (left) and against log₁₀|H| (right), both bounds.

    The realizable (Occam) size grows like 1/ε, the agnostic one like 1/ε²; both grow only with
    ln|H| and ln(1/δ).
    """
    h_size = 10.0**log10_h
    curves = sample_sizes(h_size, delta)
    occam, agnostic = (pac.occam_sample_size(h_size, eps, delta),
                       pac.agnostic_sample_size(h_size, eps, delta))
    fig, (left, right) = figure(2, width=5.0, height=3.8)
    left.loglog(curves.eps, curves.occam, color=POSITIVE, label="realizable (Occam)")
    left.loglog(curves.eps, curves.agnostic, color=NEGATIVE, label="agnostic (Hoeffding)")
    left.plot([eps, eps], [occam, agnostic], "ko", ms=5)
    left.axvline(eps, color="grey", linewidth=0.8)
    left.set_xlabel("ε (accuracy)")
    left.set_ylabel("examples m")
    left.set_title(f"|H| = 10^{log10_h:g}, δ = {delta:g}")
    left.legend(fontsize=8)
    log_sizes = np.linspace(0, 30, 61)
    right.plot(log_sizes, [pac.occam_sample_size(10.0**k, eps, delta) for k in log_sizes],
               color=POSITIVE, label="realizable")
    right.plot(log_sizes, [pac.agnostic_sample_size(10.0**k, eps, delta) for k in log_sizes],
               color=NEGATIVE, label="agnostic")
    right.plot([log10_h, log10_h], [occam, agnostic], "ko", ms=5)
    right.set_xlabel("log₁₀|H|")
    right.set_ylabel("examples m")
    right.set_title(f"ε = {eps:.3g}: m = {occam:,} realizable, {agnostic:,} agnostic")
    right.legend(fontsize=8)
    return fig


@dataclass(frozen=True)
class BoundComparison:
    """The |H| bound against the VC bounds for conjunctions over n variables, n = 1..n_max.

    Attributes
    ----------
    n : ndarray of int, shape (k,)
    occam : ndarray of int
        Occam with |H| = 3ⁿ (natural logs).
    vc_upper : ndarray of int
        Blumer et al. with VC = n (base-2 logs).
    vc_lower : ndarray of int
        The lower bound with VC = n: no learner can do with fewer (where it is a theorem).
    """

    n: np.ndarray
    occam: np.ndarray
    vc_upper: np.ndarray
    vc_lower: np.ndarray


def bound_comparison(eps: float, delta: float, n_max: int = 40) -> BoundComparison:
    """Sample sizes for conjunctions over 1..n_max variables, whose VC dimension is n."""
    n = np.arange(1, n_max + 1)
    return BoundComparison(
        n,
        np.array([pac.occam_sample_size(pac.conjunction_count(k), eps, delta) for k in n]),
        np.array([pac.vc_sample_size(k, eps, delta) for k in n]),
        np.array([pac.vc_lower_bound(k, eps, delta) for k in n]),
    )


def show_bound_comparison(n: int, eps: float, delta: float) -> Figure:
    """The n/ε/δ sliders' frame: three sample sizes for conjunctions against n."""
    comparison = bound_comparison(eps, delta)
    fig, (ax,) = figure(1, width=6.5, height=3.8)
    ax.plot(comparison.n, comparison.vc_upper, color="tab:red", label="VC upper bound (VC = n)")
    ax.plot(comparison.n, comparison.occam, color=POSITIVE, label="Occam, |H| = 3ⁿ")
    ax.plot(comparison.n, comparison.vc_lower, color="grey", linestyle="--",
            label="VC lower bound (VC = n)")
    row = n - 1
    ax.plot([n] * 3, [comparison.vc_upper[row], comparison.occam[row], comparison.vc_lower[row]],
            "ko", ms=5)
    ax.set_yscale("log")
    ax.set_xlabel("n (variables)")
    ax.set_ylabel("examples m")
    ax.set_title(f"n = {n}: VC bound {comparison.vc_upper[row]:,}, |H| bound "
                 f"{comparison.occam[row]:,}, lower bound {comparison.vc_lower[row]:,}")
    ax.legend(fontsize=8)
    return fig


def elimination_table(result: pac.EliminationResult, y: np.ndarray, names: str) -> str:
    """The elimination algorithm's run as a Markdown table: one row per example.

    Negative examples are listed with "(ignored)". ``names`` labels the rows (e.g. "abcd").
    """
    steps = {step.index: step for step in result.history}
    rows, current = [], "all 2n literals (always false)"
    for i, label in enumerate(y):
        if i in steps:
            current = str(steps[i].hypothesis)
            removed = ", ".join(steps[i].removed) or "nothing"
        else:
            removed = "(ignored: negative)"
        rows.append([names[i], f"{label:+.0f}", removed, current])
    return markdown_table(["example", "y", "literals removed", "hypothesis after"], rows)


def learning_curve(eps: float, delta: float, distribution: str, *, m: int | None = None,
                   trials: int = 400, seed: int = 3) -> pac.Simulation:
    """Simulate the elimination algorithm on sample sizes from 1 to past the Occam m.

    Includes ``m`` when given. Trials, target and seed are fixed, so moving a slider redraws
    the same experiment.
    """
    occam = pac.occam_sample_size(H_SIZE, eps, delta)
    sizes = np.unique(np.concatenate([np.geomspace(1, 1.3 * occam, 30).astype(int),
                                      [occam], [] if m is None else [m]]))
    return pac.simulate(TARGET, DISTRIBUTIONS[distribution], sizes, eps=eps, delta=delta,
                        trials=trials, seed=seed)


def show_simulation(m: int, eps: float, distribution: str, delta: float = 0.05) -> Figure:
    """The simulation widget's frame.

    Left: the true errors of the T learned conjunctions at sample size m, with ε marked. Right:
    the empirical P[error > ε] against m, next to δ and the union bound |H|(1 - ε)^m; the dashed
    line is the Occam m, where the bound first promises failure at most δ.
    """
    sim = learning_curve(eps, delta, distribution, m=m)
    row = int(np.flatnonzero(sim.sample_sizes == m)[0])
    fig, (left, right) = figure(2, width=5.0, height=3.8)
    left.hist(sim.errors[row], bins=np.linspace(0, max(0.5, sim.errors[row].max()), 41),
              color=POSITIVE)
    left.axvline(eps, color="black", linestyle="--", label=f"ε = {eps:g}")
    left.set_xlabel("true error of the learned conjunction")
    left.set_ylabel(f"trials (of {sim.trials})")
    left.set_title(f"m = {m}: P̂[error > ε] = {sim.failure_rate[row]:.3f} (δ = {delta:g})")
    left.legend(fontsize=8)
    right.plot(sim.sample_sizes, sim.failure_rate, "o-", ms=3, color=POSITIVE,
               label="empirical P[error > ε]")
    right.plot(sim.sample_sizes, sim.failure_bound, color="tab:red", label="|H|(1 − ε)^m")
    right.axhline(delta, color="black", linewidth=0.8, label=f"δ = {delta:g}")
    right.axvline(sim.occam_m, color="grey", linestyle="--", label=f"Occam m = {sim.occam_m}")
    right.plot([m], [sim.failure_rate[row]], "ko", ms=6)
    right.set_xscale("log")
    right.set_xlabel("examples m")
    right.set_ylabel("probability")
    right.set_title(distribution)
    right.legend(fontsize=7)
    return fig


def simulation_table(sim: pac.Simulation) -> str:
    """Markdown: m, the empirical failure rate with its Hoeffding margin, δ and the union bound."""
    rows = [[m, f"{rate:.3f}", f"{min(1.0, rate + sim.margin(0.05)):.3f}", f"{sim.delta:g}",
             f"{bound:.3g}"]
            for m, rate, bound in zip(sim.sample_sizes, sim.failure_rate, sim.failure_bound,
                                      strict=True)]
    return markdown_table(["m", "P̂[error > ε]", "95% upper limit", "δ", "|H|(1 − ε)^m"], rows)
