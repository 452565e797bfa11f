"""The garbage collector of a run (``support.collector``): every case run, in a worker and in the main process
alike, runs with the heap its process built before the case runs settled and the collector on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adk_eval_gate.support.collector import YOUNG_GENERATION
from tests.conftest import run_cli
from tests.runners.scripted import turn, write_agent, write_config, write_evalset

# An agent that says whether the collector sweeps in the process that runs its turn.
COLLECTOR_AGENT = """
import gc

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types


class CollectorModel(BaseLlm):
    async def generate_content_async(self, llm_request, stream=False):
        state = "on" if gc.isenabled() else "held"
        frozen = "frozen" if gc.get_freeze_count() else "not frozen"
        said = f"collector {state}, {frozen}, young generation {gc.get_threshold()[0]}"
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=said)]))


root_agent = LlmAgent(name="collector_agent", model=CollectorModel(model="collector"))
"""


SETTLED = f"collector on, frozen, young generation {YOUNG_GENERATION}"


@pytest.mark.slow  # the real command line: its supervising parent, the worker starter and the workers
@pytest.mark.parametrize("workers", [None, "0"])
def test_every_case_run_runs_with_the_heap_settled_and_the_collector_on(tmp_path: Path, workers: str) -> None:
    """What the process built before its case runs (ADK, the agents, the plan) is out of the collector's sweeps
    and its youngest generation is swept less often, in a worker (the starter settled it before forking the
    workers, each worker again once it imported the agents) and (``--workers 0``) in the main process; and the
    collector is on: a case run's garbage in cycles is freed."""
    (tmp_path / ".git").mkdir()
    write_agent(tmp_path / "bot", COLLECTOR_AGENT)
    write_config(tmp_path / "bot", {"response_match_score": 1.0})
    write_evalset(
        tmp_path / "bot" / "gc.evalset.json",
        {f"case_{n}": [turn("how is the collector?", answer=SETTLED)] for n in range(3)},
    )
    args = ["--workers", workers] if workers else []
    result = run_cli("run", "bot", "--output-dir", "out", *args, cwd=tmp_path)
    doc = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert doc["status"] == "passed" and doc["totals"]["passed"] == 3
