import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.node_info import NodeInfo, PodInfo
from scheduler_core.framework.status import SKIP, Status
from scheduler_core.model import Container, ContainerPort
from scheduler_core.plugins import node_ports
from scheduler_core.model.resources import host_ports
from tests.scheduler_core.builders import make_node, make_pod

CONFLICT = Status.unschedulable("node(s) didn't have free ports for the requested pod ports")


def pod_with_ports(name, *ports, node=""):
    return make_pod(name, node=node, containers=(Container("c", ports=tuple(ports)),))


def port(host_port, protocol="TCP", host_ip=""):
    return ContainerPort(container_port=80, host_port=host_port, protocol=protocol, host_ip=host_ip)


@pytest.mark.parametrize(
    "used, wanted, expected",
    [
        pytest.param([], [port(80)], None, id="a free port fits"),
        pytest.param([port(80)], [port(80)], CONFLICT, id="the same port and protocol on all addresses conflicts"),
        pytest.param([port(80)], [port(80, "UDP")], None, id="the same port with another protocol fits"),
        pytest.param([port(80)], [port(8080)], None, id="another port fits"),
        pytest.param(
            [port(80, host_ip="10.0.0.1")],
            [port(80, host_ip="10.0.0.2")],
            None,
            id="the same port on different addresses fits",
        ),
        pytest.param(
            [port(80, host_ip="10.0.0.1")],
            [port(80, host_ip="10.0.0.1")],
            CONFLICT,
            id="the same port on the same address conflicts",
        ),
        pytest.param(
            [port(80, host_ip="10.0.0.1")],
            [port(80)],
            CONFLICT,
            id="a wanted wildcard address conflicts with any address using the port",
        ),
        pytest.param(
            [port(80, host_ip="0.0.0.0")],
            [port(80, host_ip="10.0.0.1")],
            CONFLICT,
            id="a used wildcard address conflicts with a specific wanted address",
        ),
    ],
)
def test_node_ports_filter(used, wanted, expected):
    node = NodeInfo(make_node("n1"))
    if used:
        node.add_pod(PodInfo(pod_with_ports("running", *used, node="n1")))
    plugin = node_ports.new(None, None)
    state = CycleState()
    pod = pod_with_ports("p", *wanted)
    assert plugin.pre_filter(state, pod, [node]) == (None, None)
    assert plugin.filter(state, pod, node) == expected


def test_a_pod_without_host_ports_is_skipped_at_pre_filter():
    pod = make_pod("p", containers=(Container("c", ports=(ContainerPort(container_port=80),)),))
    assert node_ports.new(None, None).pre_filter(CycleState(), pod, []) == (None, SKIP)


@pytest.mark.parametrize(
    "restart_policy, expected",
    [
        pytest.param(
            "Always",
            [("0.0.0.0", "TCP", 9000), ("0.0.0.0", "TCP", 80)],
            id="a sidecar init container's host port is held for the pod's life",
        ),
        pytest.param("", [("0.0.0.0", "TCP", 80)], id="an ordinary init container's host port is not counted"),
    ],
)
def test_host_ports_count_sidecars_but_not_ordinary_init_containers(restart_policy, expected):
    init = Container("init", ports=(port(9000),), restart_policy=restart_policy)
    pod = make_pod("p", init_containers=(init,), containers=(Container("c", ports=(port(80),)),))
    assert list(host_ports(pod)) == expected
