"""backend/queue/nominator.py: which pending pod is nominated to which node (nominator.go)."""

from __future__ import annotations

from scheduler_core.backend.queue.nominator import CLEAR_NOMINATED_NODE, MODE_NOOP, NominatingInfo, Nominator
from tests.scheduler_core.builders import make_pod


def _nominator() -> Nominator:
    return Nominator(lambda pod: bool(pod.node_name))


def test_an_override_nominates_the_pod_to_that_node():
    nominator, pod = _nominator(), make_pod("p")
    nominator.add_nominated_pod(pod, NominatingInfo("n1"))
    assert (nominator.node_of(pod), nominator.nominated_pods_for_node("n1")) == ("n1", [pod])
    assert nominator.nodes_with_nominated_pods() == {"n1"}


def test_noop_or_none_keeps_the_nomination_the_pod_carries():
    nominator = _nominator()
    carried, plain = make_pod("carried", nominated_node_name="n2"), make_pod("plain")
    nominator.add_nominated_pod(carried, None)
    nominator.add_nominated_pod(plain, NominatingInfo("n3", MODE_NOOP))
    assert (nominator.node_of(carried), nominator.node_of(plain)) == ("n2", None)


def test_a_new_nomination_moves_the_pod_and_delete_removes_it():
    nominator, pod = _nominator(), make_pod("p")
    nominator.add_nominated_pod(pod, NominatingInfo("n1"))
    assert nominator.nodes_with_nominated_pods() == {"n1"}
    nominator.add_nominated_pod(pod, NominatingInfo("n2"))
    assert (nominator.nominated_pods_for_node("n1"), nominator.node_of(pod)) == ([], "n2")
    assert nominator.nodes_with_nominated_pods() == {"n2"}, "made again after a change"
    nominator.delete(pod)
    assert nominator.nodes_with_nominated_pods() == set() and nominator.node_of(pod) is None


def test_an_override_to_no_node_is_recorded_under_the_empty_name_as_addNominatedPodUnlocked_does():
    nominator, pod = _nominator(), make_pod("p")
    nominator.add_nominated_pod(pod, CLEAR_NOMINATED_NODE)
    assert (nominator.node_of(pod), nominator.nominated_pods_for_node("")) == ("", [pod])


def test_a_bound_pod_is_never_nominated():
    nominator = _nominator()
    nominator.add_nominated_pod(make_pod("bound", node="n1"), NominatingInfo("n2"))
    assert nominator.nodes_with_nominated_pods() == set()


def test_pods_on_one_node_keep_their_nomination_order():
    nominator = _nominator()
    first, second = make_pod("first"), make_pod("second")
    for pod in (first, second):
        nominator.add_nominated_pod(pod, NominatingInfo("n1"))
    assert nominator.nominated_pods_for_node("n1") == [first, second]


def test_an_update_renominates_from_the_new_object_at_the_end_of_its_nodes_list():
    nominator = _nominator()
    first, second = make_pod("first", nominated_node_name="n1"), make_pod("second", nominated_node_name="n1")
    nominator.add_nominated_pod(first, None)
    nominator.add_nominated_pod(second, None)
    nominator.update_nominated_pod(first, make_pod("first", nominated_node_name="n1"))
    assert [pod.name for pod in nominator.nominated_pods_for_node("n1")] == ["second", "first"]


def test_an_update_that_moves_or_clears_the_nomination_follows_the_new_object():
    nominator, old = _nominator(), make_pod("p", nominated_node_name="n1")
    nominator.add_nominated_pod(old, None)
    moved = make_pod("p", nominated_node_name="n2")
    nominator.update_nominated_pod(old, moved)
    assert nominator.node_of(moved) == "n2"
    nominator.update_nominated_pod(moved, make_pod("p"))
    assert nominator.node_of(moved) is None


def test_an_update_without_nominations_keeps_the_one_reserved_in_memory():
    # UpdateNominatedPod: an Update with no NominatedNode arriving right after the scheduler
    # reserved one in memory (AddNominatedPod before its own patch lands) keeps the reservation.
    nominator, pod = _nominator(), make_pod("p")
    nominator.add_nominated_pod(pod, NominatingInfo("n1"))
    nominator.update_nominated_pod(pod, make_pod("p", labels={"a": "b"}))
    assert nominator.node_of(pod) == "n1"


def test_every_change_of_the_nominations_counts_and_nothing_else_does():
    nominator, pod, other = _nominator(), make_pod("p"), make_pod("o")
    seen = [nominator.version]
    nominator.add_nominated_pod(pod, NominatingInfo("n1"))
    seen.append(nominator.version)
    nominator.delete(other)  # not nominated: nothing changes
    nominator.add_nominated_pod(other, None)  # carries no nomination: nothing changes
    seen.append(nominator.version)
    nominator.update_nominated_pod(pod, make_pod("p", nominated_node_name="n2"))
    seen.append(nominator.version)
    nominator.delete(pod)
    seen.append(nominator.version)
    assert seen[1] > seen[0] and seen[2] == seen[1] and seen[3] > seen[2] and seen[4] > seen[3]


def test_a_pod_nominated_again_where_it_was_changes_the_order_but_not_the_content():
    # A nominated pod that fails is nominated again at each attempt: it moves to the end of its
    # node's list (version), while which pods are nominated where (content_version) stays.
    nominator, first, second = _nominator(), make_pod("a"), make_pod("b")
    nominator.add_nominated_pod(first, NominatingInfo("n1"))
    nominator.add_nominated_pod(second, NominatingInfo("n1"))
    version, content = nominator.version, nominator.content_version
    nominator.add_nominated_pod(first, NominatingInfo("n1"))
    assert nominator.nominated_pods_for_node("n1") == [second, first]
    assert nominator.version > version and nominator.content_version == content


def test_a_status_patch_keeps_the_content_and_a_spec_change_or_a_move_does_not():
    nominator, pod = _nominator(), make_pod("a", requests={"cpu": 100}, nominated_node_name="n1")
    nominator.add_nominated_pod(pod, None)
    content = nominator.content_version
    patched = make_pod("a", requests={"cpu": 100}, nominated_node_name="n1")  # another object, equal fields
    nominator.update_nominated_pod(pod, patched)
    assert nominator.nominated_pods_for_node("n1") == [patched] and nominator.content_version == content
    resized = make_pod("a", requests={"cpu": 200}, nominated_node_name="n1")
    nominator.update_nominated_pod(patched, resized)
    assert nominator.content_version == content + 1
    nominator.add_nominated_pod(resized, NominatingInfo("n2"))
    assert nominator.content_version == content + 2
    nominator.add_nominated_pod(resized, CLEAR_NOMINATED_NODE)  # kept under "" (another node)
    assert nominator.content_version == content + 3
    nominator.delete(resized)
    assert nominator.content_version == content + 4
    nominator.delete(resized)
    assert nominator.content_version == content + 4, "nothing to delete: nothing changed"
