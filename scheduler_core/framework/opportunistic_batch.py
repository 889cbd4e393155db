"""OpportunisticBatching (framework/runtime/batch.go; feature gate on by default in v1.35).

When a pod fills the node it was given, the next pod with the same signature would, in a fresh
cycle, get the rest of the same sorted list: the scheduler keeps the scored nodes of the last cycle
and hands the next compatible pod their head as a *hint*. The cycle then tries that node alone
(as it tries a nominated node) and, if it fits, takes it without looking at any other node,
scoring or advancing the rotating start index.

The hint is only given when it is safe: consecutive scheduling cycles of the same profile, the
previous one placed its pod, the signatures are equal (``signers``), the list is younger than
500 ms on the scheduler's clock, and the previous pod's node now *rejects* the new pod (were it
still feasible, its new score is unknown and the list says nothing). With the default profile no
pod is ever signable: PodTopologySpread's system default constraints make every pod depend on
where earlier pods went. Only a profile that drops them (``defaultingType: List``, or the plugin
disabled) batches.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from scheduler_core.framework.signers import Signature

MAX_BATCH_AGE_MS = 500


@dataclass(slots=True)
class BatchState:
    signature: Signature
    sorted_nodes: list[str]  # the feasible nodes the last full cycle scored, best first, its pick removed
    created_ms: int


@dataclass(slots=True)
class LastCycle:
    cycle_count: int = 0
    chosen_node: str = ""
    succeeded: bool = False


@dataclass(slots=True)
class OpportunisticBatch:
    state: Optional[BatchState] = None
    last_cycle: LastCycle = field(default_factory=LastCycle)
    batched_pods: int = 0  # hints that were taken (the release counts them too)

    def node_hint(
        self, signature: Optional[Signature], cycle_count: int, now_ms: int, rejects: Callable[[str], bool]
    ) -> Optional[str]:
        """GetNodeHint: the head of the kept list, popped, when the state fits this pod; else None.

        ``rejects(node)`` runs the Filter plugins on that node for this pod (without nominated pods)
        and says whether they rejected it. An unusable state is not thrown away here: the cycle's
        own results replace it when they are stored.
        """
        state = self.state
        if state is None or not self._compatible(signature, cycle_count, now_ms, rejects):
            return None
        return state.sorted_nodes.pop(0)

    def _compatible(
        self, signature: Optional[Signature], cycle_count: int, now_ms: int, rejects: Callable[[str], bool]
    ) -> bool:
        state = self.state
        if state is None or not state.sorted_nodes:
            return False
        if cycle_count != self.last_cycle.cycle_count + 1:  # another profile's pod came between
            return False
        if not self.last_cycle.succeeded:
            return False
        if signature is None or signature != state.signature:
            return False
        if now_ms > state.created_ms + MAX_BATCH_AGE_MS:
            return False
        # Only when the last pod's node cannot take this one is the next node in the list this
        # pod's best (a node still feasible would need rescoring: it could stay the best).
        return rejects(self.last_cycle.chosen_node)

    def store(
        self,
        signature: Optional[Signature],
        hinted_node: Optional[str],
        chosen_node: str,
        other_nodes: Optional[list[str]],
        cycle_count: int,
        now_ms: int,
    ) -> None:
        """StoreScheduleResults: remember this cycle; keep the list when its hint was taken, else
        keep this cycle's own sorted nodes (none when the pod is unsignable or nothing is left)."""
        self.last_cycle = LastCycle(cycle_count, chosen_node, True)
        if hinted_node is not None and hinted_node == chosen_node:
            self.batched_pods += 1
            return
        if signature is not None and other_nodes:
            self.state = BatchState(signature, other_nodes, now_ms)
        else:
            self.state = None
