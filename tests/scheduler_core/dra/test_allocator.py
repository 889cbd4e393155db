"""The structured allocator, incubating variant (structured/internal/incubating, v1.35.4; v1.36's
device taints)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from scheduler_core.dra.allocator import AllocationError, Allocator, gather_pools
from scheduler_core.model import (
    Amount,
    CapacityRange,
    CapacityRequestPolicy,
    CounterConsumption,
    CounterSet,
    Device,
    DeviceConstraint,
    DeviceRequest,
    DeviceTaint,
    DeviceToleration,
    ExactRequest,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    ResourceClaim,
    ResourceSlice,
    SubRequest,
)
from scheduler_core.model.quantity import BINARY_SI, canonical
from tests.scheduler_core.builders import (
    GPU_DRIVER,
    exact,
    make_device_class,
    make_gpu_slice,
    make_node,
    make_resource_claim,
)

NODE = make_node("n1", labels={"zone": "a"})
CLASSES = {
    c.name: c
    for c in (
        make_device_class("gpu"),
        make_device_class("big", 'device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0'),
    )
}


def allocate(claims, slices, allocated=()):
    return Allocator(set(allocated), CLASSES.get, slices).allocate(NODE, list(claims))


def devices(results):
    return [[r.device for r in result.results] for result in results]


def test_devices_are_taken_first_fit_in_slice_order():
    """allocateOne: candidates in pool and slice order, the first complete solution wins."""
    assert devices(allocate([make_resource_claim("c", exact(count=2))], [make_gpu_slice("n1", 3)])) == [
        ["gpu-0", "gpu-1"]
    ]


def test_devices_in_use_are_passed_over():
    """deviceInUse: allocated devices (ListAllAllocatedDevices) are not candidates."""
    allocated = {("gpu.example.com", "n1", "gpu-0")}
    assert devices(allocate([make_resource_claim("c")], [make_gpu_slice("n1", 2)], allocated)) == [["gpu-1"]]


def test_two_claims_of_one_pod_do_not_share_a_device():
    """allocatingDevices: a device chosen for an earlier claim of the pod is in use for the next."""
    claims = [make_resource_claim("a"), make_resource_claim("b")]
    assert devices(allocate(claims, [make_gpu_slice("n1", 2)])) == [["gpu-0"], ["gpu-1"]]


def test_too_few_devices_is_no_solution():
    assert allocate([make_resource_claim("c", exact(count=3))], [make_gpu_slice("n1", 2)]) is None


def test_allocation_mode_all_takes_every_matching_device_and_needs_at_least_one():
    """validateDeviceRequest (All): the matching devices of the node's pools; none -> no solution."""
    claim = make_resource_claim("c", exact(mode="All"))
    assert devices(allocate([claim], [make_gpu_slice("n1", 3)])) == [["gpu-0", "gpu-1", "gpu-2"]]
    assert allocate([claim], []) is None
    assert allocate([claim], [make_gpu_slice("n1", 3)], {("gpu.example.com", "n1", "gpu-1")}) is None


def test_class_selectors_with_quantities_filter_devices():
    """isSelectable: the class's CEL selectors (capacity compared as quantities)."""
    slices = [
        make_gpu_slice("n1", 1, memory_gi=24, pool="small"),
        replace(make_gpu_slice("n1", 1, memory_gi=80, pool="large"), name="large"),
    ]
    assert [
        [(r.pool, r.device) for r in result.results]
        for result in allocate([make_resource_claim("c", exact(device_class="big"))], slices)
    ] == [[("large", "gpu-0")]]


def test_request_selectors_filter_devices():
    request = exact(selectors=('device.attributes["gpu.example.com"].index >= 1',))
    assert devices(allocate([make_resource_claim("c", request)], [make_gpu_slice("n1", 3)])) == [["gpu-1"]]


def test_a_match_attribute_constraint_backtracks_to_a_matching_pair():
    """matchAttributeConstraint + allocateOne's backtracking."""
    claim = make_resource_claim("c", exact(count=2), constraints=(DeviceConstraint(("gpu",), "gpu.example.com/numa"),))
    assert devices(allocate([claim], [make_gpu_slice("n1", 4, numa_split=1)])) == [["gpu-1", "gpu-2"]]


def test_all_devices_breaking_a_constraint_is_an_error():
    """allocateDevice with must=true: the constraint makes "All" impossible, an error."""
    claim = make_resource_claim(
        "c", exact(mode="All"), constraints=(DeviceConstraint(("gpu",), "gpu.example.com/numa"),)
    )
    with pytest.raises(
        AllocationError,
        match="cannot add device gpu.example.com/n1/gpu-1 because a claim constraint would not be satisfied",
    ):
        allocate([claim], [make_gpu_slice("n1", 2, numa_split=1)])


def test_first_available_takes_the_first_subrequest_that_fits():
    """allocateOne's subrequest loop: the first subrequest with a solution, named request/subrequest."""
    request = DeviceRequest(
        "gpu", first_available=(SubRequest("four", "gpu", count=4), SubRequest("two", "gpu", count=2))
    )
    [result] = allocate([make_resource_claim("c", request)], [make_gpu_slice("n1", 3)])
    assert [(r.request, r.device) for r in result.results] == [("gpu/two", "gpu-0"), ("gpu/two", "gpu-1")]


def test_admin_access_may_use_devices_in_use():
    """adminAccess: in-use devices are not passed over (DRAAdminAccess is on in v1.35)."""
    allocated = {("gpu.example.com", "n1", "gpu-0")}
    [result] = allocate([make_resource_claim("c", exact(admin=True))], [make_gpu_slice("n1", 1)], allocated)
    assert [(r.device, r.admin_access) for r in result.results] == [("gpu-0", True)]


def test_the_allocation_is_pinned_to_the_node_of_a_node_local_slice():
    """createNodeSelector: a device from a slice with nodeName -> matchFields metadata.name In [node]."""
    [result] = allocate([make_resource_claim("c")], [make_gpu_slice("n1", 1)])
    assert result.node_selector == NodeSelector(
        (NodeSelectorTerm(match_fields=(NodeSelectorRequirement("metadata.name", "In", ("n1",)),)),)
    )


def test_a_device_from_an_all_nodes_slice_is_available_everywhere():
    slice_ = make_gpu_slice("n1", 1, node_name="", all_nodes=True, pool="shared")
    [result] = allocate([make_resource_claim("c")], [slice_])
    assert result.node_selector is None


def test_slices_for_other_nodes_are_not_used():
    """GatherPools: NodeMatches by nodeName, nodeSelector, allNodes."""
    selector = NodeSelector((NodeSelectorTerm((NodeSelectorRequirement("zone", "In", ("b",)),)),))
    slices = [make_gpu_slice("n2", 2), make_gpu_slice("n1", 1, node_name="", node_selector=selector, pool="zb")]
    assert allocate([make_resource_claim("c")], slices) is None


def test_an_incomplete_pool_is_not_used_and_refuses_all_mode():
    """GatherPools: fewer slices than resourceSliceCount -> IsIncomplete."""
    slice_ = make_gpu_slice("n1", 2, slice_count=2)
    assert allocate([make_resource_claim("c")], [slice_]) is None
    with pytest.raises(
        AllocationError, match="asks for all devices, but resource pool gpu.example.com/n1 is currently being updated"
    ):
        allocate([make_resource_claim("c", exact(mode="All"))], [slice_])


def test_before_v1_35_an_incomplete_pools_devices_are_allocated_and_an_invalid_pool_fails():
    """v1.34's allocator (release/code.py: dra_allocator_skips_unusable_pools off): GatherPools keeps
    an incomplete pool's slices and allocateOne takes its devices (All mode still refuses it); an
    invalid pool reached by the search is an error of the cycle, not of the node."""
    incomplete = make_gpu_slice("n1", 2, slice_count=2)
    older = Allocator(set(), CLASSES.get, [incomplete], skips_unusable_pools=False)
    assert devices(older.allocate(NODE, [make_resource_claim("c")])) == [["gpu-0"]]
    with pytest.raises(AllocationError, match="is currently being updated"):
        Allocator(set(), CLASSES.get, [incomplete], skips_unusable_pools=False).allocate(
            NODE, [make_resource_claim("c", exact(mode="All"))]
        )
    first, second = make_gpu_slice("n1", 1, slice_count=2), replace(make_gpu_slice("n1", 1, slice_count=2), name="b")
    with pytest.raises(AllocationError, match="pool n1 is invalid: duplicate device name gpu-0") as raised:
        Allocator(set(), CLASSES.get, [first, second], skips_unusable_pools=False).allocate(
            NODE, [make_resource_claim("c")]
        )
    assert not raised.value.on_node


def test_the_newest_generation_of_a_pool_wins():
    old = make_gpu_slice("n1", 1, generation=1)
    new = replace(make_gpu_slice("n1", 2, generation=2), name="newer")
    assert devices(allocate([make_resource_claim("c", exact(count=2))], [old, new])) == [["gpu-0", "gpu-1"]]
    assert [pool.slices[0].name for pool in gather_pools([old, new], NODE)] == ["newer"]


def test_a_pool_with_duplicate_devices_is_invalid_and_says_so_when_nothing_fits():
    """buildPool -> validateDeviceNames; Allocate: "invalid resource pools were encountered" (on the node)."""
    first, second = make_gpu_slice("n1", 1, slice_count=2), replace(make_gpu_slice("n1", 1, slice_count=2), name="b")
    with pytest.raises(AllocationError, match="invalid resource pools were encountered") as raised:
        allocate([make_resource_claim("c")], [first, second])
    assert raised.value.on_node


def test_a_partitionable_slice_is_skipped_while_the_feature_is_off():
    """GatherPools: PartitionableDevices off -> slices with its fields are skipped."""
    assert allocate([make_resource_claim("c")], [make_gpu_slice("n1", 1, partitionable=True)]) is None


def test_a_missing_class_is_an_error():
    with pytest.raises(AllocationError, match="could not retrieve device class tpu"):
        allocate([make_resource_claim("c", exact(device_class="tpu"))], [make_gpu_slice("n1", 1)])


def test_more_than_32_devices_for_one_claim_is_an_error():
    """Allocate: minDevicesPerClaim > AllocationResultsMaxSize."""
    with pytest.raises(AllocationError, match="number of requested devices 33 exceeds the claim limit of 32"):
        allocate([make_resource_claim("c", exact(count=33))], [make_gpu_slice("n1", 1)])


def test_the_allocators_candidate_slices_give_every_node_the_pools_all_slices_give():
    """DynamicResources' node pictures gather a node's pools from the allocator's slices by node
    (Allocator.candidates) instead of every slice: the same pools, in the same order, on the
    random DRA clusters (node-local pools split or incomplete, all-nodes pools, node selectors)."""
    import importlib.util
    import sys
    from pathlib import Path

    from scheduler_core import load_scenario

    path = Path(__file__).resolve().parents[3] / "tools" / "random_scenarios.py"
    spec = importlib.util.spec_from_file_location("random_scenarios", path)
    module = sys.modules.get("random_scenarios") or importlib.util.module_from_spec(spec)
    if "random_scenarios" not in sys.modules:
        sys.modules["random_scenarios"] = module
        spec.loader.exec_module(module)
    compared = 0
    for seed in range(1, 7):
        scenario = load_scenario(module.scenario_text("dra", seed))
        slices = list(scenario.dra.slices)
        allocator = Allocator(set(), lambda name: None, slices)
        for node in scenario.nodes:
            assert gather_pools(slices, node, allocator.candidates(node)) == gather_pools(slices, node)
            compared += 1
    assert compared > 20


def test_a_memo_answers_as_a_fresh_allocator_while_the_devices_in_use_change():
    """AllocationMemo: an answer kept from an earlier cycle's allocator is given only while the
    node, its pools, the claims' specs, the classes and the node's devices in use are those it
    was computed from; each answer is checked against a fresh allocator (no memo)."""
    from scheduler_core.dra.allocator import AllocationMemo

    memo = AllocationMemo()
    slices = [make_gpu_slice("n1", 3), make_gpu_slice("n2", 2)]
    other = make_node("n2")
    claims = [make_resource_claim("c", exact(count=2))]
    in_use_by_cycle = [
        set(),
        {("gpu.example.com", "n2", "gpu-0")},
        {("gpu.example.com", "n1", "gpu-0")},
        {("gpu.example.com", "n1", "gpu-0"), ("gpu.example.com", "n1", "gpu-1")},
        set(),
    ]
    for allocated in in_use_by_cycle:
        kept = Allocator(set(allocated), CLASSES.get, slices, memo=memo)
        fresh = Allocator(set(allocated), CLASSES.get, slices)
        for node in (NODE, other):
            assert kept.allocate(node, claims) == fresh.allocate(node, claims)
    bigger = [make_resource_claim("d", exact(count=3))]  # another spec: answered afresh
    assert devices(Allocator(set(), CLASSES.get, slices, memo=memo).allocate(NODE, bigger)) == [
        ["gpu-0", "gpu-1", "gpu-2"]
    ]
    renamed = {"gpu": replace(CLASSES["gpu"], selectors=('device.attributes["gpu.example.com"].index > 0',))}
    assert devices(Allocator(set(), renamed.get, slices, memo=memo).allocate(NODE, claims)) == [["gpu-1", "gpu-2"]]


def test_a_memo_keeps_no_error():
    """An error names its claim: it is raised again for every claim, never answered from the memo."""
    from scheduler_core.dra.allocator import AllocationMemo

    memo = AllocationMemo()
    claims = [make_resource_claim("c", exact(device_class="missing"))]
    for _ in range(2):
        with pytest.raises(AllocationError, match="missing"):
            Allocator(set(), CLASSES.get, [make_gpu_slice("n1", 1)], memo=memo).allocate(NODE, claims)
    assert not memo.answers


# ---------------------------------------------------------------------- device taints (DRADeviceTaints)

BROKEN = DeviceTaint("example.com/broken", "true", "NoSchedule")


def _tainted_slice(*taints: DeviceTaint):  # gpu-0 tainted, gpu-1 clean
    slice_ = make_gpu_slice("n1", 2)
    first, second = slice_.devices
    return replace(slice_, devices=(replace(first, taints=taints), second))


def _allocate_with_taints(claims, slices, device_taints=True):
    return Allocator(set(), CLASSES.get, slices, device_taints=device_taints).allocate(NODE, list(claims))


def _tolerating(*tolerations: DeviceToleration, count: int = 1) -> DeviceRequest:
    return DeviceRequest("gpu", ExactRequest("gpu", (), "ExactCount", count, None, tolerations))


def test_an_untolerated_no_schedule_or_no_execute_taint_keeps_a_device_from_being_allocated():
    """allocateDevice: taintPreventsAllocation, checked only with the feature on."""
    for effect in ("NoSchedule", "NoExecute"):
        slices = [_tainted_slice(replace(BROKEN, effect=effect))]
        assert devices(_allocate_with_taints([make_resource_claim("c")], slices)) == [["gpu-1"]]
        assert _allocate_with_taints([make_resource_claim("c", exact(count=2))], slices) is None
        # the feature off: taints are not looked at
        assert devices(_allocate_with_taints([make_resource_claim("c")], slices, device_taints=False)) == [["gpu-0"]]


def test_a_none_effect_taint_does_not_prevent_allocation():
    slices = [_tainted_slice(replace(BROKEN, effect="None"))]
    assert devices(_allocate_with_taints([make_resource_claim("c")], slices)) == [["gpu-0"]]


def test_all_mode_fails_on_a_tainted_device_it_does_not_tolerate():
    slices = [_tainted_slice(BROKEN)]
    assert _allocate_with_taints([make_resource_claim("c", exact(mode="All"))], slices) is None


@pytest.mark.parametrize(
    "toleration, tolerated",
    [
        (DeviceToleration("example.com/broken", "Exists"), True),
        (DeviceToleration("", "Exists"), True),  # an empty key with Exists matches every taint
        (DeviceToleration("example.com/broken", "Equal", "true"), True),
        (DeviceToleration("example.com/broken", "Equal", "false"), False),
        (DeviceToleration("example.com/broken", "Exists", "", "NoSchedule"), True),
        (DeviceToleration("example.com/broken", "Exists", "", "NoExecute"), False),  # another effect
        (DeviceToleration("example.com/other", "Exists"), False),
    ],
)
def test_a_tolerated_taint_does_not_prevent_allocation(toleration, tolerated):
    """resourceclaim.ToleratesTaint: effect and key when set, then Equal compares values, Exists any."""
    slices = [_tainted_slice(BROKEN)]
    claim = make_resource_claim("c", _tolerating(toleration, count=2))
    result = _allocate_with_taints([claim], slices)
    assert (devices(result) == [["gpu-0", "gpu-1"]]) if tolerated else result is None


def test_a_subrequest_is_checked_against_its_own_tolerations():
    slices = [_tainted_slice(BROKEN)]
    tolerant = SubRequest("tolerant", "gpu", count=2, tolerations=(DeviceToleration("", "Exists"),))
    strict = SubRequest("strict", "gpu", count=2)
    claim = make_resource_claim("c", DeviceRequest("gpu", None, (strict, tolerant)))
    [result] = _allocate_with_taints([claim], slices)
    assert [r.request for r in result.results] == ["gpu/tolerant", "gpu/tolerant"]


# ---------------------------------------------------------------------- pool and slice order


def _pool_slices():
    """Pool `b` listed before pool `a`; pool `a` of two slices listed `a-2` before `a-1`."""
    b = replace(make_gpu_slice("n1", 1), name="b-1", pool="b")
    a2 = replace(make_gpu_slice("n1", 1), name="a-2", pool="a", slice_count=2)
    a1 = replace(
        make_gpu_slice("n1", 1), name="a-1", pool="a", slice_count=2, devices=(replace(a2.devices[0], name="gpu-9"),)
    )
    return [b, a2, a1]


def test_pools_come_in_listing_order_unless_sorted_by_name():
    """GatherPools: v1.36's incubating variant sorts pools by ID and a pool's slices by name."""
    listed = gather_pools(_pool_slices(), NODE)
    assert [(p.name, [s.name for s in p.slices]) for p in listed] == [("b", ["b-1"]), ("a", ["a-2", "a-1"])]
    ordered = gather_pools(_pool_slices(), NODE, sort_by_name=True)
    assert [(p.name, [s.name for s in p.slices]) for p in ordered] == [("a", ["a-1", "a-2"]), ("b", ["b-1"])]


def test_first_fit_follows_the_pool_order():
    claim = make_resource_claim("c")
    [listed] = Allocator(set(), CLASSES.get, _pool_slices()).allocate(NODE, [claim])
    [ordered] = Allocator(set(), CLASSES.get, _pool_slices(), sort_pools=True).allocate(NODE, [claim])
    assert [(r.pool, r.device) for r in listed.results] == [("b", "gpu-0")]
    assert [(r.pool, r.device) for r in ordered.results] == [("a", "gpu-9")]


# ---------------------------------------------------------------------- DRADeviceBindingConditions (v1.36 on)


def _fabric_slice(binds_to_node: bool = False) -> ResourceSlice:
    """Pool `a` (first by name) on every node, its device attached over a fabric before use."""
    attached = replace(
        make_gpu_slice("n1", 1).devices[0],
        binding_conditions=("Attached",),
        binding_failure_conditions=("AttachFailed",),
        binds_to_node=binds_to_node,
    )
    return replace(
        make_gpu_slice("n1", 1), name="a-fabric", pool="a", node_name="", all_nodes=True, devices=(attached,)
    )


def test_pools_with_binding_conditions_come_last():
    """pools_incubating.go: the pools whose devices have binding conditions after the others."""
    slices = [_fabric_slice(), replace(make_gpu_slice("n1", 1), name="b-1", pool="b")]
    assert [p.name for p in gather_pools(slices, NODE, sort_by_name=True)] == ["b", "a"]
    assert [p.name for p in gather_pools(slices, NODE)] == ["a", "b"]  # the stable variant never sees them
    claim = make_resource_claim("c", exact(count=2))
    [result] = Allocator(set(), CLASSES.get, slices, sort_pools=True).allocate(NODE, [claim])
    assert [(r.pool, r.binding_conditions, r.binding_failure_conditions) for r in result.results] == [
        ("b", None, None),
        ("a", ("Attached",), ("AttachFailed",)),
    ]


def test_a_device_that_binds_to_its_node_pins_the_allocation_to_it():
    """createNodeSelector: bindsToNode restricts the allocation to the node it was made for."""
    claim = make_resource_claim("c")
    [pinned] = Allocator(set(), CLASSES.get, [_fabric_slice(binds_to_node=True)], sort_pools=True).allocate(
        NODE, [claim]
    )
    assert pinned.node_selector == NodeSelector(
        (NodeSelectorTerm(match_fields=(NodeSelectorRequirement("metadata.name", "In", ("n1",)),)),)
    )
    [anywhere] = Allocator(set(), CLASSES.get, [_fabric_slice()], sort_pools=True).allocate(NODE, [claim])
    assert anywhere.node_selector is None


# ---------------------------------------------------------------------- DRAPartitionableDevices (v1.35 on)

GI = Fraction(1 << 30)
N2 = make_node("n2", labels={"zone": "b"})


def _counters_slice(node: str = "n1", memory_gi: int = 40, **fields):  # the pool's counter set, a slice of its own
    fields.setdefault("node_name", node)
    return ResourceSlice(
        f"{node}-counters", GPU_DRIVER, fields.pop("pool", node), slice_count=2,
        shared_counters=(CounterSet("gpu-0-counters", {"memory": memory_gi * GI}),), partitionable=True, **fields,
    )  # fmt: skip


def _partitions(node: str = "n1", count: int = 3, memory_gi: int = 20, counter_set: str = "gpu-0-counters"):
    devices = tuple(
        Device(f"gpu-0-part-{i}", {"index": i}, consumes_counters=(CounterConsumption(counter_set, {"memory": memory_gi * GI}),))
        for i in range(count)
    )  # fmt: skip
    return ResourceSlice(
        f"{node}-parts", GPU_DRIVER, node, slice_count=2, node_name=node, devices=devices, partitionable=True
    )


def _allocate_partitionable(claims, slices, allocated=(), node=NODE, allocator=None):
    allocator = allocator or Allocator(set(allocated), CLASSES.get, slices, partitionable=True)
    return allocator.allocate(node, list(claims))


def test_partitions_are_allocated_while_their_counter_set_has_room():
    """checkAvailableCounters: 2 partitions of 20Gi fit a 40Gi counter set, a third does not."""
    slices = [_counters_slice(), _partitions()]
    two = _allocate_partitionable([make_resource_claim("c", exact(count=2))], slices)
    assert devices(two) == [["gpu-0-part-0", "gpu-0-part-1"]]
    assert _allocate_partitionable([make_resource_claim("c", exact(count=3))], slices) is None


def test_allocated_partitions_consume_their_counters():
    """availableCounters: the counters less what allocated devices consume (ListAllAllocatedDevices)."""
    slices = [_counters_slice(), _partitions()]
    allocated = {(GPU_DRIVER, "n1", "gpu-0-part-2")}
    assert devices(_allocate_partitionable([make_resource_claim("c")], slices, allocated)) == [["gpu-0-part-0"]]
    assert _allocate_partitionable([make_resource_claim("c", exact(count=2))], slices, allocated) is None


def test_counters_are_given_back_when_a_later_check_refuses_the_device():
    """deviceRollbackState: part-1 takes its counters, then breaks the constraint and gives them back,
    so part-2 still fits the 40Gi set beside part-0."""
    parts = _partitions()
    numa = (0, 1, 0)
    slices = [
        _counters_slice(),
        replace(parts, devices=tuple(replace(d, attributes={"numa": n}) for d, n in zip(parts.devices, numa))),
    ]
    claim = make_resource_claim(
        "c", exact("a"), exact("b"), constraints=(DeviceConstraint(("a", "b"), "gpu.example.com/numa"),)
    )
    assert devices(_allocate_partitionable([claim], slices)) == [["gpu-0-part-0", "gpu-0-part-2"]]


@pytest.mark.parametrize(
    "counter_set, counter, reason",
    [
        ("other", "memory", "counter set other not found"),
        ("gpu-0-counters", "cores", "counter cores not found in counter set gpu-0-counters"),
    ],
)
def test_a_pool_whose_devices_consume_unknown_counters_is_invalid(counter_set, counter, reason):
    """buildPool -> validateDeviceCounterConsumption."""
    parts = _partitions(count=1, counter_set=counter_set)
    device = replace(parts.devices[0], consumes_counters=(CounterConsumption(counter_set, {counter: GI}),))
    [pool] = gather_pools([_counters_slice(), replace(parts, devices=(device,))], NODE, partitionable=True)
    assert pool.invalid and pool.invalid_reason == reason
    with pytest.raises(AllocationError, match="invalid resource pools were encountered"):
        _allocate_partitionable([make_resource_claim("c")], [_counters_slice(), replace(parts, devices=(device,))])


def test_a_counter_set_slice_is_gathered_for_every_node_and_is_no_device_slice():
    """GatherPools: a slice with sharedCounters is relevant whatever node it names (NewAllocator
    lists it with the shared slices); buildPool keeps its counter sets apart from the device slices."""
    slices = [_counters_slice(node="n2", pool="n1"), _partitions()]
    allocator = Allocator(set(), CLASSES.get, slices, partitionable=True)
    [pool] = allocator.pools(NODE)
    assert [s.name for s in pool.slices] == ["n1-parts"] and list(pool.counter_sets) == ["gpu-0-counters"]
    assert devices(allocator.allocate(NODE, [make_resource_claim("c", exact(count=2))])) == [
        ["gpu-0-part-0", "gpu-0-part-1"]
    ]


def _per_device_slice():
    selector = NodeSelector((NodeSelectorTerm((NodeSelectorRequirement("zone", "In", ("b",)),)),))
    devices = (
        Device("on-n2", node_name="n2"),
        Device("in-zone-b", node_selector=selector),
        Device("anywhere", all_nodes=True),
        Device("on-n1", node_name="n1"),
    )
    return ResourceSlice(
        "fabric", GPU_DRIVER, "fabric", per_device_node_selection=True, devices=devices, partitionable=True
    )


def test_per_device_node_selection_offers_each_node_its_own_devices():
    """isSelectable: with perDeviceNodeSelection a device matches only the nodes it names; the
    allocation is pinned to the node for a nodeName device, takes a device's selector, none for allNodes."""
    slices = [_per_device_slice()]
    on_n1 = _allocate_partitionable([make_resource_claim("c", exact(count=2))], slices)
    assert devices(on_n1) == [["anywhere", "on-n1"]]
    assert on_n1[0].node_selector == NodeSelector(
        (NodeSelectorTerm(match_fields=(NodeSelectorRequirement("metadata.name", "In", ("n1",)),)),)
    )
    [in_zone] = _allocate_partitionable(
        [make_resource_claim("c")], slices, allocated={(GPU_DRIVER, "fabric", "on-n2")}, node=N2
    )
    assert [r.device for r in in_zone.results] == ["in-zone-b"]
    assert in_zone.node_selector == NodeSelector((NodeSelectorTerm((NodeSelectorRequirement("zone", "In", ("b",)),)),))
    [anywhere] = _allocate_partitionable([make_resource_claim("c")], slices)
    assert [r.device for r in anywhere.results] == ["anywhere"] and anywhere.node_selector is None


def test_partitionable_slices_are_skipped_while_the_feature_is_off():
    assert Allocator(set(), CLASSES.get, [_per_device_slice()]).allocate(NODE, [make_resource_claim("c")]) is None


# ---------------------------------------------------------------------- consumable capacity (v1.36)


def _gi(n: float) -> Amount:
    return Amount(Fraction(int(n * (1 << 30))), canonical(Fraction(int(n * (1 << 30))), BINARY_SI))


def _shared_nic(value_gi: int = 10, policy: CapacityRequestPolicy | None = None, **fields) -> Device:
    return Device(
        "nic-0",
        {"port": 0},
        {"bandwidth": Fraction(value_gi << 30)},
        allow_multiple_allocations=True,
        request_policies={"bandwidth": policy} if policy is not None else {},
        capacity_shown={"bandwidth": f"{value_gi}Gi"},
        **fields,
    )


def _nic_slice(*devices: Device) -> ResourceSlice:
    return ResourceSlice("n1-nic", GPU_DRIVER, "n1", node_name="n1", devices=devices)


def _bandwidth(name: str, gi: float | None, count: int = 1) -> ResourceClaim:
    capacity = {"bandwidth": _gi(gi)} if gi is not None else None
    request = DeviceRequest("nic", ExactRequest("gpu", count=count, capacity=capacity))
    return make_resource_claim(name, request)


def _allocate_shared(claims, slices, aggregated=None, shared=frozenset(), consumable=True):
    allocator = Allocator(
        set(), CLASSES.get, slices, consumable_capacity=consumable, shared=shared, aggregated=aggregated
    )
    return allocator.allocate(NODE, list(claims))


STEPPED = CapacityRequestPolicy(_gi(1), valid_range=CapacityRange(_gi(1), step=Fraction(1 << 30)))


def test_claims_share_a_device_that_allows_multiple_allocations_while_its_capacity_lasts():
    """Each share consumes what its request asks, rounded up onto the policy's steps (3.5Gi -> 4Gi):
    two fit in 10Gi, a third does not."""
    slices = [_nic_slice(_shared_nic(policy=STEPPED))]
    two = _allocate_shared([_bandwidth("a", 3.5), _bandwidth("b", 3.5)], slices)
    assert devices(two) == [["nic-0"], ["nic-0"]]
    assert [r.results[0].consumed_capacity for r in two] == [{"bandwidth": "4Gi"}, {"bandwidth": "4Gi"}]
    share_ids = {r.results[0].share_id for r in two}
    assert len(share_ids) == 2 and None not in share_ids
    assert _allocate_shared([_bandwidth("a", 3.5), _bandwidth("b", 3.5), _bandwidth("c", 3.5)], slices) is None


def test_what_allocated_shares_consume_counts_against_the_capacity():
    slices = [_nic_slice(_shared_nic(policy=STEPPED))]
    held = {(GPU_DRIVER, "n1", "nic-0"): {"bandwidth": Fraction(7 << 30)}}
    assert _allocate_shared([_bandwidth("a", 3)], slices, aggregated=held) == [
        *_allocate_shared([_bandwidth("a", 3)], slices)
    ]
    assert _allocate_shared([_bandwidth("a", 3.5)], slices, aggregated=held) is None


def test_without_a_request_a_share_consumes_the_policys_default_or_the_whole_capacity():
    with_default = [_nic_slice(_shared_nic(policy=STEPPED))]
    [result] = _allocate_shared([_bandwidth("a", None)], with_default)
    assert result.results[0].consumed_capacity == {"bandwidth": "1Gi"}
    whole = [_nic_slice(_shared_nic())]
    [result] = _allocate_shared([_bandwidth("a", None)], whole)
    assert result.results[0].consumed_capacity == {"bandwidth": "10Gi"}
    assert _allocate_shared([_bandwidth("a", None), _bandwidth("b", None)], whole) is None


def test_valid_values_round_a_request_up_and_one_above_them_all_violates_the_policy():
    policy = CapacityRequestPolicy(_gi(1), valid_values=(_gi(1), _gi(2), _gi(4)))
    slices = [_nic_slice(_shared_nic(8, policy))]
    [result] = _allocate_shared([_bandwidth("a", 3)], slices)
    assert result.results[0].consumed_capacity == {"bandwidth": "4Gi"}
    assert _allocate_shared([_bandwidth("a", 5)], slices) is None  # 5Gi is none of the valid values


def test_a_range_maximum_bounds_one_share():
    policy = CapacityRequestPolicy(_gi(1), valid_range=CapacityRange(_gi(1), max=Fraction(2 << 30)))
    slices = [_nic_slice(_shared_nic(8, policy))]
    assert _allocate_shared([_bandwidth("a", 2)], slices) is not None
    assert _allocate_shared([_bandwidth("a", 3)], slices) is None


def test_a_request_for_a_capacity_the_device_lacks_passes_the_device_over():
    other = DeviceRequest("nic", ExactRequest("gpu", capacity={"memory": _gi(1)}))
    assert _allocate_shared([make_resource_claim("a", other)], [_nic_slice(_shared_nic())]) is None


def test_a_device_not_shared_still_checks_a_requested_capacity_but_is_held_whole():
    single = Device("nic-0", {}, {"bandwidth": Fraction(10 << 30)})
    slices = [_nic_slice(single)]
    [result] = _allocate_shared([_bandwidth("a", 4)], slices)
    assert result.results[0].share_id is None and result.results[0].consumed_capacity is None
    assert _allocate_shared([_bandwidth("a", 11)], slices) is None
    assert _allocate_shared([_bandwidth("a", 4), _bandwidth("b", 4)], slices) is None


def test_with_the_feature_off_a_device_is_held_whole_whatever_it_allows():
    slices = [_nic_slice(_shared_nic(policy=STEPPED))]
    assert _allocate_shared([_bandwidth("a", 1), _bandwidth("b", 1)], slices, consumable=False) is None


def test_a_second_share_of_a_device_draws_no_counters_again():
    """skipCounterCheck: one 20Gi counter set, a shared partition consuming all of it: two shares fit
    (a device taken whole would fit once)."""
    consuming = _shared_nic(consumes_counters=(CounterConsumption("gpu-0-counters", {"memory": 40 * GI}),))
    parts = ResourceSlice(
        "n1-parts", GPU_DRIVER, "n1", slice_count=2, node_name="n1", devices=(consuming,), partitionable=True
    )
    allocator = Allocator(set(), CLASSES.get, [_counters_slice(), parts], consumable_capacity=True, partitionable=True)
    results = allocator.allocate(NODE, [_bandwidth("a", 1), _bandwidth("b", 1)])
    assert results is not None and devices(results) == [["nic-0"], ["nic-0"]]
    whole = Allocator(set(), CLASSES.get, [_counters_slice(), parts], partitionable=True)
    assert whole.allocate(NODE, [_bandwidth("a", 1), _bandwidth("b", 1)]) is None


def test_a_distinct_attribute_constraint_takes_devices_with_different_values():
    same = make_gpu_slice("n1", count=3)
    claim = make_resource_claim(
        "a",
        exact("gpu", count=2),
        constraints=(DeviceConstraint(("gpu",), None, "gpu.example.com/model"),),
    )
    assert _allocate_shared([claim], [same]) is None  # every GPU is an h100
    mixed = replace(same, devices=(*same.devices[:2], replace(same.devices[2], attributes={"model": "a100"})))
    assert devices(_allocate_shared([claim], [mixed])) == [["gpu-0", "gpu-2"]]


def test_a_distinct_attribute_keyed_by_request_compares_a_third_device_with_the_second_only():
    """The release keeps one value per request name: a request's second device replaces the first's,
    so a third device equal to the first passes."""
    models = ("h100", "a100", "h100")
    base = make_gpu_slice("n1", count=3)
    slice_ = replace(base, devices=tuple(replace(d, attributes={"model": m}) for d, m in zip(base.devices, models)))
    claim = make_resource_claim(
        "a", exact("gpu", count=3), constraints=(DeviceConstraint(("gpu",), None, "gpu.example.com/model"),)
    )
    assert devices(_allocate_shared([claim], [slice_])) == [["gpu-0", "gpu-1", "gpu-2"]]


def test_from_v1_36_a_requests_next_device_comes_after_the_one_it_took():
    """allocateOne's startLocation (v1.36's incubating variant): one request of two devices cannot
    take two shares of the only device; two requests can. Before v1.36 every device is tried again."""
    slices = [_nic_slice(_shared_nic(policy=STEPPED))]
    two_of_one = make_resource_claim(
        "a", DeviceRequest("nic", ExactRequest("gpu", count=2, capacity={"bandwidth": _gi(1)}))
    )
    combinations = Allocator(set(), CLASSES.get, slices, consumable_capacity=True, combinations=True)
    assert combinations.allocate(NODE, [two_of_one]) is None
    permutations = Allocator(set(), CLASSES.get, slices, consumable_capacity=True)
    assert devices(permutations.allocate(NODE, [two_of_one])) == [["nic-0", "nic-0"]]
    assert devices(combinations.allocate(NODE, [_bandwidth("a", 1), _bandwidth("b", 1)])) == [["nic-0"], ["nic-0"]]
