"""Tests for surveys.files: survey files and the survey folder read, broken ones reported."""

import logging
import math
import time
from datetime import date
from pathlib import Path

import pytest
import yaml

from analysis.misclassification import MisclassificationDesign
from surveys import files, limits
from surveys.files import load_catalog, load_survey_file
from surveys.schema import SurveyFileError
from surveys.schema_designs import MODEL_KEYS
from tests.helpers.sample_surveys import ALIAS_BOMB_YAML, DEEP_YAML

SURVEY_FILES = Path(__file__).resolve().parent.parent / "survey_files"

VALID_YAML = """\
id: exam
title: Exam
version: 1
questions:
  - name: cheated
    type: yes_no
    label: Have you cheated?
"""


def write(folder, name, text):
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# -- reading files ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("id: exam\ntitle: Exam\n  version: [1\n", "invalid YAML at line 3", id="syntax error"),
        pytest.param(
            "questions:\n  - name: a\n    name: b\n", "line 3, column 5: found the key 'name' twice", id="duplicate key"
        ),
        pytest.param("id: exam\nopens: 2025-02-30\n", "line 2", id="impossible date"),
        pytest.param("- id: exam\n- title: Exam\n", "must be a mapping", id="top level a list"),
        pytest.param("just some text\n", "must be a mapping", id="top level a string"),
        pytest.param("", "the file is empty", id="empty file"),
        pytest.param("# only a comment\n", "the file is empty", id="only a comment"),
    ],
)
def test_file_level_problems(tmp_path, text, message):
    path = write(tmp_path, "exam.yaml", text)
    with pytest.raises(SurveyFileError) as raised:
        load_survey_file(path)
    (problem,) = raised.value.problems
    assert (problem.file, problem.question, problem.field) == ("exam.yaml", None, None)
    assert message in problem.message


def test_not_utf8(tmp_path):
    path = tmp_path / "exam.yaml"
    path.write_bytes("title: Prüfung\n".encode("latin-1"))
    with pytest.raises(SurveyFileError, match="exam.yaml: not UTF-8"):
        load_survey_file(path)


def test_missing_file(tmp_path):
    with pytest.raises(SurveyFileError, match="exam.yaml: cannot read the file"):
        load_survey_file(tmp_path / "exam.yaml")


def test_yaml_dates_are_accepted(tmp_path):
    path = write(tmp_path, "exam.yaml", VALID_YAML + "opens: 2025-03-01\ncloses: '2025-03-31'\n")
    survey = load_survey_file(path)
    assert (survey.opens, survey.closes) == (date(2025, 3, 1), date(2025, 3, 31))


def test_yaml_file_errors_name_question_and_field(tmp_path):
    path = write(tmp_path, "exam.yaml", VALID_YAML + "    design: {t: 0, a: 1/2, b: 1/2}\n")
    with pytest.raises(SurveyFileError) as raised:
        load_survey_file(path)
    assert [str(p) for p in raised.value.problems] == [
        "exam.yaml: question 'cheated', field 'design.t': t (probability of a truthful answer) must be > 0, got t=0"
    ]


# -- hostile files: read within the limits of surveys/limits.py -------------

TOO_LARGE_YAML = VALID_YAML + "# " + "x" * limits.MAX_SURVEY_FILE_BYTES + "\n"
HOSTILE_FILES = [
    pytest.param(DEEP_YAML, "nested more than 20 levels deep", "MAX_YAML_DEPTH is 20", id="5,000 deep"),
    pytest.param(ALIAS_BOMB_YAML, "more than 50,000 values", "MAX_YAML_NODES is 50,000", id="billion laughs"),
    pytest.param(
        VALID_YAML + "closing: &t done\nintro: [" + ", ".join(["*t"] * 101) + "]\n",
        "more than 100 aliases",
        "MAX_YAML_ALIASES is 100",
        id="many aliases",
    ),
    pytest.param(VALID_YAML + "intro: &t [*t]\n", "alias *t is used inside the value it names", "", id="recursive"),
    pytest.param(
        TOO_LARGE_YAML,
        f"the file is {len(TOO_LARGE_YAML):,} bytes",
        "MAX_SURVEY_FILE_BYTES is 1,000,000",
        id="too large",
    ),
]


def assert_refused_at_once(tmp_path, text, what, limit):
    path = write(tmp_path, "hostile.yaml", text)
    started = time.monotonic()
    with pytest.raises(SurveyFileError) as raised:
        load_survey_file(path)
    assert time.monotonic() - started < 2
    (problem,) = raised.value.problems
    assert (problem.file, problem.question, problem.field) == ("hostile.yaml", None, None)
    assert what in problem.message and limit in problem.message


@pytest.mark.parametrize(("text", "what", "limit"), HOSTILE_FILES)
def test_a_file_beyond_a_limit_is_one_problem_naming_the_limit(tmp_path, text, what, limit):
    assert_refused_at_once(tmp_path, text, what, limit)


@pytest.mark.parametrize(("text", "what", "limit"), HOSTILE_FILES)
def test_without_libyaml_the_same_limits_hold(tmp_path, monkeypatch, text, what, limit):
    monkeypatch.setattr(files, "_SurveyYamlLoader", files.survey_loader(files.PythonEvents))
    assert_refused_at_once(tmp_path, text, what, limit)


def test_libyaml_and_pythons_parser_read_the_shipped_surveys_alike():
    python_loader = files.survey_loader(files.PythonEvents)
    for path in sorted(SURVEY_FILES.glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        assert yaml.load(text, Loader=files._SurveyYamlLoader) == yaml.load(text, Loader=python_loader)


def test_hostile_files_are_skipped_and_the_good_one_loads(tmp_path, caplog):
    write(tmp_path, "a-deep.yaml", DEEP_YAML)
    write(tmp_path, "b-laughs.yaml", ALIAS_BOMB_YAML)
    write(tmp_path, "c-good.yaml", VALID_YAML)
    started = time.monotonic()
    with caplog.at_level(logging.ERROR, logger="surveys.files"):
        catalog = load_catalog(tmp_path)
    assert time.monotonic() - started < 2
    assert list(catalog.surveys) == ["exam"]
    assert [p.file for p in catalog.problems] == ["a-deep.yaml", "b-laughs.yaml"]
    assert "MAX_YAML_DEPTH" in catalog.problems[0].message and "MAX_YAML_NODES" in catalog.problems[1].message
    assert len(caplog.records) == 2


def test_a_condition_nested_past_the_limit_is_a_problem_of_its_question(tmp_path):
    condition = "(" * 3000 + "${year} = 'first'" + ")" * 3000
    text = VALID_YAML.replace(
        "questions:\n",
        "questions:\n  - {name: year, type: select_one, label: Year, choices: [first, second], randomize: false}\n",
    )
    path = write(tmp_path, "exam.yaml", text + f'    relevant: "{condition}"\n')
    with pytest.raises(SurveyFileError) as raised:
        load_survey_file(path)
    (problem,) = raised.value.problems
    assert (problem.question, problem.field) == ("cheated", "relevant")
    assert "the limit MAX_CONDITION_DEPTH is 20" in problem.message


def test_a_problem_shows_a_long_value_shortened(tmp_path):
    path = write(tmp_path, "exam.yaml", VALID_YAML + "intro: [" + ", ".join(["lol"] * 20_000) + "]\n")
    with pytest.raises(SurveyFileError) as raised:
        load_survey_file(path)
    (problem,) = raised.value.problems
    assert problem.message.startswith("must be text, got a list ['lol', 'lol',")
    assert len(problem.message) < 300


def test_reading_a_file_stops_at_the_time_limit(tmp_path, monkeypatch):
    path = write(tmp_path, "exam.yaml", VALID_YAML)
    monkeypatch.setattr(limits, "MAX_YAML_SECONDS", 0.0)
    with pytest.raises(SurveyFileError) as raised:
        load_survey_file(path)
    (problem,) = raised.value.problems
    assert "took more than 0 s to read" in problem.message and "MAX_YAML_SECONDS is 0 s" in problem.message


def test_a_file_within_the_limits_may_use_anchors_and_aliases(tmp_path):
    text = VALID_YAML.replace("Have you cheated?", "&q Have you cheated?") + "intro: *q\n"
    assert load_survey_file(write(tmp_path, "exam.yaml", text)).intro == "Have you cheated?"


# -- the catalog ------------------------------------------------------------


def test_broken_file_is_skipped_and_reported(tmp_path, caplog):
    write(tmp_path, "a-good.yaml", VALID_YAML)
    write(tmp_path, "b-broken.yml", VALID_YAML.replace("id: exam", "id: other").replace("yes_no", "yesno"))
    with caplog.at_level(logging.ERROR, logger="surveys.files"):
        catalog = load_catalog(tmp_path)
    assert list(catalog.surveys) == ["exam"]
    assert catalog.get("exam").source == "a-good.yaml"
    assert catalog.get("other") is None
    assert catalog.files == ("a-good.yaml", "b-broken.yml")
    (problem,) = catalog.problems
    assert (problem.file, problem.question, problem.field) == ("b-broken.yml", "cheated", "type")
    assert [r.getMessage() for r in caplog.records] == [str(problem)]


def test_duplicate_survey_ids_across_files(tmp_path):
    write(tmp_path, "first.yaml", VALID_YAML)
    write(tmp_path, "second.yaml", VALID_YAML.replace("title: Exam", "title: Copy"))
    catalog = load_catalog(tmp_path)
    assert catalog.get("exam").title == "Exam"
    (problem,) = catalog.problems
    assert (problem.file, problem.field) == ("second.yaml", "id")
    assert "first.yaml" in problem.message


def test_only_survey_files_are_read(tmp_path):
    write(tmp_path, "exam.yaml", VALID_YAML)
    write(tmp_path, "notes.txt", "not a survey")
    write(tmp_path, ".exam-backup.yaml", "broken: [")
    (tmp_path / "folder.yaml").mkdir()
    catalog = load_catalog(tmp_path)
    assert catalog.files == ("exam.yaml",)
    assert catalog.problems == ()


def test_missing_folder_is_a_problem(tmp_path, caplog):
    folder = tmp_path / "nowhere"
    with caplog.at_level(logging.ERROR, logger="surveys.files"):
        catalog = load_catalog(folder)
    assert dict(catalog.surveys) == {}
    (problem,) = catalog.problems
    assert problem.file == str(folder)
    assert "does not exist" in problem.message
    assert len(caplog.records) == 1


def test_catalog_surveys_are_read_only(tmp_path):
    write(tmp_path, "exam.yaml", VALID_YAML)
    catalog = load_catalog(tmp_path)
    with pytest.raises(TypeError):
        catalog.surveys["other"] = catalog.get("exam")


def test_design_fingerprint_stable_across_loads_and_changes_with_design(tmp_path):
    path = write(tmp_path, "exam.yaml", VALID_YAML)
    first = load_survey_file(path).design_fingerprint()
    assert load_survey_file(path).design_fingerprint() == first
    write(tmp_path, "exam.yaml", VALID_YAML.replace("Have you cheated?", "Did you ever cheat?"))
    assert load_survey_file(path).design_fingerprint() == first
    write(tmp_path, "exam.yaml", VALID_YAML + "    design: {t: 2/3, a: 1/6, b: 1/6}\n")
    assert load_survey_file(path).design_fingerprint() != first


# -- the shipped example surveys --------------------------------------------


def test_the_shipped_surveys_show_every_design_and_one_closes_itself_on_its_targets():
    """Every design a survey file can name (survey_files/ shows what the product can do), and targets with
    ``close_when_targets_met`` in one survey at least."""
    catalog = load_catalog(SURVEY_FILES)
    shown = {q.design.kind for survey in catalog.surveys.values() for q in survey.questions if q.design is not None}
    designs = {*MODEL_KEYS, "multiple_choice", MisclassificationDesign.kind}
    assert designs - shown == set()
    assert any(survey.targets and survey.close_when_targets_met for survey in catalog.surveys.values())


def test_the_shipped_surveys_show_weights_a_sample_design_and_an_anchor_question():
    """Population counts (weighted shares and model), a sample design (design-weighted shares) and an anchor of known
    prevalence each in an example; the anchor randomized with the design of another question of its survey."""
    surveys = load_catalog(SURVEY_FILES).surveys.values()
    assert any(survey.population_counts for survey in surveys)
    assert any(survey.sample_design is not None for survey in surveys)
    (anchored,) = [survey for survey in surveys if survey.anchor is not None]
    anchor = anchored.question(anchored.anchor.question)
    others = [q.design for q in anchored.randomized_questions if q.name != anchor.name]
    assert anchor.design in others


def test_shipped_surveys_load_cleanly():
    catalog = load_catalog(SURVEY_FILES)
    assert catalog.problems == ()
    assert sorted(catalog.surveys) == [
        "campus-life",
        "drug-use-crosswise",
        "exam-crosswise-extended",
        "exam-integrity",
        "research-integrity",
        "student-habits",
        "tax-honesty-lie-detector",
        "workplace-wellbeing",
    ]
    for survey in catalog.surveys.values():
        assert survey.intro
        assert survey.source == f"{survey.id}.yaml"
        if survey.epsilon_budget is not None:
            assert survey.epsilon.basic <= survey.epsilon_budget


def test_exam_integrity_epsilon_is_the_hand_sum():
    survey = load_survey_file(SURVEY_FILES / "exam-integrity.yaml")
    # epsilon = ln max over reports of P(report | yes) / P(report | no):
    # cheated, two coins t=1/2, a=b=1/4: (t + a) / a = (3/4) / (1/4) = 3   -> ln 3
    # plagiarism, die t=2/3, a=b=1/6:   (2/3 + 1/6) / (1/6) = 5            -> ln 5
    # ai_use, k=4, t=1/2: q = (1 - t)/k = 1/8, (t + q) / q = (5/8)/(1/8) = 5 -> ln 5
    # year is not randomized and is not counted.
    assert [q.name for q in survey.randomized_questions] == ["cheated", "plagiarism", "ai_use"]
    assert survey.epsilon.basic == pytest.approx(math.log(3) + math.log(5) + math.log(5))
    assert survey.question("year").design is None
    assert survey.question("year").required
    assert survey.question("ai_use").choice_names == ("never", "once", "a_few_times", "often")


def test_workplace_wellbeing_within_budget():
    survey = load_survey_file(SURVEY_FILES / "workplace-wellbeing.yaml")
    # Two two-coin questions: 2 ln 3 = 2.197 <= 3.
    assert survey.epsilon_budget == 3
    assert survey.epsilon.basic == pytest.approx(2 * math.log(3))
    assert [q.name for q in survey.plain_questions] == ["department"]
