"""Admin sign-in: the ``auth`` blueprint (as in flaskr), and the safe ``next``.

An admin signs in with an account of :mod:`storage.accounts`; the browser then
holds :data:`ADMIN_COOKIE`, a random token whose hash names a server-side
session. Every other admin page and export declares who it admits
(:mod:`web.permissions`). A sign-in also leaves :data:`DEVICE_COOKIE`, a
remembered-device token that lets this browser's next sign-in as that
account use a password-check slot of its own (issue 24: a flood of strangers
holding the shared slot kept the owner out).

An account with a second factor (:mod:`storage.second_factor`) is asked for a code after the right password
(:func:`second_factor_code`); no session starts before it. Sign-ins, failed sign-ins and sign-outs are written
to the audit log.
"""

from __future__ import annotations

import time
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_wtf import FlaskForm
from wtforms import PasswordField, StringField
from wtforms.validators import InputRequired, Length, Regexp

from storage import accounts, audit, roles, second_factor
from web.db import get_db
from web.limits import (
    clear_signin_failures,
    hashing_slot,
    record_signin_failure,
    refuse_if_over,
    signin_client,
    signin_lock,
    too_many,
)
from web.permissions import ADMIN_COOKIE, public

bp = Blueprint("auth", __name__, url_prefix="/admin")

#: A remembered-device token (:func:`storage.accounts.remembered_device_token`), sent to the sign-in page only.
DEVICE_COOKIE = "rr_device"


class LoginForm(FlaskForm):
    name = StringField(
        "Account",  # a NUL is refused by name: PostgreSQL text cannot hold one (a 500 before)
        validators=[
            InputRequired(),
            Length(max=64),
            Regexp(r"[^\x00]*\Z", message="An account name has no NUL character."),
        ],
    )
    password = PasswordField("Password", validators=[InputRequired(), Length(max=1024)])


def safe_next(target: str | None) -> str:
    """Only same-site paths under /admin, so the sign-in page cannot redirect elsewhere;
    no control characters (a newline in a Location header is an error, not a redirect)."""
    if (
        target
        and target.startswith("/admin")
        and not urlsplit(target).netloc
        and "\\" not in target
        and target.isprintable()
    ):
        return target
    return url_for("admin.dashboard")


@bp.route("/login", methods=["GET", "POST"])
@public
def login():
    if request.method == "GET":
        return render_template("admin/login.html", form=LoginForm())
    remembered = remembered_token()
    client = signin_client(remembered)
    refusal = refuse_if_over("signin", "RATELIMIT_SIGNINS", client)
    if refusal:
        return refusal
    # The slot first: while every slot hashes, a sign-in is refused before its form is even read, so a
    # flood of them costs the workers that serve respondents as little as possible.
    with hashing_slot(remembered=remembered is not None) as held:
        if not held:
            return too_many("Sign-in is busy right now. Please try again in a few seconds.", 2, status=503)
        form = LoginForm()
        if not form.validate_on_submit():
            return render_template("admin/login.html", form=form), 400
        name = form.name.data
        locked_for = signin_lock(name, client)
        if locked_for:
            return too_many(
                f"Too many failed sign-ins for this account from your network. Try again in {locked_for} seconds.",
                locked_for,
            )
        # A remembered browser's check at the serving threads' priority (still within the machine's slots).
        correct = accounts.sign_in(get_db(), name, form.password.data, niced=remembered is None)
    if not correct:
        record_signin_failure(name, client)
        record_failure(name, "wrong password")
        flash("Wrong account name or password.")
        return render_template("admin/login.html", form=form), 401
    clear_signin_failures(name, client)
    if second_factor.is_enabled(get_db(), name):
        return ask_for_code(name, safe_next(request.args.get("next")))
    audit.record(get_db(), name, "sign-in")
    return signed_in_response(name, redirect(safe_next(request.args.get("next"))))


def record_failure(name: str, why: str) -> None:
    """Audit a failed sign-in: as the account when it exists, else with no actor (a name typed that is no
    account's may be a password typed in the wrong field: it is not kept)."""
    db = get_db()
    known = roles.account_standing(db, name) is not None
    audit.record(db, name if known else None, "sign-in-failed", detail=why)


#: Seconds between a right password and the second factor's code.
CODE_SECONDS = 300


def ask_for_code(name: str, target: str):
    """The password was right and the account has a second factor: remember that (in the signed session
    cookie, for :data:`CODE_SECONDS`) and ask for the code. No session starts before the code."""
    session.clear()
    session["second_factor"] = {"name": name, "until": time.time() + CODE_SECONDS, "next": target}
    return redirect(url_for("auth.second_factor_code"))


class CodeForm(FlaskForm):
    code = StringField("Six-digit code", validators=[InputRequired(), Length(max=12)])


@bp.route("/login/code", methods=["GET", "POST"])
@public
def second_factor_code():
    """The second step of a sign-in with a second factor: a code of the account's authenticator, once,
    rate-limited and locked after failures as sign-ins are."""
    pending = session.get("second_factor")
    if not pending or pending.get("until", 0) < time.time():
        session.pop("second_factor", None)
        flash("Sign in with your password first.")
        return redirect(url_for("auth.login"))
    form = CodeForm()
    if request.method == "GET":
        return render_template("admin/second_factor.html", form=form)
    name, client = pending["name"], signin_client()
    refusal = refuse_if_over("second-factor", "RATELIMIT_SIGNINS", client)
    if refusal:
        return refusal
    if not form.validate_on_submit():
        return render_template("admin/second_factor.html", form=form), 400
    locked_for = signin_lock(name, client)
    if locked_for:
        return too_many(
            f"Too many failed codes for this account from your network. Try again in {locked_for} seconds.", locked_for
        )
    if not second_factor.check_code(get_db(), name, form.code.data.strip()):
        record_signin_failure(name, client)
        record_failure(name, "wrong or reused second-factor code")
        flash("That code is wrong or was used already. Enter the code your authenticator shows now.")
        return render_template("admin/second_factor.html", form=form), 401
    clear_signin_failures(name, client)
    audit.record(get_db(), name, "sign-in", detail="with second factor")
    return signed_in_response(name, redirect(safe_next(pending.get("next"))))


def remembered_token() -> str | None:
    """This browser's remembered-device token if it is live and names the account being signed in as,
    else None (the sign-in then counts against its network and waits for the shared slots). One indexed
    read, no hashing; nothing is read without the cookie."""
    token = request.cookies.get(DEVICE_COOKIE)
    if not token:
        return None
    account = accounts.remembered_device_account(get_db(), token, current_app.config["SECRET_KEY"])
    return token if account is not None and account == request.form.get("name") else None


def signed_in_response(name: str, response: Response) -> Response:
    """Start a server-side session for ``name`` and set its cookie on ``response``.

    The admin cookie is apart from Flask's session cookie (which holds only
    CSRF tokens, and which a survey form makes last 7 days): it lives as long
    as the browser window, is sent only to /admin, and names a session that
    ends on sign-out, on a new password and with ``admin sign-out-everywhere``.
    The remembered-device cookie (:data:`DEVICE_COOKIE`) is renewed too: it
    outlives sign-out (it signs nobody in) and ends with a new password.
    """
    session.clear()  # a fresh CSRF session too: nothing from before sign-in survives
    response.set_cookie(
        DEVICE_COOKIE,
        accounts.remembered_device_token(get_db(), name, current_app.config["SECRET_KEY"]),
        max_age=accounts.REMEMBERED_DEVICE_SECONDS,
        path=url_for("auth.login"),
        httponly=True,
        samesite="Strict",
        secure=current_app.config["SESSION_COOKIE_SECURE"],
    )
    response.set_cookie(
        ADMIN_COOKIE,
        accounts.start_session(get_db(), name),
        path="/admin",
        httponly=True,
        samesite="Strict",
        secure=current_app.config["SESSION_COOKIE_SECURE"],
    )
    return response


@bp.post("/logout")
@public
def logout():
    token = request.cookies.get(ADMIN_COOKIE)
    name = accounts.session_account(get_db(), token)
    if name is not None:
        accounts.end_session(get_db(), token)
        audit.record(get_db(), name, "sign-out")
    session.clear()
    response = redirect(url_for("auth.login"))
    response.delete_cookie(ADMIN_COOKIE, path="/admin")
    return response
