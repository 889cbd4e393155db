"""kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration -> model.SchedulerConfiguration (one
SchedulerConfig per profile), then validated by building each profile (framework/profile.py) from
the in-tree registry (plugins/registry.py) without a snapshot or a framework, so unknown plugins,
plugins enabled at points they do not extend, and bad args surface as scenario errors."""

from __future__ import annotations

import re
from typing import Any, Iterator, Optional

from scheduler_core.framework.profile import CONFIG_POINTS, ProfileError, build_profile
from scheduler_core.model import (
    DEFAULT_POD_INITIAL_BACKOFF_SECONDS,
    DEFAULT_POD_MAX_BACKOFF_SECONDS,
    PluginRef,
    PluginSet,
    SchedulerConfig,
    SchedulerConfiguration,
)
from scheduler_core.plugins.registry import in_tree_registry
from scheduler_core.release import Features
from scheduler_core.scenario.fields import INT32_MAX, INT64_MAX, Field
from scheduler_core.scenario.yamltree import YList, YMap

CONFIG_API_VERSION = "kubescheduler.config.k8s.io/v1"
DEFAULT_SCHEDULER = "default-scheduler"
_ARGS_TYPE_KEYS = ("apiVersion", "kind")
_PATH_PART = re.compile(r"([^.\[\]]+)|\[([^\]]*)\]")


def decode_config(obj: Field) -> SchedulerConfiguration:
    """v1 defaulting: no profiles means one default profile; a lone profile without a
    schedulerName is default-scheduler. A profile's percentageOfNodesToScore overrides the
    configuration's."""
    percentage = obj.get_optional_int("percentageOfNodesToScore", 0, 100)
    initial = obj.get_int("podInitialBackoffSeconds", DEFAULT_POD_INITIAL_BACKOFF_SECONDS, 1, INT64_MAX)
    maximum = obj.get_int("podMaxBackoffSeconds", DEFAULT_POD_MAX_BACKOFF_SECONDS, 1, INT64_MAX)
    if maximum < initial:
        obj.error_at(
            "podMaxBackoffSeconds",
            f"Invalid value: {maximum}: must be greater than or equal to PodInitialBackoffSeconds",
        )
    items = obj.get_list("profiles")
    profiles = [_profile(item, percentage, lone=len(items) == 1) for item in items]
    if not items:
        profiles = [SchedulerConfig(percentage, line=obj.line)]
    _check_unique_names(items, profiles)
    return SchedulerConfiguration(tuple(p for p in profiles if p is not None), initial, maximum, obj.line)


def _profile(item: Field, percentage: Optional[int], lone: bool) -> Optional[SchedulerConfig]:
    if not item.expect_map():
        return None
    own = item.get_optional_int("percentageOfNodesToScore", 0, 100)
    name_field = item.get("schedulerName")
    name = name_field.as_str() if name_field is not None else (DEFAULT_SCHEDULER if lone else "")
    if not name:
        item.error_at("schedulerName", "Required value")
    return SchedulerConfig(own if own is not None else percentage, name, _plugins(item), _plugin_args(item), item.line)


def _check_unique_names(items: list[Field], profiles: list[Optional[SchedulerConfig]]) -> None:
    first: dict[str, int] = {}
    for index, (item, profile) in enumerate(zip(items, profiles)):
        if profile is None or not profile.scheduler_name:
            continue
        if profile.scheduler_name in first:
            item.error_at(
                "schedulerName",
                f'Duplicate value: "{profile.scheduler_name}" '
                f"(profiles[{first[profile.scheduler_name]}].schedulerName)",
            )
        first.setdefault(profile.scheduler_name, index)


def _plugins(profile: Field) -> dict[str, PluginSet]:
    plugins = profile.get_map("plugins")
    if plugins is None:
        return {}
    sets: dict[str, PluginSet] = {}
    for point, field in plugins.entries():
        if point not in CONFIG_POINTS:
            field.error(f'unknown extension point "{point[:80]}"; known: {", ".join(CONFIG_POINTS)}')
            continue
        if field.value is None or not field.expect_map():
            continue
        sets[point] = PluginSet(_refs(field, "enabled"), _refs(field, "disabled"))
    return sets


def _refs(point: Field, key: str) -> tuple[PluginRef, ...]:
    refs = []
    for item, name in _named(point.get_list(key)):
        weight = item.get_optional_int("weight", 0, INT32_MAX)
        refs.append(PluginRef(name, weight))
    return tuple(refs)


def _plugin_args(profile: Field) -> dict[str, dict[str, Any]]:
    args: dict[str, dict[str, Any]] = {}
    for item, name in _named(profile.get_list("pluginConfig")):
        if name in args:
            item.error_at("name", f'Duplicate value: "{name}"')
            continue
        raw = item.get_map("args")
        args[name] = _strip_type_meta(raw, name) if raw is not None else {}
    return args


def _named(items: list[Field]) -> Iterator[tuple[Field, str]]:
    """The maps of a list with their ``name``; a map without one is flagged and skipped."""
    for item in items:
        if not item.expect_map():
            continue
        name = item.get_str("name")
        if not name:
            item.error_at("name", "Required value")
            continue
        yield item, name


def _strip_type_meta(raw: Field, plugin: str) -> dict[str, Any]:  # Any: the args as written (YAML)
    """Args may carry ``apiVersion``/``kind: <Plugin>Args`` as typed v1 args do; the parsers want the rest."""
    kind = raw.get("kind")
    if kind is not None and kind.as_str() != f"{plugin}Args":
        kind.error(f'expected "{plugin}Args", got "{str(kind.value)[:80]}"')
    return {k: v for k, v in raw.value.items() if k not in _ARGS_TYPE_KEYS}


# ---------------------------------------------------------------------- validation through profile.py


def validate_config(config: SchedulerConfiguration, obj: Field, features: Features) -> None:
    """build_profile is the single authority on plugins and args; map its problems to YAML lines.
    Every profile must also sort the queue the same way (validateCommonQueueSort): one queue serves
    them all. ``features``: the release replayed (its registry and default plugins)."""
    queue_sorts: list[tuple[str, ...]] = []
    registry = in_tree_registry(features)
    for index, profile in enumerate(config.profiles):
        try:
            built = build_profile(profile, None, registry, features)
        except ProfileError as err:
            for path, message in err.problems:
                field_path, line = _locate(obj, f"profiles[{index}].{path}")
                obj.ctx.error(field_path, line, message)
            continue
        sorter = built["queueSort"][0].name
        queue_sorts.append((sorter, repr(profile.plugin_args.get(sorter) or {})))
        if queue_sorts[0] != queue_sorts[-1]:
            field_path, line = _locate(obj, f"profiles[{index}].plugins.queueSort")
            obj.ctx.error(field_path, line, "must be the same for all profiles")


def _locate(obj: Field, path: str) -> tuple[str, Optional[int]]:
    """Resolve a profile path ("profiles[0].pluginConfig[NodeResourcesFit].args.x") to a YAML line:
    the deepest existing node along it. ``[Name]`` selects a pluginConfig entry by plugin name."""
    value: Any = obj.value
    line = obj.line
    for name, index in _PATH_PART.findall(path):
        value, found = _step(value, name or index)
        if not found:
            break
        line = found
    return path, line


def _step(value: Any, part: str) -> tuple[Any, Optional[int]]:
    if isinstance(value, YMap) and part in value:
        return value[part], value.lines.get(part)
    if isinstance(value, YList):
        if part.isdigit() and int(part) < len(value):
            return value[int(part)], value.lines[int(part)]
        for i, item in enumerate(value):
            if isinstance(item, YMap) and item.get("name") == part:
                return item, value.lines[i]
    return None, None
