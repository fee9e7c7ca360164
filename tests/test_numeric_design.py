"""Tests of analysis/numeric_design.py: what a number's or a check-all-that-apply answer's device sends (the wire
values, exact widths), the design records kept in a design key, and which mechanism a number gets.

The designs' epsilons and distributions are tested with their estimators (tests/test_numeric.py,
tests/test_unary.py) and samplers (tests/test_numeric_protocol.py)."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from analysis.numeric_design import (
    BoundedDesign,
    DiscreteLaplaceDesign,
    UnaryDesign,
    bounded_for_epsilon,
    laplace_for_epsilon,
    numeric_design,
    numeric_design_from_dict,
    unary_for_epsilon,
)

#: The ln 3 Laplace design of a 0..30 question: scale 27.307177, clamp 1093, outputs -1093 .. 1123.
LAPLACE = DiscreteLaplaceDesign(30, Fraction(27307177, 1000000))
BOUNDED = BoundedDesign(30, 3, 1)
UNARY = UnaryDesign(3, Fraction(1, 2), Fraction(1, 6))


def test_a_laplace_output_is_sent_zero_padded_to_one_width_whatever_its_sign():
    """A minus and a zero are one byte each in a form body, so every output is five characters here."""
    assert LAPLACE.output_range == (-1093, 1123) and LAPLACE.wire_width == 5
    sent = {output: LAPLACE.wire(output) for output in (-1093, -3, 0, 17, 1123)}
    assert sent == {-1093: "-1093", -3: "-0003", 0: "00000", 17: "00017", 1123: "01123"}
    assert {LAPLACE.parse_wire(text) for text in sent.values()} == set(sent)


@pytest.mark.parametrize("output", [-1094, 1124, True, 2.0, "17"])
def test_a_laplace_output_outside_the_clamp_is_not_sent(output):
    with pytest.raises(ValueError, match=re.escape(f"[-1093, 1123], got {output!r}")):
        LAPLACE.wire(output)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0017", "must be 5 characters"),
        ("000017", "must be 5 characters"),
        ("+0017", "must be 5 characters"),
        ("00\u0661\u06617", "must be 5 characters"),
        ("0-017", "must be 5 characters"),
        ("-----", "must be 5 characters"),
        ("-a017", "must be 5 characters"),
        ("-1094", r"must be in \[-1093, 1123\], got -1094"),
        ("01124", r"must be in \[-1093, 1123\], got 1124"),
    ],
)
def test_a_laplace_wire_value_of_another_width_form_or_range_is_refused(text, message):
    with pytest.raises(ValueError, match=message):
        LAPLACE.parse_wire(text)


def test_a_bounded_output_is_one_character_and_a_unary_answer_one_per_option():
    assert BOUNDED.wire_width == 1 and [BOUNDED.wire(bit) for bit in (0, 1)] == ["0", "1"]
    assert [BOUNDED.parse_wire(text) for text in ("0", "1")] == [0, 1]
    assert UNARY.wire_width == 3 and UNARY.wire((1, 0, 1)) == "101" and UNARY.parse_wire("101") == (1, 0, 1)
    assert UNARY.parse_wire("000") == (0, 0, 0)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: BOUNDED.wire(2), "must be 0 or 1, got 2"),
        (lambda: BOUNDED.parse_wire("2"), "must be 0 or 1, got '2'"),
        (lambda: BOUNDED.parse_wire("01"), "must be 0 or 1, got '01'"),
        (lambda: UNARY.wire((1, 0)), r"must be 3 bits, got \(1, 0\)"),
        (lambda: UNARY.wire((1, 0, 2)), r"must be 3 bits, got \(1, 0, 2\)"),
        (lambda: UNARY.parse_wire("10"), "must be 3 characters 0 or 1, got '10'"),
        (lambda: UNARY.parse_wire("1010"), "must be 3 characters 0 or 1, got '1010'"),
        (lambda: UNARY.parse_wire("102"), "must be 3 characters 0 or 1, got '102'"),
        (lambda: UNARY.parse_wire(None), "must be 3 characters 0 or 1, got 'None'"),
    ],
)
def test_a_bit_or_a_set_of_ticks_of_another_form_is_refused_naming_it(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("design", [LAPLACE, BOUNDED, UNARY], ids=["laplace", "bounded", "unary"])
def test_a_refused_wire_value_is_quoted_to_its_first_20_characters(design):
    with pytest.raises(ValueError, match=f"got {re.escape(repr('7' * 20))}$"):
        design.parse_wire("7" * 30)


@pytest.mark.parametrize("design", [LAPLACE, BOUNDED, UNARY], ids=["laplace", "bounded", "unary"])
@pytest.mark.parametrize("value", [None, 17, b"00017"], ids=["none", "int", "bytes"])
def test_a_wire_value_that_is_not_text_is_refused_with_a_value_error(design, value):
    """What a form or a stored row hands over is read as text; anything else is a ValueError naming it, never a
    TypeError from building the message."""
    with pytest.raises(ValueError, match=re.escape(repr(str(value)[:20]))):
        design.parse_wire(value)


@pytest.mark.parametrize(
    ("scale", "edges"),
    [(Fraction(16, 3), tuple(range(-16, 47, 2))), (Fraction(76, 5), tuple(range(-46, 77, 2)))],
    ids=["span 63", "span 123"],
)
def test_the_laplace_outputs_are_kept_in_at_most_62_inner_buckets_of_one_width(scale, edges):
    """Spans of 63 and 123 outputs (K + 2 ceil(3 b) + 1 for K = 30) need buckets of 2 to fit in 62, the open
    tails aside."""
    design = DiscreteLaplaceDesign(30, scale)
    assert design.bucket_edges() == edges
    first, last = edges[0], edges[-1]
    assert [design.bucket(y) for y in (first - 1, first, first + 1, first + 2, last, last + 1, last + 2)] == [
        "b00",
        "b01",
        "b01",
        "b02",
        f"b{len(edges):02d}",
        f"b{len(edges):02d}",
        f"b{len(edges) + 1:02d}",
    ]


@pytest.mark.parametrize(
    ("scale", "message"), [("x", "scale must be a fraction such as 1/4, got 'x'"), (0, "scale must be positive, got 0")]
)
def test_a_laplace_scale_that_is_not_a_positive_fraction_is_refused_naming_it(scale, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        DiscreteLaplaceDesign(30, scale)


def test_each_design_is_kept_as_a_record_that_rebuilds_it_and_is_named_in_words():
    records = {
        LAPLACE: {"kind": "discrete_laplace", "steps": 30, "scale": "27307177/1000000"},
        BOUNDED: {"kind": "bounded", "steps": 30, "high": 3, "low": 1},
        UNARY: {"kind": "unary", "options": 3, "p": "1/2", "q": "1/6"},
    }
    for design, record in records.items():
        assert design.to_dict() == record
        assert numeric_design_from_dict(record) == design
    assert [design.label() for design in records] == [
        "discrete Laplace noise, scale 27.31 steps",
        "one bit, ratio 3/1",
        "each option sent as 1 with 1/2 if ticked, 1/6 if not",
    ]


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"kind": "discrete_laplace", "steps": 30}, "unreadable design record"),
        ({"kind": "discrete_laplace", "steps": None, "scale": "1"}, "unreadable design record"),
        ({"kind": "discrete_laplace", "steps": 30, "scale": "0"}, "unreadable design record"),
        ({"kind": "bounded", "steps": 30, "high": "a", "low": 1}, "unreadable design record"),
        ({"kind": "bounded", "steps": 30, "high": 3}, "unreadable design record"),
        ({"kind": "unary", "options": 3, "p": "1/0", "q": "1/6"}, "unreadable design record"),
        ({"kind": "unary", "options": 3, "p": "1/2"}, "unreadable design record"),
        ({"kind": "forced_response", "t": "1/2"}, "not a numeric or unary design record"),
        ({"steps": 30, "scale": "1"}, "not a numeric or unary design record"),
        ("discrete_laplace", "not a numeric or unary design record"),
    ],
)
def test_an_unreadable_or_foreign_record_is_refused_naming_it(record, message):
    with pytest.raises(ValueError, match=re.escape(message) + ".*" + re.escape(repr(record))):
        numeric_design_from_dict(record)


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0, 3.5, 5.0, 10.0])
def test_a_number_gets_the_mechanism_of_smaller_typical_variance_unless_one_is_named(epsilon):
    laplace, bounded = laplace_for_epsilon(30, epsilon), bounded_for_epsilon(30, epsilon)
    smaller = laplace if laplace.typical_variance < bounded.typical_variance else bounded
    assert numeric_design(30, epsilon) == smaller
    assert numeric_design(30, epsilon, "laplace") == laplace
    assert numeric_design(30, epsilon, "bounded") == bounded


def test_the_one_bit_design_is_chosen_at_small_epsilon_and_the_laplace_at_large():
    assert isinstance(numeric_design(30, 1.0), BoundedDesign)
    assert isinstance(numeric_design(30, 5.0), DiscreteLaplaceDesign)


def test_an_unknown_mechanism_is_refused_naming_it():
    with pytest.raises(ValueError, match="got 'gaussian'"):
        numeric_design(30, 1.0, "gaussian")


def test_a_unary_designs_variance_by_hand_and_its_parameters_as_fractions():
    """p = 1/2, q = 1/5 given as floats: stored as Fractions; one answer's variance of the debiased share at pi = .3
    is (.3 * 1/2 * 1/2 + .7 * 1/5 * 4/5) / (3/10)^2 = (.075 + .112) / .09."""
    design = UnaryDesign(3, 0.5, 0.2)
    assert (design.p, design.q) == (Fraction(1, 2), Fraction(1, 5))
    assert type(design.p) is Fraction and type(design.q) is Fraction
    assert design.share_variance(0.3) == pytest.approx((0.075 + 0.112) / 0.09, rel=1e-12)
    assert UnaryDesign(10, "1/2", "1/5").options == 10


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ((True, "1/2", "1/5"), "options must be an integer in [1, 10], got True"),
        ((0, "1/2", "1/5"), "options must be an integer in [1, 10], got 0"),
        ((3, "x", "1/5"), "p must be a fraction such as 1/4, got 'x'"),
        ((3, "1/2", "x"), "q must be a fraction such as 1/4, got 'x'"),
        ((3, "1/2", 0), "a unary design needs 0 < q < p < 1, got p='1/2', q=0"),
        ((3, "1/2", "1/2"), "a unary design needs 0 < q < p < 1, got p='1/2', q='1/2'"),
        ((3, 1, "1/2"), "a unary design needs 0 < q < p < 1, got p=1, q='1/2'"),
    ],
)
def test_a_bad_unary_design_is_refused_naming_the_fault(arguments, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        UnaryDesign(*arguments)


def test_unary_for_epsilon_rounds_each_encodings_parameter_and_picks_the_smaller_variance():
    """One option at epsilon 1: optimized q = e^-1 / 2 = 0.1839397... rounded up to 0.183940; symmetric
    p = e / (1 + e) = 0.7310585... rounded down to 0.731058. The symmetric one has the smaller worst variance
    (0.92 against 2.49), so it is the default."""
    optimized = unary_for_epsilon(1, 1.0, "optimized_unary")
    symmetric = unary_for_epsilon(1, 1.0, "symmetric_unary")
    assert optimized == UnaryDesign(1, Fraction(1, 2), Fraction(183940, 10**6))
    assert symmetric == UnaryDesign(1, Fraction(731058, 10**6), 1 - Fraction(731058, 10**6))
    assert symmetric.worst_variance < optimized.worst_variance
    assert unary_for_epsilon(1, 1.0) == symmetric
    assert unary_for_epsilon(10, 1.0, "optimized_unary").options == 10


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ((3, 1.0, "binary"), "encoding must be one of ('optimized_unary', 'symmetric_unary'), got 'binary'"),
        ((True, 1.0), "options must be an integer in [1, 10], got True"),
        ((0, 1.0), "options must be an integer in [1, 10], got 0"),
        ((11, 1.0), "options must be an integer in [1, 10], got 11"),
    ],
)
def test_unary_for_epsilon_refuses_a_bad_encoding_or_count_naming_it(arguments, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        unary_for_epsilon(*arguments)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ((10, 3, 0), "low must be a positive integer, got 0"),
        ((10, 3, True), "low must be a positive integer, got True"),
        ((10, 2, 2), "high must be above low, got high=2, low=2"),
    ],
)
def test_a_bad_bounded_design_is_refused_naming_the_fault(arguments, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        BoundedDesign(*arguments)


def test_a_laplace_scale_given_as_text_is_kept_as_a_fraction():
    assert DiscreteLaplaceDesign(10, "5/2").scale == Fraction(5, 2)


def test_the_inner_buckets_cover_minus_b_to_k_plus_b():
    """K 10, scale 1: B = ceil(3 * 1) = 3, so the inner buckets are the 17 outputs -3 .. 13, one each (width 1)."""
    assert DiscreteLaplaceDesign(10, 1).bucket_edges() == tuple(range(-3, 14))


def test_a_scale_is_read_exactly_from_a_fraction_and_as_its_decimal_from_a_float():
    """A Fraction keeps a denominator beyond a million; a float is read as the short fraction it prints as."""
    assert DiscreteLaplaceDesign(10, Fraction(1, 10**7)).scale == Fraction(1, 10**7)
    assert DiscreteLaplaceDesign(10, 0.1).scale == Fraction(1, 10)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: DiscreteLaplaceDesign(0, 1), "steps must be an integer in [1, 1000], got 0"),
        (lambda: DiscreteLaplaceDesign(True, 1), "steps must be an integer in [1, 1000], got True"),
        (lambda: laplace_for_epsilon(10, 0.05), "epsilon must be a number in [0.1, 10.0], got 0.05"),
        (lambda: laplace_for_epsilon(10, True), "epsilon must be a number in [0.1, 10.0], got True"),
    ],
)
def test_a_bad_grid_or_epsilon_is_refused_naming_it(call, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        call()
