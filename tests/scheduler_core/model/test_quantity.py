"""resource.Quantity parsing: exact values, Kubernetes' rounding and its error messages."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler_core.model.quantity import (
    canonical,
    quantity_format,
    format_amount,
    BEYOND_INT64,
    CPU_OVERFLOW,
    FORMAT_INVALID,
    MAX_ALLOWED,
    SUFFIX_INVALID,
    QuantityError,
    amount_overflow,
    milli_value,
    parse_quantity,
    resource_amount,
    value,
)

BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 1000),
    "": 1,
    "k": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "P": 10**15,
    "E": 10**18,
}


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1", 1),
        ("0", 0),
        ("1.5", Fraction(3, 2)),
        (".5", Fraction(1, 2)),
        ("100m", Fraction(1, 10)),
        ("1Ki", 1024),
        ("1.5Gi", 3 * 2**29),
        ("1e3", 1000),
        ("1E3", 1000),
        ("1e-3", Fraction(1, 1000)),
        ("2E", 2 * 10**18),
        ("+2", 2),
        ("-1", -1),
        ("1.G", 10**9),
        ("0.1n", Fraction(1, 10**9)),
        ("-", 0),
        (".", 0),
        ("007", 7),
        (3, 3),
        (0.25, Fraction(1, 4)),
    ],
    ids=lambda v: repr(v),
)
def test_it_parses_what_kubernetes_parses(text, expected):
    assert parse_quantity(text) == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("", FORMAT_INVALID),
        ("abc", FORMAT_INVALID),
        ("1 ", FORMAT_INVALID),
        (" 1", FORMAT_INVALID),
        ("1.2.3", FORMAT_INVALID),
        ("1Kix", FORMAT_INVALID),
        ("1e", SUFFIX_INVALID),
        ("1Kii", SUFFIX_INVALID),
        ("1ki", SUFFIX_INVALID),
        ("1e3.5", FORMAT_INVALID),
        ("--1", SUFFIX_INVALID),
        ("1i", SUFFIX_INVALID),
    ],
    ids=lambda v: repr(v),
)
def test_it_rejects_malformed_quantities_with_kubernetes_messages(text, message):
    with pytest.raises(QuantityError) as raised:
        parse_quantity(text)
    assert str(raised.value) == message


def test_it_rejects_non_finite_floats_and_booleans():
    for bad in (float("inf"), float("nan"), True, None, [1]):
        with pytest.raises(QuantityError):
            parse_quantity(bad)


def test_it_rounds_below_a_nano_up_to_one_nano():
    assert parse_quantity("1e-999999") == Fraction(1, 10**9)
    assert parse_quantity("1.0000000001") == Fraction(1000000001, 10**9)


@pytest.mark.parametrize(
    "text, expected",
    [
        pytest.param("16Ei", MAX_ALLOWED, id="a binary-suffixed value above int64 is capped"),
        pytest.param("-16Ei", -MAX_ALLOWED, id="a negative binary-suffixed value is capped at minus the cap"),
        pytest.param("1e30", 10**30, id="a decimal exponent is not capped (v1.35 caps only BinarySI)"),
        pytest.param("10000000000000000000", 10**19, id="plain decimal digits are not capped"),
        pytest.param("20E", 20 * 10**18, id="a decimal SI suffix is not capped"),
        pytest.param("1e999999999", BEYOND_INT64, id="beyond 40 digits a stand-in above int64 is kept"),
        pytest.param("-1e999999999", -BEYOND_INT64, id="and its negative"),
    ],
)
def test_it_caps_only_binary_suffixed_values_as_parse_quantity_does(text, expected):
    assert parse_quantity(text) == expected


@pytest.mark.parametrize(
    "name, text, expected",
    [
        pytest.param("cpu", "9223372036854775.807", None, id="int64 millicores exactly fit"),
        pytest.param(
            "cpu", "9223372036854775.8071", CPU_OVERFLOW, id="a fraction of a millicore more rounds up past int64"
        ),
        pytest.param("cpu", "10000000000000000", CPU_OVERFLOW, id="ten quadrillion cores do not fit"),
        pytest.param("memory", "16Ei", None, id="capped binary memory fits"),
        pytest.param(
            "memory",
            "1e19",
            "must be at most 9223372036854775807: kube-scheduler counts memory in int64 units",
            id="uncapped decimal memory above int64 does not fit",
        ),
        pytest.param("example.com/gpu", "9223372036854775807", None, id="int64's maximum count fits"),
    ],
)
def test_amount_overflow_names_what_the_schedulers_int64_counters_cannot_hold(name, text, expected):
    assert amount_overflow(name, parse_quantity(text)) == expected


def test_value_and_milli_value_round_up_as_kubernetes_does():
    assert value(parse_quantity("1500m")) == 2
    assert value(parse_quantity("1")) == 1
    assert milli_value(parse_quantity("0.1m")) == 1
    assert milli_value(parse_quantity("1.5")) == 1500
    assert value(parse_quantity("-1.5")) == -2  # away from zero, like ScaledValue


def test_resource_amount_is_millicores_for_cpu_and_units_otherwise():
    assert resource_amount("cpu", parse_quantity("250m")) == 250
    assert resource_amount("memory", parse_quantity("1Mi")) == 2**20
    assert resource_amount("example.com/gpu", parse_quantity("2")) == 2


# ---------------------------------------------------------------------------- properties

decimals = st.tuples(st.integers(0, 10**12), st.integers(0, 10**6), st.integers(0, 6))


@settings(deadline=None)
@given(st.integers(0, 10**15), st.sampled_from(sorted(BINARY)))
def test_binary_suffixes_scale_exactly(number, suffix):
    assert parse_quantity(f"{number}{suffix}") == min(number * BINARY[suffix], MAX_ALLOWED)


@settings(deadline=None)
@given(st.integers(0, 10**15), st.sampled_from(sorted(DECIMAL)))
def test_decimal_suffixes_are_never_capped(number, suffix):
    assert parse_quantity(f"{number}{suffix}") == number * DECIMAL[suffix]


@settings(deadline=None)  # timing under a loaded CI box is not what is tested
@given(st.integers(0, 10**9), st.sampled_from(sorted(DECIMAL)))
def test_decimal_suffixes_scale_exactly(number, suffix):
    assert parse_quantity(f"{number}{suffix}") == number * DECIMAL[suffix]


@settings(deadline=None)  # timing under a loaded CI box is not what is tested
@given(st.integers(0, 10**12), st.integers(-9, 6))
def test_exponents_scale_exactly(number, exponent):
    assert parse_quantity(f"{number}e{exponent}") == number * Fraction(10) ** exponent


@settings(deadline=None)  # timing under a loaded CI box is not what is tested
@given(st.integers(-(10**15), 10**15), st.integers(0, 9))
def test_a_decimal_string_round_trips(units, places):
    exact = Fraction(units, 10**places)
    sign = "-" if units < 0 else ""
    whole, frac = divmod(abs(units), 10**places)
    text = f"{sign}{whole}.{frac:0{places}d}" if places else f"{sign}{whole}"
    assert parse_quantity(text) == exact


@settings(deadline=None)  # timing under a loaded CI box is not what is tested
@given(st.integers(0, 10**12), st.integers(0, 10**12))
def test_parsing_preserves_order(a, b):
    assert (parse_quantity(f"{a}m") < parse_quantity(f"{b}m")) == (a < b)


@settings(deadline=None)  # timing under a loaded CI box is not what is tested
@given(st.fractions(min_value=0, max_value=10**6, max_denominator=10**6))
def test_milli_value_is_the_ceiling_of_thousandths(fraction):
    rounded = parse_quantity(f"{fraction.numerator}") / fraction.denominator
    assert milli_value(rounded) * Fraction(1, 1000) >= rounded
    assert (milli_value(rounded) - 1) * Fraction(1, 1000) < rounded


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("0123456789.+-eEinumkKMGTP x"), max_size=12) | st.text(max_size=12))
def test_arbitrary_text_raises_only_quantity_error(text):
    try:
        result = parse_quantity(text)
    except QuantityError:
        return
    assert isinstance(result, Fraction)
    assert abs(result) <= BEYOND_INT64
    assert (result * 10**9).denominator == 1  # always a whole number of nanos


@pytest.mark.parametrize(
    "resource, amount, shown",
    [
        pytest.param("cpu", 2500, "2500m", id="cpu is shown in millicores"),
        pytest.param("memory", 512 << 20, "512Mi", id="memory takes the largest binary unit that divides it"),
        pytest.param("memory", 1000, "1000", id="memory no binary unit divides stays in bytes"),
        pytest.param("hugepages-2Mi", 4 << 20, "4Mi", id="hugepages are bytes"),
        pytest.param("nvidia.com/gpu", 0, "0", id="an extended resource is a count, never 0Mi"),
        pytest.param("nvidia.com/gpu", 1 << 20, "1048576", id="a large count stays a count"),
        pytest.param("pods", 110, "110", id="pods are a count"),
    ],
)
def test_it_formats_amounts_in_the_unit_of_their_resource(resource, amount, shown):
    assert format_amount(resource, amount) == shown


@pytest.mark.parametrize(
    "text, shown",
    [
        ("4Gi", "4Gi"),
        ("1024Mi", "1Gi"),
        ("1.5Gi", "1536Mi"),
        ("1536", "1536"),
        ("2000", "2k"),
        ("1500", "1500"),
        ("0.5", "500m"),
        ("100m", "100m"),
        ("2e3", "2e3"),
        ("1000Ki", "1000Ki"),
        ("512", "512"),
        ("0", "0"),
        (3, "3"),
    ],
)
def test_a_quantity_is_written_back_as_the_api_server_canonicalizes_it(text, shown):
    """Quantity.String: BinarySI by powers of 1024 from 1024 up, decimals by exponents of three."""
    assert canonical(parse_quantity(text), quantity_format(text)) == shown
