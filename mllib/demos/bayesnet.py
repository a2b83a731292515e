"""Widgets, tables and figures for lecture 13: Bayesian learning and Bayesian networks.

Sources: CS446 slides (seed 001), "Basics of Bayesian Learning" to "Naive Bayes (3)" and
"Bayesian Network: Example"; Mitchell (1997) §6.2 and §6.7; R&N §14.4.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import PathCollection
from matplotlib.container import BarContainer
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.text import Annotation, Text

from mllib import bayes
from mllib.bayesnet import BayesNet, alarm_network, bayes_net
from mllib.demos import explore
from mllib.demos.live import animate, animate_legend, set_view
from mllib.plotting import PALETTE, counted, describe, figure, markdown_table
from mllib.validation import positive_int

TOSSES = "HHTHTHHHTHHT"  # starts with the slides' HHTH
HEADROOM = 1.6  # the density axis reaches 1.6 times the highest density: room for the legend
# Where each alarm variable sits in the drawing, and what it stands for.
ALARM_LAYOUT = {"E": (0.0, 2.0), "B": (2.0, 2.0), "R": (-1.0, 1.0), "A": (1.0, 1.0),
                "M": (0.3, 0.0), "J": (1.7, 0.0)}
ALARM_NAMES = {"E": "earthquake", "B": "burglary", "R": "radio report", "A": "alarm",
               "M": "Mary calls", "J": "John calls"}


def beta_density(p: np.ndarray, a: float, b: float) -> np.ndarray:
    """The Beta(a, b) density p^(a-1) (1-p)^(b-1) / B(a, b), for 0 <= p <= 1 when a, b >= 1
    (the widget's range: a power 0 counts as 1 at p = 0 or 1, so the ends are drawn too, and
    Beta(30, 1) reaches its peak 30 at p = 1)."""
    log_norm = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    with np.errstate(divide="ignore"):
        log_p = np.zeros_like(p) if a == 1 else (a - 1) * np.log(p)
        log_q = np.zeros_like(p) if b == 1 else (b - 1) * np.log1p(-p)
    return np.exp(log_norm + log_p + log_q)


def coin_table(post: bayes.CoinPosterior) -> str:
    """The estimates after each toss as a Markdown table."""
    rows = [[s.tosses, s.heads, f"Beta({s.a:g}, {s.b:g})", _estimate(s.ml), _estimate(s.map),
             f"{s.mean:.3f}"] for s in post.history]
    return markdown_table(["tosses m", "heads k", "posterior", "p_ML = k/m", "p_MAP",
                           "posterior mean"], rows)


def _estimate(value: float) -> str:
    return "undefined" if np.isnan(value) else f"{value:.3f}"


# The density axis's top, as a multiple of a power of 10: the highest density times HEADROOM,
# rounded up to the next of these, so that most slider moves keep the same axis.
DENSITY_STEPS = (1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)
COIN_GRID = np.linspace(0.0, 1.0, 401)  # the densities' p, ends included


def density_top(peak: float) -> float:
    """The density axis's upper limit for curves that reach ``peak``: at least HEADROOM times
    the peak (room for the legend), rounded up to a step of :data:`DENSITY_STEPS`."""
    wanted = HEADROOM * peak
    scale = 10.0 ** math.floor(math.log10(wanted))
    return scale * next(step for step in DENSITY_STEPS if step * scale >= wanted * (1 - 1e-12))


@dataclass(frozen=True)
class _CoinView:
    """The coin widget's figure and the artists each frame updates in place."""

    fig: Figure
    left: Axes
    prior: Line2D
    posterior: Line2D
    map_line: Line2D
    ml_line: Line2D
    legend: Legend
    mean: Line2D
    map_path: Line2D
    ml_path: Line2D
    seen: Line2D


@lru_cache(maxsize=4)
def _coin_view(tosses: str) -> _CoinView:
    """Build the coin widget's figure once per toss sequence: axes, labels and the right panel's
    legend stay; the curves, estimate lines, the left legend's texts and the title move."""
    fig, (left, right) = figure(2, width=4.8, height=3.6)
    prior, = left.plot(COIN_GRID, COIN_GRID, "--", color="grey", zorder=2.5)  # over the posterior
    posterior, = left.plot(COIN_GRID, COIN_GRID, color=PALETTE[0], linewidth=2.5)
    map_line = left.axvline(0.5, color=PALETTE[1], linewidth=4, alpha=0.5)
    ml_line = left.axvline(0.5, color="black", linestyle=":", linewidth=1.5, zorder=3)
    left.set_xlabel("head probability p")
    left.set_ylabel("density")
    legend = left.legend([prior, posterior, map_line, ml_line], ["prior", "posterior", "MAP",
                                                                 "ML"],
                         fontsize=7, loc="upper left")
    m = np.arange(len(tosses) + 1)
    mean, = right.plot(m, m, "-", color=PALETTE[0], linewidth=5, alpha=0.35,
                       label="posterior mean")
    map_path, = right.plot(m, m, "--", color=PALETTE[1], marker="o", mfc="none", ms=6,
                           label="MAP")
    ml_path, = right.plot(m[1:], m[1:], ":", color="black", marker="x", ms=4, label="ML k/m")
    seen = right.axvline(0, color="grey", linewidth=0.8)
    right.set_xlim(-0.05 * len(tosses), 1.05 * len(tosses))  # matplotlib's 5% margins
    right.set_ylim(0, 1.3)
    right.set_yticks(np.linspace(0, 1, 5))
    right.set_xlabel("tosses m")
    right.set_ylabel("estimate of p")
    right.set_title("estimates toss by toss")
    # Animated artists are drawn over the static ones of their axes: both legends are animated,
    # so that the tosses-seen line passes under the right one, as in a full draw.
    paths_legend = right.legend(fontsize=7, loc="upper center", ncol=3)
    animate(prior, posterior, map_line, ml_line, left.title, mean, map_path, ml_path, seen)
    animate_legend(legend)
    animate_legend(paths_legend)
    return _CoinView(fig, left, prior, posterior, map_line, ml_line, legend, mean, map_path,
                     ml_path, seen)



def show_coin(a: float, b: float, seen: int, tosses: str = TOSSES) -> Figure:
    """Left: the Beta(a, b) prior and the posterior after the first ``seen`` tosses, with the
    ML and MAP estimates. Right: ML, MAP and the posterior mean after each toss.

    With the flat prior (a = b = 1) and no tosses every p is a mode: the frame draws the prior
    and says that the MAP is undefined (and so is ML before any toss) instead of drawing them.
    Estimates that coincide stay visible: the one drawn first is a wide pale band, the ones
    drawn over it thinner, dashed or dotted, with their own markers; both legends sit in
    headroom above the curves. The figure is built once per toss sequence and redrawn in place:
    each call returns the same Figure.
    """
    post = bayes.coin_posterior(tosses[:seen], a, b)
    full = bayes.coin_posterior(tosses, a, b)
    view = _coin_view(tosses)
    densities = beta_density(COIN_GRID, a, b), beta_density(COIN_GRID, post.a, post.b)
    view.prior.set_ydata(densities[0])
    view.posterior.set_ydata(densities[1])
    set_view(view.left, (0.0, 1.0), (0.0, density_top(max(d.max() for d in densities))))
    has_map, has_ml = not np.isnan(post.map), seen > 0
    for line, shown, value in ((view.map_line, has_map, post.map), (view.ml_line, has_ml, post.ml)):
        line.set_visible(shown)
        line.set_xdata([value, value] if shown else [0.5, 0.5])
    labels = (f"prior Beta({a:g}, {b:g})", f"posterior Beta({post.a:g}, {post.b:g})",
              f"MAP {post.map:.3f}" if has_map else "MAP undefined: every p is a mode",
              f"ML {post.ml:.3f}" if has_ml else "ML undefined: no tosses")
    for text, handle, label, shown in zip(view.legend.get_texts(), view.legend.legend_handles,
                                          labels, (True, True, has_map, has_ml), strict=True):
        text.set_text(label)
        handle.set_visible(shown)
    so_far = tosses[:seen] or "(none)"
    view.left.title.set_text(f"after {counted(seen, 'toss', 'tosses')}: {so_far}")
    steps = full.history
    view.mean.set_ydata([s.mean for s in steps])
    view.map_path.set_ydata([s.map for s in steps])
    view.ml_path.set_ydata([s.ml for s in steps[1:]])
    view.seen.set_xdata([seen, seen])
    return describe(view.fig, coin_alt(post, full, a, b))


def coin_alt(post: bayes.CoinPosterior, full: bayes.CoinPosterior, a: float, b: float) -> str:
    """The coin figure in words (its alt text): the posterior after the tosses seen and its
    estimates, then where the three estimates end after every toss."""
    seen, end = post.history[-1], full.history[-1]
    shown = (f"MAP {post.map:.3f}" if not np.isnan(post.map)
             else "MAP undefined (every p is a mode)")
    shown += f", ML {post.ml:.3f}" if seen.tosses else ", ML undefined (no tosses)"
    return (f"Left: the Beta({a:g}, {b:g}) prior and, after "
            f"{counted(seen.tosses, 'toss', 'tosses')} with {counted(seen.heads, 'head')}, the "
            f"Beta({post.a:g}, {post.b:g}) posterior; {shown}. Right: over all "
            f"{counted(end.tosses, 'toss', 'tosses')} ({counted(end.heads, 'head')}) the "
            f"estimates end at ML "
            f"{end.ml:.3f}, MAP {end.map:.3f} and posterior mean {end.mean:.3f}.")


def coin_explorer(tosses: str = TOSSES):
    """Sliders for the prior's a and b and for how many tosses have been seen."""
    import ipywidgets

    def slider(value, label, top):
        return ipywidgets.IntSlider(value=value, min=1, max=top, description=label,
                                    continuous_update=False)

    return explore(show_coin, a=slider(2, "prior a", 30), b=slider(2, "prior b", 30),
                   seen=ipywidgets.IntSlider(value=4, min=0, max=len(tosses),
                                             description="tosses seen", continuous_update=False),
                   tosses=ipywidgets.fixed(tosses))


def bayes_optimal_table(posterior, predictions, names: list[str]) -> str:
    """Each hypothesis's posterior and prediction, then P(v | x, D) for every label v."""
    result = bayes.bayes_optimal(posterior, predictions)
    rows = [[name, f"{p:.2f}", pred[0]] for name, p, pred in
            zip(names, posterior, np.asarray(predictions), strict=True)]
    rows += [[f"**P({v} given x, D)**", f"{vote:.2f}", "Bayes-optimal" if v == result.labels[0]
              else ""] for v, vote in zip(result.values, result.votes[0], strict=True)]
    return markdown_table(["hypothesis", "P(h given D)", "h(x)"], rows)


@dataclass(frozen=True)
class Corpus:
    """Word counts ``X`` (documents, vocabulary) with labels ``y`` (documents,) in {0, 1}, and
    the word distribution ``words`` (2, vocabulary) of each class that drew them."""

    X: np.ndarray
    y: np.ndarray
    words: np.ndarray


def synthetic_corpus(documents: int, *, vocabulary: int = 50, length: int = 20,
                     seed: int = 0) -> Corpus:
    """Documents drawn from the multinomial model itself, in two classes.

    A common word distribution is drawn from a Dirichlet(1); each class (label 0 or 1, equally
    likely) perturbs it (a Dirichlet with mean the common distribution and concentration 100),
    so the classes share most of their vocabulary. A document's length is Poisson(``length``)
    + 1 and its words are drawn independently from its class's distribution: exactly the
    assumption of multinomial naive Bayes.
    """
    rng = np.random.default_rng(seed)
    words = rng.dirichlet(100 * rng.dirichlet(np.ones(vocabulary)), size=2)
    y = rng.integers(0, 2, documents)
    lengths = rng.poisson(length, documents) + 1
    X = np.array([rng.multinomial(n, words[label]) for n, label in zip(lengths, y, strict=True)])
    return Corpus(X, y, words)


def bayes_optimal_label(corpus: Corpus, X: np.ndarray) -> np.ndarray:
    """f_B(x) = argmax_y D(x, y) with the true distribution D that drew ``corpus`` (CS446,
    "Justification: Bayesian Approach"): equal class priors, the same length distribution for
    both classes, so argmax_y Σ_j x_j log P(word j | y). Shape (N, vocabulary) -> (N,)."""
    return np.argmax(X @ np.log(corpus.words).T, axis=1)


HELD_OUT = 2000  # test documents at the end of the synthetic corpus


@dataclass(frozen=True)
class _Scored:
    """Per training size, which of the ``HELD_OUT`` test documents each learner gets right
    (bool arrays of shape (HELD_OUT,)), and f_B's accuracy on them."""

    sizes: tuple[int, ...]
    bernoulli: tuple[np.ndarray, ...]
    multinomial: tuple[np.ndarray, ...]
    best: float


def _scored(train_sizes, seed: int) -> _Scored:
    """Both learners trained on the first n documents of one synthetic corpus, for every n in
    ``train_sizes``, and scored on the corpus's last ``HELD_OUT`` documents."""
    corpus = synthetic_corpus(max(train_sizes) + HELD_OUT, seed=seed)
    X, y = corpus.X, corpus.y
    X_test, y_test = X[-HELD_OUT:], y[-HELD_OUT:]
    bernoulli, multinomial = [], []
    for n in train_sizes:
        present = bayes.naive_bayes((X[:n] > 0).astype(float), y[:n])
        bernoulli.append(bayes.naive_bayes_predict(present, (X_test > 0).astype(float)) == y_test)
        counts = bayes.multinomial_naive_bayes(X[:n], y[:n])
        multinomial.append(bayes.naive_bayes_predict(counts, X_test) == y_test)
    best = float(np.mean(bayes_optimal_label(corpus, X_test) == y_test))
    return _Scored(tuple(train_sizes), tuple(bernoulli), tuple(multinomial), best)


def naive_bayes_accuracy(train_sizes: list[int], *, seed: int = 0,
                         ) -> list[tuple[int, float, float, float]]:
    """(training size, Bernoulli, multinomial and Bayes-optimal accuracy) on 2000 held-out
    documents of :func:`synthetic_corpus`. The Bayes-optimal f_B uses the true distributions,
    so it does not depend on the training size: the ceiling both learners approach."""
    scored = _scored(train_sizes, seed)
    return [(n, float(np.mean(b)), float(np.mean(m)), scored.best)
            for n, b, m in zip(scored.sizes, scored.bernoulli, scored.multinomial, strict=True)]


@dataclass(frozen=True)
class PairedDifference:
    """The multinomial learner's accuracy at training size ``larger`` minus that at ``smaller``
    (``difference``), both on the same test documents: ``discordant`` of them are right under
    exactly one of the two, and ``standard_error`` is the difference's, √((q − Δ²)/N) with q
    the discordant fraction, Δ the difference and N the test documents (the pairing McNemar's
    test uses; much smaller than an unpaired √(2p(1−p)/N) when the two mostly agree)."""

    smaller: int
    larger: int
    difference: float
    discordant: int
    standard_error: float


def neighbouring_differences(train_sizes: list[int], *, seed: int = 0,
                             ) -> list[PairedDifference]:
    """The paired differences between neighbouring rows of the multinomial column of
    :func:`naive_bayes_accuracy` (the same corpus and test documents)."""
    scored = _scored(train_sizes, seed)
    out = []
    for i in range(len(train_sizes) - 1):
        before, after = scored.multinomial[i], scored.multinomial[i + 1]
        difference = float(np.mean(after) - np.mean(before))
        discordant = int(np.sum(before != after))
        spread = max(discordant / HELD_OUT - difference ** 2, 0.0)  # ≥ 0 up to rounding
        out.append(PairedDifference(train_sizes[i], train_sizes[i + 1], difference,
                                    discordant, math.sqrt(spread / HELD_OUT)))
    return out


def multinomial_ahead(train_sizes: list[int], seeds) -> np.ndarray:
    """For each training size, in how many of ``seeds`` (each a new corpus, training set and
    test set of :func:`naive_bayes_accuracy`) the multinomial learner is strictly more accurate
    than the Bernoulli one; shape (len(train_sizes),)."""
    return np.sum([[m > b for _, b, m, _ in naive_bayes_accuracy(train_sizes, seed=seed)]
                   for seed in seeds], axis=0)


OBSERVED_FILL = "#D9D9D9"  # light, under black text; the node's label also says "J=1"


@dataclass(frozen=True)
class _NetworkDrawing:
    """A drawn DAG: the node markers (one scatter, a point per variable in ``names`` order)
    and each node's label."""

    names: tuple[str, ...]
    nodes: PathCollection
    labels: tuple[Text, ...]


def draw_network(ax: Axes, net: BayesNet, layout: dict, *, highlight: str | None = None,
                 ) -> _NetworkDrawing:
    """The DAG: a circle per variable, ``highlight`` ringed thick in orange (vermillion), an
    arrow per parent link. :func:`show_evidence` fills and labels the nodes for some evidence."""
    for v in net.names:
        for p in net.parents[v]:
            ax.annotate("", xy=layout[v], xytext=layout[p],
                        arrowprops={"arrowstyle": "-|>", "color": "black", "shrinkA": 16,
                                    "shrinkB": 16})
    names = tuple(net.names)
    nodes = ax.scatter(*np.transpose([layout[v] for v in names]), s=900, c="white",
                       edgecolors=[PALETTE[1] if v == highlight else "black" for v in names],
                       linewidths=[2.5 if v == highlight else 1.0 for v in names], zorder=3)
    labels = tuple(ax.text(*layout[v], v, ha="center", va="center", zorder=4, fontsize=9)
                   for v in names)
    xs, ys = zip(*layout.values(), strict=True)
    ax.set_xlim(min(xs) - 0.6, max(xs) + 0.6)
    ax.set_ylim(min(ys) - 0.5, max(ys) + 0.5)
    ax.set_axis_off()
    return _NetworkDrawing(names, nodes, labels)


def show_evidence(drawing: _NetworkDrawing, evidence: dict) -> None:
    """Fill the observed nodes of ``drawing`` light grey and label them "v=value"."""
    drawing.nodes.set_facecolors([OBSERVED_FILL if v in evidence else "white"
                                  for v in drawing.names])
    for v, label in zip(drawing.names, drawing.labels, strict=True):
        label.set_text(f"{v}={evidence[v]}" if v in evidence else v)


@dataclass(frozen=True)
class _AlarmView:
    """The alarm widget's figure and the artists each frame updates in place: the nodes, and
    one row per variable on the right (a bar, its value and its name), of which the first rows
    show the unobserved variables."""

    fig: Figure
    network: _NetworkDrawing
    bars: BarContainer
    values: tuple[Annotation, ...]
    names: tuple[Text, ...]


@lru_cache(maxsize=1)
def _alarm_view() -> _AlarmView:
    """Build the alarm widget's figure once: the DAG's arrows, the bar chart's axes."""
    net = _alarm()
    fig, (left, right) = figure(2, width=4.6, height=3.4)
    network = draw_network(left, net, ALARM_LAYOUT, highlight="B")
    left.set_title(f"{net.parameter_count()} parameters (a full joint needs "
                   f"{net.full_joint_parameter_count()})", fontsize=9)
    rows = np.arange(len(net.names))
    bars = right.barh(rows, np.zeros(len(rows)), color=PALETTE[0])
    values = tuple(right.annotate("", (0, row), xytext=(3, 0), textcoords="offset points",
                                  va="center", fontsize=8) for row in rows)
    # the variables' names where the tick labels go, as texts that change with the rows
    names = tuple(right.text(-0.02, row, "", ha="right", va="center", fontsize=10,
                             transform=right.get_yaxis_transform()) for row in rows)
    right.set_yticks([])
    right.set_xlim(0, 1.2)
    right.set_ylim(len(rows) - 0.5, -0.5)  # the first row at the top
    right.set_xlabel("probability")
    right.set_title("P(variable = 1 | evidence)", fontsize=9)
    animate(network.nodes, *network.labels, *bars, *values, *names)
    return _AlarmView(fig, network, bars, values, names)


def show_alarm(J: str = "1", M: str = "1", R: str = "?", A: str = "?", E: str = "?") -> Figure:
    """The alarm network with the chosen evidence, and P(v = 1 | evidence) for each unobserved
    variable by variable elimination. "?" leaves a variable unobserved. The figure is built
    once and redrawn in place: each call returns the same Figure."""
    net = _alarm()
    evidence = {v: int(value) for v, value in dict(J=J, M=M, R=R, A=A, E=E).items()
                if value != "?"}
    hidden = [v for v in net.names if v not in evidence]
    probs = [net.query(v, evidence)[1] for v in hidden]  # every CPT entry > 0: never P = 0
    view = _alarm_view()
    show_evidence(view.network, evidence)
    for row, (bar, value, name) in enumerate(zip(view.bars, view.values, view.names,
                                                 strict=True)):
        shown = row < len(hidden)
        width = probs[row] if shown else 0.0
        bar.set_width(width)
        value.xy = (width, row)
        # significant digits, not decimals: "%.4f" printed P(B = 1 | J = 0, M = 0) = 9.0e-5
        # as 0.0001
        value.set_text(f"{width:.3g}" if shown else "")
        name.set_text(f"{hidden[row]} ({ALARM_NAMES[hidden[row]]})" if shown else "")
        for artist in (bar, value, name):
            artist.set_visible(shown)
    return describe(view.fig, alarm_alt(evidence, dict(zip(hidden, probs, strict=True))))


def alarm_alt(evidence: dict, probs: dict) -> str:
    """The alarm figure in words (its alt text): the evidence and each unobserved variable's
    probability of being 1, as the bars' labels print it."""
    observed = ", ".join(f"{v} = {value}" for v, value in evidence.items()) or "nothing"
    bars = "; ".join(f"{ALARM_NAMES[v]} ({v}) {p:.3g}" for v, p in probs.items())
    return (f"The alarm network of 6 variables with {observed} observed. P(variable = 1 | "
            f"evidence) for each unobserved variable: {bars}.")


@lru_cache(maxsize=1)
def _alarm() -> BayesNet:
    return alarm_network()


def alarm_explorer():
    """A drop-down per observable variable (? = unobserved, 0, 1) redrawing :func:`show_alarm`."""
    import ipywidgets

    def choice(value, v):
        return ipywidgets.Dropdown(options=["?", "0", "1"], value=value,
                                   description=f"{v} ({ALARM_NAMES[v]})",
                                   style={"description_width": "initial"})

    return explore(show_alarm, J=choice("1", "J"), M=choice("1", "M"), R=choice("?", "R"),
                   A=choice("?", "A"), E=choice("?", "E"))


def mpe_network() -> BayesNet:
    """Two binary variables X -> Y where the most probable explanation is not the per-variable
    argmax: P(X = 1) = 0.6, Y = 0 for sure when X = 0, a fair coin when X = 1. The joint is
    P(0, 0) = 0.4, P(1, 0) = P(1, 1) = 0.3: the MPE is (0, 0), while the marginals
    P(X = 1) = 0.6 and P(Y = 0) = 0.7 point to (1, 0), of probability 0.3."""
    return bayes_net({"X": (0, 1), "Y": (0, 1)}, {"Y": ["X"]},
                     {"X": [0.4, 0.6], "Y": [[1.0, 0.0], [0.5, 0.5]]})


def cost_network(n: int, *, seed: int = 0) -> BayesNet:
    """The random binary network of size ``n`` on which section 5 compares the two methods.

    Variables X0, ..., X(n-1); Xi's parents are X(i-1) and, for i >= 2, one more drawn
    uniformly among X0, ..., X(i-2); every CPT row is Dirichlet(1). The path X0 -> X1 -> ...
    makes every variable an ancestor of the last one, so a query that observes the last
    variable leaves variable elimination nothing to prune.
    """
    rng = np.random.default_rng(seed)
    names = [f"X{i}" for i in range(positive_int(n, "n"))]
    parents: dict[str, list[str]] = {}
    for i, v in enumerate(names):
        parents[v] = [names[i - 1]] if i else []
        if i >= 2:  # the second parent, drawn among X0, ..., X(i-2)
            parents[v].insert(0, names[int(rng.integers(i - 1))])
    return bayes_net({v: (0, 1) for v in names}, parents,
                     {v: rng.dirichlet(np.ones(2), size=(2,) * len(parents[v])) for v in names})


def cost_query(net: BayesNet) -> tuple[str, dict[str, int]]:
    """The query section 5 times: the first variable (a root) given the last (a sink) = 1."""
    return net.names[0], {net.names[-1]: 1}


def enumeration_terms(net: BayesNet, target: str, evidence: dict) -> int:
    """The joint probabilities enumeration adds up for P(target | evidence) (R&N §14.4.1): one
    per value of the target and assignment of the hidden variables, i.e. every variable but
    the target and the evidence (enumeration prunes nothing). Each is a product of n CPT
    entries."""
    hidden = [v for v in net.names if v != target and v not in evidence]
    return len(net.domains[target]) * math.prod(len(net.domains[v]) for v in hidden)


@dataclass(frozen=True)
class InferenceCost:
    """Per network size (``sizes``, shape (k,)): the variables elimination keeps, the terms
    enumeration sums, the entries of the largest table and of all tables elimination builds,
    and the seconds per query by enumeration and by elimination (best of 3)."""

    sizes: np.ndarray
    relevant: np.ndarray
    terms: np.ndarray
    largest_table: np.ndarray
    table_entries: np.ndarray
    enumeration: np.ndarray
    elimination: np.ndarray


def inference_cost(sizes: tuple[int, ...] = (4, 6, 8, 10, 12), *, seed: int = 0,
                   ) -> InferenceCost:
    """Count and time :func:`cost_query` on :func:`cost_network` of each size, both methods."""
    counts, enumeration, elimination = [], [], []
    for n in sizes:
        net = cost_network(n, seed=seed)
        target, evidence = cost_query(net)
        plan = net.elimination_plan(target, evidence)
        counts.append((len(plan.relevant), enumeration_terms(net, target, evidence),
                       plan.largest_table, sum(step.entries for step in plan.steps)))
        enumeration.append(_best_time(net, target, evidence, "enumeration"))
        elimination.append(_best_time(net, target, evidence, "elimination"))
    relevant, terms, largest, entries = np.array(counts).T
    return InferenceCost(np.array(sizes), relevant, terms, largest, entries,
                         np.array(enumeration), np.array(elimination))


TIMED_RUNS = 3  # §5 says each time is the fastest of this many runs


def _best_time(net: BayesNet, target: str, evidence: dict, method: str) -> float:
    """The fastest of TIMED_RUNS runs of the query, in seconds (the least disturbed by other
    programs)."""
    best = math.inf
    for _ in range(TIMED_RUNS):
        start = time.perf_counter()
        net.query(target, evidence, method=method)
        best = min(best, time.perf_counter() - start)
    return best


def show_cost(cost: InferenceCost) -> Figure:
    """Left: the work counted, enumeration's terms against the entries of every table
    elimination builds. Right: seconds per query on this machine. Both on log scales."""
    fig, (counted, timed) = figure(2, width=4.6, height=3.6)
    for ax, (enumeration, elimination) in ((counted, (cost.terms, cost.table_entries)),
                                           (timed, (cost.enumeration, cost.elimination))):
        ax.semilogy(cost.sizes, enumeration, "o-", color=PALETTE[1], label="enumeration")
        ax.semilogy(cost.sizes, elimination, "s--", color=PALETTE[0],
                    label="variable elimination")
        ax.set_xlabel("variables in the network")
        ax.legend(fontsize=8)
    counted.set_ylabel("terms / table entries")
    counted.set_title("work: enumeration's terms, elimination's table entries", fontsize=9)
    timed.set_ylabel("seconds per query")
    timed.set_title("seconds per query on this machine", fontsize=9)
    return describe(fig, cost_alt(cost))


def cost_alt(cost: InferenceCost) -> str:
    """The cost figure in words (its alt text): the counts and times at the smallest and the
    largest network, and the first size from which elimination counts less."""
    first, last = cost.sizes[0], cost.sizes[-1]
    fewer = cost.table_entries < cost.terms
    crossing = (f"elimination counts fewer from {cost.sizes[np.argmax(fewer)]} variables on"
                if fewer.any() else "elimination counts more at every size")
    return (f"Networks of {first} to {last} variables, log scales. Work: enumeration's terms "
            f"grow from {cost.terms[0]:,} to {cost.terms[-1]:,}, elimination's table entries "
            f"from {cost.table_entries[0]:,} to {cost.table_entries[-1]:,}; {crossing}. Time "
            f"per query: enumeration {_ms(cost.enumeration[0])} to {_ms(cost.enumeration[-1])}, "
            f"elimination {_ms(cost.elimination[0])} to {_ms(cost.elimination[-1])}.")


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms"


# --- Naive Bayes as a network; learning the structure ----------------------------------------


def naive_bayes_network(model: bayes.NaiveBayes, words: list[str]) -> BayesNet:
    """A fitted Bernoulli naive Bayes as the Bayesian network it is (CS446 "Tree Dependent
    Distributions": a generalization of naive Bayes): the label "v" is the parent of every
    binary feature, with CPTs P(v) = ``model.prior`` and P(word | v) from ``model.theta``."""
    theta = model.theta  # (|V|, d): P(word = 1 | v)
    return bayes_net({"v": tuple(model.classes.tolist()), **{w: (0, 1) for w in words}},
                     {w: ["v"] for w in words},
                     {"v": model.prior,
                      **{w: np.stack([1 - theta[:, j], theta[:, j]], axis=-1)
                         for j, w in enumerate(words)}})


@dataclass(frozen=True)
class StructureScore:
    """One candidate graph fitted by ML to complete data: its free parameters k, its maximized
    log-likelihood (nats), and BIC = log-likelihood - (k/2)·log N (Schwarz 1978)."""

    name: str
    parameters: int
    log_likelihood: float
    bic: float


def structure_scores(data: dict[str, np.ndarray],
                     candidates: dict[str, dict[str, list[str]]]) -> list[StructureScore]:
    """Fit each candidate structure ({name: parents}) to binary ``data`` by ML
    (``BayesNet.fit``) and score it: the guiding principle of structure learning is the
    likelihood of the data, penalised for the parameters it took to get there."""
    n = len(next(iter(data.values())))
    scores = []
    for name, parents in candidates.items():
        start = bayes_net({v: (0, 1) for v in data}, parents,
                          {v: np.full((2,) * (len(parents.get(v, ())) + 1), 0.5) for v in data})
        fitted = start.fit(data)
        k, log_l = fitted.parameter_count(), fitted.log_likelihood(data)
        scores.append(StructureScore(name, k, log_l, log_l - k / 2 * math.log(n)))
    return scores


ALARM_PARENTS = {"R": ["E"], "A": ["E", "B"], "M": ["A"], "J": ["A"]}
ALARM_CANDIDATES = {
    "the true graph": ALARM_PARENTS,
    "plus E → J": {**ALARM_PARENTS, "J": ["A", "E"]},
    "without A → J": {**ALARM_PARENTS, "J": []},
}
