"""PodTopologySpread: spread pods evenly over topology domains (hard at Filter, soft at Score)."""

from scheduler_core.plugins.pod_topology_spread.args import PodTopologySpreadArgs
from scheduler_core.plugins.pod_topology_spread.plugin import PodTopologySpread, new

__all__ = ["PodTopologySpread", "PodTopologySpreadArgs", "new"]
