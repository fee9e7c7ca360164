"""People other than the test researcher (a site administrator): an account with a role on one survey only."""

from __future__ import annotations

from storage import accounts, roles
from storage.connection import immediate_transaction
from tests.helpers.drivers import AdminSession
from web.db import open_database

#: The password of every account made here.
PASSWORD = "another correct horse"


def signed_in_as(app, name: str, role: str | None = None, survey_id: str = "quiz") -> AdminSession:
    """A new client signed in as ``name``, an account that is not a site administrator, holding ``role`` on
    ``survey_id`` (None: no role anywhere). The ``admin_account`` fixture's cheap hasher must be in place."""
    db = open_database(app)
    accounts.create_admin(db, name, PASSWORD)
    with immediate_transaction(db):
        db.execute("UPDATE admins SET site_admin = 0 WHERE name = ?", [name])
    if role is not None:
        roles.set_role(db, survey_id, name, role)
    db.close()
    session = AdminSession(app.test_client(), app)
    assert session.login(name, PASSWORD).status_code == 302
    return session
