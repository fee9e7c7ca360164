"""surveys/stats_files.py and its downloads: SPSS and Stata files read back, and the R script."""

from __future__ import annotations

import csv
import io
import math

import pyreadstat
import pytest

from storage import responses
from surveys import stats_files
from surveys.submission import noisy_response
from tests.helpers.sample_surveys import make_survey
from web import answer_package

pytestmark = pytest.mark.both_backends

ANSWERS = [
    {"cheated": "yes", "ai_use": "never", "dept": "arts"},
    {"cheated": "no", "lied": "yes", "ai_use": "often", "dept": "law"},
    {"cheated": "no", "ai_use": "once"},
    {"cheated": "yes", "lied": "no", "ai_use": "sometimes", "dept": "science"},
]


@pytest.fixture
def survey():
    return make_survey()


@pytest.fixture
def stored(fresh_db, survey):
    for index, answers in enumerate(ANSWERS):
        responses.store_response(fresh_db, noisy_response(survey, answers, "server"), f"key-{index:04d}", "2026-11-21")
    return fresh_db


def csv_rows(db, survey) -> list[dict]:
    return list(csv.DictReader(io.StringIO("".join(answer_package.responses_csv(db, survey)))))


def read_back(tmp_path, body: bytes, fmt: str):
    path = tmp_path / f"read.{fmt}"
    path.write_bytes(body)
    reader = pyreadstat.read_sav if fmt == "sav" else pyreadstat.read_dta
    return reader(str(path))


@pytest.mark.parametrize("fmt", ["sav", "dta"])
def test_the_file_read_back_has_the_csv_rows_as_labelled_codes(stored, survey, tmp_path, fmt):
    body = answer_package.statistics_file(stored, survey, fmt)
    frame, meta = read_back(tmp_path, body, fmt)
    rows = csv_rows(stored, survey)
    assert len(frame) == len(rows) == len(ANSWERS)
    assert list(frame.columns) == list(rows[0])
    for index, row in enumerate(rows):
        got = frame.iloc[index]
        assert got["response_id"] == row["response_id"]
        assert got["design_id"] == row["design_id"] and got["randomized_on"] == "server"
        assert got["day"] == "2026-11-21" and int(got["survey_version"]) == 1
        assert got["cheated"] == {"yes": 1, "no": 0}[row["cheated"]]
        assert got["ai_use"] == ["never", "once", "sometimes", "often"].index(row["ai_use"]) + 1
        if row["dept"]:
            assert got["dept"] == ["arts", "science", "law"].index(row["dept"]) + 1
        else:
            assert math.isnan(got["dept"])  # no answer is the system missing value
        if not row["lied"]:
            assert math.isnan(got["lied"])
    labels = dict(zip(meta.column_names, meta.column_labels))
    assert labels["cheated"] == "Have you ever cheated on an exam?"
    assert labels["dept"] == "Department"
    assert labels["randomized_on"].startswith("device (randomized in the browser)")
    assert meta.variable_value_labels["cheated"] == {0: "No", 1: "Yes"}
    assert meta.variable_value_labels["dept"] == {1: "Arts", 2: "Science", 3: "Law"}
    assert meta.variable_value_labels["ai_use"] == {1: "never", 2: "once", 3: "sometimes", 4: "often"}


def test_the_sav_file_notes_give_each_randomized_questions_design(stored, survey, tmp_path):
    _, meta = read_back(tmp_path, answer_package.statistics_file(stored, survey, "sav"), "sav")
    assert all(len(line) <= 80 for line in meta.notes)  # the format's limit per line
    notes = " ".join(meta.notes)
    assert "survey quiz, version 1" in notes
    for question in survey.randomized_questions:
        assert f"{question.name}: " in notes
    assert "t=2/3, forced yes with a=1/6" in notes  # the design of "lied"
    assert "dept: " not in notes  # a plain question has no design


def test_the_dta_file_label_names_the_codebook(stored, survey, tmp_path):
    _, meta = read_back(tmp_path, answer_package.statistics_file(stored, survey, "dta"), "dta")
    assert meta.file_label == "quiz v1: noisy answers; designs in the codebook"


def test_reserved_and_long_names_are_renamed_uniquely_for_each_package():
    long_a = "a" * 40
    long_b = "a" * 35
    columns = ["response_id", "in", "to", long_a, long_b, "str12"]
    dta = stats_files.variable_names(columns, "dta")
    sav = stats_files.variable_names(columns, "sav")
    assert dta["in"] == "in_" and sav["in"] == "in"
    assert sav["to"] == "to_" and dta["to"] == "to"
    assert dta["str12"] == "str12_" and sav["str12"] == "str12"
    assert dta[long_a] == "a" * 32 and dta[long_b] == "a" * 30 + "_2"
    assert sav[long_a] == long_a
    assert all(len(name) <= 32 for name in dta.values())
    with pytest.raises(ValueError, match="'xlsx'"):
        stats_files.variable_names(columns, "xlsx")


def test_a_renamed_question_is_written_and_named_in_the_notes(fresh_db, tmp_path):
    survey = make_survey(
        questions=[{"name": "to", "type": "yes_no", "label": "To be or not?", "randomize": False}],
    )
    responses.store_response(fresh_db, noisy_response(survey, {"to": "yes"}, "server"), "key-0001", "2026-11-21")
    frame, meta = read_back(tmp_path, answer_package.statistics_file(fresh_db, survey, "sav"), "sav")
    assert list(frame["to_"]) == [1]
    assert "Renamed from the responses CSV: to -> to_." in " ".join(meta.notes)


def test_a_long_question_is_cut_to_statas_80_characters():
    label = "Have you " + "really " * 20 + "cheated?"
    survey = make_survey(questions=[{"name": "q", "type": "yes_no", "label": label}])
    (question,) = [v for v in stats_files.variables(survey, "dta") if v.column == "q"]
    assert len(question.label) == 80 and question.label.endswith("...")
    assert label.startswith(question.label[:-3])


def test_a_csv_with_other_columns_is_refused(survey):
    with pytest.raises(ValueError, match="expected"):
        stats_files.responses_frame(survey, ["response_id,cheated\n"], "sav")


def test_the_r_script_reads_the_csv_with_every_question_as_a_labelled_factor(survey):
    script = stats_files.r_script(survey, "quiz-responses.csv")
    assert 'd <- read.csv("quiz-responses.csv", colClasses = "character"' in script
    assert (
        'd$dept <- factor(d$dept, levels = c("arts", "science", "law"), labels = c("Arts", "Science", "Law"))'
    ) in script
    assert 'd$cheated <- factor(d$cheated, levels = c("yes", "no"), labels = c("Yes", "No"))' in script
    assert 'attr(d$cheated, "label") <- "Have you ever cheated on an exam?"' in script
    assert all(line.startswith("#") for line in script.splitlines()[: 1 + len(survey.randomized_questions)])


def test_r_strings_escape_quotes_backslashes_and_line_breaks():
    assert stats_files.r_string('say "hi"\\\n') == '"say \\"hi\\"\\\\\\n"'


def test_downloads_need_a_researcher_and_a_known_format(client, auth, app):
    assert client.get("/admin/surveys/quiz/responses.sav").status_code == 401
    auth.login()
    sav = client.get("/admin/surveys/quiz/responses.sav")
    assert sav.status_code == 200 and sav.headers["Content-Disposition"] == 'attachment; filename="quiz-responses.sav"'
    assert sav.data[:4] == b"$FL2"  # an SPSS system file
    assert client.get("/admin/surveys/quiz/responses.dta").status_code == 200
    assert client.get("/admin/surveys/quiz/responses.xlsx").status_code == 404
    script = client.get("/admin/surveys/quiz/read-responses.R")
    assert script.status_code == 200 and b'read.csv("quiz-responses.csv"' in script.data


def test_the_cli_writes_each_format(runner, app, tmp_path):
    target = tmp_path / "out.dta"
    result = runner.invoke(args=["export", "responses", "quiz", "--format", "dta", "--output", str(target)])
    assert result.exit_code == 0, result.output
    frame, _ = pyreadstat.read_dta(str(target))
    assert list(frame.columns)[:6] == ["response_id", "survey_version", "design_id", "randomized_on", "arm", "day"]
    refused = runner.invoke(args=["export", "responses", "quiz", "--format", "sav"])
    assert refused.exit_code != 0 and "--output" in refused.output
    script = runner.invoke(args=["export", "responses", "quiz", "--format", "r"])
    assert script.exit_code == 0 and "factor(d$cheated" in script.output
