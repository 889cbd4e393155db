"""scheduler_core.framework.filter_facts: each fact says what its plugin compared, in words and JSON."""

from scheduler_core.framework.filter_facts import LabelFact, ResourceFact, SpreadFact, TaintFact


def test_it_shows_bytes_with_binary_units_and_counts_as_counts():
    memory = ResourceFact("Insufficient memory", "memory", 3 << 30, 6 << 30, 8 << 30, 4)
    assert memory.text == "memory: asks 3Gi; free 2Gi of 8Gi allocatable (6Gi requested by 4 pod(s))"
    gpus = ResourceFact("Insufficient nvidia.com/gpu", "nvidia.com/gpu", 5, 0, 4, 0)
    assert gpus.text == "nvidia.com/gpu: asks 5; free 4 of 4 allocatable (0 requested by 0 pod(s))"
    assert gpus.to_json()["free"] == 4


def test_it_gives_the_skew_the_constraint_compared():
    fact = SpreadFact("node(s) didn't match pod topology spread constraints", "zone", "zoneA", 3, 1, 1, 1)
    assert (fact.skew, fact.text) == (
        3,
        "zone=zoneA: 3 matching pod(s) + 1 (this pod) − minimum 1 = skew 3 > maxSkew 1",
    )
    missing = SpreadFact("x", "zone", None, 0, 0, 0, 1)
    assert missing.text == "the node has no zone label"


def test_it_writes_taints_and_labels_as_kubectl_shows_them():
    assert TaintFact("r", "gpu", "", "NoSchedule").text == "untolerated taint gpu:NoSchedule"
    assert (
        LabelFact("r", "required term 2", "zone", "NotIn", ("a", "b"), None).text
        == "required term 2 wants zone NotIn (a, b); the node has no zone label"
    )
    assert "matches no node" in LabelFact("r", "required term 1", "metadata.name", "In", ("n1", "n2"), "n1", True).text
