"""pod_topology_spread/plugin.py: the plugin's own decisions (podtopologyspread/plugin.go):
getConstraints and buildDefaultConstraints, SignPod, EventsToRegister, and the state it reads.
Filter and Score arithmetic is in test_filtering.py / test_scoring.py, the queueing hints in
tests/scheduler_core/plugins/test_queueing_hints.py."""

from __future__ import annotations

from scheduler_core.framework.cluster_events import ActionType, EventResource
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.signers import Unsignable
from scheduler_core.framework.status import SKIP, Code
from scheduler_core.model import LABEL_HOSTNAME, LabelSelector, Service, TopologySpreadConstraint
from scheduler_core.plugins import pod_topology_spread
from tests.scheduler_core.builders import FakeHandle, make_node, make_pod, make_snapshot

WEB = LabelSelector((("app", "web"),))
ZONE_HARD = {"maxSkew": 2, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}
LIST_ARGS = {"defaultingType": "List", "defaultConstraints": [ZONE_HARD]}
NO_DEFAULTS = {"defaultingType": "List"}


def _plugin(args=None, services=(), nodes=None):
    snapshot = make_snapshot(nodes or [make_node("n1", {"zone": "a"})], services=list(services))
    return pod_topology_spread.new(args, FakeHandle(snapshot)), snapshot


def _own(action: str = "DoNotSchedule", key: str = "zone") -> TopologySpreadConstraint:
    return TopologySpreadConstraint(1, key, action, WEB)


def test_a_pod_with_constraints_uses_its_own_for_the_action():
    """getConstraints: the pod's constraints win over the profile's defaults."""
    plugin, _ = _plugin(LIST_ARGS)
    pod = make_pod(
        "p", labels={"app": "web"}, topology_spread_constraints=(_own(), _own("ScheduleAnyway", LABEL_HOSTNAME))
    )
    [hard] = plugin.constraints(pod, "DoNotSchedule")
    assert (hard.topology_key, hard.max_skew, hard.selector) == ("zone", 1, WEB)
    [soft] = plugin.constraints(pod, "ScheduleAnyway")
    assert soft.topology_key == LABEL_HOSTNAME


def test_defaults_take_the_selector_of_the_services_selecting_the_pod():
    """buildDefaultConstraints: the default's skew and key, helper.DefaultSelector's selector."""
    plugin, _ = _plugin(LIST_ARGS, services=[Service("default", "web", {"app": "web"})])
    [constraint] = plugin.constraints(make_pod("p", labels={"app": "web"}), "DoNotSchedule")
    assert (constraint.topology_key, constraint.max_skew, constraint.selector) == ("zone", 2, WEB)
    assert plugin.constraints(make_pod("p", labels={"app": "web"}), "ScheduleAnyway") == []


def test_defaults_do_not_apply_to_a_pod_nothing_selects():
    plugin, _ = _plugin(LIST_ARGS, services=[Service("default", "db", {"app": "db"})])
    assert plugin.constraints(make_pod("p", labels={"app": "web"}), "DoNotSchedule") == []


def test_the_default_constraints_are_the_system_ones_unless_listed():
    system, _ = _plugin()
    assert [c.topology_key for c in system.default_constraints] == [LABEL_HOSTNAME, "topology.kubernetes.io/zone"]
    listed, _ = _plugin(LIST_ARGS)
    assert [(c.topology_key, c.max_skew) for c in listed.default_constraints] == [("zone", 2)]


def test_sign_pod_refuses_pods_that_spread_and_signs_the_rest_without_defaults():
    """SignPod: placement depends on earlier pods whenever a constraint (own or default) applies."""
    with_defaults, _ = _plugin()
    assert isinstance(with_defaults.sign_pod(make_pod("p")), Unsignable)
    without_defaults, _ = _plugin(NO_DEFAULTS)
    assert without_defaults.sign_pod(make_pod("p")) == []
    spreading = make_pod("p", labels={"app": "web"}, topology_spread_constraints=(_own(),))
    refusal = without_defaults.sign_pod(spreading)
    assert isinstance(refusal, Unsignable) and refusal.plugin == "PodTopologySpread"


def test_it_registers_for_pod_and_node_changes():
    """EventsToRegister with QueueingHints: pods added/relabelled/deleted, nodes added/deleted/relabelled/retainted."""
    plugin, _ = _plugin()
    events = {hinted.event.resource: hinted.event.action for hinted in plugin.events_to_register()}
    assert events[EventResource.POD] & ActionType.UPDATE_POD_LABEL
    assert events[EventResource.POD] & ActionType.DELETE
    assert events[EventResource.NODE] & ActionType.UPDATE_NODE_TAINT
    assert not events[EventResource.NODE] & ActionType.UPDATE_NODE_ALLOCATABLE


def test_pre_filter_skips_a_pod_without_hard_constraints_and_filter_then_errors():
    """PreFilter returns Skip; Filter without the PreFilter state is an error (getPreFilterState)."""
    plugin, snapshot = _plugin(NO_DEFAULTS)
    state = CycleState()
    pod = make_pod("p", labels={"app": "web"}, topology_spread_constraints=(_own("ScheduleAnyway"),))
    assert plugin.pre_filter(state, pod, snapshot.node_infos) == (None, SKIP)
    status = plugin.filter(state, pod, snapshot.node_infos[0])
    assert status.code == Code.ERROR
    assert plugin.filter_detail(state, pod, snapshot.node_infos[0]) == ()


def test_pre_filter_writes_the_state_filter_reads():
    nodes = [make_node("n1", {"zone": "a"}), make_node("n2", {"zone": "b"})]
    running = make_pod("r", labels={"app": "web"}, node="n1")
    snapshot = make_snapshot(nodes, [running])
    plugin = pod_topology_spread.new(NO_DEFAULTS, FakeHandle(snapshot))
    state = CycleState()
    pod = make_pod("p", labels={"app": "web"}, topology_spread_constraints=(_own(),))
    assert plugin.pre_filter(state, pod, snapshot.node_infos) == (None, None)
    # zone a holds 1 matching pod, zone b none: a second pod in a would make the skew 2 > 1
    verdicts = [plugin.filter(state, pod, info) for info in snapshot.node_infos]
    assert verdicts[0] is not None and verdicts[0].code == Code.UNSCHEDULABLE
    assert verdicts[1] is None


def test_score_without_pre_score_is_an_error_and_pre_score_skips_without_soft_constraints():
    plugin, snapshot = _plugin(NO_DEFAULTS)
    state = CycleState()
    pod = make_pod("p")
    assert plugin.pre_score(state, pod, snapshot.node_infos) == SKIP
    score, status = plugin.score(state, pod, snapshot.node_infos[0])
    assert (score, status.code) == (0, Code.ERROR)
    assert plugin.pre_score_state(state) is None
