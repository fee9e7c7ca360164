"""Public result releases: which figures a release may hold, what it costs, and the figures with their noise.

Pure domain (no Flask, no database): the web layer reads the kept tallies (:mod:`web.gather`), asks
:func:`plan_release` and :func:`check_release`, and hands the tallies to :func:`make_release` with the secure
sampler of :mod:`surveys.central_noise`; storage keeps the JSON of :func:`release_to_json`.

This module is the entry point: it makes a release (:func:`make_release`, one builder per figure key) and
re-exports the public names of the modules that hold the rest, so callers import everything from here:

* :mod:`surveys.release_plans`: the figure keys and :func:`figure_choices`, :class:`ReleasePlan`,
  :func:`plan_release`, :func:`release_cost`, :func:`budget_left`, :func:`check_release`, :class:`ReleaseRefused`
  (what a release may hold and cost, and the rules that refuse one);
* :mod:`surveys.release_noise`: the noise on each count and :data:`NONNEGATIVE_HOW`;
* :mod:`surveys.release_figures`: :class:`ReleaseInputs`, :class:`PublishedRow`, :class:`PublishedFigure`,
  :class:`Release` and the figures of one question (estimates, counts, the most common answer);
* :mod:`surveys.release_breakdowns`: the break-downs, estimated from noisy cells;
* :mod:`surveys.release_protection`: :func:`protection`, the sentences on what protects the respondents;
* :mod:`surveys.release_formats`: :func:`release_to_json`, :func:`release_from_json`, :func:`release_csv`.

:class:`ReleasePolicy` (the survey file's ``releases:`` key) comes from :mod:`surveys.schema_releases`.
Neighbouring data sets differ by one PERSON, who may contribute up to ``rows_per_person`` answers; how each
figure is noised and paid for is told in the modules above.
"""

from __future__ import annotations

from datetime import date

from surveys.central_noise import CentralSampler
from surveys.definition import Survey
from surveys.release_breakdowns import breakdown_figure
from surveys.release_figures import (
    PublishedFigure,
    PublishedRow,
    Release,
    ReleaseInputs,
    counts_figure,
    estimate_figure,
    mode_figure,
    plain_mean_figure,
)
from surveys.release_formats import CSV_COLUMNS, release_csv, release_from_json, release_to_json
from surveys.release_noise import NONNEGATIVE_HOW
from surveys.release_plans import (
    BREAKDOWN,
    COUNTS,
    ESTIMATE,
    GAUSSIAN,
    LAPLACE,
    MEAN,
    MODE,
    PLAIN_MEAN,
    PLAIN_NUMBERS,
    FigureChoice,
    ReleasePlan,
    ReleaseRefused,
    budget_left,
    check_release,
    figure_choices,
    no_policy,
    plan_release,
    release_cost,
)
from surveys.release_protection import protection
from surveys.release_words import say_each
from surveys.schema_releases import ReleasePolicy

__all__ = [
    "ESTIMATE",
    "MEAN",
    "COUNTS",
    "PLAIN_NUMBERS",
    "PLAIN_MEAN",
    "BREAKDOWN",
    "MODE",
    "LAPLACE",
    "GAUSSIAN",
    "CSV_COLUMNS",
    "NONNEGATIVE_HOW",
    "FigureChoice",
    "PublishedFigure",
    "PublishedRow",
    "Release",
    "ReleaseInputs",
    "ReleasePlan",
    "ReleasePolicy",
    "ReleaseRefused",
    "budget_left",
    "check_release",
    "figure_choices",
    "make_release",
    "plan_release",
    "protection",
    "release_cost",
    "release_csv",
    "release_from_json",
    "release_to_json",
]

_BUILDERS = {
    ESTIMATE: estimate_figure,
    MEAN: estimate_figure,
    COUNTS: counts_figure,
    PLAIN_NUMBERS: counts_figure,
    PLAIN_MEAN: plain_mean_figure,
    BREAKDOWN: breakdown_figure,
    MODE: mode_figure,
}


def make_release(
    survey: Survey,
    plan: ReleasePlan,
    inputs: ReleaseInputs,
    sampler: CentralSampler,
    made_on: date,
    confidence_level: float = 0.95,
) -> Release:
    """The release of ``plan`` from ``inputs``: each figure's noise drawn once from ``sampler``.

    Raises
    ------
    ReleaseRefused
        When the survey has no ``releases:`` key or ``plan`` is for another survey.
    ValueError
        For a confidence level outside ``(0, 1)``, a negative ``inputs.answers``, or a break-down whose plain
        question's group tallies are not in ``inputs.group_tallies`` (its noise alone would be published).
    """
    policy = survey.release_policy
    if policy is None:
        raise no_policy(survey)
    if plan.survey_id != survey.id:
        raise ReleaseRefused(f"The plan is for the survey {plan.survey_id!r}, not {survey.id!r}.")
    if not 0 < confidence_level < 1:
        raise ValueError(f"confidence_level must be in (0, 1), got confidence_level={confidence_level!r}")
    if inputs.answers < 0:
        raise ValueError(f"answers must be 0 or more, got answers={inputs.answers!r}")
    for key in plan.keys:
        by = key.split(":")[2] if key.startswith(BREAKDOWN + ":") else None
        if by is not None and by not in inputs.group_tallies:
            raise ValueError(f"inputs.group_tallies has no tallies by {by!r}, which {key!r} needs")
    figures = tuple(
        _BUILDERS[key.split(":", 1)[0]](survey, plan, policy, key, inputs, sampler, confidence_level)
        for key in plan.keys
    )
    sentences = protection(survey, plan)
    return Release(
        survey_id=survey.id,
        survey_title=survey.title,
        made_on=made_on.isoformat(),
        answers=inputs.answers,
        figures=figures,
        cost=plan.cost,
        protection=say_each(sentences),
        protection_words=sentences,
    )
