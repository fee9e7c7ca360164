"""surveys/design_choices.py: the guided editor's table, its figures compared with analysis/ directly."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from analysis import option_shares_sample_size, sample_size_for_half_width, sample_size_for_sequence_half_width
from analysis.design import MultipleChoiceDesign, WarnerDesign
from analysis.numeric import numeric_needed_n, numeric_sequence_needed_n
from analysis.numeric_design import bounded_for_epsilon, laplace_for_epsilon, numeric_design, unary_for_epsilon
from analysis.planning import two_group_sample_size, two_group_worst_case
from analysis.privacy import forced_response_epsilon, multiple_choice_epsilon
from analysis.two_group import CheaterDetectionDesign
from analysis.unary import option_design
from surveys.design_choices import (
    DEFAULT_MARGIN,
    DESIGN_OPTIONS,
    EXAMPLE_INNOCUOUS,
    KINDS,
    Settings,
    design_choices,
    epsilon_shown,
    option_named,
    options_for,
    question_entry,
)
from surveys.files import load_survey_text
from surveys.schema_checks import SurveyFileError
from surveys.wording import design_sentence
from tests.helpers.sample_surveys import QUIZ_YAML

TARGETED = QUIZ_YAML.replace(
    "questions:\n", "targets:\n  - {question: cheated, margin: 0.1, confidence_level: 0.9}\nquestions:\n"
)


def rows_by_key(survey, kind, choices=(), settings=None):
    plan, rows = design_choices(survey, kind, choices, "", settings)
    return plan, {row.option.key: row for row in rows}


def test_a_target_on_a_numbers_mean_is_not_planned_for_as_a_share():
    """A number's margin is in its units (1.5 drinks), not a share: the share table keeps its defaults, and
    plans for the first target on a share after it."""
    number = "  - {name: drinks, type: integer, label: Drinks, min: 0, max: 30}\n"
    text = QUIZ_YAML.replace("questions:\n", "targets:\n  - {question: drinks, margin: 1.5}\nquestions:\n" + number)
    plan, _ = rows_by_key(load_survey_text(text, "quiz"), "yes_no")
    assert (plan.margin, plan.confidence_level, plan.from_target) == (DEFAULT_MARGIN, 0.95, False)
    both = text.replace(
        "  - {question: drinks, margin: 1.5}\n",
        "  - {question: drinks, margin: 1.5}\n  - {question: cheated, margin: 0.1}\n",
    )
    plan, _ = rows_by_key(load_survey_text(both, "quiz"), "yes_no")
    assert (plan.margin, plan.from_target) == (0.1, True)


def test_every_offered_design_passes_the_validator_of_survey_files():
    offered = set()
    for kind in KINDS:
        _, rows = rows_by_key(None, kind, ("a", "b", "c") if kind in ("select_one", "select_multiple") else ())
        for option in options_for(kind):
            assert rows[option.key].question.randomize == option.randomize
            assert rows[option.key].question.type == kind
            offered.add(option.key)
    assert offered == {option.key for option in DESIGN_OPTIONS}


def test_two_coins_epsilon_and_answers_are_analysis_figures():
    plan, rows = rows_by_key(None, "yes_no")
    two = rows["two_coins"]
    assert (plan.margin, plan.confidence_level, plan.from_target) == (DEFAULT_MARGIN, 0.95, False)
    assert two.epsilon == pytest.approx(forced_response_epsilon(0.5, 0.25, 0.25)) == pytest.approx(math.log(3))
    assert two.needed_n == sample_size_for_half_width(0.05, 0.95, 0.5, 0.25, 0.25)
    assert two.needed_n_sequence == sample_size_for_sequence_half_width(0.05, 0.95, 0.5, 0.25, 0.25)
    assert two.reads.startswith("Two coins are flipped in secret")


def test_the_survey_target_margin_is_the_one_planned_for():
    survey = load_survey_text(TARGETED, "quiz")
    plan, rows = rows_by_key(survey, "yes_no")
    assert (plan.margin, plan.confidence_level, plan.from_target) == (0.1, 0.9, True)
    warner = WarnerDesign(Fraction(3, 4))
    assert rows["warner"].needed_n == sample_size_for_half_width(0.1, 0.9, *warner.exact())
    assert rows["warner"].epsilon == pytest.approx(warner.epsilon)
    assert rows["forced_two_thirds"].needed_n < rows["two_coins"].needed_n  # more truth: fewer answers


def test_a_two_group_design_is_planned_for_both_groups():
    _, rows = rows_by_key(None, "yes_no")
    design = CheaterDetectionDesign(Fraction(1, 3), Fraction(2, 3))
    expected = two_group_sample_size(design, 0.05, *two_group_worst_case(design), 0.95, 0.5).n
    assert rows["cheater_detection"].needed_n == expected
    assert math.isinf(rows["cheater_detection"].epsilon)
    assert epsilon_shown(rows["cheater_detection"].epsilon) == "∞"


def test_select_one_designs_use_k_options():
    _, rows = rows_by_key(None, "select_one", ("a", "b", "c", "d"))
    design = MultipleChoiceDesign(4, Fraction(1, 2))
    assert rows["options_half"].epsilon == pytest.approx(multiple_choice_epsilon(4, 0.5))
    assert rows["options_half"].needed_n == option_shares_sample_size(design, 0.05, 0.95)
    assert rows["options_half"].reads == design_sentence(rows["options_half"].question)


def test_asked_directly_needs_the_plain_binomial_answers_and_has_no_epsilon():
    _, rows = rows_by_key(None, "yes_no")
    direct = rows["direct_yes_no"]
    assert direct.epsilon is None and epsilon_shown(None) == "-"
    assert direct.needed_n == sample_size_for_half_width(0.05, 0.95, 1, 0, 0) == 385


def test_a_paired_design_carries_the_second_statement():
    entry = question_entry(option_named("crosswise"), "drugs", "I used drugs.", innocuous="")
    assert entry["design"]["innocuous"] == EXAMPLE_INNOCUOUS
    entry = question_entry(option_named("crosswise"), "drugs", "I used drugs.", innocuous="My mother was born in May.")
    assert entry["design"]["innocuous"] == "My mother was born in May."


@pytest.mark.parametrize("bad", ["matrix", ""])
def test_an_unknown_kind_or_design_is_refused_naming_it(bad):
    with pytest.raises(ValueError, match=repr(bad)):
        options_for(bad)
    with pytest.raises(ValueError, match=repr(bad)):
        option_named(bad)


def test_a_number_is_compared_mechanism_by_mechanism_with_the_figures_of_analysis():
    """0 to 30 drinks at epsilon 1, planned for ±1.5 drinks (a twentieth of the range): each mechanism's
    design, epsilon and answers needed are analysis/numeric_design.py's and analysis/numeric.py's."""
    plan, rows = rows_by_key(None, "integer", settings=Settings("0", "30", epsilon="1"))
    assert (plan.margin, plan.units, plan.confidence_level) == (1.5, "1.5", 0.95)
    laplace, bounded = laplace_for_epsilon(30, 1.0), bounded_for_epsilon(30, 1.0)
    assert rows["laplace"].question.design == laplace and rows["bounded"].question.design == bounded
    assert rows["number_default"].question.design == numeric_design(30, 1.0)
    for key, design in (("laplace", laplace), ("bounded", bounded)):
        assert rows[key].epsilon == pytest.approx(design.epsilon) and rows[key].epsilon <= 1.0 + 1e-12
        assert rows[key].needed_n == numeric_needed_n(design, 1.5, 0.95)
        assert rows[key].needed_n_sequence == numeric_sequence_needed_n(design, 1.5, 0.95)
        assert rows[key].reads == design_sentence(rows[key].question)
    assert rows["laplace"].reads.startswith("A random amount is added to your number")
    assert rows["bounded"].reads.startswith("Only one random digit is stored")
    direct = rows["direct_number"]
    assert direct.epsilon is None and direct.needed_n_sequence is None
    assert direct.needed_n == sample_size_for_half_width(1.5 / 30, 0.95, 1, 0, 0) == 385


def test_a_decimals_margin_is_in_its_units_and_turned_into_grid_steps():
    """0 to 10 in steps of 0.5 (20 steps), ±0.25 on the mean: half a grid step."""
    settings = Settings("0", "10", "0.5", epsilon="3", margin="0.25")
    plan, rows = rows_by_key(None, "decimal", settings=settings)
    assert plan.units == "0.25"
    design = rows["laplace"].question.design
    assert design == laplace_for_epsilon(20, 3.0) and rows["laplace"].question.number.step == Fraction(1, 2)
    assert rows["laplace"].needed_n == numeric_needed_n(design, 0.5, 0.95)
    assert rows["direct_number"].needed_n == sample_size_for_half_width(0.25 / 10, 0.95, 1, 0, 0)


def test_a_check_all_question_is_compared_encoding_by_encoding():
    plan, rows = rows_by_key(None, "select_multiple", ("a", "b", "c"), Settings(epsilon="2"))
    assert plan.units is None and plan.margin == DEFAULT_MARGIN
    for key in ("optimized_unary", "symmetric_unary"):
        design = rows[key].question.design
        assert design == unary_for_epsilon(3, 2.0, key) and rows[key].epsilon == pytest.approx(design.epsilon)
        exact = option_design(design).exact()
        assert rows[key].needed_n == sample_size_for_half_width(0.05, 0.95, *exact)
        assert rows[key].needed_n_sequence == sample_size_for_sequence_half_width(0.05, 0.95, *exact)
    assert rows["ticks_default"].question.design == unary_for_epsilon(3, 2.0)
    assert rows["direct_ticks"].needed_n == 385


def test_a_number_entry_writes_the_typed_decimals_exactly():
    entry = question_entry(
        option_named("laplace"), "tip", "Tip?", kind="decimal", settings=Settings("0", "2", "0.1", "0.5, 1", "1.5")
    )
    assert entry == {
        "name": "tip",
        "type": "decimal",
        "label": "Tip?",
        "min": 0,
        "max": 2,
        "step": 0.1,
        "bins": [0.5, 1],
        "epsilon": 1.5,
        "mechanism": "laplace",
    }
    typed = question_entry(option_named("direct_number"), "n", "N?", kind="integer", settings=Settings("0", "9"))
    assert typed == {"name": "n", "type": "integer", "label": "N?", "min": 0, "max": 9, "randomize": False}
    tiny = question_entry(
        option_named("laplace"), "n", "N?", kind="decimal", settings=Settings("0", "0.001", "0.000001")
    )
    assert tiny["step"] == "0.000001"  # as text: the float would be written 1.0e-06, which is no typed number
    assert design_choices(None, "decimal", settings=Settings("0", "0.001", "0.000001"))[0].units == "0.00005"
    with pytest.raises(ValueError, match="'laplace' is not one for a yes_no question"):
        question_entry(option_named("laplace"), "n", "N?", kind="yes_no")


@pytest.mark.parametrize(
    ("settings", "said"),
    [
        (Settings("10", "0", "0.5"), "max must be above min"),
        (Settings("0", "10"), "field .step.: is required"),
        (Settings("0", "10", "0.3"), "whole number of steps"),
        (Settings("0", "ten"), "a number must be digits"),
        (Settings("0", "10", "0.5", margin="-1"), "the margin must be a number .* of at least 0.001"),
        (Settings("0", "1000", "1", margin="0.000001"), r"at least 0.1 \(a 10,000th of the range\)"),
    ],
)
def test_a_numbers_settings_that_cannot_be_built_are_refused_naming_the_mistake(settings, said):
    with pytest.raises((SurveyFileError, ValueError), match=said):
        design_choices(None, "decimal", (), "", settings)
