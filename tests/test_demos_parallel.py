"""The learning-at-scale walk-through's widget logic, tables and figures, driven without a
browser."""

import numpy as np
import pytest
from matplotlib.collections import PolyCollection

from mllib import parallel
from mllib import perceptron as P
from mllib.data import mmds_spam, separable
from mllib.demos import parallel as demo


def texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_scheme_shows_each_chunks_mistakes_and_the_new_w_of_mmds_fig_12_6():
    X, y, words = mmds_spam()
    run = parallel.mapreduce_perceptron(parallel.split(X, y, 3), eta=0.5)
    shown = texts(demo.show_scheme(run, 1, words))
    assert shown.count("Map: 2 mistakes\nΣ η·y·x") == 3
    assert "Reduce: add\n6 increments" in shown
    assert "new w\nand: 0\nviagra: 1\nthe: 0\nof: -1\nnigeria: 1" in shown
    assert "w = [0, 0, 0, 0, 0]" in demo.show_scheme(run, 1).axes[0].get_title()
    assert "Map: 0 mistakes" in texts(demo.show_scheme(run, 2))[1]


def stacked_tops(ax):
    """The top edge of the last stacked band, per round (each band is one fill_between)."""
    band = [c for c in ax.collections if isinstance(c, PolyCollection)][-1]
    vertices = band.get_paths()[0].vertices
    return vertices[:, 1].max()


@pytest.mark.parametrize("parts", range(1, demo.MAX_PARTS + 1))
def test_partition_slider_draws_one_band_per_chunk_and_the_runs_it_claims(parts):
    # The whole range of the slider (1..MAX_PARTS).
    fig = demo.show_partitions(parts)
    mapreduce_ax, mixing_ax = fig.axes
    result = demo.compare(parts)
    assert len([c for c in mapreduce_ax.collections if isinstance(c, PolyCollection)]) == parts
    assert f"{result.mapreduce.rounds} rounds" in mapreduce_ax.get_title()
    assert f"{result.mixing.rounds} rounds" in mixing_ax.get_title()
    assert stacked_tops(mapreduce_ax) == max(r.total for r in result.mapreduce.history)
    epochs = mapreduce_ax.get_lines()[0].get_ydata()
    assert epochs.sum() == result.sequential.mistakes
    # One y-scale for both panels, whole rounds, and a legend entry per chunk.
    assert mapreduce_ax.get_ylim() == mixing_ax.get_ylim()
    assert mapreduce_ax.get_yscale() == "symlog"
    labels = [t.get_text() for t in mixing_ax.get_legend().get_texts()]
    assert labels[:parts] == [f"chunk {p + 1}" for p in range(parts)]
    fig.canvas.draw()
    ticks = [t.get_text() for t in mapreduce_ax.get_xticklabels() if t.get_text()]
    assert all(tick.lstrip("−-").isdigit() for tick in ticks)
    assert len([t for t in mapreduce_ax.get_yticklabels() if t.get_text()]) >= 2


def test_mapreduce_rounds_do_not_depend_on_the_partitions_but_mixing_rounds_do():
    rows = [[cell.strip() for cell in r.strip("|").split("|")]
            for r in demo.comparison_table().splitlines()[2:]]
    assert len({row[2] for row in rows}) == 1  # MapReduce: the same rounds / updates
    assert len({row[3] for row in rows}) > 1
    assert rows[0][1] == rows[0][3].replace("chunk ", "")  # P = 1: mixing is the sequential


def test_every_run_of_the_slider_converges():
    for parts in range(1, demo.MAX_PARTS + 1):
        result = demo.compare(parts)
        assert result.sequential.converged and result.mapreduce.converged
        assert result.mixing.converged


def test_wall_time_chart_marks_the_ideal_for_each_worker_count():
    times = {"in process": 1.2, "1 worker": 1.3, "2 workers": 0.8}
    ax = demo.show_wall_times(times, 2).axes[0]
    heights = [bar.get_height() for bar in ax.patches]
    np.testing.assert_allclose(heights, [1.2, 1.3, 0.8])  # drawn as measured
    ideals = [line.get_ydata()[0] for line in ax.get_lines()]
    np.testing.assert_allclose(ideals, [1.2, 0.6])


def test_wall_time_measures_the_work():
    calls = []
    seconds = demo.wall_time(lambda: calls.append(sum(range(10_000))), repeats=3)
    assert len(calls) == 3 and seconds > 0


def test_dashboard_note_gives_the_link():
    assert "http://127.0.0.1:8787/status" in demo.dashboard_note("http://127.0.0.1:8787/status")


def test_on_a_sample_symmetric_about_the_origin_mapreduce_needs_few_rounds():
    # The walk-through's counterpoint: without the shift, Σ y·x over the mistakes points close
    # to the separator, and the batch rounds are fewer than the sequential epochs.
    X, y, _ = separable(400, 5, margin=0.02, seed=2)
    mapreduce = parallel.mapreduce_perceptron(parallel.split(X, y, 4), max_rounds=2000)
    sequential = P.perceptron(X, y, max_epochs=2000)
    assert mapreduce.converged and sequential.converged
    assert mapreduce.rounds < sequential.epochs


def test_walkthrough_claims_about_rounds_and_epochs():
    sequential = demo.compare(1).sequential
    assert sequential.converged and sequential.epochs == 20
    for parts in (1, 2, 4, 8):
        assert demo.compare(parts).mapreduce.rounds == 50 > sequential.epochs
    mixing = {parts: demo.compare(parts).mixing.rounds for parts in (1, 2, 4, 8)}
    assert mixing[1] == sequential.epochs  # P = 1 is the sequential perceptron
    assert mixing[2] < sequential.epochs and mixing[4] < sequential.epochs < mixing[8]


def test_the_sequential_perceptron_makes_four_updates_on_the_spam_emails():
    X, y, _ = mmds_spam()
    run = P.perceptron(X, y, eta=0.5)
    assert run.mistakes == 4 and run.w.tolist() != [0.0, 1.0, 0.0, -1.0, 1.0]


def test_sparse_shares_add_up_to_the_sparse_dot_product_at_nnz_cost():
    rng = np.random.default_rng(0)
    w = rng.standard_normal(1_000_000)
    nonzeros = np.sort(rng.choice(w.size, 20, replace=False))
    split = demo.sparse_dot_parts(w, nonzeros, np.ones(20), parts=4)
    assert split.partial.sum() == pytest.approx(w[nonzeros].sum(), rel=1e-12)
    assert split.work.sum() == 20 and split.dense_work == 1_000_000
    dense = np.zeros(w.size)
    dense[nonzeros] = 1.0
    assert split.partial.sum() == pytest.approx(w @ dense, rel=1e-12)  # the dense oracle


def test_rotating_chunks_read_fewer_examples_than_full_rounds():
    for parts in (1, 2, 4, 8):
        rotating = demo.rotating_chunks(parts)
        assert rotating.converged
        assert rotating.examples < demo.compare(parts).mapreduce.rounds * 400
    # "not monotonically" in P
    jobs = [demo.rotating_chunks(parts).rounds for parts in (1, 2, 4, 8)]
    assert jobs != sorted(jobs) and jobs != sorted(jobs, reverse=True)


def test_svm_averaging_claims():
    first = [demo.svm_mixing_objectives(parts)[0] for parts in (1, 2, 4, 8)]
    last = [demo.svm_mixing_objectives(parts)[-1] for parts in (1, 2, 4, 8)]
    assert first == sorted(first)  # worse after round 1 the more chunks
    assert max(last) - min(last) < 0.003  # "within 0.003 of the others"
    table = demo.svm_mixing_table().splitlines()
    assert table[2].startswith("| 1 | ") and len(table) == 6


def test_streamed_examples_and_megabytes_as_printed():
    from mllib.data import chunk_stream
    streamed = parallel.stream_perceptron(chunk_stream(50, 2000, 40))
    assert streamed.seen == 76_429  # the margin filter drops about a quarter of 100,000
    assert demo.megabytes(streamed.seen, 40) == pytest.approx(25.07, abs=0.01)
    pegasos = parallel.stream_sgd(chunk_stream(50, 2000, 40), lam=1e-4)
    assert sum(s.mistakes for s in pegasos.history[-5:]) < sum(
        s.mistakes for s in pegasos.history[:5])


def test_map_boxes_are_light_so_black_text_reads():
    from matplotlib.colors import to_rgb
    X, y, words = mmds_spam()
    run = parallel.mapreduce_perceptron(parallel.split(X, y, 3), eta=0.5)
    fig = demo.show_scheme(run, 1, words)
    for patch in fig.axes[0].patches:
        if hasattr(patch, "get_boxstyle"):
            r, g, b = to_rgb(patch.get_facecolor())
            assert 0.299 * r + 0.587 * g + 0.114 * b > 0.6  # luminance: black text contrasts


def test_wall_time_legend_sits_above_the_bars():
    times = {"in process": 1.0, "1 worker": 1.3, "2 workers": 1.3}
    ax = demo.show_wall_times(times, 2).axes[0]
    assert ax.get_ylim()[1] >= 1.4 * 1.3 - 1e-9
