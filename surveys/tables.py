"""What every exported table shares: cells JSON can hold and CSV text a spreadsheet will not run.

Used by the estimate and break-down tables (:mod:`surveys.export`) and the model table
(:mod:`surveys.model_export`).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Sequence

#: First characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def finite(value: object) -> object:
    """JSON has no infinity: an unbounded epsilon (a design with a = 0) becomes ``None``."""
    return None if isinstance(value, float) and not math.isfinite(value) else value


def spreadsheet_safe(value: object) -> object:
    """A text cell that a spreadsheet would run as a formula, prefixed with ``'``.

    Only text is changed: numbers (``-0.05``) stay numbers. The quote makes
    Excel, LibreOffice and Google Sheets show the cell as text (OWASP's advice
    on CSV injection).
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def safe_csv(columns: Sequence[str], rows: Iterable[dict]) -> str:
    """``rows`` as CSV text with the header ``columns``, every cell through :func:`spreadsheet_safe`."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns)
    writer.writeheader()
    writer.writerows({k: spreadsheet_safe(v) for k, v in row.items()} for row in rows)
    return buffer.getvalue()
