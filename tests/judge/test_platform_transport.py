"""The transport under the evaluation SDK's client, against the fake service over real HTTP: answers are asked for
unencoded and read up to a limit; and the fake itself refuses a request the SDK would never send (its schema is
not a formality: ADK's own requests are checked against it in ``test_platform_parity.py``)."""

from __future__ import annotations

import asyncio
import gzip
import json

import httpx
import pytest

from adk_eval_gate.judge.platform_transport import AnswerTooLarge, CappedTransport, EncodedAnswer
from tests.fakes.agent_platform_server import API_KEY, Answer, FakeAgentPlatform, Raw
from tests.judge.platform_helpers import platform

__all__ = ["platform"]
REQUEST = {
    "metrics": [{"predefined_metric_spec": {"metric_spec_name": "safety_v1", "metric_spec_parameters": None}}],
    "instance": {"prompt": {"contents": {"contents": [{"parts": [{"text": "hi"}]}]}}},
}


def post(fake: FakeAgentPlatform, body: object, *, max_bytes: int = 4096) -> httpx.Response:
    async def go() -> httpx.Response:
        transport = CappedTransport(httpx.AsyncHTTPTransport(), max_bytes=max_bytes)
        async with httpx.AsyncClient(transport=transport) as client:
            return await client.post(
                f"{fake.url}/v1beta1/:evaluateInstances", json=body, headers={"x-goog-api-key": API_KEY}
            )

    return asyncio.run(go())


def test_an_answer_within_the_limit_is_passed_on_whole(platform: FakeAgentPlatform) -> None:
    platform.enqueue(Answer(score=0.25, explanation="é" * 100))
    response = post(platform, REQUEST)
    assert response.status_code == 200
    assert response.json() == {"metricResults": [{"score": 0.25, "explanation": "é" * 100}]}


def test_an_answer_over_the_limit_fails_the_request(platform: FakeAgentPlatform) -> None:
    platform.enqueue(Raw(body=b"{" + b" " * 10_000 + b"}"))
    with pytest.raises(AnswerTooLarge, match="larger than 4,096 bytes"):
        post(platform, REQUEST)


def test_a_compressed_answer_is_refused_as_its_decoded_size_is_unknown(platform: FakeAgentPlatform) -> None:
    platform.enqueue(Raw(body=gzip.compress(b"0" * 100_000), headers={"Content-Encoding": "gzip"}))
    with pytest.raises(EncodedAnswer, match="Content-Encoding 'gzip'"):
        post(platform, REQUEST)


def test_the_answer_is_asked_for_unencoded(platform: FakeAgentPlatform) -> None:
    platform.enqueue(Answer(score=1.0))
    post(platform, REQUEST)
    assert platform.requests[0].headers["accept-encoding"] == "identity"


@pytest.mark.parametrize(
    "body",
    [
        {**REQUEST, "extra": 1},
        {"metrics": REQUEST["metrics"] * 2, "instance": REQUEST["instance"]},
        {"metrics": [{"predefined_metric_spec": {}}], "instance": {}},
        {"metrics": REQUEST["metrics"], "instance": {"agent_eval_data": {"turns": [{"events": []}]}}},
        {"metrics": REQUEST["metrics"], "instance": {"prompt": {"contents": {"contents": [{"text": "no parts"}]}}}},
    ],
    ids=["unknown-key", "two-metrics", "no-spec-name", "turn-without-index", "content-without-parts"],
)
def test_the_fake_refuses_a_request_outside_the_sdks_shape(platform: FakeAgentPlatform, body: dict) -> None:  # type: ignore[type-arg]
    platform.script = lambda request: Answer(score=1.0)
    response = post(platform, body)
    assert response.status_code == 400 and platform.schema_errors
    assert json.loads(response.content)["error"]["status"] == "INVALID_ARGUMENT"
