"""Secrets: which values are secret, and keeping them out of every report and out of the agents' environment.

The console masks each secret in what it prints (and in Actions asks the runner to mask it too); the reports
(results.json, junit.xml, summary.md, the job summary, the comment) are masked here, on the results document
before any renderer escapes or shortens its text, so no escaped or truncated copy of a secret survives.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, MutableMapping
from typing import TypeVar

import pydantic

Model = TypeVar("Model", bound=pydantic.BaseModel)

MASK = "***"
SECRET_VARIABLES = ("GITHUB_TOKEN", "INPUT_GITHUB-TOKEN", "INPUT_GITHUB_TOKEN", "GOOGLE_API_KEY", "GEMINI_API_KEY")
GITHUB_TOKEN_VARIABLES = ("GITHUB_TOKEN", "GH_TOKEN", "INPUT_GITHUB-TOKEN", "INPUT_GITHUB_TOKEN")
_SECRET_INPUT = re.compile(r"^INPUT_.*(TOKEN|KEY|SECRET|PASSWORD|CREDENTIAL)", re.IGNORECASE)
# The keys of every model provider a judge, the user simulator or an agent can use: OPENAI_API_KEY,
# ANTHROPIC_API_KEY and the many LiteLLM reads (AZURE_API_KEY, GROQ_API_KEY, AWS_SECRET_ACCESS_KEY,
# AWS_SESSION_TOKEN, AZURE_AD_TOKEN, HF_TOKEN, ...), by the endings of their names
_SECRET_NAME = re.compile(r"(API_?KEY|SECRET_ACCESS_KEY|_SECRET|_TOKEN|_PASSWORD)$", re.IGNORECASE)
MIN_SECRET_LENGTH = 4  # shorter values would mask ordinary words


def secrets_in_env(env: Mapping[str, str]) -> list[str]:
    """Secret values in the environment: API keys (every provider's), the GitHub token, and action inputs named like
    secrets."""
    names = [*SECRET_VARIABLES, *(name for name in env if _SECRET_INPUT.match(name) or _SECRET_NAME.search(name))]
    return list(dict.fromkeys(env[name] for name in names if len(env.get(name) or "") >= MIN_SECRET_LENGTH))


def drop_github_token(env: MutableMapping[str, str], token: str | None) -> None:
    """Removes the GitHub token from ``env`` (agent code runs without it), wherever it is, under any name."""
    for name in [name for name, value in env.items() if name in GITHUB_TOKEN_VARIABLES or (token and value == token)]:
        del env[name]


def mask_model(model: Model, secrets: Iterable[str]) -> Model:
    """``model`` (a results document, one case of it) with every secret replaced by ``***`` in any field."""
    values = sorted({s for s in secrets if len(s) >= MIN_SECRET_LENGTH}, key=len, reverse=True)
    if not values:
        return model
    text = model.model_dump_json()
    masked = text
    for secret in values:
        for form in {json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]}:
            masked = masked.replace(form, MASK)
    return model if masked == text else type(model).model_validate_json(masked)
