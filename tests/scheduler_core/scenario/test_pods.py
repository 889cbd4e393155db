"""scenario/pods.py: what a Pod document turns into — its life (terminating, started, nominated,
preempted), owners, tolerations, spreading, pod-level resources, in-place resizes, claims and gates —
and the API server's validation of those fields, each problem with its path and line."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from scheduler_core.model import CPU, MEMORY, NoticeCode, OwnerReference, Toleration
from scheduler_core.release.choice import ReleaseRequest
from scheduler_core.release.versions import release_named
from scheduler_core.scenario import ScenarioInvalid, load_scenario
from tests.scheduler_core.scenario.support import CONTAINER, NODE, errors_of, line_of, pod, stream


def the_pod(spec: str = CONTAINER, extra_meta: str = "", status: str = ""):
    text = stream(NODE, pod(spec, extra_meta=extra_meta) + status)
    return load_scenario(text).pods[0]


def problems(spec: str = CONTAINER, extra_meta: str = "", status: str = "") -> list[tuple[str, str, int]]:
    text = stream(NODE, pod(spec, extra_meta=extra_meta) + status)
    return [(e.path, e.message, e.line) for e in errors_of(text)], text


# ---------------------------------------------------------------------- life: terminating, started, nominated


def test_it_reads_the_pods_life_from_metadata_and_status():
    status = """status:
  phase: Running
  startTime: "2024-05-01T10:00:00Z"
  nominatedNodeName: n1
  conditions:
  - {type: DisruptionTarget, status: "True", reason: PreemptionByScheduler}
"""
    found = the_pod(
        CONTAINER + "nodeName: n1\n", extra_meta='deletionTimestamp: "2024-05-01T10:05:00+02:00"', status=status
    )
    assert found.phase == "Running"
    assert found.start_time == datetime(2024, 5, 1, 10, 0, tzinfo=timezone.utc)
    assert found.deletion_timestamp == datetime(2024, 5, 1, 8, 5, tzinfo=timezone.utc)
    assert (found.nominated_node_name, found.preempted_by_scheduler) == ("n1", True)


@pytest.mark.parametrize(
    "condition",
    [
        '{type: DisruptionTarget, status: "False", reason: PreemptionByScheduler}',
        '{type: DisruptionTarget, status: "True", reason: EvictionByEvictionAPI}',
        '{type: Ready, status: "True", reason: PreemptionByScheduler}',
    ],
    ids=["a DisruptionTarget that is not True", "a disruption by another component", "another condition"],
)
def test_only_the_schedulers_own_disruption_marks_a_victim(condition):
    found = the_pod(status=f"status:\n  conditions:\n  - {condition}\n")
    assert found.preempted_by_scheduler is False


def test_a_time_without_a_zone_is_utc():
    found = the_pod(status='status:\n  startTime: "2024-05-01T10:00:00"\n')
    assert found.start_time == datetime(2024, 5, 1, 10, 0, tzinfo=timezone.utc)


def test_a_time_that_is_not_rfc_3339_is_an_error_at_its_line():
    found, text = problems(status="status:\n  startTime: yesterday\n")
    assert found == [
        (
            "status.startTime",
            'invalid value "yesterday": expected an RFC 3339 time such as "2024-05-01T10:00:00Z"',
            line_of(text, "startTime"),
        )
    ]


# ---------------------------------------------------------------------- owners


def test_it_reads_owner_references():
    meta = """ownerReferences:
- {apiVersion: apps/v1, kind: ReplicaSet, name: web-5d8f, uid: u-1, controller: true}
- {kind: Node, name: n1}
"""
    assert the_pod(extra_meta=meta).owner_references == (
        OwnerReference("ReplicaSet", "web-5d8f", "apps/v1", True, "u-1"),
        OwnerReference("Node", "n1", "", False, ""),
    )


def test_an_owner_needs_a_kind_and_a_name_and_only_one_controller():
    meta = """ownerReferences:
- {kind: ReplicaSet, name: a, controller: true}
- {name: b, controller: true}
"""
    found, text = problems(extra_meta=meta)
    assert ("metadata.ownerReferences[1].kind", "Required value", line_of(text, "{name: b")) in found
    assert (
        "metadata.ownerReferences",
        "Only one reference can have Controller set to true",
        line_of(text, "ownerReferences:"),
    ) in found


# ---------------------------------------------------------------------- tolerations


def test_it_reads_tolerations_with_the_default_operator():
    spec = (
        CONTAINER
        + """tolerations:
- {key: dedicated, value: gpu, effect: NoSchedule}
- {operator: Exists}
- {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
"""
    )
    assert the_pod(spec).tolerations == (
        Toleration("dedicated", "Equal", "gpu", "NoSchedule"),
        Toleration("", "Exists", "", ""),
        Toleration("node.kubernetes.io/not-ready", "Exists", "", "NoExecute", 300),
    )


@pytest.mark.parametrize(
    ("toleration", "path", "message"),
    [
        (
            "{value: x}",
            "operator",
            'invalid value "Equal": operator must be Exists when `key` is empty, '
            'which means "match all values and all keys"',
        ),
        ("{key: k, operator: Exists, value: x}", "operator", "value must be empty when `operator` is 'Exists'"),
        ("{key: k, operator: Matches}", "operator", 'unsupported value "Matches": supported values: "Equal", "Exists"'),
        (
            "{key: k, effect: NoRun}",
            "effect",
            'unsupported value "NoRun": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
        ),
        (
            "{key: k, effect: NoSchedule, tolerationSeconds: 5}",
            "effect",
            "effect must be 'NoExecute' when `tolerationSeconds` is set",
        ),
    ],
    ids=[
        "an empty key needs Exists",
        "Exists takes no value",
        "an unknown operator",
        "an unknown effect",
        "tolerationSeconds only with NoExecute",
    ],
)
def test_an_invalid_toleration_is_refused_at_its_field(toleration, path, message):
    found, text = problems(CONTAINER + f"tolerations:\n- {toleration}\n")
    assert found == [(f"spec.tolerations[0].{path}", message, line_of(text, toleration))]


# ---------------------------------------------------------------------- topology spread


def test_two_constraints_on_the_same_key_and_action_are_a_duplicate():
    spec = (
        CONTAINER
        + """topologySpreadConstraints:
- {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: a}}}
- {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: b}}}
- {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}
"""
    )
    found, text = problems(spec)
    assert found == [
        ("spec.topologySpreadConstraints[1]", 'Duplicate value: {"zone", "DoNotSchedule"}', line_of(text, "maxSkew: 2"))
    ]


# ---------------------------------------------------------------------- pod-level resources and resizes


def test_pod_level_limits_default_the_requests_the_pod_does_not_make():
    spec = """containers:
- name: c
  image: nginx
  resources: {requests: {cpu: 200m, memory: 64Mi}}
- name: d
  image: nginx
  resources: {requests: {cpu: 300m}}
resources:
  requests: {memory: 256Mi}
  limits: {cpu: '2', memory: 1Gi, hugepages-2Mi: 4Mi}
"""
    assert the_pod(spec).pod_level_requests == {CPU: 500, MEMORY: 256 << 20, "hugepages-2Mi": 4 << 20}


def test_pod_level_requests_without_limits_stay_as_written():
    spec = CONTAINER + "resources:\n  requests: {cpu: '1'}\n"
    assert the_pod(spec).pod_level_requests == {CPU: 1000}


POD_LEVEL = CONTAINER + "resources: {requests: {cpu: '1'}}\n"


@pytest.mark.parametrize("release, kept", [("v1.32", False), ("v1.33", False), ("v1.34", True), ("v1.36", True)])
def test_pod_level_resources_are_dropped_where_the_gate_is_off_and_said(release, kept):
    """PodLevelResources is off in v1.32 and v1.33: the API server drops spec.resources on create
    (the scheduler counts the containers' requests); on from v1.34."""
    scenario = load_scenario(stream(NODE, pod(POD_LEVEL)), release=ReleaseRequest(release_named(release)))
    assert scenario.pods[0].pod_level_requests == ({CPU: 1000} if kept else {})
    notices = [n for n in scenario.notices if n.code is NoticeCode.POD_FEATURE_OFF]
    if kept:
        assert notices == []
    else:
        [notice] = notices
        assert notice.objects == ("Pod default/web-1: spec.resources (PodLevelResources)",)
        assert f"off in {release}" in notice.message


def test_an_upgrade_replay_settles_the_pods_as_written_again():
    """Loaded as v1.33 (spec.resources dropped), replayed as v1.34: the field is back."""
    from scheduler_core.release import rules_for
    from scheduler_core.release.choice import ReleaseChoice, ReleaseSource
    from scheduler_core.scenario.dra import replayed_as

    old = load_scenario(stream(NODE, pod(POD_LEVEL)), release=ReleaseRequest(release_named("v1.33")))
    new_choice = ReleaseChoice(
        rules_for(release_named("v1.34")), ReleaseSource.ASKED, old.release.evidence, old.release.reported
    )
    assert replayed_as(old, new_choice).pods[0].pod_level_requests == {CPU: 1000}
    assert old.pods[0].pod_level_requests == {}  # the loaded scenario is left as it was


def test_it_reads_an_in_place_resize_from_the_container_statuses():
    status = """status:
  containerStatuses:
  - name: c
    allocatedResources: {cpu: 500m}
    resources: {requests: {cpu: 250m}}
  - {allocatedResources: {cpu: 9}}
  conditions:
  - {type: PodResizePending, reason: Infeasible}
"""
    found = the_pod(status=status)
    assert list(found.container_statuses) == ["c"], "a status without a container name is skipped"
    assert (found.container_statuses["c"].allocated, found.container_statuses["c"].actuated) == ({CPU: 500}, {CPU: 250})
    assert found.resize_infeasible is True


def test_a_deferred_resize_is_not_infeasible():
    found = the_pod(status="status:\n  conditions:\n  - {type: PodResizePending, reason: Deferred}\n")
    assert found.resize_infeasible is False


# ---------------------------------------------------------------------- claims, gates, scheduling fields


def test_it_reads_resource_claims_gates_scheduler_and_preemption_policy():
    spec = (
        CONTAINER
        + """resourceClaims:
- {name: gpu, resourceClaimName: shared-gpu}
- {name: scratch, resourceClaimTemplateName: scratch-template}
schedulingGates:
- {name: example.com/wait}
schedulerName: my-scheduler
preemptionPolicy: Never
priority: 7
"""
    )
    found = the_pod(spec)
    assert (found.resource_claims, found.scheduling_gates) == (("gpu", "scratch"), ("example.com/wait",))
    assert (found.scheduler_name, found.preemption_policy, found.priority) == ("my-scheduler", "Never", 7)


def test_an_empty_scheduler_name_is_the_default_scheduler():
    assert the_pod(CONTAINER + 'schedulerName: ""\n').scheduler_name == "default-scheduler"


@pytest.mark.parametrize(
    "claim",
    ["{name: gpu}", "{name: gpu, resourceClaimName: a, resourceClaimTemplateName: b}"],
    ids=["a claim without a source", "a claim with two sources"],
)
def test_a_resource_claim_names_exactly_one_source(claim):
    found, text = problems(CONTAINER + f"resourceClaims:\n- {claim}\n")
    assert found == [
        (
            "spec.resourceClaims[0]",
            "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`",
            line_of(text, claim),
        )
    ]


def test_an_unknown_preemption_policy_is_refused():
    found, text = problems(CONTAINER + "preemptionPolicy: Sometimes\n")
    assert [(path, line) for path, _, line in found] == [("spec.preemptionPolicy", line_of(text, "Sometimes"))]
    assert "Sometimes" in found[0][1]


def test_a_pod_without_spec_is_an_error_naming_the_field():
    text = stream(NODE, "apiVersion: v1\nkind: Pod\nmetadata: {name: bare}\n")
    assert [(e.object, e.path, e.message) for e in errors_of(text)] == [("Pod default/bare", "spec", "Required value")]


# ---------------------------------------------------------------------- pods written alike, decoded once

TEMPLATE = (
    CONTAINER
    + """\
  resources:
    requests: {cpu: 500m, memory: 1Gi}
  ports:
  - containerPort: 80
initContainers:
- name: init
  image: busybox
  restartPolicy: Always
tolerations:
- {key: gpu, operator: Exists, effect: NoSchedule}
affinity:
  podAntiAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
    - labelSelector: {matchLabels: {app: web}}
      topologyKey: kubernetes.io/hostname
topologySpreadConstraints:
- {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}
volumes:
- name: data
  persistentVolumeClaim: {claimName: data}
nodeSelector: {disk: ssd}
overhead: {cpu: 100m}
resources:
  limits: {cpu: "2"}
"""
)


def test_pods_written_alike_share_what_their_spec_decodes_to_and_equal_it_decoded_alone():
    from scheduler_core.scenario.pods import SPEC_FIELDS

    first, second = load_scenario(stream(NODE, pod(TEMPLATE, "web-1"), pod(TEMPLATE + "nodeName: n1\n", "web-2"))).pods
    alone = load_scenario(stream(NODE, pod(TEMPLATE + "nodeName: n1\n", "web-2"))).pods[0]
    assert second.containers is first.containers  # decoded once
    assert (first.node_name, second.node_name) == ("", "n1")  # nodeName is each pod's own
    for name in SPEC_FIELDS:
        assert getattr(second, name) == getattr(alone, name), name


def test_a_spec_with_an_error_is_reported_for_every_pod_written_with_it_at_its_own_line():
    bad = CONTAINER + "tolerations:\n- {key: gpu, operator: Sometimes}\n"
    text = stream(NODE, pod(bad, "web-1"), pod(bad, "web-2"))
    found = [(e.object, e.path, e.line) for e in errors_of(text)]
    lines = [number for number, line in enumerate(text.splitlines(), start=1) if "operator: Sometimes" in line]
    assert found == [
        ("Pod default/web-1", "spec.tolerations[0].operator", lines[0]),
        ("Pod default/web-2", "spec.tolerations[0].operator", lines[1]),
    ]


def test_a_value_written_as_another_type_is_another_spec():
    # 1 and true are equal keys in Python; the second must still be refused as not an integer.
    text = stream(NODE, pod(CONTAINER + "priority: 1\n", "web-1"), pod(CONTAINER + "priority: true\n", "web-2"))
    assert [(e.object, e.path) for e in errors_of(text)] == [("Pod default/web-2", "spec.priority")]


def test_a_reused_spec_still_checks_each_pods_own_node_name():
    text = stream(NODE, pod(CONTAINER + "nodeName: n1\n", "web-1"), pod(CONTAINER + "nodeName: Not_A_Node\n", "web-2"))
    assert [(e.object, e.path) for e in errors_of(text)] == [("Pod default/web-2", "spec.nodeName")]


# ---------------------------------------------------------------------- what NodeDeclaredFeatures reads


def test_it_reads_host_network_host_users_and_restart_rule_actions():
    spec = """\
hostNetwork: true
hostUsers: false
containers:
- name: c
  image: nginx
  restartPolicy: Never
  restartPolicyRules:
  - {action: Restart, exitCodes: {operator: In, values: [1]}}
  - {action: RestartAllContainers, exitCodes: {operator: NotIn, values: [0]}}
"""
    text = stream(NODE, pod(spec))
    request = ReleaseRequest(release_named("v1.36"), {"UserNamespacesHostNetworkSupport": True})
    [read] = load_scenario(text, release=request).pods
    assert (read.host_network, read.host_users) == (True, False)
    assert read.containers[0].restart_rule_actions == ("Restart", "RestartAllContainers")


def test_a_pod_leaves_host_users_unset_by_default():
    read = the_pod()
    assert (read.host_network, read.host_users) == (False, None)


@pytest.mark.parametrize(
    "rule, path, message",
    [
        pytest.param(
            "{action: Explode, exitCodes: {operator: In, values: [1]}}",
            "spec.containers[0].restartPolicyRules[0].action",
            'unsupported value "Explode": supported values: "Restart", "RestartAllContainers"',
            id="an unknown action",
        ),
        pytest.param(
            "{action: Restart}",
            "spec.containers[0].restartPolicyRules[0].exitCodes",
            "Required value: must be specified",
            id="a rule without exit codes",
        ),
        pytest.param(
            "{action: Restart, exitCodes: {operator: Maybe}}",
            "spec.containers[0].restartPolicyRules[0].exitCodes.operator",
            'unsupported value "Maybe": supported values: "In", "NotIn"',
            id="an unknown operator",
        ),
    ],
)
def test_restart_rules_are_checked_as_validate_container_restart_policy_does(rule, path, message):
    spec = f"containers:\n- name: main\n  image: nginx\n  restartPolicy: Never\n  restartPolicyRules:\n  - {rule}\n"
    found, _ = problems(spec)
    assert [(p, m) for p, m, _ in found] == [(path, message)]


def test_restart_rules_need_a_container_restart_policy():
    spec = "containers:\n- name: main\n  image: nginx\n  restartPolicyRules:\n  - {action: Restart, exitCodes: {operator: In}}\n"
    found, _ = problems(spec)
    assert [(p, m) for p, m, _ in found] == [
        ("spec.containers[0].restartPolicy", "Required value: must specify restartPolicy when restart rules are used")
    ]


RESTART_ALL = (
    "containers:\n- name: main\n  image: nginx\n  restartPolicy: Never\n  restartPolicyRules:\n"
    "  - {action: RestartAllContainers, exitCodes: {operator: In, values: [42]}}\n"
)


@pytest.mark.parametrize(
    "release, gates, refused",
    [
        pytest.param("v1.36", None, False, id="v1.36 allows RestartAllContainers"),
        pytest.param("v1.35", None, True, id="v1.35 refuses it with its gate off"),
        pytest.param(
            "v1.35",
            {"RestartAllContainersOnContainerExits": True, "NodeDeclaredFeatures": True},
            False,
            id="v1.35 allows it with its gate on",
        ),
    ],
)
def test_a_restart_all_containers_action_needs_its_gate(release, gates, refused):
    text = stream(NODE, pod(RESTART_ALL))
    request = ReleaseRequest(release_named(release), gates)
    if refused:
        with pytest.raises(ScenarioInvalid) as raised:
            load_scenario(text, release=request)
        assert [(e.path, e.message) for e in raised.value.errors] == [
            (
                "spec.containers[0].restartPolicyRules[0].action",
                'Unsupported value: "RestartAllContainers": supported values: "Restart"',
            )
        ]
    else:
        [read] = load_scenario(text, release=request).pods
        assert read.containers[0].restart_rule_actions == ("RestartAllContainers",)


def test_before_container_restart_rules_the_api_server_drops_the_rules():
    [read] = load_scenario(stream(NODE, pod(RESTART_ALL)), release=ReleaseRequest(release_named("v1.34"))).pods
    assert read.containers[0].restart_rule_actions == ()


def test_host_network_in_a_user_namespace_needs_user_namespaces_host_network_support():
    text = stream(NODE, pod(CONTAINER + "hostNetwork: true\nhostUsers: false\n"))
    with pytest.raises(ScenarioInvalid) as raised:
        load_scenario(text, release=ReleaseRequest(release_named("v1.36")))
    assert [(e.path, e.message) for e in raised.value.errors] == [
        ("spec.hostNetwork", "Forbidden: when `hostUsers` is false")
    ]


INIT_NEVER = CONTAINER + "initContainers: [{name: i, image: busybox, restartPolicy: Never}]\n"


@pytest.mark.parametrize(
    "release, policy, refused",
    [
        pytest.param("v1.33", "", 'unsupported value "Never": supported values: "Always"', id="v1.33 refuses it"),
        pytest.param("v1.34", "", None, id="v1.34 drops it (ContainerRestartRules off)"),
        pytest.param("v1.35", "Never", None, id="v1.35 on keep it (ContainerRestartRules on)"),
    ],
)
def test_an_init_containers_restart_policy_other_than_always_follows_container_restart_rules(release, policy, refused):
    text = stream(NODE, pod(INIT_NEVER))
    request = ReleaseRequest(release_named(release))
    if refused:
        with pytest.raises(ScenarioInvalid) as raised:
            load_scenario(text, release=request)
        assert [(e.path, e.message) for e in raised.value.errors] == [("spec.initContainers[0].restartPolicy", refused)]
    else:
        [read] = load_scenario(text, release=request).pods
        assert read.init_containers[0].restart_policy == policy


def test_rules_on_a_sidecar_need_restart_all_containers_on_container_exits():
    spec = (
        "containers:\n- name: main\n  image: nginx\ninitContainers:\n- name: side\n  image: nginx\n"
        "  restartPolicy: Always\n  restartPolicyRules:\n  - {action: Restart, exitCodes: {operator: In, values: [1]}}\n"
    )
    text = stream(NODE, pod(spec))
    with pytest.raises(ScenarioInvalid) as raised:
        load_scenario(text, release=ReleaseRequest(release_named("v1.35")))
    assert [(e.path, e.message) for e in raised.value.errors] == [
        (
            "spec.initContainers[0].restartPolicyRules",
            "Forbidden: restartPolicyRules are not allowed for init containers with restart policy Always",
        )
    ]
    [read] = load_scenario(text, release=ReleaseRequest(release_named("v1.36"))).pods
    assert read.init_containers[0].restart_rule_actions == ("Restart",)


def test_before_v1_34_a_regular_container_may_not_have_a_restart_policy():
    text = stream(NODE, pod("containers:\n- name: main\n  image: nginx\n  restartPolicy: Never\n"))
    with pytest.raises(ScenarioInvalid) as raised:
        load_scenario(text, release=ReleaseRequest(release_named("v1.33")))
    assert [(e.path, e.message) for e in raised.value.errors] == [
        ("spec.containers[0].restartPolicy", "Forbidden: may not be set for non-init containers")
    ]
    [read] = load_scenario(text, release=ReleaseRequest(release_named("v1.35"))).pods
    assert read.containers[0].restart_policy == "Never"


def test_the_claim_the_scheduler_made_for_extended_resources_is_read_from_the_status():
    from scheduler_core.model import ContainerExtendedResourceRequest, ExtendedResourceClaimStatus
    from scheduler_core.scenario import load_scenario

    text = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: train, namespace: default}\n"
        "spec:\n  nodeName: n1\n  containers:\n  - name: main\n"
        "    resources: {requests: {example.com/gpu: '1'}, limits: {example.com/gpu: '1'}}\n"
        "status:\n  phase: Running\n  extendedResourceClaimStatus:\n"
        "    resourceClaimName: train-extended-resources-abcde\n"
        "    requestMappings:\n"
        "    - {containerName: main, resourceName: example.com/gpu, requestName: container-0-request-0}\n"
        "---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
        "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n"
    )
    [train] = load_scenario(text).pods
    assert train.extended_resource_claim == ExtendedResourceClaimStatus(
        "train-extended-resources-abcde",
        (ContainerExtendedResourceRequest("main", "example.com/gpu", "container-0-request-0"),),
    )
