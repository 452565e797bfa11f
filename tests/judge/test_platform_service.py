"""The client of Google's evaluation service: Google's own SDK (agentplatform) against the fake service over real
HTTP, in express mode (API key) and in project mode (Application Default Credentials of a service account whose
token endpoint is the fake), every request checked against the SDK's request shape; then everything a service
can do wrong: 429 with Retry-After, 500s, hanging, huge, compressed, HTML, deep or malformed answers, errors that
echo the key. Slow: the SDK takes seconds to import."""

from __future__ import annotations

import asyncio
import gzip
import json
from pathlib import Path

import pytest

from adk_eval_gate.judge.judge_retry import JUDGE_RETRY
from adk_eval_gate.judge.platform_access import PlatformAccess
from adk_eval_gate.judge.platform_instances import ConversationInstance, MissingInput, RowInstance
from adk_eval_gate.judge.platform_service import InstanceResult, PlatformFailed, PlatformService, ServiceMetric
from adk_eval_gate.metrics.platform_delegated import SafetyV1
from adk_eval_gate.model.evalset import AgentDetails, AppDetails
from adk_eval_gate.model.results import MetricStatus
from tests.fakes.agent_platform_server import (
    ACCESS_TOKEN,
    API_KEY,
    COHERENCE_TEMPLATE,
    HANG,
    Answer,
    FakeAgentPlatform,
    Raw,
    verdict,
)
from tests.judge.helpers import invocation, run_of
from tests.judge.platform_helpers import FAST, ByPrompt, Waits, platform, run_service, score, service_for

pytestmark = pytest.mark.slow
__all__ = ["platform"]
SAFETY = ServiceMetric("SAFETY", "v1")
ROW = RowInstance(prompt="Is the sky blue?", response="Yes.")


def ask(service: PlatformService, *instances: RowInstance | ConversationInstance, metric: ServiceMetric = SAFETY):
    return run_service(service, lambda s: s.evaluate(metric=metric, instances=list(instances)))


def test_each_row_is_one_request_in_the_sdks_shape_and_each_answer_is_read_as_the_sdk_reads_it(
    platform: FakeAgentPlatform,
) -> None:
    platform.script = ByPrompt(
        {
            "Is the sky blue?": Answer(score=1.0, explanation="harmless"),
            "How do I pick a lock?": Answer(
                score=0.0, verdicts=[verdict("no dangerous content", False, rubric_id="r1", reasoning="it explains")]
            ),
            "Hi": Answer(error={"code": 3, "message": "cannot score"}),
        }
    )
    rows = [
        ROW,
        RowInstance("How do I pick a lock?", "Like this.", reference="I can't help."),
        RowInstance("Hi", "Hey"),
    ]
    results = ask(service_for(platform), *rows)
    assert platform.schema_errors == []
    assert [request.api_key for request in platform.requests] == [API_KEY] * 3
    assert {request.path for request in platform.requests} == {"/v1beta1/:evaluateInstances"}
    assert {request.metric for request in platform.requests} == {"safety_v1"}
    assert results[0] == InstanceResult(score=1.0, explanation="harmless")
    assert results[1].score == 0.0 and results[1].verdicts[0].description == "no dangerous content"
    assert results[1].verdicts[0].verdict is False and results[1].verdicts[0].rubric_id == "r1"
    assert results[2].score is None and results[2].error is not None
    assert results[2].error.startswith("Error in metric result: ") and "cannot score" in results[2].error
    by_prompt = {json.dumps(body["instance"]["prompt"]): body for body in platform.bodies()}
    lock = next(body for key, body in by_prompt.items() if "lock" in key)
    assert lock["instance"]["reference"] == {"contents": {"contents": [{"parts": [{"text": "I can't help."}]}]}}
    assert [event["author"] for event in lock["instance"]["agent_eval_data"]["turns"][0]["events"]] == ["user", "model"]


def test_a_conversation_is_one_request_with_its_turns_and_agents(platform: FakeAgentPlatform) -> None:
    platform.enqueue(Answer(score=0.75, verdicts=[verdict("goal met", True)]))
    turns = (
        invocation("Book a table", "Done", invocation_id="t1"),
        invocation("Thanks", "Welcome", invocation_id="t2"),
    )
    [result] = ask(service_for(platform), ConversationInstance(turns), metric=ServiceMetric("MULTI_TURN_TASK_SUCCESS"))
    [body] = platform.bodies()
    assert platform.schema_errors == [] and platform.requests[0].metric == "multi_turn_task_success_v1"
    assert body["instance"]["prompt"] == {"contents": {"contents": []}}
    assert [turn["turn_id"] for turn in body["instance"]["agent_eval_data"]["turns"]] == ["t1", "t2"]
    assert result.score == 0.75 and result.verdicts[0].verdict is True


def test_project_mode_uses_application_default_credentials_and_the_projects_path(
    platform: FakeAgentPlatform, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(platform.service_account_file(tmp_path)))
    platform.enqueue(Answer(score=1.0))
    access = PlatformAccess(project=platform.project, location=platform.location, base_url=f"{platform.url}/")
    [result] = ask(PlatformService(access=access, retry=FAST), ROW)
    [request] = platform.requests
    assert request.path == f"/v1beta1/projects/{platform.project}/locations/{platform.location}/:evaluateInstances"
    assert request.bearer == ACCESS_TOKEN and request.api_key is None and platform.token_requests == 1
    assert result.score == 1.0


def test_a_published_metric_definition_is_read_from_cloud_storage_and_sent_as_its_template(
    platform: FakeAgentPlatform,
) -> None:
    platform.enqueue(Answer(score=4.0))
    [result] = ask(
        service_for(platform), RowInstance("Hi", "Hello", reference="Hello"), metric=ServiceMetric("COHERENCE")
    )
    [body] = platform.bodies()
    assert body["metrics"] == [{"llm_based_metric_spec": {"metric_prompt_template": COHERENCE_TEMPLATE}}]
    assert platform.schema_errors == [] and result.score == 4.0


def test_a_metric_without_a_published_definition_fails_in_one_line_without_asking(platform: FakeAgentPlatform) -> None:
    with pytest.raises(PlatformFailed) as failed:  # the fake publishes coherence only (the SDK caches what it read)
        ask(service_for(platform), ROW, metric=ServiceMetric("FLUENCY"))  # version: the SDK's default, v1
    assert str(failed.value).startswith("metric fluency could not be resolved: OSError: ")
    assert "\n" not in str(failed.value) and platform.requests == []


def test_a_row_without_a_response_is_refused_before_anything_is_sent(platform: FakeAgentPlatform) -> None:
    with pytest.raises(MissingInput, match="Response is required"):
        ask(service_for(platform), ROW, RowInstance("Hi", ""))
    assert platform.requests == []


def test_429_with_retry_after_is_waited_out_then_retried(platform: FakeAgentPlatform) -> None:
    platform.enqueue(Raw.error(429, retry_after="0.25"), Raw.error(503), Answer(score=1.0))
    waits = Waits()
    service = service_for(platform, sleep=waits, clock=waits.clock)
    [result] = ask(service, ROW)
    assert result.score == 1.0 and len(platform.requests) == 3
    assert waits.seconds[0] == 0.25  # the server's wait, not the backoff's
    assert waits.seconds[1] <= FAST.backoff.maximum
    assert (service.counters.calls, service.counters.retries, service.counters.failed) == (3, 2, 0)


def test_429_asking_a_longer_wait_than_the_cap_leaves_the_metric_not_evaluated_after_one_request(
    platform: FakeAgentPlatform,
) -> None:
    platform.script = lambda request: Raw.error(429, retry_after="86400")
    waits = Waits()
    service = service_for(platform, retry=JUDGE_RETRY, sleep=waits, clock=waits.clock)
    outcome = score(SafetyV1, "safety_v1", 0.5, run_of([invocation("Is the sky blue?", "Yes.")]), service)
    assert outcome.status is MetricStatus.NOT_EVALUATED and not outcome.infrastructure
    assert "asked to wait 86,400 s, more than the 120 s" in (outcome.reason or "")
    assert "so it was not asked again" in (outcome.reason or "")
    assert len(platform.requests) == 1 and waits.seconds == []
    assert (service.counters.calls, service.counters.retries, service.counters.failed) == (1, 0, 1)


def test_a_spent_quota_is_spent_for_the_run_after_one_requests_retries(platform: FakeAgentPlatform) -> None:
    platform.script = lambda request: Raw.error(429, retry_after="0")
    service = service_for(platform, parallelism=2)
    rows = [RowInstance(f"Question {index}?", "Yes.") for index in range(6)]

    async def two_cases(s: PlatformService) -> list[BaseException]:
        found = []
        for _ in range(2):
            try:
                await s.evaluate(metric=SAFETY, instances=rows)
            except PlatformFailed as failure:
                found.append(failure)
        return found

    first, second = run_service(service, two_cases)
    # one request's three tries, and the first try of the other request under way
    assert len(platform.requests) <= FAST.rate_limited_attempts + 1
    assert not first.infrastructure and not second.infrastructure
    assert str(second).startswith("not attempted: the quota of Google's evaluation service ran out earlier in this run")
    assert "HTTP 429" in str(second)
    assert service.counters.failed == 12


def test_500_on_every_try_fails_as_an_outage_and_stops_asking_after_three_in_a_row(
    platform: FakeAgentPlatform,
) -> None:
    platform.script = lambda request: Raw(
        502, b"<html><body><h1>502 Bad Gateway</h1>\n</body></html>", {"Content-Type": "text/html"}
    )
    service = service_for(platform)

    async def three_rounds(s: PlatformService) -> list[BaseException]:
        found = []
        for _ in range(4):
            try:
                await s.evaluate(metric=SAFETY, instances=[ROW])
            except PlatformFailed as failure:
                found.append(failure)
        return found

    failures = run_service(service, three_rounds)
    assert len(failures) == 4 and all(failure.infrastructure for failure in failures)
    assert str(failures[0]).startswith("the evaluation service failed after 3 tries: HTTP 502")
    assert "\n" not in str(failures[0])
    assert len(platform.requests) == 3 * FAST.backoff.attempts  # the fourth round sent nothing
    assert "no more requests after 3 failures in a row" in str(failures[3])


def test_a_hanging_service_times_out_and_the_timeouts_are_retried(platform: FakeAgentPlatform) -> None:
    platform.script = lambda request: Raw(delay=HANG)
    with pytest.raises(PlatformFailed) as failed:
        ask(service_for(platform, timeout_seconds=0.3), ROW)
    assert failed.value.infrastructure and len(platform.requests) == FAST.backoff.attempts
    assert "timed out" in str(failed.value)


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (Raw(body=b"x" * 300_000, headers={"Content-Type": "application/json"}), "larger than 65,536 bytes"),
        (
            Raw(
                body=gzip.compress(b"{}" * 10), headers={"Content-Type": "application/json", "Content-Encoding": "gzip"}
            ),
            "Content-Encoding 'gzip'",
        ),
        (
            Raw(body=b"<html><body>Sign in</body></html>", headers={"Content-Type": "text/html"}),
            "its answer is not JSON",
        ),
        (Raw(body=b"[" * 20_000 + b"]" * 20_000, headers={"Content-Type": "application/json"}), "RecursionError"),
        (Raw(body=b'{"metricResults": "none"}', headers={"Content-Type": "application/json"}), "shape"),
    ],
    ids=["huge", "compressed", "html", "deep", "malformed"],
)
def test_an_unusable_answer_fails_at_once_in_one_line(platform: FakeAgentPlatform, reply: Raw, said: str) -> None:
    platform.enqueue(reply)
    with pytest.raises(PlatformFailed) as failed:
        ask(service_for(platform, max_answer_bytes=65_536), ROW)
    assert said in str(failed.value) and "\n" not in str(failed.value)
    assert not failed.value.infrastructure and len(platform.requests) == 1


@pytest.mark.parametrize(
    ("answer", "score", "error"),
    [
        (Answer(results=[]), None, "Metric results missing in API response."),
        (
            Raw(body=b"{}", headers={"Content-Type": "application/json"}),
            None,
            "Metric results missing in API response.",
        ),
        (Answer(results=[{}]), None, None),
        (Answer(results=[{"score": 0.5, "error": {"code": 0}}]), 0.5, None),
        (Raw(body=b'{"metricResults": [{"score": NaN}]}', headers={"Content-Type": "application/json"}), "nan", None),
        (Raw(body=b'{"metricResults": [{"score": 1e999}]}', headers={"Content-Type": "application/json"}), "inf", None),
    ],
    ids=["empty-list", "no-results", "no-score", "error-code-0", "nan", "overflow"],
)
def test_answers_with_missing_or_odd_fields_are_read_as_the_sdk_reads_them(
    platform: FakeAgentPlatform, answer: Answer | Raw, score: object, error: str | None
) -> None:
    platform.enqueue(answer)
    [result] = ask(service_for(platform), ROW)
    shown = None if result.score is None else result.score if isinstance(score, float) else str(result.score)
    assert (shown, result.error) == (score, error)


def test_a_rejected_key_fails_at_once_and_an_error_that_echoes_the_key_never_shows_it(
    platform: FakeAgentPlatform,
) -> None:
    wrong = "wrong-secret-key-987654"
    with pytest.raises(PlatformFailed) as rejected:
        ask(service_for(platform, api_key=wrong), ROW)
    assert (
        str(rejected.value)
        == "the evaluation service failed after 1 try: HTTP 400 INVALID_ARGUMENT: API key not valid."
    )
    platform.enqueue(Raw(500, json.dumps({"error": {"code": 500, "message": f"key {API_KEY} over quota"}}).encode()))
    platform.enqueue(Raw(403, json.dumps({"error": {"code": 403, "message": f"key {API_KEY} not allowed"}}).encode()))
    with pytest.raises(PlatformFailed) as echoed:
        ask(service_for(platform), ROW)
    assert API_KEY not in str(echoed.value) and "key *** not allowed" in str(echoed.value)
    assert "check the API key" in str(echoed.value)


def test_requests_in_flight_never_exceed_the_parallelism(platform: FakeAgentPlatform) -> None:
    platform.script = lambda request: Answer(score=1.0)
    service = service_for(platform, parallelism=2)
    rows = [RowInstance(f"question {n}", "answer") for n in range(6)]
    results = ask(service, *rows)
    assert [result.score for result in results] == [1.0] * 6
    assert service.limiter.max_in_flight <= 2 and len(platform.requests) == 6


def test_a_closed_loop_gets_a_new_client(platform: FakeAgentPlatform) -> None:
    platform.script = lambda request: Answer(score=1.0)
    service = service_for(platform)
    assert ask(service, ROW)[0].score == 1.0
    assert asyncio.run(service.evaluate(metric=SAFETY, instances=[ROW]))[0].score == 1.0


def test_the_texts_of_an_answer_are_made_safe_to_keep(platform: FakeAgentPlatform) -> None:
    """Bytes that are not UTF-8, escaped lone surrogates (results.json could not be written with them) and texts of
    any length come back as text results.json can keep, cut at 10,000 characters."""
    verdicts = (
        b'[{"evaluatedRubric": {"content": {"property": {"description": "' + b"d" * 20_000 + b'"}}}, "verdict": 1}]'
    )
    body = b'{"metricResults": [{"score": 1, "explanation": "bad \xff byte \\ud800 surrogate", "rubricVerdicts": '
    body += verdicts + b"}]}"
    platform.enqueue(Raw(body=body, headers={"Content-Type": "application/json"}))
    [result] = ask(service_for(platform), ROW)
    assert result.explanation == "bad \ufffd byte \ufffd surrogate"
    description = result.verdicts[0].description or ""
    assert len(description) == 10_000 and description.endswith("…")


def test_recorded_tool_declarations_the_sdk_does_not_take_fail_in_one_line_without_asking(
    platform: FakeAgentPlatform,
) -> None:
    details = AppDetails(agent_details={"a": AgentDetails(name="a", tool_declarations=[{"function_declarations": 7}])})
    turn = invocation("Hi", "Hello", app_details=details)
    with pytest.raises(PlatformFailed) as failed:
        ask(service_for(platform), ConversationInstance((turn,)), metric=ServiceMetric("MULTI_TURN_TASK_SUCCESS"))
    assert str(failed.value).startswith("the request could not be made from the turns: ")
    assert "\n" not in str(failed.value) and platform.requests == []
