"""web/editor.py: a survey written, uploaded, checked, edited and extended in the browser."""

from __future__ import annotations

import io
import re
from fractions import Fraction
from html import unescape

import openpyxl
import pytest

from analysis.numeric import numeric_needed_n
from analysis.numeric_design import laplace_for_epsilon, unary_for_epsilon
from surveys.files import load_survey_text
from tests.helpers.drivers import ADMIN_NAME, message_of
from tests.helpers.sample_surveys import QUIZ_YAML
from web import catalog

pytestmark = pytest.mark.both_backends

#: The tests' quiz under an id of its own (the app's survey folder has ``quiz.yaml``).
DRAFT_YAML = QUIZ_YAML.replace("id: quiz", "id: drafted")


def workbook(path):
    """A small XLSForm workbook: one yes/no question, the settings sheet naming the survey ``drafted``."""
    book = openpyxl.Workbook()
    book.active.title = "survey"
    for row in (["type", "name", "label"], ["yes_no", "cheated", "Have you ever cheated on an exam?"]):
        book["survey"].append(row)
    settings = book.create_sheet("settings")
    for row in (["form_id", "form_title", "version"], ["drafted", "Test quiz", 1]):
        settings.append(row)
    book.save(path)
    return path


def post_new(auth, **fields):
    token = auth.csrf_token("/admin/surveys/new")
    data = {"csrf_token": token, "action": "save", **fields}
    return auth.client.post("/admin/surveys/new", data=data, content_type="multipart/form-data")


def post_edit(auth, survey_id, source, **fields):
    token = auth.csrf_token(f"/admin/surveys/{survey_id}/edit")
    data = {"csrf_token": token, "action": "save", "source": source, **fields}
    return auth.client.post(f"/admin/surveys/{survey_id}/edit", data=data)


def stored(app):
    from storage import audit, roles
    from storage import surveys as stored_surveys
    from web.db import open_database

    db = open_database(app)
    try:
        records = stored_surveys.survey_records(db)
        owners = {survey_id: roles.people_of(db, survey_id) for survey_id in records}
        actions = [(entry.action, entry.survey_id) for entry in audit.entries(db)]
        return records, owners, actions
    finally:
        db.close()


def numbered(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), start=1) if needle in line)


@pytest.fixture
def signed_in(auth):
    auth.login()
    return auth


def test_a_survey_written_in_the_page_is_saved_as_a_draft_owned_by_its_writer(app, signed_in):
    response = post_new(signed_in, source=DRAFT_YAML)
    assert response.status_code == 302 and response.headers["Location"] == "/admin/surveys/drafted/edit"
    records, owners, actions = stored(app)
    assert records["drafted"].stage == "draft" and records["drafted"].managed_by is None
    assert owners["drafted"] == [(ADMIN_NAME, "owner")]
    assert ("survey-created", "drafted") in actions
    page = signed_in.client.get("/admin/surveys/drafted/edit").get_data(as_text=True)
    assert "Test quiz" in page and "name: cheated" in page


def test_a_survey_just_saved_is_previewed_at_once_not_after_the_catalogues_next_poll(app, signed_in, monkeypatch):
    """The catalogue reads the change log at most every ``POLL_SECONDS``; a save refreshes the saving process's
    at once, so the preview the editor links to finds the new draft, and its next version, without waiting
    (a browser test once clicked Preview within the half second and got a 404)."""
    monkeypatch.setattr(catalog, "POLL_SECONDS", 3600)
    assert signed_in.client.get("/admin/").status_code == 200  # the catalogue read now, not again for an hour
    assert post_new(signed_in, source=DRAFT_YAML).status_code == 302
    preview = signed_in.client.get("/admin/surveys/drafted/preview")
    assert preview.status_code == 200 and "Have you ever cheated on an exam?" in preview.get_data(as_text=True)
    changed = DRAFT_YAML.replace("title: Test quiz", "title: Test quiz, second draft")
    assert post_edit(signed_in, "drafted", changed).status_code == 302
    assert "Test quiz, second draft" in signed_in.client.get("/admin/surveys/drafted/preview").get_data(as_text=True)


def test_a_mistake_is_shown_beside_its_line_and_nothing_is_stored(app, signed_in):
    broken = DRAFT_YAML.replace("design: {t: 2/3, a: 1/6, b: 1/6}", "design: {t: 2/3, a: -1/6, b: 1/6}")
    response = post_new(signed_in, source=broken)
    html = response.get_data(as_text=True)
    assert response.status_code == 400
    line = numbered(broken, "a: -1/6")
    beside = re.search(rf'<li id="line-{line}" class="has-problem">(.*?)</li>', html, re.S)
    assert beside and "question &#39;lied&#39;, field &#39;design.a&#39;" in beside.group(1)
    assert "drafted" not in stored(app)[0]


@pytest.mark.parametrize(
    ("name", "content", "said"),
    [
        ("survey.txt", b"id: x", "is not a survey file or an XLSForm workbook"),
        ("survey.yaml", "id: caf\xe9".encode("latin-1"), "is not UTF-8 text"),
        ("survey.xlsx", b"PK not a zip", "not an .xlsx workbook"),
        ("survey.yaml", b"#" * 101, "is 101 bytes; a survey file takes at most 100"),
    ],
)
def test_a_bad_upload_is_refused_with_400_and_nothing_is_stored(app, signed_in, monkeypatch, name, content, said):
    from surveys import limits

    monkeypatch.setattr(limits, "MAX_SURVEY_FILE_BYTES", 100)  # the test client leaks the file of a larger body
    response = post_new(signed_in, upload=(io.BytesIO(content), name))
    assert response.status_code == 400
    assert said in response.get_data(as_text=True)
    assert "drafted" not in stored(app)[0]


def test_an_xlsform_workbook_becomes_a_draft(app, signed_in, tmp_path):
    path = workbook(tmp_path / "quiz.xlsx")
    response = post_new(signed_in, upload=(io.BytesIO(path.read_bytes()), "quiz.xlsx"))
    assert response.status_code == 302
    assert stored(app)[0]["drafted"].stage == "draft"


def test_a_workbook_whose_survey_the_checks_refuse_is_shown_as_yaml_with_the_problem_at_its_line(
    app, signed_in, tmp_path
):
    path = workbook(tmp_path / "quiz.xlsx")
    book = openpyxl.load_workbook(path)
    for column, header, value in zip("DEF", ("design::t", "design::a", "design::b"), ("1/2", "1/4", "1/2")):
        book["survey"][f"{column}1"], book["survey"][f"{column}2"] = header, value  # adds up to 5/4
    book.save(path)
    response = post_new(signed_in, upload=(io.BytesIO(path.read_bytes()), "quiz.xlsx"))
    html = response.get_data(as_text=True)
    assert response.status_code == 400 and "Nothing was stored: what was sent cannot be read" not in html
    textarea = re.search(r'<textarea id="source"[^>]*>(.*?)</textarea>', html, re.S).group(1).lstrip("\n")
    assert "id: drafted" in textarea and "b: 1/2" in textarea
    lines = [int(n) for n in re.findall(r'<li id="line-(\d+)" class="has-problem">', html)]
    design = numbered(textarea, "design:")
    assert len(lines) == 1 and design <= lines[0] <= design + 3  # at the design or one of its keys
    assert "t + a + b must equal 1" in html
    assert "drafted" not in stored(app)[0]


def test_a_survey_file_upload_is_checked_and_saved(app, signed_in):
    response = post_new(signed_in, upload=(io.BytesIO(DRAFT_YAML.encode()), "quiz.yaml"))
    assert response.status_code == 302 and "drafted" in stored(app)[0]


def test_an_id_already_taken_is_a_problem_at_the_id_line(app, signed_in):
    post_new(signed_in, source=DRAFT_YAML)
    response = post_new(signed_in, source=DRAFT_YAML)
    assert response.status_code == 400
    assert "there is already a survey called &#39;drafted&#39;" in response.get_data(as_text=True)


def test_check_shows_problems_without_saving(app, signed_in):
    token = signed_in.csrf_token("/admin/surveys/new")
    response = signed_in.client.post(
        "/admin/surveys/new", data={"csrf_token": token, "action": "check", "source": DRAFT_YAML}
    )
    assert response.status_code == 200 and "No problems" in response.get_data(as_text=True)
    assert "drafted" not in stored(app)[0]


def test_without_a_csrf_token_nothing_is_stored(app, signed_in):
    response = signed_in.client.post("/admin/surveys/new", data={"source": QUIZ_YAML, "action": "save"})
    assert response.status_code == 400 and "drafted" not in stored(app)[0]


def test_a_wording_change_is_saved_in_place_and_audited(app, signed_in):
    post_new(signed_in, source=DRAFT_YAML)
    response = post_edit(signed_in, "drafted", DRAFT_YAML.replace("Test quiz", "Renamed quiz"))
    assert response.status_code == 302
    records, _, actions = stored(app)
    assert records["drafted"].current_version == 1 and ("survey-edited", "drafted") in actions


def test_the_id_cannot_change_in_the_editor(app, signed_in):
    post_new(signed_in, source=DRAFT_YAML)
    response = post_edit(signed_in, "drafted", DRAFT_YAML.replace("id: drafted", "id: other"))
    assert response.status_code == 400 and "the id stays &#39;drafted&#39;" in response.get_data(as_text=True)


def test_a_design_change_of_a_version_with_answers_says_what_it_means_before_saving(app, signed_in):
    from storage import responses
    from surveys.files import load_survey_text
    from surveys.submission import noisy_response
    from web.db import open_database

    post_new(signed_in, source=DRAFT_YAML)
    db = open_database(app)
    answers = {"cheated": "yes", "lied": "no", "ai_use": "never", "year": "first"}
    survey = load_survey_text(DRAFT_YAML, "drafted")
    responses.store_response(db, noisy_response(survey, answers, "device"), "seed-00000001", "2026-11-22")
    db.close()
    changed = DRAFT_YAML.replace("design: {t: 2/3, a: 1/6, b: 1/6}", "design: {t: 1/2, a: 1/4, b: 1/4}")
    response = post_edit(signed_in, "drafted", changed)
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "Before saving" in html and "Save as version 2" in html
    assert stored(app)[0]["drafted"].current_version == 1  # not saved yet
    confirm = re.search(r'name="confirmed" value="([0-9a-f]+)"', html).group(1)
    assert post_edit(signed_in, "drafted", changed + "# another text\n", confirmed=confirm).status_code == 200
    assert stored(app)[0]["drafted"].current_version == 1  # a confirmation holds for the text it was shown for
    assert post_edit(signed_in, "drafted", changed, confirmed=confirm).status_code == 302
    assert stored(app)[0]["drafted"].current_version == 2


def test_a_survey_managed_by_a_file_is_read_only(app, signed_in):
    from storage import surveys as stored_surveys
    from web.db import open_database

    db = open_database(app)
    stored_surveys.save_version(db, QUIZ_YAML, source_name="quiz.yaml", managed_by="quiz.yaml", actor=None)
    db.close()
    html = signed_in.client.get("/admin/surveys/quiz/edit").get_data(as_text=True)
    assert "managed by its survey file <code>quiz.yaml</code>" in html and " readonly>" in html
    response = post_edit(signed_in, "quiz", QUIZ_YAML.replace("Test quiz", "Renamed"))
    assert response.status_code == 400 and "change the file instead" in message_of(response)


def test_the_guided_editor_shows_each_design_side_by_side(app, signed_in):
    post_new(signed_in, source=DRAFT_YAML)
    html = signed_in.client.get("/admin/surveys/drafted/add-question?kind=yes_no").get_data(as_text=True)
    assert 'data-design="two_coins"' in html and 'data-design="crosswise"' in html
    assert ">1.10<" in html and "1,537" in html  # two coins: ln 3, and answers for ±5 points
    html = signed_in.client.get("/admin/surveys/drafted/add-question?kind=select_one").get_data(as_text=True)
    assert 'data-design="options_half"' in html and 'data-design="crosswise"' not in html


def test_an_added_question_is_appended_to_the_yaml_and_shown_unsaved(app, signed_in):
    post_new(signed_in, source=DRAFT_YAML)
    token = signed_in.csrf_token("/admin/surveys/drafted/add-question")
    data = {"csrf_token": token, "kind": "yes_no", "design": "warner", "name": "copied", "label": "Have you copied?"}
    response = signed_in.client.post("/admin/surveys/drafted/add-question", data=data)
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "- name: copied" in html and "model: warner" in html
    assert stored(app)[0]["drafted"].current_version == 1


def test_an_added_question_with_a_taken_name_is_refused(app, signed_in):
    post_new(signed_in, source=DRAFT_YAML)
    token = signed_in.csrf_token("/admin/surveys/drafted/add-question")
    data = {"csrf_token": token, "kind": "yes_no", "design": "two_coins", "name": "cheated", "label": "Again?"}
    response = signed_in.client.post("/admin/surveys/drafted/add-question", data=data)
    assert response.status_code == 400 and "same name" in response.get_data(as_text=True)


def test_the_guided_editor_compares_a_numbers_mechanisms_for_the_typed_range(app, signed_in):
    post_new(signed_in, source=DRAFT_YAML)
    query = "kind=decimal&min=0&max=10&step=0.5&epsilon=1&margin=0.25"
    response = signed_in.client.get(f"/admin/surveys/drafted/add-question?{query}")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    for key in ("number_default", "laplace", "bounded", "direct_number"):
        assert f'data-design="{key}"' in html
    assert 'data-design="two_coins"' not in html and "±0.25 on the mean" in html
    assert f">{numeric_needed_n(laplace_for_epsilon(20, 1.0), 0.5):,}<" in html
    assert '<input type="hidden" name="step" value="0.5">' in html
    html = signed_in.client.get("/admin/surveys/drafted/add-question?kind=select_multiple").get_data(as_text=True)
    assert 'data-design="optimized_unary"' in html and 'data-design="symmetric_unary"' in html


def test_a_numbers_settings_with_a_mistake_show_it_and_no_table(app, signed_in):
    post_new(signed_in, source=DRAFT_YAML)
    response = signed_in.client.get("/admin/surveys/drafted/add-question?kind=integer&min=5&max=1")
    html = response.get_data(as_text=True)
    assert response.status_code == 400 and "max must be above min" in html
    assert 'id="design-choices"' not in html and 'id="no-designs"' in html


def yaml_shown(html: str) -> str:
    """The YAML in the editor's text area, unescaped."""
    return unescape(re.search(r'<textarea id="source"[^>]*>(.*?)</textarea>', html, re.S).group(1))


def add(signed_in, **fields):
    token = signed_in.csrf_token("/admin/surveys/drafted/add-question")
    return signed_in.client.post("/admin/surveys/drafted/add-question", data={"csrf_token": token, **fields})


def test_a_decimal_and_a_check_all_question_are_appended_through_the_validator(app, signed_in):
    post_new(signed_in, source=DRAFT_YAML)
    fields = {"kind": "decimal", "design": "laplace", "name": "tip", "label": "How much did you tip?"}
    response = add(signed_in, **fields, min="0", max="10", step="0.5", bins="2.5, 5", epsilon="1.5")
    text = yaml_shown(response.get_data(as_text=True))
    assert response.status_code == 200
    block = (
        "- name: tip\n    type: decimal\n    label: How much did you tip?\n    min: 0\n    max: 10\n    step: 0.5\n"
        "    bins:\n    - 2.5\n    - 5\n    epsilon: 1.5\n    mechanism: laplace\n"
    )
    assert text.startswith(DRAFT_YAML.rstrip("\n")) and block in text
    question = load_survey_text(text, "drafted").question("tip")
    assert question.design == laplace_for_epsilon(20, 1.5) and question.number.cuts == (Fraction(5, 2), 5)
    fields = {"kind": "select_multiple", "design": "symmetric_unary", "name": "done", "label": "Which?"}
    response = add(signed_in, **fields, choices="Copied\nLied\n", epsilon="2")
    question = load_survey_text(yaml_shown(response.get_data(as_text=True)), "drafted").question("done")
    assert response.status_code == 200 and question.choice_names == ("Copied", "Lied")
    assert question.design == unary_for_epsilon(2, 2.0, "symmetric_unary")
    assert stored(app)[0]["drafted"].current_version == 1


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"kind": "integer", "design": "laplace", "min": "0", "max": "5000"}, "at most 1000"),
        ({"kind": "integer", "design": "bounded", "min": "0", "max": "30", "epsilon": "50"}, "epsilon"),
        ({"kind": "decimal", "design": "laplace", "min": "0", "max": "1"}, "is required"),
        ({"kind": "decimal", "design": "warner", "min": "0", "max": "1", "step": "0.1"}, "not one for a decimal"),
        ({"kind": "select_multiple", "design": "optimized_unary", "choices": "a\nb", "epsilon": "x"}, "epsilon"),
    ],
)
def test_a_bad_number_or_check_all_question_is_refused_and_nothing_changes(app, signed_in, fields, said):
    post_new(signed_in, source=DRAFT_YAML)
    response = add(signed_in, name="count", label="How many?", **fields)
    assert response.status_code == 400 and said in response.get_data(as_text=True)
    assert "- name: count" not in response.get_data(as_text=True)
    assert stored(app)[0]["drafted"].current_version == 1


def test_another_account_cannot_edit_a_survey_it_holds_no_role_on(app, signed_in):
    from storage import accounts
    from web.db import open_database

    post_new(signed_in, source=DRAFT_YAML)
    db = open_database(app)
    accounts.create_admin(db, "other", "another long password")
    db.execute("UPDATE admins SET site_admin = 0 WHERE name = 'other'")
    db.close()
    signed_in.logout()
    signed_in.login("other", "another long password")
    assert signed_in.client.get("/admin/surveys/drafted/edit").status_code == 404
    assert signed_in.client.get("/admin/surveys/new").status_code == 200


def test_a_text_larger_than_a_survey_forms_body_limit_is_checked(app, signed_in):
    padded = DRAFT_YAML + "# " + "x" * (app.config["MAX_CONTENT_LENGTH"] + 1000) + "\n"
    token = signed_in.csrf_token("/admin/surveys/new")
    data = {"csrf_token": token, "action": "check", "source": padded}
    response = signed_in.client.post("/admin/surveys/new", data=data)
    assert response.status_code == 200 and "No problems" in response.get_data(as_text=True)


def test_the_editor_links_both_previews_of_each_language_and_the_server_path_loads_no_script(app, signed_in):
    two_languages = DRAFT_YAML.replace("version: 1\n", "version: 1\nlanguages: [en, fr]\n").replace(
        "title: Test quiz", "title: {en: Test quiz, fr: Quiz de test}"
    )
    assert post_new(signed_in, source=two_languages).status_code == 302
    html = signed_in.client.get("/admin/surveys/drafted/edit").get_data(as_text=True)
    for code in ("en", "fr"):
        assert f"/admin/surveys/drafted/preview?lang={code}&amp;javascript=off" in html
        assert f'href="/admin/surveys/drafted/preview?lang={code}"' in html
    with_script = signed_in.client.get("/admin/surveys/drafted/preview?lang=fr").get_data(as_text=True)
    without = signed_in.client.get("/admin/surveys/drafted/preview?lang=fr&javascript=off").get_data(as_text=True)
    assert "randomize.js" in with_script and "randomize.js" not in without
    assert "<h1>Quiz de test</h1>" in without and 'data-question="cheated"' in without


def test_the_results_page_links_its_owner_to_the_editor(app, signed_in):
    post_new(signed_in, source=DRAFT_YAML)
    html = signed_in.client.get("/admin/surveys/drafted").get_data(as_text=True)
    assert 'href="/admin/surveys/drafted/edit">Edit</a>' in html
    html = signed_in.client.get("/admin/surveys/quiz").get_data(as_text=True)  # the folder's quiz: managed by its file
    assert 'href="/admin/surveys/quiz/edit">Its YAML (read-only)</a>' in html


def test_a_save_the_database_refuses_is_a_problem_not_an_error(app, signed_in, monkeypatch):
    from storage import surveys as stored_surveys
    from surveys.schema_checks import Problem, SurveyFileError

    def taken(*args, **kwargs):
        raise SurveyFileError([Problem("x", None, "id", "survey id 'drafted' is already used by the survey file x")])

    monkeypatch.setattr(stored_surveys, "save_version", taken)
    response = post_new(signed_in, source=DRAFT_YAML)
    assert response.status_code == 400 and "is already used by the survey file x" in response.get_data(as_text=True)
    assert "drafted" not in stored(app)[1]  # no owner recorded either


def test_a_yaml_error_at_the_end_of_the_text_keeps_its_numbered_line(app, signed_in):
    broken = DRAFT_YAML + "  - name: [\n"
    html = post_new(signed_in, source=broken).get_data(as_text=True)
    problem = re.search(r'<p class="problem" data-line="(\d+)">', html)
    assert problem and "invalid YAML" in html
    assert int(problem.group(1)) >= len(broken.splitlines())


def test_two_accounts_creating_the_same_id_at_once_the_second_is_refused_and_owns_nothing(app, signed_in, monkeypatch):
    """The editor's check that the id is free passes for both; the second save is refused inside its transaction."""
    from storage import accounts, roles
    from storage import surveys as stored_surveys
    from web.db import open_database

    db = open_database(app)
    accounts.create_admin(db, "other", "another long password", site_admin=False)
    db.close()
    real_record = stored_surveys.survey_record
    raced = []

    def record_after_the_other_saved(db, survey_id):
        """The editor's first look finds the id free; the other account's save commits right after it."""
        if not raced:
            raced.append(survey_id)
            other = open_database(app)
            other_text = DRAFT_YAML.replace("title: Test quiz", "title: The other's quiz")
            stored_surveys.save_version(other, other_text, source_name="x", managed_by=None, actor="other")
            roles.set_role(other, survey_id, "other", "owner")
            other.close()
            return None
        return real_record(db, survey_id)

    monkeypatch.setattr(stored_surveys, "survey_record", record_after_the_other_saved)
    response = post_new(signed_in, source=DRAFT_YAML)
    monkeypatch.undo()
    assert raced == ["drafted"]
    assert response.status_code == 400
    assert "there is already a survey called &#39;drafted&#39;; choose another id" in response.get_data(as_text=True)
    records, owners, actions = stored(app)
    assert owners["drafted"] == [("other", "owner")]
    assert ("survey-created", "drafted") not in actions
    db = open_database(app)
    assert [v.saved_by for v in stored_surveys.versions(db, "drafted")] == ["other"]
    db.close()


def post_preview(auth, source, query="", **fields):
    token = auth.csrf_token("/admin/surveys/new")
    data = {"csrf_token": token, "source": source, **fields}
    return auth.client.post(f"/admin/surveys/preview-text{query}", data=data, content_type="multipart/form-data")


def test_the_unsaved_text_is_previewed_in_each_language_and_path_storing_nothing(app, signed_in):
    two_languages = DRAFT_YAML.replace("version: 1\n", "version: 1\nlanguages: [en, fr]\n").replace(
        "title: Test quiz", "title: {en: Test quiz, fr: Quiz de test}"
    )
    assert post_new(signed_in, source=DRAFT_YAML).status_code == 302
    before = stored(app)
    edited = two_languages.replace("Quiz de test", "Quiz modifié")
    page = signed_in.client.get("/admin/surveys/drafted/edit").get_data(as_text=True)
    assert 'formaction="/admin/surveys/preview-text?javascript=off"' in page  # the saved text has one language
    token = signed_in.csrf_token("/admin/surveys/drafted/edit")
    checked = signed_in.client.post(
        "/admin/surveys/drafted/edit", data={"csrf_token": token, "action": "check", "source": edited}
    ).get_data(as_text=True)
    assert 'formaction="/admin/surveys/preview-text?lang=fr&amp;javascript=off"' in checked  # the edited text's
    for query, script in (("?lang=fr", True), ("?lang=fr&javascript=off", False), ("?lang=en", True)):
        response = post_preview(signed_in, edited, query)
        html = response.get_data(as_text=True)
        assert response.status_code == 200 and ("randomize.js" in html) is script
        assert ("<h1>Quiz modifié</h1>" in html) is ("fr" in query) and 'data-question="cheated"' in html
        assert "data-unsaved" in html and 'action="' not in html.split('id="survey-form"')[1].split(">")[0]
        assert re.search(r'<button type="submit" disabled>', html)
        assert "/s/drafted" not in html and "/preview" not in html.split("<main")[-1].split("survey-form")[0]
    new_id = post_preview(signed_in, DRAFT_YAML.replace("id: drafted", "id: brand-new"), "?javascript=off")
    assert new_id.status_code == 200 and "data-unsaved" in new_id.get_data(as_text=True)  # a survey not stored yet
    assert stored(app) == before  # nothing saved, no version, no audit entry


def test_an_unsaved_text_with_problems_is_not_previewed_and_a_preview_needs_its_csrf_token(app, signed_in):
    refused = post_preview(signed_in, DRAFT_YAML.replace("t: 2/3", "t: 7/3"))
    assert refused.status_code == 400 and 'class="problem"' in refused.get_data(as_text=True)
    no_token = signed_in.client.post("/admin/surveys/preview-text", data={"source": DRAFT_YAML})
    assert no_token.status_code == 400 and stored(app)[0].get("drafted") is None


def test_the_guided_editor_shows_each_designs_bias_and_answers_when_some_always_say_no(app, signed_in):
    post_new(signed_in, source=DRAFT_YAML)
    html = signed_in.client.get("/admin/surveys/drafted/add-question?kind=yes_no").get_data(as_text=True)
    assert 'id="noncompliance"' in html and "noncompliance-bias" not in html  # 0 by default: no columns
    response = signed_in.client.get("/admin/surveys/drafted/add-question?kind=yes_no&noncompliance=10")
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "Bias if 10% always answer “no”" in html
    row = re.search(r'<tr data-design="two_coins">.*?</tr>', html, re.S).group(0)
    assert "−5.0 to −15.0 points" in row and row.count(">1,537<") == 2  # -c theta0/d and -c (1 + theta0/d)
    direct = re.search(r'<tr data-design="direct_yes_no">.*?</tr>', html, re.S).group(0)
    assert "0.0 to −10.0 points" in direct
    crosswise = re.search(r'<tr data-design="crosswise">.*?</tr>', html, re.S).group(0)
    assert "+15.0 to +5.0 points" in crosswise
    cheater = re.search(r'<tr data-design="cheater_detection">.*?</tr>', html, re.S).group(0)
    assert 'class="noncompliance-bias">–<' in cheater
    assert "they always answer “no”" in html and '<input type="hidden" name="noncompliance" value="10">' in html


@pytest.mark.parametrize("typed", ["abc", "-5", "100", "1e3", "50.1234567"])
def test_a_share_who_always_say_no_that_is_no_percentage_is_refused(app, signed_in, typed):
    post_new(signed_in, source=DRAFT_YAML)
    response = signed_in.client.get(
        "/admin/surveys/drafted/add-question", query_string={"kind": "yes_no", "noncompliance": typed}
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 400 and "must be a percentage from 0 to 99" in html
    assert "noncompliance-bias" not in html
