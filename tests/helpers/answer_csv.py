"""The responses CSV read in tests: as exported, and turned back into the stored answers by the codebook's own
statements (surveys/answer_columns.py writes a number in its units, a check-all question one column per option)."""

from __future__ import annotations

import csv
import io
from fractions import Fraction


def csv_rows(client, page: str) -> list[dict]:
    """The responses CSV of the survey at ``page`` (``/admin/surveys/<id>``), one dict a row."""
    return list(csv.DictReader(io.StringIO(client.get(f"{page}/responses.csv").get_data(as_text=True))))


def stored_rows(client, page: str) -> list[dict]:
    """The responses CSV's rows with each answer turned back into the one stored, by the codebook's statements: a
    number's grid step ``y = (value - min) / step`` (asserted whole: the value is exact; the one-bit design's
    column is its bit), a check-all question's option columns (``csv_columns``) joined into its bits."""
    columns = client.get(f"{page}/codebook.json").get_json()["columns"]
    rows = csv_rows(client, page)
    for column in columns:
        name, grid, design = column["name"], column.get("grid"), column.get("design") or {}
        for row in rows:
            if grid and design.get("kind") != "bounded" and row[name]:
                steps = (Fraction(row[name]) - Fraction(grid["min"])) / Fraction(grid["step"])
                assert steps.denominator == 1, row[name]
                row[name] = str(steps.numerator)
            if "csv_columns" in column:
                row[name] = "".join(row.pop(option["name"]) for option in column["csv_columns"])
    return rows
