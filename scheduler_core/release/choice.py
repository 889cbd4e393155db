"""Which release a scenario is replayed as, and why: what the user asked, else what the dump says.

The dump's evidence, strongest first: the kube-scheduler's own version (its static pod's image),
the API server's version as ``kubectl version``, sonobuoy or a support bundle recorded it (or an
OpenShift ClusterVersion, whose 4.N ships Kubernetes 1.(N+13)), the kube-apiserver pod's image,
and last the nodes' kubelets — a kubelet is never newer than its control plane, so the newest
kubelet bounds the release from below and is only a guess. Nothing said: the default release,
with a finding that names it and how to give another. A version outside the supported releases
is replayed as the nearest one, and the choice says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Mapping, Optional

from scheduler_core.util.wire import Wire
from scheduler_core.release.rules import Rules, rules_for
from scheduler_core.release.versions import (
    DEFAULT_RELEASE,
    Release,
    Version,
    nearest_release,
    supported_names,
)


class ReleaseSource(str, Enum):
    """Where the release came from, strongest first (the order ``choose_release`` weighs them in)."""

    ASKED = "asked"  # --release, the editor's selector, the API
    SCHEDULER_IMAGE = "kube-scheduler-image"  # the kube-scheduler static pod's image tag
    SERVER_VERSION = "server-version"  # kubectl version, sonobuoy's or a support bundle's record
    OPENSHIFT_VERSION = "openshift-version"  # an OpenShift ClusterVersion (4.N ships 1.(N+13))
    APISERVER_IMAGE = "kube-apiserver-image"  # the kube-apiserver static pod's image tag
    KUBELET_VERSION = "kubelet-version"  # the newest node's kubeletVersion: a lower bound only
    DEFAULT = "default"  # nothing said


_STRENGTH = {source: rank for rank, source in enumerate(ReleaseSource)}


@dataclass(frozen=True, slots=True)
class ReleaseEvidence:
    """One thing a dump says of its release: the version, and where it says it."""

    source: ReleaseSource
    version: Version
    where: str  # "Pod kube-system/kube-scheduler-cp-1: image registry.k8s.io/kube-scheduler:v1.35.4"
    feature_gates: Mapping[str, bool] = field(default_factory=dict)  # the scheduler's --feature-gates, if read


@dataclass(frozen=True, slots=True)
class ReleaseChoice:
    """The release a scenario is replayed as: its rules, and why."""

    rules: Rules
    source: ReleaseSource
    evidence: Optional[ReleaseEvidence] = None  # what decided it, or the dump's strongest when asked
    reported: Optional[Version] = None  # the cluster's own version, when the dump says it
    considered: tuple[ReleaseEvidence, ...] = ()  # everything the dump said (a later choice weighs it again)

    @property
    def release(self) -> Release:
        return self.rules.release

    @property
    def exact(self) -> bool:
        """Whether the cluster's reported minor release is the one replayed (or nothing was reported)."""
        return self.reported is None or (self.reported.major == 1 and self.reported.minor == self.release.minor)

    def sentence(self) -> str:
        """How the replay names its release to a user, with where it came from."""
        rules = self.rules.name
        if self.source is ReleaseSource.ASKED:
            if self.evidence is None:
                return f"replayed as kube-scheduler {rules} (asked for)"
            said = "the newest kubelet is" if self.evidence.source is ReleaseSource.KUBELET_VERSION else "the dump says"
            return (
                f"replayed as kube-scheduler {rules} (asked for; {said} {self.evidence.version}: {self.evidence.where})"
            )
        if self.source is ReleaseSource.DEFAULT:
            return (
                f"replayed as kube-scheduler {rules}: the dump does not say which release the cluster runs "
                f"(add `kubectl version -o yaml`'s output to it, or choose one: --release v1.34 on the command "
                f"line, the Release selector in the app; supported: {supported_names()})"
            )
        assert self.evidence is not None  # every other source is a piece of evidence
        said = f"{self.evidence.version} ({self.evidence.where})"
        if self.source is ReleaseSource.KUBELET_VERSION:
            lead = f"replayed as kube-scheduler {rules}: the newest kubelet is {said}; the control plane is at least that release"
        else:
            lead = f"replayed as kube-scheduler {rules}: the cluster runs {said}"
        if not self.exact:
            lead += f"; {self.evidence.version} is not a supported release, so the nearest one is replayed"
        return lead

    def wire(self) -> ReleaseSaid:
        return ReleaseSaid(
            self.release.name,
            self.release.version,
            self.source.value,
            self.evidence.where if self.evidence else None,
            str(self.reported) if self.reported else None,
            self.exact,
            dict(self.rules.gates.overrides),
            self.sentence(),
        )

    def to_json(self) -> dict[str, Any]:
        return self.wire().to_json()


class ReleaseSaid(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """The release replayed and why, as every answer that names its release writes it."""

    release: str  # "v1.36"
    version: str  # "v1.36.3": the patch release whose code is ported
    # asked, kube-scheduler-image, server-version, openshift-version, kube-apiserver-image,
    # kubelet-version (a lower bound only), default (the dump says nothing)
    source: str
    where: Optional[str]  # where the dump says it ("Pod kube-system/kube-scheduler-cp-1: image ...")
    reported: Optional[str]  # the cluster's own version, when the dump says it
    exact: bool  # false: the cluster's version is not a supported release; the nearest is replayed
    feature_gates: dict[str, bool]  # kube-scheduler's --feature-gates applied
    sentence: str  # "replayed as kube-scheduler v1.35.4: the cluster runs v1.35.2 (Pod ...)"


@dataclass(frozen=True, slots=True)
class ReleaseRequest:
    """What a user asks for: a release (--release, the editor's selector, the API) and the
    scheduler's --feature-gates; None leaves each to the dump."""

    release: Optional[Release] = None
    gates: Optional[Mapping[str, bool]] = None


def choose_release(evidence: list[ReleaseEvidence], request: ReleaseRequest = ReleaseRequest()) -> ReleaseChoice:
    """The release to replay: the one asked for when given, else the strongest evidence (among
    equals, the newest version), else the default. Gates: those asked for when given, else those
    the decisive evidence read off the cluster's scheduler (when it is the release replayed).
    Raises FeatureGateError for gates the release refuses."""
    considered = tuple(evidence)
    best = _strongest(evidence)
    if request.release is not None:
        release = request.release
        source, decisive = ReleaseSource.ASKED, best
    elif best is not None:
        release = nearest_release(best.version)
        source, decisive = best.source, best
    else:
        release, source, decisive = DEFAULT_RELEASE, ReleaseSource.DEFAULT, None
    gates = request.gates
    if gates is None:
        gates = best.feature_gates if best is not None and _same_minor(best, release) else {}
    reported = best.version if best is not None else None
    return ReleaseChoice(rules_for(release, gates), source, decisive, reported, considered)


def rechoose(choice: ReleaseChoice, request: ReleaseRequest) -> ReleaseChoice:
    """The choice again, with what the dump said and a new request (the web app's selector)."""
    return choose_release(list(choice.considered), request)


def _same_minor(evidence: ReleaseEvidence, release: Release) -> bool:
    return evidence.version.major == 1 and evidence.version.minor == release.minor


def _strongest(evidence: list[ReleaseEvidence]) -> Optional[ReleaseEvidence]:
    if not evidence:
        return None
    return min(
        evidence, key=lambda e: (_STRENGTH[e.source], -e.version.major, -e.version.minor, -(e.version.patch or 0))
    )


DEFAULT_CHOICE = ReleaseChoice(rules_for(DEFAULT_RELEASE), ReleaseSource.DEFAULT)
