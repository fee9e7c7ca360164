"""Tests of surveys.wording: every percentage, level and epsilon shown comes from here."""

from __future__ import annotations

import math

import pytest

from analysis import TWO_COIN, ConfidenceInterval, ForcedResponseDesign, MultipleChoiceDesign
from surveys import wording
from surveys.definition import YES_NO_CHOICES, Choice, Question


def question(design, choices=YES_NO_CHOICES, qtype="yes_no") -> Question:
    return Question("q", qtype, "Did you?", "", True, design is not None, choices, design)


@pytest.mark.parametrize(
    ("value", "digits", "trim", "expected"),
    [
        (0.2345, 0, False, "23%"),
        (0.2345, 1, False, "23.4%"),
        (0.25, 1, False, "25.0%"),
        (0.25, 1, True, "25%"),
        (1 / 6, 1, True, "16.7%"),
        (0.995, 1, True, "99.5%"),
        (1.0, 1, True, "100%"),
        (0.0, 0, True, "0%"),  # no decimals: nothing to trim
        (None, 1, False, "–"),
    ],
)
def test_percent(value, digits, trim, expected):
    assert wording.percent(value, digits, trim=trim) == expected


def test_presets_are_the_one_formatter():
    assert wording.table_percent(0.25) == "25.0%" and wording.table_percent(0.95, 0) == "95%"
    assert wording.table_percent(None) == "–"
    assert [wording.short_percent(x) for x in (0.8, 0.95, 0.995, 5 / 6)] == ["80%", "95%", "99.5%", "83.3%"]


def test_epsilon_and_counts():
    assert wording.epsilon_text(math.log(3)) == "1.10"
    assert wording.epsilon_text(math.inf) == "∞ (no protection)"
    assert [wording.count_text(n, "day") for n in (0, 1, 2)] == ["0 days", "1 day", "2 days"]


@pytest.mark.parametrize(
    ("q", "expected"),
    [
        (question(None), "Not randomized: stored exactly as you answer."),
        (question(TWO_COIN), "Two coins are flipped in secret. First coin tails: your true answer is stored."),
        (question(ForcedResponseDesign("2/3", "1/6", "1/6")),
         "Your true answer is stored 66.7% of the time; otherwise “yes” is stored (16.7% of the time) "
         "or “no” (16.7%)."),
        (question(MultipleChoiceDesign(4, "1/2"), tuple(Choice(c, c) for c in "abcd"), "select_one"),
         "Your true answer is stored 50% of the time; otherwise one of the 4 options is picked at random."),
    ],
)
def test_design_sentence(q, expected):
    assert wording.design_sentence(q).startswith(expected)


@pytest.mark.parametrize("q", [question(TWO_COIN), question(ForcedResponseDesign("2/3", "1/6", "1/6")),
                               question(MultipleChoiceDesign(4, "1/2"), tuple(Choice(c, c) for c in "abcd"),
                                        "select_one")])
def test_design_sentence_does_not_place_the_coins_on_the_device(q):
    """Without JavaScript the server flips the coins: the sentence must hold on both paths."""
    assert "device" not in wording.design_sentence(q) and "sent" not in wording.design_sentence(q)


def test_odds_factor_is_e_to_the_epsilon():
    assert wording.odds_factor_text(math.log(3)) == "3" and wording.odds_factor_text(math.log(5)) == "5"
    assert wording.odds_factor_text(1.0) == "2.72" and wording.odds_factor_text(math.inf) == "∞"


@pytest.mark.parametrize(("q", "factor", "guess", "blind", "between"), [
    (question(TWO_COIN), "3", "75%", "50%", "yes against no"),
    (question(ForcedResponseDesign("2/3", "1/6", "1/6")), "5", "83.3%", "50%", "yes against no"),
    (question(MultipleChoiceDesign(4, "1/2"), tuple(Choice(c, c) for c in "abcd"), "select_one"),
     "5", "62.5%", "25%", "one option against another"),
])
def test_privacy_sentence_states_the_prior_free_bound_and_the_prior_of_the_guess(q, factor, guess, blind, between):
    text = wording.privacy_sentence(q)
    assert f"Whatever anyone believed about you before, your stored answer changes their odds of {between} " \
           f"by at most a factor of {factor}." in text
    prior = "yes and no equally likely" if q.type == "yes_no" else "all 4 options equally likely"
    assert f"If they thought {prior} for you, a guess from your stored answer is right at most {guess} " \
           f"of the time (a blind guess: {blind})." in text


def test_yes_no_sentence():
    q = question(TWO_COIN)
    assert wording.yes_no_sentence(q, None, 0.95) == "No answers to “Did you?” yet."
    wide = ConfidenceInterval(low=0.2012, high=0.3051, method="wilson", confidence_level=0.95)
    assert wording.yes_no_sentence(q, wide, 0.95) == (
        "Between 20% and 31% of respondents would answer yes to “Did you?” (95% confidence)."
    )
    narrow = ConfidenceInterval(low=0.401, high=0.404, method="wilson", confidence_level=0.995)
    assert wording.yes_no_sentence(q, narrow, 0.995) == (
        "About 40% of respondents would answer yes to “Did you?” (99.5% confidence)."
    )


def test_templates_format_through_the_wording_module(app):
    assert app.jinja_env.filters["pct"] is wording.table_percent
    assert app.jinja_env.globals["percent"] is wording.short_percent
    template = app.jinja_env.from_string("{{ 0.25 | pct }} {{ 0.95 | pct(0) }} {{ none | pct }} {{ percent(1 / 6) }}")
    assert template.render() == "25.0% 95% – 16.7%"
