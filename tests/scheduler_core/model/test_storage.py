"""model/storage.py: a claim's class (the beta annotation first), when a claim counts as fully
bound, and the in-tree plugins a CSINode migrated."""

from __future__ import annotations

from scheduler_core.model.storage import ANN_BETA_STORAGE_CLASS, ANN_BIND_COMPLETED, CSINode, PersistentVolumeClaim


def test_a_claims_class_is_the_beta_annotation_before_the_field():
    assert PersistentVolumeClaim("default", "data", storage_class_name="fast").class_name == "fast"
    annotated = PersistentVolumeClaim(
        "default", "data", storage_class_name="fast", annotations={ANN_BETA_STORAGE_CLASS: "slow"}
    )
    assert annotated.class_name == "slow" and PersistentVolumeClaim("default", "x").class_name == ""


def test_a_claim_is_fully_bound_with_a_volume_and_the_bind_completed_annotation():
    assert not PersistentVolumeClaim("default", "d", volume_name="pv1").is_fully_bound
    assert PersistentVolumeClaim(
        "default", "d", volume_name="pv1", annotations={ANN_BIND_COMPLETED: "yes"}
    ).is_fully_bound


def test_a_csinode_lists_the_plugins_it_migrated():
    node = CSINode(
        "n1", annotations={"storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/gce-pd,kubernetes.io/aws-ebs"}
    )
    assert node.migrated_plugins == {"kubernetes.io/gce-pd", "kubernetes.io/aws-ebs"}
    assert CSINode("n2").migrated_plugins == frozenset()
