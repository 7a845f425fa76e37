"""Python helpers shared by the jlbench stages (lib/arch.py: the
architecture table)."""
