"""model/core.py: toleration matching, a pod's identity and life, and the copies every write makes."""

from __future__ import annotations

import copy
from datetime import datetime, timezone

import pytest

from scheduler_core.model.core import Node, Pod, PodResourceClaim, Taint, Toleration
from tests.scheduler_core.builders import make_pod

GPU_TAINT = Taint("dedicated", "gpu", "NoSchedule")


@pytest.mark.parametrize(
    ("toleration", "tolerates"),
    [
        pytest.param(Toleration("dedicated", "Equal", "gpu", "NoSchedule"), True, id="the same key, value and effect"),
        pytest.param(Toleration("dedicated", "Equal", "gpu"), True, id="an empty effect tolerates every effect"),
        pytest.param(Toleration("dedicated", "Equal", "cpu"), False, id="another value"),
        pytest.param(Toleration("dedicated", "Exists"), True, id="Exists ignores the value"),
        pytest.param(Toleration("", "Exists"), True, id="an empty key with Exists tolerates every taint"),
        pytest.param(Toleration("dedicated", "Exists", effect="NoExecute"), False, id="another effect"),
        pytest.param(Toleration("other", "Exists"), False, id="another key"),
    ],
)
def test_a_toleration_tolerates_a_taint_as_toleratesTaint_does(toleration, tolerates):
    assert toleration.tolerates(GPU_TAINT) is tolerates


def test_a_pods_key_and_life():
    pod = make_pod("web", "prod")
    assert (pod.key, repr(pod), pod.is_finished, pod.is_terminating) == ("prod/web", "Pod(prod/web)", False, False)
    assert make_pod("done", phase="Succeeded").is_finished and make_pod("failed", phase="Failed").is_finished
    assert make_pod("going", deletion_timestamp=datetime(2024, 5, 1, tzinfo=timezone.utc)).is_terminating


@pytest.mark.parametrize(
    "obj",
    [
        Pod("p", labels={"a": "b"}, node_name="n1", nominated_node_name="n2", resource_version=7),
        Node("n1", labels={"zone": "a"}, unschedulable=True, resource_version=3),
    ],
    ids=["a pod", "a node"],
)
def test_a_shallow_copy_is_a_new_object_holding_every_field_of_the_old(obj):
    copied = copy.copy(obj)
    assert copied is not obj and type(copied) is type(obj)
    assert all(getattr(copied, name) is getattr(obj, name) for name in type(obj).__slots__)
    copied.labels = {}
    assert obj.labels != {}  # the original is untouched


def test_a_pod_s_resource_claim_entry_is_written_as_the_api_writes_it():
    """PodResourceClaim is a Wire payload: the source not set is left out."""
    assert PodResourceClaim("gpu", claim_name="c").to_json() == {"name": "gpu", "resourceClaimName": "c"}
    assert PodResourceClaim("gpu", template_name="t").to_json() == {"name": "gpu", "resourceClaimTemplateName": "t"}
    assert PodResourceClaim.from_json({"name": "gpu", "resourceClaimName": "c"}) == PodResourceClaim("gpu", "c")
