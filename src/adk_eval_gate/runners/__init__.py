"""Runners produce the actual invocations of a work item: ``adk`` (in-process), ``http`` and ``recorded``."""
