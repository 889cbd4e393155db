"""DraState: the scheduler's view of resource.k8s.io objects (the DRA manager of
dynamicresources/dra_manager.go): device classes, resource slices, the claims' assume cache and
the allocations in flight (Reserve signalled them, PreBind has not written them yet).

Writes of claims (by DynamicResources' PreBind and PostFilter, by the stand-in resourceclaim
controller) go through the API (``cluster.objects.ObjectWrites``): this cache follows at once and a
``ClusterChange`` is queued for the queue's hints, as the release's assume cache does with its
event handlers.
"""

from __future__ import annotations

from typing import Any, Optional, TypeVar

from scheduler_core.model import Device, DeviceClass, DraObjects, ResourceClaim, ResourceClaimTemplate, ResourceSlice

DeviceId = tuple[str, str, str]
# The allocator's CEL verdicts per (expression, device), kept with the state it reads.
SelectorCache = dict[tuple[str, str, int], tuple[Device, Optional[bool], str]]
K = TypeVar("K")
V = TypeVar("V")


class VersionedDict(dict[K, V]):
    """A dict that counts its writes (``version``): a cache of something computed from it is good
    while the version is the one it was computed at. Claims are frozen, so a claim's change is a write."""

    version: int = 0

    def __setitem__(self, key: K, value: V) -> None:
        self.version += 1
        super().__setitem__(key, value)

    def __delitem__(self, key: K) -> None:
        self.version += 1
        super().__delitem__(key)

    def pop(self, *args: Any) -> Any:
        self.version += 1
        return super().pop(*args)

    def popitem(self) -> tuple[K, V]:
        self.version += 1
        return super().popitem()

    def clear(self) -> None:
        self.version += 1
        super().clear()

    def update(self, *args: Any, **kwargs: Any) -> None:
        self.version += 1
        super().update(*args, **kwargs)

    def setdefault(self, key: K, default: Any = None) -> Any:
        self.version += 1
        return super().setdefault(key, default)

    def __ior__(self, other: Any) -> "VersionedDict[K, V]":  # type: ignore[override,misc]
        self.version += 1
        return super().__ior__(other)


class DraState:
    def __init__(self, objects: Optional[DraObjects] = None) -> None:
        objects = objects or DraObjects()
        self.classes: dict[str, DeviceClass] = {c.name: c for c in objects.classes}
        self.slices: list[ResourceSlice] = list(objects.slices)
        self.claims: dict[str, ResourceClaim] = VersionedDict((c.key, c) for c in objects.claims)
        self.templates: dict[str, ResourceClaimTemplate] = {t.key: t for t in objects.templates}
        # claim uid -> the claim with its allocation
        self.in_flight: dict[str, ResourceClaim] = VersionedDict()
        self.selector_cache: SelectorCache = {}  # CEL verdicts per (expression, device)
        self._holders: Optional[tuple[tuple[object, ...], dict[DeviceId, ResourceClaim], dict[DeviceId, str]]] = None

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

    def _stamp(self) -> tuple[object, ...]:
        """What device_holders depends on: the two dicts and their writes (a dict put in their
        place, or one that is not a VersionedDict, never matches a kept answer)."""
        claims, in_flight = self.claims, self.in_flight
        if not isinstance(claims, VersionedDict) or not isinstance(in_flight, VersionedDict):
            return (object(),)
        return (id(claims), claims.version, id(in_flight), in_flight.version)

    def _holders_and_owners(self) -> tuple[dict[DeviceId, ResourceClaim], dict[DeviceId, str]]:
        stamp = self._stamp()
        kept = self._holders
        if kept is not None and kept[0] == stamp:
            return kept[1], kept[2]
        holders: dict[DeviceId, ResourceClaim] = {}
        owners: dict[DeviceId, str] = {}
        # the claims' dict is keyed by claim.key (a property that formats it on every read)
        keyed = [*self.claims.items(), *((claim.key, claim) for claim in self.in_flight.values())]
        for key, claim in keyed:
            allocation = claim.allocation
            if allocation is None:
                continue
            for result in allocation.results:
                if not result.admin_access:
                    device = (result.driver, result.pool, result.device)
                    if device not in holders:
                        holders[device] = claim
                        owners[device] = key
        self._holders = (stamp, holders, owners)
        return holders, owners

    def device_holders(self) -> dict[DeviceId, ResourceClaim]:
        """ListAllAllocatedDevices, with the claim holding each device: every device of an
        allocated claim (admin access left out), then those of allocations in flight. Kept until
        a claim or an allocation in flight is written (a new dict for each caller)."""
        return dict(self._holders_and_owners()[0])

    def device_owners(self) -> dict[DeviceId, str]:
        """The devices in use, each with its claim's ``namespace/name`` (a new dict for each caller)."""
        return dict(self._holders_and_owners()[1])
