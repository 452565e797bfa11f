"""What custom metrics read where they score (``runners/workers/metric_reads.py``) is part of the inputs each run
reports: a run scored by a metric that compares with a golden file depends on that file, also when the metric read it
for an earlier case and kept it. The whole flow is ``tests/compare/test_only_affected_inputs.py``."""

from __future__ import annotations

import asyncio
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from google.genai import types as genai_types

from adk_eval_gate.inputs.configs import LoadedConfig
from adk_eval_gate.inputs.load import LoadedEvalSet
from adk_eval_gate.inputs.plan import PlannedFile, WorkItem
from adk_eval_gate.metrics.metric import MetricServices
from adk_eval_gate.metrics.registry import configured_metrics
from adk_eval_gate.model.eval_config import EvalConfig
from adk_eval_gate.model.evalset import EvalCase, EvalSet, Invocation
from adk_eval_gate.runners.execute import CASE_RUN_RETRY, MetricBuilder, run_one
from adk_eval_gate.runners.runner import Inference
from adk_eval_gate.runners.workers.metric_reads import MetricReads

GOLDEN = """
from pathlib import Path

KEPT = {}


def golden(instance):
    if "golden" not in KEPT:  # read once, then kept: the later cases depend on the file all the same
        KEPT["golden"] = (Path(__file__).parent / "golden.txt").read_text(encoding="utf-8").strip()
    return {"golden": 1.0 if instance["response"] == KEPT["golden"] else 0.0}
"""


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Path]:
    """A repository with a custom metric package on sys.path (forgotten afterwards)."""
    root = tmp_path / "repo"
    (root / "reads_metric").mkdir(parents=True)
    (root / "reads_metric" / "__init__.py").write_text("", encoding="utf-8")
    (root / "reads_metric" / "score.py").write_text(GOLDEN, encoding="utf-8")
    (root / "reads_metric" / "golden.txt").write_text("sunny\n", encoding="utf-8")
    sys.path.insert(0, str(root))
    try:
        yield root
    finally:
        sys.path.remove(str(root))
        for name in [name for name in sys.modules if name.split(".")[0] == "reads_metric"]:
            del sys.modules[name]
        importlib.invalidate_caches()


def _item(eval_id: str) -> WorkItem:
    content = genai_types.Content(role="user", parts=[genai_types.Part(text="weather?")])
    case = EvalCase(eval_id=eval_id, conversation=[Invocation(user_content=content, final_response=content)])
    loaded = LoadedEvalSet(
        Path("a.evalset.json"), "a.evalset.json", EvalSet(eval_set_id="a", eval_cases=[case]), "evalset"
    )
    config = EvalConfig.model_validate(
        {
            "criteria": {"golden": 0.5},
            "custom_metrics": {"golden": {"code_config": {"name": "reads_metric.score.golden"}, "signature": "vertex"}},
        }
    )
    return WorkItem(PlannedFile(loaded, LoadedConfig(None, config, configured_metrics(config)), ()), case, 0, 1)


class _Answers:
    """A runner whose agent says "sunny" and used ``observed`` (None: it could not say)."""

    name = "answers"

    def __init__(self, observed: list[str] | None) -> None:
        self.observed = observed

    async def infer(self, work: WorkItem) -> Inference:
        said = genai_types.Content(role="model", parts=[genai_types.Part(text="sunny")])
        invocation = Invocation(user_content=work.case.conversation[0].user_content, final_response=said)  # type: ignore[index]
        return Inference(invocations=[invocation], observed=self.observed)


def _run(item: WorkItem, metrics: MetricBuilder, observed: list[str] | None) -> Inference:
    finished = asyncio.run(
        run_one(item, runner=_Answers(observed), metrics=metrics, timeout=30, retry=CASE_RUN_RETRY)  # type: ignore[arg-type]
    )
    assert {scored.configured.name: scored.outcome.score for scored in finished.scored}["golden"] == 1.0
    return finished.inference


@pytest.mark.slow  # three scored runs of a case with their file reads recorded
def test_what_a_custom_metric_reads_when_it_scores_is_an_input_of_every_case_it_scores(repo: Path) -> None:
    metrics = MetricBuilder(MetricServices(), reads=MetricReads(repo))
    item = _item("first")
    metric_files = ["reads_metric/__init__.py", "reads_metric/golden.txt", "reads_metric/score.py"]
    assert set(metric_files) <= set(_run(item, metrics, ["agent/agent.py"]).observed or [])
    later = _run(WorkItem(item.file, item.case, 0, 2), metrics, ["agent/agent.py"]).observed or []
    assert "reads_metric/golden.txt" in later and "agent/agent.py" in later  # it kept the file: it still counts
    assert _run(WorkItem(item.file, item.case, 0, 3), metrics, None).observed is None  # the agent's are unknown


def test_without_recording_the_metrics_are_built_as_they_are(repo: Path) -> None:
    metrics = MetricBuilder(MetricServices())
    assert _run(_item("first"), metrics, ["agent/agent.py"]).observed == ["agent/agent.py"]
