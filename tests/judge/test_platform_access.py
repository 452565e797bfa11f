"""Who computes ADK's service-backed metrics: Google's evaluation service when a project is configured and the SDK
is installed, the gate's judge otherwise; and the service's client built as ADK's facade builds it."""

from __future__ import annotations

import pytest

from adk_eval_gate.judge import platform_access
from adk_eval_gate.judge.platform_access import PlatformAccess, access_of, choose, recorded


def test_without_a_project_the_gate_judges_them_and_says_why() -> None:
    choice = choose({"GOOGLE_API_KEY": "k" * 10}, installed=True)
    assert choice.computed_by == "gate-judge" and not choice.service and choice.access is None
    assert choice.reason == "no Google Cloud project is configured (GOOGLE_CLOUD_PROJECT)"


def test_without_the_sdk_the_gate_judges_them_and_says_what_to_install() -> None:
    choice = choose({"GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "us-central1"}, installed=False)
    assert choice.computed_by == "gate-judge"
    assert choice.reason == (
        "Google's evaluation SDK is not installed (install adk-eval-gate's agent-platform extra, or "
        "google-cloud-aiplatform, pandas and tqdm)"
    )


def test_a_project_and_the_sdk_choose_the_service() -> None:
    choice = choose({"GOOGLE_CLOUD_PROJECT": " p ", "GOOGLE_CLOUD_LOCATION": "europe-west4"}, installed=True)
    assert choice.service and choice.access == PlatformAccess(project="p", location="europe-west4")


def test_the_installed_sdk_is_found_without_importing_it() -> None:
    import sys

    was_imported = "agentplatform" in sys.modules
    assert platform_access.sdk_installed() is True  # the test environment has ADK's eval extra
    assert ("agentplatform" in sys.modules) == was_imported


@pytest.mark.parametrize(
    ("env", "access"),
    [
        (  # ADK's facade: the API key wins, and the SDK then ignores the project
            {"GOOGLE_API_KEY": "key-1234", "GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "l"},
            PlatformAccess(api_key="key-1234"),
        ),
        ({"GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "l"}, PlatformAccess(project="p", location="l")),
        (
            {"GOOGLE_CLOUD_PROJECT": "p"},
            PlatformAccess(
                project="p",
                problem="GOOGLE_CLOUD_LOCATION is not set: Google's evaluation service needs both the project and "
                "the location (or GOOGLE_API_KEY), as in ADK",
            ),
        ),
        (
            {"GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "l", "GOOGLE_VERTEX_BASE_URL": "http://proxy/"},
            PlatformAccess(project="p", location="l", base_url="http://proxy/"),
        ),
        (
            {"GEMINI_API_KEY": "key-1234", "GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "l"},
            PlatformAccess(project="p", location="l"),
        ),
    ],
    ids=["api-key-wins", "project", "no-location", "base-url", "gemini-key-is-not-adks"],
)
def test_the_client_is_reached_as_adks_facade_reaches_it(env: dict[str, str], access: PlatformAccess) -> None:
    assert access_of(env) == access


def test_the_description_never_carries_the_key() -> None:
    assert "key-1234" not in PlatformAccess(api_key="key-1234").describe()
    assert PlatformAccess(project="p", location="l").describe() == "project p, location l"


def test_a_result_that_does_not_say_who_computed_a_service_metric_was_the_gates_judge() -> None:
    assert recorded("safety_v1", None) == "gate-judge"
    assert recorded("multi_turn_tool_use_quality_v1", "agent-platform") == "agent-platform"
    assert recorded("final_response_match_v2", None) is None
