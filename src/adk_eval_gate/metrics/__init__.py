"""Metric families behind one registry (see ``registry``)."""
