"""A scheduling profile built from KubeSchedulerConfiguration, as v1.35 defaults and expands it.

Mirrors three steps of kube-scheduler: the v1 defaulting that merges the user's plugin sets into
the default MultiPoint set (``mergePluginSet``), the framework's MultiPoint expansion with its
ordering rule (explicit overrides, then MultiPoint plugins, then the rest), and score weights
(a point-specific weight wins over MultiPoint's; an unset weight counts as 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from scheduler_core import names
from scheduler_core.framework.args_errors import ArgsError
from scheduler_core.framework.registry import Registry
from scheduler_core.model import PluginRef, PluginSet, SchedulerConfig

# (config field, plugin method that marks the extension point), in the framework's order.
EXTENSION_POINTS: tuple[tuple[str, str], ...] = (
    ("preEnqueue", "pre_enqueue"),
    ("queueSort", "less"),
    ("preFilter", "pre_filter"),
    ("filter", "filter"),
    ("postFilter", "post_filter"),
    ("preScore", "pre_score"),
    ("score", "score"),
    ("reserve", "reserve"),
    ("permit", "permit"),
    ("preBind", "pre_bind"),
    ("bind", "bind"),
    ("postBind", "post_bind"),
)
CONFIG_POINTS = ("multiPoint",) + tuple(point for point, _ in EXTENSION_POINTS)

# getDefaultPlugins() of v1.35 with DynamicResources (GA) in place.
DEFAULT_MULTI_POINT: tuple[PluginRef, ...] = (
    PluginRef(names.SCHEDULING_GATES),
    PluginRef(names.PRIORITY_SORT),
    PluginRef(names.NODE_UNSCHEDULABLE),
    PluginRef(names.NODE_NAME),
    PluginRef(names.TAINT_TOLERATION, 3),
    PluginRef(names.NODE_AFFINITY, 2),
    PluginRef(names.NODE_PORTS),
    PluginRef(names.NODE_RESOURCES_FIT, 1),
    PluginRef(names.VOLUME_RESTRICTIONS),
    PluginRef(names.NODE_VOLUME_LIMITS),
    PluginRef(names.VOLUME_BINDING),
    PluginRef(names.VOLUME_ZONE),
    PluginRef(names.POD_TOPOLOGY_SPREAD, 2),
    PluginRef(names.INTER_POD_AFFINITY, 2),
    PluginRef(names.DYNAMIC_RESOURCES, 2),
    PluginRef(names.DEFAULT_PREEMPTION),
    PluginRef(names.NODE_RESOURCES_BALANCED_ALLOCATION, 1),
    PluginRef(names.IMAGE_LOCALITY, 1),
    PluginRef(names.DEFAULT_BINDER),
)

DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE = 100  # the spec's default when the scenario has no configuration


class ProfileError(ValueError):
    """The configuration cannot make a profile; ``problems`` are (field path within the profile,
    message) pairs ("plugins.score.enabled", ...)."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{path}: {msg}" for path, msg in problems))
        self.problems = problems


@dataclass
class Profile:
    plugins: dict[str, list[Any]]  # extension point -> plugin instances in run order
    weights: dict[str, int]  # score plugin -> weight
    percentage_of_nodes_to_score: Optional[int]
    instances: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, point: str) -> list[Any]:
        return self.plugins.get(point, [])


def merge_plugin_set(default: PluginSet, custom: PluginSet) -> PluginSet:
    """v1 defaulting's mergePluginSet: custom entries replace defaults in place or are appended."""
    disabled = tuple(PluginRef(p.name) for p in (*custom.disabled, *default.disabled))
    disabled_names = {p.name for p in disabled}
    custom_index = {p.name: (i, p) for i, p in enumerate(custom.enabled)}
    replaced: set[int] = set()
    enabled: list[PluginRef] = []
    if "*" not in disabled_names:
        for plugin in default.enabled:
            if plugin.name in disabled_names:
                continue
            if plugin.name in custom_index:
                index, plugin = custom_index[plugin.name]
                replaced.add(index)
            enabled.append(plugin)
    enabled.extend(p for i, p in enumerate(custom.enabled) if i not in replaced)
    return PluginSet(tuple(enabled), disabled)


def merged_plugin_sets(config: Optional[SchedulerConfig]) -> dict[str, PluginSet]:
    custom = config.plugins if config else {}
    defaults = {point: PluginSet() for point in CONFIG_POINTS}
    defaults["multiPoint"] = PluginSet(DEFAULT_MULTI_POINT)
    return {point: merge_plugin_set(defaults[point], custom.get(point, PluginSet())) for point in CONFIG_POINTS}


def _expand_point(point_set: PluginSet, multi_point: PluginSet, method: str, instances: dict[str, Any],
                  problems: list[tuple[str, str]], point: str) -> list[str]:
    """framework.expandMultiPointPlugins for one extension point: returns plugin names in order."""
    enabled = [p.name for p in point_set.enabled]
    disabled = {p.name for p in point_set.disabled}
    if "*" in disabled:
        return enabled
    overrides: list[str] = []
    from_multi: list[str] = []
    for ref in multi_point.enabled:
        if not hasattr(instances[ref.name], method) or ref.name in disabled:
            continue
        if ref.name in enabled:
            overrides.append(ref.name)
            continue
        if ref.name in from_multi:
            problems.append(("plugins.multiPoint",
                             f'plugin "{ref.name}" already registered as "{point}"'))
            continue
        from_multi.append(ref.name)
    first = [name for name in enabled if name in overrides]
    rest = [name for name in enabled if name not in overrides]
    return first + from_multi + rest


def _score_weights(sets: dict[str, PluginSet], instances: dict[str, Any]) -> dict[str, int]:
    weights: dict[str, int] = {}
    for ref in (*sets["score"].enabled, *sets["multiPoint"].enabled):
        if ref.name in weights or not hasattr(instances[ref.name], "score"):
            continue
        weights[ref.name] = ref.weight or 1
    return weights


def build_profile(config: Optional[SchedulerConfig], handle: Any, registry: Registry) -> Profile:
    """The profile ``config`` makes with the plugins of ``registry`` (the in-tree one is
    plugins/registry.py's ``in_tree_registry()``, handed in by the caller)."""
    sets = merged_plugin_sets(config)
    problems: list[tuple[str, str]] = []
    instances = _instantiate(sets, config, handle, registry, problems)
    if problems:
        raise ProfileError(problems)
    plugins: dict[str, list[Any]] = {}
    for point, method in EXTENSION_POINTS:
        order = _expand_point(sets[point], sets["multiPoint"], method, instances, problems, point)
        for name in order:
            if not hasattr(instances[name], method):
                problems.append((f"plugins.{point}.enabled",
                                 f'plugin "{name}" does not extend {point}'))
        seen: set[str] = set()
        for name in order:
            if name in seen:
                problems.append((f"plugins.{point}.enabled",
                                 f'plugin "{name}" already registered as "{point}"'))
            seen.add(name)
        plugins[point] = [instances[name] for name in order if hasattr(instances[name], method)]
    _check_required_points(plugins, problems)
    if problems:
        raise ProfileError(problems)
    if config is None:
        percentage = DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE
    else:  # a configuration without the field gets v1's default, 0: adaptive
        percentage = config.percentage_of_nodes_to_score or 0
    return Profile(plugins, _score_weights(sets, instances), percentage, instances)


def _instantiate(sets: dict[str, PluginSet], config: Optional[SchedulerConfig], handle: Any,
                 registry: Registry, problems: list[tuple[str, str]]) -> dict[str, Any]:
    needed: list[str] = []
    for point in CONFIG_POINTS:
        for ref in sets[point].enabled:
            if ref.name not in needed:
                needed.append(ref.name)
    args = config.plugin_args if config else {}
    for name in args:
        if name not in registry:
            problems.append(("pluginConfig", f'unknown plugin "{name}"'))
    instances: dict[str, Any] = {}
    for name in needed:
        factory = registry.get(name)
        if factory is None:
            problems.append(("plugins", f'unknown plugin "{name}"'))
            continue
        try:
            instances[name] = factory(args.get(name), handle)
        except ArgsError as err:
            problems.extend((f"pluginConfig[{name}].args.{p.path}", p.message) for p in err.problems)
    return instances


def _check_required_points(plugins: dict[str, list[Any]], problems: list[tuple[str, str]]) -> None:
    if len(plugins["queueSort"]) != 1:
        problems.append(("plugins.queueSort", "exactly one queue sort plugin must be enabled"))
    if not plugins["bind"]:
        problems.append(("plugins.bind", "at least one bind plugin is needed"))
