"""DynamicResources' pictures for explanations: PreFilter's claims and classes, and per node what
each request would get or why not (typed, each with ``to_json``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from scheduler_core.model import AllocationResult, ResourceClaim


@dataclass(frozen=True, slots=True)
class RequestPicture:
    name: str
    device_class: str  # the class (for firstAvailable, the alternatives' classes joined by "|")
    mode: str
    count: int
    selectors: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "deviceClass": self.device_class,
            "allocationMode": self.mode,
            "count": self.count,
            "selectors": list(self.selectors),
        }


@dataclass(frozen=True, slots=True)
class ClaimPicture:
    claim: str  # namespace/name
    requests: tuple[RequestPicture, ...]
    allocation: Optional[AllocationResult] = None
    reserved_for: tuple[str, ...] = ()  # pod names
    in_flight: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "requests": [r.to_json() for r in self.requests],
            "allocation": self.allocation.to_json() if self.allocation is not None else None,
            "reservedFor": list(self.reserved_for),
            "inFlight": self.in_flight,
        }


@dataclass(frozen=True, slots=True)
class PreFilterPicture:
    """The pod's claims as PreFilter read them, and the device classes they name (missing ones too)."""

    claims: tuple[ClaimPicture, ...]
    classes: dict[str, tuple[str, ...]] = field(default_factory=dict)  # class -> selectors
    missing_classes: tuple[str, ...] = ()
    devices_in_use: int = 0

    def to_json(self, node_list: Callable[[Sequence[str]], Any] = list) -> dict[str, Any]:
        return {
            "claims": [c.to_json() for c in self.claims],
            "classes": {name: list(selectors) for name, selectors in self.classes.items()},
            "missingClasses": list(self.missing_classes),
            "devicesInUse": self.devices_in_use,
        }


@dataclass(frozen=True, slots=True)
class DeviceVerdict:
    device: str  # driver/pool/device
    free: bool
    holder: str = ""  # the claim holding it (namespace/name) when it is not free
    pods: tuple[str, ...] = ()  # the pods (namespace/name) that claim is reserved for
    tainted: bool = False  # not free: a taint the request does not tolerate (DRADeviceTaints)

    @property
    def held_by_text(self) -> str:
        """ "default/train-1 (claim train-1-gpu)", or the claim alone when it is reserved for nobody."""
        if not self.pods:
            return f"claim {self.holder}"
        return f"{', '.join(self.pods)} (claim {self.holder.split('/', 1)[-1]})"

    def to_json(self) -> dict[str, Any]:
        tainted = {"tainted": True} if self.tainted else {}
        return {
            "device": self.device,
            "free": self.free,
            "heldBy": self.holder or None,
            "pods": list(self.pods),
            **tainted,
        }


@dataclass(frozen=True, slots=True)
class RequestVerdict:
    """One request on one node: the devices of the node its class and selectors accept, and which
    of them are free; ``wanted`` is the count (or all)."""

    claim: str
    request: str
    device_class: str
    wanted: str
    matching: tuple[DeviceVerdict, ...]
    allocated: tuple[str, ...] = ()  # the devices the allocator chose, when the node fits

    @property
    def free(self) -> int:
        return sum(1 for device in self.matching if device.free)

    def sentence(self, node: str) -> str:
        """ "request `gpu`: 2 devices of class `gpu.example.com` — node-3 has 1 free: gpu-0 allocated to ..."."""
        taken = [
            f"{d.device.rsplit('/', 1)[-1]} "
            + ("has a taint the request does not tolerate" if d.tainted else f"allocated to {d.held_by_text}")
            for d in self.matching
            if not d.free
        ]
        text = (
            f"request `{self.request}`: {self.wanted} device(s) of class `{self.device_class}` — "
            f"{node} has {self.free} free"
        )
        return text + (": " + ", ".join(taken) if taken else "")

    def to_json(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "request": self.request,
            "deviceClass": self.device_class,
            "wanted": self.wanted,
            "free": self.free,
            "devices": [d.to_json() for d in self.matching],
            "allocated": list(self.allocated),
        }


@dataclass(frozen=True, slots=True)
class NodePicture:
    node: str
    status: Optional[str]  # None: the node fits
    requests: tuple[RequestVerdict, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "status": self.status,
            "requests": [r.to_json() for r in self.requests],
            "sentences": [r.sentence(self.node) for r in self.requests],
        }


def claim_picture(claim: ResourceClaim, in_flight: bool) -> ClaimPicture:
    requests = []
    for request in claim.spec.requests:
        if request.exactly is not None:
            exact = request.exactly
            requests.append(
                RequestPicture(
                    request.name, exact.device_class_name, exact.allocation_mode, exact.count, exact.selectors
                )
            )
        else:
            classes = "|".join(sub.device_class_name for sub in request.first_available)
            requests.append(RequestPicture(request.name, classes, "FirstAvailable", 0))
    return ClaimPicture(
        claim.key, tuple(requests), claim.allocation, tuple(ref.name for ref in claim.reserved_for), in_flight
    )
