"""The scheduler cache's pieces that decide more than bookkeeping (pkg/scheduler/backend/cache)."""
