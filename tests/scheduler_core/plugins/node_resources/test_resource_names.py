"""node_resources/resource_names.py: which names are extended or scalar resources
(v1helper.IsExtendedResourceName / IsScalarResourceName) and validation.IsQualifiedName."""

from __future__ import annotations

import pytest

from scheduler_core.plugins.node_resources.resource_names import (
    NAME_PART_MESSAGE,
    PREFIX_MESSAGE,
    is_extended_resource_name,
    is_native,
    is_scalar_resource_name,
    qualified_name_problems,
)


@pytest.mark.parametrize(
    "name, extended, scalar",
    [
        ("example.com/gpu", True, True),
        ("cpu", False, False),
        ("memory", False, False),
        ("hugepages-2Mi", False, True),
        ("kubernetes.io/batman", False, True),  # prefixed native: scalar, not extended
        ("attachable-volumes-csi-x", False, True),
        ("requests.example.com/gpu", False, False),
        ("Example.com/gpu", False, False),  # the prefix must be a lowercase DNS subdomain
    ],
)
def test_extended_and_scalar_names(name, extended, scalar):
    assert is_extended_resource_name(name) is extended
    assert is_scalar_resource_name(name) is scalar


def test_a_name_without_a_slash_or_with_the_kubernetes_prefix_is_native():
    assert is_native("cpu") and is_native("kubernetes.io/x")
    assert not is_native("example.com/gpu")


def test_qualified_name_problems_name_each_broken_part():
    assert qualified_name_problems("example.com/gpu") == []
    assert qualified_name_problems("/gpu") == ["prefix part must be non-empty"]
    assert qualified_name_problems("Bad_Prefix/gpu") == [PREFIX_MESSAGE]
    assert qualified_name_problems("example.com/-gpu") == [NAME_PART_MESSAGE]
    assert qualified_name_problems("x" * 64) == ["name part must be no more than 63 characters"]
    assert qualified_name_problems("a/b/c")[0].startswith("a qualified name must consist")
