"""The two entry commands from start to end: bench/run (cli, runmain,
session) and bench/selftest (selftest).
"""
