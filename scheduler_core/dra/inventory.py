"""The devices of each node as the scheduler sees them, for the cluster view (a node x device map
coloured by class and allocation) and for claims per pod. Each is declared once, as its wire form
(``Wire``, util/wire.py): the web app serves it (webui/schemas/scenarios.py makes its schemas from
these declarations).

A device belongs to a node when its slice targets the node (GatherPools: node name, node selector
or all nodes), so a device of an all-nodes slice is listed under every node. Its classes are the
DeviceClasses whose selectors accept it; its holder is the claim whose allocation (or allocation
in flight) has it, with the pods the claim is reserved for.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Optional, Union

from msgspec.structs import force_setattr

from scheduler_core.dra.allocator import AllocationError, device_matches_node, gather_pools, selectors_match
from scheduler_core.framework.dra_state import DraState
from scheduler_core.model import Device, DeviceRequest, Node, Pod, ResourceClaim, Scenario, Version
from scheduler_core.util.wire import Wire


class DeviceEntry(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    device: str  # driver/pool/device
    name: str
    attributes: dict[str, Union[int, bool, str]]  # a version attribute as its text
    classes: tuple[str, ...]  # the DeviceClasses that select it
    claim: Optional[str]  # the claim holding it (namespace/name), None when free
    reserved_for: tuple[str, ...]  # that claim's pods
    in_flight: bool = False  # held by an allocation Reserve made that PreBind has not written yet
    # A device that allows multiple allocations (DRAConsumableCapacity): the claims holding shares of
    # it, and each capacity as those shares leave it ("bandwidth: 4Gi of 10Gi left").
    shared_by: tuple[str, ...] = ()
    capacity_left: tuple[str, ...] = ()


class NodeDevices(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """A node's devices; ``free`` (those no claim holds) is derived: filled in when made."""

    node: str
    free: int = 0
    devices: tuple[DeviceEntry, ...] = ()

    def __post_init__(self) -> None:
        force_setattr(self, "free", sum(1 for device in self.devices if not device.claim))


class PodClaim(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """One of a pod's claims: its requests, the devices allocated, the pods it is reserved for."""

    pod_claim: str  # the name in the pod's spec.resourceClaims
    claim: Optional[str]  # namespace/name, None when not created yet
    requests: tuple[str, ...]  # "gpu: 2 x gpu-l4", "gpu: all of gpu"
    devices: tuple[str, ...]  # driver/pool/device of the allocation
    reserved_for: tuple[str, ...]


def node_devices(
    dra: DraState, nodes: list[Node], skip_unusable: bool = True, partitionable: bool = False
) -> list[NodeDevices]:
    """Every node's devices, in node order, then slice order: the pools as the release's allocator
    gathers them (``skip_unusable``: the release's dra_allocator_skips_unusable_pools; before v1.35
    an incomplete pool's slices that target the node are kept; ``partitionable``:
    DRAPartitionableDevices, a device of a slice with perDeviceNodeSelection under its own nodes)."""
    holders = dra.device_holders()
    sharing = _sharing_claims(dra)
    _, consumed = dra.shared_devices()
    result = []
    for node in nodes:
        entries = []
        for pool in gather_pools(dra.slices, node, skip_unusable=skip_unusable, partitionable=partitionable):
            for slice_ in pool.slices:
                for device in slice_.devices:
                    if slice_.per_device_node_selection and not device_matches_node(device, node):
                        continue
                    device_id = (slice_.driver, slice_.pool, device.name)
                    holder = holders.get(device_id)
                    entries.append(
                        DeviceEntry(
                            "/".join(device_id),
                            device.name,
                            {k: (v.text if isinstance(v, Version) else v) for k, v in device.attributes.items()},
                            _classes(dra, device_id, device),
                            holder.key if holder else None,
                            tuple(ref.name for ref in holder.reserved_for) if holder else (),
                            holder is not None and dra.has_pending_allocation(holder.uid),
                            tuple(sharing.get(device_id, ())),
                            _capacity_left(device, consumed.get(device_id, {}))
                            if device.allow_multiple_allocations
                            else (),
                        )
                    )
        result.append(NodeDevices(node.name, devices=tuple(entries)))
    return result


def _sharing_claims(dra: DraState) -> dict[tuple[str, str, str], list[str]]:
    """Per shared device, the claims (allocated or in flight) holding a share of it."""
    found: dict[tuple[str, str, str], list[str]] = {}
    for claim in (*dra.claims.values(), *dra.in_flight.values()):
        for result in claim.allocation.results if claim.allocation is not None else ():
            if result.share_id is not None and claim.key not in found.get(result.device_id, ()):
                found.setdefault(result.device_id, []).append(claim.key)
    return found


def _capacity_left(device: Device, consumed: dict[str, Fraction]) -> tuple[str, ...]:
    """ "bandwidth: 4Gi of 10Gi left", each capacity of a shared device."""
    return tuple(
        f"{name}: {device.capacity_text(name, total - consumed.get(name, Fraction(0)))} of "
        f"{device.capacity_text(name, total)} left"
        for name, total in device.capacity.items()
    )


def pod_claims(dra: DraState, pod: Pod) -> list[PodClaim]:
    """The pod's claims in spec order, as far as they exist."""
    statuses = dict(pod.claim_statuses)
    result = []
    for source in pod.claim_sources:
        name = source.claim_name or statuses.get(source.name, "")
        claim: Optional[ResourceClaim] = dra.claim(pod.namespace, name) if name else None
        if claim is None:
            result.append(PodClaim(source.name, None, (), (), ()))
            continue
        devices = tuple("/".join(r.device_id) for r in claim.allocation.results) if claim.allocation else ()
        result.append(
            PodClaim(
                source.name,
                claim.key,
                tuple(_describe(r) for r in claim.spec.requests),
                devices,
                tuple(ref.name for ref in claim.reserved_for),
            )
        )
    return result


def _classes(dra: DraState, device_id: tuple[str, str, str], device: Device) -> tuple[str, ...]:
    names = []
    for device_class in dra.classes.values():
        try:
            if selectors_match(
                f"class {device_class.name}", device_class.selectors, device_id, device, dra.selector_cache
            ):
                names.append(device_class.name)
        except AllocationError:
            continue  # a selector that fails on this device does not select it
    return tuple(names)


def _describe(request: DeviceRequest) -> str:
    if request.exactly is not None:
        exact = request.exactly
        amount = "all" if exact.allocation_mode == "All" else str(exact.count)
        return f"{request.name}: {amount} x {exact.device_class_name}"
    options = " | ".join(f"{sub.count} x {sub.device_class_name}" for sub in request.first_available)
    return f"{request.name}: first of {options}"


def scenario_devices(scenario: Scenario) -> tuple[list[NodeDevices], dict[str, list[PodClaim]]]:
    """Every node's devices (when the scenario has ResourceSlices) and each pod's claims (for pods
    with claims, keyed namespace/name), as the scheduler's DRA state sees them at the start."""
    if not (scenario.dra.slices or scenario.dra.claims):
        return [], {}
    dra = DraState.as_listed(scenario.dra)
    features = scenario.rules.features
    skip_unusable, partitionable = (
        features.dra_allocator_skips_unusable_pools,
        features.enable_dra_partitionable_devices,
    )
    devices = node_devices(dra, list(scenario.nodes), skip_unusable, partitionable) if scenario.dra.slices else []
    return devices, {pod.key: pod_claims(dra, pod) for pod in scenario.pods if pod.claim_sources}
