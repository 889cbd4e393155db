"""The name rules of resource.k8s.io/v1 (pkg/apis/resource/validation/validation.go)."""

from __future__ import annotations

import pytest

from scheduler_core.scenario import dra_names


@pytest.mark.parametrize(
    "name, broken",
    [
        ("gpu.example.com", False),
        ("GPU.Example.com", False),  # ValidateCSIDriverName lower-cases first
        ("g" * 60 + ".com", True),
        ("gpu_example.com", True),
        ("", True),
    ],
)
def test_driver_names_follow_validate_csi_driver_name(name, broken):
    assert bool(dra_names.driver_name(name)) is broken


@pytest.mark.parametrize(
    "name, broken", [("n1", False), ("rack-1/n1", False), ("Rack/n1", True), ("a/", True), ("p" * 254, True)]
)
def test_pool_names_follow_validate_pool_name(name, broken):
    assert bool(dra_names.pool_name(name)) is broken


@pytest.mark.parametrize(
    "name, messages",
    [
        ("model", []),
        ("_index2", []),
        ("gpu.example.com/numa", []),
        ("2model", [dra_names.C_IDENTIFIER_MSG]),
        ("gpu-model", [dra_names.C_IDENTIFIER_MSG]),
        ("m" * 33, [dra_names.too_long(32)]),
        ("/numa", ["the domain must not be empty"]),
        ("gpu.example.com/", ["the name must not be empty"]),
        ("a/b/c", ["must not contain more than one slash"]),
    ],
)
def test_attribute_names_follow_validate_qualified_name(name, messages):
    assert dra_names.qualified_name(name) == messages


def test_a_match_attribute_needs_a_domain_as_validate_fully_qualified_name_requires():
    assert dra_names.fully_qualified_name("gpu.example.com/numa") == []
    assert dra_names.fully_qualified_name("numa") == [
        "a fully qualified name must be a domain and a name separated by a slash"
    ]


def test_an_attribute_key_past_96_bytes_is_too_long_before_its_parts_are_checked():
    """validateMap checks the key length (DeviceMaxDomainLength + 1 + DeviceMaxIDLength) first."""
    assert dra_names.attribute_key("d" * 60 + ".com/" + "m" * 32) == [dra_names.too_long(96)]


@pytest.mark.parametrize(
    "reference, broken",
    [
        ("gpu", False),
        ("pick", False),
        ("pick/big", False),
        ("gpu/big", True),
        ("pick/huge", True),
        ("nope", True),
        ("pick/big/x", True),
        ("Pick", True),
    ],
)
def test_request_references_follow_validate_request_name_ref(reference, broken):
    """requestNames.Has: an `exactly` request has no subrequests; a firstAvailable one has its own."""
    requests = {"gpu": (), "pick": ("big", "small")}
    assert bool(dra_names.request_reference(reference, requests)) is broken
