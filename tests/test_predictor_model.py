"""analysis.predictor_model: a randomized yes/no answer predicting a plain outcome, by maximum likelihood."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from analysis.predictor_model import cell_probabilities, fit_predictor, predictor_log_likelihood
from analysis.regression import NotIdentified

#: Forced response with a die: truthful on 1-4, yes on 5, no on 6 (theta1 = t + a, theta0 = a).
DIE = (2 / 3 + 1 / 6, 1 / 6)


def _table(rng, n, pi, alpha, beta, theta1, theta0, names):
    """A multinomial draw of the ``2 x K`` cross-table under the model, as counts per outcome."""
    params = np.concatenate([[math.log(pi / (1 - pi))], alpha, beta])
    p = cell_probabilities(params, len(names), theta1, theta0)
    draw = rng.multinomial(n, p.ravel()).reshape(2, len(names))
    return {name: (int(draw[0, k]), int(draw[1, k])) for k, name in enumerate(names)}


def _rows(counts):
    """Rows (z, y) of a table with no randomization: stored yes is z = 1."""
    z, y = [], []
    for k, (yes, no) in enumerate(counts.values()):
        z += [1] * yes + [0] * no
        y += [k] * (yes + no)
    return np.array(z, dtype=float), np.array(y)


def test_without_randomization_the_fit_is_statsmodels_logit():
    sm = pytest.importorskip("statsmodels.api")
    counts = {"stays": (40, 260), "leaves": (35, 65)}
    fit = fit_predictor(counts, 1, 0)
    z, y = _rows(counts)
    ref = sm.Logit(y, sm.add_constant(z)).fit(disp=0)
    eq = fit.equations[0]
    assert_allclose([eq.intercept.estimate, eq.effect.estimate], ref.params, rtol=0, atol=1e-6)
    assert_allclose([eq.intercept.std_err, eq.effect.std_err], ref.bse, rtol=0, atol=1e-6)
    assert_allclose(fit.prevalence, 75 / 400, atol=1e-12)


def test_without_randomization_the_multinomial_fit_is_statsmodels_mnlogit():
    sm = pytest.importorskip("statsmodels.api")
    counts = {"stay": (30, 210), "unsure": (25, 60), "leave": (45, 30)}
    fit = fit_predictor(counts, 1, 0)
    z, y = _rows(counts)
    ref = sm.MNLogit(y, sm.add_constant(z)).fit(disp=0, method="newton", tol=1e-12)
    params, bse = np.asarray(ref.params), np.asarray(ref.bse)  # rows: const, z; columns: outcomes 1, 2
    for j, eq in enumerate(fit.equations):
        assert_allclose([eq.intercept.estimate, eq.effect.estimate], params[:, j], rtol=0, atol=1e-6)
        assert_allclose([eq.intercept.std_err, eq.effect.std_err], bse[:, j], rtol=0, atol=1e-6)


def test_the_fit_is_a_maximum_and_its_information_is_the_numerical_hessian():
    counts = {"no": (180, 420), "yes": (160, 140), "maybe": (50, 50)}
    fit = fit_predictor(counts, *DIE)
    x = np.array(fit.estimates)

    def ll(v):
        return predictor_log_likelihood(v, counts, *DIE)

    h = 1e-4
    eye = np.eye(len(x)) * h
    grad = [(ll(x + e) - ll(x - e)) / (2 * h) for e in eye]
    assert_allclose(grad, 0, atol=1e-5)
    hess = np.array(
        [[(ll(x + a + b) - ll(x + a - b) - ll(x - a + b) + ll(x - a - b)) / (4 * h * h) for b in eye] for a in eye]
    )
    assert_allclose(np.linalg.inv(-hess), fit.covariance, rtol=1e-4)
    assert fit.log_likelihood == pytest.approx(ll(x))


def test_the_worked_example_of_the_researchers_guide():
    # The die design; by hand: q(1, stays) = (0.3 - 0.8/6)/(2/3) = 0.25, q(1, leaves) = (0.15 - 0.2/6)/(2/3) = 0.175,
    # so pi = 0.425 and the odds ratio is (0.175/0.25)/(0.025/0.55) = 15.4; the stored answers taken as true give 5.
    fit = fit_predictor({"stays": (300, 500), "leaves": (150, 50)}, *DIE)
    assert_allclose(fit.cells, [[0.55, 0.025], [0.25, 0.175]], atol=1e-12)
    assert fit.prevalence == pytest.approx(0.425) and fit.reference == "stays"
    effect = fit.equations[0].effect
    assert effect.odds_ratio == pytest.approx(15.4)
    assert (round(effect.std_err, 3), round(effect.odds_ratio_low, 2), round(effect.odds_ratio_high, 2)) == (
        0.437,
        6.54,
        36.24,
    )
    assert fit_predictor({"stays": (300, 500), "leaves": (150, 50)}, 1, 0).equations[0].effect.odds_ratio == (
        pytest.approx(5.0)
    )


def test_a_general_optimizer_finds_the_same_maximum():
    from scipy import optimize

    counts = {"no": (180, 420), "yes": (160, 140), "maybe": (50, 50)}
    fit = fit_predictor(counts, *DIE)
    best = optimize.minimize(
        lambda v: -predictor_log_likelihood(v, counts, *DIE), np.zeros(5), method="BFGS", options={"gtol": 1e-9}
    )
    assert_allclose(best.x, fit.estimates, atol=1e-5)
    assert -best.fun == pytest.approx(fit.log_likelihood, abs=1e-9)


def test_the_prevalence_and_its_standard_error_are_the_usual_estimator_s():
    from fractions import Fraction

    from analysis import estimate_proportion

    counts = {"no": (180, 420), "yes": (160, 140), "maybe": (50, 50)}
    fit = fit_predictor(counts, *DIE)
    usual = estimate_proportion(390, 1000, Fraction(2, 3), Fraction(1, 6), Fraction(1, 6))
    assert fit.prevalence == pytest.approx(usual.estimate, abs=1e-12)
    assert fit.prevalence_std_err == pytest.approx(usual.std_err, rel=1e-9)


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_simulated_tables_recover_the_coefficients(seed):
    rng = np.random.default_rng(seed)
    alpha, beta = np.array([-0.5, -1.0]), np.array([1.0, 0.3])
    counts = _table(rng, 5000, 0.3, alpha, beta, *DIE, ["a", "b", "c"])
    fit = fit_predictor(counts, *DIE)
    for eq, a, b in zip(fit.equations, alpha, beta, strict=True):
        assert abs(eq.intercept.estimate - a) < 4 * eq.intercept.std_err
        assert abs(eq.effect.estimate - b) < 4 * eq.effect.std_err
    assert abs(fit.prevalence - 0.3) < 4 * fit.prevalence_std_err


def test_the_standard_error_matches_the_spread_over_simulations():
    rng = np.random.default_rng(29)
    reps, alpha, beta = 1000, np.array([-0.4]), np.array([0.8])
    betas, ses = [], []
    for _ in range(reps):
        fit = fit_predictor(_table(rng, 4000, 0.35, alpha, beta, *DIE, ["stay", "leave"]), *DIE)
        betas.append(fit.equations[0].effect.estimate)
        ses.append(fit.equations[0].effect.std_err)
    sd = np.std(betas, ddof=1)
    # The sample SD of `reps` near-normal draws errs by sd / sqrt(2 (reps - 1)); allow 4 of those.
    assert abs(np.mean(ses) - sd) < 4 * sd / math.sqrt(2 * (reps - 1))
    assert abs(np.mean(betas) - 0.8) < 4 * sd / math.sqrt(reps) + 0.01  # + the estimator's O(1/n) bias


def test_a_warner_design_whose_yes_points_away_from_the_trait_fits_too():
    rng = np.random.default_rng(7)
    theta1, theta0 = 0.3, 0.7  # Warner with p = 0.3: a stored "no" points to the trait
    fit = fit_predictor(
        _table(rng, 20000, 0.4, np.array([0.2]), np.array([-0.7]), theta1, theta0, ["x", "y"]), theta1, theta0
    )
    eq = fit.equations[0]
    assert abs(eq.effect.estimate + 0.7) < 4 * eq.effect.std_err
    assert eq.effect.odds_ratio == pytest.approx(math.exp(eq.effect.estimate))
    assert eq.effect.odds_ratio_low < eq.effect.odds_ratio < eq.effect.odds_ratio_high


def test_odds_ratio_interval_is_exp_of_the_wald_interval():
    fit = fit_predictor({"no": (300, 500), "yes": (150, 50)}, *DIE, confidence_level=0.9)
    e = fit.equations[0].effect
    assert e.low == pytest.approx(e.estimate - 1.6448536269514722 * e.std_err)
    assert (e.odds_ratio_low, e.odds_ratio_high) == pytest.approx((math.exp(e.low), math.exp(e.high)))


def test_a_cell_the_design_cannot_produce_is_not_identified():
    # Among those who said "yes" the stored yes rate (10/100) is below theta0 = 1/6: no one there has the trait.
    with pytest.raises(NotIdentified, match="'yes'"):
        fit_predictor({"no": (300, 500), "yes": (10, 90)}, *DIE)
    with pytest.raises(NotIdentified, match="no one answered 'yes'"):
        fit_predictor({"no": (300, 500), "yes": (0, 0)}, *DIE)


@pytest.mark.parametrize(
    ("counts", "theta1", "theta0", "field"),
    [
        ({"a": (1, 2)}, 0.8, 0.2, "counts"),
        ({"a": (1, 2), "b": (1,)}, 0.8, 0.2, "counts"),
        ({"a": (1, 2), "b": (1, -1)}, 0.8, 0.2, "counts"),
        ({"a": (1, 2), "b": (1, 1)}, 0.5, 0.5, "theta1"),
        ({"a": (1, 2), "b": (1, 1)}, 1.2, 0.2, "theta1"),
    ],
)
def test_bad_arguments_name_the_value(counts, theta1, theta0, field):
    with pytest.raises(ValueError, match=field):
        fit_predictor(counts, theta1, theta0)


# --------------------------------------------------------------------------
# surveys.predictor_model: the cross-table from the kept group tallies.


def _survey():
    from tests.helpers.sample_surveys import make_survey

    return make_survey()


def _key(survey, name, design=None):
    import dataclasses

    from surveys.design_contract import question_design_key

    question = survey.question(name)
    return question_design_key(question if design is None else dataclasses.replace(question, design=design))


def test_the_domain_fit_reads_the_cross_table_from_the_group_tallies():
    from analysis import ForcedResponseDesign
    from surveys import predictor_model as pm

    survey = _survey()
    key, old = _key(survey, "lied"), _key(survey, "lied", ForcedResponseDesign("1/2", "1/4", "1/4"))
    grouped = {
        "arts": {"lied": {key: {"yes": 120, "no": 200}, old: {"yes": 5, "no": 5}}, "cheated": {}},
        "science": {"lied": {key: {"yes": 90, "no": 60}}},
        None: {"lied": {key: {"yes": 7, "no": 3}}},
    }
    result = pm.fit_predictor_model(survey, pm.check_predictor_choice(survey, "lied", "dept"), grouped)
    expected = fit_predictor({"arts": (120, 200), "science": (90, 60)}, 5 / 6, 1 / 6)
    assert result.fit == expected
    assert result.left_out == 20  # the earlier design's 10 and the 10 who left dept unanswered
    assert result.levels == (("arts", "Arts"), ("science", "Science"))
    assert result.dropped == ("Law",)
    assert result.design == "forced response (t=2/3, a=1/6, b=1/6)"


@pytest.mark.parametrize(
    ("grouped", "message"),
    [
        ({}, "Too few"),
        ({"arts": {"lied": {"K": {"yes": 5, "no": 5}}}, "law": {"lied": {"K": {"yes": 5, "no": 4}}}}, "Too few"),
        ({"arts": {"lied": {"K": {"yes": 50, "no": 50}}}}, "nothing to compare"),
        (
            {"arts": {"lied": {"K": {"yes": 300, "no": 500}}}, "law": {"lied": {"K": {"yes": 10, "no": 90}}}},
            "No estimate",
        ),
    ],
)
def test_a_fit_that_cannot_be_made_says_why(grouped, message):
    from surveys import predictor_model as pm

    survey = _survey()
    key = _key(survey, "lied")
    grouped = {g: {q: {key: by["K"]} for q, by in per.items()} for g, per in grouped.items()}
    result = pm.fit_predictor_model(survey, pm.PredictorChoice("lied", "dept"), grouped)
    assert result.fit is None and message in result.message


@pytest.mark.parametrize(
    ("predictor", "outcome", "field"),
    [("ai_use", "dept", "randomized answer"), ("dept", "dept", "randomized answer"), ("lied", "cheated", "outcome")],
)
def test_a_choice_that_cannot_be_modelled_is_refused(predictor, outcome, field):
    from surveys import predictor_model as pm

    with pytest.raises(ValueError, match=field):
        pm.check_predictor_choice(_survey(), predictor, outcome)


_TABLE = {"first": (120, 180), "second": (200, 100), "third": (90, 110)}


def test_the_fit_records_its_design_level_parameters_and_prevalence_interval():
    fit = fit_predictor(_TABLE, *DIE, confidence_level=0.9)
    assert (fit.n, fit.theta1, fit.theta0, fit.confidence_level) == (800, DIE[0], DIE[1], 0.9)
    assert fit.parameters == ("gamma", "alpha[second]", "alpha[third]", "beta[second]", "beta[third]")
    z = 1.6448536269514722
    assert fit.prevalence_low == pytest.approx(fit.prevalence - z * fit.prevalence_std_err)
    assert fit.prevalence_high == pytest.approx(fit.prevalence + z * fit.prevalence_std_err)
    assert [e.outcome for e in fit.equations] == ["second", "third"]
    assert [(e.intercept.name, e.effect.name) for e in fit.equations] == [
        ("second: intercept", "second: trait"),
        ("third: intercept", "third: trait"),
    ]


def test_a_table_of_one_answer_is_fitted_or_refused_but_never_as_no_answers():
    with pytest.raises(NotIdentified, match="^no answers yet$"):
        fit_predictor({"a": (0, 0), "b": (0, 0)}, *DIE)
    with pytest.raises(NotIdentified) as refused:
        fit_predictor({"a": (1, 0), "b": (0, 0)}, *DIE)
    assert "no answers yet" not in str(refused.value)


def test_the_log_likelihood_counts_each_answer_once_cells_of_one_included():
    counts = {"a": (1, 3), "b": (2, 1)}
    params = np.array([0.1, -0.2, 0.4])
    cells = cell_probabilities(params, 2, *DIE)
    table = np.array([[1, 2], [3, 1]], dtype=float)  # row 0 stored yes, row 1 stored no
    assert predictor_log_likelihood(params, counts, *DIE) == pytest.approx(float(np.sum(table * np.log(cells))))
    fit = fit_predictor(counts, *DIE)
    assert fit.log_likelihood == pytest.approx(predictor_log_likelihood(np.array(fit.estimates), counts, *DIE))


@pytest.mark.parametrize(("theta1", "theta0", "name"), [(0.8, 1.5, "theta0"), (-0.1, 0.2, "theta1")])
def test_a_bad_theta_is_named_exactly(theta1, theta0, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        fit_predictor({"a": (1, 2), "b": (1, 1)}, theta1, theta0)
    with pytest.raises(ValueError, match=r"^confidence_level\b"):
        fit_predictor({"a": (1, 2), "b": (1, 1)}, 0.8, 0.2, confidence_level=0)


# --------------------------------------------------------------------------
# Edges: the refusals' whole messages, a cell at exactly 0, the clipped prevalence interval, a cell of probability 0.

_EDGE = "the likelihood's maximum is at an odds ratio of 0 or infinity"


@pytest.mark.parametrize(
    ("counts", "who"),
    [
        # Among 'yes' the stored yes rate 10/100 is below theta0 = 1/6: q(1, yes) < 0, no one with the trait.
        ({"no": (300, 500), "yes": (10, 90)}, "with"),
        # 95/100 is above theta1 = 5/6: q(0, yes) = 0.1 - (0.095 - 0.1/6) / (2/3) < 0, no one without it.
        ({"no": (300, 500), "yes": (95, 5)}, "without"),
    ],
)
def test_a_refused_cell_says_whole_whom_its_outcome_lacks(counts, who):
    message = f"^the stored answers of those who answered 'yes' put no one {who} the trait among them: {_EDGE}$"
    with pytest.raises(NotIdentified, match=message):
        fit_predictor(counts, *DIE)


def test_a_cell_of_exactly_zero_is_refused():
    """Two coins (theta1 = 3/4, theta0 = 1/4, exact in binary): 'a' has 1 stored yes of 4 answers out of 8, so
    q(1, a) = (1/8 - 1/4 * 4/8) / (1/2) = 0 exactly; the other cells are positive (q(0, a) = 1/2, q(z, b) = 1/4)."""
    with pytest.raises(NotIdentified, match="^the stored answers of those who answered 'a' put no one with the trait"):
        fit_predictor({"a": (1, 3), "b": (2, 2)}, 0.75, 0.25)


@pytest.mark.parametrize(("yes", "no"), [(2, 8), (8, 2)])
def test_the_prevalence_interval_is_clipped_to_the_unit_interval(yes, no):
    """Two outcomes alike, 20 answers under the die: the prevalence is the usual estimator's (0.05 or 0.95, standard
    error 0.134, from analysis.estimate_proportion), so its Wald interval passes 0 or 1 and is cut there."""
    from fractions import Fraction

    from analysis import estimate_proportion

    fit = fit_predictor({"a": (yes, no), "b": (yes, no)}, *DIE)
    usual = estimate_proportion(2 * yes, 20, Fraction(2, 3), Fraction(1, 6), Fraction(1, 6))
    z = 1.959963984540054
    low, high = usual.estimate - z * usual.std_err, usual.estimate + z * usual.std_err
    assert low < 0 or high > 1
    assert fit.prevalence_low == (0.0 if low < 0 else pytest.approx(low))
    assert fit.prevalence_high == (1.0 if high > 1 else pytest.approx(high))


def test_a_cell_of_probability_zero_that_no_one_answered_adds_nothing_to_the_log_likelihood():
    """0 log 0 = 0: with no randomization and pi = expit(-1000) = 0 (exactly, in floats) no one can store yes; the
    yes row's counts are 0, so the log-likelihood is the no row's, ``sum_k n[no, k] log softmax(alpha)_k``."""
    params = np.array([-1000.0, 0.3, -0.2])
    expected = 5 * math.log(1 / (1 + math.exp(0.3))) + 3 * math.log(math.exp(0.3) / (1 + math.exp(0.3)))
    assert predictor_log_likelihood(params, {"a": (0, 5), "b": (0, 3)}, 1.0, 0.0) == pytest.approx(expected)


def test_counts_beyond_64_bits_give_the_same_shares_and_a_covariance_as_many_times_smaller():
    """The estimates depend on the table's shares only and the information is ``N`` times one answer's (module
    Notes), so every count times 2**60 (Python integers past int64; a power of 2, so every share is the same float)
    gives the same estimates and the covariance divided by 2**60."""
    counts = {"no": (180, 420), "yes": (160, 140), "maybe": (50, 50)}
    big = {outcome: (yes * 2**60, no * 2**60) for outcome, (yes, no) in counts.items()}
    fit, scaled = fit_predictor(counts, *DIE), fit_predictor(big, *DIE)
    assert_allclose(scaled.estimates, fit.estimates, rtol=1e-12)
    assert_allclose(np.array(scaled.covariance) * 2**60, fit.covariance, rtol=1e-9)
    assert scaled.n == 1000 * 2**60


def test_parameters_given_as_fractions_are_taken_as_floats():
    from fractions import Fraction

    exact = [Fraction(1, 10), Fraction(-1, 5), Fraction(2, 5)]
    assert_allclose(cell_probabilities(exact, 2, *DIE), cell_probabilities([0.1, -0.2, 0.4], 2, *DIE), rtol=1e-15)
