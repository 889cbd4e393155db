"""DynamicResources' pictures for explanations: PreFilter's claims and classes, and per node what
each request would get or why not. Each is declared once, as its wire form (``Wire``,
util/wire.py): the event stream writes them, the browser reads them; what a picture derives (a
request's free devices, a node's sentences) is filled in when it is made, so the JSON says what
the sentences say."""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import msgspec
from msgspec.structs import force_setattr

from scheduler_core.model import AllocationJSON, ResourceClaim
from scheduler_core.util.wire import Wire


class RequestPicture(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    name: str
    device_class: str  # the class (for firstAvailable, the alternatives' classes joined by "|")
    mode: str = msgspec.field(name="allocationMode")
    count: int
    selectors: tuple[str, ...] = ()


class ClaimPicture(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    claim: str  # namespace/name
    requests: tuple[RequestPicture, ...]
    allocation: Optional[AllocationJSON] = None
    reserved_for: tuple[str, ...] = ()  # pod names
    in_flight: bool = False


class PreFilterPicture(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """The pod's claims as PreFilter read them, and the device classes they name (missing ones too)."""

    claims: tuple[ClaimPicture, ...]
    classes: dict[str, tuple[str, ...]] = {}  # class -> selectors
    missing_classes: tuple[str, ...] = ()
    devices_in_use: int = 0

    def to_json(self, node_list: Callable[[Sequence[str]], Any] = list) -> dict[str, Any]:
        """A PreFilter picture is written with ``node_list`` (the stream's node lists: columns, marks);
        this one holds no node list, so it is its declaration's JSON."""
        return Wire.to_json(self)


class DeviceVerdict(Wire, frozen=True):  # type: ignore[misc]
    """One device on a node for a request: free, or held (``holder``) by a claim reserved for ``pods``.
    ``tainted`` is written only when set."""

    device: str  # driver/pool/device
    free: bool
    holder: Optional[str] = msgspec.field(name="heldBy")  # the claim holding it (namespace/name); None when free
    pods: tuple[str, ...]  # the pods (namespace/name) that claim is reserved for
    tainted: bool = False  # not free: a taint the request does not tolerate (DRADeviceTaints)

    @property
    def held_by_text(self) -> str:
        """ "default/train-1 (claim train-1-gpu)", or the claim alone when it is reserved for nobody."""
        holder = self.holder or ""
        if not self.pods:
            return f"claim {holder}"
        return f"{', '.join(self.pods)} (claim {holder.split('/', 1)[-1]})"


class RequestVerdict(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """One request on one node: the devices of the node its class and selectors accept, and which
    of them are free; ``wanted`` is the count (or all). ``free`` is derived: filled in when made."""

    claim: str
    request: str
    device_class: str
    wanted: str
    free: int = 0  # derived: how many of ``matching`` are free
    matching: tuple[DeviceVerdict, ...] = msgspec.field(default=(), name="devices")
    allocated: tuple[str, ...] = ()  # the devices the allocator chose, when the node fits

    def __post_init__(self) -> None:
        force_setattr(self, "free", sum(1 for device in self.matching if device.free))

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


class CounterLeft(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """One counter of a counter set of a pool on the node (DRAPartitionableDevices): its amount and
    what the devices already allocated leave of it (a partition fits only while its consumption does)."""

    pool: str  # driver/pool
    counter_set: str
    counter: str
    total: str
    left: str

    def sentence(self) -> str:
        """ "counter set `gpu-0` of pool gpu.example.com/node-1: 0 of 40Gi memory left"."""
        return f"counter set `{self.counter_set}` of pool {self.pool}: {self.left} of {self.total} {self.counter} left"


class ShareLeft(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """One capacity of a device on the node that allows multiple allocations (DRAConsumableCapacity):
    its amount and what the shares allocated or in flight leave of it (a share fits only while what
    it would consume does)."""

    pool: str  # driver/pool
    device: str
    capacity: str
    total: str
    left: str

    def sentence(self) -> str:
        """ "shared device `nic-0` of pool net.example.com/node-1: 2Gi of 10Gi bandwidth left"."""
        return f"shared device `{self.device}` of pool {self.pool}: {self.left} of {self.total} {self.capacity} left"


class NodePicture(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """A node the plugin judged: its status (None: the node fits), each request's verdict, the
    counters its pools' partitions draw on, the capacity its shared devices have left, and the
    verdicts in words (``sentences``, derived: filled in when made)."""

    node: str
    status: Optional[str]
    requests: tuple[RequestVerdict, ...] = ()
    counters: tuple[CounterLeft, ...] = ()
    sentences: tuple[str, ...] = ()
    shares: tuple[ShareLeft, ...] = ()

    def __post_init__(self) -> None:
        said = [r.sentence(self.node) for r in self.requests] + [c.sentence() for c in self.counters]
        said += [share.sentence() for share in self.shares]
        force_setattr(self, "sentences", tuple(said))


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
        claim.key,
        tuple(requests),
        None if claim.allocation is None else claim.allocation.wire(),
        tuple(ref.name for ref in claim.reserved_for),
        in_flight,
    )
