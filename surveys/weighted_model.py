"""The logistic model of a randomized yes/no answer weighted to the survey's ``population_counts``.

Pure: takes a :class:`~surveys.definition.Survey`, a :class:`~surveys.models.ModelChoice` and the outcome's kept
pattern counts (:func:`storage.queries.pattern_tallies`), the same as :func:`surveys.models.fit_model`. The
patterns are summed per design and combination of the chosen predictors' levels *and* the margins' questions'
levels (:func:`surveys.models.cells_of`), each row weighted by its margin cell's weight
(:func:`surveys.weights.margin_cell_weights` from the same rows: post-stratified with one margin, raked with two or
more), and
fitted by :func:`analysis.weighted_regression.fit_weighted_logistic` (pseudo-maximum likelihood, sandwich
standard errors). The predictors are coded as in the unweighted model, so the two tables line up term by term.
The cost follows the patterns, not the responses.
"""

from __future__ import annotations

from dataclasses import dataclass

from analysis.regression import NotIdentified
from analysis.weighted_regression import WeightedLogisticFit, fit_weighted_logistic
from surveys.definition import Question, Survey
from surveys.design_contract import parse_design_key
from surveys.models import (
    ModelChoice,
    PatternTallies,
    cells_of,
    check_choice,
    is_linear,
    level_indicators,
    predictor_terms,
    term_label,
    unfit_reason,
)
from surveys.tables import finite, safe_csv
from surveys.weights import SKIPPED_NOTE, asked_of_everyone, margin_cell_weights

#: The columns the model CSV gains with ``population_counts`` (filled on the coefficient rows).
WEIGHTED_MODEL_COLUMNS = (
    "weighted_estimate",
    "weighted_robust_std_err",
    "weighted_odds_ratio",
    "weighted_low",
    "weighted_high",
    "weighted_p_value",
    "weighted_method",
)


@dataclass(frozen=True)
class WeightedModelResult:
    """The weighted fit, or the message that says why there is none (``fit`` is None exactly then).

    ``method`` is ``"post-stratified"`` (one margin) or ``"raked"``; ``by`` the margins' questions; ``left_out``
    the outcome's answers in no weighted row (a predictor or a margin's question unanswered, a level not
    offered, a design the model cannot read).
    """

    outcome: Question
    by: tuple[Question, ...]
    method: str
    fit: WeightedLogisticFit | None
    left_out: int
    message: str | None = None

    @property
    def n(self) -> int:
        return 0 if self.fit is None else self.fit.n

    @property
    def assumption(self) -> str:
        """What the weights assume, in one plain sentence."""
        names = " and ".join(f"“{q.label}”" for q in self.by)
        return (
            f"The weights make the answers stand for the population counts of {names} given in the survey file: "
            "they assume that, within each group of people those questions define, the people who answered are like "
            "those who did not; the standard errors are robust (sandwich) ones that take the weights as fixed."
        )


def fit_weighted_model(
    survey: Survey, choice: ModelChoice, tallies: PatternTallies, confidence_level: float = 0.95
) -> WeightedModelResult | None:
    """The logistic model of ``choice`` weighted to ``survey.population_counts``; None without them or for the
    linear model of a number (not weighted)."""
    if not survey.population_counts:
        return None
    choice = check_choice(survey, choice)
    outcome = survey.question(choice.outcome)
    if is_linear(outcome):
        return None
    predictors = [survey.question(name) for name in choice.predictors]
    by = tuple(survey.question(margin.by) for margin in survey.population_counts)
    columns = [*predictors, *(q for q in by if q.name not in choice.predictors)]
    at = [next(i for i, q in enumerate(columns) if q.name == margin.name) for margin in by]
    cells = cells_of(tallies, columns)
    answered = cells.counts.sum(axis=1) > 0
    levels, counts, design = cells.levels[answered], cells.counts[answered], cells.design[answered]
    own = levels[:, : len(predictors)]
    terms = predictor_terms(choice, predictors, own)
    method = "raked" if len(by) > 1 else "post-stratified"

    def failed(message: str) -> WeightedModelResult:
        return WeightedModelResult(outcome, by, method, None, cells.left_out, message)

    if not asked_of_everyone(outcome):
        return failed(SKIPPED_NOTE)
    problem = unfit_reason(outcome, terms, own, int(counts.sum()))
    if problem is not None:
        return failed(problem)
    try:
        table, method = margin_cell_weights(survey, levels[:, at], counts.sum(axis=1))
        weights = table[tuple(levels[:, at].T)]
        designs = [parse_design_key(key)[2] for key in cells.keys]
        fit = fit_weighted_logistic(
            level_indicators(terms, own),
            counts[:, 0],
            counts[:, 1],
            designs[0] if len(designs) == 1 else [designs[d] for d in design.tolist()],
            weights,
            names=[term_label(t.question, level, t.reference) for t in terms for level in t.levels],
            confidence_level=confidence_level,
        )
    except NotIdentified as error:
        return failed(f"The weighted model has no estimate: {error.reason}")
    except ValueError as error:
        return failed(f"The weighted model cannot be fitted: {error}.")
    return WeightedModelResult(outcome, by, method, fit, cells.left_out)


def _coefficient_values(result: WeightedModelResult) -> dict[str, dict]:
    """``{coefficient name: the WEIGHTED_MODEL_COLUMNS}`` of a fitted result."""
    return {
        c.name: dict(
            zip(
                WEIGHTED_MODEL_COLUMNS,
                (c.estimate, c.std_err, c.odds_ratio, c.odds_ratio_low, c.odds_ratio_high, c.p_value, result.method),
            )
        )
        for c in result.fit.coefficients
    }


def weighted_model_json(result: WeightedModelResult | None) -> dict:
    """``{"weighted": {...}}`` for the model JSON (``{}`` without ``population_counts``): the method, the margins,
    the answers in and left out, the covariance's name, the Wald test of all predictors and one row per
    coefficient (``name`` then :data:`WEIGHTED_MODEL_COLUMNS` without the method), or ``message``."""
    if result is None:
        return {}
    fit = result.fit
    rows = [] if fit is None else [{"name": name} | values for name, values in _coefficient_values(result).items()]
    return {
        "weighted": {
            "method": result.method,
            "by": [q.name for q in result.by],
            "n": result.n,
            "weighted_n": None if fit is None else fit.weighted_n,
            "left_out": result.left_out,
            "message": result.message,
            "covariance": None if fit is None else fit.covariance_method,
            "wald_test": None
            if fit is None
            else {"statistic": fit.model_test.statistic, "df": fit.model_test.df, "p_value": fit.model_test.p_value},
            "assumption": result.assumption,
            "rows": [{k: finite(v) for k, v in row.items() if k != "weighted_method"} for row in rows],
        }
    }


def weighted_model_csv(columns: tuple[str, ...], rows: list[dict], result: WeightedModelResult | None) -> str:
    """The model ``rows`` (:func:`surveys.model_export.model_rows`) as CSV, with :data:`WEIGHTED_MODEL_COLUMNS`
    after ``columns`` when ``result`` is given: filled on the coefficient rows by name, empty elsewhere."""
    if result is None:
        return safe_csv(columns, rows)
    by_name = {} if result.fit is None else _coefficient_values(result)
    empty = dict.fromkeys(WEIGHTED_MODEL_COLUMNS, "")
    merged = [row | (by_name.get(row["name"], empty) if row["kind"] == "coefficient" else empty) for row in rows]
    return safe_csv((*columns, *WEIGHTED_MODEL_COLUMNS), merged)
