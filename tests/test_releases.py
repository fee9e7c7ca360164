"""Public result releases (surveys/releases.py): figures, costs, refusals, noisy figures, JSON and CSV.

The noise comes from :func:`tests.helpers.seeded.seeded_sampler` (the same algorithms over seeded bits: for
tests only) or from a recording sampler that adds nothing and notes what it was asked for. Tolerances come
from the noise's own variance and, for interval coverage, from the binomial error of the simulation.
"""

from __future__ import annotations

import csv
import io
import math
from datetime import date
from fractions import Fraction

import numpy as np
import pytest
import yaml

from analysis.central import (
    PrivacyCost,
    count_interval,
    count_scale,
    discrete_gaussian_pmf,
    discrete_laplace_variance,
    mode_shortfall,
)
from surveys import breakdowns, releases
from surveys.design_contract import question_design_key
from surveys.kinds import number as number_kind
from surveys.release_words import say
from surveys.releases import ReleaseInputs, ReleaseRefused, make_release, plan_release
from surveys.results import compute_results
from surveys.schema import parse_survey
from tests.helpers.sample_surveys import TWO_GROUP_YAML, two_group_tallies
from tests.helpers.seeded import seeded_sampler

SURVEY_YAML = """
id: rel
title: Release test
version: 1
questions:
  - {name: cheated, type: yes_no, label: Cheated}
  - {name: ai_use, type: select_one, label: AI use, choices: [never, once, often], design: {t: 1/2}}
  - {name: year, type: select_one, label: Year, choices: [first, second, third], randomize: false}
  - {name: age, type: integer, label: Age, randomize: false, min: 16, max: 99, bins: [20, 25, 30]}
  - {name: drinks, type: integer, label: Drinks, min: 0, max: 30, bins: [1, 5, 10]}
releases: {budget: {epsilon: 2}, min_new_answers: 50}
"""
DAY = date(2026, 11, 26)


def make(releases_key: dict | None = None, **top) -> object:
    mapping = yaml.safe_load(SURVEY_YAML) | top
    if releases_key is not None:
        mapping["releases"] = releases_key
    if releases_key == {}:
        del mapping["releases"]
    return parse_survey(mapping, "rel.yaml")


@pytest.fixture
def survey():
    return make()


def key(survey, name):
    return question_design_key(survey.question(name))


def tallies_of(survey, year=(500, 300, 200), cheated=(400, 600)):
    return {
        "cheated": {key(survey, "cheated"): {"yes": cheated[0], "no": cheated[1]}},
        "ai_use": {key(survey, "ai_use"): {"never": 500, "once": 300, "often": 200}},
        "year": {key(survey, "year"): dict(zip(("first", "second", "third"), year))},
        "age": {key(survey, "age"): {"b00": 100, "b01": 500, "b02": 300, "b03": 100, "sum": 0, "squares": 0}},
    }


def group_tallies_of(survey, cells):
    """``{"year": {group: {"cheated": {key: {"yes": y, "no": n}}}}}`` from ``{group: (y, n)}``."""
    k = key(survey, "cheated")
    return {"year": {g: {"cheated": {k: {"yes": y, "no": n}}} for g, (y, n) in cells.items()}}


class RecordingSampler:
    """Adds no noise; records each scale, variance and choice it is asked for."""

    def __init__(self):
        self.calls = []

    def discrete_laplace(self, scale):
        self.calls.append(("laplace", scale))
        return 0

    def discrete_gaussian(self, sigma2):
        self.calls.append(("gaussian", sigma2))
        return 0

    def exponential_choice(self, utilities, epsilon, sensitivity):
        self.calls.append(("exponential", tuple(utilities), epsilon, sensitivity))
        return max(range(len(utilities)), key=lambda i: utilities[i])


class RefusingSampler:
    def __getattr__(self, name):
        raise AssertionError(f"a free figure drew noise ({name})")


# --------------------------------------------------------------------------
# What a release may hold, and what it costs.


def test_figure_choices_cost_budget_only_for_plain_answers(survey):
    choices = {c.key: c.costs_budget for c in releases.figure_choices(survey)}
    assert choices == {
        "estimate:cheated": False,
        "estimate:ai_use": False,
        "mean:drinks": False,
        "counts:year": True,
        "mode:year": True,
        "plain_numbers:age": True,
        "plain_mean:age": True,
        "mode:age": True,
        "breakdown:cheated:year": True,
        "breakdown:cheated:age": True,
        "breakdown:ai_use:year": True,
        "breakdown:ai_use:age": True,
    }


def test_a_release_splits_its_epsilon_over_its_costing_figures(survey):
    plan = plan_release(
        survey, ["estimate:cheated", "counts:year", "breakdown:cheated:year", "mode:year"], Fraction(3, 4)
    )
    assert plan.epsilon_each == {
        "estimate:cheated": 0,
        "counts:year": Fraction(1, 4),
        "breakdown:cheated:year": Fraction(1, 4),
        "mode:year": Fraction(1, 4),
    }
    assert plan.mechanism == releases.LAPLACE
    assert plan.cost.epsilon == pytest.approx(0.75) and plan.cost.sequential_epsilon == pytest.approx(0.75)
    cost = releases.release_cost(plan)
    assert (cost.epsilon, cost.delta, cost.rho) == (pytest.approx(0.75), 0.0, 0.0)
    free = plan_release(survey, ["estimate:cheated", "mean:drinks"], Fraction(1))
    assert free.cost.epsilon == 0 and free.costing_keys == ()
    assert plan_release(survey, ["estimate:cheated"], Fraction(0)).cost.epsilon == 0  # nothing to spend: allowed


def test_releases_add_up_and_one_over_the_budget_is_refused(survey):
    """Sequential composition: 1 + 0.5 spent of 2 leaves 0.5; asking 0.5 passes, 1 is refused with the numbers."""
    policy = survey.release_policy
    spent = [PrivacyCost(1.0), PrivacyCost(0.5)]
    assert releases.budget_left(policy, spent).epsilon == pytest.approx(0.5)
    fits = plan_release(survey, ["counts:year"], Fraction(1, 2))
    releases.check_release(policy, fits, spent, 200, 100)
    over = plan_release(survey, ["counts:year", "mode:year"], Fraction(1))
    with pytest.raises(ReleaseRefused) as refused:
        releases.check_release(policy, over, spent, 200, 100)
    message = str(refused.value)
    assert "asks for epsilon 1" in message and "1.5 of the budget 2 is spent" in message
    assert "0.5 is left" in message and "over by 0.5" in message


def test_a_breakdown_costs_one_epsilon_whatever_its_groups(survey):
    """Parallel composition within a table: by year (3 groups) or by age (4 bins), one epsilon; every cell gets
    the same scale, 1 / epsilon."""
    for by, groups in (("year", 3), ("age", 4)):
        plan = plan_release(survey, [f"breakdown:cheated:{by}"], Fraction(1, 2))
        assert plan.cost.epsilon == pytest.approx(0.5)
        sampler = RecordingSampler()
        inputs = ReleaseInputs(tallies_of(survey), {by: {}}, 1000)
        make_release(survey, plan, inputs, sampler, DAY)
        assert sampler.calls == [("laplace", Fraction(2))] * (2 * groups)


def test_two_rows_per_person_double_the_noise_scale(survey):
    """Group privacy: a person who may give two answers changes a count by 2, so the Laplace scale doubles, the
    Gaussian's sigma^2 quadruples and the exponential mechanism's sensitivity doubles."""
    asked = {}
    for rows in (1, 2):
        for delta in (0, 1e-6):
            one = make({"budget": {"epsilon": 2, "delta": delta}, "rows_per_person": rows})
            sampler = RecordingSampler()
            plan = plan_release(one, ["counts:year", "mode:year"], Fraction(1))
            make_release(one, plan, ReleaseInputs(tallies_of(one), {}, 1000), sampler, DAY)
            asked[rows, delta] = sampler.calls
    assert asked[1, 0][0] == ("laplace", Fraction(2)) and asked[2, 0][0] == ("laplace", Fraction(4))
    assert asked[2, 1e-6][0][1] == 4 * asked[1, 1e-6][0][1]
    assert asked[1, 0][-1][-1] == 1 and asked[2, 0][-1][-1] == 2


def test_a_gaussian_budget_is_accounted_by_zcdp_and_what_is_left_can_be_spent():
    """With delta > 0 a release's epsilon is read as the rho that converts to it; many small releases add up to
    less than their sequential sum, and exactly what budget_left reports can be spent, a little more cannot."""
    survey = make({"budget": {"epsilon": 1, "delta": 1e-6}, "min_new_answers": 1})
    policy = survey.release_policy
    plan = plan_release(survey, ["counts:year", "breakdown:cheated:year"], Fraction(1, 4))
    assert plan.mechanism == releases.GAUSSIAN
    assert plan.cost.epsilon == pytest.approx(0.25, rel=1e-6)
    spent = [releases.release_cost(plan)] * 5
    left = releases.budget_left(policy, spent)
    assert left.method == "zCDP" and left.epsilon > 0 and left.sequential_epsilon == 0
    asked = Fraction(math.floor(left.epsilon * 10**6), 10**6)
    releases.check_release(policy, plan_release(survey, ["counts:year"], asked), spent, 10, 5)
    with pytest.raises(ReleaseRefused, match="over the survey's budget"):
        releases.check_release(policy, plan_release(survey, ["counts:year"], asked * Fraction(11, 10)), spent, 10, 5)
    # releases made while the budget was pure (the file changed): their sum, as long as no delta is spent yet
    pure = releases.budget_left(policy, [PrivacyCost(0.5)])
    assert pure.method == "sequential" and pure.epsilon == pytest.approx(0.5)
    releases.check_release(policy, plan_release(survey, ["counts:year"], Fraction(1, 2)), [PrivacyCost(0.5)], 10, 5)


@pytest.mark.parametrize(
    ("keys", "epsilon", "message"),
    [
        (["counts:nothing"], Fraction(1), "There is no figure “counts:nothing”"),
        (["counts:cheated"], Fraction(1), "There is no figure “counts:cheated”"),
        (["counts:year", "counts:year"], Fraction(1), "chosen twice"),
        ([], Fraction(1), "Choose at least one figure"),
        (["counts:year"], Fraction(0), "must be above 0"),
        (["counts:year"], Fraction(-1), "must be above 0"),
        (["counts:year"], "lots", "must be a number"),
    ],
)
def test_refusals_say_what_is_wrong(survey, keys, epsilon, message):
    with pytest.raises(ReleaseRefused) as refused:
        plan_release(survey, keys, epsilon)
    assert message in str(refused.value)
    assert isinstance(refused.value, ValueError)


def test_a_survey_without_a_releases_key_is_refused(survey):
    plain = make({})
    assert plain.release_policy is None
    with pytest.raises(ReleaseRefused, match="no `releases:` key"):
        plan_release(plain, ["counts:year"], Fraction(1))
    plan = plan_release(survey, ["counts:year"], Fraction(1))
    with pytest.raises(ReleaseRefused, match="no `releases:` key"):
        releases.check_release(None, plan, [], 1000, None)


def test_too_few_new_answers_are_refused(survey):
    """At least min_new_answers (50) beyond the last release, and beyond none for the first."""
    policy = survey.release_policy
    plan = plan_release(survey, ["counts:year"], Fraction(1))
    releases.check_release(policy, plan, [], 50, None)
    releases.check_release(policy, plan, [PrivacyCost(0.5)], 150, 100)
    with pytest.raises(ReleaseRefused, match="only 49 new answers since the last release; a release needs at least 50"):
        releases.check_release(policy, plan, [PrivacyCost(0.5)], 149, 100)
    with pytest.raises(ReleaseRefused, match="only 1 new answer so far"):
        releases.check_release(policy, plan, [], 1, None)


# --------------------------------------------------------------------------
# The figures.


def test_free_figures_add_no_noise_and_match_the_results_page(survey):
    tallies = tallies_of(survey)
    plan = plan_release(survey, ["estimate:cheated", "estimate:ai_use"], Fraction(1))
    release = make_release(survey, plan, ReleaseInputs(tallies, {}, 1000), RefusingSampler(), DAY)
    page = compute_results(survey, tallies, 1000)
    cheated, ai_use = release.figures
    assert cheated.epsilon == 0 and cheated.note.startswith("No noise added")
    assert cheated.rows[0].number == pytest.approx(page.question("cheated").estimate)
    assert cheated.rows[0].low == f"{page.question('cheated').ci.low * 100:.1f}%"
    assert [row.number for row in ai_use.rows] == pytest.approx([o.estimate for o in page.question("ai_use").options])
    assert [row.label for row in ai_use.rows] == ["never", "once", "often"]


def test_counts_are_near_the_truth_whole_and_non_negative(survey):
    """Each noisy count within 6 standard deviations of the noise of the true count (a chance below 1e-6 per
    count of failing for the discrete Laplace); a zero count stays >= 0 and the counts stay whole."""
    plan = plan_release(survey, ["counts:year"], Fraction(1, 2))
    sd = math.sqrt(discrete_laplace_variance(count_scale(Fraction(1, 2), 1)))
    for seed in range(20):
        inputs = ReleaseInputs(tallies_of(survey, year=(500, 0, 200)), {}, 700)
        figure = make_release(survey, plan, inputs, seeded_sampler(seed), DAY).figures[0]
        counts = [int(row.value.split("(")[1].rstrip(")")) for row in figure.rows]
        assert all(count >= 0 for count in counts)
        assert abs(counts[0] - 500) <= 6 * sd + 2 and abs(counts[2] - 200) <= 6 * sd + 2
        assert (
            "discrete Laplace noise (scale 2" in figure.note
            and "non-negative counts with the same total" in figure.note
        )


def _coverage_bound(level: float, runs: int) -> float:
    """The least coverage a correct interval shows in ``runs`` runs but with chance about 0.1%: ``level`` minus
    3.1 binomial standard errors."""
    return level - 3.1 * math.sqrt(level * (1 - level) / runs)


@pytest.mark.parametrize(("delta", "epsilon"), [(0, Fraction(1, 10)), (1e-6, Fraction(1))])
def test_count_share_intervals_cover_at_their_level(delta, epsilon):
    """Shares of a plain question from a sample of 200 people, counts noised at epsilon 0.1 (discrete Laplace,
    noise s.d. about 14 on counts of 40 to 100) or at (1, 1e-6) (discrete Gaussian, s.d. about 5): the
    interval, which adds the noise's variance, covers the population share at its level over 400 releases."""
    survey = make({"budget": {"epsilon": 2, "delta": delta}})
    rng = np.random.default_rng(2811)
    truth = np.array([0.5, 0.3, 0.2])
    plan = plan_release(survey, ["counts:year"], epsilon)
    runs, covered = 400, np.zeros(3)
    for run in range(runs):
        year = tuple(int(c) for c in rng.multinomial(200, truth))
        figure = make_release(
            survey, plan, ReleaseInputs(tallies_of(survey, year=year), {}, 200), seeded_sampler(run), DAY
        ).figures[0]
        for i, row in enumerate(figure.rows):
            low, high = float(row.low.rstrip("%")) / 100, float(row.high.rstrip("%")) / 100
            covered[i] += low - 0.0005 <= truth[i] <= high + 0.0005
    assert (covered / runs >= _coverage_bound(0.95, runs)).all(), covered / runs


def test_breakdown_intervals_cover_at_their_level(survey):
    """A yes/no question (two coins: stored yes with chance pi / 2 + 1/4) by year, 300 people per group, cells
    noised at epsilon 0.2 (noise s.d. about 7 per cell): each group's interval covers its true share."""
    rng = np.random.default_rng(2812)
    truth = {"first": 0.1, "second": 0.3, "third": 0.6}
    plan = plan_release(survey, ["breakdown:cheated:year"], Fraction(1, 5))
    runs, covered = 300, dict.fromkeys(truth, 0)
    for run in range(runs):
        cells = {}
        for group, pi in truth.items():
            yes = int(rng.binomial(300, pi / 2 + 0.25))
            cells[group] = (yes, 300 - yes)
        inputs = ReleaseInputs(tallies_of(survey), group_tallies_of(survey, cells), 900)
        figure = make_release(survey, plan, inputs, seeded_sampler(run), DAY).figures[0]
        for row in figure.rows:
            low, high = float(row.low.rstrip("%")) / 100, float(row.high.rstrip("%")) / 100
            covered[row.label] += low - 0.0005 <= truth[row.label] <= high + 0.0005
    assert all(c / runs >= _coverage_bound(0.95, runs) for c in covered.values()), covered


def test_the_breakdown_interval_is_wider_than_the_sampling_interval_by_the_noise(survey):
    """The same cells with no noise drawn (a recording sampler) at epsilon 0.1 and at epsilon 10: the interval
    at 0.1 is wider, by the noise variance the delta method adds."""
    cells = {"first": (100, 200), "second": (150, 150), "third": (200, 100)}
    widths = {}
    for epsilon in (Fraction(1, 10), Fraction(10)):
        plan = plan_release(survey, ["breakdown:cheated:year"], epsilon)
        inputs = ReleaseInputs(tallies_of(survey), group_tallies_of(survey, cells), 900)
        figure = make_release(survey, plan, inputs, RecordingSampler(), DAY).figures[0]
        widths[epsilon] = [float(r.high.rstrip("%")) - float(r.low.rstrip("%")) for r in figure.rows]
    # at epsilon 10 the noise is negligible: the interval is the sampling one (2 x 1.96 x SE of pi-hat)
    second = 2 * 1.96 * math.sqrt(0.5 * 0.5 / 300) / 0.5 * 100
    assert widths[Fraction(10)][1] == pytest.approx(second, abs=0.2)
    variance = discrete_laplace_variance(count_scale(Fraction(1, 10), 1))
    noise = (0.5**2 + 0.5**2) * variance / 300**2  # d lambda / d c_yes = (1 - lambda) / n, likewise for no
    expected = 2 * 1.96 * math.sqrt(0.5 * 0.5 / 300 + noise) / 0.5 * 100
    assert widths[Fraction(1, 10)][1] == pytest.approx(expected, abs=0.3)


def test_breakdown_estimates_are_the_questions_own_estimator_on_the_cells(survey):
    """With no noise drawn, each group's figure is what the results page's break-down shows for the same cells
    (its kind's estimator), for a yes/no and a select_one question; the sampling part of the interval is the
    break-down's standard error."""
    k = key(survey, "ai_use")
    cells = {
        "first": {
            "cheated": {key(survey, "cheated"): {"yes": 120, "no": 180}},
            "ai_use": {k: {"never": 90, "once": 40, "often": 20}},
        },
        "second": {
            "cheated": {key(survey, "cheated"): {"yes": 200, "no": 100}},
            "ai_use": {k: {"never": 30, "once": 60, "often": 70}},
        },
    }
    plan = plan_release(survey, ["breakdown:cheated:year", "breakdown:ai_use:year"], Fraction(1000))
    release = make_release(survey, plan, ReleaseInputs({}, {"year": cells}, 600), RecordingSampler(), DAY)
    page = breakdowns.compute_breakdown(survey, "year", cells)
    cheated, ai_use = release.figures
    assert [row.label for row in cheated.rows] == ["first", "second", "third"]
    for row in cheated.rows[:2]:
        result = page.group(row.label).question("cheated")
        assert row.number == pytest.approx(result.estimate)
        assert float(row.high.rstrip("%")) - float(row.low.rstrip("%")) == pytest.approx(
            2 * 1.96 * result.std_err * 100, abs=0.15
        )
    assert cheated.rows[2].value.endswith("(0)")  # no one in the third year: no estimate, no interval
    numbers = {row.label: row.number for row in ai_use.rows}
    for group in ("first", "second"):
        for option in page.group(group).question("ai_use").options:
            assert numbers[f"{group}: {option.choice.label}"] == pytest.approx(min(max(option.estimate_raw, 0), 1))


def test_the_mode_is_the_most_common_answer_when_it_stands_out(survey):
    """500 against 300 and 200 at epsilon 1: any other answer has chance below exp(-100) of being chosen."""
    plan = plan_release(survey, ["mode:year"], Fraction(1))
    for seed in range(5):
        figure = make_release(survey, plan, ReleaseInputs(tallies_of(survey), {}, 1000), seeded_sampler(seed), DAY)
        assert figure.figures[0].rows[0].value == "first"
    assert "exponential mechanism" in figure.figures[0].note and "at most" in figure.figures[0].note


class FixedNoise(RecordingSampler):
    """Adds ``noise`` to every count; chooses as :class:`RecordingSampler`."""

    def __init__(self, noise):
        super().__init__()
        self.noise = noise

    def discrete_laplace(self, scale):
        super().discrete_laplace(scale)
        return self.noise


@pytest.mark.parametrize("noise", [-7, 0, 12, -2000])
def test_the_mode_carries_its_interval_computed_from_the_published_total(survey, noise):
    """A quarter of the figure's epsilon noises the number of answers (published, with its noise interval); the
    choice spends the rest; the shortfall's interval is mode_shortfall of the published number alone."""
    plan = plan_release(survey, ["mode:year"], Fraction(1))
    sampler = FixedNoise(noise)
    figure = make_release(survey, plan, ReleaseInputs(tallies_of(survey), {}, 1000), sampler, DAY).figures[0]
    assert sampler.calls[0] == ("laplace", Fraction(4))  # scale 1 / (epsilon / 4)
    assert sampler.calls[1][0] == "exponential" and sampler.calls[1][2] == Fraction(3, 4)
    chosen, shortfall, total = figure.rows
    assert chosen.value == "first"
    shown = max(1000 + noise, 0)
    expected = mode_shortfall(shown, 3, 0.75, 1, Fraction(4), 0.95)
    assert (total.value, total.number) == (str(shown), float(shown))
    assert (int(total.low), int(total.high)) == count_interval(1000 + noise, Fraction(4), 0.95)
    assert shortfall.number == expected.shortfall
    assert (shortfall.low, shortfall.high) == ("0.0", f"{expected.shortfall * 100:.1f}")
    assert figure.note == say(figure.note_words) and figure.title == say(figure.title_words)
    if expected.answers_low >= 1:
        assert f"at most {expected.shortfall * 100:.1f} percentage points less common" in figure.note
    else:
        assert "anywhere from 0 to 100 percentage points" in figure.note


def test_json_round_trip_and_csv_rows(survey):
    keys = [
        "estimate:cheated",
        "mean:drinks",
        "counts:year",
        "plain_numbers:age",
        "breakdown:cheated:year",
        "mode:year",
    ]
    plan = plan_release(survey, keys, Fraction(1))
    cells = {"first": (100, 200), "second": (150, 150), "third": (200, 100)}
    inputs = ReleaseInputs(tallies_of(survey), group_tallies_of(survey, cells), 1000)
    release = make_release(survey, plan, inputs, seeded_sampler(7), DAY)
    assert releases.release_from_json(releases.release_to_json(release)) == release
    assert release.made_on == "2026-11-26" and release.answers == 1000
    assert all(figure.note for figure in release.figures)
    rows = list(csv.DictReader(io.StringIO(releases.release_csv(release))))
    published = [(f.key, r.label, r.value, r.low, r.high) for f in release.figures for r in f.rows]
    assert [(r["figure"], r["label"], r["value"], r["low"], r["high"]) for r in rows] == published


def test_protection_sentences_follow_the_survey(survey):
    plan = plan_release(survey, ["counts:year"], Fraction(1))
    inputs = ReleaseInputs(tallies_of(survey), {}, 1000)
    open_survey = make_release(survey, plan, inputs, RecordingSampler(), DAY).protection
    text = " ".join(open_survey)
    assert "randomized before they were stored, on the respondent's device" in text and "“Year”" in text
    assert "control group" not in text
    assert "do not hide whether someone took part" in text
    assert "this is an assumption" in text
    invited = make(invitation_only=True)
    text = " ".join(make_release(invited, plan, inputs, RecordingSampler(), DAY).protection)
    assert "invitation codes" in text and "this is an assumption" not in text


def test_two_random_groups_and_a_control_arm_are_published_as_estimates_only():
    """A two-group design's answers are kept per random group: no break-down of them is offered (its cells would
    not be one count per person under one key); the direct-question arm's true answers are in no figure, and
    the page says so."""
    mapping = yaml.safe_load(TWO_GROUP_YAML) | {"releases": {"budget": {"epsilon": 1}}}
    survey = parse_survey(mapping, "twogroup.yaml")
    assert [c.key for c in releases.figure_choices(survey)] == [
        "estimate:evaded",
        "estimate:doped",
        "counts:region",
        "mode:region",
    ]
    counts = {"evaded": {"1": (60, 40), "2": (40, 60)}, "doped": {"1": (60, 40), "2": (40, 60)}}
    with_direct = {"evaded": counts["evaded"] | {"direct": (90, 10)}, "doped": counts["doped"]}
    plan = plan_release(survey, ["estimate:evaded", "counts:region"], Fraction(1))
    made = [
        make_release(survey, plan, ReleaseInputs(two_group_tallies(survey, c), {}, 200), RecordingSampler(), DAY)
        for c in (counts, with_direct)
    ]
    assert made[0].figures[0] == made[1].figures[0]
    assert "20% of the respondents, drawn at random, were asked these questions directly" in " ".join(
        made[0].protection
    )


def test_the_gaussian_count_interval_is_its_exact_quantile():
    """The note's plus-or-minus m for discrete Gaussian noise: P(|Z| <= m) >= 95% > P(|Z| <= m - 1), from the pmf."""
    survey = make({"budget": {"epsilon": 2, "delta": 1e-6}})
    plan = plan_release(survey, ["counts:year"], Fraction(1, 2))
    sampler = RecordingSampler()
    figure = make_release(survey, plan, ReleaseInputs(tallies_of(survey), {}, 1000), sampler, DAY).figures[0]
    sigma2 = sampler.calls[0][1]
    m = int(figure.note.split("within ±")[1].split()[0])

    def inside(width):
        return sum(discrete_gaussian_pmf(k, sigma2) for k in range(-width, width + 1))

    assert inside(m) >= 0.95 > inside(m - 1)
    assert "discrete Gaussian noise" in figure.note


def test_a_breakdown_without_its_group_tallies_is_an_error_not_a_table_of_noise(survey):
    plan = plan_release(survey, ["breakdown:cheated:year"], Fraction(1))
    with pytest.raises(ValueError, match="no tallies by 'year'"):
        make_release(survey, plan, ReleaseInputs(tallies_of(survey), {"age": {}}, 1000), RecordingSampler(), DAY)


# --------------------------------------------------------------------------
# Means of numbers: a randomized number's is free, a plain number's is noised.


def number_tallies(survey, name, stored) -> dict:
    """``{name: {design key: kept counts}}`` of the stored outputs ``stored`` (grid positions), as the write path
    keeps them (:func:`surveys.kinds.number.kept_rows`: bucket, ``=sum``, ``=sumsq``)."""
    question, counts = survey.question(name), {}
    for output in stored:
        for row, amount in number_kind.kept_rows(question, str(int(output))):
            counts[row] = counts.get(row, 0) + amount
    return {name: {key(survey, name): counts}}


def test_a_randomized_numbers_mean_is_free_and_is_the_results_pages(survey):
    outputs = np.random.default_rng(5).integers(0, 2, size=400)  # the one-bit design: bits sent
    tallies = {**tallies_of(survey), **number_tallies(survey, "drinks", outputs)}
    plan = plan_release(survey, ["mean:drinks"], Fraction(0))
    (figure,) = make_release(survey, plan, ReleaseInputs(tallies, {}, 400), RefusingSampler(), DAY).figures
    result = compute_results(survey, tallies, 400).question("drinks")
    assert figure.epsilon == 0 and plan.cost.epsilon == 0 and figure.rows[0].label == "Mean"
    assert figure.rows[0].number == pytest.approx(result.mean)
    assert figure.rows[0].low == f"{result.ci_low:.2f}" and figure.rows[0].high == f"{result.ci_high:.2f}"


def test_a_plain_mean_costs_as_a_count_and_noises_the_sum_and_the_count_at_their_sensitivities():
    """Age in [16, 99] (83 steps): one person moves the sum of (age - 16) by up to 83 per row and the count by 1
    per row; the figure's epsilon 1/2 is split in two (Laplace scales 83 / (1/4) and 1 / (1/4)), its rho too
    (sigma^2 = 83^2 / rho and 1 / rho)."""
    asked = {}
    for rows in (1, 2):
        for delta in (0, 1e-6):
            one = make({"budget": {"epsilon": 2, "delta": delta}, "rows_per_person": rows})
            plan = plan_release(one, ["plain_mean:age", "counts:year"], Fraction(1))
            sampler = RecordingSampler()
            tallies = {**tallies_of(one), **number_tallies(one, "age", [4, 9, 30])}
            make_release(one, plan, ReleaseInputs(tallies, {}, 3), sampler, DAY)
            asked[rows, delta] = (plan, sampler.calls[:2])
    plan, calls = asked[1, 0]
    assert plan.epsilon_each["plain_mean:age"] == Fraction(1, 2) and plan.cost.epsilon == pytest.approx(1)
    assert calls == [("laplace", Fraction(332)), ("laplace", Fraction(4))]
    assert asked[2, 0][1] == [("laplace", Fraction(664)), ("laplace", Fraction(8))]
    plan, calls = asked[1, 1e-6]
    rho = plan.rho_each["plain_mean:age"]
    assert rho == plan.rho_each["counts:year"] and plan.figure_costs[0] == plan.figure_costs[1]
    assert calls == [("gaussian", Fraction(83**2) / rho), ("gaussian", 1 / rho)]
    assert asked[2, 1e-6][1] == [("gaussian", 4 * Fraction(83**2) / rho), ("gaussian", 4 / rho)]


def test_a_plain_mean_without_noise_is_the_mean_of_the_answers(survey):
    ages = [17, 19, 22, 22, 35, 60]
    tallies = {**tallies_of(survey), **number_tallies(survey, "age", [a - 16 for a in ages])}
    plan = plan_release(survey, ["plain_mean:age"], Fraction(1))
    (figure,) = make_release(survey, plan, ReleaseInputs(tallies, {}, 6), RecordingSampler(), DAY).figures
    (row,) = figure.rows
    assert row.number == pytest.approx(sum(ages) / 6) and row.value == f"{sum(ages) / 6:.2f}"
    assert 16 <= float(row.low) < row.number < float(row.high) <= 99
    assert "discrete Laplace noise (scale 166 = 83 / epsilon 0.5)" in figure.note, figure.note
    assert "Bhatia and Davis 2000" in figure.note


@pytest.mark.parametrize(("delta", "epsilon"), [(0, Fraction(1, 10)), (0, Fraction(4)), (1e-6, Fraction(1))])
def test_plain_mean_intervals_cover_at_their_level(delta, epsilon):
    """Ages of 200 people drawn from a skewed population (16 + binomial(83, 0.15), mean 28.45): at epsilon 0.1
    the noise dominates (s.d. of the mean about 12 years), at 4 the sampling does, at (1, 1e-6) both count;
    the interval covers the population mean at its level over 400 releases."""
    survey = make({"budget": {"epsilon": 5, "delta": delta}})
    rng = np.random.default_rng(2813)
    plan = plan_release(survey, ["plain_mean:age"], epsilon)
    truth, runs, covered = 16 + 83 * 0.15, 400, 0
    for run in range(runs):
        tallies = number_tallies(survey, "age", rng.binomial(83, 0.15, size=200))
        (row,) = make_release(survey, plan, ReleaseInputs(tallies, {}, 200), seeded_sampler(run), DAY).figures[0].rows
        covered += float(row.low) - 0.005 <= truth <= float(row.high) + 0.005
    assert covered / runs >= _coverage_bound(0.95, runs), covered / runs


def test_a_release_stored_before_its_words_were_kept_reads_back_in_english(survey):
    """A release stored without ``title_words``/``note_words``/``protection_words`` still reads; its English
    text is what is shown (web.language.release_text falls back to it)."""
    import json

    plan = plan_release(survey, ["counts:year", "mode:year"], Fraction(1))
    release = make_release(survey, plan, ReleaseInputs(tallies_of(survey), {}, 1000), seeded_sampler(3), DAY)
    data = json.loads(releases.release_to_json(release))
    del data["protection_words"]
    for figure in data["figures"]:
        del figure["title_words"], figure["note_words"]
    old = releases.release_from_json(json.dumps(data))
    assert old.protection == release.protection and old.protection_words == ()
    assert [(f.title, f.note, f.title_words, f.note_words) for f in old.figures] == [
        (f.title, f.note, None, None) for f in release.figures
    ]
    assert say(release.figures[0].note_words) == release.figures[0].note
