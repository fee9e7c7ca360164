"""A randomized yes/no answer as the predictor of a plain outcome, from the kept break-down tallies.

The cross-table the model needs (:func:`analysis.predictor_model.fit_predictor`), the stored answers of a
randomized yes/no question by the answer to a plain question, is exactly what the kept group tallies hold
(:func:`storage.queries.group_tallies` with ``by`` the plain outcome:
``{outcome answer: {question: {design key: {answer: count}}}}``), so the fit costs the same at ten answers or ten
million. The outcome is a question results can be broken down by (:func:`surveys.kinds.breakdown_questions`: a
plain yes/no or one-choice question, or a plain number by its declared bins); its levels with no answer are left
out (their odds have no estimate), and the first level with answers is the reference.

The randomized question must be a one-design yes/no question (its kind keeps one share and pattern counts:
forced response, Warner, unrelated question, Kuk, Mangat, crosswise, triangular, each read as its
``(theta1, theta0)``): two-group designs, numbers and several options are not modelled here. Answers under
another design key (an earlier version's design, the direct-question arm, which asks it plainly) and answers
leaving the outcome unanswered are left out and counted in :attr:`PredictorModelResult.left_out`: the model
reads the answers under the question's current design only, never pooling designs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from analysis.predictor_model import PredictorFit, fit_predictor
from analysis.regression import NotIdentified
from surveys.definition import Question, Survey
from surveys.design_contract import question_design_key
from surveys.kinds import breakdown_questions, kind_of
from surveys.tables import finite, safe_csv

#: Fewest answers the model is fitted from (as :data:`surveys.models.MIN_ANSWERS`).
MIN_ANSWERS = 20

#: The assumptions, said beside every fit.
ASSUMPTIONS = (
    "This assumes the design is known and every respondent followed it, and that the outcome was asked plainly "
    "and answered truthfully."
)


@dataclass(frozen=True)
class PredictorChoice:
    """The randomized yes/no question (``predictor``) and the plain question (``outcome``) chosen."""

    predictor: str
    outcome: str


@dataclass(frozen=True)
class PredictorModelResult:
    """The fit, or the message that says why there is none (``fit`` is None exactly when ``message`` is set).

    ``levels``: the outcome's ``(value, label)`` in the fit's order (the first is the reference); ``dropped``:
    labels of the levels no one gave; ``left_out``: answers to the predictor not used.
    """

    predictor: Question
    outcome: Question
    levels: tuple[tuple[str, str], ...]
    fit: PredictorFit | None
    left_out: int
    design: str
    dropped: tuple[str, ...] = ()
    message: str | None = None

    @property
    def n(self) -> int:
        return 0 if self.fit is None else self.fit.n

    def label(self, value: str) -> str:
        """The label of an outcome level."""
        return dict(self.levels)[value]


def predictor_questions(survey: Survey) -> tuple[Question, ...]:
    """The randomized yes/no questions with one design (their kind keeps one share and pattern counts)."""
    return tuple(q for q in survey.randomized_questions if kind_of(q).single_share and kind_of(q).keeps_patterns)


def outcome_questions(survey: Survey) -> tuple[Question, ...]:
    """The plain questions an outcome can be: those results can be broken down by."""
    return breakdown_questions(survey)


def check_predictor_choice(survey: Survey, predictor: str, outcome: str) -> PredictorChoice:
    """The choice, or a ValueError naming a predictor or outcome that cannot be one."""
    predictors = [q.name for q in predictor_questions(survey)]
    outcomes = [q.name for q in outcome_questions(survey)]
    if predictor not in predictors:
        raise ValueError(
            "The randomized answer must be a yes/no question with one design, one of: "
            f"{', '.join(predictors) or 'none'}; got “{predictor[:40]}”."
        )
    if outcome not in outcomes:
        raise ValueError(
            f"The outcome must be a question asked plainly, one of: {', '.join(outcomes) or 'none'}; "
            f"got “{outcome[:40]}”."
        )
    return PredictorChoice(predictor, outcome)


def _answers(by_design: Mapping) -> int:
    return sum(sum(by_answer.values()) for by_answer in by_design.values())


def fit_predictor_model(
    survey: Survey, choice: PredictorChoice, grouped: Mapping, confidence_level: float = 0.95
) -> PredictorModelResult:
    """Fit ``choice`` from the group tallies ``grouped`` (by the outcome, as :func:`storage.queries.group_tallies`).

    Never raises for the data: a fit that cannot be made returns its message.
    """
    predictor, outcome = survey.question(choice.predictor), survey.question(choice.outcome)
    offered = kind_of(outcome).groups(outcome)
    key = question_design_key(predictor)
    design = predictor.design  # a yes/no kind's design: a BinaryDesign
    total = sum(_answers(per_question.get(predictor.name, {})) for per_question in grouped.values())

    def without(message: str, left_out: int = total) -> PredictorModelResult:
        return PredictorModelResult(predictor, outcome, offered, None, left_out, design.label(), message=message)

    theta1, theta0 = (float(v) for v in design.yes_probabilities())
    counts, dropped = {}, []
    for value, label in offered:
        by_answer = grouped.get(value, {}).get(predictor.name, {}).get(key, {})
        yes, no = by_answer.get("yes", 0), by_answer.get("no", 0)
        if yes + no:
            counts[value] = (yes, no)
        else:
            dropped.append(label)
    used = sum(yes + no for yes, no in counts.values())
    levels = tuple((value, label) for value, label in offered if value in counts)
    left_out = total - used
    if used < MIN_ANSWERS:
        return without(f"Too few answers for the model yet ({used}; it needs {MIN_ANSWERS}).", left_out)
    if len(counts) < 2:
        return without(f"Every answer used gave the same answer to “{outcome.label}”: nothing to compare.", left_out)
    try:
        fit = fit_predictor(counts, theta1, theta0, confidence_level)
    except NotIdentified as error:
        return without(f"No estimate: {error.reason}.", left_out)
    return PredictorModelResult(predictor, outcome, levels, fit, left_out, design.label(), tuple(dropped))


#: Columns of :func:`predictor_rows`: the prevalence, then two rows per outcome level but the reference.
PREDICTOR_COLUMNS = (
    "kind",
    "outcome",
    "reference",
    "estimate",
    "std_err",
    "odds_ratio",
    "low",
    "high",
    "p_value",
    "confidence_level",
)


def predictor_rows(result: PredictorModelResult) -> list[dict]:
    """The fit as rows: ``prevalence`` (the share with a true yes, ``low``/``high`` its interval), then per
    outcome level ``intercept`` (log odds against the reference with a true no) and ``effect`` (the log odds
    ratio of a true yes); ``low``/``high`` bound the odds or odds ratio. No rows without a fit."""
    fit = result.fit
    if fit is None:
        return []
    level = fit.confidence_level
    rows = [
        {"kind": "prevalence", "estimate": fit.prevalence, "std_err": fit.prevalence_std_err,
         "low": fit.prevalence_low, "high": fit.prevalence_high, "confidence_level": level}
    ]  # fmt: skip
    for eq in fit.equations:
        for kind, c in (("intercept", eq.intercept), ("effect", eq.effect)):
            rows.append(
                {"kind": kind, "outcome": eq.outcome, "reference": fit.reference, "estimate": c.estimate,
                 "std_err": c.std_err, "odds_ratio": c.odds_ratio, "low": c.odds_ratio_low,
                 "high": c.odds_ratio_high, "p_value": c.p_value, "confidence_level": level}
            )  # fmt: skip
    return [{column: row.get(column, "") for column in PREDICTOR_COLUMNS} for row in rows]


def predictor_json(result: PredictorModelResult, survey: Survey, exported_at: str) -> dict:
    """The fit with the survey's identity, the pair, the design, ``n``, ``left_out``, the levels used and
    those no one gave; ``message`` (and no rows) when there is no fit."""
    return {
        "survey_id": survey.id,
        "version": survey.version,
        "predictor": result.predictor.name,
        "outcome": result.outcome.name,
        "design": result.design,
        "levels": [value for value, _ in result.levels],
        "dropped": list(result.dropped),
        "n": result.n,
        "left_out": result.left_out,
        "message": result.message,
        "log_likelihood": None if result.fit is None else result.fit.log_likelihood,
        "assumptions": ASSUMPTIONS,
        "exported_at": exported_at,
        "rows": [{k: (None if v == "" else finite(v)) for k, v in row.items()} for row in predictor_rows(result)],
    }


def predictor_csv(result: PredictorModelResult) -> str:
    """:func:`predictor_rows` as CSV with the header :data:`PREDICTOR_COLUMNS`; text cells made spreadsheet-safe."""
    return safe_csv(PREDICTOR_COLUMNS, predictor_rows(result))
