"""agents-cli's metric code and files, hostile, through the real command line in GitHub Actions mode: code that
exits, kills its process, hangs or prints workflow commands and secrets costs its metric only (not evaluated, with
the reason), never the run, the other metrics or the step's log; a dataset and a config that are hostile are one
error line each, and the other files run."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli

pytestmark = pytest.mark.slow

SECRET = "sk-hostile-key-1234567890"
DATASET = {
    "eval_cases": [
        {
            "eval_case_id": "answered",
            "prompt": {"role": "user", "parts": [{"text": "hi"}]},
            "responses": [{"response": {"role": "model", "parts": [{"text": "hello"}]}}],
        }
    ]
}
CODE = {
    "exits": "import sys\n\ndef evaluate(instance):\n    sys.exit(0)\n",
    "os_exit": "import os\n\ndef evaluate(instance):\n    os._exit(0)\n",
    "hangs": "import time\n\ndef evaluate(instance):\n    time.sleep(3600)\n",
    "loud": (
        "import os, sys\n\ndef evaluate(instance):\n"
        "    print('::error file=app.py::forged by the metric')\n"
        "    os.write(1, b'::add-mask::x\\n::stop-commands::token\\n')\n"
        "    print('key', os.environ['OPENAI_API_KEY'])\n"
        "    return {'score': 1, 'explanation': 'used ' + os.environ['OPENAI_API_KEY']}\n"
    ),
}


def _project(repo: Path) -> Path:
    (repo / ".git").mkdir(parents=True)
    folder = repo / "tests" / "eval"
    (folder / "datasets").mkdir(parents=True)
    (folder / "datasets" / "answers-dataset.json").write_text(json.dumps(DATASET), encoding="utf-8")
    lines = ["metrics_to_run: [exits, os_exit, hangs, loud]", "custom_metrics:"]
    for name, code in CODE.items():
        (folder / f"{name}.py").write_text(code, encoding="utf-8")
        lines += [f"  - name: {name}", f"    custom_function_file: {name}.py"]
    lines += ["adk_eval_gate:", "  thresholds: {loud: 1}"]
    (folder / "eval_config.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return repo


def _metrics(repo: Path) -> dict[str, dict[str, Any]]:
    data = json.loads((repo / "out" / "results.json").read_text(encoding="utf-8"))
    (case,) = data["cases"]
    return {metric["name"]: metric for metric in case["metrics"]}


@pytest.mark.timeout(300)  # a guard: the hanging metric would hold the run for an hour
def test_metric_code_that_exits_hangs_or_prints_workflow_commands_costs_its_metric_only(tmp_path: Path) -> None:
    repo = _project(tmp_path / "repo")
    env = {"GITHUB_ACTIONS": "true", "OPENAI_API_KEY": SECRET}
    result = run_cli("run", "--output-dir", "out", "--timeout", "3", cwd=repo, env=env, timeout=240)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    metrics = _metrics(repo)
    assert "called sys.exit(0); a metric function returns a score" in metrics["exits"]["reason"]
    assert "its process exited with code 0" in metrics["os_exit"]["reason"]
    assert "did not finish within 3 s" in metrics["hangs"]["reason"]
    assert metrics["loud"]["status"] == "passed" and metrics["loud"]["score"] == 1.0
    shown = [line for line in output.splitlines() if SECRET in line]
    assert shown == [f"::add-mask::{SECRET}"]  # the gate asks the runner to mask it; it is never printed otherwise
    assert "key ***" in output and SECRET not in (repo / "out" / "results.json").read_text(encoding="utf-8")
    relayed = [line for line in output.splitlines() if "forged by the metric" in line or "stop-commands" in line]
    assert len(relayed) == 2 and not any(line.lstrip().startswith("::") for line in relayed), relayed
    assert "internal error" not in output and "Traceback" not in output


def test_a_hostile_dataset_and_config_are_an_error_line_each_and_the_other_files_run(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    good = repo / "good" / "tests" / "eval"
    (good / "datasets").mkdir(parents=True)
    (good / "datasets" / "fine-dataset.json").write_text(json.dumps(DATASET), encoding="utf-8")
    (good / "eval_config.yaml").write_text(
        "metrics_to_run: [one]\ncustom_metrics:\n  - name: one\n    custom_function: |\n"
        "      def evaluate(instance):\n          return 1\nadk_eval_gate:\n  thresholds: {one: 1}\n",
        encoding="utf-8",
    )
    bomb = repo / "bomb" / "tests" / "eval"
    (bomb / "datasets").mkdir(parents=True)
    (bomb / "datasets" / "fine-dataset.json").write_text(json.dumps(DATASET), encoding="utf-8")
    aliases = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{n}: &{n} [{', '.join(['*' + p] * 10)}]\n" for p, n in zip("abcdef", "bcdefg", strict=True)
    )
    (bomb / "eval_config.yaml").write_text("metrics_to_run: [one]\n" + aliases, encoding="utf-8")
    bad = repo / "bad" / "tests" / "eval"
    (bad / "datasets").mkdir(parents=True)
    (bad / "datasets" / "deep-dataset.json").write_text('{"eval_cases": [' * 300 + "]}" * 300, encoding="utf-8")
    (bad / "eval_config.yaml").write_text("metrics_to_run: [general_quality]\n", encoding="utf-8")
    os.mkfifo(bad / "datasets" / "pipe-dataset.json")
    result = run_cli("run", "--output-dir", "out", cwd=repo, env={"GITHUB_ACTIONS": "true"}, timeout=240)
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    data = json.loads((repo / "out" / "results.json").read_text(encoding="utf-8"))
    errors = {file["path"]: file["error"] for file in data["files"] if file["error"]}
    assert "expands to more than 100,000 values" in errors["bomb/tests/eval/datasets/fine-dataset.json"]
    assert "nested more than 120 levels deep" in errors["bad/tests/eval/datasets/deep-dataset.json"]
    assert "FIFO" in errors["bad/tests/eval/datasets/pipe-dataset.json"]
    (case,) = [case for case in data["cases"] if case["file"] == "good/tests/eval/datasets/fine-dataset.json"]
    assert case["status"] == "passed"
    assert "::error file=bomb/tests/eval/eval_config.yaml" in output  # one annotation, from the gate itself
    assert "internal error" not in output and "Traceback" not in output
