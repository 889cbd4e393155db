import pytest

from scheduler_core.framework.node_info import NodeInfo, PodInfo
from scheduler_core.framework.args_errors import ArgsError
from scheduler_core.framework.status import SKIP
from scheduler_core.model import CPU, MEMORY
from scheduler_core.plugins import node_resources
from scheduler_core.plugins.node_resources.balanced_allocation import balanced_resource_score
from tests.scheduler_core.builders import make_node, make_pod
from tests.scheduler_core.plugins.scoring import run_scoring

GI = 1 << 30
GPU = "example.com/gpu"


def node_with(name, running=(), **node_fields):
    info = NodeInfo(make_node(name, **node_fields))
    for index, requests in enumerate(running):
        info.add_pod(PodInfo(make_pod(f"r{index}", node=name, requests=requests)))
    return info


@pytest.mark.parametrize(
    "requests, args, expected",
    [
        pytest.param(
            {CPU: 1000, MEMORY: 2 * GI},
            None,
            (None, [100, 87], [100, 87]),
            id="equal cpu and memory fractions score 100 and the score falls by half their difference",
        ),
        pytest.param({}, None, (SKIP, [], []), id="a best-effort pod is skipped at PreScore"),
        pytest.param(
            {GPU: 1}, None, (SKIP, [], []), id="requests outside the configured resources count as best effort"
        ),
        pytest.param(
            {CPU: 1000, MEMORY: 2 * GI, GPU: 2},
            {"resources": [{"name": "cpu"}, {"name": "memory"}, {"name": GPU}]},
            (None, [88, 87], [88, 87]),
            id="three resources use the standard deviation and a node without the resource leaves it out",
        ),
    ],
)
def test_balanced_allocation_scoring(requests, args, expected):
    nodes = [
        node_with("n1", cpu=4000, memory=8 * GI, allocatable={GPU: 4}),
        node_with("n2", cpu=4000, memory=8 * GI, running=[{CPU: 1000}]),
    ]
    pod = make_pod("p", requests=requests)
    assert run_scoring(node_resources.new_balanced_allocation(args, None), pod, nodes) == expected


@pytest.mark.parametrize(
    "requested, allocatable, expected",
    [
        pytest.param([3000, 1 * GI], [2000, 8 * GI], 56, id="a fraction above 1 is capped before the deviation"),
        pytest.param([0, 0], [0, 0], 100, id="no resource offered means no deviation"),
    ],
)
def test_balanced_resource_score(requested, allocatable, expected):
    assert balanced_resource_score(requested, allocatable) == expected


@pytest.mark.parametrize(
    "raw, problems",
    [
        pytest.param(
            {"resources": [{"name": "cpu", "weight": 2}]},
            ["resources[0].weight"],
            id="a weight other than 1 is rejected",
        ),
        pytest.param(
            {"resources": [{"name": "cpu"}, {"name": "cpu"}]},
            ["resources[1].name"],
            id="a repeated resource is rejected",
        ),
    ],
)
def test_balanced_allocation_args_validation(raw, problems):
    with pytest.raises(ArgsError) as err:
        node_resources.new_balanced_allocation(raw, None)
    assert [p.path for p in err.value.problems] == problems


def _features(minor):
    from scheduler_core.release import SUPPORTED_RELEASES, rules_for

    return rules_for(next(r for r in SUPPORTED_RELEASES if r.minor == minor)).features


def test_v1_36_scores_the_change_the_pod_makes_to_the_balance():
    # n1 empty: balance 100 without the pod, 87 with it (cpu 1/4, memory 0) -> 50 + (50 + 87 - 100) / 2 = 68;
    # n2 with 1 cpu used: 87 without, 75 with -> 50 + (50 + 75 - 87) / 2 = 69. v1.35 scores 87 and 75.
    nodes = [
        node_with("n1", cpu=4000, memory=8 * GI),
        node_with("n2", cpu=4000, memory=8 * GI, running=[{CPU: 1000}]),
    ]
    pod = make_pod("p", requests={CPU: 1000})
    v136 = node_resources.new_balanced_allocation(None, None, _features(36))
    v135 = node_resources.new_balanced_allocation(None, None, _features(35))
    assert run_scoring(v136, pod, nodes) == (None, [68, 69], [68, 69])
    assert run_scoring(v135, pod, nodes) == (None, [87, 75], [87, 75])


def test_v1_32_scores_a_best_effort_pod_that_later_releases_skip():
    nodes = [node_with("n1", cpu=4000, memory=8 * GI), node_with("n2", cpu=4000, memory=8 * GI, running=[{CPU: 1000}])]
    pod = make_pod("p", requests={})
    assert run_scoring(node_resources.new_balanced_allocation(None, None, _features(32)), pod, nodes) == (
        None,
        [100, 87],
        [100, 87],
    )
    assert run_scoring(node_resources.new_balanced_allocation(None, None, _features(33)), pod, nodes) == (SKIP, [], [])


def test_v1_36_balances_the_devices_a_class_gives_where_the_node_advertises_none():
    """getDRAPreScoredParams in BalancedAllocation's PreScore (DRAExtendedResource)."""
    from dataclasses import replace

    from scheduler_core.framework.cycle_state import CycleState
    from scheduler_core.release import SUPPORTED_RELEASES, rules_for
    from tests.scheduler_core.builders import FakeHandle, dra_snapshot, make_device_class, make_gpu_slice

    gpu = "example.com/gpu"
    snapshot = dra_snapshot(
        [make_node("n1"), make_node("n2", allocatable={gpu: 2})],
        classes=[replace(make_device_class("gpu"), extended_resource_name=gpu)],
        slices=[make_gpu_slice("n1", 2)],
    )
    args = {"resources": [{"name": "cpu", "weight": 1}, {"name": gpu, "weight": 1}]}
    pod = make_pod("p", requests={"cpu": 1000, gpu: 1})
    scores = {}
    for minor in (35, 36):
        features = rules_for(next(r for r in SUPPORTED_RELEASES if r.minor == minor)).features
        plugin = node_resources.new_balanced_allocation(args, FakeHandle(snapshot), features)
        state = CycleState()
        plugin.pre_score(state, pod, snapshot.node_infos)
        scores[minor] = [plugin.score(state, pod, info)[0] for info in snapshot.node_infos]
    # n1: cpu 1000/4000 and, from v1.36, 1 of its 2 devices, as n2 with its plugin GPUs; v1.35 sees cpu alone
    assert scores[36][0] == scores[36][1] and scores[35][0] != scores[35][1]
