"""Lecture 15: the MapReduce perceptron, parameter mixing, the parallel SVM and streaming.

Oracles: MMDS Fig. 12.6's numbers worked by hand, a batch perceptron loop written here, the
sequential perceptron on the concatenated stream, an independent Pegasos loop, scikit-learn's
LinearSVC, McDonald et al.'s mistake bound (hypothesis), and a real Dask LocalCluster.
"""

from __future__ import annotations

import doctest
import subprocess
import sys
import tracemalloc

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_support import examples
from sklearn.svm import LinearSVC

from mllib import parallel as par
from mllib import perceptron as P
from mllib import svm
from mllib.data import chunk_stream, mmds_spam, noisy, separable
from mllib.demos import parallel as demo

FAST = examples(30)


def spam():
    X, y, _ = mmds_spam()
    return X, y


def batch_perceptron(X, y, eta, max_rounds):
    """The batch perceptron written out: every round, w += η·Σ over the mistakes of y·x."""
    w = np.zeros(X.shape[1])
    totals = []
    for _ in range(max_rounds):
        wrong = [i for i in range(len(y)) if y[i] * sum(w * X[i]) <= 0]
        totals.append(len(wrong))
        if not wrong:
            break
        w = w + eta * sum(y[i] * X[i] for i in wrong)
    return w, totals


# --- MMDS Fig. 12.6 ---------------------------------------------------------------------------


def test_one_round_on_mmds_fig_12_6_from_zero_adds_the_six_emails():
    # From w = 0 every score is 0, a mistake (MMDS), so the increment is ½·(a + c + e - b - d - f)
    # = ½·([2, 2, 2, 1, 2] - [2, 0, 2, 3, 0]) = [0, 1, 0, -1, 1].
    X, y = spam()
    w, mistakes = par.mapreduce_round(np.zeros(5), par.split(X, y, 3), 0.5)
    np.testing.assert_array_equal(w, [0, 1, 0, -1, 1])  # halves of integers: exact
    assert mistakes == (2, 2, 2)


def test_the_first_round_already_separates_the_six_emails():
    X, y = spam()
    scores = X @ np.array([0.0, 1, 0, -1, 1])
    assert np.all(y * scores > 0)
    run = par.mapreduce_perceptron(par.split(X, y, 2), eta=0.5)
    assert run.converged and run.rounds == 2
    assert [r.total for r in run.history] == [6, 0]


def test_map_and_reduce_on_the_first_three_emails():
    X, y = spam()
    increment, mistakes = par.map_mistakes(np.zeros(5), X[:3], y[:3], eta=0.5)
    np.testing.assert_array_equal(increment, [0.5, 1, 0, 0, 0.5])  # ½(a - b + c)
    assert mistakes == 3
    total, count = par.reduce_sums([(increment, 3), (np.array([-0.5, 0, 0, -1, 0.5]), 3)])
    np.testing.assert_array_equal(total, [0, 1, 0, -1, 1])
    assert count == 6


def test_a_score_of_zero_is_a_mistake_but_a_correct_sign_is_not():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.array([1.0, -1.0, -1.0])
    increment, mistakes = par.map_mistakes([0.0, -1.0], X, y)  # scores 0, -1, -1
    assert mistakes == 1  # only the first (score 0); the other two are right
    np.testing.assert_array_equal(increment, [1.0, 0.0])


# --- The batch perceptron as oracle -----------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_one_chunk_equals_the_batch_perceptron_loop(seed):
    X, y, _ = separable(60, 3, margin=0.1, seed=seed)
    run = par.mapreduce_perceptron([(X, y)], eta=1.0, max_rounds=200)
    w, totals = batch_perceptron(X, y, 1.0, 200)
    assert [r.total for r in run.history] == totals
    # the same sums, in the same order up to numpy's summation: rounding only
    np.testing.assert_allclose(run.w, w, rtol=1e-9, atol=1e-12)
    assert run.converged


def test_more_chunks_do_not_change_the_rounds():
    # Binary features and η = ½: every partial sum is exact, so the results are identical.
    rng = np.random.default_rng(5)
    X = (rng.random((120, 8)) < 0.4).astype(float)
    y = np.where(X[:, 0] + X[:, 1] - X[:, 2] >= 1, 1.0, -1.0)
    runs = [par.mapreduce_perceptron(par.split(X, y, p), eta=0.5, max_rounds=60)
            for p in (1, 2, 4)]
    for run in runs[1:]:
        np.testing.assert_array_equal(run.w, runs[0].w)
        assert [r.total for r in run.history] == [r.total for r in runs[0].history]
    assert [len(r.mistakes) for r in runs[2].history[:1]] == [4]


def test_on_real_valued_features_chunks_change_only_the_rounding():
    X, y, _ = separable(200, 4, margin=0.05, seed=3)
    one, four = (par.mapreduce_perceptron(par.split(X, y, p), max_rounds=300) for p in (1, 4))
    # float sums in another order differ in the last bits; 1e-9 relative is far above that
    np.testing.assert_allclose(four.w, one.w, rtol=1e-9, atol=1e-12)
    assert [r.total for r in four.history] == [r.total for r in one.history]


def test_the_round_limit_stops_non_separable_data():
    X, y, _ = noisy(80, 2, flip=0.2, seed=1)
    run = par.mapreduce_perceptron(par.split(X, y, 2), max_rounds=7)
    assert not run.converged and run.rounds == 7 and len(run.history) == 7
    assert all(r.total > 0 for r in run.history)


# --- Parameter mixing -------------------------------------------------------------------------


def test_mixing_with_one_chunk_is_the_sequential_perceptron():
    X, y, _ = separable(80, 3, margin=0.1, seed=4)
    mixed = par.parameter_mixing([(X, y)], max_rounds=100)
    sequential = P.perceptron(X, y, max_epochs=100)
    np.testing.assert_array_equal(mixed.w, sequential.w)  # the same additions in the same order
    assert mixed.rounds == sequential.epochs
    assert sum(r.total for r in mixed.history) == sequential.mistakes


@FAST
@given(seed=st.integers(0, 2**32 - 1), parts=st.integers(1, 6),
       gamma=st.sampled_from([0.05, 0.1, 0.2]))
def test_mixing_obeys_mcdonald_hall_manns_mistake_bound(seed, parts, gamma):
    # Theorem 3 (uniform mixing): Σ_rounds Σ_chunks mistakes / P <= (R/γ)².
    X, y, _ = separable(60, 3, margin=gamma, seed=seed)
    run = par.parameter_mixing(par.split(X, y, parts), max_rounds=10_000)
    assert run.converged
    total = sum(r.total for r in run.history)
    assert total / parts <= P.mistake_bound(P.radius(X), gamma)


def test_mixing_on_chunks_of_one_example_is_the_mapreduce_perceptron():
    # Exercise 6's reference answer. (a) With P = n chunks of one example, a mixing round at rate
    # η is a MapReduce round at η/n, so from w = 0 it makes the mistakes of the MapReduce
    # perceptron at any rate, round for round; on Fig. 12.6 round 1 gives w = [0, 1/6, 0, -1/6,
    # 1/6] and round 2 none. (b) Its rounds are at most P·(R/γ)² + 1. Oracle: the batch loop.
    for X, y, gamma in (spam() + (None,), separable(40, 3, margin=0.1, seed=3)[:2] + (0.1,)):
        n = len(y)
        mixed = par.parameter_mixing(par.split(X, y, n), eta=0.5, max_rounds=1000)
        w, totals = batch_perceptron(X, y, 1.0, 1000)
        assert mixed.converged and [r.total for r in mixed.history] == totals
        assert all(set(r.mistakes) <= {0, 1} for r in mixed.history)
        np.testing.assert_allclose(mixed.w, 0.5 / n * w, rtol=1e-9, atol=1e-12)  # rounding only
        if gamma:
            assert mixed.rounds <= n * P.mistake_bound(P.radius(X), gamma) + 1
    first, second = par.parameter_mixing(par.split(*spam(), 6), eta=0.5).history
    np.testing.assert_allclose(first.w, np.array([0, 1, 0, -1, 1]) / 6, rtol=1e-12)
    assert first.mistakes == (1,) * 6 and second.total == 0


# --- The parallel SVM -------------------------------------------------------------------------


def test_svm_with_one_chunk_is_mmds_gradient_descent():
    X, y = svm.mmds_fig_12_18()
    run = par.mapreduce_svm([(X, y)], C=0.1, eta=0.2, w0=[0, 1], b0=-2, iterations=6)
    book = svm.gradient_descent(X, y, C=0.1, eta=0.2, w0=[0, 1], b0=-2, iterations=6)
    np.testing.assert_allclose(run.w, book.w, rtol=1e-12)
    # MMDS Fig. 12.20 row (2): w = [0.04, 0.84], b = -1.58 after one step
    np.testing.assert_allclose([*run.history[1].w, run.history[1].b], [0.04, 0.84, -1.58],
                               atol=1e-12)  # the book prints these exactly


def test_svm_chunks_sum_to_the_whole_gradient():
    X, y, _ = noisy(90, 3, flip=0.1, seed=6)
    w, b = np.array([0.3, -0.2, 0.5]), 0.1
    parts = [par.map_hinge(w, Xp, yp, b=b, C=0.7) for Xp, yp in par.split(X, y, 3)]
    whole = svm.gradient(w, b, X, y, 0.7, regularize_bias=True)
    total = np.append(w, b) + np.sum([share for share, _, _ in parts], axis=0)
    np.testing.assert_allclose(total, whole, rtol=1e-12, atol=1e-12)
    objective = 0.5 * (w @ w + b * b) + sum(loss for _, loss, _ in parts)
    assert objective == pytest.approx(svm.objective(w, b, X, y, 0.7, regularize_bias=True),
                                      rel=1e-12)


def test_parallel_svm_reaches_linearsvcs_optimum():
    # LinearSVC(loss="hinge", intercept_scaling=1) regularises the intercept as a weight of a
    # constant feature 1: exactly MMDS's ½(‖w‖² + b²) + C·Σ hinge.
    X, y, _ = noisy(200, 2, margin=0.1, flip=0.05, seed=0)
    C = 0.5
    ref = LinearSVC(C=C, loss="hinge", intercept_scaling=1.0, tol=1e-8, max_iter=200_000,
                    dual=True).fit(X, y)
    best = svm.objective(ref.coef_[0], ref.intercept_[0], X, y, C, regularize_bias=True)
    run = par.mapreduce_svm(par.split(X, y, 4), C=C, eta=0.01, iterations=3000, decay=True)
    ours = run.history[-1].objective
    # a subgradient method with a 1/t step: within 1% of the optimum after 3000 iterations
    assert best <= ours * (1 + 1e-6)  # sklearn's is the optimum (up to its tolerance)
    assert ours <= best * 1.01


# --- Streaming --------------------------------------------------------------------------------


def test_streaming_perceptron_is_one_epoch_on_the_concatenation():
    X, y, _ = separable(300, 4, margin=0.05, seed=8)
    chunks = (chunk for chunk in par.split(X, y, 7))  # a generator: seen once
    streamed = par.stream_perceptron(chunks)
    epoch = P.perceptron(X, y, max_epochs=1)
    np.testing.assert_array_equal(streamed.w, epoch.w)
    assert sum(s.mistakes for s in streamed.history) == epoch.mistakes
    assert streamed.seen == 300 and len(streamed.history) == 7


def pegasos(X, y, lam, regularize_bias=False):
    """Pegasos written out (Shalev-Shwartz et al. 2007), step 1/(λt) at the t-th example, the
    bias as the weight of a constant feature 1: left out of the shrinking (the default, SGD on
    (λ/2)‖w‖² + mean hinge) or, with ``regularize_bias``, shrunk like the others."""
    v = np.zeros(X.shape[1] + 1)
    shrunk = np.append(np.ones(X.shape[1]), 1.0 if regularize_bias else 0.0)
    for t, (x, label) in enumerate(zip(X, y, strict=True), start=1):
        xb = np.append(x, 1.0)
        step = 1.0 / (lam * t)
        hit = label * (v @ xb) <= 1
        v = v - step * lam * shrunk * v + (step * label * xb if hit else 0.0)
    return v


@pytest.mark.parametrize("regularize_bias", [False, True])
def test_streaming_sgd_is_pegasos(regularize_bias):
    X, y, _ = noisy(500, 3, flip=0.05, seed=9)
    run = par.stream_sgd(iter(par.split(X, y, 9)), lam=0.01, regularize_bias=regularize_bias)
    v = pegasos(X, y, 0.01, regularize_bias)
    np.testing.assert_allclose(np.append(run.w, run.b), v, rtol=1e-9, atol=1e-12)


def test_the_unshrunk_bias_takes_raw_steps_the_first_one_of_size_one_over_lambda():
    # Walk-through §3: b's first step sets it to ±1/λ = ±1000, it is still about 10 after 50
    # steps and below 1 in size by step 1000 (the printed path). Oracle: Pegasos written out.
    # Both sum the same ±1/(λt) steps, rounded differently: atol covers 1e-16 · 1000s of terms.
    X, y = demo.mixing_sample()
    steps = (1, 2, 10, 50, 100, 1000, 4000)
    path = demo.pegasos_bias_path(steps)
    np.testing.assert_allclose(path, [pegasos(X[:k], y[:k], 1e-3)[-1] for k in steps],
                               rtol=1e-9, atol=1e-8)
    assert abs(path[0]) == 1000 and 10 < abs(path[3]) < 11 and np.all(np.abs(path[-2:]) < 1)


def test_by_default_the_bias_is_not_shrunk_so_sgd_runs_on_svm_objective():
    # One example that violates its margin, then one that does not (y·(w·x + b) > 1): the
    # second step shrinks w by (1 - 1/t) and leaves b alone unless regularize_bias.
    X, y = np.array([[1.0, 0.0], [10.0, 0.0]]), np.array([1, 1])
    free = par.stream_sgd([(X, y)], lam=1.0)
    shrunk = par.stream_sgd([(X, y)], lam=1.0, regularize_bias=True)
    assert (free.w.tolist(), free.b) == ([0.5, 0.0], 1.0)
    assert (shrunk.w.tolist(), shrunk.b) == ([0.5, 0.0], 0.5)
    assert par.svm_mixing([(X, y)], lam=1.0, rounds=1).b == 1.0


@pytest.mark.parametrize("learner", [par.stream_perceptron,
                                     lambda chunks: par.stream_sgd(chunks, lam=1e-3)])
def test_a_stream_larger_than_the_memory_budget_passes_through(learner):
    budget = 4 * 2**20  # 4 MiB
    chunks, rows, d = 60, 2000, 40
    assert chunks * rows * d * 8 > 8 * budget  # 38 MB of data made, over eight budgets
    tracemalloc.start()
    try:
        run = learner(chunk_stream(chunks, rows, d))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert run.seen > 0.7 * chunks * rows  # most rows survive the margin filter
    assert peak < budget, f"peak {peak / 2**20:.1f} MiB"
    assert run.history[-1].mistakes < run.history[0].mistakes  # it learns as it goes


# --- The SVM by averaging (MMDS §12.3.6, first approach) -------------------------------------


def test_svm_mixing_with_one_chunk_is_pegasos_epoch_after_epoch():
    X, y, _ = noisy(300, 3, flip=0.05, seed=4)
    lam = 0.01
    run = par.svm_mixing([(X, y)], lam=lam, rounds=3)
    v = pegasos(np.vstack([X] * 3), np.concatenate([y] * 3), lam)  # the oracle loop above
    np.testing.assert_allclose(np.append(run.w, run.b), v, rtol=1e-9, atol=1e-12)


def test_svm_mixing_averages_the_chunks_pegasos_runs():
    X, y, _ = noisy(200, 3, flip=0.05, seed=5)
    chunks = par.split(X, y, 4)
    lam = 0.02
    first = par.svm_mixing(chunks, lam=lam, rounds=1)
    each = [pegasos(X_p, y_p, lam) for X_p, y_p in chunks]  # from 0 with t from 1
    np.testing.assert_allclose(np.append(first.w, first.b), np.mean(each, axis=0),
                               rtol=1e-9, atol=1e-12)
    # From w = 0 the first example of every chunk violates its margin.
    assert len(first.history[0].violations) == 4 and min(first.history[0].violations) >= 1


def test_svm_objective_is_pegasos_objective():
    X, y, _ = noisy(50, 2, seed=1)
    w, b, lam = np.array([0.5, -1.0]), 0.25, 0.1
    hinge = np.maximum(0, 1 - y * (X @ w + b)).mean()
    assert par.svm_objective(w, b, X, y, lam=lam) == pytest.approx(lam / 2 * 1.25 + hinge,
                                                                    rel=1e-12)


def test_scattered_sends_the_chunks_once_and_refuses_others():
    X, y = spam()
    chunks = par.split(X, y, 3)

    class Counting(par.InProcess):
        scatters = 0

        def scatter(self, chunks):
            Counting.scatters += 1
            return super().scatter(chunks)

    executor = par.Scattered(Counting(), chunks)
    for _ in range(3):
        run = par.mapreduce_perceptron(chunks, eta=0.5, executor=executor)
    assert Counting.scatters == 1 and run.w.tolist() == [0.0, 1.0, 0.0, -1.0, 1.0]
    with pytest.raises(ValueError, match="other chunks"):
        par.mapreduce_perceptron(par.split(X, y, 2), executor=executor)


# --- Validation -------------------------------------------------------------------------------


def test_bad_input_is_named():
    X, y = spam()
    with pytest.raises(ValueError, match="7 non-empty chunks"):
        par.split(X, y, 7)
    with pytest.raises(ValueError, match="cannot cut 1 example into 2 non-empty chunks"):
        par.split(X[:1], y[:1], 2)
    with pytest.raises(ValueError, match="different numbers of features"):
        par.mapreduce_perceptron([(X, y), (X[:, :3], y)])
    with pytest.raises(ValueError, match="no chunks"):
        par.mapreduce_perceptron([])
    with pytest.raises(ValueError, match="labels must be -1 or \\+1"):
        par.map_mistakes(np.zeros(5), X, (y + 1) / 2)
    with pytest.raises(ValueError, match="eta"):
        par.map_mistakes(np.zeros(5), X, y, eta=0)
    with pytest.raises(ValueError, match="stream is empty"):
        par.stream_perceptron(iter([]))
    with pytest.raises(ValueError, match="output of at least one"):
        par.reduce_sums([])
    with pytest.raises(ValueError, match="distributed.Client"):
        par.DaskExecutor("not a client")


def test_mllib_parallel_works_without_dask():
    code = ("import sys; sys.modules['dask'] = sys.modules['distributed'] = None\n"
            "from mllib import parallel\nfrom mllib.data import mmds_spam\n"
            "X, y, _ = mmds_spam()\n"
            "print(parallel.mapreduce_perceptron(parallel.split(X, y, 2), eta=0.5).w.tolist())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[0.0, 1.0, 0.0, -1.0, 1.0]"


# --- Dask -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def client():
    """One real two-worker LocalCluster for the module, closed afterwards."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        yield client


@pytest.mark.parametrize("parts", [1, 2, 4])
def test_dask_and_in_process_give_identical_results(client, parts):
    X, y, _ = separable(240, 5, margin=0.03, seed=11)
    # Integer features and η = 1: every sum of the perceptrons is an exact integer, whatever the
    # order in which BLAS adds (Dask's workers run it single-threaded; this process may not).
    integral = par.split(np.round(100 * X), y, parts)
    dask = par.DaskExecutor(client)
    for train in (par.mapreduce_perceptron, par.parameter_mixing):
        here = train(integral, max_rounds=500)
        there = train(integral, max_rounds=500, executor=dask)
        np.testing.assert_array_equal(there.w, here.w)
        assert [r.mistakes for r in there.history] == [r.mistakes for r in here.history]
    chunks = par.split(X, y, parts)
    here = par.mapreduce_svm(chunks, C=1.0, eta=0.01, iterations=20)
    there = par.mapreduce_svm(chunks, C=1.0, eta=0.01, iterations=20,
                              executor=par.Scattered(dask, chunks))
    # Real-valued sums may differ in the last bits when added in another order: 20 steps of
    # rounding error stay far below 1e-12 relative.
    np.testing.assert_allclose(there.w, here.w, rtol=1e-12, atol=1e-15)
    assert there.history[-1].bad == here.history[-1].bad
    here = par.svm_mixing(chunks, lam=0.01, rounds=3)
    there = par.svm_mixing(chunks, lam=0.01, rounds=3, executor=dask)
    np.testing.assert_allclose(there.w, here.w, rtol=1e-12, atol=1e-15)


def test_docstring_examples_run():
    assert doctest.testmod(par).failed == 0
