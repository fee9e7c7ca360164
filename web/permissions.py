"""Every signed-in route declares who it admits (issue 26).

Each view is wrapped in exactly one of:

* :func:`public`: anyone (the start page, the survey form, sign-in);
* :func:`signed_in`: any account (the dashboard, one's own password);
* :func:`site_admin_only`: site administrators (accounts);
* :func:`survey_access`: a role on the survey named by the route's
  ``survey_id`` (:data:`storage.roles.ROLES`); site administrators hold every
  role. Anyone else gets the 404 a survey that does not exist gets, with the
  same words, so a route never tells whether someone else's survey exists;
* :func:`survey_token`: a read-only API token of the route's survey, sent as
  ``Authorization: Bearer <token>`` (:mod:`web.api`); no cookie is read.

Each wrapper leaves the rule on the view as ``view.access`` ("public",
"signed-in", "site-admin", "survey:ROLE" or "token"); ``tests/test_permissions.py``
walks the app's route table and fails for a view without one.

Signed out, pages redirect to sign-in and data (downloads, POSTs) answer 401.

With the ``REQUIRE_SECOND_FACTOR_FOR_SITE_ADMINS`` setting, a site
administrator without a second factor is sent to the Account page to set one
up before anything else: only views marked :func:`before_enrolment` (that
page and its forms) admit them until then.
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime

from flask import abort, current_app, flash, g, redirect, request, url_for

from storage import accounts, roles, second_factor, tokens
from web.db import get_db

#: The admin's session cookie: a random token whose hash names a row of ``admin_sessions``.
ADMIN_COOKIE = "rr_admin"
#: Paths of downloads (data, not pages): signed out, they answer 401 instead of redirecting.
DATA_SUFFIXES = (".csv", ".json", ".sav", ".dta", ".R")


def _mark(view, access: str):
    view.access = access
    return view


def public(view):
    """Anyone may use ``view``."""
    return _mark(view, "public")


def _refuse_signed_out():
    if request.method == "GET" and not request.path.endswith(DATA_SUFFIXES):
        return redirect(url_for("auth.login", next=request.full_path.rstrip("?")))
    abort(401, description="Sign in to see this.")


def _sign_in_from_cookie() -> bool:
    """Set ``g.admin`` (the account name, or None) and ``g.site_admin``; True if signed in."""
    g.admin = signed_in_admin()
    g.site_admin = roles.is_site_admin(get_db(), g.admin) if g.admin else False
    return g.admin is not None


def before_enrolment(view):
    """Mark ``view`` (under its access rule) as usable by a site administrator who must still set up a
    second factor (the Account page and its forms)."""
    view.before_enrolment = True
    return view


def _enrolment_refusal(view):
    """None, or the answer to a site administrator who must set up a second factor first."""
    if (
        not g.site_admin
        or not current_app.config["REQUIRE_SECOND_FACTOR_FOR_SITE_ADMINS"]
        or getattr(view, "before_enrolment", False)
        or second_factor.is_enabled(get_db(), g.admin)
    ):
        return None
    if request.method != "GET":
        abort(403, description="Site administrators set up a second factor first (Account page).")
    flash("Site administrators set up a second factor before anything else: do it here.", "info")
    return redirect(url_for("people.account"))


def signed_in_admin() -> str | None:
    """The account whose live server-side session the admin cookie names, or None."""
    return accounts.session_account(get_db(), request.cookies.get(ADMIN_COOKIE))


def signed_in(view):
    """Any signed-in account."""

    @functools.wraps(view)
    def wrapped(**kwargs):
        if not _sign_in_from_cookie():
            return _refuse_signed_out()
        return _enrolment_refusal(view) or view(**kwargs)

    return _mark(wrapped, "signed-in")


def site_admin_only(view):
    """Site administrators; another account gets a 403."""

    @functools.wraps(view)
    def wrapped(**kwargs):
        if not _sign_in_from_cookie():
            return _refuse_signed_out()
        if not g.site_admin:
            abort(403, description="Only a site administrator can do this.")
        return _enrolment_refusal(view) or view(**kwargs)

    return _mark(wrapped, "site-admin")


def no_such_survey(survey_id: str):
    """The one refusal for a survey that does not exist or is not the caller's to see."""
    abort(404, description=f"There is no survey called “{survey_id}”.")


def role_here(survey_id: str) -> str | None:
    """The signed-in account's role on ``survey_id``: ``owner`` for a site administrator."""
    if getattr(g, "site_admin", False):
        return "owner"
    if not getattr(g, "admin", None):
        return None
    return roles.role_of(get_db(), survey_id, g.admin)


def may(role: str, survey_id: str) -> bool:
    """Whether the signed-in account holds ``role`` (or more) on ``survey_id``: for templates' buttons."""
    return roles.admits(role_here(survey_id), role)


def survey_access(role: str):
    """Accounts holding ``role`` or more on the route's ``survey_id``; others get the 404 of a missing
    survey, signed out the sign-in redirect (pages) or a 401 (data)."""
    roles.check_role(role)

    def decorate(view):
        @functools.wraps(view)
        def wrapped(**kwargs):
            if not _sign_in_from_cookie():
                return _refuse_signed_out()
            survey_id = kwargs["survey_id"]
            g.role = role_here(survey_id)
            if not roles.admits(g.role, role):
                no_such_survey(survey_id)
            return _enrolment_refusal(view) or view(**kwargs)

        return _mark(wrapped, f"survey:{role}")

    return decorate


def visible_survey_ids(all_ids) -> set[str]:
    """Of ``all_ids``, those the signed-in account may see (all of them for a site administrator)."""
    if getattr(g, "site_admin", False):
        return set(all_ids)
    held = roles.roles_of(get_db(), g.admin) if getattr(g, "admin", None) else {}
    return {survey_id for survey_id in all_ids if survey_id in held}


def _refuse_token(message: str):
    """A 401 for a missing, unknown or revoked token, saying how to send one (as JSON: :mod:`web.api`)."""
    abort(401, description=message)


def survey_token(view):
    """A live API token of the route's ``survey_id`` (``Authorization: Bearer <token>``): none, an unknown or
    a revoked one gets a 401; a token of another survey the 404 of a missing survey. Sets ``g.api_token``."""

    @functools.wraps(view)
    def wrapped(**kwargs):
        g.admin, g.site_admin = None, False
        scheme, _, sent = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not sent.strip():
            _refuse_token("Send the survey's API token as the header “Authorization: Bearer <token>”.")
        token = tokens.use(get_db(), sent.strip(), datetime.now(UTC).date().isoformat())
        if token is None:
            _refuse_token("This API token is not valid: it was revoked, or mistyped. An owner can make a new one.")
        if token.survey_id != kwargs["survey_id"]:
            no_such_survey(kwargs["survey_id"])
        g.api_token = token
        return view(**kwargs)

    return _mark(wrapped, "token")
