"""The robot's parts (issue: jlbench watch): mail.py writes a finding as
a mail in an mbox file and a range's triage summary."""
