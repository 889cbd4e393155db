"""DynamicResources: the plugin (plugin.py), a pod's claims and the queueing hints (claims.py),
its pictures (picture.py). The structured allocator and the CEL environment are in scheduler_core/dra/."""

from scheduler_core.plugins.dynamic_resources.plugin import (
    ERROR_STATE_NOT_FOUND,
    REASON_NO_CLAIMS_TO_DEALLOCATE,
    DynamicResources,
    new,
)

__all__ = ["DynamicResources", "new", "ERROR_STATE_NOT_FOUND", "REASON_NO_CLAIMS_TO_DEALLOCATE"]
