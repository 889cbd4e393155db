"""A registry: plugin name -> factory (framework/runtime/registry.go).

A factory takes the plugin's args (the raw ``pluginConfig`` mapping, or None for defaults) and the
framework handle, and returns the plugin. Args are parsed and validated by the plugin's own
``Args.parse``, which raises ``ArgsError`` (framework/args_errors.py) naming the field.

The framework imports no plugin: the in-tree registry is built in ``plugins/registry.py`` and handed
to ``build_profile`` by whoever builds a scheduler, as upstream's ``plugins/registry.go`` does.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional

from scheduler_core.framework.interfaces import Handle

PluginFactory = Callable[[Optional[Mapping[str, Any]], Handle], Any]

Registry = dict[str, PluginFactory]
