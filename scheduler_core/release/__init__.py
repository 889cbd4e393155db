"""The release a replay follows: which kube-scheduler, with which feature gates.

Upstream models a release's behaviour in three places, and so does this package:

- ``versions``: the releases SchedLab replays (each one patch release whose code is ported) and
  how a version string a cluster reports is read;
- ``gates``: the feature gates the scheduler and the API server read, as ``pkg/features``'
  versioned specs give their defaults per release, with kube-scheduler's ``--feature-gates``;
- ``code``: what changed in the code itself between releases, not behind a gate (a formula, a
  message, a status code), each entry naming the release and the upstream change;
- ``rules``: the one value the engine takes — the release, its gates and the ``Features`` the
  plugins read (upstream's ``plugins/feature.Features``), and the default plugin set.

A plugin asks ``features.<name>``; nothing else in the engine compares release numbers.
"""

from scheduler_core.release.gates import FeatureGateError, FeatureGates, feature_gates
from scheduler_core.release.rules import DEFAULT_RULES, Features, Rules, rules_for
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

__all__ = [
    "DEFAULT_RELEASE",
    "DEFAULT_RULES",
    "FeatureGateError",
    "FeatureGates",
    "Features",
    "Release",
    "Rules",
    "SUPPORTED_RELEASES",
    "UnknownRelease",
    "Version",
    "feature_gates",
    "nearest_release",
    "parse_version",
    "release_named",
    "rules_for",
]
