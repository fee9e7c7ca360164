"""The survey catalogue: the surveys kept in the database (:mod:`storage.surveys`), cached per process.

Each process keeps the parsed surveys and, at most every :data:`POLL_SECONDS`, reads the change log
past the last generation it saw (one indexed query, empty when nothing changed) and reloads only the
surveys named there: another app server's change is served within a second, at a cost flat in the
number of stored surveys, and no query is added to a submission (the check runs at most twice a
second per process, whatever the traffic).

The folders of survey files (``SURVEYS_DIR``, and the shipped examples with ``EXAMPLE_SURVEYS``) are a
way to manage surveys as code: their files are imported on start and whenever a folder's listing
(names, sizes, times) changes, so a file dropped in the folder is served on the next request; a
broken file is reported (log and dashboard) and skipped, its survey keeping its stored definition.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import threading
import time
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from types import MappingProxyType

from flask import Flask, abort, current_app
from flask_babel import lazy_gettext

from storage import connection, survey_states
from storage import surveys as stored_surveys
from surveys.definition import Survey
from surveys.files import Standing, SurveyCatalog
from surveys.schema import Problem, SurveyFileError
from web.db import get_db, open_database
from web.language import N_

logger = logging.getLogger(__name__)

#: Seconds between two reads of the change log by one process.
POLL_SECONDS = 0.5
#: The example surveys shipped with the app, imported with the ``EXAMPLE_SURVEYS`` setting.
EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "survey_files"

_lock = threading.Lock()


@dataclasses.dataclass
class _Kept:
    """One process's catalogue: the surveys, their standing, the last change seen and when it looked."""

    surveys: dict = dataclasses.field(default_factory=dict)
    standing: dict = dataclasses.field(default_factory=dict)
    broken: dict = dataclasses.field(default_factory=dict)
    generation: int = -1
    checked: float = float("-inf")
    signature: tuple | None = None
    problems: tuple = ()
    files: tuple = ()
    catalog: SurveyCatalog | None = None


def survey_folders(config) -> list[Path]:
    """The folders whose survey files are imported: ``SURVEYS_DIR`` (if set) and, with ``EXAMPLE_SURVEYS``,
    the shipped examples."""
    folders = [Path(config["SURVEYS_DIR"])] if config.get("SURVEYS_DIR") else []
    if config.get("EXAMPLE_SURVEYS") and EXAMPLES_DIR not in folders:
        folders.append(EXAMPLES_DIR)
    return folders


def _folder_signature(folder: Path) -> tuple:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return ("missing",)
    return tuple((e.name, e.stat().st_mtime_ns, e.stat().st_size) for e in entries if e.is_file())


def import_folders(db, folders: list[Path], actor: str | None = None) -> tuple[tuple[Problem, ...], tuple[str, ...]]:
    """Import every survey file of ``folders`` (:func:`storage.surveys.import_folder`); their problems
    (logged) and file names."""
    problems: list[Problem] = []
    files: list[str] = []
    for folder in folders:
        report = stored_surveys.import_folder(db, folder, actor)
        problems.extend(report.problems)
        files.extend(report.files)
    for problem in problems:
        logger.error("%s", problem)
    return tuple(problems), tuple(files)


def import_on_start(app: Flask) -> None:
    """Import the survey folders once as the app starts (each process; an unchanged file writes nothing)."""
    folders = survey_folders(app.config)
    if not folders:
        return
    db = open_database(app)
    try:
        import_folders(db, folders)
    finally:
        db.close()


def get_catalog() -> SurveyCatalog:
    """The current catalogue: the folders imported if their listing changed, the change log read at most
    every :data:`POLL_SECONDS`."""
    kept = current_app.extensions.setdefault("rr_catalog", _Kept())
    folders = survey_folders(current_app.config)
    signature = tuple(_folder_signature(folder) for folder in folders)
    with _lock:
        db = get_db()
        writable = not connection.in_transaction(db)
        if writable and signature != kept.signature:
            kept.problems, kept.files = import_folders(db, folders)
            kept.signature = signature
            kept.catalog = None  # rebuilt below, with the files' problems and what the import changed
        if kept.catalog is None or (writable and time.monotonic() - kept.checked >= POLL_SECONDS):
            _refresh(db, kept)
        return kept.catalog


def _refresh(db, kept: _Kept) -> None:
    """Reload the surveys changed since ``kept.generation`` (all of them the first time).

    A changed definition replaces the kept one in place (a dict's value replaced, which a request
    iterating the catalogue meanwhile tolerates); a survey added or removed makes new dicts, so a
    request holding the previous catalogue never sees its size change. Either way the cost is that
    of the changed surveys, not of the stored ones (bench/catalog_bench.py)."""
    kept.checked = time.monotonic()
    if kept.generation < 0:
        generation = stored_surveys.latest_generation(db)
        kept.surveys, kept.standing, kept.broken = {}, {}, {}
        for definition in stored_surveys.current_definitions(db):
            _keep(kept, definition)
    else:
        generation, changed = stored_surveys.changes_since(db, kept.generation)
        if not changed and kept.catalog is not None:
            return
        fresh = _Kept()
        for definition in stored_surveys.current_definitions(db, list(changed)):
            _keep(fresh, definition)
        if any((survey_id in kept.surveys) != (survey_id in fresh.surveys) for survey_id in changed):
            kept.surveys, kept.standing = dict(kept.surveys), dict(kept.standing)
        for survey_id in changed:
            _replace(kept.surveys, survey_id, fresh.surveys)
            _replace(kept.standing, survey_id, fresh.standing)
            _replace(kept.broken, survey_id, fresh.broken)
    kept.generation = generation
    kept.catalog = SurveyCatalog(
        MappingProxyType(kept.surveys),
        kept.problems + tuple(kept.broken.values()),
        kept.files,
        MappingProxyType(kept.standing),
    )


def _replace(target: dict, key: str, source: dict) -> None:
    if key in source:
        target[key] = source[key]
    else:
        target.pop(key, None)


def _keep(kept: _Kept, definition: stored_surveys.StoredDefinition) -> None:
    try:
        survey = stored_surveys.definition_survey(definition)
    except SurveyFileError as error:  # stored under an older validator that took what this one refuses
        kept.broken[definition.id] = error.problems[0]
        logger.error("%s", error.problems[0])
        return
    kept.surveys[definition.id] = survey
    kept.standing[definition.id] = Standing(definition.stage, definition.listed, definition.managed_by)


def refresh_now() -> None:
    """Read the change log now (after a change made by this process, so its next page shows it)."""
    kept = current_app.extensions.get("rr_catalog")
    if kept is not None:
        kept.checked = float("-inf")


def today() -> date:
    """Today in UTC: the only time stored with an answer, at day precision."""
    return datetime.now(UTC).date()


def state_on(survey: Survey, closed_override: bool | None, day: date) -> str:
    """``open``, ``closed`` or ``not yet open`` on ``day``: the file's dates, with the
    admin's open/close choice (if any, :func:`storage.survey_states.closed_override`)
    in place of the file's ``closed`` flag (no copy of the survey made for it)."""
    return survey.state(day, closed_override)


def survey_state(survey: Survey) -> str:
    """The survey's state today (:func:`state_on`), read from the request's connection."""
    return state_on(survey, survey_states.closed_override(get_db(), survey.id), today())


def survey_state_and_key_seen(survey: Survey, key: str | None) -> tuple[str, bool]:
    """:func:`survey_state` and whether submission ``key`` was stored already, read in one query
    (:func:`storage.survey_states.closed_override_and_key_seen`)."""
    return send_survey_state_and_key_seen(survey, key)()


def send_survey_state_and_key_seen(survey: Survey, key: str | None) -> Callable[[], tuple[str, bool]]:
    """:func:`survey_state_and_key_seen`, sent now and read when the returned function is called (in a
    pipeline, :func:`storage.connection.pipeline`, with the statements sent beside it)."""
    pending = survey_states.send_closed_override_and_key_seen(get_db(), survey.id, key)

    def read() -> tuple[str, bool]:
        closed, seen = pending()
        return state_on(survey, closed, today()), seen

    return read


#: The 404's sentence for a survey address that names no survey (marked for the catalogues, translated lazily).
NO_SURVEY_CALLED = N_("There is no survey called “%(survey)s”.")


def no_survey_called(survey_id: str):
    """The 404's sentence for a survey address that names no survey, translated when the page is made, in the
    language the error page chooses (:func:`web.errors.handle_http_error`)."""
    return lazy_gettext(NO_SURVEY_CALLED, survey=survey_id)


def survey_or_404(survey_id: str) -> Survey:
    """The survey, for its people's pages (a draft included); the 404 of a missing survey otherwise."""
    survey = get_catalog().get(survey_id)
    if survey is None:
        abort(404, description=no_survey_called(survey_id))
    return survey


def respondent_survey_or_404(survey_id: str) -> Survey:
    """The survey a respondent reaches by its link: a draft answers the 404 of a missing survey."""
    survey = get_catalog().public(survey_id)
    if survey is None:
        abort(404, description=no_survey_called(survey_id))
    return survey
