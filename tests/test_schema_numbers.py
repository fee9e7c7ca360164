"""The survey-file keys of numbers and check-all-that-apply questions (surveys/schema_numbers.py)."""

import math
from fractions import Fraction

import pytest

from analysis.numeric_design import BoundedDesign, DiscreteLaplaceDesign, UnaryDesign
from surveys.schema import SurveyFileError, parse_survey


def survey_with(*questions):
    return {"id": "nums", "title": "Numbers", "version": 1, "questions": list(questions)}


DRINKS = {"name": "drinks", "type": "integer", "label": "How many times?", "min": 0, "max": 30}
HOURS = {"name": "hours", "type": "decimal", "label": "Hours?", "min": 0, "max": 20, "step": 0.5}
DONE = {"name": "done", "type": "select_multiple", "label": "Which?", "choices": ["a", "b", "c"]}


def problems_of(*questions):
    with pytest.raises(SurveyFileError) as raised:
        parse_survey(survey_with(*questions), "nums.yaml")
    return [(p.question, p.field, p.message) for p in raised.value.problems]


def test_a_number_and_a_check_all_question_load_with_their_designs():
    """Defaults: epsilon ln 3 and the smaller-variance mechanism; the grid, bins and epsilon as written."""
    survey = parse_survey(
        survey_with(
            DRINKS,
            HOURS | {"mechanism": "laplace", "epsilon": 3, "bins": [2, 5.5]},
            {"name": "age", "type": "integer", "label": "Age", "randomize": False, "min": 16, "max": 99},
            DONE | {"epsilon": 2},
        ),
        "nums.yaml",
    )
    drinks, hours, age, done = survey.questions
    assert isinstance(drinks.design, BoundedDesign) and drinks.number.steps == 30
    assert drinks.design.epsilon == pytest.approx(math.log(3), abs=1e-6) and drinks.design.epsilon <= math.log(3)
    assert isinstance(hours.design, DiscreteLaplaceDesign) and hours.design.steps == 40
    assert hours.design.epsilon <= 3 and hours.design.epsilon == pytest.approx(3, abs=1e-5)
    assert hours.number.cuts == (Fraction(2), Fraction(11, 2))
    assert hours.number.bin_labels() == ("0.0 to under 2.0", "2.0 to under 5.5", "5.5 to 20.0")
    assert age.design is None and len(age.number.bin_labels()) == 5
    assert isinstance(done.design, UnaryDesign) and done.design.options == 3
    assert done.design.epsilon <= 2 and done.design.epsilon == pytest.approx(2, abs=1e-4)
    assert survey.epsilon.basic == pytest.approx(math.log(3) + 3 + 2, abs=1e-3)


def test_a_check_all_design_given_by_its_probabilities_has_the_whole_question_epsilon():
    done = parse_survey(survey_with(DONE | {"design": {"p": "1/2", "q": "1/4"}}), "x.yaml").questions[0]
    assert done.design.epsilon == pytest.approx(3 * max(math.log(2), math.log(1.5)))


@pytest.mark.parametrize(
    ("question", "field", "message"),
    [
        (DRINKS | {"max": None}, "max", "is required"),
        (DRINKS | {"min": 2.5}, "min", "whole number"),
        (DRINKS | {"max": 5000}, "max", "at most 1000"),
        (DRINKS | {"epsilon": 0.01}, "epsilon", "from 0.1 to 10"),
        (DRINKS | {"mechanism": "gaussian"}, "mechanism", "laplace, bounded"),
        (DRINKS | {"choices": ["a", "b"]}, "choices", "no choices"),
        (DRINKS | {"bins": [40]}, "bins", "inside the range"),
        (DRINKS | {"encoding": "symmetric_unary"}, "encoding", "only select_multiple"),
        (DRINKS | {"design": {"t": "1/2"}}, "design", "epsilon and mechanism"),
        (HOURS | {"step": None}, "step", "is required"),
        (HOURS | {"bins": [1.25]}, "bins", "on the grid"),
        (DONE | {"min": 1}, "min", "only integer and decimal"),
        (DONE | {"encoding": "binary"}, "encoding", "optimized_unary"),
        (DONE | {"choices": [f"o{i}" for i in range(11)]}, "choices", "at most 10"),
        (DONE | {"design": {"p": "1/4", "q": "1/2"}}, "design", "q < p"),
        ({"name": "cheated", "type": "yes_no", "label": "Cheated?", "epsilon": 1}, "epsilon", "only integer"),
        (DRINKS | {"randomize": False, "epsilon": 1}, "epsilon", "randomize is false"),
    ],
)
def test_each_mistake_of_a_number_is_one_problem_naming_its_key(question, field, message):
    question = {key: value for key, value in question.items() if value is not None}
    problems = problems_of(question)
    assert len(problems) == 1, problems
    assert problems[0][1] == field and message in problems[0][2], problems


def test_the_direct_arm_randomizes_numbers_and_check_all_and_keeps_them_with_the_other_arms_answers():
    """The direct-question arm asks the yes/no and choice questions directly; a number and a check-all question stay
    randomized in it (the server randomizes them as in any arm) and are kept under the one key of the other arm,
    so their estimates pool every answer; the yes/no question's direct answers are kept apart, as before."""
    from collections import defaultdict

    from surveys.results import question_result
    from surveys.submission import noisy_response, randomize_on_server

    cheater = {"name": "cheated", "type": "yes_no", "label": "Cheated?"}
    survey = parse_survey(survey_with(cheater, DRINKS, DONE) | {"direct_share": "1/2"}, "nums.yaml")
    kept = defaultdict(lambda: defaultdict(lambda: defaultdict(int)))
    for i in range(200):
        truth = {"cheated": "yes", "drinks": "20", "done": "111"}
        arm = "direct" if i % 2 else ""
        noisy = randomize_on_server(survey, truth, arm)
        if arm:
            assert noisy["cheated"] == "yes"  # asked directly
        response = noisy_response(survey, noisy, "server", arm)
        assert response.pattern_outcomes == (("drinks",) if arm else ("cheated", "drinks"))  # the model's outcomes
        for name in ("cheated", "drinks", "done"):
            for answer, add in response.kept_rows(name):
                kept[name][response.question_designs[name]][answer] += add
    assert len(kept["cheated"]) == 2  # the direct arm's yes/no answers apart
    drinks = list(kept["drinks"].values())
    assert len(drinks) == 1 and sum(v for k, v in drinks[0].items() if k.startswith("b")) == 200
    assert len(kept["done"]) == 1 and len(next(iter(kept["done"].values()))) > 1  # randomized: not all "111"
    for name in ("drinks", "done"):
        result = question_result(survey.question(name), {k: dict(v) for k, v in kept[name].items()})
        assert result.n == 200 and "some answers ignored" not in result.flags


def test_two_random_groups_keep_a_numbers_answers_under_one_key_and_estimate_from_both():
    """The groups of a two-group design change only that design: a number's and a check-all question's answers
    from both groups are kept under one design key and estimated together."""
    from collections import defaultdict

    from surveys.results import question_result
    from surveys.submission import noisy_response, randomize_on_server

    cheater = {"name": "cheated", "type": "yes_no", "label": "Cheated?"}
    cheater["design"] = {"model": "cheater_detection", "p1": "1/3", "p2": "2/3"}
    survey = parse_survey(survey_with(cheater, DRINKS, DONE) | {"group_1_share": "1/2"}, "nums.yaml")
    kept = defaultdict(lambda: defaultdict(lambda: defaultdict(int)))
    for i in range(200):
        truth = {"cheated": "no", "drinks": str(i % 21), "done": "100"}
        arm = "1" if i % 2 else "2"
        response = noisy_response(survey, randomize_on_server(survey, truth, arm), "server", arm)
        for name in ("drinks", "done"):
            for answer, add in response.kept_rows(name):
                kept[name][response.question_designs[name]][answer] += add
    for name in ("drinks", "done"):
        assert len(kept[name]) == 1  # one key for both groups
        result = question_result(survey.question(name), {k: dict(v) for k, v in kept[name].items()})
        assert result.n == 200 and "some answers ignored" not in result.flags  # both groups read, none left out


def test_a_survey_of_several_pages_takes_numbers_and_check_all_questions():
    """Numbers and check-all questions go on any page (tests/test_pages_numbers.py carries their answers)."""
    cheater = {"name": "cheated", "type": "yes_no", "label": "Cheated?"}
    survey = parse_survey(survey_with(cheater, {"type": "page_break"}, DRINKS, DONE), "nums.yaml")
    assert survey.page_names == (("cheated",), ("drinks", "done"))


def test_a_direct_arm_beside_only_numbers_and_check_all_questions_is_refused():
    """The direct arm asks directly only the yes/no and choice questions; numbers and check-all questions stay
    randomized in it, so with nothing else randomized there is nothing to compare: the file says so."""
    with pytest.raises(SurveyFileError) as raised:
        parse_survey(survey_with(DRINKS, DONE) | {"direct_share": "1/2"}, "nums.yaml")
    assert [p.field for p in raised.value.problems] == ["direct_share"]
    assert "randomized in every arm" in raised.value.problems[0].message
