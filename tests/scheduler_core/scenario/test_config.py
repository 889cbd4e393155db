"""KubeSchedulerConfiguration: decoded into SchedulerConfig and validated through build_profile."""

from __future__ import annotations

import pytest

from scheduler_core.model import PluginRef
from scheduler_core.scenario import load_scenario

from tests.scheduler_core.scenario.support import NODE, errors_of, line_of, stream

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def config(body: str) -> str:
    return stream(NODE, HEADER + body)


def test_it_reads_plugins_weights_args_and_percentage():
    text = config("""\
percentageOfNodesToScore: 50
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      enabled: [{name: NodeResourcesFit, weight: 5}]
      disabled: [{name: ImageLocality}]
  pluginConfig:
  - name: InterPodAffinity
    args: {hardPodAffinityWeight: 10}
""")
    configuration = load_scenario(text).config
    [scenario_config] = configuration.profiles
    assert scenario_config.percentage_of_nodes_to_score == 50
    assert scenario_config.scheduler_name == "default-scheduler"
    assert scenario_config.plugins["score"].enabled == (PluginRef("NodeResourcesFit", 5),)
    assert scenario_config.plugins["score"].disabled == (PluginRef("ImageLocality"),)
    assert scenario_config.plugin_args["InterPodAffinity"] == {"hardPodAffinityWeight": 10}
    assert configuration.line == line_of(text, "apiVersion: kubescheduler")
    assert scenario_config.line == line_of(text, "- schedulerName")


def test_a_scenario_without_configuration_has_none():
    assert load_scenario(NODE).config is None


@pytest.mark.parametrize(
    "body, path, fragment, message",
    [
        ("percentageOfNodesToScore: 101\n", "percentageOfNodesToScore", "101", "between 0 and 100"),
        (
            "profiles: [{schedulerName: a}, {schedulerName: a}]\n",
            "profiles[1].schedulerName",
            "profiles",
            'Duplicate value: "a"',
        ),
        (
            "profiles: [{schedulerName: a}, {percentageOfNodesToScore: 5}]\n",
            "profiles[1].schedulerName",
            "profiles",
            "Required value",
        ),
        (
            "profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    queueSort:\n      enabled: [{name: Custom}]\n"
            "      disabled: [{name: '*'}]\n",
            "profiles[1].plugins",
            "plugins:",
            'unknown plugin "Custom"',
        ),
        (
            "podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 2\n",
            "podMaxBackoffSeconds",
            "podMaxBackoffSeconds",
            "greater than or equal to PodInitialBackoffSeconds",
        ),
        (
            "profiles:\n- plugins:\n    scores: {enabled: [{name: NodeResourcesFit}]}\n",
            "profiles[0].plugins.scores",
            "scores",
            'unknown extension point "scores"',
        ),
        (
            "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: NoSuchPlugin\n",
            "profiles[0].plugins",
            "plugins:",
            'unknown plugin "NoSuchPlugin"',
        ),
        (
            "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy: {type: Bogus}\n",
            "profiles[0].pluginConfig[NodeResourcesFit].args.scoringStrategy.type",
            "scoringStrategy",
            "Bogus",
        ),
        (
            "profiles:\n- pluginConfig:\n  - {name: InterPodAffinity, args: {}}\n  - {name: InterPodAffinity, args: {}}\n",
            "profiles[0].pluginConfig[1].name",
            "- {name: InterPodAffinity, args: {}}\n  - {",
            "Duplicate value",
        ),
        (
            "profiles:\n- plugins:\n    score:\n      enabled: [{name: NodeResourcesFit, weight: -1}]\n",
            "profiles[0].plugins.score.enabled[0].weight",
            "weight: -1",
            "between 0 and",
        ),
    ],
    ids=[
        "it rejects a percentage above 100",
        "it rejects two profiles with one schedulerName",
        "it requires a schedulerName when there are several profiles",
        "it validates every profile",
        "it rejects a max back-off below the initial one",
        "it rejects an unknown extension point",
        "it rejects an unknown plugin",
        "it rejects bad plugin args",
        "it rejects duplicate pluginConfig",
        "it rejects a negative weight",
    ],
)
def test_it_reports_configuration_problems_on_the_configuration(body, path, fragment, message):
    text = config(body)
    errors = errors_of(text)
    matching = [e for e in errors if e.path == path]
    assert matching, [str(e) for e in errors]
    assert message in matching[0].message
    assert matching[0].object == "KubeSchedulerConfiguration"
    expected_line = line_of(text, fragment.split("\n")[0]) + fragment.count("\n")
    assert matching[0].line == expected_line


def test_it_refuses_a_second_configuration():
    errors = errors_of(stream(HEADER, HEADER))
    assert "only one KubeSchedulerConfiguration" in errors[0].message


def test_it_reads_several_profiles_each_with_its_own_percentage_and_the_queue_back_off():
    configuration = load_scenario(
        config("""\
percentageOfNodesToScore: 30
podInitialBackoffSeconds: 2
podMaxBackoffSeconds: 20
profiles:
- schedulerName: default-scheduler
- schedulerName: packer
  percentageOfNodesToScore: 70
  pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: MostAllocated}}
""")
    ).config
    assert [(p.scheduler_name, p.percentage_of_nodes_to_score) for p in configuration.profiles] == [
        ("default-scheduler", 30),
        ("packer", 70),
    ]
    assert (configuration.pod_initial_backoff_seconds, configuration.pod_max_backoff_seconds) == (2, 20)


def test_profiles_must_sort_the_queue_alike():
    text = config("""\
profiles:
- schedulerName: a
- schedulerName: b
  pluginConfig:
  - name: PrioritySort
    args: {}
""")
    assert load_scenario(text).config.profiles[1].scheduler_name == "b"  # same plugin, same (empty) args


def test_a_configuration_without_profiles_has_the_default_one():
    [profile] = load_scenario(config("percentageOfNodesToScore: 40\n")).config.profiles
    assert (profile.scheduler_name, profile.percentage_of_nodes_to_score) == ("default-scheduler", 40)
