"""The devices behind an extended resource a DeviceClass stands for, counted per node for scoring
(DRAExtendedResource, on by default from v1.36; noderesources/resource_allocation.go
getDRAPreScoredParams, calculateDRAExtendedResourceAllocatableRequest, calculateDRAResourceTotals).

When NodeResourcesFit's scoring strategy or NodeResourcesBalancedAllocation scores such a resource
and a node does not advertise it (allocatable 0), the node's amount is the number of devices of
the class there and what is used the number of them allocated (or shared) — counted over every
slice, whatever its pool's generation, as the release counts. PreScore takes the devices in use
and the slices once per cycle; a selector that fails to evaluate makes the node's amount 0 (the
release logs the error and leaves the resource out).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from scheduler_core.dra.allocator import (
    AllocationError,
    DeviceId,
    device_matches_node,
    selectors_match,
    slice_matches_node,
)
from scheduler_core.framework.dra_class_resolver import ExtendedResourceCache
from scheduler_core.framework.dra_state import DraState, SelectorCache
from scheduler_core.model import DeviceClass, Node, ResourceSlice
from scheduler_core.plugins.node_resources.resource_names import is_dra_extended_resource_name


@dataclass(slots=True)
class DeviceTotals:
    """draPreScoreState: the devices in use and the slices as PreScore found them."""

    resolver: ExtendedResourceCache
    in_use: frozenset[DeviceId]
    slices: tuple[ResourceSlice, ...]
    cache: SelectorCache
    _counted: dict[tuple[str, str], tuple[int, int]] = field(default_factory=dict)

    def amounts(self, node: Node, resource: str) -> tuple[int, int]:
        """(devices of the resource's class on the node, how many of them are in use); (0, 0) when
        no class stands for it or a selector fails."""
        key = (node.name, resource)
        counted = self._counted.get(key)
        if counted is None:
            device_class = self.resolver.device_class(resource)
            counted = (0, 0) if device_class is None else self._count(node, device_class)
            self._counted[key] = counted
        return counted

    def _count(self, node: Node, device_class: DeviceClass) -> tuple[int, int]:
        total = used = 0
        try:
            for slice_ in self.slices:
                if not slice_.per_device_node_selection and slice_matches_node(slice_, node) is False:
                    continue
                for device in slice_.devices:
                    if slice_.per_device_node_selection and not device_matches_node(device, node):
                        continue
                    device_id = (slice_.driver, slice_.pool, device.name)
                    if device_class.selectors and not selectors_match(
                        f"class {device_class.name}", device_class.selectors, device_id, device, self.cache
                    ):
                        continue
                    total += 1
                    used += device_id in self.in_use
        except AllocationError:
            return 0, 0
        return total, used


def device_totals(dra: DraState, resources: tuple[str, ...]) -> Optional[DeviceTotals]:
    """getDRAPreScoredParams: the cycle's device counts when a class stands for one of the scored
    ``resources``, else None (nothing to count)."""
    resolver = dra.class_resolver
    if not any(is_dra_extended_resource_name(name) and resolver.device_class(name) is not None for name in resources):
        return None
    shared, aggregated = dra.shared_devices()
    in_use = frozenset({*dra.device_owners(), *shared, *aggregated})
    return DeviceTotals(resolver, in_use, dra.slices, dra.selector_cache)
