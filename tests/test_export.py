"""Tests of surveys.export: estimate rows, CSV and JSON, the streamed responses, the codebook."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import secrets
import tracemalloc

import pytest
import yaml
from numpy.testing import assert_allclose

import analysis
from storage import connection, responses
from surveys import export, results, submission
from surveys.design_contract import design_record, question_design_key
from surveys.files import load_catalog
from surveys.schema import SurveyFileError, parse_survey
from surveys.submission import noisy_response
from tests.helpers.sample_surveys import (
    DEPT_SURVEY_YAML,
    K_OPTION_AS_MATRIX,
    K_OPTION_DESIGN_LINE,
    RRTCS_SURVEY_YAML,
    TWO_GROUP_YAML,
    two_group_tallies,
)
from tests.helpers.sample_surveys import make_survey as make_any_survey
from web import answer_package
from web.db import open_database

pytestmark = pytest.mark.both_backends

#: The shared survey with an asymmetric design and unlabelled choices.
SURVEY_YAML = DEPT_SURVEY_YAML.replace("{t: 2/3, a: 1/6, b: 1/6}", "{t: 7/10, a: 1/5, b: 1/10}").replace(
    "[{name: arts, label: Arts}, {name: science, label: Science}, {name: law, label: Law}]", "[arts, science, law]"
)


def make_survey(**changes):
    return make_any_survey(SURVEY_YAML, **changes)


@pytest.fixture
def survey():
    return make_survey()


def key(survey, name):
    return question_design_key(survey.question(name))


@pytest.fixture
def survey_results(survey):
    die = analysis.ForcedResponseDesign("2/3", "1/6", "1/6")
    old_lied = question_design_key(dataclasses.replace(survey.question("lied"), design=die))
    tallies = {
        "cheated": {key(survey, "cheated"): {"yes": 40, "no": 60}},
        "lied": {key(survey, "lied"): {"yes": 30, "no": 20}, old_lied: {"yes": 10, "no": 40}},
        "ai_use": {key(survey, "ai_use"): {"never": 50, "once": 20, "sometimes": 20, "often": 10}},
        "dept": {key(survey, "dept"): {"arts": 100}},
    }
    return results.compute_results(survey, tallies, 100)


# --------------------------------------------------------------------------
# Estimates.


def test_estimate_rows_have_the_fixed_columns(survey_results):
    rows = export.estimate_rows(survey_results)
    # cheated, lied, and four options of ai_use; dept (plain) has no estimate.
    assert [(r["question"], r["option"]) for r in rows] == [
        ("cheated", ""),
        ("lied", ""),
        ("ai_use", "never"),
        ("ai_use", "once"),
        ("ai_use", "sometimes"),
        ("ai_use", "often"),
    ]
    assert all(tuple(row) == export.ESTIMATE_COLUMNS for row in rows)


def test_yes_no_row_values(survey_results):
    row = export.estimate_rows(survey_results)[0]
    result = survey_results.question("cheated")
    assert row == {
        "question": "cheated",
        "label": "Have you ever cheated on an exam?",
        "option": "",
        "design": "two coins (t=1/2, a=1/4, b=1/4)",
        "t": 0.5,
        "a": 0.25,
        "b": 0.25,
        "k": None,
        "counted_answer": "yes",
        "n": 100,
        "yes_count": 40,
        "observed_answer": "yes",
        "observed_rate": 0.4,
        "counted_rate": 0.4,
        "estimate_raw": result.estimate_raw,
        "estimate_clipped": result.estimate,
        "estimate_projected": None,
        "std_err": result.std_err,
        "ci_low": result.ci.low,
        "ci_high": result.ci.high,
        "ci_method": "wilson",
        "ci_side": "two-sided",
        "sequence_low": result.sequence.low,
        "sequence_high": result.sequence.high,
        "sequence_side": "two-sided",
        "confidence_level": 0.95,
        "outside_design": "",
        "one_sided_bound": None,
        "outside_design_p_value": None,
        "epsilon": result.epsilon,
        "flags": "",
        "error": "",
        "excluded_days": "",
        "excluded_responses": 0,
        **dict.fromkeys(("group_n", "group_yes", "second_parameter", "second_estimate", "second_std_err")),
        **dict.fromkeys(("second_ci_low", "second_ci_high")),
        **dict.fromkeys(("direct_n", "direct_yes", "direct_estimate", "direct_std_err", "difference")),
        **dict.fromkeys(("difference_std_err", "difference_ci_low", "difference_ci_high", "p_value_rr_higher")),
        **dict.fromkeys(("population_size", "std_err_finite_population", "finite_population_low")),
        **dict.fromkeys(("finite_population_high", "version_of_pooled", "statistic", "mechanism")),
    }


def test_pooled_row_has_no_design_parameters(survey_results):
    row = export.estimate_rows(survey_results)[1]
    assert row["design"] == "pooled over 2 designs"
    assert row["t"] is row["a"] is row["b"] is row["k"] is None
    assert row["ci_method"] == "wald"
    assert (row["sequence_low"], row["sequence_high"]) == (
        survey_results.question("lied").sequence.low,
        survey_results.question("lied").sequence.high,
    )
    assert row["flags"] == "several designs"
    assert row["estimate_raw"] == survey_results.question("lied").pooled_estimate.estimate_raw


def test_option_rows_carry_the_marginal_design(survey_results):
    rows = export.estimate_rows(survey_results)[2:]
    result = survey_results.question("ai_use")
    for row, option in zip(rows, result.options):
        # Each option alone: t = 1/2, a = (1 - t)/k = 1/8, b = 1 - t - a = 3/8.
        assert (row["t"], row["a"], row["b"], row["k"]) == (0.5, 0.125, 0.375, 4)
        assert row["yes_count"] == option.count and row["n"] == 100
        assert row["estimate_raw"] == option.estimate_raw
        assert row["estimate_clipped"] == option.estimate and row["estimate_projected"] == option.estimate_projected
        assert row["ci_low"] <= row["estimate_clipped"] <= row["ci_high"]
        assert (row["ci_low"], row["ci_high"]) == (option.ci.low, option.ci.high)
        assert row["flags"] == "clipped; below the design's floor"  # option often's raw estimate is -0.05
        assert row["outside_design"] == ("below" if option.outside else "")
        assert row["one_sided_bound"] == (option.outside.bound if option.outside else None)
        assert row["ci_side"] == ("upper" if option.outside else "two-sided")
        assert (row["counted_answer"], row["observed_answer"]) == (option.choice.name, option.choice.name)
        assert row["estimate_raw"] == pytest.approx((row["counted_rate"] - row["a"]) / row["t"])
    # the often row: 10% of answers, under the forced 12.5%: a one-sided bound, never [0, 0]
    assert (rows[3]["ci_low"], rows[3]["ci_side"]) == (0.0, "upper") and rows[3]["ci_high"] > 0.01
    assert sum(row["estimate_projected"] for row in rows) == pytest.approx(1.0)


def test_row_without_answers_is_empty_but_present(survey):
    rows = export.estimate_rows(results.compute_results(survey, {}, 0))
    assert rows[0]["n"] == 0 and rows[0]["flags"] == "no responses"
    assert rows[0]["estimate_clipped"] is None and rows[0]["ci_low"] is None
    assert rows[0]["t"] == 0.5  # the current design still applies


def test_csv_parses_back_with_the_header(survey_results):
    text = export.estimates_csv(survey_results)
    reader = csv.DictReader(io.StringIO(text))
    assert tuple(reader.fieldnames) == export.ESTIMATE_COLUMNS
    parsed = list(reader)
    rows = export.estimate_rows(survey_results)
    assert len(parsed) == len(rows)
    for back, row in zip(parsed, rows):
        assert back["question"] == row["question"] and back["option"] == row["option"]
        assert float(back["estimate_raw"]) == row["estimate_raw"]  # repr round-trips exactly
        assert back["k"] == ("" if row["k"] is None else str(row["k"]))


def is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


FORMULA_LABELS = {"cheated": '=HYPERLINK("http://x")', "lied": "+1+1", "ai_use": "-2+3"}


def test_csv_text_cells_that_start_a_formula_are_quoted_numbers_stay_numbers(survey_results):
    labels = {**FORMULA_LABELS, "cheated": "@SUM(1)"}
    for first in ("=", "\t", "\r"):
        labels["cheated"] = first + "cmd|' /C calc'!A0"
        survey = survey_results.survey
        questions = tuple(dataclasses.replace(q, label=labels.get(q.name, q.label)) for q in survey.questions)
        changed = dataclasses.replace(
            survey_results,
            survey=dataclasses.replace(survey, questions=questions),
            questions=tuple(
                dataclasses.replace(r, question=questions[i]) for i, r in enumerate(survey_results.questions)
            ),
        )
        rows = list(csv.DictReader(io.StringIO(export.estimates_csv(changed), newline="")))
        by_question = {row["question"]: row for row in rows}
        assert by_question["cheated"]["label"] == "'" + labels["cheated"]
        assert by_question["lied"]["label"] == "'+1+1" and by_question["ai_use"]["label"] == "'-2+3"
        text_cells = [cell for row in rows for cell in row.values() if not is_number(cell)]
        assert not [cell for cell in text_cells if cell.startswith(export.FORMULA_STARTS)]
    often = next(row for row in rows if row["option"] == "often")
    assert float(often["estimate_raw"]) == pytest.approx(-0.05)  # a negative number is still a number
    json_labels = {r["question"]: r["label"] for r in export.estimates_json(changed, "now")["rows"]}
    assert json_labels["lied"] == "+1+1"  # JSON keeps the label as written


@pytest.mark.parametrize("name", ["=cmd", "+1", "-1", "@x", "\tx"])
def test_responses_csv_cells_cannot_start_a_formula_choice_names_are_refused(name):
    with pytest.raises(SurveyFileError, match="a name must be a letter or digit"):
        make_survey(questions=[{"name": "q", "type": "select_one", "label": "Q", "choices": [name, "b"]}])


def test_json_document(survey_results):
    document = export.estimates_json(survey_results, "2026-11-22T10:00:00Z")
    assert set(document) == {
        "survey_id",
        "title",
        "version",
        "response_count",
        "population_size",
        "excluded",
        "set_aside",
        "epsilon_per_respondent",
        "epsilon_per_respondent_answered",
        "confidence_level",
        "method",
        "exported_at",
        "rows",
    }
    assert (document["survey_id"], document["title"], document["version"]) == ("quiz", "Test quiz", 1)
    epsilon = survey_results.survey.epsilon
    assert document["epsilon_per_respondent"] == {
        "basic": epsilon.basic,
        "advanced": epsilon.advanced,
        "delta": epsilon.delta,
        "best": epsilon.basic,
        "best_bound": "basic",  # ln 3 + 2 ln 5 = 4.32 < advanced 28.4
    }
    answered = survey_results.answered_epsilon
    assert document["epsilon_per_respondent_answered"]["best"] == answered.best
    assert document["rows"] == export.estimate_rows(survey_results)
    json.dumps(document, allow_nan=False)


def test_json_has_no_infinity():
    mapping = yaml.safe_load(SURVEY_YAML)
    mapping["questions"][0]["design"] = {"t": "1/2", "a": "1/2", "b": 0}  # b = 0: no privacy at all
    survey = parse_survey(mapping, "quiz.yaml")
    document = export.estimates_json(results.compute_results(survey, {}, 0), "now")
    assert document["epsilon_per_respondent"]["basic"] is None
    assert document["rows"][0]["epsilon"] is None
    json.dumps(document, allow_nan=False)


# --------------------------------------------------------------------------
# The noisy answers.


@pytest.fixture
def db(fresh_db):
    return fresh_db


def test_responses_csv_header_rows_and_values(db, survey):
    answers = [
        {"cheated": "yes", "ai_use": "never", "dept": "arts"},
        {"cheated": "no", "lied": "yes", "ai_use": "often", "dept": "law"},
        {"cheated": "no", "ai_use": "once"},
    ]
    for index, noisy in enumerate(answers):
        responses.store_response(db, noisy_response(survey, noisy, "server"), f"key-{index:04d}", "2026-11-21")
    text = "".join(answer_package.responses_csv(db, survey))
    header, *rows = list(csv.reader(io.StringIO(text)))
    assert header == [
        "response_id",
        "survey_version",
        "design_id",
        "randomized_on",
        "arm",
        "day",
        "cheated",
        "lied",
        "ai_use",
        "dept",
    ]
    stored = {row[0]: json.loads(row[1]) for row in db.execute("SELECT id, answers FROM responses").fetchall()}
    assert len(rows) == 3
    assert [row[0] for row in rows] == sorted(stored)  # ordered by the random id
    for row in rows:
        assert row[1:6] == ["1", survey.design_fingerprint(), "server", "", "2026-11-21"]
        assert row[6:] == [stored[row[0]].get(name, "") for name in ("cheated", "lied", "ai_use", "dept")]


def test_responses_csv_of_another_survey_is_only_the_header(db, survey):
    responses.store_response(db, noisy_response(survey, {"cheated": "yes"}, "device"), "key-0001", "2026-11-21")
    other = make_survey(id="other")
    assert list(answer_package.responses_csv(db, other)) == [",".join(export.responses_header(other)) + "\r\n"]


@pytest.mark.slow
def test_responses_csv_streams_in_constant_memory(db, survey):
    count = 100_000
    fingerprint = survey.design_fingerprint()
    db.execute(
        "INSERT INTO designs (id, survey_id, survey_version, questions) VALUES (?, ?, ?, ?)",
        [fingerprint, "quiz", 1, design_record(survey)],
    )
    variants = [
        json.dumps({"cheated": c, "lied": "no", "ai_use": a, "dept": d})
        for c in ("yes", "no")
        for a in ("never", "sometimes")
        for d in ("arts", "science", "law")
    ]
    with connection.immediate_transaction(db):
        connection.executemany(
            db,
            "INSERT INTO responses (id, survey_id, survey_version, design_id, randomized_on, day, answers)"
            " VALUES (?, 'quiz', 1, ?, 'device', '2026-11-21', ?)",
            # Random ids, inserted in key order (faster), as the table keeps them anyway.
            (
                (row_id, fingerprint, variants[i % len(variants)])
                for i, row_id in enumerate(sorted(secrets.token_hex(16) for _ in range(count)))
            ),
        )
    tracemalloc.start()
    try:
        size = lines = chunks = 0
        for chunk in answer_package.responses_csv(db, survey):
            size += len(chunk)
            lines += chunk.count("\n")
            chunks += 1
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert lines == count + 1
    assert size > 9_000_000  # about 95 bytes a row
    # One batch of rows and its text at a time: about 1.2 MB, against 9 MB of CSV.
    assert peak < 3_000_000, f"peak {peak} bytes while streaming {size} bytes"
    assert chunks == count // export.CSV_BATCH_ROWS + 1  # chunks of many rows, and the header alone


# --------------------------------------------------------------------------
# Codebook.


def test_codebook_describes_every_column_and_every_stored_design(db, survey):
    responses.store_response(db, noisy_response(survey, {"cheated": "yes"}, "device"), "key-0001", "2026-11-20")
    mapping = yaml.safe_load(SURVEY_YAML)
    mapping["version"] = 2
    mapping["questions"][0]["design"] = {"t": "2/3", "a": "1/6", "b": "1/6"}
    survey2 = parse_survey(mapping, "quiz.yaml")
    responses.store_response(db, noisy_response(survey2, {"cheated": "no"}, "device"), "key-0002", "2026-11-21")

    book = answer_package.codebook(db, survey2)
    assert (book["survey_id"], book["title"], book["version"]) == ("quiz", "Test quiz", 2)
    assert book["current_design_id"] == survey2.design_fingerprint()
    assert [c["name"] for c in book["columns"]] == export.responses_header(survey2)
    cheated = book["columns"][6]
    assert cheated["label"] == "Have you ever cheated on an exam?"
    assert cheated["randomized"] is True and cheated["type"] == "yes_no"
    assert cheated["choices"] == [{"name": "yes", "label": "Yes"}, {"name": "no", "label": "No"}]
    assert cheated["design"] == {
        "kind": "forced_response",
        "label": "forced response (t=2/3, a=1/6, b=1/6)",
        "t": "2/3",
        "a": "1/6",
        "b": "1/6",
        "t_float": 2 / 3,
        "a_float": 1 / 6,
        "b_float": 1 / 6,
    }
    stored = {d["design_id"]: d for d in cheated["stored_designs"]}
    assert set(stored) == {survey.design_fingerprint(), survey2.design_fingerprint()}
    old = stored[survey.design_fingerprint()]
    assert (old["survey_version"], old["current"]) == (1, False)
    assert (old["design"]["t"], old["design"]["a_float"]) == ("1/2", 0.25)
    assert stored[survey2.design_fingerprint()]["current"] is True
    json.dumps(book, allow_nan=False)


def test_codebook_notes_give_the_estimator_and_the_rreg_call(db, survey):
    book = answer_package.codebook(db, survey)
    notes = {c["name"]: c.get("how_to_analyse") for c in book["columns"]}
    # lied: t = 7/10, a = 1/5 (forced yes), b = 1/10 (forced no). RRreg's FR
    # model takes p = (P(forced to category 0 = no), P(forced to category 1 = yes)).
    assert 'model = "FR", p = c(0.1, 0.2)' in notes["lied"]
    assert "pi_hat = (mean(y) - a) / t = (mean(y) - 0.2) / 0.7" in notes["lied"]
    assert "p = c(0.125, 0.125, 0.125, 0.125)" in notes["ai_use"]
    assert notes["dept"].startswith("Not randomized")
    ai_use = book["columns"][8]
    assert ai_use["design"]["k"] == 4 and ai_use["design"]["forced_share"] == "1/8"
    assert ai_use["stored_designs"] == []  # nothing stored yet
    assert notes["response_id"] is None


def test_responses_csv_mixes_ready_lines_with_older_rows(db, survey):
    """Current-design rows come as SQLite-built lines; rows of an older design (other
    columns) and rows stored before answer lines existed come through csv; every row
    appears once, with the same values either way."""
    older = make_survey(
        version=2,
        questions=[
            {"name": "cheated", "type": "yes_no", "label": "Cheated?"},
            {
                "name": "ai_use",
                "type": "select_one",
                "label": "AI?",
                "choices": ["never", "once", "sometimes", "often"],
            },
        ],
    )
    responses.store_response(
        db,
        noisy_response(survey, {"cheated": "yes", "ai_use": "once", "dept": "law"}, "device"),
        "key-current-1",
        "2026-11-21",
    )
    responses.store_response(
        db, noisy_response(older, {"cheated": "no", "ai_use": "often"}, "server"), "key-older-01", "2026-11-20"
    )
    responses.store_response(
        db, noisy_response(survey, {"cheated": "no", "ai_use": "never"}, "device"), "key-current-2", "2026-11-21"
    )
    db.execute("UPDATE responses SET answer_line = NULL WHERE answers LIKE '%never%'")  # as before m003
    text = "".join(answer_package.responses_csv(db, survey))
    header, *rows = list(csv.reader(io.StringIO(text)))
    assert len(rows) == 3 and len({row[0] for row in rows}) == 3
    stored = {row[0]: json.loads(row[1]) for row in db.execute("SELECT id, answers FROM responses")}
    for row in rows:
        assert row[6:] == [stored[row[0]].get(name, "") for name in header[6:]]
    assert sorted(row[1] for row in rows) == ["1", "1", "2"]


def test_answer_line_is_refused_for_values_that_need_quoting():
    response = submission.NoisyResponse("s", 1, "d", "{}", {"q": 'a,"b'}, {"q": "k"}, "device", ("q",))
    assert response.answer_line() is None
    assert (
        submission.NoisyResponse("s", 1, "d", "{}", {"q": "x"}, {"q": "k"}, "device", ("q", "r")).answer_line() == "x,"
    )


# --------------------------------------------------------------------------
# The codebook of the one-parameter yes/no designs: RRreg's model and p reproduce the estimate.

BINARY_DESIGN_MODELS = {
    "warner": {"model": "warner", "p": "3/4"},
    "unrelated": {"model": "unrelated_question", "p": "2/3", "q": "1/4"},
    "kuk": {"model": "kuk", "k1": "7/10", "k2": "3/10"},
    "mangat": {"model": "mangat", "p": "3/4"},
    "crosswise": {"model": "crosswise", "q": "1/4", "innocuous": "Born in January-March."},
    "triangular": {"model": "triangular", "q": "1/4", "innocuous": "Born in January-March."},
}


def _rrreg_estimate(model: str, p: tuple[float, ...], lam: float, n: int) -> tuple[float, float]:
    """RRreg's RRuni moment estimate and standard error (R/RRuni_models.R, divided by n - 1), written from its
    documented formulas so that the codebook's model and p are checked against them, not against ours."""
    slope, intercept = {
        "Warner": lambda: (2 * p[0] - 1, 1 - p[0]),
        "Crosswise": lambda: (2 * p[0] - 1, 1 - p[0]),
        "UQTknown": lambda: (p[0], (1 - p[0]) * p[1]),
        "Kuk": lambda: (p[0] - p[1], p[1]),
        "Mangat": lambda: (p[0], 1 - p[0]),
        "Triangular": lambda: (1 - p[0], p[0]),
    }[model]()
    return (lam - intercept) / slope, math.sqrt(lam * (1 - lam) / ((n - 1) * slope**2))


@pytest.mark.parametrize("name", sorted(BINARY_DESIGN_MODELS))
def test_codebook_gives_rrregs_model_and_p_that_reproduce_the_estimate(name):
    survey = parse_survey(
        {
            "id": "b",
            "title": "B",
            "version": 1,
            "questions": [{"name": "q1", "type": "yes_no", "label": "Q", "design": BINARY_DESIGN_MODELS[name]}],
        },
        "b.yaml",
    )
    (column,) = [c for c in export.codebook(survey, [], [])["columns"] if c["name"] == "q1"]
    design = survey.question("q1").design
    model, p = column["design"]["rrreg_model"], column["design"]["rrreg_p"]
    assert f'model = "{model}", p = {p})' in column["how_to_analyse"]
    assert column.get("innocuous", "") == survey.question("q1").innocuous
    n, stored_yes = 1000, 500
    ours = analysis.estimate_proportion(design.trait_count(stored_yes, n), n, *design.exact())
    p_values = tuple(float(v) for v in p.removeprefix("c(").removesuffix(")").split(", "))
    pi, se = _rrreg_estimate(model, p_values, stored_yes / n, n)
    assert ours.estimate_raw == pytest.approx(pi, rel=1e-9)
    assert ours.std_err_population * math.sqrt(n / (n - 1)) == pytest.approx(se, rel=1e-9)


# --------------------------------------------------------------------------
# Two-group designs in the estimates and the codebook.


def test_two_group_row_carries_the_groups_and_the_second_parameter():
    survey = make_any_survey(TWO_GROUP_YAML)
    tallies = two_group_tallies(survey, {"evaded": {"1": (60, 40), "2": (40, 60)}})
    computed = results.compute_results(survey, tallies, 200)
    row = next(r for r in export.estimate_rows(computed) if r["question"] == "evaded")
    second = computed.question("evaded").two_group
    assert (row["group_n"], row["group_yes"], row["second_parameter"]) == ("100;100", "60;40", "t")
    assert (row["second_estimate"], row["second_ci_low"], row["second_ci_high"]) == (
        second.value,
        second.ci.low,
        second.ci.high,
    )
    assert row["t"] is None and row["ci_method"] == "profile likelihood"
    assert export.estimates_json(computed, "now")["rows"][0]["epsilon"] is None  # unbounded: null in JSON


def test_codebook_gives_rrreg_model_p_and_the_arm_column():
    survey = make_any_survey(TWO_GROUP_YAML)
    book = export.codebook(survey, [], [])
    arm = next(c for c in book["columns"] if c["name"] == "arm")
    assert "direct" in arm["label"] and "group = 1 or 2" in arm["label"]
    columns = {c["name"]: c for c in book["columns"]}
    sld, cdm = columns["evaded"]["design"], columns["doped"]["design"]
    assert (sld["rrreg_model"], sld["rrreg_p"]) == ("SLD", "c(0.3333333333, 0.6666666667)")
    assert (cdm["rrreg_model"], cdm["rrreg_p"]) == ("CDM", "c(0.25, 0.6)")
    assert sld["groups"] == {"1": {"theta1": "1", "theta0": "2/3"}, "2": {"theta1": "1", "theta0": "1/3"}}
    assert 'model = "SLD", p = c(0.3333333333, 0.6666666667), group = d$arm' in columns["evaded"]["how_to_analyse"]


def test_estimates_carry_the_control_arm_comparison():
    survey = make_any_survey(TWO_GROUP_YAML)
    tallies = two_group_tallies(survey, {"evaded": {"1": (60, 40), "2": (40, 60), "direct": (3, 17)}})
    computed = results.compute_results(survey, tallies, 220)
    row = next(r for r in export.estimate_rows(computed) if r["question"] == "evaded")
    control = computed.question("evaded").control
    assert (row["direct_n"], row["direct_yes"], row["direct_estimate"]) == (20, 3, 0.15)
    assert (row["difference"], row["difference_ci_low"], row["difference_ci_high"]) == (
        control.difference,
        control.ci.low,
        control.ci.high,
    )
    assert next(r for r in export.estimate_rows(computed) if r["question"] == "doped")["direct_n"] is None


def test_codebook_and_estimates_of_a_misclassification_matrix():
    text = DEPT_SURVEY_YAML.replace(
        "    design: {t: 1/2}\n",
        "    design: {matrix: [[1/2, 1/6, 1/6, 1/6], [1/6, 1/2, 1/6, 1/6],"
        " [1/6, 1/6, 1/2, 1/6], [1/6, 1/6, 1/6, 1/2]]}\n",
    )
    survey = make_any_survey(text)
    column = next(c for c in export.codebook(survey, [], [])["columns"] if c["name"] == "ai_use")
    assert column["design"]["matrix"][0] == ["1/2", "1/6", "1/6", "1/6"] and column["design"]["rrreg_model"] == "custom"
    assert 'model = "custom", p = matrix(c(0.5, 0.1666666667' in column["how_to_analyse"]
    key = question_design_key(survey.question("ai_use"))
    computed = results.compute_results(
        survey, {"ai_use": {key: {"never": 5, "once": 3, "sometimes": 1, "often": 1}}}, 10
    )
    rows = [r for r in export.estimate_rows(computed) if r["question"] == "ai_use"]
    assert [r["k"] for r in rows] == [4] * 4 and rows[0]["estimate_raw"] == pytest.approx((0.5 - 1 / 6) / (1 / 3))


# --------------------------------------------------------------------------
# A finite population of known size; pooled two-group versions.

#: RRTCS's printed figures for "copied" (tests/test_finite_population.py): estimate, variance, lower, upper bound.
RRTCS_COPIED = (0.8406103, 0.001389716, 0.767545, 0.9136756)


def _printed(value: float) -> float:
    """Half a unit in the last of the seven significant digits R prints by default."""
    return 0.5 * 10 ** (math.floor(math.log10(abs(value))) - 6)


def test_rows_carry_the_finite_population_figures_and_the_setting():
    survey = make_any_survey(RRTCS_SURVEY_YAML)
    tallies = {"copied": {key(survey, "copied"): {"yes": 328, "no": 382}}}
    computed = results.compute_results(survey, tallies, 710)
    (row,) = export.estimate_rows(computed)
    figures = computed.question("copied").finite_population
    assert (row["population_size"], row["std_err_finite_population"]) == (10_777, figures.std_err)
    assert (row["finite_population_low"], row["finite_population_high"]) == (figures.low, figures.high)
    assert row["std_err"] != row["std_err_finite_population"] and row["version_of_pooled"] is None
    document = export.estimates_json(computed, "now")
    assert document["population_size"] == 10_777 and document["rows"] == [row]


def test_the_codebook_names_population_size():
    book = export.codebook(make_any_survey(RRTCS_SURVEY_YAML), [], [])
    assert book["population_size"]["value"] == 10_777
    assert "population_size" in book["population_size"]["note"]
    assert "std_err_finite_population" in book["population_size"]["note"]
    assert export.codebook(make_survey(), [], [])["population_size"]["value"] is None


def test_the_rrtcs_real_survey_on_the_results_page_and_in_the_exports(app, auth, surveys_dir):
    """The design of RRTCS's real survey in a survey file, 328 stored yes of 710 through the storage path: the
    results page and estimates.json give RRTCS's printed estimate and variance (SE its square root) to their
    printed digits, and the CSV the same figures."""
    (surveys_dir / "rrtcs.yaml").write_text(RRTCS_SURVEY_YAML)
    survey = load_catalog(surveys_dir).get("rrtcs")
    db = open_database(app)
    for index in range(710):
        answers = {"copied": "yes" if index < 328 else "no", "year": "first"}
        responses.store_response(db, noisy_response(survey, answers, "device"), f"key-{index:06d}", "2026-11-22")
    db.close()
    auth.login()
    html = auth.client.get("/admin/surveys/rrtcs").get_data(as_text=True)
    estimate, variance, low, high = RRTCS_COPIED
    assert "Raw estimate 0.8406103, variance 0.001389716" in html
    assert f"the standard error of the raw estimate is {math.sqrt(variance) * 100:.2f}% instead of" in html
    assert f"(standard error {math.sqrt(variance):.7g})" in html
    assert "simple random sample without replacement of the 10,777 people" in html
    row = auth.client.get("/admin/surveys/rrtcs/estimates.json").get_json()["rows"][0]
    assert row["population_size"] == 10_777 and row["n"] == 710
    assert row["estimate_raw"] == pytest.approx(estimate, abs=_printed(estimate))
    assert row["std_err_finite_population"] ** 2 == pytest.approx(variance, abs=_printed(variance))
    assert row["finite_population_low"] == pytest.approx(low, abs=_printed(low))
    assert row["finite_population_high"] == pytest.approx(high, abs=_printed(high))
    text = auth.client.get("/admin/surveys/rrtcs/estimates.csv").get_data(as_text=True)
    (csv_row,) = csv.DictReader(io.StringIO(text))
    assert (csv_row["population_size"], float(csv_row["std_err_finite_population"])) == (
        "10777",
        pytest.approx(row["std_err_finite_population"]),
    )


OLD_SLD = analysis.StochasticLieDetectorDesign("1/4", "3/4")


def test_a_pooled_two_group_question_is_followed_by_one_row_per_version():
    """Current SLD (1/3, 2/3) with 60/100 and 40/100 yes, older SLD (1/4, 3/4) with 70/200 and 50/200: the pooled
    row, then each version's own groups, prevalence and honesty (tests/test_results.py pools them)."""
    survey = make_any_survey(TWO_GROUP_YAML)
    tallies = two_group_tallies(survey, {"evaded": {"1": (60, 40), "2": (40, 60)}})
    old = dataclasses.replace(survey.question("evaded"), design=OLD_SLD)
    tallies["evaded"] |= {question_design_key(old, "1"): {"yes": 70, "no": 130}}
    tallies["evaded"] |= {question_design_key(old, "2"): {"yes": 50, "no": 150}}
    computed = results.compute_results(survey, tallies, 600)
    result = computed.question("evaded")
    rows = [row for row in export.estimate_rows(computed) if row["question"] == "evaded"]
    assert [row["version_of_pooled"] for row in rows] == [None, 1, 2]
    assert rows[0]["design"] == "pooled over 2 designs" and rows[0]["estimate_raw"] == result.estimate_raw
    for row, version in zip(rows[1:], result.two_group_versions):
        fit = version.estimate
        assert row["design"] == fit.design.label()
        assert (row["group_n"], row["group_yes"]) == (f"{fit.n[0]};{fit.n[1]}", f"{fit.yes[0]};{fit.yes[1]}")
        assert (row["n"], row["yes_count"]) == (sum(fit.n), sum(fit.yes))
        assert (row["estimate_raw"], row["estimate_clipped"], row["std_err"]) == (fit.pi_moment, fit.pi, fit.pi_std_err)
        ci = fit.confidence_interval("pi", 0.95)
        assert (row["ci_low"], row["ci_high"], row["ci_method"]) == (ci.low, ci.high, "profile likelihood")
        assert (row["second_parameter"], row["second_estimate"]) == ("t", version.value)
        assert row["direct_n"] is None and row["sequence_low"] is None
    assert [rows[1]["group_n"], rows[2]["group_n"]] == ["100;100", "200;200"]
    assert_allclose([rows[1]["estimate_raw"], rows[2]["estimate_raw"]], [0.4, 0.8], rtol=1e-12)
    text = export.estimates_csv(computed)
    assert [r["version_of_pooled"] for r in csv.DictReader(io.StringIO(text)) if r["question"] == "evaded"] == [
        "",
        "1",
        "2",
    ]


def test_a_two_group_question_under_one_version_has_no_version_rows():
    survey = make_any_survey(TWO_GROUP_YAML)
    tallies = two_group_tallies(survey, {"evaded": {"1": (60, 40), "2": (40, 60)}})
    rows = export.estimate_rows(results.compute_results(survey, tallies, 200))
    assert [row["version_of_pooled"] for row in rows if row["question"] == "evaded"] == [None]


def test_a_select_one_pooled_over_two_matrices_is_followed_by_one_row_per_version_and_option():
    """The current matrix (the k-option t = 1/2, k = 4) and an older k-option t = 3/4, both with counts
    (40, 30, 20, 10): the four pooled option rows, then each version's own four (4/3 (lambda - 1/16) for the
    older: 0.45 for "never"; tests/test_results.py pools them to 25/52)."""
    survey = make_any_survey(DEPT_SURVEY_YAML.replace(K_OPTION_DESIGN_LINE, K_OPTION_AS_MATRIX))
    question = survey.question("ai_use")
    old = dataclasses.replace(question, design=analysis.MultipleChoiceDesign(4, "3/4"))
    counts = {"never": 40, "once": 30, "sometimes": 20, "often": 10}
    tallies = {"ai_use": {question_design_key(question): counts, question_design_key(old): counts}}
    computed = results.compute_results(survey, tallies, 200)
    result = computed.question("ai_use")
    rows = [row for row in export.estimate_rows(computed) if row["question"] == "ai_use"]
    assert [row["version_of_pooled"] for row in rows] == [None] * 4 + [1] * 4 + [2] * 4
    assert [row["option"] for row in rows] == ["never", "once", "sometimes", "often"] * 3
    assert rows[0]["design"] == "pooled over 2 designs" and rows[0]["estimate_raw"] == result.options[0].estimate_raw
    for version_rows, version in zip((rows[4:8], rows[8:]), result.matrix_versions):
        intervals = version.confidence_intervals(0.95)
        for j, row in enumerate(version_rows):
            assert (row["design"], row["n"], row["yes_count"]) == (version.design.label(), 100, version.counts[j])
            assert (row["estimate_raw"], row["std_err"]) == (version.estimate_raw[j], version.std_err[j])
            assert (row["ci_low"], row["ci_high"]) == (intervals[j].low, intervals[j].high)
    assert_allclose([rows[4]["estimate_raw"], rows[8]["estimate_raw"]], [0.55, 0.45], rtol=1e-12)
    text = export.estimates_csv(computed)
    assert [r["version_of_pooled"] for r in csv.DictReader(io.StringIO(text)) if r["question"] == "ai_use"] == (
        [""] * 4 + ["1"] * 4 + ["2"] * 4
    )


def test_exports_say_which_count_the_triple_and_the_observed_rate_refer_to():
    """Issue 23, case 10: a crosswise question (q = 1/4) gave t = 0.5, a = 0.25, b = 0.25 beside an observed rate
    of 0.625 and an estimate of 0.25, though (0.625 - 0.25) / 0.5 = 0.75: the triple refers to the count of
    stored "no" answers, which the file did not say. Now counted_answer says "no" and counted_rate = 0.375."""
    text = (
        "id: cw\ntitle: Crosswise\nversion: 1\nquestions:\n  - name: cannabis\n    type: yes_no\n"
        "    label: Cannabis\n    design:\n      model: crosswise\n      q: 1/4\n      innocuous: Birthday\n"
    )
    survey = make_any_survey(text)
    question = survey.question("cannabis")
    tallies = {"cannabis": {question_design_key(question): {"yes": 50, "no": 30}}}
    row = export.estimate_rows(results.compute_results(survey, tallies, 80))[0]
    assert (row["t"], row["a"], row["b"]) == (0.5, 0.25, 0.25)
    assert (row["observed_answer"], row["observed_rate"]) == ("yes", 0.625)
    assert (row["counted_answer"], row["counted_rate"]) == ("no", 0.375)
    assert row["estimate_raw"] == pytest.approx((row["counted_rate"] - row["a"]) / row["t"]) == pytest.approx(0.25)


def test_estimates_json_never_has_a_two_sided_interval_of_width_zero(survey):
    """Issue 23, case 2: estimates.json had ci_low = ci_high = 0 beside its one_sided_bound (38 of 200 under two
    coins: 0 and 2.5e-5). Now the bound is the interval, marked ci_side = upper."""
    tallies = {"cheated": {key(survey, "cheated"): {"yes": 38, "no": 162}}}
    rows = export.estimates_json(results.compute_results(survey, tallies, 200), "2026-11-26T00:00:00Z")["rows"]
    row = rows[0]
    assert (row["ci_low"], row["ci_high"], row["ci_side"]) == (0.0, row["one_sided_bound"], "upper")
    assert row["ci_high"] > 0.05 and row["sequence_side"] == "upper"
    for row in rows:
        if row["ci_low"] is not None:
            assert row["ci_high"] - row["ci_low"] > 0


def test_two_surveys_with_the_same_questions_each_export_their_own_responses(db, survey):
    """A survey copied under a new id (the editor makes that easy) keeps design records of its own: before, both
    shared one ``designs`` row stored under the first survey, and the copy's responses were missing from its
    export and its codebook."""
    copy = make_survey(id="copy")
    responses.store_response(db, noisy_response(survey, {"cheated": "yes"}, "server"), "key-0001", "2026-11-21")
    for index, answer in enumerate(("yes", "no")):
        responses.store_response(
            db, noisy_response(copy, {"cheated": answer}, "server"), f"key-1{index:03d}", "2026-11-21"
        )
    rows = list(csv.reader(io.StringIO("".join(answer_package.responses_csv(db, copy)))))[1:]
    assert sorted(row[6] for row in rows) == ["no", "yes"]
    assert survey.design_fingerprint() != copy.design_fingerprint()
    assert [row[2] for row in rows] == [copy.design_fingerprint()] * 2
