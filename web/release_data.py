"""What the release pages read from storage, and publishing a release: one trip each, as :mod:`web.gather`.

A view of :mod:`web.releases` parses the form, calls one function here and
renders. :func:`publish_release` reads the kept tallies (the results page's:
excluded days and set-aside answers left out) in one read snapshot, makes the
release (:func:`surveys.releases.make_release`, noise from
:data:`surveys.central_noise.SECURE`), then checks the budget and stores it in
ONE write transaction (:func:`storage.releases.publish`), so two owners
publishing at once cannot overspend. Nothing is stored when it is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date
from fractions import Fraction

import sqlite_utils

from analysis.central import PrivacyCost, TotalCost, sequential, total_cost
from storage import audit, connection, releases
from surveys.central_noise import SECURE, CentralSampler
from surveys.definition import Survey
from surveys.releases import (
    FigureChoice,
    Release,
    ReleaseInputs,
    ReleasePlan,
    ReleasePolicy,
    ReleaseRefused,
    budget_left,
    check_release,
    figure_choices,
    make_release,
    plan_release,
    release_cost,
    release_from_json,
    release_to_json,
)
from web.gather import read_exclusion, read_group_tallies, read_tallies


@dataclass(frozen=True)
class Budget:
    """A survey's release budget: the policy, what its releases spent (composed) and what is left."""

    policy: ReleasePolicy
    spent: TotalCost
    left: TotalCost
    releases: int
    answers_at_last: int | None


@dataclass(frozen=True)
class ReleaseForm:
    """The publishing page: the figures to choose from, the budget, the answers now; with a preview, the plan,
    what would be left after it and the refusal it would get (None: it would be published)."""

    survey: Survey
    choices: tuple[FigureChoice, ...]
    budget: Budget | None
    answers_now: int
    plan: ReleasePlan | None = None
    left_after: TotalCost | None = None
    refusal: str | None = None

    @property
    def labels(self) -> dict[str, str]:
        """What each figure's key reads as."""
        return {choice.key: choice.label for choice in self.choices}


@dataclass(frozen=True)
class LedgerRow:
    """One release on the ledger: what was stored and the release it holds (None: its stored text cannot be
    read, see :func:`readable`)."""

    stored: releases.StoredRelease
    release: Release | None


@dataclass(frozen=True)
class Ledger:
    survey: Survey
    rows: tuple[LedgerRow, ...]
    budget: Budget | None


def _budget(policy: ReleasePolicy | None, spent: Sequence[PrivacyCost], last: int | None) -> Budget | None:
    if policy is None:
        return None
    try:
        return Budget(policy, total_cost(spent, policy.delta), budget_left(policy, spent), len(spent), last)
    except ValueError:  # the file's delta became 0 after a release with a delta: nothing is left to spend
        plain = sequential(spent)
        used = TotalCost(plain.epsilon, plain.delta, "sequential", plain.epsilon)
        return Budget(policy, used, TotalCost(0.0, policy.delta, "sequential", 0.0), len(spent), last)


def _answers_now(db: sqlite_utils.Database, survey: Survey) -> int:
    return read_tallies(db, survey, read_exclusion(db, survey))[1]


def release_form(
    db: sqlite_utils.Database, survey: Survey, keys: Sequence[str] = (), epsilon: Fraction | None = None
) -> ReleaseForm:
    """The publishing page of ``survey``; with ``epsilon`` (``keys`` chosen), the preview of that release: its
    plan, what would be left and the refusal it would get. Nothing is stored. ValueError naming a bad key."""
    with connection.read_snapshot(db):
        spent = releases.spent(db, survey.id)
        last = releases.answers_at_last(db, survey.id)
        answers = _answers_now(db, survey)
    policy = survey.release_policy
    page = ReleaseForm(survey, figure_choices(survey), _budget(policy, spent, last), answers)
    if epsilon is None:
        return page
    plan = plan_release(survey, keys, epsilon)  # ReleaseRefused for a survey without a `releases:` key
    try:
        check_release(policy, plan, spent, answers, last)
        refusal = None
    except ReleaseRefused as refused:
        refusal = str(refused)
    left_after = budget_left(policy, [*spent, release_cost(plan)])
    return replace(page, plan=plan, left_after=left_after, refusal=refusal)


def _plain_questions_needed(keys: Sequence[str]) -> list[str]:
    """The plain questions whose group tallies a release of ``keys`` reads (its break-downs' ``by``)."""
    return sorted({key.split(":")[2] for key in keys if key.startswith("breakdown:")})


def read_inputs(db: sqlite_utils.Database, survey: Survey, keys: Sequence[str]) -> ReleaseInputs:
    with connection.read_snapshot(db):
        excluded = read_exclusion(db, survey)
        tallies, answers = read_tallies(db, survey, excluded)
        grouped = {by: read_group_tallies(db, survey, by, excluded) for by in _plain_questions_needed(keys)}
    return ReleaseInputs(tallies=tallies, group_tallies=grouped, answers=answers)


def publish_release(
    db: sqlite_utils.Database,
    survey: Survey,
    keys: Sequence[str],
    epsilon: Fraction,
    actor: str | None,
    day: date,
    sampler: CentralSampler = SECURE,
    *,
    listed: bool = False,
) -> releases.StoredRelease:
    """Make and store a release of ``keys`` spending ``epsilon``, made on ``day`` by ``actor``; ``listed``: shown
    on the public start page under its survey (else only its address leads to it).

    Raises :class:`surveys.releases.ReleaseRefused` (over budget, too few new answers, no ``releases:`` key)
    or ValueError (a bad key, a bad epsilon); nothing is stored then."""
    plan = plan_release(survey, keys, epsilon)  # refused first for a survey without a `releases:` key
    policy = survey.release_policy
    inputs = read_inputs(db, survey, plan.keys)
    release = make_release(survey, plan, inputs, sampler, day)

    def check(spent: list[PrivacyCost], last: int | None) -> None:
        check_release(policy, plan, spent, inputs.answers, last)

    figures = ", ".join(plan.keys)
    note = audit.Note(actor, "release-published", survey.id, f"epsilon {float(plan.cost.epsilon):g}: {figures}")
    return releases.publish(
        db,
        survey.id,
        check,
        release_to_json(release),
        release_cost(plan),
        inputs.answers,
        note,
        listed=listed,
        made_on=day.isoformat(),
    )


def ledger(db: sqlite_utils.Database, survey: Survey) -> Ledger:
    """Every release of ``survey`` with its figures and cost, the total spent and what is left."""
    with connection.read_snapshot(db):
        stored = releases.releases_of(db, survey.id)
    rows = tuple(LedgerRow(row, readable(row.body)) for row in stored)
    last = stored[-1].answers if stored else None
    return Ledger(survey, rows, _budget(survey.release_policy, [row.cost for row in stored], last))


def readable(body: str) -> Release | None:
    """The release a stored ``body`` holds, or None when it cannot be read (damaged or edited by hand, or written
    by a version whose fields differ): the pages then say so instead of failing."""
    try:
        return release_from_json(body)
    except (ValueError, KeyError, TypeError, AttributeError):  # json.JSONDecodeError is a ValueError
        return None


def published(db: sqlite_utils.Database, token: str) -> tuple[releases.StoredRelease, Release | None] | None:
    """The release whose address is ``token``, as stored (a snapshot: never recomputed); None if unknown; its
    release None when its stored text cannot be read (:func:`readable`)."""
    stored = releases.release_by_token(db, token)
    return None if stored is None else (stored, readable(stored.body))


@dataclass(frozen=True)
class ListedSurvey:
    """A survey's listed releases, for the public start page."""

    survey_id: str
    title: str
    releases: tuple[releases.StoredRelease, ...]


def listed(db: sqlite_utils.Database, titles: dict[str, str]) -> tuple[ListedSurvey, ...]:
    """The releases their owners chose to list, grouped under their survey (``titles``: survey id to title, the
    catalogue's; a survey no longer in it is left out: its releases stay at their addresses)."""
    grouped: dict[str, list[releases.StoredRelease]] = {}
    for row in releases.listed_releases(db):
        if row.survey_id in titles:
            grouped.setdefault(row.survey_id, []).append(row)
    return tuple(ListedSurvey(sid, titles[sid], tuple(rows)) for sid, rows in sorted(grouped.items()))
