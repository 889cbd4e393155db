"""FrameworkOptions: what a framework is built with (frameworkruntime.Option), and the framework
using it from the start — no attribute is set on it afterwards."""

from __future__ import annotations

from scheduler_core.backend.queue.nominator import Nominator
from scheduler_core.framework.options import FrameworkOptions, NoNominations
from scheduler_core.framework.profile import Profile
from scheduler_core.framework.runtime import Framework
from tests.scheduler_core.builders import make_node, make_pod, make_snapshot


def test_the_defaults_are_a_single_pass():
    """No nomination, time zero, no OpportunisticBatching, preemption a dry run with ties left open."""
    options = FrameworkOptions()
    assert isinstance(options.nominator, NoNominations)
    assert (
        options.nominator.nominated_pods_for_node("n1") == [] and options.nominator.nodes_with_nominated_pods() == set()
    )
    assert (
        options.clock_ms(),
        options.opportunistic_batching,
        options.preemption_ties_in_node_order,
        options.preemption_api,
    ) == (0, False, False, None)


def test_a_framework_uses_the_nominator_clock_and_batching_it_was_built_with():
    """WithPodNominator / WithClock: the nominations reach addGENominatedPods; the batch exists at once."""
    nominator = Nominator(lambda pod: bool(pod.node_name))
    nominated = make_pod("nominated", priority=10, nominated_node_name="n1")
    nominator.add_nominated_pod(nominated, None)
    now = {"ms": 250}
    options = FrameworkOptions(nominator=nominator, clock_ms=lambda: now["ms"], opportunistic_batching=True)
    framework = Framework(Profile.of({}, {}, 100), make_snapshot([make_node("n1")]), options=options)
    assert framework.nominated_pods_to_add(make_pod("incoming", priority=10), "n1") == (nominated,)
    assert framework.batch is not None and framework.clock_ms() == 250
    now["ms"] = 900
    assert framework.clock_ms() == 900


def test_a_framework_built_without_options_has_no_batch_and_no_nominations():
    framework = Framework(Profile.of({}, {}, 100), make_snapshot([make_node("n1")]))
    assert framework.batch is None and framework.nominated_pods_to_add(make_pod("incoming"), "n1") == ()
