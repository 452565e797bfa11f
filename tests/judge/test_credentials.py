"""Which judge backend the environment allows, and the one-line reason when none."""

from __future__ import annotations

import pytest

from adk_eval_gate.judge.credentials import NO_CREDENTIALS, JudgeCredentials, MissingCredentials, resolve_credentials


def test_gemini_api_key() -> None:
    assert resolve_credentials({"GOOGLE_API_KEY": "k1"}) == JudgeCredentials(vertexai=False, api_key="k1")
    assert resolve_credentials({"GEMINI_API_KEY": "k2"}) == JudgeCredentials(vertexai=False, api_key="k2")
    assert resolve_credentials({"GOOGLE_API_KEY": "k1", "GEMINI_API_KEY": "k2"}).api_key == "k1"  # as google-genai


def test_vertex_ai() -> None:
    env = {"GOOGLE_GENAI_USE_VERTEXAI": "True", "GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "europe-west4"}
    creds = resolve_credentials(env)
    assert creds == JudgeCredentials(vertexai=True, project="p", location="europe-west4")
    assert creds.describe() == "Vertex AI (project p, location europe-west4)"
    express = resolve_credentials({"GOOGLE_GENAI_USE_VERTEXAI": "1", "GOOGLE_API_KEY": "k"})
    assert express == JudgeCredentials(vertexai=True, api_key="k")


def test_no_credentials_names_the_variables() -> None:
    with pytest.raises(MissingCredentials) as raised:
        resolve_credentials({"GOOGLE_API_KEY": "  "})
    assert str(raised.value) == NO_CREDENTIALS
    assert "GOOGLE_API_KEY or GEMINI_API_KEY" in NO_CREDENTIALS
    assert "\n" not in NO_CREDENTIALS


def test_vertex_without_location_says_which_is_missing() -> None:
    with pytest.raises(MissingCredentials, match="GOOGLE_CLOUD_LOCATION is not"):
        resolve_credentials({"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "p"})
    with pytest.raises(MissingCredentials, match="GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION are not"):
        resolve_credentials({"GOOGLE_GENAI_USE_VERTEXAI": "true"})
