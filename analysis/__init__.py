"""jlbench analysis: from a results dir to summary.csv, stats.json,
results/history.csv and REPORT.md.

Commands in this folder (analyze, report, compare, profile-diff,
calibrate); packages by concept, imported one way: results/ (reading and
checking a results dir) < stats/ < comparison/ and models/ < sections/
< documents/ (the two that write Markdown). analysis/README.md has the table.
"""
