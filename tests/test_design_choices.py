"""surveys/design_choices.py: the guided editor's table, its figures compared with analysis/ directly."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from analysis import option_shares_sample_size, sample_size_for_half_width, sample_size_for_sequence_half_width
from analysis.design import MultipleChoiceDesign, WarnerDesign
from analysis.planning import two_group_sample_size, two_group_worst_case
from analysis.privacy import forced_response_epsilon, multiple_choice_epsilon
from analysis.two_group import CheaterDetectionDesign
from surveys.design_choices import (
    DEFAULT_MARGIN,
    DESIGN_OPTIONS,
    EXAMPLE_INNOCUOUS,
    design_choices,
    epsilon_shown,
    option_named,
    options_for,
    question_entry,
)
from surveys.files import load_survey_text
from surveys.wording import design_sentence
from tests.helpers.sample_surveys import QUIZ_YAML

TARGETED = QUIZ_YAML.replace(
    "questions:\n", "targets:\n  - {question: cheated, margin: 0.1, confidence_level: 0.9}\nquestions:\n"
)


def rows_by_key(survey, kind, choices=()):
    plan, rows = design_choices(survey, kind, choices)
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
    for option in DESIGN_OPTIONS:
        choices = ("a", "b", "c") if option.kind == "select_one" else ()
        _, rows = rows_by_key(None, option.kind, choices)
        assert rows[option.key].question.randomize == option.randomize


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
