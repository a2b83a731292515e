"""Time every widget of every walk-through as one slider move costs in Jupyter.

One move is: the widget's callback (recompute and build the Figure) plus the PNG that
:func:`mllib.demos.explore` displays for it (:func:`mllib.demos.png`: the figure drawn once at
its fixed layout). Each control of each widget is moved
through about ten values, one after the other, with the other controls at the notebook's
values, after one call at the notebook's values (the frame the cell showed when it ran).

Prints the median and the worst move per widget and control as wall and CPU time, the floors
(an empty figure built and drawn, and redrawn in place), and the course-wide worst.
Timings are printed, never asserted. Run: ``.venv/bin/python bench/bench_widgets.py [lecture ...]``
(for example ``02 03``; all lectures by default).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mllib import data
from mllib import perceptron as P
from mllib.demos import bayesnet as bayesnet_demo
from mllib.demos import chowliu as chowliu_demo
from mllib.demos import em as em_demo
from mllib.demos import ensemble as ensemble_demo
from mllib.demos import kernels as kernels_demo
from mllib.demos import linear as linear_demo
from mllib.demos import multiclass as multiclass_demo
from mllib.demos import neighbors as neighbors_demo
from mllib.demos import neural as neural_demo
from mllib.demos import online as online_demo
from mllib.demos import pac as pac_demo
from mllib.demos import parallel as parallel_demo
from mllib.demos import perceptron as perceptron_demo
from mllib.demos import png
from mllib.demos import svm as svm_demo
from mllib.demos import vc as vc_demo

TARGET_MS = 100.0
WORST_MS = 200.0


@dataclass(frozen=True)
class Widget:
    """A widget callback, the notebook's control values, and the values each control takes."""

    lecture: str
    name: str
    frame: Callable
    defaults: dict
    moves: dict


def _log_values(lo: float, hi: float, count: int = 10) -> list[float]:
    return [float(v) for v in np.geomspace(lo, hi, count)]


def _lin_values(lo: float, hi: float, count: int = 10) -> list[float]:
    return [round(float(v), 4) for v in np.linspace(lo, hi, count)]


def widgets() -> list[Widget]:
    """Every explore(...) of the walk-throughs, with the notebooks' own control values.

    Lecture 07's γ slider only matters for the rbf kernel, so it is moved with that kernel
    selected. Lecture 14's trainer trains each (η, width, seed) only as far as the epoch shown
    (its cache keeps 32 runs): at the notebook's epoch 0 a move trains one epoch, so it is
    also timed at the last epoch, where a move of η, width or seed trains the whole run."""
    X, y, w_star = data.separable(300, 2, margin=0.02, seed=7)
    proof_run = P.perceptron(X, y, w_star=w_star)
    heads_g, m_g = em_demo.three_groups()
    root = chowliu_demo.true_tree()[0].root
    multiclass_mistakes = multiclass_demo.perceptron_run(True)[2].mistakes
    k_values = [int(k) for k in np.linspace(0, proof_run.mistakes, 10)]
    prior = [1, 4, 7, 10, 13, 16, 19, 22, 25, 30]
    return [
        Widget("01", "margin γ", perceptron_demo.show_margin_experiment,
               {"margin": 0.1, "seed": 2},
               {"margin": list(perceptron_demo.MARGIN_GRID[::2]), "seed": list(range(1, 11))}),
        Widget("01", "update k", perceptron_demo.show_update,
               {"run": proof_run, "X": X, "y": y, "k": 1}, {"k": k_values}),
        Widget("01", "η / start", perceptron_demo.show_eta, {"eta": 0.1, "start": "w₀ = 0"},
               {"eta": _log_values(1e-3, 10.0), "start": list(perceptron_demo.ETA_STARTS)}),
        Widget("02", "step η / iteration", svm_demo.show_descent, {"eta": 0.2, "k": 5},
               {"eta": _lin_values(0.05, 1.5), "k": list(range(0, 60, 6))}),
        Widget("02", "penalty C", svm_demo.show_soft_margin, {"C": 1.0},
               {"C": _log_values(0.01, 100.0)}),
        Widget("03", "ε / δ / log₁₀|H|", pac_demo.show_sample_sizes,
               {"eps": 0.1, "delta": 0.05, "log10_h": 5.0},
               {"eps": _log_values(0.01, 0.3), "delta": _log_values(1e-4, 0.3),
                "log10_h": _lin_values(0, 30)}),
        Widget("03", "n / ε / δ", pac_demo.show_bound_comparison,
               {"n": 10, "eps": 0.1, "delta": 0.05},
               {"n": [1, 5, 9, 13, 17, 21, 25, 29, 33, 40], "eps": _log_values(0.01, 0.3),
                "delta": _log_values(1e-4, 0.3)}),
        Widget("03", "simulation m / ε / bits", pac_demo.show_simulation,
               {"m": 40, "eps": 0.1, "distribution": next(iter(pac_demo.DISTRIBUTIONS))},
               {"m": [1, 10, 25, 40, 60, 90, 120, 160, 220, 300],
                "eps": _lin_values(0.02, 0.3), "distribution": list(pac_demo.DISTRIBUTIONS)}),
        Widget("04", "points / move x / move y", vc_demo.show_configuration,
               {"configuration": "half-planes: triangle and a point inside", "dx": 0.0,
                "dy": 0.0},
               {"dx": _lin_values(-2, 2), "dy": _lin_values(-2, 2),
                "configuration": list(vc_demo.CONFIGURATIONS)}),
        Widget("05", "EM stepper", em_demo.show_em_run,
               {"heads": heads_g, "tosses": m_g, "alpha": 0.5, "p": 0.6, "q": 0.4, "steps": 0},
               {"steps": list(range(1, 11)), "p": _lin_values(0.05, 0.95),
                "alpha": _lin_values(0.05, 0.95)}),
        Widget("06", "sample size m / root", chowliu_demo.show_experiment,
               {"m": 30.0, "root": root},
               {"m": _log_values(10, 10_000), "root": list(range(10))}),
        Widget("07", "data / kernel / degree / C", kernels_demo.show_kernels,
               {"name": "rings", "kernel": "polynomial", "degree": 2, "gamma": 1.0, "C": 1.0},
               {"degree": list(range(1, 7)), "C": _log_values(0.01, 100.0, 9),
                "kernel": list(kernels_demo.KERNEL_NAMES), "name": list(kernels_demo.DATASETS)}),
        Widget("07", "γ (rbf kernel)", kernels_demo.show_kernels,
               {"name": "rings", "kernel": "rbf", "degree": 2, "gamma": 1.0, "C": 1.0},
               {"gamma": _log_values(0.1, 10**1.5)}),
        Widget("08", "code / flip column", multiclass_demo.show_ecoc,
               {"code_name": "exhaustive (7 bits)", "flipped": -1},
               {"flipped": list(range(-1, 7)), "code_name": list(multiclass_demo.CODES)}),
        Widget("08", "update / conservative", multiclass_demo.show_update,
               {"step": 0, "conservative": True},
               {"step": [int(k) for k in np.linspace(0, multiclass_mistakes, 10)],
                "conservative": [False, True]}),
        Widget("09", "σ", neighbors_demo.show_kernel, {"sigma": 1.0},
               {"sigma": _lin_values(0.1, 4.0)}),
        Widget("09", "k / weights", neighbors_demo.show_knn, {"k": 1, "weights": "uniform"},
               {"k": list(range(1, 62, 6)), "weights": ["distance", "uniform"]}),
        Widget("10", "round t / data", ensemble_demo.show_round, {"t": 1, "dataset": "toy"},
               {"t": [1, 4, 7, 10, 13, 16, 19, 22, 25, 30], "dataset": ["moons", "toy"]}),
        Widget("11", "rate η / decay c / r", linear_demo.show_race,
               {"eta": 0.05, "decay": 0.01, "adagrad_rate": 0.2},
               {"eta": _log_values(10**-2.3, 10**-0.7), "decay": _log_values(1e-4, 1.0),
                "adagrad_rate": _log_values(10**-1.5, 10**0.5)}),
        Widget("11", "penalty C (logistic)", linear_demo.show_logistic, {"C": 1.0},
               {"C": _log_values(1e-3, 100.0)}),
        Widget("12", "β / expert noise", online_demo.show_experts, {"beta": 0.5, "noise": 0.1},
               {"beta": _lin_values(0.0, 0.95), "noise": _lin_values(0.0, 0.5)}),
        Widget("13", "coin: prior a / b / seen", bayesnet_demo.show_coin,
               {"a": 2, "b": 2, "seen": 4, "tosses": bayesnet_demo.TOSSES},
               {"a": prior, "b": prior, "seen": list(range(len(bayesnet_demo.TOSSES) + 1))}),
        Widget("13", "alarm: evidence", bayesnet_demo.show_alarm,
               {"J": "1", "M": "1", "R": "?", "A": "?", "E": "?"},
               {v: ["0", "?", "1", "0", "?", "1"] for v in "JMRAE"}),
        Widget("14", "trainer η/width/seed/epoch", neural_demo.show_training,
               {"eta": 2.0, "width": 3, "seed": 0, "epoch": 0},
               {"epoch": list(range(0, neural_demo.WIDGET_EPOCHS + 1, 20)),
                "eta": _lin_values(0.1, 8.0), "width": list(range(1, 9)),
                "seed": list(range(10))}),
        Widget("14", "trainer, at epoch 200", neural_demo.show_training,
               {"eta": 2.0, "width": 3, "seed": 0, "epoch": neural_demo.WIDGET_EPOCHS},
               {"eta": _lin_values(0.15, 7.95), "width": [2, 4, 5, 6, 7, 8, 1, 3],
                "seed": list(range(1, 10))}),
        Widget("15", "partitions P", parallel_demo.show_partitions, {"parts": 4},
               {"parts": list(range(1, parallel_demo.MAX_PARTS + 1))}),
    ]


def one_move(frame: Callable, kwargs: dict) -> tuple[float, float]:
    """Milliseconds for the callback and the PNG Jupyter would display: (wall, CPU).

    The CPU time of this process is what the move costs on an idle machine; the wall time also
    counts the waits when other processes share the cores.
    """
    wall, cpu = time.perf_counter(), time.process_time()
    fig = frame(**kwargs)
    png(fig)
    return 1000 * (time.perf_counter() - wall), 1000 * (time.process_time() - cpu)


def floor() -> tuple[float, float]:
    """Median (wall, CPU) ms of an empty two-panel figure from mllib.plotting, built and drawn
    each time: what any frame that rebuilds its figure costs on this machine before it draws
    anything. It shows how loaded the machine is, and why widgets redraw in place."""
    from mllib.plotting import figure

    moves = [one_move(lambda: figure(2)[0], {}) for _ in range(10)]
    return statistics.median(m[0] for m in moves), statistics.median(m[1] for m in moves)


def in_place_floor() -> tuple[float, float]:
    """Median (wall, CPU) ms of one line of an existing two-panel figure moved in place and the
    PNG drawn again: the least a frame redrawn in place costs here."""
    from mllib.demos.live import animate
    from mllib.plotting import figure

    fig, (left, _) = figure(2)
    line, = left.plot([0, 1], [0, 1])
    animate(line)
    png(fig)
    moves = [one_move(lambda v=v: (line.set_ydata([v, 1 - v]), fig)[1], {})
             for v in np.linspace(0, 1, 10)]
    return statistics.median(m[0] for m in moves), statistics.median(m[1] for m in moves)


def main(lectures: list[str]) -> None:
    """Time the widgets of ``lectures`` (all when empty) and print the table."""
    worst_median, worst, worst_cpu = ("", 0.0), ("", 0.0), ("", 0.0)
    over = []
    empty_wall, empty_cpu = floor()
    still_wall, still_cpu = in_place_floor()
    print(f"floor: an empty two-panel figure costs {empty_wall:.1f} ms ({empty_cpu:.1f} ms CPU) "
          f"built and drawn, {still_wall:.1f} ms ({still_cpu:.1f} ms CPU) redrawn in place here")
    print(f"load average: {' '.join(f'{v:.2f}' for v in os.getloadavg())} on {os.cpu_count()}"
          " cores\n")
    print(f"{'lecture':7} {'widget':26} {'control':13} {'median ms':>9} {'worst ms':>9}"
          f" {'median CPU ms':>13} {'worst CPU ms':>12}")
    for widget in widgets():
        if lectures and widget.lecture not in lectures:
            continue
        one_move(widget.frame, widget.defaults)  # the frame shown when the cell ran
        for control, values in widget.moves.items():
            walls, cpus = zip(*(one_move(widget.frame, {**widget.defaults, control: value})
                                for value in values), strict=True)
            median, high = statistics.median(walls), max(walls)
            cpu_median, cpu_high = statistics.median(cpus), max(cpus)
            label = f"{widget.lecture} {widget.name} ({control})"
            flag = ("" if cpu_median <= TARGET_MS and cpu_high <= WORST_MS
                    else "  <- over target (CPU)")
            if flag:
                over.append(label)
            print(f"{widget.lecture:7} {widget.name:26} {control:13} {median:9.1f} {high:9.1f}"
                  f" {cpu_median:13.1f} {cpu_high:12.1f}{flag}")
            worst_median = max(worst_median, (label, cpu_median), key=lambda t: t[1])
            worst = max(worst, (label, high), key=lambda t: t[1])
            worst_cpu = max(worst_cpu, (label, cpu_high), key=lambda t: t[1])
            one_move(widget.frame, widget.defaults)  # back to the notebook's values
    print(f"\ncourse-wide worst median: {worst_median[1]:.1f} ms CPU ({worst_median[0]})")
    print(f"course-wide worst move:   {worst_cpu[1]:.1f} ms CPU ({worst_cpu[0]}); "
          f"{worst[1]:.1f} ms wall ({worst[0]})")
    print(f"target: every median <= {TARGET_MS:.0f} ms and every move <= {WORST_MS:.0f} ms CPU; "
          f"{len(over)} widget controls over it")


if __name__ == "__main__":
    main(sys.argv[1:])
