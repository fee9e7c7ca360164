"""The ``extended`` key of a crosswise design (surveys/schema_extended_crosswise.py): group 2's innocuous
statement, checked with every problem naming its question and field."""

import pytest

from surveys.schema import SurveyFileError, parse_survey

FIRST = "My mother's birthday is in January, February or March."
SECOND = "My mother's birthday is between April and December."


def survey_with(extended, model="crosswise", **more):
    design = {"model": model, "q": "1/4", "innocuous": FIRST} | more
    if extended is not None:
        design["extended"] = extended
    question = {"name": "cannabis", "type": "yes_no", "label": "I have used cannabis.", "design": design}
    return {"id": "ecwm", "title": "ECWM", "version": 1, "questions": [question]}


def problems_of(mapping):
    with pytest.raises(SurveyFileError) as raised:
        parse_survey(mapping, "ecwm.yaml")
    return [(p.question, p.field, p.message) for p in raised.value.problems]


def test_the_second_statement_is_read_onto_the_question():
    question = parse_survey(survey_with({"innocuous": SECOND}), "ecwm.yaml").questions[0]
    assert (question.innocuous, question.second_innocuous) == (FIRST, SECOND)
    assert question.design.kind == "crosswise"


def test_a_crosswise_question_without_the_key_has_no_second_statement():
    assert parse_survey(survey_with(None), "ecwm.yaml").questions[0].second_innocuous == ""


@pytest.mark.parametrize(
    ("extended", "field", "message"),
    [
        (True, "design.extended", "must be a mapping with group 2's innocuous statement"),
        ({}, "design.extended.innocuous", "is required: group 2's innocuous statement, true with 1 - q"),
        ({"innocuous": "  "}, "design.extended.innocuous", "must not be empty"),
        ({"innocuous": 3}, "design.extended.innocuous", "must be text"),
        ({"innocuous": FIRST}, "design.extended.innocuous", "is group 1's innocuous statement again"),
        ({"innocuous": SECOND, "q": "3/4"}, "design.extended.q", "unknown key 'q'"),
    ],
)
def test_a_bad_extended_key_is_one_problem_naming_the_question_and_field(extended, field, message):
    problems = problems_of(survey_with(extended))
    assert len(problems) == 1, problems
    question, found_field, found_message = problems[0]
    assert (question, found_field) == ("cannabis", field)
    assert message in found_message


def test_only_a_crosswise_design_takes_the_key():
    problems = problems_of(survey_with({"innocuous": SECOND}, model="triangular"))
    assert [(q, f) for q, f, _ in problems] == [("cannabis", "design.extended")]
    assert "unknown key 'extended'" in problems[0][2]


def test_the_second_statement_is_translated_like_the_first():
    mapping = survey_with({"innocuous": {"en": SECOND, "fr": "L'anniversaire de ma mère est entre avril et décembre."}})
    design = mapping["questions"][0]["design"]
    design["innocuous"] = {"en": FIRST, "fr": "L'anniversaire de ma mère est en janvier, février ou mars."}
    mapping["questions"][0]["label"] = {"en": "I have used cannabis.", "fr": "J'ai consommé du cannabis."}
    mapping |= {"languages": ["en", "fr"], "title": {"en": "ECWM", "fr": "ECWM"}}
    survey = parse_survey(mapping, "ecwm.yaml")
    assert survey.questions[0].second_innocuous == SECOND
    french = dict(survey.translations)["fr"]
    assert french.questions[0].second_innocuous.startswith("L'anniversaire de ma mère est entre avril")
