"""Sharing a survey: its public link, and that link as a QR code drawn on the server (SVG).

The QR code is made by segno (ISO/IEC 18004) at error-correction level M or better (at least
15% of the code can be covered or damaged, for a poster; segno raises the level when the size
allows), with the standard four-module quiet zone, as an inline SVG with the link as its title:
no request leaves the server, and it scales for slides.
"""

from __future__ import annotations

import segno
from flask import url_for
from markupsafe import Markup

from surveys.definition import Survey

#: Pixels per module: a 29-module link (version 3) is 37 * 4 = 148 px square with its quiet zone.
QR_SCALE = 4


def public_link(survey: Survey) -> str:
    """The survey's address as respondents open it, on the host this request came to."""
    return url_for("respond.show", survey_id=survey.id, _external=True)


def qr_svg(link: str) -> Markup:
    """``link`` as a QR code: an inline ``<svg>`` (class ``qr``) titled with the link."""
    code = segno.make(link, error="m", micro=False)
    return Markup(code.svg_inline(scale=QR_SCALE, border=4, title=link, svgclass="qr", lineclass=None))
