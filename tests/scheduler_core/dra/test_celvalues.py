"""The DRA CEL library's values shared without the interpreter: semantic versions, the cost limit."""

from __future__ import annotations

from scheduler_core.dra.celvalues import SELECTOR_MAX_COST, Semver, parse_semver


def test_semantic_versions_follow_semver_2():
    assert parse_semver("1.2.3-rc.1+build") == Semver(1, 2, 3, ("rc", "1"))
    assert parse_semver("01.2.3") is None


def test_a_pre_release_ranks_below_its_release_and_numbers_below_names():
    ordered = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0"]
    keys = [parse_semver(text).key() for text in ordered]
    assert keys == sorted(keys)


def test_the_selector_cost_limit_is_the_api_server_s():
    assert SELECTOR_MAX_COST == 1_000_000  # resourceapi.CELSelectorExpressionMaxCost
