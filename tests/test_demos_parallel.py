"""The learning-at-scale walk-through's widget logic, tables and figures, driven without a
browser."""

import numpy as np
import pytest
from figure_support import drawn, labelled_ticks, png_pixels
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PolyCollection
from matplotlib.legend import Legend

from mllib import parallel
from mllib import perceptron as P
from mllib.data import mmds_spam, separable
from mllib.demos import parallel as demo
from mllib.demos import png
from mllib.plotting import alt_text


def texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_scheme_shows_each_chunks_mistakes_and_the_new_w_of_mmds_fig_12_6():
    X, y, words = mmds_spam()
    chunks = parallel.split(X, y, 3)
    run = parallel.mapreduce_perceptron(chunks, eta=0.5)
    shown = texts(demo.show_scheme(run, chunks, 1, words))
    # MMDS's Map emits one pair (i, η·y·xᵢ) per nonzero component of each mistake: the emails
    # have 4, 2, 2, 2, 3, 3 words, so round 1 (all six wrong) emits 16 pairs.
    assert sum(demo.emitted_pairs(np.zeros(5), chunk) for chunk in chunks) == 16
    assert (X != 0).sum() == 16
    maps = [t for t in shown if t.startswith("Map:")]
    assert all(t.startswith("Map: 2 mistakes\nemits ") for t in maps) and len(maps) == 3
    assert sum(int(t.split("emits ")[1].split()[0]) for t in maps) == 16
    assert "Reduce: sum the\n16 pairs\nkey by key i" in shown
    assert "new w\nand: 0\nviagra: 1\nthe: 0\nof: -1\nnigeria: 1" in shown
    assert "w = [0, 0, 0, 0, 0]" in demo.show_scheme(run, chunks, 1).axes[0].get_title()
    round_2 = texts(demo.show_scheme(run, chunks, 2))
    assert "Map: 0 mistakes\nemits 0 pairs\n(i, η·y·xᵢ)" in round_2
    assert "Reduce: sum the\n0 pairs\nkey by key i" in round_2


def test_scheme_alt_text_states_each_chunks_mistakes_pairs_and_the_new_w():
    X, y, words = mmds_spam()
    chunks = parallel.split(X, y, 3)
    run = parallel.mapreduce_perceptron(chunks, eta=0.5)
    first = alt_text(demo.show_scheme(run, chunks, 1, words))
    # Oracle: in round 1 (w = 0) every e-mail is a mistake and emits one pair per word in it.
    per_chunk = [int((X_p != 0).sum()) for X_p, _ in chunks]
    assert sum(per_chunk) == 16
    assert "round 1 on 3 chunks" in first and "w = [0, 0, 0, 0, 0]" in first
    assert (f"make {len(chunks[0][1])}, {len(chunks[1][1])} and {len(chunks[2][1])} mistakes"
            in first)
    assert f"emit {per_chunk[0]}, {per_chunk[1]} and {per_chunk[2]} key-value pairs" in first
    assert "sums the 16 pairs" in first and "new w = [0, 1, 0, -1, 1]" in first
    second = alt_text(demo.show_scheme(run, chunks, 2, words))
    assert "make 0, 0 and 0 mistakes" in second and second != first


def test_scheme_counts_agree_in_number_with_one_chunk_and_one_mistake():
    # One example in one chunk, wrong at w = 0: a single count of 1 takes the singular noun.
    chunks = parallel.split([[1.0, 2.0]], [1.0], 1)
    run = parallel.mapreduce_perceptron(chunks)
    fig = demo.show_scheme(run, chunks, 1)
    assert "Map: 1 mistake\nemits 2 pairs\n(i, η·y·xᵢ)" in texts(fig)
    assert "make 1 mistake and emit 2 key-value pairs" in alt_text(fig)
    single = parallel.split([[0.0, 2.0]], [1.0], 1)
    alt = alt_text(demo.show_scheme(parallel.mapreduce_perceptron(single), single, 1))
    assert "emit 1 key-value pair; the Reduce sums the 1 pair key by key" in alt


def lines_by_label(ax):
    return {line.get_label(): line for line in ax.get_lines()}


@pytest.mark.parametrize("parts", range(1, demo.MAX_PARTS + 1))
def test_partition_slider_draws_one_unstacked_line_per_chunk_and_the_runs_it_claims(parts):
    # The whole range of the slider (1..MAX_PARTS).
    fig = demo.show_partitions(parts)
    mapreduce_ax, mixing_ax = fig.axes[:2]
    result = demo.compare(parts)
    assert f"{result.mapreduce.rounds} rounds" in mapreduce_ax.get_title()
    assert f"{result.mixing.rounds} rounds" in mixing_ax.get_title()
    for ax, run in ((mapreduce_ax, result.mapreduce), (mixing_ax, result.mixing)):
        # Not stacked: nothing filled, and chunk p's line is chunk p's own mistakes per round,
        # so its height reads as its share on the (symlog) axis; the dotted line is their sum.
        assert not [c for c in ax.collections if isinstance(c, PolyCollection)]
        lines = lines_by_label(ax)
        counts = np.array([r.mistakes for r in run.history])
        for p in range(parts):
            np.testing.assert_array_equal(lines[f"chunk {p + 1}"].get_ydata(), counts[:, p])
        np.testing.assert_array_equal(lines["all chunks (sum)"].get_ydata(),
                                      [r.total for r in run.history])
        epochs = lines[f"sequential: {result.sequential.epochs} epochs"].get_ydata()
        assert epochs.sum() == result.sequential.mistakes
    # Only the P chunks' lines are drawn, each its own colour and marker, none black (the
    # sequential line's colour).
    chunk_lines = [line for line in mapreduce_ax.get_lines()
                   if line.get_label().startswith("chunk ")]
    assert [line.get_visible() for line in chunk_lines] == [p < parts
                                                           for p in range(demo.MAX_PARTS)]
    styles = {(line.get_color(), line.get_marker()) for line in chunk_lines}
    assert len(styles) == demo.MAX_PARTS and "#000000" not in {c for c, _ in styles}
    # One y-scale for both panels, whole rounds, and a legend entry per chunk shown.
    assert mapreduce_ax.get_ylim() == mixing_ax.get_ylim()
    assert mapreduce_ax.get_yscale() == "symlog"
    png(fig)  # the frame as the widget shows it: lays out the legend drawn
    (legend,) = shown_legends(fig)
    labels = [t.get_text() for t in legend.get_texts()]
    assert labels[2:] == [f"chunk {p + 1}" for p in range(parts)]
    ticks = labelled_ticks(mapreduce_ax, "x")
    assert all(tick.lstrip("−-").isdigit() for tick in ticks)
    assert len(labelled_ticks(mapreduce_ax, "y")) >= 2
    # The legend sits below both panels (their x labels included) and inside the canvas.
    png(fig)
    renderer = fig.canvas.get_renderer()
    box = legend.get_window_extent(renderer)
    assert box.y0 >= 0 and box.x0 >= 0 and box.x1 <= fig.bbox.x1
    assert all(box.y1 < ax.get_tightbbox(renderer, bbox_extra_artists=[]).y0
               for ax in (mapreduce_ax, mixing_ax))


def shown_legends(fig):
    return [artist for ax in fig.axes for artist in ax.get_children()
            if isinstance(artist, Legend) and artist.get_visible()]


@pytest.mark.parametrize("parts", [1, 4, 8])
def test_partitions_redrawn_in_place_shows_what_a_fresh_build_shows(parts):
    """The same data, and the same pixels, whether the figure was just built for P or redrawn
    in place after other values of P."""
    demo._partitions_view.cache_clear()
    fresh = demo.show_partitions(parts)
    fresh_drawn, fresh_pixels = drawn(fresh), png_pixels(fresh)
    fresh_alt = alt_text(fresh)
    for other in (8, 1, 5):
        png_pixels(demo.show_partitions(other))
    again = demo.show_partitions(parts)
    assert again is fresh
    np.testing.assert_equal(drawn(again), fresh_drawn)  # NaN (an undefined MAP) equals NaN
    assert alt_text(again) == fresh_alt
    np.testing.assert_array_equal(png_pixels(again), fresh_pixels)


@pytest.mark.parametrize("parts", [1, 2, 5])
def test_partitions_alt_text_states_the_rounds_of_each_run(parts):
    # Oracle: the three runs computed here, not through the demo's cache.
    X, y = demo.shifted_sample()
    chunks = parallel.split(X, y, parts)
    mapreduce = parallel.mapreduce_perceptron(chunks, max_rounds=2000)
    mixing = parallel.parameter_mixing(chunks, max_rounds=2000)
    epochs = P.perceptron(X, y, max_epochs=2000).epochs
    alt = alt_text(demo.show_partitions(parts))
    assert f"P = {parts} chunk{'' if parts == 1 else 's'}," in alt  # "P = 1 chunk", "P = 2 chunks"
    assert f"MapReduce perceptron takes {mapreduce.rounds} rounds" in alt
    assert f"starting from {int(np.sum(y * (X @ np.zeros(X.shape[1])) <= 0))} mistakes" in alt
    assert f"parameter mixing takes {mixing.rounds} rounds" in alt
    assert f"starting from {mixing.history[0].total};" in alt
    assert f"needs {epochs} epochs" in alt


def test_partitions_alt_text_changes_with_the_slider():
    two = alt_text(demo.show_partitions(2))
    assert alt_text(demo.show_partitions(5)) != two and not two.startswith("Figure: ")


@pytest.mark.parametrize("parts", [1, 2, 3, 6])
def test_scheme_texts_fit_inside_their_boxes(parts):
    X, y, words = mmds_spam()
    chunks = parallel.split(X, y, parts)
    run = parallel.mapreduce_perceptron(chunks, eta=0.5)
    for round_number, names in ((1, words), (run.rounds, None)):
        fig = demo.show_scheme(run, chunks, round_number, names)
        ax = fig.axes[0]
        renderer = FigureCanvasAgg(fig).get_renderer()
        fig.draw(renderer)  # lay out the text, so the extents are the drawn ones
        boxes = [patch.get_window_extent(renderer) for patch in ax.patches
                 if hasattr(patch, "get_boxstyle")]
        assert len(boxes) == len(ax.texts) == 2 * parts + 2
        for text, box in zip(ax.texts, boxes, strict=True):  # _box adds a patch, then its text
            extent = text.get_window_extent(renderer)
            assert (box.x0 <= extent.x0 and extent.x1 <= box.x1 and box.y0 <= extent.y0
                    and extent.y1 <= box.y1), text.get_text()


def test_mapreduce_rounds_do_not_depend_on_the_partitions_but_mixing_rounds_do():
    rows = [[cell.strip() for cell in r.strip("|").split("|")]
            for r in demo.comparison_table().splitlines()[2:]]
    assert [int(row[0]) for row in rows] == list(range(1, demo.MAX_PARTS + 1))  # every P
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


def test_wall_time_alt_text_states_the_measured_and_ideal_times():
    times = {"in process": 1.2, "1 worker": 1.3, "2 workers": 0.8}
    alt = alt_text(demo.show_wall_times(times, 2))
    assert "in process 1.20 s; 1 worker 1.30 s; 2 workers 0.80 s" in alt
    assert "1 worker 1.20 s; 2 workers 0.60 s" in alt  # 1.2 / 1, 1.2 / 2
    faster = alt_text(demo.show_wall_times({**times, "2 workers": 0.5}, 2))
    assert "2 workers 0.50 s" in faster


def test_wall_time_measures_the_work():
    calls = []
    seconds = demo.wall_time(lambda: calls.append(sum(range(10_000))), repeats=3)
    assert len(calls) == 3 and seconds > 0


def test_dashboard_note_gives_the_link():
    assert "http://127.0.0.1:8787/status" in demo.dashboard_note("http://127.0.0.1:8787/status")


@pytest.mark.parametrize(("seed", "rounds", "epochs"), [(2, 4, 29), (1, 10, 2)])
def test_on_samples_symmetric_about_the_origin_either_can_need_fewer_passes(seed, rounds,
                                                                              epochs):
    # The walk-through's cell: seed 2 (the shifted sample's seed, unshifted) gives 4 rounds
    # against 29 epochs, seed 1 gives 10 rounds against 2 epochs: no law either way.
    X, y, _ = separable(400, 5, margin=0.02, seed=seed)
    mapreduce = parallel.mapreduce_perceptron(parallel.split(X, y, 4), max_rounds=2000)
    sequential = P.perceptron(X, y, max_epochs=2000)
    assert mapreduce.converged and sequential.converged
    assert (mapreduce.rounds, sequential.epochs) == (rounds, epochs)


def test_walkthrough_claims_about_rounds_and_epochs():
    sequential = demo.compare(1).sequential
    assert sequential.converged and sequential.epochs == 20
    for parts in (1, 2, 4, 8):
        assert demo.compare(parts).mapreduce.rounds == 50 > sequential.epochs
    for parts in range(1, demo.MAX_PARTS + 1):
        assert demo.compare(parts).mapreduce.rounds == 50 > sequential.epochs
    mixing = [demo.compare(parts).mixing.rounds for parts in range(1, demo.MAX_PARTS + 1)]
    assert mixing[0] == sequential.epochs  # P = 1 is the sequential perceptron
    assert mixing[1:] == [14, 7, 11, 41, 11, 55, 25]  # as the prose lists them for P = 2..8
    fewer = [p for p in range(2, 9) if mixing[p - 1] < sequential.epochs]
    more = [p for p in range(2, 9) if mixing[p - 1] > sequential.epochs]
    assert fewer == [2, 3, 4, 6] and more == [5, 7, 8]
    assert mixing[6] > demo.compare(7).mapreduce.rounds  # P = 7: more than MapReduce's 50
    # "no trend": the rounds go up and down with P, not monotonically either way
    steps = np.diff(mixing)
    assert (steps > 0).any() and (steps < 0).any()
    # The second hump of the MapReduce perceptron, as printed: the same for every P.
    for parts in range(1, demo.MAX_PARTS + 1):
        totals = [sum(r.mistakes) for r in demo.compare(parts).mapreduce.history[:7]]
        assert totals == [400, 14, 6, 12, 58, 191, 206]


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


def test_rotating_chunks_read_fewer_examples_than_full_rounds_for_p_at_least_2():
    full = demo.compare(1).mapreduce
    one = demo.rotating_chunks(1)  # P = 1: the full-data perceptron, counted the same way
    assert (one.rounds, one.examples) == (full.rounds, full.rounds * 400) == (50, 20_000)
    examples = {}
    for parts in range(2, demo.MAX_PARTS + 1):
        rotating = demo.rotating_chunks(parts)
        assert rotating.converged
        examples[parts] = rotating.examples
        assert rotating.examples < demo.compare(parts).mapreduce.rounds * 400
    assert min(examples.values()) == examples[4] == 2_700  # "from 2,700 with P = 4
    assert max(examples.values()) == examples[2] == 10_800  # to 10,800 with P = 2"
    # "not monotonically" in P
    jobs = [demo.rotating_chunks(parts).rounds for parts in range(1, demo.MAX_PARTS + 1)]
    assert jobs != sorted(jobs) and jobs != sorted(jobs, reverse=True)


@pytest.mark.parametrize("parts", range(1, demo.MAX_PARTS + 1))
def test_rotating_chunks_count_the_final_mistake_free_pass_like_the_full_rounds(parts):
    # An independent count: find the first job after which w separates everything, then add
    # the P jobs (one pass, 400 examples) that the stopping rule needs to see that.
    X, y = demo.shifted_sample()
    chunks = parallel.split(X, y, parts)
    w, read = np.zeros(X.shape[1]), 0
    for number in range(1, 2001):
        X_p, y_p = chunks[(number - 1) % parts]
        w = w + (y_p[y_p * (X_p @ w) <= 0] @ X_p[y_p * (X_p @ w) <= 0])
        read += len(y_p)
        if (y * (X @ w) > 0).all():
            break
    rotating = demo.rotating_chunks(parts)
    assert (rotating.rounds, rotating.examples) == (number + parts, read + len(y))


def test_svm_averaging_claims():
    first = [demo.svm_mixing_objectives(parts)[0] for parts in (1, 2, 4, 8)]
    last = [demo.svm_mixing_objectives(parts)[-1] for parts in (1, 2, 4, 8)]
    # "After one round, 4 and 8 chunks are clearly behind 1 and 2 ... 2 chunks happen to do as
    # well as one pass": 0.2371, 0.2354, 0.2781, 0.2972.
    assert min(first[2:]) > max(first[:2]) + 0.03 and first[3] > first[2]
    assert abs(first[1] - first[0]) < 0.005
    # "After ten rounds ... within 0.004 of each other, in no order of P (8 chunks end lowest),
    # and that spread is smaller than the one-chunk run's own range over rounds 5 to 10".
    spread = max(last) - min(last)  # 0.0034
    assert spread < 0.004 and last != sorted(last) and last[3] == min(last)
    one_chunk = demo.svm_mixing_objectives(1)[4:]
    assert spread < one_chunk.max() - one_chunk.min()  # 0.0050
    table = demo.svm_mixing_table().splitlines()
    assert table[2].startswith("| 1 | ") and len(table) == 6


def test_svm_averaging_runs_sgd_on_the_tabulated_objective():
    # The table's svm_objective leaves b unregularised; so must the SGD it tabulates: per round,
    # every chunk's pass equals Pegasos with b kept out of the shrinking (regularize_bias=False).
    X, y = demo.mixing_sample()
    chunks = parallel.split(X, y, 4)
    default = parallel.svm_mixing(chunks, lam=1e-3, rounds=2)
    free = parallel.svm_mixing(chunks, lam=1e-3, rounds=2, regularize_bias=False)
    shrunk = parallel.svm_mixing(chunks, lam=1e-3, rounds=2, regularize_bias=True)
    assert (default.b, default.w.tolist()) == (free.b, free.w.tolist())
    assert default.b != shrunk.b
    value = parallel.svm_objective(default.w, default.b, X, y, lam=1e-3)
    assert value == pytest.approx(demo.svm_mixing_objectives(4)[1], rel=1e-12)


def test_fig_12_20_rows_5_and_6_are_the_book_s_when_every_iterate_is_rounded():
    # The walk-through's note: the parallel run (full precision) prints rows (5)-(6) as
    # [-0.095, 0.541], -0.867 and [-0.156, 0.413]; rounding w and b to 3 decimals after every
    # iteration, as MMDS did, gives the book's [-0.094, 0.542], -0.866 and [-0.155, 0.414].
    from mllib import svm
    X, y = svm.mmds_fig_12_18()
    chunks = parallel.split(X, y, 2)
    run = parallel.mapreduce_svm(chunks, C=0.1, eta=0.2, w0=[0, 1], b0=-2, iterations=5)
    full = [(*np.round(s.w, 3), round(s.b, 3)) for s in run.history[4:6]]
    assert full == [(-0.095, 0.541, -0.867), (-0.156, 0.413, -0.733)]
    w, b, rounded = [0.0, 1.0], -2.0, []
    for _ in range(5):
        step = parallel.mapreduce_svm(chunks, C=0.1, eta=0.2, w0=w, b0=b, iterations=1)
        w, b = [round(float(v), 3) for v in step.w], round(float(step.b), 3)
        rounded.append((*w, b))
    assert rounded == [(0.04, 0.84, -1.58), (-0.048, 0.652, -1.304), (-0.118, 0.502, -1.083),
                       (-0.094, 0.542, -0.866), (-0.155, 0.414, -0.733)]  # MMDS rows (2)-(6)
    # The text's slips: row (2)'s u is +0.04, and rows (2), (3), (5) have pattern oxoxxx
    # (bad points 1 of chunk 1's three, 3 of chunk 2's three), not "oxxxxx".
    assert run.history[1].w[0] == pytest.approx(0.04, abs=1e-12)
    assert [svm.bad_pattern(svm.margins(s.w, s.b, X, y)) for s in run.history[1:4:2]] == [
        "oxoxxx", "xxxxxx"]
    assert svm.bad_pattern(svm.margins(run.history[4].w, run.history[4].b, X, y)) == "oxoxxx"


def test_streamed_examples_and_megabytes_as_printed():
    from mllib.data import chunk_stream
    streamed = parallel.stream_perceptron(chunk_stream(50, 2000, 40))
    assert streamed.seen == 76_429  # the margin filter drops about a quarter of 100,000
    assert f"{demo.megabytes(streamed.seen, 40):.1f}" == "25.1"  # as the cell prints it
    assert demo.megabytes(2000, 40) == pytest.approx(0.656)  # one chunk at most: "0.66 MB"
    pegasos = parallel.stream_sgd(chunk_stream(50, 2000, 40), lam=1e-4)
    assert sum(s.mistakes for s in pegasos.history[-5:]) < sum(
        s.mistakes for s in pegasos.history[:5])
    # "On about 1,500 fresh examples one error moves the accuracy by less than 0.001, so a
    # difference of an error or two between the two learners is sampling noise."
    X_fresh, y_fresh = next(chunk_stream(1, 2000, 40, seed=99))
    assert 1400 < len(y_fresh) < 1600 and 1 / len(y_fresh) < 0.001
    errors = [int(np.sum(np.sign(X_fresh @ w + b) != y_fresh))
              for w, b in ((streamed.w, 0.0), (pegasos.w, pegasos.b))]
    assert abs(errors[0] - errors[1]) <= 2


def test_map_boxes_are_light_so_black_text_reads():
    from matplotlib.colors import to_rgb
    X, y, words = mmds_spam()
    run = parallel.mapreduce_perceptron(parallel.split(X, y, 3), eta=0.5)
    fig = demo.show_scheme(run, parallel.split(X, y, 3), 1, words)
    for patch in fig.axes[0].patches:
        if hasattr(patch, "get_boxstyle"):
            r, g, b = to_rgb(patch.get_facecolor())
            assert 0.299 * r + 0.587 * g + 0.114 * b > 0.6  # luminance: black text contrasts


def test_wall_time_legend_sits_above_the_bars():
    times = {"in process": 1.0, "1 worker": 1.3, "2 workers": 1.3}
    ax = demo.show_wall_times(times, 2).axes[0]
    assert ax.get_ylim()[1] >= 1.4 * 1.3 - 1e-9


def test_cluster_verdict_reports_per_task_costs_and_which_side_won():
    # Made-up timings (no clock involved): 4 tasks, 0.16 s in process, 0.20 s on one worker.
    slower = demo.cluster_verdict({"in process": 0.16, "1 worker": 0.20, "2 workers": 0.205},
                                  tasks=4)
    assert slower.startswith("compute per Map task 40 ms; the 1-worker cluster added 10 ms")
    assert "0.78× as fast" in slower and "cost more than it saved" in slower
    faster = demo.cluster_verdict({"in process": 2.0, "1 worker": 2.1, "2 workers": 1.25},
                                  tasks=4)
    assert "1.60× as fast" in faster and "paid, though less than the ideal 2×" in faster
    noisy = demo.cluster_verdict({"in process": 0.51, "1 worker": 0.47, "2 workers": 0.39},
                                 tasks=4)  # a reviewer's run: one worker "faster" than none
    assert "added" not in noisy and "no slower than this process" in noisy
    with pytest.raises(ValueError, match="at least one task"):
        demo.cluster_verdict({"in process": 1.0, "1 worker": 1.0, "2 workers": 1.0}, tasks=0)


def test_pegasos_here_follows_the_slides_le_1_a_point_on_its_margin_line_still_pulls():
    # λ = 1: the first step (t = 1, γ = 1) sets w = x₁ = [1, 0] and b = 1; then x₂ = 0 with
    # y₂ = +1 has y₂(w·x₂ + b) = 1 exactly. The slide's ≤ 1 counts it (Pegasos's < 1 would not).
    run = parallel.stream_sgd([(np.array([[1.0, 0.0], [0.0, 0.0]]), np.array([1, 1]))], lam=1.0)
    assert run.history[0].mistakes == 2


def test_iterative_parameter_mixing_is_cited_as_mcdonald_et_al_fig_3():
    # McDonald, Hall and Mann (NAACL 2010): Fig. 2 is one-shot parameter mixing, Fig. 3 the
    # iterative parameter mixing that mllib.parallel.parameter_mixing and exercise 4 implement.
    import re
    from pathlib import Path

    import mllib.grading.parallel as grading
    root = Path(__file__).resolve().parents[1]
    sources = [Path(parallel.__file__), Path(grading.__file__),
               *sorted((root / "solutions" / "15_parallel").glob("*.ipynb"))]
    cited = [(source.name, figure) for source in sources
             for figure in re.findall(r"McDonald[^.]*?(?:2010|NAACL 2010),? Fig\. (\d)",
                                      source.read_text(encoding="utf-8"))]
    assert len(cited) == 3 and all(figure == "3" for _, figure in cited), cited


def test_partitions_moves_redraw_only_what_moves():
    # The limits hold every P's runs, so no move makes the figure stale (live.render would then
    # draw the whole figure again): titles, lines and legends are all redrawn in place.
    png(demo.show_partitions(1))
    for parts in (8, 3, 4):
        assert not demo.show_partitions(parts).stale
        png(demo.show_partitions(parts))
