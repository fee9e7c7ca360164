"""Tests for surveys.schema: a survey file's contents in, a Survey or every Problem out."""

import copy
import math
from datetime import date, datetime
from fractions import Fraction

import pytest

from analysis.design import (
    TWO_COIN,
    CrosswiseDesign,
    KukDesign,
    MangatDesign,
    MultipleChoiceDesign,
    TriangularDesign,
    UnrelatedQuestionDesign,
    WarnerDesign,
)
from analysis.two_group import CheaterDetectionDesign, StochasticLieDetectorDesign
from surveys.definition import DEFAULT_BURST_CEILING, PAIRED_STATEMENT_CHOICES, YES_NO_CHOICES
from surveys.schema import Problem, SurveyFileError, parse_survey

VALID = {
    "id": "exam",
    "title": "Exam",
    "version": 1,
    "questions": [
        {"name": "cheated", "type": "yes_no", "label": "Have you cheated?"},
        {
            "name": "year",
            "type": "select_one",
            "label": "Year",
            "choices": ["first", "second"],
            "randomize": False,
        },
        {"name": "ai_use", "type": "select_one", "label": "AI use?", "choices": ["never", "often"]},
    ],
}

DELETE = object()


def edited(path, value):
    """``VALID`` with the value at dotted ``path`` replaced (or removed by ``DELETE``)."""
    mapping = copy.deepcopy(VALID)
    *parents, last = path.split(".")
    target = mapping
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    if isinstance(target, list):
        last = int(last)
    if value is DELETE:
        del target[last]
    else:
        target[last] = value
    return mapping


def problems_of(mapping, file_name="exam.yaml"):
    with pytest.raises(SurveyFileError) as raised:
        parse_survey(mapping, file_name)
    return raised.value.problems


def test_valid_mapping_loads():
    survey = parse_survey(VALID, "exam.yaml")
    assert survey.id == "exam"
    assert survey.source == "exam.yaml"
    assert survey.intro == ""
    assert survey.closed is False
    assert survey.opens is None and survey.closes is None
    assert survey.epsilon_budget is None and survey.delta == 1e-6
    cheated, year, ai_use = survey.questions
    assert cheated.design == TWO_COIN
    assert cheated.required and cheated.randomize and cheated.hint == ""
    assert cheated.choice_names == ("yes", "no")
    assert [c.label for c in cheated.choices] == ["Yes", "No"]
    assert year.design is None
    assert ai_use.design == MultipleChoiceDesign(2, "1/2")


# -- one mistake, one problem naming file, question and field ---------------

SURVEY_MISTAKES = [
    # (dotted path, new value, expected question, expected field, part of the message)
    pytest.param("questions.0.type", "multiple", "cheated", "type", "unknown type", id="unknown type"),
    pytest.param("questions.0.type", DELETE, "cheated", "type", "required", id="missing type"),
    pytest.param("questions.2.name", "cheated", "cheated", "name", "same name", id="duplicate question name"),
    pytest.param(
        "questions.0.design",
        {"t": 0, "a": "1/2", "b": "1/2"},
        "cheated",
        "design.t",
        "must be > 0",
        id="t is zero",
    ),
    pytest.param(
        "questions.0.design",
        {"t": "1/2", "a": "-1/4", "b": "3/4"},
        "cheated",
        "design.a",
        "must be >= 0",
        id="negative a",
    ),
    pytest.param(
        "questions.0.design",
        {"t": "1/2", "a": "1/4", "b": "1/2"},
        "cheated",
        "design",
        "must equal 1",
        id="probabilities do not sum to 1",
    ),
    pytest.param(
        "questions.0.design",
        {"t": "half", "a": "1/4", "b": "1/4"},
        "cheated",
        "design.t",
        "must be a number",
        id="probability not a number",
    ),
    pytest.param(
        "questions.0.design",
        {"t": "1/2", "a": "1/2"},
        "cheated",
        "design.b",
        "required",
        id="forced response without b",
    ),
    pytest.param(
        "questions.0.design", "two coins", "cheated", "design", "must be a mapping", id="design not a mapping"
    ),
    pytest.param("questions.2.design", {"t": 0}, "ai_use", "design.t", "must be in (0, 1]", id="select_one t=0"),
    pytest.param("questions.2.design", {"t": "3/2"}, "ai_use", "design.t", "must be in (0, 1]", id="select_one t > 1"),
    pytest.param(
        "questions.2.design",
        {"t": "1/2", "a": "1/4"},
        "ai_use",
        "design.a",
        "unknown key",
        id="select_one design with a",
    ),
    pytest.param("questions.1.choices", DELETE, "year", "choices", "needs choices", id="missing choices"),
    pytest.param("questions.1.choices", ["first"], "year", "choices", "at least 2", id="one choice only"),
    pytest.param("questions.1.choices", [], "year", "choices", "at least 2", id="no choices"),
    pytest.param("questions.1.choices", "first, second", "year", "choices", "must be a list", id="choices not a list"),
    pytest.param(
        "questions.1.choices",
        ["first", "second", "first"],
        "year",
        "choices",
        "names must be unique",
        id="duplicate choice names",
    ),
    pytest.param(
        "questions.1.choices",
        [{"name": "first", "label": "1st"}, "first"],
        "year",
        "choices",
        "names must be unique",
        id="duplicate choice names, mapping and text",
    ),
    pytest.param(
        "questions.1.choices",
        ["first year", "second"],
        "year",
        "choices",
        "a name must be",
        id="choice name with a space",
    ),
    pytest.param(
        "questions.1.choices",
        [{"name": "first"}, "second"],
        "year",
        "choices",
        "label must be",
        id="choice mapping without label",
    ),
    pytest.param(
        "questions.1.choices",
        [True, "maybe"],
        "year",
        "choices",
        "put it in quotes",
        id="unquoted yes and no",
    ),
    pytest.param(
        "questions.1.choices",
        [{"name": "first", "label": "1st", "value": 1}, "second"],
        "year",
        "choices.value",
        "unknown key",
        id="unknown key in a choice",
    ),
    pytest.param("questions.0.choices", ["yes", "no"], "cheated", "choices", "yes_no", id="choices on yes_no"),
    pytest.param(
        "questions.1.design", {"t": "1/2"}, "year", "design", "randomize is false", id="design with randomize false"
    ),
    pytest.param("epsilon_budget", 1, None, "epsilon_budget", "over the budget", id="budget exceeded"),
    pytest.param("epsilon_budget", 0, None, "epsilon_budget", "above 0", id="budget zero"),
    pytest.param("epsilon_budget", "lots", None, "epsilon_budget", "above 0", id="budget not a number"),
    pytest.param("delta", 1, None, "delta", "between 0 and 1", id="delta one"),
    pytest.param("titel", "Exam", None, "titel", "did you mean 'title'", id="unknown survey key"),
    pytest.param(
        "questions.0.requried", False, "cheated", "requried", "did you mean 'required'", id="unknown question key"
    ),
    pytest.param(
        "questions.0.design",
        {"t": "1/2", "a": "1/4", "b": "1/4", "c": 0},
        "cheated",
        "design.c",
        "unknown key",
        id="unknown design key",
    ),
    pytest.param("id", "Exam", None, "id", "lower-case", id="id with capitals"),
    pytest.param("id", "exam_2025", None, "id", "lower-case", id="id with underscore"),
    pytest.param("id", "-exam", None, "id", "lower-case", id="id starting with hyphen"),
    pytest.param("id", "a" * 64, None, "id", "lower-case", id="id too long"),
    pytest.param("id", 2025, None, "id", "lower-case", id="id a number"),
    pytest.param("id", DELETE, None, "id", "required", id="missing id"),
    pytest.param("title", DELETE, None, "title", "required", id="missing title"),
    pytest.param("title", "  ", None, "title", "empty", id="blank title"),
    pytest.param("version", DELETE, None, "version", "required", id="missing version"),
    pytest.param("version", 0, None, "version", "1 or more", id="version zero"),
    pytest.param("version", "1", None, "version", "1 or more", id="version as text"),
    pytest.param("version", True, None, "version", "1 or more", id="version true"),
    pytest.param("questions", DELETE, None, "questions", "required", id="missing questions"),
    pytest.param("questions", [], None, "questions", "empty", id="empty questions"),
    pytest.param("questions", {"cheated": "yes_no"}, None, "questions", "must be a list", id="questions a mapping"),
    pytest.param("questions.0", "cheated", "#1", None, "must be a mapping", id="question not a mapping"),
    pytest.param("questions.0.name", DELETE, "#1", "name", "required", id="missing question name"),
    pytest.param("questions.0.name", "Cheated", "Cheated", "name", "lower-case", id="question name with capital"),
    pytest.param("questions.0.name", "1st", "1st", "name", "lower-case", id="question name starting with digit"),
    pytest.param("questions.0.label", DELETE, "cheated", "label", "required", id="missing label"),
    pytest.param("questions.0.label", True, "cheated", "label", "quotes", id="label read as a boolean"),
    pytest.param("questions.0.hint", 5, "cheated", "hint", "must be text", id="hint a number"),
    pytest.param("questions.0.required", "yes", "cheated", "required", "true or false", id="required as text"),
    pytest.param("questions.0.randomize", 0, "cheated", "randomize", "true or false", id="randomize as 0"),
    pytest.param("closed", "no", None, "closed", "true or false", id="closed as text"),
    pytest.param("opens", "2025-13-01", None, "opens", "not a valid date", id="month 13"),
    pytest.param("opens", "next week", None, "opens", "YYYY-MM-DD", id="date in words"),
    pytest.param("opens", "2025-3-1", None, "opens", "YYYY-MM-DD", id="date without leading zeros"),
    pytest.param("closes", datetime(2025, 3, 1, 12, 0), None, "closes", "without a time", id="date with a time"),
    pytest.param("closes", 20250301, None, "closes", "YYYY-MM-DD", id="date as a number"),
] + [
    pytest.param("questions.0.name", name, name, "name", "used by the form", id=f"reserved name {name}")
    for name in ("csrf_token", "submission_key", "randomized_on", "invitation_code", "sealed")
]


@pytest.mark.parametrize(("path", "value", "question", "field", "message"), SURVEY_MISTAKES)
def test_one_mistake_gives_one_problem(path, value, question, field, message):
    (problem,) = problems_of(edited(path, value))
    assert problem.file == "exam.yaml"
    assert problem.question == question
    assert problem.field == field
    assert message in problem.message


def test_opens_after_closes():
    mapping = dict(VALID, opens=date(2025, 4, 1), closes="2025-03-01")
    (problem,) = problems_of(mapping)
    assert (problem.question, problem.field) == (None, "closes")
    assert "before opens 2025-04-01" in problem.message


def test_budget_problem_shows_the_sum():
    # Two coins (ln 3) and k=2, t=1/2 (q = 1/4, (1/2 + 1/4) / (1/4) = 3: ln 3).
    (problem,) = problems_of(dict(VALID, epsilon_budget=2))
    assert f"epsilon {2 * math.log(3):.3f}" in problem.message
    assert "cheated 1.099 + ai_use 1.099" in problem.message


def test_infinite_epsilon_over_any_budget():
    mapping = edited("questions.0.design", {"t": "1/2", "a": 0, "b": "1/2"})
    mapping["epsilon_budget"] = 100
    (problem,) = problems_of(mapping)
    assert problem.field == "epsilon_budget"
    assert "no differential privacy" in problem.message


def test_every_problem_in_a_file_is_reported_together():
    mapping = edited("titel", "Exam")
    mapping["questions"][0]["design"] = {"t": 0, "a": "1/2", "b": "1/2"}
    mapping["questions"][1]["choices"] = ["first"]
    problems = problems_of(mapping)
    assert [(p.question, p.field) for p in problems] == [
        (None, "titel"),
        ("cheated", "design.t"),
        ("year", "choices"),
    ]


def test_survey_file_error_message_lists_all_problems():
    mapping = edited("version", 0)
    mapping["title"] = ""
    with pytest.raises(SurveyFileError) as raised:
        parse_survey(mapping, "exam.yaml")
    assert str(raised.value).splitlines() == [str(p) for p in raised.value.problems]
    assert len(raised.value.problems) == 2


@pytest.mark.parametrize(
    ("problem", "text"),
    [
        pytest.param(
            Problem("exam.yaml", "cheated", "design.t", "must be > 0, got t=0"),
            "exam.yaml: question 'cheated', field 'design.t': must be > 0, got t=0",
            id="question and field",
        ),
        pytest.param(
            Problem("exam.yaml", None, "title", "is required"),
            "exam.yaml: field 'title': is required",
            id="survey level",
        ),
        pytest.param(
            Problem("exam.yaml", "#2", None, "must be a mapping"),
            "exam.yaml: question #2: must be a mapping",
            id="question by position",
        ),
        pytest.param(Problem("exam.yaml", None, None, "the file is empty"), "exam.yaml: the file is empty", id="file"),
    ],
)
def test_problem_text(problem, text):
    assert str(problem) == text


# -- values that must be accepted -------------------------------------------


@pytest.mark.parametrize(
    ("path", "value", "check"),
    [
        pytest.param("delta", "1e-6", lambda s: s.delta == 1e-6, id="delta as YAML reads 1e-6"),
        pytest.param("epsilon_budget", "2.5", lambda s: s.epsilon_budget == 2.5, id="budget as text"),
        pytest.param(
            "epsilon_budget",
            2 * math.log(3),
            lambda s: s.epsilon.basic <= s.epsilon_budget * (1 + 1e-12),
            id="budget exactly the cost",
        ),
        pytest.param("opens", "2025-03-01", lambda s: s.opens == date(2025, 3, 1), id="date as text"),
        pytest.param("intro", "  Hello.\n", lambda s: s.intro == "Hello.", id="intro stripped"),
        pytest.param(
            "questions.1.choices",
            [1, 2, 3],
            lambda s: s.questions[1].choice_names == ("1", "2", "3"),
            id="numbers as choices",
        ),
        pytest.param(
            "questions.1.choices",
            [{"name": "y1", "label": "First year"}, "y2"],
            lambda s: s.questions[1].choices[0].label == "First year",
            id="choice mapping",
        ),
        pytest.param(
            "questions.0.design",
            {"t": 0.5, "a": 0.25, "b": 0.25},
            lambda s: s.questions[0].design == TWO_COIN,
            id="probabilities as floats",
        ),
        pytest.param(
            "questions.0.design", None, lambda s: s.questions[0].design == TWO_COIN, id="empty design means default"
        ),
        pytest.param(
            "questions.2.design",
            {"t": "2/3"},
            lambda s: s.questions[2].design == MultipleChoiceDesign(2, "2/3"),
            id="select_one t",
        ),
        pytest.param(
            "questions.0.required",
            False,
            lambda s: s.questions[0].required is False,
            id="optional question",
        ),
    ],
)
def test_accepted_values(path, value, check):
    assert check(parse_survey(edited(path, value), "exam.yaml"))


def test_one_day_survey():
    survey = parse_survey(dict(VALID, opens=date(2025, 3, 1), closes=date(2025, 3, 1)), "exam.yaml")
    assert survey.state(date(2025, 3, 1)) == "open"
    assert survey.state(date(2025, 3, 2)) == "closed"


# -- who is asking, and what comes after ---------------------------------------

RESPONDENT_KEYS = {
    "organizer": "Student Affairs research team",
    "contact": "survey-team@example.org",
    "ethics_approval": "REB-2026-014",
    "closing": "Results will be posted in January.",
    "next_url": "https://example.org/results",
}


def test_respondent_keys_load_and_default_to_empty():
    survey = parse_survey({**VALID, **RESPONDENT_KEYS}, "exam.yaml")
    assert {key: getattr(survey, key) for key in RESPONDENT_KEYS} == RESPONDENT_KEYS
    plain = parse_survey(VALID, "exam.yaml")
    assert {key: getattr(plain, key) for key in RESPONDENT_KEYS} == dict.fromkeys(RESPONDENT_KEYS, "")


@pytest.mark.parametrize("url", ["https://example.org/debrief", "http://example.org", "/s/other-survey"])
def test_next_url_may_be_a_web_address_or_a_path(url):
    assert parse_survey({**VALID, "next_url": url}, "exam.yaml").next_url == url


@pytest.mark.parametrize(
    "key, value, message",
    [
        ("next_url", "javascript:alert(1)", "must be an address starting with https://"),
        ("next_url", "//evil.example/x", "must be an address starting with https://"),
        ("next_url", "example.org/results", "must be an address starting with https://"),
        ("next_url", "https://example.org/a b", "must be an address starting with https://"),
        ("next_url", 42, "got a number 42"),
        ("contact", 42, "must be text"),
        ("organizer", True, "must be text"),
        ("ethics_approval", ["REB"], "must be text"),
        ("closing", {"text": "bye"}, "must be text"),
    ],
)
def test_a_bad_respondent_key_is_one_problem_naming_its_field(key, value, message):
    (problem,) = problems_of({**VALID, key: value})
    assert (problem.question, problem.field) == (None, key)
    assert message in problem.message


# -- targets ------------------------------------------------------------------


def with_targets(targets, **more):
    mapping = copy.deepcopy(VALID)
    mapping["targets"] = targets
    mapping.update(more)
    return mapping


def test_targets_load_for_a_share_and_a_difference():
    survey = parse_survey(
        with_targets(
            [
                {"question": "cheated", "margin": 0.05},
                {
                    "question": "cheated",
                    "by": "year",
                    "groups": ["second", "first"],
                    "margin": "0.1",
                    "confidence_level": 0.9,
                },
            ],
            close_when_targets_met=True,
        ),
        "exam.yaml",
    )
    share, difference = survey.targets
    assert (share.question, share.margin, share.confidence_level, share.by, share.groups) == (
        "cheated",
        0.05,
        0.95,
        None,
        (),
    )
    assert (difference.margin, difference.confidence_level, difference.by, difference.groups) == (
        0.1,
        0.9,
        "year",
        ("second", "first"),
    )
    assert survey.close_when_targets_met is True


def test_without_targets_nothing_closes_itself():
    survey = parse_survey(VALID, "exam.yaml")
    assert survey.targets == () and survey.close_when_targets_met is False


TARGET_MISTAKES = [
    ({"question": "cheated"}, "targets[1].margin", "is required"),
    ({"question": "cheated", "margin": 0}, "targets[1].margin", "between 0 and 1"),
    ({"question": "cheated", "margin": 5}, "targets[1].margin", "between 0 and 1"),
    ({"question": "cheated", "margin": True}, "targets[1].margin", "between 0 and 1"),
    ({"margin": 0.05}, "targets[1].question", "is required"),
    ({"question": "cheatd", "margin": 0.05}, "targets[1].question", "no question called 'cheatd'"),
    ({"question": "year", "margin": 0.05}, "targets[1].question", "not a randomized yes_no question"),
    ({"question": "ai_use", "margin": 0.05}, "targets[1].question", "not a randomized yes_no question"),
    ({"question": "cheated", "margin": 0.05, "confidence_level": 95}, "targets[1].confidence_level", "between 0"),
    ({"question": "cheated", "margin": 0.05, "marign": 1}, "targets[1].marign", "did you mean 'margin'"),
    ({"question": "cheated", "margin": 0.1, "by": "year"}, "targets[1].groups", "needs both by"),
    ({"question": "cheated", "margin": 0.1, "groups": ["first", "second"]}, "targets[1].by", "needs both by"),
    (
        {"question": "cheated", "margin": 0.1, "by": "ai_use", "groups": ["never", "often"]},
        "targets[1].by",
        "randomized",
    ),
    ({"question": "cheated", "margin": 0.1, "by": "yaer", "groups": ["a", "b"]}, "targets[1].by", "no question"),
    ({"question": "cheated", "margin": 0.1, "by": "year", "groups": ["first"]}, "targets[1].groups", "two different"),
    ({"question": "cheated", "margin": 0.1, "by": "year", "groups": ["first", "first"]}, "targets[1].groups", "two"),
    (
        {"question": "cheated", "margin": 0.1, "by": "year", "groups": ["first", "fifth"]},
        "targets[1].groups",
        "'fifth'",
    ),
    ("cheated", "targets[1]", "must be a mapping"),
]


@pytest.mark.parametrize(("target", "field", "message"), TARGET_MISTAKES)
def test_a_target_mistake_is_one_problem_naming_its_field(target, field, message):
    (problem,) = problems_of(with_targets([target]))
    assert problem.field == field
    assert message in problem.message


@pytest.mark.parametrize("targets", [[], {"cheated": 0.05}, "cheated"])
def test_targets_must_be_a_list_of_targets(targets):
    (problem,) = problems_of(with_targets(targets))
    assert problem.field == "targets" and "must be a list of targets" in problem.message


def test_the_same_target_twice_is_a_problem():
    (problem,) = problems_of(
        with_targets([{"question": "cheated", "margin": 0.05}, {"question": "cheated", "margin": 0.1}])
    )
    assert problem.field == "targets[2]" and "both for cheated" in problem.message


def test_closing_on_targets_needs_targets():
    (problem,) = problems_of(with_targets(None, close_when_targets_met=True))
    assert problem.field == "close_when_targets_met" and "no targets" in problem.message


def test_close_when_targets_met_must_be_true_or_false():
    (problem,) = problems_of(with_targets([{"question": "cheated", "margin": 0.05}], close_when_targets_met="yes"))
    assert problem.field == "close_when_targets_met" and "true or false" in problem.message


def test_a_target_on_a_broken_question_reports_only_the_question():
    mapping = edited("questions.0.design", {"t": 2})
    mapping["targets"] = [{"question": "cheated", "margin": 0.05}]
    problems = problems_of(mapping)
    assert problems and all(p.field.startswith("design") for p in problems)


# --------------------------------------------------------------------------
# One-parameter yes/no designs named with ``model``.

INNOCUOUS = "My mother's birthday is in January, February or March."


@pytest.mark.parametrize(
    ("design", "expected"),
    [
        ({"model": "forced_response", "t": "1/2", "a": "1/4", "b": "1/4"}, TWO_COIN),
        ({"model": "warner", "p": "3/4"}, WarnerDesign("3/4")),
        ({"model": "unrelated_question", "p": "2/3", "q": 0.25}, UnrelatedQuestionDesign("2/3", "1/4")),
        ({"model": "kuk", "k1": 0.7, "k2": 0.3}, KukDesign("7/10", "3/10")),
        ({"model": "mangat", "p": "3/4"}, MangatDesign("3/4")),
        ({"model": "crosswise", "q": "1/4", "innocuous": INNOCUOUS}, CrosswiseDesign("1/4")),
        ({"model": "triangular", "q": "1/4", "innocuous": INNOCUOUS}, TriangularDesign("1/4")),
    ],
    ids=["forced_response", "warner", "unrelated_question", "kuk", "mangat", "crosswise", "triangular"],
)
def test_each_yes_no_model_loads(design, expected):
    question = parse_survey(edited("questions.0.design", design), "exam.yaml").question("cheated")
    assert question.design == expected
    paired = design["model"] in ("crosswise", "triangular")
    assert question.innocuous == (INNOCUOUS if paired else "")
    assert question.choice_names == ("yes", "no")
    assert question.choices == PAIRED_STATEMENT_CHOICES.get(design["model"], YES_NO_CHOICES)


@pytest.mark.parametrize(
    ("design", "field", "message"),
    [
        ({"model": "wraner", "p": "3/4"}, "design.model", "unknown model text 'wraner'; use one of forced_response"),
        ({"model": "warner", "p": "1/2"}, "design.p", "p must not be 1/2, got p=1/2"),
        ({"model": "warner", "p": "3/2"}, "design.p", "p must be in [0, 1], got p=3/2"),
        ({"model": "warner", "p": "3/4", "q": "1/4"}, "design.q", "unknown key 'q'"),
        ({"model": "unrelated_question", "p": "2/3"}, "design.q", "is required; this design is written like"),
        ({"model": "kuk", "k1": "1/3", "k2": "1/3"}, "design.k2", "k1 and k2 must differ, got k1=k2=1/3"),
        ({"model": "crosswise", "q": "1/2", "innocuous": INNOCUOUS}, "design.q", "q must not be 1/2, got q=1/2"),
        ({"model": "crosswise", "q": "1/4"}, "design.innocuous", "is required for a crosswise design"),
        ({"model": "triangular", "q": "1/4", "innocuous": "  "}, "design.innocuous", "must not be empty"),
        ({"model": "triangular", "q": "one quarter", "innocuous": INNOCUOUS}, "design.q", "'one quarter'"),
    ],
)
def test_a_bad_yes_no_model_is_one_problem_naming_the_value(design, field, message):
    problems = problems_of(edited("questions.0.design", design))
    assert [(p.question, p.field) for p in problems] == [("cheated", field)]
    assert message in problems[0].message


# Two-group designs and the control arm (surveys/arms.py).


@pytest.mark.parametrize(
    ("design", "expected"),
    [
        ({"model": "cheater_detection", "p1": "1/4", "p2": 0.6}, CheaterDetectionDesign("1/4", "3/5")),
        ({"model": "stochastic_lie_detector", "p1": "1/3", "p2": "2/3"}, StochasticLieDetectorDesign("1/3", "2/3")),
    ],
)
def test_each_two_group_model_loads_with_half_the_respondents_in_group_1(design, expected):
    survey = parse_survey(edited("questions.0.design", design), "quiz.yaml")
    assert survey.question("cheated").design == expected
    assert survey.group_1_share == Fraction(1, 2) and survey.direct_share is None


@pytest.mark.parametrize(
    ("design", "field", "message"),
    [
        ({"model": "stochastic_lie_detector", "p1": "1/3", "p2": "1/3"}, "design.p2", "p1 and p2 must differ"),
        ({"model": "cheater_detection", "p1": "1/3"}, "design.p2", "{model: cheater_detection, p1: ..., p2: ...}"),
        ({"model": "cheater_detection", "p1": "4/3", "p2": "1/3"}, "design.p1", "must be in [0, 1], got p1=4/3"),
        ({"model": "stochastic_lie_detector", "p1": "1/3", "p2": "2/3", "p": 1}, "design.p", "unknown key 'p'"),
    ],
)
def test_a_bad_two_group_model_is_one_problem_naming_the_value(design, field, message):
    problems = problems_of(edited("questions.0.design", design))
    assert [(p.question, p.field) for p in problems] == [("cheated", field)]
    assert message in problems[0].message


def test_group_and_direct_shares_are_exact_fractions():
    mapping = edited("questions.0.design", {"model": "stochastic_lie_detector", "p1": "1/3", "p2": "2/3"})
    survey = parse_survey(mapping | {"group_1_share": "1/3", "direct_share": 0.2}, "quiz.yaml")
    assert (survey.group_1_share, survey.direct_share) == (Fraction(1, 3), Fraction(1, 5))


def _with_condition(name: str, condition, **question):
    """VALID plus a plain question ``later`` asked when ``condition`` holds, and ``question``'s keys."""
    mapping = copy.deepcopy(VALID)
    entry = {"name": name, "type": "yes_no", "label": "Later?", "relevant": condition, **question}
    mapping["questions"].append(entry)
    return mapping


def test_a_condition_on_an_earlier_plain_question_loads():
    survey = parse_survey(_with_condition("later", "${year} = 'first' or not(${year} != 'second')"), "exam.yaml")
    assert survey.question("later").relevant.questions() == {"year"}
    assert survey.question("cheated").relevant is None


@pytest.mark.parametrize(
    ("condition", "message"),
    [
        ("${cheated} = 'yes'", "'cheated' is randomized; a condition may name only questions with randomize: false"),
        ("${ai_use} = 'never' or ${year} = 'first'", "'ai_use' is randomized"),
        ("${year} = 'fifth'", "'fifth' is not an answer to 'year'; its answers are first, second"),
        ("${nobody} = 'x'", "there is no question called 'nobody'"),
        ("${later} = 'yes'", "'later' is not before this question"),
        ("${year} = first", "cannot read 'first' at character 11"),
        (True, "a condition must be text"),
    ],
)
def test_a_condition_breaking_a_rule_is_refused_naming_the_field(condition, message):
    with pytest.raises(SurveyFileError) as caught:
        parse_survey(_with_condition("later", condition), "exam.yaml")
    (problem,) = caught.value.problems
    assert (problem.question, problem.field) == ("later", "relevant")
    assert message in problem.message


def test_a_condition_on_a_later_question_is_refused():
    mapping = copy.deepcopy(VALID)
    mapping["questions"][0]["relevant"] = "${year} = 'first'"
    with pytest.raises(SurveyFileError) as caught:
        parse_survey(mapping, "exam.yaml")
    assert [str(p) for p in caught.value.problems] == [
        "exam.yaml: question 'cheated', field 'relevant': 'year' is not before this question; "
        "a condition may name only earlier questions"
    ]


def _bilingual(**changes):
    mapping = copy.deepcopy(VALID)
    mapping["languages"] = ["en", "fr"]
    mapping["title"] = {"en": "Exam", "fr": "Examen"}
    mapping["questions"][1]["label"] = {"en": "Year", "fr": "Année"}
    mapping["questions"][1]["choices"] = [{"name": "first", "label": {"en": "First", "fr": "Première"}}, "second"]
    mapping.update(changes)
    return mapping


def test_texts_in_several_languages_give_one_survey_per_language_with_the_same_designs():
    survey = parse_survey(_bilingual(), "exam.yaml")
    french = survey.in_language("fr")
    assert (survey.language, survey.title, french.language, french.title) == ("en", "Exam", "fr", "Examen")
    assert french.question("year").label == "Année" and french.question("year").choices[0].label == "Première"
    assert french.question("year").choice_names == survey.question("year").choice_names
    assert french.design_fingerprint() == survey.design_fingerprint()
    assert french.languages == survey.languages == ("en", "fr")
    assert survey.in_language("de") is survey and survey.in_language("en") is survey


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"group_1_share": "1/2"}, "group_1_share", "there is no two-group design"),
        ({"direct_share": 1}, "direct_share", "must be strictly between 0 and 1"),
        ({"direct_share": "a fifth"}, "direct_share", "'a fifth'"),
    ],
)
def test_bad_arm_shares_are_named(changes, field, message):
    problems = problems_of(edited("id", "quiz") | changes)
    assert [(p.question, p.field) for p in problems] == [(None, field)]
    assert message in problems[0].message


def test_a_two_group_question_can_have_a_share_and_a_difference_target():
    mapping = edited("questions.0.design", {"model": "stochastic_lie_detector", "p1": "1/3", "p2": "2/3"})
    difference = {"question": "cheated", "margin": 0.3, "by": "year", "groups": ["first", "second"]}
    targets = [{"question": "cheated", "margin": 0.05}, difference]
    survey = parse_survey(mapping | {"targets": targets, "close_when_targets_met": True}, "exam.yaml")
    assert [(t.question, t.margin, t.by) for t in survey.targets] == [("cheated", 0.05, None), ("cheated", 0.3, "year")]
    assert survey.close_when_targets_met is True


# select_one with a misclassification matrix (surveys/matrix.py).

MATRIX_DESIGN = {"matrix": [["3/4", "1/3"], ["1/4", "2/3"]]}


def test_a_misclassification_matrix_loads_as_exact_fractions():
    survey = parse_survey(edited("questions.2.design", MATRIX_DESIGN), "quiz.yaml")
    design = survey.question("ai_use").design
    assert design.kind == "misclassification" and design.matrix[1][1] == Fraction(2, 3)


@pytest.mark.parametrize(
    ("matrix", "message"),
    [
        ([[1, 0, 0], [0, 1, 0], [0, 0, 1]], "matrix must have one row and one column per choice (2), got 3"),
        ([["3/4", "1/3"], ["1/2", "2/3"]], "column 0 (true option 0) must sum to 1 over the reported options, got 5/4"),
        ([["1/2", "1/2"], ["1/2", "1/2"]], "matrix must be invertible"),
        (
            [[0.3333, 1], [0.6666, 0]],
            "column 0 (true option 0) must sum to 1 over the reported options, got 9999/10000",
        ),
        ([[1, 0], [0, "one"]], "'one'"),
        ("identity", "must be square"),
    ],
)
def test_a_bad_matrix_is_one_problem_naming_what_is_wrong(matrix, message):
    problems = problems_of(edited("questions.2.design", {"matrix": matrix}))
    assert [(p.question, p.field) for p in problems] == [("ai_use", "design.matrix")]
    assert message in problems[0].message


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"title": {"en": "Exam"}}, "title", "the text is not given in fr; give it in each of en, fr"),
        ({"title": {"en": "Exam", "fr": "Examen", "es": "Examen"}}, "title", "the text is in es, not in languages"),
        ({"languages": ["en"]}, "languages", "a list of at least two language codes"),
        ({"languages": ["en", "en"]}, "languages", "(each once)"),
        ({"languages": ["English", "fr"]}, "languages", "language codes such as [en, fr]"),
        ({"title": {"en": "Exam", "fr": " "}}, "title", "in fr: must not be empty"),
    ],
)
def test_a_language_mistake_is_one_problem_naming_where(changes, field, message):
    with pytest.raises(SurveyFileError) as caught:
        parse_survey(_bilingual(**changes), "exam.yaml")
    assert [(p.field, message in p.message) for p in caught.value.problems] == [(field, True)]


def test_several_pages_with_a_two_group_design_are_accepted():
    """The arm is carried from page to page (web/pages.py), so the two go together."""
    questions = [
        {
            "name": "evaded",
            "type": "yes_no",
            "label": "Evaded?",
            "design": {"model": "cheater_detection", "p1": "1/4", "p2": "3/4"},
        },
        {"type": "page_break"},
        {"name": "year", "type": "select_one", "label": "Year", "choices": ["first", "second"], "randomize": False},
    ]
    survey = parse_survey(edited("id", "quiz") | {"questions": questions}, "quiz.yaml")
    assert survey.pages == (("evaded",), ("year",)) and survey.group_1_share is not None


def test_population_size_is_read_when_given_and_none_without():
    assert parse_survey(VALID, "exam.yaml").population_size is None
    assert parse_survey(edited("population_size", 10_777), "exam.yaml").population_size == 10_777


@pytest.mark.parametrize("value", [0, -3, 2.5, "10777 students", True, [710]])
def test_population_size_must_be_a_whole_number_of_one_or_more(value):
    problems = problems_of(edited("population_size", value))
    assert [(p.question, p.field) for p in problems] == [(None, "population_size")]
    assert "must be a whole number of 1 or more" in problems[0].message


def test_the_burst_ceiling_is_read_when_given_and_100_without():
    assert parse_survey(VALID, "exam.yaml").burst_ceiling_per_hour == DEFAULT_BURST_CEILING == 100
    assert parse_survey(edited("burst_ceiling_per_hour", 400), "exam.yaml").burst_ceiling_per_hour == 400
    assert parse_survey(edited("burst_ceiling_per_hour", None), "exam.yaml").burst_ceiling_per_hour == 100


@pytest.mark.parametrize("value", [0, -3, 2.5, "300 an hour", True, [300]])
def test_the_burst_ceiling_must_be_a_whole_number_of_one_or_more(value):
    problems = problems_of(edited("burst_ceiling_per_hour", value))
    assert [(p.question, p.field) for p in problems] == [(None, "burst_ceiling_per_hour")]
    assert "must be a whole number of 1 or more" in problems[0].message


def with_numbers(targets):
    """``VALID`` with a randomized number ``drinks`` (0.5 steps) and a plain number ``age``, and ``targets``."""
    mapping = with_targets(targets)
    mapping["questions"] += [
        {"name": "drinks", "type": "decimal", "label": "Drinks", "min": 0, "max": 30, "step": 0.5},
        {"name": "age", "type": "integer", "label": "Age", "min": 16, "max": 99, "randomize": False},
    ]
    return mapping


def test_a_target_on_a_randomized_number_is_a_margin_in_its_units():
    survey = parse_survey(with_numbers([{"question": "drinks", "margin": 1.5}]), "exam.yaml")
    (target,) = survey.targets
    assert (target.question, target.margin, target.by) == ("drinks", 1.5, None)


NUMBER_TARGET_MISTAKES = [
    ({"question": "drinks", "margin": 0}, "targets[1].margin", "a positive number"),
    ({"question": "drinks", "margin": -1.5}, "targets[1].margin", "in the question's units"),
    ({"question": "drinks", "margin": "wide"}, "targets[1].margin", "a positive number"),
    ({"question": "drinks"}, "targets[1].margin", "is required: a positive number"),
    ({"question": "age", "margin": 1.5}, "targets[1].question", "'age' is not a randomized yes_no question or number"),
    (
        {"question": "drinks", "margin": 1.5, "by": "year", "groups": ["first", "second"]},
        "targets[1].by",
        "is on its mean",
    ),
]


@pytest.mark.parametrize(("target", "field", "message"), NUMBER_TARGET_MISTAKES)
def test_a_bad_target_on_a_number_is_one_problem_naming_its_field(target, field, message):
    (problem,) = problems_of(with_numbers([target]))
    assert problem.field == field
    assert message in problem.message
