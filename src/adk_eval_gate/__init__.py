"""ADK Eval Gate: a CI gate for Google ADK agent evaluations."""

__version__ = "0.1.0"
