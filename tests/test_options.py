"""Tests of web.options: the results page's query string, checked before any statistic runs."""

from __future__ import annotations

import pytest

from web import options

PLAIN = {"year", "dept"}


def test_results_options_defaults_and_empty_fields():
    assert options.results_options({}, PLAIN) == options.ResultsOptions()
    # The page's "(none)" option sends by= empty; a half-filled pair is no pair.
    chosen = options.results_options({"by": "", "first": "arts", "second": ""}, PLAIN)
    assert (chosen.by, chosen.first, chosen.second) == (None, "arts", None)


PLANNED = ["cheated", "lied"]


def test_results_options_reads_every_field():
    args = {
        "method": "wald",
        "level": "0.9",
        "half_width": "10",
        "by": "dept",
        "first": "law",
        "second": "arts",
        "plan": "lied",
        "noncompliance": "12.5",
    }
    assert options.results_options(args, PLAIN, PLANNED) == options.ResultsOptions(
        "wald", 0.9, 0.1, "dept", "law", "arts", "lied", noncompliance=0.125
    )


@pytest.mark.parametrize(
    ("args", "field", "named"),
    [
        ({"method": "bayes"}, "method", "“bayes”"),
        ({"level": "1.5"}, "level", "“1.5”"),
        ({"half_width": "0.7"}, "half_width", "“0.7”"),
        ({"by": "cheated"}, "by", "“cheated”"),
        ({"plan": "year"}, "plan", "“year”"),
        ({"noncompliance": "100"}, "noncompliance", "“100”"),
    ],
)
def test_results_options_keep_a_problem_per_refused_field_and_use_its_default(args, field, named):
    chosen = options.results_options(args, PLAIN, PLANNED)
    assert [name for name, _ in chosen.problems] == [field]
    assert named in chosen.problem(field)
    assert getattr(chosen, field) == getattr(options.ResultsOptions(), field)


@pytest.mark.parametrize(
    ("text", "share"),
    [("5", 0.05), ("5%", 0.05), ("0.05", 0.05), (" 5 % ", 0.05), ("2.5", 0.025), ("0.5%", 0.005), ("49.9", 0.499)],
)
def test_a_margin_of_error_is_read_as_points_or_as_a_share(text, share):
    assert options.half_width(text) == pytest.approx(share, rel=1e-12)


@pytest.mark.parametrize("text", ["0.5", "50", "50%", "0", "-5", "0.05%", "five", "", "%", "nan%", "inf"])
def test_a_margin_of_error_out_of_range_or_not_a_number_is_refused_naming_it(text):
    with pytest.raises(ValueError, match=f"got “{text[:40]}”"):
        options.half_width(text)


@pytest.mark.parametrize(
    ("text", "share"), [("", 0.0), ("0", 0.0), ("10", 0.1), ("10%", 0.1), (" 12.5 ", 0.125), ("99", 0.99)]
)
def test_the_share_who_always_answer_no_is_read_in_percent(text, share):
    assert options.noncompliance_share(text) == pytest.approx(share, rel=1e-12)


@pytest.mark.parametrize("text", ["100", "99.5", "-1", "ten", "1e1", "nan"])
def test_a_share_who_always_answer_no_out_of_0_to_99_is_refused_naming_it(text):
    with pytest.raises(ValueError, match=f"from 0 to 99, such as 10 or 12.5, got “{text}”"):
        options.noncompliance_share(text)


def test_break_downs_are_by_a_plain_question_and_the_message_lists_them():
    with pytest.raises(ValueError, match="one of: dept, year"):
        options.breakdown_by("cheated", PLAIN)
    assert options.breakdown_by("year", PLAIN) == "year"
