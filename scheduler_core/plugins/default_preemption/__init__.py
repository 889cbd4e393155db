"""DefaultPreemption: which lower-priority pods would have to go for an unschedulable pod to fit."""

from scheduler_core.plugins.default_preemption.args import DefaultPreemptionArgs
from scheduler_core.plugins.default_preemption.plugin import DefaultPreemption, new

__all__ = ["DefaultPreemption", "DefaultPreemptionArgs", "new"]
