"""pod_topology_spread/common.py: what PodTopologySpread's Filter and Score share (podtopologyspread/
common.go, helper.DefaultSelector, countPodsMatchSelector) and Go's float arithmetic."""

from __future__ import annotations

import math
from datetime import datetime, timezone

from scheduler_core.framework.node_info import NodeInfo, PodInfo
from scheduler_core.model import (
    LABEL_HOSTNAME,
    LabelSelector,
    LabelSelectorRequirement,
    OwnerReference,
    Service,
    Taint,
    Toleration,
    TopologySpreadConstraint,
    Workload,
)
from scheduler_core.plugins.pod_topology_spread.common import (
    Constraint,
    InclusionPolicy,
    LabelIndex,
    MatchCounter,
    SpreadingListers,
    count_matching,
    default_selector,
    go_log,
    go_round,
    node_has_all_keys,
    resolve_constraints,
)
from tests.scheduler_core.builders import make_node, make_pod

APP_WEB = LabelSelector((("app", "web"),))
DELETED = datetime(2024, 1, 1, tzinfo=timezone.utc)


def _spec(action: str, **fields) -> TopologySpreadConstraint:
    fields = {"max_skew": 1, "topology_key": "zone", "label_selector": APP_WEB, **fields}
    return TopologySpreadConstraint(when_unsatisfiable=action, **fields)


def _node_info(name: str, *pods) -> NodeInfo:
    info = NodeInfo(make_node(name))
    for pod in pods:
        info.add_pod(PodInfo(pod))
    return info


def test_resolve_constraints_keeps_those_of_the_action_with_upstream_defaults():
    """filterTopologySpreadConstraints: minDomains 1, nodeAffinityPolicy Honor, nodeTaintsPolicy Ignore."""
    resolved = resolve_constraints([_spec("DoNotSchedule"), _spec("ScheduleAnyway", max_skew=3)], "DoNotSchedule", {})
    assert resolved == [Constraint(max_skew=1, topology_key="zone", selector=APP_WEB)]
    only = resolved[0]
    assert (only.min_domains, only.honor_node_affinity, only.honor_node_taints) == (1, True, False)


def test_resolve_constraints_reads_the_policies_and_merges_match_label_keys():
    spec = _spec(
        "ScheduleAnyway",
        min_domains=3,
        node_affinity_policy="Ignore",
        node_taints_policy="Honor",
        match_label_keys=("rev", "absent"),
    )
    [constraint] = resolve_constraints([spec], "ScheduleAnyway", {"rev": "7", "app": "web"})
    assert (constraint.min_domains, constraint.honor_node_affinity, constraint.honor_node_taints) == (3, False, True)
    # only the key the pod carries is merged, as `key In (value)`
    assert constraint.selector == LabelSelector((("app", "web"),), (LabelSelectorRequirement("rev", "In", ("7",)),))


def test_a_constraint_knows_the_hostname_key():
    assert Constraint(1, LABEL_HOSTNAME, None).is_hostname
    assert not Constraint(1, "zone", None).is_hostname


def test_default_selector_unions_the_services_that_select_the_pod_in_its_namespace():
    """helper.DefaultSelector: a Service elsewhere, or one not selecting the pod, adds nothing."""
    pod = make_pod("p", labels={"app": "web", "tier": "front"})
    services = [
        Service("default", "web", {"app": "web"}),
        Service("default", "front", {"tier": "front"}),
        Service("other", "elsewhere", {"zone": "x"}),
        Service("default", "db", {"app": "db"}),
    ]
    assert default_selector(pod, services, []) == LabelSelector((("app", "web"), ("tier", "front")))


def test_default_selector_adds_a_replica_set_selector_as_requirements():
    owner = OwnerReference(kind="ReplicaSet", name="rs", api_version="apps/v1", controller=True)
    pod = make_pod("p", labels={"app": "web"}, owner_references=(owner,))
    rs = Workload("ReplicaSet", "default", "rs", LabelSelector((("app", "web"),)))
    selector = default_selector(pod, [], [rs])
    assert selector == LabelSelector((), (LabelSelectorRequirement("app", "In", ("web",)),))


def test_default_selector_merges_a_replication_controller_map_and_ignores_other_owners():
    rc_owner = OwnerReference(kind="ReplicationController", name="rc", api_version="v1", controller=True)
    rc = Workload("ReplicationController", "default", "rc", LabelSelector((("app", "web"),)))
    pod = make_pod("p", labels={"app": "web"}, owner_references=(rc_owner,))
    assert default_selector(pod, [], [rc]) == LabelSelector((("app", "web"),))
    wrong_group = OwnerReference(kind="ReplicaSet", name="rs", api_version="extensions/v1beta1", controller=True)
    pod = make_pod("p", labels={"app": "web"}, owner_references=(wrong_group,))
    rs = Workload("ReplicaSet", "default", "rs", LabelSelector((("app", "web"),)))
    assert default_selector(pod, [], [rs]).is_empty  # "no default spreading"


def test_the_indexed_listers_find_what_a_scan_of_every_service_and_controller_finds():
    """SpreadingListers against helper.DefaultSelector's scan, written out here: Services with a
    selector of one or several pairs, in and out of the pod's namespace, a name listed twice (the
    first is the one Get finds), and selectors repeated (copied workloads' Services, asked once;
    one with its pairs in another order)."""
    services = [
        Service(namespace, f"s{i}", selector)
        for i, (namespace, selector) in enumerate(
            [
                ("default", {"app": "web"}),
                ("default", {"app": "web", "tier": "front"}),
                ("default", {"tier": "front", "app": "db"}),
                ("default", {}),
                ("other", {"app": "web"}),
                ("default", {"zone": "a", "app": "web"}),
                ("default", {"app": "web", "tier": "front"}),
                ("default", {"tier": "front", "app": "web"}),
                ("other", {"app": "web"}),
                ("default", {"tier": "front", "app": "db"}),
            ]
        )
    ]
    selector = LabelSelector((("app", "web"),))
    workloads = [
        Workload("ReplicaSet", "default", "rs", selector),
        Workload("ReplicaSet", "default", "rs", LabelSelector((("app", "db"),))),
        Workload("ReplicaSet", "other", "rs", selector),
        Workload("StatefulSet", "default", "ss", LabelSelector((("tier", "front"),))),
    ]

    def scanned(pod):
        label_set = {}
        for service in services:
            if service.namespace == pod.namespace and service.selector:
                if all(pod.labels.get(k) == v for k, v in service.selector.items()):
                    label_set.update(service.selector)
        extra = ()
        owner = next((ref for ref in pod.owner_references if ref.controller), None)
        if owner is not None:
            found = next(
                (w for w in workloads if (w.kind, w.namespace, w.name) == (owner.kind, pod.namespace, owner.name)),
                None,
            )
            if found is not None:
                extra = tuple(LabelSelectorRequirement(k, "In", (v,)) for k, v in found.selector.match_labels)
        return LabelSelector(tuple(sorted(label_set.items())), extra)

    owners = [
        (),
        (OwnerReference("ReplicaSet", "rs", "apps/v1", True),),
        (OwnerReference("StatefulSet", "ss", "apps/v1", True),),
    ]
    label_sets = [
        {},
        {"app": "web"},
        {"app": "web", "tier": "front"},
        {"app": "db", "tier": "front"},
        {"zone": "a", "app": "web"},
    ]
    pods = [
        make_pod(f"p{i}", namespace=namespace, labels=labels, owner_references=owned)
        for i, (namespace, labels, owned) in enumerate(
            (namespace, labels, owned)
            for namespace in ("default", "other")
            for labels in label_sets
            for owned in owners
        )
    ]
    listers = SpreadingListers(services, workloads)
    assert [listers.default_selector(pod) for pod in pods] == [scanned(pod) for pod in pods]
    assert any(not listers.default_selector(pod).is_empty for pod in pods)


def test_node_has_all_keys_needs_every_topology_key():
    constraints = [Constraint(1, "zone", None), Constraint(1, LABEL_HOSTNAME, None)]
    assert node_has_all_keys({"zone": "a", LABEL_HOSTNAME: "n"}, constraints)
    assert not node_has_all_keys({"zone": "a"}, constraints)


def test_inclusion_policy_honours_required_node_affinity_and_taints_only_when_asked():
    """matchNodeInclusionPolicies."""
    pod = make_pod("p", node_selector={"disk": "ssd"})
    hdd = make_node("hdd", labels={"disk": "hdd"})
    tainted = make_node("t", labels={"disk": "ssd"}, taints=(Taint("k", "v", "NoSchedule"),))
    policy = InclusionPolicy(pod)
    honour_affinity = Constraint(1, "zone", None)
    honour_both = Constraint(1, "zone", None, honor_node_affinity=True, honor_node_taints=True)
    ignore_both = Constraint(1, "zone", None, honor_node_affinity=False, honor_node_taints=False)
    assert not policy.includes(honour_affinity, hdd)
    assert policy.includes(ignore_both, hdd)
    assert policy.includes(honour_affinity, tainted)
    assert not policy.includes(honour_both, tainted)
    tolerant = make_pod("q", tolerations=(Toleration(key="k", operator="Exists"),))
    assert InclusionPolicy(tolerant).includes(honour_both, tainted)


def test_count_matching_counts_the_namespace_and_skips_terminating_pods():
    """countPodsMatchSelector (terminating pods bypassed, kubernetes#87621)."""
    info = _node_info(
        "n",
        make_pod("a", labels={"app": "web"}, node="n"),
        make_pod("b", labels={"app": "web"}, node="n", deletion_timestamp=DELETED),
        make_pod("c", namespace="other", labels={"app": "web"}, node="n"),
        make_pod("d", labels={"app": "db"}, node="n"),
    )
    assert count_matching(info, "default", Constraint(1, "zone", APP_WEB).matcher) == 1
    assert count_matching(info, "default", Constraint(1, "zone", None).matcher) == 0


def test_label_index_follows_pods_added_and_removed():
    web = make_pod("a", labels={"app": "web"}, node="n")
    info = _node_info("n", web, make_pod("b", labels={"app": "web"}, node="n"))
    index = LabelIndex()
    index.sync(info)
    assert index.by_pair[("default", "app", "web")] == {"n": 2}
    info.remove_pod(web)
    index.sync(info)
    assert index.by_pair[("default", "app", "web")] == {"n": 1}


def _counts(constraint: Constraint, *infos: NodeInfo, counter: MatchCounter | None = None) -> list[int]:
    count = (counter or MatchCounter()).counter("default", constraint)
    return [count(info) for info in infos]


def test_match_counter_agrees_with_a_full_count_for_indexed_and_cached_selectors():
    n1 = _node_info(
        "n1",
        make_pod("a", labels={"app": "web", "tier": "x"}, node="n1"),
        make_pod("b", labels={"app": "web"}, node="n1"),
    )
    n2 = _node_info("n2", make_pod("c", labels={"app": "db"}, node="n2"))
    two_pairs = LabelSelector((("app", "web"), ("tier", "x")))
    exists_only = LabelSelector((), (LabelSelectorRequirement("tier", "Exists"),))
    assert _counts(Constraint(1, "zone", APP_WEB), n1, n2) == [2, 0]
    assert _counts(Constraint(1, "zone", two_pairs), n1, n2) == [1, 0]
    assert _counts(Constraint(1, "zone", exists_only), n1, n2) == [1, 0]
    assert _counts(Constraint(1, "zone", None), n1, n2) == [0, 0]


def test_match_counter_recounts_a_node_whose_pods_changed():
    counter = MatchCounter()
    exists_only = Constraint(1, "zone", LabelSelector((), (LabelSelectorRequirement("app", "Exists"),)))
    info = _node_info("n", make_pod("a", labels={"app": "web"}, node="n"))
    assert _counts(exists_only, info, counter=counter) == [1]
    info.add_pod(PodInfo(make_pod("b", labels={"app": "db"}, node="n")))
    assert _counts(exists_only, info, counter=counter) == [2]
    assert _counts(Constraint(1, "zone", APP_WEB), info, counter=counter) == [1]


def test_go_log_is_gos_math_log():
    """Go's math.Log: log(3) is 1.0986122886681096 there, one ulp below the C library's."""
    assert go_log(3) == 1.0986122886681096
    assert go_log(1) == 0.0
    assert go_log(8) == 3 * math.log(2)
    assert go_log(0) == -math.inf
    assert math.isnan(go_log(-1))


def test_go_round_rounds_halves_away_from_zero_exactly():
    """int64(math.Round(x))."""
    assert [go_round(x) for x in (2.5, -2.5, 0.5, -0.5, 1.4, -1.6)] == [3, -3, 1, -1, 1, -2]
    assert go_round(0.49999999999999994) == 0  # adding 0.5 and flooring would give 1
