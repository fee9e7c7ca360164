"""People in the browser (issue 26): accounts, one's own account page, and each survey's people.

* A site administrator lists the accounts, invites one by a one-time link
  (:mod:`storage.account_links`; the link is shown once, to pass on),
  disables, enables or resets one, and makes one a site administrator or not
  (never the last active one).
* Every account has its "Account" page: a new password (the current one
  first; its other sessions end), signing out its other sessions, and the
  optional second factor (:mod:`storage.second_factor`).
* A survey's owners (and site administrators) give an account a role on it,
  change it or take it away (:mod:`storage.roles`; the last owner stays).

Every change is written to the audit log (:mod:`storage.audit`) with the
account that made it.
"""

from __future__ import annotations

from flask import Blueprint, abort, flash, g, make_response, redirect, render_template, request, url_for
from flask_wtf import FlaskForm
from wtforms import IntegerField, PasswordField, SelectField, StringField
from wtforms.validators import InputRequired, Length, NumberRange

from storage import account_links, accounts, audit, roles, second_factor
from web.auth import signed_in_response
from web.catalog import survey_or_404
from web.db import get_db
from web.limits import hashing_slot, refuse_if_over, signin_client, too_many
from web.permissions import ADMIN_COOKIE, before_enrolment, public, signed_in, site_admin_only, survey_access

bp = Blueprint("people", __name__, url_prefix="/admin")


class InviteForm(FlaskForm):
    name = StringField("Account name", validators=[InputRequired(), Length(max=64)])
    days = IntegerField("Link valid for (days)", default=7, validators=[InputRequired(), NumberRange(1, 30)])


class ChoosePasswordForm(FlaskForm):
    password = PasswordField("New password", validators=[InputRequired(), Length(max=1024)])
    again = PasswordField("The same password again", validators=[InputRequired(), Length(max=1024)])


class ChangePasswordForm(ChoosePasswordForm):
    current = PasswordField("Current password", validators=[InputRequired(), Length(max=1024)])


class CodeForm(FlaskForm):
    code = StringField("Six-digit code", validators=[InputRequired(), Length(max=12)])


class CurrentPasswordForm(FlaskForm):
    current = PasswordField("Current password", validators=[InputRequired(), Length(max=1024)])


class RoleForm(FlaskForm):
    account = StringField("Account", validators=[InputRequired(), Length(max=64)])
    role = SelectField("Role", choices=list(reversed(roles.ROLES)))


class AccountForm(FlaskForm):
    """A button that posts with a CSRF token, about the account in the route."""


def checked(form: FlaskForm) -> None:
    """400 with the fields' messages unless ``form`` validates (CSRF token included)."""
    if not form.validate_on_submit():
        problems = [
            f"{form[name].label.text}: {' '.join(errors)}" for name, errors in form.errors.items() if name in form
        ]
        abort(400, description="; ".join(problems) or "The form could not be verified; reload the page.")


def refused(error: ValueError, status: int = 400):
    abort(status, description=str(error)[:1].upper() + str(error)[1:] + ".")


def link_url(token: str) -> str:
    return url_for("people.use_link", token=token, _external=True)


# -- accounts (site administrators) ------------------------------------------------------------------


@bp.get("/accounts")
@site_admin_only
def accounts_page():
    db = get_db()
    return render_template(
        "admin/accounts.html",
        rows=accounts.list_admins(db),
        links=account_links.pending(db),
        invite=InviteForm(),
        action=AccountForm(),
        new_link=None,
    )


@bp.post("/accounts")
@site_admin_only
def invite():
    """Make an account and its invitation link, shown once on the page that answers."""
    form = InviteForm()
    checked(form)
    db = get_db()
    try:
        token = account_links.invite(db, form.name.data, form.days.data)
    except ValueError as error:
        refused(error)
    audit.record(db, g.admin, "account-invited", detail=f"{form.name.data}, link valid {form.days.data} days")
    return shown_link(form.name.data, token, "invitation")


def shown_link(name: str, token: str, purpose: str):
    """The accounts page with the new link to pass on (it is never shown again: only its hash is kept)."""
    db = get_db()
    return render_template(
        "admin/accounts.html",
        rows=accounts.list_admins(db),
        links=account_links.pending(db),
        invite=InviteForm(formdata=None),
        action=AccountForm(),
        new_link={"name": name, "url": link_url(token), "purpose": purpose},
    )


def posted_flag(field: str) -> bool:
    """The posted ``field`` as a flag: ``1`` true, ``0`` false, anything else a 400 naming the field."""
    wanted = request.form.get(field)
    if wanted not in ("0", "1"):
        abort(400, description=f"{field} must be 1 or 0.")
    return wanted == "1"


def account_or_404(name: str) -> str:
    if roles.account_standing(get_db(), name) is None:
        abort(404, description=f"There is no account called “{name}”.")
    return name


@bp.post("/accounts/<name>/disabled")
@site_admin_only
def set_disabled(name: str):
    """``disabled=1`` disables the account (its sessions end), ``0`` enables it."""
    checked(AccountForm())
    account_or_404(name)
    wanted = posted_flag("disabled")
    try:
        accounts.set_disabled(get_db(), name, wanted)
    except ValueError as error:
        refused(error, 409)
    audit.record(get_db(), g.admin, "account-disabled" if wanted else "account-enabled", detail=name)
    flash(f"{name} is {'disabled; its sessions ended' if wanted else 'enabled again'}.", "success")
    return redirect(url_for("people.accounts_page"))


@bp.post("/accounts/<name>/reset")
@site_admin_only
def reset(name: str):
    """Empty the password and second factor of ``name``, end its sessions, and show a reset link."""
    checked(AccountForm())
    account_or_404(name)
    db = get_db()
    token = account_links.reset(db, name, 7)
    audit.record(db, g.admin, "account-reset", detail=name)
    return shown_link(name, token, "reset")


@bp.post("/accounts/<name>/site-admin")
@site_admin_only
def set_site_admin(name: str):
    """``site_admin=1`` makes ``name`` a site administrator, ``0`` takes it away (never from the last one)."""
    checked(AccountForm())
    account_or_404(name)
    wanted = posted_flag("site_admin")
    try:
        roles.set_site_admin(get_db(), name, wanted)
    except ValueError as error:
        refused(error, 409)
    audit.record(get_db(), g.admin, "role-changed", detail=f"{name}: site administrator {'yes' if wanted else 'no'}")
    flash(f"{name} is {'now' if wanted else 'no longer'} a site administrator.", "success")
    return redirect(url_for("people.accounts_page"))


# -- one-time links (anyone holding one) ---------------------------------------------------------------

LINK_REFUSALS = {
    "unknown": (404, "This link is not a valid invitation or reset link. Ask your site administrator for a new one."),
    "used": (410, "This link has been used already. Ask your site administrator for a new one."),
    "expired": (410, "This link has expired. Ask your site administrator for a new one."),
}


def live_link(token: str) -> account_links.Link:
    try:
        return account_links.open_link(get_db(), token)
    except account_links.LinkRefused as error:
        status, sentence = LINK_REFUSALS[error.reason]
        abort(status, description=sentence)


@bp.route("/link/<token>", methods=["GET", "POST"])
@public
def use_link(token: str):
    """An invitation or reset link: the holder chooses the account's password, once."""
    link = live_link(token)
    form = ChoosePasswordForm()
    if request.method == "GET":
        return render_template("admin/link.html", link=link, form=form)
    checked(form)
    if form.password.data != form.again.data:
        abort(400, description="The two passwords differ.")
    try:
        password_hash = accounts.HASHER.hash(accounts.check_password(form.password.data))
        account_links.use_link(get_db(), token, password_hash)
    except account_links.LinkRefused as error:  # used meanwhile
        status, sentence = LINK_REFUSALS[error.reason]
        abort(status, description=sentence)
    except ValueError as error:
        refused(error)
    action = "account-created" if link.purpose == "invitation" else "password-changed"
    audit.record(get_db(), link.account, action, detail=f"by {link.purpose} link")
    flash(f"Your password for {link.account} is set. Sign in with it.", "success")
    return redirect(url_for("auth.login"))


# -- one's own account -----------------------------------------------------------------------------------


@bp.get("/account")
@signed_in
@before_enrolment
def account():
    db = get_db()
    pending = second_factor.pending_secret(db, g.admin)
    return render_template(
        "admin/account.html",
        password_form=ChangePasswordForm(formdata=None),
        code_form=CodeForm(formdata=None),
        off_form=CurrentPasswordForm(formdata=None),
        action=AccountForm(),
        enabled=second_factor.is_enabled(db, g.admin),
        pending=pending,
        uri=second_factor.provisioning_uri(pending, g.admin) if pending else None,
    )


def own_password_or_400(password: str) -> None:
    """Check the signed-in account's current password, counted and bounded as sign-ins are (a stolen
    session cannot try passwords here faster than at the sign-in form); 400 if it is wrong."""
    refusal = refuse_if_over("signin", "RATELIMIT_SIGNINS", signin_client())
    if refusal:
        abort(make_response(refusal))
    with hashing_slot() as held:
        if not held:
            abort(
                make_response(
                    too_many("Password checks are busy right now. Please try again in a few seconds.", 2, 503)
                )
            )
        correct = accounts.verify_password(get_db(), g.admin, password)
    if not correct:
        abort(400, description="The current password is wrong; nothing changed.")


@bp.post("/account/password")
@signed_in
@before_enrolment
def change_password():
    """A new password, the current one first; every other session ends (this browser's is renewed)."""
    form = ChangePasswordForm()
    checked(form)
    if form.password.data != form.again.data:
        abort(400, description="The two new passwords differ; nothing changed.")
    own_password_or_400(form.current.data)
    try:
        accounts.set_password(get_db(), g.admin, form.password.data)  # ends every session, this one too
    except ValueError as error:
        refused(error)
    audit.record(get_db(), g.admin, "password-changed", detail="own password")
    flash("Your password is changed; your other sessions have ended.", "success")
    return signed_in_response(g.admin, redirect(url_for("people.account")))


@bp.post("/account/sessions")
@signed_in
@before_enrolment
def end_other_sessions():
    checked(AccountForm())
    ended = accounts.end_other_sessions(get_db(), g.admin, request.cookies.get(ADMIN_COOKIE))
    audit.record(get_db(), g.admin, "sessions-ended", detail=f"{ended} other sessions")
    flash(f"Signed out of {ended} other session{'s' if ended != 1 else ''}.", "success")
    return redirect(url_for("people.account"))


@bp.post("/account/second-factor")
@signed_in
@before_enrolment
def start_second_factor():
    """A new secret, shown on the account page; nothing is switched on until a code confirms it."""
    checked(AccountForm())
    try:
        second_factor.start_enrolment(get_db(), g.admin)
    except ValueError as error:
        refused(error, 409)
    return redirect(url_for("people.account", _anchor="second-factor"))


@bp.post("/account/second-factor/confirm")
@signed_in
@before_enrolment
def confirm_second_factor():
    form = CodeForm()
    checked(form)
    if not second_factor.confirm_enrolment(get_db(), g.admin, form.code.data.strip()):
        abort(400, description="That code does not match (or there is no enrolment to confirm); nothing changed.")
    audit.record(get_db(), g.admin, "second-factor-changed", detail="switched on")
    flash("Your second factor is on: signing in now asks for a code after the password.", "success")
    return redirect(url_for("people.account"))


@bp.post("/account/second-factor/off")
@signed_in
@before_enrolment
def turn_second_factor_off():
    form = CurrentPasswordForm()
    checked(form)
    own_password_or_400(form.current.data)
    second_factor.turn_off(get_db(), g.admin)
    audit.record(get_db(), g.admin, "second-factor-changed", detail="switched off")
    flash("Your second factor is off.", "success")
    return redirect(url_for("people.account"))


# -- a survey's people --------------------------------------------------------------------------------


@bp.get("/surveys/<survey_id>/people")
@survey_access("owner")
def survey_people(survey_id: str):
    survey = survey_or_404(survey_id)
    return render_template(
        "admin/people.html",
        survey=survey,
        people=roles.people_of(get_db(), survey.id),
        form=RoleForm(formdata=None),
        action=AccountForm(),
        roles_list=roles.ROLES,
    )


@bp.post("/surveys/<survey_id>/people")
@survey_access("owner")
def set_person(survey_id: str):
    """Give an account a role on the survey, or change it."""
    survey = survey_or_404(survey_id)
    form = RoleForm()
    checked(form)
    try:
        note = audit.Note(g.admin, "role-changed", survey.id, f"{form.account.data}: {form.role.data}")
        roles.set_role(get_db(), survey.id, form.account.data, form.role.data, note=note)
    except ValueError as error:
        refused(error)
    flash(f"{form.account.data} is {form.role.data} of “{survey.title}”.", "success")
    return redirect(url_for("people.survey_people", survey_id=survey.id))


@bp.post("/surveys/<survey_id>/people/remove")
@survey_access("owner")
def remove_person(survey_id: str):
    survey = survey_or_404(survey_id)
    checked(AccountForm())
    name = request.form.get("account", "")
    try:
        note = audit.Note(g.admin, "role-changed", survey.id, f"{name}: no role")
        removed = roles.remove_role(get_db(), survey.id, name, note=note)
    except ValueError as error:
        refused(error, 409)
    if not removed:
        abort(400, description=f"{name[:64]!r} holds no role on this survey; nothing changed.")
    flash(f"{name} no longer holds a role on “{survey.title}”.", "success")
    return redirect(url_for("people.survey_people", survey_id=survey.id))
