"""A release's figures as inline SVG charts, drawn from what was published (never from the tallies).

Each figure whose rows are shares (estimates, shares of plain answers,
break-downs) is drawn as :mod:`web.charts` draws estimates: a 0-100% axis with
gridlines, each row's published value as a dot on its published interval,
its label wrapped above, its figures at the right; the same colours, font and
width (:data:`web.charts.WIDTH` units, readable on a 375-pixel phone). A figure
of means or the most common answer has no chart (its table says it all).
Everything is escaped; no script, no inline style (the Content-Security-Policy).
"""

from __future__ import annotations

from flask_babel import gettext, ngettext
from markupsafe import Markup, escape

from surveys.releases import PublishedFigure, PublishedRow
from surveys.wording import percent
from web.charts import (
    ESTIMATE_COLOUR,
    FONT_SIZE,
    GRID_COLOUR,
    LABEL_CHARS,
    LINE,
    MARGIN,
    OBSERVED_COLOUR,
    PLOT_RIGHT,
    TEXT_COLOUR,
    TICKS,
    WIDTH,
    wrap,
)
from web.language import release_text

#: The figures whose rows are shares of 0 to 100%.
SHARE_FIGURES = ("estimate", "counts", "plain_numbers", "breakdown")
BAR = 20
GAP = 6


def _share(text: str) -> float | None:
    """A published percentage (``"35.2%"``) as a share; None for anything else (a dash, a mean)."""
    if not text.endswith("%"):
        return None
    try:
        return float(text[:-1]) / 100
    except ValueError:
        return None


def _x(share: float) -> float:
    return MARGIN + 4 + share * (PLOT_RIGHT - MARGIN - 4)


def _t(x: float, y: float, content: str, **attributes) -> str:
    extra = "".join(f' {name.rstrip("_").replace("_", "-")}="{escape(v)}"' for name, v in attributes.items())
    return f'<text x="{x:.1f}" y="{y:.1f}"{extra}>{escape(content)}</text>'


def _row_parts(row: PublishedRow, y: float, empty: str) -> tuple[list[str], float]:
    parts = []
    for line in wrap(row.label, LABEL_CHARS):
        y += LINE
        parts.append(_t(MARGIN, y - 4, line, fill=TEXT_COLOUR, class_="label"))
    middle = y + BAR / 2
    low, high = _share(row.low), _share(row.high)
    parts.append(f'<g class="row"><title>{escape(_describe(row, empty))}</title>')
    if row.number is None or low is None or high is None:
        none = gettext("no estimate: %(why)s", why=empty)
        parts.append(_t(MARGIN + 4, middle + 4, none, fill=OBSERVED_COLOUR, class_="empty"))
    else:
        line = f'stroke="{ESTIMATE_COLOUR}" stroke-width="2"'
        x1, x2 = _x(low), _x(high)
        parts.append(f'<line class="ci" x1="{x1:.1f}" y1="{middle:.1f}" x2="{x2:.1f}" y2="{middle:.1f}" {line}/>')
        for cap in (x1, x2):
            parts.append(f'<line x1="{cap:.1f}" y1="{middle - 5:.1f}" x2="{cap:.1f}" y2="{middle + 5:.1f}" {line}/>')
        parts.append(f'<circle cx="{_x(row.number):.1f}" cy="{middle:.1f}" r="5" fill="{ESTIMATE_COLOUR}"/>')
        figures = f"{percent(row.number)} ({percent(low).removesuffix('%')}–{percent(high)})"
        parts.append(_t(WIDTH - MARGIN, middle + 4, figures, fill=TEXT_COLOUR, text_anchor="end", class_="figures"))
    parts.append("</g>")
    return parts, y + BAR + GAP


def _describe(row: PublishedRow, empty: str) -> str:
    if row.number is None or _share(row.low) is None:
        return gettext("%(label)s: no estimate (%(why)s)", label=row.label, why=empty)
    return gettext(
        "%(label)s: %(value)s, interval %(low)s to %(high)s",
        label=row.label,
        value=row.value.split(" (")[0],
        low=row.low,
        high=row.high,
    )


def figure_chart_svg(figure: PublishedFigure) -> Markup | None:
    """The chart of one published figure of shares, or None for a figure that is not drawn."""
    if figure.key.split(":", 1)[0] not in SHARE_FIGURES or not figure.rows:
        return None
    if not any(_share(row.low) is not None for row in figure.rows):
        return None  # a randomized number's estimate rows are means, not shares
    empty = gettext("no answers yet") if figure.key.startswith("estimate:") else gettext("its noisy count is 0")
    title = release_text(figure.title_words, figure.title)
    top = 40
    body, y = [], top
    for row in figure.rows:
        drawn, y = _row_parts(row, y, empty)
        body.extend(drawn)
    height = y + 4
    described = "; ".join(_describe(row, empty) for row in figure.rows)
    desc = gettext(
        "Published values with their intervals (noise and sampling error included): %(rows)s", rows=described
    )
    label = ngettext(
        "%(figure)s: %(num)s published value with its interval",
        "%(figure)s: %(num)s published values with intervals",
        len(figure.rows),
        figure=title,
    )
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {WIDTH} {height:.0f}" width="100%" '
        f'role="img" aria-label="{escape(label)}" '
        f'font-family="system-ui, sans-serif" font-size="{FONT_SIZE}">',
        f"<title>{escape(title)}</title>",
        f"<desc>{escape(desc)}.</desc>",
    ]
    for tick in TICKS:
        x = _x(tick)
        parts.append(
            f'<line class="grid" x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{y:.1f}" '
            f'stroke="{GRID_COLOUR}" stroke-width="1"/>'
        )
        parts.append(_t(x, top - 10, percent(tick), fill=OBSERVED_COLOUR, text_anchor="middle"))
    parts.extend(body)
    parts.append("</svg>")
    return Markup("".join(parts))
