"""Provenance of a results dir and replaying a try from it: provenance/,
reproduce.sh (reproduce-template.sh) and the replay steps it runs.
"""
