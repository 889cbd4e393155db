"""InterPodAffinity: required pod (anti-)affinity at Filter, preferred terms at Score."""

from scheduler_core.plugins.inter_pod_affinity.args import InterPodAffinityArgs
from scheduler_core.plugins.inter_pod_affinity.plugin import InterPodAffinity, new

__all__ = ["InterPodAffinity", "InterPodAffinityArgs", "new"]
