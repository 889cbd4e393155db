"""scenario/objects.py: Node, Namespace, Service, workload, PriorityClass and PodDisruptionBudget
decoding, with the API server's defaulting and checks (SetDefaults_NodeStatus, ValidateNodeSpec's
unique taints, ValidatePriorityClass, ValidatePodDisruptionBudgetSpec)."""

from __future__ import annotations

from scheduler_core.model import (
    CPU,
    MEMORY,
    PODS,
    ContainerImage,
    LabelSelector,
    LabelSelectorRequirement,
    NodeCondition,
    Taint,
)
from scheduler_core.scenario.errors import ScenarioError
from scheduler_core.scenario.fields import Context, Field
from scheduler_core.scenario.limits import Limits
from scheduler_core.scenario.metadata import Metadata
from scheduler_core.scenario.objects import (
    decode_node,
    decode_pod_disruption_budget,
    decode_priority_class,
    decode_replication_controller,
    decode_service,
    decode_workload,
)
from scheduler_core.scenario.yamltree import compose

GI = 1 << 30


def _obj(text: str) -> tuple[Field, list[ScenarioError]]:
    [document], problems = compose(text, Limits())
    assert problems == []
    errors: list[ScenarioError] = []
    return Field(document.value, "", 1, Context("Object x", errors)), errors


def _messages(errors: list[ScenarioError]) -> list[tuple[str, str]]:
    return [(e.path, e.message) for e in errors]


def test_a_node_without_allocatable_gets_its_capacity():
    obj, errors = _obj(
        "spec:\n  unschedulable: true\nstatus:\n  capacity: {cpu: '2', memory: 4Gi, pods: '10'}\n"
        "  images:\n  - names: [nginx, 'nginx:1']\n    sizeBytes: 500\n"
        "  conditions:\n  - {type: Ready, status: 'True'}\n  - {type: NoStatus}\n"
    )
    node = decode_node(obj, Metadata("n1", labels={"zone": "a"}), doc_index=3)
    assert (node.name, node.labels, node.doc_index, node.unschedulable) == ("n1", {"zone": "a"}, 3, True)
    assert node.allocatable == {CPU: 2000, MEMORY: 4 * GI, PODS: 10}
    assert node.images == (ContainerImage(("nginx", "nginx:1"), 500),)
    assert node.conditions == (NodeCondition("Ready", "True"),)  # an entry without a status is passed over
    assert errors == []


def test_allocatable_wins_over_capacity():
    obj, _ = _obj("status:\n  capacity: {cpu: '4'}\n  allocatable: {cpu: 3500m}\n")
    assert decode_node(obj, Metadata("n1"), 0).allocatable == {CPU: 3500}


def test_taints_need_a_key_and_a_known_effect_and_are_unique_by_key_and_effect():
    obj, errors = _obj(
        "spec:\n  taints:\n  - {key: gpu, value: 'yes', effect: NoSchedule}\n"
        "  - {key: gpu, value: other, effect: NoSchedule}\n  - {key: gpu, effect: NoExecute}\n"
        "  - {effect: NoSchedule}\n  - {key: x, effect: Sometimes}\n"
    )
    node = decode_node(obj, Metadata("n1"), 0)
    assert node.taints == (Taint("gpu", "yes", "NoSchedule"), Taint("gpu", "", "NoExecute"))
    assert _messages(errors) == [
        ("spec.taints[1]", "taints must be unique by key and effect pair"),
        ("spec.taints[3].key", "Required value"),
        (
            "spec.taints[4].effect",
            'unsupported value "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
        ),
    ]


def test_a_service_keeps_its_selector():
    obj, _ = _obj("spec:\n  selector: {app: web}\n")
    service = decode_service(obj, Metadata("web", "shop"))
    assert (service.namespace, service.name, service.selector) == ("shop", "web", {"app": "web"})


def test_a_workload_needs_a_non_empty_selector():
    obj, errors = _obj("spec:\n  selector:\n    matchExpressions: [{key: app, operator: Exists}]\n")
    workload = decode_workload(obj, Metadata("rs", "default"), "ReplicaSet")
    assert workload.selector == LabelSelector((), (LabelSelectorRequirement("app", "Exists"),))
    empty, errors = _obj("spec:\n  selector: {}\n")
    decode_workload(empty, Metadata("rs", "default"), "ReplicaSet")
    missing, more = _obj("spec: {replicas: 1}\n")
    assert decode_workload(missing, Metadata("rs", "default"), "StatefulSet").selector is None
    assert _messages(errors) == [("spec.selector", "empty selector is invalid")]
    assert _messages(more) == [("spec.selector", "Required value")]


def test_a_replication_controller_selector_defaults_to_the_template_labels():
    obj, errors = _obj("spec:\n  template:\n    metadata:\n      labels: {app: web}\n")
    rc = decode_replication_controller(obj, Metadata("rc", "default"))
    assert rc.selector == LabelSelector((("app", "web"),)) and errors == []
    bare, errors = _obj("spec: {replicas: 2}\n")
    decode_replication_controller(bare, Metadata("rc", "default"))
    assert _messages(errors) == [("spec.selector", "Required value")]


def test_priority_classes_default_their_policy_and_guard_the_system_range():
    obj, errors = _obj("value: 1000\nglobalDefault: true\n")
    klass = decode_priority_class(obj, Metadata("high"))
    assert (klass.value, klass.global_default, klass.preemption_policy) == (1000, True, "PreemptLowerPriority")
    too_high, errors = _obj("value: 1000000001\n")
    decode_priority_class(too_high, Metadata("huge"))
    reserved, more = _obj("value: 5\npreemptionPolicy: Never\n")
    assert decode_priority_class(reserved, Metadata("system-mine")).preemption_policy == "Never"
    wrong_system, most = _obj("value: 5\n")
    decode_priority_class(wrong_system, Metadata("system-node-critical"))
    assert _messages(errors) == [
        ("value", "Invalid value: 1000000001: maximum allowed value of a user defined priority is 1000000000")
    ]
    assert _messages(more) == [
        (
            "metadata.name",
            'invalid value "system-mine": priority class names with "system-" prefix are reserved for system use only',
        )
    ]
    assert _messages(most) == [("value", "Invalid value: 5: the value of system-node-critical is 2000001000")]


def test_a_system_priority_class_without_a_value_is_told_the_value_is_required_once():
    obj, errors = _obj("globalDefault: false\n")
    assert decode_priority_class(obj, Metadata("system-node-critical")).value == 0
    assert _messages(errors) == [("value", "Required value")]


def test_a_budget_reads_its_status_and_refuses_both_bounds():
    obj, errors = _obj(
        "spec:\n  minAvailable: 1\n  maxUnavailable: 50%\n  selector: {matchLabels: {app: web}}\n"
        "status:\n  disruptionsAllowed: 2\n  disruptedPods: {web-1: '2024-01-01T00:00:00Z'}\n"
    )
    budget = decode_pod_disruption_budget(obj, Metadata("pdb", "default"))
    assert (budget.selector, budget.disruptions_allowed, budget.disrupted_pods) == (
        LabelSelector((("app", "web"),)),
        2,
        frozenset({"web-1"}),
    )
    assert _messages(errors) == [("spec", "minAvailable and maxUnavailable cannot be both set")]
    unseen, _ = _obj("spec:\n  minAvailable: 1\n")
    assert decode_pod_disruption_budget(unseen, Metadata("pdb", "default")).disruptions_allowed == 0


def test_declared_features_are_read_as_written():
    obj, errors = _obj(
        "status:\n  declaredFeatures: [ExtendWebSocketsToKubelet, RestartAllContainersOnContainerExits]\n"
    )
    node = decode_node(obj, Metadata("n1"), 0)
    assert node.declared_features == ("ExtendWebSocketsToKubelet", "RestartAllContainersOnContainerExits")
    assert errors == []


def test_declared_features_are_checked_as_validate_node_declared_features_does():
    obj, errors = _obj("status:\n  declaredFeatures: [Alpha, Zed, Zed, Beta, Good/sub, lowerCase]\n")
    decode_node(obj, Metadata("n1"), 0)
    shape = (
        "must start with an UpperCamelCase segment, with subsequent segments separated by '/' "
        "(e.g., MyFeature or MyFeature/mySubFeature), and contain only alphanumeric characters and slashes"
    )
    assert _messages(errors) == [
        ("status.declaredFeatures[2]", 'Duplicate value: "Zed"'),
        ("status.declaredFeatures[3]", 'Invalid value: "Beta": list must be sorted alphabetically'),
        ("status.declaredFeatures[5]", f'Invalid value: "lowerCase": invalid feature name "lowerCase": {shape}'),
    ]
