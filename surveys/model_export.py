"""The fitted model as a table: its coefficients, likelihood-ratio tests and predicted prevalences (CSV, JSON);
for the linear model of a number, its coefficients in the question's units and its R^2.

Pure: takes a :class:`surveys.models.ModelResult`; the estimate and break-down tables are
:mod:`surveys.export`.
"""

from __future__ import annotations

from analysis.linear_model import LinearFit
from surveys.definition import Survey
from surveys.models import LinearModelResult, ModelResult
from surveys.tables import finite, safe_csv

#: Columns of :func:`model_rows`: one row per coefficient, likelihood-ratio test and predicted prevalence.
MODEL_COLUMNS = (
    "kind",
    "name",
    "estimate",
    "std_err",
    "odds_ratio",
    "low",
    "high",
    "statistic",
    "df",
    "p_value",
    "confidence_level",
)


def model_rows(result: ModelResult | LinearModelResult) -> list[dict]:
    """The fit as rows: ``coefficient`` (``low``/``high`` bound the odds ratio), ``lr_test`` (one per
    predictor, then ``model``), ``prevalence`` (a group's predicted share of true yes, named by its levels);
    for a linear model :func:`linear_rows`."""
    fit = result.fit
    if fit is None:
        return []
    if result.method == "linear":
        return linear_rows(fit)
    level = fit.confidence_level
    rows = [
        {"kind": "coefficient", "name": c.name, "estimate": c.estimate, "std_err": c.std_err,
         "odds_ratio": c.odds_ratio, "low": c.odds_ratio_low, "high": c.odds_ratio_high, "p_value": c.p_value,
         "confidence_level": level}
        for c in fit.coefficients
    ]  # fmt: skip
    rows += [
        {"kind": "lr_test", "name": t.name, "statistic": t.statistic, "df": t.df, "p_value": t.p_value}
        for t in (*fit.term_tests, fit.model_test)
    ]
    rows += [
        {"kind": "prevalence", "name": "; ".join(f"{q}: {level_label}" for q, level_label in g.levels),
         "estimate": g.prevalence.estimate, "std_err": g.prevalence.std_err, "low": g.prevalence.low,
         "high": g.prevalence.high, "confidence_level": level}
        for g in result.groups
    ]  # fmt: skip
    return [{column: row.get(column, "") for column in MODEL_COLUMNS} for row in rows]


def linear_rows(fit: LinearFit) -> list[dict]:
    """A linear model's rows: ``coefficient`` (in the question's units; ``std_err``, ``low``/``high`` and the
    ``statistic`` z and ``p_value`` from the HC0 covariance, as on the page), then ``r_squared``."""
    level = fit.confidence_level
    rows = [
        {"kind": "coefficient", "name": c.name, "estimate": c.estimate, "std_err": c.std_err, "low": c.low,
         "high": c.high, "statistic": c.z, "p_value": c.p_value, "confidence_level": level}
        for c in fit.coefficients
    ]  # fmt: skip
    rows.append({"kind": "r_squared", "name": "model", "estimate": fit.r_squared})
    return [{column: row.get(column, "") for column in MODEL_COLUMNS} for row in rows]


def model_json(result: ModelResult | LinearModelResult, survey: Survey, exported_at: str) -> dict:
    """The model with the survey's identity, its choice, ``n`` and ``left_out``; ``message`` (and no rows)
    when there is no fit."""
    return {
        "survey_id": survey.id,
        "version": survey.version,
        "outcome": result.outcome.name,
        "predictors": [
            {"question": t.question.name, "reference": t.reference, "levels": list(t.levels)} for t in result.terms
        ],
        "method": result.method,
        "n": result.n,
        "left_out": result.left_out,
        "message": result.message,
        "log_likelihood": None if result.fit is None else getattr(result.fit, "log_likelihood", None),
        "exported_at": exported_at,
        "rows": [{k: (None if v == "" else finite(v)) for k, v in row.items()} for row in model_rows(result)],
    }


def model_csv(result: ModelResult | LinearModelResult) -> str:
    """:func:`model_rows` as CSV with the header :data:`MODEL_COLUMNS`; text cells made spreadsheet-safe."""
    return safe_csv(MODEL_COLUMNS, model_rows(result))
