"""Tests of storage.releases and web.releases: releases stored once, the budget check and the insert in one
transaction (two publishers cannot overspend), the publishing form, the ledger and the public pages."""

from __future__ import annotations

import re
import threading

import pytest
from markupsafe import escape

from analysis.central import PrivacyCost
from storage import audit, releases
from storage.connection import immediate_transaction
from surveys.releases import release_csv, release_from_json
from tests.helpers.drivers import csrf_token_in, message_of
from tests.helpers.records import add_responses, many
from tests.helpers.sample_surveys import QUIZ_YAML, quiz_with_releases
from tests.helpers.survey_people import signed_in_as
from web.db import open_database

pytestmark = pytest.mark.both_backends


def note(actor: str = "ada") -> audit.Note:
    return audit.Note(actor, "release-published", "quiz", "test")


def test_a_stored_release_is_read_back_by_its_token_and_its_survey(db):
    with immediate_transaction(db):
        first = releases.add_release(db, "quiz", '{"a": 1}', "tok-1", 0.5, 0.0, 0.0, 60, made_on="2026-01-02")
        second = releases.add_release(db, "quiz", '{"a": 2}', "tok-2", 0.25, 1e-6, 0.01, 120, made_by="ada")
        releases.add_release(db, "other", "{}", "tok-3", 1.0, 0.0, 0.0, 10)
    assert (first.number, second.number) == (1, 2)
    assert releases.release_by_token(db, "tok-1") == first
    assert releases.release_by_token(db, "tok-2").body == '{"a": 2}'
    assert releases.release_by_token(db, "nope") is None
    assert [r.token for r in releases.releases_of(db, "quiz")] == ["tok-1", "tok-2"]
    assert releases.spent(db, "quiz") == [PrivacyCost(0.5, 0.0, 0.0), PrivacyCost(0.25, 1e-6, 0.01)]
    assert releases.answers_at_last(db, "quiz") == 120
    assert releases.answers_at_last(db, "none") is None
    assert releases.spent(db, "none") == []


@pytest.mark.parametrize("field", ["epsilon", "delta", "rho", "answers"])
def test_a_negative_cost_or_count_is_refused(db, field):
    values = {"epsilon": 0.5, "delta": 0.0, "rho": 0.0, "answers": 1, field: -1}
    with pytest.raises(ValueError, match=field):
        releases.add_release(db, "quiz", "{}", "t", **values)
    assert releases.releases_of(db, "quiz") == []


def test_tokens_are_random_and_unguessable():
    tokens = {releases.new_token() for _ in range(200)}
    assert len(tokens) == 200
    assert all(len(token) == 22 for token in tokens)


def test_a_refused_check_writes_nothing_not_even_the_audit_entry(db):
    def refuse(spent, last):
        raise ValueError("over budget")

    with pytest.raises(ValueError, match="over budget"):
        releases.publish(db, "quiz", refuse, "{}", PrivacyCost(0.5), 60, note())
    assert releases.releases_of(db, "quiz") == []
    assert audit.entries(db) == []


def test_publish_passes_the_spent_costs_and_last_answers_to_the_check_and_audits(db):
    seen = []
    check = lambda spent, last: seen.append((spent, last))  # noqa: E731
    first = releases.publish(db, "quiz", check, "{}", PrivacyCost(0.5), 60, note(), made_on="2026-03-01")
    releases.publish(db, "quiz", check, "{}", PrivacyCost(0.25, 1e-7, 0.002), 130, note())
    assert seen == [([], None), ([PrivacyCost(0.5)], 60)]
    assert first.made_on == "2026-03-01" and first.made_by == "ada" and not first.listed
    assert [e.action for e in audit.entries(db)] == ["release-published"] * 2


def test_two_owners_publishing_at_once_cannot_overspend(app, db):
    """The first publisher holds its transaction between its check and its insert; the second waits (it does
    not enter its check until the first commits), then sees the first's cost and is refused."""
    budget = 1.0
    first_inside, let_first_go = threading.Event(), threading.Event()
    second_inside = threading.Event()
    outcomes: dict[str, object] = {}

    def within_budget(spent, cost):
        if sum(c.epsilon for c in spent) + cost > budget + 1e-12:
            raise ValueError(f"over budget: spent {sum(c.epsilon for c in spent)}")

    def first_check(spent, last):
        within_budget(spent, 0.75)
        first_inside.set()
        let_first_go.wait(20)

    def second_check(spent, last):
        second_inside.set()
        within_budget(spent, 0.75)

    def run(name, check):
        own = open_database(app)
        try:
            outcomes[name] = releases.publish(own, "quiz", check, "{}", PrivacyCost(0.75), 100, note(name))
        except Exception as error:  # noqa: BLE001 - the outcome is what the test reads
            outcomes[name] = error
        finally:
            own.close()

    first = threading.Thread(target=run, args=("first", first_check))
    first.start()
    assert first_inside.wait(20)
    second = threading.Thread(target=run, args=("second", second_check))
    second.start()
    entered_early = second_inside.wait(0.5)
    let_first_go.set()
    first.join(20)
    second.join(20)
    assert not entered_early, "the second publisher read the budget while the first was still publishing"
    assert isinstance(outcomes["first"], releases.StoredRelease)
    assert isinstance(outcomes["second"], ValueError) and "over budget: spent 0.75" in str(outcomes["second"])
    assert releases.spent(db, "quiz") == [PrivacyCost(0.75)]


# --------------------------------------------------------------------------
# The pages.

ALL_KINDS = ["estimate:cheated", "counts:year", "mode:year", "breakdown:cheated:year"]


@pytest.fixture
def surveys_dir(tmp_path):
    """The quiz with a ``releases:`` key (budget epsilon 1, 5 new answers between releases)."""
    folder = tmp_path / "surveys"
    folder.mkdir()
    (folder / "quiz.yaml").write_text(quiz_with_releases())
    return folder


def csrf(auth, path: str = "/admin/surveys/quiz/releases/new") -> str:
    return csrf_token_in(text_of(auth.client.get(path)))


def post(auth, action: str, figures, epsilon: str = "0.5", survey_id: str = "quiz"):
    path = f"/admin/surveys/{survey_id}/releases/new"
    data = {"csrf_token": csrf(auth, path), "action": action, "figure": list(figures), "epsilon": epsilon}
    return auth.client.post(path, data=data)


def stored_releases(app, survey_id: str = "quiz") -> list[releases.StoredRelease]:
    own = open_database(app)
    try:
        return releases.releases_of(own, survey_id)
    finally:
        own.close()


def text_of(response) -> str:
    """The page's HTML with its white space collapsed (sentences run over template lines)."""
    return " ".join(response.get_data(as_text=True).split())


def token_of(response) -> str:
    return re.search(r'href="/r/([A-Za-z0-9_-]{22})"', text_of(response)).group(1)


def test_the_form_offers_every_figure_and_says_what_is_spent(app, auth):
    auth.login()
    add_responses(app, many(20, 20))
    page = auth.client.get("/admin/surveys/quiz/releases/new")
    html = text_of(page)
    assert page.status_code == 200
    for key in (*ALL_KINDS, "breakdown:ai_use:year", "estimate:lied"):
        assert f'value="{key}"' in html
    assert "Nothing is spent yet" in html and "epsilon 1 is left" in html
    assert "Answers counted now: 40" in html


def test_show_the_cost_previews_and_stores_nothing(app, auth):
    auth.login()
    add_responses(app, many(20, 20))
    answer = post(auth, "preview", ALL_KINDS, "0.6")
    html = text_of(answer)
    assert answer.status_code == 200, message_of(answer)
    assert "What this release would cost (nothing is stored)" in html
    assert "0.2" in html and "0 (free)" in html  # 0.6 split over the three costing figures; the estimate is free
    assert "Left after it: epsilon 0.4." in html and "It can be published." in html
    assert stored_releases(app) == []
    own = open_database(app)
    assert [e.action for e in audit.entries(own)] == ["sign-in"]
    own.close()


def test_show_the_cost_says_when_it_would_be_refused(app, auth):
    auth.login()
    add_responses(app, many(2, 1))
    html = text_of(post(auth, "preview", ["counts:year"], "0.5"))
    assert "It would not be published: There are only 3 new answers so far" in html


def test_publish_stores_a_snapshot_audits_it_and_lists_it_on_the_ledger(app, auth, client):
    auth.login()
    add_responses(app, many(30, 30))
    answer = post(auth, "publish", ALL_KINDS, "0.6")
    assert answer.status_code == 302 and answer.headers["Location"] == "/admin/surveys/quiz/releases"
    (stored,) = stored_releases(app)
    assert (stored.number, stored.answers, stored.delta, stored.made_by) == (1, 60, 0.0, "researcher")
    assert stored.epsilon == pytest.approx(0.6)
    release = release_from_json(stored.body)
    assert [f.key for f in release.figures] == ALL_KINDS and release.answers == 60
    ledger = auth.client.get("/admin/surveys/quiz/releases")
    html = text_of(ledger)
    assert ledger.status_code == 200 and token_of(ledger) == stored.token
    assert "Its 1 release spent epsilon 0.6" in html and "epsilon 0.4 is left" in html
    assert "Answers: Year of study (epsilon 0.2)" in html and "(free)" in html
    own = open_database(app)
    (entry,) = [e for e in audit.entries(own) if e.action == "release-published"]
    own.close()
    assert entry.actor == "researcher" and entry.survey_id == "quiz" and "counts:year" in entry.detail


def test_the_public_pages_show_the_snapshot_signed_out_and_never_change(app, auth):
    auth.login()
    add_responses(app, many(30, 30))
    post(auth, "publish", ALL_KINDS, "0.6")
    (stored,) = stored_releases(app)
    anyone = app.test_client()
    page = anyone.get(f"/r/{stored.token}")
    html = text_of(page)
    assert page.status_code == 200 and page.headers["X-Robots-Tag"] == "noindex, nofollow"
    release = release_from_json(stored.body)
    for figure in release.figures:
        assert str(escape(figure.title)) in html and str(escape(figure.note)) in html
        for row in figure.rows:
            assert str(escape(row.value)) in html
    for sentence in release.protection:
        assert str(escape(sentence)) in html
    assert html.count('<svg xmlns="http://www.w3.org/2000/svg" class="chart"') == 3  # no chart for the mode
    assert "from 60 answers" in html and "This page is a snapshot" in html
    add_responses(app, many(50, 50), day="2026-11-23")
    assert text_of(anyone.get(f"/r/{stored.token}")) == html
    csv = anyone.get(f"/r/{stored.token}.csv")
    assert csv.status_code == 200 and csv.get_data(as_text=True) == release_csv(release)
    assert csv.headers["Content-Disposition"] == 'attachment; filename="release-quiz-1.csv"'
    printed = text_of(anyone.get(f"/r/{stored.token}/print"))
    assert "Print view" not in printed and str(escape(release.figures[1].title)) in printed
    for path in ("/r/nothing-here-at-all-xx", "/r/nothing-here-at-all-xx.csv", "/r/nothing-here-at-all-xx/print"):
        assert anyone.get(path).status_code == 404


@pytest.mark.parametrize(
    ("figures", "epsilon", "expected"),
    [
        (["counts:year"], "abc", "epsilon must be a number above 0"),
        (["counts:year"], "-1", "epsilon must be a number above 0"),
        (["counts:year"], "1/0", "epsilon must be a number above 0"),
        (["counts:year"], "x" * 40, "epsilon must be a number above 0"),
        (["counts:year"], "0", "The epsilon of a release must be above 0, got 0"),
        (["counts:nothing"], "0.5", "There is no figure “counts:nothing”"),
        ([], "0.5", "Choose at least one figure"),
        (["counts:year"], "1.5", "would go over the survey"),
    ],
)
def test_a_bad_or_refused_publication_answers_400_and_stores_nothing(app, auth, figures, epsilon, expected):
    auth.login()
    add_responses(app, many(20, 20))
    for action in ("publish", "preview"):
        answer = post(auth, action, figures, epsilon)
        if action == "preview" and "over the survey" in expected:
            assert answer.status_code == 200 and expected in text_of(answer)
            continue
        assert answer.status_code == 400 and expected in message_of(answer), message_of(answer)
    assert stored_releases(app) == []


def test_a_second_release_needs_the_new_answers_and_pays_from_the_same_budget(app, auth):
    auth.login()
    add_responses(app, many(20, 20))
    assert post(auth, "publish", ["counts:year"], "0.5").status_code == 302
    add_responses(app, many(2, 2), day="2026-11-23")
    refused = post(auth, "publish", ["counts:year"], "0.25")
    assert refused.status_code == 400 and "There are only 4 new answers since the last release" in message_of(refused)
    add_responses(app, many(3, 3), day="2026-11-24")
    assert post(auth, "publish", ["counts:year"], "0.25").status_code == 302
    add_responses(app, many(3, 3), day="2026-11-25")
    over = post(auth, "publish", ["counts:year"], "0.5")
    assert over.status_code == 400 and "over by 0.25" in message_of(over)
    assert [r.epsilon for r in stored_releases(app)] == [0.5, 0.25]
    assert [r.answers for r in stored_releases(app)] == [40, 50]


@pytest.mark.parametrize("epsilon", ["0.5", "0"])
def test_free_figures_alone_cost_nothing(app, auth, epsilon):
    auth.login()
    add_responses(app, many(20, 20))
    assert post(auth, "publish", ["estimate:cheated"], epsilon).status_code == 302
    (stored,) = stored_releases(app)
    assert stored.epsilon == 0 and "Nothing is spent yet" not in text_of(
        auth.client.get("/admin/surveys/quiz/releases")
    )


def test_a_survey_without_a_releases_key_publishes_nothing(app, auth, surveys_dir):
    (surveys_dir / "plain.yaml").write_text(QUIZ_YAML.replace("id: quiz", "id: plain"))
    auth.login()
    page = text_of(auth.client.get("/admin/surveys/plain/releases/new"))
    assert "has no <code>releases:</code> key" in page and 'name="figure"' not in page
    answer = post(auth, "publish", ["counts:year"], "0.5", survey_id="plain")
    assert answer.status_code == 400 and "no `releases:` key" in message_of(answer)
    assert stored_releases(app, "plain") == []
    assert "has no <code>releases:</code> key" in auth.client.get("/admin/surveys/plain/releases").get_data(
        as_text=True
    )


def test_a_viewer_reads_the_ledger_but_only_an_owner_publishes(app, auth, admin_account):
    add_responses(app, many(20, 20))
    viewer = signed_in_as(app, "vera", "viewer")
    assert viewer.client.get("/admin/surveys/quiz/releases").status_code == 200
    assert "Publish a release" not in text_of(viewer.client.get("/admin/surveys/quiz/releases"))
    assert viewer.client.get("/admin/surveys/quiz/releases/new").status_code == 404
    token = csrf_token_in(text_of(viewer.client.get("/admin/surveys/quiz/releases")))
    data = {"csrf_token": token, "action": "publish", "figure": ["counts:year"], "epsilon": "0.5"}
    assert viewer.client.post("/admin/surveys/quiz/releases/new", data=data).status_code == 404
    owner = signed_in_as(app, "olga", "owner")
    assert post(owner, "publish", ["counts:year"], "0.5").status_code == 302
    outsider = signed_in_as(app, "otto", None)
    assert outsider.client.get("/admin/surveys/quiz/releases").status_code == 404
    assert app.test_client().get("/admin/surveys/quiz/releases").status_code == 302
    assert len(stored_releases(app)) == 1


def test_a_budget_whose_delta_became_0_after_a_release_with_a_delta_leaves_nothing_not_a_500(app, auth, db):
    """The survey file's delta edited to 0 after a Gaussian release: the pages still answer, nothing is left,
    and a new release is refused with a 400."""
    auth.login()
    add_responses(app, many(20, 20))
    with immediate_transaction(db):
        releases.add_release(db, "quiz", "{}", "t" * 22, 0.3, 1e-7, 0.01, 10)
    page = auth.client.get("/admin/surveys/quiz/releases/new")
    assert page.status_code == 200 and "epsilon 0 is left" in text_of(page)
    answer = post(auth, "publish", ["counts:year"], "0.1")
    assert answer.status_code == 400 and "delta 0 takes pure costs only" in message_of(answer)
    assert len(stored_releases(app)) == 1


@pytest.mark.parametrize("token", [None, "junk"])
def test_publishing_without_a_valid_csrf_token_stores_nothing(app, auth, token):
    auth.login()
    add_responses(app, many(20, 20))
    data = {"action": "publish", "figure": ["counts:year"], "epsilon": "0.5"}
    if token:
        data["csrf_token"] = token
    answer = auth.client.post("/admin/surveys/quiz/releases/new", data=data)
    assert answer.status_code == 400 and "Reload the page" in message_of(answer)
    assert stored_releases(app) == []


def test_each_release_page_reads_in_one_snapshot_and_publishing_writes_in_one_transaction(app, auth, monkeypatch):
    """The figures a page shows agree with each other: one read snapshot per page; publishing adds one write
    transaction (the budget check and the insert) after its one read."""
    from storage import connection

    auth.login()
    add_responses(app, many(20, 20))
    seen: list[str] = []
    for module, name in ((connection, "read_snapshot"), (releases, "immediate_transaction")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda db, real=real, name=name: seen.append(name) or real(db))

    def counted(request) -> list[str]:
        seen.clear()
        request()
        return list(seen)

    token = csrf(auth)
    new = "/admin/surveys/quiz/releases/new"
    preview = {"csrf_token": token, "action": "preview", "figure": ALL_KINDS, "epsilon": "0.6"}
    publish = {**preview, "action": "publish"}
    assert counted(lambda: auth.client.get(new)) == ["read_snapshot"]
    assert counted(lambda: auth.client.post(new, data=preview)) == ["read_snapshot"]
    assert counted(lambda: auth.client.post(new, data=publish)) == ["read_snapshot", "immediate_transaction"]
    assert counted(lambda: auth.client.get("/admin/surveys/quiz/releases")) == ["read_snapshot"]


def test_a_budget_with_a_delta_publishes_gaussian_releases_and_adds_them_up_by_zcdp(app, auth, surveys_dir):
    gauss = quiz_with_releases(epsilon="2", delta="1e-6").replace("id: quiz", "id: gauss")
    (surveys_dir / "gauss.yaml").write_text(gauss)
    auth.login()
    add_responses(app, many(30, 30), survey_id="gauss")
    for day in ("2026-11-23", "2026-11-24"):
        assert post(auth, "publish", ["counts:year", "breakdown:cheated:year"], "0.8", "gauss").status_code == 302
        add_responses(app, many(3, 3), day=day, survey_id="gauss")
    first, second = stored_releases(app, "gauss")
    assert first.delta == 1e-6 and first.rho > 0 and first.epsilon == pytest.approx(0.8, rel=1e-6)
    assert "discrete Gaussian" in release_from_json(first.body).figures[0].note
    ledger = text_of(auth.client.get("/admin/surveys/gauss/releases"))
    assert "by zCDP accounting (the plain sum is 1.6)" in ledger, ledger


def publish_listed(auth, figures=("counts:year",), epsilon: str = "0.5", listed: bool = True):
    path = "/admin/surveys/quiz/releases/new"
    data = {"csrf_token": csrf(auth, path), "action": "publish", "figure": list(figures), "epsilon": epsilon}
    if listed:
        data["listed"] = "yes"
    return auth.client.post(path, data=data)


def test_a_listed_release_is_on_the_start_page_under_its_survey_an_unlisted_one_nowhere(app, auth):
    auth.login()
    add_responses(app, many(20, 20))
    assert publish_listed(auth, listed=False).status_code == 302
    add_responses(app, many(5, 5), day="2026-11-23")
    assert publish_listed(auth, epsilon="0.25").status_code == 302
    unlisted, shown = stored_releases(app)
    assert (unlisted.listed, shown.listed) == (False, True)
    start = text_of(app.test_client().get("/"))
    assert "Published results" in start and "<li>Test quiz <ul>" in start.split("Published results")[1]
    assert f'href="/r/{shown.token}">Results of {shown.made_on}</a>' in start
    assert unlisted.token not in start
    anyone = app.test_client()
    assert "X-Robots-Tag" not in anyone.get(f"/r/{shown.token}").headers
    assert anyone.get(f"/r/{unlisted.token}").headers["X-Robots-Tag"] == "noindex, nofollow"
    ledger = text_of(auth.client.get("/admin/surveys/quiz/releases"))
    assert "(unlisted)" in ledger and "(listed on the start page)" in ledger


def test_with_no_listed_release_the_start_page_shows_no_results(app, auth):
    auth.login()
    add_responses(app, many(20, 20))
    assert publish_listed(auth, listed=False).status_code == 302
    start = text_of(app.test_client().get("/"))
    assert "Published results" not in start and stored_releases(app)[0].token not in start


@pytest.mark.parametrize("role", ["viewer", "analyst"])
def test_only_an_owner_publishes_a_listed_release(app, auth, admin_account, role):
    add_responses(app, many(20, 20))
    someone = signed_in_as(app, "vera", role)
    token = csrf_token_in(text_of(someone.client.get("/admin/surveys/quiz/releases")))
    data = {"csrf_token": token, "action": "publish", "figure": ["counts:year"], "epsilon": "0.5", "listed": "yes"}
    assert someone.client.post("/admin/surveys/quiz/releases/new", data=data).status_code == 404
    assert stored_releases(app) == [] and "Published results" not in text_of(app.test_client().get("/"))
    owner = signed_in_as(app, "olga", "owner")
    assert publish_listed(owner).status_code == 302
    assert [r.listed for r in stored_releases(app)] == [True]


@pytest.mark.parametrize("body", ["{not json", '{"survey_id": "quiz"}', "[]", '{"figures": 3}'])
def test_a_release_whose_stored_text_cannot_be_read_gives_a_clear_page_not_a_500(app, auth, db, body):
    auth.login()
    with immediate_transaction(db):
        releases.add_release(db, "quiz", body, "b" * 22, 0.3, 0.0, 0.0, 10, listed=True)
    ledger = auth.client.get("/admin/surveys/quiz/releases")
    assert ledger.status_code == 200 and "stored text cannot be read" in text_of(ledger)
    anyone = app.test_client()
    for path in (f"/r/{'b' * 22}", f"/r/{'b' * 22}.csv", f"/r/{'b' * 22}/print"):
        page = anyone.get(path)
        assert page.status_code == 410 and "its stored text cannot be read" in text_of(page), path
    assert anyone.get("/").status_code == 200
