"""Kubernetes ``resource.Quantity`` parsing, exact (k8s.io/apimachinery/pkg/api/resource).

A quantity is ``<sign><digits>[.<digits>]<suffix>`` where the suffix is a binary SI suffix
(Ki..Ei), a decimal SI suffix (n, u, m, "", k, M, G, T, P, E) or a decimal exponent (e3, E-2).
Values are kept as ``Fraction`` so nothing is lost to floating point. As in ``ParseQuantity``,
a non-zero value is rounded away from zero to a multiple of 1n (10^-9), and only a value with a
binary suffix (Ki..Ei) is capped at 2^63-1: v1.35 leaves decimal values uncapped, so "1e30" parses
to 10^30 (above 10^40 we keep a stand-in of 10^40 rather than build huge integers).
``value``/``milli_value`` round away from zero as ``Quantity.ScaledValue`` does (for the
non-negative amounts a scheduler sees, that is the ceiling).

The scheduler counts in int64: cpu in millicores (``MilliValue``), everything else in units
(``Value``). Go wraps silently when an amount does not fit (``MilliValue`` of 10^16 cores is
negative), so ``amount_overflow`` names those amounts for the loader to refuse.
"""

from __future__ import annotations

import math
from functools import lru_cache
from fractions import Fraction
from typing import Union

SPLIT_RE = r"^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
FORMAT_INVALID = f"quantities must match the regular expression '{SPLIT_RE}'"
NUMERIC_INVALID = "unable to parse numeric part of quantity"
SUFFIX_INVALID = "unable to parse quantity's suffix"

MAX_ALLOWED = 2**63 - 1  # Quantity's cap (maxAllowed) for binary-suffixed values; also int64's maximum
INT64_MAX = MAX_ALLOWED
NANO = Fraction(1, 10**9)

_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
_DIGITS = frozenset("0123456789")
# Beyond this many decimal digits a value is certainly above MAX_ALLOWED (or below 1n):
# short-circuit so "1e999999999" does not build a billion-digit integer.
_MAX_DIGITS = 40
BEYOND_INT64 = Fraction(10**_MAX_DIGITS)  # the stand-in for a decimal value of more than 40 digits
CPU_OVERFLOW = f"must be at most {INT64_MAX // 1000}.{INT64_MAX % 1000:03d} ({INT64_MAX}m): kube-scheduler counts cpu in int64 millicores"

QuantityInput = Union[str, int, float]


class QuantityError(ValueError):
    """The text is not a Kubernetes quantity; the message is Kubernetes' own."""


def _digits_end(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _DIGITS:
        pos += 1
    return pos


def _split(text: str) -> tuple[bool, str, str, str]:
    """parseQuantityString: (positive, integer digits, fraction digits, suffix)."""
    pos = 0
    positive = True
    if text[:1] in ("+", "-"):
        positive = text[0] == "+"
        pos = 1
    num_end = _digits_end(text, pos)
    num = text[pos:num_end]
    pos = num_end
    denom = ""
    if pos < len(text) and text[pos] == ".":
        denom_end = _digits_end(text, pos + 1)
        denom = text[pos + 1 : denom_end]
        pos = denom_end
    suffix_start = pos
    while pos < len(text) and text[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos < len(text) and text[pos] in "+-":
        pos += 1
    if _digits_end(text, pos) != len(text):
        raise QuantityError(FORMAT_INVALID)
    return positive, num, denom, text[suffix_start:]


def _interpret_suffix(suffix: str) -> tuple[int, int]:
    """quantitySuffixer.interpret: (base, exponent)."""
    if suffix in _DECIMAL:
        return 10, _DECIMAL[suffix]
    if suffix in _BINARY:
        return 2, _BINARY[suffix]
    if len(suffix) > 1 and suffix[0] in "eE":
        exponent = _parse_int64(suffix[1:])
        if exponent is None:
            raise QuantityError(SUFFIX_INVALID)
        return 10, _to_int32(exponent)  # Go converts with int32(parsed): it wraps
    raise QuantityError(SUFFIX_INVALID)


def _parse_int64(text: str) -> int | None:
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body or not all(c in _DIGITS for c in body):
        return None
    value = int(text)
    return value if -(2**63) <= value < 2**63 else None


def _to_int32(value: int) -> int:
    return (value + 2**31) % 2**32 - 2**31


def _magnitude(num: str, denom: str, base: int, exponent: int) -> Fraction:
    """|value| before rounding, with huge exponents short-circuited to the cap or to 1n."""
    digits = (num + denom).lstrip("0")
    if not digits:
        return Fraction(0)
    if base == 10:
        power = exponent - len(denom)
        if power + len(digits) > _MAX_DIGITS:
            return BEYOND_INT64
        if power + len(digits) < -_MAX_DIGITS:
            return NANO / 2  # non-zero and below 1n: rounds up to 1n
        return Fraction(int(digits)) * Fraction(10) ** power
    factor: int = (
        2**exponent
    )  # typeshed types int ** int as Any (a negative power is a float); binary exponents are >= 0
    return Fraction(int(digits), 10 ** len(denom)) * factor


def _round_and_cap(magnitude: Fraction, binary: bool) -> Fraction:
    if magnitude == 0:
        return magnitude
    rounded = Fraction(math.ceil(magnitude / NANO), 10**9)  # inf.RoundUp at scale 9: away from zero
    # ParseQuantity caps only BinarySI values ("format == BinarySI && amount > maxAllowed").
    return min(rounded, Fraction(MAX_ALLOWED)) if binary else rounded


def parse_quantity(text: QuantityInput) -> Fraction:
    """resource.ParseQuantity. JSON numbers (YAML ints/floats) are accepted as Kubernetes does."""
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise QuantityError(FORMAT_INVALID)
    if isinstance(text, float):
        if not math.isfinite(text):
            raise QuantityError(FORMAT_INVALID)
        text = repr(text)
    elif isinstance(text, int):
        text = str(text)
    return _parse_text(text)


@lru_cache(maxsize=4096)
def _parse_text(text: str) -> Fraction:
    # Scenarios repeat the same few quantities thousands of times; Fractions are immutable.
    if not text:
        raise QuantityError(FORMAT_INVALID)
    positive, num, denom, suffix = _split(text)
    base, exponent = _interpret_suffix(suffix)
    value = _round_and_cap(_magnitude(num, denom, base, exponent), binary=base == 2)
    return value if positive else -value


def _scaled(quantity: Fraction, scale: int) -> int:
    """Quantity.ScaledValue: rounds away from zero."""
    scaled = quantity * scale
    rounded = math.ceil(abs(scaled))
    return rounded if scaled >= 0 else -rounded


def value(quantity: Fraction) -> int:
    """Quantity.Value: whole units, rounded up (1500m -> 2)."""
    return _scaled(quantity, 1)


def milli_value(quantity: Fraction) -> int:
    """Quantity.MilliValue: thousandths, rounded up (0.1m -> 1)."""
    return _scaled(quantity, 1000)


@lru_cache(maxsize=4096)
def resource_amount(resource_name: str, quantity: Fraction) -> int:
    """The integer kube-scheduler compares: millicores for cpu, whole units for the rest."""
    # Cached like parsing: a cluster's thousands of containers ask for a few distinct amounts.
    if resource_name == "cpu":
        return milli_value(quantity)
    return value(quantity)


def amount_overflow(resource_name: str, quantity: Fraction) -> str | None:
    """Why the scheduler cannot hold this amount in its int64 counters, or None when it can.

    ``Quantity.MilliValue``/``Value`` overflow silently in Go ("this could overflow an int64"):
    node allocatable cpu "10000000000000000" (10^16 cores) becomes a negative number of millicores
    in kube-scheduler, and an uncapped decimal such as memory "1e30" a wrapped number of bytes.
    """
    if abs(resource_amount(resource_name, quantity)) <= INT64_MAX:
        return None
    if resource_name == "cpu":
        return CPU_OVERFLOW
    return f"must be at most {INT64_MAX}: kube-scheduler counts {resource_name} in int64 units"


# ---------------------------------------------------------------------------- amounts in words

_BYTE_RESOURCES = ("memory", "ephemeral-storage")
_BINARY_SHOWN = (("Ti", 40), ("Gi", 30), ("Mi", 20), ("Ki", 10))


def counts_bytes(resource: str) -> bool:
    """Memory, ephemeral storage and hugepages are bytes; everything else but cpu is a count."""
    return resource in _BYTE_RESOURCES or resource.startswith("hugepages-")


def format_amount(resource: str, amount: int) -> str:
    """An amount as the scheduler counts it, for people: cpu in millicores ("2500m"), bytes with the
    largest binary suffix that divides them exactly ("512Mi", else plain bytes), every other
    resource (pods, extended and scalar resources such as nvidia.com/gpu) as a plain count."""
    if resource == "cpu":
        return f"{amount}m"
    if not counts_bytes(resource) or amount == 0:
        return str(amount)
    for suffix, shift in _BINARY_SHOWN:
        if amount % (1 << shift) == 0:
            return f"{amount >> shift}{suffix}"
    return str(amount)


# ---------------------------------------------------------------------------- as the API writes them

BINARY_SI, DECIMAL_SI, DECIMAL_EXPONENT = "BinarySI", "DecimalSI", "DecimalExponent"
_DECIMAL_SHOWN = {exponent: suffix for suffix, exponent in _DECIMAL.items()}


def quantity_format(text: QuantityInput) -> str:
    """The Format ParseQuantity gives: BinarySI for Ki..Ei, DecimalExponent for e/E, else DecimalSI
    (a JSON number included)."""
    if not isinstance(text, str):
        return DECIMAL_SI
    _, _, _, suffix = _split(text)
    if suffix in _BINARY:
        return BINARY_SI
    if suffix[:1] in ("e", "E"):
        return DECIMAL_EXPONENT
    return DECIMAL_SI


def canonical(quantity: Fraction, fmt: str) -> str:
    """Quantity.String (CanonicalizeBytes) of a value in ``fmt``: BinarySI as the largest power of
    1024 dividing a whole value of at least 1024 ("4Gi"), else decimal with an exponent that is a
    multiple of three ("1500", "2k", "500m"; DecimalExponent as "2e3")."""
    if quantity == 0:
        return "0"
    if fmt == BINARY_SI and abs(quantity) >= 1024 and quantity.denominator == 1:
        amount, times = int(quantity), 0
        while amount % 1024 == 0 and times < 6:
            amount, times = amount // 1024, times + 1
        suffix = next((name for name, shift in _BINARY.items() if shift == times * 10), "")
        return f"{amount}{suffix}"
    mantissa, exponent = quantity, 0
    while mantissa.denominator != 1:  # values are multiples of 1n: this ends by exponent -9
        mantissa, exponent = mantissa * 10, exponent - 1
    amount = int(mantissa)
    while amount % 10 == 0:
        amount, exponent = amount // 10, exponent + 1
    shift = exponent % 3  # down to a multiple of three (Python's % is non-negative, as Go's cases)
    amount, exponent = amount * 10**shift, exponent - shift
    if fmt == DECIMAL_EXPONENT:
        return f"{amount}e{exponent}" if exponent else str(amount)
    shown = _DECIMAL_SHOWN.get(exponent)
    return f"{amount}{shown}" if shown is not None else f"{amount}e{exponent}"
