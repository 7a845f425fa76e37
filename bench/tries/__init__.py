"""The plan of tries and its executors: the plan (rounds, orders, seeds),
the inputs it boots, the local executor (runner) and the Slurm executor
(slurm, slurmrun, slurmtask).
"""
