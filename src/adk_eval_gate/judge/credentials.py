"""Which judge backend the environment allows: the Gemini API with a key, or Vertex AI with a project.

The same variables google-genai reads. Nothing here talks to the network; a missing variable becomes a
one-line reason that names what to set, so judge metrics end ``not_evaluated`` instead of failing the run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

NO_CREDENTIALS = (
    "no LLM judge credentials: set GOOGLE_API_KEY or GEMINI_API_KEY, or for Vertex AI "
    "GOOGLE_GENAI_USE_VERTEXAI=true, GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION"
)
_TRUE = {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class JudgeCredentials:
    """Enough to build a ``google.genai.Client``; ``api_key`` is a secret."""

    vertexai: bool
    api_key: str | None = None
    project: str | None = None
    location: str | None = None

    def describe(self) -> str:
        if self.vertexai and self.project:
            return f"Vertex AI (project {self.project}, location {self.location})"
        if self.vertexai:
            return "Vertex AI (express mode, API key)"
        return "Gemini API (API key)"


class MissingCredentials(Exception):
    """No usable judge credentials; the message says which variables to set."""


def resolve_credentials(env: Mapping[str, str]) -> JudgeCredentials:
    """Raises ``MissingCredentials`` with a one-line reason when the judge cannot be reached."""
    api_key = (env.get("GOOGLE_API_KEY") or env.get("GEMINI_API_KEY") or "").strip() or None
    if (env.get("GOOGLE_GENAI_USE_VERTEXAI") or "").strip().lower() in _TRUE:
        project = (env.get("GOOGLE_CLOUD_PROJECT") or "").strip() or None
        location = (env.get("GOOGLE_CLOUD_LOCATION") or "").strip() or None
        if project and location:
            return JudgeCredentials(vertexai=True, project=project, location=location)
        if api_key and not project and not location:
            return JudgeCredentials(vertexai=True, api_key=api_key)
        missing = [
            name
            for name, value in (("GOOGLE_CLOUD_PROJECT", project), ("GOOGLE_CLOUD_LOCATION", location))
            if not value
        ]
        raise MissingCredentials(
            f"GOOGLE_GENAI_USE_VERTEXAI is set but {' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} "
            "not: set both for Vertex AI, or unset GOOGLE_GENAI_USE_VERTEXAI and set GOOGLE_API_KEY"
        )
    if api_key:
        return JudgeCredentials(vertexai=False, api_key=api_key)
    raise MissingCredentials(NO_CREDENTIALS)
