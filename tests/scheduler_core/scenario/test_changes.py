"""The Changes document (../shared/spec/CHANGES.md "Input"): steps and operations read and checked, every
problem located (step, operation index, field, line); workloads the stand-ins read."""

from __future__ import annotations

import pytest

from scheduler_core.model import (
    AddNodesOp,
    CompleteOp,
    CordonOp,
    CreateOp,
    DeleteNodesOp,
    DeleteOp,
    DrainOp,
    NoticeCode,
    PatchOp,
    ScaleOp,
)
from scheduler_core.release.choice import ReleaseRequest
from scheduler_core.release.versions import release_named
from scheduler_core.scenario import ScenarioInvalid, load_scenario
from tests.scheduler_core.builders import changes_text, node_text, pod_text, scenario_text, workload_text


def problems(text: str) -> list:
    with pytest.raises(ScenarioInvalid) as raised:
        load_scenario(text)
    return raised.value.errors


def test_it_reads_every_operation_into_typed_operations():
    text = scenario_text(
        node_text("n1"),
        node_text("n2", labels=", zone: a"),
        pod_text("p", node_name="n1"),
        workload_text("Deployment", "web"),
        workload_text("Job", "etl"),
        changes_text(
            [
                "scale: {kind: Deployment, name: web, replicas: 3}",
                "drain: {node: n1}",
                "cordon: {node: n1}",
                "uncordon: {node: n1}",
                "addNodes: {like: n1, count: 2, prefix: pool-}",
                "deleteNodes: {selector: {zone: a}}",
                "patch: {kind: Node, name: n1, patch: {metadata: {labels: {disk: ssd}}}}",
                "create: {apiVersion: v1, kind: Pod, metadata: {name: q}, spec: {containers: [{name: c}]}}",
                "delete: {kind: Pod, name: p}",
                "complete: {kind: Job, name: etl}",
            ]
        ),
    )
    changes = load_scenario(text).changes
    kinds = [type(op.spec) for op in changes.steps[0].operations]
    assert kinds == [
        ScaleOp,
        DrainOp,
        CordonOp,
        CordonOp,
        AddNodesOp,
        DeleteNodesOp,
        PatchOp,
        CreateOp,
        DeleteOp,
        CompleteOp,
    ]
    assert changes.steps[0].operations[3].spec.unschedulable is False
    assert [w.kind for w in changes.workloads] == ["Deployment", "Job"]


def test_it_names_the_step_operation_field_and_line_of_a_node_that_does_not_exist():
    text = scenario_text(node_text("n1"), changes_text(["cordon: {node: n1}"], ["drain: {node: node-7}"]))
    [error] = problems(text)
    assert error.object == "Changes step 2 operation 0" and error.path == "steps[1].operations[0].drain.node"
    assert error.line == text.splitlines().index("  - drain: {node: node-7}") + 1
    assert "Node node-7 does not exist" in error.message


def test_it_refuses_to_scale_a_workload_that_does_not_exist():
    [error] = problems(
        scenario_text(node_text("n1"), changes_text(["scale: {kind: Deployment, name: api, replicas: 2}"]))
    )
    assert (
        error.path == "steps[0].operations[0].scale.name" and "Deployment default/api does not exist" in error.message
    )


def test_it_accepts_nodes_and_objects_an_earlier_step_creates_and_refuses_what_an_earlier_step_deleted():
    ok = scenario_text(
        node_text("n1"), changes_text(["addNodes: {like: n1, count: 1, prefix: extra-}"], ["drain: {node: extra-1}"])
    )
    assert len(load_scenario(ok).changes.steps) == 2
    gone = scenario_text(
        node_text("n1"), node_text("n2"), changes_text(["delete: {kind: Node, name: n2}"], ["cordon: {node: n2}"])
    )
    [error] = problems(gone)
    assert error.object == "Changes step 2 operation 0"


def test_it_refuses_an_unknown_operation_and_a_pod_patch():
    errors = problems(
        scenario_text(
            node_text("n1"),
            pod_text("p"),
            changes_text(["reboot: {node: n1}", "patch: {kind: Pod, name: p, patch: {metadata: {labels: {a: b}}}}"]),
        )
    )
    assert ["unknown operation" in e.message or "not modelled" in e.message for e in errors] == [True, True]


def test_a_patch_or_a_created_object_naming_a_field_no_release_knows_is_refused():
    # Strict field validation, as the API server's (scenario/unknown_fields.py).
    errors = problems(
        scenario_text(
            node_text("n1"),
            changes_text(
                [
                    "patch: {kind: Node, name: n1, patch: {spec: {replicas: banana}}}",
                    "create: {apiVersion: v1, kind: Pod, metadata: {name: p2}, "
                    "spec: {containers: [{name: c, image: x, resourcse: {}}]}}",
                ]
            ),
        )
    )
    assert [(e.path, e.message) for e in errors] == [
        ("steps[0].operations[0].patch.patch.spec.replicas", 'unknown field "spec.replicas"'),
        ("steps[0].operations[1].create.spec.containers[0].resourcse", 'unknown field "spec.containers[0].resourcse"'),
    ]
    fine = "patch: {kind: Node, name: n1, patch: {metadata: {labels: {a: b}}, spec: {unschedulable: true}}}"
    assert load_scenario(scenario_text(node_text("n1"), changes_text([fine]))).changes is not None


def test_it_reports_a_bad_template_at_load_time_located_in_the_workload():
    bad = workload_text("Deployment", "web", cpu="lots")
    errors = problems(scenario_text(node_text("n1"), bad, changes_text([])))
    assert any(e.object == "Deployment default/web" and "spec.template.spec.containers[0]" in e.path for e in errors)


def test_it_leaves_deployments_ignored_without_a_changes_document():
    scenario = load_scenario(scenario_text(node_text("n1"), workload_text("Deployment", "web")))
    assert scenario.changes is None
    assert any(n.code is NoticeCode.IGNORED_KINDS and "Deployment" in n.message for n in scenario.notices)
    with_steps = load_scenario(scenario_text(node_text("n1"), workload_text("Deployment", "web"), changes_text([])))
    assert not any(n.code is NoticeCode.IGNORED_KINDS for n in with_steps.notices)


def test_it_refuses_a_second_changes_document():
    errors = problems(scenario_text(node_text("n1"), changes_text([]), changes_text([])))
    assert any("only one Changes document" in e.message for e in errors)


def test_it_reads_stateful_set_claim_templates_policy_and_replica_set_revision():
    claims = "  podManagementPolicy: Parallel\n  volumeClaimTemplates:\n  - metadata: {name: data}\n    spec: {}\n"
    revision = "  annotations: {deployment.kubernetes.io/revision: '3'}\n"
    changes = load_scenario(
        scenario_text(
            node_text("n1"),
            workload_text("StatefulSet", "db", extra_spec=claims),
            workload_text("ReplicaSet", "rs", metadata=revision),
            changes_text([]),
        )
    ).changes
    db, rs = changes.workloads
    assert db.pod_management_policy == "Parallel" and [t["metadata"]["name"] for t in db.claim_templates] == ["data"]
    assert rs.revision == 3


def test_it_checks_the_api_version_and_duplicates_of_kinds_only_the_stand_ins_read():
    wrong = workload_text("Deployment", "web").replace("apiVersion: apps/v1", "apiVersion: extensions/v1beta1")
    errors = problems(scenario_text(node_text("n1"), wrong, workload_text("Deployment", "web"), changes_text([])))
    assert [e.path for e in errors] == ["apiVersion", "metadata.name"]


IGNORING = "apiVersion: schedlab.io/v1alpha1\nkind: Changes\nunusableWorkloads: Ignore\nsteps: []\n"
TRIMMED = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: trimmed, namespace: default}\nspec: {replicas: 2}\n"


def test_unusable_workloads_ignore_sets_aside_a_workload_the_controllers_cannot_use_and_names_why():
    scenario = load_scenario(scenario_text(node_text("n1"), workload_text("Deployment", "web"), TRIMMED, IGNORING))
    assert [w.name for w in scenario.changes.workloads] == ["web"]
    [unusable] = scenario.changes.unusable
    assert (unusable.label, unusable.reason) == (
        "Deployment default/trimmed",
        "spec.template: Required value (line 24)",
    )
    [notice] = [n for n in scenario.notices if n.code is NoticeCode.UNUSABLE_WORKLOADS]
    assert notice.objects == ("Deployment default/trimmed: spec.template: Required value (line 24)",)


def test_a_step_naming_a_workload_set_aside_is_refused_with_why():
    changes = IGNORING.replace(
        "steps: []\n", "steps:\n- operations:\n  - scale: {kind: Deployment, name: trimmed, replicas: 3}\n"
    )
    errors = problems(scenario_text(node_text("n1"), TRIMMED, changes))
    assert [e.message for e in errors] == [
        "Deployment default/trimmed cannot be used by the controllers: spec.template: Required value (line 10)"
    ]


def test_without_ignore_a_workload_the_controllers_cannot_use_is_an_error_as_before():
    errors = problems(scenario_text(node_text("n1"), TRIMMED, changes_text([])))
    assert [(e.object, e.path, e.message) for e in errors] == [
        ("Deployment default/trimmed", "spec.template", "Required value")
    ]
    errors = problems(scenario_text(node_text("n1"), IGNORING.replace("Ignore", "Sometimes")))
    assert [(e.path, e.message) for e in errors] == [
        ("unusableWorkloads", 'Unsupported value: "Sometimes": supported values: "Ignore", "Refuse"')
    ]


def test_a_typed_lists_api_version_is_its_items_for_the_kinds_only_the_stand_ins_read():
    listed = (
        "apiVersion: apps/v1\nkind: DeploymentList\nitems:\n"
        "- metadata: {name: web, namespace: default}\n  spec:\n    selector: {matchLabels: {app: web}}\n"
        "    template:\n      metadata: {labels: {app: web}}\n      spec: {containers: [{name: c, image: i}]}\n"
    )
    [web] = load_scenario(scenario_text(node_text("n1"), listed, changes_text([]))).changes.workloads
    assert (web.kind, web.name, web.replicas) == ("Deployment", "web", 1)  # replicas defaulted, as the API server does


# ---------------------------------------------------------------------------- set (rollouts)


def test_set_becomes_a_merge_patch_of_the_template_with_the_containers_rewritten():
    text = scenario_text(
        node_text("n1"),
        workload_text("Deployment", "web"),
        changes_text(["set: {name: web, image: 'nginx:1.27', requests: {memory: 2Gi}, nodeSelector: {disk: ssd}}"]),
    )
    [operation] = load_scenario(text).changes.steps[0].operations
    assert operation.verb == "set" and isinstance(operation.spec, PatchOp)
    pod_patch = operation.spec.patch["spec"]["template"]["spec"]
    assert pod_patch["nodeSelector"] == {"disk": "ssd"}
    assert pod_patch["containers"] == [
        {"name": "c", "image": "nginx:1.27", "resources": {"requests": {"cpu": "1", "memory": "2Gi"}}}
    ]


def test_set_reads_the_template_as_earlier_steps_left_it():
    text = scenario_text(
        node_text("n1"),
        workload_text("Deployment", "web"),
        changes_text(["set: {name: web, requests: {memory: 1Gi}}"], ["set: {name: web, limits: {memory: 2Gi}}"]),
    )
    second = load_scenario(text).changes.steps[1].operations[0].spec.patch
    assert second["spec"]["template"]["spec"]["containers"][0]["resources"] == {
        "requests": {"cpu": "1", "memory": "1Gi"},
        "limits": {"memory": "2Gi"},
    }


@pytest.mark.parametrize(
    ("operation", "path", "words"),
    [
        pytest.param(
            "set: {name: web, container: sidecar, image: x}",
            "steps[0].operations[0].set.container",
            'no container "sidecar" in the template (containers: c)',
            id="a container the template lacks",
        ),
        pytest.param(
            "set: {kind: ReplicaSet, name: web, image: x}",
            "steps[0].operations[0].set.kind",
            "set of a ReplicaSet is not modelled",
            id="a kind that has no rollout",
        ),
        pytest.param(
            "set: {name: api, image: x}",
            "steps[0].operations[0].set.name",
            "Deployment default/api does not exist",
            id="a Deployment that does not exist",
        ),
        pytest.param(
            "set: {name: web}",
            "steps[0].operations[0].set",
            "Required value: at least one of image",
            id="nothing to set",
        ),
        pytest.param(
            "set: {name: web, replicas: 3}",
            "steps[0].operations[0].set.replicas",
            'unknown field "replicas"',
            id="a field set does not take",
        ),
        pytest.param(
            "set: {name: web, requests: {memory: lots}}",
            "steps[0].operations[0].set.(as set) spec.template.spec.containers[0].resources.requests.memory",
            "lots",
            id="a request that is not a quantity, located at the operation",
        ),
    ],
)
def test_set_names_the_step_operation_field_and_line_of_each_problem(operation, path, words):
    text = scenario_text(node_text("n1"), workload_text("Deployment", "web"), changes_text([operation]))
    errors = problems(text)
    assert [e.path for e in errors] == [path] and words in errors[0].message
    assert errors[0].object == "Changes step 1 operation 0"
    assert errors[0].line == text.splitlines().index(f"  - {operation}") + 1


def test_a_patch_that_makes_the_template_invalid_is_reported_at_the_operation():
    operation = (
        "patch: {kind: Deployment, name: web, patch: {spec: {template: {spec: {containers: "
        "[{name: c, resources: {requests: {cpu: '-1'}}}]}}}}}"
    )
    text = scenario_text(node_text("n1"), workload_text("Deployment", "web"), changes_text([operation]))
    [error] = problems(text)
    assert error.path.startswith("steps[0].operations[0].patch.patch.spec.template.spec.containers[0]")
    assert error.line == text.splitlines().index(f"  - {operation}") + 1


@pytest.mark.parametrize(
    ("strategy", "words"),
    [
        pytest.param("{type: Blue}", 'Unsupported value: "Blue"', id="an unknown strategy type"),
        pytest.param(
            "{type: Recreate, rollingUpdate: {maxSurge: 1}}", "may not be specified", id="Recreate with bounds"
        ),
        pytest.param(
            "{rollingUpdate: {maxSurge: 0, maxUnavailable: 0}}",
            "may not be 0 when `maxSurge` is 0",
            id="both bounds zero",
        ),
        pytest.param(
            "{rollingUpdate: {maxUnavailable: 120%}}",
            "must not be greater than 100%",
            id="more than everything unavailable",
        ),
        pytest.param("{rollingUpdate: {maxSurge: lots}}", "a valid percent string", id="a bound that is no number"),
    ],
)
def test_it_validates_a_deployment_strategy_as_the_api_server_does(strategy, words):
    deployment = workload_text("Deployment", "web", extra_spec=f"  strategy: {strategy}\n")
    errors = problems(scenario_text(node_text("n1"), deployment, changes_text([])))
    assert len(errors) == 1 and words in errors[0].message and errors[0].object == "Deployment default/web"


@pytest.mark.parametrize(
    ("strategy", "words"),
    [
        pytest.param("{type: Sometimes}", 'Unsupported value: "Sometimes"', id="an unknown update strategy type"),
        pytest.param(
            "{type: OnDelete, rollingUpdate: {partition: 1}}",
            "only allowed for updateStrategy 'RollingUpdate'",
            id="OnDelete with a rolling update",
        ),
        pytest.param("{rollingUpdate: {partition: -1}}", "", id="a negative partition"),
    ],
)
def test_it_validates_a_stateful_set_update_strategy_as_the_api_server_does(strategy, words):
    stateful_set = workload_text("StatefulSet", "db", extra_spec=f"  updateStrategy: {strategy}\n")
    errors = problems(scenario_text(node_text("n1"), stateful_set, changes_text([])))
    assert len(errors) == 1 and words in errors[0].message and errors[0].object == "StatefulSet default/db"
    assert errors[0].path.startswith("spec.updateStrategy")


def test_a_stateful_set_max_unavailable_is_dropped_not_checked():
    """dropStatefulSetDisabledFields: with MaxUnavailableStatefulSet off (v1.35's default) the API
    server drops rollingUpdate.maxUnavailable before validating, so even 0 is accepted."""
    stateful_set = workload_text(
        "StatefulSet", "db", extra_spec="  updateStrategy: {rollingUpdate: {maxUnavailable: 0}}\n"
    )
    scenario = load_scenario(scenario_text(node_text("n1"), stateful_set, changes_text([])))
    assert [w.name for w in scenario.changes.workloads] == ["db"]


@pytest.mark.parametrize(
    ("field", "words"),
    [
        pytest.param("paused: maybe", "expected a boolean", id="paused is a boolean"),
        pytest.param("revisionHistoryLimit: -1", "must be between 0 and 2147483647", id="a negative history limit"),
        pytest.param("progressDeadlineSeconds: -5", "must be between 0 and 2147483647", id="a negative deadline"),
        pytest.param(
            "minReadySeconds: 30\n  progressDeadlineSeconds: 30",
            "must be greater than minReadySeconds",
            id="a deadline no longer than minReadySeconds",
        ),
    ],
)
def test_it_validates_the_deployment_fields_the_stand_in_reads(field, words):
    deployment = workload_text("Deployment", "web", extra_spec=f"  {field}\n")
    errors = problems(scenario_text(node_text("n1"), deployment, changes_text([])))
    assert len(errors) == 1 and words in errors[0].message and errors[0].object == "Deployment default/web"


@pytest.mark.parametrize(
    ("strategy", "words"),
    [
        pytest.param(
            "{type: Sometimes}", 'Unsupported value: "Sometimes"', id="an unknown daemon update strategy type"
        ),
        pytest.param(
            "{rollingUpdate: {maxUnavailable: 0}}",
            "cannot be 0 when maxSurge is 0",
            id="nothing unavailable and nothing surging",
        ),
        pytest.param(
            "{rollingUpdate: {maxSurge: 150%}}", "must not be greater than 100%", id="a surge above everything"
        ),
    ],
)
def test_it_validates_a_daemon_set_update_strategy_as_the_api_server_does(strategy, words):
    daemon_set = workload_text("DaemonSet", "agent", extra_spec=f"  updateStrategy: {strategy}\n")
    errors = problems(scenario_text(node_text("n1"), daemon_set, changes_text([])))
    assert len(errors) == 1 and words in errors[0].message and errors[0].object == "DaemonSet default/agent"


def test_a_second_workload_of_a_usable_ones_name_is_set_aside_and_the_first_stays_usable():
    twice = workload_text("Deployment", "web") + "---\n" + workload_text("Deployment", "web", replicas=3)
    changes = IGNORING.replace(
        "steps: []\n", "steps:\n- operations:\n  - scale: {kind: Deployment, name: web, replicas: 2}\n"
    )
    scenario = load_scenario(scenario_text(node_text("n1"), twice, changes))
    assert [(w.name, w.replicas) for w in scenario.changes.workloads] == [("web", 1)]
    assert [u.reason.split(" (")[0] for u in scenario.changes.unusable] == [
        'metadata.name: Duplicate value: Deployment "web" is defined twice'
    ]
    assert [op.spec.replicas for step in scenario.changes.steps for op in step.operations] == [2]


# ---------------------------------------------------------------------- what the release's API server refuses


ONFAILURE_INIT = "      initContainers:\n      - {name: setup, image: x, restartPolicy: OnFailure}\n"


def errors_as(release: str, text: str) -> list:
    """The scenario's problems when loaded as ``release`` (none: it loads)."""
    try:
        load_scenario(text, release=ReleaseRequest(release_named(release)))
    except ScenarioInvalid as invalid:
        return invalid.errors
    return []


@pytest.mark.parametrize("release, refused", [("v1.33", True), ("v1.34", False), ("v1.36", False)])
def test_a_workload_template_is_checked_with_the_releases_gated_pod_rules(release, refused):
    """v1.32 and v1.33 know no restart policy on an init container but Always: the API server
    validates a template's pod spec as a pod's, so the Deployment is refused, at its template."""
    text = scenario_text(node_text("n1"), workload_text("Deployment", "web", pod_spec=ONFAILURE_INIT), changes_text([]))
    expected = (
        "Deployment default/web",
        "spec.template.spec.initContainers[0].restartPolicy",
        'unsupported value "OnFailure": supported values: "Always"',
    )
    assert [(e.object, e.path, e.message) for e in errors_as(release, text)] == ([expected] if refused else [])


HOST_NETWORK_POD = (
    "create: {apiVersion: v1, kind: Pod, metadata: {name: extra}, "
    "spec: {hostNetwork: true, hostUsers: false, containers: [{name: c, image: x}]}}"
)


@pytest.mark.parametrize("release, refused", [("v1.32", False), ("v1.35", True)])
def test_a_pod_a_step_creates_is_checked_with_the_releases_gated_pod_rules(release, refused):
    """hostUsers: false beside hostNetwork is refused without UserNamespacesHostNetworkSupport; v1.32
    drops hostUsers (UserNamespacesSupport off), so there is nothing to refuse."""
    text = scenario_text(node_text("n1"), changes_text([HOST_NETWORK_POD]))
    expected = ("steps[0].operations[0].create.spec.hostNetwork", "Forbidden: when `hostUsers` is false")
    assert [(e.path, e.message) for e in errors_as(release, text)] == ([expected] if refused else [])


def test_objects_are_kept_for_a_changes_document_only_when_one_can_come():
    from scheduler_core.scenario.changes import ChangesInput, note_object
    from scheduler_core.scenario.fields import Context, Field

    obj = Field({"kind": "Pod"}, "", 1, Context("Pod p", []))
    kept, not_kept = ChangesInput(), ChangesInput(keep_objects=False)
    assert not note_object(obj, "Pod", kept) and not note_object(obj, "Pod", not_kept)
    assert kept.objects == [("Pod", "", obj)] and not_kept.objects == []
    assert note_object(obj, "Changes", not_kept) and not_kept.documents == [obj]  # the document itself always
