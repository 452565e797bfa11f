"""This run against the baseline: changes and their noise check (the runs' spread, the base branch's
history), like-for-like, cost and latency, and the cases to confirm."""
