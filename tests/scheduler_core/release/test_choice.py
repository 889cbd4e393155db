"""Which release a scenario is replayed as, and the sentence that says why."""

from __future__ import annotations

import pytest

from scheduler_core.release.choice import (
    ReleaseEvidence,
    ReleaseRequest,
    ReleaseSource,
    choose_release,
    rechoose,
)
from scheduler_core.release.gates import FeatureGateError
from scheduler_core.release.versions import Release, Version


def _evidence(source, minor, patch=0, where="here", gates=None):
    return ReleaseEvidence(source, Version(1, minor, patch), where, gates or {})


def test_nothing_said_is_the_default_release_with_a_sentence_naming_how_to_give_one():
    choice = choose_release([])
    assert choice.release.version == "v1.35.4"
    assert choice.source is ReleaseSource.DEFAULT
    assert "--release" in choice.sentence() and "does not say" in choice.sentence()


def test_the_strongest_evidence_decides_and_kubelets_only_bound_it_from_below():
    evidence = [
        _evidence(ReleaseSource.KUBELET_VERSION, 36, 1, "Node a: kubeletVersion v1.36.1"),
        _evidence(ReleaseSource.SERVER_VERSION, 34, 2, "version.yaml"),
    ]
    choice = choose_release(evidence)
    assert choice.release.minor == 34 and choice.source is ReleaseSource.SERVER_VERSION
    only_kubelets = choose_release(
        [_evidence(ReleaseSource.KUBELET_VERSION, 33), _evidence(ReleaseSource.KUBELET_VERSION, 36)]
    )
    assert only_kubelets.release.minor == 36
    assert "newest kubelet" in only_kubelets.sentence()


def test_an_unsupported_version_is_replayed_as_the_nearest_and_says_so():
    choice = choose_release([_evidence(ReleaseSource.SCHEDULER_IMAGE, 29, 4, "Pod kube-system/kube-scheduler-a")])
    assert choice.release.minor == 32
    assert not choice.exact
    assert "not a supported release" in choice.sentence()


def test_what_is_asked_wins_and_the_scheduler_gates_follow_only_their_own_release():
    gates = {"SchedulerAsyncPreemption": False}
    evidence = [_evidence(ReleaseSource.SCHEDULER_IMAGE, 34, 1, "Pod kube-system/kube-scheduler-a", gates)]
    from_dump = choose_release(evidence)
    assert not from_dump.rules.gates.enabled("SchedulerAsyncPreemption")
    asked = choose_release(evidence, ReleaseRequest(Release(36, 3)))
    assert asked.source is ReleaseSource.ASKED
    assert asked.rules.gates.enabled("SchedulerAsyncPreemption")  # v1.34's flags are not v1.36's
    again = rechoose(asked, ReleaseRequest())
    assert again.release.minor == 34 and not again.rules.gates.enabled("SchedulerAsyncPreemption")


def test_refused_gates_raise():
    with pytest.raises(FeatureGateError):
        choose_release([], ReleaseRequest(gates={"NoSuchGate": True}))


def test_the_choice_as_json_names_the_release_and_its_source():
    choice = choose_release([_evidence(ReleaseSource.SERVER_VERSION, 36, 2, "version.json")])
    payload = choice.to_json()
    assert payload["release"] == "v1.36" and payload["version"] == "v1.36.3"
    assert payload["source"] == "server-version" and payload["exact"] is True
