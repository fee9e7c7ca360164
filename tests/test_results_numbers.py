"""The results page, estimates exports and noisy-answer package of numbers and check-all-that-apply questions.

Answers go through the server's path (:func:`surveys.submission.randomize_on_server`, then stored as a submission
stores them); the figures expected are the kinds' own (:mod:`surveys.kinds.number`, :mod:`surveys.kinds.multiple`)
computed from the stored answers as the responses CSV gives them, so the page, the kept tallies and the exports
are each checked against the answers actually stored.
"""

from __future__ import annotations

import csv
import html as html_module
import io
import json
import re
import tempfile
from fractions import Fraction
from pathlib import Path

import pyreadstat
import pytest

from surveys import wording
from surveys.design_contract import question_design_key
from surveys.kinds import kind_of
from surveys.submission import randomize_on_server
from tests.helpers import answer_csv
from tests.helpers.records import add_responses
from web.catalog import get_catalog
from web.charts import figures

pytestmark = pytest.mark.sqlite_only(
    reason="the page and exports read kept tallies through the storage layer, whose two backends "
    "tests/test_storage.py covers; these check what is shown of them"
)

NUMBERS_YAML = """\
id: nums
title: Numbers
version: 1
questions:
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
  - name: age
    type: integer
    label: Age
    randomize: false
    min: 16
    max: 99
  - name: done
    type: select_multiple
    label: Which?
    choices: [a, b, c]
    epsilon: 2
"""
PAGE = "/admin/surveys/nums"


@pytest.fixture
def numbers_app(app, surveys_dir):
    (surveys_dir / "nums.yaml").write_text(NUMBERS_YAML)
    return app


def survey_of(app):
    with app.app_context():
        return get_catalog().get("nums")


def store(app, count: int = 60):
    """``count`` respondents' true answers (grid positions, ticks) randomized on the server and stored."""
    survey = survey_of(app)
    truths = [
        {"drinks": str(i % 11), "hours": str((3 * i) % 41), "age": str(i % 50), "done": format(i % 8, "03b")}
        for i in range(count)
    ]
    add_responses(app, [randomize_on_server(survey, truth) for truth in truths], "server", survey_id="nums")
    return survey


def csv_rows(client) -> list[dict]:
    return answer_csv.csv_rows(client, PAGE)


def stored_rows(client) -> list[dict]:
    return answer_csv.stored_rows(client, PAGE)


def kind_result(survey, name: str, rows: list[dict]):
    """The kind's result computed from the stored answers of the responses CSV (tallied by the kind's kept rows)."""
    question = survey.question(name)
    counts: dict[str, int] = {}
    for row in rows:
        for answer, add in kind_of(question).kept_rows(question, row[name]):
            counts[answer] = counts.get(answer, 0) + add
    return kind_of(question).compute(question, {question_design_key(question): counts}, 0.95, "wilson")


def row_html(page: str, row_id: str) -> str:
    match = re.search(rf'<(tr|table)[^>]*id="{row_id}".*?</\1>', page, re.S)
    assert match, row_id
    return match.group(0)


def cell(fragment: str, css_class: str) -> str:
    match = re.search(rf'<td class="{css_class}">(.*?)(<br>|</td>)', fragment, re.S)
    assert match, css_class
    return html_module.unescape(match.group(1)).strip()


def body_rows(table: str) -> list[list[str]]:
    """A table's body rows as text cells (tags stripped)."""
    rows = re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1], re.S)
    return [
        [html_module.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", r)]
        for r in rows
    ]


def test_the_results_page_shows_each_number_as_its_kind_computes_it(numbers_app, auth):
    survey = store(numbers_app)
    auth.login()
    page = auth.client.get(PAGE).get_data(as_text=True)
    rows = stored_rows(auth.client)
    for name in ("drinks", "hours"):
        result = kind_result(survey, name, rows)
        shown, decimals = row_html(page, f"number-{name}"), survey.question(name).number.decimals
        assert result.n == 60 and result.mean is not None
        assert cell(shown, "mean") == wording.number_text(result.mean, decimals)
        assert cell(shown, "std-err") == wording.number_text(result.std_err, decimals)
        assert cell(shown, "interval") == wording.number_interval_text(
            result.ci_low, result.ci_high, result.ci_side, decimals
        )
        assert cell(shown, "sequence") == wording.number_interval_text(
            result.sequence.low, result.sequence.high, result.sequence.side, decimals
        )
        assert f"<td>{result.n}</td>" in shown and f"<td>{wording.epsilon_text(result.epsilon)}</td>" in shown
        bins = body_rows(row_html(page, f"distribution-{name}"))
        assert [b[0] for b in bins] == list(survey.question(name).number.bin_labels())
        assert [b[1] for b in bins] == [wording.table_percent(b.share) for b in result.bins]
    assert "Noise of the discrete Laplace mechanism was added to each answer" in page
    assert "One bit per answer was stored" in page
    # The one-bit design identifies the mean only: no shares, and the note says why.
    drinks = row_html(page, "distribution-drinks")
    assert "Not estimated: one bit per answer identifies the mean only." in drinks
    assert all(b[1] == "–" for b in body_rows(drinks))
    # A plain number: its mean and its counts per bin, as stored.
    age = kind_result(survey, "age", rows)
    plain = row_html(page, "number-age")
    assert f"mean {wording.number_text(age.mean, 0)}" in plain and "no privacy protection" in plain
    counts = [0] * len(age.bins)
    for row in rows:
        counts[survey.question("age").number.bin_of_index(int(row["age"]))] += 1
    assert [int(b[1]) for b in body_rows(plain)] == counts


def test_the_results_page_shows_each_check_all_option_as_its_kind_computes_it(numbers_app, auth):
    survey = store(numbers_app)
    auth.login()
    page = auth.client.get(PAGE).get_data(as_text=True)
    result = kind_result(survey, "done", stored_rows(auth.client))
    table = row_html(page, "check-all-done")
    shown = body_rows(table)
    for option, row in zip(result.options, shown):
        assert row[:7] == [
            option.choice.label,
            str(option.count),
            wording.table_percent(option.observed),
            wording.table_percent(option.estimate),
            wording.table_percent(option.estimate_raw),
            wording.table_percent(option.std_err),
            f"{wording.table_percent(option.ci.low)} – {wording.table_percent(option.ci.high)}"
            if option.ci.side == "two-sided"
            else row[6],
        ]
    ticked = re.search(r'<tr class="ticked">(.*?)</tr>', table, re.S).group(1)
    assert wording.number_text(result.ticked_mean, 0) in ticked
    assert wording.number_interval_text(result.ticked_low, result.ticked_high, "two-sided", 0) in ticked
    assert "1 with probability 0.6608 if ticked and 0.3392 if not" in html_module.unescape(table)
    # The chart draws each option's share and interval, as for a select_one's options.
    chart = page[page.index('class="chart"') : page.index("</svg>")]
    assert all(html_module.escape(figures(option), quote=False) in chart for option in result.options)
    assert "share of ones sent" in page.split("<figcaption>")[1].split("</figcaption>")[0]


def test_before_any_answer_the_sections_say_so_without_figures(numbers_app, auth):
    auth.login()
    page = auth.client.get(PAGE).get_data(as_text=True)
    assert "No answers yet." in row_html(page, "distribution-hours")
    assert cell(row_html(page, "number-hours"), "mean") == "–"
    assert '<h2 id="check-all">Tick all that apply</h2>' in page
    rows = auth.client.get(f"{PAGE}/estimates.json").get_json()["rows"]
    assert [(r["question"], r["statistic"], r["n"], r["estimate_clipped"]) for r in rows] == [
        ("drinks", "mean", 0, None),
        ("hours", "mean", 0, None),
        *(("done", "option_share", 0, None) for _ in "abc"),
        ("done", "ticked_count", 0, None),
    ]


def test_the_estimates_exports_have_a_row_per_figure_of_numbers_and_check_all(numbers_app, auth):
    survey = store(numbers_app)
    auth.login()
    rows = stored_rows(auth.client)
    exported = auth.client.get(f"{PAGE}/estimates.json").get_json()["rows"]
    by_question = {name: [r for r in exported if r["question"] == name] for name in ("drinks", "hours", "age", "done")}
    assert by_question["age"] == []  # plain: no estimate rows, as every plain question
    for name in ("drinks", "hours"):
        result = kind_result(survey, name, rows)
        mean, *bins = by_question[name]
        assert (mean["statistic"], mean["mechanism"], mean["n"]) == ("mean", result.mechanism, 60)
        assert mean["estimate_clipped"] == pytest.approx(result.mean)
        assert mean["estimate_raw"] == pytest.approx(result.mean_raw)
        assert (mean["std_err"], mean["ci_low"], mean["ci_high"]) == pytest.approx(
            (result.std_err, result.ci_low, result.ci_high)
        )
        assert (mean["sequence_low"], mean["sequence_high"]) == pytest.approx(
            (result.sequence.low, result.sequence.high)
        )
        assert mean["epsilon"] == pytest.approx(survey.question(name).design.epsilon)
        estimated = [b for b in result.bins if b.share is not None]
        assert [(b["statistic"], b["option"]) for b in bins] == [("bin_share", b.label) for b in estimated]
        assert [b["estimate_clipped"] for b in bins] == pytest.approx([b.share for b in estimated])
    assert len(by_question["drinks"]) == 1  # the one-bit design: the mean only
    ones = sum(int(row["drinks"]) for row in rows)
    assert (by_question["drinks"][0]["yes_count"], by_question["drinks"][0]["observed_rate"]) == (ones, ones / 60)
    result = kind_result(survey, "done", rows)
    *options, ticked = by_question["done"]
    assert [o["option"] for o in options] == ["a", "b", "c"] and ticked["statistic"] == "ticked_count"
    for row, option in zip(options, result.options):
        assert row["statistic"] == "option_share" and row["yes_count"] == option.count
        assert row["estimate_raw"] == pytest.approx(option.estimate_raw)
        assert row["estimate_raw"] == pytest.approx((row["counted_rate"] - row["a"]) / row["t"])
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((option.ci.low, option.ci.high))
    assert (ticked["estimate_clipped"], ticked["ci_low"], ticked["ci_high"]) == pytest.approx(
        (result.ticked_mean, result.ticked_low, result.ticked_high)
    )
    header = next(csv.reader(io.StringIO(auth.client.get(f"{PAGE}/estimates.csv").get_data(as_text=True))))
    assert header[-2:] == ["statistic", "mechanism"]


def test_the_codebook_recipe_for_each_mechanism_gives_the_kinds_estimate(numbers_app, auth):
    survey = store(numbers_app)
    auth.login()
    rows, exported = stored_rows(auth.client), csv_rows(auth.client)
    columns = {c["name"]: c for c in auth.client.get(f"{PAGE}/codebook.json").get_json()["columns"]}
    hours, drinks, done = columns["hours"], columns["drinks"], columns["done"]
    assert hours["grid"]["note"].startswith("Values are in the question's units, written exactly with 1 decimals")
    assert "0.0 + y * 0.5" in hours["grid"]["note"] and "may lie outside [0.0, 20.0]" in hours["grid"]["note"]
    assert "Discrete Laplace mechanism" in hours["how_to_analyse"] and "mean = mean(v)" in hours["how_to_analyse"]
    assert hours["design"]["scale"] == str(survey.question("hours").design.scale)
    assert "K ((high + low) ybar - low) / (high - low)" in drinks["how_to_analyse"]
    assert "(ybar_j - q) / (p - q)" in done["how_to_analyse"] and "done_1, done_2, done_3" in done["how_to_analyse"]
    assert [c["name"] for c in done["csv_columns"]] == ["done_1", "done_2", "done_3"]
    # Following the recipe on the responses CSV as exported gives the kinds' unbiased estimates.
    laplace = sum(float(r["hours"]) for r in exported) / len(exported)  # the values' mean, in hours
    assert laplace == pytest.approx(kind_result(survey, "hours", rows).mean_raw)
    bit = drinks["design"]
    ybar = sum(int(r["drinks"]) for r in exported) / len(exported)
    position = bit["steps"] * ((bit["high"] + bit["low"]) * ybar - bit["low"]) / (bit["high"] - bit["low"])
    assert position == pytest.approx(kind_result(survey, "drinks", rows).mean_raw)
    unary, result = done["design"], kind_result(survey, "done", rows)
    for option, column in zip(result.options, done["csv_columns"], strict=True):
        share = sum(int(r[column["name"]]) for r in exported) / len(exported)
        assert (share - unary["q_float"]) / (unary["p_float"] - unary["q_float"]) == pytest.approx(option.estimate_raw)


def test_the_responses_csv_gives_each_number_exactly_in_its_units_and_each_option_a_column(numbers_app, auth):
    """The codebook's grid: a value is min + y * step, written with the range's decimals; a plain answer within the
    range on the grid; a Laplace output anywhere in min + [low, high] * step (outside the range: the noise); the
    one-bit design's column its bit; one 0/1 column per option, in the order of the choices."""
    survey = store(numbers_app, 120)
    auth.login()
    exported, rows = csv_rows(auth.client), stored_rows(auth.client)
    header = next(csv.reader(io.StringIO(auth.client.get(f"{PAGE}/responses.csv").get_data(as_text=True))))
    assert header[6:] == ["drinks", "hours", "age", "done_1", "done_2", "done_3"]
    hours = survey.question("hours")
    low, high = hours.design.output_range
    assert all(re.fullmatch(r"-?[0-9]+\.[05]", r["hours"]) for r in exported)  # one decimal, exactly
    values = {Fraction(r["hours"]) for r in exported}
    assert all(hours.number.value_of(low) <= v <= hours.number.value_of(high) for v in values)
    assert any(not 0 <= v <= 20 for v in values)  # the noise takes some outputs outside the range
    assert {r["drinks"] for r in exported} <= {"0", "1"}
    assert all(16 <= int(r["age"]) <= 99 for r in exported) and {r["age"] for r in exported} >= {"16", "65"}
    assert all(r[f"done_{j}"] in ("0", "1") for r in exported for j in (1, 2, 3))
    stored = {r["response_id"]: r for r in rows}
    assert all(int(r["age"]) == 16 + int(stored[r["response_id"]]["age"]) for r in exported)


def test_each_row_of_the_responses_csv_is_in_the_grid_of_its_own_design(numbers_app, surveys_dir, auth):
    """Version 2 asks hours on a finer grid (steps of 0.25 up to 10): the rows of version 1 stay in 0.5-hour
    steps, each row read with its design_id's grid (the codebook's stored_designs)."""
    store(numbers_app, 30)
    finer = NUMBERS_YAML.replace("version: 1", "version: 2").replace(
        "max: 20\n    step: 0.5", "max: 10\n    step: 0.25"
    )
    (surveys_dir / "nums.yaml").write_text(finer)
    survey = survey_of(numbers_app)
    truths = [{"drinks": "3", "hours": str(i), "age": "10", "done": "101"} for i in range(0, 40, 3)]
    later = [randomize_on_server(survey, truth) for truth in truths]
    add_responses(numbers_app, later, "server", day="2026-11-23", survey_id="nums")
    auth.login()
    exported = csv_rows(auth.client)
    codebook = auth.client.get(f"{PAGE}/codebook.json").get_json()
    grids = {
        d["design_id"]: d["number"] for c in codebook["columns"] if c["name"] == "hours" for d in c["stored_designs"]
    }
    assert {g["step"] for g in grids.values()} == {"0.5", "0.25"}
    by_version = {"1": set(), "2": set()}
    for row in exported:
        grid = grids[row["design_id"]]
        steps = (Fraction(row["hours"]) - Fraction(grid["min"])) / Fraction(grid["step"])
        assert steps.denominator == 1 and len(row["hours"].split(".")[1]) == len(grid["step"].split(".")[1])
        by_version[row["survey_version"]].add(grid["step"])
    assert by_version == {"1": {"0.5"}, "2": {"0.25"}}


def test_statistics_files_hold_the_csvs_values_and_one_column_per_option(numbers_app, auth):
    store(numbers_app)
    auth.login()
    rows = {r["response_id"]: r for r in csv_rows(auth.client)}
    for fmt, read in (("sav", pyreadstat.read_sav), ("dta", pyreadstat.read_dta)):
        path = Path(tempfile.mkdtemp()) / f"responses.{fmt}"
        path.write_bytes(auth.client.get(f"{PAGE}/responses.{fmt}").data)
        frame, meta = read(str(path))
        assert len(frame) == len(rows)
        for _, row in frame.iterrows():
            exported = rows[row["response_id"]]
            names = ("drinks", "hours", "age", "done_1", "done_2", "done_3")
            assert [row[n] for n in names] == [float(exported[n]) for n in names]
        assert meta.column_names_to_labels["hours"] == "Hours?"
        assert meta.column_names_to_labels["done_2"] == "Which?: b"
        assert meta.variable_value_labels["done_2"] == {0: "not ticked", 1: "ticked"}
    script = auth.client.get(f"{PAGE}/read-responses.R").get_data(as_text=True)
    assert "d$hours <- as.numeric(d$hours)  # in the question's units, 0.0 to 20.0 (a Laplace output" in script
    assert "d$drinks <- as.numeric(d$drinks)  # the one-bit design's bit" in script
    assert "d$done_2 <- as.integer(d$done_2)  # 1 = ticked, 0 = not ticked" in script
    assert 'attr(d$done_2, "label") <- "Which?: b"' in script and "factor(d$done" not in script


def test_each_randomized_number_shows_the_answers_each_mechanism_needs_at_its_epsilon(numbers_app, auth):
    """The cost of each choice: for the page's margin (a share of the range), the interval's and the sequence's
    answers needed under the one-bit design and the Laplace mechanism at the question's epsilon, as
    analysis.numeric computes them, the question's own mechanism marked; none for a plain number."""
    from analysis.numeric import numeric_needed_n, numeric_sequence_needed_n
    from analysis.numeric_design import numeric_design

    survey = survey_of(numbers_app)
    auth.login()
    page = auth.client.get(f"{PAGE}?half_width=10").get_data(as_text=True)
    for name, own in (("drinks", "One bit per answer"), ("hours", "Laplace mechanism (noise added)")):
        question = survey.question(name)
        table = row_html(page, f"plans-{name}")
        shown = {row[0].replace(" (this question's)", ""): (row[1], row[2]) for row in body_rows(table)}
        for mechanism, label in (("bounded", "One bit per answer"), ("laplace", "Laplace mechanism (noise added)")):
            design = numeric_design(question.number.steps, question.design.epsilon, mechanism)
            half_width = 0.1 * question.number.steps
            wanted = (str(numeric_needed_n(design, half_width)), str(numeric_sequence_needed_n(design, half_width)))
            assert shown[label] == wanted, (name, mechanism)
        assert f"{own} <small>(this question's)</small>" in table
    assert 'id="plans-age"' not in page


def test_the_cli_exports_the_same_rows_for_numbers_and_check_all(numbers_app, auth):
    """`flask export estimates` gives the rows the page's export gives (one home: gather.estimates_json)."""
    import json

    store(numbers_app)
    auth.login()
    web_rows = auth.client.get(f"{PAGE}/estimates.json").get_json()["rows"]
    result = numbers_app.test_cli_runner().invoke(args=["export", "estimates", "nums", "--format", "json"])
    assert result.exit_code == 0, result.output
    cli_rows = json.loads(result.output)["rows"]
    picked = [(r["question"], r.get("statistic"), r.get("estimate")) for r in cli_rows if r.get("statistic")]
    assert picked == [(r["question"], r.get("statistic"), r.get("estimate")) for r in web_rows if r.get("statistic")]
    assert {"mean", "option_share", "ticked_count"} <= {statistic for _, statistic, _ in picked}


def test_an_excluded_day_leaves_a_numbers_answers_out_of_its_figures(numbers_app, auth):
    """Excluding a day subtracts that day's kept rows (the numbers' buckets and sums too): the figures shown are
    the kinds' own over the other day's answers (a recount of the raw stored answers would subtract "17" from
    tallies that hold "b03", "=sum" and "=sumsq", and fail)."""
    from storage import day_exclusions
    from web.db import open_database

    survey = survey_of(numbers_app)
    truths = [
        {"drinks": str(i % 11), "hours": str((7 * i) % 41), "age": "05", "done": format(i % 8, "03b")}
        for i in range(30)
    ]
    kept = [randomize_on_server(survey, truth) for truth in truths]
    left_out = [randomize_on_server(survey, {**truth, "hours": "40", "drinks": "30"}) for truth in truths]
    add_responses(numbers_app, kept, "server", day="2026-11-20", survey_id="nums")
    add_responses(numbers_app, left_out, "server", day="2026-11-21", survey_id="nums")
    db = open_database(numbers_app)
    day_exclusions.exclude_day(db, "nums", "2026-11-21")
    db.close()
    auth.login()
    page = auth.client.get(PAGE).get_data(as_text=True)
    rows = [{name: answers[name] for name in answers} for answers in kept]
    for name in ("drinks", "hours"):
        result = kind_result(survey, name, rows)
        shown = row_html(page, f"number-{name}")
        assert result.n == 30
        assert cell(shown, "mean") == wording.number_text(result.mean, survey.question(name).number.decimals)


# --------------------------------------------------------------------------
# The linear model of a randomized number on the plain questions (surveys/models.py fit_linear_model).

MODEL_YAML = """\
id: mods
title: Model of numbers
version: 1
questions:
  - {name: drinks, type: integer, label: Drinks, min: 0, max: 30, epsilon: 1, mechanism: laplace}
  - {name: hours, type: decimal, label: Hours, min: 1, max: 20, step: 0.5, epsilon: 1, mechanism: bounded}
  - {name: year, type: select_one, label: Year, choices: [first, second, third], randomize: false}
  - {name: job, type: yes_no, label: Job, randomize: false}
"""
MODEL_PAGE = "/admin/surveys/mods"


def store_for_model(app, surveys_dir, count: int = 240, text: str = MODEL_YAML, age: bool = False):
    """``count`` respondents whose true numbers depend on their year, randomized on the server and stored; with
    ``age``, each answers the plain number ``age`` (grid positions 0..83, every bin met) and the plain
    check-all ``tools``."""
    (surveys_dir / "mods.yaml").write_text(text)
    with app.app_context():
        survey = get_catalog().get("mods")
    years = ["first", "second", "third"]
    truths = [
        {
            "drinks": str((5 * (i % 3) + i % 7) % 31),
            "hours": str((4 * (i % 3) + 3 * i) % 39),
            "year": years[i % 3],
            "job": ["yes", "no"][(i // 3) % 2],
            **({"age": f"{(7 * i) % 84:02d}", "tools": format(i % 4, "02b")} if age else {}),
        }
        for i in range(count)
    ]
    add_responses(app, [randomize_on_server(survey, truth) for truth in truths], "server", survey_id="mods")
    return survey


def statsmodels_fit(survey, name: str, rows: list[dict]):
    """OLS with HC0 on the stored outputs of the responses CSV, one row per answer, in the question's units:
    the Laplace output as exported, the one-bit design's bit debiased into grid steps then ``min + step * u``."""
    import numpy as np
    import statsmodels.api as sm

    question = survey.question(name)
    number, design = question.number, question.design
    if question.design.kind == "bounded":
        bits = np.array([int(r[name]) for r in rows], dtype=float)
        steps = design.steps * ((design.high + design.low) * bits - design.low) / (design.high - design.low)
        y = float(number.minimum) + float(number.step) * steps.astype(float)
    else:
        y = np.array([float(r[name]) for r in rows])
    x = np.array([[1.0, r["year"] == "second", r["year"] == "third", r["job"] == "no"] for r in rows], dtype=float)
    return sm.OLS(y, x).fit(cov_type="HC0")


@pytest.mark.parametrize("outcome", ["drinks", "hours"])
def test_the_linear_model_of_a_number_equals_statsmodels_on_the_stored_outputs(app, surveys_dir, auth, outcome):
    """Both mechanisms, answers through the write path: the page and the exports show statsmodels' OLS
    coefficients (question units) with its HC0 standard errors and intervals, R^2 and the noise sentence."""
    survey = store_for_model(app, surveys_dir)
    auth.login()
    rows = list(csv.DictReader(io.StringIO(auth.client.get(f"{MODEL_PAGE}/responses.csv").get_data(as_text=True))))
    expected = statsmodels_fit(survey, outcome, rows)
    query = f"model_outcome={outcome}&model_predictors=year&model_predictors=job"
    body = auth.client.get(f"{MODEL_PAGE}/model.json?{query}").get_json()
    assert body["method"] == "linear" and body["n"] == 240 and body["left_out"] == 0
    coefficients = [row for row in body["rows"] if row["kind"] == "coefficient"]
    assert [row["name"] for row in coefficients] == [
        "intercept",
        "Year: second vs first",
        "Year: third vs first",
        "Job: No vs Yes",
    ]
    assert [row["estimate"] for row in coefficients] == pytest.approx(list(expected.params), rel=1e-9, abs=1e-9)
    assert [row["std_err"] for row in coefficients] == pytest.approx(list(expected.bse), rel=1e-9)
    low, high = expected.conf_int(0.05).T
    assert [row["low"] for row in coefficients] == pytest.approx(list(low), rel=1e-9, abs=1e-9)
    assert [row["high"] for row in coefficients] == pytest.approx(list(high), rel=1e-9, abs=1e-9)
    r_squared = [row for row in body["rows"] if row["kind"] == "r_squared"][0]["estimate"]
    assert r_squared == pytest.approx(expected.rsquared, rel=1e-9)
    text = auth.client.get(f"{MODEL_PAGE}/model.csv?{query}").get_data(as_text=True)
    exported = list(csv.DictReader(io.StringIO(text)))
    assert [(r["kind"], r["name"]) for r in exported] == [(r["kind"], r["name"]) for r in body["rows"]]
    assert float(exported[1]["estimate"]) == pytest.approx(expected.params[1], rel=1e-12)
    page = auth.client.get(f"{MODEL_PAGE}?{query}").get_data(as_text=True)
    table = row_html(page, "linear-model")
    shown = body_rows(table)
    assert len(shown) == 4
    for cells, *wanted in zip(shown, expected.params, expected.bse, low, high):
        written = [cells[1], cells[2], *cells[3].split(" – ")]
        assert [float(w) for w in written] == pytest.approx(wanted, abs=5.01e-4)  # written to 3 decimals
    sentence = html_module.unescape(re.search(r'<p class="model-sentence">(.*?)</p>', page, re.S).group(1))
    assert f"From 240 answers, a linear model of “{survey.question(outcome).label}” on Year, Job" in sentence
    assert f"R² {expected.rsquared:.3f}" in sentence and "The noise is in the outcome" in sentence
    noise = "plus discrete Laplace noise of mean zero" if outcome == "drinks" else "one bit, debiased"
    assert noise in sentence and "Likelihood-ratio tests" not in page
    assert f'<option value="{outcome}" selected>' in page


@pytest.mark.parametrize("plain_number", [False, True])
def test_a_numbers_kept_pattern_rows_equal_a_recount_from_the_stored_responses(app, surveys_dir, plain_number):
    """The repair and the excluded days recount pattern rows from the responses (storage.kept_counts
    scan_pattern_tallies): a number's bucket, sum and sum of squares, as the write path keeps them; a plain
    number is in every pattern by its bin key (its five default bins), a plain check-all in none."""
    from storage import kept_counts
    from web.db import open_database

    extra = "  - {name: age, type: integer, label: Age, min: 16, max: 99, randomize: false}\n" + TOOLS
    store_for_model(app, surveys_dir, 60, MODEL_YAML + extra if plain_number else MODEL_YAML, age=plain_number)
    db = open_database(app)
    try:
        kept = kept_counts._kept_pattern_rows(db, "mods")
        recounted = {tuple(row[:4]): row[4] for row in kept_counts.scan_pattern_tallies(db, "mods")}
    finally:
        db.close()
    assert {key[0] for key in kept} == {"drinks", "hours"}
    assert sum(count for key, count in kept.items() if key[0] == "hours" and key[3].startswith("b")) == 60
    assert recounted == kept
    spelled = {tuple(sorted(json.loads(key[2]))) for key in kept}
    assert spelled == {("age", "job", "year") if plain_number else ("job", "year")}
    if plain_number:
        assert {json.loads(key[2])["age"] for key in kept} == {f"b{i:02d}" for i in range(5)}


TOOLS = "  - {name: tools, type: select_multiple, label: Tools, choices: [a, b], randomize: false}\n"
AGE = "  - {name: age, type: integer, label: Age, min: 16, max: 99, randomize: false, bins: [30, 45, 65]}\n"


def test_the_linear_model_with_a_plain_number_predictor_equals_statsmodels_on_its_bin_dummies(app, surveys_dir, auth):
    """A plain number as a predictor, through the write path: its bins are its levels (the chosen reference
    bin left out), labelled as the bins; the page, model.json and model.csv equal statsmodels' OLS (HC0) on the
    stored outputs with the bins of the exported ages as dummies; the page offers it with its bins as the
    reference levels, and offers no plain check-all question."""
    import numpy as np
    import statsmodels.api as sm

    store_for_model(app, surveys_dir, 240, MODEL_YAML + AGE + TOOLS, age=True)
    auth.login()
    rows = list(csv.DictReader(io.StringIO(auth.client.get(f"{MODEL_PAGE}/responses.csv").get_data(as_text=True))))
    y = np.array([float(r["drinks"]) for r in rows])  # the CSV holds values in the question's units
    ages = [int(r["age"]) for r in rows]
    bins = [sum(age >= cut for cut in (30, 45, 65)) for age in ages]  # 0..3; reference: bin 1
    assert set(bins) == {0, 1, 2, 3}
    x = np.array([[1.0, b == 0, b == 2, b == 3, r["job"] == "no"] for r, b in zip(rows, bins)], dtype=float)
    expected = sm.OLS(y, x).fit(cov_type="HC0")
    query = "model_outcome=drinks&model_predictors=age&model_predictors=job&model_reference=age:b01"
    body = auth.client.get(f"{MODEL_PAGE}/model.json?{query}").get_json()
    assert body["n"] == 240 and body["left_out"] == 0
    assert body["predictors"][0] == {"question": "age", "reference": "b01", "levels": ["b00", "b02", "b03"]}
    coefficients = [row for row in body["rows"] if row["kind"] == "coefficient"]
    assert [row["name"] for row in coefficients] == [
        "intercept",
        "Age: 16 to under 30 vs 30 to under 45",
        "Age: 45 to under 65 vs 30 to under 45",
        "Age: 65 to 99 vs 30 to under 45",
        "Job: No vs Yes",
    ]
    assert [row["estimate"] for row in coefficients] == pytest.approx(list(expected.params), rel=1e-9, abs=1e-9)
    assert [row["std_err"] for row in coefficients] == pytest.approx(list(expected.bse), rel=1e-9)
    exported = list(
        csv.DictReader(io.StringIO(auth.client.get(f"{MODEL_PAGE}/model.csv?{query}").get_data(as_text=True)))
    )
    assert float(exported[3]["estimate"]) == pytest.approx(expected.params[3], rel=1e-9)
    page = auth.client.get(f"{MODEL_PAGE}?{query}").get_data(as_text=True)
    shown = body_rows(row_html(page, "linear-model"))
    assert [float(cells[1]) for cells in shown] == pytest.approx(list(expected.params), abs=5.01e-4)
    assert '<input type="checkbox" name="model_predictors" value="age" checked>' in page
    assert '<option value="age:b01" selected>30 to under 45</option>' in page
    assert '<option value="age:b03" >65 to 99</option>' in page
    assert 'name="model_predictors" value="tools"' not in page


SELF_CLOSING_NUMBER = """\
id: drinking
title: Drinking
version: 1
questions:
  - {name: drinks, type: integer, label: Drinks, min: 0, max: 10, epsilon: 3, mechanism: laplace}
targets:
  - {question: drinks, margin: 4}
close_when_targets_met: true
"""


def test_a_survey_closes_itself_once_a_numbers_mean_is_within_its_target(app, surveys_dir, auth):
    """Answers sent through the form (JavaScript off: the server randomizes): after each one the survey is closed
    exactly when the target's half-width from the kept sums is at most the margin (numeric_sequence's, in
    the question's units), and it closes by the answers numeric_sequence_needed_n says in the worst case."""
    from analysis.numeric import numeric_sequence, numeric_sequence_needed_n
    from storage import queries
    from tests.helpers.drivers import Respondent
    from web.db import open_database

    (surveys_dir / "drinking.yaml").write_text(SELF_CLOSING_NUMBER)
    with app.app_context():
        question = get_catalog().get("drinking").question("drinks")
    needed = numeric_sequence_needed_n(question.design, 4.0, 0.95)
    db = open_database(app)
    try:
        for sent in range(1, needed + 1):
            response = Respondent(app.test_client()).submit({"drinks": f"{sent % 11:02d}"}, survey_id="drinking")
            assert response.status_code == 200 and "Thank you" in response.get_data(as_text=True)
            (counts,) = queries.tallies(db, "drinking")["drinks"].values()
            n = sum(c for answer, c in counts.items() if answer.startswith("b"))
            sequence = numeric_sequence(question.design, n, counts["=sum"], counts["=sumsq"], 0.95)
            closed = app.test_client().get("/s/drinking").status_code == 410
            assert n == sent and closed is ((sequence.high - sequence.low) / 2 <= 4.0)
            if closed:
                break
        else:
            pytest.fail("the survey never closed itself")
    finally:
        db.close()
    assert 1 < sent <= needed
    auth.login()
    dashboard = auth.client.get("/admin/").get_data(as_text=True)
    assert "every target met: closed itself" in dashboard
    assert re.search(r"drinks:\s+±[\d.]+ now,\s+target ±4\.00 \(95%\)\s+<strong>met</strong>", dashboard)


def test_with_a_population_size_a_number_gets_its_finite_population_figures_and_total(app, surveys_dir, auth):
    """population_size N: the mean's standard error of analysis.numeric.numeric_mean with N (only the true values'
    part of the variance shrinks), and the total N x mean with N times that error, in the question's units."""
    from analysis.numeric import numeric_mean

    (surveys_dir / "nums.yaml").write_text(NUMBERS_YAML.replace("version: 1\n", "version: 1\npopulation_size: 80\n"))
    survey = store(app)
    auth.login()
    page = auth.client.get(PAGE).get_data(as_text=True)
    result = kind_result(survey, "hours", stored_rows(auth.client))
    question = survey.question("hours")
    figures = numeric_mean(question.design, *result.sums, 0.95, 80)
    step = float(question.number.step)
    mean = float(question.number.value_of(float(figures.mean)))
    notes = [html_module.unescape(n) for n in re.findall(r'<span class="finite-population">(.*?)</span>', page, re.S)]
    assert len(notes) == 2  # drinks and hours; none for the plain number
    note = notes[1]  # hours, in the page's order of the questions
    assert "simple random sample without replacement of the 80 people" in note
    assert f"the mean's standard error is {figures.std_err * step:,.3f}" in note
    assert (
        f"the total over the 80 people is {80 * mean:,.3f} (standard error {80 * figures.std_err * step:,.3f})" in note
    )
    # only the true values' part shrinks: where the answers' spread is all noise (that part estimated at 0, which
    # the server's unseeded draws give now and then) there is nothing to shrink
    unshrunk = numeric_mean(question.design, *result.sums, 0.95)
    assert figures.std_err < unshrunk.std_err or (figures.true_variance == 0 and figures.std_err == unshrunk.std_err)


def test_with_a_direct_arm_numbers_and_check_all_estimates_pool_every_arm_and_the_page_says_so(app, surveys_dir, auth):
    """A survey with a direct-question arm: the numbers and check-all answers of both arms are randomized and kept
    under one key, so the results page counts every respondent in their n, and says that these estimates pool
    both arms and are not compared with direct answers."""
    from storage import responses
    from surveys.submission import noisy_response
    from web.db import open_database

    cheated = "  - name: cheated\n    type: yes_no\n    label: Cheated?\n"
    text = NUMBERS_YAML.replace("version: 1\n", "version: 1\ndirect_share: 1/2\n").replace(
        "questions:\n", "questions:\n" + cheated
    )
    (surveys_dir / "nums.yaml").write_text(text)
    survey = survey_of(app)
    db = open_database(app)
    for i in range(40):
        arm = "direct" if i % 2 else ""
        truth = {"cheated": "yes", "drinks": "5", "hours": "10", "age": "3", "done": "101"}
        noisy = noisy_response(survey, randomize_on_server(survey, truth, arm), "server", arm)
        responses.store_response(db, noisy, f"direct-arm-{i:08d}", "2026-11-22")
    db.close()
    auth.login()
    page = auth.client.get(PAGE).get_data(as_text=True)
    assert re.search(r'<tr id="number-drinks">\s*<th[^>]*>.*?</th>\s*<td>40</td>', page, re.S)
    assert "n = 40" in row_html(page, "check-all-done")
    assert page.count('class="hint arms-pooled"') == 2 and "randomizes the numbers there too" in page
