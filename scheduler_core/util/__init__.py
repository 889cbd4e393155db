"""Helpers with no Kubernetes meaning: Go's sort order, the collector's freezing.

Imports nothing of scheduler_core."""
