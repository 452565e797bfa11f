"""The one read of the process environment: everything else gets it from here or from the settings. A module of
its own, with nothing to import, so that ``--help`` reads it without loading the settings' models."""

from __future__ import annotations

import os


def current_environment() -> dict[str, str]:
    return dict(os.environ)
