"""Pages rendered once and filled in per request: the thank-you page's frame.

A submission's thank-you page is the same for every respondent of a survey
(in one language, at one address prefix) but for the stored answer of each
question, so rendering the whole template per submission (the base layout,
a dozen translated sentences) was the largest cost of a submission after
its database write. :func:`render_frame` renders the template once with a
marker in each answer's place and keeps the text between the markers;
:meth:`Frame.fill` joins those pieces with each request's answers. The
filled page is the very text the template would have rendered
(tests/test_frames.py), so it keeps the fixed length of the thank-you page:
each answer's text is padded to its question's longest
(:func:`web.thanks.padded_labels`).

The markers carry a random nonce drawn for each rendering, so no survey text
can contain one; a template that printed a slot twice, or not at all, is
refused rather than filled wrongly.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from markupsafe import Markup


@dataclass(frozen=True)
class Frame:
    """A rendered page cut at its slots: ``len(pieces) == slots + 1``."""

    pieces: tuple[str, ...]

    @property
    def slots(self) -> int:
        return len(self.pieces) - 1

    def fill(self, values: Sequence[str]) -> str:
        """The page with ``values`` (already escaped HTML, one per slot, in order) in its slots."""
        if len(values) != self.slots:
            raise ValueError(f"the frame has {self.slots} slots, got {len(values)} values")
        parts = [self.pieces[0]]
        for value, piece in zip(values, self.pieces[1:]):
            parts.append(value)
            parts.append(piece)
        return "".join(parts)


def render_frame(render: Callable[[Sequence[Markup]], str], slots: int) -> Frame:
    """Call ``render`` once with ``slots`` markers (``Markup``, so autoescaping keeps them whole) and cut
    its page at them. ``ValueError`` when a marker does not appear exactly once, in order."""
    nonce = secrets.token_hex(16)
    markers = [Markup(f"\x00{nonce}:{i}\x00") for i in range(slots)]
    rest, pieces = render(markers), []
    for slot, marker in enumerate(markers):
        if rest.count(marker) != 1:
            raise ValueError(f"slot {slot} appears {rest.count(marker)} times in the rest of the page, not once")
        piece, rest = rest.split(marker)
        pieces.append(piece)
    pieces.append(rest)
    return Frame(tuple(pieces))
