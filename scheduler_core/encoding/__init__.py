"""The run's event stream and its forms: typed events and their JSON, the columnar form, the
event pipe between processes, and the spec'd projections `trace` and `timeline`.

May import: model, util, framework (node tables and statuses carried in events)."""
