"""``adk-eval-gate calibrate`` against the fake Gemini judge: labels with a known confusion matrix give kappa and
its interval equal to statsmodels', a judge metric not in use is noted, and a second run is served from the cache."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from statsmodels.stats.inter_rater import cohens_kappa

from adk_eval_gate.inputs.labels_files import load_labels
from adk_eval_gate.model.evalset import content_text
from tests.conftest import write_json
from tests.fakes.gemini_server import FakeGemini, SeenRequest
from tests.judge.helpers import API_KEY, gemini, v2_answer
from tests.judge.providers import OPENAI_KEY, provider_env, provider_servers

__all__ = ["gemini", "provider_servers"]
pytestmark = pytest.mark.slow
KNOWN = [[20, 5], [10, 15]]  # rows: the person's invalid, valid; columns: the judge's
SECRET = "sk-live-0123456789abcdef"


def turn(question: str, answer: str) -> dict[str, Any]:
    return {
        "user_content": {"role": "user", "parts": [{"text": question}]},
        "final_response": {"role": "model", "parts": [{"text": answer}]},
    }


def known_labels() -> list[dict[str, Any]]:
    """The labels of KNOWN: the judge says invalid exactly when the response says JUDGE_NO."""
    labels = []
    for human, row in enumerate(KNOWN):
        for judge, count in enumerate(row):
            for number in range(count):
                answer = f"answer {human}{judge}-{number} {'JUDGE_NO' if judge == 0 else 'JUDGE_YES'} <b>{SECRET}</b>"
                labels.append(
                    {
                        "metric": "final_response_match_v2",
                        "invocation": turn(f"question {human}{judge}-{number}", answer),
                        "expected_invocation": turn(f"question {human}{judge}-{number}", "the right answer"),
                        "label": "valid" if human else "invalid",
                        "case": "weather",
                    }
                )
    return labels


def judge_script(request: SeenRequest) -> str:
    return v2_answer("invalid" if "JUDGE_NO" in request.prompt else "valid")


@pytest.fixture
def workspace(repo: Path) -> Path:
    options = {"judge_model": "gemini-2.5-flash", "num_samples": 1}
    write_json(
        repo / "evals" / "test_config.json",
        {"criteria": {"final_response_match_v2": {"threshold": 0.5, "judge_model_options": options}}},
    )
    case = {"eval_id": "weather", "conversation": [{"invocation_id": "t", **turn("Weather?", "Sunny.")}]}
    write_json(repo / "evals" / "weather.evalset.json", {"eval_set_id": "weather", "eval_cases": [case]})
    unused = {"metric": "hallucinations_v1", "invocation": turn("q", "a"), "label": 1.0}
    write_json(repo / "evals" / "judges.labels.json", {"labels": [*known_labels(), unused]})
    return repo


def test_calibrate_measures_kappa_as_statsmodels_does(
    workspace: Path, gemini: FakeGemini, cli_in_process: Callable[..., Any]
) -> None:
    gemini.script = judge_script
    env = {"GOOGLE_API_KEY": API_KEY, "GOOGLE_GEMINI_BASE_URL": gemini.url, "PAYMENTS_API_KEY": SECRET}
    args = ("calibrate", "evals", "--cache-dir", ".cache", "--min-judge-labels", "40")
    result = cli_in_process(*args, cwd=workspace, env=env)
    assert result.returncode == 0, result.stdout
    text = (workspace / "adk-eval-results" / "calibration.json").read_text()
    assert SECRET not in text and "***" in text
    written = json.loads(text)
    [judge] = written["metrics"]
    theirs = cohens_kappa(np.array(KNOWN))
    assert judge["confusion"] == KNOWN and judge["labels"] == 50 and judge["agreement"] == 0.7
    assert judge["kappa"] == pytest.approx(theirs.kappa, abs=1e-12)
    assert judge["kappa_interval"] == pytest.approx([theirs.kappa_low, theirs.kappa_upp], abs=1e-9)
    assert judge["base_rate"] == [0.5, 0.5] and judge["judge_rate"] == [0.6, 0.4]
    assert judge["self_consistency"] == 1.0 and len(judge["disagreements"]) == 15
    assert judge["gates"] is False and "lower bound is under 0.6" in judge["reason"]
    assert "final_response_match_v2 on gemini-2.5-flash: kappa 0.40 [" in result.stdout
    assert "1 label of hallucinations_v1: no eval file's config uses it" in result.stdout
    markdown = (workspace / "adk-eval-results" / "calibration.md").read_text()
    assert "| **0** | 20 | 5 | 50% |" in markdown and "<b>" not in markdown
    asked = len(gemini.requests)
    assert asked == 50
    again = cli_in_process(*args, cwd=workspace, env=env)
    assert again.returncode == 0 and len(gemini.requests) == asked  # an unchanged judge is not asked again


def test_run_with_a_judge_under_the_floor_does_not_fail_its_case_and_says_why(
    workspace: Path, gemini: FakeGemini, cli_in_process: Callable[..., Any]
) -> None:
    gemini.script = judge_script
    row = {"eval_id": "wrong", "prompt": "Weather?", "reference": "Sunny.", "response": "Rainy. JUDGE_NO"}
    (workspace / "evals" / "rows.jsonl").write_text(json.dumps(row) + "\n")
    env = {"GOOGLE_API_KEY": API_KEY, "GOOGLE_GEMINI_BASE_URL": gemini.url}
    base = ("run", "--dataset", "evals/rows.jsonl", "--judge-labels", "evals/judges.labels.json")
    result = cli_in_process(*base, cwd=workspace, env=env)
    assert result.returncode == 0, result.stdout
    doc = json.loads((workspace / "adk-eval-results" / "results.json").read_text())
    [case] = doc["cases"]
    [judged] = [m for m in case["metrics"] if m["name"] == "final_response_match_v2"]
    assert judged["score"] == 0.0 and judged["status"] == "informational"
    assert case["status"] == "passed"
    assert (
        case["findings"][0]["rule"] == "judge_calibration"
        and "lower bound is under 0.6" in case["findings"][0]["reason"]
    )
    assert doc["calibrations"][0]["gates"] is False and doc["calibrations"][0]["labels"] == 50
    assert "final_response_match_v2 on gemini-2.5-flash: kappa 0.40" in result.stdout
    required = cli_in_process(*base, "--require-calibrated-judges", cwd=workspace, env=env)
    assert required.returncode == 1
    trusted = cli_in_process(*base, "--min-judge-kappa", "0.1", "--min-judge-labels", "40", cwd=workspace, env=env)
    assert trusted.returncode == 1, trusted.stdout  # a judge that earned its gate fails the case
    suggested = workspace / "evals" / "suggested.labels.json"
    made = cli_in_process("label", "adk-eval-results/results.json", "--output", str(suggested), cwd=workspace)
    assert made.returncode == 0 and "1 suggested label, none confirmed" in made.stdout
    [label] = load_labels(suggested, display="s").labels
    assert (label.metric, label.label, label.confirmed, label.case) == (
        "final_response_match_v2",
        "invalid",
        False,
        "evals/rows.jsonl::wrong",
    )
    assert content_text(label.invocation.final_response) == "Rainy. JUDGE_NO"


def test_a_run_without_labels_writes_no_judges(
    workspace: Path, gemini: FakeGemini, cli_in_process: Callable[..., Any]
) -> None:
    gemini.script = judge_script
    (workspace / "evals" / "judges.labels.json").unlink()
    row = {"eval_id": "wrong", "prompt": "Weather?", "reference": "Sunny.", "response": "Rainy. JUDGE_NO"}
    (workspace / "evals" / "rows.jsonl").write_text(json.dumps(row) + "\n")
    env = {"GOOGLE_API_KEY": API_KEY, "GOOGLE_GEMINI_BASE_URL": gemini.url}
    result = cli_in_process("run", "--dataset", "evals/rows.jsonl", cwd=workspace, env=env)
    assert result.returncode == 1, result.stdout
    assert '"calibrations"' not in (workspace / "adk-eval-results" / "results.json").read_text()


def test_calibrate_a_judge_on_an_openai_compatible_provider(
    workspace: Path, provider_servers: dict[str, FakeGemini], cli_in_process: Callable[..., Any]
) -> None:
    fake = provider_servers["openai"]
    fake.script = judge_script
    options = {"judge_model": "gpt-4o-mini", "num_samples": 1}
    write_json(
        workspace / "evals" / "test_config.json",
        {"criteria": {"final_response_match_v2": {"threshold": 0.5, "judge_model_options": options}}},
    )
    result = cli_in_process("calibrate", "evals", cwd=workspace, env=provider_env(provider_servers))
    assert result.returncode == 0, result.stdout
    [judge] = json.loads((workspace / "adk-eval-results" / "calibration.json").read_text())["metrics"]
    theirs = cohens_kappa(np.array(KNOWN))
    assert judge["judge_model"] == "gpt-4o-mini" and judge["confusion"] == KNOWN
    assert judge["kappa_interval"] == pytest.approx([theirs.kappa_low, theirs.kappa_upp], abs=1e-9)
    assert fake.count == 50 and OPENAI_KEY not in result.stdout


AGENTS_CLI_CONFIG = """\
metrics_to_run:
  - helpfulness

custom_metrics:
  - name: helpfulness
    prompt_template: |
      Rate how helpful the agent's response is, from 1 to 5.
      User prompt: {prompt}
      Final response: {response}
      Return JSON: {"score": <1-5>, "explanation": "<reason>"}

adk_eval_gate:
  thresholds:
    helpfulness: 3
"""
ORDINAL = [[3, 1, 0, 0, 0], [1, 4, 1, 0, 0], [0, 1, 5, 1, 0], [0, 0, 2, 4, 1], [0, 0, 0, 1, 5]]


def test_calibrate_an_agents_cli_prompt_template_judge_with_weighted_kappa(
    repo: Path, gemini: FakeGemini, cli_in_process: Callable[..., Any]
) -> None:
    (repo / "tests" / "eval" / "datasets").mkdir(parents=True)
    (repo / "tests" / "eval" / "eval_config.yaml").write_text(AGENTS_CLI_CONFIG)
    prompt = {"role": "user", "parts": [{"text": "Hello?"}]}
    write_json(
        repo / "tests" / "eval" / "datasets" / "basic-dataset.json",
        {"eval_cases": [{"eval_case_id": "greeting", "prompt": prompt}]},
    )
    labels = [
        {
            "metric": "helpfulness",
            "invocation": turn(f"q{human}{judge}-{n}", f"a{human}{judge}-{n} SCORE={judge + 1}"),
            "label": human + 1,
        }
        for human, row in enumerate(ORDINAL)
        for judge, count in enumerate(row)
        for n in range(count)
    ]
    write_json(repo / "tests" / "eval" / "helpfulness.labels.json", {"labels": labels})

    def script(request: SeenRequest) -> str:
        score = request.prompt.split("SCORE=")[1][0]
        return json.dumps({"score": int(score), "explanation": "scripted"})

    gemini.script = script
    env = {"GOOGLE_API_KEY": API_KEY, "GOOGLE_GEMINI_BASE_URL": gemini.url}
    result = cli_in_process("calibrate", cwd=repo, env=env)
    assert result.returncode == 0, result.stdout
    [judge] = json.loads((repo / "adk-eval-results" / "calibration.json").read_text())["metrics"]
    theirs = cohens_kappa(np.array(ORDINAL), weights=np.arange(1, 6), wt="linear")
    assert judge["weighted"] and judge["confusion"] == ORDINAL and judge["categories"] == [1, 2, 3, 4, 5]
    assert judge["kappa"] == pytest.approx(theirs.kappa, abs=1e-12)
    assert judge["kappa_interval"] == pytest.approx([theirs.kappa_low, theirs.kappa_upp], abs=1e-9)


def test_the_calibrations_judge_calls_are_counted_apart_from_the_evaluations_and_a_cached_one_spends_nothing(
    workspace: Path, gemini: FakeGemini, cli_in_process: Callable[..., Any]
) -> None:
    gemini.script = judge_script
    row = {"eval_id": "wrong", "prompt": "Weather?", "reference": "Sunny.", "response": "Rainy. JUDGE_NO"}
    (workspace / "evals" / "rows.jsonl").write_text(json.dumps(row) + "\n")
    env = {"GOOGLE_API_KEY": API_KEY, "GOOGLE_GEMINI_BASE_URL": gemini.url}
    labels = workspace / "evals" / "judges.labels.json"
    kept = labels.read_bytes()
    labels.unlink()
    base = ("run", "--dataset", "evals/rows.jsonl", "--cache-dir", ".cache")
    assert cli_in_process(*base, "--cache-dir", ".plain", cwd=workspace, env=env).returncode == 1
    plain = json.loads((workspace / "adk-eval-results" / "results.json").read_text())
    assert "calibration_judge" not in plain and "calibration" not in plain["usage"]
    labels.write_bytes(kept)

    labelled = cli_in_process(*base, cwd=workspace, env=env)
    assert labelled.returncode == 0, labelled.stdout
    doc = json.loads((workspace / "adk-eval-results" / "results.json").read_text())
    assert doc["judge"] == plain["judge"] and doc["usage"]["judge"] == plain["usage"]["judge"]
    spend = doc["calibration_judge"]
    assert (spend["calls"], spend["calibrated"], spend["reused"]) == (50, 1, 0)
    assert doc["usage"]["calibration"]["calls"] == 50 and doc["usage"]["calibration"]["cost_usd"] > 0
    assert "Judge calibration: 50 calls, 0 cached" in labelled.stdout
    cost = next(line for line in labelled.stdout.splitlines() if "judge $" in line)
    assert " + calibration $" in cost
    summary = (workspace / "adk-eval-results" / "summary.md").read_text()
    assert "**Judge calibration** (not counted in the judge's figures): 50 calls" in summary

    asked = gemini.count
    again = cli_in_process(*base, cwd=workspace, env=env)
    assert again.returncode == 0, again.stdout
    cached = json.loads((workspace / "adk-eval-results" / "results.json").read_text())
    assert gemini.count == asked  # the evaluation's answer is in the judge's cache too
    spend = cached["calibration_judge"]
    assert (spend["calls"], spend["calibrated"], spend["reused"]) == (0, 0, 1)
    assert "calibration" not in cached["usage"] and (cached["judge"]["calls"], cached["judge"]["cached"]) == (0, 1)
    assert "1 judge unchanged since its last calibration, taken from the cache, no judge calls" in again.stdout
