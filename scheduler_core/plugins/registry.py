"""The in-tree registry (plugins/registry.go's NewInTreeRegistry): every plugin of kube-scheduler
v1.35 that SchedLab runs, by name.

Each plugin module (or package, for the big ones) exposes ``new(args, handle)``, its factory. The
scheduler, the loop and configuration validation hand this registry to ``build_profile``; the
framework itself never imports a plugin.
"""

from __future__ import annotations

from scheduler_core.model import names
from scheduler_core.framework.registry import Registry
from scheduler_core.plugins import (
    default_binder,
    default_preemption,
    dynamic_resources,
    image_locality,
    inter_pod_affinity,
    node_affinity,
    node_name,
    node_ports,
    node_resources,
    node_unschedulable,
    node_volume_limits,
    pod_topology_spread,
    queue_sort,
    scheduling_gates,
    taint_toleration,
    volume_binding,
    volume_restrictions,
    volume_zone,
)

IN_TREE: Registry = {
    names.SCHEDULING_GATES: scheduling_gates.new,
    names.PRIORITY_SORT: queue_sort.new,
    names.NODE_UNSCHEDULABLE: node_unschedulable.new,
    names.NODE_NAME: node_name.new,
    names.TAINT_TOLERATION: taint_toleration.new,
    names.NODE_AFFINITY: node_affinity.new,
    names.NODE_PORTS: node_ports.new,
    names.NODE_RESOURCES_FIT: node_resources.new_fit,
    names.NODE_RESOURCES_BALANCED_ALLOCATION: node_resources.new_balanced_allocation,
    names.VOLUME_RESTRICTIONS: volume_restrictions.new,
    names.NODE_VOLUME_LIMITS: node_volume_limits.new,
    names.VOLUME_BINDING: volume_binding.new,
    names.VOLUME_ZONE: volume_zone.new,
    names.POD_TOPOLOGY_SPREAD: pod_topology_spread.new,
    names.INTER_POD_AFFINITY: inter_pod_affinity.new,
    names.DYNAMIC_RESOURCES: dynamic_resources.new,
    names.DEFAULT_PREEMPTION: default_preemption.new,
    names.IMAGE_LOCALITY: image_locality.new,
    names.DEFAULT_BINDER: default_binder.new,
}


def in_tree_registry() -> Registry:
    """A fresh copy, so a caller may add or replace factories without touching the others'."""
    return dict(IN_TREE)
