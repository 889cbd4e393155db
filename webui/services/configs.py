"""Try another configuration: a run's scenario with its KubeSchedulerConfiguration replaced, saved as
a new version and run, so the two runs can be compared.

The configuration is checked on its own first, so its problems are reported at the lines the user
typed. Only the configuration documents change: every other document keeps its exact text. A
scenario the user may not change (a demo) is forked first: the new run is in their own copy.
"""

from __future__ import annotations

from typing import Any

import yaml

from webui.models import Run
from webui.services import engine, releases, runs, scenarios
from webui.services.access import Actor
from webui.services.errors import DomainError

CONFIG_KIND = "KubeSchedulerConfiguration"
MAX_CONFIG_CHARS = 64 * 1024

# What a scenario without a configuration document runs with (the release's defaults), written out
# so there is something to edit.
DEFAULT_CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
# percentageOfNodesToScore unset (0): the release's adaptive share of nodes scored above 100 nodes
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: LeastAllocated
        resources:
        - {name: cpu, weight: 1}
        - {name: memory, weight: 1}
"""


_HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
_FIT = "profiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n"
_CPU_AND_MEMORY = "        resources:\n        - {name: cpu, weight: 1}\n        - {name: memory, weight: 1}\n"

# Whole configurations to start from (the user can edit them before running): the questions users
# ask most — bin packing instead of spreading, affinity weighing more, every node scored.
PRESETS: dict[str, str] = {
    "The release's defaults": DEFAULT_CONFIG,
    "MostAllocated (bin packing)": _HEADER + _FIT + "        type: MostAllocated\n" + _CPU_AND_MEMORY,
    "RequestedToCapacityRatio": _HEADER
    + _FIT
    + "        type: RequestedToCapacityRatio\n"
    + _CPU_AND_MEMORY
    + "        requestedToCapacityRatio:\n          shape:\n          - {utilization: 0, score: 0}\n"
    "          - {utilization: 100, score: 10}\n",
    "InterPodAffinity weighs 10 (default 2)": _HEADER + "profiles:\n- schedulerName: default-scheduler\n  plugins:\n"
    "    multiPoint:\n      enabled:\n      - {name: InterPodAffinity, weight: 10}\n",
    "Score every node (percentageOfNodesToScore 100)": _HEADER + "percentageOfNodesToScore: 100\n",
    "No PodTopologySpread scoring": _HEADER + "profiles:\n- schedulerName: default-scheduler\n  plugins:\n"
    "    score:\n      disabled:\n      - {name: PodTopologySpread}\n",
}


def config_of(text: str) -> dict[str, Any]:
    """The configuration document of a version as typed (or the defaults when it has none), and the
    presets to start from."""
    for chunk in engine.documents(text):
        if _is_config(_load(chunk.body)):
            return {"config": chunk.body.strip("\n") + "\n", "fromScenario": True, "presets": PRESETS}
    return {"config": DEFAULT_CONFIG, "fromScenario": False, "presets": PRESETS}


def with_config(text: str, config: str) -> str:
    """`text` with its configuration documents replaced by `config` (appended at the end)."""
    kept = [chunk.original for chunk in engine.documents(text) if not _is_config(_load(chunk.body))]
    body = "".join(kept).rstrip("\n")
    return (body + "\n---\n" if body.strip() else "") + config.strip("\n") + "\n"


def try_config(actor: Actor, run: Run, config: str) -> Run:
    """The run's version with `config`, saved as a scenario of its own ("NAME (another
    configuration)", forked from that version) and run in the same mode. A tried configuration
    belongs to the comparison, not to the scenario: saved as the scenario's next version, it became
    what the next plain Run used (issue 51 item 4)."""
    _check_config(config)
    source = run.version
    saved = scenarios.create(
        actor,
        f"{source.scenario.name} (another configuration)"[:200],
        with_config(source.text, config),
        source.scenario.description,
        forked_from=source,
    )
    return runs.start(actor, saved.scenario, run.mode, releases.of_run(run))


def _check_config(config: str) -> None:
    if len(config) > MAX_CONFIG_CHARS:
        raise DomainError(f"the configuration is over {MAX_CONFIG_CHARS // 1024} KiB", {"limit": MAX_CONFIG_CHARS})
    try:
        parsed = list(yaml.load_all(config, Loader=engine.YAML_LOADER))
    except yaml.YAMLError:
        parsed = None  # the engine's check below reports the YAML error at its line
    if parsed is not None and [_is_config(d) for d in parsed if d is not None] != [True]:
        raise DomainError(
            f"give exactly one {CONFIG_KIND} document (kubescheduler.config.k8s.io/v1)", {"field": "config"}
        )
    engine.check(config).raise_if_invalid()  # its problems at the lines of the configuration itself


def _load(body: str) -> Any:
    try:
        return yaml.load(body, Loader=engine.YAML_LOADER)
    except yaml.YAMLError:
        return None


def _is_config(document: Any) -> bool:
    return isinstance(document, dict) and document.get("kind") == CONFIG_KIND
