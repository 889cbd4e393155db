"""kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration -> model.SchedulerConfig, then validated
by building the profile (framework/profile.py), so unknown plugins and bad args surface as scenario errors."""

from __future__ import annotations

import re
from typing import Any, Optional

from scheduler_core.framework.profile import CONFIG_POINTS, ProfileError, build_profile
from scheduler_core.model import PluginRef, PluginSet, SchedulerConfig
from scheduler_core.scenario.fields import INT32_MAX, Field
from scheduler_core.scenario.yamltree import YList, YMap

CONFIG_API_VERSION = "kubescheduler.config.k8s.io/v1"
DEFAULT_SCHEDULER = "default-scheduler"
_ARGS_TYPE_KEYS = ("apiVersion", "kind")
_PATH_PART = re.compile(r"([^.\[\]]+)|\[([^\]]*)\]")


def decode_config(obj: Field) -> SchedulerConfig:
    percentage = obj.get_optional_int("percentageOfNodesToScore", 0, 100)
    profiles = obj.get_list("profiles")
    if len(profiles) > 1:
        obj.error_at("profiles", f"exactly one profile is supported, got {len(profiles)}")
    profile = profiles[0] if profiles else None
    if profile is None or not profile.expect_map():
        return SchedulerConfig(percentage, line=obj.line)
    scheduler_name = profile.get_str("schedulerName") or DEFAULT_SCHEDULER
    return SchedulerConfig(percentage, scheduler_name, _plugins(profile), _plugin_args(profile), obj.line)


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
    for item in point.get_list(key):
        if not item.expect_map():
            continue
        name = item.get_str("name")
        if not name:
            item.error_at("name", "Required value")
            continue
        weight = item.get_optional_int("weight", 0, INT32_MAX)
        refs.append(PluginRef(name, weight))
    return tuple(refs)


def _plugin_args(profile: Field) -> dict[str, dict]:
    args: dict[str, dict] = {}
    for item in profile.get_list("pluginConfig"):
        if not item.expect_map():
            continue
        name = item.get_str("name")
        if not name:
            item.error_at("name", "Required value")
            continue
        if name in args:
            item.error_at("name", f'Duplicate value: "{name}"')
            continue
        raw = item.get_map("args")
        args[name] = _strip_type_meta(raw, name) if raw is not None else {}
    return args


def _strip_type_meta(raw: Field, plugin: str) -> dict:
    """Args may carry ``apiVersion``/``kind: <Plugin>Args`` as typed v1 args do; the parsers want the rest."""
    kind = raw.get("kind")
    if kind is not None and kind.as_str() != f"{plugin}Args":
        kind.error(f'expected "{plugin}Args", got "{str(kind.value)[:80]}"')
    return {k: v for k, v in raw.value.items() if k not in _ARGS_TYPE_KEYS}


# ---------------------------------------------------------------------- validation through profile.py


def validate_config(config: SchedulerConfig, obj: Field) -> None:
    """build_profile is the single authority on plugins and args; map its problems to YAML lines."""
    try:
        build_profile(config, None)
    except ProfileError as err:
        for path, message in err.problems:
            field_path, line = _locate(obj, path)
            obj.ctx.error(field_path, line, message)


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
