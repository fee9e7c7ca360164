"""A numeric question's range: its grid, its bins, and values read and written exactly.

An ``integer`` or ``decimal`` question is asked on a grid: ``[minimum, maximum]`` cut into equal steps of
``step`` (1 for integers). A true answer becomes a grid index ``k`` in ``0 .. steps``
(:mod:`surveys.numeric_protocol` rounds a decimal between two grid points without bias); the designs of
:mod:`analysis.numeric_design` see only indices; the estimates come back in indices and are turned into the
question's units here (``minimum + k * step``). Values are :class:`~fractions.Fraction` throughout, so
``0.1`` steps add up exactly.

The bins (``bins:`` in a survey file: inner cut points) group the answers for the estimated distribution of a
randomized number, and group a plain number's answers for break-downs and the model: bin ``i`` holds the
values in ``[cut_i, cut_(i+1))``, the last one up to and including ``maximum``.

Pure: no Flask, no database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from analysis.numeric_design import MAX_GRID_STEPS

#: How many equal bins a numeric question has when the file names none (fewer when the grid is shorter).
DEFAULT_BINS = 5
#: Most decimals a typed decimal answer may have.
MAX_DECIMALS = 6
#: A number as typed: an optional minus sign, digits, an optional point and up to six decimals.
NUMBER_PATTERN = re.compile(r"-?[0-9]{1,15}(\.[0-9]{1,6})?")


def parse_number(text: object) -> Fraction:
    """A typed number (``"12"``, ``"2.5"``, ``"-0.25"``) as an exact fraction; ValueError naming it otherwise."""
    if not isinstance(text, str) or not NUMBER_PATTERN.fullmatch(text.strip()):
        raise ValueError(f"a number must be digits with at most {MAX_DECIMALS} decimals, got {str(text)[:20]!r}")
    return Fraction(text.strip())


def decimals_of(value: Fraction) -> int:
    """How many decimals ``value`` needs (ValueError if it is no finite decimal or needs more than six)."""
    for decimals in range(MAX_DECIMALS + 1):
        if (value * 10**decimals).denominator == 1:
            return decimals
    raise ValueError(f"{value} needs more than {MAX_DECIMALS} decimals")


def format_value(value: Fraction, decimals: int) -> str:
    """``value`` written with exactly ``decimals`` decimals, rounded half away from zero (``2.50``, ``-3``)."""
    scaled = abs(value) * 10**decimals
    whole = int(scaled + Fraction(1, 2))
    sign = "-" if value < 0 and whole else ""
    text = str(whole).rjust(decimals + 1, "0")
    return sign + (text if not decimals else f"{text[:-decimals]}.{text[-decimals:]}")


@dataclass(frozen=True)
class NumberRange:
    """The grid and bins of a numeric question.

    Attributes
    ----------
    minimum, maximum : Fraction
        The range as declared; ``maximum - minimum`` is a whole number of steps.
    step : Fraction
        The grid's step: 1 for an ``integer`` question.
    cuts : tuple of Fraction
        The bins' inner cut points, increasing, strictly inside the range and on the grid.
    """

    minimum: Fraction
    maximum: Fraction
    step: Fraction
    cuts: tuple[Fraction, ...]

    def __post_init__(self) -> None:
        if self.step <= 0:
            raise ValueError(f"step must be positive, got {self.step}")
        if self.maximum <= self.minimum:
            raise ValueError(f"max must be above min, got min={self.minimum}, max={self.maximum}")
        steps = (self.maximum - self.minimum) / self.step
        if steps.denominator != 1 or not 1 <= steps <= MAX_GRID_STEPS:
            raise ValueError(
                f"max - min must be a whole number of steps, at most {MAX_GRID_STEPS}: "
                f"({self.maximum} - {self.minimum}) / {self.step} = {float(steps):g}"
            )
        if list(self.cuts) != sorted(set(self.cuts)) or any(
            not self.minimum < cut < self.maximum or not self.on_grid(cut) for cut in self.cuts
        ):
            shown = ", ".join(format_value(cut, 6).rstrip("0").rstrip(".") for cut in self.cuts)
            raise ValueError(f"bins must be increasing points on the grid strictly inside the range, got {shown}")

    @property
    def steps(self) -> int:
        """``K``: the number of steps of the grid (its indices are ``0 .. K``)."""
        return int((self.maximum - self.minimum) / self.step)

    @property
    def decimals(self) -> int:
        """Decimals a value of this range is written with: those of the step and the ends."""
        return max(decimals_of(self.step), decimals_of(self.minimum), decimals_of(self.maximum))

    def on_grid(self, value: Fraction) -> bool:
        return ((value - self.minimum) / self.step).denominator == 1

    def value_of(self, index: int | float | Fraction) -> Fraction | float:
        """The value of grid position ``index`` (a float index, such as an estimate, gives a float)."""
        if isinstance(index, float):
            return float(self.minimum) + index * float(self.step)
        return self.minimum + Fraction(index) * self.step

    def index_of(self, value: Fraction) -> int:
        """The grid index of a value on the grid; ValueError naming it otherwise."""
        if not self.minimum <= value <= self.maximum or not self.on_grid(value):
            raise ValueError(
                f"{format_value(value, self.decimals)} is not one of the values from {self.text(self.minimum)} "
                f"to {self.text(self.maximum)} in steps of {self.text(self.step)}"
            )
        return int((value - self.minimum) / self.step)

    def text(self, value: Fraction | float) -> str:
        """A value in this range's decimals."""
        return format_value(Fraction(value), self.decimals)

    def scale(self, width: float) -> float:
        """A width in grid steps (a standard error, a margin) in the question's units."""
        return width * float(self.step)

    def index_cuts(self) -> tuple[int, ...]:
        """The cuts as grid indices."""
        return tuple(self.index_of(cut) for cut in self.cuts)

    def bin_labels(self) -> tuple[str, ...]:
        """``"0 to under 1"``, ..., ``"10 to 30"``: each bin as shown."""
        edges = (self.minimum, *self.cuts)
        ends = (*self.cuts, None)
        return tuple(
            f"{self.text(low)} to under {self.text(high)}"
            if high is not None
            else f"{self.text(low)} to {self.text(self.maximum)}"
            for low, high in zip(edges, ends)
        )

    def bin_of_index(self, index: int) -> int:
        """Which bin grid index ``index`` falls in."""
        return sum(1 for cut in self.index_cuts() if index >= cut)

    def bin_key(self, index: int) -> str:
        """The kept answer of a plain number in bin of ``index``: ``"b00"``, ``"b01"``..."""
        return f"b{self.bin_of_index(index):02d}"

    def to_dict(self) -> dict:
        """The range as written in a design key (exact decimal text)."""
        return {
            "min": self.text(self.minimum),
            "max": self.text(self.maximum),
            "step": self.text(self.step),
            "bins": [self.text(cut) for cut in self.cuts],
        }


def default_cuts(minimum: Fraction, maximum: Fraction, step: Fraction) -> tuple[Fraction, ...]:
    """:data:`DEFAULT_BINS` bins as equal as the grid allows (fewer on a short grid)."""
    steps = int((maximum - minimum) / step)
    count = min(DEFAULT_BINS, steps)
    cuts = sorted({minimum + step * ((steps * i) // count) for i in range(1, count)})
    return tuple(cut for cut in cuts if minimum < cut < maximum)
