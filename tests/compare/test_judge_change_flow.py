"""A pull request that changes a judge, through the real command line: the base branch's run (labels, a judge
metric judged by the fake Gemini) kept as the artifact the fake GitHub serves, then the pull request's run where the
judge's model changed and the fake answers otherwise for the new model: the comment's "Judges" shows kappa before
and after with their intervals, results.json records both, and the drop is a regression (a note, or a failure with
--fail-on-regression). A pull request that changes only the judge's sampling, or only a rubric judge's rubrics, is
calibrated on both sides, its fingerprint changed and its kappa kept."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from adk_eval_gate.inputs.saved_results import load_results
from tests.conftest import validate_results, write_json
from tests.fakes.gemini_server import FakeGemini, SeenRequest
from tests.fakes.github_server import FakeGitHub
from tests.github.conftest import fake_github
from tests.github.flows import artifact_zip, pull_request_env
from tests.judge.helpers import API_KEY, gemini, rubric_answer, v2_answer

__all__ = ["fake_github", "gemini"]
pytestmark = pytest.mark.slow
JUDGE = "final_response_match_v2"
BASE_MODEL, HEAD_MODEL = "gemini-2.5-flash", "gemini-2.5-pro"
# rows: the person's invalid, valid; columns: the judge's invalid, valid
AGREEMENT = {BASE_MODEL: [[24, 1], [1, 24]], HEAD_MODEL: [[20, 5], [10, 15]]}


def turn(question: str, answer: str) -> dict[str, Any]:
    return {
        "user_content": {"role": "user", "parts": [{"text": question}]},
        "final_response": {"role": "model", "parts": [{"text": answer}]},
    }


def labels() -> list[dict[str, Any]]:
    """50 labels, half valid: each response says which verdict each model gives it (``<model>=invalid``), so the
    fake judge on each model has the confusion matrix AGREEMENT gives it."""
    made = []
    for human in (0, 1):
        for number in range(25):
            verdicts = []
            for model, matrix in AGREEMENT.items():
                says_invalid = number < matrix[human][0]
                verdicts.append(f"{model}={'invalid' if says_invalid else 'valid'}")
            question = f"question {human}-{number}"
            made.append(
                {
                    "metric": JUDGE,
                    "invocation": turn(question, f"answer {human}-{number} {' '.join(verdicts)}"),
                    "expected_invocation": turn(question, "the right answer"),
                    "label": "valid" if human else "invalid",
                }
            )
    return made


def judge_script(request: SeenRequest) -> str:
    return v2_answer("invalid" if f"{request.model}=invalid" in request.prompt else "valid")


def configure(repo: Path, *, model: str, samples: int = 1) -> None:
    options = {"judge_model": model, "num_samples": samples}
    write_json(
        repo / "evals" / "test_config.json",
        {"criteria": {JUDGE: {"threshold": 0.5, "judge_model_options": options}}},
    )


@pytest.fixture
def workspace(repo: Path) -> Path:
    configure(repo, model=BASE_MODEL)
    row = {"eval_id": "weather", "prompt": "Weather?", "reference": "Sunny.", "response": "Sunny."}
    (repo / "evals" / "rows.jsonl").write_text(json.dumps(row) + "\n")
    write_json(repo / "evals" / "judges.labels.json", {"labels": labels()})
    return repo


def served_base(workspace: Path, fake: FakeGitHub, cli: Callable[..., Any], env: dict[str, str]) -> dict[str, Any]:
    """The base branch's run, its results.json the artifact of the base branch's newest run on the fake GitHub."""
    base = cli("run", "--dataset", "evals/rows.jsonl", "--output-dir", "base-results", cwd=workspace, env=env)
    assert base.returncode == 0, base.stdout
    saved = workspace / "base-results" / "results.json"
    fake.add_workflow_run(artifacts=[("adk-eval-results", artifact_zip(load_results(saved)))])
    written: dict[str, Any] = json.loads(saved.read_text())
    return written


def pull_request(
    workspace: Path, fake: FakeGitHub, cli: Callable[..., Any], env: dict[str, str], *extra: str
) -> tuple[Any, dict[str, Any], str]:
    """The pull request's run against the fake GitHub: its process, results.json and posted comment."""
    github = pull_request_env(workspace, fake, run_id=301) | {"GITHUB_WORKSPACE": str(workspace)}
    done = cli("run", "--dataset", "evals/rows.jsonl", *extra, cwd=workspace, env=env | github)
    results = json.loads((workspace / "adk-eval-results" / "results.json").read_text())
    validate_results(results)
    [posted] = fake.comments_on(7)
    return done, results, posted.body


def test_a_pull_request_that_changes_the_judges_model_shows_both_kappas_and_its_drop_is_a_regression(
    workspace: Path, gemini: FakeGemini, fake_github: FakeGitHub, cli_in_process: Callable[..., Any]
) -> None:
    gemini.script = judge_script
    env = {"GOOGLE_API_KEY": API_KEY, "GOOGLE_GEMINI_BASE_URL": gemini.url}
    base = served_base(workspace, fake_github, cli_in_process, env)
    [before] = base["calibrations"]
    assert (before["judge_model"], before["confusion"], before["gates"]) == (BASE_MODEL, AGREEMENT[BASE_MODEL], True)
    configure(workspace, model=HEAD_MODEL)

    noted, results, comment = pull_request(workspace, fake_github, cli_in_process, env)
    assert noted.returncode == 0, noted.stdout
    [after] = results["calibrations"]
    assert after["judge_model"] == HEAD_MODEL and after["confusion"] == AGREEMENT[HEAD_MODEL]
    assert not after["gates"] and after["kappa"] < before["kappa_interval"][0]
    [change] = results["comparison"]["judge_changes"]
    assert (change["kappa"], change["kappa_interval"]) == (after["kappa"], after["kappa_interval"])
    assert (change["base_kappa"], change["base_kappa_interval"]) == (before["kappa"], before["kappa_interval"])
    assert change["changed"] and change["dropped"] and change["base_judge_model"] == BASE_MODEL
    [regression] = [f for f in results["findings"] if f["metric"] == JUDGE]
    assert (regression["rule"], regression["effect"]) == ("regressions", "none")
    low, high = (f"{bound:.2f}" for bound in before["kappa_interval"])
    judges = comment.split("### Judges", 1)[1]
    assert f"final\\_response\\_match\\_v2 on gemini\\-2.5\\-pro: kappa {after['kappa']:.2f} \\[" in judges
    assert (
        f"before: kappa {before['kappa']:.2f} \\[{low}, {high}\\] on gemini\\-2.5\\-flash, a different judge, "
        "a drop beyond its interval" in judges
    )

    failing, results, _ = pull_request(workspace, fake_github, cli_in_process, env, "--fail-on-regression")
    assert failing.returncode == 1, failing.stdout
    assert [f["effect"] for f in results["findings"] if f["metric"] == JUDGE] == ["failed"]
    assert results["status"] == "failed"


def test_a_pull_request_that_changes_only_the_judges_sampling_is_calibrated_again_with_the_same_kappa(
    workspace: Path, gemini: FakeGemini, fake_github: FakeGitHub, cli_in_process: Callable[..., Any]
) -> None:
    gemini.script = judge_script
    env = {"GOOGLE_API_KEY": API_KEY, "GOOGLE_GEMINI_BASE_URL": gemini.url}
    [before] = served_base(workspace, fake_github, cli_in_process, env)["calibrations"]
    asked = gemini.count
    configure(workspace, model=BASE_MODEL, samples=3)

    done, results, comment = pull_request(workspace, fake_github, cli_in_process, env)
    assert done.returncode == 0, done.stdout
    assert gemini.count - asked == 3 * (50 + 1)  # calibrated again on every label, three samples each
    [after] = results["calibrations"]
    assert after["fingerprint"] != before["fingerprint"]
    assert (after["kappa"], after["kappa_interval"], after["gates"]) == (
        before["kappa"],
        before["kappa_interval"],
        True,
    )
    assert after["self_consistency"] == 1.0
    [change] = results["comparison"]["judge_changes"]
    assert change["changed"] and not change["dropped"]
    assert not [f for f in results["findings"] if f["metric"] == JUDGE]
    assert "a different judge" in comment.split("### Judges", 1)[1] and "a drop beyond" not in comment


RUBRIC_JUDGE = "rubric_based_final_response_quality_v1"
RUBRIC_LINE = re.compile(r"\[id: ([^\]]+)\] ([^\n]+)")


def rubric_script(request: SeenRequest) -> str:
    """Each rubric of the prompt answered: the labelled one as the response says this model answers it, the
    criterion's yes."""
    texts = dict(RUBRIC_LINE.findall(request.prompt))
    answer = "no" if f"{request.model}=invalid" in request.prompt else "yes"
    return rubric_answer({rubric: answer if rubric == "labelled_rubric" else "yes" for rubric in texts}, texts)


def configure_rubrics(repo: Path, *, rubric: str) -> None:
    criterion = {
        "threshold": 0.5,
        "judge_model_options": {"judge_model": BASE_MODEL, "num_samples": 1},
        "rubrics": [{"rubric_id": "tone", "rubric_content": {"text_property": rubric}}],
    }
    write_json(repo / "evals" / "test_config.json", {"criteria": {RUBRIC_JUDGE: criterion}})


def test_a_pull_request_that_changes_only_a_rubric_judges_rubrics_is_calibrated_again_with_the_same_kappa(
    workspace: Path, gemini: FakeGemini, fake_github: FakeGitHub, cli_in_process: Callable[..., Any]
) -> None:
    gemini.script = rubric_script
    rubric_labels = [
        {**label, "metric": RUBRIC_JUDGE, "rubric": "The answer is polite.", "label": "yes" if human else "no"}
        for label, human in ((label, label["label"] == "valid") for label in labels())
    ]
    write_json(workspace / "evals" / "judges.labels.json", {"labels": rubric_labels})
    configure_rubrics(workspace, rubric="The answer is friendly.")
    env = {"GOOGLE_API_KEY": API_KEY, "GOOGLE_GEMINI_BASE_URL": gemini.url}
    [before] = served_base(workspace, fake_github, cli_in_process, env)["calibrations"]
    assert (before["metric"], before["confusion"], before["unjudged"]) == (RUBRIC_JUDGE, AGREEMENT[BASE_MODEL], 0)
    configure_rubrics(workspace, rubric="The answer is friendly and short.")

    done, results, comment = pull_request(workspace, fake_github, cli_in_process, env)
    assert done.returncode == 0, done.stdout
    [after] = results["calibrations"]
    assert after["fingerprint"] != before["fingerprint"] and after["judge_model"] == BASE_MODEL
    kept = ("kappa", "kappa_interval", "gates", "confusion")
    assert [after[name] for name in kept] == [before[name] for name in kept] and after["gates"]
    [change] = results["comparison"]["judge_changes"]
    assert change["changed"] and not change["dropped"]
    assert "a different judge" in comment.split("### Judges", 1)[1] and "a drop beyond" not in comment
