"""The scheduler cache (pkg/scheduler/backend/cache): the Snapshot a cycle reads, the node tree."""
