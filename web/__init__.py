"""jlbench dashboard: web pages over the results store (web/serve,
web/site; docs/dashboard.md)."""
