"""Tests of surveys.wording: every percentage, level and epsilon shown comes from here."""

from __future__ import annotations

import math

import pytest

from analysis import (
    TWO_COIN,
    ConfidenceInterval,
    CrosswiseDesign,
    ForcedResponseDesign,
    KukDesign,
    MangatDesign,
    MultipleChoiceDesign,
    TriangularDesign,
    UnrelatedQuestionDesign,
    WarnerDesign,
)
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
    assert wording.epsilon_text(math.inf) == "∞ (no epsilon guarantee: one answer fully reveals)"
    assert [wording.count_text(n, "day") for n in (0, 1, 2)] == ["0 days", "1 day", "2 days"]


@pytest.mark.parametrize(
    ("q", "expected"),
    [
        (question(None), "Not randomized: stored exactly as you answer."),
        (question(TWO_COIN), "Two coins are flipped in secret. First coin tails: your true answer is stored."),
        (
            question(ForcedResponseDesign("2/3", "1/6", "1/6")),
            "Your true answer is stored 66.7% of the time; otherwise “yes” is stored (16.7% of the time) "
            "or “no” (16.7%).",
        ),
        (
            question(MultipleChoiceDesign(4, "1/2"), tuple(Choice(c, c) for c in "abcd"), "select_one"),
            "Your true answer is stored 50% of the time; otherwise one of the 4 options is picked at random.",
        ),
    ],
)
def test_design_sentence(q, expected):
    assert wording.design_sentence(q).startswith(expected)


@pytest.mark.parametrize(
    "q",
    [
        question(TWO_COIN),
        question(ForcedResponseDesign("2/3", "1/6", "1/6")),
        question(MultipleChoiceDesign(4, "1/2"), tuple(Choice(c, c) for c in "abcd"), "select_one"),
    ],
)
def test_design_sentence_does_not_place_the_coins_on_the_device(q):
    """Without JavaScript the server flips the coins: the sentence must hold on both paths."""
    assert "device" not in wording.design_sentence(q) and "sent" not in wording.design_sentence(q)


def test_odds_factor_is_e_to_the_epsilon():
    assert wording.odds_factor_text(math.log(3)) == "3" and wording.odds_factor_text(math.log(5)) == "5"
    assert wording.odds_factor_text(1.0) == "2.72" and wording.odds_factor_text(math.inf) == "∞"


@pytest.mark.parametrize(
    ("q", "factor", "guess", "blind", "between"),
    [
        (question(TWO_COIN), "3", "75%", "50%", "yes against no"),
        (question(ForcedResponseDesign("2/3", "1/6", "1/6")), "5", "83.3%", "50%", "yes against no"),
        (
            question(MultipleChoiceDesign(4, "1/2"), tuple(Choice(c, c) for c in "abcd"), "select_one"),
            "5",
            "62.5%",
            "25%",
            "one option against another",
        ),
    ],
)
def test_privacy_sentence_states_the_prior_free_bound_and_the_prior_of_the_guess(q, factor, guess, blind, between):
    text = wording.privacy_sentence(q)
    assert (
        f"Whatever anyone believed about you before, your stored answer changes their odds of {between} "
        f"by at most a factor of {factor}." in text
    )
    prior = "yes and no equally likely" if q.type == "yes_no" else "all 4 options equally likely"
    assert (
        f"If they thought {prior} for you, a guess from your stored answer is right at most {guess} "
        f"of the time (a blind guess: {blind})." in text
    )


def test_yes_no_sentence_states_the_estimate_and_the_interval_for_the_true_share():
    q = question(TWO_COIN)
    assert wording.yes_no_sentence(q, None, None, 0.95) == "No answers to “Did you?” yet."
    ci = ConfidenceInterval(low=0.2012, high=0.3051, method="wilson", confidence_level=0.95)
    assert wording.yes_no_sentence(q, 0.2533, ci, 0.95) == (
        "Estimated share of true yes answers to “Did you?” in the population sampled: 25% "
        "(95% confidence interval 20% to 31%)."
    )
    narrow = ConfidenceInterval(low=0.401, high=0.404, method="wilson", confidence_level=0.995)
    assert wording.yes_no_sentence(q, 0.4025, narrow, 0.995).endswith("40% (99.5% confidence interval 40% to 40%).")


@pytest.mark.parametrize(("low", "high", "too_wide"), [(0.1, 0.6, False), (0.1, 0.6001, True), (0.0, 1.0, True)])
def test_an_interval_wider_than_fifty_points_is_too_few_answers_to_tell(low, high, too_wide):
    q = question(TWO_COIN)
    ci = ConfidenceInterval(low=low, high=high, method="wilson", confidence_level=0.95)
    sentence = wording.yes_no_sentence(q, (low + high) / 2, ci, 0.95)
    assert sentence.startswith("Too few answers to tell") is too_wide
    if too_wide:
        assert f"anywhere from {round(low * 100)}% to {round(high * 100)}%" in sentence


def test_outside_the_design_the_sentence_gives_the_one_sided_bound():
    from analysis import outside_design

    q = question(TWO_COIN)
    ci = ConfidenceInterval(low=0.0, high=0.0, method="wilson", confidence_level=0.95)
    below = outside_design(38, 200)  # 19% < 25%
    sentence = wording.yes_no_sentence(q, 0.0, ci, 0.95, below)
    assert sentence.startswith("Fewer yes answers to “Did you?” (19%) than the design alone produces (25%)")
    assert f"at most {round(below.bound * 100)}% (one-sided 95% bound)" in sentence
    assert "2.8% of the time; otherwise respondents did not follow the instructions." in sentence
    assert "About 0%" not in sentence
    above = wording.yes_no_sentence(q, 1.0, ci, 0.95, outside_design(162, 200))
    assert above.startswith("More yes answers to “Did you?” (81%) than the design allows (75%)")
    assert "at least" in above


def test_choice_sentence_names_each_option_with_its_interval():
    q = question(MultipleChoiceDesign(2, "1/2"), (Choice("a", "Alpha"), Choice("b", "Beta")), "select_one")
    ci_a = ConfidenceInterval(0.3, 0.5, "wilson", 0.9)
    ci_b = ConfidenceInterval(0.5, 0.7, "wilson", 0.9)
    assert wording.choice_sentence(q, [("Alpha", 0.4, ci_a), ("Beta", 0.6, ci_b)], 0.9) == (
        "Estimated shares of true answers to “Did you?” in the population sampled: Alpha 40% (30% to 50%); "
        "Beta 60% (50% to 70%) (90% confidence intervals, one per option)."
    )
    wide = ConfidenceInterval(0.0, 0.62, "wilson", 0.9)
    assert wording.choice_sentence(q, [("Alpha", 0.4, ci_a), ("Beta", 0.6, wide)], 0.9) == (
        "Too few answers to tell the true shares of the answers to “Did you?” in the population sampled: "
        "the 90% confidence intervals are up to 62 percentage points wide."
    )
    assert wording.choice_sentence(q, [("Alpha", None, None)], 0.9) == "No answers to “Did you?” yet."


def test_templates_format_through_the_wording_module(app):
    assert app.jinja_env.filters["pct"] is wording.table_percent
    assert app.jinja_env.globals["percent"] is wording.short_percent
    template = app.jinja_env.from_string("{{ 0.25 | pct }} {{ 0.95 | pct(0) }} {{ none | pct }} {{ percent(1 / 6) }}")
    assert template.render() == "25.0% 95% – 16.7%"


# --------------------------------------------------------------------------
# One-parameter yes/no designs.

BIRTHDAY = "My mother's birthday is in January, February or March."


def paired(design) -> Question:
    """A crosswise or triangular question with its innocuous statement."""
    return Question("q", "yes_no", "I used cannabis.", "", True, True, YES_NO_CHOICES, design, BIRTHDAY)


@pytest.mark.parametrize(
    ("q", "expected"),
    [
        (question(WarnerDesign("3/4")), "Your true answer is stored 75% of the time; otherwise its opposite is stored"),
        (question(UnrelatedQuestionDesign("2/3", "1/4")), "Your true answer is stored 66.7% of the time; otherwise"),
        (question(KukDesign("7/10", "3/10")), "A card is drawn at random from one of two decks"),
        (question(MangatDesign("3/4")), "If your true answer is yes, “yes” is stored. If it is no, your answer is"),
        (paired(CrosswiseDesign("1/4")), "Nothing is randomized: you do not say whether the statement is true"),
        (paired(TriangularDesign("1/4")), "Nothing is randomized: you say only whether your answer is “no” to both"),
    ],
    ids=["warner", "unrelated", "kuk", "mangat", "crosswise", "triangular"],
)
def test_design_sentence_of_each_binary_design(q, expected):
    text = wording.design_sentence(q)
    assert text.startswith(expected)
    assert "device" not in text and "sent" not in text
    assert (BIRTHDAY in text) == bool(q.innocuous)


@pytest.mark.parametrize("design", [TriangularDesign("1/4"), MangatDesign("3/4")], ids=["triangular", "mangat"])
def test_an_unbounded_design_says_no_epsilon_guarantee_and_which_answer_reveals(design):
    text = wording.privacy_sentence(paired(design))
    assert "no epsilon guarantee: one answer fully reveals" in text
    assert "a stored “no” proves that your true answer is no" in text
    assert "factor" not in text


def test_crosswise_epsilon_is_conditional_on_the_innocuous_answer_being_unknown():
    text = wording.privacy_sentence(paired(CrosswiseDesign("1/4")))
    assert "by at most a factor of 3." in text  # e^|ln(q / (1 - q))| = 3 for q = 1/4
    assert wording.PAIRED_EPSILON_CONDITION in text
    assert wording.PAIRED_EPSILON_CONDITION not in wording.privacy_sentence(question(WarnerDesign("3/4")))
