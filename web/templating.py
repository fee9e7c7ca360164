"""What templates may call, registered in one place: the wording module's formatters, the design
key, the chart of a dashboard row, and which table a result goes in."""

from __future__ import annotations

from flask import Flask
from markupsafe import Markup

from surveys import wording
from surveys.design_contract import question_design_key
from web.charts import daily_sparkline_svg


def result_kind(result) -> str:
    """``yes_no``, ``choice`` or ``plain``: which table a result goes in."""
    return {"YesNoResult": "yes_no", "ChoiceResult": "choice", "PlainResult": "plain"}[type(result).__name__]


def single_quoted_attribute(text: str) -> Markup:
    """``text`` escaped for an attribute in single quotes: only ``&``, ``<``, ``>`` and ``'``.

    JSON in a ``data-`` attribute keeps its double quotes as they are (the default escaping
    writes each as ``&#34;``, five bytes), which keeps the form page small.
    """
    escaped = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;")
    return Markup(escaped)


def init_app(app: Flask) -> None:
    app.jinja_env.globals.update(
        design_sentence=wording.design_sentence,
        percent=wording.short_percent,
        epsilon_text=wording.epsilon_text,
        design_key=question_design_key,
        wording=wording,
    )
    app.add_template_filter(wording.table_percent, "pct")
    app.add_template_filter(result_kind, "kind")
    app.add_template_filter(single_quoted_attribute, "single_quoted")
    app.add_template_filter(daily_sparkline_svg, "sparkline")
