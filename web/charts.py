"""Charts drawn on the server as inline SVG: no script, no inline style.

The Content-Security-Policy allows neither scripts nor ``style="..."``
attributes from a page, so the charts use SVG presentation attributes
(``fill``, ``stroke``, ``font-size``) and class names only; their size comes
from ``static/style.css`` (``svg.chart``, ``.spark svg``). Every text is
escaped. Each chart has ``role="img"``, an ``aria-label`` and a
``<title>``/``<desc>`` that say in words what it shows.
"""

from __future__ import annotations

from datetime import date, timedelta

from markupsafe import Markup, escape

from surveys.results import ChoiceResult, SurveyResults, YesNoResult
from surveys.wording import count_text, percent, short_percent

WIDTH = 720
LABEL_X = 8
PLOT_LEFT = 290
PLOT_RIGHT = 700
TOP = 58
ROW_HEIGHT = 30
LABEL_CHARS = 40
HEADING_CHARS = 70
TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)

ESTIMATE_COLOUR = "#0b5cad"
OBSERVED_COLOUR = "#57606a"
GRID_COLOUR = "#d0d7de"
TEXT_COLOUR = "#1b1f23"

SPARK_WIDTH = 160
SPARK_HEIGHT = 40


def truncate(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, with an ellipsis when cut."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


def _x(value: float) -> float:
    return PLOT_LEFT + value * (PLOT_RIGHT - PLOT_LEFT)


def _text(x: float, y: float, content: str, **attributes) -> str:
    extra = "".join(f' {name.rstrip("_").replace("_", "-")}="{escape(value)}"' for name, value in attributes.items())
    return f'<text x="{x:.1f}" y="{y:.1f}"{extra}>{escape(content)}</text>'


def _rows(results: SurveyResults) -> list[tuple]:
    """``(kind, label, full label, estimate-like)`` per drawn row, in survey order."""
    rows = []
    for result in results.questions:
        if isinstance(result, YesNoResult):
            rows.append(("estimate", result.question.label, result.question.label, result))
        elif isinstance(result, ChoiceResult):
            rows.append(("heading", result.question.label, result.question.label, None))
            for option in result.options:
                full = f"{result.question.label}: {option.choice.label}"
                rows.append(("option", option.choice.label, full, option))
    return rows


def _values(item) -> tuple[float | None, object, float | None]:
    """``(estimate, ci, observed)`` of a YesNoResult or an OptionResult."""
    if isinstance(item, YesNoResult):
        return item.estimate, item.ci, item.observed_rate
    return item.estimate_projected, item.ci, item.observed


def _describe(full_label: str, item, level: str) -> str:
    estimate, ci, observed = _values(item)
    if estimate is None:
        return f"{full_label}: no answers yet"
    return (
        f"{full_label}: estimate {percent(estimate)} "
        f"({level} interval {percent(ci.low)} to {percent(ci.high)}), "
        f"observed noisy rate {percent(observed)}"
    )


def _estimate_row(y: float, label: str, indent: int, description: str, item) -> list[str]:
    parts = [f'<g class="row"><title>{escape(description)}</title>']
    parts.append(_text(LABEL_X + indent, y + 4, truncate(label, LABEL_CHARS - indent // 6), fill=TEXT_COLOUR))
    estimate, ci, observed = _values(item)
    if estimate is None:
        parts.append(_text(PLOT_LEFT + 4, y + 4, "no answers yet", fill=OBSERVED_COLOUR, class_="empty"))
    else:
        low, high = _x(ci.low), _x(ci.high)
        parts.append(
            f'<line class="ci" x1="{low:.1f}" y1="{y:.1f}" x2="{high:.1f}" y2="{y:.1f}" '
            f'stroke="{ESTIMATE_COLOUR}" stroke-width="2"/>'
        )
        for cap in (low, high):
            parts.append(
                f'<line class="ci-cap" x1="{cap:.1f}" y1="{y - 5:.1f}" x2="{cap:.1f}" y2="{y + 5:.1f}" '
                f'stroke="{ESTIMATE_COLOUR}" stroke-width="2"/>'
            )
        parts.append(
            f'<circle class="observed" cx="{_x(observed):.1f}" cy="{y + 9:.1f}" r="3.5" '
            f'fill="#fff" stroke="{OBSERVED_COLOUR}" stroke-width="1.5"/>'
        )
        parts.append(f'<circle class="estimate" cx="{_x(estimate):.1f}" cy="{y:.1f}" r="5" fill="{ESTIMATE_COLOUR}"/>')
    parts.append("</g>")
    return parts


def results_chart_svg(results: SurveyResults) -> Markup:
    """The randomized questions' estimates as one inline SVG chart.

    One row per yes/no question and per option of a multiple-choice question
    (under a heading row with the question): a 0-100% axis with gridlines,
    the estimate as a dot on its confidence interval (a line with end caps)
    and the observed noisy rate as a hollow marker just below. Plain
    questions are not drawn. Scales with its container (``svg.chart``).
    """
    level = short_percent(results.confidence_level)
    rows = _rows(results)
    height = TOP + max(len(rows), 1) * ROW_HEIGHT + 10
    descriptions = [_describe(full, item, level) for kind, _, full, item in rows if kind != "heading"]
    title = f"Estimates for {results.survey.title}"
    desc = (
        f"Estimated share of true answers with {level} confidence intervals, and the observed "
        f"noisy rate, from {results.response_count} responses. " + "; ".join(descriptions) + "."
    )
    drawn = sum(1 for kind, _, _, item in rows if kind != "heading" and _values(item)[0] is not None)
    aria = f"{title}: {count_text(drawn, 'estimate')} with {level} confidence intervals"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {WIDTH} {height}" '
        f'width="100%" role="img" aria-label="{escape(aria)}" font-family="system-ui, sans-serif" '
        f'font-size="13">',
        f"<title>{escape(title)}</title>",
        f"<desc>{escape(desc)}</desc>",
    ]
    # Legend.
    parts.append(f'<circle cx="{LABEL_X + 6}" cy="14" r="5" fill="{ESTIMATE_COLOUR}"/>')
    parts.append(
        f'<line x1="{LABEL_X}" y1="14" x2="{LABEL_X + 12}" y2="14" stroke="{ESTIMATE_COLOUR}" stroke-width="2"/>'
    )
    parts.append(_text(LABEL_X + 18, 18, f"estimate with {level} confidence interval", fill=TEXT_COLOUR))
    parts.append(
        f'<circle cx="{PLOT_LEFT + 60}" cy="14" r="3.5" fill="#fff" stroke="{OBSERVED_COLOUR}" stroke-width="1.5"/>'
    )
    parts.append(_text(PLOT_LEFT + 70, 18, "observed (noisy) rate", fill=TEXT_COLOUR))
    # Axis and gridlines.
    bottom = TOP + max(len(rows), 1) * ROW_HEIGHT - ROW_HEIGHT / 2
    for tick in TICKS:
        x = _x(tick)
        parts.append(
            f'<line class="grid" x1="{x:.1f}" y1="{TOP - 14:.1f}" x2="{x:.1f}" y2="{bottom:.1f}" '
            f'stroke="{GRID_COLOUR}" stroke-width="1"/>'
        )
        parts.append(_text(x, TOP - 20, percent(tick), fill=OBSERVED_COLOUR, text_anchor="middle"))
    if not rows:
        parts.append(_text(LABEL_X, TOP + 4, "No randomized questions.", fill=OBSERVED_COLOUR))
    for index, (kind, label, full, item) in enumerate(rows):
        y = TOP + index * ROW_HEIGHT
        if kind == "heading":
            heading = truncate(label, HEADING_CHARS)
            parts.append(_text(LABEL_X, y + 4, heading, fill=TEXT_COLOUR, font_weight="600"))
        else:
            indent = 12 if kind == "option" else 0
            parts.extend(_estimate_row(y, label, indent, _describe(full, item, level), item))
    parts.append("</svg>")
    return Markup("".join(parts))


def daily_sparkline_svg(daily_counts: list[tuple[str, int]]) -> Markup:
    """A small bar chart of responses per day, days without responses drawn as gaps.

    ``daily_counts`` is :func:`storage.queries.daily_counts`: ``(YYYY-MM-DD,
    count)`` in day order. The chart spans the first to the last day.
    """
    counts = {date.fromisoformat(day): count for day, count in daily_counts}
    total = sum(counts.values())
    if counts:
        first, last = min(counts), max(counts)
        days = [first + timedelta(days=i) for i in range((last - first).days + 1)]
    else:
        days = []
    aria = f"{count_text(total, 'response')} over {count_text(len(days), 'day')}"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="sparkline" viewBox="0 0 {SPARK_WIDTH} {SPARK_HEIGHT}" '
        f'preserveAspectRatio="none" role="img" aria-label="{escape(aria)}">',
        f"<title>{escape(aria)}</title>",
        f'<line x1="0" y1="{SPARK_HEIGHT - 0.5}" x2="{SPARK_WIDTH}" y2="{SPARK_HEIGHT - 0.5}" '
        f'stroke="{GRID_COLOUR}" stroke-width="1"/>',
    ]
    if days:
        peak = max(counts.values()) or 1
        step = SPARK_WIDTH / len(days)
        gap = 1.0 if step > 3 else 0.0
        for index, day in enumerate(days):
            count = counts.get(day, 0)
            if not count:
                continue
            height = count / peak * (SPARK_HEIGHT - 2)
            parts.append(
                f'<rect class="bar" x="{index * step:.2f}" y="{SPARK_HEIGHT - height:.2f}" '
                f'width="{step - gap:.2f}" height="{height:.2f}" fill="{ESTIMATE_COLOUR}">'
                f"<title>{escape(day.isoformat())}: {count_text(count, 'response')}</title></rect>"
            )
    parts.append("</svg>")
    return Markup("".join(parts))
