"""Surveys kept in the database (issue 26): every version's definition, its stage, and the change log.

Takes a :class:`sqlite_utils.Database`; knows nothing of Flask.

A survey's definition is the text of a survey file (YAML), checked by the same validator as the
command line (:func:`surveys.files.load_survey_text`) before anything is written, and kept for every
version in ``survey_versions``. ``surveys`` holds the stage (:data:`STAGES`), whether the start page
lists it, the survey file that manages it (None: made in the app) and the current version.

Once a version has answers its questions and designs are locked (:mod:`surveys.versions`): a change
made in the app becomes the next version; a survey file that changes them without raising its
``version:`` is refused. Responses carry their version and design id, so old answers stay analysed
with the design they were randomized with.

Every write that changes what the catalogue serves adds a row to ``catalog_changes`` under the next
generation number (:func:`changes_since`): each app process reads the rows past the last it saw and
reloads only those surveys. The number comes from the one row of ``catalog_generation``, whose row
lock (PostgreSQL) or the write lock (SQLite) makes writers take them in commit order, so a reader
never skips a change committed late.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path

import sqlite_utils

from storage import audit, roles, survey_states
from storage.connection import immediate_transaction
from surveys.definition import Survey
from surveys.files import load_survey_text, read_survey_text, survey_file_paths
from surveys.schema import Problem, SurveyFileError
from surveys.versions import VersionChange, describe_change, questions_differ

#: A survey's stages: a draft has no public link; a live survey is open or closed by its dates and the
#: open/close buttons (``survey_states``); an archived one is closed and kept out of the way.
STAGES = ("draft", "live", "archived")

#: The tables holding a survey's answers and what is counted from them, with the column naming it,
#: emptied by :func:`clear_answers` (and by :func:`delete_survey`). ``responses`` before ``designs``,
#: which it references.
ANSWER_TABLES = (
    "responses",
    "designs",
    "tallies",
    "group_tallies",
    "pattern_tallies",
    "pair_tallies",
    "daily_counts",
    "daily_tallies",
    "burst_tallies",
    "bursts",
    "hour_histograms",
    "excluded_days",
    "submission_keys",
)
#: What :func:`delete_survey` removes besides :data:`ANSWER_TABLES` and the roles, by table and column.
DEFINITION_TABLES = (
    ("invitation_codes", "survey_id"),
    ("survey_states", "survey_id"),
    ("survey_versions", "survey_id"),
    ("events", "survey_id"),
    ("api_tokens", "survey_id"),
    ("releases", "survey_id"),
    ("surveys", "id"),
)
#: Tables that keep a deleted survey's id, and why (tests/test_survey_store.py reads the schema).
KEPT_AFTER_DELETE = {
    "audit_log": "who deleted it and when stays on record",
    "catalog_changes": "the change that tells every app process the survey is gone",
}


@dataclass(frozen=True)
class VersionRecord:
    """One stored version: the survey file's text and who saved it when."""

    version: int
    source: str
    source_name: str
    saved_by: str | None
    saved_at: float


@dataclass(frozen=True)
class SurveyRecord:
    """A survey's row: stage, listed, the file managing it (None: made in the app), current version,
    and when it was first opened (None: never; its answers so far are test answers)."""

    id: str
    stage: str
    listed: bool
    managed_by: str | None
    current_version: int
    opened_at: float | None


@dataclass(frozen=True)
class SavedVersion:
    """What :func:`save_version` did.

    ``created``: a new survey; ``new_version``: a version row added (not changed in place);
    ``unchanged``: the text was already the stored one, nothing written; ``survey``: the definition as
    served, with its stored version; ``change``: the comparison with the version it replaced (None for
    a new survey or a new file version).
    """

    survey_id: str
    version: int
    created: bool
    new_version: bool
    unchanged: bool
    survey: Survey
    change: VersionChange | None = None


@dataclass(frozen=True)
class StoredDefinition:
    """A survey's current definition as the catalogue loads it (:func:`current_definitions`)."""

    id: str
    stage: str
    listed: bool
    managed_by: str | None
    version: int
    source: str
    source_name: str


class _Unchanged(Exception):
    """The text is the stored one: roll back, nothing written."""


def check_stage(stage: str) -> str:
    if stage not in STAGES:
        raise ValueError(f"a survey's stage is one of {', '.join(STAGES)}, not {stage!r}")
    return stage


def with_version(survey: Survey, version: int, source_name: str | None = None) -> Survey:
    """``survey`` (and each of its languages) as stored version ``version``, read from ``source_name``."""
    changes = {"version": version} if source_name is None else {"version": version, "source": source_name}
    translations = tuple((lang, dataclasses.replace(other, **changes)) for lang, other in survey.translations)
    return dataclasses.replace(survey, translations=translations, **changes)


def definition_survey(stored: StoredDefinition) -> Survey:
    """The :class:`Survey` of a stored definition (checked again, as every load is)."""
    return with_version(load_survey_text(stored.source, stored.source_name), stored.version, stored.source_name)


# -- writing ---------------------------------------------------------------


def save_version(
    db: sqlite_utils.Database,
    source_text: str,
    *,
    source_name: str,
    managed_by: str | None,
    actor: str | None,
    now: float | None = None,
    create_only: bool = False,
    owner: str | None = None,
    note: audit.Note | None = None,
) -> SavedVersion:
    """Check ``source_text`` (a survey file's YAML) and keep it as its survey's definition.

    A new survey is made a draft when saved in the app (``managed_by`` None) and live when imported
    from a survey file (``managed_by``: the file's name), as files always were. In the app, a change of
    questions or designs over a current version that has answers becomes the next version; any other
    change replaces the current version. A file names its version (``version:``): a new number adds
    that version, the same number replaces it unless it has answers and its questions or designs
    differ, which is refused. A text equal to the stored one writes nothing.

    ``create_only``: only a new survey is made; an id already stored is refused inside the save's
    transaction (two accounts creating the same id at the same moment: the second is refused, never
    made owner of the first one's survey). ``owner``: the account made owner of a new survey, and
    ``note`` the audit entry, both written in the same transaction as the version.

    Raises
    ------
    SurveyFileError
        The text does not pass the validator, or a file would change a version with answers, or
        takes an id another file or the app manages, or ``create_only`` and the id is taken; nothing
        is written.
    ValueError
        A survey managed by a file saved from the app; nothing is written.
    """
    parsed = load_survey_text(source_text, source_name)
    at = time.time() if now is None else now
    try:
        with immediate_transaction(db):
            _log_change(db, parsed.id, at)  # first: takes the catalogue's write lock
            record = survey_record(db, parsed.id)
            if record is None:
                saved = _create(db, parsed, source_text, source_name, managed_by, actor, at)
                if owner is not None:
                    roles.give_role(db, parsed.id, owner, "owner")
            else:
                _check_new(record, create_only, source_name)
                _check_manager(record, managed_by, source_name)
                if managed_by is None:
                    saved = _save_from_app(db, record, parsed, source_text, source_name, actor, at)
                else:
                    saved = _save_from_file(db, record, parsed, source_text, source_name, actor, at)
            audit.write_if(db, note)
            return saved
    except _Unchanged as unchanged:
        return unchanged.args[0]


def _create(db, parsed: Survey, text: str, name: str, managed_by: str | None, actor: str | None, at: float):
    stage = "draft" if managed_by is None else "live"
    db.execute(
        "INSERT INTO surveys (id, stage, listed, managed_by, current_version, opened_at) VALUES (?, ?, 1, ?, ?, ?)",
        [parsed.id, stage, managed_by, parsed.version, None if managed_by is None else at],
    )
    _write_version(db, parsed.id, parsed.version, text, name, actor, at)
    return SavedVersion(parsed.id, parsed.version, True, True, False, with_version(parsed, parsed.version, name))


def _check_new(record: SurveyRecord, create_only: bool, source_name: str) -> None:
    """Refuse a stored id when only a new survey may be made (:func:`save_version`'s ``create_only``)."""
    if create_only:
        message = f"there is already a survey called {record.id!r}; choose another id"
        raise SurveyFileError([Problem(source_name, None, "id", message)])


def _check_manager(record: SurveyRecord, managed_by: str | None, source_name: str) -> None:
    if record.managed_by == managed_by:
        return
    if managed_by is None:
        raise ValueError(
            f"survey {record.id!r} is managed by its survey file {record.managed_by}: change the file instead"
        )
    owner = f"the survey file {record.managed_by}" if record.managed_by else "a survey made in the app"
    raise SurveyFileError(
        [
            Problem(
                source_name, None, "id", f"survey id {record.id!r} is already used by {owner}; this file was not loaded"
            )
        ]
    )


def _save_from_app(db, record: SurveyRecord, parsed: Survey, text: str, name: str, actor, at: float):
    current = _stored_version(db, record.id, record.current_version)
    if current.source == text:
        raise _Unchanged(_unchanged(record, parsed, name))
    old = with_version(load_survey_text(current.source, current.source_name), record.current_version)
    change = describe_change(
        old, dataclasses.replace(parsed, version=old.version), has_answers(db, record.id, old.version)
    )
    version = _next_version(db, record.id) if change.locked else record.current_version
    _write_version(db, record.id, version, text, name, actor, at)
    db.execute("UPDATE surveys SET current_version = ? WHERE id = ?", [version, record.id])
    return SavedVersion(record.id, version, False, change.locked, False, with_version(parsed, version, name), change)


def _save_from_file(db, record: SurveyRecord, parsed: Survey, text: str, name: str, actor, at: float):
    version = parsed.version
    stored = _stored_version(db, record.id, version, missing_ok=True)
    if stored is not None and stored.source == text and record.current_version == version:
        raise _Unchanged(_unchanged(record, parsed, name))
    if stored is not None:
        old = with_version(load_survey_text(stored.source, stored.source_name), version)
        if questions_differ(old, parsed) and has_answers(db, record.id, version):
            raise SurveyFileError(
                [
                    Problem(
                        name,
                        None,
                        "version",
                        f"version {version} has answers: raise `version:` to change its questions or designs",
                    )
                ]
            )
    _write_version(db, record.id, version, text, name, actor, at)
    db.execute("UPDATE surveys SET current_version = ? WHERE id = ?", [version, record.id])
    return SavedVersion(record.id, version, False, stored is None, False, with_version(parsed, version, name))


def _unchanged(record: SurveyRecord, parsed: Survey, name: str) -> SavedVersion:
    version = record.current_version if record.managed_by is None else parsed.version
    return SavedVersion(record.id, version, False, False, True, with_version(parsed, version, name))


def _next_version(db, survey_id: str) -> int:
    return db.execute("SELECT MAX(version) FROM survey_versions WHERE survey_id = ?", [survey_id]).fetchone()[0] + 1


def _write_version(db, survey_id: str, version: int, text: str, name: str, actor, at: float) -> None:
    db.execute(
        "INSERT INTO survey_versions (survey_id, version, source, source_name, saved_by, saved_at)"
        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (survey_id, version) DO UPDATE SET source = excluded.source,"
        " source_name = excluded.source_name, saved_by = excluded.saved_by, saved_at = excluded.saved_at",
        [survey_id, version, text, name, actor, at],
    )


def _log_change(db, survey_id: str, at: float) -> int:
    """Take the next generation number (and with it the catalogue's write lock) and log ``survey_id``."""
    generation = db.execute(
        "INSERT INTO catalog_generation (id, generation) VALUES (1, 1) ON CONFLICT (id) DO UPDATE"
        " SET generation = catalog_generation.generation + 1 RETURNING generation"
    ).fetchone()[0]
    db.execute("INSERT INTO catalog_changes (generation, survey_id, at) VALUES (?, ?, ?)", [generation, survey_id, at])
    return generation


def _require(db, survey_id: str) -> SurveyRecord:
    record = survey_record(db, survey_id)
    if record is None:
        raise ValueError(f"there is no survey called {survey_id!r}")
    return record


def set_stage(
    db: sqlite_utils.Database,
    survey_id: str,
    stage: str,
    now: float | None = None,
    closed: bool | None = None,
    note: audit.Note | None = None,
) -> SurveyRecord:
    """Move ``survey_id`` to ``stage``; the first move to ``live`` records when it was first opened.
    Opening and closing a live survey is :func:`storage.survey_states.set_closed`, read by each submission;
    ``closed`` (not None) sets it in the same transaction, and ``note`` is written to the audit log there."""
    check_stage(stage)
    at = time.time() if now is None else now
    with immediate_transaction(db):
        record = _write_stage(db, survey_id, stage, at)
        if closed is not None:
            survey_states.write_closed(db, survey_id, closed)
        audit.write_if(db, note)
        return record


def _write_stage(db, survey_id: str, stage: str, at: float) -> SurveyRecord:
    _log_change(db, survey_id, at)
    _require(db, survey_id)
    db.execute(
        "UPDATE surveys SET stage = ?, opened_at = CASE WHEN ? = 'live' AND opened_at IS NULL THEN ?"
        " ELSE opened_at END WHERE id = ?",
        [stage, stage, at, survey_id],
    )
    return survey_record(db, survey_id)


def open_survey(db: sqlite_utils.Database, survey_id: str, note: audit.Note | None = None) -> SurveyRecord:
    """Make a draft (or archived) survey live, and a live one take answers within its file's dates (the
    ``survey_states`` override each submission reads, :func:`storage.survey_states.set_closed`), in one
    transaction with ``note``'s audit entry."""
    with immediate_transaction(db):
        record = _require(db, survey_id)
        if record.stage != "live" or record.opened_at is None:
            record = _write_stage(db, survey_id, "live", time.time())
        survey_states.write_closed(db, survey_id, False)
        audit.write_if(db, note)
        return record


def set_listed(db: sqlite_utils.Database, survey_id: str, listed: bool, note: audit.Note | None = None) -> SurveyRecord:
    """List ``survey_id`` on the start page (when open), or keep it reachable by its link only."""
    with immediate_transaction(db):
        _log_change(db, survey_id, time.time())
        _require(db, survey_id)
        db.execute("UPDATE surveys SET listed = ? WHERE id = ?", [int(bool(listed)), survey_id])
        audit.write_if(db, note)
        return survey_record(db, survey_id)


def _delete_answers(db, survey_id: str) -> None:
    """Every answer of ``survey_id`` and everything counted from them; its design records are its own
    (migration m016: the design id carries the survey's id), so no other survey's responses reference them."""
    for table in ANSWER_TABLES:
        db.execute(f"DELETE FROM {table} WHERE survey_id = ?", [survey_id])  # names from ANSWER_TABLES


def clear_answers(db: sqlite_utils.Database, survey_id: str, note: audit.Note | None = None) -> None:
    """Remove the answers given while testing a survey never opened, with everything counted from them,
    in one transaction; the definition, its versions, roles and invitation codes stay.

    Raises
    ------
    ValueError
        No such survey, or it has been opened: its answers are real.
    """
    with immediate_transaction(db):
        record = _require(db, survey_id)
        if record.opened_at is not None:
            raise ValueError(f"survey {survey_id!r} has been opened: its answers are kept")
        _delete_answers(db, survey_id)
        audit.write_if(db, note)


def delete_survey(db: sqlite_utils.Database, survey_id: str, note: audit.Note | None = None) -> None:
    """Remove ``survey_id`` from every table (answers, tallies, designs, submission keys, events, API tokens,
    invitation codes, roles, versions), in one transaction with ``note``'s audit entry, and tell every app
    process (:data:`KEPT_AFTER_DELETE`).

    Raises
    ------
    ValueError
        No such survey.
    """
    with immediate_transaction(db):
        _log_change(db, survey_id, time.time())
        _require(db, survey_id)
        _delete_answers(db, survey_id)
        for table, column in DEFINITION_TABLES:
            db.execute(f"DELETE FROM {table} WHERE {column} = ?", [survey_id])  # names from DEFINITION_TABLES
        roles.forget_survey(db, survey_id)
        audit.write_if(db, note)


@dataclass(frozen=True)
class ImportReport:
    """What :func:`import_folder` did: the versions saved (changed or new), the problems of the files
    refused (each survey keeps its stored definition), and every survey file's name found."""

    saved: tuple[SavedVersion, ...]
    problems: tuple[Problem, ...]
    files: tuple[str, ...]


def import_folder(db: sqlite_utils.Database, folder: str | Path, actor: str | None = None) -> ImportReport:
    """Check every survey file of ``folder`` and keep each as the definition of its survey, managed by the
    file (:func:`save_version` with ``managed_by`` the file's name); a file whose text is the stored one is
    not read further. A refused file leaves its survey as stored."""
    paths, problems = survey_file_paths(folder)
    return _import_paths(db, paths, problems, actor)


def import_files(db: sqlite_utils.Database, paths: list[Path], actor: str | None = None) -> ImportReport:
    """:func:`import_folder` for the survey files ``paths``."""
    return _import_paths(db, [Path(path) for path in paths], [], actor)


def _import_paths(db, paths: list[Path], problems: list[Problem], actor: str | None) -> ImportReport:
    saved = []
    for path in paths:
        try:
            text = read_survey_text(path)
            if text == _managed_source(db, path.name):
                continue
            result = save_version(db, text, source_name=path.name, managed_by=path.name, actor=actor)
        except SurveyFileError as error:
            problems.extend(error.problems)
            continue
        if not result.unchanged:
            saved.append(result)
    return ImportReport(tuple(saved), tuple(problems), tuple(path.name for path in paths))


def _managed_source(db, file_name: str) -> str | None:
    """The current definition's text of the survey the file ``file_name`` manages, if any."""
    row = db.execute(
        "SELECT v.source FROM surveys s JOIN survey_versions v ON v.survey_id = s.id AND v.version = s.current_version"
        " WHERE s.managed_by = ?",
        [file_name],
    ).fetchone()
    return None if row is None else row[0]


# -- reading ---------------------------------------------------------------

_RECORD_SQL = "SELECT id, stage, listed, managed_by, current_version, opened_at FROM surveys"


def _record(row) -> SurveyRecord:
    return SurveyRecord(row[0], row[1], bool(row[2]), row[3], row[4], row[5])


def survey_record(db: sqlite_utils.Database, survey_id: str) -> SurveyRecord | None:
    row = db.execute(_RECORD_SQL + " WHERE id = ?", [survey_id]).fetchone()
    return None if row is None else _record(row)


def survey_records(db: sqlite_utils.Database) -> dict[str, SurveyRecord]:
    """Every stored survey's record, by id."""
    return {row[0]: _record(row) for row in db.execute(_RECORD_SQL).fetchall()}


def _stored_version(db, survey_id: str, version: int, missing_ok: bool = False) -> VersionRecord | None:
    row = db.execute(
        "SELECT version, source, source_name, saved_by, saved_at FROM survey_versions"
        " WHERE survey_id = ? AND version = ?",
        [survey_id, version],
    ).fetchone()
    if row is None and not missing_ok:
        raise ValueError(f"survey {survey_id!r} has no version {version}")
    return None if row is None else VersionRecord(*row)


def version_record(db: sqlite_utils.Database, survey_id: str, version: int) -> VersionRecord:
    """One stored version; ``ValueError`` if there is none."""
    return _stored_version(db, survey_id, version)


def versions(db: sqlite_utils.Database, survey_id: str) -> list[VersionRecord]:
    """Every stored version of ``survey_id``, oldest first."""
    rows = db.execute(
        "SELECT version, source, source_name, saved_by, saved_at FROM survey_versions WHERE survey_id = ?"
        " ORDER BY version",
        [survey_id],
    ).fetchall()
    return [VersionRecord(*row) for row in rows]


def has_answers(db: sqlite_utils.Database, survey_id: str, version: int) -> bool:
    """Whether any response of ``survey_id`` was stored under ``version``."""
    row = db.execute(
        "SELECT 1 FROM designs WHERE survey_id = ? AND survey_version = ? LIMIT 1", [survey_id, version]
    ).fetchone()
    if row is None:  # a design record names the first version that used it: read the responses themselves
        row = db.execute(
            "SELECT 1 FROM responses WHERE survey_id = ? AND survey_version = ? LIMIT 1", [survey_id, version]
        ).fetchone()
    return row is not None


def current_definitions(db: sqlite_utils.Database, survey_ids: list[str] | None = None) -> list[StoredDefinition]:
    """The current definition of every survey (of ``survey_ids`` only, when given), in one query."""
    sql = (
        "SELECT s.id, s.stage, s.listed, s.managed_by, s.current_version, v.source, v.source_name FROM surveys s"
        " JOIN survey_versions v ON v.survey_id = s.id AND v.version = s.current_version"
    )
    args: list = []
    if survey_ids is not None:
        if not survey_ids:
            return []
        sql += " WHERE s.id IN (" + ", ".join("?" for _ in survey_ids) + ")"
        args = list(survey_ids)
    rows = db.execute(sql + " ORDER BY s.id", args).fetchall()
    return [StoredDefinition(row[0], row[1], bool(row[2]), row[3], row[4], row[5], row[6]) for row in rows]


def latest_generation(db: sqlite_utils.Database) -> int:
    """The newest change's generation number (0: none yet)."""
    return db.execute("SELECT COALESCE(MAX(generation), 0) FROM catalog_changes").fetchone()[0]


def changes_since(db: sqlite_utils.Database, generation: int) -> tuple[int, tuple[str, ...]]:
    """``(newest generation, ids of the surveys changed after generation)``, in one indexed query; the
    ``generation`` itself back with no ids when nothing changed."""
    rows = db.execute(
        "SELECT generation, survey_id FROM catalog_changes WHERE generation > ? ORDER BY generation", [generation]
    ).fetchall()
    if not rows:
        return generation, ()
    return rows[-1][0], tuple(dict.fromkeys(survey_id for _, survey_id in rows))
