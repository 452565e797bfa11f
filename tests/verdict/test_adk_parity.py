"""The verdict against ADK 2.13 itself, path by path: for the same inputs, ADK and the gate give the same scores
(to the last bit) and the same pass or fail.

* AgentEvaluator's own ``_process_metrics_and_get_failures`` and the gate's drop-in rule (``verdict.decide_case``
  with AgentEvaluator's rule, then the drop-in's failure lines) on generated per-turn results of several runs of
  any lengths, of built-in metrics and of custom metrics whose statuses say higher or lower is better.
* ``LocalEvalService._generate_final_eval_status`` (``adk eval``'s case status) and the gate's case status, with
  the one documented difference: a metric that could not be evaluated never passes a case here.
* Three probes end to end on a real agent (a scripted model; a scripted simulated user that talks twice in one
  session and once in the other; a custom metric module; rubric answers from the fake Gemini server), run by ADK
  (``AgentEvaluator.evaluate``, ``adk eval``) and by the gate (its ``AgentEvaluator`` drop-in, ``run``):

  a. runs of different lengths, turn scores [1, 0] and [1]: pooled 0.667, failing 0.7, in AgentEvaluator, the
     drop-in and ``run --num-runs 2`` (the efficiency metrics pooled alike);
  b. a custom metric where lower is better, turn scores [0, 0, 1] at 0.5: 0.333, passing, in ``adk eval`` and
     ``run``, in AgentEvaluator and the drop-in;
  c. invocation-level rubrics, one run: ``adk eval`` and ``run`` pool the rubric scores (0.667, failing 0.7);
     AgentEvaluator and the drop-in average the turns' means (0.75, passing).
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from google.adk.evaluation import eval_case as adk_case
from google.adk.evaluation.agent_evaluator import AgentEvaluator as AdkAgentEvaluator
from google.adk.evaluation.agent_evaluator import _EvalMetricResultWithInvocation
from google.adk.evaluation.eval_metrics import BaseCriterion, EvalMetricResult
from google.adk.evaluation.eval_metrics import HallucinationsCriterion as AdkHallucinationsCriterion
from google.adk.evaluation.eval_metrics import LlmAsAJudgeCriterion as AdkLlmAsAJudgeCriterion
from google.adk.evaluation.eval_set import EvalSet as AdkEvalSet
from google.adk.evaluation.evaluator import EvalStatus
from google.adk.evaluation.final_response_match_v2 import FinalResponseMatchV2Evaluator
from google.adk.evaluation.hallucinations_v1 import HallucinationsV1Evaluator
from google.adk.evaluation.local_eval_service import LocalEvalService
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adk_eval_gate import verdict
from adk_eval_gate.metrics.hallucinations import HallucinationsV1
from adk_eval_gate.metrics.judge_metrics import FinalResponseMatchV2
from adk_eval_gate.model import eval_config as gate_eval_config
from adk_eval_gate.model.results import CaseResult, MetricResult, MetricStatus, RunMetric, RunRecord
from adk_eval_gate.pytest import AgentEvaluator as GateAgentEvaluator
from adk_eval_gate.pytest.evaluator import adk_failures
from tests.fakes.gemini_server import FakeGemini, SeenRequest
from tests.judge.helpers import (
    API_KEY,
    HallucinationScript,
    MarkerScript,
    gemini,
    invocation,
    judge_options,
    rubric_answer,
    v2_answer,
)
from tests.metrics import test_judge_parity as judge_parity

pytestmark = pytest.mark.slow  # ADK's AgentEvaluator and `adk eval` on a real agent
__all__ = ["gemini"]

AGENT = "parity_probe"
STATUS = {1: "passed", 2: "failed", 3: "not_evaluated", 4: "informational"}
ADK_STATUS = {"passed": EvalStatus.PASSED, "failed": EvalStatus.FAILED, "not_evaluated": EvalStatus.NOT_EVALUATED}
WALL_CLOCK = "invocation_duration_v1"  # seconds of each turn: only its presence can be compared

# --- the data-level parity: AgentEvaluator's rule and adk eval's case status -------------------------------

TURN = adk_case.Invocation(user_content={"role": "user", "parts": [{"text": "q"}]})
SCORES = st.one_of(st.none(), st.sampled_from([0.0, 0.25, 0.5, 0.7, 1.0]), st.floats(0.0, 1.0))
TURN_STATUSES = st.sampled_from(["passed", "failed", "not_evaluated"])


@st.composite
def turn_runs(draw: st.DrawFn) -> tuple[float, bool, list[list[tuple[float | None, str]]]]:
    """A threshold, whether the metric is a custom one (its statuses its function's own, anything), and the turn
    results of one to four runs of one to four turns each (a built-in metric's statuses are ``score >=
    threshold``, as ADK's evaluators set them; every run has a turn, as every ADK case run has)."""
    threshold = draw(st.sampled_from([0.0, 0.5, 0.7, 1.0]) | st.floats(0.0, 1.0))
    custom = draw(st.booleans())
    runs = []
    for _ in range(draw(st.integers(1, 4))):
        turns = []
        for _ in range(draw(st.integers(1, 4))):
            score = draw(SCORES)
            if custom:
                status = draw(TURN_STATUSES)
            else:
                status = "not_evaluated" if score is None else "passed" if score >= threshold else "failed"
            turns.append((score, status))
        runs.append(turns)
    return threshold, custom, runs


def adk_agent_evaluator(
    runs: list[list[tuple[float | None, str]]], threshold: float | None
) -> tuple[tuple[float | None, str], list[str]]:
    """AgentEvaluator's own verdict on one metric's turn results: (its score and status, its failure lines)."""
    recorded: dict[str, tuple[float | None, str]] = {}

    def record(**shown: Any) -> None:
        recorded[shown["metric_name"]] = (shown["overall_score"], STATUS[shown["overall_eval_status"].value])

    criterion = None if threshold is None else BaseCriterion(threshold=threshold)
    results = [
        _EvalMetricResultWithInvocation(
            actual_invocation=TURN,
            expected_invocation=None,
            eval_metric_result=EvalMetricResult(
                metric_name="m",
                criterion=criterion,
                score=score,
                eval_status=ADK_STATUS[status] if threshold is not None else EvalStatus.INFORMATIONAL,
            ),
        )
        for turns in runs
        for score, status in turns
    ]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(AdkAgentEvaluator, "_print_details", staticmethod(record))
        failures = AdkAgentEvaluator._process_metrics_and_get_failures(
            eval_metric_results={"m": results}, print_detailed_results=True, agent_module=AGENT
        )
    return recorded.get("m", (None, "none")), failures


def gate_drop_in(
    runs: list[list[tuple[float | None, str]]], threshold: float | None, *, custom: bool
) -> tuple[MetricResult, list[str]]:
    """The drop-in's verdict on the same turn results: the case decided with AgentEvaluator's rule, and the
    failure lines the drop-in raises."""
    records = []
    for number, turns in enumerate(runs, start=1):
        scores = [score for score, _ in turns]
        statuses = [MetricStatus(status) for _, status in turns] if custom else []
        present = [score for score in scores if score is not None]
        metric = RunMetric(
            name="m",
            score=sum(present) / len(present) if present else None,
            status=MetricStatus.NOT_EVALUATED,
            invocation_scores=scores,
            evaluator_status=MetricStatus.PASSED if custom else None,
            invocation_statuses=statuses,
        )
        records.append(RunRecord(run=number, status="passed", metrics=[metric]))
    kind = "informational" if threshold is None else "custom" if custom else "deterministic"
    case = CaseResult(
        id="f::c",
        file="f",
        eval_set_id="s",
        eval_id="c",
        status="passed",
        metrics=[MetricResult(name="m", kind=kind, score=None, threshold=threshold, status="not_evaluated")],
        runs=records,
    )
    decided = verdict.decide_case(case, pass_rule="mean", rule="agent_evaluator")
    return decided.metrics[0], adk_failures([decided], AGENT)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated=turn_runs())
def test_the_drop_ins_verdict_over_runs_is_agent_evaluators_on_any_turn_results(
    generated: tuple[float, bool, list[list[tuple[float | None, str]]]],
) -> None:
    threshold, custom, runs = generated
    (adk_score, adk_status), adk_lines = adk_agent_evaluator(runs, threshold)
    ours, our_lines = gate_drop_in(runs, threshold, custom=custom)
    assert (ours.score, str(ours.status)) == (adk_score, adk_status)  # the same float, not a close one
    assert our_lines == adk_lines


def test_a_metric_without_a_threshold_is_informational_in_both() -> None:
    runs = [[(38.0, "passed"), (114.0, "passed")], [(76.0, "passed")]]
    (adk_score, adk_status), adk_lines = adk_agent_evaluator(runs, None)
    ours, our_lines = gate_drop_in(runs, None, custom=False)
    assert (
        (ours.score, str(ours.status), our_lines) == (adk_score, adk_status, adk_lines) == (76.0, "informational", [])
    )


METRIC_STATUSES = st.sampled_from(["passed", "failed", "informational", "not_evaluated"])


@settings(max_examples=200, deadline=None)
@given(statuses=st.lists(METRIC_STATUSES, min_size=1, max_size=5))
def test_a_cases_status_is_adk_evals_except_that_a_metric_not_evaluated_never_passes(statuses: list[str]) -> None:
    """``LocalEvalService._generate_final_eval_status`` over the metrics' statuses of one run; the gate gives the
    same status unless a metric could not be evaluated, where ADK passes on the others (docs/differences.md)."""
    adk_results = [
        EvalMetricResult(metric_name=f"m{n}", eval_status=EvalStatus[status.upper()])
        for n, status in enumerate(statuses)
    ]
    theirs = STATUS[LocalEvalService._generate_final_eval_status(object(), adk_results).value]  # type: ignore[arg-type]
    scores = {"passed": 1.0, "failed": 0.0, "informational": 5.0, "not_evaluated": None}
    metrics = [
        MetricResult(
            name=f"m{n}",
            kind="informational" if status == "informational" else "deterministic",
            score=None,
            threshold=None if status == "informational" else 0.5,
            status="not_evaluated",
        )
        for n, status in enumerate(statuses)
    ]
    run = RunRecord(
        run=1,
        status="passed",
        metrics=[RunMetric(name=f"m{n}", score=scores[s], status="not_evaluated") for n, s in enumerate(statuses)],
    )
    case = CaseResult(id="f::c", file="f", eval_set_id="s", eval_id="c", status="passed", metrics=metrics, runs=[run])
    ours = str(verdict.decide_case(case, pass_rule="mean").status)
    if "not_evaluated" in statuses and "failed" not in statuses:
        assert ours == "not_evaluated" and theirs in ("passed", "not_evaluated")
    else:
        assert ours == theirs


# --- the probes: a real agent, run by ADK and by the gate ----------------------------------------------------

AGENT_SOURCE = '''
from __future__ import annotations

import os

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.models.registry import LLMRegistry
from google.genai import types


class EchoModel(BaseLlm):
    """Echoes the user's last message; its prompt tokens grow with the conversation (10 per content)."""

    async def generate_content_async(self, llm_request, stream=False):
        text = " ".join(p.text for p in llm_request.contents[-1].parts or [] if p.text)
        prompt = 10 * len(llm_request.contents)
        yield LlmResponse(
            content=types.Content(role="model", parts=[types.Part(text=f"echo: {text}")]),
            model_version="echo-1",
            usage_metadata=types.GenerateContentResponseUsageMetadata(
                prompt_token_count=prompt, candidates_token_count=3, total_token_count=prompt + 3
            ),
        )


class TakeTurnsUser(BaseLlm):
    """The simulated user: after the first answer, the session that claims the token file first says "bad";
    every other session, and every later turn, ends the conversation."""

    @classmethod
    def supported_models(cls):
        return [r"probe-user.*"]

    async def generate_content_async(self, llm_request, stream=False):
        prompt = " ".join(p.text or "" for c in llm_request.contents for p in c.parts or [])
        answer = "</finished>"
        if "echo: bad" not in prompt:
            try:
                os.close(os.open(os.environ["PROBE_TOKEN"], os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                answer = "bad"
            except FileExistsError:
                pass
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=answer)]))


LLMRegistry.register(TakeTurnsUser)

root_agent = LlmAgent(name="parity_probe", model=EchoModel(model="echo"), instruction="Echo the user.")
'''

METRICS_SOURCE = '''
from google.adk.evaluation.evaluator import EvalStatus, EvaluationResult, PerInvocationResult


def _answer(invocation):
    parts = invocation.final_response.parts if invocation.final_response else None
    return " ".join(part.text or "" for part in parts or [])


def _result(eval_metric, actual, scores, passes):
    threshold = eval_metric.criterion.threshold

    def status(score):
        return EvalStatus.PASSED if passes(score, threshold) else EvalStatus.FAILED

    per_invocation = [
        PerInvocationResult(actual_invocation=invocation, score=score, eval_status=status(score))
        for invocation, score in zip(actual, scores)
    ]
    overall = sum(scores) / len(scores)
    return EvaluationResult(
        overall_score=overall, overall_eval_status=status(overall), per_invocation_results=per_invocation
    )


def good_turns(eval_metric, actual, expected, scenario):
    """1 for each answer that says good: higher is better."""
    return _result(eval_metric, actual, [float("good" in _answer(i)) for i in actual], lambda s, t: s >= t)


def bad_turns(eval_metric, actual, expected, scenario):
    """1 for each answer that says bad: lower is better, a turn passes at or below the threshold."""
    return _result(eval_metric, actual, [float("bad" in _answer(i)) for i in actual], lambda s, t: s <= t)
'''


def _turn(text: str, rubrics: list[tuple[str, str]] | None = None) -> dict[str, Any]:
    turn: dict[str, Any] = {"user_content": {"role": "user", "parts": [{"text": text}]}}
    if rubrics:
        turn["rubrics"] = [
            {"rubric_id": rid, "rubric_content": {"text_property": prop}, "type": "FINAL_RESPONSE_QUALITY"}
            for rid, prop in rubrics
        ]
    return turn


RUBRICS = {"r0": "The answer echoes the user.", "r1": "The answer is a haiku."}
PROBES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "a": (
        {
            "eval_id": "talk",
            "conversation_scenario": {"starting_prompt": "good", "conversation_plan": "Say good, then bad."},
        },
        {
            "criteria": {"good_turns": 0.7},
            "custom_metrics": {"good_turns": {"code_config": {"name": "parity_probe_metrics.good_turns"}}},
            "user_simulator_config": {"model": "probe-user", "max_allowed_invocations": 5},
        },
    ),
    "b": (
        {"eval_id": "mostly_fine", "conversation": [_turn("fine"), _turn("fine again"), _turn("bad")]},
        {
            "criteria": {"bad_turns": 0.5},
            "custom_metrics": {"bad_turns": {"code_config": {"name": "parity_probe_metrics.bad_turns"}}},
        },
    ),
    "c": (
        {
            "eval_id": "two_turns",
            "conversation": [
                _turn("TURN-ONE hello", [("r0", RUBRICS["r0"])]),
                _turn("TURN-TWO again", [("r0", RUBRICS["r0"]), ("r1", RUBRICS["r1"])]),
            ],
        },
        {
            "criteria": {
                "rubric_based_final_response_quality_v1": {
                    "threshold": 0.7,
                    "judge_model_options": {"judge_model": "gemini-2.5-flash", "num_samples": 1},
                }
            }
        },
    ),
}


@pytest.fixture(scope="module")
def probe_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A repository with the probe agent, the custom metrics module and one folder per probe (its eval set and
    its test_config.json, where AgentEvaluator, ``adk eval`` and the gate all find it)."""
    repo = tmp_path_factory.mktemp("parity")
    (repo / ".git").mkdir()
    (repo / AGENT).mkdir()
    (repo / AGENT / "__init__.py").write_text("from . import agent\n", encoding="utf-8")
    (repo / AGENT / "agent.py").write_text(AGENT_SOURCE, encoding="utf-8")
    (repo / "parity_probe_metrics.py").write_text(METRICS_SOURCE, encoding="utf-8")
    for name, (case, config) in PROBES.items():
        folder = repo / "evals" / name
        folder.mkdir(parents=True)
        evalset = {"eval_set_id": f"probe_{name}", "eval_cases": [case]}
        (folder / f"probe_{name}.evalset.json").write_text(json.dumps(evalset), encoding="utf-8")
        (folder / "test_config.json").write_text(json.dumps(config), encoding="utf-8")
    yield repo
    for module in [name for name in sys.modules if name.split(".")[0] in (AGENT, "parity_probe_metrics")]:
        del sys.modules[module]


@dataclass
class Probe:
    """One probe's folder in the repository, the environment the agents need, and each side's verdict."""

    repo: Path
    name: str
    monkeypatch: pytest.MonkeyPatch
    capsys: pytest.CaptureFixture[str]

    @property
    def evalset(self) -> Path:
        return self.repo / "evals" / self.name / f"probe_{self.name}.evalset.json"

    def fresh_token(self) -> None:
        """The simulated user's token back in the pool: the next session to ask talks twice."""
        (self.repo / "token").unlink(missing_ok=True)


@dataclass
class AdkVerdict:
    scores: dict[str, tuple[float | None, str]]  # metric -> (score, status)
    message: str | None  # the AssertionError's, None: passed


@pytest.fixture
def probe(
    probe_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[[str], Probe]:
    monkeypatch.chdir(probe_repo)
    monkeypatch.syspath_prepend(str(probe_repo))
    monkeypatch.setenv("PROBE_TOKEN", str(probe_repo / "token"))
    monkeypatch.setenv("GOOGLE_API_KEY", API_KEY)
    for name in ("GITHUB_ACTIONS", "GITHUB_WORKSPACE", "GITHUB_EVENT_PATH"):
        monkeypatch.delenv(name, raising=False)
    return lambda name: Probe(probe_repo, name, monkeypatch, capsys)


def agent_evaluator(probe: Probe, *, num_runs: int) -> AdkVerdict:
    """``AgentEvaluator.evaluate`` of ADK on the probe; each metric's score and status as it decided them (its
    ``_print_details`` records them instead of printing its table)."""
    recorded: dict[str, tuple[float | None, str]] = {}

    def record(**shown: Any) -> None:
        recorded[shown["metric_name"]] = (shown["overall_score"], STATUS[shown["overall_eval_status"].value])

    probe.fresh_token()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(AdkAgentEvaluator, "_print_details", staticmethod(record))
        try:
            asyncio.run(AdkAgentEvaluator.evaluate(AGENT, str(probe.evalset), num_runs=num_runs))
            message = None
        except AssertionError as failed:
            message = str(failed)
    probe.capsys.readouterr()
    return AdkVerdict(recorded, message)


def adk_eval(probe: Probe) -> tuple[int, str, dict[str, tuple[float | None, str]]]:
    """``adk eval parity_probe EVALSET`` as a process: its exit code, the case's final status, and each metric's
    score and status from the result file it saved (removed afterwards)."""
    history = probe.repo / AGENT / ".adk"
    done = subprocess.run(
        [sys.executable, "-m", "google.adk.cli", "eval", AGENT, str(probe.evalset.relative_to(probe.repo))],
        cwd=probe.repo,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    try:
        assert "Eval Run Summary" in done.stdout, done.stdout[-2000:] + done.stderr[-3000:]
        (saved,) = history.glob("eval_history/*.evalset_result.json")
        data = json.loads(saved.read_text(encoding="utf-8"))
    finally:
        shutil.rmtree(history, ignore_errors=True)
    (case,) = data["eval_case_results"]
    scores = {m["metric_name"]: (m["score"], STATUS[m["eval_status"]]) for m in case["overall_eval_metric_results"]}
    return done.returncode, STATUS[case["final_eval_status"]], scores


_LINE = re.compile(
    r"^  (?P<name>\S+): (?:score (?P<score>\S+) (?P<relation>>=|<=|<|>) threshold \S+|(?P<info>\S+) \(informational)"
)
_RELATION = {">=": "passed", "<=": "passed", "<": "failed", ">": "failed"}


def drop_in(probe: Probe, *, num_runs: int) -> tuple[str | None, dict[str, tuple[str, str]]]:
    """The gate's ``AgentEvaluator.evaluate`` on the probe: its AssertionError's message (None: passed), and each
    metric's score (as printed, 4 significant digits) and status from the report it prints."""
    probe.fresh_token()
    probe.capsys.readouterr()
    try:
        asyncio.run(GateAgentEvaluator.evaluate(AGENT, str(probe.evalset), num_runs=num_runs))
        message = None
    except AssertionError as failed:
        message = str(failed)
    printed: dict[str, tuple[str, str]] = {}
    for line in probe.capsys.readouterr().out.splitlines():
        found = _LINE.match(line)
        if found and found["info"]:
            printed[found["name"]] = (found["info"], "informational")
        elif found:
            printed[found["name"]] = (found["score"], _RELATION[found["relation"]])
    return message, printed


def gate_run(
    probe: Probe, cli_in_process: Callable[..., subprocess.CompletedProcess[str]], *options: str
) -> tuple[int, dict[str, Any]]:
    """``adk-eval-gate run evals/NAME --agent parity_probe OPTIONS``: its exit code and the case of results.json."""
    probe.fresh_token()
    out = probe.repo / "out" / probe.name
    done = cli_in_process(
        "run", f"evals/{probe.name}", "--agent", AGENT, "--output-dir", str(out), *options, cwd=probe.repo
    )
    (case,) = json.loads((out / "results.json").read_text(encoding="utf-8"))["cases"]
    shutil.rmtree(out)
    return done.returncode, case


def assert_run_scores_as(theirs: dict[str, tuple[float | None, str]], case: dict[str, Any]) -> None:
    """Every metric ADK scored has the same score (the same float) and status in the gate's results.json."""
    ours = {m["name"]: (m.get("score"), m["status"]) for m in case["metrics"]}
    for name, (score, status) in theirs.items():
        if name == WALL_CLOCK:
            assert ours[name][0] is not None and score is not None
        else:
            assert ours[name] == (score, status), name


def assert_printed_as(theirs: dict[str, tuple[float | None, str]], printed: dict[str, tuple[str, str]]) -> None:
    """The drop-in printed each metric with ADK's score (to the 4 digits it prints) and status."""
    for name, (score, status) in theirs.items():
        assert score is not None, name
        shown = printed[name][0] if name == WALL_CLOCK else f"{score:.4g}"
        assert printed[name] == (shown, status), name


def test_runs_of_different_lengths_are_pooled_turn_by_turn_as_agent_evaluator_pools_them(
    probe: Callable[[str], Probe], cli_in_process: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    """Probe a: two runs of a simulated conversation, one of two turns (scores 1, 0), one of one turn (1)."""
    a = probe("a")
    adk = agent_evaluator(a, num_runs=2)
    assert adk.scores["good_turns"] == (pytest.approx(2 / 3), "failed")
    assert adk.message is not None and "good_turns for parity_probe Failed. Expected 0.7, but got 0.666" in adk.message
    message, printed = drop_in(a, num_runs=2)
    assert message == adk.message
    assert_printed_as(adk.scores, printed)
    code, case = gate_run(a, cli_in_process, "--num-runs", "2")
    assert (code, case["status"]) == (1, "failed")
    assert_run_scores_as(adk.scores, case)  # the efficiency metrics too: token_usage_v1 is 59/3 pooled
    good_turns = next(m for m in CaseResult.model_validate(case).metrics if m.name == "good_turns")
    assert sorted(good_turns.run_scores) == [0.5, 1.0]  # each run's own score stays in results.json
    assert any("good_turns: 0.6667 < 0.7 (runs: " in f["reason"] for f in case["findings"])


def test_a_custom_metric_whose_statuses_say_lower_is_better_passes_at_or_below_its_threshold_as_in_adk(
    probe: Callable[[str], Probe], cli_in_process: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    """Probe b: a custom metric whose function passes a turn scored at most 0.5; the turns score 0, 0 and 1."""
    b = probe("b")
    code, final, theirs = adk_eval(b)
    assert (code, final, theirs["bad_turns"]) == (0, "passed", (pytest.approx(1 / 3), "passed"))
    our_code, case = gate_run(b, cli_in_process)
    assert (our_code, case["status"]) == (code, final)
    assert_run_scores_as(theirs, case)
    bad_turns = next(m for m in case["metrics"] if m["name"] == "bad_turns")
    assert bad_turns["lower_is_better"] is True
    adk = agent_evaluator(b, num_runs=2)
    assert (adk.message, adk.scores["bad_turns"]) == (None, (pytest.approx(1 / 3), "passed"))
    message, printed = drop_in(b, num_runs=2)
    assert message is None
    assert_printed_as(adk.scores, printed)
    code, case = gate_run(b, cli_in_process, "--num-runs", "2")
    assert (code, case["status"]) == (0, "passed")
    assert_run_scores_as(adk.scores, case)


def _rubric_judge(request: SeenRequest) -> str:
    """Each rubric listed in the judge's prompt: r0 yes, r1 no (turn 1 lists r0; turn 2, r0 and r1)."""
    listed = {rid: "yes" if rid == "r0" else "no" for rid in RUBRICS if f"[id: {rid}]" in request.prompt}
    return rubric_answer(listed, RUBRICS)


def test_invocation_rubrics_are_pooled_by_adk_eval_and_run_and_averaged_per_turn_by_agent_evaluator_and_the_drop_in(
    gemini: FakeGemini,
    probe: Callable[[str], Probe],
    cli_in_process: Callable[..., subprocess.CompletedProcess[str]],
) -> None:
    """Probe c: one run; turn 1's rubric r0 passes, turn 2's r0 passes and r1 does not."""
    gemini.script = _rubric_judge
    c = probe("c")
    metric = "rubric_based_final_response_quality_v1"
    code, final, theirs = adk_eval(c)
    assert (code, final, theirs[metric]) == (1, "failed", (pytest.approx(2 / 3), "failed"))
    our_code, case = gate_run(c, cli_in_process)
    assert (our_code, case["status"]) == (code, final)
    assert_run_scores_as(theirs, case)
    adk = agent_evaluator(c, num_runs=1)
    assert (adk.message, adk.scores[metric]) == (None, (0.75, "passed"))
    message, printed = drop_in(c, num_runs=1)
    assert message is None
    assert_printed_as(adk.scores, printed)
    adk_twice = agent_evaluator(c, num_runs=2)
    code, case = gate_run(c, cli_in_process, "--num-runs", "2")  # several runs: AgentEvaluator's pooling
    assert (code, case["status"]) == (0, "passed")
    assert_run_scores_as(adk_twice.scores, case)


# --- a flaky tool: the agent's own error fails its run, in ADK and in the gate --------------------------------

FLAKY_AGENT = "flaky_probe"
FLAKY_SOURCE = """
import os

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types


def fetch_rate(currency: str) -> dict:
    \"\"\"Fetches an exchange rate; its service drops the first connection of the test.\"\"\"
    try:
        os.close(os.open(os.environ["FLAKY_TOKEN"], os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return {"rate": 1.5}
    raise ConnectionError("rate service reset the connection")


class RateModel(BaseLlm):
    async def generate_content_async(self, llm_request, stream=False):
        last = llm_request.contents[-1]
        if any(part.function_response for part in last.parts or []):
            part = types.Part(text="The rate is 1.5.")
        else:
            part = types.Part(function_call=types.FunctionCall(name="fetch_rate", args={"currency": "EUR"}))
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


root_agent = LlmAgent(name="flaky_probe", model=RateModel(model="rates"), instruction="Rates.", tools=[fetch_rate])
"""


@pytest.fixture
def flaky_probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Iterator[Probe]:
    """A repository with an agent whose tool raises ``ConnectionError`` the first time it is called in the test
    (``fresh_token`` puts that failure back), and an eval set whose answer passes when the tool answers."""
    (tmp_path / ".git").mkdir()
    (tmp_path / FLAKY_AGENT).mkdir()
    (tmp_path / FLAKY_AGENT / "__init__.py").write_text("from . import agent\n", encoding="utf-8")
    (tmp_path / FLAKY_AGENT / "agent.py").write_text(FLAKY_SOURCE, encoding="utf-8")
    folder = tmp_path / "evals" / "flaky"
    folder.mkdir(parents=True)
    case = {"eval_id": "rate", "conversation": [_turn("the euro's rate?") | {"final_response": _answer()}]}
    evalset = {"eval_set_id": "probe_flaky", "eval_cases": [case]}
    (folder / "probe_flaky.evalset.json").write_text(json.dumps(evalset), encoding="utf-8")
    (folder / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.8}}), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("FLAKY_TOKEN", str(tmp_path / "token"))
    for name in ("GITHUB_ACTIONS", "GITHUB_WORKSPACE", "GITHUB_EVENT_PATH"):
        monkeypatch.delenv(name, raising=False)
    yield Probe(tmp_path, "flaky", monkeypatch, capsys)
    for module in [name for name in sys.modules if name.split(".")[0] == FLAKY_AGENT]:
        del sys.modules[module]


def _answer() -> dict[str, Any]:
    return {"role": "model", "parts": [{"text": "The rate is 1.5."}]}


def test_a_tool_that_raises_once_fails_its_run_in_adk_and_in_the_gate_and_is_not_run_again(
    flaky_probe: Probe, cli_in_process: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    """A flaky tool: ADK's eval records the run whose tool raised ``ConnectionError`` as failed, without metric
    results; AgentEvaluator fails the case for it, whatever the other run scored. The gate does not run it again:
    the drop-in raises AgentEvaluator's failure line, word for word, and ``run`` fails the case."""
    adk = _flaky_agent_evaluator(flaky_probe)
    assert adk.message is not None
    assert (
        "rate for flaky_probe Failed. 1 of 2 runs were recorded as failed without producing any metric" in adk.message
    )
    flaky_probe.fresh_token()
    flaky_probe.capsys.readouterr()
    try:
        asyncio.run(GateAgentEvaluator.evaluate(FLAKY_AGENT, str(flaky_probe.evalset), num_runs=2))
        message = None
    except AssertionError as failed:
        message = str(failed)
    assert message == adk.message
    flaky_probe.fresh_token()
    code, final = _flaky_adk_eval(flaky_probe)
    assert (code, final) == (1, "failed")
    flaky_probe.fresh_token()
    out = flaky_probe.repo / "out"
    done = cli_in_process("run", "evals/flaky", "--agent", FLAKY_AGENT, "--output-dir", str(out), cwd=flaky_probe.repo)
    (case,) = json.loads((out / "results.json").read_text(encoding="utf-8"))["cases"]
    assert done.returncode == code  # failed in ADK; an error of the agent's here (docs/differences.md)
    (run,) = case["runs"]
    assert case["status"] == "error" and run["error_kind"] == "agent" and not run.get("retries")
    assert "raised ConnectionError: rate service reset the connection" in run["error"]


def _flaky_agent_evaluator(probe: Probe) -> AdkVerdict:
    """ADK's ``AgentEvaluator.evaluate`` on the flaky agent, two runs: the tool fails in one of them."""
    probe.fresh_token()
    try:
        asyncio.run(AdkAgentEvaluator.evaluate(FLAKY_AGENT, str(probe.evalset), num_runs=2))
        message = None
    except AssertionError as failed:
        message = str(failed)
    probe.capsys.readouterr()
    return AdkVerdict({}, message)


def _flaky_adk_eval(probe: Probe) -> tuple[int, str]:
    """``adk eval flaky_probe EVALSET``, where the tool fails in its one run: its exit code and the case's status."""
    history = probe.repo / FLAKY_AGENT / ".adk"
    done = subprocess.run(
        [sys.executable, "-m", "google.adk.cli", "eval", FLAKY_AGENT, str(probe.evalset.relative_to(probe.repo))],
        cwd=probe.repo,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    try:
        (saved,) = history.glob("eval_history/*.evalset_result.json")
        (case,) = json.loads(saved.read_text(encoding="utf-8"))["eval_case_results"]
    finally:
        shutil.rmtree(history, ignore_errors=True)
    return done.returncode, STATUS[case["final_eval_status"]]


# --- the second round: custom metrics as ADK reads them, AgentEvaluator's every method, check and status, a
# legacy file's session, hallucination labels. Each probe runs ADK 2.13 and the gate on the same input.

ROUND_TWO_METRICS = "parity_round_two_metrics"
ROUND_TWO_METRICS_SOURCE = '''
from google.adk.evaluation.evaluator import EvalStatus, EvaluationResult, PerInvocationResult


def overall_only(eval_metric, actual, expected, scenario):
    """Passes on an overall score, with no result per invocation."""
    return EvaluationResult(overall_score=1.0, overall_eval_status=EvalStatus.PASSED)


def answer_length(eval_metric, actual, expected, scenario):
    """The characters of each answer: a count, not a share; a turn passes at or above the threshold."""
    threshold = eval_metric.criterion.threshold
    scores = [float(len(" ".join(p.text or "" for p in i.final_response.parts))) for i in actual]

    def status(score):
        return EvalStatus.PASSED if score >= threshold else EvalStatus.FAILED

    overall = sum(scores) / len(scores)
    return EvaluationResult(
        overall_score=overall,
        overall_eval_status=status(overall),
        per_invocation_results=[
            PerInvocationResult(actual_invocation=i, score=s, eval_status=status(s)) for i, s in zip(actual, scores)
        ],
    )
'''
STATE_AGENT = "parity_state"
STATE_AGENT_SOURCE = '''
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types


class InstructionModel(BaseLlm):
    """Answers with its system instruction, where ADK has put the session's state."""

    async def generate_content_async(self, llm_request, stream=False):
        instruction = llm_request.config.system_instruction or ""
        text = instruction if isinstance(instruction, str) else " ".join(p.text or "" for p in instruction.parts)
        first_line = text.strip().splitlines()[0]  # the agent's instruction; ADK adds the agent's identity after it
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=first_line)]))


root_agent = LlmAgent(name="parity_state", model=InstructionModel(model="instruction"), instruction="feeling {mood?}")
'''
LONG_TEXT = "a message long enough that its echo has more than forty characters"
ROUND_TWO: dict[str, tuple[dict[str, Any] | list[Any], dict[str, Any] | None]] = {
    "overall_only": (
        {"eval_id": "one_turn", "conversation": [_turn("fine")]},
        {
            "criteria": {"overall_only": 0.5},
            "custom_metrics": {"overall_only": {"code_config": {"name": f"{ROUND_TWO_METRICS}.overall_only"}}},
        },
    ),
    "count": (
        {"eval_id": "long_answer", "conversation": [_turn(LONG_TEXT)]},
        {
            "criteria": {"answer_length": 40},
            "custom_metrics": {"answer_length": {"code_config": {"name": f"{ROUND_TWO_METRICS}.answer_length"}}},
        },
    ),
    "no_turns": ({"eval_id": "empty", "conversation": []}, {"criteria": {"response_match_score": 0.8}}),
    "first_row": ([{"query": "hi"}, {"query": "again", "expected_tool_use": [], "reference": "echo: again"}], None),
    "state": ([{"query": "how are you?", "expected_tool_use": [], "reference": "feeling happy"}], None),
    "eval_set": (
        {"eval_id": "one_bad", "conversation": [_turn("fine"), _turn("bad")]},
        {
            "criteria": {"bad_turns": 0.4},
            "custom_metrics": {"bad_turns": {"code_config": {"name": "parity_probe_metrics.bad_turns"}}},
        },
    ),
}
MOOD = {"app_name": STATE_AGENT, "user_id": "tester", "state": {"mood": "happy"}}


@pytest.fixture(scope="module")
def round_two_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The probe agent, an agent that says its session's state, two metrics modules, and one folder per probe: an
    eval set (``probe_NAME.evalset.json``) or a legacy query list (``probe_NAME.test.json``), its config if any,
    and beside the legacy file of ``state`` an ``initial.session.json`` that ADK never reads by itself."""
    repo = tmp_path_factory.mktemp("parity_two")
    (repo / ".git").mkdir()
    for name, source in ((AGENT, AGENT_SOURCE), (STATE_AGENT, STATE_AGENT_SOURCE)):
        (repo / name).mkdir()
        (repo / name / "__init__.py").write_text("from . import agent\n", encoding="utf-8")
        (repo / name / "agent.py").write_text(source, encoding="utf-8")
    (repo / "parity_probe_metrics.py").write_text(METRICS_SOURCE, encoding="utf-8")
    (repo / f"{ROUND_TWO_METRICS}.py").write_text(ROUND_TWO_METRICS_SOURCE, encoding="utf-8")
    for name, (content, config) in ROUND_TWO.items():
        folder = repo / "evals" / name
        folder.mkdir(parents=True)
        if isinstance(content, list):
            (folder / f"probe_{name}.test.json").write_text(json.dumps(content), encoding="utf-8")
        else:
            evalset = {"eval_set_id": f"probe_{name}", "eval_cases": [content]}
            (folder / f"probe_{name}.evalset.json").write_text(json.dumps(evalset), encoding="utf-8")
        if config is not None:
            (folder / "test_config.json").write_text(json.dumps(config), encoding="utf-8")
    (repo / "evals" / "state" / "initial.session.json").write_text(json.dumps(MOOD), encoding="utf-8")
    yield repo
    names = (AGENT, STATE_AGENT, "parity_probe_metrics", ROUND_TWO_METRICS)
    for module in [name for name in sys.modules if name.split(".")[0] in names]:
        del sys.modules[module]


@pytest.fixture
def probe_two(
    round_two_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[[str], Probe]:
    monkeypatch.chdir(round_two_repo)
    monkeypatch.syspath_prepend(str(round_two_repo))
    monkeypatch.setenv("GOOGLE_API_KEY", API_KEY)
    for name in ("GITHUB_ACTIONS", "GITHUB_WORKSPACE", "GITHUB_EVENT_PATH"):
        monkeypatch.delenv(name, raising=False)
    return lambda name: Probe(round_two_repo, name, monkeypatch, capsys)


def legacy_file(probe: Probe) -> Path:
    return probe.repo / "evals" / probe.name / f"probe_{probe.name}.test.json"


def raised(call: Callable[[], Any]) -> tuple[str, str] | None:
    """What a call of AgentEvaluator (ADK's or the drop-in) raised, as (type, message); None: it passed."""
    try:
        asyncio.run(call())
    except (AssertionError, ValueError) as error:
        return type(error).__name__, str(error)
    return None


def test_a_custom_metric_with_only_an_overall_score_is_adks_error_in_agent_evaluator_the_drop_in_and_run(
    probe_two: Callable[[str], Probe], cli_in_process: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    """ADK raises that a metric must return a result per invocation; neither the drop-in nor run passes."""
    probe = probe_two("overall_only")
    message = "Eval metric should return results for each invocation. Found 0 results for 1 invocations."
    theirs = raised(lambda: AdkAgentEvaluator.evaluate(AGENT, str(probe.evalset), num_runs=1))
    assert theirs == ("ValueError", message)
    assert raised(lambda: GateAgentEvaluator.evaluate(AGENT, str(probe.evalset), num_runs=1)) == theirs
    code, case = gate_run(probe, cli_in_process)
    assert (code, case["status"]) == (1, "error")
    assert message in case["error"]


def test_a_custom_metric_that_declares_no_range_runs_with_a_threshold_of_40_in_adk_eval_and_run(
    probe_two: Callable[[str], Probe], cli_in_process: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    """A count's threshold: ADK checks no range, and the metric declares none."""
    probe = probe_two("count")
    code, final, theirs = adk_eval(probe)
    assert (code, final, theirs["answer_length"]) == (0, "passed", (len(f"echo: {LONG_TEXT}"), "passed"))
    our_code, case = gate_run(probe, cli_in_process)
    assert (our_code, case["status"]) == (code, final)
    assert_run_scores_as(theirs, case)


def test_a_case_without_turns_passes_agent_evaluator_and_the_drop_in_alike(probe_two: Callable[[str], Probe]) -> None:
    """No turn, no per-turn result: AgentEvaluator's case is not evaluated, which it does not count as failed."""
    probe = probe_two("no_turns")
    assert agent_evaluator(probe, num_runs=1).message is None
    message, _ = drop_in(probe, num_runs=1)
    assert message is None


def test_a_legacy_files_session_is_only_what_agent_evaluator_is_given_in_the_drop_in_and_run(
    probe_two: Callable[[str], Probe], cli_in_process: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    """The initial.session.json beside the file says the mood the reference expects: ADK reads it only when a test
    passes it as initial_session_file (then "feeling happy" passes); by itself it fails on "feeling"."""
    probe = probe_two("state")
    test_file, session_file = legacy_file(probe), str(legacy_file(probe).parent / "initial.session.json")
    theirs = raised(lambda: AdkAgentEvaluator.evaluate(STATE_AGENT, str(test_file), num_runs=1))
    assert theirs is not None and "response_match_score for parity_state Failed. Expected 0.8" in theirs[1]
    assert raised(lambda: GateAgentEvaluator.evaluate(STATE_AGENT, str(test_file), num_runs=1)) == theirs
    given = raised(
        lambda: AdkAgentEvaluator.evaluate(STATE_AGENT, str(test_file), 1, initial_session_file=session_file)
    )
    assert given is None
    assert raised(lambda: GateAgentEvaluator.evaluate(STATE_AGENT, str(test_file), 1, None, session_file)) is None
    probe.capsys.readouterr()
    code, case = gate_run(probe, cli_in_process, "--agent", STATE_AGENT)
    assert (code, case["status"]) == (1, "failed")
    code, case = gate_run(probe, cli_in_process, "--agent", STATE_AGENT, "--legacy-session-file")
    assert (code, case["status"]) == (0, "passed")


def test_agent_evaluators_first_row_check_of_a_legacy_file_raises_the_same_in_the_drop_in(
    probe_two: Callable[[str], Probe],
) -> None:
    """The first row lacks the keys ADK's default criteria need; the second has them: ADK checks the first only."""
    test_file = str(legacy_file(probe_two("first_row")))
    theirs = raised(lambda: AdkAgentEvaluator.evaluate(AGENT, test_file, num_runs=1))
    assert theirs is not None and theirs[0] == "ValueError"
    assert theirs[1].startswith("Samples for tool_trajectory_avg_score must include 'query' and 'expected_tool_use'")
    assert raised(lambda: GateAgentEvaluator.evaluate(AGENT, test_file, num_runs=1)) == theirs


def test_the_drop_in_has_agent_evaluators_every_public_method_and_evaluate_eval_set_says_what_adks_says(
    probe_two: Callable[[str], Probe],
) -> None:
    """An eval set in memory and its config, ADK's own objects, given to both; a lower-is-better metric at 0.5
    over a threshold of 0.4 fails in both with the same line."""
    public = {name for name in dir(AdkAgentEvaluator) if not name.startswith("_")}
    assert public <= {name for name in dir(GateAgentEvaluator) if not name.startswith("_")}
    probe = probe_two("eval_set")
    eval_set = AdkEvalSet.model_validate_json(probe.evalset.read_text(encoding="utf-8"))
    config = AdkAgentEvaluator.find_config_for_test_file(str(probe.evalset))
    ours_config = GateAgentEvaluator.find_config_for_test_file(str(probe.evalset))
    assert ours_config.criterion("bad_turns").threshold == config.criteria["bad_turns"] == 0.4
    theirs = raised(lambda: AdkAgentEvaluator.evaluate_eval_set(AGENT, eval_set, eval_config=config, num_runs=1))
    assert theirs == (
        "AssertionError",
        "Following are all the test failures.\nbad_turns for parity_probe Failed. Expected 0.4, but got 0.5.",
    )
    assert raised(lambda: GateAgentEvaluator.evaluate_eval_set(AGENT, eval_set, eval_config=config, num_runs=1)) == (
        theirs
    )
    empty = AdkEvalSet(eval_set_id="empty", eval_cases=[])
    no_cases = raised(lambda: AdkAgentEvaluator.evaluate_eval_set(AGENT, empty, eval_config=config))
    assert raised(lambda: GateAgentEvaluator.evaluate_eval_set(AGENT, empty, eval_config=config)) == no_cases


def test_a_hallucination_label_adk_does_not_know_is_dropped_as_adks_evaluator_drops_it(gemini: FakeGemini) -> None:
    """'Not applicable' with a space: ADK's evaluator scores the text 1/2 (the label dropped), failing 0.6; so
    does the gate by default (read leniently it would count, 2/3, and pass)."""
    labels = {"A.": "supported", "B.": "unsupported", "C.": "Not applicable"}
    ours, theirs = judge_parity.both(
        gemini=gemini,
        make_script=lambda: HallucinationScript({"A. B. C.": ["A.", "B.", "C."]}, labels).answer,
        ours=HallucinationsV1,
        theirs=HallucinationsV1Evaluator,
        name="hallucinations_v1",
        criterion=gate_eval_config.HallucinationsCriterion(threshold=0.6, judge_model_options=judge_options()),
        adk_criterion=AdkHallucinationsCriterion(threshold=0.6, judge_model_options=judge_parity.adk_options(5)),
        actual=[invocation("q", "A. B. C.")],
        expected=None,
    )
    judge_parity.assert_same(ours, theirs)
    assert (theirs.overall_score, theirs.overall_eval_status) == (0.5, EvalStatus.FAILED)


def test_adk_eval_takes_the_config_beside_an_eval_set_only_when_given_one_file(tmp_path: Path) -> None:
    """What docs/differences.md says of ``adk eval`` on several files: ADK's own resolution drops the config."""
    from google.adk.cli.cli_tools_click import _resolve_eval_config_file_path

    first, second = tmp_path / "a" / "a.evalset.json", tmp_path / "b" / "b.evalset.json"
    for path in (first, second):
        path.parent.mkdir()
        path.write_text("{}", encoding="utf-8")
        (path.parent / "test_config.json").write_text('{"criteria": {"response_match_score": 0.1}}', encoding="utf-8")
    one = _resolve_eval_config_file_path(None, {str(first): []})
    assert one == str(first.parent / "test_config.json")
    assert _resolve_eval_config_file_path(None, {str(first): [], str(second): []}) is None


def test_a_final_response_label_adk_does_not_read_is_no_label_as_adks_evaluator_reads_it(gemini: FakeGemini) -> None:
    """Per sample "Valid", "Valid", "invalid": ADK's parser is case-sensitive, so one "invalid" decides and the
    case fails; so does the gate by default (read leniently, "Valid" would count, 2-1, and pass)."""
    answers = {"MARK": [v2_answer("Valid"), v2_answer("Valid"), v2_answer("invalid")]}
    ours, theirs = judge_parity.both(
        gemini=gemini,
        make_script=lambda: MarkerScript(answers).answer,
        ours=FinalResponseMatchV2,
        theirs=FinalResponseMatchV2Evaluator,
        name="final_response_match_v2",
        criterion=gate_eval_config.LlmAsAJudgeCriterion(threshold=0.5, judge_model_options=judge_options(3)),
        adk_criterion=AdkLlmAsAJudgeCriterion(threshold=0.5, judge_model_options=judge_parity.adk_options(3)),
        actual=[invocation("What is 2+2?", "MARK four")],
        expected=[invocation("What is 2+2?", "4")],
    )
    judge_parity.assert_same(ours, theirs)
    assert (theirs.overall_score, theirs.overall_eval_status) == (0.0, EvalStatus.FAILED)
