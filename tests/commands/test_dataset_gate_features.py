"""What the gate does for every eval file, on an Agent Platform dataset with agents-cli's code metrics:
``--only-affected`` runs the cases a change can touch (the dataset, its config, the metric's code file and what the
code reads are their inputs), ``--shard`` runs each case in one shard and ``merge`` puts them together, and against
a baseline a metric without a threshold is compared but never counted as a regression while one with a threshold
is."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from adk_eval_gate.model.results import parse_document
from tests.git_repos import git

pytestmark = pytest.mark.slow  # metric code runs in processes of its own; git

Cli = Callable[..., subprocess.CompletedProcess[str]]


def _answer(eval_id: str, text: str) -> dict[str, Any]:
    return {
        "eval_case_id": eval_id,
        "prompt": {"role": "user", "parts": [{"text": f"question {eval_id}"}]},
        "responses": [{"response": {"role": "model", "parts": [{"text": text}]}}],
    }


DATASET = {"eval_cases": [_answer("one", "Paris"), _answer("two", "Paris"), _answer("three", "Lyon")]}
CONFIG = """\
metrics_to_run: [matches_golden, length]
custom_metrics:
  - name: matches_golden
    custom_function_file: golden_metric.py
  - name: length
    custom_function: |
      def evaluate(instance):
          return {"score": len(instance["response"]["parts"][0]["text"])}
adk_eval_gate:
  thresholds: {matches_golden: 1}
"""
METRIC = """\
from pathlib import Path

GOLDEN = Path("tests/eval/golden.txt")  # agents-cli runs the file's code as a string: no __file__, the project's folder


def evaluate(instance):
    return {"score": float(instance["response"]["parts"][0]["text"] == GOLDEN.read_text().strip())}
"""


def _project(repo: Path) -> Path:
    folder = repo / "tests" / "eval"
    (folder / "datasets").mkdir(parents=True)
    (folder / "datasets" / "answers-dataset.json").write_text(json.dumps(DATASET, indent=2), encoding="utf-8")
    (folder / "eval_config.yaml").write_text(CONFIG, encoding="utf-8")
    (folder / "golden_metric.py").write_text(METRIC, encoding="utf-8")
    (folder / "golden.txt").write_text("Paris\n", encoding="utf-8")
    (repo / "README.md").write_text("project\n", encoding="utf-8")
    (repo / ".gitignore").write_text("adk-eval-results/\nout*/\n__pycache__/\n", encoding="utf-8")
    git(repo, "init", "--quiet", "--initial-branch=main")
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "--message", "answers")
    return repo


def _results(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    return data


def _metrics(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {case["eval_id"]: {m["name"]: m for m in case["metrics"]} for case in data["cases"]}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return _project(tmp_path / "repo")


def test_only_affected_runs_the_cases_whose_dataset_config_or_metric_code_changed(
    project: Path, cli_in_process: Cli, tmp_path: Path
) -> None:
    base = cli_in_process("run", "--output-dir", "out-base", cwd=project)
    assert base.returncode == 1, base.stdout  # "three" is not the golden answer
    read = parse_document(_results(project / "out-base"), shown="results.json")
    inputs = read.cases[0].inputs.files if read.cases[0].inputs else []
    for path in ("answers-dataset.json", "eval_config.yaml", "golden_metric.py", "golden.txt"):
        assert any(found.endswith(path) for found in inputs), inputs
    baseline = tmp_path / "base.json"
    baseline.write_text((project / "out-base" / "results.json").read_text(encoding="utf-8"), encoding="utf-8")

    (project / "README.md").write_text("changed\n", encoding="utf-8")
    git(project, "commit", "--quiet", "--all", "--message", "docs")
    untouched = cli_in_process(
        "run", "--only-affected", "--baseline", str(baseline), "--output-dir", "out-a", cwd=project
    )
    assert [case.get("carried") is not None for case in _results(project / "out-a")["cases"]] == [True] * 3, (
        untouched.stdout
    )

    (project / "tests" / "eval" / "golden.txt").write_text("Lyon\n", encoding="utf-8")
    git(project, "commit", "--quiet", "--all", "--message", "new golden answer")
    rerun = cli_in_process("run", "--only-affected", "--baseline", str(baseline), "--output-dir", "out-b", cwd=project)
    data = _results(project / "out-b")
    assert not any(case.get("carried") for case in data["cases"]), rerun.stdout
    assert {eval_id: m["matches_golden"]["score"] for eval_id, m in _metrics(data).items()} == {
        "one": 0.0,
        "two": 0.0,
        "three": 1.0,
    }


def test_shards_split_the_cases_and_merge_into_the_whole_run(project: Path, cli_in_process: Cli) -> None:
    for shard in ("1/2", "2/2"):
        cli_in_process("run", "--shard", shard, "--output-dir", f"out-{shard[0]}", cwd=project)
    ids = [[case["eval_id"] for case in _results(project / f"out-{n}")["cases"]] for n in "12"]
    assert sorted(ids[0] + ids[1]) == ["one", "three", "two"] and ids[0] and ids[1]
    merged = cli_in_process(
        "merge", "out-1/results.json", "out-2/results.json", "--results", "out-m/results.json", cwd=project
    )
    assert merged.returncode == 0, merged.stdout
    assert _results(project / "out-m")["totals"] == {
        **_results(project / "out-m")["totals"],
        "cases": 3,
        "passed": 2,
        "failed": 1,
    }


def test_a_metric_without_a_threshold_is_compared_with_the_base_and_never_counted_as_a_regression(
    project: Path, cli_in_process: Cli, tmp_path: Path
) -> None:
    cli_in_process("run", "--output-dir", "out-base", cwd=project)
    baseline = tmp_path / "base.json"
    baseline.write_text((project / "out-base" / "results.json").read_text(encoding="utf-8"), encoding="utf-8")
    shorter = {"eval_cases": [_answer("one", "Paris"), _answer("two", "P"), _answer("three", "Lyon")]}
    (project / "tests" / "eval" / "datasets" / "answers-dataset.json").write_text(json.dumps(shorter), encoding="utf-8")
    head = cli_in_process(
        "run", "--baseline", str(baseline), "--fail-on-regression", "--output-dir", "out-h", cwd=project
    )
    data = _results(project / "out-h")
    metrics = _metrics(data)
    assert (metrics["two"]["length"]["score"], metrics["two"]["length"]["status"]) == (1.0, "informational")
    assert metrics["two"]["matches_golden"]["status"] == "failed"
    comparison = data["comparison"]
    deltas = {delta["name"]: delta for delta in comparison["metrics"]}
    assert deltas["length"]["base_mean"] == pytest.approx(14 / 3) and deltas["length"]["head_mean"] == pytest.approx(
        10 / 3
    )
    regressed = [
        (change["case_id"].split("::")[1], change["metric"])
        for change in comparison["changes"]
        if change["kind"] == "regressed"
    ]
    assert regressed == [("two", "matches_golden")] and comparison["regressions"] == 1
    assert head.returncode == 1, head.stdout
    summary = (project / "out-h" / "summary.md").read_text(encoding="utf-8")
    assert "length" in summary
