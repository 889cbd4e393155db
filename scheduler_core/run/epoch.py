"""When a replay happens on the wall clock: the time the dump was taken.

A run's logical clock starts there (scheduler_core.run.loop), and a single pass reads it as now
(a claim's binding timeout counts from its allocation time, which the dump records).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from scheduler_core.framework.options import DEFAULT_EPOCH
from scheduler_core.model import Scenario
from scheduler_core.run.steps.driver import recorded_creation_times


def run_epoch(scenario: Scenario) -> datetime:
    """When the run starts: after the latest time the scenario records and, for a pod's
    status.startTime (or in a run with steps a pod's metadata.creationTimestamp), after the seconds
    its pods without one take before the run; DEFAULT_EPOCH when it records none later. A dump is
    taken after everything in it happened, and the references ran their scenarios on the day they
    were made: a running pod whose start the scenario leaves out started when the run began, after
    every start it gives (preemption's last tie-break, the latest start time of a node's victims,
    compares them), and the pods the controllers make are newer than every pod of the scenario (the
    ReplicaSet's ranking compares them). A claim's allocationTimestamp bounds it alone (the second
    after it): a binding that waits for device binding conditions is judged against it, and a dump
    holding one was taken while it waited, not a second per pod later."""
    recorded = [pod.start_time for pod in scenario.pods if pod.start_time is not None]
    if scenario.changes is not None:
        recorded.extend(recorded_creation_times(scenario.changes, scenario.pods).values())
    allocated = [
        claim.allocation.allocation_timestamp
        for claim in scenario.dra.claims
        if claim.allocation is not None and claim.allocation.allocation_timestamp is not None
    ]
    epoch = DEFAULT_EPOCH
    if recorded:
        # The pods started (or created) without a recorded time take the seconds just before the
        # run, one each: the run begins after them all.
        unrecorded = len(scenario.pods) + 1
        epoch = max(epoch, max(recorded).replace(microsecond=0) + timedelta(seconds=unrecorded))
    if allocated:
        epoch = max(epoch, max(allocated).replace(microsecond=0) + timedelta(seconds=1))
    return epoch
