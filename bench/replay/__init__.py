"""Provenance of a results dir and replaying a try from it: provenance/,
`jlbench reproduce` (reproduce) and the replay steps it runs; relayout of
older dirs.
"""
