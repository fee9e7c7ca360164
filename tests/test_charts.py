"""Tests of web.charts: well-formed, accessible SVG with no script and no inline style."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
import yaml
from markupsafe import Markup

from surveys import breakdowns, results
from surveys.design_contract import question_design_key
from surveys.schema import parse_survey
from surveys.wording import short_percent
from web import charts

SVG = "{http://www.w3.org/2000/svg}"

SURVEY_YAML = """\
id: quiz
title: Test <quiz> & co
version: 1
questions:
  - name: cheated
    type: yes_no
    label: Is 1 < 2 & "this" > that? A label long enough to be cut short in the chart
  - name: lied
    type: yes_no
    label: Have you lied to a professor?
    required: false
  - name: ai_use
    type: select_one
    label: How often have you used AI-written text as your own?
    choices: [never, once, sometimes, often]
    design: {t: 1/2}
  - name: dept
    type: select_one
    label: Department
    choices: [arts, law]
    randomize: false
"""


@pytest.fixture
def survey_results():
    survey = parse_survey(yaml.safe_load(SURVEY_YAML), "quiz.yaml")
    key = {q.name: question_design_key(q) for q in survey.questions}
    tallies = {
        "cheated": {key["cheated"]: {"yes": 40, "no": 60}},
        "ai_use": {key["ai_use"]: {"never": 50, "once": 20, "sometimes": 20, "often": 10}},
        "dept": {key["dept"]: {"arts": 100}},
    }
    return results.compute_results(survey, tallies, 100)


@pytest.fixture
def chart(survey_results):
    svg = charts.results_chart_svg(survey_results)
    assert isinstance(svg, Markup)
    return svg


def by_class(root, tag, name):
    return [e for e in root.iter(f"{SVG}{tag}") if e.get("class") == name]


def test_chart_is_well_formed_and_accessible(chart):
    root = ET.fromstring(str(chart))
    assert root.tag == f"{SVG}svg"
    assert root.get("role") == "img"
    assert root.get("aria-label") == "Estimates for Test <quiz> & co: 5 estimates with 95% confidence intervals"
    assert root.get("viewBox").startswith(f"0 0 {charts.WIDTH} ") and root.get("width") == "100%"
    assert root.find(f"{SVG}title").text == "Estimates for Test <quiz> & co"
    desc = root.find(f"{SVG}desc").text
    assert "from 100 responses" in desc and "Department" not in desc  # plain questions are not drawn


def test_one_marker_per_estimate(chart, survey_results):
    root = ET.fromstring(str(chart))
    # cheated (40 yes of 100) and the four options of ai_use; lied has no answers.
    assert len(by_class(root, "circle", "estimate")) == 5
    assert len(by_class(root, "circle", "observed")) == 5
    assert len(by_class(root, "line", "ci")) == 5
    assert len(by_class(root, "line", "ci-cap")) == 10
    assert [e.text for e in by_class(root, "text", "empty")] == ["no answers yet"]
    # The dot sits at the estimate on the 0-100% axis.
    cheated = survey_results.question("cheated")
    dot = by_class(root, "circle", "estimate")[0]
    assert float(dot.get("cx")) == pytest.approx(charts._Plot(charts.MARGIN + 4).x(cheated.estimate), abs=0.05)


def test_gridlines_at_every_quarter(chart):
    root = ET.fromstring(str(chart))
    assert len(by_class(root, "line", "grid")) == 5
    labels = [e.text for e in root.iter(f"{SVG}text")]
    assert {"0%", "25%", "50%", "75%", "100%"} <= set(labels)


def test_labels_are_escaped_and_wrapped_never_cut(chart):
    assert "1 < 2" not in chart and "Test <quiz>" not in chart
    assert "Is 1 &lt; 2 &amp; &#34;this&#34; &gt; that?" in chart
    root = ET.fromstring(str(chart))
    labels = [e.text for e in root.iter(f"{SVG}text") if e.get("class") == "label"]
    assert not any(text.endswith("\u2026") for text in labels)
    # The long label is drawn whole, over consecutive lines none longer than LABEL_CHARS.
    start = next(i for i, text in enumerate(labels) if text.startswith("Is 1 < 2"))
    lines = labels[start : start + 2]
    assert " ".join(lines) == 'Is 1 < 2 & "this" > that? A label long enough to be cut short in the chart'
    assert all(len(line) <= charts.LABEL_CHARS for line in lines)


def test_each_estimate_has_its_figures_written_beside_it(chart, survey_results):
    root = ET.fromstring(str(chart))
    written = [e.text for e in by_class(root, "text", "figures")]
    cheated = survey_results.question("cheated")
    low, high = round(cheated.ci.low * 100), round(cheated.ci.high * 100)
    assert written[0] == f"{round(cheated.estimate * 100)}% ({low}–{high}%)"
    assert len(written) == 5  # every drawn estimate, none for the question without answers


def test_break_down_chart_puts_the_groups_side_by_side():
    survey = parse_survey(yaml.safe_load(SURVEY_YAML), "quiz.yaml")
    key = {q.name: question_design_key(q) for q in survey.questions}
    grouped = {
        "arts": {"cheated": {key["cheated"]: {"yes": 30, "no": 20}}},
        "law": {"cheated": {key["cheated"]: {"yes": 10, "no": 40}}},
    }
    breakdown = breakdowns.compute_breakdown(survey, "dept", grouped)
    root = ET.fromstring(str(charts.breakdown_chart_svg(breakdown)))
    assert root.get("aria-label") == "Estimates by Department: 2 groups side by side, with 95% confidence intervals"
    groups = [e.text for e in by_class(root, "text", "group")]
    # Per question (2 yes/no) and per option (4), one row per group, named at its left.
    assert groups == ["arts", "law"] * 6
    dots = by_class(root, "circle", "estimate")
    assert len(dots) == 2 and dots[0].get("fill") != dots[1].get("fill")
    assert float(dots[0].get("cx")) > float(dots[1].get("cx"))  # arts (60% yes) right of law (20%)


def test_no_script_and_no_inline_style(chart):
    for svg in (chart, charts.daily_sparkline_svg([("2026-11-01", 2)])):
        assert "style=" not in svg
        assert "<script" not in svg.lower()


def test_chart_without_randomized_questions():
    mapping = yaml.safe_load(SURVEY_YAML)
    mapping["questions"] = mapping["questions"][3:]
    survey = parse_survey(mapping, "quiz.yaml")
    root = ET.fromstring(str(charts.results_chart_svg(results.compute_results(survey, {}, 0))))
    assert "No randomized questions." in [e.text for e in root.iter(f"{SVG}text")]


@pytest.mark.parametrize(
    ("daily", "label", "bars"),
    [
        (
            [("2026-11-01", 3), ("2026-11-04", 1)],
            "4 responses over 4 days, from 2026-11-01 to 2026-11-04; at most 3 responses a day (2026-11-01)",
            2,
        ),
        ([("2026-11-01", 1)], "1 response over 1 day, on 2026-11-01; at most 1 response a day (2026-11-01)", 1),
        ([], "0 responses over 0 days", 0),
    ],
)
def test_sparkline(daily, label, bars):
    svg = charts.daily_sparkline_svg(daily)
    root = ET.fromstring(str(svg))
    assert root.get("role") == "img" and root.get("aria-label") == label
    assert root.find(f"{SVG}title").text == label
    rects = by_class(root, "rect", "bar")
    assert len(rects) == bars
    if bars:
        heights = [float(r.get("height")) for r in rects]
        assert max(heights) == pytest.approx(charts.SPARK_BARS)


def test_sparkline_has_its_dates_and_largest_count_written_on_it():
    root = ET.fromstring(str(charts.daily_sparkline_svg([("2026-11-01", 3), ("2026-11-04", 12)])))
    assert root.get("preserveAspectRatio") is None  # text is not stretched
    assert [e.text for e in by_class(root, "text", "first-day")] == ["2026-11-01"]
    assert [e.text for e in by_class(root, "text", "last-day")] == ["2026-11-04"]
    assert [e.text for e in by_class(root, "text", "peak")] == ["max 12/day"]


def test_sparkline_leaves_gaps_for_days_without_responses():
    root = ET.fromstring(str(charts.daily_sparkline_svg([("2026-11-01", 2), ("2026-11-03", 2)])))
    xs = [float(r.get("x")) for r in by_class(root, "rect", "bar")]
    # Three days across the width: the bars are at the first and the third third.
    assert xs == pytest.approx([0, 2 * charts.SPARK_WIDTH / 3], abs=0.01)


def test_the_time_chart_draws_the_sequence_band_and_the_running_estimate_and_says_it_in_words():
    from surveys.design_contract import question_design_key
    from surveys.timeline import question_timeline
    from tests.helpers.sample_surveys import make_survey
    from web.charts import timeline_svg

    survey = make_survey()
    key = question_design_key(survey.question("cheated"))
    daily = [
        ("2026-11-20", {"cheated": {key: {"yes": 30, "no": 20}}}),
        ("2026-11-22", {"cheated": {key: {"yes": 30, "no": 20}}}),
    ]
    line = question_timeline(survey.question("cheated"), daily)
    svg = str(timeline_svg(line))
    last = line.points[-1]
    assert svg.count("<polygon") == 1 and svg.count("<circle") == 2 and "<polyline" in svg
    assert "2026-11-20" in svg and "2026-11-22" in svg
    assert (
        f"on 2026-11-22, with 100 answers, {short_percent(last.estimate)} (95% confidence sequence "
        f"{short_percent(last.sequence_low)} to {short_percent(last.sequence_high)})"
    ) in svg
    assert "No answers yet" in str(timeline_svg(question_timeline(survey.question("cheated"), [])))


def fitted_model(dept_label: str = "Department"):
    from surveys import models

    survey = parse_survey(yaml.safe_load(SURVEY_YAML.replace("label: Department", f"label: {dept_label}")), "quiz.yaml")
    key = question_design_key(survey.question("cheated"))
    tallies = {
        key: {
            models.answer_pattern({"dept": "arts"}, ["dept"]): {"yes": 40, "no": 60},
            models.answer_pattern({"dept": "law"}, ["dept"]): {"yes": 70, "no": 30},
        }
    }
    return models.fit_model(survey, models.ModelChoice("cheated", ("dept",), {}), tallies)


def test_the_model_chart_draws_each_group_with_its_interval_and_figures():
    model = fitted_model()
    root = ET.fromstring(str(charts.model_chart_svg(model)))
    assert root.get("role") == "img" and "by group" in root.find(f"{SVG}title").text
    assert len(by_class(root, "circle", "estimate")) == len(model.groups) == 2
    assert by_class(root, "circle", "observed") == []  # a model has no observed rate to draw
    assert len(by_class(root, "line", "ci")) == 2
    written = [e.text for e in by_class(root, "text", "figures")]
    assert written == [charts.figures(group) for group in model.groups]
    arts, law = model.groups
    assert written[0] == charts.figures(arts) != written[1]
    low, high = arts.prevalence.low, arts.prevalence.high
    assert 0 < low < arts.prevalence.estimate < high < 1
    assert [e.text for e in by_class(root, "text", "label")] == ["Department: arts", "Department: law"]
    desc = root.find(f"{SVG}desc").text
    assert "Department: arts: estimate" in desc and "observed" not in desc and "200 answers" in desc


def test_the_model_chart_wraps_long_group_names_and_declines_too_many_groups(monkeypatch):
    label = "Which department of the university are you enrolled in this academic year"
    root = ET.fromstring(str(charts.model_chart_svg(fitted_model(label))))
    lines = [e.text for e in by_class(root, "text", "label")]
    assert len(lines) > 2 and " ".join(lines) == f"{label}: arts {label}: law"
    assert all(len(line) <= charts.LABEL_CHARS for line in lines)
    monkeypatch.setattr(charts, "MAX_MODEL_GROUPS", 1)
    root = ET.fromstring(str(charts.model_chart_svg(fitted_model())))
    assert by_class(root, "circle", "estimate") == []
    assert "2 groups: too many to draw" in "".join(root.itertext())
