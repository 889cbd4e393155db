import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.node_info import NodeInfo, PodInfo
from scheduler_core.framework.args_errors import ArgsError
from scheduler_core.framework.status import Status
from scheduler_core.model import CPU, EPHEMERAL_STORAGE, MEMORY, Container
from scheduler_core.plugins import node_resources
from scheduler_core.plugins.node_resources.fit import NodeResourcesFitArgs, ScoringStrategy
from scheduler_core.plugins.node_resources.resource_allocation import ResourceSpec
from tests.scheduler_core.builders import make_node, make_pod
from tests.scheduler_core.plugins.scoring import run_scoring

GI = 1 << 30
GPU = "example.com/gpu"


def node_with(name="n1", running=(), **node_fields):
    info = NodeInfo(make_node(name, **node_fields))
    for index, requests in enumerate(running):
        info.add_pod(PodInfo(make_pod(f"r{index}", node=name, requests=requests)))
    return info


def run_filter(pod, node, args=None):
    plugin = node_resources.new_fit(args, None)
    state = CycleState()
    assert plugin.pre_filter(state, pod, [node]) == (None, None)
    return plugin.filter(state, pod, node)


@pytest.mark.parametrize(
    "requests, node, expected",
    [
        pytest.param({CPU: 1000}, node_with(cpu=2000), None, id="a pod that fits passes"),
        pytest.param(
            {CPU: 1500},
            node_with(cpu=2000, running=[{CPU: 1000}]),
            Status.unschedulable("Insufficient cpu"),
            id="a request larger than what is left is unschedulable: preemption could free it",
        ),
        pytest.param(
            {CPU: 3000},
            node_with(cpu=2000),
            Status.unresolvable("Insufficient cpu"),
            id="a request larger than the node's whole allocatable is unresolvable",
        ),
        pytest.param(
            {CPU: 1500, MEMORY: 16 * GI},
            node_with(cpu=2000, memory=8 * GI, running=[{CPU: 1000}]),
            Status.unresolvable("Insufficient cpu", "Insufficient memory"),
            id="all shortfalls are listed and one unresolvable makes the status unresolvable",
        ),
        pytest.param(
            {},
            node_with(pods=1, running=[{}]),
            Status.unschedulable("Too many pods"),
            id="a full node reports too many pods even for a pod without requests",
        ),
        pytest.param(
            {CPU: 3000},
            node_with(cpu=2000, pods=1, running=[{}]),
            Status.unresolvable("Too many pods", "Insufficient cpu"),
            id="too many pods comes first",
        ),
        pytest.param(
            {EPHEMERAL_STORAGE: GI},
            node_with(),
            Status.unresolvable("Insufficient ephemeral-storage"),
            id="a node without ephemeral storage cannot hold a pod asking for it",
        ),
        pytest.param(
            {GPU: 1},
            node_with(),
            Status.unresolvable("Insufficient example.com/gpu"),
            id="an extended resource the node lacks is unresolvable",
        ),
        pytest.param(
            {GPU: 2},
            node_with(allocatable={GPU: 4}, running=[{GPU: 3}]),
            Status.unschedulable("Insufficient example.com/gpu"),
            id="an extended resource used up by other pods is unschedulable",
        ),
        pytest.param({"foo": 5}, node_with(), None, id="a request for a name that is not a scalar resource is ignored"),
        pytest.param(
            {CPU: 0},
            node_with(cpu=1000, running=[{CPU: 2000}]),
            None,
            id="a zero request fits even an overcommitted node",
        ),
    ],
)
def test_fit_filter(requests, node, expected):
    assert run_filter(make_pod("p", requests=requests), node) == expected


@pytest.mark.parametrize(
    "args",
    [
        pytest.param({"ignoredResources": [GPU]}, id="an ignored extended resource is not checked"),
        pytest.param({"ignoredResourceGroups": ["example.com"]}, id="an ignored resource group is not checked"),
    ],
)
def test_fit_ignores_configured_extended_resources(args):
    assert run_filter(make_pod("p", requests={GPU: 1}), node_with(), args) is None


def test_sidecar_init_containers_add_to_the_request():
    pod = make_pod(
        "p",
        containers=(Container("c", requests={CPU: 1000}),),
        init_containers=(Container("side", requests={CPU: 600}, restart_policy="Always"),),
    )
    assert run_filter(pod, node_with(cpu=1500)) == Status.unresolvable("Insufficient cpu")


@pytest.mark.parametrize(
    "raw, problems",
    [
        pytest.param(
            {"scoringStrategy": {"type": "Fancy"}}, ["scoringStrategy.type"], id="an unknown strategy is rejected"
        ),
        pytest.param(
            {"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 101}]}},
            ["scoringStrategy.resources[0].weight"],
            id="a weight above 100 is rejected",
        ),
        pytest.param(
            {
                "scoringStrategy": {
                    "type": "RequestedToCapacityRatio",
                    "requestedToCapacityRatio": {
                        "shape": [{"utilization": 50, "score": 11}, {"utilization": 40, "score": 0}]
                    },
                }
            },
            ["scoringStrategy.shape[1].utilization", "scoringStrategy.shape[0].score"],
            id="shape problems are all reported, under scoringStrategy.shape",
        ),
        pytest.param(
            {"ignoredResourceGroups": ["example.com/x"]},
            ["ignoredResourceGroups[0]"],
            id="a resource group may not contain a slash",
        ),
    ],
)
def test_fit_args_validation_reports_every_problem(raw, problems):
    with pytest.raises(ArgsError) as err:
        NodeResourcesFitArgs.parse(raw)
    assert [p.path for p in err.value.problems] == problems


@pytest.mark.parametrize(
    "raw, expected",
    [
        pytest.param(None, ScoringStrategy(), id="no args mean LeastAllocated on cpu and memory"),
        pytest.param(
            {"scoringStrategy": {"type": "MostAllocated"}},
            ScoringStrategy("MostAllocated", (ResourceSpec(CPU, 1), ResourceSpec(MEMORY, 1))),
            id="a strategy without resources gets cpu and memory",
        ),
        pytest.param(
            {"scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": GPU}]}},
            ScoringStrategy("LeastAllocated", (ResourceSpec(GPU, 1),)),
            id="an unset weight defaults to 1",
        ),
    ],
)
def test_fit_args_defaults(raw, expected):
    assert NodeResourcesFitArgs.parse(raw).scoring_strategy == expected


def scored_nodes():
    return [
        node_with("n1", cpu=4000, memory=8 * GI, running=[{CPU: 1000, MEMORY: 2 * GI}]),
        node_with("n2", cpu=2000, memory=4 * GI, running=[{CPU: 1500, MEMORY: 1 * GI}]),
        node_with("n3", cpu=4000, memory=8 * GI),
    ]


RTCR = {
    "type": "RequestedToCapacityRatio",
    "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]},
}


@pytest.mark.parametrize(
    "strategy, requests, raw",
    [
        pytest.param(
            None,
            {CPU: 1000, MEMORY: 2 * GI},
            [50, 12, 75],
            id="least allocated favours the emptiest node, averaging cpu and memory",
        ),
        pytest.param(
            None, {}, [72, 45, 97], id="a best-effort pod is scored with the non-zero defaults of 100m and 200Mi"
        ),
        pytest.param(
            {"type": "MostAllocated"},
            {CPU: 1000, MEMORY: 2 * GI},
            [50, 87, 25],
            id="most allocated favours the fullest node and counts an overcommitted resource as full",
        ),
        pytest.param(
            {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 3}, {"name": "memory", "weight": 1}]},
            {CPU: 1000, MEMORY: 2 * GI},
            [50, 93, 25],
            id="resource weights weigh the average",
        ),
        pytest.param(
            RTCR,
            {CPU: 1000, MEMORY: 2 * GI},
            [50, 88, 25],
            id="requested to capacity ratio scales the shape's scores by 10 and rounds halves up",
        ),
        pytest.param(
            {"type": "LeastAllocated", "resources": [{"name": GPU, "weight": 1}]},
            {CPU: 1000},
            [0, 0, 0],
            id="an extended resource the pod does not request is not scored",
        ),
    ],
)
def test_fit_scoring(strategy, requests, raw):
    args = None if strategy is None else {"scoringStrategy": strategy}
    pod = make_pod("p", requests=requests)
    assert run_scoring(node_resources.new_fit(args, None), pod, scored_nodes()) == (None, raw, raw)


MI = 1 << 20


def pod_with_pod_level_requests():
    """Containers ask for 500m / 256Mi, the pod as a whole for 3 cpu / 2Gi (PodLevelResources)."""
    containers = (
        Container(name="query", requests={CPU: 300, MEMORY: 128 * MI}),
        Container(name="exporter", requests={CPU: 200, MEMORY: 128 * MI}),
    )
    return make_pod("analytics", containers=containers, pod_level_requests={CPU: 3000, MEMORY: 2 * GI})


def test_fit_filters_by_pod_level_requests():
    # 4 cpu with 800m in use: the pod-level 3 cpu still fits, 3.3 would not.
    node = node_with(cpu=4000, memory=16 * GI, running=[{CPU: 800, MEMORY: 256 * MI}])
    assert run_filter(pod_with_pod_level_requests(), node) is None
    bigger = make_pod(
        "bigger", containers=pod_with_pod_level_requests().containers, pod_level_requests={CPU: 3300, MEMORY: 2 * GI}
    )
    assert run_filter(bigger, node) == Status.unschedulable("Insufficient cpu")


def test_fit_scores_a_pod_by_its_containers_even_when_it_states_pod_level_requests():
    # v1.35.4's strategy table builds Fit's scorer without the PodLevelResources flag, so the score
    # counts the containers' 500m / 256Mi: cpu (4000-1300)*100/4000 = 67, memory 96, average 81
    # (the real kube-scheduler gives 81 on this node; with the pod-level 3 cpu / 2Gi it would be 45).
    node = node_with(cpu=4000, memory=16 * GI, running=[{CPU: 800, MEMORY: 256 * MI}])
    assert run_scoring(node_resources.new_fit(None, None), pod_with_pod_level_requests(), [node]) == (None, [81], [81])


def test_balanced_allocation_scores_a_pod_by_its_pod_level_requests():
    # BalancedAllocation does get the flag: cpu 3800/4000, memory 2304Mi/16Gi -> 59 (the real
    # scheduler's figure; the containers' requests would give 85).
    node = node_with(cpu=4000, memory=16 * GI, running=[{CPU: 800, MEMORY: 256 * MI}])
    plugin = node_resources.new_balanced_allocation(None, None)
    assert run_scoring(plugin, pod_with_pod_level_requests(), [node]) == (None, [59], [59])


def test_before_v1_34_every_shortfall_is_unschedulable_even_beyond_allocatable():
    from scheduler_core.release import SUPPORTED_RELEASES, rules_for

    v133 = rules_for(next(r for r in SUPPORTED_RELEASES if r.minor == 33)).features
    plugin = node_resources.new_fit(None, None, v133)
    pod, node = make_pod("p", requests={CPU: 3000}), node_with(cpu=2000)
    state = CycleState()
    plugin.pre_filter(state, pod, [node])
    assert plugin.filter(state, pod, node) == Status.unschedulable("Insufficient cpu")
    assert run_filter(pod, node) == Status.unresolvable("Insufficient cpu")  # v1.34 on


def test_from_v1_36_a_resource_a_device_class_stands_for_is_left_to_dynamic_resources_where_the_node_has_none():
    """shouldDelegateResourceToDRA: only on a node whose allocatable does not advertise it."""
    from scheduler_core.framework.cluster_events import QueueingHint
    from scheduler_core.framework.signers import Unsignable
    from scheduler_core.model import DeviceClass
    from scheduler_core.release import SUPPORTED_RELEASES, rules_for
    from tests.scheduler_core.builders import FakeHandle, dra_snapshot

    gpu = "example.com/gpu"
    without = make_node("n1")
    plugin_node = make_node("n2", allocatable={gpu: 1})
    snapshot = dra_snapshot([without, plugin_node], classes=[DeviceClass("gpu", extended_resource_name=gpu)])
    pod = make_pod("p", requests={CPU: 100, gpu: 2})
    for minor, delegated in ((35, False), (36, True)):
        features = rules_for(next(r for r in SUPPORTED_RELEASES if r.minor == minor)).features
        plugin = node_resources.new_fit(None, FakeHandle(snapshot), features)
        state = CycleState()
        plugin.pre_filter(state, pod, [])
        on_without = plugin.filter(state, pod, snapshot.node_infos[0])
        assert (on_without is None) == delegated
        assert plugin.filter(state, pod, snapshot.node_infos[1]).reasons == (f"Insufficient {gpu}",)
        assert isinstance(plugin.sign_pod(pod), Unsignable) == delegated
        assert (plugin.checked_requests(state) is None) == delegated
        assert (plugin.node_hint(pod, None, without) == QueueingHint.QUEUE) == delegated
