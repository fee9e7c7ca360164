"""surveys/answer_columns.py: the responses CSV's question columns, a number in its units (each row in the grid of
its design), a check-all-that-apply question one 0/1 column per option; both parts of the CSV (ready answer lines
and rows read one by one) give the same text."""

from __future__ import annotations

import csv
import io
import json

import pytest

from surveys.answer_columns import AnswerCells, question_columns, responses_header
from surveys.design_contract import design_record
from surveys.files import load_survey_text
from surveys.noisy_answers import iter_responses_csv
from tests.helpers import answer_csv
from tests.helpers.records import add_responses

pytestmark = pytest.mark.both_backends

SURVEY = """\
id: cells
title: Cells
version: {version}
questions:
  - {{name: cheated, type: yes_no, label: Cheated?}}
  - {{name: hours, type: decimal, label: Hours?, min: -1, max: {top}, step: {step}, epsilon: 2, mechanism: laplace}}
  - {{name: drinks, type: integer, label: Drinks?, min: 0, max: 30, mechanism: bounded}}
  - {{name: age, type: integer, label: Age, min: 16, max: 99, randomize: false}}
  - {{name: done, type: select_multiple, label: Which?, choices: [a, b, c]}}
  - {{name: done_1, type: yes_no, label: A question whose name an option column would take, randomize: false}}
"""


def survey(version=1, top="9", step="0.5"):
    return load_survey_text(SURVEY.format(version=version, top=top, step=step), "cells.yaml")


def records(*surveys):
    return [(s.design_fingerprint(), s.version, json.loads(design_record(s))) for s in surveys]


def test_a_check_all_question_has_one_column_per_option_never_taking_another_columns_name():
    assert responses_header(survey())[6:] == [
        "cheated",
        "hours",
        "drinks",
        "age",
        "done_1_",
        "done_2",
        "done_3",
        "done_1",
    ]
    assert [c.names for c in question_columns(survey())][-2] == ("done_1_", "done_2", "done_3")


def test_each_stored_answer_becomes_its_cells_in_the_grid_of_its_design():
    old, new = survey(1, "9", "0.5"), survey(2, "1.5", "0.125")
    assert old.design_fingerprint() != new.design_fingerprint()  # the grid is part of the design id
    cells = AnswerCells(new, records(old, new))
    fixed = ["r1", "1", old.design_fingerprint(), "server", "", "2026-11-22"]
    assert cells.row([*fixed, "yes", "-7", "1", "05", "101", "no"])[6:] == [
        "yes",
        "-4.5",
        "1",
        "21",
        "1",
        "0",
        "1",
        "no",
    ]  # -1 + (-7) * 0.5: outside the range, the noise; the bit as it is; 16 + 5
    fixed[2] = new.design_fingerprint()
    assert cells.row([*fixed, "no", "23", "0", "83", "000", "yes"])[6:] == [
        "no",
        "1.875",
        "0",
        "99",
        "0",
        "0",
        "0",
        "yes",
    ]  # -1 + 23 * 0.125, three decimals
    assert cells.row([*fixed, "", "", "", "", "", ""])[6:] == [""] * 8
    fixed[2] = "unknown-design"  # no record: the current questions
    assert cells.row([*fixed, "no", "0", "0", "00", "010", None])[6:] == ["no", "-1.000", "0", "16", "0", "1", "0", ""]


def test_an_answer_an_older_version_stored_under_another_type_is_kept_or_left_empty():
    older = load_survey_text(
        SURVEY.format(version=1, top="9", step="0.5")
        .replace(
            "type: decimal, label: Hours?, min: -1, max: 9, step: 0.5, epsilon: 2, mechanism: laplace",
            "type: yes_no, label: Hours?",
        )
        .replace("choices: [a, b, c]", "choices: [a, b]"),
        "cells.yaml",
    )
    cells = AnswerCells(survey(2), records(older, survey(2)))
    row = ["r1", "1", older.design_fingerprint(), "server", "", "2026-11-22", "yes", "yes", "1", "05", "10", "no"]
    assert cells.row(row)[6:] == ["yes", "yes", "1", "21", "", "", "", "no"]


def test_ready_lines_and_rows_read_one_by_one_give_the_same_csv():
    current = survey()
    stored = [
        ["r1", 1, current.design_fingerprint(), "device", "", "2026-11-22", "yes", "-3", "1", "07", "110", "no"],
        ["r2", 1, current.design_fingerprint(), "server", "", "2026-11-22", "no", "25", "0", "83", "001", "yes"],
    ]
    ready = "".join(",".join(str(v) for v in row) + "\r\n" for row in stored)
    by_lines = "".join(iter_responses_csv(current, [ready], [], records(current)))
    by_rows = "".join(iter_responses_csv(current, [], [stored], records(current)))
    assert by_lines == by_rows
    rows = list(csv.DictReader(io.StringIO(by_lines)))
    assert [(r["hours"], r["drinks"], r["age"], r["done_1_"], r["done_2"], r["done_3"]) for r in rows] == [
        ("-2.5", "1", "23", "1", "1", "0"),
        ("11.5", "0", "99", "0", "0", "1"),
    ]


def test_on_each_backend_the_csv_gives_the_stored_answers_back_by_the_codebook(app, surveys_dir, auth):
    """The ready answer lines (SQLite joins them; PostgreSQL's COPY streams them) and the codebook agree: each
    cell read back by the codebook's statements is the answer stored."""
    (surveys_dir / "cells.yaml").write_text(SURVEY.format(version=1, top="9", step="0.5"))
    stored = [
        {"cheated": "yes", "hours": "-7", "drinks": "1", "age": "05", "done": "101", "done_1": "no"},
        {"cheated": "no", "hours": "41", "drinks": "0", "age": "83", "done": "000"},
        {"cheated": "no", "hours": "20", "drinks": "1", "age": "00", "done": "011", "done_1": "yes"},
    ]
    add_responses(app, stored, "server", survey_id="cells")
    auth.login()
    exported = answer_csv.csv_rows(auth.client, "/admin/surveys/cells")
    assert sorted(r["hours"] for r in exported) == ["-4.5", "19.5", "9.0"]  # -1 + y * 0.5; 19.5: beyond the max
    rows = answer_csv.stored_rows(auth.client, "/admin/surveys/cells")
    names = ("cheated", "hours", "drinks", "age", "done", "done_1")
    as_stored = [{**answers, "age": str(int(answers["age"]))} for answers in stored]  # a position, unpadded
    assert sorted(tuple(r[n] for n in names) for r in rows) == sorted(
        tuple(answers.get(n, "") for n in names) for answers in as_stored
    )
