"""Stand-ins for kube-controller-manager's controllers in a run with steps (../shared/spec/CHANGES.md).

Each controller reads the cluster (``state.ClusterState``) and answers with the API writes it
would make (``state.Write``); ``manager.py`` runs them in the spec's order, and the steps' pod
control (``scheduler_core/run/steps/pod_control.py``) applies the writes so that the scheduler
hears of each through its informers. They are deterministic versions of the
release's: where the release picks at random or races, ../shared/spec/CHANGES.md fixes the choice.
"""
