"""The services a run's metrics get: Google's evaluation service for ADK's service-backed metrics when a project is
configured (then they need no judge, and no judge credentials), the gate's judge otherwise; one console line says
which, and why, and the API key never shows."""

from __future__ import annotations

import asyncio
import io

from adk_eval_gate.config.settings import build_settings
from adk_eval_gate.inputs.configs import LoadedConfig
from adk_eval_gate.inputs.plan import PlannedFile
from adk_eval_gate.metrics.metric import MetricServices
from adk_eval_gate.metrics.registry import configured_metrics
from adk_eval_gate.model.eval_config import EvalConfig
from adk_eval_gate.runners.services import build_services, judge_metric_names
from adk_eval_gate.support.console import Console

KEY = "platform-secret-key-42"
PROJECT = {"GOOGLE_CLOUD_PROJECT": "my-project", "GOOGLE_CLOUD_LOCATION": "us-central1"}


def planned(criteria: dict[str, float]) -> PlannedFile:
    config = EvalConfig.model_validate({"criteria": criteria})
    return PlannedFile(None, LoadedConfig(None, config, configured_metrics(config)), ())  # type: ignore[arg-type]


def build(env: dict[str, str], criteria: dict[str, float]) -> tuple[object, str]:
    out = io.StringIO()
    services = build_services(
        build_settings("run", {}, env=env), [planned(criteria)], Console(in_actions=False, stream=out)
    )
    asyncio.run(services.aclose())
    return services, out.getvalue()


def test_with_a_project_the_service_computes_them_and_no_judge_is_set_up_for_them() -> None:
    services, said = build({**PROJECT, "GOOGLE_API_KEY": KEY}, {"safety_v1": 0.5, "multi_turn_task_success_v1": 0.5})
    assert services.platform is not None and services.judge is None  # type: ignore[attr-defined]
    assert services.platform.access.api_key == KEY  # type: ignore[attr-defined]
    assert said == (
        "safety_v1, multi_turn_task_success_v1: computed by Google's evaluation service (API key (express mode)), "
        "as ADK computes them\n"
    )
    assert KEY not in said


def test_other_judge_metrics_keep_the_judge_beside_the_service() -> None:
    services, said = build({**PROJECT, "GOOGLE_API_KEY": KEY}, {"safety_v1": 0.5, "final_response_match_v2": 0.5})
    assert services.platform is not None and services.judge is not None  # type: ignore[attr-defined]
    assert "final_response_match_v2" not in said.splitlines()[0] and KEY not in said
    criteria = planned({"safety_v1": 0.5, "final_response_match_v2": 0.5})
    assert judge_metric_names([criteria], service=True) == ["final_response_match_v2"]
    assert judge_metric_names([criteria]) == ["safety_v1", "final_response_match_v2"]


def test_without_a_project_the_gates_judge_computes_them_and_the_log_says_so() -> None:
    services, said = build({"GOOGLE_API_KEY": KEY}, {"response_evaluation_score": 3.0})
    assert services.platform is None and services.judge is not None  # type: ignore[attr-defined]
    assert said.splitlines()[0] == (
        "response_evaluation_score: computed by the gate's own judge, not by Google's evaluation service as ADK does: "
        "no Google Cloud project is configured (GOOGLE_CLOUD_PROJECT)"
    )


def test_a_project_without_a_location_or_key_is_said_once_and_leaves_them_not_evaluated() -> None:
    services, said = build({"GOOGLE_CLOUD_PROJECT": "my-project"}, {"safety_v1": 0.5})
    assert services.platform is not None and services.platform.access.problem  # type: ignore[attr-defined]
    assert said.startswith("warning: safety_v1 will not be evaluated: GOOGLE_CLOUD_LOCATION is not set")


def test_a_run_without_service_backed_metrics_says_nothing_about_the_service_and_keeps_it_for_later_files() -> None:
    """pytest plans its files one at a time: a later file's service-backed metrics get the service too."""
    services, said = build(PROJECT, {"response_match_score": 0.5})
    assert services.platform is not None and services.judge is None and said == ""  # type: ignore[attr-defined]
    assert build({}, {"response_match_score": 0.5}) == (MetricServices(), "")


def test_building_the_services_never_imports_googles_sdk() -> None:
    """The SDK takes seconds to import: only the first request of a service-backed metric does it."""
    import sys

    was_imported = "agentplatform" in sys.modules
    services, _ = build({**PROJECT, "GOOGLE_API_KEY": KEY}, {"safety_v1": 0.5})
    assert services.platform is not None  # type: ignore[attr-defined]
    assert ("agentplatform" in sys.modules) == was_imported
