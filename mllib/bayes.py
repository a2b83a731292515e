"""Bayesian learning: coin estimates, MAP and Bayes-optimal prediction, naive Bayes (Bernoulli
and multinomial) and tree-dependent distributions. General Bayesian networks are in
:mod:`mllib.bayesnet`.

Sources
-------
- CS446 slides (seed 001), "Basics of Bayesian Learning" to "Maximum-Likelihood Estimates":
  Bayes' theorem P(h | D) = P(D | h) P(h) / P(D), h_MAP = argmax_h P(D | h) P(h),
  h_ML = argmax_h P(D | h), and the Bayes-optimal decision; "Key Intuition (1)": a coin tossed
  m times with k heads has ML estimate p = k/m (HHTH gives 3/4).
- Mitchell, *Machine Learning* (1997), §6.7 for the three-hypothesis example where the
  Bayes-optimal classification and the MAP hypothesis disagree, and §6.2 for the Beta prior's
  pseudo-counts.
- CS446 slides (seed 001), "Bayesian Classifier" and "Naive Bayes (1)-(3)": v_MAP =
  argmax_v P(v)·Πₖ P(xₖ | v), learned by counting.
- CS446 "Maximum-Likelihood Estimates": the probabilistic language model (a Markov model),
  fitted by maximizing the log-likelihood Σᵢ log P(xᵢ | θ).
- CS446 "Lecture 11: Representing Probability Distributions", "Tree Dependent Distributions":
  P(x₁, ..., xₙ) = Πᵢ P(xᵢ | parent(xᵢ)), two numbers per link; P(x = 1) and pairwise queries
  such as P(x, u) by recursing up the tree.

Conventions
-----------
Variables are binary (0 or 1). A tree over n variables is given by ``parents``, shape (n,), with
``parents[i]`` the parent of variable i and -1 for the single root, and by a CPT of shape (n, 2)
with ``cpt[i, v] = P(xᵢ = 1 | x_parent(i) = v)``. The root has no parent, so both of its
entries hold P(x_root = 1). Logarithms are natural (nats).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mllib.validation import as_matrix, positive, positive_int

# --- Shared checks for probabilistic inputs -------------------------------------------------


def probability(value, name: str) -> float:
    """Return ``value`` as a float, requiring a probability in [0, 1]."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if not 0 <= number <= 1:
        raise ValueError(f"{name} must be a probability in [0, 1]; got {value!r}.")
    return number


def as_probabilities(values, name: str, shape: tuple[int, ...]) -> np.ndarray:
    """Return ``values`` as a float array of the given shape with every entry in [0, 1]."""
    array = np.asarray(values, dtype=float)
    if array.shape != shape:
        raise ValueError(f"{name} must have shape {shape}; got {array.shape}.")
    if not np.all((array >= 0) & (array <= 1)):
        raise ValueError(f"{name} must hold probabilities in [0, 1]; some entries are outside "
                         "(or NaN).")
    return array


def binary_sample(X, name: str = "X", *, min_columns: int = 1, dtype=float) -> np.ndarray:
    """Return ``X``, shape (m, n) with m >= 1, as an array of 0s and 1s of type ``dtype``.

    The data are checked before any conversion, so 0.9999 is rejected rather than rounded.
    """
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array of shape (m, n); got {X.ndim} "
                         "dimension(s).")
    if X.shape[0] == 0:
        raise ValueError(f"{name} is empty: it needs at least one sample (row).")
    if X.shape[1] < min_columns:
        raise ValueError(f"{name} has {X.shape[1]} variable(s) (columns); at least "
                         f"{min_columns} are needed.")
    if X.dtype != bool and not np.all((X == 0) | (X == 1)):
        raise ValueError(f"{name} must be binary: every value 0 or 1 (no NaN).")
    return X.astype(dtype, copy=False)


# --- A coin: ML, MAP and the Beta posterior -------------------------------------------------


def _tosses(tosses) -> np.ndarray:
    """Tosses as an int array of 1 (head) and 0 (tail): a string such as "HHTH" or 0/1 values."""
    if isinstance(tosses, str):
        if set(tosses) - {"H", "T"}:
            raise ValueError(f"tosses written as a string may hold only H and T; got {tosses!r}.")
        return np.array([c == "H" for c in tosses], dtype=int)
    array = np.asarray(tosses)
    if array.ndim != 1 or (array.size and not np.all((array == 0) | (array == 1))):
        raise ValueError("tosses must be a string of H/T or a 1-D sequence of 1 (head) and "
                         "0 (tail).")
    return array.astype(int)


@dataclass(frozen=True)
class CoinStep:
    """The estimates after one more toss: ``heads`` of ``tosses`` so far, posterior Beta(a, b)."""

    tosses: int
    heads: int
    a: float
    b: float
    ml: float
    map: float
    mean: float


@dataclass(frozen=True)
class CoinPosterior:
    """The posterior Beta(a, b) of a coin's head probability p after all the tosses.

    ``history[t]`` holds the estimates after t tosses (``history[0]`` is the prior, where ML is
    undefined and stored as NaN).
    """

    a: float
    b: float
    ml: float
    map: float
    history: tuple[CoinStep, ...]


def coin_ml(tosses) -> float:
    """The maximum-likelihood estimate p = k/m of a coin with k heads in m >= 1 tosses.

    CS446 "Key Intuition (1)": log P(D | p) = k log p + (m - k) log(1 - p) has derivative
    k/p - (m - k)/(1 - p), zero at p = k/m. HHTH gives 3/4.
    """
    t = _tosses(tosses)
    if t.size == 0:
        raise ValueError("the ML estimate needs at least one toss.")
    return float(t.mean())


def coin_map(tosses, a: float = 1.0, b: float = 1.0) -> float:
    """The MAP estimate of a coin's head probability under a Beta(a, b) prior, a, b >= 1.

        p_MAP = (k + a - 1) / (m + a + b - 2)

    the mode of the posterior Beta(k + a, m - k + b) (Bishop, PRML §2.1.1; CS446's h_MAP with a
    continuous hypothesis space). a - 1 and b - 1 act as imaginary heads and tails seen before
    the data; a = b = 1 (the uniform prior) gives back p_ML. With a = b = 1 and no tosses every
    p is a mode, so that case raises ``ValueError``.
    """
    t = _tosses(tosses)
    a, b = _beta_parameter(a, "a"), _beta_parameter(b, "b")
    denominator = t.size + a + b - 2
    if denominator == 0:
        raise ValueError("no tosses and a uniform prior Beta(1, 1): every p is a MAP estimate.")
    return float((t.sum() + a - 1) / denominator)


def _beta_parameter(value, name: str) -> float:
    number = positive(value, name)
    if number < 1:
        raise ValueError(f"{name} must be >= 1 so that the Beta prior has a mode; got {value!r}.")
    return number


def coin_posterior(tosses, a: float = 1.0, b: float = 1.0) -> CoinPosterior:
    """Update a Beta(a, b) prior toss by toss: a head adds 1 to a, a tail to b.

    The Beta prior is conjugate to the coin's likelihood (Bishop, *Pattern Recognition and
    Machine Learning* §2.1.1, eq. 2.18; Murphy, *Machine Learning* §3.3); Bayes' theorem
    itself is Mitchell §6.2.

    Parameters
    ----------
    tosses : str or array_like of shape (m,)
        "HHTH" or 1 (head) / 0 (tail).
    a, b : float, default 1.0
        The prior's parameters, each >= 1.

    Returns
    -------
    CoinPosterior
        The final Beta(a', b') with a' = a + k, b' = b + m - k, its ML, MAP and posterior mean
        a'/(a' + b'), and the same numbers after every toss. ML before any toss is NaN, and so is
        the MAP while it is undefined (no tosses and the uniform prior: every p is a mode).
    """
    t = _tosses(tosses)
    a, b = _beta_parameter(a, "a"), _beta_parameter(b, "b")
    heads = np.concatenate([[0], np.cumsum(t)])
    steps = []
    for m, k in enumerate(heads.tolist()):
        a_m, b_m = a + k, b + m - k
        mode = (a_m - 1) / (a_m + b_m - 2) if a_m + b_m > 2 else float("nan")
        steps.append(CoinStep(m, k, a_m, b_m, k / m if m else float("nan"), mode,
                              a_m / (a_m + b_m)))
    last = steps[-1]
    return CoinPosterior(last.a, last.b, last.ml, last.map, tuple(steps))


# --- Hypotheses: MAP, ML and the Bayes-optimal classifier -----------------------------------


def hypothesis_posterior(prior, likelihood) -> np.ndarray:
    """P(h | D) = P(D | h) P(h) / P(D) over a finite hypothesis space, shape (k,) -> (k,).

    CS446 "Bayes Theorem"; P(D) = Σ_h P(D | h) P(h). ``prior`` must sum to 1 and the data must
    have positive probability under some hypothesis.
    """
    prior, likelihood = np.asarray(prior, float), np.asarray(likelihood, float)
    if prior.ndim != 1 or prior.shape != likelihood.shape:
        raise ValueError(f"prior and likelihood must be 1-D of equal length; got shapes "
                         f"{prior.shape} and {likelihood.shape}.")
    as_probabilities(prior, "prior", prior.shape)
    as_probabilities(likelihood, "likelihood", likelihood.shape)
    if not np.isclose(prior.sum(), 1.0):
        raise ValueError(f"prior must sum to 1; it sums to {prior.sum():.6g}.")
    evidence = likelihood @ prior
    if evidence == 0:
        raise ValueError("the data have probability 0 under every hypothesis: P(D) = 0.")
    return likelihood * prior / evidence


@dataclass(frozen=True)
class BayesOptimal:
    """Bayes-optimal and MAP predictions on n points.

    Attributes
    ----------
    values : ndarray of shape (c,)
        The possible labels, sorted.
    votes : ndarray of shape (n, c)
        P(v | x, D) = Σ_h P(h | D) [h(x) = v].
    labels : ndarray of shape (n,)
        The Bayes-optimal label argmax_v P(v | x, D); ties go to the smallest label.
    map_hypothesis : int
        The index of h_MAP = argmax_h P(h | D); ties go to the first hypothesis.
    map_labels : ndarray of shape (n,)
        h_MAP(x) for each point.
    """

    values: np.ndarray
    votes: np.ndarray
    labels: np.ndarray
    map_hypothesis: int
    map_labels: np.ndarray


def bayes_optimal(posterior, predictions) -> BayesOptimal:
    """The Bayes-optimal classification against the MAP hypothesis's prediction.

    The Bayes-optimal label of x weighs every hypothesis by its posterior (Mitchell §6.7; CS446
    "Bayes Optimal Classifier": choose the prediction directly rather than threshold on one h):

        v_OB(x) = argmax_v Σ_h P(h | D) [h(x) = v].

    Mitchell's example: P(h₁ | D) = 0.4, P(h₂ | D) = P(h₃ | D) = 0.3, h₁(x) = +, h₂(x) = h₃(x)
    = -. h_MAP = h₁ says +, but P(- | x, D) = 0.6 > 0.4 and the Bayes-optimal label is -.

    Parameters
    ----------
    posterior : array_like of shape (k,)
        P(h | D), summing to 1.
    predictions : array_like of shape (k, n)
        h(x) for each hypothesis (row) and point (column); any labels that sort.
    """
    posterior = np.asarray(posterior, float)
    predictions = np.asarray(predictions)
    if posterior.ndim != 1 or predictions.ndim != 2 or predictions.shape[0] != posterior.size:
        raise ValueError(f"posterior must have shape (k,) and predictions (k, n); got "
                         f"{posterior.shape} and {predictions.shape}.")
    as_probabilities(posterior, "posterior", posterior.shape)
    if not np.isclose(posterior.sum(), 1.0):
        raise ValueError(f"posterior must sum to 1; it sums to {posterior.sum():.6g}.")
    values, index = np.unique(predictions, return_inverse=True)
    index = index.reshape(predictions.shape)
    votes = np.stack([posterior @ (index == c) for c in range(len(values))], axis=1)
    best = int(np.argmax(posterior))
    return BayesOptimal(values, votes, values[np.argmax(votes, axis=1)], best, predictions[best])


# --- Naive Bayes ----------------------------------------------------------------------------


@dataclass(frozen=True)
class NaiveBayes:
    """A Bernoulli naive Bayes model.

    Attributes
    ----------
    classes : ndarray of shape (k,)
        The labels, sorted.
    prior : ndarray of shape (k,)
        P(v) for each label: its frequency in the training sample.
    theta : ndarray of shape (k, d)
        P(xⱼ = 1 | v), Laplace-smoothed.
    smoothing : float
        The pseudo-count s added to each of the two outcomes of every feature.
    """

    classes: np.ndarray
    prior: np.ndarray
    theta: np.ndarray
    smoothing: float

    @property
    def parameter_count(self) -> int:
        """n|V| + |V| (CS446 "Naive Bayes (3)"): one P(xⱼ = 1 | v) per feature and label, and
        the |V| priors (of which |V| - 1 are free, since they sum to 1)."""
        return self.theta.size + self.prior.size


@dataclass(frozen=True)
class MultinomialNaiveBayes:
    """A multinomial naive Bayes model over word counts.

    Attributes
    ----------
    classes : ndarray of shape (k,)
        The labels, sorted.
    prior : ndarray of shape (k,)
        P(v): each label's frequency in the training sample.
    theta : ndarray of shape (k, d)
        P(word j | v), each row summing to 1, Laplace-smoothed.
    smoothing : float
        The pseudo-count s added to every word's count in every class.
    """

    classes: np.ndarray
    prior: np.ndarray
    theta: np.ndarray
    smoothing: float

    @property
    def parameter_count(self) -> int:
        """d|V| + |V| stored numbers, as CS446 counts them; each row of ``theta`` sums to 1, so
        |V|(d - 1) + |V| - 1 are free."""
        return self.theta.size + self.prior.size


def _classes(X: np.ndarray, y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sorted labels, each row's label index, and the count of each label."""
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError(f"X has {X.shape[0]} rows but y has shape {y.shape}; they must match.")
    return np.unique(y, return_inverse=True, return_counts=True)


def _class_sums(X: np.ndarray, index: np.ndarray, k: int) -> np.ndarray:
    """Σ of the rows of X with each label, shape (k, d)."""
    sums = np.zeros((k, X.shape[1]))
    np.add.at(sums, index, X)
    return sums


def naive_bayes(X, y, *, smoothing: float = 1.0) -> NaiveBayes:
    """Fit Bernoulli naive Bayes by counting (CS446 "Naive Bayes (3)": estimate n|V| + |V|
    numbers, learning without search).

    P(v) = #(y = v)/N and, with Laplace smoothing s,

        P(xⱼ = 1 | v) = (#(xⱼ = 1, y = v) + s) / (#(y = v) + 2s).

    s = 1 is Laplace's rule (add one to both outcomes); it keeps every estimate away from 0 and
    1, so one unseen word cannot veto a class. The counts alone (s = 0) would be the ML
    estimates; with s > 0 each P(xⱼ = 1 | v) is a MAP estimate instead, the mode of the
    posterior under a Beta(s + 1, s + 1) prior (:func:`coin_map` with a = b = s + 1). The
    CS446 slides leave the estimator open ("How to estimate?"); this follows the usual add-s
    rule, as scikit-learn's BernoulliNB does.

    Parameters
    ----------
    X : array_like of shape (N, d)
        Binary features.
    y : array_like of shape (N,)
        Labels, any values that sort (e.g. 0/1 or -1/+1).
    smoothing : float, default 1.0
        s > 0.

    Returns
    -------
    NaiveBayes
    """
    X = binary_sample(X)
    classes, index, counts = _classes(X, y)
    s = positive(smoothing, "smoothing")
    theta = (_class_sums(X, index, len(classes)) + s) / (counts[:, None] + 2 * s)
    return NaiveBayes(classes, counts / X.shape[0], theta, s)


def _word_counts(X, name: str = "X") -> np.ndarray:
    X = as_matrix(X, name)
    if np.any(X < 0):
        raise ValueError(f"{name} must hold word counts: no negative entries.")
    return X


def multinomial_naive_bayes(X, y, *, smoothing: float = 1.0) -> MultinomialNaiveBayes:
    """Fit multinomial naive Bayes on word counts.

    A document of label v is a bag of words drawn one at a time from P(· | v), so with cⱼ(x)
    the count of word j in x, P(x | v) ∝ Πⱼ P(j | v)^cⱼ(x). With Laplace smoothing s,

        P(j | v) = (Σ_{x: y = v} cⱼ(x) + s) / (Σ_{x: y = v} Σ_l c_l(x) + s d),

    and P(v) = #(y = v)/N. This is CS446's v_MAP with the naive-Bayes independence assumption
    applied to word positions rather than to binary features; it matches scikit-learn's
    ``MultinomialNB(alpha=s)``.

    Parameters
    ----------
    X : array_like of shape (N, d)
        Non-negative counts (fractional counts such as tf-idf are accepted).
    y : array_like of shape (N,)
        Labels, any values that sort.
    smoothing : float, default 1.0
        s > 0.

    Returns
    -------
    MultinomialNaiveBayes
    """
    X = _word_counts(X)
    classes, index, counts = _classes(X, y)
    s = positive(smoothing, "smoothing")
    words = _class_sums(X, index, len(classes)) + s
    return MultinomialNaiveBayes(classes, counts / X.shape[0],
                                 words / words.sum(axis=1, keepdims=True), s)


def _check_width(X: np.ndarray, theta: np.ndarray) -> None:
    if X.shape[1] != theta.shape[1]:
        raise ValueError(f"X has {X.shape[1]} features; the model was fit on {theta.shape[1]}.")


def naive_bayes_log_posterior(model: NaiveBayes | MultinomialNaiveBayes, X) -> np.ndarray:
    """log P(v | x) for each row of X, shape (N, d) -> (N, k), columns in ``model.classes``.

    Bernoulli: log P(v) + Σⱼ [xⱼ log θ_vj + (1 - xⱼ) log(1 - θ_vj)] - log P(x).
    Multinomial: log P(v) + Σⱼ cⱼ(x) log θ_vj - log P(x) (the multinomial coefficient is the
    same for every v and cancels).
    """
    if isinstance(model, MultinomialNaiveBayes):
        X = _word_counts(X)
        _check_width(X, model.theta)
        scores = np.log(model.prior) + X @ np.log(model.theta).T
    else:
        X = binary_sample(X)
        _check_width(X, model.theta)
        scores = (np.log(model.prior) + X @ np.log(model.theta).T
                  + (1 - X) @ np.log1p(-model.theta).T)
    return scores - np.logaddexp.reduce(scores, axis=1, keepdims=True)


def naive_bayes_predict(model: NaiveBayes | MultinomialNaiveBayes, X) -> np.ndarray:
    """v_MAP = argmax_v P(v)·P(x | v) for each row of X, shape (N, d) -> (N,); ties go to the
    first label in ``model.classes``."""
    return model.classes[np.argmax(naive_bayes_log_posterior(model, X), axis=1)]


# --- A Markov-chain language model ----------------------------------------------------------


@dataclass(frozen=True)
class MarkovChain:
    """A first-order Markov model of a symbol sequence (CS446 "Maximum-Likelihood Estimates").

    Attributes
    ----------
    states : tuple
        The distinct symbols, sorted.
    counts : ndarray of int, shape (k, k)
        ``counts[a, b]``: how often symbol b follows symbol a.
    transitions : ndarray of shape (k, k)
        θ_{a→b} = P(next = b | current = a), each row summing to 1.
    """

    states: tuple
    counts: np.ndarray
    transitions: np.ndarray

    def log_likelihood(self, tokens: Sequence) -> float:
        """log P(x₂, ..., x_m | x₁) = Σᵢ log θ_{xᵢ₋₁→xᵢ} (nats); -inf if a transition has
        probability 0. Every token must be one of ``states``."""
        index = {state: i for i, state in enumerate(self.states)}
        try:
            codes = np.array([index[token] for token in tokens], dtype=int)
        except KeyError as error:
            raise ValueError(f"token {error.args[0]!r} is not a state of the chain.") from None
        with np.errstate(divide="ignore"):
            return float(np.log(self.transitions[codes[:-1], codes[1:]]).sum())


def markov_chain_ml(tokens: Sequence) -> MarkovChain:
    """The maximum-likelihood transition probabilities of a sequence (CS446's Markov model).

    The likelihood of x₁, ..., x_m given x₁ is Π_{a,b} θ_{a→b}^{n(a,b)}, with n(a, b) the times b
    follows a. Each row θ_{a→·} is a die of its own, and maximizing Σ_b n(a, b) log θ_{a→b}
    subject to Σ_b θ_{a→b} = 1 gives the coin's k/m again:

        θ_{a→b} = n(a, b) / Σ_c n(a, c).

    A symbol that is never followed by another (it occurs only last) has no data: its row is
    uniform, as in ``BayesNet.fit``.

    Parameters
    ----------
    tokens : sequence of hashable, sortable symbols
        At least two, e.g. the words of a text.

    Returns
    -------
    MarkovChain
    """
    tokens = list(tokens)
    if len(tokens) < 2:
        raise ValueError("a Markov chain needs a sequence of at least two tokens.")
    states = tuple(sorted(set(tokens)))
    index = {state: i for i, state in enumerate(states)}
    codes = np.array([index[token] for token in tokens], dtype=int)
    counts = np.zeros((len(states), len(states)), dtype=int)
    np.add.at(counts, (codes[:-1], codes[1:]), 1)
    totals = counts.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        transitions = np.where(totals > 0, counts / totals, 1 / len(states))
    return MarkovChain(states, counts, transitions)


# --- Tree-dependent distributions -----------------------------------------------------------


@dataclass(frozen=True)
class TreeDistribution:
    """A tree-dependent distribution over n binary variables (CS446 Lecture 11).

    Attributes
    ----------
    parents : ndarray of int, shape (n,)
        ``parents[i]`` is the parent of variable i; -1 marks the root.
    cpt : ndarray of shape (n, 2)
        ``cpt[i, v] = P(xᵢ = 1 | x_parent(i) = v)``; both entries of the root's row are
        P(x_root = 1).
    order : tuple of int
        The variables with every parent before its children (breadth-first from the root).
    """

    parents: np.ndarray
    cpt: np.ndarray
    order: tuple[int, ...]

    @property
    def root(self) -> int:
        return self.order[0]

    @property
    def edges(self) -> list[tuple[int, int]]:
        """The (parent, child) links in breadth-first order from the root."""
        return [(int(self.parents[i]), i) for i in self.order[1:]]


def _breadth_first(parents: np.ndarray) -> tuple[int, ...]:
    """The variables from the root down; ValueError unless ``parents`` describes one tree."""
    n = len(parents)
    roots = np.flatnonzero(parents == -1)
    if len(roots) != 1:
        raise ValueError(f"a tree has exactly one root (parent -1); got {len(roots)}.")
    if np.any((parents < -1) | (parents >= n)) or np.any(parents == np.arange(n)):
        raise ValueError(f"parents must be -1 or the index of another of the {n} variables.")
    children: list[list[int]] = [[] for _ in range(n)]
    for child, parent in enumerate(parents):
        if parent >= 0:
            children[parent].append(child)
    order = [int(roots[0])]
    for node in order:  # the list grows while it is read: a breadth-first walk
        order.extend(children[node])
    if len(order) != n:
        raise ValueError("parents contain a cycle: not every variable is reached from the root.")
    return tuple(order)


def tree_distribution(parents, cpt) -> TreeDistribution:
    """Build and check a tree-dependent distribution.

    Parameters
    ----------
    parents : array_like of int, shape (n,)
        The parent of each variable, -1 for the root; n >= 2.
    cpt : array_like of shape (n, 2)
        ``cpt[i, v] = P(xᵢ = 1 | x_parent(i) = v)``, every entry in [0, 1]; the root's two
        entries must be equal (it has no parent).

    Returns
    -------
    TreeDistribution
    """
    parents = np.asarray(parents)
    if parents.ndim != 1 or parents.size < 2 or not np.issubdtype(parents.dtype, np.integer):
        raise ValueError("parents must be a 1-D array of integers with at least 2 variables.")
    order = _breadth_first(parents)
    cpt = as_probabilities(cpt, "cpt", (len(parents), 2))
    if cpt[order[0], 0] != cpt[order[0], 1]:
        raise ValueError(f"variable {order[0]} is the root: both cpt entries must be "
                         "P(root = 1).")
    return TreeDistribution(parents.astype(int), cpt, order)


def parents_from_edges(edges: Sequence[tuple[int, int]], n: int) -> np.ndarray:
    """The ``parents`` array, shape (n,), of a tree given as (parent, child) edges."""
    n = positive_int(n, "n")
    parents = np.full(n, -1)
    for parent, child in edges:
        if not (0 <= parent < n and 0 <= child < n):
            raise ValueError(f"edge ({parent}, {child}) names a variable outside 0..{n - 1}.")
        if parents[child] != -1:
            raise ValueError(f"variable {child} has two parents; a tree allows one.")
        parents[child] = parent
    _breadth_first(parents)
    return parents


def _check_variables(tree: TreeDistribution, X) -> np.ndarray:
    X = binary_sample(np.atleast_2d(X))
    if X.shape[1] != len(tree.parents):
        raise ValueError(f"X has {X.shape[1]} variables; the tree has {len(tree.parents)}.")
    return X


def log_joint(tree: TreeDistribution, X) -> np.ndarray:
    """log P(x) = Σᵢ log P(xᵢ | x_parent(i)) for each row of X, shape (k, n) -> (k,).

    CS446: P(x₁, ..., xₙ) = Πᵢ P(xᵢ | Parents(xᵢ)). A row the tree cannot produce gets -inf.
    """
    X = _check_variables(tree, X)
    parent_values = np.where(tree.parents >= 0, X[:, np.maximum(tree.parents, 0)], 0)
    p_one = tree.cpt[np.arange(X.shape[1]), parent_values.astype(int)]
    with np.errstate(divide="ignore"):
        return np.sum(np.log(np.where(X == 1, p_one, 1 - p_one)), axis=1)


def joint(tree: TreeDistribution, X) -> np.ndarray:
    """P(x) for each row of X, shape (k, n) -> (k,): the product of the CPT entries."""
    return np.exp(log_joint(tree, X))


def sample(tree: TreeDistribution, size: int, *, seed=0) -> np.ndarray:
    """Draw ``size`` samples, shape (size, n), of 0.0/1.0: each variable after its parent.

    ``seed`` is an int or a ``numpy.random.Generator``.
    """
    size = positive_int(size, "size")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    X = np.zeros((size, len(tree.parents)))
    uniforms = rng.random((size, len(tree.parents)))
    for i in tree.order:
        parent_values = X[:, tree.parents[i]].astype(int) if tree.parents[i] >= 0 else 0
        X[:, i] = uniforms[:, i] < tree.cpt[i, parent_values]
    return X


def _link(tree: TreeDistribution, i: int) -> np.ndarray:
    """The 2 x 2 matrix M[a, b] = P(xᵢ = b | x_parent(i) = a)."""
    p_one = tree.cpt[i]
    return np.column_stack([1 - p_one, p_one])


def _path_up(tree: TreeDistribution, i: int) -> list[int]:
    """i, its parent, its grandparent, ..., the root."""
    path = [i]
    while tree.parents[path[-1]] >= 0:
        path.append(int(tree.parents[path[-1]]))
    return path


def _variable(tree: TreeDistribution, i) -> int:
    n = len(tree.parents)
    if not (isinstance(i, int | np.integer) and 0 <= i < n):
        raise ValueError(f"variable index must be an integer in 0..{n - 1}; got {i!r}.")
    return int(i)


def marginal(tree: TreeDistribution, i: int) -> float:
    """P(xᵢ = 1), by recursing up the tree (CS446, "Tree Dependent Distributions"):

        P(x = 1) = P(x = 1 | z = 1) P(z = 1) + P(x = 1 | z = 0) P(z = 0),   z = parent(x),

    and likewise for P(z), up to the root. The recursion is unrolled: the path to the root is
    found first and the formula applied on the way back down. Linear in the depth of xᵢ.
    """
    path = _path_up(tree, _variable(tree, i))
    p = tree.cpt[path[-1], 0]  # the root
    for node in reversed(path[:-1]):
        p = tree.cpt[node, 1] * p + tree.cpt[node, 0] * (1 - p)
    return float(p)


def marginals(tree: TreeDistribution) -> np.ndarray:
    """P(xᵢ = 1) for every variable, shape (n,): :func:`marginal` for all, parents first."""
    p = np.empty(len(tree.parents))
    for i in tree.order:
        parent = tree.parents[i]
        p[i] = tree.cpt[i, 0] if parent < 0 else tree.cpt[i, 1] * p[parent] + tree.cpt[i, 0] * (
            1 - p[parent])
    return p


def pairwise(tree: TreeDistribution, i: int, j: int) -> np.ndarray:
    """The 2 x 2 table P(xᵢ = a, xⱼ = b), indexed [a, b], by recursing along the tree.

    CS446 works three cases. When y is an ancestor of x, go up the path from x to y:
    P(x | y) = Σ_z P(x | z) P(z | y) with z the parent of x, and P(x, y) = P(x | y) P(y).
    When neither is an ancestor of the other, take y, their lowest common ancestor: x and u are
    independent given y, so P(x, u) = Σ_y P(y) P(x | y) P(u | y), reducing to the first case.
    Each P(· | y) down a path is a product of the 2 x 2 link matrices P(child | parent).
    """
    i, j = _variable(tree, i), _variable(tree, j)
    up_i, up_j = _path_up(tree, i), _path_up(tree, j)
    above_j = set(up_j)
    ancestor = next(node for node in up_i if node in above_j)

    def down(path: list[int]) -> np.ndarray:
        """P(end of path | ancestor) as a matrix [ancestor value, end value]."""
        matrix = np.eye(2)
        for node in reversed(path[: path.index(ancestor)]):
            matrix = matrix @ _link(tree, node)
        return matrix

    p_ancestor = marginal(tree, ancestor)
    return down(up_i).T @ np.diag([1 - p_ancestor, p_ancestor]) @ down(up_j)


def random_tree(n: int, *, seed=0, strength: float = 0.35) -> TreeDistribution:
    """A random tree over n binary variables whose links are clearly dependent.

    Variable k (in a random order) gets a parent drawn uniformly among the earlier ones, so the
    shapes range from chains to stars. P(root = 1) is uniform in [0.2, 0.8]; for a child,
    P(x = 1 | parent = v) is 0.5 ± ``strength`` ± 0.1 in opposite directions for v = 0 and 1,
    with the sign drawn at random, so every link carries mutual information.
    """
    n = positive_int(n, "n")
    if n < 2:
        raise ValueError(f"a tree needs at least 2 variables; got n = {n}.")
    if not 0 < strength <= 0.4:
        raise ValueError(f"strength must be in (0, 0.4]; got {strength!r}.")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    names = rng.permutation(n)
    parents = np.full(n, -1)
    for k in range(1, n):
        parents[names[k]] = names[rng.integers(k)]
    shift = (strength + rng.uniform(-0.1, 0.1, n)) * rng.choice([-1.0, 1.0], n)
    cpt = np.clip(np.column_stack([0.5 - shift, 0.5 + shift]), 0.02, 0.98)
    cpt[names[0]] = rng.uniform(0.2, 0.8)
    return tree_distribution(parents, cpt)
