"""Judge throughput through google-genai against the local fake Gemini server (real HTTP).

Asks ``--questions`` judge questions, each answered after ``--latency`` seconds, at several
``--judge-parallelism`` values, and prints wall time, throughput, the most requests the server saw at once,
and time / ideal (total latency / parallelism). Then: the same questions with a cache (first and second run:
the second must make no request), and with a server that answers 429 (Retry-After: 0) to every third request.

    python bench/judge_throughput.py [--questions 200] [--latency 0.05]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adk_eval_gate.judge.cache import JudgeCache
from adk_eval_gate.judge.credentials import JudgeCredentials
from adk_eval_gate.judge.gemini_client import GeminiJudge
from adk_eval_gate.judge.service import JudgeService
from adk_eval_gate.model.eval_config import JudgeModelOptions
from tests.fakes.gemini_server import FakeGemini, Reply

KEY = "bench-key-123456"
OPTIONS = JudgeModelOptions(judge_model="gemini-bench")


def service(parallelism: int, cache: Path | None = None) -> JudgeService:
    backend = GeminiJudge(JudgeCredentials(vertexai=False, api_key=KEY))
    return JudgeService(backend=backend, parallelism=parallelism, cache=JudgeCache(cache) if cache else None)


def ask_all(judge: JudgeService, questions: int) -> float:
    async def go() -> float:
        started = time.monotonic()
        try:
            await asyncio.gather(*(judge.ask(options=OPTIONS, prompt=f"question {i}") for i in range(questions)))
        finally:
            await judge.aclose()
        return time.monotonic() - started

    return asyncio.run(go())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.05)
    args = parser.parse_args()
    with FakeGemini(api_key=KEY) as fake:
        os.environ["GOOGLE_GEMINI_BASE_URL"] = fake.url
        fake.script = lambda request: Reply(text='{"is_the_agent_response_valid": "valid"}', delay=args.latency)
        print(f"{args.questions} questions, {args.latency * 1000:.0f} ms per answer")
        for parallelism in (1, 4, 8, 16):
            fake.max_in_flight = 0
            judge = service(parallelism)
            seconds = ask_all(judge, args.questions)
            ideal = args.questions * args.latency / parallelism
            print(
                f"  judge-parallelism {parallelism:>2}: {seconds:6.2f} s, {args.questions / seconds:6.1f} answers/s, "
                f"max in flight {fake.max_in_flight:>2}, time / ideal {seconds / ideal:4.2f}"
            )
        with tempfile.TemporaryDirectory() as folder:
            before = fake.count
            first = ask_all(service(8, Path(folder)), args.questions)
            middle = fake.count
            second_judge = service(8, Path(folder))
            second = ask_all(second_judge, args.questions)
            print(
                f"  cache: first run {first:.2f} s ({middle - before} requests), second run {second:.3f} s "
                f"({fake.count - middle} requests, {second_judge.counters.cached} cached)"
            )
        fake.error_every(3, 429, retry_after="0")
        before = fake.count
        judge = service(8)
        seconds = ask_all(judge, args.questions)
        print(
            f"  429 on every third request: {seconds:.2f} s, {fake.count - before} requests for {args.questions} "
            f"answers, {judge.counters.retries} retries, {judge.counters.failed} failed"
        )


if __name__ == "__main__":
    main()
