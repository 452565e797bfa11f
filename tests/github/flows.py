"""Running the real command line in-process as a GitHub Actions step would, against the fake GitHub.

The example agent runs once for real (ADK runner, scripted model); later runs replay its results.json with the
recorded runner, so every flow goes through the whole pipeline in well under a second.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from adk_eval_gate import verdict
from adk_eval_gate.model.results import ResultsDocument
from adk_eval_gate.report.writer import results_json
from tests.conftest import gate_in_process
from tests.fakes.github_server import FakeGitHub

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = "examples/weather_agent/weather.evalset.json"
HEAD_SHA = "c0ffee" * 6 + "c0ff"  # the fake's pull request #7
FAILING = f"{EXAMPLE}::wrong_city_on_purpose"


@dataclass
class Step:
    code: int
    stdout: str
    outputs: Path
    step_summary: Path
    out_dir: Path

    def output_values(self) -> dict[str, str]:
        from tests.github.test_outputs import parse_output_file

        return parse_output_file(self.outputs.read_text()) if self.outputs.exists() else {}

    def results(self) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads((self.out_dir / "results.json").read_text())
        return loaded


def run_step(monkeypatch: pytest.MonkeyPatch, args: list[str], env: dict[str, str], work: Path) -> Step:
    """``adk-eval-gate ARGS`` in this process (``gate_in_process``) from the repository's root, as a GitHub Actions
    step with ``env`` (``pull_request_env``) runs it; its outputs and job summary are looked for in ``work``."""
    done = gate_in_process(monkeypatch, *args, cwd=REPO, env=env)
    return Step(done.returncode, done.stdout, work / "github_output", work / "step_summary.md", work / "out")


def pull_request_env(
    work: Path, fake: FakeGitHub | None, *, run_id: int, fork: bool = False, token: str | None = "ghs_flowtoken"
) -> dict[str, str]:
    event = {
        "number": 7,
        "pull_request": {
            "number": 7,
            "head": {"sha": HEAD_SHA, "repo": {"full_name": "contributor/repo" if fork else "octo/repo"}},
            "base": {"ref": "main", "repo": {"full_name": "octo/repo"}},
        },
        "repository": {"full_name": "octo/repo", "default_branch": "main"},
    }
    path = work / "event.json"
    path.write_text(json.dumps(event))
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(path),
        "GITHUB_REPOSITORY": "octo/repo",
        "GITHUB_WORKFLOW_REF": "octo/repo/.github/workflows/eval.yml@refs/pull/7/merge",
        "GITHUB_BASE_REF": "main",
        "GITHUB_HEAD_REF": "feature",
        "GITHUB_SHA": "4d" * 20,
        "GITHUB_RUN_ID": str(run_id),
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_OUTPUT": str(work / "github_output"),
        "GITHUB_STEP_SUMMARY": str(work / "step_summary.md"),
        "GITHUB_WORKSPACE": str(REPO),
    }
    if fake is not None:
        env["GITHUB_API_URL"] = fake.url
    if token:
        env["GITHUB_TOKEN"] = token
    return env


def passing_baseline(doc: ResultsDocument, *, boost: dict[str, float] | None = None) -> ResultsDocument:
    """``doc`` as it would have been on the base branch: the failing case passing (and some scores raised), each
    changed score given to every run and turn it is computed from, and the case decided again."""
    cases = []
    for case in doc.cases:
        scores: dict[str, float | None] = {}
        for metric in case.metrics:
            score = (boost or {}).get(f"{case.eval_id}.{metric.name}", metric.score)
            if case.id == FAILING and metric.threshold is not None:
                score = max(score or 0.0, metric.threshold)
            scores[metric.name] = score
        runs = [
            run.model_copy(
                update={
                    "metrics": [
                        m.model_copy(
                            update={
                                "score": scores[m.name],
                                "invocation_scores": [scores[m.name]] * len(m.invocation_scores),
                            }
                        )
                        if m.name in scores
                        else m
                        for m in run.metrics
                    ]
                }
            )
            for run in case.runs
        ]
        metrics = [
            m.model_copy(update={"invocation_scores": [[scores[m.name]] * len(turns) for turns in m.invocation_scores]})
            for m in case.metrics
        ]
        changed = case.model_copy(update={"runs": runs, "metrics": metrics})
        cases.append(verdict.decide_case(changed, pass_rule="mean"))
    rebuilt = doc.model_copy(update={"cases": cases, "metrics": verdict.metric_summaries(cases)})
    return verdict.decide(rebuilt, None, verdict.Policy())


def artifact_zip(doc: ResultsDocument, *, extra: dict[str, bytes] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("results.json", results_json(doc))
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return buffer.getvalue()
