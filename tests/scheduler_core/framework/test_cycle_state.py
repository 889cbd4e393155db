"""framework/cycle_state.py: typed keys written once and read many times, and clones that do not
share what a plugin may change (preemption's dry runs)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from scheduler_core.framework.cycle_state import CycleState, StateKey, StateNotFound


@dataclass
class Counter:
    count: int
    clones: int = 0

    def clone(self) -> "Counter":
        return Counter(self.count, self.clones + 1)


COUNTER = StateKey[Counter]("PreFilterCounter")
NAMES = StateKey[list]("PreFilterNames")


def test_it_reads_what_was_written_under_the_same_key():
    state = CycleState()
    state.write(COUNTER, Counter(3))
    assert state.read(COUNTER) == Counter(3)
    assert state.read_optional(NAMES) is None


def test_reading_a_key_never_written_names_it():
    with pytest.raises(StateNotFound, match="error reading 'PreFilterNames' from cycleState: not found"):
        CycleState().read(NAMES)


def test_a_clone_uses_the_values_own_clone_or_a_deep_copy_and_copies_the_skips():
    state = CycleState()
    state.write(COUNTER, Counter(3))
    state.write(NAMES, ["a"])
    state.skip_filter_plugins.add("NodePorts")
    copy = state.clone()
    copy.read(COUNTER).count += 1
    copy.read(NAMES).append("b")
    copy.skip_filter_plugins.add("NodeAffinity")
    assert (state.read(COUNTER), state.read(NAMES)) == (Counter(3), ["a"])
    assert copy.read(COUNTER) == Counter(4, clones=1)
    assert (state.skip_filter_plugins, copy.skip_filter_plugins) == ({"NodePorts"}, {"NodePorts", "NodeAffinity"})
