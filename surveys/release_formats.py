"""A release as JSON (what storage keeps) and as CSV (what a reader downloads).

Part of :mod:`surveys.releases`.
"""

from __future__ import annotations

import json
from dataclasses import asdict

from analysis.central import TotalCost
from surveys.release_figures import PublishedFigure, PublishedRow, Release
from surveys.release_words import Words, words_from_data
from surveys.tables import safe_csv

CSV_COLUMNS = ("figure", "title", "label", "value", "low", "high", "number")


def release_to_json(release: Release) -> str:
    """``release`` as JSON text (what storage keeps; :func:`release_from_json` reads it back equal)."""
    return json.dumps(asdict(release), ensure_ascii=False, sort_keys=True)


def release_from_json(text: str) -> Release:
    """The :class:`Release` :func:`release_to_json` wrote (a release stored before its sentences were kept as
    :class:`~surveys.release_words.Words` reads back without them: its English text is shown)."""
    data = json.loads(text)
    figures = tuple(
        PublishedFigure(
            key=f["key"],
            title=f["title"],
            rows=tuple(PublishedRow(**row) for row in f["rows"]),
            note=f["note"],
            epsilon=f["epsilon"],
            title_words=_optional_words(f.get("title_words")),
            note_words=_optional_words(f.get("note_words")),
        )
        for f in data["figures"]
    )
    return Release(
        survey_id=data["survey_id"],
        survey_title=data["survey_title"],
        made_on=data["made_on"],
        answers=data["answers"],
        figures=figures,
        cost=TotalCost(**data["cost"]),
        protection=tuple(data["protection"]),
        protection_words=tuple(words_from_data(item) for item in data.get("protection_words", ())),
    )


def _optional_words(data) -> Words | None:
    """A figure's words as :func:`release_to_json` wrote them; None in a release stored before them."""
    return None if data is None else words_from_data(data)


def release_csv(release: Release) -> str:
    """Exactly what was published, one CSV row per published row (:data:`CSV_COLUMNS`), spreadsheet-safe."""
    rows = (
        {
            "figure": figure.key,
            "title": figure.title,
            "label": row.label,
            "value": row.value,
            "low": row.low,
            "high": row.high,
            "number": "" if row.number is None else row.number,
        }
        for figure in release.figures
        for row in figure.rows
    )
    return safe_csv(CSV_COLUMNS, rows)
