"""The in-tree registry (plugins/registry.go's NewInTreeRegistry): every plugin SchedLab runs, by name.

Each plugin module (or package, for the big ones) exposes its factory, ``new(args, handle)`` or,
for a plugin that reads the release's features, ``new(args, handle, features)`` — bound here to
the replay's ``Features`` as upstream's ``runtime.FactoryAdapter(fts, New)`` binds them. The
scheduler, the loop and configuration validation hand this registry to ``build_profile``; the
framework itself never imports a plugin.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional

from scheduler_core.model import names
from scheduler_core.framework.interfaces import Handle
from scheduler_core.framework.registry import PluginFactory, Registry
from scheduler_core.release import DEFAULT_RULES, Features
from scheduler_core.plugins import (
    default_binder,
    default_preemption,
    dynamic_resources,
    image_locality,
    inter_pod_affinity,
    node_affinity,
    node_declared_features,
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

FeaturedFactory = Callable[[Optional[Mapping[str, Any]], Handle, Features], Any]


def _adapted(features: Features, new: FeaturedFactory) -> PluginFactory:
    """runtime.FactoryAdapter: a factory that reads the release's features, as the registry's type."""

    def factory(args: Optional[Mapping[str, Any]], handle: Handle) -> Any:
        return new(args, handle, features)

    return factory


def in_tree_registry(features: Features = DEFAULT_RULES.features) -> Registry:
    """The registry of the release whose ``features`` are given; a fresh dict, so a caller may add
    or replace factories without touching another's."""
    registry: Registry = {
        names.SCHEDULING_GATES: scheduling_gates.new,
        names.PRIORITY_SORT: queue_sort.new,
        names.NODE_UNSCHEDULABLE: node_unschedulable.new,
        names.NODE_NAME: node_name.new,
        names.TAINT_TOLERATION: _adapted(features, taint_toleration.new),
        names.NODE_AFFINITY: node_affinity.new,
        names.NODE_PORTS: node_ports.new,
        names.NODE_RESOURCES_FIT: _adapted(features, node_resources.new_fit),
        names.NODE_RESOURCES_BALANCED_ALLOCATION: _adapted(features, node_resources.new_balanced_allocation),
        names.VOLUME_RESTRICTIONS: _adapted(features, volume_restrictions.new),
        names.NODE_VOLUME_LIMITS: node_volume_limits.new,
        names.VOLUME_BINDING: _adapted(features, volume_binding.new),
        names.VOLUME_ZONE: volume_zone.new,
        names.POD_TOPOLOGY_SPREAD: pod_topology_spread.new,
        names.INTER_POD_AFFINITY: inter_pod_affinity.new,
        names.DYNAMIC_RESOURCES: _adapted(features, dynamic_resources.new),
        names.DEFAULT_PREEMPTION: _adapted(features, default_preemption.new),
        names.IMAGE_LOCALITY: image_locality.new,
        names.DEFAULT_BINDER: default_binder.new,
    }
    if features.declared_features_plugin_registered or features.enable_node_declared_features:
        registry[names.NODE_DECLARED_FEATURES] = _adapted(features, node_declared_features.new)
    return registry
