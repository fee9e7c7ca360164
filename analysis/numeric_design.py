"""Designs for numbers and for check-all-that-apply answers: what one answer's device sends, and its exact epsilon.

A number is asked on a **grid**: the declared range ``[min, max]`` cut into ``steps`` equal steps (``step``
1 for an integer question), so a true answer is a grid index ``k`` in ``0 .. steps``. The designs below see
only that index; :mod:`surveys` turns values into indices and back. Three designs:

* :class:`DiscreteLaplaceDesign`: the Laplace mechanism in its exact discrete form (the two-sided geometric
  distribution, Ghosh, Roughgarden and Sundararajan 2012; sampled exactly with integer arithmetic as in
  Canonne, Kamath and Steinke 2020, Algorithm 2). The device sends ``Y = k + Z`` with
  ``P(Z = z) = (1 - r) / (1 + r) * r^|z|``, ``r = exp(-1 / scale)``, clamped to
  ``[-clamp, steps + clamp]`` so that it has a fixed width on the wire.
* :class:`BoundedDesign`: one bit (Duchi, Jordan and Wainwright 2018, section 4.2.3, in its one-dimensional
  form): ``P(send 1 | k) = (low * steps + (high - low) * k) / ((high + low) * steps)``, so the ratio of any
  two answers' probabilities of either bit is at most ``high / low``.
* :class:`UnaryDesign`: a check-all-that-apply answer as one randomized bit per option (unary encoding, Wang,
  Blocki, Li and Jha 2017): an option ticked is sent as 1 with ``p``, one not ticked with ``q``.

Every epsilon is computed for exactly what is sent, from the exact fractions the samplers draw with
(:mod:`surveys.numeric_protocol`, ``static/randomize.js``), never from the target a researcher asked for:
the constructors round the parameters towards more noise, so the epsilon shown is at most the one asked.

Pure: numbers in, frozen designs out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

#: The most steps a numeric question's grid may have (keeps the kept sums of squares within 64-bit integers at
#: 10,000,000 answers, and the deconvolution's matrices small).
MAX_GRID_STEPS = 1000
#: The smallest epsilon a randomized number or check-all-that-apply question may have.
MIN_NUMERIC_EPSILON = 0.1
#: The largest.
MAX_NUMERIC_EPSILON = 10.0
#: The Laplace output is clamped this many scales beyond the range: the chance of a clamp is below
#: ``exp(-40) < 5e-18``, and clamping is post-processing (the epsilon does not grow; see
#: :attr:`DiscreteLaplaceDesign.epsilon`).
TAIL_SCALES = 40
#: Most buckets the Laplace outputs are kept in for the deconvolution (two of them the open tails).
LAPLACE_BUCKETS = 64
#: Denominator the parameters are rounded to.
PARAMETER_DENOMINATOR = 1_000_000
#: The most options a check-all-that-apply question may have (its kept patterns are ``2 ** options``).
MAX_UNARY_OPTIONS = 10

LAPLACE = "laplace"
BOUNDED = "bounded"
NUMERIC_MECHANISMS = (LAPLACE, BOUNDED)
OPTIMIZED_UNARY = "optimized_unary"
SYMMETRIC_UNARY = "symmetric_unary"
UNARY_ENCODINGS = (OPTIMIZED_UNARY, SYMMETRIC_UNARY)


def _check_steps(steps: object) -> int:
    if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= MAX_GRID_STEPS:
        raise ValueError(f"steps must be an integer in [1, {MAX_GRID_STEPS}], got {steps!r}")
    return steps


def _check_epsilon(epsilon: object) -> float:
    if (
        isinstance(epsilon, bool)
        or not isinstance(epsilon, int | float)
        or not MIN_NUMERIC_EPSILON <= epsilon <= MAX_NUMERIC_EPSILON
    ):
        raise ValueError(f"epsilon must be a number in [{MIN_NUMERIC_EPSILON}, {MAX_NUMERIC_EPSILON}], got {epsilon!r}")
    return float(epsilon)


def _fraction(value: object, name: str) -> Fraction:
    try:
        result = Fraction(value) if not isinstance(value, float) else Fraction(value).limit_denominator()
    except (ValueError, TypeError, ZeroDivisionError):
        raise ValueError(f"{name} must be a fraction such as 1/4, got {value!r}") from None
    return result


@dataclass(frozen=True)
class DiscreteLaplaceDesign:
    """The discrete Laplace mechanism on a grid of ``steps`` steps, its output clamped.

    Attributes
    ----------
    steps : int
        ``K``: the true answer is a grid index in ``0 .. K``; the sensitivity is ``K``.
    scale : Fraction
        ``b``: ``P(Z = z)`` is proportional to ``exp(-|z| / b)``.
    """

    steps: int
    scale: Fraction
    kind = "discrete_laplace"

    def __post_init__(self) -> None:
        _check_steps(self.steps)
        scale = _fraction(self.scale, "scale")
        if scale <= 0:
            raise ValueError(f"scale must be positive, got {self.scale!r}")
        object.__setattr__(self, "scale", scale)

    @property
    def ratio(self) -> float:
        """``r = exp(-1 / b)``: ``P(Z = z + 1) / P(Z = z)`` for ``z >= 0``."""
        return math.exp(-1 / self.scale)

    @property
    def clamp(self) -> int:
        """``C``: outputs are clamped to ``[-C, K + C]``, ``C = ceil(TAIL_SCALES * b)``."""
        return math.ceil(TAIL_SCALES * self.scale)

    @property
    def output_range(self) -> tuple[int, int]:
        return -self.clamp, self.steps + self.clamp

    @property
    def epsilon(self) -> float:
        """``K / b``, exactly, for the clamped output.

        For two answers ``k`` and ``k'`` and an output ``y`` inside the clamp, the ratio of probabilities is
        ``exp((|y - k'| - |y - k|) / b) <= exp(|k - k'| / b) <= exp(K / b)``, reached at ``y <= 0`` for
        ``k = 0, k' = K``. At a clamp end ``y = -C`` the probability is the tail ``P(Z <= -C - k)``
        ``= r^(C + k) / (1 + r)``, whose ratio is ``r^(k - k')``: the same bound, reached too. So the clamp
        neither lowers nor raises it (it is post-processing: Dwork and Roth 2014, Proposition 2.1).
        """
        return float(Fraction(self.steps) / self.scale)

    @property
    def noise_variance(self) -> float:
        """``2 r / (1 - r)^2``: the variance of ``Z`` in grid steps squared (the clamp changes it by less than
        ``exp(-TAIL_SCALES)`` relatively)."""
        r = self.ratio
        return 2 * r / (1 - r) ** 2

    @property
    def worst_variance(self) -> float:
        """The largest variance of one sent answer over any distribution of true answers: the noise's plus
        ``K^2 / 4`` (the most a variable on ``[0, K]`` varies)."""
        return self.noise_variance + self.steps**2 / 4

    @property
    def typical_variance(self) -> float:
        """One sent answer's variance when the true answers are spread evenly over the grid:
        ``K (K + 2) / 12`` (the discrete uniform's) plus the noise's."""
        return self.steps * (self.steps + 2) / 12 + self.noise_variance

    @property
    def wire_width(self) -> int:
        """Characters of one sent answer: room for a minus sign and the digits of ``K + C``."""
        return 1 + len(str(self.steps + self.clamp))

    def wire(self, output: int) -> str:
        """``output`` as sent, zero-padded to :attr:`wire_width` characters: ``00000017``, ``-0000003``.

        No ``+``: a form encodes it as three bytes (``%2B``) and a minus as one, so the request's length would
        tell the output's sign; a zero and a minus are one byte each in every encoding."""
        low, high = self.output_range
        if isinstance(output, bool) or not isinstance(output, int) or not low <= output <= high:
            raise ValueError(f"a discrete Laplace output must be an integer in [{low}, {high}], got {output!r}")
        return str(output).zfill(self.wire_width)

    def parse_wire(self, text: str) -> int:
        """The output a wire value carries; ValueError unless it is exactly :attr:`wire_width` characters, an
        optional minus and digits, within the clamp."""
        if (
            not isinstance(text, str)
            or len(text) != self.wire_width
            or not text.isascii()
            or not (text[1:] if text.startswith("-") else text).isdigit()
        ):
            raise ValueError(
                f"a noisy number must be {self.wire_width} characters, digits after an optional minus, "
                f"got {str(text)[:20]!r}"
            )
        value = int(text)
        low, high = self.output_range
        if not low <= value <= high:
            raise ValueError(f"a noisy number must be in [{low}, {high}], got {value}")
        return value

    def bucket_edges(self) -> tuple[int, ...]:
        """The lower edges of the inner buckets the outputs are kept in (for the deconvolution): equal widths
        covering ``[-B, K + B]``, ``B = ceil(3 b)``; bucket 0 holds every output below ``-B`` and the last
        every output above the last inner bucket."""
        reach = math.ceil(3 * self.scale)
        low, span = -reach, self.steps + 2 * reach + 1
        width = max(1, math.ceil(span / (LAPLACE_BUCKETS - 2)))
        return tuple(range(low, low + span, width))

    def bucket(self, output: int) -> str:
        """The kept bucket of an output: ``"b00"`` (below the first edge) .. ``"bNN"``."""
        edges = self.bucket_edges()
        if output < edges[0]:
            return "b00"
        width = edges[1] - edges[0] if len(edges) > 1 else 1
        index = min((output - edges[0]) // width, len(edges))  # len(edges): above the last inner bucket
        return f"b{index + 1:02d}"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "steps": self.steps, "scale": str(self.scale)}

    def label(self) -> str:
        return f"discrete Laplace noise, scale {float(self.scale):.4g} steps"


@dataclass(frozen=True)
class BoundedDesign:
    """One bit per answer (Duchi et al. 2018): ``P(1 | k) = (low K + (high - low) k) / ((high + low) K)``.

    Attributes
    ----------
    steps : int
        ``K``.
    high, low : int
        ``high / low`` is ``e^epsilon``: the largest ratio of two answers' chances of sending either bit.
    """

    steps: int
    high: int
    low: int
    kind = "bounded"

    def __post_init__(self) -> None:
        _check_steps(self.steps)
        for name in ("high", "low"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if self.high <= self.low:
            raise ValueError(f"high must be above low, got high={self.high}, low={self.low}")

    def one_probability(self, index: int) -> Fraction:
        """``P(send 1 | true grid index)``, exactly."""
        return Fraction(self.low * self.steps + (self.high - self.low) * index, (self.high + self.low) * self.steps)

    @property
    def epsilon(self) -> float:
        """``ln(high / low)``: ``P(1 | K) / P(1 | 0) = P(0 | 0) / P(0 | K) = high / low``, and every other pair
        of answers is nearer."""
        return math.log(self.high / self.low)

    @property
    def spread(self) -> float:
        """``(high + low) / (high - low)``: one debiased answer is ``K ((high + low) bit - low) / (high - low)``,
        whose variance is ``K^2 spread^2`` times the bit's."""
        return (self.high + self.low) / (self.high - self.low)

    @property
    def worst_variance(self) -> float:
        """``K^2 spread^2 / 4``: the largest variance of one debiased answer (the bit's variance is at most 1/4)."""
        return self.steps**2 * self.spread**2 / 4

    @property
    def typical_variance(self) -> float:
        """The same when the true answers are spread evenly over the grid (the bit is then 1 with chance 1/2):
        ``K^2 spread^2 / 4``."""
        return self.worst_variance

    wire_width = 1

    def wire(self, output: int) -> str:
        if output not in (0, 1):
            raise ValueError(f"a bounded-mechanism output must be 0 or 1, got {output!r}")
        return str(output)

    def parse_wire(self, text: str) -> int:
        if text not in ("0", "1"):
            raise ValueError(f"a noisy bit must be 0 or 1, got {str(text)[:20]!r}")
        return int(text)

    def bucket(self, output: int) -> str:
        return f"b{output:02d}"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "steps": self.steps, "high": self.high, "low": self.low}

    def label(self) -> str:
        return f"one bit, ratio {self.high}/{self.low}"


@dataclass(frozen=True)
class UnaryDesign:
    """Check-all-that-apply: each of ``options`` bits sent as 1 with ``p`` when ticked, ``q`` when not."""

    options: int
    p: Fraction
    q: Fraction
    kind = "unary"

    def __post_init__(self) -> None:
        if (
            isinstance(self.options, bool)
            or not isinstance(self.options, int)
            or not 1 <= self.options <= MAX_UNARY_OPTIONS
        ):
            raise ValueError(f"options must be an integer in [1, {MAX_UNARY_OPTIONS}], got {self.options!r}")
        p, q = _fraction(self.p, "p"), _fraction(self.q, "q")
        if not 0 < q < p < 1:
            raise ValueError(f"a unary design needs 0 < q < p < 1, got p={self.p!r}, q={self.q!r}")
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "q", q)

    @property
    def bit_epsilon(self) -> float:
        """One option's privacy loss: ``max(ln(p / q), ln((1 - q) / (1 - p)))``."""
        return max(math.log(self.p / self.q), math.log((1 - self.q) / (1 - self.p)))

    @property
    def epsilon(self) -> float:
        """``options * bit_epsilon``: any set of ticks may change into any other, every bit at once, and the
        bits are drawn independently, so the losses add (the one-hot bound ``ln(p (1 - q) / (q (1 - p)))`` of
        Wang et al. holds only when exactly one option is ticked)."""
        return self.options * self.bit_epsilon

    def share_variance(self, share: float) -> float:
        """``(pi p (1 - p) + (1 - pi) q (1 - q)) / (p - q)^2``: one answer's variance of the debiased share."""
        p, q = float(self.p), float(self.q)
        return (share * p * (1 - p) + (1 - share) * q * (1 - q)) / (p - q) ** 2

    @property
    def worst_variance(self) -> float:
        return max(self.share_variance(0.0), self.share_variance(1.0))

    @property
    def wire_width(self) -> int:
        return self.options

    def wire(self, bits: tuple[int, ...]) -> str:
        if len(bits) != self.options or any(b not in (0, 1) for b in bits):
            raise ValueError(f"a unary answer must be {self.options} bits, got {bits!r}")
        return "".join(str(b) for b in bits)

    def parse_wire(self, text: str) -> tuple[int, ...]:
        if not isinstance(text, str) or len(text) != self.options or set(text) - {"0", "1"}:
            raise ValueError(
                f"a check-all-that-apply answer must be {self.options} characters 0 or 1, got {str(text)[:20]!r}"
            )
        return tuple(int(c) for c in text)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "options": self.options, "p": str(self.p), "q": str(self.q)}

    def label(self) -> str:
        return f"each option sent as 1 with {self.p} if ticked, {self.q} if not"


def _at_least(value: float) -> Fraction:
    return Fraction(math.ceil(value * PARAMETER_DENOMINATOR), PARAMETER_DENOMINATOR)


def _at_most(value: float) -> Fraction:
    return Fraction(math.floor(value * PARAMETER_DENOMINATOR), PARAMETER_DENOMINATOR)


def laplace_for_epsilon(steps: int, epsilon: float) -> DiscreteLaplaceDesign:
    """The discrete Laplace design of epsilon at most ``epsilon``: ``b = K / epsilon`` rounded up to a
    millionth."""
    steps, epsilon = _check_steps(steps), _check_epsilon(epsilon)
    return DiscreteLaplaceDesign(steps, _at_least(steps / epsilon))


def bounded_for_epsilon(steps: int, epsilon: float) -> BoundedDesign:
    """The one-bit design of epsilon at most ``epsilon``: ``high / low = floor(e^epsilon 10^6) / 10^6``."""
    steps, epsilon = _check_steps(steps), _check_epsilon(epsilon)
    ratio = _at_most(math.exp(epsilon))
    return BoundedDesign(steps, ratio.numerator, ratio.denominator)


def numeric_design(steps: int, epsilon: float, mechanism: str | None = None) -> DiscreteLaplaceDesign | BoundedDesign:
    """The design of a randomized number: ``mechanism`` (``"laplace"`` or ``"bounded"``), or, when ``None``,
    whichever has the smaller variance at ``epsilon`` for true answers spread evenly over the range
    (``typical_variance``: the one-bit design below about epsilon 3, the Laplace above)."""
    if mechanism not in (None, *NUMERIC_MECHANISMS):
        raise ValueError(f"mechanism must be one of {NUMERIC_MECHANISMS}, got {mechanism!r}")
    laplace, bounded = laplace_for_epsilon(steps, epsilon), bounded_for_epsilon(steps, epsilon)
    if mechanism is None:
        return laplace if laplace.typical_variance < bounded.typical_variance else bounded
    return laplace if mechanism == LAPLACE else bounded


def unary_for_epsilon(options: int, epsilon: float, encoding: str | None = None) -> UnaryDesign:
    """The unary design whose whole-question epsilon is at most ``epsilon``: each bit gets ``epsilon / m``.

    ``"optimized_unary"``: Wang et al.'s ``p = 1/2`` with ``q = e^(-epsilon/m) / 2`` (then ``p / q`` is
    ``e^(epsilon/m)`` and ``(1 - q) / (1 - p) = 2 - e^(-epsilon/m)`` is smaller); ``"symmetric_unary"``:
    ``p = e^(epsilon/m) / (1 + e^(epsilon/m))``, ``q = 1 - p`` (Warner's design on every bit). ``None``:
    whichever has the smaller :attr:`UnaryDesign.worst_variance`.
    """
    if encoding not in (None, *UNARY_ENCODINGS):
        raise ValueError(f"encoding must be one of {UNARY_ENCODINGS}, got {encoding!r}")
    epsilon = _check_epsilon(epsilon)
    if isinstance(options, bool) or not isinstance(options, int) or not 1 <= options <= MAX_UNARY_OPTIONS:
        raise ValueError(f"options must be an integer in [1, {MAX_UNARY_OPTIONS}], got {options!r}")
    per_bit = epsilon / options
    optimized = UnaryDesign(options, Fraction(1, 2), _at_least(math.exp(-per_bit) / 2))
    p = _at_most(math.exp(per_bit) / (1 + math.exp(per_bit)))
    symmetric = UnaryDesign(options, p, 1 - p) if p > Fraction(1, 2) else optimized
    if encoding is None:
        return optimized if optimized.worst_variance <= symmetric.worst_variance else symmetric
    return optimized if encoding == OPTIMIZED_UNARY else symmetric


def numeric_design_from_dict(record: dict) -> DiscreteLaplaceDesign | BoundedDesign | UnaryDesign:
    """Rebuild a design from its :meth:`to_dict` record (as stored in a design key); ValueError if unreadable."""
    kind = record.get("kind") if isinstance(record, dict) else None
    try:
        if kind == DiscreteLaplaceDesign.kind:
            return DiscreteLaplaceDesign(int(record["steps"]), Fraction(record["scale"]))
        if kind == BoundedDesign.kind:
            return BoundedDesign(int(record["steps"]), int(record["high"]), int(record["low"]))
        if kind == UnaryDesign.kind:
            return UnaryDesign(int(record["options"]), Fraction(record["p"]), Fraction(record["q"]))
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as error:
        raise ValueError(f"unreadable design record {record!r}: {error}") from None
    raise ValueError(f"not a numeric or unary design record: {record!r}")


NUMERIC_DESIGN_KINDS = (DiscreteLaplaceDesign.kind, BoundedDesign.kind, UnaryDesign.kind)
