"""The Deployment stand-in: the current ReplicaSet (highest revision) carries the replicas; a
Deployment without one gets <deployment>-<hash> (../shared/spec/CHANGES.md); a template a step changed rolls
out as pkg/controller/deployment's rolloutRolling and rolloutRecreate do."""

from __future__ import annotations

import hashlib
import json

import pytest

from scheduler_core.cluster.controllers import deployment, replicaset
from scheduler_core.model import OwnerReference
from tests.scheduler_core.builders import cluster_state, controlled_workload, make_node


def test_it_names_a_new_replica_set_by_the_sha256_of_the_canonical_template():
    """getNewReplicaSet with ../shared/spec/CHANGES.md's hash: sorted keys, no spaces, first 10 hex characters."""
    web = controlled_workload("Deployment", "web", replicas=3)
    state = cluster_state(workloads=[web])
    [created] = deployment.reconcile(state, web)
    canonical = json.dumps(web.template, sort_keys=True, separators=(",", ":"))
    hash_ = hashlib.sha256(canonical.encode()).hexdigest()[:10]
    assert created.name == f"web-{hash_}" and created.replicas == 3 and created.revision == 1
    assert dict(created.selector.match_labels) == {"app": "web", "pod-template-hash": hash_}
    assert created.template["metadata"]["labels"] == {"app": "web", "pod-template-hash": hash_}
    assert created.owner == OwnerReference("Deployment", "web", "apps/v1", True, "uid-web")


def test_it_scales_the_replica_set_with_the_highest_revision():
    """scale: until a step changes the template, only the newest ReplicaSet follows the Deployment."""
    web = controlled_workload("Deployment", "web", replicas=5)
    owner = OwnerReference("Deployment", "web", "apps/v1", True, "uid-web")
    old = controlled_workload("ReplicaSet", "web-old", replicas=1, owner=owner, revision=1)
    new = controlled_workload("ReplicaSet", "web-new", replicas=2, owner=owner, revision=2)
    state = cluster_state(workloads=[web, old, new])
    assert deployment.reconcile(state, web) == []
    assert (state.current(old).replicas, state.current(new).replicas) == (1, 5)
    assert new.replicas == 2  # written as a new version, never in place


# ---------------------------------------------------------------------------- rollouts


@pytest.mark.parametrize(("value", "total", "round_up", "expected"), [
    pytest.param(2, 10, True, 2, id="an integer is taken as it is"),
    pytest.param("25%", 3, True, 1, id="a surge of 25 percent of 3 rounds up to 1"),
    pytest.param("25%", 3, False, 0, id="an unavailable 25 percent of 3 rounds down to 0"),
    pytest.param("50%", 5, False, 2, id="half of 5 rounds down to 2"),
    pytest.param("100%", 7, True, 7, id="a hundred percent is everything"),
])
def test_it_scales_int_or_percent_as_get_scaled_value_from_int_or_percent(value, total, round_up, expected):
    assert deployment.scaled_value(value, total, round_up) == expected


def test_it_refuses_a_string_that_is_not_a_percentage():
    with pytest.raises(ValueError):
        deployment.scaled_value("25", 4, True)


@pytest.mark.parametrize(("strategy", "replicas", "expected"), [
    pytest.param(deployment.Strategy(), 4, (1, 1), id="the defaults of 25 percent give one of each for 4 replicas"),
    pytest.param(deployment.Strategy(max_surge=0, max_unavailable="10%"), 3, (0, 1),
                 id="no surge and an unavailable that rounds to 0 resolve to one unavailable"),
    pytest.param(deployment.Strategy(max_surge="50%", max_unavailable=0), 3, (2, 0),
                 id="a surge alone keeps unavailable at 0"),
])
def test_it_resolves_fenceposts_as_the_release_does(strategy, replicas, expected):
    assert deployment.resolve_fenceposts(strategy, replicas) == expected


def _rolling_web(replicas: int, strategy: str = ""):
    """Deployment web with its ReplicaSet of revision 1 and that many running pods, its
    template then changed by a step (a rollout under way)."""
    web = controlled_workload("Deployment", "web", replicas=replicas)
    if strategy:
        web.manifest = {"spec": {"strategy": json.loads(strategy)}}
    state = cluster_state(nodes=[make_node("n1", cpu=100_000)], workloads=[web])
    [old] = deployment.reconcile(state, web)
    for write in replicaset.reconcile(state, old):
        write.pod.node_name = "n1"
    web.template = {"metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}}
    state.rolling.add(web.key)
    return web, old, state


def test_a_rolling_update_surges_one_new_replica_and_keeps_every_old_one_while_it_is_unavailable():
    """3 replicas, 25 % / 25 %: surge 1, unavailable 0: the new ReplicaSet (revision 2) gets one
    replica; the old ones stay until it is available."""
    web, old, state = _rolling_web(3)
    [new] = deployment.reconcile(state, web)
    assert (new.revision, new.replicas, old.replicas) == (2, 1, 3)
    assert new.name == f"web-{deployment.template_hash(web.template)}"


def test_once_the_new_replica_runs_an_old_one_goes_and_the_new_set_grows():
    """reconcileOldReplicaSets: 4 available, at least 3 wanted: the old set loses one; then
    reconcileNewReplicaSet may surge again (total 3 + 1)."""
    web, old, state = _rolling_web(3)
    [new] = deployment.reconcile(state, web)
    [created] = replicaset.reconcile(state, new)
    created.pod.node_name = "n1"
    assert deployment.reconcile(state, web) == []
    assert (state.current(new).replicas, state.current(old).replicas) == (2, 2)


def test_max_unavailable_lets_the_old_set_shrink_before_anything_new_runs():
    """4 replicas, maxSurge 0, maxUnavailable 2: the old set drops to 2 at once, the new one takes
    the 2 freed places."""
    web, old, state = _rolling_web(4, '{"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 2}}')
    [new] = deployment.reconcile(state, web)
    assert (state.current(new).replicas, state.current(old).replicas) == (2, 2)


def test_recreate_scales_every_old_set_to_zero_and_waits_for_its_pods_to_go():
    """rolloutRecreate: no new ReplicaSet while an old pod exists (terminating ones included)."""
    web, old, state = _rolling_web(2, '{"type": "Recreate"}')
    assert deployment.reconcile(state, web) == [] and state.current(old).replicas == 0
    for pod in state.owned_pods(old):
        state.gone.add(pod.key)
    [new] = deployment.reconcile(state, web)
    assert (state.current(new).replicas, new.revision) == (2, 2)


def test_a_rollback_to_the_old_template_makes_the_old_set_current_again():
    """FindNewReplicaSet + the revision sync: the ReplicaSet with the template gets revision 3."""
    web, old, state = _rolling_web(2)
    first_template = old.template
    [new] = deployment.reconcile(state, web)
    web.template = {"metadata": {"labels": {"app": "web"}}, "spec": first_template["spec"]}
    assert deployment.reconcile(state, web) == []
    old, new = state.current(old), state.current(new)
    assert (old.revision, old.replicas, new.replicas) == (3, 2, 0)


def test_rollout_status_counts_like_the_deployment_status_and_names_pending_new_pods():
    web, old, state = _rolling_web(3)
    [new] = deployment.reconcile(state, web)
    replicaset.reconcile(state, new)
    status = deployment.rollout_status(state, web)
    assert (status.desired, status.updated, status.replicas, status.available, status.complete) == (3, 1, 4, 3, False)
    assert status.pending == [f"default/{new.name}-1"] and len(status.old_pods) == 3 and status.revision == 2
