"""VolumeBinding: claims against volumes and provisioning, per node, and the binding steps."""

from scheduler_core.plugins.volume_binding.args import VolumeBindingArgs
from scheduler_core.plugins.volume_binding.plugin import VolumeBinding, new

__all__ = ["VolumeBinding", "VolumeBindingArgs", "new"]
