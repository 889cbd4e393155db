"""Running the scheduler: one pod's attempt (`schedule_one`: the cycles, ScheduleOne and its failure
handler, the single pass), the scheduler process (`kube_scheduler`: New, Run), the run to the end
(`loop`), the scheduler's event handlers, the step driver, the one recorder of events, the typed
outcomes of a cycle, and the benchmark.

May import: cluster, encoding, the upstream wing (framework, backend, plugins, dra, volume),
scenario, model, util."""
