"""The releases SchedLab replays, and the version strings clusters report.

Each supported release is one minor version of Kubernetes, ported from one patch release's code
(the patch the conformance corpora were traced with). A cluster reports its version in many
spellings — ``v1.34.2``, ``v1.33.5-eks-113cf36``, ``v1.32.3+k3s1``, ``1.35``, a ``minor`` of
``"33+"`` — and ``parse_version`` reads them all; ``nearest_release`` maps any version to the
release that replays it (a version outside the supported ones to the nearest, said by the caller).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True, order=True, slots=True)
class Version:
    """A Kubernetes version as a cluster reports it: major.minor[.patch], the rest kept as text."""

    major: int
    minor: int
    patch: Optional[int] = None

    def __str__(self) -> str:
        return f"v{self.major}.{self.minor}" + (f".{self.patch}" if self.patch is not None else "")


_VERSION = re.compile(r"^\s*v?(\d{1,3})\.(\d{1,4})(?:\.(\d{1,6}))?(?:[-+.~_][0-9A-Za-z.+_~-]*)?\s*$")


def parse_version(text: str) -> Optional[Version]:
    """``v1.34.2``, ``1.34``, ``v1.33.5-eks-113cf36``, ``v1.32.3+k3s1`` -> Version; None for anything else."""
    match = _VERSION.match(text) if isinstance(text, str) else None
    if match is None:
        return None
    major, minor, patch = match.groups()
    return Version(int(major), int(minor), int(patch) if patch is not None else None)


@dataclass(frozen=True, order=True, slots=True)
class Release:
    """A release SchedLab replays: Kubernetes 1.<minor>, ported from 1.<minor>.<patch>."""

    minor: int
    patch: int

    @property
    def name(self) -> str:
        """``v1.36``: how users name it (``--release v1.36``)."""
        return f"v1.{self.minor}"

    @property
    def version(self) -> str:
        """``v1.36.3``: the patch release whose code is ported."""
        return f"v1.{self.minor}.{self.patch}"

    def __str__(self) -> str:
        return self.version


# Newest first, as users meet them. Each is offered only when it replays its release exactly
# (the conformance corpora of that release and the differential harness against its code).
SUPPORTED_RELEASES: tuple[Release, ...] = (
    Release(36, 3),
    Release(35, 4),
    Release(34, 9),
    Release(33, 13),
    Release(32, 13),
)
# What a scenario that says nothing of its release is replayed as: the release the project's
# corpora and specs are written for.
DEFAULT_RELEASE = Release(35, 4)


class UnknownRelease(ValueError):
    """A release name that cannot be read, or names no supported release; the message says which are."""


def supported_names() -> str:
    return ", ".join(release.name for release in SUPPORTED_RELEASES)


def release_named(text: str) -> Release:
    """``v1.34`` / ``1.34`` / ``v1.34.9`` -> the supported release of that minor version.

    A patch other than the ported one is accepted (it is the same release's rules); a minor
    version outside the supported ones is refused, naming them (a user asking for a release by
    name gets that release or an error, never another in silence)."""
    version = parse_version(text)
    if version is None or version.major != 1:
        raise UnknownRelease(
            f'"{text[:40]}" is not a Kubernetes release (expected e.g. v1.34); supported: {supported_names()}'
        )
    for release in SUPPORTED_RELEASES:
        if release.minor == version.minor:
            return release
    raise UnknownRelease(f"{version} is not a supported release; supported: {supported_names()}")


def nearest_release(version: Version) -> Release:
    """The release that replays a cluster of ``version``: its own when supported, else the nearest
    (the oldest for older clusters, the newest for newer ones)."""
    if version.major < 1:
        return SUPPORTED_RELEASES[-1]
    if version.major > 1:
        return SUPPORTED_RELEASES[0]
    return min(SUPPORTED_RELEASES, key=lambda release: (abs(release.minor - version.minor), -release.minor))
