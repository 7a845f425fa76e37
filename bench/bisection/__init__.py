"""bench/bisect and bench/scan: the first patch or commit that changes a
figure, and every change along a git range.

The one bench package above analysis/: it builds and runs kernels (the
entry commands) and judges their figures by analysis/stats/stats.py:
bench/bisect (bisection.py; the command: __main__.py) and bench/scan
(scan.py; the command: scanmain.py; its figure's data: scanplot.py, which
plots/scan draws).
"""
