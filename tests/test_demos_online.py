"""The online-learning walk-through's widget logic, tables and figures, driven without a
browser."""

import itertools

import numpy as np
import pytest
from figure_support import drawn, png_pixels
from scipy import stats

from mllib import online
from mllib import perceptron as P
from mllib.data import separable
from mllib.demos import online as demo
from mllib.plotting import alt_text, described

# The experts widget's sliders as the notebook wires them: β from 0 to 0.95 and the best
# expert's error rate p from 0 to 0.5, in steps of 0.05 (extremes and a grid inside).
BETAS = [0.0, 0.05, 0.3, 0.5, 0.75, 0.95]
NOISES = [0.0, 0.05, 0.1, 0.25, 0.4, 0.5]


def test_truth_table_prints_cs446s_disjunction_and_two_of_three():
    rows = demo.truth_table({"or": ([1, 1, 1], 1), "2 of 3": ([1, 1, 1], 2)}, 3).splitlines()
    assert rows[0] == "| x1 | x2 | x3 | or | 2 of 3 |"
    assert rows[2] == "| 0 | 0 | 0 | 0 | 0 |"
    assert rows[5] == "| 0 | 1 | 1 | 1 | 1 |"
    assert rows[6] == "| 1 | 0 | 0 | 1 | 0 |"


def test_xor_search_finds_nothing_for_xor():
    row = next(r for r in demo.xor_search_table().splitlines() if r.startswith("| XOR"))
    assert row == "| XOR | none | none | none | none |"


def test_winnow_grows_slower_than_the_perceptron():
    scaling = demo.winnow_vs_perceptron()
    assert np.all(scaling.winnow <= [online.winnow_bound(2, n) for n in scaling.ns])
    # from n = 8 to 256 (32 times more variables) the perceptron's mistakes grow much more
    assert scaling.perceptron[-1] / scaling.perceptron[0] > 2 * scaling.winnow[-1] / \
        scaling.winnow[0]


def test_extensions_table_marks_what_each_learner_learns():
    rows = {r.split(" | ")[0][2:]: r for r in demo.extensions_table().splitlines()[2:]}
    assert rows["Winnow"].count("✓") == 1
    assert rows["Winnow on [x, 1 − x]"].count("✓") == 3
    assert rows["Balanced Winnow"].endswith("✓ |")  # x1 ∧ ¬x2


def test_adversary_cost_counts_additions_only_as_cs446_defines_it():
    # x1∨x2 from nothing: 2 additions; each of the four moves: 2 out (free), 2 in (cost 2)
    assert demo.adversary_cost() == 2 + 4 * 2
    assert demo.adversary_cost([(0, 1), (0,)]) == 2  # a removal costs nothing
    assert demo.adversary_cost([(0,), (0, 1), (1,), (0, 1)]) == 3  # re-adding costs again


def test_winnow_r_makes_about_twice_c_log_n_mistakes_as_printed():
    shift = demo.shifting_target()
    scale = demo.adversary_cost() * np.log2(32)
    assert scale == 50
    assert 1.5 < shift.winnow_r[-1] / scale < 2.5  # "about twice c·log2 n in all"


def test_shifting_target_claims_hold():
    shift = demo.shifting_target()
    assert shift.lowest_weight == 2.0**-24  # "from about 2^-24"
    plain, robust = shift.after_last_shift()
    assert plain > 3 * robust  # "a few times fewer mistakes on the last target"
    assert shift.winnow_r[-1] < shift.winnow[-1]  # "and fewer over the whole stream"


def test_shift_figure_draws_the_runs_and_marks_every_shift():
    shift = demo.shifting_target()
    ax = demo.show_shift(shift).axes[0]
    lines = ax.get_lines()
    np.testing.assert_array_equal(lines[0].get_ydata(), shift.winnow)
    np.testing.assert_array_equal(lines[1].get_ydata(), shift.winnow_r)
    assert [line.get_xdata()[0] for line in lines[2:]] == list(shift.shifts)
    assert ax.get_ylim()[1] > max(shift.winnow[-1], shift.winnow_r[-1])


def test_thick_separator_runs_converge_and_clear_their_margin():
    X, y, _ = separable(100, 2, margin=0.02, seed=1)
    geometric = {}
    for gamma in (None, 0.1, 0.5, 2.0):
        run = (P.perceptron(X, y, max_epochs=1000) if gamma is None else
               online.thick_perceptron(X, y, margin=gamma, max_epochs=1000))
        assert run.converged  # the walk-through draws conclusions only from converged runs
        z = y * (X @ run.w)
        assert z.min() > (gamma or 0)
        geometric[gamma] = z.min() / np.linalg.norm(run.w)
    assert min(geometric[g] for g in (0.1, 0.5, 2.0)) > 3 * geometric[None]  # "several times"
    assert geometric[2.0] < geometric[0.5]  # "it does not keep growing with γ"
    # the case: at the default 100 epochs the γ = 2 run stops short
    assert not online.thick_perceptron(X, y, margin=2.0).converged


def test_at_noise_zero_expert_0_is_perfect_and_in_this_draw_the_only_one():
    # §5: "At p = 0 expert 0 is perfect (in this draw, the only one)": a fact of seed 7, since
    # expert 1 (rate 1/30) has no mistake in 300 rounds with probability (29/30)³⁰⁰ ≈ 4e-5.
    np.testing.assert_allclose(demo.expert_error_rates(0.0), np.arange(16) / 30)
    predictions, outcomes = demo.experts_problem(0.0)
    mistakes = np.sum(predictions != outcomes[:, None], axis=0)
    assert np.sum(mistakes == 0) == 1 and mistakes[0] == 0


@pytest.mark.parametrize("noise", [0.0, 0.1, 0.3, 0.5])
def test_experts_problem_errs_at_the_documented_rates(noise):
    predictions, outcomes = demo.experts_problem(noise)
    observed = np.mean(predictions != outcomes[:, None], axis=0)
    rates = demo.expert_error_rates(noise)
    # each observed rate is a mean of 300 Bernoulli draws: within 4 standard errors (+ 1/300)
    assert np.all(np.abs(observed - rates) <= 4 * np.sqrt(rates * (1 - rates) / 300) + 1 / 300)


def test_halving_claims_hold():
    run = online.halving(*demo.experts_problem(0.0))
    assert 0 < run.mistakes <= online.halving_bound(16)  # it shows something, within log₂ N
    noisy = online.halving(*demo.experts_problem(0.1))
    assert 0.35 < noisy.mistakes / 300 < 0.65  # "a mistake on about half the rounds"
    frame = demo.experts_frame(0.0, 0.1)
    assert frame.eliminated_at is not None and frame.eliminated_at < 50  # "early"


def test_randomized_bound_table_shows_the_trade_off():
    m = int(online.halving(*demo.experts_problem(0.1)).expert_mistakes.min())
    rows = [[float(c) for c in r.strip("|").split("|")] for r in
            demo.randomized_bound_table(m).splitlines()[2:]]
    betas, exact, approx = (np.array(col) for col in zip(*rows, strict=True))
    best = int(np.argmin(exact))
    assert 0 < best < len(betas) - 1  # "smallest at a middle β"
    assert exact[-1] > 50 * m  # it grows without bound as β → 1, not towards m
    close = betas >= 0.8
    assert np.all(np.abs(exact[close] - approx[close]) <= 0.02 * exact[close])


def test_randomized_bound_is_about_one_plus_half_epsilon_m_plus_log_n_over_epsilon():
    m, n = 40, 16
    for eps in (0.1, 0.05, 0.01, 0.001):
        exact = online.randomized_weighted_majority_bound(m, n, 1 - eps)
        # ln(1/(1 - ε))/ε = 1 + ε/2 + ε²/3 + …: the rest is at most m·ε²/(3(1 - ε)) <= m·ε²
        assert 0 <= exact - ((1 + eps / 2) * m + np.log(n) / eps) <= m * eps**2


@pytest.mark.parametrize("beta", BETAS)
def test_experts_widget_sweep_draws_bounds_that_hold(beta):
    for noise in NOISES:
        frame = demo.experts_frame(beta, noise)
        ax = demo.show_experts(beta, noise).axes[0]
        labels = [line.get_label() for line in ax.get_lines()]
        assert labels[:len(frame.curves)] == list(frame.curves)
        learner = list(frame.curves.values())[1][-1]
        if beta == 0:
            assert "halving (β = 0)" in frame.curves  # halving is not called weighted majority
            perfect = frame.eliminated_at is None
            assert perfect == (min(c[-1] for c in frame.curves.values()) == 0)
            if perfect:
                assert learner <= next(iter(frame.bounds.values()))
            else:
                assert frame.bounds == {} and any("eliminated" in lab for lab in labels)
        else:
            wm_bound, rwm_bound = frame.bounds.values()
            assert learner <= wm_bound
            # the bound is on the expectation, which is computed exactly here
            assert list(frame.curves.values())[2][-1] <= rwm_bound
        _assert_axis_fits_the_run(ax, frame)


def _assert_axis_fits_the_run(ax, frame):
    """The mistakes axis spans every curve and every bound up to the number of rounds, and no
    more; a bound above the rounds (vacuous for the run) does not stretch it and its legend
    entry says it is off scale."""
    rounds = len(next(iter(frame.curves.values())))
    top = ax.get_ylim()[1]
    drawn = [c.max() for c in frame.curves.values()]
    drawn += [b for b in frame.bounds.values() if b <= rounds]
    assert max(drawn) < top <= 1.1 * max(drawn)
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    for label, bound in frame.bounds.items():
        entry = next(text for text in labels if text.startswith(label))
        assert ("off scale" in entry) == (bound > top)
        assert bound <= top or bound > rounds


def test_weighted_majority_bound_off_scale_at_small_beta_and_high_noise():
    """The review's case: at β = 0.05, p = 0.5 the WM bound (627 for a 300-round run) no
    longer stretches the axis to 658; the axis ends near the curves, the legend says so."""
    frame = demo.experts_frame(0.05, 0.5)
    assert round(frame.bounds[next(iter(frame.bounds))]) == 627
    ax = demo.show_experts(0.05, 0.5).axes[0]
    assert ax.get_ylim()[1] < 200
    _assert_axis_fits_the_run(ax, frame)
    assert sum("off scale: > 300 rounds" in t.get_text()
               for t in ax.get_legend().get_texts()) == 2


def test_dnf_is_not_a_threshold_function_but_is_one_over_products():
    dnf = demo.dnf_example()
    assert dnf.labels.sum() == 7  # 1100, 0011 and the five inputs with three or four 1s
    assert dnf.search is None and dnf.certified
    w, theta = dnf.on_products
    assert w.tolist() == [1.0, 1.0] and theta == 1


def test_dnf_infeasibility_agrees_with_scipy_linprog():
    from scipy.optimize import linprog

    dnf = demo.dnf_example()
    A, b = online.threshold_lp(online.boolean_inputs(4), dnf.labels)
    result = linprog(np.zeros(A.shape[1]), A_ub=A, b_ub=b, bounds=[(None, None)] * A.shape[1])
    assert result.status == 2  # infeasible


def test_representation_demo_finds_the_minimum_cover_and_winnow_is_consistent():
    rep = demo.representation_demo()
    X, y = online.set_cover_sample(demo.COVER_SETS, demo.COVER_ELEMENTS)
    covered = set().union(*(demo.COVER_SETS[j] for j in rep.smallest))
    assert covered == set(range(demo.COVER_ELEMENTS))
    # no two sets cover all ten elements (an independent check of minimality)
    assert not any(set(a) | set(b) == set(range(10))
                   for i, a in enumerate(demo.COVER_SETS) for b in demo.COVER_SETS[i + 1:])
    # every subset of size 0, 1 and 2, then the 3-subsets up to the cover, in order
    rank = list(itertools.combinations(range(8), 3)).index(rep.smallest)
    assert rep.subsets_tried == 1 + 8 + 28 + rank + 1
    assert rep.winnow.converged
    assert np.array_equal(np.where(X @ rep.winnow.w > rep.winnow.theta, 1.0, -1.0), y)
    assert rep.winnow.mistakes <= online.winnow_bound(len(rep.smallest), 8)


def test_balcan_table_bounds_hold():
    for row in demo.balcan_table().splitlines()[2:]:
        _, mistakes, _, bound = (cell.strip() for cell in row.strip("|").split("|"))
        assert int(mistakes) <= float(bound)


def test_explore_draws_the_experts_widget_as_a_static_frame_under_nbgrader(monkeypatch):
    from ipywidgets import FloatSlider
    from matplotlib.figure import Figure

    from mllib.demos import explore

    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    frame = explore(demo.show_experts, beta=FloatSlider(value=0.5, min=0.0, max=0.95),
                    noise=FloatSlider(value=0.1, min=0.0, max=0.5))
    assert isinstance(frame, Figure)


def test_scaling_claims_hold():
    scaling = demo.winnow_vs_perceptron()
    increments, ratios = scaling.winnow_increments(), scaling.perceptron_ratios()
    np.testing.assert_array_equal(increments, np.diff(scaling.winnow))
    # "the increments stay between 2 and 7 and do not grow with n" (log n growth)
    assert np.all((2 <= increments) & (increments <= 7))
    assert increments[-1] < 2 * increments[0]
    # "each doubling multiplies [the perceptron's] by a factor between 1.5 and 1.9"
    assert np.all((1.5 <= ratios) & (ratios <= 1.9))
    # "(each ± about 0.5 to 0.7)"; "the last two are smaller than the largest, at 32 → 64";
    # the ratios' "± at most 0.1"
    errors = scaling.winnow_increments_se()
    assert np.all((0.45 <= errors) & (errors < 0.75))
    assert np.argmax(increments) == 2 and np.all(increments[3:] < increments[2])
    assert np.all(scaling.perceptron_ratios_se() < 0.1)
    # over the whole range: n grows 32-fold, Winnow's mistakes about 3-fold, the perceptron's
    # more than 10-fold
    assert scaling.winnow[-1] / scaling.winnow[0] < 4
    assert scaling.perceptron[-1] / scaling.perceptron[0] > 10


def test_scaling_averages_twenty_seeds():
    scaling = demo.winnow_vs_perceptron()
    X, y = demo.sparse_disjunction(8, 2, 400, 19)  # the last of the 20 seeds
    runs = [P.winnow(*demo.sparse_disjunction(8, 2, 400, seed), max_epochs=200).mistakes
            for seed in range(20)]
    assert scaling.winnow[0] == pytest.approx(np.mean(runs), abs=1e-12)
    assert P.winnow(X, y, max_epochs=200).mistakes == runs[-1]


def test_extensions_table_claims_hold():
    rows = {r.split(" | ")[0][2:]: r.split(" | ")[1:] for r in
            demo.extensions_table().splitlines()[2:]}
    learned = {name: ["✓" in cell for cell in cells] for name, cells in rows.items()}
    assert learned["Winnow"] == learned["Winnow with elimination"] == [True, False, False]
    assert learned["Winnow on [x, 1 − x]"] == [True, True, True]
    assert learned["Balanced Winnow"] == [True, False, True]


def test_balcan_table_degrades_gracefully_with_room_to_spare():
    rows = [[float(c.strip().rstrip("%")) for c in r.strip("|").split("|")]
            for r in demo.balcan_table().splitlines()[2:]]
    flips, mistakes, td, bound = (np.array(col) for col in zip(*rows, strict=True))
    assert np.all(bound >= 2 * mistakes)  # "with room to spare"
    assert td[0] == 0 and np.all(np.diff(td) > 0)
    assert td[1] < 5 and td[2] < 10  # "a few flipped labels add a few units of TD_γ"


def test_experts_legend_lies_inside_the_canvas_and_labels_the_elimination_line():
    for beta, noise in ((0.0, 0.1), (0.0, 0.5), (0.0, 0.0), (0.5, 0.1), (0.95, 0.0),
                        (0.05, 0.5)):  # the last with both bounds' labels off scale
        fig = demo.show_experts(beta, noise)
        fig.canvas.draw()
        legend, canvas = fig.axes[0].get_legend(), fig.bbox
        box = legend.get_window_extent()
        assert (canvas.x0 <= box.x0 and box.x1 <= canvas.x1 and canvas.y0 <= box.y0
                and box.y1 <= canvas.y1)
        texts = [t.get_text() for t in legend.get_texts()]
        frame = demo.experts_frame(beta, noise)
        assert texts[:len(frame.curves)] == list(frame.curves)
        if frame.eliminated_at is not None:  # β = 0 without a perfect expert: the red line
            assert texts[-1] == (f"no perfect expert: all {demo.N_EXPERTS}\neliminated by round "
                                 f"{frame.eliminated_at}")


def test_kivinen_warmuth_worked_example_matches_the_closed_forms():
    d = 100
    bounds = demo.kivinen_warmuth_examples(d)
    sparse = bounds["sparse target, dense examples"]
    dense = bounds["dense target, sparse examples"]
    np.testing.assert_allclose(sparse, (2 * np.log(d), d), rtol=1e-12)
    np.testing.assert_allclose(dense, (2 * d**2 * np.log(d), d), rtol=1e-12)
    assert round(sparse[0], 1) == 9.2 and round(dense[0]) == 92103  # the numbers in the prose
    rows = demo.kivinen_warmuth_table(d).splitlines()[2:]
    assert rows[0].endswith("| multiplicative |") and rows[1].endswith("| additive |")


def test_kivinen_warmuth_bounds_follow_the_slide_and_reject_a_non_separator():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 5))
    u = np.array([2.0, -1.0, 0.0, 0.5, 0.0])
    y = np.sign(X @ u)
    margin = np.min(np.abs(X @ u))
    m_w, m_p = online.kivinen_warmuth_bounds(u, X, y)
    assert m_w == pytest.approx(2 * np.log(5) * 3.5**2 * np.abs(X).max() ** 2 / margin**2)
    assert m_p == pytest.approx(5.25 * max(x @ x for x in X) / margin**2)
    with pytest.raises(ValueError, match="separate"):
        online.kivinen_warmuth_bounds(u, X, -y)
    with pytest.raises(ValueError, match="one weight per feature"):
        online.kivinen_warmuth_bounds(u[:3], X, y)


# --- second review: the brute-force ranges, the boundary convention, ε, the best expert -------


def test_xor_search_header_names_the_threshold_range_too():
    """The search tries w₁, w₂ *and* θ in [−m, m]: AND needs θ = 2, so it appears from m = 2."""
    lines = demo.xor_search_table().splitlines()
    assert lines[0] == ("| target | w₁, w₂, θ in [−1, 1] | w₁, w₂, θ in [−2, 2] | "
                        "w₁, w₂, θ in [−3, 3] | w₁, w₂, θ in [−4, 4] |")
    X = online.boolean_inputs(2)
    assert online.find_threshold_weights(X, [0, 0, 0, 1], max_weight=1) is None
    w, theta = online.find_threshold_weights(X, [0, 0, 0, 1], max_weight=2)
    assert abs(theta) == 2
    assert online.find_threshold_weights(X, [0, 1, 1, 1], max_weight=1) is not None


def test_thick_updates_also_at_the_band_edge_mmds_convention():
    """§3: the library updates at equality, w·x − θ = γ for a positive (the slide's strict < γ
    would not), and y·(w·x) = γ for the perceptron; a finished run is strictly beyond γ."""
    w, x = np.ones(3), np.array([1.0, 1.0, 0.0])
    np.testing.assert_array_equal(online.thick_winnow_update(w, x, 1.0, 1.0, 1.0), [2, 2, 1])
    np.testing.assert_array_equal(online.thick_winnow_update(w, x, -1.0, 3.0, 1.0), [.5, .5, 1])
    assert online.thick_winnow_update(w, x, 1.0, 0.5, 1.0) is w  # 2 − 0.5 > 1: left alone
    # one example exactly on the edge after the first update: 1·(w·x) = 1 = γ, so it updates again
    run = online.thick_perceptron(np.array([[1.0, 0.0]]), np.array([1.0]), margin=1.0,
                                  max_epochs=10)
    assert run.mistakes == 2 and run.converged
    np.testing.assert_array_equal(run.w, [2.0, 0.0])


def test_best_epsilon_is_roughly_the_small_epsilon_minimiser():
    """§5: the exact bound is smallest near, not at, √(2 ln N/m): for the m of p = 0.1 the two
    differ by less than a factor 1.5 (scipy's bounded minimiser as the oracle)."""
    from scipy.optimize import minimize_scalar

    m = int(online.halving(*demo.experts_problem(0.1)).expert_mistakes.min())
    exact, small = demo.best_epsilon(m)
    oracle = minimize_scalar(lambda e: online.randomized_weighted_majority_bound(m, 16, 1 - e),
                             bounds=(1e-6, 1 - 1e-6), method="bounded", options={"xatol": 1e-8})
    assert abs(exact - oracle.x) <= 1e-4  # the grid's step
    assert small == pytest.approx(np.sqrt(2 * np.log(16) / m))
    assert exact < small < 1.5 * exact
    assert abs(small - exact) > 0.05  # "not the same number"
    # and the table's smallest row is the β nearest the exact minimiser among its βs
    betas = (0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999)
    bounds = [online.randomized_weighted_majority_bound(m, 16, b) for b in betas]
    assert betas[int(np.argmin(bounds))] == 0.7 and abs((1 - 0.7) - exact) < 0.05


def test_expert_zero_is_best_only_in_expectation_and_the_legend_names_the_real_best():
    """§5: expert 0 has the lowest error rate for p < ½, but over 300 rounds another expert can
    make fewer mistakes (here from p = 0.25 on); the legend names the best in hindsight."""
    for noise in np.round(np.arange(0.0, 0.5 + 1e-9, 0.05), 2):
        rates = demo.expert_error_rates(noise)
        if noise < 0.5:
            assert np.argmin(rates) == 0 and np.sum(rates == rates[0]) == 1
        predictions, outcomes = demo.experts_problem(float(noise))
        mistakes = np.sum(predictions != outcomes[:, None], axis=0)
        best = int(np.argmin(mistakes))
        label = next(iter(demo.experts_frame(0.5, float(noise)).curves))
        assert label == f"best expert (#{best}, {mistakes.min()} mistakes)"
        assert (best == 0) == (noise < 0.25)


# --- the experts widget redrawn in place, and what every figure says in words ----------------


def _legend(fig) -> list[str]:
    return [text.get_text() for text in fig.axes[0].get_legend().get_texts()]


@pytest.mark.parametrize("beta, noise", [(0.5, 0.1), (0.0, 0.0), (0.0, 0.3), (0.05, 0.5)])
def test_experts_redrawn_in_place_shows_what_a_fresh_build_shows(beta, noise):
    """The frame drawn after frames of the other regimes (halving with and without a perfect
    expert, weighted majority, bounds off scale) is a fresh figure's frame, legend included."""
    demo._experts_view.cache_clear()
    fresh = demo.show_experts(beta, noise)
    fresh_drawn, fresh_pixels, fresh_alt = drawn(fresh), png_pixels(fresh), alt_text(fresh)
    fresh_legend = _legend(fresh)
    for others in ((0.0, 0.0), (0.95, 0.5), (0.0, 0.25), (0.3, 0.05)):
        png_pixels(demo.show_experts(*others))
    again = demo.show_experts(beta, noise)
    assert again is fresh
    assert drawn(again) == fresh_drawn and alt_text(again) == fresh_alt
    assert _legend(again) == fresh_legend
    np.testing.assert_array_equal(png_pixels(again), fresh_pixels)


def test_experts_frame_says_every_final_count_and_changes_with_the_controls():
    """The alt text gives the best expert's mistakes (counted here from the predictions), the
    learner's (from an independent run of weighted majority) and the bounds."""
    texts = []
    for beta, noise in ((0.5, 0.1), (0.5, 0.3)):
        predictions, outcomes = demo.experts_problem(noise)
        best = int((predictions != outcomes[:, None]).sum(axis=0).min())
        learner = online.weighted_majority(predictions, outcomes, beta=beta).mistakes
        text = alt_text(demo.show_experts(beta, noise))
        assert f"best expert {best};" in text
        assert f"weighted majority {learner};" in text
        bound = online.weighted_majority_bound(best, demo.N_EXPERTS, beta)
        assert f"WM bound {bound:.1f}" in text
        texts.append(text)
    assert texts[0] != texts[1]
    halving = alt_text(demo.show_experts(0.0, 0.3))
    eliminated = demo.experts_frame(0.0, 0.3).eliminated_at
    assert f"Every expert is eliminated by round {eliminated}." in halving


def test_static_figures_say_what_their_data_show():
    shift = demo.shifting_target()
    plain, robust = shift.after_last_shift()
    text = alt_text(demo.show_shift(shift))
    assert f"Winnow ends at {shift.winnow[-1]}, Winnow-R at {shift.winnow_r[-1]}" in text
    assert f"Winnow makes {plain} mistakes, Winnow-R {robust}" in text
    scaling = demo.winnow_vs_perceptron()
    text = alt_text(demo.show_scaling(scaling))
    assert f"from {scaling.winnow[0]:.1f} to {scaling.winnow[-1]:.1f}" in text
    assert f"under its bound ({online.winnow_bound(2, 8)} to {online.winnow_bound(2, 256)})" in text
    assert described(demo.show_shift(shift)) and described(demo.show_scaling(scaling))


def test_winnow_r_pays_for_its_floor_on_the_middle_targets():
    # §4: Winnow-R makes *more* mistakes than plain Winnow on the second and third targets
    # ("21 against 19, and 21 against 18"), far fewer on the last and fewer in all.
    shift = demo.shifting_target()
    winnow, robust = shift.per_target()
    assert winnow.sum() == shift.winnow[-1] and robust.sum() == shift.winnow_r[-1]
    assert (winnow.tolist(), robust.tolist()) == ([17, 19, 18, 19, 89], [17, 21, 21, 14, 23])
    assert robust[1] > winnow[1] and robust[2] > winnow[2]
    assert robust[-1] * 3 < winnow[-1] and robust.sum() < winnow.sum()


def test_the_printed_constraint_matrix_has_no_negative_zeros():
    # §1's cell prints A + 0.0: IEEE's -0.0 + 0.0 is +0.0, so no "-0." appears.
    A, b = online.threshold_lp(online.boolean_inputs(2), [0, 1, 1, 0])
    assert np.any(np.signbit(A) & (A == 0))  # the raw matrix has negative zeros to hide
    assert "-0." not in str(A + 0.0) and "-0." not in str(b + 0.0)


def test_scaling_standard_errors_are_those_of_the_twenty_runs():
    """The ± printed beside the means: scipy's standard error of each n's 20 runs; the
    increments' errors add in quadrature (independent samples at each n), and the ratios' follow
    the delta method, which a direct simulation of the two means' sampling errors confirms."""
    scaling = demo.winnow_vs_perceptron()
    n = 16
    runs = [P.winnow(*demo.sparse_disjunction(n, 2, 400, seed), max_epochs=200).mistakes
            for seed in range(20)]
    i = list(scaling.ns).index(n)
    assert scaling.winnow_se[i] == pytest.approx(stats.sem(runs), rel=1e-12)
    rng = np.random.default_rng(0)
    draws = rng.normal(scaling.perceptron, scaling.perceptron_se, (200_000, len(scaling.ns)))
    simulated = (draws[:, 1:] / draws[:, :-1]).std(axis=0)
    np.testing.assert_allclose(scaling.perceptron_ratios_se(), simulated, rtol=0.05)
    simulated = np.diff(rng.normal(scaling.winnow, scaling.winnow_se, (200_000, len(scaling.ns))),
                        axis=1).std(axis=0)
    np.testing.assert_allclose(scaling.winnow_increments_se(), simulated, rtol=0.02)
