"""tools/envelope_dump.py: N renamed copies of real dumps load as one cluster N times as big, every
reference pointing into its own copy, the classes and namespaces written once, the same bytes each time."""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path

from scheduler_core import load_scenario
from scheduler_core.run.loop import run_to_the_end
from scheduler_core.encoding.timeline import timeline_summary

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "envelope_dump.py"
spec = importlib.util.spec_from_file_location("envelope_dump", TOOL)
assert spec is not None and spec.loader is not None
envelope_dump = importlib.util.module_from_spec(spec)
spec.loader.exec_module(envelope_dump)

DUMPS = [ROOT / "tests" / "fixtures" / "dumps" / name for name in ("kubeadm_calico.yaml", "aks_mid_preemption.yaml")]


def _written(copies: int, as_json: bool = False) -> str:
    out = io.StringIO()
    envelope_dump.write(envelope_dump.envelope(list(envelope_dump.documents(DUMPS)), copies), as_json, out)
    return out.getvalue()


def test_copies_make_a_cluster_that_many_times_as_big_with_each_reference_in_its_own_copy():
    one, three = load_scenario(_written(1)), load_scenario(_written(3))
    assert len(three.nodes) == 3 * len(one.nodes) and len(three.pods) == 3 * len(one.pods)
    nodes = {node.name for node in three.nodes}
    assert len(nodes) == len(three.nodes)
    for pod in three.pods:
        copy = pod.name.rsplit("-c", 1)[1]
        assert not pod.node_name or (pod.node_name in nodes and pod.node_name.endswith(f"-c{copy}")), pod.key
        assert all(owner.name.endswith(f"-c{copy}") for owner in pod.owner_references), pod.key
    hostnames = {node.labels.get("kubernetes.io/hostname") for node in three.nodes}
    assert hostnames == nodes  # the label that names its node follows it
    assert set(three.priority_classes) == set(one.priority_classes)  # classes are written once


def test_the_json_form_is_the_same_cluster_and_the_output_is_the_same_each_time():
    as_yaml, as_json = load_scenario(_written(2)), load_scenario(_written(2, as_json=True))
    assert [p.key for p in as_yaml.pods] == [p.key for p in as_json.pods]
    assert _written(2) == _written(2)


def test_the_copies_run_to_the_end():
    summary = timeline_summary(run_to_the_end(load_scenario(_written(2))))
    assert summary["attempts"] and all(
        attempt["pod"].rsplit("-c", 1)[1] in ("0000", "0001") for attempt in summary["attempts"]
    )
