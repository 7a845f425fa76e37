"""jlbench bench runner: boots each kernel variant in QEMU and records runs.

Modules: plan (rounds, orders, seeds, resume), qemu (command lines),
accel (which accelerator), console (parse a serial console log), counts
(TCG plugin output), execute (one QEMU process), results (results dir),
hostinfo (meta.json facts), runner (the loop), cli (options), log.
"""
