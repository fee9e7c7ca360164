"""The results page's weighted shares (:mod:`surveys.weights`), read inside the page's snapshot."""

from __future__ import annotations

from collections.abc import Callable

import sqlite_utils

from surveys.definition import Survey
from surveys.results import Exclusion, Tallies
from surveys.sample_design import DesignWeighting, design_results
from surveys.weights import Weighting, raked_outcomes, weight_results


def read_weighting(
    db: sqlite_utils.Database,
    survey: Survey,
    tallies: Tallies,
    excluded: Exclusion,
    confidence_level: float,
    method: str,
    read_groups: Callable[[sqlite_utils.Database, Survey, str, Exclusion], dict],
    read_patterns: Callable[[sqlite_utils.Database, Survey, str, Exclusion], dict],
) -> Weighting | DesignWeighting | None:
    """:func:`~surveys.weights.weight_results` from the kept group tallies by the first margin's question
    and, with two or more margins, the kept pattern counts of each raked question (``read_groups``,
    ``read_patterns``: the page's readers, the excluded days and set-aside answers left out); None without
    ``population_counts``. With ``sample_design`` instead (never both): :func:`~surveys.sample_design.design_results`
    from the kept group tallies by the design's clusters' (else strata's) question."""
    if survey.sample_design is not None:
        return design_results(survey, read_groups(db, survey, survey.sample_design.by, excluded), confidence_level)
    if not survey.population_counts:
        return None
    grouped = read_groups(db, survey, survey.population_counts[0].by, excluded)
    patterns = {name: read_patterns(db, survey, name, excluded) for name in raked_outcomes(survey)}
    return weight_results(survey, tallies, grouped, confidence_level, method, patterns)
