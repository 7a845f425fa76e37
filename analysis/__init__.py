"""jlbench analysis: statistics, tables, REPORT.md and history of results dirs.

Entry commands (in this folder): analyze, report, compare, profile-diff,
calibrate. Modules: stats (pure statistical functions), load (reads a
results dir), summarize (per-variant statistics and comparisons ->
summary.csv, stats.json), history (results/history.csv), render
(REPORT.md), reference (2011 figures and a results dir's baseline),
figures (the one list of plots, read by plots/ too), profile
(per-function profiles of the tries and their paired diff), wherefrom
(its table and the report's "Where the difference comes from"). It reads
results dirs with lib/format and imports nothing of bench/
(bench/README.md, "Layers").
"""
