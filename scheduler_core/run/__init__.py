"""Running the scheduler: the single pass (`scheduler`), the run to the end (`loop`, upstream's
scheduleOne and its failure handler), the scheduler's event handlers, the step driver, the one
recorder of events, the typed outcomes of a cycle, and the benchmark.

May import: cluster, encoding, the upstream wing (framework, backend, plugins, dra, volume),
scenario, model, util."""
