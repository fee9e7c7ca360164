"""web/share.py and the dashboard's share box: the public link, its copy button and its QR code."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree

import pytest
import segno

from web import share

pytestmark = pytest.mark.both_backends


def modules_drawn(svg: str, scale: int) -> set[tuple[int, int]]:
    """The dark modules an SVG path of horizontal runs draws: ``M x y.5 h n`` then relative ``m dx dy h n``."""
    path = re.search(r' d="([^"]+)"', svg).group(1)
    dark, x, y = set(), 0.0, 0.0
    for command, a, b in re.findall(r"([Mmh])(-?[\d.]+)(?: (-?[\d.]+))?", path.replace("h", " h").replace("m", " m")):
        if command == "M":
            x, y = float(a), float(b)
        elif command == "m":
            x, y = x + float(a), y + float(b)
        else:
            dark.update((int(x) + i, int(y)) for i in range(int(float(a))))
            x += float(a)
    return dark


def test_the_qr_code_draws_the_link_at_level_m_or_better_with_a_quiet_zone():
    link = "https://surveys.example.org/s/exam-integrity"
    svg = str(share.qr_svg(link))
    root = ElementTree.fromstring(svg)
    assert root.findtext("title") == link and root.get("class") == "qr"
    reference = segno.make(link, error="m", micro=False)
    assert reference.error in ("M", "Q", "H")  # at least M: segno raises it when the same size allows
    size = reference.symbol_size(scale=1, border=4)[0]
    assert root.get("width") == str(size * share.QR_SCALE)
    expected = {(col + 4, row + 4) for row, line in enumerate(reference.matrix) for col, v in enumerate(line) if v}
    assert modules_drawn(svg, share.QR_SCALE) == expected  # exactly the reference encoding of the link


def test_the_dashboard_shares_each_open_survey_with_link_copy_button_and_qr(client, auth):
    auth.login()
    html = client.get("/admin/").get_data(as_text=True)
    assert 'value="http://localhost/s/quiz"' in html and 'data-copy="link-quiz" hidden' in html
    assert "<title>http://localhost/s/quiz</title>" in html
    assert 'src="/static/admin.js"' in html
    assert 'href="/admin/surveys/quiz/preview"' in html


def test_an_invitation_only_survey_gets_no_qr_code(client, auth, app, surveys_dir):
    text = (surveys_dir / "quiz.yaml").read_text()
    (surveys_dir / "quiz.yaml").write_text(text.replace("version: 1\n", "version: 1\ninvitation_only: true\n"))
    auth.login()
    html = client.get("/admin/").get_data(as_text=True)
    assert "Invitation only: this link opens only with a code" in html
    assert "<title>http://localhost/s/quiz</title>" not in html
