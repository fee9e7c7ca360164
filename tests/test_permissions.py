"""Every route declares who it admits (web/permissions.py), read from the app's own route table."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.sqlite_only(reason="the route table and its rules are the same on both backends")

RULES = {"public", "signed-in", "site-admin", "token"} | {f"survey:{role}" for role in ("viewer", "analyst", "owner")}


def test_every_route_declares_who_it_admits(app):
    undeclared = [
        rule.rule
        for rule in app.url_map.iter_rules()
        if rule.endpoint != "static" and getattr(app.view_functions[rule.endpoint], "access", None) not in RULES
    ]
    assert undeclared == []


def test_every_route_with_a_survey_id_admits_by_a_role_on_that_survey(app):
    loose = [
        rule.rule
        for rule in app.url_map.iter_rules()
        if "survey_id" in rule.arguments
        and rule.rule.startswith("/admin")
        and not app.view_functions[rule.endpoint].access.startswith("survey:")
    ]
    assert loose == []


# --------------------------------------------------------------------------
# The route-permission matrix: every route of the app's route table, visited as each kind of person.

#: What each endpoint must admit: the specification the app's routes are checked against. A new route is added
#: here with the rule it should have; a route missing from this table, or declaring another rule (one that admits
#: more, or less), fails :func:`test_each_route_declares_the_rule_the_table_gives`.
EXPECTED_RULES = {
    "public.index": "public",
    "public.favicon": "public",
    "respond.show": "public",
    "respond.submit": "public",
    "auth.login": "public",
    "auth.logout": "public",
    "auth.second_factor_code": "public",
    "people.use_link": "public",
    "admin.dashboard": "signed-in",
    "people.account": "signed-in",
    "people.change_password": "signed-in",
    "people.end_other_sessions": "signed-in",
    "people.start_second_factor": "signed-in",
    "people.confirm_second_factor": "signed-in",
    "people.turn_second_factor_off": "signed-in",
    "people.accounts_page": "site-admin",
    "people.invite": "site-admin",
    "people.set_disabled": "site-admin",
    "people.reset": "site-admin",
    "people.set_site_admin": "site-admin",
    "admin.survey_page": "survey:viewer",
    "admin.preview": "survey:viewer",
    "admin.preview_submit": "survey:viewer",
    "admin.confirm_close": "survey:owner",
    "admin.exclude_day": "survey:owner",
    "admin.include_day": "survey:owner",
    "admin.set_burst_aside": "survey:owner",
    "admin.keep_burst": "survey:owner",
    "admin.set_state": "survey:owner",
    "exports.estimates_json": "survey:analyst",
    "exports.design_fit_json": "survey:analyst",
    "exports.estimates_csv": "survey:analyst",
    "exports.breakdown_json": "survey:analyst",
    "exports.breakdown_csv": "survey:analyst",
    "exports.responses_csv": "survey:analyst",
    "exports.responses_statistics_file": "survey:analyst",
    "exports.responses_r_script": "survey:analyst",
    "exports.codebook_json": "survey:analyst",
    "exports.model_json": "survey:analyst",
    "exports.model_csv": "survey:analyst",
    "exports.predictor_json": "survey:analyst",
    "exports.predictor_csv": "survey:analyst",
    "exports.correlation_json": "survey:analyst",
    "exports.correlation_csv": "survey:analyst",
    "people.survey_people": "survey:owner",
    "people.set_person": "survey:owner",
    "people.remove_person": "survey:owner",
    "editor.new_survey": "signed-in",
    "editor.create_survey": "signed-in",
    "editor.preview_text": "signed-in",
    "editor.edit_survey": "survey:owner",
    "editor.save_survey": "survey:owner",
    "editor.add_question": "survey:owner",
    "editor.append_to_source": "survey:owner",
    "lifecycle.open_": "survey:owner",
    "lifecycle.close": "survey:owner",
    "lifecycle.archive": "survey:owner",
    "lifecycle.unarchive": "survey:owner",
    "lifecycle.listed": "survey:owner",
    "lifecycle.confirm_clear": "survey:owner",
    "lifecycle.clear": "survey:owner",
    "lifecycle.confirm_delete": "survey:owner",
    "lifecycle.delete": "survey:owner",
    "lifecycle.backup": "survey:owner",
    "codes.codes_page": "survey:owner",
    "codes.create_codes": "survey:owner",
    "tokens.tokens_page": "survey:owner",
    "tokens.create_token": "survey:owner",
    "tokens.revoke_token": "survey:owner",
    "auditlog.audit_page": "signed-in",
    "auditlog.audit_csv": "signed-in",
    "api.survey_file": "token",
    "releases.new_release": "survey:owner",
    "releases.post_release": "survey:owner",
    "releases.ledger": "survey:viewer",
    "releases.release_page": "public",
    "releases.release_print": "public",
    "releases.release_csv_file": "public",
}

#: The value each route argument takes in the matrix (``survey_id``: survey A). A new argument is added here.
ARGUMENTS = {"survey_id": "quiz", "fmt": "sav", "name": "target", "token": "no-such-link-token", "token_id": "none"}
#: An argument whose value depends on the route: ``name`` is an account's on the people pages, a file's in the API.
ARGUMENTS_OF = {"api.survey_file": {"name": "codebook.json"}}
SURVEY_A, SURVEY_B, MISSING = "quiz", "other", "no-such-survey"
#: Who visits, and the role each holds on survey A (site administrators hold every role).
IDENTITIES = {
    "signed-out": None,
    "no-role": None,
    "viewer": "viewer",
    "analyst": "analyst",
    "owner": "owner",
    "owner-of-b-only": None,
    "site-admin": "owner",
}


def test_each_route_declares_the_rule_the_table_gives(app):
    declared = {
        rule.endpoint: app.view_functions[rule.endpoint].access
        for rule in app.url_map.iter_rules()
        if rule.endpoint != "static"
    }
    assert declared == EXPECTED_RULES


def matrix_path(rule, survey_id: str = SURVEY_A) -> str:
    unknown = set(rule.arguments) - set(ARGUMENTS)
    if unknown:
        pytest.fail(f"{rule.rule}: add a value for {sorted(unknown)} to ARGUMENTS in tests/test_permissions.py")
    path = rule.rule
    for name in rule.arguments:
        value = survey_id if name == "survey_id" else {**ARGUMENTS, **ARGUMENTS_OF.get(rule.endpoint, {})}[name]
        path = path.replace(f"<{name}>", value).replace(f"<path:{name}>", value)
    return path


@pytest.fixture
def matrix_app(make_app, surveys_dir, monkeypatch):
    """An app (CSRF checks off: every POST of the matrix is sent without a token, with an empty form) with
    survey A (``quiz``), survey B (``other``) and one account per identity, each holding its role."""
    from storage import accounts, roles, tokens
    from tests.helpers.sample_surveys import QUIZ_YAML
    from web.db import open_database

    (surveys_dir / "other.yaml").write_text(QUIZ_YAML.replace("id: quiz", "id: other").replace("Test quiz", "Other"))
    app = make_app({"SECRET_KEY": "test-secret-key", "WTF_CSRF_ENABLED": False})
    db = open_database(app)
    for name in [*IDENTITIES, "target"]:
        if name != "signed-out":
            accounts.create_admin(db, name, "a password long enough", site_admin=name == "site-admin")
    for name, role in IDENTITIES.items():
        if role and name != "site-admin":
            roles.set_role(db, SURVEY_A, name, role)
    roles.set_role(db, SURVEY_B, "owner-of-b-only", "owner")
    made = tokens.create(db, SURVEY_A, "matrix", "owner")
    monkeypatch.setitem(
        ARGUMENTS, "token_id", next(t.id for t in tokens.of_survey(db, SURVEY_A) if t.label == "matrix")
    )
    db.close()
    assert made
    return app


def visit(app, identity: str, method: str, path: str):
    """One request as ``identity``, in a session of its own (a route that signs out ends only that one)."""
    from storage import accounts
    from web.db import open_database
    from web.permissions import ADMIN_COOKIE

    client = app.test_client()
    if identity != "signed-out":
        db = open_database(app)
        client.set_cookie(ADMIN_COOKIE, accounts.start_session(db, identity), path="/admin")
        db.close()
    response = client.open(path, method=method, data={} if method == "POST" else None)
    response.get_data()  # read into memory, then closed as a server closes it (a file body, such as a backup zip)
    response.close()
    return response


def expected_outcome(rule_text: str, identity: str) -> str:
    from storage import roles

    if rule_text == "public":
        return "any"
    if rule_text == "token":  # the API reads a bearer token only: no session of any account opens it
        return "token-required"
    if identity == "signed-out":
        return "sign-in"
    if rule_text == "signed-in" or (rule_text == "site-admin" and identity == "site-admin"):
        return "admitted"
    if rule_text == "site-admin":
        return "forbidden"
    return "admitted" if roles.admits(IDENTITIES[identity], rule_text.split(":")[1]) else "hidden"


def check_outcome(app, identity: str, method: str, rule) -> str | None:
    """None if the response is the one the rule gives ``identity``, else what went wrong."""
    path = matrix_path(rule)
    response = visit(app, identity, method, path)
    outcome = expected_outcome(EXPECTED_RULES[rule.endpoint], identity)
    status, where = response.status_code, f"{identity} {method} {path}: {response.status_code}"
    if status >= 500:
        return where
    if outcome == "sign-in":
        page = method == "GET" and not path.endswith((".csv", ".json", ".sav", ".R"))
        wanted = status == 302 and "/admin/login" in response.location if page else status == 401
        return None if wanted else f"{where}, expected {'a redirect to sign-in' if page else '401'}"
    if outcome == "admitted":
        refused = status in (401, 403, 404) or "/admin/login" in (response.location or "")
        return f"{where}, expected to be admitted" if refused else None
    if outcome == "token-required":
        return None if status == 401 else f"{where}, expected 401 (no API token)"
    if outcome == "forbidden":
        return None if status == 403 else f"{where}, expected 403"
    if outcome == "hidden":
        body = response.get_data(as_text=True)
        missing = visit(app, identity, method, matrix_path(rule, MISSING)).get_data(as_text=True)
        if status != 404 or body.replace(SURVEY_A, MISSING) != missing or "Test quiz" in body:
            return f"{where}, expected the 404 of a missing survey"
    return None


@pytest.mark.parametrize("identity", list(IDENTITIES))
def test_route_matrix(matrix_app, identity):
    """Every route and method of the route table, as ``identity``: what its rule in EXPECTED_RULES gives."""
    wrong = []
    for rule in matrix_app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        assert rule.endpoint in EXPECTED_RULES, f"{rule.rule}: add its rule to EXPECTED_RULES"
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            problem = check_outcome(matrix_app, identity, method, rule)
            if problem:
                wrong.append(problem)
    assert wrong == []
