"""A scheduling profile built from KubeSchedulerConfiguration, as the release defaults and expands it.

Mirrors three steps of kube-scheduler: the v1 defaulting that merges the user's plugin sets into
the default MultiPoint set (``mergePluginSet``), the framework's MultiPoint expansion with its
ordering rule (explicit overrides, then MultiPoint plugins, then the rest), and score weights
(a point-specific weight wins over MultiPoint's; an unset weight counts as 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence, TypeVar

from scheduler_core.model import names
from scheduler_core.framework.args_errors import ArgsError
from scheduler_core.framework.capabilities import Capabilities
from scheduler_core.framework.interfaces import (
    BindPlugin,
    FilterPlugin,
    PermitPlugin,
    PostBindPlugin,
    PostFilterPlugin,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    PreScorePlugin,
    QueueSortPlugin,
    ReservePlugin,
    ScorePlugin,
)
from scheduler_core.framework.registry import Registry
from scheduler_core.model import PluginRef, PluginSet, SchedulerConfig
from scheduler_core.release import DEFAULT_RULES, Features

# (config field, the protocol a plugin at that extension point implements), in the framework's order.
EXTENSION_POINTS: tuple[tuple[str, type], ...] = (
    ("preEnqueue", PreEnqueuePlugin),
    ("queueSort", QueueSortPlugin),
    ("preFilter", PreFilterPlugin),
    ("filter", FilterPlugin),
    ("postFilter", PostFilterPlugin),
    ("preScore", PreScorePlugin),
    ("score", ScorePlugin),
    ("reserve", ReservePlugin),
    ("permit", PermitPlugin),
    ("preBind", PreBindPlugin),
    ("bind", BindPlugin),
    ("postBind", PostBindPlugin),
)
CONFIG_POINTS = ("multiPoint",) + tuple(point for point, _ in EXTENSION_POINTS)

# getDefaultPlugins() before applyFeatureGates (the same in every supported release).
BASE_MULTI_POINT: tuple[PluginRef, ...] = (
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
    PluginRef(names.DEFAULT_PREEMPTION),
    PluginRef(names.NODE_RESOURCES_BALANCED_ALLOCATION, 1),
    PluginRef(names.IMAGE_LOCALITY, 1),
    PluginRef(names.DEFAULT_BINDER),
)


def default_multi_point(features: Features) -> tuple[PluginRef, ...]:
    """getDefaultPlugins with applyFeatureGates: NodeDeclaredFeatures last when its gate is on (on
    by default from v1.36); DynamicResources just before DefaultPreemption when
    DynamicResourceAllocation is on (weight 2 once it scores, v1.35 on), so that PostFilter frees
    an idle claim before preempting a pod."""
    plugins = list(BASE_MULTI_POINT)
    if features.enable_node_declared_features:
        plugins.append(PluginRef(names.NODE_DECLARED_FEATURES))
    if features.enable_dynamic_resource_allocation:
        weight = 2 if features.dynamic_resources_scores else None
        plugins.insert(plugins.index(PluginRef(names.DEFAULT_PREEMPTION)), PluginRef(names.DYNAMIC_RESOURCES, weight))
    return tuple(plugins)


# The default profile of the default release (tests and documentation read it).
DEFAULT_MULTI_POINT: tuple[PluginRef, ...] = default_multi_point(DEFAULT_RULES.features)

# No configuration = the release's defaults exactly (../shared/spec/SCENARIO_AND_TRACE.md): v1's
# percentageOfNodesToScore defaults to 0, the adaptive share of numFeasibleNodesToFind (every node
# below 100 nodes; above, 50 % minus 1 % per 125 nodes, at least 5 % and 100 nodes).
DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE = 0


class ProfileError(ValueError):
    """The configuration cannot make a profile; ``problems`` are (field path within the profile,
    message) pairs ("plugins.score.enabled", ...)."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{path}: {msg}" for path, msg in problems))
        self.problems = problems


@dataclass
class Profile:
    """One typed list per extension point (plugins in run order), checked when the profile is made
    (``Profile.of``), and what the plugins offer beside the points (``capabilities``), found once."""

    pre_enqueue: list[PreEnqueuePlugin]
    queue_sort: list[QueueSortPlugin]
    pre_filter: list[PreFilterPlugin]
    filter: list[FilterPlugin]
    post_filter: list[PostFilterPlugin]
    pre_score: list[PreScorePlugin]
    score: list[ScorePlugin]
    reserve: list[ReservePlugin]
    permit: list[PermitPlugin]
    pre_bind: list[PreBindPlugin]
    bind: list[BindPlugin]
    post_bind: list[PostBindPlugin]
    weights: dict[str, int]  # score plugin -> weight
    percentage_of_nodes_to_score: Optional[int]
    instances: dict[str, Any]  # every plugin of the profile by name, whatever its points
    capabilities: Capabilities = field(init=False)
    _by_point: dict[str, Sequence[object]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.capabilities = Capabilities.of(self.instances)
        self._by_point = {
            "preEnqueue": self.pre_enqueue,
            "queueSort": self.queue_sort,
            "preFilter": self.pre_filter,
            "filter": self.filter,
            "postFilter": self.post_filter,
            "preScore": self.pre_score,
            "score": self.score,
            "reserve": self.reserve,
            "permit": self.permit,
            "preBind": self.pre_bind,
            "bind": self.bind,
            "postBind": self.post_bind,
        }

    @classmethod
    def of(
        cls,
        points: Mapping[str, Sequence[object]],
        weights: dict[str, int],
        percentage_of_nodes_to_score: Optional[int],
        instances: Optional[dict[str, Any]] = None,
    ) -> "Profile":
        """A profile from plugin lists by configuration point name ("filter", "preScore", ...).
        Raises ProfileError when a plugin does not implement its point's protocol or a point is
        unknown. Without ``instances``, the profile's plugins are those of the points."""
        problems = [
            (f"plugins.{point}", f'unknown extension point "{point}"') for point in points if point not in _PROTOCOLS
        ]
        profile = cls(
            _typed(points, "preEnqueue", PreEnqueuePlugin, problems),
            _typed(points, "queueSort", QueueSortPlugin, problems),
            _typed(points, "preFilter", PreFilterPlugin, problems),
            _typed(points, "filter", FilterPlugin, problems),
            _typed(points, "postFilter", PostFilterPlugin, problems),
            _typed(points, "preScore", PreScorePlugin, problems),
            _typed(points, "score", ScorePlugin, problems),
            _typed(points, "reserve", ReservePlugin, problems),
            _typed(points, "permit", PermitPlugin, problems),
            _typed(points, "preBind", PreBindPlugin, problems),
            _typed(points, "bind", BindPlugin, problems),
            _typed(points, "postBind", PostBindPlugin, problems),
            weights,
            percentage_of_nodes_to_score,
            instances if instances is not None else {_name(p): p for plugins in points.values() for p in plugins},
        )
        if problems:
            raise ProfileError(problems)
        return profile

    def __getitem__(self, point: str) -> Sequence[Any]:
        """The plugins at a point by its configuration name ("queueSort", "preFilter", ...)."""
        return self._by_point.get(point, ())


_PROTOCOLS: dict[str, type] = dict(EXTENSION_POINTS)
PluginT = TypeVar("PluginT")


def _typed(
    points: Mapping[str, Sequence[object]], point: str, protocol: type[PluginT], problems: list[tuple[str, str]]
) -> list[PluginT]:
    typed: list[PluginT] = []
    for plugin in points.get(point, ()):
        if isinstance(plugin, protocol):
            typed.append(plugin)
        else:
            problems.append((f"plugins.{point}.enabled", f'plugin "{_name(plugin)}" does not extend {point}'))
    return typed


def _name(plugin: object) -> str:
    name = getattr(plugin, "name", None)  # a plugin that is none of the protocols may lack it
    return name if isinstance(name, str) else type(plugin).__name__


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


def merged_plugin_sets(
    config: Optional[SchedulerConfig], features: Features = DEFAULT_RULES.features
) -> dict[str, PluginSet]:
    custom = config.plugins if config else {}
    defaults = {point: PluginSet() for point in CONFIG_POINTS}
    defaults["multiPoint"] = PluginSet(default_multi_point(features))
    return {point: merge_plugin_set(defaults[point], custom.get(point, PluginSet())) for point in CONFIG_POINTS}


def _expand_point(
    point_set: PluginSet,
    multi_point: PluginSet,
    protocol: type,
    instances: dict[str, Any],
    problems: list[tuple[str, str]],
    point: str,
) -> list[str]:
    """framework.expandMultiPointPlugins for one extension point: returns plugin names in order."""
    enabled = [p.name for p in point_set.enabled]
    disabled = {p.name for p in point_set.disabled}
    if "*" in disabled:
        return enabled
    overrides: list[str] = []
    from_multi: list[str] = []
    for ref in multi_point.enabled:
        if not isinstance(instances[ref.name], protocol) or ref.name in disabled:
            continue
        if ref.name in enabled:
            overrides.append(ref.name)
            continue
        if ref.name in from_multi:
            problems.append(("plugins.multiPoint", f'plugin "{ref.name}" already registered as "{point}"'))
            continue
        from_multi.append(ref.name)
    first = [name for name in enabled if name in overrides]
    rest = [name for name in enabled if name not in overrides]
    return first + from_multi + rest


def _score_weights(sets: dict[str, PluginSet], instances: dict[str, Any]) -> dict[str, int]:
    weights: dict[str, int] = {}
    for ref in (*sets["score"].enabled, *sets["multiPoint"].enabled):
        if ref.name in weights or not isinstance(instances[ref.name], ScorePlugin):
            continue
        weights[ref.name] = ref.weight or 1
    return weights


def build_profile(
    config: Optional[SchedulerConfig], handle: Any, registry: Registry, features: Features = DEFAULT_RULES.features
) -> Profile:
    """The profile ``config`` makes with the plugins of ``registry`` (the in-tree one is
    plugins/registry.py's ``in_tree_registry(features)``, handed in by the caller), over the
    default plugins of the release whose ``features`` are given."""
    sets = merged_plugin_sets(config, features)
    problems: list[tuple[str, str]] = []
    instances = _instantiate(sets, config, handle, registry, problems)
    if problems:
        raise ProfileError(problems)
    plugins: dict[str, list[Any]] = {}
    for point, protocol in EXTENSION_POINTS:
        order = _expand_point(sets[point], sets["multiPoint"], protocol, instances, problems, point)
        for name in order:
            if not isinstance(instances[name], protocol):
                problems.append((f"plugins.{point}.enabled", f'plugin "{name}" does not extend {point}'))
        seen: set[str] = set()
        for name in order:
            if name in seen:
                problems.append((f"plugins.{point}.enabled", f'plugin "{name}" already registered as "{point}"'))
            seen.add(name)
        plugins[point] = [instances[name] for name in order if isinstance(instances[name], protocol)]
    _check_required_points(plugins, problems)
    if problems:
        raise ProfileError(problems)
    if config is None:
        percentage = DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE
    else:  # a configuration without the field gets v1's default too
        percentage = config.percentage_of_nodes_to_score or DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE
    return Profile.of(plugins, _score_weights(sets, instances), percentage, instances)


def _instantiate(
    sets: dict[str, PluginSet],
    config: Optional[SchedulerConfig],
    handle: Any,
    registry: Registry,
    problems: list[tuple[str, str]],
) -> dict[str, Any]:
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
