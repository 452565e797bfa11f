"""model.schemas: the models build their schemas when first used, so that importing the stages before the worker
starter is forked stays cheap; the starter builds what its workers use, the main process the rest while it waits.

Each check runs in a fresh process: a schema once built stays built for the process (and this one built them all).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pydantic
import pytest

from adk_eval_gate.model import schemas

MODELS_BUILT = textwrap.dedent(
    """
    import pydantic

    def built():
        found, pending = set(), [pydantic.BaseModel]
        while pending:
            model = pending.pop()
            for subclass in model.__subclasses__():
                pending.append(subclass)
                if subclass.__module__.startswith("adk_eval_gate.model.") and subclass.__pydantic_complete__:
                    found.add(subclass.__module__ + "." + subclass.__qualname__)
        return found
    """
)


def _run(script: str) -> dict[str, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", MODELS_BUILT + textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    result: dict[str, list[str]] = json.loads(done.stdout.splitlines()[-1])
    return result


@pytest.mark.slow  # a process of its own (google-genai's and the stages' imports)
def test_importing_the_stages_builds_none_of_the_models_schemas() -> None:
    seen = _run(
        """
        import json
        import adk_eval_gate.commands.run, adk_eval_gate.runners.adk, adk_eval_gate.report.writer
        from adk_eval_gate.model import schemas
        print(json.dumps({"built": sorted(built()), "models": [m.__name__ for m in schemas.package_models()]}))
        """
    )
    assert seen["built"] == []
    assert {"EvalSet", "EvalConfig", "ResultsDocument", "CaseResult", "Tokens"} <= set(seen["models"])


@pytest.mark.slow  # a process of its own (google-genai's and the stages' imports)
def test_building_ahead_builds_every_model_and_they_validate_as_before() -> None:
    seen = _run(
        """
        import json
        import adk_eval_gate.commands.run, adk_eval_gate.runners.adk
        from adk_eval_gate.model import schemas
        from adk_eval_gate.model.eval_config import EvalConfig
        from adk_eval_gate.model.results import ResultsDocument

        schemas.build(schemas.package_models())
        left = [m.__name__ for m in schemas.package_models() if not m.__pydantic_complete__]
        config = EvalConfig.model_validate({"criteria": {"response_match_score": 0.7}})
        try:
            ResultsDocument.model_validate({"status": "maybe"})
            refused = ""
        except pydantic.ValidationError as error:
            refused = error.errors()[0]["loc"][0]
        print(json.dumps({"left": left, "threshold": [config.criteria["response_match_score"]], "refused": [refused]}))
        """
    )
    assert seen == {"left": [], "threshold": [0.7], "refused": ["status"]}


@pytest.mark.slow  # a process of its own (google-genai's and the stages' imports, a real ADK agent)
def test_after_the_starters_warm_up_a_workers_case_run_builds_no_schema() -> None:
    """What a worker does with a case run (ADK's turn, the invocations, the compact turns, the scores): every
    schema it needs was built in the starter, once, not in each worker."""
    seen = _run(
        """
        import asyncio, json
        from pathlib import Path
        from google.genai import types
        from adk_eval_gate.inputs.configs import LoadedConfig
        from adk_eval_gate.inputs.load import LoadedEvalSet
        from adk_eval_gate.inputs.plan import PlannedFile, WorkItem
        from adk_eval_gate.metrics.registry import configured_metrics
        from adk_eval_gate.model.eval_config import EvalConfig
        from adk_eval_gate.model.evalset import EvalCase, EvalSet, Invocation
        from adk_eval_gate.runners.adk import warm_process
        from adk_eval_gate.runners.adk_case import run_case
        from adk_eval_gate.runners.adk_plugins import warm_up_agent
        from adk_eval_gate.runners.agents import AgentRef, LoadedAgent
        from adk_eval_gate.runners.runner import Inference
        from adk_eval_gate.runners.invocations import to_invocations
        from adk_eval_gate.runners.simulation import StaticTurns
        from adk_eval_gate.runners.workers.worker_side import Finisher

        # The main process's side: the plan a worker receives (made before the worker exists).
        said = types.Content(role="user", parts=[types.Part(text="hello")])
        case = EvalCase(eval_id="c", conversation=[Invocation(user_content=said, final_response=said)])
        config = EvalConfig(criteria={"response_match_score": 0.5, "tool_trajectory_avg_score": 1.0})
        eval_set = EvalSet(eval_set_id="a", eval_cases=[case])
        loaded = LoadedEvalSet(Path("a.evalset.json"), "a.evalset.json", eval_set, "evalset")
        item = WorkItem(PlannedFile(loaded, LoadedConfig(None, config, configured_metrics(config)), ()), case, 0, 1)
        # The starter's side, then a worker's.
        warm_process()
        before = built()
        agent = LoadedAgent(AgentRef("module", "a", "a"), warm_up_agent(), None)
        turns = StaticTurns(case)
        done = asyncio.run(run_case(agent, case=case, turns=turns, app_name="a", user_id="u", session_id="s"))
        invocations = to_invocations(done.events, timings=done.timings, app_details=done.details)
        finished = asyncio.run(Finisher().finish(item, Inference(invocations=invocations)))
        print(json.dumps({"new": sorted(built() - before), "turns": len(finished.turns or [])}))
        """
    )
    assert seen["new"] == [] and seen["turns"] == 1


def test_a_model_that_cannot_be_built_yet_is_left_to_its_first_use() -> None:
    class Later(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(defer_build=True)

        part: NotDefinedYet  # type: ignore[name-defined]  # noqa: F821

    schemas.build([Later])  # no error: the run goes on, and the model says what is missing when it is used
    assert not Later.__pydantic_complete__
    try:
        Later(part=1)
    except pydantic.PydanticUserError as error:
        assert "NotDefinedYet" in str(error)
    else:
        raise AssertionError("a model with an undefined annotation validated")
