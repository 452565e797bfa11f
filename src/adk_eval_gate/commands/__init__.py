"""The commands: run, report, merge, validate, migrate, with what run and report share at their end (gate, finish) and
run's supervising parent."""
