"""The audit log's page and CSV: site administrators see every entry, owners those of their surveys.

Entries (:mod:`storage.audit`) are kept for ``AUDIT_LOG_DAYS`` days: older ones
are removed by ``flask --app app audit purge`` (a daily cron job) and whenever
this page is opened.
"""

from __future__ import annotations

import csv
import io
import time

from flask import Blueprint, current_app, g, render_template

from storage import audit, roles
from web.db import get_db
from web.exports import download
from web.permissions import signed_in

bp = Blueprint("auditlog", __name__, url_prefix="/admin")

#: Entries on the page; the CSV has up to :data:`CSV_LIMIT`.
PAGE_LIMIT = 500
CSV_LIMIT = 100_000


def visible_entries(limit: int) -> list[audit.Entry]:
    """Every entry for a site administrator; for anyone else, the entries of the surveys they own and their
    own actions (a deleted survey's owner still sees that she deleted it)."""
    db = get_db()
    if g.site_admin:
        return audit.entries(db, None, limit)
    owned = sorted(survey_id for survey_id, role in roles.roles_of(db, g.admin).items() if role == "owner")
    return audit.entries(db, owned, limit, actor=g.admin)


def cell(text: str) -> str:
    """``text`` as a spreadsheet shows it and never runs it: a leading ``= + - @`` (a formula) gets a ``'``."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(at))


@bp.get("/audit")
@signed_in
def audit_page():
    audit.purge_older_than(get_db(), float(current_app.config["AUDIT_LOG_DAYS"]))
    return render_template(
        "admin/audit.html",
        entries=visible_entries(PAGE_LIMIT),
        when=when,
        days=current_app.config["AUDIT_LOG_DAYS"],
        limit=PAGE_LIMIT,
    )


@bp.get("/audit.csv")
@signed_in
def audit_csv():
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["time_utc", "actor", "action", "survey_id", "detail"])
    for entry in visible_entries(CSV_LIMIT):
        fields = (entry.actor or "", entry.action, entry.survey_id or "", entry.detail)
        writer.writerow([when(entry.at), *map(cell, fields)])
    return download(out.getvalue(), "text/csv", "audit-log.csv")
