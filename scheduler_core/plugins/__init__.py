"""The in-tree plugins of kube-scheduler v1.35; ``plugins/registry.py`` lists them by name."""
