"""The results page's correlation panel: the chosen pair of randomized yes/no questions and its figures, read from
the kept pair counts (:func:`storage.kept_counts.pair_tallies`) inside the page's read snapshot.

One call from :func:`web.gather.results_page` (:func:`pair_panel`); the pair is chosen by the query string
(``pair_first``, ``pair_second``: :attr:`web.options.ResultsOptions.pair`), a bad name is the page's ``pair`` problem
(status 400) and the first two questions are shown instead. The exports read the same figures
(:func:`pair_result`).
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlite_utils

from storage import kept_counts
from surveys.correlation import (
    PairCorrelation,
    PairTallies,
    choose_pair,
    left_out_questions,
    pair_correlation,
    pair_questions,
)
from surveys.definition import Question, Survey
from surveys.result_types import Exclusion


@dataclass(frozen=True)
class PairPanel:
    """What the panel shows: the questions a pair can be chosen from, those past the limit whose pairs are not
    kept, the chosen pair's figures (``None`` when the survey has fewer than two), and the refused choice's
    message (``problem``)."""

    questions: tuple[Question, ...]
    not_kept: tuple[Question, ...]
    result: PairCorrelation | None
    problem: str | None = None


def pair_panel(
    db: sqlite_utils.Database, survey: Survey, names: tuple[str | None, str | None], level: float, excluded: Exclusion
) -> PairPanel:
    """The panel for the pair ``names`` (either may be ``None``: the first two questions), at confidence ``level``,
    from the kept pair counts minus the excluded days' and the set-aside marked answers' (counted by index)."""
    problem = None
    try:
        chosen = choose_pair(survey, *names)
    except ValueError as error:
        problem, chosen = str(error), choose_pair(survey, None, None)
    questions, not_kept = pair_questions(survey), left_out_questions(survey)
    if chosen is None:
        return PairPanel(questions, not_kept, None, problem)
    return PairPanel(questions, not_kept, pair_result(db, survey, *chosen, level, excluded), problem)


def pair_result(
    db: sqlite_utils.Database, survey: Survey, first: Question, second: Question, level: float, excluded: Exclusion
) -> PairCorrelation:
    """The figures of the pair ``(first, second)`` (:func:`surveys.correlation.choose_pair`'s order) at confidence
    ``level``, from the kept pair counts minus the excluded days' and the set-aside marked answers': what the
    panel shows and the exports give (:func:`web.gather.stored_correlation`). Inside the caller's snapshot."""
    kept = kept_counts.pair_tallies(db, survey.id, first.name, second.name)
    if excluded.days:
        days = list(excluded.days)
        kept = _subtract(kept, kept_counts.pair_tallies_on_days(db, survey.id, first.name, second.name, days))
    if excluded.set_aside_days:
        aside = list(excluded.set_aside_days)
        kept = _subtract(
            kept, kept_counts.pair_tallies_on_days(db, survey.id, first.name, second.name, aside, marked_only=True)
        )
    return pair_correlation(first, second, kept, level)


def _subtract(kept: PairTallies, removed: PairTallies) -> dict:
    return {
        key: {answers: count - removed.get(key, {}).get(answers, 0) for answers, count in by_answers.items()}
        for key, by_answers in kept.items()
    }
