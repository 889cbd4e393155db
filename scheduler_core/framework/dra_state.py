"""DraState: the scheduler's view of resource.k8s.io objects (the DRA manager of
dynamicresources/dra_manager.go): the informers' stores of device classes, resource slices and
claim templates, the claims' cache (the manager's assume cache over the claim informer) and the
allocations in flight (Reserve signalled them, PreBind has not written them yet).

The informer stores and the claims' cache hold only what the run's API server
(scheduler_core.cluster.store) lists and then delivers: its informers
(scheduler_core.cluster.informers) hand every object and every watch event to ``informed``, at
once; nothing else writes them, and everyone else reads them through read-only views
(``classes``, ``claims``, ``templates`` map keys to objects; ``slices`` is a tuple). Writes of
claims (by DynamicResources' PreBind, PostFilter and Unreserve, by the stand-in resourceclaim
controller) go to the API server (``cluster.objects.ObjectWrites``); the claims' cache follows as
the write is delivered, and the event handlers hear of it at the run's points, as the release's
assume cache and its event handlers do. The allocations in flight and the allocator's CEL
verdicts are the scheduler's own state, written by the plugin.
"""

from __future__ import annotations

from fractions import Fraction
from types import MappingProxyType
from typing import Any, Iterable, Mapping, Optional, TypeVar, Union

from scheduler_core.framework.dra_class_resolver import ExtendedResourceCache
from scheduler_core.framework.informer import take
from scheduler_core.model import Device, DeviceClass, DraObjects, ResourceClaim, ResourceClaimTemplate, ResourceSlice
from scheduler_core.model.quantity import parse_quantity

DeviceId = tuple[str, str, str]
PoolId = tuple[str, str]  # driver, pool
# The allocator's CEL verdicts per (expression, device), kept with the state it reads.
SelectorCache = dict[tuple[str, str, int], tuple[Device, Optional[bool], str]]
K = TypeVar("K")
V = TypeVar("V")
DeviceObject = Union[DeviceClass, ResourceSlice, ResourceClaim, ResourceClaimTemplate]


class VersionedDict(dict[K, V]):
    """A dict that counts its writes (``version``): a cache of something computed from it is good
    while the version is the one it was computed at. Claims are frozen, so a claim's change is a write.
    It also notes the keys written since ``take_written`` was last called (None after a write of
    many keys at once), so such a cache can follow the writes instead of starting again."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.version = 0
        self._written: Optional[set[K]] = set()

    def _wrote(self, key: K) -> None:
        self.version += 1
        if self._written is not None:
            self._written.add(key)

    def _wrote_many(self) -> None:
        self.version += 1
        self._written = None

    def take_written(self) -> Optional[set[K]]:
        """The keys written since the last call (None: too many to tell), and start noting afresh."""
        written, self._written = self._written, set()
        return written

    def __setitem__(self, key: K, value: V) -> None:
        self._wrote(key)
        super().__setitem__(key, value)

    def __delitem__(self, key: K) -> None:
        self._wrote(key)
        super().__delitem__(key)

    def pop(self, key: K, *default: Any) -> Any:
        self._wrote(key)
        return super().pop(key, *default)

    def popitem(self) -> tuple[K, V]:
        self._wrote_many()
        return super().popitem()

    def clear(self) -> None:
        self._wrote_many()
        super().clear()

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._wrote_many()
        super().update(*args, **kwargs)

    def setdefault(self, key: K, default: Any = None) -> Any:
        self._wrote(key)
        return super().setdefault(key, default)

    def __ior__(self, other: Any) -> "VersionedDict[K, V]":  # type: ignore[override,misc]
        self._wrote_many()
        return super().__ior__(other)


def _devices_of(claim: ResourceClaim) -> tuple[DeviceId, ...]:
    """The devices an allocated claim holds whole (admin access and shares left out:
    foreachAllocatedDevice's dedicated devices)."""
    allocation = claim.allocation
    if allocation is None:
        return ()
    return tuple(
        (result.driver, result.pool, result.device)
        for result in allocation.results
        if not result.admin_access and result.share_id is None
    )


def _has_shares(claim: Optional[ResourceClaim]) -> bool:
    allocation = claim.allocation if claim is not None else None
    return allocation is not None and any(result.share_id is not None for result in allocation.results)


SharedState = tuple[frozenset[DeviceId], dict[DeviceId, dict[str, Fraction]]]


def _shares(claims: Iterable[ResourceClaim]) -> SharedState:
    """AllocatedSharedDeviceIDs (by device) and AggregatedCapacity: the devices shares of which the
    claims hold (DRAConsumableCapacity), and what those shares consume of each, summed."""
    shared: set[DeviceId] = set()
    aggregated: dict[DeviceId, dict[str, Fraction]] = {}
    for claim in claims:
        if not _has_shares(claim):
            continue
        assert claim.allocation is not None  # _has_shares says so
        for result in claim.allocation.results:
            if result.admin_access or result.share_id is None:
                continue
            shared.add(result.device_id)
            if result.consumed_capacity is None:
                continue
            entry = aggregated.setdefault(result.device_id, {})
            for name, text in result.consumed_capacity.items():
                entry[name] = entry.get(name, Fraction(0)) + parse_quantity(text)
    return frozenset(shared), aggregated


class _Holding:
    """One of the dicts claims are held in (the claims, or the allocations in flight) as the devices
    in use read it: which of its keys hold each device, and the devices each key holds."""

    def __init__(self, claims: VersionedDict[str, ResourceClaim], keyed_by_claim: bool) -> None:
        self.claims = claims
        self.keyed_by_claim = keyed_by_claim  # the dict's keys are the claims' namespace/name
        self.keys_of: dict[DeviceId, list[str]] = {}
        self.devices_of: dict[str, tuple[DeviceId, ...]] = {}

    def owner(self, key: str, claim: ResourceClaim) -> str:
        return key if self.keyed_by_claim else claim.key

    def forget(self, key: str) -> tuple[DeviceId, ...]:
        devices = self.devices_of.pop(key, ())
        for device in devices:
            keys = self.keys_of[device]
            keys.remove(key)
            if not keys:
                del self.keys_of[device]
        return devices

    def note(self, key: str) -> tuple[DeviceId, ...]:
        claim = self.claims.get(key)
        devices = _devices_of(claim) if claim is not None else ()
        if devices:
            self.devices_of[key] = devices
            for device in devices:
                self.keys_of.setdefault(device, []).append(key)
        return devices

    def first_holder(self, device: DeviceId) -> Optional[str]:
        """The first key holding the device in the dict's order."""
        keys = self.keys_of.get(device)
        if not keys:
            return None
        if len(keys) == 1:
            return keys[0]
        return next(key for key in self.claims if key in keys)  # a device held twice: rare


class _DevicesInUse:
    """ListAllAllocatedDevices with the claim holding each device, kept in step with the writes of
    the claims' and the in-flight allocations' dicts: per device, the first claim holding it in
    the claims' order, else the first allocation in flight in theirs. Rebuilt from both dicts when
    a write of many keys at once leaves the changed keys unknown."""

    def __init__(self, claims: VersionedDict[str, ResourceClaim], in_flight: VersionedDict[str, ResourceClaim]) -> None:
        self.holdings = (_Holding(claims, keyed_by_claim=True), _Holding(in_flight, keyed_by_claim=False))
        self.versions = (-1, -1)
        self.holders: dict[DeviceId, ResourceClaim] = {}
        self.owners: dict[DeviceId, str] = {}
        # When a pool's devices last changed holder, or the claim object holding one was written
        # (the claims' dict entry of its owner): a picture of those devices made at a later
        # generation still holds. A rebuild changes every pool.
        self.generation = 0
        self.rebuilt_at = 0
        self.pool_changed_at: dict[PoolId, int] = {}

    def follows(self, claims: object, in_flight: object) -> bool:
        return claims is self.holdings[0].claims and in_flight is self.holdings[1].claims

    def up_to_date(self) -> tuple[dict[DeviceId, ResourceClaim], dict[DeviceId, str]]:
        versions = (self.holdings[0].claims.version, self.holdings[1].claims.version)
        if versions == self.versions:
            return self.holders, self.owners
        written = [holding.claims.take_written() for holding in self.holdings]
        self.generation += 1
        if self.versions == (-1, -1) or any(keys is None for keys in written):
            self._rebuild()
            self.rebuilt_at = self.generation
            self.pool_changed_at.clear()
        else:
            affected: set[DeviceId] = set()
            for holding, keys in zip(self.holdings, written):
                for key in keys or ():
                    affected.update(holding.forget(key))
                    affected.update(holding.note(key))
            for device in affected:
                self._elect(device)
            affected.update(self._held_in_flight_by(written[0] or set()))
            for device in affected:
                self.pool_changed_at[device[:2]] = self.generation
        self.versions = versions
        return self.holders, self.owners

    def _held_in_flight_by(self, claim_keys: set[str]) -> list[DeviceId]:
        """The devices allocations in flight hold for these claims: their owner's entry in the
        claims' dict is the claim object a picture shows holding them."""
        in_flight = self.holdings[1]
        if not claim_keys or not in_flight.devices_of:
            return []
        return [
            device
            for uid, devices in in_flight.devices_of.items()
            if in_flight.claims[uid].key in claim_keys
            for device in devices
        ]

    def changed_at(self, pools: tuple[PoolId, ...]) -> int:
        """The last generation at which a device of these pools changed holder or holding claim."""
        changed = self.rebuilt_at
        for pool in pools:
            changed = max(changed, self.pool_changed_at.get(pool, 0))
        return changed

    def _rebuild(self) -> None:
        self.holders, self.owners = {}, {}
        for holding in self.holdings:
            holding.keys_of.clear()
            holding.devices_of.clear()
            for key in holding.claims:
                for device in holding.note(key):
                    if device not in self.holders:
                        self._elect(device)

    def _elect(self, device: DeviceId) -> None:
        """The device's holder: the first claim holding it, else the first allocation in flight."""
        for holding in self.holdings:
            key = holding.first_holder(device)
            if key is not None:
                claim = holding.claims[key]
                self.holders[device], self.owners[device] = claim, holding.owner(key, claim)
                return
        self.holders.pop(device, None)
        self.owners.pop(device, None)


class DraState:
    def __init__(self) -> None:
        self._classes: dict[str, DeviceClass] = {}
        self._slices: dict[str, ResourceSlice] = {}
        self._claims: VersionedDict[str, ResourceClaim] = VersionedDict()
        self._templates: dict[str, ResourceClaimTemplate] = {}
        self._tables: dict[type, dict[str, Any]] = {
            DeviceClass: self._classes,
            ResourceSlice: self._slices,
            ResourceClaim: self._claims,
            ResourceClaimTemplate: self._templates,
        }
        # What everyone else reads: views that follow the informers' writes and refuse their own.
        self.classes: Mapping[str, DeviceClass] = MappingProxyType(self._classes)
        self.slices: tuple[ResourceSlice, ...] = ()
        self.claims: Mapping[str, ResourceClaim] = MappingProxyType(self._claims)
        self.templates: Mapping[str, ResourceClaimTemplate] = MappingProxyType(self._templates)
        # claim uid -> the claim with its allocation
        self.in_flight: dict[str, ResourceClaim] = VersionedDict()
        self.selector_cache: SelectorCache = {}  # CEL verdicts per (expression, device)
        self._in_use: Optional[_DevicesInUse] = None
        self._claims_with_shares = 0  # claims in the cache whose allocation has a shareID
        # DeviceClassResolver (DRAExtendedResource): fed by the DeviceClass informer, in event order
        self.class_resolver = ExtendedResourceCache()
        self._shares_kept: Optional[tuple[object, SharedState]] = None

    @classmethod
    def as_listed(cls, objects: DraObjects) -> "DraState":
        """The caches as their informers' first list of ``objects`` leaves them, for a reader of the
        start that has no cluster (the objects API's devices per node); a scheduler's caches are
        informed by its cluster (scheduler_core.cluster.informers)."""
        state = cls()
        listed: list[DeviceObject] = [*objects.classes, *objects.slices, *objects.claims, *objects.templates]
        for obj in listed:
            state.informed(None, obj)
        state.classes_listed()
        return state

    def classes_listed(self) -> None:
        """The DeviceClass informer's first list is complete. The API server lists classes by name
        (their keys), and the class resolver settles two classes naming one extended resource by
        the order it hears of them: it hears the list again in that order."""
        self.class_resolver = ExtendedResourceCache()
        for name in sorted(self._classes):
            self.class_resolver.informed(None, self._classes[name])

    def informed(self, old: Optional[DeviceObject], new: Optional[DeviceObject]) -> None:
        """One object of the API server's first list (``old`` None) or one watch event, taken by
        its kind's store (``new`` None: deleted)."""
        changed = new if new is not None else old
        take(self._tables[type(changed)], old, new)
        if isinstance(changed, ResourceSlice):
            self.slices = tuple(self._slices.values())
        elif isinstance(changed, ResourceClaim):
            self._claims_with_shares += _has_shares(new) - _has_shares(old)  # type: ignore[arg-type]
        elif isinstance(changed, DeviceClass):
            self.class_resolver.informed(old, new)  # type: ignore[arg-type]

    # ------------------------------------------------------------------ listers

    def device_class(self, name: str) -> Optional[DeviceClass]:
        return self._classes.get(name)

    def claim(self, namespace: str, name: str) -> Optional[ResourceClaim]:
        return self._claims.get(f"{namespace}/{name}")

    def template(self, namespace: str, name: str) -> Optional[ResourceClaimTemplate]:
        return self._templates.get(f"{namespace}/{name}")

    def has_pending_allocation(self, uid: str) -> bool:
        """ClaimHasPendingAllocation."""
        return uid in self.in_flight

    def _holders_and_owners(self) -> tuple[dict[DeviceId, ResourceClaim], dict[DeviceId, str]]:
        """Kept in step with the writes of the two dicts; computed afresh on every call when the
        allocations in flight are not a VersionedDict (one put in its place)."""
        claims, in_flight = self._claims, self.in_flight
        if not isinstance(in_flight, VersionedDict):
            return _DevicesInUse(VersionedDict(claims), VersionedDict(in_flight)).up_to_date()
        if self._in_use is None or not self._in_use.follows(claims, in_flight):
            self._in_use = _DevicesInUse(claims, in_flight)
        return self._in_use.up_to_date()

    def device_holders(self) -> dict[DeviceId, ResourceClaim]:
        """ListAllAllocatedDevices, with the claim holding each device: every device of an
        allocated claim (admin access left out), then those of allocations in flight. Kept until
        a claim or an allocation in flight is written (a new dict for each caller)."""
        return dict(self._holders_and_owners()[0])

    def shared_devices(self) -> SharedState:
        """The shared devices and their consumed capacity, from the cached claims and the
        allocations in flight (GatherAllocatedState with DRAConsumableCapacity on); kept until
        either is written."""
        in_flight = [claim for claim in self.in_flight.values() if _has_shares(claim)]
        if not self._claims_with_shares and not in_flight:
            return frozenset(), {}
        versions = (self._claims.version, getattr(self.in_flight, "version", None), len(in_flight))
        if self._shares_kept is not None and self._shares_kept[0] == versions and versions[1] is not None:
            return self._shares_kept[1]
        state = _shares([*self._claims.values(), *in_flight])
        self._shares_kept = (versions, state)
        return state

    def device_owners(self) -> dict[DeviceId, str]:
        """The devices in use, each with its claim's ``namespace/name`` (a new dict for each caller)."""
        return dict(self._holders_and_owners()[1])

    def devices_generation(self) -> Optional[tuple[object, int]]:
        """Which state of the devices in use ``device_owners`` answers from: equal answers, the
        same state. None when the allocations in flight are not followed (a dict was put in place
        of their VersionedDict): then there is no telling."""
        if not isinstance(self.in_flight, VersionedDict):
            return None
        self._holders_and_owners()
        assert self._in_use is not None  # made by the call above for these very dicts
        return self._in_use, self._in_use.generation

    def pools_changed_at(self, pools: tuple[PoolId, ...]) -> int:
        """The generation at which a device of these pools last changed holder or holding claim
        (asked right after ``devices_generation``, which brings the devices in use up to date)."""
        assert self._in_use is not None
        return self._in_use.changed_at(pools)
