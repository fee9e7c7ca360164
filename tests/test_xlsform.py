"""surveys/xlsform.py and ``surveys import``: XLSForm workbooks in, every problem by sheet, row and column."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from dataclasses import replace
from datetime import datetime
from fractions import Fraction
from pathlib import Path

import openpyxl
import pytest
import yaml
from openpyxl.utils import get_column_letter

from analysis.design import MultipleChoiceDesign
from surveys import limits
from surveys.files import load_survey_file
from surveys.schema import parse_survey
from surveys.xlsform import XLSFormError, import_workbook
from tests.helpers.workbooks import workbook_of_survey_file

pytestmark = pytest.mark.both_backends

SURVEY_ROWS = [
    ["type", "name", "label", "hint", "required", "randomize", "design::t", "design::a", "design::b"],
    ["select_one yn", "cheated", "Have you ever cheated on an exam?", "", "", "", "", "", ""],
    ["yes_no", "lied", "Have you lied to a professor?", "Any time", "no", "", "2/3", "1/6", "1/6"],
    ["select_one ai", "ai_use", "How often have you used AI text?", "", "yes", "TRUE()", 0.5, "", ""],
    ["select_one year", "year", "Year of study", "", "", "false", "", "", ""],
]
CHOICE_ROWS = [
    ["list_name", "name", "label"],
    ["yn", "yes", "Yes"],
    ["yn", "no", "No"],
    ["ai", "never", "Never"],
    ["ai", "once", "Once"],
    ["ai", "often", "Often"],
    ["year", "first", "First year"],
    ["year", "second", ""],
]
SETTINGS_ROWS = [["form_id", "form_title", "version", "organizer"], ["quiz", "Test quiz", "3", "The team"]]


def workbook(path: Path, survey=SURVEY_ROWS, choices=CHOICE_ROWS, settings=SETTINGS_ROWS) -> Path:
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in (("survey", survey), ("choices", choices), ("settings", settings)):
        if rows is None:
            continue
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(row)
    book.save(path)
    return path


def problems_of(path: Path) -> list[str]:
    with pytest.raises(XLSFormError) as caught:
        import_workbook(path)
    return [str(problem) for problem in caught.value.problems]


def test_a_workbook_becomes_the_survey_file_it_describes(tmp_path):
    imported = import_workbook(workbook(tmp_path / "form.xlsx"))
    survey = imported.survey
    assert (survey.id, survey.title, survey.version, survey.organizer) == ("quiz", "Test quiz", 3, "The team")
    cheated, lied, ai_use, year = survey.questions
    assert cheated.type == "yes_no" and cheated.required and cheated.randomize  # a yes/no list is a yes_no question
    assert lied.design.exact() == (Fraction(2, 3), Fraction(1, 6), Fraction(1, 6))
    assert (lied.hint, lied.required) == ("Any time", False)
    assert ai_use.design == MultipleChoiceDesign(3, Fraction(1, 2))
    assert [(c.name, c.label) for c in ai_use.choices] == [("never", "Never"), ("once", "Once"), ("often", "Often")]
    assert not year.randomize and [c.label for c in year.choices] == ["First year", "second"]  # empty label: name
    assert parse_survey(yaml.safe_load(imported.yaml_text()), "quiz.yaml") == parse_survey(
        imported.mapping, "quiz.yaml"
    )


def test_every_problem_is_reported_by_sheet_row_and_column(tmp_path):
    survey = [
        [*SURVEY_ROWS[0], "calculation"],
        ["text", "comment", "Anything else?"],
        ["start", "started", "Start time"],
        ["select_one missing", "m", "Which?"],
        ["yes_no", "ok_q", "Fine?", "", "maybe"],
        ["yes_no", "when", "When?", "", "", "", datetime(2026, 4, 1), "", ""],
    ]
    found = problems_of(workbook(tmp_path / "form.xlsx", survey=survey))
    assert found == [
        "survey, row 1, column J (calculation): column 'calculation' is not read by this app: it computes a value "
        "that is not asked; remove the column",
        "survey, row 2, column A (type): type 'text' collects free text; this app asks only yes_no, select_one "
        "LIST, select_multiple LIST, integer and decimal questions, whose answers can be randomized",
        "survey, row 3, column A (type): metadata type 'start' is refused: it would store the time the form was "
        "opened next to the answers, which could tell who answered; this app never stores it",
        "survey, row 4, column A (type): choice list 'missing' is not in the choices sheet",
        "survey, row 5, column E (required): must be yes or no (or true/false), got 'maybe'",
        "survey, row 6, column G (design::t): Excel read this probability as a date; format the column as text, "
        "or write a decimal such as 0.25",
    ]


def test_survey_file_rules_are_reported_at_their_cell(tmp_path):
    survey = [
        SURVEY_ROWS[0],
        ["yes_no", "cheated", "Cheated?", "", "", "", "0.9", "0.2", "0.1"],
        ["yes_no", "Bad Name", "Lied?"],
        ["yes_no", "cheated", "Again?"],
        ["select_one ai", "ai_use", "AI?", "", "", "", "1.5"],
    ]
    found = problems_of(workbook(tmp_path / "form.xlsx", survey=survey))
    assert any(p.startswith("survey, row 5, column G (design::t): ") for p in found), found
    assert (
        "survey, row 2, column G-I (design::t .. design::b): t + a + b must equal 1, got 9/10 + 1/5 + 1/10 = 6/5"
        in found
    )
    assert any(p.startswith("survey, row 3, column B (name):") for p in found), found
    assert any(p.startswith("survey, row 4, column B (name):") and "unique" in p for p in found), found
    assert all(p.startswith("survey, row ") for p in found)


def test_a_language_without_a_code_missing_id_and_bad_choices_are_reported(tmp_path):
    survey = [["type", "name", "label::English (en)", "label::French"], ["yes_no", "q", "Q?", "Q ?"]]
    choices = [["list_name", "name", "label"], ["", "x", "X"], ["l", "", "Y"]]
    settings = [["form_title"], ["No id"]]
    found = problems_of(workbook(tmp_path / "form.xlsx", survey=survey, choices=choices, settings=settings))
    assert "choices, row 2, column A (list_name): every choice needs a list_name" in found
    assert "choices, row 3, column B (name): every choice needs a name" in found
    assert "survey, row 1, column D (label::french): name the language with its code, such as " in " ".join(found)
    assert "settings, row 2, column form_id: the survey needs an id: a form_id in the settings sheet" in found


def test_a_file_that_is_not_a_workbook_or_has_no_survey_sheet_is_refused(tmp_path):
    text = tmp_path / "form.xlsx"
    text.write_text("type,name\n")
    assert problems_of(text)[0].startswith("form.xlsx: not an .xlsx workbook")
    assert problems_of(workbook(tmp_path / "empty.xlsx", survey=None)) == ["survey: the workbook has no survey sheet"]


def test_the_cli_writes_the_survey_file_and_refuses_to_overwrite(runner, app, tmp_path):
    form = workbook(tmp_path / "form.xlsx", settings=[["form_id", "form_title", "version"], ["imported", "Imp", 1]])
    result = runner.invoke(args=["surveys", "import", str(form)])
    assert result.exit_code == 0, result.output
    target = Path(app.config["SURVEYS_DIR"]) / "imported.yaml"
    assert "wrote" in result.output and target.exists()
    assert runner.invoke(args=["surveys", "check"]).exit_code == 0
    again = runner.invoke(args=["surveys", "import", str(form)])
    assert again.exit_code == 1 and "exists" in again.output
    assert runner.invoke(args=["surveys", "import", str(form), "--force"]).exit_code == 0
    bad = workbook(tmp_path / "bad.xlsx", survey=[["type", "name", "label"], ["text", "t", "T"]])
    refused = runner.invoke(args=["surveys", "import", str(bad)])
    assert refused.exit_code == 1 and "survey, row 2, column A (type)" in refused.output


def test_label_columns_in_several_languages_make_a_survey_in_those_languages_with_skip_logic(tmp_path):
    survey = [
        [
            "type",
            "name",
            "label::English (en)",
            "label::Français (fr)",
            "hint::English (en)",
            "hint::Français (fr)",
            "randomize",
            "relevant",
        ],
        ["select_one year", "year", "Year of study", "Année d'études", "", "", "no", ""],
        ["yes_no", "cheated", "Have you cheated?", "Avez-vous triché ?", "Coins", "Pièces", "", "${year} = 'first'"],
    ]
    choices = [
        ["list_name", "name", "label::English (en)", "label::Français (fr)"],
        ["year", "first", "First year", "Première année"],
        ["year", "second", "Second year", ""],
    ]
    settings = [["form_id", "form_title", "version", "default_language"], ["quiz", "Quiz", "1", "Français (fr)"]]
    imported = import_workbook(workbook(tmp_path / "form.xlsx", survey=survey, choices=choices, settings=settings))
    survey_read = imported.survey
    assert survey_read.languages == ("fr", "en")
    assert survey_read.question("year").label == "Année d'études"
    english = survey_read.in_language("en")
    assert english.question("cheated").hint == "Coins" and english.question("year").choices[0].label == "First year"
    assert survey_read.question("year").choices[1].label == "second"  # an empty label: the name
    assert survey_read.question("cheated").relevant.to_json() == ["=", "year", "first"]
    assert english.title == "Quiz"  # one text for every language


def test_warner_and_crosswise_columns_make_those_designs(tmp_path):
    """``design::model`` names the model; its keys (``design::p``, ``design::q``, ``design::innocuous``) are columns."""
    innocuous = "My mother's birthday is in January, February or March."
    survey = [
        ["type", "name", "label", "design::model", "design::p", "design::q", "design::innocuous"],
        ["yes_no", "pills", "I took pills.", "warner", 0.75, "", ""],
        ["yes_no", "cannabis", "I used cannabis.", "crosswise", "", "1/4", innocuous],
        ["yes_no", "fraud", "I committed fraud.", "triangular", "", "1/4", innocuous],
    ]
    imported = import_workbook(workbook(tmp_path / "form.xlsx", survey=survey))
    pills, cannabis, fraud = imported.survey.questions
    assert (pills.design.kind, pills.design.p) == ("warner", Fraction(3, 4))
    assert (cannabis.design.kind, cannabis.design.q, cannabis.innocuous) == (
        "crosswise",
        Fraction(1, 4),
        innocuous,
    )
    assert (fraud.design.kind, fraud.design.q) == ("triangular", Fraction(1, 4))
    assert parse_survey(yaml.safe_load(imported.yaml_text()), "quiz.yaml") == parse_survey(
        imported.mapping, "quiz.yaml"
    )


def test_a_two_group_model_with_its_shares_in_the_settings(tmp_path):
    survey = [
        ["type", "name", "label", "design::model", "design::p1", "design::p2"],
        ["yes_no", "evaded", "I evaded taxes.", "stochastic_lie_detector", "1/3", "2/3"],
        ["yes_no", "doped", "I used doping.", "cheater_detection", 0.25, 0.6],
    ]
    settings = [["form_id", "form_title", "version", "group_1_share", "direct_share"], ["tax", "Tax", 1, "2/5", 0.2]]
    imported = import_workbook(workbook(tmp_path / "form.xlsx", survey=survey, settings=settings))
    read = imported.survey
    evaded, doped = read.questions
    assert (evaded.design.kind, evaded.design.p1, evaded.design.p2) == (
        "stochastic_lie_detector",
        Fraction(1, 3),
        Fraction(2, 3),
    )
    assert (doped.design.kind, doped.design.p1, doped.design.p2) == (
        "cheater_detection",
        Fraction(1, 4),
        Fraction(3, 5),
    )
    assert (read.group_1_share, read.direct_share) == (Fraction(2, 5), Fraction(1, 5))


def test_a_share_excel_read_as_a_date_is_reported_at_its_settings_cell(tmp_path):
    settings = [["form_id", "direct_share"], ["quiz", datetime(2026, 1, 5)]]
    found = problems_of(workbook(tmp_path / "form.xlsx", settings=settings))
    assert any(
        p.startswith("settings, row 2, column B (direct_share): Excel read this probability as a date") for p in found
    )


def test_a_matrix_is_written_in_one_cell_rows_separated_by_semicolons(tmp_path):
    survey = [
        ["type", "name", "label", "design::matrix"],
        ["select_one drink", "drink", "How much did you drink?", "3/5, 1/10, 1/5; 1/4, 7/10, 1/5; 3/20, 1/5, 3/5"],
    ]
    choices = [
        ["list_name", "name", "label"],
        ["drink", "low", "Low"],
        ["drink", "middle", "Middle"],
        ["drink", "high", "High"],
    ]
    imported = import_workbook(workbook(tmp_path / "form.xlsx", survey=survey, choices=choices))
    (drink,) = imported.survey.questions
    assert drink.design.matrix == (
        (Fraction(3, 5), Fraction(1, 10), Fraction(1, 5)),
        (Fraction(1, 4), Fraction(7, 10), Fraction(1, 5)),
        (Fraction(3, 20), Fraction(1, 5), Fraction(3, 5)),
    )
    assert imported.mapping["questions"][0]["design"]["matrix"] == [
        ["3/5", "1/10", "1/5"],
        ["1/4", "7/10", "1/5"],
        ["3/20", "1/5", "3/5"],
    ]
    assert parse_survey(yaml.safe_load(imported.yaml_text()), "quiz.yaml") == parse_survey(
        imported.mapping, "quiz.yaml"
    )


def test_a_bad_matrix_cell_is_reported_at_its_cell(tmp_path):
    survey = [["type", "name", "label", "design::matrix"], ["select_one drink", "drink", "Drink?", "3/5, 2/5; 1/4"]]
    choices = [["list_name", "name", "label"], ["drink", "low", "Low"], ["drink", "high", "High"]]
    found = problems_of(workbook(tmp_path / "form.xlsx", survey=survey, choices=choices))
    assert len(found) == 1 and found[0].startswith("survey, row 2, column D (design::matrix): "), found


# -- workbook bombs: read within the limits of surveys/limits.py -------------

SHEET_START = b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
SHEET_END = b"</sheetData></worksheet>"
HEADER_ROW = b'<row r="1"><c r="A1" t="inlineStr"><is><t>type</t></is></c></row>'


def with_survey_sheet(path: Path, write_rows, doctype: bytes = b"") -> Path:
    """A workbook whose survey sheet's XML is written, streamed, by ``write_rows(handle)``: small on disk."""
    plain = workbook(path.with_name("plain.xlsx"))
    with zipfile.ZipFile(plain) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            if info.filename != "xl/worksheets/sheet1.xml":  # the survey sheet, written first
                target.writestr(info, source.read(info))
                continue
            with target.open(info.filename, "w", force_zip64=True) as handle:
                handle.write(doctype + SHEET_START + HEADER_ROW)
                write_rows(handle)
                handle.write(SHEET_END)
    return path


def huge_cell(handle) -> None:
    """Row 2 holds one cell of 400,000,000 characters."""
    handle.write(b'<row r="2"><c r="A2" t="inlineStr"><is><t>')
    chunk = b"x" * 1_000_000
    for _ in range(400):
        handle.write(chunk)
    handle.write(b"</t></is></c></row>")


def rows(count: int):
    def write_rows(handle) -> None:
        for start in range(2, count + 2, 100_000):
            numbers = range(start, min(start + 100_000, count + 2))
            handle.write(b"<row><c><v>1</v></c></row>" * len(numbers))  # numbered by their order

    return write_rows


def one_row_numbered(number: int):
    def write_rows(handle) -> None:
        handle.write(b'<row r="%d"><c r="A%d"><v>1</v></c></row>' % (number, number))

    return write_rows


def columns(count: int):
    def write_rows(handle) -> None:
        cells = (
            b'<c r="%s2" t="inlineStr"><is><t>c</t></is></c>' % get_column_letter(n).encode() for n in range(1, count)
        )
        handle.write(b'<row r="2">' + b"".join(cells) + b"</row>")

    return write_rows


BOMBS = {
    "a 400 MB cell": (huge_cell, "form.xlsx: the workbook is 400,019,"),
    "3,000,000 rows": (rows(3_000_000), "form.xlsx: the workbook is 78,0"),
    "a row numbered 3,000,000": (one_row_numbered(3_000_000), "survey, row 10001: more than 10,000 rows"),
    "20,000 rows": (rows(20_000), "survey, row 10001: more than 10,000 rows"),
}
#: Reads a workbook in a process of its own; prints the seconds taken, the growth of peak memory and the problems.
MEASURE = """
import json, resource, sys, time
from surveys.xlsform import XLSFormError, import_workbook
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.monotonic()
try:
    import_workbook(sys.argv[1])
    problems = []
except XLSFormError as error:
    problems = [str(p) for p in error.problems]
seconds = time.monotonic() - started
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(json.dumps({"seconds": seconds, "grown_kb": grown, "problems": problems}))
"""


@pytest.mark.parametrize("bomb", BOMBS)
def test_a_workbook_bomb_is_refused_at_once_in_bounded_memory(tmp_path, bomb):
    write_rows, message = BOMBS[bomb]
    path = with_survey_sheet(tmp_path / "form.xlsx", write_rows)
    assert path.stat().st_size < 1_000_000
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parent.parent,
        check=True,
    )
    measured = json.loads(done.stdout)
    print(bomb, f"{path.stat().st_size:,} bytes on disk:", measured)
    (problem,) = measured["problems"]
    assert problem.startswith(message) and "MAX_" in problem, problem
    assert measured["seconds"] < 3, measured
    assert measured["grown_kb"] < 50_000, measured


def test_a_bomb_is_refused_by_the_cli_without_a_traceback(runner, tmp_path):
    path = with_survey_sheet(tmp_path / "form.xlsx", one_row_numbered(3_000_000))
    result = runner.invoke(args=["surveys", "import", str(path)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert "survey, row 10001: more than 10,000 rows; the limit MAX_SHEET_ROWS is 10,000" in result.output
    assert "Traceback" not in result.output


#: XML's own "billion laughs": ten entities, each ten of the one before, in the sheet's DOCTYPE.
ENTITY_BOMB = "<!DOCTYPE worksheet [{}]>".format(
    '<!ENTITY a "xxxxxxxxxx">' + "".join(f'<!ENTITY {chr(98 + n)} "{f"&{chr(97 + n)};" * 10}">' for n in range(9))
).encode()


def entity_cell(handle) -> None:
    """Row 2 holds the ten-billion-character entity."""
    handle.write(b'<row r="2"><c r="A2" t="inlineStr"><is><t>&j;</t></is></c></row>')


def test_an_xml_entity_bomb_is_refused_as_not_a_workbook(tmp_path):
    path = with_survey_sheet(tmp_path / "form.xlsx", entity_cell, ENTITY_BOMB)
    (problem,) = problems_of(path)
    assert problem.startswith("form.xlsx: not an .xlsx workbook: limit on input amplification factor")


def test_a_header_past_the_column_limit_is_refused(tmp_path):
    survey = [[*SURVEY_ROWS[0], *(f"extra{n}" for n in range(100))], *SURVEY_ROWS[1:]]
    (problem,) = problems_of(workbook(tmp_path / "form.xlsx", survey=survey))
    assert problem == "survey, row 1, column CW: more than 100 columns; the limit MAX_SHEET_COLUMNS is 100"


def test_reading_a_workbook_stops_at_the_time_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_WORKBOOK_SECONDS", 0.0)
    (problem,) = problems_of(workbook(tmp_path / "form.xlsx"))
    assert problem == "survey, row 2: took more than 0 s to read; the limit MAX_WORKBOOK_SECONDS is 0 s"


def test_a_survey_file_past_its_size_limit_is_not_written(tmp_path):
    long_label = "x" * 30_000  # a cell holds at most 32,767 characters: forty of them pass 1,000,000 bytes
    survey = [["type", "name", "label"], *(["yes_no", f"q{n}", long_label] for n in range(40))]
    (problem,) = problems_of(workbook(tmp_path / "form.xlsx", survey=survey))
    assert problem.startswith("form.xlsx: the survey file would be 1,20")
    assert problem.endswith("the limit MAX_SURVEY_FILE_BYTES is 1,000,000 bytes")


# -- parity with the survey file: every shipped example as a workbook ---------

SHIPPED = sorted((Path(__file__).resolve().parent.parent / "survey_files").glob("*.yaml"))


def without_source(survey):
    """``survey`` and its translations with no file name (a workbook and a YAML file are named apart)."""
    translations = tuple((language, replace(other, source="")) for language, other in survey.translations)
    return replace(survey, source="", translations=translations)


#: Survey-file keys a workbook does not carry yet (docs/survey-files.md, "From an XLSForm workbook"): the round trip
#: leaves them out of the workbook and out of the survey it is compared with; everything else must come back.
NOT_IN_WORKBOOKS = ("sample_design",)


def without_keys(survey, keys):
    """``survey`` and its translations with each of ``keys`` at its default (None)."""
    gone = dict.fromkeys(keys)
    translations = tuple((language, replace(other, **gone)) for language, other in survey.translations)
    return replace(survey, translations=translations, **gone)


@pytest.mark.parametrize("path", SHIPPED, ids=[path.stem for path in SHIPPED])
def test_every_shipped_survey_written_as_a_workbook_reads_back_as_the_same_survey(tmp_path, path):
    """Pages as groups, texts in KEY::Language (code) columns, designs, settings and targets: each example's
    workbook (written here with openpyxl) defines the survey its YAML file defines, but for the keys a workbook
    does not carry yet (:data:`NOT_IN_WORKBOOKS`)."""
    mapping = yaml.safe_load(path.read_text(encoding="utf-8"))
    left_out = [key for key in NOT_IN_WORKBOOKS if mapping.pop(key, None) is not None]
    book = workbook_of_survey_file(mapping, tmp_path / f"{path.stem}.xlsx")
    imported = import_workbook(book)
    expected = without_keys(load_survey_file(path), left_out)
    assert without_source(imported.survey) == without_source(expected)
    assert without_source(parse_survey(yaml.safe_load(imported.yaml_text()), "again.yaml")) == without_source(
        imported.survey
    )


def test_the_shipped_examples_cover_pages_languages_designs_and_targets():
    """What the round trip above checks depends on the examples holding each part of the format."""
    texts = [path.read_text(encoding="utf-8") for path in SHIPPED]
    parts = ("type: page_break", "languages:", "targets:", "innocuous:", "matrix:", "relevant:", "direct_share")
    parts += ("type: integer", "type: decimal", "type: select_multiple", "bins:", "mechanism:", "randomize: false")
    parts += ("population_counts:", "known_prevalence:", "releases:", "extended:")
    for part in parts:
        assert any(part in text for text in texts), part


# -- groups are pages --------------------------------------------------------


def test_groups_become_pages_and_a_groups_condition_goes_to_each_of_its_questions(tmp_path):
    """``begin group``/``end group`` and ``begin_group``/``end_group``: the questions before a group, each group
    and the questions after it are pages; a group's ``relevant`` is added to each of its questions'."""
    survey = [
        ["type", "name", "label", "relevant", "randomize"],
        ["select_one year", "year", "Year of study", "", "no"],
        ["begin group", "campus", "", "${year} = 'first'", ""],
        ["select_one yn", "housing", "Student housing?", "", "no"],
        ["yes_no", "cheated", "Cheated?", "${housing} = 'yes'", ""],
        ["end group", "", "", "", ""],
        ["begin_group", "more", "", "", ""],
        ["yes_no", "lied", "Lied?", "", ""],
        ["end_group", "", "", "", ""],
        ["yes_no", "copied", "Copied?", "", ""],
    ]
    read = import_workbook(workbook(tmp_path / "form.xlsx", survey=survey)).survey
    assert read.pages == (("year",), ("housing", "cheated"), ("lied",), ("copied",))
    assert read.question("housing").relevant.to_json() == ["=", "year", "first"]
    assert read.question("cheated").relevant.to_json() == ["and", ["=", "year", "first"], ["=", "housing", "yes"]]
    assert read.question("lied").relevant is None


def test_a_survey_of_one_group_is_one_page(tmp_path):
    survey = [["type", "name", "label"], ["begin group", "all", ""], ["yes_no", "q", "Q?"], ["end group", "", ""]]
    assert import_workbook(workbook(tmp_path / "form.xlsx", survey=survey)).survey.pages == ()


def test_each_group_mistake_is_reported_at_its_row_with_what_is_wrong(tmp_path):
    survey = [
        ["type", "name", "label", "required"],
        ["end group", "", "", ""],
        ["begin group", "one", "Section A", ""],
        ["begin group", "two", "", "yes"],
        ["yes_no", "q", "Q?", ""],
        ["end group", "", "", ""],
        ["begin group", "empty", "", ""],
        ["end group", "", "", ""],
        ["begin group", "open", "", ""],
        ["yes_no", "r", "R?", ""],
    ]
    assert problems_of(workbook(tmp_path / "form.xlsx", survey=survey)) == [
        "survey, row 2, column A (type): an end group with no begin group above it",
        "survey, row 3, column C (label): a group's label is not shown: this app's pages have no title; leave it "
        "empty (what it says can go in the hint of the group's first question)",
        "survey, row 4, column D (required): a group row takes only a type, a name and a relevant condition, "
        "not required",
        "survey, row 4, column A (type): a group inside a group: pages do not nest; end the first group before "
        "this one begins",
        "survey, row 7, column A (type): this group has no question, and a page needs one: put questions in it "
        "or remove it",
        "survey, row 9, column A (type): this group is never ended: add an end group row after its last question",
    ]


# -- every refusal says what is really wrong ---------------------------------


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("end", "metadata type 'end' is refused: it would store the time the form was sent next to the answers"),
        ("deviceid", "metadata type 'deviceid' is refused: it would store an identifier of the respondent's device"),
        ("note", "a note shows text without asking anything; put its text in a question's hint or in the intro"),
        ("integer ai", "integer takes no choice list (its range goes in the min and max columns), got 'integer ai'"),
        ("select_multiple", "select_multiple takes one choice list, written select_multiple LIST, got"),
        ("select_multiple ai or_other", "or_other adds a free-text answer, which cannot be randomized"),
        ("range", "type 'range' collects a number on a slider: write an integer or decimal question with min, max"),
        ("select_all_that_apply ai", "type 'select_all_that_apply' is written select_multiple LIST here"),
        ("begin repeat", "a repeat asks its questions several times; this app asks each question once"),
        ("select_one ai or_other", "or_other adds a free-text answer, which cannot be randomized"),
        ("select_one", "select_one takes one choice list, written select_one LIST, got 'select_one'"),
        ("yes_no yn", "yes_no takes no choice list (its answers are yes and no), got 'yes_no yn'"),
        ("likert", "unknown type 'likert'; this app asks only yes_no, select_one LIST, select_multiple LIST, integer"),
    ],
    ids=lambda value: value.replace(" ", "_") if len(value) < 30 else "says",
)
def test_a_refused_type_is_told_what_it_would_do(tmp_path, cell, message):
    survey = [["type", "name", "label"], [cell, "q", "Q?"]]
    (found,) = problems_of(workbook(tmp_path / "form.xlsx", survey=survey))
    assert found.startswith(f"survey, row 2, column A (type): {message}"), found


def test_end_group_is_never_refused_as_metadata(tmp_path):
    survey = [["type", "name", "label"], ["begin group", "g", ""], ["yes_no", "q", "Q?"], ["end group", "", ""]]
    assert import_workbook(workbook(tmp_path / "form.xlsx", survey=survey)).survey.questions[0].name == "q"


def test_an_xlsform_column_this_app_does_not_read_says_why_and_an_unknown_one_lists_the_columns(tmp_path):
    survey = [["type", "name", "label", "default", "colour"], ["yes_no", "q", "Q?", "", ""]]
    found = problems_of(workbook(tmp_path / "form.xlsx", survey=survey))
    assert found == [
        "survey, row 1, column D (default): column 'default' is not read by this app: it fills in an answer, "
        "and a question here starts unanswered; remove the column",
        "survey, row 1, column E (colour): unknown column 'colour'; the survey sheet's columns are type, name, "
        "label, hint, required, randomize, relevant, appearance, known_prevalence, min, max, step, epsilon, bins, "
        "mechanism, encoding, constraint, label::..., hint::..., design::...",
    ]


def test_field_list_on_a_group_is_read_and_any_other_appearance_is_reported(tmp_path):
    survey = [
        ["type", "name", "label", "appearance"],
        ["begin group", "one", "", "field-list"],
        ["yes_no", "q", "Q?", ""],
        ["end group", "", "", ""],
        ["begin group", "two", "", "table-list"],
        ["yes_no", "r", "R?", "quick"],
        ["end group", "", "", ""],
    ]
    assert problems_of(workbook(tmp_path / "form.xlsx", survey=survey)) == [
        "survey, row 5, column D (appearance): a group's appearance can only be field-list (every group is one "
        "page here)",
        "survey, row 6, column D (appearance): a question's appearance is not read: this app draws every question "
        "alike; leave it empty (on a group, field-list is read)",
    ]
    survey[4][3] = survey[5][3] = ""
    assert import_workbook(workbook(tmp_path / "ok.xlsx", survey=survey)).survey.pages == (("q",), ("r",))


# -- every text in several languages, targets, the other settings -------------

INNOCUOUS = {
    "en": "My mother's birthday is in January, February or March.",
    "fr": "Ma mère est née au premier trimestre.",
}


def test_the_innocuous_statement_and_the_settings_texts_are_translated_through_language_columns(tmp_path):
    survey = [
        ["type", "name", "label::English (en)", "label::Français (fr)", "design::model", "design::q"]
        + ["design::innocuous::English (en)", "design::innocuous::Français (fr)"],
        ["yes_no", "cannabis", "I used cannabis.", "J'ai consommé du cannabis.", "crosswise", "1/4"]
        + [INNOCUOUS["en"], INNOCUOUS["fr"]],
    ]
    settings = [
        ["form_id", "version", "form_title::English (en)", "form_title::Français (fr)", "closing::English (en)"]
        + ["closing::Français (fr)", "contact"],
        ["drugs", 1, "Substance use", "Consommation", "Thank you.", "Merci.", "team@example.org"],
    ]
    read = import_workbook(workbook(tmp_path / "form.xlsx", survey=survey, settings=settings)).survey
    french = read.in_language("fr")
    assert (read.question("cannabis").innocuous, french.question("cannabis").innocuous) == (
        INNOCUOUS["en"],
        INNOCUOUS["fr"],
    )
    assert (read.title, french.title, read.closing, french.closing) == (
        "Substance use",
        "Consommation",
        "Thank you.",
        "Merci.",
    )
    assert french.contact == "team@example.org"


def test_a_missing_translation_is_reported_at_its_language_column(tmp_path):
    survey = [
        ["type", "name", "label::English (en)", "label::Français (fr)"],
        ["yes_no", "q", "Q?", "Q ?"],
    ]
    settings = [
        ["form_id", "version", "form_title::English (en)", "form_title::Français (fr)"],
        ["quiz", 1, "Quiz", ""],
    ]
    found = problems_of(workbook(tmp_path / "form.xlsx", survey=survey, settings=settings))
    assert found == ["settings, row 2, column D (form_title::français (fr)): in fr: must not be empty"]


def test_targets_are_a_sheet_and_their_mistakes_are_reported_at_their_row(tmp_path):
    survey = [
        ["type", "name", "label", "randomize"],
        ["select_one year", "year", "Year", "no"],
        ["yes_no", "q", "Q?", ""],
    ]
    targets = [
        ["question", "margin", "by", "groups"],
        ["q", 0.05, "", ""],
        ["q", "0.1", "year", "first, second"],
        ["q", 2, "", ""],
    ]
    settings = [["form_id", "form_title", "version", "close_when_targets_met"], ["quiz", "Quiz", 1, "yes"]]
    path = workbook(tmp_path / "form.xlsx", survey=survey, settings=settings)
    book = openpyxl.load_workbook(path)
    sheet = book.create_sheet("targets")
    for row in targets:
        sheet.append(row)
    book.save(path)
    found = problems_of(path)
    assert len(found) == 1 and found[0].startswith("targets, row 4, column B (margin): must be a number"), found
    book["targets"].delete_rows(4)
    book.save(path)
    read = import_workbook(path).survey
    assert [(t.question, t.margin, t.by, t.groups) for t in read.targets] == [
        ("q", 0.05, None, ()),
        ("q", 0.1, "year", ("first", "second")),
    ]
    assert read.close_when_targets_met


def test_a_survey_file_rule_is_told_in_the_workbooks_columns(tmp_path):
    """The survey file's examples (``{model: kuk, k1: ..., k2: ...}``) are written as the workbook's columns."""
    survey = [
        ["type", "name", "label", "design::model", "design::k1", "design::t"],
        ["yes_no", "kuk", "Kuk?", "kuk", "0.7", ""],
        ["select_one ai", "ai_use", "AI?", "", "", "2"],
    ]
    found = problems_of(workbook(tmp_path / "form.xlsx", survey=survey))
    assert (
        "survey, row 2, column design::k2: is required; this design is written like design::model kuk with "
        "design::k1, design::k2" in found
    )
    assert all("{" not in problem for problem in found), found


# -- population counts and an anchor's known prevalence ------------------------------------------------------

#: A survey file with both keys a workbook can now hold: two margins of population counts and an anchor.
WEIGHTED_ANCHORED_YAML = """\
id: weighted
title: Weighted and anchored
version: 1
questions:
  - name: birthday
    type: yes_no
    label: Is your birthday in March?
    known_prevalence: 1/12
  - name: cheated
    type: yes_no
    label: Did you cheat?
  - name: faculty
    type: select_one
    label: Faculty
    randomize: false
    choices: [arts, science]
  - name: year
    type: select_one
    label: Year
    randomize: false
    choices: [first, second, third]
population_counts:
  - by: faculty
    counts: {arts: 1200, science: 800}
  - by: year
    counts: {first: 700, second: 600, third: 700}
"""


def test_population_counts_and_known_prevalence_round_trip_through_a_workbook(tmp_path):
    """``population_counts::BY::ANSWER`` settings columns and a ``known_prevalence`` survey column: the
    workbook written from the YAML defines the same survey (margins, counts, anchor), and its YAML reads back
    as it."""
    mapping = yaml.safe_load(WEIGHTED_ANCHORED_YAML)
    book = workbook_of_survey_file(mapping, tmp_path / "weighted.xlsx")
    settings_header = [cell.value for cell in openpyxl.load_workbook(book)["settings"][1]]
    assert "population_counts::faculty::arts" in settings_header and "population_counts::year::third" in settings_header
    imported = import_workbook(book)
    expected = parse_survey(mapping, "weighted.yaml")
    assert without_source(imported.survey) == without_source(expected)
    assert [m.by for m in imported.survey.population_counts] == ["faculty", "year"]
    assert imported.survey.anchor is not None and imported.survey.anchor.known_prevalence == Fraction(1, 12)
    again = parse_survey(yaml.safe_load(imported.yaml_text()), "again.yaml")
    assert without_source(again) == without_source(imported.survey)


def test_a_bad_population_count_or_column_is_reported(tmp_path):
    """A count that is no whole number is the survey file's problem, reported at its own settings column; a
    column that is not ``population_counts::QUESTION::ANSWER`` is reported at its own column."""
    mapping = yaml.safe_load(WEIGHTED_ANCHORED_YAML)
    mapping["population_counts"][0]["counts"]["arts"] = "many"
    with pytest.raises(XLSFormError) as refused:
        import_workbook(workbook_of_survey_file(mapping, tmp_path / "bad.xlsx"))
    problems = [(p.sheet, p.row, p.column) for p in refused.value.problems if "whole number" in p.message]
    assert len(problems) == 1 and problems[0][:2] == ("settings", 2)
    assert problems[0][2].endswith("(population_counts::faculty::arts)")
    mapping = yaml.safe_load(WEIGHTED_ANCHORED_YAML)
    book = workbook_of_survey_file(mapping, tmp_path / "odd.xlsx")
    opened = openpyxl.load_workbook(book)
    sheet = opened["settings"]
    sheet.cell(1, sheet.max_column + 1, "population_counts::faculty")
    sheet.cell(2, sheet.max_column, 5)
    opened.save(book)
    with pytest.raises(XLSFormError) as refused:
        import_workbook(book)
    problems = [(p.sheet, p.column, p.message) for p in refused.value.problems]
    assert any("population_counts::QUESTION::ANSWER" in message and column for _, column, message in problems)


def test_an_extended_crosswise_question_takes_group_2s_statement_from_its_column(tmp_path):
    """``design::extended::innocuous`` is ``design.extended.innocuous``: group 2's statement, true with 1 - q."""
    first = "My mother's birthday is in January, February or March."
    second = "My mother's birthday is between April and December."
    survey = [
        ["type", "name", "label", "design::model", "design::q", "design::innocuous", "design::extended::innocuous"],
        ["yes_no", "cannabis", "I used cannabis.", "crosswise", "1/4", first, second],
    ]
    imported = import_workbook(workbook(tmp_path / "form.xlsx", survey=survey))
    (cannabis,) = imported.survey.questions
    assert (cannabis.innocuous, cannabis.second_innocuous) == (first, second)
    assert imported.survey.group_1_share == Fraction(1, 2)
    assert parse_survey(yaml.safe_load(imported.yaml_text()), "quiz.yaml") == parse_survey(
        imported.mapping, "quiz.yaml"
    )
