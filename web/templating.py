"""What templates may call, registered in one place: the wording namespace (:mod:`surveys.wording`), the design
key, the chart of a dashboard row, which table a result goes in, the form's wire values, and the
respondent's words in their language (:mod:`web.language`) with the thank-you page's padded labels
(:mod:`web.thanks`), and ``may(role, survey_id)`` (:func:`web.permissions.may`), so a page shows only the buttons
its reader's role can use."""

from __future__ import annotations

from flask import Flask
from markupsafe import Markup

from surveys import wording
from surveys.design_contract import question_design_key, randomized_in_every_arm
from surveys.design_sentences import design_sentence, epsilon_text
from surveys.kinds import kind_of_result
from surveys.text_format import short_percent, table_percent
from web import language
from web.charts import daily_sparkline_svg
from web.forms import (
    KEEP_LABEL,
    NO_ANSWER_LABEL,
    device_blank,
    may_be_blank,
    reads_device_wire,
    wire_value,
    wire_values,
)
from web.permissions import may
from web.thanks import padded_label


def result_kind(result) -> str:
    """``yes_no``, ``choice`` or ``plain``: which table a result goes in (its kind's ``results_table``)."""
    return kind_of_result(result).results_table


def in_table(result, table: str) -> bool:
    """Whether ``result`` goes in the results page's ``table`` (``select('kind', 'yes_no')`` in a template)."""
    return result_kind(result) == table


def single_quoted_attribute(text: str) -> Markup:
    """``text`` escaped for an attribute in single quotes: only ``&``, ``<``, ``>`` and ``'``.

    JSON in a ``data-`` attribute keeps its double quotes as they are (the default escaping
    writes each as ``&#34;``, five bytes), which keeps the form page small.
    """
    escaped = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;")
    return Markup(escaped)


def init_app(app: Flask) -> None:
    app.jinja_env.globals.update(
        design_sentence=design_sentence,
        percent=short_percent,
        epsilon_text=epsilon_text,
        design_key=question_design_key,
        randomized_in_every_arm=randomized_in_every_arm,
        wording=wording,
        wire_value=wire_value,
        wire_values=wire_values,
        may_be_blank=may_be_blank,
        reads_device_wire=reads_device_wire,
        device_blank=device_blank,
        no_answer_label=NO_ANSWER_LABEL,
        keep_label=KEEP_LABEL,
        language_names=language.LANGUAGE_NAMES,
        translated=language.translated,
        privacy_sentence=language.respondent_privacy_sentence,
        respondent_design_sentence=language.respondent_design_sentence,
        survey_protection=language.survey_protection,
        privacy_words=language.privacy_words,
        device_note=language.device_note,
        explanations_by_design=language.explanations_by_design,
        respondent_percent=language.respondent_percent,
        odds_factor_text=language.respondent_odds_factor,
        respondent_epsilon=language.respondent_epsilon,
        page_language=language.page_language,
        choice_label=language.choice_label,
        skip_note=language.skip_note,
        release_text=language.release_text,
        release_sentences=language.release_sentences,
        release_row_label=language.release_row_label,
        padded_label=padded_label,
        may=may,
    )
    app.add_template_filter(table_percent, "pct")
    app.add_template_filter(result_kind, "kind")
    app.add_template_test(in_table, "kind")
    app.add_template_filter(single_quoted_attribute, "single_quoted")
    app.add_template_filter(daily_sparkline_svg, "sparkline")
