"""The loader's field checks: the API server's syntax checks (model/validation.py) reported on a
field, enums, label maps and quantities.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Optional

from scheduler_core.model import quantity

# Re-exported (the "as" form says so to mypy): the loader's modules import them from here.
from scheduler_core.model.validation import (
    is_dns1123_label as is_dns1123_label,
    is_dns1123_subdomain as is_dns1123_subdomain,
    is_dns1035_label as is_dns1035_label,
    is_qualified_name as is_qualified_name,
    is_label_value as is_label_value,
    is_integer_string as is_integer_string,
    is_ip as is_ip,
    MAX_LABEL_LENGTH as MAX_LABEL_LENGTH,
    MAX_SUBDOMAIN_LENGTH as MAX_SUBDOMAIN_LENGTH,
    DNS1123_LABEL_MSG as DNS1123_LABEL_MSG,
    DNS1123_SUBDOMAIN_MSG as DNS1123_SUBDOMAIN_MSG,
    DNS1035_LABEL_MSG as DNS1035_LABEL_MSG,
    QUALIFIED_NAME_MSG as QUALIFIED_NAME_MSG,
    LABEL_VALUE_MSG as LABEL_VALUE_MSG,
)
from scheduler_core.scenario.fields import Field, describe


# ---------------------------------------------------------------------- field checks


def check(field: Field, value: str, messages: list[str]) -> bool:
    for message in messages:
        field.error(f'invalid value "{value[:80]}": {message}')
    return not messages


def check_str_enum(field: Field, value: str, allowed: tuple[str, ...]) -> bool:
    if value in allowed:
        return True
    choices = ", ".join(f'"{a}"' for a in allowed)
    field.error(f'unsupported value "{value[:80]}": supported values: {choices}')
    return False


# Label keys and values already found valid in this process: a dump's 150,000 pods repeat a few
# hundred of them (315,000 label maps read in 1.4 s, most of it their validation). Only valid ones
# are remembered, so an invalid key or value is reported where each object writes it.
_VALID_KEYS: set[str] = set()
_VALID_VALUES: set[str] = set()
VALID_REMEMBERED = 100_000


def label_map(field: Optional[Field], keys_are: str = "label") -> dict[str, str]:
    """metadata.labels, nodeSelector, matchLabels, Service selectors: string keys to label values."""
    if field is None or not field.expect_map():
        return {}
    labels: dict[str, str] = {}
    for key, item in field.entries():
        ok = key in _VALID_KEYS or _remembered(_VALID_KEYS, key, check(item, key, is_qualified_name(key)))
        value = item.value
        if not isinstance(value, str):
            hint = f' (quote it: "{value}")' if isinstance(value, (int, float, bool)) else ""
            item.error(f"expected a string {keys_are} value, got {describe(value)}{hint}")
            continue
        valid = value in _VALID_VALUES or _remembered(_VALID_VALUES, value, check(item, value, is_label_value(value)))
        if valid and ok:
            labels[key] = value
    return labels


def _remembered(valid: set[str], text: str, ok: bool) -> bool:
    if ok:
        if len(valid) >= VALID_REMEMBERED:
            valid.clear()
        valid.add(text)
    return ok


def read_quantity(field: Field) -> Optional[Fraction]:
    try:
        return quantity.parse_quantity(field.value)
    except quantity.QuantityError as err:
        shown = field.value if isinstance(field.value, (str, int, float)) else describe(field.value)
        field.error(f'invalid value "{str(shown)[:80]}": {err}')
        return None
