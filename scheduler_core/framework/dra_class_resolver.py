"""Which DeviceClass stands for which extended resource (DRAExtendedResource): the DRA manager's
DeviceClassResolver, k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache, fed by
the DeviceClass informer (framework/dra_state.py).

A class stands for the resource its ``spec.extendedResourceName`` names and, always, for
``deviceclass.resource.kubernetes.io/<class name>``. Of two classes naming the same resource the
newer one (creationTimestamp, then the smaller name) keeps it; a class that loses that comparison is
not recorded at all, not even under its own ``deviceclass.resource.kubernetes.io/`` name, an update
that keeps the name leaves the object first recorded, and deleting the class that holds a name
frees it for nobody until another class is written — as the release's cache does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from scheduler_core.model import DeviceClass

DEVICE_CLASS_PREFIX = "deviceclass.resource.kubernetes.io/"  # resourceapi.ResourceDeviceClassPrefix


def _created_order(device_class: DeviceClass) -> tuple[int, float]:
    """creationTimestamp for comparison: a class written without one is created by the replay,
    after every class the dump recorded."""
    if device_class.created is None:
        return (1, 0.0)
    return (0, device_class.created.timestamp())


@dataclass(slots=True)
class ExtendedResourceCache:
    """DeviceClassResolver: the class standing for each extended resource name."""

    _by_resource: dict[str, DeviceClass] = field(default_factory=dict)

    def device_class(self, resource: str) -> Optional[DeviceClass]:
        return self._by_resource.get(resource)

    def __bool__(self) -> bool:
        """Whether any class stands for anything (a cluster without device classes: none)."""
        return bool(self._by_resource)

    def informed(self, old: Optional[DeviceClass], new: Optional[DeviceClass]) -> None:
        """OnAdd/OnUpdate (``new`` set) and OnDelete (``new`` None) of the DeviceClass informer."""
        if new is None:
            if old is not None:
                self._forget(old)
            return
        if new.extended_resource_name is not None:
            holder = self._by_resource.get(new.extended_resource_name)
            if holder is not None and not _replaces(new, holder):
                return
        if old is not None:
            self._forget(old)
        if new.extended_resource_name is not None:
            self._by_resource[new.extended_resource_name] = new
        self._by_resource[DEVICE_CLASS_PREFIX + new.name] = new

    def _forget(self, device_class: DeviceClass) -> None:
        """Both names the class stood for, whichever class they point at now (as the release's)."""
        self._by_resource.pop(DEVICE_CLASS_PREFIX + device_class.name, None)
        if device_class.extended_resource_name is not None:
            self._by_resource.pop(device_class.extended_resource_name, None)


def _replaces(new: DeviceClass, holder: DeviceClass) -> bool:
    """Whether ``new`` takes the extended resource name from the class recorded for it."""
    order, held = _created_order(new), _created_order(holder)
    if order != held:
        return order > held
    return new.name < holder.name
