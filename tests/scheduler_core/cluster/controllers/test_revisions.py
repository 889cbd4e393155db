"""revisions.py: a StatefulSet's or DaemonSet's current and latest revisions, and each pod's."""

from __future__ import annotations

from scheduler_core.cluster.controllers import revisions
from scheduler_core.cluster.controllers.deployment import template_hash
from tests.scheduler_core.builders import cluster_state, controlled_workload, make_pod


def test_the_first_look_makes_the_template_current_and_its_pods_at_that_revision():
    db = controlled_workload("StatefulSet", "db")
    pod = make_pod("db-0", labels={"app": "db"}, owner_references=())
    state = cluster_state(workloads=[db])
    revs = revisions.revisions(state, db)
    assert (revs.current_hash, revs.latest_hash, revs.number, revs.updating) == (
        template_hash(db.template),
        template_hash(db.template),
        1,
        False,
    )
    assert revisions.pod_revision(state, pod) == ""  # not the set's: never seen


def test_a_template_change_is_the_next_revision_until_the_rollout_completes():
    db = controlled_workload("StatefulSet", "db")
    state = cluster_state(workloads=[db])
    first = revisions.revisions(state, db).current_hash
    db.template = {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "c", "image": "v2"}]}}
    revs = revisions.revisions(state, db)
    assert (revs.current_hash, revs.number, revs.updating) == (first, 2, True)
    revisions.complete(revs, db)
    assert not revs.updating and revs.current_template is db.template


def test_the_same_name_in_two_kinds_keeps_two_histories():
    db_set, db_daemon = controlled_workload("StatefulSet", "db"), controlled_workload("DaemonSet", "db")
    state = cluster_state(workloads=[db_set, db_daemon])
    revisions.revisions(state, db_set)
    db_daemon.template = {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "x"}]}}
    assert revisions.revisions(state, db_daemon).number == 1 and len(state.set_revisions) == 2
