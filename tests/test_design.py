"""Designs: exact fractions, validation, privacy properties, round trips."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats

from analysis import (
    TWO_COIN,
    CrosswiseDesign,
    ForcedResponseDesign,
    KukDesign,
    MangatDesign,
    MultipleChoiceDesign,
    TriangularDesign,
    UnrelatedQuestionDesign,
    WarnerDesign,
    design_from_dict,
    estimate_proportion,
)
from analysis.design import DesignError, as_probability, is_finite_epsilon


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1/4", Fraction(1, 4)),
        (" 0.25 ", Fraction(1, 4)),
        (0.7, Fraction(7, 10)),  # read through its shortest decimal form
        (Fraction(2, 3), Fraction(2, 3)),
        (0, Fraction(0)),
        (1, Fraction(1)),
        ("1/999999", Fraction(1, 999_999)),
        ("1/1000000", Fraction(1, 10**6)),  # the largest denominator accepted
        (Fraction(999_999, 10**6), Fraction(999_999, 10**6)),
    ],
)
def test_as_probability_accepts(value, expected):
    assert as_probability(value, "p") == expected


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (True, "True"),
        (None, "None"),
        ("abc", "'abc'"),
        ("1/0", "'1/0'"),
        (2 / 3, "0.6666666666666666"),  # shortest decimal form needs 10^16
        (0.1 + 0.2, "0.30000000000000004"),
        (1e-7, "1e-07"),
        (math.nan, "nan"),
        ([0.5], "[0.5]"),
        ("1/1000001", "'1/1000001'"),  # one past the largest denominator
        (Fraction(1, 10**6 + 1), "Fraction(1, 1000001)"),
    ],
)
def test_as_probability_rejects_naming_the_value(value, shown):
    with pytest.raises(ValueError, match=re.escape(shown)):
        as_probability(value, "p")


def test_too_fine_a_probability_says_how_to_write_it():
    shown = "p=1e-07 needs a denominator above 1000000; write it as a fraction such as 1/3"
    with pytest.raises(ValueError, match=re.escape(shown)):
        as_probability(1e-7, "p")


def test_two_coin():
    assert ForcedResponseDesign("1/2", "1/4", "1/4") == TWO_COIN
    assert TWO_COIN.floats() == (0.5, 0.25, 0.25)
    assert TWO_COIN.kind == "forced_response"
    # Dwork and Roth: epsilon = ln((t+a)/a) = ln(.75/.25) = ln 3.
    assert_allclose(TWO_COIN.epsilon, math.log(3))
    # (1 + t)/2 = 3/4.
    assert_allclose(TWO_COIN.attack_success_rate, 0.75)
    assert TWO_COIN.label() == "two coins (t=1/2, a=1/4, b=1/4)"


@pytest.mark.parametrize(
    ("t", "a", "b", "epsilon", "attack"),
    [
        # Die: (2/3 + 1/6)/(1/6) = 5; (1 + 2/3)/2 = 5/6.
        ("2/3", "1/6", "1/6", math.log(5), 5 / 6),
        # Asymmetric: max(.9/.2, .8/.1) = 8; (1 + .7)/2 = .85.
        ("0.7", "0.2", "0.1", math.log(8), 0.85),
        # a=0: a reported yes is certainly a true yes: no privacy, epsilon infinite.
        ("0.8", "0", "0.2", math.inf, 0.9),
        # t=1: a direct question.
        ("1", "0", "0", math.inf, 1.0),
    ],
)
def test_forced_response_privacy(t, a, b, epsilon, attack):
    design = ForcedResponseDesign(t, a, b)
    assert_allclose(design.epsilon, epsilon)
    assert_allclose(design.attack_success_rate, attack)
    assert is_finite_epsilon(design) is math.isfinite(epsilon)


def test_report_yes_probability():
    # lambda = a + t pi: .25 + .5*.2 = .35; asymmetric .2 + .7*.5 = .55.
    assert_allclose(TWO_COIN.report_yes_probability(0.2), 0.35)
    assert_allclose(ForcedResponseDesign("0.7", "0.2", "0.1").report_yes_probability(0.5), 0.55)


@pytest.mark.parametrize(
    ("t", "a", "b", "shown"),
    [
        ("0", "1/2", "1/2", "t=0"),
        ("-1/2", "3/4", "3/4", "t=-1/2"),
        ("1/2", "-1/4", "3/4", "a=-1/4"),
        ("1/2", "3/4", "-1/4", "b=-1/4"),
        ("1/2", "1/4", "1/3", "1/2 + 1/4 + 1/3 = 13/12"),
        ("x", "1/4", "1/4", "t must be a number such as 0.25 or 1/4, got 'x'"),
        ("1/2", None, "1/2", "a must be a number, got None"),
        ("1/2", "1/4", "y", "b must be a number such as 0.25 or 1/4, got 'y'"),
    ],
)
def test_forced_response_rejects(t, a, b, shown):
    with pytest.raises(ValueError, match=re.escape(shown)):
        ForcedResponseDesign(t, a, b)


def test_multiple_choice_design():
    design = MultipleChoiceDesign(4, "1/2")
    assert design.uniform_share == Fraction(1, 8)
    # ln((1/2 + 1/8)/(1/8)) = ln 5; attack 1/2 + 1/8 = 5/8.
    assert_allclose(design.epsilon, math.log(5))
    assert_allclose(design.attack_success_rate, 5 / 8)
    # k=2, t=1/2 is the two-coin protocol.
    assert_allclose(MultipleChoiceDesign(2, "1/2").epsilon, TWO_COIN.epsilon)
    assert_allclose(MultipleChoiceDesign(2, "1/2").attack_success_rate, 0.75)
    assert MultipleChoiceDesign(3, 1).epsilon == math.inf
    assert design.label() == "4 options, truthful with t=1/2, otherwise uniform"


@pytest.mark.parametrize(
    ("k", "t", "shown"),
    [
        (1, "1/2", "k=1"),
        (True, "1/2", "k=True"),
        (2.0, "1/2", "k=2.0"),
        (3, "0", "t=0"),
        (3, "3/2", "t=3/2"),
        (3, "x", "t must be a number such as 0.25 or 1/4, got 'x'"),
    ],
)
def test_multiple_choice_rejects(k, t, shown):
    with pytest.raises(ValueError, match=re.escape(shown)):
        MultipleChoiceDesign(k, t)


@pytest.mark.parametrize(
    "design",
    [TWO_COIN, ForcedResponseDesign("2/3", "1/6", "1/6"), MultipleChoiceDesign(5, "3/5")],
)
def test_round_trip(design):
    record = design.to_dict()
    assert design_from_dict(record) == design
    assert all(isinstance(v, (str, int)) for v in record.values())


def test_unknown_kind():
    with pytest.raises(ValueError, match="'likert'"):
        design_from_dict({"kind": "likert"})


@pytest.mark.parametrize(
    ("record", "shown"),
    [
        ({"kind": "forced_response", "t": "1/2", "b": "1/4"}, "lacks ['a']"),
        ({"kind": "forced_response"}, "lacks ['t', 'a', 'b']"),
        ({"kind": "multiple_choice", "t": "1/2"}, "lacks ['k']"),
    ],
)
def test_record_with_a_missing_field_names_it(record, shown):
    with pytest.raises(ValueError, match=re.escape(f"design record {record!r} {shown}")):
        design_from_dict(record)


@pytest.mark.parametrize(
    ("build", "field"),
    [
        pytest.param(lambda: ForcedResponseDesign(0, "1/2", "1/2"), "t", id="t=0"),
        pytest.param(lambda: ForcedResponseDesign("1/2", "-1/4", "3/4"), "a", id="a<0"),
        pytest.param(lambda: ForcedResponseDesign("1/2", "3/4", "-1/4"), "b", id="b<0"),
        pytest.param(lambda: ForcedResponseDesign("1/2", "half", "1/4"), "a", id="a not a number"),
        pytest.param(lambda: ForcedResponseDesign("1/2", None, "1/4"), "a", id="a None"),
        pytest.param(lambda: as_probability([0.5], "delta"), "delta", id="not a number at all"),
        pytest.param(
            lambda: ForcedResponseDesign("1/2", Fraction(1, 2 * 10**6 + 2), Fraction(10**6, 2 * 10**6 + 2)),
            "a",
            id="exact fraction above the denominator limit",
        ),
        pytest.param(lambda: ForcedResponseDesign("1/2", "1/4", "1/3"), None, id="sum not 1"),
        pytest.param(lambda: MultipleChoiceDesign(1, "1/2"), "k", id="k=1"),
        pytest.param(lambda: MultipleChoiceDesign(3, "3/2"), "t", id="t>1"),
        pytest.param(lambda: as_probability("1/3000001", "delta"), "delta", id="denominator"),
        pytest.param(lambda: design_from_dict({"kind": "likert"}), None, id="unknown kind"),
    ],
)
def test_design_error_names_the_field(build, field):
    """The bad parameter is data on the error, not only words in its message."""
    from analysis.design import DesignError

    with pytest.raises(DesignError) as caught:
        build()
    assert isinstance(caught.value, ValueError)
    assert caught.value.field == field


@pytest.mark.parametrize(
    ("k", "t", "a", "b"),
    [(4, "1/2", "1/8", "3/8"), (2, "1/2", "1/4", "1/4"), (3, "3/5", "2/15", "4/15"), (5, 1, 0, 0)],
)
def test_option_marginal_is_the_forced_response_design_of_one_option(k, t, a, b):
    """ "Is it this option?": truthful with t, forced yes with (1 - t)/k, forced no with the rest."""
    design = MultipleChoiceDesign(k, t)
    marginal = design.option_marginal()
    assert marginal == ForcedResponseDesign(t, a, b)
    for pi in (0.0, 0.3, 1.0):
        assert_allclose(marginal.report_yes_probability(pi), float(design.t) * pi + (1 - float(design.t)) / k)


def test_an_exact_fraction_is_taken_as_it_is_without_a_limit():
    """A Fraction (or int) is not read back through its decimal digits: with no denominator
    limit, one whose digits exceed Python's int-to-str limit (4300) is still returned exactly."""
    tiny = Fraction(1, 3**9000)
    assert as_probability(tiny, "a", max_denominator=None) == tiny
    assert as_probability(10**5000, "k", max_denominator=None) == 10**5000


def test_a_design_refuses_an_exact_fraction_past_the_denominator_limit():
    # 1/(2*10^6 + 2) and its complement: exact, summing to 1/2, but too fine for the randomizer.
    with pytest.raises(ValueError, match=re.escape("a=Fraction(1, 2000002) needs a denominator above 1000000")):
        ForcedResponseDesign("1/2", Fraction(1, 2 * 10**6 + 2), Fraction(10**6, 2 * 10**6 + 2))
    assert ForcedResponseDesign("1/2", Fraction(1, 10**6), Fraction(499_999, 10**6)).a == Fraction(1, 10**6)


# --------------------------------------------------------------------------
# One-parameter yes/no designs: theta1 = P(stored yes | trait), theta0 = P(stored yes | no trait).

WARNER = WarnerDesign("3/4")
#: p < 1/2: a stored "no" points to the trait.
WARNER_LOW = WarnerDesign("1/4")
UNRELATED = UnrelatedQuestionDesign("2/3", "1/4")
KUK = KukDesign("7/10", "3/10")
MANGAT = MangatDesign("3/4")
#: The usual crosswise case: an innocuous "yes" share q = 1/4 < 1/2 (birthday in January-March).
CROSSWISE = CrosswiseDesign("1/4")
CROSSWISE_HIGH = CrosswiseDesign("3/4")
TRIANGULAR = TriangularDesign("1/4")
BINARY_DESIGNS = [WARNER, WARNER_LOW, UNRELATED, KUK, MANGAT, CROSSWISE, CROSSWISE_HIGH, TRIANGULAR]
BINARY_IDS = ["warner", "warner-low", "unrelated", "kuk", "mangat", "crosswise", "crosswise-high", "triangular"]
F = Fraction


@pytest.mark.parametrize(
    ("design", "theta1", "theta0"),
    [
        (WARNER, F(3, 4), F(1, 4)),  # p, 1 - p
        (WARNER_LOW, F(1, 4), F(3, 4)),
        (UNRELATED, F(2, 3) + F(1, 3) * F(1, 4), F(1, 3) * F(1, 4)),  # p + (1-p) q, (1-p) q
        (KUK, F(7, 10), F(3, 10)),  # k1, k2
        (MANGAT, F(1), F(1, 4)),  # 1, 1 - p
        (CROSSWISE, F(1, 4), F(3, 4)),  # q, 1 - q
        (TRIANGULAR, F(1), F(1, 4)),  # 1, q
    ],
    ids=["warner", "warner-low", "unrelated", "kuk", "mangat", "crosswise", "triangular"],
)
def test_yes_probabilities_follow_each_designs_formula(design, theta1, theta0):
    """The formulas of /work/shared RR-DESIGNS (Warner 1965; Greenberg et al. 1969; Kuk 1990; Mangat 1994;
    Yu, Tian and Tang 2008), exactly."""
    assert design.yes_probabilities() == (theta1, theta0)
    assert_allclose(design.report_yes_probability(0.3), float(theta0 + (theta1 - theta0) * F(3, 10)))


@pytest.mark.parametrize(
    ("design", "answer", "triple"),
    [
        (WARNER, "yes", (F(1, 2), F(1, 4), F(1, 4))),
        (WARNER_LOW, "no", (F(1, 2), F(1, 4), F(1, 4))),  # counted on "no": P(no|trait) = 3/4, P(no|not) = 1/4
        (UNRELATED, "yes", (F(2, 3), F(1, 12), F(1, 4))),
        (KUK, "yes", (F(2, 5), F(3, 10), F(3, 10))),
        (MANGAT, "yes", (F(3, 4), F(1, 4), F(0))),
        (CROSSWISE, "no", (F(1, 2), F(1, 4), F(1, 4))),  # "exactly one yes" points to the trait
        (CROSSWISE_HIGH, "yes", (F(1, 2), F(1, 4), F(1, 4))),
        (TRIANGULAR, "yes", (F(3, 4), F(1, 4), F(0))),
    ],
    ids=BINARY_IDS,
)
def test_equivalent_forced_response_design_on_the_trait_answer(design, answer, triple):
    assert design.trait_answer == answer
    assert design.exact() == triple
    assert design.trait_count(30, 100) == (30 if answer == "yes" else 70)


@pytest.mark.parametrize("design", BINARY_DESIGNS, ids=BINARY_IDS)
def test_binary_design_estimate_is_the_published_moment_estimator(design):
    """pi_hat = (lambda_hat - theta0) / (theta1 - theta0) and SE = sqrt(lambda (1 - lambda) / (n (theta1 -
    theta0)^2)) from the stored-yes share, whichever answer the estimator counts (RR-DESIGNS; RRreg divides by
    n - 1, this package by n)."""
    n, stored_yes = 1000, 420
    theta1, theta0 = (float(p) for p in design.yes_probabilities())
    lam = stored_yes / n
    estimate = estimate_proportion(design.trait_count(stored_yes, n), n, *design.exact())
    assert_allclose(estimate.estimate_raw, (lam - theta0) / (theta1 - theta0), rtol=1e-12)
    lam_c = theta0 + (theta1 - theta0) * estimate.estimate  # clamped to what the design allows
    assert_allclose(estimate.std_err_population, math.sqrt(lam_c * (1 - lam_c) / (n * (theta1 - theta0) ** 2)))


@pytest.mark.parametrize(
    ("design", "epsilon"),
    [
        (WARNER, math.log(3)),  # |ln(p / (1 - p))|
        (WARNER_LOW, math.log(3)),
        (UNRELATED, max(math.log(1 + (2 / 3) / ((1 / 3) * (1 / 4))), math.log(1 + (2 / 3) / ((1 / 3) * (3 / 4))))),
        (KUK, max(abs(math.log(0.7 / 0.3)), abs(math.log(0.3 / 0.7)))),
        (MANGAT, math.inf),
        (CROSSWISE, math.log(3)),  # |ln(q / (1 - q))|
        (CROSSWISE_HIGH, math.log(3)),
        (TRIANGULAR, math.inf),
    ],
    ids=BINARY_IDS,
)
def test_binary_design_epsilon(design, epsilon):
    assert_allclose(design.epsilon, epsilon)


@pytest.mark.parametrize("design", BINARY_DESIGNS, ids=BINARY_IDS)
def test_binary_design_round_trip(design):
    record = design.to_dict()
    assert design_from_dict(record) == design
    theta1, theta0 = design.yes_probabilities()
    assert (record["theta1"], record["theta0"]) == (str(theta1), str(theta0))  # what randomize.js draws from


def test_only_crosswise_and_triangular_are_not_randomized_by_software():
    assert [d.randomized_by_software for d in BINARY_DESIGNS] == [True, True, True, True, True, False, False, False]
    assert TWO_COIN.randomized_by_software and TWO_COIN.trait_answer == "yes"


@pytest.mark.parametrize(
    ("build", "field", "shown"),
    [
        (lambda: WarnerDesign("1/2"), "p", "p=1/2"),
        (lambda: WarnerDesign("5/4"), "p", "p=5/4"),
        (lambda: UnrelatedQuestionDesign(0, "1/4"), "p", "p=0"),
        (lambda: UnrelatedQuestionDesign("1/2", "-1/4"), "q", "q=-1/4"),
        (lambda: KukDesign("3/10", "3/10"), "k2", "k1=k2=3/10"),
        (lambda: KukDesign("abc", "3/10"), "k1", "'abc'"),
        (lambda: MangatDesign(0), "p", "p=0"),
        (lambda: CrosswiseDesign("1/2"), "q", "q=1/2"),
        (lambda: CrosswiseDesign(1), "q", "q=1"),
        (lambda: TriangularDesign(1), "q", "q=1"),
    ],
)
def test_binary_design_rejects_naming_the_value(build, field, shown):
    with pytest.raises(DesignError, match=re.escape(shown)) as raised:
        build()
    assert raised.value.field == field


# Seeded Monte Carlo per design: respondents drawn one by one (trait, then the stored answer from theta1 or
# theta0), so the test also checks which answer the estimator counts. R = 4000 surveys of n = 400 at pi = 0.3.
# Tolerances come from R: the mean raw estimate is within 4 Monte Carlo standard errors (sd / sqrt(R)) of pi,
# and the simulated coverage within 4 binomial standard errors (sqrt(c (1 - c) / R)) of the exact coverage c
# summed over the Binomial(n, lambda) distribution of stored yeses; Clopper-Pearson's exact c >= 0.95.
MC_R, MC_N, MC_PI = 4000, 400, 0.3


def _stored_yes_counts(design, seed: int) -> np.ndarray:
    rng = np.random.default_rng([11, seed])
    trait = rng.random((MC_R, MC_N)) < MC_PI
    theta1, theta0 = (float(p) for p in design.yes_probabilities())
    return (rng.random((MC_R, MC_N)) < np.where(trait, theta1, theta0)).sum(axis=1)


def _covers(ci) -> bool:
    return ci.low <= MC_PI <= ci.high


@pytest.mark.parametrize(("seed", "design"), list(enumerate(BINARY_DESIGNS)), ids=BINARY_IDS)
def test_binary_design_is_unbiased_and_its_intervals_cover(seed, design):
    stored = _stored_yes_counts(design, seed)
    by_count = {y: estimate_proportion(design.trait_count(y, MC_N), MC_N, *design.exact()) for y in range(MC_N + 1)}
    raw = np.array([by_count[y].estimate_raw for y in stored])
    assert abs(raw.mean() - MC_PI) <= 4 * raw.std(ddof=1) / math.sqrt(MC_R)
    pmf = stats.binom.pmf(np.arange(MC_N + 1), MC_N, design.report_yes_probability(MC_PI))
    for method in ("wilson", "clopper-pearson"):
        covers = {y: _covers(e.confidence_interval(0.95, method)) for y, e in by_count.items()}
        exact = float(sum(pmf[y] for y, c in covers.items() if c))
        simulated = float(np.mean([covers[y] for y in stored]))
        assert abs(simulated - exact) <= 4 * math.sqrt(exact * (1 - exact) / MC_R), method
        if method == "clopper-pearson":
            assert exact >= 0.95


@pytest.mark.parametrize("design", BINARY_DESIGNS, ids=BINARY_IDS)
def test_binary_design_standard_error_equals_the_observed_information(design):
    """The formula's standard error, sqrt(lambda (1 - lambda) / n) / |theta1 - theta0|, against 1 / sqrt(-l''(pi_hat))
    of the log-likelihood of the stored answers, y log lambda(pi) + (n - y) log(1 - lambda(pi)), by a central
    second difference at an interior estimate."""
    n = 1000
    stored_yes = round(n * design.report_yes_probability(0.3))
    estimate = estimate_proportion(design.trait_count(stored_yes, n), n, *design.exact())

    def loglik(pi: float) -> float:
        lam = design.report_yes_probability(pi)
        return stored_yes * math.log(lam) + (n - stored_yes) * math.log(1 - lam)

    h = 1e-4
    pi_hat = estimate.estimate_raw
    second = (loglik(pi_hat + h) - 2 * loglik(pi_hat) + loglik(pi_hat - h)) / h**2
    assert_allclose(estimate.std_err_population, 1 / math.sqrt(-second), rtol=1e-4)


def test_a_multiple_choice_record_with_k_as_text_is_read_as_a_number():
    """A record whose ``k`` was written as text (``"5"``) gives the same design as ``k = 5``."""
    assert design_from_dict({"kind": "multiple_choice", "k": "5", "t": "3/5"}) == MultipleChoiceDesign(5, "3/5")


@pytest.mark.parametrize(
    ("value", "low_open", "high_open", "message"),
    [
        (-0.5, False, False, "p must be in [0, 1], got p=-1/2"),
        (1.5, False, False, "p must be in [0, 1], got p=3/2"),
        (0, True, False, "p must be in (0, 1], got p=0"),
        (1, False, True, "p must be in [0, 1), got p=1"),
        (0, True, True, "p must be in (0, 1), got p=0"),
        (1, True, True, "p must be in (0, 1), got p=1"),
    ],
)
def test_a_probability_outside_its_range_is_refused_with_the_range_written_out(value, low_open, high_open, message):
    """The bounds of every design parameter (``analysis.design._unit``): each end open or closed as asked,
    and the message writes the interval with matching brackets."""
    from analysis.design import _unit

    with pytest.raises(DesignError, match=f"^{re.escape(message)}$"):
        _unit(value, "p", low_open=low_open, high_open=high_open)


@pytest.mark.parametrize("value", [0, 1, "1/2"])
def test_a_probability_at_a_closed_end_is_accepted(value):
    from analysis.design import _unit

    assert _unit(value, "p") == Fraction(value)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: CrosswiseDesign(0), "q must be in (0, 1), got q=0"),
        (lambda: CrosswiseDesign(1), "q must be in (0, 1), got q=1"),
        (lambda: KukDesign("1/2", "3/2"), "k2 must be in [0, 1], got k2=3/2"),
    ],
)
def test_design_parameters_out_of_range_are_named(make, message):
    with pytest.raises(DesignError, match=f"^{re.escape(message)}$"):
        make()


def test_a_binary_designs_floats_are_its_exact_values():
    design = KukDesign("7/10", "3/10")
    assert design.floats() == tuple(float(p) for p in design.exact())
    assert all(isinstance(p, float) for p in design.floats())
