"""When the package's pydantic models build their schemas: when first used (``defer_build``), not when imported.

The main process imports the stages before it forks the worker starter (``cli._run``), so the starter starts
sooner, and each process builds only the schemas it uses: a worker the eval set's and the token figures', never
the criteria's or results.json's. ``build`` builds them ahead where a process waits anyway: the starter those its
workers use (``runners.adk.warm_process``), the main process the rest while the workers start.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from types import ModuleType

import pydantic


def models_of(modules: Iterable[ModuleType]) -> list[type[pydantic.BaseModel]]:
    """The pydantic models defined in ``modules``, in the order they were defined."""
    return [
        value
        for module in modules
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, pydantic.BaseModel) and value.__module__ == module.__name__
    ]


def package_models() -> list[type[pydantic.BaseModel]]:
    """Every pydantic model of this package imported so far, in the order they were defined (a model's fields'
    models first, mostly: a model built after them reuses their schemas instead of building them again)."""
    package = __name__.split(".")[0]
    loaded = [module for name, module in list(sys.modules.items()) if name.split(".")[0] == package and module]
    return models_of(loaded)


def build(models: Iterable[type[pydantic.BaseModel]]) -> None:
    """Builds the schemas of ``models`` not built yet (one that cannot be built yet is left to its first use)."""
    for model in models:
        if not model.__pydantic_complete__:
            model.model_rebuild(raise_errors=False)
