"""Tests for surveys.definition: the frozen survey objects."""

import math
import os
import pickle
import subprocess
import sys
from dataclasses import replace
from datetime import date
from fractions import Fraction

import pytest

from analysis.design import TWO_COIN, ForcedResponseDesign, MultipleChoiceDesign
from surveys.definition import YES_NO_CHOICES, Choice, Question, Survey
from tests.helpers import sample_surveys

DIE = ForcedResponseDesign(Fraction(2, 3), Fraction(1, 6), Fraction(1, 6))
YEARS = tuple(Choice(name, name.title()) for name in ("first", "second", "third", "fourth"))


def yes_no(name, design=TWO_COIN):
    return Question(name, "yes_no", f"{name}?", "", True, design is not None, YES_NO_CHOICES, design)


def select_one(name, choices=YEARS, design=None):
    return Question(name, "select_one", f"{name}?", "", True, design is not None, choices, design)


def make_survey(*questions, **settings):
    if not questions:
        questions = (
            yes_no("cheated"),
            yes_no("plagiarism", DIE),
            select_one("ai_use", design=MultipleChoiceDesign(4, Fraction(1, 2))),
            select_one("year"),
        )
    return Survey(id="exam", title="Exam", version=1, intro="", questions=questions, **settings)


def test_choice_names_and_randomized():
    survey = make_survey()
    assert survey.question("year").choice_names == ("first", "second", "third", "fourth")
    assert survey.question("cheated").choice_names == ("yes", "no")
    assert [q.name for q in survey.randomized_questions] == ["cheated", "plagiarism", "ai_use"]
    assert [q.name for q in survey.plain_questions] == ["year"]
    assert not survey.question("year").is_randomized


def test_question_lookup_raises_key_error():
    with pytest.raises(KeyError, match="nope"):
        make_survey().question("nope")


@pytest.mark.parametrize(
    ("randomize", "design", "choices"),
    [
        pytest.param(True, None, YES_NO_CHOICES, id="randomized without design"),
        pytest.param(False, TWO_COIN, YES_NO_CHOICES, id="design but not randomized"),
        pytest.param(True, MultipleChoiceDesign(3, Fraction(1, 2)), YEARS, id="k differs from choices"),
    ],
)
def test_question_rejects_inconsistent_fields(randomize, design, choices):
    with pytest.raises(ValueError, match="question 'q'"):
        Question("q", "select_one", "Q?", "", True, randomize, choices, design)


def test_epsilon_sums_randomized_questions():
    # ln 3 (two coins) + ln 5 (die: (2/3 + 1/6) / (1/6)) + ln 5 (k=4, t=1/2:
    # q = 1/8, (1/2 + 1/8) / (1/8) = 5); the plain question costs nothing here.
    epsilon = make_survey().epsilon
    assert epsilon.per_question == pytest.approx((math.log(3), math.log(5), math.log(5)))
    assert epsilon.basic == pytest.approx(math.log(75))
    assert epsilon.delta == 1e-6


def test_epsilon_uses_survey_delta():
    assert make_survey(delta=1e-3).epsilon.delta == 1e-3


def test_attack_success_rate_is_worst_question():
    # Two coins (1 + 1/2) / 2 = 3/4; die (1 + 2/3) / 2 = 5/6; k=4: 1/2 + 1/8 = 5/8.
    assert make_survey().attack_success_rate == pytest.approx(5 / 6)


def test_nothing_randomized():
    survey = make_survey(select_one("year"))
    assert survey.attack_success_rate is None
    assert survey.epsilon.basic == 0.0
    assert survey.epsilon.per_question == ()


@pytest.mark.parametrize(
    ("settings", "today", "expected"),
    [
        pytest.param({}, date(2025, 1, 1), "open", id="no dates"),
        pytest.param({"closed": True}, date(2025, 1, 1), "closed", id="closed flag"),
        pytest.param({"opens": date(2025, 3, 1)}, date(2025, 2, 28), "not yet open", id="before opens"),
        pytest.param({"opens": date(2025, 3, 1)}, date(2025, 3, 1), "open", id="opening day"),
        pytest.param({"closes": date(2025, 3, 31)}, date(2025, 3, 31), "open", id="closing day"),
        pytest.param({"closes": date(2025, 3, 31)}, date(2025, 4, 1), "closed", id="after closes"),
        pytest.param(
            {"opens": date(2025, 3, 1), "closes": date(2025, 3, 31)},
            date(2025, 3, 15),
            "open",
            id="between",
        ),
        pytest.param(
            {"opens": date(2025, 3, 1), "closed": True},
            date(2025, 2, 1),
            "closed",
            id="closed flag wins over not yet open",
        ),
    ],
)
def test_state(settings, today, expected):
    assert make_survey(**settings).state(today) == expected


@pytest.mark.parametrize(
    ("settings", "closed", "today", "expected"),
    [
        pytest.param({"closed": True}, False, date(2025, 1, 1), "open", id="reopened by hand"),
        pytest.param({}, True, date(2025, 1, 1), "closed", id="closed by hand"),
        pytest.param({"closed": True}, None, date(2025, 1, 1), "closed", id="no choice: the file's flag"),
        pytest.param({"closes": date(2025, 3, 31)}, False, date(2025, 4, 1), "closed", id="the dates still hold"),
        pytest.param({"opens": date(2025, 3, 1)}, False, date(2025, 2, 1), "not yet open", id="not yet open"),
    ],
)
def test_state_with_the_admins_choice_in_place_of_the_files_flag(settings, closed, today, expected):
    survey = make_survey(**settings)
    assert survey.state(today, closed) == expected
    assert survey.closed == settings.get("closed", False)  # the survey itself is not changed


def test_design_fingerprint_is_short_hex_and_stable():
    fingerprint = make_survey().design_fingerprint()
    assert len(fingerprint) == 16
    int(fingerprint, 16)
    assert make_survey().design_fingerprint() == fingerprint


def test_design_fingerprint_ignores_wording():
    survey = make_survey()
    reworded = replace(
        survey,
        title="Another title",
        intro="New intro",
        questions=tuple(replace(q, label="Reworded?", hint="Help") for q in survey.questions),
    )
    assert reworded.design_fingerprint() == survey.design_fingerprint()


@pytest.mark.parametrize(
    "changed",
    [
        pytest.param(yes_no("cheated", DIE), id="design of a yes/no"),
        pytest.param(select_one("ai_use", design=MultipleChoiceDesign(4, Fraction(2, 3))), id="t of a select_one"),
        pytest.param(select_one("ai_use"), id="randomization turned off"),
        pytest.param(select_one("year", YEARS[:3] + (Choice("fifth", "Fifth"),)), id="a choice name"),
    ],
)
def test_design_fingerprint_changes_with_design_or_choices(changed):
    survey = make_survey()
    questions = tuple(changed if q.name == changed.name else q for q in survey.questions)
    assert replace(survey, questions=questions).design_fingerprint() != survey.design_fingerprint()


def test_skipped_follows_conditions_in_order_and_a_skipped_question_counts_as_unanswered():
    survey = sample_surveys.make_survey(sample_surveys.SKIP_YAML)
    assert survey.skipped({"year": "first", "residence": "campus"}) == frozenset()
    assert survey.skipped({"year": "second", "residence": "campus"}) == {"first_exam", "residence", "campus_help"}
    assert survey.skipped({"year": "first"}) == {"campus_help"}


def test_a_surveys_kept_hash_matches_an_equal_surveys_also_in_another_process():
    """The hash is worked out once and kept (it keys the web layer's caches); a copy pickled into another
    process, where strings hash differently, works it out again rather than bring the old one."""
    survey = sample_surveys.make_survey()
    assert hash(survey) == hash(sample_surveys.make_survey()) == hash(replace(survey))
    assert hash(survey.questions[0]) == hash(sample_surveys.make_survey().questions[0])
    code = (
        "import pickle, sys; from tests.helpers.sample_surveys import make_survey;"
        "copy = pickle.loads(sys.stdin.buffer.read()); fresh = make_survey();"
        "print(copy == fresh, hash(copy) == hash(fresh), len({copy: 1, fresh: 2}))"
    )
    hash(survey)  # kept before pickling
    env = {**os.environ, "PYTHONHASHSEED": "random"}
    out = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(survey), capture_output=True, env=env)
    assert out.stdout.decode().split() == ["True", "True", "1"], out.stderr.decode()
