"""A plain YAML scalar's value as Kubernetes reads it.

The API server and kubectl turn YAML into JSON with sigs.k8s.io/yaml, whose decoder is go-yaml v2's
(``resolve.go``), not YAML 1.1 as PyYAML reads it. The differences a user meets: ``y``/``Y``/``n``/``N``
are booleans; ``1e3``, ``.5`` and ``1.`` are floats (PyYAML wants a dot and a signed exponent); ints
are read as Go's ``strconv.ParseInt(text, 0, 64)`` reads them, underscores dropped (``0x1F``, ``0o17``,
``0b101``, ``017``); there are no sexagesimal numbers (``1:30`` stays the string "1:30", which the API
server then refuses in an integer field, where PyYAML read 90); a timestamp stays its text. A text
that resolves to nothing else is a string: go-yaml never fails on a plain scalar.
"""

from __future__ import annotations

import math
import re
from typing import Any, Union

import yaml


_TRUE = frozenset(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"))
_FALSE = frozenset(("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"))
_NULL = frozenset(("", "~", "null", "Null", "NULL"))
_SPECIAL_FLOATS = {
    **{text: math.nan for text in (".nan", ".NaN", ".NAN")},
    **{text: math.inf for text in (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF")},
    **{text: -math.inf for text in ("-.inf", "-.Inf", "-.INF")},
}
# resolve.go's yamlStyleFloat, and ParseFloat's own forms a leading "." allows (resolveTable '.').
_YAML_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_DOT_FLOAT = re.compile(r"\.[0-9]+([eE][-+]?[0-9]+)?")
_DIGITS = {2: frozenset("01"), 8: frozenset("01234567"), 10: frozenset("0123456789"), 16: frozenset("0123456789abcdef")}
_INT64 = 1 << 63
_UINT64 = 1 << 64

Scalar = Union[None, bool, int, float, str]


def resolve_plain(text: str) -> Scalar:
    """The value go-yaml v2 gives an untagged, unquoted scalar (MERGE for ``<<``)."""
    if text in _NULL:
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    special = _SPECIAL_FLOATS.get(text)
    if special is not None:
        return special
    first = text[0]
    if first == ".":
        return _float(text) if _DOT_FLOAT.fullmatch(text) else text
    if first in "+-0123456789":
        return _number(text)
    return text


def _number(text: str) -> Scalar:
    plain = text.replace("_", "")
    integer = parse_go_int(plain)
    if integer is not None:
        return integer
    if _YAML_FLOAT.fullmatch(plain):
        return _float(plain, text)
    return text  # a timestamp, a version, "1:30": its text


def parse_go_int(text: str) -> Union[int, None]:
    """strconv.ParseInt(text, 0, 64), else ParseUint(text, 0, 64): a sign, then a base prefix (0x, 0o,
    0b, or a leading 0 for octal) and at least one digit of that base; None when neither reads it."""
    sign, body = 1, text
    if body[:1] in ("+", "-"):
        sign, body = (-1 if body[0] == "-" else 1), body[1:]
    prefix = body[:2].lower()
    if prefix in ("0x", "0o", "0b"):
        base, digits = {"0x": 16, "0o": 8, "0b": 2}[prefix], body[2:]
    elif body[:1] == "0" and len(body) > 1:
        base, digits = 8, body[1:]
    else:
        base, digits = 10, body
    if not digits or not set(digits.lower()) <= _DIGITS[base]:
        return None
    value = sign * int(digits, base)
    if -_INT64 <= value < _INT64:
        return value
    if text[:1] not in ("+", "-") and value < _UINT64:  # ParseUint: no sign
        return value
    return None


def _float(plain: str, text: str = "") -> Scalar:
    value = float(plain)
    if math.isinf(value):  # ParseFloat's ErrRange: go-yaml keeps the text
        return text or plain
    return value


# PyYAML, for the text edits that load a document and write it again (scenario/textedit.py, the web
# app's import of Lists), with plain scalars read as above and strings that Kubernetes would read as
# something else ("y", "1e3", "0o17") written quoted, so a rewritten text means what it meant.
_SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SAFE_DUMPER: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_STR_TAG = "tag:yaml.org,2002:str"


class KubernetesLoader(_SAFE_LOADER):  # type: ignore[misc]  # PyYAML's classes are untyped
    """PyYAML's safe loader with every plain scalar read by ``resolve_plain``."""

    yaml_implicit_resolvers: dict[Any, Any] = {}  # every plain scalar reaches the str constructor


def _construct_plain(loader: Any, node: Any) -> Any:
    text = loader.construct_scalar(node)
    return resolve_plain(text) if node.style in (None, "") else text  # libyaml marks plain '', PyYAML None


KubernetesLoader.add_constructor(_STR_TAG, _construct_plain)


class KubernetesDumper(_SAFE_DUMPER):  # type: ignore[misc]  # PyYAML's classes are untyped
    """PyYAML's safe dumper that quotes a string ``resolve_plain`` would read as something else."""


def _represent_str(dumper: Any, text: str) -> Any:
    read = resolve_plain(text) if text else None
    quoted = not (isinstance(read, str) and read == text)
    return dumper.represent_scalar(_STR_TAG, text, style="'" if quoted else None)


KubernetesDumper.add_representer(str, _represent_str)
