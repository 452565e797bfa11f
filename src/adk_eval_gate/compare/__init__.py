"""This run against the baseline: changes and their noise check (the runs' spread, the base branch's
history), like-for-like, cost and latency, the cases to confirm, and what each case depends on (``--only-affected``:
the cases a change can touch)."""
