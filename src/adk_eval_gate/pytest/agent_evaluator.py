"""ADK 2.13's ``AgentEvaluator`` with every public method it has, on the gate's stages:

* ``evaluate``: the files of a path (``pytest/evaluator.py``);
* ``evaluate_eval_set``: an eval set already in memory (ADK's ``EvalSet``, or the gate's), with ``eval_config``
  (or the deprecated ``criteria``), loaded and checked as ``run`` loads a file and decided as ``evaluate`` decides;
* ``find_config_for_test_file``: the ``test_config.json`` beside a file, else ADK's default criteria;
* ``migrate_eval_data_to_new_schema``: a legacy query list written as an EvalSet file, with AgentEvaluator's checks
  of the file and the session of ``initial_session_file`` only.

Each raises what AgentEvaluator raises, with its words; a problem of the gate's checks is one ``ValueError`` line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from adk_eval_gate.commands.migrate import legacy_eval_set
from adk_eval_gate.inputs import load
from adk_eval_gate.inputs.configs import ConfigSource, config_from_data, find_repository_root, load_config
from adk_eval_gate.inputs.plan import PlannedFile
from adk_eval_gate.model import eval_config as gate_config
from adk_eval_gate.pytest.adk_checks import legacy_input_problem
from adk_eval_gate.pytest.evaluator import (
    NUM_RUNS,
    case_session,
    evaluate,
    evaluate_planned,
    refuse_unsupported,
    running,
    sibling_config,
)
from adk_eval_gate.support.errors import GateError

NO_EVAL_CASES = (
    "No eval cases were evaluated, so there is nothing to report a pass or a failure for. This happens when "
    "`eval_set` has no eval cases."
)
GIVEN_CONFIG = "eval_config"  # how the config given to evaluate_eval_set is named in its errors


def _data(value: Any) -> Any:
    """A pydantic model of ADK's or the gate's (or plain data) as JSON data."""
    return value.model_dump(mode="json", exclude_none=True) if hasattr(value, "model_dump") else value


def _planned(eval_set: Any, eval_config: Any, *, root: Path) -> PlannedFile:
    """The eval set and its config as ``run`` loads and checks a file and its ``test_config.json``."""
    set_data, config_data = _data(eval_set), _data(eval_config)
    display = str(set_data.get("eval_set_id") or "eval_set") if isinstance(set_data, dict) else "eval_set"
    if not isinstance(config_data, dict):
        raise ValueError(f"{GIVEN_CONFIG}: must be an EvalConfig")
    try:
        loaded = load.load_parsed(root / display, display=display, text=json.dumps(set_data, indent=2), data=set_data)
        config = config_from_data(
            ConfigSource("option", root / GIVEN_CONFIG),
            data=config_data,
            text=json.dumps(config_data, indent=2),
            display=GIVEN_CONFIG,
        )
    except GateError as error:
        raise ValueError(error.one_line()) from None
    return PlannedFile(loaded, config, ())


async def evaluate_eval_set(  # noqa: PLR0917  # parameters: AgentEvaluator.evaluate_eval_set's signature
    agent_module: str,
    eval_set: Any,
    criteria: dict[str, float] | None = None,
    eval_config: Any | None = None,
    num_runs: int = NUM_RUNS,
    agent_name: str | None = None,
    print_detailed_results: bool = True,
    artifact_service: Any | None = None,
    output_file: str | None = None,
    app_name: str | None = None,
    eval_set_results_manager: Any | None = None,
) -> None:
    """Evaluates the agent of ``agent_module`` on ``eval_set``; raises ``AssertionError`` listing the failures."""
    if num_runs < 1:
        raise ValueError(f"`num_runs` must be at least 1, got {num_runs}.")
    refuse_unsupported(
        artifact_service=artifact_service, app_name=app_name, eval_set_results_manager=eval_set_results_manager
    )
    if not eval_set or not getattr(eval_set, "eval_cases", None):
        raise ValueError(NO_EVAL_CASES)
    if criteria:  # deprecated in ADK, which maps it to an eval config of those thresholds
        eval_config = {"criteria": dict(criteria)}
    if eval_config is None:
        raise ValueError("`eval_config` is required.")
    root = find_repository_root(Path.cwd())
    planned = _planned(eval_set, eval_config, root=root)
    async with running(case_session(agent_module, agent_name, num_runs=num_runs, root=root)) as session:
        await evaluate_planned(
            session,
            planned,
            agent_module=agent_module,
            print_detailed_results=print_detailed_results,
            output_file=output_file,
        )


def find_config_for_test_file(test_file: str) -> gate_config.EvalConfig:
    """The ``test_config.json`` in the test file's folder, else ADK's default criteria (the gate's model of it)."""
    path = Path(test_file)
    try:
        return load_config(sibling_config(path), root=find_repository_root(path.parent)).config
    except GateError as error:
        raise ValueError(error.one_line()) from None


def migrate_eval_data_to_new_schema(
    old_eval_data_file: str, new_eval_data_file: str, initial_session_file: str | None = None
) -> None:
    """The legacy query list written as an EvalSet file, as AgentEvaluator migrates it: its rows checked against
    the criteria of the ``test_config.json`` beside it, seeded from ``initial_session_file`` only."""
    if not old_eval_data_file or not new_eval_data_file:
        raise ValueError("One of old_eval_data_file or new_eval_data_file is empty.")
    criteria = find_config_for_test_file(old_eval_data_file).criteria
    try:
        _, rows = load.read_json(Path(old_eval_data_file), old_eval_data_file)
        problem = legacy_input_problem(rows, criteria)
        if problem:
            raise ValueError(problem)
        eval_set = legacy_eval_set(old_eval_data_file, initial_session=initial_session_file, beside=False)
    except GateError as error:
        raise ValueError(error.one_line()) from None
    Path(new_eval_data_file).write_text(eval_set.model_dump_json(indent=2), encoding="utf-8")


class AgentEvaluator:
    """ADK's ``AgentEvaluator``, every public method of 2.13, scored by the gate."""

    evaluate = staticmethod(evaluate)
    evaluate_eval_set = staticmethod(evaluate_eval_set)
    find_config_for_test_file = staticmethod(find_config_for_test_file)
    migrate_eval_data_to_new_schema = staticmethod(migrate_eval_data_to_new_schema)
