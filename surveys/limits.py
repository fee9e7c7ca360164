"""The limits within which survey files and XLSForm workbooks are read.

A file beyond one is refused as one problem naming the file and the limit
(:mod:`surveys.files`, :mod:`surveys.xlsform`), and the other surveys keep
serving. Each limit is far above what a survey needs (the shipped surveys are
under 4 KB, nest at most 7 levels and hold under 150 values) and far below what
would stall a worker or fill its memory.
"""

from __future__ import annotations

#: Largest survey file read, in bytes (checked before it is read).
MAX_SURVEY_FILE_BYTES = 1_000_000
#: Deepest nesting of mappings and lists in a survey file (a matrix design is 7 levels down).
MAX_YAML_DEPTH = 20
#: Most aliases (``*name``) in a survey file.
MAX_YAML_ALIASES = 100
#: Most values (mappings, lists, scalars) in a survey file, counting each alias as the values it repeats.
MAX_YAML_NODES = 50_000
#: Longest time spent reading one survey file's YAML, in seconds.
MAX_YAML_SECONDS = 5.0
#: Deepest nesting of parentheses and ``not`` in a ``relevant:`` condition.
MAX_CONDITION_DEPTH = 20

#: Largest XLSForm workbook, in bytes: the file, and all its parts once uncompressed (checked before it is opened).
MAX_WORKBOOK_BYTES = 10_000_000
#: Most parts (zip members) in a workbook.
MAX_WORKBOOK_PARTS = 1_000
#: Most rows in a sheet of a workbook (the header row included).
MAX_SHEET_ROWS = 10_000
#: Most columns in a sheet's header.
MAX_SHEET_COLUMNS = 100
#: Longest time spent reading one workbook's sheets, in seconds.
MAX_WORKBOOK_SECONDS = 10.0


def limit_text(name: str, value: float, unit: str = "") -> str:
    """``the limit MAX_YAML_DEPTH is 20``: how a problem names the limit it hit."""
    number = f"{value:,}" if isinstance(value, int) else f"{value:g}"
    return f"the limit {name} is {number}{unit}"
