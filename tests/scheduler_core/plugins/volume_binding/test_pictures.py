"""volume_binding/pictures.py: VolumeBinding's state as the pictures the explanations show."""

from __future__ import annotations

from scheduler_core.framework.storage import StorageState
from scheduler_core.plugins.volume_binding.binder import BindingInfo, DynamicProvision, PodVolumeClaims, PodVolumes
from scheduler_core.plugins.volume_binding.pictures import claims_picture, node_bindings_picture
from tests.scheduler_core.builders import make_claim, make_volume


def test_the_claims_picture_lists_bound_claims_and_the_candidates_of_delayed_ones():
    bound = make_claim("data", volume="pv-data")
    delayed = make_claim("scratch", storage_class="local")
    claims = PodVolumeClaims(
        bound=[bound],
        unbound_delay_binding=[delayed],
        volumes_by_class={
            "local": [make_volume("pv-1", storage_class="local"), make_volume("pv-2", storage_class="local")]
        },
    )
    assert claims_picture(claims, StorageState()) == {
        "boundClaims": [{"claim": "default/data", "volume": "pv-data"}],
        "delayedClaims": [{"claim": "default/scratch", "storageClass": "local", "candidateVolumes": ["pv-1", "pv-2"]}],
    }


def test_a_delayed_claim_of_a_class_without_volumes_has_no_candidates():
    claims = PodVolumeClaims(unbound_delay_binding=[make_claim("c", storage_class="fast")])
    assert claims_picture(claims, StorageState())["delayedClaims"][0]["candidateVolumes"] == []


def test_the_node_picture_lists_static_bindings_and_provisions():
    static = BindingInfo(make_claim("data", storage_class="local"), make_volume("pv-1", storage_class="local"))
    dynamic = DynamicProvision(make_claim("logs", storage_class="fast"))
    assert node_bindings_picture(PodVolumes([static], [dynamic]), all_bound=False) == {
        "allBound": False,
        "staticBindings": [{"claim": "default/data", "volume": "pv-1"}],
        "dynamicProvisions": [{"claim": "default/logs", "storageClass": "fast"}],
    }
    assert node_bindings_picture(PodVolumes(), all_bound=True) == {
        "allBound": True,
        "staticBindings": [],
        "dynamicProvisions": [],
    }
