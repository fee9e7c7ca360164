"""surveys/xlsform_numbers.py: integer, decimal and select_multiple rows of an XLSForm workbook, read as the
survey file's keys and checked by the same rules; every mistake at its sheet, row and column."""

from __future__ import annotations

from datetime import datetime
from fractions import Fraction

import pytest
import yaml

from analysis.numeric_design import BoundedDesign, DiscreteLaplaceDesign, UnaryDesign
from surveys.schema import parse_survey
from surveys.xlsform import XLSFormError, import_workbook
from surveys.xlsform_numbers import constraint_range
from tests.helpers.workbooks import workbook

HEADER = ["type", "name", "label", "randomize", "min", "max", "step", "bins", "epsilon", "mechanism", "encoding"]
HEADER += ["design::p", "design::q", "constraint"]
#: Each column's letter in :data:`HEADER`.
LETTER = {column: chr(ord("A") + index) for index, column in enumerate(HEADER)}
CHOICES = [
    ["list_name", "name", "label"],
    ["acts", "copied", "Copied homework"],
    ["acts", "fake_excuse", "Gave a false excuse"],
    ["acts", "ghostwriter", "Paid a ghostwriter"],
]
SETTINGS = [["form_id", "form_title", "version"], ["habits", "Habits", 1]]


def row(**cells) -> list:
    """A survey row of :data:`HEADER` with ``cells`` written (``design::p`` as ``design_p``)."""
    named = {key.replace("design_", "design::"): value for key, value in cells.items()}
    return [named.get(column) for column in HEADER]


def form(tmp_path, *rows, choices=CHOICES):
    return workbook(tmp_path / "form.xlsx", {"survey": [HEADER, *rows], "choices": choices, "settings": SETTINGS})


def problems_of(path) -> list[str]:
    with pytest.raises(XLSFormError) as caught:
        import_workbook(path)
    return [str(problem) for problem in caught.value.problems]


THE_YAML = """
id: habits
title: Habits
version: 1
questions:
  - name: drinks
    type: integer
    label: Days with more than five glasses?
    min: 0
    max: 30
    bins: [1, 5, 10]
    epsilon: 1.5
    mechanism: laplace
  - name: unpaid_hours
    type: decimal
    label: Hours claimed but not worked?
    min: 0
    max: 20
    step: 0.5
    bins: [0.5, 2, 5]
    epsilon: 3.5
  - name: age
    type: integer
    label: Your age
    randomize: false
    min: 16
    max: 99
  - name: done
    type: select_multiple
    label: Which of these have you done?
    choices:
      - {name: copied, label: Copied homework}
      - {name: fake_excuse, label: Gave a false excuse}
      - {name: ghostwriter, label: Paid a ghostwriter}
    design: {p: 3/4, q: 1/4}
"""


def the_rows() -> list[list]:
    """The survey sheet of :data:`THE_YAML`: bins written with spaces and with commas, numbers as Excel numbers
    and as text, the check-all design in design::p and design::q."""
    drinks = {"type": "integer", "name": "drinks", "label": "Days with more than five glasses?", "min": 0, "max": 30}
    drinks |= {"bins": "1 5 10", "epsilon": 1.5, "mechanism": "laplace"}
    hours = {"type": "decimal", "name": "unpaid_hours", "label": "Hours claimed but not worked?", "min": 0}
    hours |= {"max": "20", "step": 0.5, "bins": "0.5, 2, 5", "epsilon": "3.5"}
    age = {"type": "integer", "name": "age", "label": "Your age", "randomize": "no", "min": 16, "max": 99}
    done = {"type": "select_multiple acts", "name": "done", "label": "Which of these have you done?"}
    done |= {"design_p": "3/4", "design_q": "1/4"}
    return [row(**cells) for cells in (drinks, hours, age, done)]


def test_numbers_and_a_check_all_question_read_as_the_mapping_and_survey_of_their_yaml(tmp_path):
    """An integer, a decimal, a plain integer and a select_multiple LIST: the workbook's mapping is the survey
    file's, so the one check reads both into the same questions (designs, grids, bins, choices)."""
    imported = import_workbook(form(tmp_path, *the_rows()))
    expected = yaml.safe_load(THE_YAML)
    assert imported.mapping["questions"] == expected["questions"]
    from_yaml = parse_survey(expected, "habits.yaml")
    for read, written in zip(imported.survey.questions, from_yaml.questions, strict=True):
        assert (read.name, read.type, read.randomize) == (written.name, written.type, written.randomize)
        assert (read.design, read.number, read.choices) == (written.design, written.number, written.choices)
    drinks, hours, age, done = imported.survey.questions
    assert isinstance(drinks.design, DiscreteLaplaceDesign) and drinks.number.steps == 30
    assert drinks.number.cuts == (1, 5, 10) and hours.number.cuts == (Fraction(1, 2), 2, 5)
    assert hours.number.step == Fraction(1, 2) and hours.number.steps == 40
    assert isinstance(hours.design, DiscreteLaplaceDesign | BoundedDesign)
    assert age.design is None and (age.number.minimum, age.number.maximum) == (16, 99)
    assert done.design == UnaryDesign(3, Fraction(3, 4), Fraction(1, 4))
    assert [choice.name for choice in done.choices] == ["copied", "fake_excuse", "ghostwriter"]


@pytest.mark.parametrize(
    "constraint", [". >= 16 and . <= 99", ".<=99 and .>=16", ". >= 16.0 and . <= 99"], ids=["as-is", "swapped", "16.0"]
)
def test_a_constraint_gives_the_range_when_min_and_max_are_empty(tmp_path, constraint):
    age = row(type="integer", name="age", label="Your age", randomize="no", constraint=constraint)
    question = import_workbook(form(tmp_path, age)).survey.questions[0]
    assert (question.number.minimum, question.number.maximum, question.number.step) == (16, 99, 1)


def test_a_constraint_that_agrees_with_min_and_max_is_read(tmp_path):
    age = row(type="integer", name="age", label="Your age", randomize="no", min=16, max=99)
    age[HEADER.index("constraint")] = ". >= 16 and . <= 99"
    assert import_workbook(form(tmp_path, age)).survey.questions[0].number.maximum == 99


def test_constraint_range_reads_only_the_simple_form():
    assert constraint_range(". >= -2.5 and . <= 30") == (-2.5, 30)
    for text in (". > 0 and . < 30", ". >= 0 or . <= 30", ". >= 0", ". >= 0 and . >= 30", "${x} >= 0 and . <= 3"):
        with pytest.raises(ValueError, match="only as . >= MIN and . <= MAX"):
            constraint_range(text)


def cell(column: str) -> str:
    """``column L (design::p)``; ``design::`` is where a whole design is written: both design columns."""
    if column == "design::":
        return f"column {LETTER['design::p']}-{LETTER['design::q']} (design::p .. design::q)"
    return f"column {LETTER[column]} ({column})"


YES_NO = {"type": "yes_no", "name": "cheated", "label": "Cheated?"}
DRINKS = {"type": "integer", "name": "drinks", "label": "Days?", "min": 0, "max": 30}
HOURS = {"type": "decimal", "name": "hours", "label": "Hours?", "min": 0, "max": 20, "step": 0.5}
DONE = {"type": "select_multiple acts", "name": "done", "label": "Which?"}

MISTAKES = [
    (DRINKS | {"bins": "1, x, 10"}, "bins", "a number must be digits with at most 6 decimals, got 'x'"),
    (DRINKS | {"bins": "5, 1"}, "bins", "bins must be increasing points on the grid strictly inside the range"),
    (DRINKS | {"bins": ", ;"}, "bins", "must be cut points such as 1, 5, 10 (bins 0 to under 1, 1 to under 5,"),
    (DRINKS | {"max": None}, "max", "is required"),
    (DRINKS | {"min": 0.5}, "min", "an integer question's min must be a whole number, got 0.5"),
    (DRINKS | {"min": datetime(2026, 1, 5)}, "min", "Excel read this number as a date"),
    (DRINKS | {"epsilon": "lots"}, "epsilon", "must be a number from 0.1 to 10.0, got text 'lots'"),
    (DRINKS | {"mechanism": "gaussian"}, "mechanism", "unknown mechanism text 'gaussian'; use one of laplace"),
    (DRINKS | {"encoding": "symmetric_unary"}, "encoding", "only select_multiple questions take 'encoding'"),
    (DRINKS | {"randomize": "no", "epsilon": 2}, "epsilon", "'epsilon' is given but randomize is false"),
    (DRINKS | {"design_p": "1/2"}, "design::", "a number's design is chosen by epsilon and mechanism"),
    (HOURS | {"step": None}, "step", "is required"),
    (YES_NO | {"min": 0}, "min", "only integer and decimal questions take 'min'; remove it from this yes_no"),
    (YES_NO | {"constraint": ". >= 0 and . <= 1"}, "constraint", "a constraint is read only on an integer or"),
    (DONE | {"encoding": "binary"}, "encoding", "unknown encoding text 'binary'; use one of optimized_unary"),
    (DONE | {"design_p": "1/2", "design_q": "1/4", "epsilon": 2}, "epsilon", "give either design or epsilon"),
    (DONE | {"mechanism": "laplace"}, "mechanism", "only integer and decimal questions take 'mechanism'"),
    (DRINKS | {"min": None, "max": None, "constraint": ". > 0"}, "constraint", "this app reads a constraint only"),
    (DRINKS | {"constraint": ". >= 1 and . <= 30"}, "constraint", "the constraint says the range is 1 to 30, but"),
    (DRINKS | {"min": None, "max": None, "constraint": ". >= 30 and . <= 0"}, "constraint", "max must be above min"),
]


@pytest.mark.parametrize(("cells", "column", "message"), MISTAKES, ids=lambda v: v if isinstance(v, str) else "")
def test_each_mistake_of_a_number_or_check_all_row_is_one_problem_at_its_cell(tmp_path, cells, column, message):
    (found,) = problems_of(form(tmp_path, row(**cells)))
    assert found.startswith(f"survey, row 2, {cell(column)}: {message}"), found


def test_a_check_all_question_of_more_than_ten_options_is_reported_at_its_type(tmp_path):
    choices = [["list_name", "name", "label"], *(["many", f"o{i}", f"Option {i}"] for i in range(11))]
    (found,) = problems_of(form(tmp_path, row(type="select_multiple many", name="done", label="?"), choices=choices))
    assert found == (f"survey, row 2, {cell('type')}: a select_multiple question has at most 10 options, got 11"), found


def test_a_yes_no_list_stays_a_check_all_question(tmp_path):
    """A select_one of exactly yes and no is read as a yes_no question; a select_multiple of them is not."""
    choices = [["list_name", "name", "label"], ["yn", "yes", "Yes"], ["yn", "no", "No"]]
    question = import_workbook(form(tmp_path, row(type="select_multiple yn", name="q", label="?"), choices=choices))
    assert question.survey.questions[0].type == "select_multiple"
