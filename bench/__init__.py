"""jlbench's runner: boots each kernel in QEMU and records every try.

Packages, lowest first (bench/README.md draws the layering): guest, model,
tries, replay, session. The results format they write is lib/format.
"""
