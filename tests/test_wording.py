"""Tests of surveys.wording: every percentage, level and epsilon shown comes from here."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction

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
from surveys.definition import PAIRED_STATEMENT_CHOICES, YES_NO_CHOICES, Choice, Question


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
    choices = PAIRED_STATEMENT_CHOICES.get(design.kind, YES_NO_CHOICES)
    return Question("q", "yes_no", "I used cannabis.", "", True, True, choices, design, BIRTHDAY)


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


@pytest.mark.parametrize(
    ("design", "proof"),
    [
        (TriangularDesign("1/4"), "the answer “No” to both proves that your true answer to the first statement is no"),
        (MangatDesign("3/4"), "a stored “no” proves that your true answer is no"),
    ],
    ids=["triangular", "mangat"],
)
def test_an_unbounded_design_says_no_epsilon_guarantee_and_which_answer_reveals(design, proof):
    text = wording.privacy_sentence(paired(design))
    assert "no epsilon guarantee: one answer fully reveals" in text
    assert proof in text
    assert "factor" not in text


def test_crosswise_epsilon_is_conditional_on_the_innocuous_answer_being_unknown():
    text = wording.privacy_sentence(paired(CrosswiseDesign("1/4")))
    assert "by at most a factor of 3." in text  # e^|ln(q / (1 - q))| = 3 for q = 1/4
    assert wording.PAIRED_EPSILON_CONDITION in text
    assert wording.PAIRED_EPSILON_CONDITION not in wording.privacy_sentence(question(WarnerDesign("3/4")))


# --------------------------------------------------------------------------
# The respondent's summary, from what each design does (issue 23, points 6 to 8).

from analysis.design import BINARY_DESIGN_FIELDS  # noqa: E402
from analysis.misclassification import MisclassificationDesign  # noqa: E402
from analysis.two_group import CheaterDetectionDesign, StochasticLieDetectorDesign  # noqa: E402
from surveys.arms import TWO_GROUP_MODELS  # noqa: E402

pytestmark = pytest.mark.both_backends

FOUR = tuple(Choice(name, name.title()) for name in ("never", "once", "sometimes", "often"))
#: Every kind of design a survey file can name, with parameters that reveal nothing and, where the kind
#: allows it, parameters under which one stored answer proves something (epsilon infinite).
EVERY_DESIGN = [
    TWO_COIN,
    ForcedResponseDesign("2/3", "1/6", "1/6"),
    ForcedResponseDesign("2/3", "1/3", "0"),  # never a forced "no": a stored "no" is the truth
    WarnerDesign("3/4"),
    UnrelatedQuestionDesign("2/3", "1/4"),
    KukDesign("7/10", "3/10"),
    KukDesign("1", "3/10"),  # a true yes always draws red: a stored "no" proves no
    MangatDesign("3/4"),
    CrosswiseDesign("1/4"),
    TriangularDesign("1/4"),
    CheaterDetectionDesign("1/3", "2/3"),
    StochasticLieDetectorDesign("1/3", "2/3"),
    MultipleChoiceDesign(4, "1/2"),
    MultipleChoiceDesign(4, "1"),  # nothing drawn at all: every stored answer is the true one
    MisclassificationDesign.from_multiple_choice(4, "1/2"),
    MisclassificationDesign(
        ((Fraction(1, 2), 0, 0, 0), (Fraction(1, 2), 1, 0, 0), (0, 0, 1, Fraction(1, 2)), (0, 0, 0, Fraction(1, 2)))
    ),
]


def as_question(design) -> Question:
    """A question asked with ``design``, with the options its kind takes."""
    if isinstance(design, MultipleChoiceDesign | MisclassificationDesign):
        return Question("ai", "select_one", "How often?", "", True, True, FOUR, design)
    choices = PAIRED_STATEMENT_CHOICES.get(getattr(design, "kind", ""), YES_NO_CHOICES)
    innocuous = BIRTHDAY if design.kind in PAIRED_STATEMENT_CHOICES else ""
    return Question("q", "yes_no", "Did you?", "", True, True, choices, design, innocuous)


PLAIN = Question("year", "select_one", "Year of study", "", True, False, FOUR, None)


def stored_given_true(design) -> list[list[list[float]]]:
    """``P(stored j | true i)`` from the design's own numbers (analysis/): theta1 and theta0, a two-group design's
    rates with nobody cheating, or the matrix; one matrix per group."""
    if isinstance(design, MultipleChoiceDesign):
        t, k = float(design.t), design.k
        return [[[t * (i == j) + (1 - t) / k for i in range(k)] for j in range(k)]]
    if isinstance(design, MisclassificationDesign):
        return [design.floats().tolist()]
    if isinstance(design, CheaterDetectionDesign | StochasticLieDetectorDesign):
        yes, no = design.rates(1.0, 0.0 if design.kind == "cheater_detection" else 1.0), design.rates(0.0, 0.0)
        return [[[yes[g], no[g]], [1 - yes[g], 1 - no[g]]] for g in (0, 1)]
    theta1, theta0 = (float(p) for p in design.yes_probabilities())
    return [[[theta1, theta0], [1 - theta1, 1 - theta0]]]


def proven(design) -> set[tuple[int, tuple[int, ...]]]:
    """Each stored answer (index) with the true answers (indices) it leaves, where it rules some out."""
    found = set()
    for matrix in stored_given_true(design):
        for j, row in enumerate(matrix):
            left = tuple(i for i, chance in enumerate(row) if chance > 0)
            if left and len(left) < len(row):
                found.add((j, left))
    return found


def test_every_kind_of_design_is_walked():
    kinds = {getattr(design, "kind", None) for design in EVERY_DESIGN}
    assert kinds >= {*BINARY_DESIGN_FIELDS, *TWO_GROUP_MODELS, "multiple_choice", "misclassification"}


@pytest.mark.parametrize("design", EVERY_DESIGN, ids=lambda d: d.label() if hasattr(d, "label") else repr(d))
def test_each_sentence_says_what_the_design_does(design):
    """Every sentence of the respondent's summary, for the design alone and beside a plain question, against the
    design's own properties: epsilon finite or not, which stored answers have an infinite likelihood ratio,
    drawn by software or not, coins or not."""
    q = as_question(design)
    infinite = math.isinf(design.epsilon)
    drawn = getattr(design, "randomized_by_software", True)
    coins = design == TWO_COIN
    assert bool(proven(design)) == infinite  # the test's own reading of the numbers agrees with analysis/
    truths = ("yes", "no") if q.type == "yes_no" else q.choice_names
    assert {
        (q.choice_names.index(s), tuple(truths.index(t) for t in left)) for s, left in wording.revealing_answers(q)
    } == proven(design)
    for questions in ([q], [q, PLAIN]):
        shown = wording.protection(questions)
        said = wording.drawn_sentence(shown)
        assert bool(said) == drawn
        assert ("no stored answer proves" in said) == (drawn and not infinite)
        assert (f"{len(questions)} answers" in said) == (drawn and len(questions) > 1)
        assert ("One of your 2 answers is randomized" in said) == (drawn and len(questions) == 2)
        lines = wording.revealing_items(shown)
        assert len(lines) == infinite and all(
            "proves" in line and "“Did you?”" in line or "“How often?”" in line for line in lines
        )
        truthfully = wording.truthfully_sentence(shown)
        assert bool(truthfully) == (drawn and not infinite)
        device = wording.device_sentence(shown)
        assert bool(device) == drawn
        note = wording.page_note(shown)
        assert bool(note) == drawn
        assert ("to the randomized questions" in note) == (drawn and len(questions) > 1)
        every = " ".join([said, *lines, truthfully, device, note, wording.design_sentence(q)])
        assert ("coin" in every) == coins, every
        assert ("card" in every) == isinstance(design, KukDesign), every
    privacy = wording.privacy_sentence(q)
    assert ("proves" in privacy) == infinite and ("factor" in privacy) == (not infinite)
    fully = any(len(left) == 1 for _, left in proven(design))
    assert ("one answer fully reveals" in privacy) == fully and ("rule out" in privacy) == (infinite and not fully)


def test_revealing_questions_that_prove_the_same_thing_share_one_line_in_question_order():
    """Mangat and the lie detector both prove a true "no" from a stored "no": one line names both, joined as the
    caller's ``join`` writes a list; the triangular question's proof differs and keeps a line of its own, after,
    saying that its answer is compared, not randomized (the summary's line on paired questions then leaves it out)."""
    mangat = replace(as_question(MangatDesign("3/4")), name="dropped", label="Dropped data")
    triangular = replace(as_question(TriangularDesign("1/4")), name="gift", label="Gift authorship")
    detector = replace(as_question(StochasticLieDetectorDesign("1/3", "2/3")), name="undeclared", label="Undeclared")
    shown = wording.protection([mangat, triangular, detector, PLAIN])
    lines = wording.revealing_items(shown)
    assert lines == [
        "For “Dropped data” and “Undeclared”, a stored “no” proves that your true answer is no.",
        "For “Gift authorship”, your answer is not randomized, only compared with your answer to a second statement,"
        f" and {wording.revealing_sentence(triangular)}",
    ]
    assert shown.paired == (triangular,) and shown.paired_not_revealing == ()  # named once, on its warning line
    crosswise = replace(as_question(CrosswiseDesign("1/4")), name="copied", label="Copied")
    assert wording.protection([crosswise, triangular]).paired_not_revealing == (crosswise,)
    assert wording.revealing_items(shown, join=" / ".join)[0].startswith("For “Dropped data” / “Undeclared”, ")
    alone = wording.revealing_items(wording.protection([mangat]))
    assert alone == ["For “Dropped data”, a stored “no” proves that your true answer is no."]
    three = [replace(mangat, name=f"q{i}", label=f"Q{i}") for i in range(3)]
    assert wording.revealing_items(wording.protection(three)) == [
        "For “Q0”, “Q1” and “Q2”, a stored “no” proves that your true answer is no."
    ]


def test_the_revealing_sentence_names_the_stored_answer_and_the_truth():
    lie_detector = as_question(StochasticLieDetectorDesign("1/3", "2/3"))
    assert wording.revealing_sentence(lie_detector) == "a stored “no” proves that your true answer is no."
    always_red = as_question(KukDesign("1", "3/10"))
    assert wording.revealing_sentence(always_red) == "a stored “no” proves that your true answer is no."
    never_no = as_question(ForcedResponseDesign("2/3", "1/3", "0"))
    assert wording.revealing_sentence(never_no) == "a stored “no” proves that your true answer is no."
    triangular = as_question(TriangularDesign("1/4"))
    assert wording.revealing_sentence(triangular) == (
        "the answer “No” to both proves that your true answer to the first statement is no."
    )
    matrix = as_question(EVERY_DESIGN[-1])
    assert wording.revealing_sentence(matrix) == (
        "a stored “Never” proves that your true answer is “Never”; "
        "a stored “Once” proves that your true answer is not “Sometimes”, “Often”; "
        "a stored “Sometimes” proves that your true answer is not “Never”, “Once”; "
        "a stored “Often” proves that your true answer is “Often”."
    )


# --------------------------------------------------------------------------
# Numbers and check-all-that-apply (results page, surveys/kinds/number.py and multiple.py).


def test_a_number_figure_has_two_decimals_more_than_its_grid_and_a_one_sided_bound_says_so():
    assert [wording.number_text(x, d) for x, d in ((8.075, 1), (15, 0), (None, 2))] == ["8.075", "15.00", "–"]
    assert wording.number_interval_text(4.88, 11.27, "two-sided", 0) == "4.88 – 11.27"
    assert wording.number_interval_text(0.0, 3.5, "upper", 1) == "≤ 3.500"
    assert wording.number_interval_text(2.0, 30.0, "lower", 0) == "≥ 2.00"
    assert wording.number_interval_text(None, None, "two-sided", 0) == "–"


def test_each_mechanism_sentence_states_its_own_parameters_and_epsilon():
    from analysis.numeric_design import bounded_for_epsilon, laplace_for_epsilon, unary_for_epsilon
    from surveys.numbers import NumberRange

    grid = NumberRange(Fraction(0), Fraction(20), Fraction(1, 2), (Fraction(2),))
    laplace = wording.number_mechanism_sentence(laplace_for_epsilon(40, 3.0), grid)
    assert "grid of 40 steps of 0.5 from 0.0 to 20.0" in laplace and "discrete Laplace mechanism" in laplace
    assert "ε = 40 / 13.33 = 3.00" in laplace and "one bit" not in laplace
    bounded = bounded_for_epsilon(40, 1.0)
    sentence = wording.number_mechanism_sentence(bounded, grid)
    low, high = float(bounded.one_probability(0)), float(bounded.one_probability(40))
    assert f"1 with probability {low:.4g} for the lowest value, {high:.4g} for the highest" in sentence
    assert "ε = ln(0.7311 / 0.2689) = 1.00" in sentence and "tells the mean only" in sentence
    unary = unary_for_epsilon(3, 2.0)
    check_all = wording.check_all_mechanism_sentence(unary)
    assert f"1 with probability {float(unary.p):.4g} if ticked and {float(unary.q):.4g} if not" in check_all
    assert f"ε = 3 options × {wording.epsilon_text(unary.bit_epsilon)} = 2.00" in check_all
