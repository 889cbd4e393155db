"""webui.services.configs: another KubeSchedulerConfiguration for a run's version."""

from pathlib import Path

import pytest
import yaml

from webui.services.configs import DEFAULT_CONFIG, PRESETS, _check_config, config_of, with_config
from webui.services.errors import DomainError, InvalidScenario

NODE = "# the cluster\napiVersion: v1\nkind: Node\nmetadata: {name: n1}  # kept as typed\n"
CONFIG = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 50\n"
MOST = (Path(__file__).resolve().parents[2] / "fixtures" / "compare" / "most_allocated.yaml").read_text()


def test_the_config_as_typed_or_the_defaults_written_out():
    assert config_of(NODE + "---\n" + CONFIG) == {"config": CONFIG, "fromScenario": True, "presets": PRESETS}
    assert config_of(NODE) == {"config": DEFAULT_CONFIG, "fromScenario": False, "presets": PRESETS}


def test_replacing_it_keeps_every_other_document_as_typed():
    out = with_config(NODE + "---\n" + CONFIG + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n", MOST)
    assert out.startswith(NODE + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n---\n")
    kinds = [d["kind"] for d in yaml.safe_load_all(out)]
    assert kinds == ["Node", "Pod", "KubeSchedulerConfiguration"] and out.endswith(MOST)
    assert with_config("", MOST) == MOST


def test_the_config_is_checked_on_its_own_at_its_own_lines():
    _check_config(MOST)
    with pytest.raises(DomainError, match="exactly one KubeSchedulerConfiguration"):
        _check_config(NODE)
    with pytest.raises(DomainError, match="exactly one"):
        _check_config(MOST + "---\n" + MOST)
    with pytest.raises(InvalidScenario) as raised:
        _check_config(MOST.replace("MostAllocated", "Cheapest"))
    [error] = raised.value.details["errors"]
    assert error["line"] == 9 and "Cheapest" in error["message"]


def test_every_preset_is_a_configuration_the_engine_runs_with_what_it_says():
    from scheduler_core import load_scenario
    from scheduler_core.run.schedule_one import Scheduler

    def profile(name):
        return Scheduler(load_scenario(NODE + "---\n" + PRESETS[name])).framework.profile

    for name in PRESETS:
        _check_config(PRESETS[name])
    assert placed(NODE_PAIR) == "n2" and placed(NODE_PAIR + "---\n" + PRESETS["MostAllocated (bin packing)"]) == "n1"
    assert profile("InterPodAffinity weighs 10 (default 2)").weights["InterPodAffinity"] == 10
    assert profile("Score every node (percentageOfNodesToScore 100)").percentage_of_nodes_to_score == 100
    assert profile("The release's defaults").percentage_of_nodes_to_score == 0  # adaptive, as without a configuration
    assert Scheduler(load_scenario(NODE)).framework.profile.percentage_of_nodes_to_score == 0
    assert "PodTopologySpread" not in [p.name for p in profile("No PodTopologySpread scoring")["score"]]


NODE_PAIR = "---\n".join(
    [
        f"apiVersion: v1\nkind: Node\nmetadata: {{name: {n}}}\nstatus: {{allocatable: {{cpu: '4', memory: 4Gi, pods: '10'}}}}\n"
        for n in ("n1", "n2")
    ]
    + [
        "apiVersion: v1\nkind: Pod\nmetadata: {name: busy}\nspec: {nodeName: n1, containers: [{name: c, resources: {requests: {cpu: '2', memory: 2Gi}}}]}\n",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {requests: {cpu: '1', memory: 1Gi}}}]}\n",
    ]
)


def placed(text: str) -> str:
    """Where the single pass puts default/p: LeastAllocated spreads to the empty n2, MostAllocated packs n1."""
    from scheduler_core import load_scenario
    from scheduler_core.run.schedule_one import Scheduler

    ends = [e.payload.node_name for e in Scheduler(load_scenario(text)).run() if e.extension_point.value == "CycleEnd"]
    return ends[-1]
