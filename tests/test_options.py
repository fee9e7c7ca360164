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


def test_results_options_reads_every_field():
    args = {"method": "wald", "level": "0.9", "half_width": "0.1", "by": "dept", "first": "law", "second": "arts"}
    assert options.results_options(args, PLAIN) == options.ResultsOptions("wald", 0.9, 0.1, "dept", "law", "arts")


@pytest.mark.parametrize(
    ("args", "named"),
    [
        ({"method": "bayes"}, "“bayes”"),
        ({"level": "1.5"}, "“1.5”"),
        ({"half_width": "0.7"}, "“0.7”"),
        ({"by": "cheated"}, "“cheated”"),
    ],
)
def test_results_options_refuse_naming_the_bad_value(args, named):
    with pytest.raises(ValueError, match=named):
        options.results_options(args, PLAIN)


def test_break_downs_are_by_a_plain_question_and_the_message_lists_them():
    with pytest.raises(ValueError, match="one of: dept, year"):
        options.breakdown_by("cheated", PLAIN)
    assert options.breakdown_by("year", PLAIN) == "year"
