"""The name rules of ``resource.k8s.io/v1`` as the API server checks them
(pkg/apis/resource/validation/validation.go): each function returns the messages of the
rules a value breaks (empty when it is valid), for the loader to locate."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from scheduler_core.scenario.validation import is_dns1123_label, is_dns1123_subdomain

DRIVER_NAME_MAX_LENGTH = 63  # ValidateCSIDriverName
POOL_NAME_MAX_LENGTH = 253  # resource.PoolNameMaxLength
DEVICE_MAX_DOMAIN_LENGTH = 63  # resource.DeviceMaxDomainLength
DEVICE_MAX_ID_LENGTH = 32  # resource.DeviceMaxIDLength
ATTRIBUTE_KEY_MAX_LENGTH = DEVICE_MAX_DOMAIN_LENGTH + 1 + DEVICE_MAX_ID_LENGTH
_C_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
C_IDENTIFIER_MSG = (
    "a valid C identifier must start with alphabetic character or '_', followed by a string of "
    "alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for "
    "validation is '[A-Za-z_][A-Za-z0-9_]*')"
)
REQUEST_REF_MSG = (
    "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
)


def too_long(limit: int) -> str:
    return f"Too long: may not be more than {limit} bytes"


def driver_name(name: str) -> list[str]:
    """ValidateCSIDriverName: at most 63 characters, a DNS subdomain once lower-cased."""
    messages = [too_long(DRIVER_NAME_MAX_LENGTH)] if len(name) > DRIVER_NAME_MAX_LENGTH else []
    return messages + is_dns1123_subdomain(name.lower())


def pool_name(name: str) -> list[str]:
    """validatePoolName: at most 253 characters, each '/'-separated part a DNS subdomain."""
    messages = [too_long(POOL_NAME_MAX_LENGTH)] if len(name) > POOL_NAME_MAX_LENGTH else []
    for part in name.split("/"):
        messages.extend(is_dns1123_subdomain(part))
    return messages


def c_identifier(name: str) -> list[str]:
    """validateCIdentifier."""
    messages = [too_long(DEVICE_MAX_ID_LENGTH)] if len(name) > DEVICE_MAX_ID_LENGTH else []
    return messages + ([] if _C_IDENTIFIER.match(name) else [C_IDENTIFIER_MSG])


def qualified_name(name: str) -> list[str]:
    """validateQualifiedName (attribute and capacity names): ``id`` or ``domain/id``."""
    parts = name.split("/")
    if len(parts) == 1:
        return c_identifier(parts[0])
    if len(parts) > 2:
        return ["must not contain more than one slash"]
    domain, identifier = parts
    messages = driver_name(domain) if domain else ["the domain must not be empty"]
    return messages + (c_identifier(identifier) if identifier else ["the name must not be empty"])


def fully_qualified_name(name: str) -> list[str]:
    """validateFullyQualifiedName (matchAttribute): a qualified name with a domain."""
    messages = qualified_name(name)
    if "/" not in name:
        messages.append("a fully qualified name must be a domain and a name separated by a slash")
    return messages


def attribute_key(name: str) -> list[str]:
    """validateMap's key check for attributes and capacity: the length, then the name."""
    if len(name) > ATTRIBUTE_KEY_MAX_LENGTH:
        return [too_long(ATTRIBUTE_KEY_MAX_LENGTH)]
    return qualified_name(name)


def request_reference(name: str, requests: Mapping[str, Collection[str]]) -> list[str]:
    """validateRequestNameRef: ``request`` or ``request/subrequest`` naming one in the claim
    (``requests`` maps each request name to its subrequests' names, empty for ``exactly``)."""
    segments = name.split("/")
    if len(segments) > 2:
        return [REQUEST_REF_MSG]
    messages = [message for segment in segments for message in is_dns1123_label(segment)]
    subrequests = requests.get(segments[0])
    known = subrequests is not None and (len(segments) == 1 or segments[1] in subrequests)
    return messages + ([] if known else [REQUEST_REF_MSG])
