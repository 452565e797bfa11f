"""``adk-eval-gate run`` in a pull request, end to end against the fake GitHub: baseline, comment, summary,
outputs, annotations, and what happens when GitHub says no."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from adk_eval_gate.inputs.saved_results import load_results
from adk_eval_gate.report import comment, summary
from tests.conftest import validate_results
from tests.fakes.github_server import FakeGitHub
from tests.github.flows import (
    EXAMPLE,
    artifact_zip,
    passing_baseline,
    pull_request_env,
    run_step,
)


def gate(monkeypatch: pytest.MonkeyPatch, work: Path, env: dict[str, str], recorded: Path, *extra: str):  # type: ignore[no-untyped-def]
    args = ["run", EXAMPLE, "--runner", "recorded", "--recorded", str(recorded), "--output-dir", str(work / "out")]
    return run_step(monkeypatch, [*args, *extra], env, work)


@pytest.mark.slow  # runs the example agent once for all (example_results): seconds of CPU
def test_a_pull_request_compares_comments_once_and_edits_after(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub, example_results: Path
) -> None:
    baseline = passing_baseline(load_results(example_results))
    fake_github.add_workflow_run(artifacts=[("adk-eval-results", artifact_zip(baseline))])

    first = gate(monkeypatch, tmp_path, pull_request_env(tmp_path, fake_github, run_id=101), example_results)
    assert first.code == 1, first.stdout
    assert "Compared with main (run " in first.stdout and ": 1 regression · 0 improvements" in first.stdout
    assert "Pull-request comment created" in first.stdout
    assert "::error file=examples/weather_agent/weather.evalset.json,line=" in first.stdout
    assert [line for line in first.stdout.splitlines() if "ghs_flowtoken" in line] == ["::add-mask::ghs_flowtoken"]
    [comment] = fake_github.comments_on(7)
    assert comment.body.startswith("<!-- adk-eval-gate id=default digest=")
    assert (tmp_path / "out" / "comment.md").read_text(encoding="utf-8") == comment.body  # readable before pushing
    assert "/actions/runs/101)" in comment.body and "<summary><strong>1 regression</strong></summary>" in comment.body
    outputs = first.output_values()
    assert outputs["status"] == "failed" and outputs["regressions"] == "1" and outputs["failed"] == "1"
    assert outputs["comment-url"].endswith(f"#issuecomment-{comment.id}")
    results = first.results()
    validate_results(results)
    assert results["comparison"]["regressions"] == 1 and results["run"]["pull_request"] == 7
    step_summary = first.step_summary.read_text()
    assert step_summary.startswith("## ADK eval results") and "```mermaid" in step_summary
    assert fake_github.storage_requests[0]["authorization"] is None

    second = gate(monkeypatch, tmp_path, pull_request_env(tmp_path, fake_github, run_id=102), example_results)
    assert second.code == 1 and "Pull-request comment updated" in second.stdout
    [edited] = fake_github.comments_on(7)
    assert edited.id == comment.id and "/actions/runs/102)" in edited.body
    assert len(fake_github.calls("POST")) == 1 and len(fake_github.calls("PATCH")) == 1
    assert step_summary in second.step_summary.read_text()  # appended, not replaced


@pytest.mark.slow  # runs the example agent once for all (example_results): seconds of CPU
def test_a_fork_pull_request_still_reports_and_keeps_its_verdict(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub, example_results: Path
) -> None:
    fake_github.writable = False
    step = gate(monkeypatch, tmp_path, pull_request_env(tmp_path, fake_github, run_id=5, fork=True), example_results)
    assert step.code == 1  # the verdict, not a publishing failure
    warning = next(line for line in step.stdout.splitlines() if "comment was not posted" in line)
    assert warning.startswith("::warning::") and "403" in warning and "comes from a fork" in warning
    for name in ("results.json", "junit.xml", "summary.md", "comment.md"):
        assert (tmp_path / "out" / name).is_file()
    assert "## ADK eval results" in step.step_summary.read_text()
    assert step.output_values()["comment-url"] == "" and step.output_values()["status"] == "failed"
    assert fake_github.comments_on(7) == []


@pytest.mark.slow  # runs the example agent once for all (example_results): seconds of CPU
def test_significant_regressions_fail_the_gate_only_when_asked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub, example_results: Path
) -> None:
    better = passing_baseline(load_results(example_results), boost={"two_cities.response_match_score": 1.0})
    fake_github.add_workflow_run(artifacts=[("adk-eval-results", artifact_zip(better))])
    passing_only = f"{EXAMPLE}:paris_today,two_cities"
    env = pull_request_env(tmp_path, fake_github, run_id=7)
    args = ["run", passing_only, "--runner", "recorded", "--recorded", str(example_results)]
    relaxed = run_step(monkeypatch, [*args, "--output-dir", str(tmp_path / "out")], env, tmp_path)
    assert relaxed.code == 0, relaxed.stdout
    assert relaxed.output_values()["regressions"] == "1" and relaxed.output_values()["status"] == "passed"
    strict = run_step(
        monkeypatch, [*args, "--output-dir", str(tmp_path / "out"), "--fail-on-regression"], env, tmp_path
    )
    assert strict.code == 1 and strict.output_values()["status"] == "failed"
    [comment] = fake_github.comments_on(7)
    assert "1 regression fails the gate" in comment.body
    assert "::warning file=examples/weather_agent/weather.evalset.json" in strict.stdout


@pytest.mark.slow  # runs the example agent once for all (example_results): seconds of CPU
def test_a_hostile_artifact_is_refused_and_the_run_goes_on(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub, example_results: Path
) -> None:
    doc = passing_baseline(load_results(example_results))
    fake_github.add_workflow_run(artifacts=[("adk-eval-results", artifact_zip(doc, extra={"../../etc/passwd": b"x"}))])
    step = gate(monkeypatch, tmp_path, pull_request_env(tmp_path, fake_github, run_id=8), example_results)
    assert step.code == 1
    assert "::warning::baseline not used: " in step.stdout and "unsafe path '../../etc/passwd'" in step.stdout
    assert "**No comparison:** the baseline was not used" in (tmp_path / "out" / "summary.md").read_text()
    assert step.output_values()["regressions"] == "0"
    assert len(fake_github.comments_on(7)) == 1


@pytest.mark.slow  # runs the example agent once for all (example_results): seconds of CPU
def test_the_summary_and_the_comment_are_rendered_once_and_posted_as_written(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub, example_results: Path
) -> None:
    rendered: list[str] = []

    def counted(name: str, render: Callable[..., str]) -> Callable[..., str]:
        def render_counted(*args: Any, **kwargs: Any) -> str:
            rendered.append(name)
            return render(*args, **kwargs)

        return render_counted

    monkeypatch.setattr(summary, "render", counted("summary", summary.render))
    monkeypatch.setattr(comment, "render", counted("comment", comment.render))
    step = gate(monkeypatch, tmp_path, pull_request_env(tmp_path, fake_github, run_id=5), example_results)
    assert step.code == 1 and sorted(rendered) == ["comment", "summary"]
    [posted] = fake_github.comments_on(7)
    assert posted.body == (tmp_path / "out" / "comment.md").read_text(encoding="utf-8")
    written = (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")
    assert written.strip() and step.step_summary.read_text(encoding="utf-8").strip() == written.strip()


@pytest.mark.slow
def test_a_502_on_the_comment_is_retried(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub, example_results: Path
) -> None:
    fake_github.fail("POST", "/issues/7/comments", 502)
    step = gate(monkeypatch, tmp_path, pull_request_env(tmp_path, fake_github, run_id=9), example_results)
    assert "Pull-request comment created" in step.stdout
    assert [call.status for call in fake_github.calls("POST")] == [502, 201]


@pytest.mark.slow  # runs the example agent once for all (example_results): seconds of CPU
def test_without_a_token_nothing_is_posted_and_a_warning_says_why(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, example_results: Path
) -> None:
    step = gate(monkeypatch, tmp_path, pull_request_env(tmp_path, None, run_id=3, token=None), example_results)
    assert step.code == 1
    assert "::warning::no GitHub token: the pull-request comment was not posted" in step.stdout
    assert "no GitHub token to look up the base branch's results" in (tmp_path / "out" / "summary.md").read_text()


@pytest.mark.slow
def test_two_identical_adk_runs_with_on_change_make_one_comment_request(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub
) -> None:
    """Durations, token counts and other informational figures differ between the two runs; the digest does not."""
    args = ["run", EXAMPLE, "--output-dir", str(tmp_path / "out"), "--comment-mode", "on-change"]
    for run_id in (201, 202):
        step = run_step(monkeypatch, args, pull_request_env(tmp_path, fake_github, run_id=run_id), tmp_path)
        assert step.code == 1, step.stdout
    assert "Pull-request comment unchanged" in step.stdout
    writes = fake_github.calls("POST", "/comments") + fake_github.calls("PATCH", "/comments")
    assert len(writes) == 1 and len(fake_github.comments_on(7)) == 1


@pytest.mark.slow  # a gate run in a pull request against the fake GitHub, the reports and the comment written
def test_a_bad_input_in_a_pull_request_still_writes_the_reports_and_the_comment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub
) -> None:
    env = {
        **pull_request_env(tmp_path, fake_github, run_id=301),
        "INPUT_NUM-RUNS": "zero",
        "INPUT_OUTPUT-DIR": str(tmp_path / "out"),
    }
    step = run_step(monkeypatch, ["run", EXAMPLE], env, tmp_path)
    assert step.code == 2, step.stdout
    assert "input 'num-runs'" in step.stdout
    results = step.results()
    validate_results(results)
    assert results["status"] == "error" and "input 'num-runs'" in results["error"]
    assert "The run ended in error:** the gate could not run: input 'num\\-runs'" in step.step_summary.read_text()
    [comment] = fake_github.comments_on(7)
    assert "the gate could not run: input 'num\\-runs'" in comment.body and "ghs_flowtoken" not in comment.body
