"""The results format, shared by bench (which writes it) and analysis (which
reads it): the schema of runs.csv and its companions, the serial console's
result block, the plugin's counts, the results dir, a try's raw files and
their manifest, and the identity of two dirs' figures. See lib/README.md.
"""
