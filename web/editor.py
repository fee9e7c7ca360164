"""Writing a survey in the browser: a new survey (an uploaded survey file or XLSForm workbook, or YAML written
in the page), the survey's YAML edited in the page with every problem beside its line, and the guided
"Add a question" page.

Every text goes through the validator of the command line (:func:`surveys.files.load_survey_text`); nothing
is saved while it has problems, each placed at its line by :func:`surveys.source_lines.place_problems`. A
survey managed by a file (``managed_by``) is shown read-only. Saving a change of the questions or designs of
a version that has answers first says what that means for the estimates
(:func:`surveys.versions.describe_change`) and asks to confirm. The forms here are CSRF-checked in the view,
after the request's size limit is raised for an upload (:data:`UPLOAD_BYTES`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import tempfile
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from flask import Blueprint, abort, flash, g, redirect, render_template, request, url_for
from flask_wtf.csrf import validate_csrf
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.utils import secure_filename
from wtforms.validators import ValidationError

from storage import audit
from storage import surveys as stored_surveys
from surveys import design_choices, limits, noncompliance, versions, xlsform
from surveys.definition import Survey
from surveys.files import SURVEY_FILE_SUFFIXES, load_survey_text
from surveys.schema_checks import Problem, SurveyFileError
from surveys.source_lines import append_question, place_problems, problems_by_line
from web import answering
from web.catalog import refresh_now
from web.db import get_db
from web.language import in_respondent_language
from web.permissions import no_such_survey, signed_in, survey_access

bp = Blueprint("editor", __name__, url_prefix="/admin")

#: The largest request these pages take: a workbook of :data:`surveys.limits.MAX_WORKBOOK_BYTES` and the form.
UPLOAD_BYTES = limits.MAX_WORKBOOK_BYTES + 64 * 1024
#: The name problems of a text written in the page are reported against.
IN_PAGE = "written in the page"
WORKBOOK_SUFFIXES = (".xlsx",)


@dataclass(frozen=True)
class Sent:
    """A survey's text as the page sent it, and the name it came under (a file's, or :data:`IN_PAGE`)."""

    text: str
    name: str


class Refused(Exception):
    """What was sent cannot be read as a survey: ``problems`` (whole-file or a workbook's cells)."""

    def __init__(self, messages: list[str]):
        super().__init__("; ".join(messages))
        self.messages = messages


def checked_post() -> None:
    """Raise this request's size limit to :data:`UPLOAD_BYTES`, then check its CSRF token; 400 otherwise."""
    request.max_content_length = UPLOAD_BYTES
    request.max_form_memory_size = UPLOAD_BYTES
    try:
        token = request.form.get("csrf_token")
    except RequestEntityTooLarge:
        abort(400, description=f"The request is larger than {UPLOAD_BYTES:,} bytes; upload a smaller file.")
    try:
        validate_csrf(token)
    except ValidationError:
        abort(400, description="The form could not be verified; reload the page.")


def newlines(text: str) -> str:
    """Newlines as ``\\n`` (a browser sends a text area's lines ending ``\\r\\n``)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def uploaded_yaml(data: bytes, name: str) -> Sent:
    """An uploaded survey file's text: UTF-8 within :data:`surveys.limits.MAX_SURVEY_FILE_BYTES`."""
    if len(data) > limits.MAX_SURVEY_FILE_BYTES:
        raise Refused([f"{name} is {len(data):,} bytes; a survey file takes at most {limits.MAX_SURVEY_FILE_BYTES:,}"])
    try:
        return Sent(newlines(data.decode("utf-8")), name)
    except UnicodeDecodeError as error:
        raise Refused([f"{name} is not UTF-8 text (byte {error.start}); save the file as UTF-8"]) from None


def uploaded_workbook(data: bytes, name: str) -> Sent:
    """An XLSForm workbook turned into a survey file's text (:func:`surveys.xlsform.import_workbook`). A workbook
    whose cells read but whose survey the checks refuse gives its text all the same: the page shows it with the
    problems beside its lines, to be fixed there; one whose cells cannot be read is refused."""
    yaml_name = Path(name).with_suffix(".yaml").name
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / (secure_filename(name) or "workbook.xlsx")  # the name a client sent, made safe
        path.write_bytes(data)
        try:
            imported = xlsform.import_workbook(path)
        except xlsform.XLSFormError as error:
            if error.yaml_text is not None:
                return Sent(error.yaml_text, yaml_name)
            raise Refused([f"{name}: {problem}" for problem in error.problems]) from None
    return Sent(imported.yaml_text(), yaml_name)


def sent_source() -> Sent:
    """The uploaded file (a survey file or an XLSForm workbook) if one was chosen, else the page's text."""
    upload = request.files.get("upload")
    if upload is None or not upload.filename:
        return Sent(newlines(request.form.get("source", "")), IN_PAGE)
    name = Path(upload.filename).name
    suffix = Path(name).suffix.lower()
    with upload.stream:  # a large upload is spooled to a temporary file: closed at once
        data = upload.read()
    if suffix in SURVEY_FILE_SUFFIXES:
        return uploaded_yaml(data, name)
    if suffix in WORKBOOK_SUFFIXES:
        return uploaded_workbook(data, name)
    kinds = ", ".join((*SURVEY_FILE_SUFFIXES, *WORKBOOK_SUFFIXES))
    raise Refused([f"{name} is not a survey file or an XLSForm workbook: upload a file ending {kinds}"])


def checked(sent: Sent) -> tuple[Survey | None, tuple]:
    """The survey ``sent`` defines and no problems, or None and its problems placed at their lines."""
    try:
        return load_survey_text(sent.text, sent.name), ()
    except SurveyFileError as error:
        return None, place_problems(sent.text, error.problems)


def saving_refused(sent: Sent, note: audit.Note, create: bool = False):
    """Save ``sent`` as a survey made in the app (:func:`storage.surveys.save_version`), with ``note`` in the
    audit log in the same transaction: what it saved, or the problems (placed at their lines) when the
    database refuses it, a survey file or another account having taken its id since it was checked, say.
    ``create``: only as a new survey, owned by the signed-in account."""
    try:
        saved = stored_surveys.save_version(
            get_db(),
            sent.text,
            source_name=sent.name,
            managed_by=None,
            actor=g.admin,
            create_only=create,
            owner=g.admin if create else None,
            note=note,
        )
    except SurveyFileError as error:
        return place_problems(sent.text, error.problems)
    except ValueError as error:
        return place_problems(sent.text, [Problem(sent.name, None, "id", str(error))])
    refresh_now()  # this process's next page (the editor, a preview) reads the saved text, not the last poll's
    return saved


def listed_lines(source: str, problems) -> list[str]:
    """The text's lines as the page numbers them: no empty line after the last newline, unless a problem is
    there (a YAML error at the end of the text), so that every problem has its line."""
    lines = source.split("\n")
    last = max((p.line for p in problems if p.line is not None), default=0)
    if lines[-1] == "" and len(lines) > last:
        lines.pop()
    return lines + [""] * (last - len(lines))


def languages_of(survey: Survey | None) -> tuple[str | None, ...]:
    """The languages a preview is offered in: ``survey``'s (the text's last checked), or (None,): the first."""
    return tuple(survey.languages) if survey is not None and survey.languages else (None,)


def editor_page(status: int = 200, **values):
    """The editor's page (``admin/editor.html``) with its problems grouped by line."""
    problems = values.get("problems", ())
    values.setdefault("refusals", ())
    values.setdefault("change", None)
    values.setdefault("preview_languages", languages_of(values.get("survey")))
    lines = listed_lines(values.get("source", ""), problems)
    return render_template("admin/editor.html", by_line=problems_by_line(problems), lines=lines, **values), status


# -- a new survey -------------------------------------------------------------------------------


@bp.get("/surveys/new")
@signed_in
def new_survey():
    """The page that starts a survey: upload a file or a workbook, or write its YAML."""
    return editor_page(survey=None, source="", problems=())


@bp.post("/surveys/new")
@signed_in
def create_survey():
    """Check what was sent; save it as a draft owned by the signed-in account, or show its problems (400)."""
    checked_post()
    try:
        sent = sent_source()
    except Refused as refused:
        return editor_page(400, survey=None, source="", problems=(), refusals=refused.messages)
    survey, problems = checked(sent)
    if survey is not None and stored_surveys.survey_record(get_db(), survey.id) is not None:
        problem = Problem(sent.name, None, "id", f"there is already a survey called {survey.id!r}; choose another id")
        survey, problems = None, place_problems(sent.text, [problem])
    if survey is None or request.form.get("action") == "check":
        status, languages = 400 if problems else 200, languages_of(survey)
        return editor_page(
            status, survey=None, source=sent.text, problems=problems, ok=not problems, preview_languages=languages
        )
    detail = sent.name if sent.name == IN_PAGE else f"uploaded {sent.name}"
    saved = saving_refused(sent, audit.Note(g.admin, "survey-created", survey.id, detail), create=True)
    if isinstance(saved, tuple):
        return editor_page(400, survey=None, source=sent.text, problems=saved)
    flash(f"“{survey.title}” is saved as a draft: nobody can answer it until it is opened.", "success")
    return redirect(url_for("editor.edit_survey", survey_id=survey.id))


# -- a preview of the text being edited ---------------------------------------------------------


@bp.post("/surveys/preview-text")
@signed_in
def preview_text():
    """The text being edited (or the file chosen), unsaved, as a respondent would see its form: in the
    language ``?lang=`` and with its script or, ``?javascript=off``, without (the server's path). Nothing is
    stored; the form has no address and its buttons are disabled (:func:`web.answering.render_form`'s
    ``unsaved``). A text with problems gets the editor's page with them (400)."""
    checked_post()
    try:
        sent = sent_source()
    except Refused as refused:
        return editor_page(400, survey=None, source="", problems=(), refusals=refused.messages)
    survey, problems = checked(sent)
    if survey is None:
        return editor_page(400, survey=None, source=sent.text, problems=problems)
    script = request.args.get("javascript") != "off"
    return answering.render_form(in_respondent_language(survey), script=script, unsaved=True)


# -- editing ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Current:
    """A survey's current version as stored: its survey, text, the file that manages it (or None)."""

    survey: Survey
    source: str
    managed_by: str | None
    version: int


def current(survey_id: str) -> Current:
    """The survey's current version, read from the database (404 when there is none)."""
    db = get_db()
    record = stored_surveys.survey_record(db, survey_id)
    if record is None:
        no_such_survey(survey_id)
    stored = stored_surveys.version_record(db, survey_id, record.current_version)
    survey = load_survey_text(stored.source, stored.source_name)
    survey = stored_surveys.with_version(survey, record.current_version, stored.source_name)
    return Current(survey, stored.source, record.managed_by, record.current_version)


def editable(survey_id: str) -> Current:
    """:func:`current`, refused (400) when a survey file manages it."""
    now = current(survey_id)
    if now.managed_by:
        title = now.survey.title
        abort(400, description=f"“{title}” is managed by its survey file {now.managed_by}: change the file instead.")
    return now


def confirmation(text: str) -> str:
    """What the confirm button carries: a digest of the very text whose consequences were shown."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@bp.get("/surveys/<survey_id>/edit")
@survey_access("owner")
def edit_survey(survey_id: str):
    """The survey's YAML in the page (read-only for a survey managed by a file), with its previews."""
    now = current(survey_id)
    return editor_page(survey=now.survey, source=now.source, problems=(), managed_by=now.managed_by)


@bp.post("/surveys/<survey_id>/edit")
@survey_access("owner")
def save_survey(survey_id: str):
    """Check the posted text; save it (a new version if the current one has answers and its questions or
    designs change, after a confirmation), or show its problems beside their lines (400)."""
    checked_post()
    now = editable(survey_id)
    survey = now.survey
    sent = Sent(newlines(request.form.get("source", "")), IN_PAGE)
    new, problems = checked(sent)
    if new is not None and new.id != survey.id:
        problem = Problem(sent.name, None, "id", f"the id stays {survey.id!r}; a new id is a new survey")
        new, problems = None, place_problems(sent.text, [problem])
    page = {"survey": survey, "source": sent.text, "managed_by": None}
    if new is None or request.form.get("action") == "check":
        languages = languages_of(new or survey)
        return editor_page(
            400 if problems else 200, problems=problems, ok=not problems, preview_languages=languages, **page
        )
    answered = stored_surveys.has_answers(get_db(), survey_id, now.version)
    change = versions.describe_change(survey, dataclasses.replace(new, version=survey.version), answered)
    if change.locked and request.form.get("confirmed") != confirmation(sent.text):
        return editor_page(200, problems=(), change=change, confirm=confirmation(sent.text), **page)
    next_version = change.new_version if change.locked else now.version
    saved = saving_refused(sent, audit.Note(g.admin, "survey-edited", survey_id, f"version {next_version}"))
    if isinstance(saved, tuple):
        return editor_page(400, problems=saved, **page)
    if saved.unchanged:
        flash("The text is the one saved already; nothing changed.", "info")
    else:
        flash(f"Saved “{new.title}”, version {saved.version}.", "success")
    return redirect(url_for("editor.edit_survey", survey_id=survey_id))


# -- the guided editor --------------------------------------------------------------------------


def chosen_kind(values) -> str:
    kind = values.get("kind", "yes_no")
    if kind not in design_choices.KINDS:
        abort(400, description=f"The kind must be one of {', '.join(design_choices.KINDS)}, got “{kind[:40]}”.")
    return kind


def written_choices(values) -> tuple[str, ...]:
    """A ``select_one``'s or ``select_multiple``'s options, one a line in the page."""
    return tuple(line.strip() for line in values.get("choices", "").splitlines() if line.strip())


def typed_settings(kind: str, values) -> design_choices.Settings:
    """A number's or check-all question's settings as typed; a number's example range before any is typed."""
    settings = design_choices.Settings.of(values)
    if settings == design_choices.Settings() and kind in design_choices.EXAMPLE_SETTINGS:
        return design_choices.EXAMPLE_SETTINGS[kind]
    return settings


def compared(survey: Survey, kind: str, values):
    """The table's plan, rows and typed settings, or the refusals of settings it cannot be built with (no rows)."""
    choices = written_choices(values)
    shown = choices if len(choices) >= 2 or kind not in design_choices.WITH_CHOICES else ("first", "second")
    settings = typed_settings(kind, values)
    try:
        plan, rows = design_choices.design_choices(survey, kind, shown, values.get("innocuous", ""), settings)
    except SurveyFileError as error:
        return None, (), settings, [f"{p.field}: {p.message}" if p.field else p.message for p in error.problems]
    except ValueError as error:
        return None, (), settings, [str(error)]
    return plan, rows, settings, []


def noncompliance_compared(kind: str, plan, rows, values):
    """The share typed as always answering "no" (a fraction), each design's figures at it, and the refusal of a
    share that is no percentage."""
    try:
        share = noncompliance.parse_percent(values.get("noncompliance", ""))
    except ValueError as error:
        return Fraction(0), {}, [f"{str(error)[0].upper()}{str(error)[1:]}."]
    if plan is None:
        return share, {}, []
    return share, noncompliance.noncompliance_rows(kind, rows, share, plan.margin, plan.confidence_level), []


def add_question_page(survey: Survey, values, status: int = 200, problems=(), refusals=()):
    kind = chosen_kind(values)
    plan, rows, settings, unbuilt = compared(survey, kind, values)
    share, at_share, refused_share = noncompliance_compared(kind, plan, rows, values)
    unbuilt = [*unbuilt, *refused_share]
    shown = written_choices(values)
    html = render_template(
        "admin/add_question.html",
        survey=survey,
        kinds=design_choices.KINDS,
        kind=kind,
        family=design_choices.family(kind),
        plan=plan,
        rows=rows,
        values=values,
        settings=settings,
        k_shown=len(shown) if len(shown) >= 2 else 2,
        problems=problems,
        refusals=[*refusals, *unbuilt],
        epsilon_shown=design_choices.epsilon_shown,
        noncompliance_kinds=noncompliance.NONCOMPLIANCE_KINDS,
        share=share,
        typed_share=values.get("noncompliance", "")[:20],
        at_share=at_share,
        bias_text=noncompliance.bias_text,
    )
    return html, 400 if unbuilt else status


@bp.get("/surveys/<survey_id>/add-question")
@survey_access("owner")
def add_question(survey_id: str):
    """Pick a question's kind and design, each design's epsilon, wording and answers needed side by side."""
    return add_question_page(editable(survey_id).survey, request.args)


@bp.post("/surveys/<survey_id>/add-question")
@survey_access("owner")
def append_to_source(survey_id: str):
    """Add the question to the survey's YAML and show it in the editor, checked, to be saved from there."""
    checked_post()
    now = editable(survey_id)
    survey, source = now.survey, now.source
    form = request.form
    kind = chosen_kind(form)
    try:
        option = design_choices.option_named(form.get("design", ""))
        entry = design_choices.question_entry(
            option,
            form.get("name", "").strip(),
            form.get("label", "").strip(),
            written_choices(form),
            form.get("innocuous", "").strip(),
            kind,
            design_choices.Settings.of(form),
        )
    except ValueError as error:
        return add_question_page(survey, form, 400, refusals=[f"Choose a design: {error}."])
    try:
        text = append_question(source, entry)
    except ValueError as error:
        return add_question_page(survey, form, 400, refusals=[str(error)])
    new, problems = checked(Sent(text, IN_PAGE))
    if new is None:
        return add_question_page(survey, form, 400, problems=problems)
    message = (
        f"The question “{entry['name']}” is added at the end of the text below; nothing is saved until you save it."
    )
    return editor_page(survey=survey, source=text, problems=(), managed_by=None, added=message)
