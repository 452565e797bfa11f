"""The end ``run`` and ``report`` share: the run compared with the baseline and decided (``against_baseline``), then
masked, written, published to GitHub, annotated and printed, and the exit code (``ending``)."""
