"""A run's events from a forked engine process, read back typed in the process that stores them.

The run a user waits for is the engine and, in the same stream, storing what it says (the web app's
columnar segments, their writes, the watchers told): in one process they take turns, and storing a
5,000-node attempt costs about what scheduling it does. ``events_in_child`` forks: the child runs the
engine and hands each event over as it is emitted; the caller's process reads them back and stores
them meanwhile, on the machine's other core.

- ``process``: the fork, the frames through shared memory, the engine's errors and death, the
  child killed when the reader stops early;
- ``codec``: how an event is written and read back cheaply (node lists as positions, what repeats
  as ring slots, arrays as bytes, plugins' own objects as JSON with the encoder's callbacks marked).
"""

from scheduler_core.encoding.pipe.process import EngineProcessDied, can_fork, events_in_child

__all__ = ["EngineProcessDied", "can_fork", "events_in_child"]
