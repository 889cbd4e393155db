"""The engine's published API: everything a program outside scheduler_core (the web app) may use,
and nothing else. docs/ENGINE_API.md describes each name; tests/scheduler_core/test_api.py holds
that page and ``__all__`` to the same list, and tools/import_cycles.py fails the web app when it
imports the engine other than through this module.

A change inside ``framework/``, ``dra/`` or any other package that keeps these names and their
signatures cannot break a caller; one that changes them changes this module and its page.
"""

from __future__ import annotations

# Loading and checking a scenario.
from scheduler_core.scenario.errors import ScenarioError, ScenarioErrorJSON, ScenarioInvalid
from scheduler_core.scenario.limits import Limits, in_own_words, megabytes, setting_value
from scheduler_core.scenario.loader import load_scenario
from scheduler_core.scenario.gcpause import collector_paused
from scheduler_core.util.fastpickle import dump as dump_pickled
from scheduler_core.util.gcfreeze import frozen_after_first
from scheduler_core.util.forked import Forked
from scheduler_core.scenario.sources import is_archive, kind_named_by, upload_to_text
from scheduler_core.scenario.jsonstream import as_yaml_stream
from scheduler_core.scenario.goyaml import resolve_plain as resolve_plain_scalar
from scheduler_core.scenario.textedit import DUMPER as YAML_DUMPER
from scheduler_core.scenario.textedit import LOADER as YAML_LOADER
from scheduler_core.scenario.textedit import documents
from scheduler_core.scenario.changes import SCALABLE_KINDS
from scheduler_core.model.scenario import Notice, Scenario
from scheduler_core.model.core import Node, Pod
from scheduler_core.model.quantity import format_amount
from scheduler_core.model.resources import pod_requests
from scheduler_core.answers.check import check_scenario
from scheduler_core.answers.findings import DRA_OFF, NODE_TAINTS_MISSING, Finding
from scheduler_core.cluster.node_lifecycle import add_node_taints_to_text, controller_taint_changes

# Releases.
from scheduler_core.release.choice import ReleaseChoice, ReleaseRequest, ReleaseSaid, rechoose
from scheduler_core.release.gates import FEATURE_SPECS, FeatureGateError, feature_gates, parse_feature_gates, spec_at
from scheduler_core.release.versions import DEFAULT_RELEASE, SUPPORTED_RELEASES, Release, UnknownRelease, release_named

# Running: the single pass, the run to the end, and the event stream they give.
from scheduler_core.run.schedule_one import simulate
from scheduler_core.run.loop import run_to_the_end
from scheduler_core.encoding.events import CycleEnd, Event, ExtensionPoint, read_events
from scheduler_core.encoding.pipe import can_fork, events_in_child
from scheduler_core.encoding.columnar import (
    EventFilter,
    FormatError,
    RunNames,
    SegmentEncoder,
    decode_segment,
    decode_selected,
)
from scheduler_core.encoding.trace import TraceBuilder, trace_cycles, trace_summary
from scheduler_core.encoding.timeline import run_story, story_reads
from scheduler_core.encoding.schema import payload_schema
from scheduler_core.util.wire import holds, reaches
from scheduler_core.cli import ANSWER_PAYLOADS

# Answers.
from scheduler_core.answers.explain import CycleExplanation, explain_cycle, explain_events
from scheduler_core.answers.filter_details import cycle_details
from scheduler_core.framework.filter_facts import CycleDetails
from scheduler_core.answers.compare import compare_events, compare_reads
from scheduler_core.answers.explain_pod import NotBound, PodPlacementExplanation, explain_pod
from scheduler_core.answers.recorded import (
    RecordedAnswers,
    RecordedComparison,
    compare_recorded,
    replayed_from_timeline,
    replayed_from_trace,
)
from scheduler_core.answers.whatif import NotPending, WhatIfAnswerJSON, what_if
from scheduler_core.answers.whatif_text import apply_to_text
from scheduler_core.answers.stepplacements import (
    STEP_MARKS,
    GonePod,
    NodeAtStep,
    PodAtStep,
    StepPlacement,
    step_placements,
)
from scheduler_core.answers.upgrade import UpgradeComparison, compare_releases, upgrade_counts
from scheduler_core.answers.capacity import (
    CapacityAnswer,
    CapacityError,
    FitAnswer,
    FragmentationAnswer,
    NodesAnswer,
    RemovableAnswer,
    Trial,
    TrialBase,
    TrialChanges,
    TrialOutcome,
    run_trial,
)
from scheduler_core.answers.capacity_json import (
    FitAnswerJSON,
    FragmentationAnswerJSON,
    NodesAnswerJSON,
    PassAnswerJSON,
    RemovableAnswerJSON,
    SpreadCountedJSON,
    TrialJSON,
    without_trials,
)
from scheduler_core.answers.capacity_pass import (
    DECIDING_TEXT_MOST,
    NeedsTrials,
    PassAnswer,
    copies_by_trials,
    one_pass,
)
from scheduler_core.answers.capacity_rounds import Question, replay, search_for
from scheduler_core.dra.inventory import DeviceEntry, NodeDevices, PodClaim, scenario_devices
from scheduler_core.volume.pictures import ClusterVolume, cluster_volume_json

__all__ = [
    "ANSWER_PAYLOADS",
    "CapacityAnswer",
    "CapacityError",
    "collector_paused",
    "dump_pickled",
    "Forked",
    "frozen_after_first",
    "CycleDetails",
    "CycleEnd",
    "CycleExplanation",
    "DECIDING_TEXT_MOST",
    "DEFAULT_RELEASE",
    "Event",
    "EventFilter",
    "ExtensionPoint",
    "FEATURE_SPECS",
    "FeatureGateError",
    "FitAnswer",
    "FitAnswerJSON",
    "FormatError",
    "FragmentationAnswer",
    "FragmentationAnswerJSON",
    "Limits",
    "NODE_TAINTS_MISSING",
    "DRA_OFF",
    "Finding",
    "Notice",
    "NeedsTrials",
    "Node",
    "NodesAnswer",
    "NodesAnswerJSON",
    "NotBound",
    "NotPending",
    "PassAnswer",
    "PassAnswerJSON",
    "Pod",
    "PodPlacementExplanation",
    "Question",
    "RecordedAnswers",
    "RecordedComparison",
    "Release",
    "ReleaseChoice",
    "ReleaseSaid",
    "ReleaseRequest",
    "RemovableAnswer",
    "RemovableAnswerJSON",
    "RunNames",
    "SCALABLE_KINDS",
    "SUPPORTED_RELEASES",
    "Scenario",
    "ScenarioError",
    "ScenarioErrorJSON",
    "ScenarioInvalid",
    "SegmentEncoder",
    "SpreadCountedJSON",
    "StepPlacement",
    "STEP_MARKS",
    "GonePod",
    "NodeAtStep",
    "PodAtStep",
    "TraceBuilder",
    "Trial",
    "TrialBase",
    "TrialChanges",
    "TrialJSON",
    "TrialOutcome",
    "UnknownRelease",
    "UpgradeComparison",
    "YAML_DUMPER",
    "YAML_LOADER",
    "add_node_taints_to_text",
    "apply_to_text",
    "as_yaml_stream",
    "can_fork",
    "check_scenario",
    "cluster_volume_json",
    "ClusterVolume",
    "compare_events",
    "compare_reads",
    "compare_recorded",
    "compare_releases",
    "controller_taint_changes",
    "copies_by_trials",
    "cycle_details",
    "decode_segment",
    "decode_selected",
    "documents",
    "events_in_child",
    "explain_cycle",
    "explain_events",
    "explain_pod",
    "holds",
    "reaches",
    "feature_gates",
    "format_amount",
    "is_archive",
    "kind_named_by",
    "load_scenario",
    "megabytes",
    "in_own_words",
    "setting_value",
    "one_pass",
    "parse_feature_gates",
    "payload_schema",
    "pod_requests",
    "read_events",
    "rechoose",
    "release_named",
    "replay",
    "resolve_plain_scalar",
    "replayed_from_timeline",
    "replayed_from_trace",
    "run_story",
    "run_to_the_end",
    "run_trial",
    "scenario_devices",
    "DeviceEntry",
    "NodeDevices",
    "PodClaim",
    "search_for",
    "simulate",
    "spec_at",
    "step_placements",
    "story_reads",
    "trace_cycles",
    "trace_summary",
    "upgrade_counts",
    "upload_to_text",
    "without_trials",
    "what_if",
    "WhatIfAnswerJSON",
]
