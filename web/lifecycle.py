"""A survey's life in the app: draft -> open -> closed -> archived, and deleted (issue 26).

Blueprint ``lifecycle``, under ``/admin/surveys/<survey_id>/``; every route is its owners' (and site
administrators'), and every change is recorded in the audit log. The stage and the listing live in
``surveys`` (:mod:`storage.surveys`); opening and closing a live survey stays the ``survey_states``
override each submission already reads, so the submission path is unchanged:

* a draft has no public link (``/s/<id>`` answers the 404 of a missing survey); opening it makes it live;
* an archived survey is closed and kept out of the way; unarchiving makes it live and closed;
* an unlisted survey is reachable by its link and not on the start page;
* the answers of a survey never opened are test answers, which its owner may clear;
* deleting removes every row of the survey in one transaction, after the owner types its id; the
  confirmation page offers a backup first (every version's survey file, the responses and the codebook).
"""

from __future__ import annotations

import io
import json
import tempfile
import zipfile
from dataclasses import dataclass

from flask import Blueprint, abort, current_app, flash, g, redirect, render_template, request, send_file, url_for

from storage import audit
from storage import surveys as stored_surveys
from web import answer_package
from web.admin import ActionForm, close_by_hand, open_by_hand, posted_form, stored_record
from web.catalog import get_catalog, refresh_now, survey_or_404
from web.db import get_db, open_database
from web.permissions import may, survey_access

bp = Blueprint("lifecycle", __name__, url_prefix="/admin/surveys/<survey_id>")


@dataclass(frozen=True)
class Panel:
    """What the survey page's lifecycle block shows: the stage, the state today, the listing, the managing
    file, and which buttons apply."""

    survey_id: str
    stage: str
    state: str
    listed: bool
    managed_by: str | None
    opened: bool
    owner: bool

    @property
    def shown_state(self) -> str:
        """``draft``, ``archived``, or the state of a live survey (``open``, ``closed``, ``not yet open``)."""
        return self.stage if self.stage != "live" else self.state


@bp.app_template_global("lifecycle_panel")
def panel(survey, state: str) -> Panel | None:
    """The lifecycle block of ``survey``'s page, ``state`` its state today as the page read it (None for a
    survey not stored)."""
    record = stored_surveys.survey_record(get_db(), survey.id)
    if record is None:
        return None
    return Panel(
        survey.id,
        record.stage,
        state,
        record.listed,
        record.managed_by,
        record.opened_at is not None,
        may("owner", survey.id),
    )


@bp.app_template_global("survey_standing")
def survey_standing(survey_id: str):
    """The survey's :class:`surveys.files.Standing` (stage, listed, managing file), from the catalogue."""
    return get_catalog().standing_of(survey_id)


def _note(survey_id: str, detail: str) -> audit.Note:
    """The audit entry of a stage change, written in the change's own transaction."""
    return audit.Note(g.admin, "survey-state", survey_id, detail)


def _done(survey_id: str, message: str):
    """Let this process's catalogue see the change at once, say so and go back to the survey."""
    refresh_now()
    flash(message, "success")
    return redirect(url_for("admin.survey_page", survey_id=survey_id))


@bp.post("/open")
@survey_access("owner")
def open_(survey_id: str):
    survey = survey_or_404(survey_id)
    posted_form()
    open_by_hand(survey, _note(survey_id, "opened"))
    return _done(survey_id, f"“{survey.title}” is live and takes answers within its dates.")


@bp.post("/close")
@survey_access("owner")
def close(survey_id: str):
    survey = survey_or_404(survey_id)
    posted_form()
    close_by_hand(survey, _note(survey_id, "closed"))
    return _done(survey_id, f"“{survey.title}” is closed: it takes no more answers.")


@bp.post("/archive")
@survey_access("owner")
def archive(survey_id: str):
    survey = survey_or_404(survey_id)
    posted_form()
    stored_surveys.set_stage(get_db(), survey_id, "archived", closed=True, note=_note(survey_id, "archived"))
    return _done(survey_id, f"“{survey.title}” is archived: closed, its results and exports kept.")


@bp.post("/unarchive")
@survey_access("owner")
def unarchive(survey_id: str):
    survey = survey_or_404(survey_id)
    posted_form()
    if stored_record(survey_id).stage != "archived":
        abort(400, description=f"“{survey.title}” is not archived.")
    stored_surveys.set_stage(get_db(), survey_id, "live", note=_note(survey_id, "unarchived"))
    return _done(survey_id, f"“{survey.title}” is back, closed: open it to take answers again.")


#: The audit entry's detail of each ``listed`` value.
LISTED = {"on": "listed", "off": "unlisted"}


@bp.post("/listed")
@survey_access("owner")
def listed(survey_id: str):
    """``listed`` = ``on``: on the start page when open; ``off``: reachable by its link only."""
    survey = survey_or_404(survey_id)
    posted_form()
    wanted = request.form.get("listed")
    if wanted not in ("on", "off"):
        abort(400, description="listed must be “on” or “off”.")
    stored_surveys.set_listed(get_db(), survey_id, wanted == "on", note=_note(survey_id, LISTED[wanted]))
    if wanted == "on":
        return _done(survey_id, f"“{survey.title}” is on the start page while it is open.")
    return _done(survey_id, f"“{survey.title}” is reachable by its link only, not on the start page.")


@bp.get("/clear")
@survey_access("owner")
def confirm_clear(survey_id: str):
    survey = survey_or_404(survey_id)
    if stored_record(survey_id).opened_at is not None:
        abort(400, description=f"“{survey.title}” has been opened: its answers are real and are kept.")
    return render_template("admin/confirm_clear.html", survey=survey, action=ActionForm())


@bp.post("/clear")
@survey_access("owner")
def clear(survey_id: str):
    """Remove the test answers of a survey never opened (one transaction)."""
    survey = survey_or_404(survey_id)
    posted_form()
    try:
        stored_surveys.clear_answers(get_db(), survey_id, note=audit.Note(g.admin, "test-answers-cleared", survey_id))
    except ValueError:
        abort(400, description=f"“{survey.title}” has been opened: its answers are real and are kept.")
    flash(f"The test answers of “{survey.title}” are cleared.", "success")
    return redirect(url_for("admin.survey_page", survey_id=survey_id))


@bp.get("/delete")
@survey_access("owner")
def confirm_delete(survey_id: str):
    survey = survey_or_404(survey_id)
    return render_template("admin/confirm_delete.html", survey=survey, action=ActionForm(), typed="")


@bp.post("/delete")
@survey_access("owner")
def delete(survey_id: str):
    """Delete the survey and everything stored of it, once its id is typed exactly; else the page again, 400."""
    survey = survey_or_404(survey_id)
    posted_form()
    typed = request.form.get("confirm_id", "")
    if typed != survey_id:
        html = render_template(
            "admin/confirm_delete.html", survey=survey, action=ActionForm(), typed=typed[:200], mismatch=True
        )
        return html, 400
    note = audit.Note(g.admin, "survey-deleted", survey_id, survey.title[:200])
    stored_surveys.delete_survey(get_db(), survey_id, note=note)
    refresh_now()
    flash(f"“{survey.title}” and everything stored of it are deleted.", "success")
    return redirect(url_for("admin.dashboard"))


@bp.get("/backup.zip")
@survey_access("owner")
def backup(survey_id: str):
    """A zip of every version's survey file, the noisy responses (CSV) and their codebook (JSON)."""
    survey = survey_or_404(survey_id)
    spool = tempfile.SpooledTemporaryFile(max_size=8 * 1024 * 1024)  # noqa: SIM115 - send_file closes it
    write_backup(spool, survey)
    spool.seek(0)
    audit.record(get_db(), g.admin, "export", survey_id, "backup before deletion")
    return send_file(spool, mimetype="application/zip", as_attachment=True, download_name=f"{survey_id}-backup.zip")


def write_backup(target, survey) -> None:
    """Write the backup zip of ``survey`` to the file object ``target``: ``versions/v<N>-<file>`` for every
    stored version, ``responses.csv`` streamed (:func:`web.answer_package.responses_csv`) and ``codebook.json``."""
    db = open_database(current_app)
    try:
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
            for version in stored_surveys.versions(db, survey.id):
                archive.writestr(f"versions/v{version.version}-{version.source_name}", version.source)
            with archive.open("responses.csv", "w") as handle, io.TextIOWrapper(handle, "utf-8", newline="") as text:
                for chunk in answer_package.responses_csv(db, survey):
                    text.write(chunk)
            archive.writestr("codebook.json", json.dumps(answer_package.codebook(db, survey), indent=2, default=str))
    finally:
        db.close()
