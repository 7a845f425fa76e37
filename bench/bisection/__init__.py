"""bench/bisect: the first patch or commit that changes a figure.

The one bench package above analysis/: it builds and runs kernels (the
entry commands) and judges their figures by analysis/stats/stats.py
(bisection.py; the command: __main__.py).
"""
