"""Charts drawn on the server as inline SVG: no script, no inline style.

The Content-Security-Policy allows neither scripts nor ``style="..."``
attributes from a page, so the charts use SVG presentation attributes
(``fill``, ``stroke``, ``font-size``) and class names only; their size comes
from ``static/style.css`` (``svg.chart``, ``svg.sparkline``). Every text is
escaped. Each chart has ``role="img"``, an ``aria-label`` and a
``<title>``/``<desc>`` that say in words what it shows.

The estimate charts are drawn :data:`WIDTH` units wide, narrow enough that
their 13-unit text is still about 11 pixels high on a 375-pixel phone, and
the CSS caps their width on a desktop. Labels are wrapped onto as many lines
as they need, never cut; each estimate's figures are written beside its bar.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from datetime import date, timedelta

from markupsafe import Markup, escape

from surveys.breakdowns import Breakdown
from surveys.kinds import kind_of_result
from surveys.models import GroupPrevalence, ModelResult
from surveys.result_sentences import bound_text, range_text
from surveys.results import SurveyResults, YesNoResult
from surveys.text_format import count_text, percent, short_percent
from surveys.timeline import Timeline

WIDTH = 400
FONT_SIZE = 13
MARGIN = 8
#: Characters per line of a label across the chart (about 7 units per character at 13 units).
LABEL_CHARS = 50
#: Characters per line of a group's name in the break-down chart's left column.
SIDE_CHARS = 12
SIDE_WIDTH = 100
#: The figures (estimate and interval) are written right of the plot, up to the right margin.
PLOT_RIGHT = 270
LINE = 16
BAR = 20
GAP = 8
TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)

ESTIMATE_COLOUR = "#0b5cad"
OBSERVED_COLOUR = "#57606a"
GRID_COLOUR = "#d0d7de"
TEXT_COLOUR = "#1b1f23"
#: One colour per group of a break-down (dark enough for text on white), repeated past the sixth.
GROUP_COLOURS = ("#0b5cad", "#b35900", "#1a7f37", "#8250df", "#b42318", "#57606a")

SPARK_WIDTH = 200
SPARK_BARS = 36
SPARK_HEIGHT = 62


def wrap(text: str, chars: int) -> list[str]:
    """``text`` on lines of at most ``chars`` characters, broken between words: never cut short."""
    return textwrap.wrap(text, chars, break_on_hyphens=False) or [""]


def _text(x: float, y: float, content: str, **attributes) -> str:
    extra = "".join(f' {name.rstrip("_").replace("_", "-")}="{escape(value)}"' for name, value in attributes.items())
    return f'<text x="{x:.1f}" y="{y:.1f}"{extra}>{escape(content)}</text>'


def _values(item) -> tuple[float | None, object, float | None]:
    """``(estimate, ci, observed)`` of a YesNoResult, an OptionResult or a model's group (no observed rate)."""
    if isinstance(item, YesNoResult):
        return item.estimate, item.ci, item.observed_rate
    if isinstance(item, GroupPrevalence):
        return item.prevalence.estimate, item.prevalence, None  # PredictedPrevalence has .low and .high
    return item.estimate, item.ci, item.observed


def figures(item) -> str:
    """Beside a bar: the estimate and interval (``"35% (21–48%)"``), a one-sided bound, or nothing."""
    estimate, ci, _ = _values(item)
    if estimate is None:
        return ""
    if getattr(ci, "one_sided", False):
        return f"{'≤ ' + percent(ci.high) if ci.side == 'upper' else '≥ ' + percent(ci.low)}"
    if ci is None:
        return percent(estimate)
    return f"{percent(estimate)} ({percent(ci.low).removesuffix('%')}–{percent(ci.high)})"


def _describe(full_label: str, item, level: str) -> str:
    estimate, ci, observed = _values(item)
    if estimate is None:
        return f"{full_label}: no answers yet"
    if getattr(ci, "one_sided", False):
        interval = f"one-sided bound: {bound_text(ci)}"
    else:
        interval = f"{level} interval {percent(ci.low)} to {percent(ci.high)}"
    noisy = "" if observed is None else f", observed noisy rate {percent(observed)}"
    return f"{full_label}: estimate {percent(estimate)} ({interval}){noisy}"


@dataclass(frozen=True)
class _Plot:
    """The 0-100% axis of a chart, from ``left`` to :data:`PLOT_RIGHT`."""

    left: float

    def x(self, value: float) -> float:
        return self.left + value * (PLOT_RIGHT - self.left)


@dataclass(frozen=True)
class _Label:
    """A label across the chart, wrapped; a question's in bold."""

    text: str
    bold: bool = False
    indent: int = 0


@dataclass(frozen=True)
class _Bar:
    """One estimate's row: its interval, dot and figures; in a break-down, the group's name at the left."""

    item: object
    description: str
    side: tuple[str, ...] = ()
    colour: str = ESTIMATE_COLOUR


def _label_parts(label: _Label, y: float) -> tuple[list[str], float]:
    chars = LABEL_CHARS - (4 if label.bold else 0) - label.indent // 6
    attributes = {"fill": TEXT_COLOUR, "class_": "label"}
    if label.bold:
        attributes["font_weight"] = "600"
    parts = []
    for line in wrap(label.text, chars):
        y += LINE
        parts.append(_text(MARGIN + label.indent, y - 4, line, **attributes))
    return parts, y


def _bar_parts(bar: _Bar, plot: _Plot, y: float) -> tuple[list[str], float]:
    height = max(BAR, len(bar.side) * LINE + 4)
    middle = y + BAR / 2
    parts = [f'<g class="row"><title>{escape(bar.description)}</title>']
    for index, line in enumerate(bar.side):
        parts.append(_text(MARGIN, middle + 4 + index * LINE, line, fill=bar.colour, class_="group"))
    estimate, ci, observed = _values(bar.item)
    if estimate is None:
        parts.append(_text(plot.left + 4, middle + 4, "no answers yet", fill=OBSERVED_COLOUR, class_="empty"))
    else:
        low, high = plot.x(ci.low), plot.x(ci.high)
        line = f'stroke="{bar.colour}" stroke-width="2"'
        parts.append(f'<line class="ci" x1="{low:.1f}" y1="{middle:.1f}" x2="{high:.1f}" y2="{middle:.1f}" {line}/>')
        for cap in (low, high):
            parts.append(
                f'<line class="ci-cap" x1="{cap:.1f}" y1="{middle - 5:.1f}" '
                f'x2="{cap:.1f}" y2="{middle + 5:.1f}" {line}/>'
            )
        if observed is not None:
            parts.append(
                f'<circle class="observed" cx="{plot.x(observed):.1f}" cy="{middle + 7:.1f}" r="3" '
                f'fill="#fff" stroke="{OBSERVED_COLOUR}" stroke-width="1.5"/>'
            )
        parts.append(
            f'<circle class="estimate" cx="{plot.x(estimate):.1f}" cy="{middle:.1f}" r="5" fill="{bar.colour}"/>'
        )
        parts.append(
            _text(WIDTH - MARGIN, middle + 4, figures(bar.item), fill=TEXT_COLOUR, text_anchor="end", class_="figures")
        )
    parts.append("</g>")
    return parts, y + height + GAP


def _legend(level: str, colour: str, estimate: str = "estimate", observed: bool = True) -> list[str]:
    parts = [
        f'<line x1="{MARGIN}" y1="12" x2="{MARGIN + 14}" y2="12" stroke="{colour}" stroke-width="2"/>',
        f'<circle cx="{MARGIN + 7}" cy="12" r="5" fill="{colour}"/>',
        _text(MARGIN + 22, 16, f"{estimate} with {level} confidence interval", fill=TEXT_COLOUR),
    ]
    if observed:
        parts += [
            f'<circle cx="{MARGIN + 7}" cy="31" r="3" fill="#fff" stroke="{OBSERVED_COLOUR}" stroke-width="1.5"/>',
            _text(MARGIN + 22, 35, "observed (noisy) rate", fill=TEXT_COLOUR),
        ]
    return parts


def _chart(
    title: str,
    desc: str,
    aria: str,
    level: str,
    plot: _Plot,
    entries: list,
    empty: str,
    legend: list[str] | None = None,
) -> Markup:
    """The SVG of ``entries`` (labels and bars) under a legend and a 0-100% axis with gridlines."""
    top = 62
    body, y = [], top
    for entry in entries:
        drawn, y = _label_parts(entry, y) if isinstance(entry, _Label) else _bar_parts(entry, plot, y)
        body.extend(drawn)
    if not entries:
        body.append(_text(MARGIN, top + 16, empty, fill=OBSERVED_COLOUR))
        y = top + 24
    height = y + 4
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {WIDTH} {height:.0f}" '
        f'width="100%" role="img" aria-label="{escape(aria)}" font-family="system-ui, sans-serif" '
        f'font-size="{FONT_SIZE}">',
        f"<title>{escape(title)}</title>",
        f"<desc>{escape(desc)}</desc>",
        *(_legend(level, ESTIMATE_COLOUR) if legend is None else legend),
    ]
    for tick in TICKS:
        x = plot.x(tick)
        parts.append(
            f'<line class="grid" x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{y:.1f}" '
            f'stroke="{GRID_COLOUR}" stroke-width="1"/>'
        )
        parts.append(_text(x, top - 8, percent(tick), fill=OBSERVED_COLOUR, text_anchor="middle"))
    parts.extend(body)
    parts.append("</svg>")
    return Markup("".join(parts))


def _result_entries(results: SurveyResults) -> list:
    entries: list = []
    for result in results.questions:
        label = result.question.label
        items = kind_of_result(result).chart_items(result)
        if items:
            entries.append(_Label(label, bold=True))
        for option, item in items:  # option None: the question's one bar, under its own label
            if option is None:
                entries.append(_Bar(item, label))
            else:
                entries += [_Label(option, indent=12), _Bar(item, f"{label}: {option}")]
    return entries


def results_chart_svg(results: SurveyResults) -> Markup:
    """The randomized questions' estimates as one inline SVG chart.

    Per yes/no question its label (wrapped) and a row; per multiple-choice
    question its label and, per option, the option's label and a row. A row
    has a 0-100% axis with gridlines, the estimate as a dot on its confidence
    interval (a line with end caps), the observed noisy rate as a hollow
    marker just below, and the estimate and interval written at the right.
    Plain questions are not drawn. Scales with its container (``svg.chart``).
    """
    level = short_percent(results.confidence_level)
    entries = _result_entries(results)
    bars = [entry for entry in entries if isinstance(entry, _Bar)]
    title = f"Estimates for {results.survey.title}"
    desc = (
        f"Estimated share of true answers with {level} confidence intervals, and the observed "
        f"noisy rate, from {results.response_count} responses. "
        + "; ".join(_describe(bar.description, bar.item, level) for bar in bars)
        + "."
    )
    drawn = sum(1 for bar in bars if _values(bar.item)[0] is not None)
    aria = f"{title}: {count_text(drawn, 'estimate')} with {level} confidence intervals"
    return _chart(title, desc, aria, level, _Plot(MARGIN + 4), entries, "No randomized questions.")


def _breakdown_entries(breakdown: Breakdown) -> list:
    entries: list = []
    groups = breakdown.groups
    colours = {group.value: GROUP_COLOURS[index % len(GROUP_COLOURS)] for index, group in enumerate(groups)}

    def bars(pick, full_label: str) -> list:
        return [
            _Bar(item, f"{group.label}: {full_label}", tuple(wrap(group.label, SIDE_CHARS)), colours[group.value])
            for group in groups
            if (item := pick(group)) is not None
        ]

    for index, result in enumerate(groups[0].questions if groups else ()):
        label = result.question.label
        entries.append(_Label(label, bold=True))
        kind = kind_of_result(result)
        for number, (option, _) in enumerate(kind.chart_items(result)):

            def pick(group, i=index, k=number, kind=kind):
                items = kind.chart_items(group.questions[i])
                return items[k][1] if k < len(items) else None

            if option is None:  # the question's one bar, under its own label
                entries += bars(pick, label)
            else:
                entries.append(_Label(option, indent=12))
                entries += bars(pick, f"{label}: {option}")
    return entries


def breakdown_chart_svg(breakdown: Breakdown) -> Markup:
    """A break-down's estimates with the groups side by side: per question (and option), one row per group.

    Each group has its colour and its name at the left of its row (wrapped,
    never cut); rows are drawn as in :func:`results_chart_svg`.
    """
    level = short_percent(breakdown.confidence_level)
    entries = _breakdown_entries(breakdown)
    bars = [entry for entry in entries if isinstance(entry, _Bar)]
    title = f"Estimates by {breakdown.by.label}"
    desc = (
        f"Estimated share of true answers per group ({', '.join(g.label for g in breakdown.groups)}), with {level} "
        "confidence intervals and the observed noisy rate. "
        + "; ".join(_describe(bar.description, bar.item, level) for bar in bars)
        + "."
    )
    aria = f"{title}: {count_text(len(breakdown.groups), 'group')} side by side, with {level} confidence intervals"
    return _chart(title, desc, aria, level, _Plot(SIDE_WIDTH + 12), entries, "No randomized questions.")


#: Most groups the model chart draws; beyond, it says how many there are (the table and downloads list each).
MAX_MODEL_GROUPS = 40


def _group_name(group: GroupPrevalence) -> str:
    """``"Year of study: second · Department: Arts"``."""
    return " · ".join(f"{question}: {level}" for question, level in group.levels)


def model_chart_svg(model: ModelResult) -> Markup:
    """The model's predicted share of true yes per group (each combination of the predictors' levels), with
    its delta-method interval, one row per group under the group's name (wrapped, never cut), the figures
    written beside each row; at most :data:`MAX_MODEL_GROUPS` groups. Drawn as :func:`results_chart_svg`
    draws an estimate, without an observed rate (a group's noisy rate is not what the model predicts)."""
    fit = model.fit
    level = short_percent(fit.confidence_level)
    title = f"Predicted share of true yes to “{model.outcome.label}” by group"
    groups = model.groups
    drawn = groups if len(groups) <= MAX_MODEL_GROUPS else ()
    entries: list = []
    for group in drawn:
        entries += [_Label(_group_name(group)), _Bar(group, _group_name(group))]
    desc = (
        f"Predicted share of true yes from the logistic model fitted to {count_text(fit.n, 'answer')}, with {level} "
        "confidence intervals. " + "; ".join(_describe(bar.description, bar.item, level) for bar in entries[1::2])
    ) + "."
    aria = f"{title}: {count_text(len(drawn), 'group')} with {level} confidence intervals"
    empty = f"{count_text(len(groups), 'group')}: too many to draw; the table and the downloads list each one."
    legend = _legend(level, ESTIMATE_COLOUR, "predicted share", observed=False)
    return _chart(title, desc, aria, level, _Plot(MARGIN + 4), entries, empty, legend)


def daily_sparkline_svg(daily_counts: list[tuple[str, int]]) -> Markup:
    """A small bar chart of responses per day, with its first and last date and its largest count.

    ``daily_counts`` is :func:`storage.queries.daily_counts`: ``(YYYY-MM-DD,
    count)`` in day order. The bars span the first to the last day, days
    without responses drawn as gaps; the largest day's count is written
    above the bars and the first and last dates under them. The ``<title>``
    says the same in words, and each bar has its own ``<title>``.
    """
    counts = {date.fromisoformat(day): count for day, count in daily_counts}
    total = sum(counts.values())
    days = []
    if counts:
        first, last = min(counts), max(counts)
        days = [first + timedelta(days=i) for i in range((last - first).days + 1)]
    aria = f"{count_text(total, 'response')} over {count_text(len(days), 'day')}"
    if days:
        peak = max(counts.values())
        busiest = min(day for day, count in counts.items() if count == peak)
        span = f"from {days[0].isoformat()} to {days[-1].isoformat()}" if len(days) > 1 else f"on {days[0]}"
        aria += f", {span}; at most {count_text(peak, 'response')} a day ({busiest.isoformat()})"
    bottom = SPARK_BARS + 14
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="sparkline" viewBox="0 0 {SPARK_WIDTH} {SPARK_HEIGHT}" '
        f'role="img" aria-label="{escape(aria)}" font-family="system-ui, sans-serif" font-size="11">',
        f"<title>{escape(aria)}</title>",
        f'<line x1="0" y1="{bottom + 0.5}" x2="{SPARK_WIDTH}" y2="{bottom + 0.5}" '
        f'stroke="{GRID_COLOUR}" stroke-width="1"/>',
    ]
    if days:
        parts.append(_text(0, 10, f"max {peak}/day", fill=OBSERVED_COLOUR, class_="peak"))
        parts.append(_text(0, SPARK_HEIGHT - 1, days[0].isoformat(), fill=OBSERVED_COLOUR, class_="first-day"))
        if len(days) > 1:
            parts.append(
                _text(
                    SPARK_WIDTH,
                    SPARK_HEIGHT - 1,
                    days[-1].isoformat(),
                    fill=OBSERVED_COLOUR,
                    text_anchor="end",
                    class_="last-day",
                )
            )
        step = SPARK_WIDTH / len(days)
        gap = 1.0 if step > 3 else 0.0
        for index, day in enumerate(days):
            count = counts.get(day, 0)
            if not count:
                continue
            height = count / peak * SPARK_BARS
            parts.append(
                f'<rect class="bar" x="{index * step:.2f}" y="{bottom - height:.2f}" '
                f'width="{step - gap:.2f}" height="{height:.2f}" fill="{ESTIMATE_COLOUR}">'
                f"<title>{escape(day.isoformat())}: {count_text(count, 'response')}</title></rect>"
            )
    parts.append("</svg>")
    return Markup("".join(parts))


#: The estimate-over-time chart: its height, and the plot's edges inside it.
TIME_HEIGHT = 190
TIME_LEFT = 44
TIME_TOP = 12
TIME_BOTTOM = 150
BAND_COLOUR = "#c8dcf0"


def timeline_svg(timeline: Timeline) -> Markup:
    """The running estimate of one yes/no question by day, inside its confidence sequence.

    ``timeline`` is :func:`surveys.timeline.question_timeline`. The band is
    the confidence sequence (valid at every day at once), the line the
    running estimate, one point per day with answers; the first and last day
    and the last figures are written on the chart, and the ``<title>`` says
    the same in words.
    """
    level = percent(timeline.confidence_level)
    points = timeline.points
    label = timeline.question.label
    if points:
        last = points[-1]
        span = f"from {points[0].day} to {last.day}" if len(points) > 1 else f"on {last.day}"
        aria = (
            f"Estimate over time of \u201c{label}\u201d, {span}: on {last.day}, with {count_text(last.n, 'answer')}, "
            f"{short_percent(last.estimate)} ({level} confidence sequence "
            f"{range_text(last.sequence_low, last.sequence_high, last.sequence_side)})"
        )
    else:
        aria = f"Estimate over time of \u201c{label}\u201d: no answers yet"
    width = WIDTH - TIME_LEFT - MARGIN
    step = width / max(len(points) - 1, 1)

    def x(index: int) -> float:
        return TIME_LEFT + (index * step if len(points) > 1 else width / 2)

    def y(share: float) -> float:
        return TIME_BOTTOM - share * (TIME_BOTTOM - TIME_TOP)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="timechart" viewBox="0 0 {WIDTH} {TIME_HEIGHT}" '
        f'role="img" aria-label="{escape(aria)}" font-family="system-ui, sans-serif" font-size="{FONT_SIZE}">',
        f"<title>{escape(aria)}</title>",
    ]
    for tick in (0.0, 0.5, 1.0):
        parts.append(
            f'<line x1="{TIME_LEFT}" y1="{y(tick):.1f}" x2="{WIDTH - MARGIN}" y2="{y(tick):.1f}" '
            f'stroke="{GRID_COLOUR}" stroke-width="1"/>'
        )
        parts.append(_text(TIME_LEFT - 4, y(tick) + 4, percent(tick), fill=TEXT_COLOUR, text_anchor="end"))
    if points:
        upper = [f"{x(i):.1f},{y(p.sequence_high):.1f}" for i, p in enumerate(points)]
        lower = [f"{x(i):.1f},{y(p.sequence_low):.1f}" for i, p in reversed(list(enumerate(points)))]
        parts.append(f'<polygon class="sequence" points="{" ".join(upper + lower)}" fill="{BAND_COLOUR}"/>')
        line = " ".join(f"{x(i):.1f},{y(p.estimate):.1f}" for i, p in enumerate(points))
        parts.append(
            f'<polyline class="estimate" points="{line}" fill="none" stroke="{ESTIMATE_COLOUR}" stroke-width="2"/>'
        )
        for i, p in enumerate(points):
            parts.append(
                f'<circle cx="{x(i):.1f}" cy="{y(p.estimate):.1f}" r="2.5" fill="{ESTIMATE_COLOUR}">'
                f"<title>{escape(p.day)}: {short_percent(p.estimate)} "
                f"({range_text(p.sequence_low, p.sequence_high, p.sequence_side)}), n = {p.n}</title></circle>"
            )
        parts.append(_text(TIME_LEFT, TIME_BOTTOM + 16, points[0].day, fill=OBSERVED_COLOUR, class_="first-day"))
        if len(points) > 1:
            parts.append(
                _text(
                    WIDTH - MARGIN,
                    TIME_BOTTOM + 16,
                    last.day,
                    fill=OBSERVED_COLOUR,
                    text_anchor="end",
                    class_="last-day",
                )
            )
        parts.append(
            _text(
                TIME_LEFT,
                TIME_HEIGHT - 6,
                f"now {short_percent(last.estimate)}, sequence "
                f"{range_text(last.sequence_low, last.sequence_high, last.sequence_side)} (n = {last.n})",
                fill=TEXT_COLOUR,
                class_="figures",
            )
        )
    else:
        parts.append(_text(TIME_LEFT, TIME_BOTTOM + 16, "No answers yet.", fill=OBSERVED_COLOUR))
    parts.append("</svg>")
    return Markup("".join(parts))
