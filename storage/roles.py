"""Who may do what: site administrators and each survey's people (issue 26).

Takes a :class:`sqlite_utils.Database`; knows nothing of Flask.

A site administrator (``admins.site_admin``) manages accounts and sees every
survey. Anyone else sees a survey only through a role on it, kept in
``survey_roles``:

* ``viewer``: the results pages;
* ``analyst``: what a viewer sees, and the exports (estimates, break-downs,
  the model, the noisy responses and the codebook);
* ``owner``: everything, including editing, opening, closing, deleting and
  sharing the survey.

Each role admits what the roles before it in :data:`ROLES` admit.
"""

from __future__ import annotations

import sqlite_utils

from storage import audit
from storage.connection import immediate_transaction

#: The roles on one survey, from least to most.
ROLES = ("viewer", "analyst", "owner")


def check_role(role: str) -> str:
    if role not in ROLES:
        raise ValueError(f"a role is one of {', '.join(ROLES)}, not {role!r}")
    return role


def admits(held: str | None, needed: str) -> bool:
    """Whether a person holding ``held`` (None: no role) may do what needs ``needed``."""
    check_role(needed)
    return held is not None and ROLES.index(held) >= ROLES.index(needed)


def account_standing(db: sqlite_utils.Database, name: str) -> tuple[bool, bool] | None:
    """``(site_admin, disabled)`` of account ``name``, or None if there is no such account."""
    row = db.execute("SELECT site_admin, disabled FROM admins WHERE name = ?", [name]).fetchone()
    return None if row is None else (bool(row[0]), bool(row[1]))


def is_site_admin(db: sqlite_utils.Database, name: str | None) -> bool:
    standing = account_standing(db, name) if name else None
    return bool(standing and standing[0] and not standing[1])


def refuse_if_last_site_admin(db: sqlite_utils.Database, name: str) -> None:
    """Inside the caller's transaction: ValueError if ``name`` is the last active site administrator."""
    if is_site_admin(db, name):
        others = db.execute(
            "SELECT COUNT(*) FROM admins WHERE site_admin = 1 AND disabled = 0 AND name <> ?", [name]
        ).fetchone()[0]
        if others == 0:
            raise ValueError(f"{name!r} is the last active site administrator: make another one first")


def set_site_admin(db: sqlite_utils.Database, name: str, site_admin: bool) -> None:
    """Make ``name`` a site administrator or not; never the last active one."""
    with immediate_transaction(db):
        if account_standing(db, name) is None:
            raise ValueError(f"there is no account called {name!r}")
        if not site_admin:
            refuse_if_last_site_admin(db, name)
        db.execute("UPDATE admins SET site_admin = ? WHERE name = ?", [int(site_admin), name])


def role_of(db: sqlite_utils.Database, survey_id: str, name: str) -> str | None:
    """The role ``name`` holds on ``survey_id`` (not counting site administration), or None."""
    row = db.execute("SELECT role FROM survey_roles WHERE survey_id = ? AND account = ?", [survey_id, name]).fetchone()
    return None if row is None else row[0]


def roles_of(db: sqlite_utils.Database, name: str) -> dict[str, str]:
    """Every survey id ``name`` holds a role on, with the role."""
    rows = db.execute("SELECT survey_id, role FROM survey_roles WHERE account = ?", [name]).fetchall()
    return dict(rows)


def people_of(db: sqlite_utils.Database, survey_id: str) -> list[tuple[str, str]]:
    """``(account, role)`` of everyone holding a role on ``survey_id``, owners first, then by name."""
    rows = db.execute("SELECT account, role FROM survey_roles WHERE survey_id = ?", [survey_id]).fetchall()
    return sorted(((account, role) for account, role in rows), key=lambda r: (-ROLES.index(r[1]), r[0]))


def set_role(db: sqlite_utils.Database, survey_id: str, name: str, role: str, note: audit.Note | None = None) -> None:
    """Give ``name`` the role ``role`` on ``survey_id`` (replacing any role it held there), and write
    ``note`` to the audit log in the same transaction."""
    with immediate_transaction(db):
        give_role(db, survey_id, name, role)
        audit.write_if(db, note)


def give_role(db: sqlite_utils.Database, survey_id: str, name: str, role: str) -> None:
    """:func:`set_role` inside the caller's transaction (a new survey's owner, saved with it)."""
    check_role(role)
    if account_standing(db, name) is None:
        raise ValueError(f"there is no account called {name!r}")
    if role != "owner" and role_of(db, survey_id, name) == "owner" and _owners(db, survey_id) == 1:
        raise ValueError(f"{name!r} is the last owner of {survey_id!r}: make someone else owner first")
    db.execute(
        "INSERT INTO survey_roles (survey_id, account, role) VALUES (?, ?, ?)"
        " ON CONFLICT (survey_id, account) DO UPDATE SET role = excluded.role",
        [survey_id, name, role],
    )


def _owners(db: sqlite_utils.Database, survey_id: str) -> int:
    return db.execute(
        "SELECT COUNT(*) FROM survey_roles WHERE survey_id = ? AND role = 'owner'", [survey_id]
    ).fetchone()[0]


def remove_role(db: sqlite_utils.Database, survey_id: str, name: str, note: audit.Note | None = None) -> bool:
    """Take ``name``'s role on ``survey_id`` away; False if it held none (nothing written, ``note`` neither).
    The last owner stays. ``note`` goes to the audit log in the same transaction."""
    with immediate_transaction(db):
        if role_of(db, survey_id, name) == "owner" and _owners(db, survey_id) == 1:
            raise ValueError(f"{name!r} is the last owner of {survey_id!r}: make someone else owner first")
        cursor = db.execute("DELETE FROM survey_roles WHERE survey_id = ? AND account = ?", [survey_id, name])
        if cursor.rowcount == 1:
            audit.write_if(db, note)
        return cursor.rowcount == 1


def forget_survey(db: sqlite_utils.Database, survey_id: str) -> None:
    """Remove every role on ``survey_id`` (inside the caller's transaction, when a survey is deleted)."""
    db.execute("DELETE FROM survey_roles WHERE survey_id = ?", [survey_id])
