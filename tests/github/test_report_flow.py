"""``adk-eval-gate report RESULTS --comment``: the two-workflow set-up for forks, and publishing merged shards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adk_eval_gate.inputs.saved_results import load_results
from adk_eval_gate.report.writer import results_json
from tests.fakes.github_server import FakeGitHub
from tests.github.flows import EXAMPLE, HEAD_SHA, artifact_zip, passing_baseline, pull_request_env, run_step

TRIGGER_URL = "https://github.com/octo/repo/actions/runs/777"


def workflow_run_env(work: Path, fake: FakeGitHub, *, head_sha: str = HEAD_SHA) -> dict[str, str]:
    event = {
        "action": "completed",
        "workflow_run": {
            "id": 777,
            "event": "pull_request",
            "head_sha": head_sha,
            "html_url": TRIGGER_URL,
            "pull_requests": [],  # GitHub leaves this empty for pull requests from forks
        },
    }
    (work / "event.json").write_text(json.dumps(event))
    return {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "workflow_run",
        "GITHUB_EVENT_PATH": str(work / "event.json"),
        "GITHUB_REPOSITORY": "octo/repo",
        "GITHUB_API_URL": fake.url,
        "GITHUB_TOKEN": "ghs_writable_token",
        "GITHUB_RUN_ID": "778",
        "GITHUB_OUTPUT": str(work / "github_output"),
        "GITHUB_STEP_SUMMARY": str(work / "step_summary.md"),
    }


def uploaded_results(example_results: Path, work: Path, *, pull_request: int | None) -> Path:
    """What the fork's pull_request run uploaded: its results, with whatever it chose to write in them."""
    doc = load_results(example_results)
    run = doc.run.model_copy(update={"pull_request": pull_request, "run_url": "https://evil.example/phish"})
    path = work / "downloaded" / "results.json"
    path.parent.mkdir(parents=True)
    path.write_text(results_json(doc.model_copy(update={"run": run})))
    return path


@pytest.mark.slow  # runs the example agent once for all (example_results): seconds of CPU
def test_workflow_run_comments_on_the_checked_pull_request_with_trusted_links(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub, example_results: Path
) -> None:
    results = uploaded_results(example_results, tmp_path, pull_request=7)
    args = ["report", str(results), "--comment", "--output-dir", str(tmp_path / "out")]
    step = run_step(monkeypatch, args, workflow_run_env(tmp_path, fake_github), tmp_path)
    assert step.code == 1  # the saved verdict
    [comment] = fake_github.comments_on(7)
    assert f"]({TRIGGER_URL})" in comment.body and "evil.example" not in comment.body
    assert len(fake_github.calls("GET", "^/repos/octo/repo/pulls/7$")) == 1
    assert "::error file=" not in step.stdout  # annotations would land on the wrong commit
    assert step.output_values()["comment-url"].endswith(f"#issuecomment-{comment.id}")
    assert "## ADK eval results" in step.step_summary.read_text()


@pytest.mark.slow  # runs the example agent once for all (example_results): seconds of CPU
def test_workflow_run_refuses_a_number_that_is_not_the_evaluated_pull_request(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub, example_results: Path
) -> None:
    fake_github.add_pull_request(8, head_sha="de" * 20)
    results = uploaded_results(example_results, tmp_path, pull_request=8)
    args = ["report", str(results), "--comment", "--output-dir", str(tmp_path / "out")]
    step = run_step(monkeypatch, args, workflow_run_env(tmp_path, fake_github), tmp_path)
    assert "::warning::pull request #8 is not the one the triggering run evaluated" in step.stdout
    assert fake_github.calls("POST") == [] and fake_github.comments_on(8) == []
    assert (tmp_path / "out" / "junit.xml").is_file()


@pytest.mark.slow  # runs the example agent once for all (example_results): seconds of CPU
def test_merged_shards_are_published_like_one_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub, example_results: Path
) -> None:
    baseline = passing_baseline(load_results(example_results))
    fake_github.add_workflow_run(artifacts=[("adk-eval-results", artifact_zip(baseline))])
    env = pull_request_env(tmp_path, fake_github, run_id=31)
    for shard in ("1/2", "2/2"):
        out = tmp_path / f"shard{shard[0]}"
        args = ["run", EXAMPLE, "--runner", "recorded", "--recorded", str(example_results), "--shard", shard]
        run_step(monkeypatch, [*args, "--output-dir", str(out), "--comment-mode", "off"], env, tmp_path)
    assert fake_github.comments_on(7) == []
    merged = tmp_path / "merged.json"
    run_step(
        monkeypatch,
        ["merge", str(tmp_path / "shard1"), str(tmp_path / "shard2"), "--results", str(merged)],
        {},
        tmp_path,
    )
    step = run_step(
        monkeypatch, ["report", str(merged), "--comment", "--output-dir", str(tmp_path / "out")], env, tmp_path
    )
    assert step.code == 1
    [comment] = fake_github.comments_on(7)
    assert "**3 cases:** 2 passed · 1 failed" in comment.body and "2 shards merged" in comment.body
    assert "1 regression · 0 improvements" in comment.body  # merged results are compared with the base branch again
    assert "::error file=examples/weather_agent/weather.evalset.json" in step.stdout


GOLDEN_PASSING = Path(__file__).resolve().parents[1] / "golden" / "inputs" / "all_pass.results.json"


def _said_about_the_comment(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if "comment" in line.lower() and not line.startswith("Wrote ")]


def test_report_comment_outside_a_pull_request_says_in_one_line_why_nothing_was_posted(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    args = ["report", str(GOLDEN_PASSING), "--comment", "--output-dir", str(tmp_path / "out")]
    step = run_step(monkeypatch, args, {}, tmp_path)
    assert step.code == 0, step.stdout
    assert _said_about_the_comment(step.stdout) == [
        "No pull-request comment posted: not in a GitHub Actions run (no pull request event), and no --pr NUMBER "
        "was given"
    ]


def test_report_comment_on_a_push_says_the_event_names_no_pull_request_and_posts_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub
) -> None:
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "push",
        "GITHUB_REPOSITORY": "octo/repo",
        "GITHUB_API_URL": fake_github.url,
        "GITHUB_TOKEN": "ghs_writable_token",
    }
    args = ["report", str(GOLDEN_PASSING), "--comment", "--output-dir", str(tmp_path / "out")]
    step = run_step(monkeypatch, args, env, tmp_path)
    assert step.code == 0, step.stdout
    assert _said_about_the_comment(step.stdout) == [
        "No pull-request comment posted: the push event names no pull request, and no --pr NUMBER was given"
    ]
    assert fake_github.calls("POST") == []


def test_report_comment_with_comment_mode_off_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    args = ["report", str(GOLDEN_PASSING), "--comment", "--comment-mode", "off", "--output-dir", str(tmp_path / "out")]
    step = run_step(monkeypatch, args, {}, tmp_path)
    assert _said_about_the_comment(step.stdout) == ["No pull-request comment posted: --comment-mode is off"]


def test_report_without_comment_says_nothing_about_one(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    step = run_step(monkeypatch, ["report", str(GOLDEN_PASSING), "--output-dir", str(tmp_path / "out")], {}, tmp_path)
    assert _said_about_the_comment(step.stdout) == []
