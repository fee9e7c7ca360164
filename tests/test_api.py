"""Read-only API tokens (storage/tokens.py, web/tokens.py, web/api.py, web/permissions.py::survey_token)."""

from __future__ import annotations

import html
import json
import re

import pytest

from storage import audit, tokens
from tests.helpers.drivers import csrf_token_in
from tests.helpers.records import add_responses, dump, many
from tests.helpers.sample_surveys import QUIZ_YAML
from tests.helpers.survey_people import signed_in_as

pytestmark = pytest.mark.both_backends

TOKENS = "/admin/surveys/quiz/tokens"


def make_token(session, label: str = "my analysis", survey_id: str = "quiz"):
    path = f"/admin/surveys/{survey_id}/tokens"
    csrf = csrf_token_in(session.client.get(path).get_data(as_text=True))
    return session.client.post(path, data={"csrf_token": csrf, "label": label})


def token_on(page) -> str:
    return re.search(r'<code class="new-token">([^<]+)</code>', page.get_data(as_text=True)).group(1)


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def test_a_token_is_shown_once_stored_hashed_and_reads_what_the_exports_give(app, auth, db):
    add_responses(app, many(6, 4))
    auth.login()
    made = make_token(auth)
    assert made.status_code == 200
    token = token_on(made)
    assert token not in auth.client.get(TOKENS).get_data(as_text=True)  # shown once
    assert token not in repr(dump(app))  # only its hash is stored
    script = app.test_client()  # no cookie
    for name in ("responses.csv", "estimates.csv", "breakdown.csv?by=year", "codebook.json"):
        by_token = script.get(f"/api/surveys/quiz/{name}", headers=bearer(token))
        assert by_token.status_code == 200, name
        body = by_token.get_data()
        by_token.close()  # a streamed body: ended before the next request
        by_admin = auth.client.get(f"/admin/surveys/quiz/{name}")
        assert body == by_admin.get_data(), name
        by_admin.close()
    estimates = script.get("/api/surveys/quiz/estimates.json?method=wilson", headers=bearer(token)).get_json()
    admin_estimates = auth.client.get("/admin/surveys/quiz/estimates.json?method=wilson").get_json()
    estimates.pop("exported_at"), admin_estimates.pop("exported_at")
    assert estimates == admin_estimates and estimates["response_count"] == 10
    (stored,) = tokens.of_survey(db, "quiz")
    assert stored.label == "my analysis" and stored.made_by == "researcher" and stored.last_used is not None
    page = auth.client.get(TOKENS).get_data(as_text=True)
    assert stored.last_used in page and "my analysis" in page
    exports = [e for e in audit.entries(db) if e.action == "export" and e.actor == "token:my analysis"]
    assert {e.detail for e in exports} >= {"responses.csv", "estimates.json", "codebook.json"}


@pytest.mark.parametrize(
    "header",
    [None, "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer rrt_not-a-token", "bearer wrong"],
)
def test_a_missing_or_wrong_token_gets_a_401_saying_why(app, auth, header):
    auth.login()
    make_token(auth)
    headers = {"Authorization": header} if header is not None else {}
    refused = app.test_client().get("/api/surveys/quiz/estimates.json", headers=headers)
    assert refused.status_code == 401 and refused.headers["WWW-Authenticate"].startswith("Bearer")
    assert "token" in refused.get_json()["error"]


def test_a_revoked_token_gets_a_401_and_the_revocation_is_audited(app, auth, db):
    auth.login()
    token = token_on(make_token(auth, "old script"))
    script = app.test_client()
    assert script.get("/api/surveys/quiz/codebook.json", headers=bearer(token)).status_code == 200
    (stored,) = tokens.of_survey(db, "quiz")
    csrf = csrf_token_in(auth.client.get(TOKENS).get_data(as_text=True))
    revoked = auth.client.post(f"{TOKENS}/{stored.id}/revoke", data={"csrf_token": csrf}, follow_redirects=True)
    assert "is revoked" in revoked.get_data(as_text=True)
    refused = script.get("/api/surveys/quiz/codebook.json", headers=bearer(token))
    assert refused.status_code == 401 and "revoked" in refused.get_json()["error"]
    again = auth.client.post(f"{TOKENS}/{stored.id}/revoke", data={"csrf_token": csrf})
    assert again.status_code == 404
    actions = [(e.action, e.detail) for e in audit.entries(db) if e.action.startswith("token-")]
    assert sorted(actions) == [("token-created", "label 'old script'"), ("token-revoked", "label 'old script'")]
    assert token not in repr(audit.entries(db))


def test_a_token_of_one_survey_gets_a_404_on_another(app, auth, surveys_dir):
    (surveys_dir / "other.yaml").write_text(QUIZ_YAML.replace("id: quiz", "id: other"))
    auth.login()
    token = token_on(make_token(auth))
    script = app.test_client()
    for path in ("/api/surveys/other/estimates.json", "/api/surveys/nosuch/estimates.json"):
        refused = script.get(path, headers=bearer(token))
        assert refused.status_code == 404 and "There is no survey called" in refused.get_json()["error"]
    unknown = script.get("/api/surveys/quiz/secrets.json", headers=bearer(token))
    assert unknown.status_code == 404 and "no file called" in unknown.get_json()["error"]


@pytest.mark.parametrize("label", ["", "   ", "x" * (tokens.MAX_LABEL + 1)])
def test_a_token_needs_a_label_of_reasonable_length(app, auth, db, label):
    auth.login()
    refused = make_token(auth, label)
    assert refused.status_code == 400 and "label" in refused.get_data(as_text=True)
    assert tokens.of_survey(db, "quiz") == []


@pytest.mark.parametrize("role", ["viewer", "analyst"])
def test_only_an_owner_makes_or_sees_tokens(app, auth, db, role):
    other = signed_in_as(app, "someone", role)
    assert other.client.get(TOKENS).status_code == 404
    csrf = csrf_token_in(other.client.get("/admin/").get_data(as_text=True))
    assert other.client.post(TOKENS, data={"csrf_token": csrf, "label": "x"}).status_code == 404
    assert tokens.of_survey(db, "quiz") == []


def test_the_survey_page_shows_r_and_python_snippets_that_send_the_token(app, auth):
    auth.login()
    page = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    assert "req_auth_bearer_token" in page and "readr::read_csv" in page
    assert "pd.read_csv" in page and "http://localhost/api/surveys/quiz/responses.csv" in page
    assert f'href="{TOKENS}"' in page


def test_an_api_response_carries_no_cookie_and_reads_none(app, auth):
    auth.login()
    token = token_on(make_token(auth))
    # the admin's signed-in client with a wrong token is still refused: the cookie counts for nothing here
    refused = auth.client.get("/api/surveys/quiz/estimates.json", headers=bearer(token + "x"))
    assert refused.status_code == 401
    answered = app.test_client().get("/api/surveys/quiz/estimates.json", headers=bearer(token))
    assert "Set-Cookie" not in answered.headers and json.loads(answered.get_data())["survey_id"] == "quiz"


def test_making_or_revoking_a_token_without_a_csrf_token_changes_nothing(app, auth, db):
    auth.login()
    make_token(auth, "kept")
    (kept,) = tokens.of_survey(db, "quiz")
    for data in ({}, {"csrf_token": "junk"}):
        assert auth.client.post(TOKENS, data={**data, "label": "another"}).status_code == 400
        assert auth.client.post(f"{TOKENS}/{kept.id}/revoke", data=data).status_code == 400
    assert tokens.of_survey(db, "quiz") == [kept]


def test_the_python_snippet_of_the_survey_page_reads_the_responses_with_a_token(app, auth, live_server, monkeypatch):
    add_responses(app, many(2, 1))
    auth.login()
    token = token_on(make_token(auth))
    page = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    snippet = html.unescape(re.search(r"<pre><code># Python \(pandas\)\n(.*?)</code></pre>", page, re.S).group(1))
    monkeypatch.setenv("RR_TOKEN", token)
    namespace: dict = {}
    exec(snippet.replace("http://localhost/", f"{live_server}/"), namespace)  # the page's host: the test client's
    assert len(namespace["responses"]) == 3 and "cheated" in namespace["responses"].columns


def test_a_token_goes_with_its_deleted_survey_and_reads_nothing_of_a_new_survey_under_its_id(app, auth):
    auth.login()
    drafted = QUIZ_YAML.replace("id: quiz", "id: drafted")

    def new_survey():
        csrf = csrf_token_in(auth.client.get("/admin/surveys/new").get_data(as_text=True))
        made = auth.client.post("/admin/surveys/new", data={"csrf_token": csrf, "action": "save", "source": drafted})
        assert made.status_code == 302

    new_survey()
    token = token_on(make_token(auth, survey_id="drafted"))
    script = app.test_client()
    assert script.get("/api/surveys/drafted/codebook.json", headers=bearer(token)).status_code == 200
    csrf = csrf_token_in(auth.client.get("/admin/surveys/drafted/delete").get_data(as_text=True))
    deleted = auth.client.post("/admin/surveys/drafted/delete", data={"csrf_token": csrf, "confirm_id": "drafted"})
    assert deleted.status_code == 302
    new_survey()  # another survey, under the same id
    assert script.get("/api/surveys/drafted/codebook.json", headers=bearer(token)).status_code == 401
