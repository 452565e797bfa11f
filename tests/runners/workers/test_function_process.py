"""agents-cli's metric code runs in a process of its own: an exit, a crash or a hang ends that process only, within
the time given; what it prints reaches the console line by line; it runs without the GitHub token, with the
project's .env; what it reads in the repository is sent back."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from adk_eval_gate.metrics.agents_cli_functions import FunctionAnswer, FunctionCall
from adk_eval_gate.model.agents_cli_config import FunctionDefinition
from adk_eval_gate.runners.workers import observe
from adk_eval_gate.runners.workers.function_process import FunctionProcesses, env_secrets

pytestmark = pytest.mark.slow  # each call forks a process


def _call(body: str, *, env_file: str | None = None, instance: dict[str, object] | None = None) -> FunctionCall:
    definition = FunctionDefinition(source=body, filename="<custom_metric:m>", env_file=env_file)
    return FunctionCall("m", definition, instance or {"response": {"parts": [{"text": "hi"}]}})


def _answer(call: FunctionCall, *, timeout: float = 30.0) -> tuple[FunctionAnswer, list[str]]:
    printed: list[str] = []
    processes = FunctionProcesses(timeout=timeout, parallelism=2, on_output=printed.append)
    return asyncio.run(processes(call)), printed


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("import os\n\ndef evaluate(instance):\n    os._exit(0)\n", "m's code: its process exited with code 0"),
        (
            "import os, signal\n\ndef evaluate(instance):\n    os.kill(os.getpid(), signal.SIGKILL)\n",
            "killed by SIGKILL",
        ),
        ("import time\n\ndef evaluate(instance):\n    time.sleep(3600)\n", "m's code: did not finish within 2 s"),
        ("import time\ntime.sleep(3600)\n", "did not finish within 2 s"),
    ],
)
@pytest.mark.timeout(120)  # a guard: the hanging function would hold the test for an hour
def test_code_that_ends_or_blocks_its_process_is_a_reason_not_the_end_of_the_run(body: str, said: str) -> None:
    answer, _ = _answer(_call(body), timeout=2)
    assert answer.score is None and said in (answer.error or "")


def test_what_the_code_prints_is_relayed_line_by_line_with_the_metrics_name() -> None:
    body = (
        "import os, sys\nprint('::error file=x.py::forged at load')\n\n"
        "def evaluate(instance):\n    print('::add-mask::secret')\n    os.write(2, b'::stop-commands::x\\n')\n"
        "    return {'score': 1}\n"
    )
    answer, printed = _answer(_call(body))
    assert answer.score == 1.0
    assert sorted(printed) == sorted(
        ["m: ::error file=x.py::forged at load", "m: ::add-mask::secret", "m: ::stop-commands::x"]
    )


def test_the_code_runs_without_the_github_token_and_with_the_projects_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_secretgithubtoken")
    monkeypatch.delenv("JUDGE_API_KEY", raising=False)
    env = tmp_path / ".env"
    env.write_text("JUDGE_API_KEY=from-the-dotenv-file\nPLAIN=1\n", encoding="utf-8")
    body = (
        "import os\n\ndef evaluate(instance):\n"
        "    seen = [os.environ.get('GITHUB_TOKEN'), os.environ.get('JUDGE_API_KEY')]\n"
        "    return {'score': 1, 'explanation': ' '.join(map(str, seen))}\n"
    )
    answer, _ = _answer(_call(body, env_file=str(env)))
    assert answer.explanation == "None from-the-dotenv-file"
    assert "JUDGE_API_KEY" not in os.environ
    assert env_secrets(str(env)) == ["from-the-dotenv-file"]


def test_what_the_code_reads_in_the_repository_is_sent_back_for_only_affected(tmp_path: Path) -> None:
    golden = tmp_path / "golden.txt"
    golden.write_text("Paris", encoding="utf-8")
    observe.install(tmp_path)
    body = f"def evaluate(instance):\n    return {{'score': float(open({str(golden)!r}).read() == 'Paris')}}\n"

    async def scored() -> tuple[FunctionAnswer, set[str]]:
        with observe.recording() as used:
            answer = await FunctionProcesses(timeout=30, parallelism=1, on_output=print)(_call(body))
        return answer, used

    answer, used = asyncio.run(scored())
    assert answer.score == 1.0 and str(golden) in answer.read and str(golden) in used
