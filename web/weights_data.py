"""The results page's weighted shares (:mod:`surveys.weights`), read inside the page's snapshot."""

from __future__ import annotations

from collections.abc import Callable

import sqlite_utils

from surveys.definition import Survey
from surveys.results import Exclusion, Tallies
from surveys.weights import Weighting, weight_results


def read_weighting(
    db: sqlite_utils.Database,
    survey: Survey,
    tallies: Tallies,
    excluded: Exclusion,
    confidence_level: float,
    method: str,
    read_groups: Callable[[sqlite_utils.Database, Survey, str, Exclusion], dict],
) -> Weighting | None:
    """:func:`~surveys.weights.weight_results` from the kept group tallies by the first margin's question
    (``read_groups``: the page's reader, the excluded days and set-aside answers left out); None without
    ``population_counts``."""
    if not survey.population_counts:
        return None
    grouped = read_groups(db, survey, survey.population_counts[0].by, excluded)
    return weight_results(survey, tallies, grouped, confidence_level, method)
