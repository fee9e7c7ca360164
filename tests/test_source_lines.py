"""surveys/source_lines.py: each problem of a real invalid survey text placed at its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from surveys.files import load_survey_text
from surveys.schema_checks import Problem, SurveyFileError
from surveys.source_lines import append_question, field_path, place_problems, problems_by_line
from tests.helpers.sample_surveys import QUIZ_YAML

EXAMPLES = Path(__file__).resolve().parent.parent / "survey_files"


def problems_of(text: str):
    with pytest.raises(SurveyFileError) as caught:
        load_survey_text(text, "in-page")
    return place_problems(text, caught.value.problems)


def line_of(text: str, needle: str, nth: int = 1) -> int:
    """The 1-based line of the ``nth`` line containing ``needle``."""
    found = [number for number, line in enumerate(text.splitlines(), start=1) if needle in line]
    return found[nth - 1]


def test_field_path_reads_keys_and_positions_from_one():
    assert field_path("targets[2].margin") == ("targets", 1, "margin")
    assert field_path("design.t") == ("design", "t")
    assert field_path(None) == ()


def test_a_bad_design_probability_is_placed_at_its_key():
    text = QUIZ_YAML.replace("design: {t: 2/3, a: 1/6, b: 1/6}", "design:\n      t: 2/3\n      a: -1/6\n      b: 1/6")
    placed = problems_of(text)
    assert [(p.question, p.field) for p in placed] == [("lied", "design.a")]
    assert placed[0].line == line_of(text, "a: -1/6")


def test_an_unknown_key_and_a_missing_label_are_placed_in_their_question():
    text = QUIZ_YAML.replace("    label: Year of study\n", "    lable: Year of study\n")
    placed = problems_of(text)
    by_field = {p.field: p.line for p in placed}
    assert by_field["lable"] == line_of(text, "lable:")
    assert by_field["label"] == line_of(text, "- name: year")  # missing: the question that lacks it


def test_a_question_without_a_name_is_found_by_its_position():
    text = QUIZ_YAML.replace("  - name: lied\n", "  - nam: lied\n")
    placed = problems_of(text)
    assert {p.question for p in placed} == {"#2"}
    assert {p.line for p in placed} == {line_of(text, "nam: lied")}


def test_a_repeated_name_points_at_the_repetition():
    text = QUIZ_YAML.replace("  - name: lied\n", "  - name: cheated\n")
    placed = [p for p in problems_of(text) if "same name" in p.message]
    assert placed[0].line == line_of(text, "name: cheated", nth=2)


def test_a_target_problem_is_placed_at_the_target_field():
    text = QUIZ_YAML.replace(
        "questions:\n",
        "targets:\n  - {question: cheated, margin: 0.05}\n  - question: nobody\n    margin: 0.05\nquestions:\n",
    )
    placed = problems_of(text)
    assert [(p.field, p.line) for p in placed] == [("targets[2].question", line_of(text, "question: nobody"))]


def test_a_whole_file_problem_goes_at_the_top_before_the_others():
    placed = place_problems(
        QUIZ_YAML, [Problem("in-page", "cheated", "label", "x"), Problem("in-page", None, None, "the whole file")]
    )
    assert [p.line for p in placed] == [None, line_of(QUIZ_YAML, "label: Have you ever cheated")]
    assert list(problems_by_line(placed)) == [None, placed[1].line]


def test_a_yaml_syntax_error_is_placed_where_the_reading_stopped():
    text = QUIZ_YAML.replace("    label: Year of study\n", "    label: [Year of study\n")
    placed = problems_of(text)
    assert len(placed) == 1 and "invalid YAML" in placed[0].message
    assert placed[0].line == int(placed[0].message.split("line ")[1].split(",")[0])


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.name)
def test_every_shipped_example_with_a_broken_first_label_is_placed_at_that_label(path):
    text = path.read_text(encoding="utf-8")
    first = line_of(text, "label:")
    lines = text.splitlines(keepends=True)
    lines[first - 1] = lines[first - 1].replace("label:", "label: [1, 2] #", 1)
    placed = problems_of("".join(lines))
    assert first in {p.line for p in placed}


CROSSWISE = {
    "name": "drugs",
    "type": "yes_no",
    "label": "I used: drugs",
    "design": {"model": "crosswise", "q": "1/4", "innocuous": "I was born in spring."},
}


def test_an_appended_question_ends_the_list_and_keeps_the_rest_as_written():
    text = (
        QUIZ_YAML.replace("questions:\n", "questions:  # kept\n") + "targets:\n  - {question: cheated, margin: 0.1}\n"
    )
    added = append_question(text, CROSSWISE)
    survey = load_survey_text(added, "quiz")
    assert [q.name for q in survey.questions][-1] == "drugs"
    assert survey.questions[-1].innocuous == "I was born in spring."
    assert added.startswith(text.split("targets:")[0]) and added.endswith(
        "targets:\n  - {question: cheated, margin: 0.1}\n"
    )
    assert "questions:  # kept" in added


def test_a_question_is_appended_at_the_lists_own_indentation_after_a_last_line_without_newline():
    text = "id: a\ntitle: A\nversion: 1\nquestions:\n- name: x\n  type: yes_no\n  label: X"
    added = append_question(text, CROSSWISE)
    assert [q.name for q in load_survey_text(added, "a").questions] == ["x", "drugs"]
    assert "\n- name: drugs\n" in added


@pytest.mark.parametrize("text", ["id: a\nquestions: [{name: x, type: yes_no, label: X}]\n", "id: a\n"])
def test_no_block_list_of_questions_is_refused(text):
    with pytest.raises(ValueError, match="no list of questions"):
        append_question(text, CROSSWISE)
