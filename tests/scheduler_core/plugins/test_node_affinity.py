import pytest

from scheduler_core.framework.cluster_events import QueueingHint
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import PreFilterResult
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.args_errors import ArgsError
from scheduler_core.framework.status import SKIP, Status
from scheduler_core.model import (
    Affinity,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PreferredSchedulingTerm,
)
from scheduler_core.plugins import node_affinity
from tests.scheduler_core.builders import make_node, make_pod
from tests.scheduler_core.plugins.scoring import run_scoring

NO_MATCH = Status.unresolvable("node(s) didn't match Pod's node affinity/selector")


def term(*expressions, fields=()):
    return NodeSelectorTerm(
        tuple(NodeSelectorRequirement(k, op, tuple(v)) for k, op, v in expressions),
        tuple(NodeSelectorRequirement(k, op, tuple(v)) for k, op, v in fields),
    )


def required(*terms):
    return Affinity(node_affinity=NodeAffinity(required=NodeSelector(tuple(terms))))


def preferred(*weighted):
    return Affinity(node_affinity=NodeAffinity(preferred=tuple(PreferredSchedulingTerm(w, t) for w, t in weighted)))


NAME_IN = "metadata.name"


@pytest.mark.parametrize(
    "pod, expected",
    [
        pytest.param(make_pod("p"), (None, SKIP), id="a pod without selector or required affinity is skipped"),
        pytest.param(
            make_pod("p", node_selector={"disk": "ssd"}),
            (None, None),
            id="a nodeSelector alone runs the filter on every node",
        ),
        pytest.param(
            make_pod("p", affinity=required(term(("zone", "In", ["a"])))),
            (None, None),
            id="label terms do not narrow the nodes",
        ),
        pytest.param(
            make_pod("p", affinity=required(term(fields=[(NAME_IN, "In", ["n1", "n2"])]))),
            (PreFilterResult(frozenset({"n1", "n2"})), None),
            id="a metadata.name term narrows the cycle to its nodes",
        ),
        pytest.param(
            make_pod(
                "p", affinity=required(term(fields=[(NAME_IN, "In", ["n1"])]), term(fields=[(NAME_IN, "In", ["n3"])]))
            ),
            (PreFilterResult(frozenset({"n1", "n3"})), None),
            id="name terms are ORed into one set of nodes",
        ),
        pytest.param(
            make_pod("p", affinity=required(term(fields=[(NAME_IN, "In", ["n1"])]), term(("zone", "In", ["a"])))),
            (None, None),
            id="a term without a name lets every node through",
        ),
        pytest.param(
            make_pod("p", affinity=required(term(fields=[(NAME_IN, "In", ["n1"]), (NAME_IN, "In", ["n2"])]))),
            (None, Status.unresolvable("pod affinity terms conflict")),
            id="name requirements of one term that leave no node conflict",
        ),
    ],
)
def test_node_affinity_pre_filter(pod, expected):
    assert node_affinity.new(None, None).pre_filter(CycleState(), pod, []) == expected


@pytest.mark.parametrize(
    "pod, expected",
    [
        pytest.param(make_pod("p", node_selector={"disk": "ssd"}), None, id="a matching nodeSelector passes"),
        pytest.param(make_pod("p", node_selector={"disk": "hdd"}), NO_MATCH, id="a mismatching nodeSelector rejects"),
        pytest.param(
            make_pod("p", affinity=required(term(("zone", "In", ["b"])), term(("disk", "Exists", [])))),
            None,
            id="one matching term of several is enough",
        ),
        pytest.param(
            make_pod("p", affinity=required(term(("zone", "In", ["b"])))),
            NO_MATCH,
            id="required affinity that does not match rejects",
        ),
        pytest.param(
            make_pod("p", node_selector={"disk": "ssd"}, affinity=required(term(("zone", "NotIn", ["a"])))),
            NO_MATCH,
            id="nodeSelector and required affinity must both match",
        ),
        pytest.param(
            make_pod("p", affinity=required()), NO_MATCH, id="required affinity with no terms matches nothing"
        ),
        # Upstream's "pod with an invalid value in affinity term": a value no label can hold (a pod may
        # keep one, scenario/selectors.py) makes the term fail to parse, so it never matches, NotIn too.
        pytest.param(
            make_pod("p", affinity=required(term(("zone", "In", ["invalid value: ___@#$%^"])))),
            NO_MATCH,
            id="a pod with an invalid value in its affinity term fits no node",
        ),
        pytest.param(
            make_pod("p", affinity=required(term(("zone", "NotIn", ["___@#$%^"])))),
            NO_MATCH,
            id="an invalid value fails the term even under NotIn, which would match otherwise",
        ),
    ],
)
def test_node_affinity_filter(pod, expected):
    node = NodeInfo(make_node("n1", {"zone": "a", "disk": "ssd"}))
    plugin = node_affinity.new(None, None)
    state = CycleState()
    plugin.pre_filter(state, pod, [node])
    assert plugin.filter(state, pod, node) == expected


def test_added_required_affinity_is_enforced_on_every_pod():
    args = {
        "addedAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "pool", "operator": "In", "values": ["batch"]}]}]
            }
        }
    }
    plugin = node_affinity.new(args, None)
    pod = make_pod("p")
    assert plugin.pre_filter(CycleState(), pod, []) == (None, None)
    assert plugin.filter(CycleState(), pod, NodeInfo(make_node("n1", {"pool": "web"}))) == Status.unresolvable(
        "node(s) didn't match scheduler-enforced node affinity"
    )
    assert plugin.filter(CycleState(), pod, NodeInfo(make_node("n2", {"pool": "batch"}))) is None


def test_invalid_added_affinity_names_the_field():
    args = {
        "addedAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "pool", "operator": "In", "values": []}]}]
            }
        }
    }
    with pytest.raises(ArgsError) as err:
        node_affinity.new(args, None)
    assert [p.path for p in err.value.problems] == [
        "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values"
    ]


NODES = [make_node("n1", {"zone": "a", "disk": "ssd"}), make_node("n2", {"zone": "b"}), make_node("n3", {})]


@pytest.mark.parametrize(
    "pod, args, expected",
    [
        pytest.param(make_pod("p"), None, (SKIP, [], []), id="a pod without preferred terms is skipped at PreScore"),
        pytest.param(
            make_pod(
                "p",
                affinity=preferred(
                    (5, term(("zone", "In", ["a"]))),
                    (3, term(("disk", "Exists", []))),
                    (2, term(("zone", "In", ["b"]))),
                ),
            ),
            None,
            (None, [8, 2, 0], [100, 25, 0]),
            id="matching preferred weights are summed and normalized to the best node",
        ),
        pytest.param(
            make_pod("p", affinity=preferred((0, term(("zone", "In", ["a"]))))),
            None,
            (None, [0, 0, 0], [0, 0, 0]),
            id="a preferred term of weight zero counts nothing",
        ),
        pytest.param(
            make_pod("p"),
            {
                "addedAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 4,
                            "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]},
                        }
                    ]
                }
            },
            (None, [0, 4, 0], [0, 100, 0]),
            id="added preferred terms score every pod",
        ),
    ],
)
def test_node_affinity_scoring(pod, args, expected):
    nodes = [NodeInfo(n) for n in NODES]
    assert run_scoring(node_affinity.new(args, None), pod, nodes) == expected


# ------------------------------------------------------------------ queueing hint (upstream's
# Test_isSchedulableAfterNodeChange, wrong-object cases aside; plus a kept invalid value)

FOO_BAR = required(term(("foo", "In", ["bar"])))
ADDED_FOO_BAR = {
    "addedAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "foo", "operator": "In", "values": ["bar"]}]}]
        }
    }
}


@pytest.mark.parametrize(
    "args, old, new, expected",
    [
        pytest.param(None, None, make_node("n"), QueueingHint.QUEUE_SKIP, id="skip-queue-on-add"),
        pytest.param(None, None, make_node("n", {"foo": "bar"}), QueueingHint.QUEUE, id="queue-on-add"),
        pytest.param(None, make_node("n"), make_node("n", cpu=1), QueueingHint.QUEUE_SKIP, id="skip-unrelated-changes"),
        pytest.param(
            None,
            make_node("n"),
            make_node("n", {"k": "v"}),
            QueueingHint.QUEUE_SKIP,
            id="skip-unrelated-changes-on-labels",
        ),
        pytest.param(
            None,
            make_node("n", {"foo": "bar"}),
            make_node("n", {"k": "v"}),
            QueueingHint.QUEUE_SKIP,
            id="skip-labels-changes-on-node-from-suitable-to-unsuitable",
        ),
        pytest.param(
            None,
            make_node("n"),
            make_node("n", {"foo": "bar"}),
            QueueingHint.QUEUE,
            id="queue-on-labels-change-makes-pod-schedulable",
        ),
        pytest.param(
            ADDED_FOO_BAR,
            None,
            make_node("n"),
            QueueingHint.QUEUE_SKIP,
            id="skip-queue-on-add-scheduler-enforced-node-affinity",
        ),
        pytest.param(
            ADDED_FOO_BAR,
            None,
            make_node("n", {"foo": "bar"}),
            QueueingHint.QUEUE,
            id="queue-on-add-scheduler-enforced-node-affinity",
        ),
    ],
)
def test_only_a_node_that_comes_to_match_queues(args, old, new, expected):
    plugin = node_affinity.new(args, None)
    assert plugin.node_changed_hint(make_pod("p", affinity=FOO_BAR), old, new) is expected


def test_a_node_selector_map_and_a_kept_invalid_term_in_the_hint():
    plugin = node_affinity.new(None, None)
    selected = make_pod("p", node_selector={"zone": "b"})
    assert plugin.node_changed_hint(selected, None, make_node("n", {"zone": "a"})) is QueueingHint.QUEUE_SKIP
    assert plugin.node_changed_hint(selected, None, make_node("n", {"zone": "b"})) is QueueingHint.QUEUE
    # RequiredNodeAffinity.Match's parse error (an existing pod's invalid label value) makes the
    # hint queue, though the Filter never matches such a term.
    invalid = make_pod("p", affinity=required(term(("foo", "In", ["___@#$%^"]))))
    assert plugin.node_changed_hint(invalid, None, make_node("n")) is QueueingHint.QUEUE
    either = make_pod("p", affinity=required(term(("foo", "In", ["___@#$%^"])), term(("foo", "In", ["bar"]))))
    assert plugin.node_changed_hint(either, make_node("n"), make_node("n", {"foo": "bar"})) is QueueingHint.QUEUE
