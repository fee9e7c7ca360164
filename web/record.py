"""The write side of a submission, one call: the counterpart of the read service :mod:`web.gather`.

The view parses the submission (:mod:`web.respond`, :mod:`web.pages`) and
calls :func:`record` once; it builds the stored (noisy) response
(:func:`surveys.submission.noisy_response`) and hands it to
:func:`storage.responses.store_submission`, which does everything a stored
answer needs in one transaction: the submission key (exactly once), the
invitation code, the arrival count and the burst rule, the answer and its
kept tallies. The self-closing check (:func:`web.gather.close_if_targets_met`)
follows a stored answer of a survey that closes itself; its failure never
undoes the answer. Knows nothing of Flask: the caller passes the database,
where arrivals are counted and the app's burst rules.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

import sqlite_utils

from storage import responses
from surveys.definition import Survey
from surveys.submission import noisy_response
from web import gather
from web.limits import Arrival, BurstRules

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Submission:
    """A parsed submission: the noisy ``answers``, where they were randomized, the submission ``key``,
    the invitation ``code`` as sent (``""``: none) and the respondent's ``arm``."""

    answers: dict
    randomized_on: str
    key: str
    code: str = ""
    arm: str = ""


def record(
    db: sqlite_utils.Database,
    survey: Survey,
    submission: Submission,
    day: date,
    arrivals: responses.Arrivals,
    rules: BurstRules,
    refuse: Callable[[bool | None], bool] | None = None,
) -> responses.Outcome:
    """Store ``submission`` to ``survey`` on ``day`` in one transaction and say what happened
    (:class:`storage.responses.Outcome`); then, once stored, close the survey if its targets are met.
    ``refuse``: asked in the transaction's first round trip with the admin's open/closed choice (the
    survey's state checked there instead of before; True: nothing stored, ``Outcome.REFUSED``)."""

    def burst_of(db: sqlite_utils.Database, hour_count: int | None):
        arrival = Arrival(hour_count or 0, arrivals.hour, arrivals)
        return rules.burst_of(db, survey.id, arrival, survey.burst_ceiling_per_hour)

    outcome = responses.store_submission(
        db,
        noisy_response(survey, submission.answers, submission.randomized_on, submission.arm),
        submission.key,
        day.isoformat(),
        submission.code if survey.invitation_only else None,
        arrivals=arrivals,
        burst_of=burst_of,
        refuse=refuse,
    )
    if outcome is responses.Outcome.STORED and survey.close_when_targets_met:
        close_if_targets_met(db, survey)
    return outcome


def close_if_targets_met(db: sqlite_utils.Database, survey: Survey) -> None:
    """After a stored answer, close the survey if every target is met (:func:`web.gather.close_if_targets_met`).

    The answer is stored and acknowledged whatever happens here: a failure
    (the database busy beyond its timeout) is logged with the survey's id
    only, and the next answer checks again.
    """
    try:
        gather.close_if_targets_met(db, survey)
    except Exception:  # noqa: BLE001 - the stored answer must still be thanked
        logger.exception("survey %s: checking its targets failed; it stays open for now", survey.id)
