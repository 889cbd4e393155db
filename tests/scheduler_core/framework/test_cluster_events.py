"""ClusterEvent labels and matching (kube-scheduler/framework/types.go)."""

import pytest

from scheduler_core.framework.cluster_events import ActionType, ClusterEvent, EventResource

POD_DELETE = ClusterEvent(EventResource.POD, ActionType.DELETE)
NODE_TAINT = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_TAINT)


@pytest.mark.parametrize(
    "event, label",
    [
        pytest.param(POD_DELETE, "PodDelete", id="a pod deletion reads PodDelete"),
        pytest.param(NODE_TAINT, "NodeUpdateNodeTaint", id="a node taint update reads NodeUpdateNodeTaint"),
        pytest.param(
            ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD),
            "AssignedPodAdd",
            id="a bound pod added reads AssignedPodAdd",
        ),
        pytest.param(
            ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD | ActionType.UPDATE),
            "PersistentVolumeClaim",
            id="a combination of actions has no single label, as in Go",
        ),
        pytest.param(
            ClusterEvent(EventResource.WILDCARD, ActionType.ALL, "UnschedulableTimeout"),
            "UnschedulableTimeout",
            id="a custom label wins",
        ),
    ],
)
def test_it_labels_events_as_the_release_logs_them(event, label):
    assert event.label == label


@pytest.mark.parametrize(
    "event, registered, matches",
    [
        pytest.param(POD_DELETE, ClusterEvent(EventResource.POD, ActionType.ALL), True, id="All covers a delete"),
        pytest.param(
            NODE_TAINT, ClusterEvent(EventResource.NODE, ActionType.UPDATE), True, id="Update covers sub-updates"
        ),
        pytest.param(
            NODE_TAINT, ClusterEvent(EventResource.NODE, ActionType.ADD), False, id="Add does not cover an update"
        ),
        pytest.param(
            POD_DELETE, ClusterEvent(EventResource.NODE, ActionType.ALL), False, id="another resource never matches"
        ),
        pytest.param(
            POD_DELETE, ClusterEvent(EventResource.WILDCARD, ActionType.ALL), True, id="the wildcard matches all"
        ),
        pytest.param(
            ClusterEvent(EventResource.POD, ActionType.UPDATE),
            ClusterEvent(EventResource.POD, ActionType.DELETE | ActionType.UPDATE_POD_SCALE_DOWN),
            False,
            id="a general update does not match a registration of one specific update",
        ),
        pytest.param(
            ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD),
            ClusterEvent(EventResource.POD, ActionType.ALL),
            True,
            id="a bound pod's event matches a Pod registration",
        ),
        pytest.param(
            ClusterEvent(EventResource.UNSCHEDULABLE_POD, ActionType.DELETE),
            ClusterEvent(EventResource.POD, ActionType.DELETE),
            True,
            id="so does a pending pod's",
        ),
        pytest.param(
            ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCALE_DOWN),
            ClusterEvent(EventResource.POD, ActionType.DELETE | ActionType.UPDATE_POD_SCALE_DOWN),
            True,
            id="the specific update matches its registration",
        ),
    ],
)
def test_a_registration_covers_the_events_it_names(event, registered, matches):
    assert event.matches(registered) is matches
