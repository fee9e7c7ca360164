"""The noisy answers for SPSS, Stata and R: labelled ``.sav`` and ``.dta`` files, and an R script.

Each file carries exactly the rows and columns of the responses CSV
(:func:`surveys.noisy_answers.iter_responses_csv`, read back here, so the CSV stays
the one home of what a row holds), with what a statistics package needs to
show them well:

* every question column numeric with **value labels**: a yes/no answer is
  1 = yes, 0 = no (so its mean is the share of stored yeses), a choice is
  1, 2, ... in the order the survey lists its options; no answer is the
  system missing value; a number's column is its value in the question's units
  as the CSV gives it (numeric, no value labels; a Laplace output may lie outside
  the range: the noise; the one-bit design's column its bit), a
  check-all-that-apply question one 0/1 column per option (1 = ticked), labelled
  with the question and the option;
* a **variable label** on every column: the question as asked (Stata
  allows 80 characters, so a longer question is cut there with ``...``;
  the codebook has it whole);
* the **design**: in the ``.sav`` file's notes (SPSS ``DISPLAY DOCUMENTS``),
  one line per randomized question saying how to debias it; Stata's file
  format keeps no notes that pyreadstat can write, so the ``.dta`` file's
  label names its companion, the codebook (``codebook.json``), which has
  the same lines.

Variable names are the question names; a name the package reserves (SPSS
``BY``, ``TO``...; Stata ``in``, ``if``, ``int``...) gets a trailing ``_``,
and Stata's 32-character limit cuts longer names (made unique with a
suffix). :func:`variable_names` is the one mapping; the ``.sav`` notes list
every renamed column.

The R script reads the CSV itself (``read.csv``) and turns every question
into a factor with the choice labels, so nothing is recoded by hand.

Both binary files are built in memory from the whole survey (pyreadstat
writes a complete data frame): about 100 bytes per response and question;
for millions of responses prefer the CSV, which is streamed.

Pure: imports pandas and pyreadstat, never Flask or the database.
"""

from __future__ import annotations

import csv
import io
import os
import re
import tempfile
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from surveys.answer_columns import question_columns, responses_header
from surveys.definition import SELECT_MULTIPLE, Question, Survey
from surveys.noisy_answers import RESPONSE_COLUMN_NOTES, RESPONSE_COLUMNS, how_to_analyse

#: Names SPSS reserves for its syntax (IBM SPSS Statistics, "Variable names"); compared case-insensitively.
SPSS_RESERVED = frozenset({"all", "and", "by", "eq", "ge", "gt", "le", "lt", "ne", "not", "or", "to", "with"})
#: Names Stata reserves ([U] 11.3 Naming conventions); ``str1`` ... ``str2045`` as well.
STATA_RESERVED = frozenset(
    {"byte", "double", "float", "if", "in", "int", "long", "strl", "using", "with", "_all", "_b", "_cons", "_n"}
)
STATA_NAME_LIMIT = 32
#: Longest variable label each format keeps (Stata: 80 characters; SPSS: 256 bytes of UTF-8, 120 characters kept).
LABEL_LIMITS = {"dta": 80, "sav": 120}
#: Longest line of an SPSS document (the ``.sav`` notes).
SAV_NOTE_WIDTH = 80
#: Columns that are whole numbers in every row.
INTEGER_COLUMNS = ("survey_version",)


@dataclass(frozen=True)
class Variable:
    """One column of a statistics file: its CSV column, its name in the file, its label and codes."""

    column: str
    name: str
    label: str
    #: Stored answer -> numeric code, for a question; ``None`` for a text column.
    codes: dict[str, int] | None = None
    #: Numeric code -> the choice's label, for a question.
    value_labels: dict[int, str] | None = None
    #: A number question's column (its value in the question's units), or a check-all question's option column.
    numeric: bool = False


def answer_codes(question: Question) -> dict[str, int]:
    """1 = yes and 0 = no for a yes/no question; 1, 2, ... in the listed order for a choice."""
    if question.type == "yes_no":
        return {"yes": 1, "no": 0}
    return {choice.name: index for index, choice in enumerate(question.choices, start=1)}


def _value_labels(question: Question, codes: dict[str, int]) -> dict[int, str]:
    return {codes[choice.name]: choice.label for choice in question.choices}


def _is_reserved(name: str, fmt: str) -> bool:
    if fmt == "sav":
        return name.lower() in SPSS_RESERVED
    return name.lower() in STATA_RESERVED or re.fullmatch(r"str\d+", name.lower()) is not None


def variable_names(columns: Iterable[str], fmt: str) -> dict[str, str]:
    """CSV column -> variable name in a ``fmt`` (``"sav"`` or ``"dta"``) file: reserved names get a
    trailing ``_``; for Stata, names are cut to 32 characters and made unique with ``_2``, ``_3``..."""
    if fmt not in LABEL_LIMITS:
        raise ValueError(f"format must be 'sav' or 'dta', got {fmt!r}")
    names: dict[str, str] = {}
    taken: set[str] = set()
    for column in columns:
        name = column + "_" if _is_reserved(column, fmt) else column
        if fmt == "dta":
            name = name[:STATA_NAME_LIMIT]
            suffix = 2
            while name.lower() in taken:
                tail = f"_{suffix}"
                name = column[: STATA_NAME_LIMIT - len(tail)] + tail
                suffix += 1
        taken.add(name.lower())
        names[column] = name
    return names


def _cut(label: str, limit: int) -> str:
    label = " ".join(label.split())
    return label if len(label) <= limit else label[: limit - 3].rstrip() + "..."


#: The value labels of a check-all question's option column.
TICKED_LABELS = {1: "ticked", 0: "not ticked"}


def variables(survey: Survey, fmt: str) -> tuple[Variable, ...]:
    """Every column of the responses CSV as a labelled variable of a ``fmt`` file."""
    names = variable_names(responses_header(survey), fmt)
    limit = LABEL_LIMITS[fmt]
    fixed = tuple(Variable(c, names[c], _cut(RESPONSE_COLUMN_NOTES[c], limit)) for c in RESPONSE_COLUMNS)
    questions = []
    for question, columns in ((c.question, c.names) for c in question_columns(survey)):
        label = _cut(question.label, limit)
        if question.number is not None:  # in the question's units, as the CSV gives it
            questions.append(Variable(question.name, names[question.name], label, numeric=True))
        elif question.type == SELECT_MULTIPLE:  # one 0/1 column per option
            for column, choice in zip(columns, question.choices, strict=True):
                option = _cut(f"{question.label}: {choice.label}", limit)
                codes = {"1": 1, "0": 0}
                questions.append(Variable(column, names[column], option, codes, dict(TICKED_LABELS)))
        else:
            codes = answer_codes(question)
            questions.append(
                Variable(question.name, names[question.name], label, codes, _value_labels(question, codes))
            )
    return fixed + tuple(questions)


def _number(cell: str) -> float:
    """A number's cell as a float; missing when empty or no number (an answer an older version stored as text)."""
    try:
        return float(cell) if cell else np.nan
    except ValueError:
        return np.nan


def responses_frame(survey: Survey, csv_chunks: Iterable[str], fmt: str) -> pd.DataFrame:
    """The responses CSV (its chunks, header first) as a data frame with numeric answer codes."""
    reader = csv.reader(io.StringIO("".join(csv_chunks)))
    header = next(reader)
    expected = responses_header(survey)
    if header != expected:
        raise ValueError(f"the responses CSV has columns {header}, expected {expected}")
    rows = list(reader)
    data = {}
    for index, variable in enumerate(variables(survey, fmt)):
        cells = [row[index] for row in rows]
        if variable.codes is not None:
            data[variable.name] = np.array([variable.codes.get(c, np.nan) for c in cells], dtype=float)
        elif variable.numeric:
            data[variable.name] = np.array([_number(c) for c in cells], dtype=float)
        elif variable.column in INTEGER_COLUMNS:
            data[variable.name] = np.array([int(c) for c in cells], dtype=np.int64)
        else:
            data[variable.name] = pd.Series(cells, dtype=object)
    return pd.DataFrame(data)


def design_notes(survey: Survey) -> list[str]:
    """One line for the survey, then one per randomized question: its design and how to debias it."""
    lines = [
        f"{survey.title} (survey {survey.id}, version {survey.version}). Every randomized answer is noisy: "
        "debias it with its design; the share of stored yeses is not the share of true yeses."
    ]
    columns = {c.question.name: c.names for c in question_columns(survey)}
    lines += [f"{q.name}: {how_to_analyse(q, q.design, columns[q.name])}" for q in survey.randomized_questions]
    return lines


def renamed_note(survey: Survey, fmt: str) -> list[str]:
    """A line naming every column whose variable name differs from the CSV's, if any."""
    renamed = [f"{v.column} -> {v.name}" for v in variables(survey, fmt) if v.name != v.column]
    return [f"Renamed from the responses CSV: {', '.join(renamed)}."] if renamed else []


def sav_document_lines(paragraphs: Iterable[str]) -> list[str]:
    """``paragraphs`` wrapped at spaces into SPSS document lines of at most 80 characters each
    (the format's limit), with an empty line between paragraphs."""
    lines: list[str] = []
    for paragraph in paragraphs:
        if lines:
            lines.append("")
        lines += textwrap.wrap(paragraph, SAV_NOTE_WIDTH, break_on_hyphens=False)
    return lines


def write_statistics_file(survey: Survey, csv_chunks: Iterable[str], fmt: str) -> bytes:
    """The responses as a labelled ``.sav`` (``fmt="sav"``) or ``.dta`` (``fmt="dta"``) file's bytes."""
    frame = responses_frame(survey, csv_chunks, fmt)
    chosen = variables(survey, fmt)
    labels = {v.name: v.label for v in chosen}
    value_labels = {v.name: v.value_labels for v in chosen if v.value_labels}
    import pyreadstat  # here, not at the top: 0.12 s of a core (with narwhals) that only these files need

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"responses.{fmt}"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.close(fd)
        if fmt == "sav":
            pyreadstat.write_sav(
                frame,
                path,
                file_label=_cut(survey.title, 64),
                column_labels=labels,
                variable_value_labels=value_labels,
                note=sav_document_lines(design_notes(survey) + renamed_note(survey, fmt)),
            )
        else:
            pyreadstat.write_dta(
                frame,
                path,
                file_label=_cut(f"{survey.id} v{survey.version}: noisy answers; designs in the codebook", 80),
                column_labels=labels,
                variable_value_labels=value_labels,
            )
        return path.read_bytes()


# --------------------------------------------------------------------------
# R.


def r_string(text: str) -> str:
    """``text`` as an R string literal in double quotes (backslash, quote and control characters escaped)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    escaped = escaped.replace("\t", "\\t")
    return f'"{escaped}"'


def _r_vector(values: Iterable[str]) -> str:
    return "c(" + ", ".join(r_string(v) for v in values) + ")"


def _r_comment(text: str) -> str:
    return "# " + " ".join(text.split())


def _r_number_comment(question: Question) -> str:
    """What a number's column holds, for the R script: a value in the units, or the one-bit design's bit."""
    if question.design is not None and question.design.kind == "bounded":
        return "the one-bit design's bit, 0 or 1 (see the codebook to debias it)"
    number = question.number
    text = f"in the question's units, {number.text(number.minimum)} to {number.text(number.maximum)}"
    return text + (" (a Laplace output may lie outside: the noise)" if question.design is not None else "")


def r_script(survey: Survey, csv_name: str) -> str:
    """An R script that reads the responses CSV (``csv_name``) with every question as a labelled factor."""
    lines = [_r_comment(line) for line in design_notes(survey)]
    lines += [
        "# Rows are in random order (the response id is random); empty cells are no answer (NA).",
        f'd <- read.csv({r_string(csv_name)}, colClasses = "character", na.strings = "", fileEncoding = "UTF-8")',
        "d$survey_version <- as.integer(d$survey_version)",
        "d$day <- as.Date(d$day)",
    ]
    for question, columns in ((c.question, c.names) for c in question_columns(survey)):
        column = f"d${question.name}"
        if question.number is not None:
            lines.append(f"{column} <- as.numeric({column})  # {_r_number_comment(question)}")
            lines.append(f'attr({column}, "label") <- {r_string(question.label)}')
            continue
        if question.type == SELECT_MULTIPLE:
            for option, choice in zip(columns, question.choices, strict=True):
                lines.append(f"d${option} <- as.integer(d${option})  # 1 = ticked, 0 = not ticked")
                lines.append(f'attr(d${option}, "label") <- {r_string(f"{question.label}: {choice.label}")}')
            continue
        names = [c.name for c in question.choices]
        labels = [c.label for c in question.choices]
        lines.append(f"{column} <- factor({column}, levels = {_r_vector(names)}, labels = {_r_vector(labels)})")
        lines.append(f'attr({column}, "label") <- {r_string(question.label)}')
    return "\n".join(lines) + "\n"
