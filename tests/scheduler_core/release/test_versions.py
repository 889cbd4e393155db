"""Release names and the version strings clusters report."""

from __future__ import annotations

import pytest

from scheduler_core.release.versions import (
    DEFAULT_RELEASE,
    SUPPORTED_RELEASES,
    Release,
    UnknownRelease,
    Version,
    nearest_release,
    parse_version,
    release_named,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("v1.34.2", Version(1, 34, 2)),
        ("1.34", Version(1, 34)),
        ("v1.33.5-eks-113cf36", Version(1, 33, 5)),
        ("v1.32.3+k3s1", Version(1, 32, 3)),
        ("v1.31.4-gke.1256000", Version(1, 31, 4)),
        (" v1.36.0-rc.1 ", Version(1, 36, 0)),
    ],
)
def test_versions_are_read_in_every_spelling_clusters_report(text, expected):
    assert parse_version(text) == expected


@pytest.mark.parametrize("text", ["", "latest", "v1", "one.two", "1.x.3", "v1.34 extra words"])
def test_what_is_not_a_version_reads_as_none(text):
    assert parse_version(text) is None


def test_supported_releases_are_newest_first_and_the_default_is_one_of_them():
    minors = [release.minor for release in SUPPORTED_RELEASES]
    assert minors == sorted(minors, reverse=True) == [36, 35, 34, 33, 32]
    assert DEFAULT_RELEASE in SUPPORTED_RELEASES
    assert DEFAULT_RELEASE.version == "v1.35.4"


def test_a_release_is_named_by_its_minor_version_whatever_the_patch():
    assert release_named("v1.34") == Release(34, 9)
    assert release_named("1.36.1") == Release(36, 3)
    assert release_named("v1.32.13").version == "v1.32.13"


@pytest.mark.parametrize("text", ["v1.31", "v1.37", "2.0", "banana"])
def test_an_unsupported_release_is_refused_naming_the_supported_ones(text):
    with pytest.raises(UnknownRelease, match="v1.36, v1.35, v1.34, v1.33, v1.32"):
        release_named(text)


@pytest.mark.parametrize(
    ("version", "minor"),
    [(Version(1, 34, 2), 34), (Version(1, 29), 32), (Version(1, 38), 36), (Version(1, 36, 9), 36), (Version(2, 0), 36)],
)
def test_a_cluster_outside_the_supported_releases_is_replayed_as_the_nearest(version, minor):
    assert nearest_release(version).minor == minor
