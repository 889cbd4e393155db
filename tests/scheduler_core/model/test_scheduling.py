"""model/scheduling.py: a KubeSchedulerConfiguration's queue back-off defaults (1 s initial, 10 s
max, as the release's defaults set them)."""

from __future__ import annotations

from scheduler_core.model.scheduling import PriorityClass, SchedulerConfiguration


def test_the_back_off_defaults_are_the_releases_and_preemption_is_allowed_by_default():
    config = SchedulerConfiguration(())
    assert (config.pod_initial_backoff_seconds, config.pod_max_backoff_seconds) == (1, 10)
    assert PriorityClass("high", 1000).preemption_policy == "PreemptLowerPriority"
