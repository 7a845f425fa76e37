"""Booting guests: QEMU command lines, the accelerator, one QEMU process
watched to its end, the one boot path (boot.py) and guests side by side.
See bench/README.md for what each package may import.
"""
