"""Python shared by every jlbench stage; imports nothing of theirs.

ROOT is the checkout. Modules: arch (the architecture table), vmlinux
(reading a kernel image), hostinfo (facts about this host and checkout),
log (the stage log line), model (the modelled core's parameters and
cycles), source (the kernel versions), variants (what a variant may be
called, the built-in variants and their roles); the package format is
the results format that bench writes and analysis reads (lib/README.md).
"""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
