"""Write kube-scheduler's DRA performance workloads (scheduler_perf, dra/) as SchedLab scenarios.

    python tools/perf_dra.py [--out DIR] [--tiny]
    python tools/perf_table.py --perf-dir DIR          # then measure them as the other workloads

The four cases of upstream's ``test/integration/scheduler_perf/dra/performance-config.yaml`` (read at
commit 03312ae5588f) that carry a ``threshold`` and run with the release's default feature gates
(SchedulerQueueingHints on):

- SchedulingWithResourceClaimTemplate / 5000pods_500nodes_QueueingHintsEnabled (threshold 56)
- SteadyStateClusterResourceClaimTemplate / {empty,half,full}_500nodes_QueueingHintsEnabled
  (thresholds 64, 60, 60)

The files are generated (deterministic: the same bytes on every run) into ``DIR`` (default
``.bench/perf-dra``, not committed), with a ``README.md`` whose table gives each file's threshold in
the column ``tools/perf_table.py`` reads. How each upstream op is written as scenario objects, and how
"steady state" becomes a run with steps: docs/PERFORMANCE.md, "DRA workloads".

``--tiny`` writes the same shapes on 5 nodes (the test's size, tests/tools/test_perf_dra.py).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

import yaml

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scheduler_core.dra.claims import claim_uid, generated_claim_name  # noqa: E402

OUT_DIR = ROOT / ".bench" / "perf-dra"

# What upstream's templates and createResourceDriver write (test/integration/scheduler_perf/dra.go,
# dra/templates/*.yaml), in our own names where upstream's do not matter to the scheduler.
DRIVER = "test-driver.cdi.k8s.io"
CLASS = "test-class"
CLAIM_TEMPLATE = "test-claim-template"
POD_CLAIM = "resource"
REQUEST = "req-0"
NODE_PREFIX = "scheduler-perf-dra-"
POD_PREFIX = "test-dra"  # the template's generateName; the index is appended
INIT_CLAIM_PREFIX = "test-claim-"
PAUSE = "registry.k8s.io/pause:3.10.1"
SOURCE = (
    "kubernetes/kubernetes test/integration/scheduler_perf/dra/performance-config.yaml @ 03312ae5588f "
    "(its *_QueueingHintsEnabled workloads; templates node-with-dra-test-driver, deviceclass, "
    "resourceclaimtemplate, resourceclaim, pod-with-claim-template; dra.go createResourceDriver, "
    "allocResourceClaims)"
)


@dataclass(frozen=True)
class Workload:
    """One upstream workload. ``init_pods`` run before the measured op (SchedulingWith...);
    ``init_claims`` are allocated claims owned by no pod (SteadyState...); ``steady`` is the
    number of pods kept in flight (upstream ``count: 10``), 0 for the fill-up case."""

    file: str
    case: str
    threshold: Optional[float]
    nodes: int
    claims_per_node: int
    init_pods: int = 0
    measure_pods: int = 0
    init_claims: int = 0
    steady: int = 0
    steady_total: int = 0

    @property
    def pending_at_start(self) -> int:
        return self.steady if self.steady else self.measure_pods

    @property
    def measured(self) -> int:
        return self.steady_total if self.steady else self.measure_pods


# Upstream steady state runs for `duration: 10s`; at the thresholds (60-64 pods/s) that is 600-640
# pods scheduled. Here the run goes through STEADY_TOTAL pods, `count` (10) at a time.
STEADY_TOTAL = 1000


def workloads(tiny: bool = False) -> list[Workload]:
    if tiny:  # 5 nodes of 4 devices: the same shapes, small enough for a test
        n, cpn, steady, total = 5, 4, 2, 10
        return [
            Workload(
                "SchedulingWithResourceClaimTemplate_tiny.yaml",
                "SchedulingWithResourceClaimTemplate (tiny)",
                None,
                n,
                cpn,
                init_pods=5,
                measure_pods=10,
            ),
            Workload(
                "SteadyStateClusterResourceClaimTemplate_empty_tiny.yaml",
                "SteadyState empty (tiny)",
                None,
                n,
                cpn,
                init_claims=0,
                steady=steady,
                steady_total=total,
            ),
            Workload(
                "SteadyStateClusterResourceClaimTemplate_half_tiny.yaml",
                "SteadyState half (tiny)",
                None,
                n,
                cpn,
                init_claims=n * cpn // 2,
                steady=steady,
                steady_total=total,
            ),
            Workload(
                "SteadyStateClusterResourceClaimTemplate_full_tiny.yaml",
                "SteadyState full (tiny)",
                None,
                n,
                cpn,
                init_claims=n * cpn - steady,
                steady=steady,
                steady_total=total,
            ),
        ]
    return [
        Workload(
            "SchedulingWithResourceClaimTemplate_5000pods_500nodes.yaml",
            "SchedulingWithResourceClaimTemplate / 5000pods_500nodes_QueueingHintsEnabled",
            56,
            500,
            10,
            init_pods=2500,
            measure_pods=2500,
        ),
        Workload(
            "SteadyStateClusterResourceClaimTemplate_empty_500nodes.yaml",
            "SteadyStateClusterResourceClaimTemplate / empty_500nodes_QueueingHintsEnabled",
            64,
            500,
            10,
            init_claims=0,
            steady=10,
            steady_total=STEADY_TOTAL,
        ),
        Workload(
            "SteadyStateClusterResourceClaimTemplate_half_500nodes.yaml",
            "SteadyStateClusterResourceClaimTemplate / half_500nodes_QueueingHintsEnabled",
            60,
            500,
            10,
            init_claims=2500,
            steady=10,
            steady_total=STEADY_TOTAL,
        ),
        Workload(
            "SteadyStateClusterResourceClaimTemplate_full_500nodes.yaml",
            "SteadyStateClusterResourceClaimTemplate / full_500nodes_QueueingHintsEnabled",
            60,
            500,
            10,
            init_claims=4990,
            steady=10,
            steady_total=STEADY_TOTAL,
        ),
    ]


# ---------------------------------------------------------------------------------------------- objects


def node(i: int) -> dict:
    """dra/templates/node-with-dra-test-driver.yaml: 4 CPU / 32Gi / 110 pods in capacity only (the
    loader copies it to allocatable as the API server does); the hostname label the node preparer sets."""
    name = f"{NODE_PREFIX}{i}"
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "spec": {},
        "status": {"capacity": {"pods": "110", "cpu": "4", "memory": "32Gi"}},
    }


def resource_slice(node_name: str, devices: int) -> dict:
    """createResourceDriver's slice for one node (dra.go `resourceSlice`): a pool named after the
    node, one slice, `devices` devices `instance-<i>`. The binding-condition fields it also sets are
    dropped by the API server with DRADeviceBindingConditions off (v1.35's default), so not written."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": node_name},
        "spec": {
            "driver": DRIVER,
            "nodeName": node_name,
            "pool": {"name": node_name, "generation": 0, "resourceSliceCount": 1},
            "devices": [
                {
                    "name": f"instance-{i}",
                    "attributes": {
                        "model": {"string": "A100"},
                        "family": {"string": "GPU"},
                        "driverVersion": {"version": "1.2.3"},
                        "dra.example.com/numa": {"int": i},
                    },
                    "capacity": {"memory": {"value": "1Gi"}},
                }
                for i in range(devices)
            ],
        },
    }


def device_class() -> dict:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": CLASS},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
    }


def claim_spec() -> dict:
    return {"devices": {"requests": [{"name": REQUEST, "exactly": {"deviceClassName": CLASS}}]}}


def claim_template(namespace: str) -> dict:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": CLAIM_TEMPLATE, "namespace": namespace},
        "spec": {"spec": claim_spec()},
    }


def pod(namespace: str, name: str) -> dict:
    """dra/templates/pod-with-claim-template.yaml: a pause container using the claim, no requests."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "containers": [{"image": PAUSE, "name": "pause", "resources": {"claims": [{"name": POD_CLAIM}]}}],
            "resourceClaims": [{"name": POD_CLAIM, "resourceClaimTemplateName": CLAIM_TEMPLATE}],
        },
    }


def _allocation(node_name: str, device: int) -> dict:
    return {
        "devices": {
            "results": [{"request": REQUEST, "driver": DRIVER, "pool": node_name, "device": f"instance-{device}"}]
        },
        "nodeSelector": {
            "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}]
        },
    }


def running_pod_with_claim(namespace: str, name: str, node_name: str, device: int) -> list[dict]:
    """An init pod as the real scheduler left it: bound, its claim made from the template by the
    resourceclaim controller (owned by the pod, named in its status), allocated and reserved for it."""
    claim_name = generated_claim_name(namespace, name, POD_CLAIM)
    pod_uid = f"uid-pod-{namespace}-{name}"
    running = pod(namespace, name)
    running["metadata"]["uid"] = pod_uid
    running["spec"]["nodeName"] = node_name
    running["status"] = {
        "phase": "Running",
        "resourceClaimStatuses": [{"name": POD_CLAIM, "resourceClaimName": claim_name}],
    }
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {
            "name": claim_name,
            "namespace": namespace,
            "uid": claim_uid(namespace, claim_name),
            "annotations": {"resource.kubernetes.io/pod-claim-name": POD_CLAIM},
            "finalizers": ["resource.kubernetes.io/delete-protection"],
            "ownerReferences": [
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "name": name,
                    "uid": pod_uid,
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": claim_spec(),
        "status": {
            "allocation": _allocation(node_name, device),
            "reservedFor": [{"resource": "pods", "name": name, "uid": pod_uid}],
        },
    }
    return [claim, running]


def allocated_claim(namespace: str, index: int, node_name: str, device: int) -> dict:
    """dra/templates/resourceclaim.yaml after allocResourceClaims: allocated, reserved for nobody."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": f"{INIT_CLAIM_PREFIX}{index}", "namespace": namespace},
        "spec": claim_spec(),
        "status": {"allocation": _allocation(node_name, device)},
    }


def _spread(index: int, nodes: int) -> tuple[str, int]:
    """Where the index-th identical one-device user lands: round-robin over the nodes in document
    order, each node's devices in slice order (see docs/PERFORMANCE.md, "DRA workloads")."""
    return f"{NODE_PREFIX}{index % nodes}", index // nodes


def documents(w: Workload) -> Iterator[dict]:
    yield {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "percentageOfNodesToScore": 0,
    }
    for namespace in ("init", "test"):
        yield {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
    for i in range(w.nodes):
        yield node(i)
    for i in range(w.nodes):
        yield resource_slice(f"{NODE_PREFIX}{i}", w.claims_per_node)
    yield device_class()
    if w.init_pods:
        yield claim_template("init")
        for k in range(w.init_pods):
            yield from running_pod_with_claim("init", f"{POD_PREFIX}{k}", *_spread(k, w.nodes))
    for k in range(w.init_claims):
        yield allocated_claim("init", k, *_spread(k, w.nodes))
    yield claim_template("test")
    for k in range(w.pending_at_start):
        yield pod("test", f"{POD_PREFIX}{k}")
    if w.steady:
        yield changes(w)


def changes(w: Workload) -> dict:
    """Steady state as steps, two per batch after the first (the scenario's pending pods): one
    deletes the `steady` pods bound before, the next creates the following `steady`. Upstream
    deletes each scheduled pod without grace and creates another at once; its resourceclaim
    controller hears the delete before the new pod's add, so the devices are free again when the
    new pod is tried. A step starts once the one before went quiet, so here too the deleted pods
    are gone and their claims released before the next pods are created."""
    steps = []
    for batch in range(1, w.steady_total // w.steady):
        previous = range((batch - 1) * w.steady, batch * w.steady)
        created = range(batch * w.steady, (batch + 1) * w.steady)
        steps.append(
            {
                "name": f"delete batch {batch - 1}",
                "operations": [
                    {"delete": {"kind": "Pod", "namespace": "test", "name": f"{POD_PREFIX}{k}"}} for k in previous
                ],
            }
        )
        steps.append(
            {"name": f"batch {batch}", "operations": [{"create": pod("test", f"{POD_PREFIX}{k}")} for k in created]}
        )
    return {"apiVersion": "schedlab.io/v1alpha1", "kind": "Changes", "steps": steps}


def header(w: Workload) -> str:
    running = w.init_pods
    what = (
        f"{w.nodes} nodes x {w.claims_per_node} devices, {running} running pods with allocated claims, "
        f"{w.init_claims} allocated claims owned by no pod, "
    )
    if w.steady:
        what += (
            f"{w.steady} pending pods at a time: each batch deleted and the next created by "
            f"{2 * (w.steady_total // w.steady - 1)} steps ({w.steady_total} measured pods)"
        )
    else:
        what += f"{w.measure_pods} pending measured pods"
    threshold = f"threshold {w.threshold:.0f} pods/s" if w.threshold else "no threshold"
    return f"# scheduler_perf {w.case} ({threshold}): {what}\n# from {SOURCE}; written by tools/perf_dra.py\n"


def render(w: Workload) -> str:
    body = yaml.dump_all(
        documents(w),
        Dumper=yaml.CSafeDumper,
        sort_keys=False,
        default_flow_style=False,
        explicit_start=False,
        width=1000,
    )
    return header(w) + body


def readme(ws: list[Workload]) -> str:
    lines = [
        "# scheduler_perf DRA workloads (generated by tools/perf_dra.py; not committed)",
        "",
        "| file | upstream test case / workload | nodes | devices | measured pods | threshold (pods/s) |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for w in ws:
        threshold = f"{w.threshold:.0f}" if w.threshold else "— (none)"
        lines.append(
            f"| `{w.file}` | {w.case} | {w.nodes} | {w.nodes * w.claims_per_node} | {w.measured} | {threshold} |"
        )
    return "\n".join(lines) + "\n"


def write(out: Path, tiny: bool = False) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    ws = workloads(tiny)
    paths = []
    for w in ws:
        path = out / w.file
        path.write_text(render(w), encoding="utf-8")
        paths.append(path)
    (out / "README.md").write_text(readme(ws), encoding="utf-8")
    return paths


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    parser.add_argument("--tiny", action="store_true", help="5 nodes, a few pods: the same shapes")
    args = parser.parse_args(argv)
    for path in write(args.out, args.tiny):
        print(f"{path} ({path.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
