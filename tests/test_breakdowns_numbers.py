"""Break-downs of numbers and check-all-that-apply questions, and break-downs by a plain number's bins.

Answers go through the server's path (:func:`surveys.submission.randomize_on_server`, then stored as a submission
stores them); each group's figures expected are the kind's own ``compute`` on that group's stored answers, as the
responses CSV gives them (tallied by the kind's kept rows), and a difference of means is
:func:`analysis.numeric.numeric_difference`'s on the two groups' sums: nothing is hard-coded.
"""

from __future__ import annotations

import csv
import html as html_module
import io
import re

import pytest

from analysis.numeric import numeric_difference, numeric_sequence
from storage import day_exclusions, queries
from surveys import wording
from surveys.design_contract import question_design_key
from surveys.kinds import kind_of
from surveys.submission import randomize_on_server
from tests.helpers import answer_csv
from tests.helpers.records import add_responses
from web import gather
from web.catalog import get_catalog
from web.db import open_database

pytestmark = pytest.mark.sqlite_only(
    reason="the page and exports read kept group tallies through the storage layer, whose two backends "
    "tests/test_storage.py covers; these check what is shown and exported of them"
)

SURVEY_YAML = """\
id: nums
title: Numbers by group
version: 1
questions:
  - name: dept
    type: select_one
    label: Department
    randomize: false
    choices:
      - {name: arts, label: Arts}
      - {name: law, label: Law}
  - name: age
    type: integer
    label: Age
    randomize: false
    min: 16
    max: 99
    bins: [20, 30]
  - name: drinks
    type: integer
    label: How many times?
    min: 0
    max: 30
    epsilon: 1
    mechanism: bounded
  - name: hours
    type: decimal
    label: Hours?
    min: 0
    max: 20
    step: 0.5
    mechanism: laplace
    epsilon: 3
    bins: [2, 5.5]
  - name: done
    type: select_multiple
    label: Which?
    choices: [a, b, c]
    epsilon: 2
"""
PAGE = "/admin/surveys/nums"
COUNT = 80


@pytest.fixture
def nums_app(app, surveys_dir):
    (surveys_dir / "nums.yaml").write_text(SURVEY_YAML)
    return app


def survey_of(app):
    with app.app_context():
        return get_catalog().get("nums")


def truth(i: int) -> dict[str, str]:
    """Respondent ``i``'s true answers: a department, an age spread over its bins (grid positions from 16), law
    students drinking and working more than arts students."""
    law = i % 2 == 1
    return {
        "dept": "law" if law else "arts",
        "age": f"{(i * 7) % 40:02d}",
        "drinks": str(20 + i % 11 if law else i % 6),
        "hours": str(20 + (3 * i) % 21 if law else (3 * i) % 11),
        "done": format((i % 8) | (4 if law else 0), "03b"),
    }


def store(app, count: int = COUNT):
    survey = survey_of(app)
    add_responses(app, [randomize_on_server(survey, truth(i)) for i in range(count)], "server", survey_id="nums")
    return survey


def stored_rows(client) -> list[dict]:
    """The stored answers, read back from the responses CSV by the codebook (tests/helpers/answer_csv.py)."""
    return answer_csv.stored_rows(client, PAGE)


def group_result(survey, name: str, rows: list[dict]):
    """The kind's result computed from ``rows``' stored answers (:func:`stored_rows`), tallied by the kind's kept
    rows."""
    question = survey.question(name)
    counts: dict[str, int] = {}
    for row in rows:
        if row[name] == "":
            continue
        for answer, add in kind_of(question).kept_rows(question, row[name]):
            counts[answer] = counts.get(answer, 0) + add
    return kind_of(question).compute(question, {question_design_key(question): counts}, 0.95, "wilson")


def table(page: str, table_id: str) -> str:
    match = re.search(rf'<table[^>]*id="{table_id}".*?</table>', page, re.S)
    assert match, table_id
    return match.group(0)


def body_rows(fragment: str) -> list[list[str]]:
    """A table's body rows as text cells (tags stripped, line breaks kept as " | ")."""
    rows = re.findall(r"<tr>(.*?)</tr>", fragment.split("<tbody>")[1], re.S)
    return [
        [
            html_module.unescape(re.sub(r"<[^>]+>", "", c.replace("<br>", " | "))).strip()
            for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", r, re.S)
        ]
        for r in rows
    ]


# --------------------------------------------------------------------------
# Break-downs of numbers and check-all-that-apply questions by a plain one-choice question.


def test_each_group_of_a_plain_question_gets_each_numbers_and_check_all_figures_of_its_own_answers(nums_app, auth):
    survey = store(nums_app)
    auth.login()
    rows = stored_rows(auth.client)
    page = auth.client.get(f"{PAGE}?by=dept").get_data(as_text=True)
    for name in ("drinks", "hours"):
        shown = body_rows(table(page, f"breakdown-number-{name}"))
        decimals = survey.question(name).number.decimals
        assert [row[0] for row in shown] == ["Arts", "Law"]
        for row, dept in zip(shown, ("arts", "law")):
            result = group_result(survey, name, [r for r in rows if r["dept"] == dept])
            assert result.n == COUNT // 2 and result.mean is not None
            assert row[1] == str(result.n)
            assert row[2].split(" | ")[0] == wording.number_text(result.mean, decimals)
            assert row[3] == wording.number_text(result.std_err, decimals)
            assert row[4] == wording.number_interval_text(result.ci_low, result.ci_high, result.ci_side, decimals)
            assert row[5] == wording.number_interval_text(
                result.sequence.low, result.sequence.high, result.sequence.side, decimals
            )
    shown = body_rows(table(page, "breakdown-check-all-done"))
    for row, dept in zip(shown, ("arts", "law")):
        result = group_result(survey, "done", [r for r in rows if r["dept"] == dept])
        assert row[1] == str(result.n)
        assert [cell.split(" | ")[0] for cell in row[2:5]] == [
            wording.table_percent(o.estimate) for o in result.options
        ]
        assert row[5].split(" | ")[0] == wording.number_text(result.ticked_mean, 0)


def test_the_breakdown_exports_have_each_groups_rows_of_numbers_and_check_all(nums_app, auth):
    survey = store(nums_app)
    auth.login()
    rows = stored_rows(auth.client)
    exported = auth.client.get(f"{PAGE}/breakdown.json?by=dept").get_json()["rows"]
    for dept in ("arts", "law"):
        mine = [r for r in rows if r["dept"] == dept]
        for name in ("drinks", "hours", "done"):
            result = group_result(survey, name, mine)
            expected = kind_of(result.question).breakdown_rows(result, 0.95)
            got = [r for r in exported if r["group"] == dept and r["question"] == name]
            assert expected and len(got) == len(expected)
            for row, want in zip(got, expected):
                assert (row["statistic"], row["option"], row["n"]) == (want["statistic"], want["option"], want["n"])
                assert row["estimate_clipped"] == pytest.approx(want["estimate_clipped"])
                assert (row["ci_low"], row["ci_high"]) == pytest.approx((want["ci_low"], want["ci_high"]))
    header = next(csv.reader(io.StringIO(auth.client.get(f"{PAGE}/breakdown.csv?by=dept").get_data(as_text=True))))
    assert header[-2:] == ["statistic", "mechanism"]


# --------------------------------------------------------------------------
# The difference of means between two groups.


def group_sums(rows: list[dict], name: str, dept: str) -> tuple[int, int, int]:
    """``(n, sum, sum of squares)`` of one department's stored outputs (grid steps) of ``name``."""
    outputs = [int(r[name]) for r in rows if r["dept"] == dept]
    return len(outputs), sum(outputs), sum(y * y for y in outputs)


def test_the_difference_of_two_groups_means_is_numeric_differences_in_the_questions_units(nums_app, auth):
    survey = store(nums_app)
    auth.login()
    rows = stored_rows(auth.client)
    page = auth.client.get(f"{PAGE}?by=dept&first=law&second=arts").get_data(as_text=True)
    exported = auth.client.get(f"{PAGE}/breakdown.json?by=dept&first=law&second=arts").get_json()["differences"]
    assert [d["question"] for d in exported] == ["drinks", "hours"]  # the check-all question is not compared
    for name, row in zip(("drinks", "hours"), exported):
        question = survey.question(name)
        law, arts = group_sums(rows, name, "law"), group_sums(rows, name, "arts")
        fit = numeric_difference(question.design, law, arts, 0.95)
        # The sequence: each group's at 1 - alpha/2, subtracted.
        one, two = numeric_sequence(question.design, *law, 0.975), numeric_sequence(question.design, *arts, 0.975)
        step = float(question.number.step)
        assert (row["first"], row["second"]) == ("law", "arts")
        assert (row["difference"], row["std_err"], row["ci_low"], row["ci_high"]) == pytest.approx(
            (fit.estimate * step, fit.std_err * step, fit.low * step, fit.high * step)
        )
        assert row["ci_method"] == fit.method == ("normal" if name == "drinks" else "welch")
        assert (row["sequence_low"], row["sequence_high"]) == pytest.approx(
            ((one.low - two.high) * step, (one.high - two.low) * step)
        )
        assert (row["first_estimate"], row["second_estimate"]) == pytest.approx(
            (float(question.number.value_of(fit.first.mean)), float(question.number.value_of(fit.second.mean)))
        )
        decimals = question.number.decimals
        shown = body_rows(table_row(page, f"difference-{name}"))[0]
        assert shown[1] == "Law − Arts"
        assert shown[3] == wording.number_text(fit.estimate * step, decimals)
        assert shown[4] == wording.number_text(fit.std_err * step, decimals)
        interval = wording.number_interval_text(fit.low * step, fit.high * step, "two-sided", decimals)
        assert shown[5].split(" | ")[0] == interval
        assert shown[6] == wording.number_interval_text(
            row["sequence_low"], row["sequence_high"], "two-sided", decimals
        )
        if name == "hours":  # law students work 12.5 hours more: about 6 standard errors of the difference
            assert fit.estimate > 0


def table_row(page: str, row_id: str) -> str:
    """The ``<tr>`` of ``row_id``, wrapped as a table body for :func:`body_rows`."""
    match = re.search(rf'<tr id="{row_id}">(.*?)</tr>', page, re.S)
    assert match, row_id
    return f"<tbody><tr>{match.group(1)}</tr>"


def test_a_pair_of_groups_that_is_not_one_is_refused_by_the_breakdown_export(nums_app, auth):
    store(nums_app, 4)
    auth.login()
    response = auth.client.get(f"{PAGE}/breakdown.json?by=dept&first=law&second=nowhere")
    assert response.status_code == 400 and "There is no group" in response.get_data(as_text=True)


# --------------------------------------------------------------------------
# Break-downs by a plain number's bins.


def age_bin(survey, row: dict) -> str:
    """The bin key of a respondent's stored age (a grid position, as :func:`stored_rows` gives it)."""
    return survey.question("age").number.bin_key(int(row["age"]))


def test_the_group_tallies_of_a_plain_number_are_kept_by_its_bin_keys(nums_app):
    survey = store(nums_app)
    db = open_database(nums_app)
    try:
        kept = queries.group_tallies(db, "nums", "age")
        total = queries.tallies(db, "nums")
    finally:
        db.close()
    assert set(kept) == {"b00", "b01", "b02"}  # ages 16 to 55 over the bins [16, 20) [20, 30) [30, 99]
    key = question_design_key(survey.question("hours"))
    # Each bin's tallies add up to the survey's: every respondent is in exactly one bin.
    for answer, count in total["hours"][key].items():
        assert sum(kept[b]["hours"][key].get(answer, 0) for b in kept) == count
    ages = {
        b: sum(1 for i in range(COUNT) if survey.question("age").number.bin_key(int(truth(i)["age"])) == b)
        for b in kept
    }
    assert {
        b: sum(c for a, c in kept[b]["dept"][question_design_key(survey.question("dept"))].items()) for b in kept
    } == ages


def test_a_breakdown_by_a_plain_number_groups_the_answers_by_its_bins(nums_app, auth):
    survey = store(nums_app)
    auth.login()
    rows = stored_rows(auth.client)
    page = auth.client.get(PAGE).get_data(as_text=True)
    offered = re.search(r'<select name="by">(.*?)</select>', page, re.S).group(1)
    assert re.findall(r'<option value="(\w*)"', offered) == ["", "dept", "age"]
    page = auth.client.get(f"{PAGE}?by=age").get_data(as_text=True)
    labels = survey.question("age").number.bin_labels()
    assert labels == ("16 to under 20", "20 to under 30", "30 to 99")
    shown = body_rows(table(page, "breakdown-number-hours"))
    assert [row[0] for row in shown] == list(labels)
    decimals = survey.question("hours").number.decimals
    for row, key in zip(shown, ("b00", "b01", "b02")):
        result = group_result(survey, "hours", [r for r in rows if age_bin(survey, r) == key])
        assert row[1] == str(result.n) and result.n > 0
        assert row[2].split(" | ")[0] == wording.number_text(result.mean, decimals)
        assert row[4] == wording.number_interval_text(result.ci_low, result.ci_high, result.ci_side, decimals)
    exported = auth.client.get(f"{PAGE}/breakdown.json?by=age").get_json()
    assert exported["groups"] == [{"group": f"b0{i}", "label": label} for i, label in enumerate(labels)]
    means = {r["group"]: r for r in exported["rows"] if r["question"] == "hours" and r["statistic"] == "mean"}
    for key in ("b00", "b01", "b02"):
        result = group_result(survey, "hours", [r for r in rows if age_bin(survey, r) == key])
        assert (means[key]["n"], means[key]["estimate_clipped"]) == (result.n, pytest.approx(result.mean))
    # The first two bins' means compared, as between any two groups of a plain question.
    difference = exported["differences"][1]
    assert (difference["question"], difference["first"], difference["second"]) == ("hours", "b00", "b01")


def test_a_randomized_number_is_no_breakdown_group(nums_app, auth):
    auth.login()
    response = auth.client.get(f"{PAGE}/breakdown.json?by=hours")
    assert response.status_code == 400 and "not a non-randomized question" in response.get_data(as_text=True)


def test_an_excluded_days_answers_leave_every_group_of_a_breakdown_by_a_plain_number(nums_app):
    """The excluded day's group tallies are recounted from its responses: by the plain number's bin keys, and
    its numbers as their kept rows (bucket, sum, sum of squares), as they were kept."""
    survey = survey_of(nums_app)
    kept_answers = [randomize_on_server(survey, truth(i)) for i in range(COUNT)]
    add_responses(nums_app, kept_answers, "server", survey_id="nums")
    add_responses(nums_app, kept_answers[:30], "server", day="2026-11-23", survey_id="nums")
    db = open_database(nums_app)
    try:
        day_exclusions.exclude_day(db, "nums", "2026-11-23")
        breakdown = gather.stored_breakdown(db, survey, "age")
        whole = gather.stored_results(db, survey)
    finally:
        db.close()
    rows = [
        {name: answers.get(name, "") for name in ("dept", "age", "drinks", "hours", "done")} for answers in kept_answers
    ]
    for key in ("b00", "b01", "b02"):
        mine = [r for r in rows if age_bin(survey, r) == key]
        for name in ("drinks", "hours", "done"):
            assert breakdown.group(key).question(name) == group_result(survey, name, mine)
    for name in ("drinks", "hours", "done"):
        assert whole.question(name) == group_result(survey, name, rows)


def test_the_recount_of_group_tallies_keeps_numbers_and_plain_number_groups_as_the_write_path_does(nums_app):
    store(nums_app)
    db = open_database(nums_app)
    try:
        kept = {by: queries.group_tallies(db, "nums", by) for by in ("dept", "age")}
        queries.rebuild_group_tallies(db)
        assert {by: queries.group_tallies(db, "nums", by) for by in ("dept", "age")} == kept
        assert queries.tallies_on_days(db, "nums", ["2026-11-22"]) == queries.tallies(db, "nums")
    finally:
        db.close()
