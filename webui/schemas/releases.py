"""/api/releases: the releases a run can be replayed as (webui/routers/releases.py), and the release a
scenario, run or answer is replayed as and why (ReleaseOut: every router that names a release)."""

from __future__ import annotations

from pydantic import Field

from webui.schemas.common import ApiSchema


class ReleaseOut(ApiSchema):
    """The release replayed and why: scheduler_core.release.choice.ReleaseChoice.to_json()."""

    release: str  # "v1.36"
    version: str  # "v1.36.3": the patch release whose code is ported
    source: str = Field(
        description="asked, kube-scheduler-image, server-version, openshift-version, kube-apiserver-image, "
        "kubelet-version (a lower bound only), default (the dump says nothing)"
    )
    where: str | None  # where the dump says it ("Pod kube-system/kube-scheduler-cp-1: image ...")
    reported: str | None  # the cluster's own version, when the dump says it
    exact: bool  # false: the cluster's version is not a supported release; the nearest is replayed
    feature_gates: dict[str, bool]  # kube-scheduler's --feature-gates applied
    sentence: str  # "replayed as kube-scheduler v1.35.4: the cluster runs v1.35.2 (Pod ...)"


class GateOut(ApiSchema):
    name: str
    default: bool
    stage: str  # Alpha | Beta | GA
    locked: bool  # locked to its default (a GA gate that can no longer be turned off)


class SupportedReleaseOut(ApiSchema):
    name: str  # "v1.36": what a run's `release` takes
    version: str  # "v1.36.3"
    default: bool  # what a scenario that says nothing of its release is replayed as
    gates: list[GateOut]  # the feature gates its kube-scheduler reads, by name
