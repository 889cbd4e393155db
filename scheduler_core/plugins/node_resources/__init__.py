"""NodeResourcesFit and NodeResourcesBalancedAllocation, with their shared allocation scoring.

fit.py                          Filter on free resources, Score by the configured strategy
balanced_allocation.py          Score by how evenly the node's resources would be used
resource_allocation.py          (allocatable, requested) per resource, shared by both
least_allocated.py / most_allocated.py / requested_to_capacity_ratio.py   Fit's strategies
resource_names.py               which resource names are extended / scalar
"""

from scheduler_core.plugins.node_resources.balanced_allocation import new_balanced_allocation
from scheduler_core.plugins.node_resources.fit import new_fit

__all__ = ["new_fit", "new_balanced_allocation"]
