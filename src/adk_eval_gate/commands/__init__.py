"""The commands: run, report, merge, validate, migrate. Each wires its stages together, with its collaborators (the
settings, the console, the GitHub client, the agents' worker starter) passed in by the command line (``cli``)."""
