"""A run with steps (../shared/spec/CHANGES.md): operations and controllers as API writes.

Where each part lives, by what it is upstream:

- ``driver.py`` ``StepDriver``: when each step starts and ends and when the controllers get their
  turn — one of the run's stand-ins (``run/standins.py``), which never calls the scheduler.
- ``operations.py`` ``StepOperations``: a step's operations as the API writes `kubectl` (or a user)
  makes — scale, patch, create, delete, a Job completing; ``nodes.py`` ``NodeOperations``: cordon,
  drain (kubectl/pkg/drain), nodes added and nodes lost.
- ``pod_control.py`` ``PodControl``: the pod and claim writes of the controllers and the steps
  (controller_utils.go RealPodControl), each delivered before the next; ``RunLoop``: what the steps
  use of the run.
- ``rollout_status.py`` ``Rollouts``: `kubectl rollout status` over the rollouts a step started.
- ``record.py`` ``StepRecord``: the step's account, for its StepEnd event.

The controllers themselves — each one's sync, kube-controller-manager's pass over them, the
disruption controller, the availability resyncs — are under ``cluster/controllers/``.

Every write — of a pod, a node, a workload, a budget — goes through the run's cluster
(cluster/store.py); the driver and the controllers' caches hear them back as its watchers, the
step's account (created, deleted, evicted, succeeded, placed) included, whoever wrote.
"""
