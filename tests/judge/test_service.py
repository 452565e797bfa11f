"""The judge service through google-genai against the fake Gemini server over HTTP: answers, token counts,
retries honouring Retry-After, failures, timeouts, the shared rate limit and its pause."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest
from google.genai import types

from adk_eval_gate.judge.judge_retry import JudgeRetry
from adk_eval_gate.judge.limiter import JudgeLimiter
from adk_eval_gate.judge.service import JudgeFailed, JudgeService
from adk_eval_gate.model.eval_config import JudgeModelOptions
from adk_eval_gate.support.retry import Backoff
from tests.fakes.gemini_server import HANG, AllAtOnce, FakeGemini, Reply
from tests.judge.helpers import API_KEY, gemini, judge_service

__all__ = ["gemini"]
T = TypeVar("T")
OPTIONS = JudgeModelOptions(judge_model="gemini-test")


def run(service: JudgeService, work: Callable[[JudgeService], Awaitable[T]]) -> T:
    async def go() -> T:
        try:
            return await work(service)
        finally:
            await service.aclose()

    return asyncio.run(go())


def test_answer_tokens_model_key_and_config(gemini: FakeGemini) -> None:
    gemini.enqueue(Reply(text="the verdict", prompt_tokens=120, output_tokens=7))
    options = JudgeModelOptions(
        judge_model="gemini-2.5-pro", judge_model_config=types.GenerateContentConfig(temperature=0.25)
    )
    service = judge_service()
    answer = run(service, lambda s: s.ask(options=options, prompt="Is it right?"))
    assert answer == "the verdict"
    [request] = gemini.requests
    assert request.model == "gemini-2.5-pro"
    assert request.api_key == API_KEY
    assert request.prompt == "Is it right?"
    assert request.body["contents"] == [{"parts": [{"text": "Is it right?"}], "role": "user"}]
    assert request.body["generationConfig"]["temperature"] == 0.25
    assert "tools" not in request.body
    counters = service.counters
    assert (counters.calls, counters.cached, counters.failed, counters.retries) == (1, 0, 0, 0)
    assert (counters.input_tokens, counters.output_tokens) == (120, 7)


class RecordedPauses(JudgeLimiter):
    """The service's rate limit, recording each pause it was told to make and when that pause ends (the same
    clock as the fake server's arrival times); ``paused`` is set once it was told to pause."""

    def __init__(self, parallelism: int) -> None:
        super().__init__(parallelism)
        self.pauses: list[tuple[float, float]] = []  # (seconds asked, the end of the pause then)
        self.paused = asyncio.Event()

    def pause(self, seconds: float) -> None:
        super().pause(seconds)
        self.pauses.append((seconds, self._resume_at))
        self.paused.set()


def recording_pauses(service: JudgeService) -> RecordedPauses:
    service.limiter = RecordedPauses(service.limiter.parallelism)
    return service.limiter


@pytest.mark.slow
def test_429_then_success_waits_as_told(gemini: FakeGemini) -> None:
    gemini.enqueue(Reply.error(429, retry_after="0.4"), Reply.error(503, retry_after="0"), "fine")
    service = judge_service()
    limiter = recording_pauses(service)
    assert run(service, lambda s: s.ask(options=OPTIONS, prompt="q")) == "fine"
    assert gemini.count == 3
    assert [seconds for seconds, _ in limiter.pauses] == [0.4, 0.0]  # the Retry-After of each answer
    assert gemini.requests[1].arrived >= limiter.pauses[0][1]  # asked again once the 0.4 s were over
    assert (service.counters.calls, service.counters.retries, service.counters.failed) == (3, 2, 0)


def test_retry_info_in_the_error_body_is_honoured(gemini: FakeGemini) -> None:
    from google.genai import errors

    from adk_eval_gate.judge.judge_retry import server_delay
    from adk_eval_gate.support.retry import transient_status

    error = errors.ClientError(
        429,
        {
            "error": {
                "code": 429,
                "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "7s"}],
            }
        },
    )
    assert transient_status(429)
    assert server_delay(error) == 7.0


def test_500_forever_fails_after_the_fixed_number_of_tries(gemini: FakeGemini) -> None:
    gemini.script = lambda request: Reply.error(500)
    service = judge_service(retry=_fast(attempts=4))
    with pytest.raises(JudgeFailed, match=r"judge gemini-test failed after 4 tries: HTTP 500 INTERNAL") as failed:
        run(service, lambda s: s.ask(options=OPTIONS, prompt="q"))
    assert failed.value.infrastructure  # an outage: the run becomes an infrastructure error, not a failure
    assert gemini.count == 4  # google-genai's own retries are off: every try is ours
    assert (service.counters.calls, service.counters.failed, service.counters.retries) == (4, 1, 3)


def test_backoff_grows_exponentially_with_jitter() -> None:
    import random

    from adk_eval_gate.judge.judge_retry import JUDGE_RETRY

    rng = random.Random(1)
    for failed, ceiling in ((1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (9, 30.0)):
        delays = [JUDGE_RETRY.backoff.delay(failed, rng=rng) for _ in range(50)]
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert len(set(delays)) > 1


def test_a_bad_key_is_not_retried(gemini: FakeGemini) -> None:
    service = judge_service(api_key="wrong-key-0000")
    with pytest.raises(
        JudgeFailed, match=r"after 1 try: HTTP 403 PERMISSION_DENIED.*check the judge API key"
    ) as failed:
        run(service, lambda s: s.ask(options=OPTIONS, prompt="q"))
    assert not failed.value.infrastructure  # the configuration's problem: not evaluated, as before
    assert gemini.count == 1
    assert "wrong-key-0000" not in str(service.counters)


@pytest.mark.slow
@pytest.mark.timeout(60)  # a guard: the answer never comes, so only the client's timeout ends the test
def test_a_hanging_judge_times_out_and_is_retried(gemini: FakeGemini) -> None:
    gemini.script = lambda request: Reply(text="late", delay=HANG)
    service = judge_service(timeout=0.5, retry=_fast(attempts=2))
    with pytest.raises(JudgeFailed, match=r"after 2 tries: timed out$"):
        run(service, lambda s: s.ask(options=OPTIONS, prompt="q"))
    assert gemini.count == 2


@pytest.mark.slow
def test_slow_answers_are_awaited_in_parallel(gemini: FakeGemini) -> None:
    # answered only once all eight are in the server (one after the other: 500s), then 0.4 s late
    gemini.script = AllAtOnce(8, lambda request: Reply(text=f"answer to {request.prompt}", delay=0.4))
    service = judge_service(parallelism=8, timeout=30)

    async def work(s: JudgeService) -> list[str]:
        return await asyncio.gather(*(s.ask(options=OPTIONS, prompt=f"q{i}") for i in range(8)))

    answers = run(service, work)
    assert answers == [f"answer to q{i}" for i in range(8)]
    assert gemini.max_in_flight == 8 and gemini.count == 8


@pytest.mark.slow
@pytest.mark.parametrize("parallelism", [1, 4])
def test_the_server_never_sees_more_than_the_limit(gemini: FakeGemini, parallelism: int) -> None:
    gemini.script = lambda request: Reply(text="ok", delay=0.05)
    service = judge_service(parallelism=parallelism)

    async def work(s: JudgeService) -> list[str]:
        return await asyncio.gather(*(s.ask(options=OPTIONS, prompt=f"q{i}") for i in range(20)))

    assert run(service, work) == ["ok"] * 20
    assert gemini.max_in_flight == parallelism
    assert service.limiter.max_in_flight == parallelism


@pytest.mark.slow
def test_a_429_pauses_every_caller(gemini: FakeGemini) -> None:
    def script(request: object) -> Reply | str:
        return Reply.error(429, retry_after="0.5") if gemini.count == 1 else "ok"

    gemini.script = script  # type: ignore[assignment]
    service = judge_service(parallelism=1)
    limiter = recording_pauses(service)

    async def work(s: JudgeService) -> list[str]:
        first = asyncio.ensure_future(s.ask(options=OPTIONS, prompt="first"))
        await limiter.paused.wait()  # the first request has had its 429
        second = await s.ask(options=OPTIONS, prompt="second")
        return [await first, second]

    assert run(service, work) == ["ok", "ok"]
    [(seconds, resumed)] = limiter.pauses
    assert seconds == 0.5
    assert all(request.arrived >= resumed for request in gemini.requests[1:])  # neither caller asked before then


def test_a_judge_that_keeps_failing_is_not_asked_again(gemini: FakeGemini) -> None:
    gemini.script = lambda request: Reply.error(503, retry_after="0")
    service = judge_service(retry=_fast(attempts=2))

    async def work(s: JudgeService) -> list[str]:
        reasons = []
        for index in range(5):
            try:
                await s.ask(options=OPTIONS, prompt=f"q{index}")
            except JudgeFailed as failure:
                reasons.append(str(failure))
        return reasons

    reasons = run(service, work)
    assert len(reasons) == 5
    assert gemini.count == 3 * 2  # three questions tried twice each, then no more calls
    assert reasons[-1].endswith("(no more judge calls after 3 failures in a row)")
    assert service.counters.failed == 5


@pytest.mark.slow
def test_429s_get_more_tries_than_outages(gemini: FakeGemini) -> None:
    retry = JudgeRetry(_fast(attempts=2).backoff, rate_limited_attempts=4)
    gemini.enqueue(*[Reply.error(429, retry_after="0")] * 3, "through")
    assert run(judge_service(retry=retry), lambda s: s.ask(options=OPTIONS, prompt="q")) == "through"
    assert gemini.count == 4
    gemini.enqueue(*[Reply.error(429, retry_after="0")] * 4)
    with pytest.raises(JudgeFailed, match="after 4 tries: HTTP 429"):
        run(judge_service(retry=retry), lambda s: s.ask(options=OPTIONS, prompt="q"))
    gemini.enqueue(Reply.error(500), Reply.error(500))
    with pytest.raises(JudgeFailed, match="after 2 tries: HTTP 500"):
        run(judge_service(retry=retry), lambda s: s.ask(options=OPTIONS, prompt="q"))


def test_a_key_echoed_by_the_server_never_reaches_the_reason(gemini: FakeGemini) -> None:
    gemini.enqueue(Reply(status=400, text=f"request with key={API_KEY} is malformed"))
    with pytest.raises(JudgeFailed) as raised:
        run(judge_service(), lambda s: s.ask(options=OPTIONS, prompt="q"))
    assert API_KEY not in str(raised.value)
    assert "key=*** is malformed" in str(raised.value)


def _fast(*, attempts: int) -> JudgeRetry:
    return JudgeRetry(Backoff(attempts=attempts, initial=0.01, maximum=30.0, jitter=(0.5, 1.0)))


def _ask_all(service: JudgeService, prompts: list[str], *, model: str = "gemini-test") -> list[str | JudgeFailed]:
    """Every prompt asked at once (cases and samples judged together); a question that fails gives its failure."""
    options = JudgeModelOptions(judge_model=model)

    async def one(s: JudgeService, prompt: str) -> str | JudgeFailed:
        try:
            return await s.ask(options=options, prompt=prompt)
        except JudgeFailed as failure:
            return failure

    async def work(s: JudgeService) -> list[str | JudgeFailed]:
        return list(await asyncio.gather(*(one(s, prompt) for prompt in prompts)))

    return run(service, work)


@pytest.mark.slow
def test_a_spent_quota_ends_the_run_within_one_questions_retry_budget(gemini: FakeGemini) -> None:
    gemini.script = lambda request: Reply.error(429, retry_after="0")
    retry = JudgeRetry(_fast(attempts=2).backoff, rate_limited_attempts=4)
    service = judge_service(retry=retry, parallelism=2)
    answers = _ask_all(service, [f"case {case} sample {sample}" for case in range(4) for sample in range(3)])
    # one question's four tries, and the first try of the other question already under way
    assert gemini.count <= retry.rate_limited_attempts + 1
    assert all(isinstance(answer, JudgeFailed) and not answer.infrastructure for answer in answers), answers
    reasons = [str(answer) for answer in answers]
    [given_up] = [reason for reason in reasons if reason.startswith("judge gemini-test failed after 4 tries: HTTP 429")]
    assert given_up.endswith(
        "; the quota of gemini-test (gemini) is spent for this run, so later calls to it are not attempted"
    )
    later = [reason for reason in reasons if reason != given_up]
    assert len(later) == 11
    assert all(
        reason.startswith("not attempted: the quota of gemini-test (gemini) ran out earlier in this run (judge")
        for reason in later
    ), later
    assert service.counters.failed == 12


def test_a_spent_quota_is_that_models_only(gemini: FakeGemini) -> None:
    gemini.script = lambda request: Reply.error(429, retry_after="0") if request.model == "spent" else "ok"
    service = judge_service(retry=JudgeRetry(_fast(attempts=2).backoff, rate_limited_attempts=2))

    async def work(s: JudgeService) -> list[str | JudgeFailed]:
        answers: list[str | JudgeFailed] = []
        for model in ("spent", "spent", "fresh"):
            try:
                answers.append(await s.ask(options=JudgeModelOptions(judge_model=model), prompt="q"))
            except JudgeFailed as failure:
                answers.append(failure)
        return answers

    first, second, fresh = run(service, work)
    assert isinstance(first, JudgeFailed) and isinstance(second, JudgeFailed)
    assert str(second).startswith("not attempted: the quota of spent (gemini)")
    assert fresh == "ok"
    assert [request.model for request in gemini.requests] == ["spent", "spent", "fresh"]


@pytest.mark.parametrize(
    "failures",
    [
        pytest.param([Reply.error(429, retry_after="0"), "recovered"], id="429-that-recovered"),
        pytest.param([Reply.error(500, retry_after="0")] * 2, id="500-after-every-try"),
        pytest.param([Reply.error(400)], id="400"),
    ],
)
def test_other_failures_and_a_429_that_recovered_leave_the_quota_open(
    gemini: FakeGemini, failures: list[Reply | str]
) -> None:
    gemini.enqueue(*failures, "later")
    service = judge_service(retry=_fast(attempts=2))
    answers = _ask_all(service, ["first"])
    answers += _ask_all(service, ["second"])
    assert answers[-1] == "later"
    assert gemini.count == len(failures) + 1
