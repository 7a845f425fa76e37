"""What a kernel variant may be called: the one definition of its name.

NAME matches a whole name (NAME.fullmatch): lower-case letters, digits, -
and _, the first a letter or a digit (jump-label, atomic-read, mine_2).
kernel-variants/variant.py takes a user variant's name by it and
analysis/results/reference.py (VARIANT_NAME) a results dir's baseline and
plots/prepare's --history-pair; tests/test_variant_spec.py fails on a
copy of it elsewhere.
"""
import re

NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")
