"""Learning at scale: the perceptron and the SVM over chunks of data, in parallel and streamed.

Sources
-------
- MMDS ch. 12 (seed 003) §12.2.8: the perceptron as a MapReduce job. Every Map task holds the
  current w and a chunk of the training set, and emits η·y·x for each example of its chunk that
  w misclassifies; the Reduce adds the increments to w. One job per round, until a round changes
  nothing.
- MMDS §12.3.6, second approach: the SVM's gradient descent (§12.3.4, eq. 12.6) with the sum
  over the training examples computed in parallel, one MapReduce round per iteration.
- MMDS §12.3.5: stochastic gradient descent, here fed by a stream of chunks.
- McDonald, Hall and Mann, "Distributed training strategies for the structured perceptron",
  NAACL 2010: iterative parameter mixing.

Conventions
-----------
Labels are in {-1, +1}; a score w·x = 0 is a mistake whatever the label (MMDS §12.2.1), as in
``mllib.perceptron``. The training set is a list of *chunks* ``(X_p, y_p)``, one per Map task;
:func:`split` cuts a data set into contiguous chunks. Every algorithm takes an ``executor`` that
runs one function on every chunk: :class:`InProcess` (the default, here, one chunk after the
other) or :class:`DaskExecutor` (the chunks live on the workers of a ``distributed.Client``).
This module imports Dask only inside :class:`DaskExecutor`, so it works without Dask.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from mllib import svm
from mllib.perceptron import DEFAULT_MAX_EPOCHS, perceptron
from mllib.validation import as_data, as_vector, finite, positive, positive_int

Chunk = tuple[np.ndarray, np.ndarray]

# --- Chunks and executors -------------------------------------------------------------------


def split(X, y, parts: int) -> list[Chunk]:
    """Cut (X, y) into ``parts`` contiguous chunks of nearly equal size (the Map tasks' inputs).

    X (n, d), y (n,) in {-1, +1}; 1 <= parts <= n. Returns a list of (X_p, y_p), in order.
    """
    X, y = as_data(X, y)
    parts = positive_int(parts, "parts")
    if parts > len(y):
        examples = f"{len(y)} example{'s' * (len(y) != 1)}"  # parts > n >= 1, so parts >= 2
        raise ValueError(f"cannot cut {examples} into {parts} non-empty chunks.")
    return list(zip(np.array_split(X, parts), np.array_split(y, parts), strict=True))


def as_chunks(chunks) -> list[Chunk]:
    """Validate a list of chunks (X_p, y_p): each a labelled sample, all with the same d."""
    chunks = [as_data(*chunk) for chunk in chunks]
    if not chunks:
        raise ValueError("there are no chunks: the training set needs at least one.")
    widths = {X.shape[1] for X, _ in chunks}
    if len(widths) > 1:
        raise ValueError(f"the chunks have different numbers of features: {sorted(widths)}.")
    return chunks


class InProcess:
    """Run the task on each chunk in this process, one chunk after the other (the default)."""

    def scatter(self, chunks: list[Chunk]) -> list[Chunk]:
        """Where the chunks live between rounds: here, in this process."""
        return chunks

    def map(self, task: Callable, handles: list) -> list:
        """``[task(chunk) for chunk in handles]``, in order."""
        return [task(chunk) for chunk in handles]


class DaskExecutor:
    """Run the task on each chunk as a task of a Dask cluster (``distributed.Client``).

    :meth:`scatter` sends every chunk to a worker once; each round then ships only the task
    (the function and the current w) and gathers the small results, in chunk order. The
    results equal :class:`InProcess`'s bit for bit: the same numpy code runs on the same chunk.
    """

    def __init__(self, client) -> None:
        from distributed import Client  # the only place mllib touches Dask

        if not isinstance(client, Client):
            raise ValueError(f"DaskExecutor needs a distributed.Client; got {type(client)}.")
        self.client = client

    def scatter(self, chunks: list[Chunk]) -> list:
        """Futures of the chunks, one per chunk, held by the workers. Keys are fresh
        (``hash=False``): two runs on equal chunks must not share data that one of them frees."""
        return self.client.scatter(chunks, hash=False)

    def map(self, task: Callable, handles: list) -> list:
        """``task`` on every chunk on the cluster; the results, in chunk order."""
        return self.client.gather(self.client.map(task, handles, pure=False))


class Scattered:
    """An executor whose chunks were scattered ahead of time, once.

    ``Scattered(executor, chunks)`` calls ``executor.scatter(chunks)`` now; later, its
    :meth:`scatter` hands back those handles instead of sending the data again, so a timing of
    the rounds leaves the transfer out. The chunks given to it later must be the same ones: it
    checks their number and shapes and raises ``ValueError`` otherwise.
    """

    def __init__(self, executor, chunks) -> None:
        chunks = as_chunks(chunks)
        self.executor = executor
        self.shapes = [X.shape for X, _ in chunks]
        self.handles = executor.scatter(chunks)

    def scatter(self, chunks: list[Chunk]) -> list:
        """The handles scattered at construction (``chunks`` must be those chunks)."""
        if [X.shape for X, _ in chunks] != self.shapes:
            raise ValueError("Scattered holds other chunks: build it with the chunks you train on.")
        return self.handles

    def map(self, task: Callable, handles: list) -> list:
        """The wrapped executor's map."""
        return self.executor.map(task, handles)


def _on_chunk(step: Callable, w, chunk: Chunk, **options):
    """``step(w, X_p, y_p, **options)``: what an executor runs on one chunk."""
    X, y = chunk
    return step(w, X, y, **options)


# --- The MapReduce perceptron (MMDS §12.2.8) ------------------------------------------------


def map_mistakes(w, X, y, eta: float = 1.0) -> tuple[np.ndarray, int]:
    """The Map task of MMDS §12.2.8: the sum of η·yᵢ·xᵢ over the examples of the chunk that w
    misclassifies, yᵢ·(w·xᵢ) <= 0 (a score of 0 is a mistake, MMDS), and how many there are.

    MMDS emits a key-value pair (j, η·y·xⱼ) per nonzero component; summing them per key inside
    the Map task (a combiner) gives the same totals. Shapes: w (d,), X (n_p, d), y (n_p,).
    Returns (increment of shape (d,), mistakes).
    """
    X, y = as_data(X, y)
    w = as_vector(w, "w", X.shape[1])
    wrong = y * (X @ w) <= 0
    return positive(eta, "eta") * (y[wrong] @ X[wrong]), int(wrong.sum())


def reduce_sums(outputs: Sequence[tuple[np.ndarray, int]]) -> tuple[np.ndarray, int]:
    """The Reduce of MMDS §12.2.8: add the Map tasks' increments, key by key (component by
    component), and their mistakes. ``outputs`` holds one (increment (d,), mistakes) per chunk;
    returns (Σ increments of shape (d,), Σ mistakes)."""
    if not outputs:
        raise ValueError("reduce_sums needs the output of at least one Map task.")
    increments = np.array([increment for increment, _ in outputs], dtype=float)
    return increments.sum(axis=0), int(sum(mistakes for _, mistakes in outputs))


def _mapreduce_round(w, handles, eta, executor) -> tuple[np.ndarray, tuple[int, ...]]:
    outputs = executor.map(partial(_on_chunk, map_mistakes, w, eta=eta), handles)
    increment, _ = reduce_sums(outputs)
    return w + increment, tuple(mistakes for _, mistakes in outputs)


def mapreduce_round(w, chunks, eta: float = 1.0, *, executor=None
                    ) -> tuple[np.ndarray, tuple[int, ...]]:
    """One MapReduce job of MMDS §12.2.8: w ← w + Σ_chunks Σ_{mistakes} η·y·x, with every
    chunk judged by the same w (the round's start).

    Parameters
    ----------
    w : array_like of shape (d,)
    chunks : list of (X_p (n_p, d), y_p (n_p,))
    eta : float, default 1.0
    executor : InProcess or DaskExecutor, optional

    Returns
    -------
    (new w of shape (d,), the mistakes of each chunk)
    """
    chunks = as_chunks(chunks)
    w = as_vector(w, "w", chunks[0][0].shape[1])
    executor = executor or InProcess()
    return _mapreduce_round(w, executor.scatter(chunks), positive(eta, "eta"), executor)


@dataclass(frozen=True)
class Round:
    """One round of a parallel perceptron.

    Attributes
    ----------
    round : int
        From 1.
    w : ndarray of shape (d,)
        The weights after the round.
    mistakes : tuple of int
        The mistakes of each chunk during the round (with the round's starting w for MapReduce,
        during its epoch for parameter mixing).
    """

    round: int
    w: np.ndarray
    mistakes: tuple[int, ...]

    @property
    def total(self) -> int:
        """The round's mistakes over all chunks."""
        return sum(self.mistakes)


@dataclass(frozen=True)
class RoundsResult:
    """What :func:`mapreduce_perceptron` and :func:`parameter_mixing` return.

    Attributes
    ----------
    w : ndarray of shape (d,)
    rounds : int
        The rounds run, the last one included.
    converged : bool
        True when the last round made no mistake, so ``w`` separates every chunk.
    history : tuple of Round
    """

    w: np.ndarray
    rounds: int
    converged: bool
    history: tuple[Round, ...]


def _rounds(chunks, one_round, eta, max_rounds, w0, executor) -> RoundsResult:
    """The loop shared by both parallel perceptrons: rounds until one without a mistake."""
    chunks = as_chunks(chunks)
    d = chunks[0][0].shape[1]
    w = np.zeros(d) if w0 is None else as_vector(w0, "w0", d)
    eta, max_rounds = positive(eta, "eta"), positive_int(max_rounds, "max_rounds")
    executor = executor or InProcess()
    handles = executor.scatter(chunks)
    history: list[Round] = []
    for number in range(1, max_rounds + 1):
        w, mistakes = one_round(w, handles, eta, executor)
        history.append(Round(number, w, mistakes))
        if sum(mistakes) == 0:
            return RoundsResult(w, number, True, tuple(history))
    return RoundsResult(w, max_rounds, False, tuple(history))


def mapreduce_perceptron(chunks, *, eta: float = 1.0, max_rounds: int = DEFAULT_MAX_EPOCHS,
                         w0=None, executor=None) -> RoundsResult:
    """Train the perceptron as MMDS §12.2.8's MapReduce job, repeated.

    Each round is :func:`mapreduce_round`: w ← w + Σ over all misclassified examples of η·y·x,
    all judged with the same w. Stop after a round without mistakes (w then separates the
    training set and would not change) or after ``max_rounds`` rounds.

    This is the *batch* perceptron: one update per pass over the data, the sum of the
    sequential perceptron's would-be updates. The chunks change only who adds what, so the
    result does not depend on how the data is cut (up to the order of floating-point sums:
    exactly the same on integer features with η a power of 2).

    Parameters
    ----------
    chunks : list of (X_p (n_p, d), y_p (n_p,))
        Labels in {-1, +1}; :func:`split` makes them.
    eta : float, default 1.0
    max_rounds : int, default 100
    w0 : array_like of shape (d,), optional
        Zeros by default.
    executor : InProcess or DaskExecutor, optional
        In process by default.

    Returns
    -------
    RoundsResult

    Examples
    --------
    MMDS Fig. 12.6 with η = ½: one round from w = 0 finds every email a mistake and already
    separates them; the second round checks it.

    >>> from mllib.data import mmds_spam
    >>> X, y, _ = mmds_spam()
    >>> run = mapreduce_perceptron(split(X, y, 2), eta=0.5)
    >>> run.w.tolist(), run.rounds, [r.mistakes for r in run.history]
    ([0.0, 1.0, 0.0, -1.0, 1.0], 2, [(3, 3), (0, 0)])
    """
    return _rounds(chunks, _mapreduce_round, eta, max_rounds, w0, executor)


# --- Iterative parameter mixing (McDonald, Hall and Mann 2010) ------------------------------


def _epoch(w, X, y, eta) -> tuple[np.ndarray, int]:
    """One pass of the sequential perceptron over a chunk, from w: (new w, mistakes)."""
    run = perceptron(X, y, eta=eta, max_epochs=1, w0=w)
    return run.w, run.mistakes


def _mixing_round(w, handles, eta, executor) -> tuple[np.ndarray, tuple[int, ...]]:
    outputs = executor.map(partial(_on_chunk, _epoch, w, eta=eta), handles)
    mixed = np.mean([w_p for w_p, _ in outputs], axis=0)
    return mixed, tuple(mistakes for _, mistakes in outputs)


def parameter_mixing(chunks, *, eta: float = 1.0, max_rounds: int = DEFAULT_MAX_EPOCHS,
                     w0=None, executor=None) -> RoundsResult:
    """Iterative parameter mixing (McDonald, Hall and Mann 2010, Fig. 3, uniform weights).

    Each round, every chunk p runs one epoch of the sequential perceptron
    (``mllib.perceptron.perceptron``, MMDS's rule) starting from the mixed w, giving w_p; then
    w ← (1/P)·Σ_p w_p. Stop after a round in which no chunk made a mistake (every w_p is then
    the starting w, so w separates the data) or after ``max_rounds``.

    The guarantee (their Theorem 3): started from w = 0 (``w0=None``), on data that a unit
    vector separates with margin γ, with ‖x‖ <= R, the mistakes k_{p,n} of chunk p in round n
    satisfy Σ_n Σ_p k_{p,n}/P <= (R/γ)²: the average chunk makes no more mistakes in total than
    the sequential perceptron's bound, so the rounds are finite. MMDS's scheme
    (:func:`mapreduce_perceptron`) updates once per round; here each chunk updates after each of
    its mistakes, which often needs fewer rounds, but not always: the rounds depend on which
    examples share a chunk (lecture 15's table has P = 7 chunks needing more rounds than MMDS's
    scheme).

    Parameters and return value are as for :func:`mapreduce_perceptron`.
    """
    return _rounds(chunks, _mixing_round, eta, max_rounds, w0, executor)


# --- The SVM by parallel gradient descent (MMDS §12.3.6) ------------------------------------


def map_hinge(w, X, y, *, b: float, C: float) -> tuple[np.ndarray, float, int]:
    """The Map task of the SVM's gradient (MMDS §12.3.6, second approach): a chunk's share of
    the second term of eq. 12.6, C·Σᵢ (0 if yᵢ(w·xᵢ + b) >= 1 else -yᵢ[xᵢ, 1]) (from
    ``mllib.svm``), its hinge loss C·Σᵢ max(0, 1 - yᵢ(w·xᵢ + b)) and its bad points (zᵢ < 1).

    Shapes: w (d,), X (n_p, d), y (n_p,). Returns (gradient share of shape (d + 1,), loss, bad).
    """
    X, y = as_data(X, y)
    w, b, C = as_vector(w, "w", X.shape[1]), finite(b, "b"), positive(C, "C")
    z = y * (X @ w + b)
    return (svm._hinge_gradient(w, b, X, y, C), float(C * svm.hinge_loss(z).sum()),
            int((z < 1).sum()))


@dataclass(frozen=True)
class SVMStep:
    """One iteration of :func:`mapreduce_svm`, evaluated at its starting point (w, b).

    Attributes
    ----------
    iteration : int
        Updates made before this point (from 0).
    w : ndarray of shape (d,)
    b : float
    objective : float
        Eq. 12.4 at (w, b), plus b²/2 with ``regularize_bias``.
    bad : tuple of int
        The bad points (zᵢ < 1) of each chunk.
    """

    iteration: int
    w: np.ndarray
    b: float
    objective: float
    bad: tuple[int, ...]


@dataclass(frozen=True)
class SVMResult:
    """What :func:`mapreduce_svm` returns: the final ``w`` (d,) and ``b``, and iterations + 1
    steps (``history[0]`` is the start, ``history[-1]`` the returned point)."""

    w: np.ndarray
    b: float
    history: tuple[SVMStep, ...]


def mapreduce_svm(chunks, *, C: float, eta: float, iterations: int = 100, w0=None,
                  b0: float = 0.0, regularize_bias: bool = True, decay: bool = False,
                  executor=None) -> SVMResult:
    """Batch gradient descent on the SVM objective with the sum over examples done in parallel
    (MMDS §12.3.6, second approach; one MapReduce round per iteration).

    Map: each chunk's :func:`map_hinge` at the current (w, b). Reduce: add them. Then the
    update of MMDS §12.3.4: [w, b] ← [w, b] - η·([w, b] + Σ_chunks share), with b regularised
    as w_{d+1} when ``regularize_bias`` (MMDS's convention, see ``mllib.svm``). With one chunk
    this is ``mllib.svm.gradient_descent``; ``decay`` is its step ηₜ = η/(1 + η·t).

    Parameters
    ----------
    chunks : list of (X_p (n_p, d), y_p (n_p,))
    C, eta : float
        C > 0 of eq. 12.4 and the step η > 0.
    iterations : int, default 100
    w0 : array_like of shape (d,), optional
    b0 : float, default 0.0
    regularize_bias, decay : bool
    executor : InProcess or DaskExecutor, optional

    Returns
    -------
    SVMResult
    """
    chunks = as_chunks(chunks)
    d = chunks[0][0].shape[1]
    C, eta = positive(C, "C"), positive(eta, "eta")
    w = np.zeros(d) if w0 is None else as_vector(w0, "w0", d)
    executor = executor or InProcess()
    handles = executor.scatter(chunks)

    def hinge_terms(w, b):  # Map on every chunk, then Reduce
        outputs = executor.map(partial(_on_chunk, map_hinge, w, b=b, C=C), handles)
        return (np.sum([share for share, _, _ in outputs], axis=0),
                sum(loss for _, loss, _ in outputs), tuple(bad for _, _, bad in outputs))

    def record(t, w, b, grad, value, bad):
        return SVMStep(t, w, b, value, bad)

    w, b, steps = svm.descend(w, finite(b0, "b0"), hinge_terms, record, eta=eta,
                              iterations=positive_int(iterations, "iterations"),
                              regularize_bias=regularize_bias, decay=decay)
    return SVMResult(w, b, steps)


def _pegasos_epoch(w, X, y, *, b: float, passes: int, pull: float, regularize_bias: bool,
                   ) -> tuple[np.ndarray, float, int]:
    """One more pass of Pegasos over a chunk that ``passes`` earlier passes visited, from
    (w, b), its step counter going on from t = passes·n_p: (new w, new b, margin violations)."""
    t = passes * len(y)
    w, b, _, violations = svm._sgd_steps(w, b, X, y, t, pull, None, regularize_bias)
    return w, b, violations


@dataclass(frozen=True)
class MixingStep:
    """One round of :func:`svm_mixing`: the averaged ``w`` (d,) and ``b`` after it, and the
    margin violations y(w·x + b) <= 1 that each chunk's pass met."""

    round: int
    w: np.ndarray
    b: float
    violations: tuple[int, ...]


@dataclass(frozen=True)
class MixingResult:
    """What :func:`svm_mixing` returns: the final ``w`` (d,) and ``b`` and a step per round."""

    w: np.ndarray
    b: float
    history: tuple[MixingStep, ...]


def svm_mixing(chunks, *, lam: float, rounds: int = 10, regularize_bias: bool = False,
               executor=None) -> MixingResult:
    """The SVM by averaging (MMDS §12.3.6, first approach): SGD on every chunk, then the mean.

    Each round, every chunk p runs one pass of Pegasos (:func:`stream_sgd`'s step 1/(λt)) over
    its own examples, starting from the mixed (w, b), with its step counter continuing from
    t = (round - 1)·n_p; then (w, b) ← the average of the chunks' (w_p, b_p). One MapReduce
    job per round, like :func:`parameter_mixing` for the perceptron. With one chunk this is
    ``rounds`` epochs of Pegasos on the whole sample, in order.

    Parameters
    ----------
    chunks : list of (X_p (n_p, d), y_p (n_p,))
    lam : float
        λ > 0 of (λ/2)‖w‖² + mean hinge loss (:func:`svm_objective`).
    rounds : int, default 10
    regularize_bias : bool, default False
        False: b is not shrunk, so each pass is SGD on :func:`svm_objective`; True: b is
        shrunk like w, SGD on (λ/2)(‖w‖² + b²) + mean hinge loss (MMDS's b as w_{d+1}).
    executor : InProcess, DaskExecutor or Scattered, optional

    Returns
    -------
    MixingResult
    """
    chunks = as_chunks(chunks)
    pull = 1.0 / positive(lam, "lam")
    rounds = positive_int(rounds, "rounds")
    executor = executor or InProcess()
    handles = executor.scatter(chunks)
    w, b = np.zeros(chunks[0][0].shape[1]), 0.0
    history: list[MixingStep] = []
    for number in range(1, rounds + 1):
        outputs = executor.map(partial(_on_chunk, _pegasos_epoch, w, b=b, passes=number - 1,
                                       pull=pull, regularize_bias=regularize_bias), handles)
        w = np.mean([w_p for w_p, _, _ in outputs], axis=0)
        b = float(np.mean([b_p for _, b_p, _ in outputs]))
        history.append(MixingStep(number, w, b, tuple(v for _, _, v in outputs)))
    return MixingResult(w, b, tuple(history))


def svm_objective(w, b: float, X, y, *, lam: float) -> float:
    """Pegasos's objective (λ/2)‖w‖² + (1/n)·Σᵢ max(0, 1 - yᵢ(w·xᵢ + b)), X (n, d), y (n,):
    eq. 12.4 divided by n·C with λ = 1/(n·C) (the bias not regularised here)."""
    X, y = as_data(X, y)
    w = as_vector(w, "w", X.shape[1])
    z = y * (X @ w + finite(b, "b"))
    return float(positive(lam, "lam") / 2 * w @ w + svm.hinge_loss(z).mean())


# --- Streaming: data larger than memory, one chunk at a time ---------------------------------


@dataclass(frozen=True)
class StreamStep:
    """The state after one chunk of a stream.

    Attributes
    ----------
    chunk : int
        From 1.
    rows : int
        Examples in the chunk.
    mistakes : int
        Updates made on the chunk (perceptron: mistakes; SGD: margin violations, y(w·x+b) <= 1).
    w : ndarray of shape (d,)
    b : float
        The bias (0 for the perceptron, whose threshold is a feature).
    """

    chunk: int
    rows: int
    mistakes: int
    w: np.ndarray
    b: float


@dataclass(frozen=True)
class StreamResult:
    """The final ``w`` (d,) and ``b``, examples seen, and one :class:`StreamStep` per chunk."""

    w: np.ndarray
    b: float
    seen: int
    history: tuple[StreamStep, ...]


def _stream(chunks: Iterable, learn: Callable, w0) -> StreamResult:
    """Feed each chunk to ``learn(w, b, X, y) -> (w, b, updates)``; keep only the state.

    Memory: one chunk at a time (the iterator makes the next one when asked), plus d + 3
    numbers of history per chunk.
    """
    w, b, seen = (None if w0 is None else np.asarray(w0, dtype=float)), 0.0, 0
    history: list[StreamStep] = []
    for number, chunk in enumerate(chunks, start=1):
        X, y = as_data(*chunk)
        w = np.zeros(X.shape[1]) if w is None else as_vector(w, "w", X.shape[1])
        w, b, updates = learn(w, b, X, y)
        seen += len(y)
        history.append(StreamStep(number, len(y), updates, w, b))
    if w is None:
        raise ValueError("the stream is empty: it yielded no chunk.")
    return StreamResult(w, b, seen, tuple(history))


def stream_perceptron(chunks: Iterable, *, eta: float = 1.0, w0=None) -> StreamResult:
    """The sequential perceptron (MMDS §12.2.1, ``mllib.perceptron``) over a stream of chunks
    (X_c (n_c, d), y_c (n_c,)), each visited once, in order: one pass over data that need
    never be in memory at once. Identical to one epoch of the perceptron on the concatenation.
    """
    eta = positive(eta, "eta")

    def learn(w, b, X, y):
        w, mistakes = _epoch(w, X, y, eta)
        return w, b, mistakes

    return _stream(chunks, learn, w0)


def stream_sgd(chunks: Iterable, *, lam: float, regularize_bias: bool = False) -> StreamResult:
    """Stochastic gradient descent for the SVM (MMDS §12.3.5) over a stream of chunks: Pegasos
    on (λ/2)‖w‖² + the mean hinge loss, one example at a time with step 1/(λt) at the t-th
    example, counting across chunks (``mllib.svm.sgd``'s step with γₜ = 1/t and C' = 1/λ).

    For n examples this is eq. 12.4 divided by n·C with λ = 1/(n·C); a stream has no n, so λ is
    the parameter. Chunks (X_c (n_c, d), y_c (n_c,)) are visited once, in order. By default
    b is not regularised (the objective of :func:`svm_objective`); ``regularize_bias`` shrinks
    b like w, SGD on (λ/2)(‖w‖² + b²) + mean hinge loss.
    """
    pull = 1.0 / positive(lam, "lam")
    t = 0

    def learn(w, b, X, y):
        nonlocal t
        w, b, t, violations = svm._sgd_steps(w, b, X, y, t, pull, None, regularize_bias)
        return w, b, violations

    return _stream(chunks, learn, None)
