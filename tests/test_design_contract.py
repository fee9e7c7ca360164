"""Tests of surveys.design_contract: one spelling of the design key, read back the same everywhere."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from analysis.design import MultipleChoiceDesign
from app import ROOT
from storage import queries
from surveys import design_contract, schema_questions
from surveys.design_contract import (
    canonical_json,
    check_question_name,
    compatible_tallies,
    design_record,
    parse_design_key,
    question_design_key,
    record_design_keys,
)
from tests.helpers.sample_surveys import QUIZ_YAML, make_survey

pytestmark = pytest.mark.both_backends


def test_canonical_json_sorts_keys_and_has_no_spaces():
    assert canonical_json({"b": [1, 2], "a": None}) == '{"a":null,"b":[1,2]}'
    assert canonical_json({"a": 1, "b": 2}) == canonical_json({"b": 2, "a": 1})


def test_the_design_key_is_spelled_once():
    """Canonical JSON is written in design_contract only; m005, m008, m009 and m018 keep their frozen copies on
    purpose."""
    spelled = re.compile(r"sort_keys=True,\s*separators=")
    copies = sorted(
        str(path.relative_to(ROOT))
        for folder in ("analysis", "surveys", "storage", "web", "bench")
        for path in (ROOT / folder).rglob("*.py")
        if spelled.search(path.read_text(encoding="utf-8"))
    )
    assert copies == ["storage/migrations.py", "storage/migrations_001_009.py", "surveys/design_contract.py"]


def test_keys_rebuilt_from_the_stored_record_equal_the_submitted_keys():
    survey = make_survey(QUIZ_YAML)
    stored = [("fp", 1, json.loads(design_record(survey)))]
    assert record_design_keys(stored) == {("fp", q.name): question_design_key(q) for q in survey.questions}


def test_a_key_reads_back_as_its_type_choices_and_design():
    question = make_survey(QUIZ_YAML).question("ai_use")
    assert parse_design_key(question_design_key(question)) == ("select_one", question.choice_names, question.design)
    assert parse_design_key("not json") is None
    assert parse_design_key('{"type": "yes_no"}') is None


def test_tallies_of_another_type_or_with_unknown_answers_are_ignored_and_flagged():
    question = make_survey(QUIZ_YAML).question("ai_use")
    current = question_design_key(question)
    yes_no = question_design_key(make_survey(QUIZ_YAML).question("cheated"))
    fewer = question_design_key(
        dataclasses.replace(question, choices=question.choices[:2], design=MultipleChoiceDesign(2, question.design.t))
    )
    usable, ignored = compatible_tallies(question, {yes_no: {"yes": 3}, fewer: {"never": 1}, current: {"once": 2}})
    assert [tally.key for tally in usable] == [current, fewer] and ignored
    assert compatible_tallies(question, {current: {"once": 2}}) == (
        [design_contract.StoredTally(current, question.choice_names, question.design, {"once": 2})],
        False,
    )


@pytest.mark.parametrize("name", ["year", "q1", "a_b", "x" * 63, "Year", "1q", "_q", "q-1", "q.r", "x" * 64, "", "é"])
def test_the_loader_and_storage_accept_the_same_question_names(name, fresh_db):
    """One rule: a name storage refuses (in a JSON path) is one the loader never lets into a survey."""
    assert schema_questions.QUESTION_NAME_PATTERN is design_contract.QUESTION_NAME_PATTERN
    if schema_questions.QUESTION_NAME_PATTERN.fullmatch(name):
        assert check_question_name(name) == name
        assert queries.group_tallies(fresh_db, "quiz", name) == {}
    else:
        with pytest.raises(ValueError, match="question name"):
            queries.group_tallies(fresh_db, "quiz", name)


def test_the_template_global_is_the_contracts_design_key(app):
    assert app.jinja_env.globals["design_key"] is question_design_key
