"""Who computes the metrics ADK 2.13 sends to Google's evaluation service (``safety_v1``,
``response_evaluation_score``, ``multi_turn_task_success_v1``, ``multi_turn_trajectory_quality_v1``,
``multi_turn_tool_use_quality_v1``): that service, as ADK does, or the gate's own judge prompts.

The service when a Google Cloud project is configured (``GOOGLE_CLOUD_PROJECT``, as the evaluation SDK needs one
whichever way ADK builds its client) and Google's SDK is installed (``adk-eval-gate[agent-platform]``); the gate's
judge otherwise. The client is then built as ADK's ``_VertexAiEvalFacade.__init__`` builds it: with
``GOOGLE_API_KEY`` when it is set (express mode), else with the project and ``GOOGLE_CLOUD_LOCATION`` (Application
Default Credentials); ADK's rule that both must be set is kept. Nothing here imports the SDK or talks to the
network: ``find_spec`` only looks the package up.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass

from adk_eval_gate.model.results import ComputedBy

SERVICE_METRICS = frozenset(
    {
        "safety_v1",
        "response_evaluation_score",
        "multi_turn_task_success_v1",
        "multi_turn_trajectory_quality_v1",
        "multi_turn_tool_use_quality_v1",
    }
)
"""ADK's metrics that ADK computes only through the evaluation service."""

AGENT_PLATFORM: ComputedBy = "agent-platform"
GATE_JUDGE: ComputedBy = "gate-judge"
SDK_PACKAGE = "agentplatform"  # google-cloud-aiplatform's module, the one ADK 2.13 imports for these metrics
INSTALL_HINT = "install adk-eval-gate's agent-platform extra, or google-cloud-aiplatform, pandas and tqdm"


@dataclass(frozen=True)
class PlatformAccess:
    """How to reach the service, as ADK's facade would: an API key, or a project and location; ``api_key`` is a
    secret. ``problem``: ADK's facade would refuse this environment (the metrics are then not evaluated, as in ADK).
    ``base_url``: ``GOOGLE_VERTEX_BASE_URL``, google-genai's variable for another Vertex AI endpoint (a proxy)."""

    api_key: str | None = None
    project: str | None = None
    location: str | None = None
    base_url: str | None = None
    problem: str | None = None

    def describe(self) -> str:
        where = f" at {self.base_url}" if self.base_url else ""
        if self.api_key:
            return f"API key (express mode){where}"
        return f"project {self.project}, location {self.location}{where}"


@dataclass(frozen=True)
class Choice:
    """The implementation of the service-backed metrics for a run, and why (one line for the console)."""

    computed_by: ComputedBy
    reason: str
    access: PlatformAccess | None = None

    @property
    def service(self) -> bool:
        return self.computed_by == AGENT_PLATFORM


def _value(env: Mapping[str, str], name: str) -> str | None:
    return (env.get(name) or "").strip() or None


def access_of(env: Mapping[str, str]) -> PlatformAccess:
    """ADK's facade's rule (``vertex_ai_eval_facade._VertexAiEvalFacade.__init__``): ``GOOGLE_API_KEY`` first; else
    the project and the location, both required."""
    base_url = _value(env, "GOOGLE_VERTEX_BASE_URL")
    api_key = _value(env, "GOOGLE_API_KEY")
    project, location = _value(env, "GOOGLE_CLOUD_PROJECT"), _value(env, "GOOGLE_CLOUD_LOCATION")
    if api_key:
        return PlatformAccess(api_key=api_key, base_url=base_url)  # the SDK then ignores the project, as in ADK
    missing = [
        name for name, value in (("GOOGLE_CLOUD_PROJECT", project), ("GOOGLE_CLOUD_LOCATION", location)) if not value
    ]
    problem = (
        f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} not set: Google's evaluation service needs "
        "both the project and the location (or GOOGLE_API_KEY), as in ADK"
        if missing
        else None
    )
    return PlatformAccess(project=project, location=location, base_url=base_url, problem=problem)


def sdk_installed() -> bool:
    try:
        return importlib.util.find_spec(SDK_PACKAGE) is not None
    except (ImportError, ValueError):
        return False


def choose(env: Mapping[str, str], *, installed: bool | None = None) -> Choice:
    """The service when a project is configured and the SDK is installed (``installed``: given by tests), else the
    gate's judge."""
    if not _value(env, "GOOGLE_CLOUD_PROJECT"):
        return Choice(GATE_JUDGE, "no Google Cloud project is configured (GOOGLE_CLOUD_PROJECT)")
    if not (sdk_installed() if installed is None else installed):
        return Choice(GATE_JUDGE, f"Google's evaluation SDK is not installed ({INSTALL_HINT})")
    return Choice(AGENT_PLATFORM, "a Google Cloud project is configured", access_of(env))


def recorded(name: str, computed_by: ComputedBy | None) -> ComputedBy | None:
    """Who computed metric ``name`` of a result: as recorded, else, for a service-backed metric, the gate's judge
    (results of the versions before the service was used do not say, and they always used the judge); None for
    every other metric."""
    if computed_by is not None or name not in SERVICE_METRICS:
        return computed_by
    return GATE_JUDGE


SHORT_WORDS: dict[ComputedBy, str] = {AGENT_PLATFORM: "evaluation service", GATE_JUDGE: "gate's judge"}
WORDS: dict[ComputedBy, str] = {AGENT_PLATFORM: "Google's evaluation service", GATE_JUDGE: "the gate's own judge"}
