"""Widgets, figures and tables for the walk-through "Learning at scale" (lecture 15).

Sources: MMDS §12.2.8 (the MapReduce perceptron), §12.3.6 (parallel SVM); McDonald, Hall and
Mann 2010 (iterative parameter mixing). The cluster itself is started in the notebook: mllib
imports Dask only in ``mllib.parallel``'s executor.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullLocator

from mllib import parallel
from mllib import perceptron as P
from mllib.data import noisy, separable
from mllib.demos.live import animate, animate_legend
from mllib.plotting import MARKERS, PALETTE, counted, describe, figure, markdown_table

MAX_PARTS = 8

# --- The scheme -----------------------------------------------------------------------------


def _box(ax, x, y, text, colour, width=1.6, height=0.8):
    ax.add_patch(FancyBboxPatch((x - width / 2, y - height / 2), width, height,
                                boxstyle="round,pad=0.05", facecolor=colour, edgecolor="black",
                                linewidth=0.8))
    ax.text(x, y, text, ha="center", va="center", fontsize=8)


def _arrow(ax, start, end):
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="->", mutation_scale=10, linewidth=0.8))


def emitted_pairs(w: np.ndarray, chunk: tuple[np.ndarray, np.ndarray]) -> int:
    """The key-value pairs (i, η·y·xᵢ) a Map task emits (MMDS §12.2.8): one per nonzero
    component of each example of ``chunk`` = (X (n, d), y (n,)) that w (d,) gets wrong."""
    X, y = chunk
    wrong = y * (X @ w) <= 0
    return int(np.count_nonzero(X[wrong]))


def show_scheme(run: parallel.RoundsResult, chunks, round_number: int, words=None) -> Figure:
    """MMDS §12.2.8 drawn for one round of ``run`` (a :func:`parallel.mapreduce_perceptron`
    result on ``chunks``): each chunk's Map task with its mistakes and the key-value pairs
    (i, η·y·xᵢ) it emits, the Reduce that sums the pairs key by key, and the new w. (The
    broadcast of the new w back to the Map tasks of the next round is not drawn.)"""
    step = run.history[round_number - 1]
    before = run.history[round_number - 2].w if round_number > 1 else np.zeros_like(step.w)
    parts = len(step.mistakes)
    pairs = [emitted_pairs(before, chunk) for chunk in chunks]
    fig, (ax,) = figure(1, width=8.0, height=1.2 + 0.9 * parts)
    ys = np.arange(parts)[::-1] * 1.1
    middle = ys.mean()
    for p, (y, mistakes, emitted) in enumerate(zip(ys, step.mistakes, pairs, strict=True)):
        _box(ax, 0.0, y, f"chunk {p + 1}", "whitesmoke")
        _box(ax, 2.3, y, f"Map: {counted(mistakes, 'mistake')}\n"
             f"emits {counted(emitted, 'pair')}\n(i, η·y·xᵢ)",
             "lightskyblue" if mistakes else "honeydew", height=0.9)
        _arrow(ax, (0.85, y), (1.45, y))
        _arrow(ax, (3.15, y), (4.25, middle))
    _box(ax, 5.0, middle, f"Reduce: sum the\n{counted(sum(pairs), 'pair')}\nkey by key i",
         "navajowhite")
    names = words if words is not None else [f"w{j + 1}" for j in range(len(step.w))]
    shown = "\n".join(f"{name}: {value:g}" for name, value in zip(names, step.w, strict=True))
    _box(ax, 7.4, middle, "new w\n" + shown, "wheat", width=2.2,
         height=max(0.8, 0.2 * (len(names) + 1)))
    _arrow(ax, (5.85, middle), (6.25, middle))
    ax.set_xlim(-1.0, 8.7)
    ax.set_ylim(ys.min() - 0.7, ys.max() + 0.7)
    ax.axis("off")
    start = f"[{', '.join(f'{v:g}' for v in before)}]"
    ax.set_title(f"MapReduce round {round_number}: every Map task judges with the same w = "
                 f"{start}", fontsize=9)
    return describe(fig, (
        f"MapReduce round {round_number} on {parts} chunks, every Map task judging with w = "
        f"{start}: the chunks' Map tasks make {_listed(step.mistakes, 'mistake')} and emit "
        f"{_listed(pairs, 'key-value pair')}; the Reduce sums the "
        f"{counted(sum(pairs), 'pair')} key by key "
        f"into the new w = [{', '.join(f'{v:g}' for v in step.w)}]."))


def _listed(counts, noun: str) -> str:
    """Counts as prose, with their noun in the right number: "1 mistake", "3 mistakes",
    "2 and 0 mistakes", "2, 2 and 1 mistakes"."""
    if len(counts) == 1:
        return counted(int(counts[0]), noun)
    words = [str(int(c)) for c in counts]
    return f"{', '.join(words[:-1])} and {words[-1]} {noun}s"


# --- Rounds against partitions --------------------------------------------------------------


def shifted_sample(n: int = 400, d: int = 5, seed: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """A separable sample whose separator does not pass through the origin: ``separable``
    shifted by ½ in every coordinate, with MMDS §12.2.4's constant feature -1 appended so that
    a separator through the origin of the augmented space exists. Shape (n, d + 1)."""
    X, y, _ = separable(n, d, margin=0.02, seed=seed)
    return P.add_threshold_feature(X + 0.5), y


@dataclass(frozen=True)
class Comparison:
    """The three perceptrons on one sample with P chunks.

    Attributes
    ----------
    parts : int
    sequential : PerceptronResult
        ``mllib.perceptron.perceptron`` on the whole sample (no chunks).
    mapreduce, mixing : RoundsResult
    """

    parts: int
    sequential: P.PerceptronResult
    mapreduce: parallel.RoundsResult
    mixing: parallel.RoundsResult


@lru_cache(maxsize=MAX_PARTS)
def compare(parts: int) -> Comparison:
    """Run the sequential perceptron, the MapReduce perceptron and parameter mixing on
    :func:`shifted_sample` cut into ``parts`` chunks (cached: a slider move only draws)."""
    X, y = shifted_sample()
    chunks = parallel.split(X, y, parts)
    return Comparison(parts, P.perceptron(X, y, max_epochs=2000),
                      parallel.mapreduce_perceptron(chunks, max_rounds=2000),
                      parallel.parameter_mixing(chunks, max_rounds=2000))


def _epoch_mistakes(run: P.PerceptronResult) -> np.ndarray:
    """The sequential perceptron's mistakes in each epoch (1..epochs), from its history."""
    return np.bincount([u.epoch for u in run.history], minlength=run.epochs + 1)[1:]


# Chunk p's line: a colour of PALETTE (black is the sequential line's) and a marker, so that no
# two of the MAX_PARTS lines look alike, in colour or in shape (WCAG 1.4.1).
CHUNK_COLOURS = tuple(colour for colour in PALETTE if colour != "#000000")
LEGEND_COLUMNS = 5


def chunk_style(p: int) -> dict:
    """The line style of chunk p (0-based): its colour and marker."""
    return {"color": CHUNK_COLOURS[p % len(CHUNK_COLOURS)], "marker": MARKERS[p % len(MARKERS)],
            "markersize": 3}


@dataclass(frozen=True)
class _PartitionsView:
    """The partitions slider's figure and the artists each frame updates in place: per panel
    the sum line and MAX_PARTS chunk lines (those beyond P hidden), and one legend per P."""

    fig: Figure
    axes: tuple[Axes, Axes]
    sums: tuple[Line2D, Line2D]
    chunks: tuple[tuple[Line2D, ...], tuple[Line2D, ...]]
    legends: tuple[Legend, ...]


@lru_cache(maxsize=1)
def _partitions_view() -> _PartitionsView:
    """Build the partitions figure once, with limits that hold every P's runs, so that moving
    the slider only redraws the lines, the titles and the legend."""
    results = [compare(parts) for parts in range(1, MAX_PARTS + 1)]
    epochs = _epoch_mistakes(results[0].sequential)  # the same sample, whatever P
    runs = [run for result in results for run in (result.mapreduce, result.mixing)]
    top = max(r.total for run in runs for r in run.history)
    last = max(max(run.rounds for run in runs), len(epochs))
    rows = -(-(MAX_PARTS + 2) // LEGEND_COLUMNS)  # legend rows below the panels
    strip = 0.2 + 0.2 * rows  # inches added at the bottom for them
    fig, axes = figure(2, width=4.6, height=3.8 + strip)
    fig.subplots_adjust(bottom=(0.6 + strip) / (3.8 + strip))
    sums, chunks = [], []
    for ax in axes:
        ax.plot(np.arange(1, len(epochs) + 1), epochs, "k-", linewidth=1.2,
                label=f"sequential: {counted(results[0].sequential.epochs, 'epoch')}")
        sums.append(ax.plot([], [], "k:", linewidth=2, drawstyle="steps-mid",
                            label="all chunks (sum)")[0])
        chunks.append(tuple(ax.plot([], [], linewidth=1, drawstyle="steps-mid",
                                    label=f"chunk {p + 1}", **chunk_style(p))[0]
                            for p in range(MAX_PARTS)))
        ax.set_yscale("symlog", linthresh=1)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
        ax.yaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set(xlabel="round (epoch for the sequential line)", ylabel="mistakes (symlog)",
               xlim=(0.5, last + 0.5), ylim=(0, 2 * top))
        animate(*ax.lines[1:], ax.title)
    handles = axes[0].lines
    legends = tuple(
        animate_legend(axes[0].add_artist(Legend(
            axes[0], handles[:parts + 2], [h.get_label() for h in handles[:parts + 2]],
            fontsize=7, ncol=LEGEND_COLUMNS, loc="lower center", bbox_to_anchor=(0.5, 0.01),
            bbox_transform=fig.transFigure)))  # below both panels, off the data
        for parts in range(1, MAX_PARTS + 1))
    return _PartitionsView(fig, tuple(axes), tuple(sums), tuple(chunks), legends)


def show_partitions(parts: int) -> Figure:
    """Mistakes per round of the MapReduce perceptron and of parameter mixing with ``parts``
    chunks: one step line per chunk (not stacked, so each line's height is that chunk's count)
    and a dotted line for their sum, against the sequential perceptron's mistakes per epoch.

    Both panels share a symmetric-log y axis (linear below 1, so a round without mistakes sits
    at 0), so the long tail of few mistakes stays visible next to the first rounds' hundreds;
    rounds are whole numbers; a legend below both panels keys the chunks' lines. The figure is
    built once, with the same limits for every P, and redrawn in place: each call returns the
    same Figure."""
    if not 1 <= parts <= MAX_PARTS:
        raise ValueError(f"parts must be between 1 and {MAX_PARTS}; got {parts}.")
    result = compare(parts)
    view = _partitions_view()
    runs = (result.mapreduce, result.mixing)
    names = ("MapReduce (MMDS §12.2.8)", "parameter mixing")
    for ax, run, name, total, lines in zip(view.axes, runs, names, view.sums, view.chunks,
                                           strict=True):
        counts = np.array([r.mistakes for r in run.history], dtype=float)  # (rounds, parts)
        rounds = np.arange(1, len(counts) + 1)
        total.set_data(rounds, counts.sum(axis=1))
        for p, line in enumerate(lines):
            line.set_visible(p < parts)
            line.set_data(*((rounds, counts[:, p]) if p < parts else ([], [])))
        # title.set_text, since set_title would stale the figure
        ax.title.set_text(f"{name}: {counted(run.rounds, 'round')}")
    for number, legend in enumerate(view.legends, start=1):
        legend.set_visible(number == parts)
    return describe(view.fig, partitions_alt(result))


def partitions_alt(result: Comparison) -> str:
    """What the partitions figure shows for ``result``, in words (its alt text)."""
    mapreduce, mixing = result.mapreduce, result.mixing
    return (f"Mistakes per round with P = {counted(result.parts, 'chunk')}, on a symmetric-log "
            f"scale: the MapReduce perceptron takes {counted(mapreduce.rounds, 'round')}, "
            f"starting from {counted(mapreduce.history[0].total, 'mistake')}; parameter mixing "
            f"takes {counted(mixing.rounds, 'round')}, starting from {mixing.history[0].total}; "
            f"the sequential perceptron needs {counted(result.sequential.epochs, 'epoch')}.")


def comparison_table(parts_list=range(1, MAX_PARTS + 1)) -> str:
    """Rounds (epochs) and total mistakes of the three perceptrons, per number of chunks."""
    rows = []
    for parts in parts_list:
        result = compare(parts)
        rows.append([parts, f"{result.sequential.epochs} / {result.sequential.mistakes}",
                     f"{result.mapreduce.rounds} / {result.mapreduce.rounds - 1}",
                     f"{result.mixing.rounds} / {sum(r.total for r in result.mixing.history)}"])
    return markdown_table(["chunks P", "sequential: epochs / updates",
                           "MapReduce: rounds / updates", "mixing: rounds / chunk mistakes"],
                          rows)


# --- Wall time against workers --------------------------------------------------------------


def wall_time(work: Callable[[], object], repeats: int = 1) -> float:
    """The best of ``repeats`` wall-clock timings of ``work()``, in seconds."""
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return float(best)


def show_wall_times(times: dict[str, float], cores: int) -> Figure:
    """Bars of measured wall time per setting (e.g. "in process", "1 worker", "2 workers"),
    with the ideal time (in-process time / workers) marked for the worker settings."""
    fig, (ax,) = figure(1, width=6.0, height=3.6)
    names = list(times)
    ax.bar(names, [times[n] for n in names], color=["grey"] + [PALETTE[0]] * (len(names) - 1))
    base = times[names[0]]
    for i, name in enumerate(names[1:], start=1):
        workers = int(name.split()[0])
        ax.plot([i - 0.4, i + 0.4], [base / workers] * 2, "k--", linewidth=1,
                label="in-process time / workers" if i == 1 else None)
    ax.set(ylabel="wall time (s)", ylim=(0, 1.4 * max(times.values())),
           title=f"the same rounds on a LocalCluster ({cores} cores on this machine)")
    ax.legend(fontsize=8, loc="upper right")  # in the headroom above the bars
    measured = "; ".join(f"{name} {times[name]:.2f} s" for name in names)
    ideal = "; ".join(f"{name} {base / int(name.split()[0]):.2f} s" for name in names[1:])
    return describe(fig, f"Wall time of the same rounds on a machine with {cores} cores: "
                         f"{measured}. The ideal (in-process time / workers): {ideal}.")


def cluster_verdict(times: dict[str, float], tasks: int) -> str:
    """What the timings of the Dask cell say, computed from them, so the prose cannot drift.

    ``times`` maps "in process", "1 worker" and "2 workers" to seconds for the same rounds, and
    ``tasks`` is how many Map tasks those rounds ran (rounds × chunks). Reports the compute per
    task (in-process time / tasks), what the 1-worker cluster added per task (its time minus the
    in-process time: the scheduling, pickling and messages, since the compute is the same; when
    that comes out negative, only that it hid in the noise), and whether 2 workers beat this
    process.
    """
    here, one, two = times["in process"], times["1 worker"], times["2 workers"]
    if here <= 0 or tasks < 1:
        raise ValueError("cluster_verdict needs a positive in-process time and at least one task.")
    speedup = here / two
    outcome = ("the cluster paid, though less than the ideal 2×" if speedup > 1 else
               "the cluster cost more than it saved")
    added = 1e3 * (one - here) / tasks
    overhead = (f"the 1-worker cluster added {added:.0f} ms per task" if added > 0 else
                "the 1-worker cluster ran no slower than this process (its cost hid in the "
                "timing noise)")
    return (f"compute per Map task {1e3 * here / tasks:.0f} ms; {overhead}; 2 workers ran "
            f"{speedup:.2f}× as fast as this process: {outcome}.")


def dashboard_note(link: str) -> str:
    """Where the Dask dashboard of a running cluster is (bokeh, a course dependency, serves it)."""
    return (f"Dask dashboard while the cluster runs (task stream, progress, workers' memory): "
            f"{link}")


# --- Streaming and the parallel SVM ---------------------------------------------------------


def megabytes(rows: int, d: int) -> float:
    """The size of ``rows`` examples of d float64 features and a float64 label, in MB (10⁶ B)."""
    return rows * (d + 1) * 8 / 1e6


def mixing_sample(n: int = 4000, d: int = 5, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The SVM-averaging sample: ``noisy`` data (5% of labels flipped), shape (n, d), (n,)."""
    X, y, _ = noisy(n, d, flip=0.05, seed=seed)
    return X, y


@lru_cache(maxsize=8)
def svm_mixing_objectives(parts: int, *, lam: float = 1e-3, rounds: int = 10) -> np.ndarray:
    """Pegasos's objective on :func:`mixing_sample` after each round of
    ``parallel.svm_mixing`` with ``parts`` chunks, shape (rounds,)."""
    X, y = mixing_sample()
    run = parallel.svm_mixing(parallel.split(X, y, parts), lam=lam, rounds=rounds)
    return np.array([parallel.svm_objective(s.w, s.b, X, y, lam=lam) for s in run.history])


def pegasos_bias_path(steps, *, lam: float = 1e-3) -> np.ndarray:
    """b after each of ``steps`` (counts of examples, increasing) of Pegasos's first pass over
    :func:`mixing_sample` in one chunk (``parallel.svm_mixing`` with P = 1, b not shrunk),
    shape (len(steps),). The first step alone sets b = ±1/λ."""
    X, y = mixing_sample()
    return np.array([parallel.svm_mixing([(X[:k], y[:k])], lam=lam, rounds=1).b
                     for k in steps])


def svm_mixing_table(parts_list=(1, 2, 4, 8), shown=(1, 2, 5, 10)) -> str:
    """The objective after selected rounds of SVM averaging, one row per number of chunks."""
    rows = [[parts, *(f"{svm_mixing_objectives(parts)[r - 1]:.4f}" for r in shown)]
            for parts in parts_list]
    return markdown_table(["chunks P", *(f"after round {r}" for r in shown)], rows)


# --- Seed topics: sparse dot products, and different chunks in later rounds (MMDS §12.2.8) ----


@dataclass(frozen=True)
class SparseDot:
    """w·x split by components over ``parts`` machines, x sparse (MMDS §12.2.8).

    Attributes
    ----------
    partial : ndarray of shape (parts,)
        Each machine's share Σ w_i x_i over its range of components.
    work : ndarray of int, shape (parts,)
        Multiply-adds per machine: the nonzeros of x in its range.
    dense_work : int
        Multiply-adds of the dense product: d.
    """

    partial: np.ndarray
    work: np.ndarray
    dense_work: int


def sparse_dot_parts(w: np.ndarray, indices: np.ndarray, values: np.ndarray,
                     parts: int) -> SparseDot:
    """w (d,) dotted with the sparse x given by its nonzero ``indices`` and ``values``, the d
    components cut into ``parts`` contiguous ranges, one per machine."""
    edges = np.linspace(0, len(w), parts + 1).astype(int)
    machine = np.searchsorted(edges, indices, side="right") - 1
    partial = np.array([w[indices[machine == p]] @ values[machine == p] for p in range(parts)])
    return SparseDot(partial, np.bincount(machine, minlength=parts), len(w))


@dataclass(frozen=True)
class Rotating:
    """The MapReduce perceptron with one chunk per job, a different one each round.

    Attributes
    ----------
    rounds : int
        Jobs run, the last P of them without a mistake (or ``max_rounds``).
    examples : int
        Examples those jobs read in all, the final mistake-free pass included.
    converged : bool
    """

    rounds: int
    examples: int
    converged: bool


@lru_cache(maxsize=MAX_PARTS)
def rotating_chunks(parts: int, max_rounds: int = 2000) -> Rotating:
    """MMDS §12.2.8's "perhaps with different chunks": round r runs the MapReduce round
    (``parallel.mapreduce_round``) on chunk r mod P only, of :func:`shifted_sample` cut into
    ``parts`` chunks. It stops after P consecutive jobs without a mistake: w then went
    unchanged through a whole pass, so it separates every chunk. Counted like the full-data
    MapReduce perceptron, whose last round is also a pass without a mistake."""
    X, y = shifted_sample()
    chunks = parallel.split(X, y, parts)
    w, examples, clean = np.zeros(X.shape[1]), 0, 0
    for number in range(1, max_rounds + 1):
        chunk = chunks[(number - 1) % parts]
        w, (mistakes,) = parallel.mapreduce_round(w, [chunk], 1.0)
        examples += len(chunk[1])
        clean = clean + 1 if mistakes == 0 else 0
        if clean == parts:
            return Rotating(number, examples, True)
    return Rotating(max_rounds, examples, False)
