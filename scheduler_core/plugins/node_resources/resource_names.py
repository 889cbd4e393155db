"""Which resource names count as what (pkg/apis/core/v1/helper and scheduler/util).

Requests and allocatable amounts outside cpu, memory, ephemeral-storage and pods are kept by the
scheduler only for "scalar" resources: extended resources (``example.com/gpu``), hugepages,
``kubernetes.io/``-prefixed native resources and attachable volumes. Anything else is ignored.
"""

from __future__ import annotations

import re

from scheduler_core.framework.dra_class_resolver import DEVICE_CLASS_PREFIX

REQUESTS_PREFIX = "requests."
NATIVE_PREFIX = "kubernetes.io/"
HUGEPAGES_PREFIX = "hugepages-"
ATTACHABLE_VOLUMES_PREFIX = "attachable-volumes-"

_NAME_PART = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")

NAME_PART_MESSAGE = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
    "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
PREFIX_MESSAGE = (
    "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
    "'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


def qualified_name_problems(value: str) -> list[str]:
    """validation.IsQualifiedName: ``[prefix/]name``, name at most 63 characters."""
    parts = value.split("/")
    if len(parts) == 1:
        prefix, name = "", parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            return ["prefix part must be non-empty"]
    else:
        return [
            "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start "
            "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
            "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
            "subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    problems: list[str] = []
    if prefix:
        if len(prefix) > 253:
            problems.append("prefix part must be no more than 253 characters")
        if not _DNS_SUBDOMAIN.match(prefix):
            problems.append(PREFIX_MESSAGE)
    if not name:
        problems.append("name part must be non-empty")
    elif len(name) > 63:
        problems.append("name part must be no more than 63 characters")
    if name and not _NAME_PART.match(name):
        problems.append(NAME_PART_MESSAGE)
    return problems


def is_prefixed_native(name: str) -> bool:
    return NATIVE_PREFIX in name


def is_native(name: str) -> bool:
    return "/" not in name or is_prefixed_native(name)


def is_extended_resource_name(name: str) -> bool:
    if is_native(name) or name.startswith(REQUESTS_PREFIX):
        return False
    return not qualified_name_problems(REQUESTS_PREFIX + name)


def is_scalar_resource_name(name: str) -> bool:
    return (
        is_extended_resource_name(name)
        or name.startswith(HUGEPAGES_PREFIX)
        or is_prefixed_native(name)
        or name.startswith(ATTACHABLE_VOLUMES_PREFIX)
    )


def is_dra_extended_resource_name(name: str) -> bool:
    """schedutil.IsDRAExtendedResourceName: an extended resource, or the name every DeviceClass
    stands for (``deviceclass.resource.kubernetes.io/<class>``) while DRAExtendedResource is on."""
    return is_extended_resource_name(name) or name.startswith(DEVICE_CLASS_PREFIX)
