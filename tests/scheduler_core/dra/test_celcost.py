"""The worst-case cost the API server estimates for a selector (cel-go checker/cost.go through
k8s.io/dynamic-resource-allocation/cel/compile.go's size estimator). The expected numbers are
the ``expectCost`` values of compile.go's own tests (compile_test.go, TestCEL) for the
environment of v1.35 (attributes are scalars of at most 64 elements)."""

from __future__ import annotations

import celpy
import pytest

from scheduler_core.dra.celcost import SELECTOR_MAX_COST, estimate_selector_cost, too_complex

_ENV = celpy.Environment()
ATTRIBUTE_SIZE = 64  # DeviceAttributeMaxValueLength: attributeType's MaxElements


def cost(expression: str) -> int:
    return estimate_selector_cost(_ENV.compile(expression))


@pytest.mark.parametrize(
    "expression, expected",
    [
        ("true", 0),
        ('device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))', 6),
        ('device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0"))', 6),
        ('"no-such-domain" in device.attributes', 3),
        ('device.driver == ""', 2),
        ('device.driver == "dra.example.com"', 4),
        ('device.attributes["dra.example.com"].name', 4),
        ('device.attributes["dra.example.com"]["name"]', 4),
        ('cel.bind(dra, device.attributes["dra.example.com"], dra.name)', 15),
        ('device.attributes["dra.example.com"].name > 0', 5),
        ('device.attributes["dra.example.com"].name == "fish"', 5),
        ('device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1"))', 6),
        ('device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))', 6),
        (
            '"name" in device.capacity["dra.example.com"] && '
            'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))',
            10,
        ),
        (
            '!("name" in device.capacity["dra.example.com"]) || '
            'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))',
            11,
        ),
        (
            'device.attributes["dra.example.com"].a && device.attributes["dra.example.com"].b && '
            'device.attributes["dra.example.com"].c',
            12,
        ),
        ('device.attributes["dra.example.com"].name.exists(x, x > 0)', 5 + (3 + 3) * ATTRIBUTE_SIZE),
        ('device.attributes["dra.example.com"].names.all(x, x != "")', 5 + (2 + 2) * ATTRIBUTE_SIZE),
        (
            'device.attributes["dra.example.com"].names.all(x, x.isGreaterThan(semver("0.0.1")))',
            5 + (2 + 4) * ATTRIBUTE_SIZE,
        ),
    ],
)
def test_the_estimate_is_the_releases(expression, expected):
    assert cost(expression) == expected


def test_the_all_case_adds_up_its_ten_terms():
    """compile_test.go "all": 52."""
    terms = [
        'device.capacity["dra.example.com"].quantity.isGreaterThan(quantity("1Ki"))',
        'device.attributes["dra.example.com"].bool',
        'device.attributes["dra.example.com"].int > 0',
        'device.attributes["dra.example.com"].string == "fish"',
        'device.attributes["dra.example.com"].version.isGreaterThan(semver("0.0.1"))',
        'device.capacity["dra.example.com"]["quantity"].isGreaterThan(quantity("1Ki"))',
        'device.attributes["dra.example.com"]["bool"]',
        'device.attributes["dra.example.com"]["int"] > 0',
        'device.attributes["dra.example.com"]["string"] == "fish"',
        'device.attributes["dra.example.com"]["version"].isGreaterThan(semver("0.0.1"))',
    ]
    assert cost(" &&\n".join(terms)) == 52


def test_nested_comprehensions_over_every_attribute_exceed_the_limit():
    """costComprehension multiplies the range's size (32 entries per map) into each level: four
    levels pass 1,000,000 and the API server refuses the selector at create; three do not."""
    three = (
        "device.attributes.all(d, device.attributes[d].all(i, device.attributes[d].all(j, "
        "device.attributes[d][i] == device.attributes[d][j])))"
    )
    four = (
        "device.attributes.all(d, device.attributes[d].all(i, device.attributes[d].all(j, "
        "device.attributes[d].all(k, device.attributes[d][i] == device.attributes[d][j]))))"
    )
    assert not too_complex(_ENV.compile(three)) and cost(three) < SELECTOR_MAX_COST
    assert too_complex(_ENV.compile(four))
