"""Tests for surveys.conditions: the skip-logic language, read by hand and evaluated."""

import pytest

from surveys.conditions import Compare, ConditionError, Join, Not, parse_condition


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("${year} = 'first'", ["=", "year", "first"]),
        ('${year}!="first"', ["!=", "year", "first"]),
        ("not(${year} = 'first')", ["not", ["=", "year", "first"]]),
        ("not ${a} = 'x' and ${b} = 'y'", ["and", ["not", ["=", "a", "x"]], ["=", "b", "y"]]),
        ("${a} = 'x' or ${b} = 'y' and ${c} = 'z'", ["or", ["=", "a", "x"], ["and", ["=", "b", "y"], ["=", "c", "z"]]]),
        (
            "(${a} = 'x' or ${b} = 'y') and ${c} = 'z'",
            ["and", ["or", ["=", "a", "x"], ["=", "b", "y"]], ["=", "c", "z"]],
        ),
        ("${a} = 'x' and ${b} = 'y' and ${c} = 'z'", ["and", ["=", "a", "x"], ["=", "b", "y"], ["=", "c", "z"]]),
    ],
)
def test_conditions_parse_with_not_binding_tighter_than_and_than_or(text, tree):
    assert parse_condition(text).to_json() == tree


@pytest.mark.parametrize(
    ("text", "answers", "expected"),
    [
        ("${year} = 'first'", {"year": "first"}, True),
        ("${year} = 'first'", {"year": "second"}, False),
        ("${year} = 'first'", {}, False),  # unanswered equals no choice
        ("${year} != 'first'", {}, True),
        ("not(${year} = 'first' or ${year} = 'second')", {"year": "third"}, True),
        ("${year} = 'first' and ${dept} = 'law'", {"year": "first", "dept": "arts"}, False),
        ("${year} = 'first' or ${dept} = 'law'", {"year": "third", "dept": "law"}, True),
    ],
)
def test_conditions_evaluate_on_answers_by_choice_name(text, answers, expected):
    assert parse_condition(text).evaluate(answers) is expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("${year} == 'first'", "expected a quoted choice name after ${year} ="),
        ("${year} = first", "cannot read 'first' at character 11"),
        ("${year} = 'first' and", "expected ${question}, not or a parenthesis but found the end"),
        ("(${year} = 'first'", "expected a closing parenthesis"),
        ("${year} = 'first')", "expected and, or, or the end of the condition but found ')'"),
        ("__import__('os').system('x')", "cannot read"),
        ("${Year} = 'first'", "cannot read"),
        ("", "a condition must be text"),
    ],
)
def test_a_condition_that_cannot_be_read_says_where(text, message):
    with pytest.raises(ConditionError, match=None) as caught:
        parse_condition(text)
    assert message in str(caught.value)


@pytest.mark.parametrize(
    "text",
    [
        "(" * 3000 + "${a} = 'x'" + ")" * 3000,
        "not " * 3000 + "${a} = 'x'",
        "(not " * 11 + "${a} = 'x'" + ")" * 11,
    ],
    ids=["3,000 parentheses", "3,000 nots", "22 of both"],
)
def test_a_condition_nested_past_the_limit_is_refused_naming_it(text):
    with pytest.raises(ConditionError, match="nested more than 20 deep .* the limit MAX_CONDITION_DEPTH is 20"):
        parse_condition(text)


def test_a_condition_nested_up_to_the_limit_reads():
    condition = parse_condition("not (" * 10 + "${a} = 'x'" + ")" * 10)
    assert condition.evaluate({"a": "x"}) is True  # ten nots: the comparison itself


def test_a_condition_names_its_questions_and_reads_as_a_sentence():
    condition = parse_condition("${year} = 'first' and not(${dept} != 'law')")
    assert condition.questions() == {"year", "dept"}
    assert [c.question for c in condition.comparisons()] == ["year", "dept"]
    words = condition.describe(lambda q, v: (q.upper(), v.title()))
    assert words == "“YEAR” is “First” and not (“DEPT” is not “Law”)"
    assert isinstance(condition, Join) and isinstance(condition.terms[1], Not)
    assert condition.terms[0] == Compare("year", True, "first")
