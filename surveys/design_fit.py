"""The results page's "How well does the design fit?" section: fit checks and careless answering, from the
results already computed from kept counts (and the model's kept pattern counts).

* Each two-group question's versions (cheater detection, stochastic lie detector): the model is saturated (no
  test possible), and the one-degree-of-freedom test of everyone following the instructions
  (:func:`analysis.fit.two_group_fit`).
* The logistic model on the page: Pearson and deviance over its cells (:func:`analysis.fit.logistic_fit_test`),
  or "saturated" when it has as many parameters as cells.
* The survey's anchor (``known_prevalence``, :mod:`surveys.schema_anchor`): the careless share and every other
  randomized yes/no share corrected for it, beside the uncorrected one (:mod:`analysis.careless`).

* Each extended crosswise question (:mod:`surveys.extended_crosswise`): the one-degree-of-freedom check of
  careless or systematic answering (Heck, Hoffmann and Moshagen 2018, :mod:`analysis.extended_crosswise`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from analysis.careless import MAX_SHARE, CarelessCorrected, CarelessShare, careless_share, correct_for_careless
from analysis.fit import CellsFit, TwoGroupFit, logistic_fit_test, two_group_fit
from surveys.definition import Question, Survey
from surveys.design_contract import parse_design_key
from surveys.extended_crosswise import ExtendedCrosswiseCheck, check_record, extended_crosswise_checks
from surveys.kinds import KINDS, kind_of
from surveys.models import ModelResult, PatternTallies, cells_of, level_indicators
from surveys.result_sentences import p_value_text
from surveys.result_types import SurveyResults
from surveys.schema_anchor import anchor_problem

#: The assumption every corrected share rests on, said on the page and in the docs.
CARELESS_ASSUMPTION = (
    "Assumed: careless answering is the same on every question, and a careless respondent answers “no” to every "
    "question whatever the truth (the app then randomizes that “no” like any other answer)."
)

#: The restriction of each two-group design in words.
_EVERYONE_COMPLIES = {
    "gamma": "nobody says “no” whatever the randomizer says (γ = 0)",
    "t": "every carrier answers honestly (t = 1)",
}


@dataclass(frozen=True)
class TwoGroupCheck:
    """One version of a two-group question: its fit checks and the sentence that says them."""

    question: Question
    design_label: str
    fit: TwoGroupFit
    sentence: str


@dataclass(frozen=True)
class ModelCheck:
    """The page's logistic model: Pearson and deviance over its cells (None when they cannot be computed), and the
    sentence."""

    outcome: Question
    fit: CellsFit | None
    sentence: str


@dataclass(frozen=True)
class CarelessRow:
    """One randomized yes/no question corrected for careless answering (``corrected`` None: ``note`` says why)."""

    question: Question
    corrected: CarelessCorrected | None
    note: str = ""


@dataclass(frozen=True)
class CarelessCheck:
    """The anchor's careless share and the corrected shares; ``share`` None when ``message`` says why."""

    anchor: Question
    known_prevalence: float
    share: CarelessShare | None
    rows: tuple[CarelessRow, ...]
    message: str
    assumption: str = CARELESS_ASSUMPTION


@dataclass(frozen=True)
class DesignFit:
    """Everything the "How well does the design fit?" section shows; empty when nothing applies."""

    two_group: tuple[TwoGroupCheck, ...] = ()
    model: ModelCheck | None = None
    careless: CarelessCheck | None = None
    extended_crosswise: tuple[ExtendedCrosswiseCheck, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.two_group and self.model is None and self.careless is None and not self.extended_crosswise


def _two_group_sentence(question: Question, fit: TwoGroupFit, parameter: str) -> str:
    test = fit.compliance
    verdict = "The answers are consistent with that" if test.p_value >= 0.05 else "The answers speak against that"
    return (
        f"“{question.label}”: the design has two parameters for the two groups' yes rates, so it fits any answers "
        f"(saturated: no test of the design itself is possible). What can be tested is whether "
        f"{_EVERYONE_COMPLIES[parameter]}. {verdict}: likelihood ratio G² = {test.statistic:.2f}, 1 degree of "
        f"freedom, p = {p_value_text(test.p_value)} (half the χ² tail: the restriction is on the edge of the "
        "parameter space)."
    )


def two_group_checks(results: SurveyResults) -> tuple[TwoGroupCheck, ...]:
    """Every two-group question's versions with answers enough for an estimate, checked."""
    checks = []
    for result in results.questions:
        for figures in getattr(result, "two_group_versions", ()) or ():
            fit = two_group_fit(figures.estimate)
            sentence = _two_group_sentence(result.question, fit, figures.parameter)
            checks.append(TwoGroupCheck(result.question, figures.estimate.design.label(), fit, sentence))
    return tuple(checks)


def _model_sentence(outcome: Question, fit: CellsFit) -> str:
    if fit.saturated:
        return (
            f"The model of “{outcome.label}” has {fit.parameters} parameters for {fit.cells} combinations of the "
            "predictors' levels and designs: saturated, so it fits any answers and no test is possible."
        )
    small = (
        f" Some combinations have fewer than 5 expected answers (the smallest {fit.smallest_expected:.1f}), so the "
        "p-values are rough."
        if fit.smallest_expected < 5
        else ""
    )
    return (
        f"The model of “{outcome.label}” over {fit.cells} combinations of the predictors' levels and designs: "
        f"Pearson X² = {fit.pearson.statistic:.2f}, deviance G² = {fit.deviance.statistic:.2f}, "
        f"{fit.pearson.df} degrees of freedom, p = {p_value_text(fit.pearson.p_value)} and "
        f"{p_value_text(fit.deviance.p_value)}. A small p-value says the predicted shares miss some combination: "
        f"an interaction left out, or answers the design does not explain.{small}"
    )


def model_check(survey: Survey, model: ModelResult | None, tallies: PatternTallies | None) -> ModelCheck | None:
    """The fit of the page's logistic model over the cells it was fitted from; None without a fitted one."""
    if model is None or model.fit is None or model.method != "logistic" or tallies is None:
        return None
    predictors = [term.question for term in model.terms]
    cells = cells_of(tallies, predictors)
    answered = cells.counts.sum(axis=1) > 0
    counts = cells.counts[answered]
    designs = [parse_design_key(key)[2] for key in cells.keys]
    try:
        fit = logistic_fit_test(
            model.fit,
            level_indicators(model.terms, cells.levels[answered]),
            counts[:, 0],
            counts[:, 1],
            [designs[d] for d in cells.design[answered].tolist()],
        )
    except ValueError as error:  # a predicted chance of exactly 0 or 1 (a fit at the edge): no chi-square statistic
        return ModelCheck(
            model.outcome, None, f"The fit of the model of “{model.outcome.label}” cannot be checked: {error}."
        )
    return ModelCheck(model.outcome, fit, _model_sentence(model.outcome, fit))


#: Why a share is not corrected, by its kind (the single-share kinds other than a one-design yes/no question).
_NOT_CORRECTED = {
    "two_group": "not corrected: a two-group design estimates its own non-compliance",
    "yes_no": "not corrected: a paired-statement design stores the respondent's own answer, not a randomized “no”",
}


def _row(result, share: CarelessShare, level: float) -> CarelessRow:
    if anchor_problem(result.question) is not None:
        name = next(name for name, kind in KINDS.items() if kind is kind_of(result.question))
        return CarelessRow(result.question, None, _NOT_CORRECTED[name])
    if result.estimate_raw is None or result.std_err is None or not math.isfinite(result.std_err):
        return CarelessRow(result.question, None, "not corrected: no estimate yet")
    return CarelessRow(result.question, correct_for_careless(result.estimate_raw, result.std_err, share, 0.0, level))


def careless_check(survey: Survey, results: SurveyResults) -> CarelessCheck | None:
    """The anchor's careless share and the other randomized yes/no shares corrected; None without an anchor."""
    anchor = survey.anchor
    if anchor is None:
        return None
    by_name: Mapping[str, object] = {r.question.name: r for r in results.questions}
    found = by_name.get(anchor.question)
    known = float(anchor.known_prevalence)
    question = survey.question(anchor.question)
    if found is None or getattr(found, "estimate_raw", None) is None:
        return CarelessCheck(question, known, None, (), "No careless share yet: the anchor has no estimate.")
    if not found.std_err or not math.isfinite(found.std_err):
        message = "No careless share: the anchor's estimate has no usable standard error yet."
        return CarelessCheck(question, known, None, (), message)
    share = careless_share(found.estimate_raw, found.std_err, known, 0.0, results.confidence_level)
    if share.estimate_raw >= MAX_SHARE:
        message = (
            f"The anchor “{question.label}” reads {found.estimate_raw:.1%} where {known:.1%} is known to be true: that "
            "would make every respondent careless, so the design or the known share does not fit these answers and "
            "nothing is corrected."
        )
        return CarelessCheck(question, known, share, (), message)
    others = [r for r in results.questions if r.question.name != anchor.question and kind_of(r.question).single_share]
    rows = tuple(_row(r, share, results.confidence_level) for r in others)
    message = (
        f"The anchor “{question.label}” is truly yes for {known:.1%} of people; its estimate puts "
        f"{share.estimate:.1%} of respondents (standard error {share.std_err:.1%}) among those who answer “no” "
        "whatever the truth."
    )
    return CarelessCheck(question, known, share, rows, message)


def design_fit(
    survey: Survey, results: SurveyResults, model: ModelResult | None, tallies: PatternTallies | None
) -> DesignFit:
    """The section's checks from the page's results, model and the model's kept pattern counts."""
    return DesignFit(
        two_group_checks(results),
        model_check(survey, model, tallies),
        careless_check(survey, results),
        extended_crosswise_checks(results),
    )


def _statistic_record(statistic) -> dict:
    return {"statistic": statistic.statistic, "df": statistic.df, "p_value": statistic.p_value}


def _careless_row_record(row: CarelessRow) -> dict:
    record = {"question": row.question.name, "note": row.note}
    c = row.corrected
    if c is not None:
        record |= {
            "uncorrected": c.uncorrected,
            "uncorrected_std_err": c.uncorrected_std_err,
            "corrected": c.estimate,
            "corrected_raw": c.estimate_raw,
            "corrected_std_err": c.std_err,
            "ci_low": c.ci.low,
            "ci_high": c.ci.high,
        }
    return record


def _careless_record(check: CarelessCheck | None) -> dict | None:
    if check is None:
        return None
    share = check.share
    return {
        "anchor": check.anchor.name,
        "known_prevalence": check.known_prevalence,
        "careless_share": None
        if share is None
        else {
            "estimate": share.estimate,
            "estimate_raw": share.estimate_raw,
            "std_err": share.std_err,
            "ci_low": share.ci.low,
            "ci_high": share.ci.high,
            "confidence_level": share.ci.confidence_level,
        },
        "message": check.message,
        "corrected": [_careless_row_record(row) for row in check.rows],
        "assumption": check.assumption,
    }


def design_fit_record(fit: DesignFit) -> dict:
    """The section as JSON-ready values (``design_fit.json``): the two-group checks, the careless correction and the
    extended crosswise checks."""
    return {
        "two_group": [
            {
                "question": check.question.name,
                "design": check.design_label,
                "saturated": check.fit.model.saturated,
                "restriction": check.fit.restriction,
                "compliance_likelihood_ratio": _statistic_record(check.fit.compliance),
                "compliance_pearson": _statistic_record(check.fit.compliance_pearson),
                "sentence": check.sentence,
            }
            for check in fit.two_group
        ],
        "careless": _careless_record(fit.careless),
        "extended_crosswise": [check_record(check) for check in fit.extended_crosswise],
    }
