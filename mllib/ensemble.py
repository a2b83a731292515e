"""Ensembles: AdaBoost, bagging with the out-of-bag error, and random forests.

Sources
-------
- CS446 slides (seed 001), "Boosting": Schapire's weak-to-strong result (1989); "A Formal View
  of Boosting" and "Adaboost" (D₁, Dₜ₊₁, Zₜ, αₜ, H_final); the toy example with three rounds.
- CS446, "Bagging" (Breiman 1996: bootstrap replicates, a plurality vote or an average,
  instability), "Bagged Decision Trees" (out-of-bag predictions) and "Random Forests"
  (a sample of the attributes at each split).
- Freund & Schapire (1997) for the training-error bound Πₜ 2√(εₜ(1 − εₜ)) = Πₜ Zₜ.

Conventions
-----------
Boosting labels are in {-1, +1}. scikit-learn's AdaBoostClassifier implements SAMME, whose
weight for two classes is ln((1 − ε)/ε), twice the slides' αₜ; its reweighting and its votes'
signs are the same, so the two give the same predictions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

from mllib.trees import decision_stump, decision_tree
from mllib.validation import as_data, as_labels, as_matrix, as_vector, positive_int


def alpha_from_error(error: float) -> float:
    """αₜ = ½ ln((1 − εₜ)/εₜ) (CS446, "Adaboost"); +inf for εₜ = 0. Needs 0 <= εₜ < 1."""
    if not 0 <= error < 1:
        raise ValueError(f"a weighted error must be in [0, 1); got {error}.")
    return np.inf if error == 0 else 0.5 * float(np.log((1 - error) / error))


def reweight(D, y, prediction, alpha: float) -> tuple[np.ndarray, float]:
    """One AdaBoost reweighting (CS446, "Adaboost").

    Dₜ₊₁(i) = Dₜ(i) exp(−αₜ yᵢ hₜ(xᵢ)) / Zₜ with Zₜ = Σᵢ Dₜ(i) exp(−αₜ yᵢ hₜ(xᵢ)): examples
    hₜ gets right are multiplied by e^{−αₜ}, the others by e^{αₜ}, before normalising.

    Parameters
    ----------
    D : array of shape (m,)
        Dₜ, non-negative, summing to 1.
    y, prediction : arrays of shape (m,)
        Labels and hₜ(xᵢ), both in {-1, +1}.
    alpha : float
        αₜ (finite).

    Returns
    -------
    D_next : ndarray of shape (m,)
    Z : float
    """
    D = as_vector(D, "D")
    y, prediction = as_labels(y, len(D)), as_labels(prediction, len(D))
    unnormalised = D * np.exp(-alpha * y * prediction)
    Z = float(unnormalised.sum())
    return unnormalised / Z, Z


@dataclass(frozen=True)
class BoostRound:
    """One round t of AdaBoost.

    Attributes
    ----------
    t : int
        The round, counting from 1.
    distribution : ndarray of shape (m,)
        Dₜ, the distribution the weak learner was trained on.
    learner : object
        hₜ (anything with ``predict(X)`` giving labels in {-1, +1}).
    error : float
        εₜ = Σᵢ Dₜ(i) [hₜ(xᵢ) ≠ yᵢ].
    alpha : float
        αₜ.
    Z : float
        Zₜ = Σᵢ Dₜ(i) exp(−αₜ yᵢ hₜ(xᵢ)), which equals 2√(εₜ(1 − εₜ)).
    training_error : float
        The training error of H after this round.
    bound : float
        Π_{s<=t} Z_s, which the training error never exceeds.
    """

    t: int
    distribution: np.ndarray
    learner: object
    error: float
    alpha: float
    Z: float
    training_error: float
    bound: float


@dataclass(frozen=True)
class AdaBoostResult:
    """What :func:`adaboost` returns: its rounds, and why it stopped early (if it did)."""

    history: tuple[BoostRound, ...]
    stopped: str | None

    @property
    def alphas(self) -> np.ndarray:
        """αₜ, shape (T,)."""
        return np.array([r.alpha for r in self.history])

    @property
    def errors(self) -> np.ndarray:
        """εₜ, shape (T,)."""
        return np.array([r.error for r in self.history])

    @property
    def distributions(self) -> np.ndarray:
        """Dₜ, shape (T, m)."""
        return np.array([r.distribution for r in self.history])

    @property
    def Z(self) -> np.ndarray:
        """Zₜ, shape (T,)."""
        return np.array([r.Z for r in self.history])

    @property
    def learners(self) -> list:
        """hₜ, T of them."""
        return [r.learner for r in self.history]

    def staged_scores(self, X) -> np.ndarray:
        """Σ_{s<=t} α_s h_s(x) for t = 1..T: shape (T, n), (0, n) for a run that kept no
        round."""
        X = as_matrix(X)
        votes = np.array([r.alpha * r.learner.predict(X) for r in self.history])
        return np.cumsum(votes, axis=0) if self.history else np.zeros((0, len(X)))

    def staged_margins(self, X, y) -> np.ndarray:
        """The normalised margins yᵢ·Σ_{s<=t} α_s h_s(xᵢ) / Σ_{s<=t} α_s for t = 1..T, each in
        [-1, 1] and positive where H after t rounds is right (Schapire, Freund, Bartlett and Lee,
        "Boosting the Margin", 1998). X (n, d), y (n,) in {-1, +1}; returns shape (T, n). Needs
        finite αₜ (a run that stopped at εₜ = 0 has α = inf)."""
        X = as_matrix(X)
        y = as_labels(y, len(X))
        if not np.all(np.isfinite(self.alphas)):
            raise ValueError("a round with error 0 has alpha = inf; its margins are undefined.")
        return y * self.staged_scores(X) / np.cumsum(self.alphas)[:, None]

    def predict(self, X, rounds: int | None = None) -> np.ndarray:
        """H(x) = sign(Σₜ αₜ hₜ(x)) over the first ``rounds`` rounds (all by default); a score of
        exactly 0 predicts -1, as scikit-learn does. Shape (n,).

        Raises
        ------
        ValueError
            If the run kept no round (round 1 had error >= 1/2): there is no H to vote with.
        """
        if not self.history:
            raise ValueError(f"this run kept no round ({self.stopped}), so there is no H; "
                             "the weak learner never beat a coin on these data.")
        scores = self.staged_scores(X)
        t = len(self.history) if rounds is None else positive_int(rounds, "rounds")
        return np.where(scores[min(t, len(scores)) - 1] > 0, 1.0, -1.0)


def adaboost(X, y, *, rounds: int, learner: Callable = decision_stump) -> AdaBoostResult:
    """AdaBoost as on the CS446 slides.

    D₁(i) = 1/m. In round t the weak learner fits (X, y) weighted by Dₜ and returns hₜ, with
    εₜ = Σᵢ Dₜ(i)[hₜ(xᵢ) ≠ yᵢ] and αₜ = ½ ln((1 − εₜ)/εₜ). Then
    Dₜ₊₁(i) = Dₜ(i) exp(−αₜ yᵢ hₜ(xᵢ)) / Zₜ, with Zₜ the normaliser. The final hypothesis is
    H(x) = sign(Σₜ αₜ hₜ(x)).

    Edge cases (the slides assume 0 < εₜ < ½):

    - εₜ = 0: hₜ is right on every example. Its αₜ is +inf (the limit), Zₜ = 0, H = hₜ, and
      boosting stops after this round: no distribution Dₜ₊₁ exists.
    - εₜ >= ½: the weak-learning assumption fails (αₜ <= 0); the round is discarded and
      boosting stops.

    ``stopped`` on the result says which case ended the run, or is None.

    Parameters
    ----------
    X : array of shape (m, d)
    y : array of shape (m,)
        Labels in {-1, +1}.
    rounds : int >= 1
        T, the most rounds to run.
    learner : callable (X, y, weights) -> object with ``predict(X)`` in {-1, +1}
        The weak learner; :func:`mllib.trees.decision_stump` by default, which then sorts each
        feature once for all rounds. ``functools.partial(decision_tree, max_depth=2)`` works too.

    Returns
    -------
    AdaBoostResult
    """
    X, y = as_data(X, y)
    rounds = positive_int(rounds, "rounds")
    m = len(y)
    if learner is decision_stump:
        learner = partial(decision_stump, order=np.argsort(X, axis=0, kind="stable"))
    D = np.full(m, 1.0 / m)
    score = np.zeros(m)
    bound = 1.0
    history: list[BoostRound] = []
    stopped = None
    for t in range(1, rounds + 1):
        h = learner(X, y, D)
        prediction = as_labels(h.predict(X), m)
        error = float(D[prediction != y].sum())
        if error >= 0.5:
            stopped = f"round {t}: weighted error {error:.3f} >= 1/2, the round is discarded"
            break
        alpha = alpha_from_error(error)
        if error == 0:
            history.append(BoostRound(t, D, h, 0.0, alpha, 0.0, 0.0, 0.0))
            stopped = f"round {t}: weighted error 0, H = h_{t}"
            break
        D_next, Z = reweight(D, y, prediction, alpha)
        score = score + alpha * prediction
        bound *= Z
        training_error = float(np.mean(np.where(score > 0, 1.0, -1.0) != y))
        history.append(BoostRound(t, D, h, error, alpha, Z, training_error, bound))
        D = D_next
    return AdaBoostResult(tuple(history), stopped)


# --- Bagging and random forests --------------------------------------------------------------


@dataclass(frozen=True)
class BagRound:
    """One learner b of a bagged ensemble.

    Attributes
    ----------
    b : int
        Counting from 1.
    sample : int ndarray of shape (m,)
        The bootstrap replicate: m row indices drawn with replacement.
    learner : object
        Fitted on X[sample], y[sample].
    oob_error : float
        The out-of-bag error of the first b learners (see :class:`BaggingResult`).
    """

    b: int
    sample: np.ndarray
    learner: object
    oob_error: float


@dataclass(frozen=True)
class BaggingResult:
    """What :func:`bagging` and :func:`random_forest` return.

    Attributes
    ----------
    history : tuple of BagRound
    task : {"classify", "regress"}
    classes : ndarray of shape (K,), or None for regression
    oob_prediction : ndarray of shape (m,)
        Each example's vote (or mean) over the learners whose replicate left it out; NaN for an
        example that every replicate contained.
    oob_error : float
        Over the examples with an out-of-bag prediction: the fraction misclassified, or the mean
        squared error for regression. NaN if there are none.
    """

    history: tuple[BagRound, ...]
    task: str
    classes: np.ndarray | None
    oob_prediction: np.ndarray
    oob_error: float

    @property
    def learners(self) -> list:
        return [r.learner for r in self.history]

    def staged_predict(self, X) -> np.ndarray:
        """The ensemble's predictions after b = 1..B learners: shape (B, n)."""
        X = as_matrix(X)
        predictions = np.array([r.learner.predict(X) for r in self.history])
        if self.task == "regress":
            return np.cumsum(predictions, axis=0) / np.arange(1, len(predictions) + 1)[:, None]
        votes = np.cumsum(predictions[:, :, None] == self.classes, axis=0)  # (B, n, K)
        return _winners(votes, self.classes)

    def predict(self, X) -> np.ndarray:
        """A plurality vote (ties to the smallest label), or the mean for regression. (n,)"""
        return self.staged_predict(X)[-1]


def _winners(votes: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """The class with the most votes along the last axis; ties to the smallest (sorted) class."""
    return classes[np.argmax(votes, axis=-1)]


def plurality_vote(predictions) -> np.ndarray:
    """Bagging's vote (CS446, "Bagging"): each column's most frequent label.

    Parameters
    ----------
    predictions : array of shape (B, n)
        Row b holds learner b's labels for n examples.

    Returns
    -------
    ndarray of shape (n,)
        The most frequent label of each column; a tie goes to the smallest of the tied labels.
    """
    predictions = as_matrix(predictions, "predictions")
    classes = np.unique(predictions)
    return _winners((predictions[:, :, None] == classes).sum(axis=0), classes)


def oob_error(predictions, samples, y) -> float:
    """The out-of-bag error of a bagged classifier (CS446, "Bagged Decision Trees").

    Example i is *out of bag* for learner b when the replicate ``samples[b]`` does not contain
    i. Its out-of-bag prediction is the plurality vote (ties to the smallest label) of those
    learners only; the error is the fraction of wrong votes over the examples that got one.
    :func:`bagging` computes the same figure as it grows the ensemble.

    Parameters
    ----------
    predictions : array of shape (B, m)
        Row b holds learner b's labels for the m training examples.
    samples : int array of shape (B, m)
        Row b is learner b's bootstrap replicate: m indices into the examples, 0 to m - 1.
    y : array of shape (m,)
        The examples' labels.

    Returns
    -------
    float
        The fraction misclassified among the examples out of bag for at least one learner.

    Raises
    ------
    ValueError
        If the shapes disagree, an index is not one of 0..m - 1, or every replicate contains
        every example (no out-of-bag prediction to count).
    """
    predictions = as_matrix(predictions, "predictions")
    B, m = predictions.shape
    y = as_vector(y, "y")
    samples = np.asarray(samples)
    if samples.shape != (B, m) or len(y) != m:
        raise ValueError(f"predictions {predictions.shape}, samples {samples.shape} and y "
                         f"{y.shape} must have shapes (B, m), (B, m) and (m,).")
    if not np.all((samples == np.round(samples)) & (samples >= 0) & (samples < m)):
        raise ValueError(f"samples must hold row indices 0 to {m - 1}.")
    out = np.ones((B, m), dtype=bool)
    out[np.arange(B)[:, None], samples.astype(np.intp)] = False
    heard = out.any(axis=0)
    if not heard.any():
        raise ValueError("no example is out of bag for any learner: there is no OOB error.")
    classes = np.unique(predictions)
    votes = ((predictions[:, :, None] == classes) & out[:, :, None]).sum(axis=0)  # (m, K)
    return float(np.mean(_winners(votes[heard], classes) != y[heard]))


def _error(prediction: np.ndarray, y: np.ndarray, task: str) -> float:
    if len(y) == 0:
        return float("nan")
    if task == "regress":
        return float(np.mean((prediction - y) ** 2))
    return float(np.mean(prediction != y))


def bagging(X, y, *, n_estimators: int, learner: Callable = decision_tree, seed=None,
            task: str = "classify") -> BaggingResult:
    """Bootstrap aggregating (Breiman 1996; CS446 "Bagging", "Bagged Decision Trees").

    For b = 1..B: draw m row indices uniformly with replacement (a bootstrap replicate), fit
    ``learner`` to those rows. Predict by a plurality vote of the B learners (ties to the
    smallest label), or by their mean for ``task="regress"``. An example left out of a
    replicate (about e⁻¹ ≈ 37% are) is *out of bag* for that learner; its out-of-bag prediction
    aggregates only those learners, which gives an estimate of the test error without a test
    set. A replicate that holds every example (chance m!/mᵐ: always for m = 1, 1 in 2,755 for
    m = 10) leaves none out, and its learner takes part in no out-of-bag prediction.

    Parameters
    ----------
    X : array of shape (m, d)
    y : array of shape (m,)
    n_estimators : int >= 1
        B.
    learner : callable (X, y) -> object with ``predict(X)``
        A fully grown :func:`mllib.trees.decision_tree` by default.
    seed : int, numpy.random.Generator or None
        For the replicates: the same seed gives the same ensemble.
    task : {"classify", "regress"}

    Returns
    -------
    BaggingResult
    """
    X = as_matrix(X)
    y = as_vector(y, "y")
    m = len(X)
    if len(y) != m:
        raise ValueError(f"X has {m} rows but y has {len(y)} labels; they must match.")
    n_estimators = positive_int(n_estimators, "n_estimators")
    if task not in ("classify", "regress"):
        raise ValueError(f"unknown task {task!r}; choose classify or regress.")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    classes = None if task == "regress" else np.unique(y)
    tally = np.zeros((m, 1 if classes is None else len(classes)))  # OOB sums or votes
    heard = np.zeros(m)  # how many learners each example was out of bag for
    history = []
    for b in range(1, n_estimators + 1):
        sample = rng.integers(0, m, m)
        h = learner(X[sample], y[sample])
        out = np.ones(m, bool)
        out[sample] = False
        if out.any():  # a replicate holding every example (chance m!/mᵐ) votes for none
            guess = h.predict(X[out])
            tally[out] += guess[:, None] if classes is None else guess[:, None] == classes
            heard[out] += 1
        oob_prediction = _aggregate(tally, heard, classes)
        seen = heard > 0
        history.append(BagRound(b, sample, h, _error(oob_prediction[seen], y[seen], task)))
    return BaggingResult(tuple(history), task, classes, oob_prediction, history[-1].oob_error)


def _aggregate(tally: np.ndarray, heard: np.ndarray, classes: np.ndarray | None) -> np.ndarray:
    """Out-of-bag predictions from the running tallies; NaN where no learner voted."""
    if classes is None:
        mean = tally[:, 0] / np.where(heard > 0, heard, 1)
    else:
        mean = _winners(tally, classes).astype(float)
    return np.where(heard > 0, mean, np.nan)


def random_forest(X, y, *, n_estimators: int, max_features: int | str = "sqrt",
                  max_depth: int | None = None, criterion: str = "gini",
                  seed=None) -> BaggingResult:
    """A random forest (CS446 "Random Forests (Bagged Trees++)"; Breiman 2001).

    Bagged CART trees (:func:`bagging` of :func:`mllib.trees.decision_tree`) in which every
    split considers only ``max_features`` features drawn at random (one more when all of
    those are constant in the node, so the trees are still fully grown). One seed fixes both the
    bootstrap replicates and the feature draws (two independent streams spawned from it).

    Parameters
    ----------
    X : array of shape (m, d)
    y : array of shape (m,)
        Class labels.
    n_estimators : int >= 1
    max_features : int or "sqrt"
    max_depth : int or None
    criterion : {"gini", "entropy"}
    seed : int, numpy.random.Generator or None

    Returns
    -------
    BaggingResult
    """
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    boot_rng, tree_rng = rng.spawn(2)
    grow = partial(decision_tree, max_depth=max_depth, criterion=criterion,
                   max_features=max_features, seed=tree_rng)
    return bagging(X, y, n_estimators=n_estimators, learner=grow, seed=boot_rng)
