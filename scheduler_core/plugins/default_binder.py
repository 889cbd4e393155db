"""DefaultBinder (defaultbinder): binds the pod to the chosen node.

The real plugin posts a Binding to the API server. Here the scheduler assumes the pod into the
snapshot itself; Bind records the node on the pod and succeeds.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Optional

from scheduler_core.model import names
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import Handle
from scheduler_core.framework.status import MaybeStatus
from scheduler_core.model import Pod


class DefaultBinder:
    name: ClassVar[str] = names.DEFAULT_BINDER

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> MaybeStatus:
        pod.node_name = node_name
        return None


def new(args: Optional[Mapping[str, Any]], handle: Handle) -> DefaultBinder:
    return DefaultBinder()
