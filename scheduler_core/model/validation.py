"""The API server's name and label syntax checks (k8s.io/apimachinery/pkg/util/validation): each
``is_*`` returns Kubernetes' messages (empty when valid). The loader reports them on a field
(scenario/validation.py); the label selectors read them too (a required node affinity's invalid value).
"""

from __future__ import annotations

import ipaddress
import re

_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL = re.compile(f"^{_LABEL_FMT}$")
_DNS1123_SUBDOMAIN = re.compile(rf"^{_LABEL_FMT}(\.{_LABEL_FMT})*$")
_DNS1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QUALIFIED_NAME = re.compile(f"^{_QUALIFIED_NAME_FMT}$")

MAX_LABEL_LENGTH = 63
MAX_SUBDOMAIN_LENGTH = 253

DNS1123_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    f"and must start and end with an alphanumeric character (regex used for validation is '{_LABEL_FMT}')"
)
DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (regex used for validation is "
    f"'{_LABEL_FMT}(\\.{_LABEL_FMT})*')"
)
DNS1035_LABEL_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (regex used for validation is "
    "'[a-z]([-a-z0-9]*[a-z0-9])?')"
)
QUALIFIED_NAME_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    f"with an alphanumeric character (regex used for validation is '{_QUALIFIED_NAME_FMT}')"
)
LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character (regex used for validation is "
    f"'({_QUALIFIED_NAME_FMT})?')"
)


def _too_long(value: str, limit: int) -> list[str]:
    return [f"must be no more than {limit} characters"] if len(value) > limit else []


def is_dns1123_label(value: str) -> list[str]:
    errors = _too_long(value, MAX_LABEL_LENGTH)
    return errors if _DNS1123_LABEL.match(value) else errors + [DNS1123_LABEL_MSG]


def is_dns1123_subdomain(value: str) -> list[str]:
    errors = _too_long(value, MAX_SUBDOMAIN_LENGTH)
    return errors if _DNS1123_SUBDOMAIN.match(value) else errors + [DNS1123_SUBDOMAIN_MSG]


def is_dns1035_label(value: str) -> list[str]:
    errors = _too_long(value, MAX_LABEL_LENGTH)
    return errors if _DNS1035_LABEL.match(value) else errors + [DNS1035_LABEL_MSG]


def is_qualified_name(value: str) -> list[str]:
    """IsQualifiedName: ``[prefix/]name`` (label keys, topology keys, resource names)."""
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
        errors: list[str] = []
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errors = ["prefix part must be non-empty"]
        else:
            errors = ["prefix part " + msg for msg in is_dns1123_subdomain(prefix)]
    else:
        return [
            "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and "
            "end with an alphanumeric character, with an optional DNS subdomain prefix and '/' "
            "(e.g. 'example.com/MyName')"
        ]
    if not name:
        return errors + ["name part must be non-empty"]
    if len(name) > MAX_LABEL_LENGTH:
        errors.append(f"name part must be no more than {MAX_LABEL_LENGTH} characters")
    if not _QUALIFIED_NAME.match(name):
        errors.append(QUALIFIED_NAME_MSG)
    return errors


def is_label_value(value: str) -> list[str]:
    errors = _too_long(value, MAX_LABEL_LENGTH)
    if value and not _QUALIFIED_NAME.match(value):
        errors.append(LABEL_VALUE_MSG)
    return errors


def is_integer_string(value: str) -> bool:
    body = value[1:] if value[:1] in "+-" else value
    return bool(body) and body.isascii() and body.isdigit() and -(2**63) <= int(value) < 2**63


def is_ip(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True
