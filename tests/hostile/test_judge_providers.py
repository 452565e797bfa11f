"""Hostile judge servers: what a provider (or whatever answers in its place: a proxy, a captive portal, a server a
redirect points at) sends never reaches a report as a secret or a workflow command, and never stalls the gate.

Bodies that are not answers (HTML holding the key and ``::error::`` lines, bytes that are not UTF-8, JSON with a
number too large for a float), error bodies of the same kinds, and ``Retry-After`` values of every sort. The answers
and reasons go through the service with the console's masking, as in a run; one run goes end to end in Actions.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from adk_eval_gate.judge.judge_retry import JUDGE_RETRY
from adk_eval_gate.judge.service import JudgeFailed, JudgeService
from adk_eval_gate.model.eval_config import JudgeModelOptions
from adk_eval_gate.support.console import Console
from tests.conftest import run_cli, write_json
from tests.fakes.gemini_server import FakeGemini, Reply
from tests.judge.helpers import API_KEY, gemini, judge_service
from tests.judge.providers import OPENAI_KEY, provider_servers
from tests.judge.test_run_judge import EVALSET, history, history_dir
from tests.judge.test_run_provider_judge import config, judge_script, workspace

__all__ = ["gemini", "history", "provider_servers", "workspace"]
OPTIONS = JudgeModelOptions(judge_model="gemini-2.5-flash")
COMMAND = "\n::error::pwned\n"


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def masked_service(**options: Any) -> JudgeService:
    """A Gemini judge service that masks as a run's does: the console of an environment holding the key."""
    console = Console(in_actions=False, secrets=[API_KEY])
    return judge_service(mask=console.mask, warn=console.warning, **options)


def ask_once(service: JudgeService) -> str | JudgeFailed:
    async def go() -> str | JudgeFailed:
        try:
            return await service.ask(options=OPTIONS, prompt="q")
        except JudgeFailed as failure:
            return failure
        finally:
            await service.aclose()

    return asyncio.run(go())


HOSTILE_BODIES = {
    "html holding the key and a command": (
        Reply.body(f"<html><title>Sign in</title>{COMMAND}{API_KEY}</html>".encode()),
        "(HTML)",
    ),
    "bytes that are not utf-8": (
        Reply.body(b"\xff\xfe\x80" + API_KEY.encode() + b"\x81", content_type="application/json"),
        "(bytes that are not UTF-8 text)",
    ),
    "json with a number too large for a float": (
        Reply.body(
            b'{"candidates": [{"content": {"parts": [{"text": "ok"}]}}], "usageMetadata": {"promptTokenCount": 1e400}}',
            content_type="application/json",
        ),
        "(JSON: 1e400 is too large for a number)",
    ),
    "json without the answer's shape": (Reply.body(b"[1, 2, 3]", content_type="application/json"), "(JSON list"),
    "empty": (Reply.body(b"", content_type="application/json"), "(empty)"),
    "json nested 200,000 deep": (
        Reply.body(b'{"a": ' * 200_000 + b"1" + b"}" * 200_000, content_type="application/json"),
        "(JSON nested too deep to read)",
    ),
    "plain text": (Reply.body(b"Service temporarily moved", content_type="text/plain"), "(text that is not JSON)"),
}


@pytest.mark.parametrize(("reply", "said"), HOSTILE_BODIES.values(), ids=HOSTILE_BODIES.keys())
def test_a_successful_body_that_is_not_an_answer_is_one_masked_line_saying_what_it_is(
    gemini: FakeGemini, reply: Reply, said: str
) -> None:
    gemini.script = lambda request: reply
    failure = ask_once(masked_service())
    assert isinstance(failure, JudgeFailed), failure
    reason = str(failure)
    where = gemini.url.removeprefix("http://")
    assert reason.startswith(f"judge gemini-2.5-flash failed after 1 try: the judge at {where} answered 200 with ")
    assert said in reason and "\n" not in reason and API_KEY not in reason and "pwned" not in reason
    assert gemini.count == 1  # not retried: asking again gets the same page


ERROR_BODIES = {
    "html": Reply.body(f"<html>{COMMAND}{API_KEY}</html>".encode(), status=502),
    "not utf-8": Reply.body(b"\xff\xfe " + API_KEY.encode() + b"\x80", status=500, content_type="text/plain"),
}


@pytest.mark.parametrize("reply", ERROR_BODIES.values(), ids=ERROR_BODIES.keys())
def test_an_error_body_in_the_reason_is_one_masked_line(gemini: FakeGemini, reply: Reply) -> None:
    gemini.script = lambda request: reply
    failure = ask_once(masked_service())
    assert isinstance(failure, JudgeFailed), failure
    reason = str(failure)
    assert reason.startswith(f"judge gemini-2.5-flash failed after 3 tries: HTTP {reply.status}"), reason
    assert API_KEY not in reason and "***" in reason and "\n" not in reason


@pytest.mark.parametrize(
    ("retry_after", "asked"),
    [  # what the reason says the provider asked for, as a pattern
        ("3600", "3,600 s"),
        ("1e400", "an endless time"),  # infinity
        ("99999999999999999999999", r"1e\+23 s"),
        ("Fri, 31 Dec 9999 23:59:59 GMT", r"[\d,]{15,} s"),  # a date in the far future
    ],
)
def test_a_retry_after_beyond_the_cap_gives_up_at_once(gemini: FakeGemini, retry_after: str, asked: str) -> None:
    gemini.script = lambda request: Reply.error(429, retry_after=retry_after)
    time = FakeTime()
    failure = ask_once(masked_service(retry=JUDGE_RETRY, sleep=time.sleep, clock=time.clock))
    assert isinstance(failure, JudgeFailed) and not failure.infrastructure, failure
    said = rf"; the provider asked to wait {asked}, more than the 120 s the judge waits at most, so it was not asked"
    assert re.search(said + " again; the quota of gemini-2.5-flash", str(failure)), failure
    assert gemini.count == 1 and time.slept == []


def test_a_spent_quota_whose_answer_echoes_the_key_and_a_command_stays_masked_in_every_later_reason(
    gemini: FakeGemini,
) -> None:
    reply = Reply.body(f"<html>{COMMAND}{API_KEY}</html>".encode(), status=429)
    gemini.script = lambda request: reply
    time = FakeTime()
    service = masked_service(retry=JUDGE_RETRY, sleep=time.sleep, clock=time.clock)

    async def twice() -> list[str]:
        reasons = []
        try:
            for _ in range(2):
                try:
                    await service.ask(options=OPTIONS, prompt="q")
                except JudgeFailed as failure:
                    reasons.append(str(failure))
        finally:
            await service.aclose()
        return reasons

    given_up, later = asyncio.run(twice())
    assert later.startswith("not attempted: the quota of gemini-2.5-flash (gemini) ran out earlier in this run")
    for reason in (given_up, later):
        assert API_KEY not in reason and "***" in reason and "\n" not in reason
    assert gemini.count == JUDGE_RETRY.rate_limited_attempts


@pytest.mark.parametrize("retry_after", ["-5", "nan", "soon", "0"])
def test_a_retry_after_that_is_no_wait_is_retried_by_the_backoff(gemini: FakeGemini, retry_after: str) -> None:
    gemini.enqueue(Reply.error(429, retry_after=retry_after), "answered")
    time = FakeTime()
    assert ask_once(masked_service(retry=JUDGE_RETRY, sleep=time.sleep, clock=time.clock)) == "answered"
    assert gemini.count == 2 and len(time.slept) == 1 and 0 <= time.slept[0] <= 1.0


def test_a_huge_token_count_is_held_and_said_in_one_line(gemini: FakeGemini) -> None:
    gemini.script = lambda request: Reply(text="ok", prompt_tokens=10**400, output_tokens=-(10**30))
    warnings: list[str] = []
    service = judge_service(warn=warnings.append)
    assert ask_once(service) == "ok"
    [warning] = warnings
    assert (
        "an integer of 398+ digits input" in warning and "-1,000,000,000,000,000,000,000,000,000,000 output" in warning
    )
    assert (service.counters.input_tokens, service.counters.output_tokens) == (100_000_000, 0)


# ---------------------------------------------------------------------------------------------------------
# End to end, in Actions: the gate as a real process (all it prints), a judge on OpenAI's API


@pytest.mark.slow
def test_hostile_judge_answers_reach_no_report_and_start_no_command(
    workspace: Path, provider_servers: dict[str, FakeGemini]
) -> None:
    fake = provider_servers["openai"]
    html = f"<html>{COMMAND}{OPENAI_KEY}</html>".encode()
    fake.script = lambda r: Reply.body(html) if r.number == 5 else f"{judge_script(r)}{COMMAND}{OPENAI_KEY}"
    write_json(workspace / "weather_agent" / "test_config.json", config("gpt-4o-mini"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_"))}
    env.update(
        GITHUB_ACTIONS="true",
        GITHUB_WORKSPACE=str(workspace),
        OPENAI_API_KEY=OPENAI_KEY,
        OPENAI_BASE_URL=f"{fake.url}/v1",
        LITELLM_LOCAL_MODEL_COST_MAP="True",
    )
    recorded = ["--runner", "recorded", "--recorded", str(history_dir(workspace)), "--judge-parallelism", "1"]
    result = run_cli("run", EVALSET, *recorded, cwd=workspace, env=env)
    output = result.stdout + result.stderr
    assert "Traceback" not in output, output
    data = json.loads((workspace / "adk-eval-results" / "results.json").read_text())
    skipped = [m for case in data["cases"] for m in case["metrics"] if m["status"] == "not_evaluated"]
    [metric] = skipped  # the one whose samples met the HTML page
    where = fake.url.removeprefix("http://")
    assert f"the judge at {where} answered 200 with a body that is not an OpenAI answer (HTML)" in metric["reason"]
    files = (workspace / "adk-eval-results").rglob("*")
    everything = output + "".join(f.read_text(errors="replace") for f in files if f.is_file())
    assert OPENAI_KEY not in everything.replace(f"::add-mask::{OPENAI_KEY}", "")
    commands = [line for line in output.splitlines() if re.match(r"^\s*(::|##\[)", line)]
    assert not [line for line in commands if not re.match(r"^::(add-mask|group|endgroup|error|warning)", line)]
    assert not [line for line in output.splitlines() if "pwned" in line and line.lstrip().startswith("::")]
