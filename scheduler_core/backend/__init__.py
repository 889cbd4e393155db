"""The scheduler's backend (pkg/scheduler/backend): the scheduling queue and the scheduler cache."""
