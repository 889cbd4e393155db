"""NodeInfo and PodInfo: a node's sums as pods come and go, the PodInfo cache."""

from __future__ import annotations

import random
from dataclasses import replace as replace_fields

from scheduler_core.framework.node_info import PodInfo, PodInfoCache
from scheduler_core.model import (
    Affinity,
    Container,
    LabelSelector,
    PodAffinity,
    PodAffinityTerm,
)
from tests.scheduler_core.builders import make_node, make_pod


def test_removing_a_pod_frees_its_host_ports_even_when_another_pod_declares_them():
    # framework.HostPortInfo is a set: two pods on a node declaring hostPort 80 leave one entry, and
    # removing either deletes it (the release's preemption dry run then sees port 80 free).
    from scheduler_core.framework.node_info import NodeInfo, PodInfo
    from scheduler_core.model import Container, ContainerPort

    def web(name):
        return make_pod(name, node="n1", containers=(Container("c", ports=(ContainerPort(8080, 80),)),))

    info = NodeInfo(make_node("n1"))
    first, second = web("a"), web("b")
    info.add_pod(PodInfo(first))
    info.add_pod(PodInfo(second))
    assert list(info.used_ports) == [("0.0.0.0", "TCP", 80)]
    info.remove_pod(second)
    assert info.used_ports == {}
    info.add_pod(PodInfo(second))
    assert list(info.used_ports) == [("0.0.0.0", "TCP", 80)]


def _pod_info_fields(info) -> tuple:
    return (
        info.pod,
        info.requests,
        info.non_zero_requests,
        info.required_affinity_terms,
        info.required_anti_affinity_terms,
        info.preferred_affinity_terms,
        info.preferred_anti_affinity_terms,
        info.host_ports,
        info.claim_keys,
    )


def _anti_affinity(app: str) -> Affinity:
    term = PodAffinityTerm(LabelSelector(match_labels=(("app", app),)), "kubernetes.io/hostname")
    return Affinity(pod_anti_affinity=PodAffinity(required=(term,)))


def test_the_pod_info_cache_answers_what_a_fresh_pod_info_would():
    cache = PodInfoCache(kept=2)
    pod = make_pod("p", labels={"app": "a"}, requests={"cpu": 100}, affinity=_anti_affinity("a"))
    first = cache.of(pod)
    assert cache.of(pod) is first  # unchanged: built once
    assert _pod_info_fields(first) == _pod_info_fields(PodInfo(pod))
    # the run changes pending pods in place: each change is seen
    for change in (
        lambda p: p.labels.update(app="b"),
        lambda p: setattr(p, "containers", (Container(name="c", requests={"cpu": 300}),)),
        lambda p: setattr(p, "affinity", _anti_affinity("c")),
        lambda p: setattr(p, "namespace", "other"),
    ):
        before = cache.of(pod)
        change(pod)
        after = cache.of(pod)
        assert after is not before
        assert _pod_info_fields(after) == _pod_info_fields(PodInfo(pod))
    # another object under the same key is never answered from the first one's entry
    twin = replace_fields(pod)
    assert cache.of(twin).pod is twin
    # a full cache is dropped, not grown
    for name in ("q", "r", "s"):
        cache.of(make_pod(name))
    assert len(cache._infos) <= 2


def test_the_lowest_priority_follows_the_pods_added_and_removed_and_a_clone_keeps_its_own():
    from scheduler_core.framework.node_info import NodeInfo

    info = NodeInfo(make_node("n1"))
    assert info.lowest_priority() is None
    low, high = make_pod("low", node="n1", priority=-100), make_pod("high", node="n1", priority=1000)
    info.add_pod(PodInfo(high))
    assert info.lowest_priority() == 1000
    info.add_pod(PodInfo(low))
    assert info.lowest_priority() == -100
    trial = info.clone()  # preemption's dry run takes the low one off its copy
    trial.remove_pod(low)
    assert (trial.lowest_priority(), info.lowest_priority()) == (1000, -100)
    info.remove_pod(high)
    assert (trial.lowest_priority(), info.lowest_priority()) == (1000, -100)
    info.remove_pod(low)
    assert info.lowest_priority() is None


def test_host_ports_are_those_of_the_sidecars_and_containers():
    from scheduler_core.model import Container, ContainerPort

    sidecar = Container("proxy", ports=(ContainerPort(15090, 15090),), restart_policy="Always")
    init = Container("init", ports=(ContainerPort(9000, 9000),))  # an ordinary init container holds none
    pod = make_pod(
        "p",
        containers=(Container("c", ports=(ContainerPort(53, 53, protocol="UDP"),)),),
        init_containers=(init, sidecar),
    )
    assert PodInfo(pod).host_ports == (("0.0.0.0", "TCP", 15090), ("0.0.0.0", "UDP", 53))


def _node_state(info) -> tuple:
    """Everything a NodeInfo holds, entries by identity, maps with their key order."""
    return (
        [id(p) for p in info.pods],
        [id(p) for p in info.pods_with_affinity],
        [id(p) for p in info.pods_with_required_anti_affinity],
        list(info.requested.items()),
        list(info.non_zero_requested.items()),
        list(info.used_ports.items()),
        list(info.pvc_ref_counts.items()),
        info.generation,
    )


def test_removing_many_pods_at_once_leaves_what_removing_them_one_by_one_leaves():
    # Preemption's dry run takes every lower-priority pod off a cloned node at once (remove_pods):
    # pods, affinity lists in their order, sums (with resources no pod left asks for kept at 0, in
    # their place), ports, claim counts and generation must be those of remove_pod called for each
    # in turn, whether more pods leave than stay (the sums are then made from those that stay) or not.
    from scheduler_core.framework.node_info import NodeInfo
    from scheduler_core.model import ContainerPort
    from scheduler_core.model.volumes import Volume

    rng = random.Random(7)
    branches = set()
    for _ in range(300):
        pods = []
        for i in range(rng.randint(1, 14)):
            ports = (ContainerPort(8000 + i, rng.choice([80, 443])),) if rng.random() < 0.3 else ()
            claims = tuple(
                Volume(f"v{k}", "persistentVolumeClaim", claim_name=f"data-{rng.randint(0, 3)}")
                for k in range(rng.randint(0, 2))
            ) + ((Volume("scratch", "emptyDir"),) if rng.random() < 0.5 else ())
            affinity = _anti_affinity("a") if rng.random() < 0.3 else None
            requests = {"cpu": rng.randint(0, 500), "memory": rng.randint(0, 1 << 30)}
            if rng.random() < 0.3:
                requests["example.com/gpu"] = rng.randint(1, 2)
            container = Container("c", requests=requests, ports=ports)
            pods.append(
                make_pod(
                    f"p{i}", node="n1", labels={"app": "a"}, containers=(container,), volumes=claims, affinity=affinity
                )
            )
        infos = [PodInfo(pod) for pod in pods]
        at_once, one_by_one = NodeInfo(make_node("n1")), NodeInfo(make_node("n1"))
        for info in infos:
            at_once.add_pod(info)
            one_by_one.add_pod(info)
        if len(infos) > 2 and rng.random() < 0.5:  # a pod gone before: its resources stay named, at 0 if alone
            earlier = infos.pop(rng.randrange(len(infos)))
            at_once.remove_pod(earlier.pod)
            one_by_one.remove_pod(earlier.pod)
        share = rng.random()
        gone = [info for info in infos if rng.random() < share]
        branches.add(len(gone) > len(infos) - len(gone))
        at_once.remove_pods(gone)
        for info in gone:
            one_by_one.remove_pod(info.pod)
        assert _node_state(at_once) == _node_state(one_by_one)
    assert branches == {True, False}


def test_removing_at_once_a_pod_the_node_does_not_hold_names_it():
    from scheduler_core.framework.node_info import NodeInfo

    node = NodeInfo(make_node("n1"))
    held = PodInfo(make_pod("held", node="n1"))
    node.add_pod(held)
    stranger = PodInfo(make_pod("stranger", node="n1"))
    try:
        node.remove_pods([held, stranger])
    except KeyError as error:
        assert "default/stranger" in str(error)
    else:
        raise AssertionError("a pod the node does not hold was removed")


def test_a_pod_info_shared_by_a_template_counts_each_pods_own_claims():
    # Pods of one StatefulSet share their containers (the snapshot shares their PodInfo's computed
    # parts, PodInfo.with_pod), but each claims its own volume: the node counts each pod's claim.
    from scheduler_core.framework.node_info import NodeInfo
    from scheduler_core.model.volumes import Volume

    containers = (Container("c", requests={"cpu": 100}),)
    web0 = make_pod(
        "web-0",
        node="n1",
        containers=containers,
        volumes=(Volume("data", "persistentVolumeClaim", claim_name="data-web-0"),),
    )
    web1 = make_pod(
        "web-1",
        node="n1",
        containers=containers,
        volumes=(Volume("data", "persistentVolumeClaim", claim_name="data-web-1"),),
    )
    first = PodInfo(web0)
    node = NodeInfo(make_node("n1"))
    node.add_pod(first)
    node.add_pod(first.with_pod(web1))
    assert node.pvc_ref_counts == {"default/data-web-0": 1, "default/data-web-1": 1}
