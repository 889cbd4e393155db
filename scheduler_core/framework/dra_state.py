"""DraState: the scheduler's view of resource.k8s.io objects (the DRA manager of
dynamicresources/dra_manager.go): device classes, resource slices, the claims' assume cache and
the allocations in flight (Reserve signalled them, PreBind has not written them yet).

Writes of claims (by DynamicResources' PreBind and PostFilter, by the stand-in resourceclaim
controller) go through the API (``cluster.objects.ObjectWrites``): this cache follows at once and a
``ClusterChange`` is queued for the queue's hints, as the release's assume cache does with its
event handlers.
"""

from __future__ import annotations

from typing import Optional

from scheduler_core.model import DeviceClass, DraObjects, ResourceClaim, ResourceClaimTemplate, ResourceSlice

DeviceId = tuple[str, str, str]


class DraState:
    def __init__(self, objects: Optional[DraObjects] = None) -> None:
        objects = objects or DraObjects()
        self.classes: dict[str, DeviceClass] = {c.name: c for c in objects.classes}
        self.slices: list[ResourceSlice] = list(objects.slices)
        self.claims: dict[str, ResourceClaim] = {c.key: c for c in objects.claims}
        self.templates: dict[str, ResourceClaimTemplate] = {t.key: t for t in objects.templates}
        self.in_flight: dict[str, ResourceClaim] = {}  # claim uid -> the claim with its allocation
        self.selector_cache: dict[object, object] = {}  # CEL verdicts per (expression, device): allocator.SelectorCache

    # ------------------------------------------------------------------ listers

    def device_class(self, name: str) -> Optional[DeviceClass]:
        return self.classes.get(name)

    def claim(self, namespace: str, name: str) -> Optional[ResourceClaim]:
        return self.claims.get(f"{namespace}/{name}")

    def template(self, namespace: str, name: str) -> Optional[ResourceClaimTemplate]:
        return self.templates.get(f"{namespace}/{name}")

    def has_pending_allocation(self, uid: str) -> bool:
        """ClaimHasPendingAllocation."""
        return uid in self.in_flight

    def device_holders(self) -> dict[DeviceId, ResourceClaim]:
        """ListAllAllocatedDevices, with the claim holding each device: every device of an
        allocated claim (admin access left out), then those of allocations in flight."""
        holders: dict[DeviceId, ResourceClaim] = {}
        for claim in [*self.claims.values(), *self.in_flight.values()]:
            if claim.allocation is None:
                continue
            for result in claim.allocation.results:
                if not result.admin_access:
                    holders.setdefault(result.device_id, claim)
        return holders

    def device_owners(self) -> dict[DeviceId, str]:
        """The devices in use, each with its claim's ``namespace/name``."""
        return {device: claim.key for device, claim in self.device_holders().items()}
