"""The application factory: ``flask --app app run`` finds :func:`create_app`."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from flask import Flask

ROOT = Path(__file__).resolve().parent

#: Every setting, its default and what it does. ``FLASK_<NAME>`` in the
#: environment overrides it (Flask's ``from_prefixed_env``); the README's
#: table is checked against this mapping by ``tests/test_docs.py``.
SETTINGS = {
    "DATABASE": ("instance/rr-survey.sqlite3", "Path of the SQLite database file."),
    "DATABASE_URL": (
        None,
        "postgresql://user:password@host:port/name selects PostgreSQL; unset, the SQLite file DATABASE is used.",
    ),
    "SURVEYS_DIR": (
        None,
        "Folder of survey YAML files, imported into the database on start and whenever a file changes "
        "(surveys managed as code); unset, surveys are made in the app only.",
    ),
    "EXAMPLE_SURVEYS": (
        False,
        "Import the example surveys shipped in survey_files/ (make run sets it); a fresh installation "
        "otherwise starts with no survey.",
    ),
    "SECRET_KEY": (
        "random, kept in instance/secret_key",
        "Signs sessions and CSRF tokens. Set it when several processes or hosts serve the app.",
    ),
    "WTF_CSRF_TIME_LIMIT": (7 * 24 * 3600, "Seconds a form's CSRF token stays valid."),
    "MAX_CONTENT_LENGTH": (64 * 1024, "Largest request body accepted, in bytes."),
    "SESSION_COOKIE_SECURE": (False, "Send cookies over HTTPS only; set true behind HTTPS."),
    "RATELIMIT_ENABLED": (True, "Rate-limit submissions and sign-ins per client address (false for load tests)."),
    "RATELIMIT_SUBMISSIONS": ("300/600", "Submissions allowed per address, as COUNT/SECONDS."),
    "RATELIMIT_SIGNINS": ("30/600", "Sign-in attempts allowed per network (IPv4 /24, IPv6 /64), as COUNT/SECONDS."),
    "SIGNIN_CONCURRENCY": (
        1,
        "Password checks (Argon2id, 64 MiB each) run at once on this machine, plus one kept for browsers that "
        "signed in before; more sign-ins get a 503.",
    ),
    "RATELIMIT_DATABASE": (
        "next to DATABASE, suffix -ratelimit",
        "SQLite file for the rate-limit counts, shared by all workers.",
    ),
    "TRUSTED_HOSTS": (
        None,
        "Host names the app answers to, comma-separated or a JSON list; any other Host header gets a 400.",
    ),
    "REQUIRE_SECOND_FACTOR_FOR_SITE_ADMINS": (
        False,
        "Site administrators must switch on a second factor (a TOTP code) on their Account page before they can "
        "use any other page.",
    ),
    "PROXY_FIX": (
        0,
        "Trusted proxies in front of the app: the client's address, scheme, host and port are read from "
        "that many X-Forwarded-* values (Werkzeug's ProxyFix); 0 ignores those headers.",
    ),
    "AUDIT_LOG_DAYS": (365, "Days the audit log keeps an entry; older ones are removed by `flask audit purge`."),
    "SMTP_HOST": (None, "Mail server for notifications; unset, no e-mail is sent (the dashboard still lists events)."),
    "SMTP_PORT": (587, "The mail server's port."),
    "SMTP_SENDER": ("rr-survey@localhost", "The From address of notification e-mails."),
    "SMTP_TLS": ("starttls", "starttls, ssl (TLS from the start, port 465) or none (a local relay only)."),
    "SMTP_USER": (None, "User name at the mail server; unset, no login."),
    "SMTP_PASSWORD": (None, "Password at the mail server."),
}
#: Settings whose default is worked out from others, not taken from SETTINGS.
DERIVED = {"SECRET_KEY", "RATELIMIT_DATABASE"}


def create_app(test_config: dict | None = None) -> Flask:
    """Build the app: defaults, then the environment, then ``test_config``."""
    _single_threaded_blas()
    app = Flask(__name__, instance_path=str(ROOT / "instance"))
    app.config.from_mapping(
        {name: default for name, (default, _) in SETTINGS.items() if name not in DERIVED},
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        PERMANENT_SESSION_LIFETIME=7 * 24 * 3600,
    )
    app.config.from_prefixed_env()
    if test_config is not None:
        app.config.from_mapping(test_config)
    _resolve_paths(app)
    app.config["TRUSTED_HOSTS"] = _host_list(app.config["TRUSTED_HOSTS"])
    if not app.config.get("RATELIMIT_DATABASE"):
        database = Path(app.config["DATABASE"])
        app.config["RATELIMIT_DATABASE"] = str(database.with_name(database.stem + "-ratelimit.sqlite3"))
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _instance_secret_key(app)

    from web import init_app

    init_app(app)
    return app


def _single_threaded_blas() -> None:
    """One BLAS thread per process unless set otherwise: the model's small matrix products (2,592 x 38 for
    five predictors) take 0.5 ms on one thread and 12-22 ms when OpenBLAS spreads them over the cores that
    the other workers use. Effective when numpy is first imported after this (``web`` imports it), as in
    ``flask`` commands and gunicorn workers."""
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        os.environ.setdefault(name, "1")


def _resolve_paths(app: Flask) -> None:
    for name in ("DATABASE", "SURVEYS_DIR"):
        if not app.config.get(name):
            continue
        path = Path(app.config[name])
        app.config[name] = str(path if path.is_absolute() else ROOT / path)


def _host_list(value: str | list | None) -> list[str] | None:
    """``"a.example, b.example"`` (or a list) as a list of names; empty means any host (None)."""
    names = value.split(",") if isinstance(value, str) else (value or [])
    return [name.strip() for name in names if name.strip()] or None


def _instance_secret_key(app: Flask) -> str:
    """A random key made once and kept in the instance folder (mode 0600)."""
    path = Path(app.instance_path) / "secret_key"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_hex(32))
    return path.read_text().strip()
