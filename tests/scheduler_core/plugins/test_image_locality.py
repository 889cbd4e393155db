import pytest

from scheduler_core.model import Container, ContainerImage
from scheduler_core.plugins import image_locality
from tests.scheduler_core.builders import FakeHandle, make_node, make_pod, make_snapshot
from tests.scheduler_core.plugins.scoring import run_scoring

MB = 1024 * 1024


def node_with_images(name, *images):
    return make_node(name, images=tuple(ContainerImage((n,), size) for n, size in images))


@pytest.mark.parametrize(
    "image_name, expected",
    [
        pytest.param("nginx", "nginx:latest", id="an untagged image means latest"),
        pytest.param("nginx:1.25", "nginx:1.25", id="a tagged image is kept"),
        pytest.param("registry:5000/app", "registry:5000/app:latest", id="a registry port is not a tag"),
        pytest.param("app@sha256:abc", "app@sha256:abc", id="a digest is kept"),
    ],
)
def test_normalized_image_name(image_name, expected):
    assert image_locality.normalized_image_name(image_name) == expected


@pytest.mark.parametrize(
    "containers, raw",
    [
        pytest.param(
            [Container("c", image="big:1")],
            [31, 0, 0],
            id="an image on one node of three counts a third of its size, above the 23MB floor",
        ),
        pytest.param(
            [Container("c", image="shared")],
            [0, 0, 0],
            id="an image name without a tag matches the node's latest tag, but small images score 0",
        ),
        pytest.param(
            [Container("c", image="big:1"), Container("d", image="other")],
            [15, 0, 0],
            id="the threshold grows with the number of containers",
        ),
        pytest.param([Container("c", image="absent")], [0, 0, 0], id="no image present scores 0"),
    ],
)
def test_image_locality_scores_present_images(containers, raw):
    nodes = [
        node_with_images("n1", ("big:1", 1000 * MB), ("shared:latest", 30 * MB)),
        node_with_images("n2", ("shared:latest", 30 * MB)),
        make_node("n3"),
    ]
    snapshot = make_snapshot(nodes)
    plugin = image_locality.new(None, FakeHandle(snapshot))
    pod = make_pod("p", containers=tuple(containers))
    assert run_scoring(plugin, pod, snapshot.node_infos) == (None, raw, raw)


def test_image_locality_has_no_pre_score():
    assert not hasattr(image_locality.new(None, None), "pre_score")


def score_image(nodes, image):
    snapshot = make_snapshot(nodes)
    plugin = image_locality.new(None, FakeHandle(snapshot))
    return run_scoring(plugin, make_pod("p", containers=(Container("c", image=image),)), snapshot.node_infos)[1]


def test_an_image_name_keeps_the_size_the_first_node_reported_on_every_node():
    # The scheduler cache keeps one summary per image name: a later node listing the name with
    # another size only joins it. 300MB on 2 of 3 nodes: 200MB -> (200-23)*100/977 = 18 on both
    # (the real kube-scheduler's figures; n2's own 900MB would give 59).
    nodes = [node_with_images("n1", ("app:1", 300 * MB)), node_with_images("n2", ("app:1", 900 * MB)), make_node("n3")]
    assert score_image(nodes, "app:1") == [18, 18, 0]


def test_a_node_listing_an_image_name_twice_counts_once_with_the_first_size():
    nodes = [node_with_images("n1", ("app:1", 300 * MB), ("app:1", 900 * MB)), make_node("n2"), make_node("n3")]
    assert score_image(nodes, "app:1") == [7, 0, 0]  # 300MB on 1 of 3 nodes: 100MB -> 7
