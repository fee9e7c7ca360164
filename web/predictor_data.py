"""The results page's panel "A randomized answer as a predictor": the choices it offers and the fit asked for.

Reads the kept group tallies by the chosen plain outcome through ``read_grouped`` (the results page passes
:func:`web.gather.read_group_tallies` on its snapshot: minus the excluded days and the set-aside marked answers,
as the break-down reads them) and fits :func:`surveys.predictor_model.fit_predictor_model`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from surveys.definition import Question, Survey
from surveys.predictor_model import (
    ASSUMPTIONS,
    PredictorChoice,
    PredictorModelResult,
    fit_predictor_model,
    outcome_questions,
    predictor_questions,
)


@dataclass(frozen=True)
class PredictorPanel:
    """What the panel shows: the questions offered and the fit asked for (``result`` None when none is)."""

    predictors: tuple[Question, ...]
    outcomes: tuple[Question, ...]
    result: PredictorModelResult | None

    @property
    def available(self) -> bool:
        """Whether the survey has a randomized yes/no question and a plain question to pair."""
        return bool(self.predictors and self.outcomes)

    @property
    def assumptions(self) -> str:
        """The sentence shown under every fit: what the model takes for granted."""
        return ASSUMPTIONS


def predictor_panel(
    survey: Survey,
    choice: PredictorChoice | None,
    confidence_level: float,
    read_grouped: Callable[[str], Mapping],
) -> PredictorPanel:
    """The panel of ``survey``: the fit of ``choice`` (if any) from ``read_grouped(outcome)``, the kept group
    tallies by its outcome (read only when a fit is asked for)."""
    result = None
    if choice is not None:
        grouped = read_grouped(choice.outcome)
        result = fit_predictor_model(survey, choice, grouped, confidence_level)
    return PredictorPanel(predictor_questions(survey), outcome_questions(survey), result)
