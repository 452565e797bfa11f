"""Which model class answers a judge (or the user simulator): ADK 2.13's own resolution, ``LLMRegistry.resolve``.

``gemini-*`` (and the other names ADK gives its ``Gemini`` class) keep our direct google-genai path; every other
name ADK resolves (``gpt-*``/``o1-*`` to its OpenAI integration, ``claude-*`` to Claude, ``openai/...``,
``anthropic/...``, ``ollama/...`` and LiteLLM's other ``provider/model`` names to LiteLlm, a user's registered
class, the ``Class:model`` form) is asked through that class's ``generate_content_async``, as ADK's judges do.

A bare name that ADK does not know keeps the Gemini path, as before: the class a user registers in the agent's
module is only known once that module is imported. A name that needs a package that is missing (google-adk
itself, ``openai``, ``anthropic``, ``litellm``) is a ``ModelUnavailable`` with one line naming what to install.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

GEMINI = "gemini"  # the provider of the direct google-genai path

# ADK 2.13's patterns for its Gemini class (google/adk/models/__init__.py), for when google-adk is not installed
_GEMINI_PATTERNS = (
    r"gemini-.*",
    r"gemma-4.*",
    r"model-optimizer-.*",
    r"projects\/.+\/locations\/.+\/endpoints\/.+",
    r"projects\/.+\/locations\/.+\/publishers\/google\/models\/gemini.+",
)
# What each of ADK's other providers needs installed, by the patterns ADK's error message uses
_PACKAGES = ((r"claude-.*", "anthropic"), (r"gpt-.*|o\d+-.*", "openai"), (r".+/.+", "litellm"))
# The ``Class:model`` form: ADK matches the prefix to a class name without its ``Llm`` ending
_CLASS_PACKAGES = {"claude": "anthropic", "anthropic": "anthropic", "openai": "openai", "lite": "litellm"}
_INSTALL_ADK = "pip install 'adk-eval-gate[adk]'"


class ModelUnavailable(Exception):
    """The model cannot be used in this environment; the message says what to install."""


@dataclass(frozen=True)
class ModelRoute:
    """How a model name is reached: ``provider`` is ``gemini`` (google-genai directly) or ADK's class name."""

    name: str
    provider: str
    llm_class: Any = None  # the BaseLlm subclass, for every provider but gemini

    @property
    def gemini(self) -> bool:
        return self.provider == GEMINI


def _needed_package(name: str) -> str | None:
    prefix, _, rest = name.partition(":")
    if rest and "/" not in prefix:
        return _CLASS_PACKAGES.get(prefix.lower().removesuffix("llm"))
    return next((package for pattern, package in _PACKAGES if re.fullmatch(pattern, name)), None)


def _is_gemini_name(name: str) -> bool:
    """ADK's Gemini names, and the resource names google-genai also accepts (``models/gemini-...``, tuned models)."""
    short = name.rsplit("models/", 1)[-1] if name.startswith(("models/", "publishers/google/models/")) else name
    return name.startswith("tunedModels/") or any(re.fullmatch(pattern, short) for pattern in _GEMINI_PATTERNS)


def _missing(role: str, name: str, package: str | None, *, adk: bool) -> ModelUnavailable:
    packages = " ".join(p for p in (None if adk else "google-adk", package) if p)
    how = "add it to the agent's requirements" if package else "register its model class"
    install = f"pip install {packages}" if adk else f"{_INSTALL_ADK}{' ' + package if package else ''}"
    return ModelUnavailable(f"{role} {name!r} needs {packages or 'a registered model class'}: {install} ({how})")


def resolve_model(name: str, *, role: str = "judge model") -> ModelRoute:
    """The route ADK's ``LLMRegistry`` gives ``name`` now (not cached: a class registered later counts)."""
    if _is_gemini_name(name):
        return ModelRoute(name, GEMINI)
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # LiteLLM would download its price map on import
    try:
        from google.adk.models import LLMRegistry
    except ImportError:
        package = _needed_package(name)
        if package is None:
            return ModelRoute(name, GEMINI)
        raise _missing(role, name, package, adk=False) from None
    try:
        llm_class = LLMRegistry.resolve(name)
    except ImportError as error:  # the Class:model form names a class whose package is missing
        raise _missing(role, name, _needed_package(name) or getattr(error, "name", None), adk=True) from None
    except ValueError:
        prefix, _, rest = name.partition(":")
        if rest and "/" not in prefix and _names_a_provider(prefix):
            raise _no_such_class(role, name, LLMRegistry) from None
        package = _needed_package(name)
        if package is None:
            return ModelRoute(name, GEMINI)  # not known here (yet): google-genai answers or says it is unknown
        if package == "litellm" and _has_module("litellm"):
            provider = name.split("/", 1)[0]
            raise ModelUnavailable(
                f"{role} {name!r}: LiteLLM does not know the provider {provider!r} (see LiteLLM's list of "
                "providers, or use a model name ADK resolves)"
            ) from None
        raise _missing(role, name, package, adk=True) from None
    if llm_class.__name__ == "Gemini" and ":" not in name:
        return ModelRoute(name, GEMINI)
    if llm_class.__name__ == "LiteLlm" and not _has_module("litellm"):  # ADK's module imports without it
        raise _missing(role, name, "litellm", adk=True)
    return ModelRoute(name, llm_class.__name__, llm_class)


def _names_a_provider(prefix: str) -> bool:
    """``anthropic`` in ``anthropic:claude-...``: a provider's name, where ADK wants a model class's."""
    if prefix.lower() in _CLASS_PACKAGES:
        return True
    try:
        import litellm
    except ImportError:
        return False
    return prefix in litellm.provider_list


def _registered_classes() -> list[str]:
    """The names of the model classes in ADK's registry (what the ``Class:`` of ``Class:model`` can name)."""
    from google.adk.models import registry

    entries = getattr(registry, "_llm_registry_dict", {}).values()
    return sorted({entry[1] if isinstance(entry, tuple) else entry.__name__ for entry in entries})


def _no_such_class(role: str, name: str, llm_registry: Any) -> ModelUnavailable:
    """``anthropic:claude-haiku-4-5``: ADK 2.13's ``LLMRegistry.resolve`` matches the part before ``:`` to a class
    name (``_match_prefix``: ``claude`` for ``Claude``, ``openai`` for ``OpenAILlm``, ``lite`` for ``LiteLlm``), and
    no class is called ``anthropic``. The names that would work are found by asking the registry itself."""
    prefix, _, rest = name.partition(":")
    written = []
    for candidate in (f"{prefix}/{rest}", rest):  # LiteLLM's provider/model form; ADK's bare name
        try:
            found = llm_registry.resolve(candidate).__name__
        except (ValueError, ImportError):
            continue
        if found == "Gemini" and not _is_gemini_name(candidate):
            continue
        how = {"LiteLlm": "LiteLLM", "Claude": "ADK's Claude class, Claude on Vertex AI"}.get(found, f"ADK's {found}")
        package = "litellm" if found == "LiteLlm" else None
        if package and not _has_module(package):
            how += f"; pip install {package}"
        written.append(f"{candidate!r} ({how})")
    classes = ", ".join(f"{c.lower().removesuffix('llm')}:" for c in _registered_classes())
    instead = f"; write {' or '.join(written)}" if written else ""
    return ModelUnavailable(
        f"{role} {name!r}: ADK's model registry does not resolve this name: before ':' it takes the name of one of "
        f"its model classes ({classes}), and none is called {prefix!r}{instead}"
    )


def _has_module(name: str) -> bool:
    import importlib

    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def check_model(name: str, *, role: str) -> str | None:
    """Why ``name`` cannot be used here (one line), or None."""
    try:
        resolve_model(name, role=role)
    except ModelUnavailable as error:
        return str(error)
    return None
