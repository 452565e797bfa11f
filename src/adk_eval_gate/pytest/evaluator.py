"""ADK's ``AgentEvaluator.evaluate``, scored by the gate, so an ADK test module changes one import line::

    from google.adk.evaluation.agent_evaluator import AgentEvaluator   # before
    from adk_eval_gate.pytest import AgentEvaluator                    # after

The same signature and behaviour: a folder's ``*.test.json`` files (or one file of any name), the
``test_config.json`` beside each file (ADK's default criteria without one), every case run ``num_runs`` times,
each metric scored and decided as AgentEvaluator decides it (the mean of every turn's score pooled across the
runs, compared in the direction the per-turn statuses imply: ``verdict.aggregation``), the first failing file
stops the loop, and the same ``AssertionError`` with one line per failing metric. The scores are the gate's
(equal to ADK's for the deterministic metrics, and for the judged ones given the same judge answers); the agent
runs in the gate's worker processes, as in ``run``, so a tool that calls ``os._exit`` fails the test instead of
ending pytest. Secrets are masked in everything it prints, raises or writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from adk_eval_gate.config.settings import build_settings
from adk_eval_gate.inputs import formats, legacy, load
from adk_eval_gate.inputs.agent_sources import AgentRef
from adk_eval_gate.inputs.configs import CONFIG_NAME, ConfigSource, find_repository_root
from adk_eval_gate.inputs.plan import PlannedFile
from adk_eval_gate.model.evalset import SessionInput
from adk_eval_gate.model.results import CaseResult, MetricResult, MetricStatus, RunMetric
from adk_eval_gate.pytest.adk_checks import legacy_input_problem, refused_result
from adk_eval_gate.pytest.case_session import CaseSession
from adk_eval_gate.pytest.case_text import case_report
from adk_eval_gate.report import views
from adk_eval_gate.support.errors import GateError
from adk_eval_gate.verdict import invocation_statuses

NUM_RUNS = 2
LEGACY_FORMATS = ("legacy_query_list", "legacy_named_list")
ADK_PARALLELISM = 4  # AgentEvaluator's inference runs four cases at once
FAILURE_HEADER = "Following are all the test failures."
DETAILS_HINT = (
    " If you looking to get more details on the failures, then please re-run this test with `print_detailed_results`"
    " set to `True`."
)
INITIAL_SESSION_WITH_EVALSET = (
    "Initial session should be specified as a part of EvalSet file. Explicit initial session is only needed, when "
    "specifying data in the older schema."
)
CSV_COLUMNS = (
    "eval_set_id",
    "eval_id",
    "metric_name",
    "threshold",
    "score",
    "eval_status",
    "prompt",
    "expected_response",
    "actual_response",
    "expected_tool_calls",
    "actual_tool_calls",
)


def eval_files(path_or_dir: str) -> list[Path]:
    """A folder's ``*.test.json`` files, searched recursively; any other path is the one file."""
    if not os.path.isdir(path_or_dir):
        return [Path(path_or_dir)]
    found = sorted(Path(root) / name for root, _, names in os.walk(path_or_dir) for name in names)
    files = [path for path in found if path.name.endswith(formats.LEGACY_QUERY_LIST.suffixes)]
    if not files:
        raise ValueError(f"No `*.test.json` eval files found in {path_or_dir}, so there is nothing to evaluate.")
    return files


def sibling_config(path: Path) -> ConfigSource:
    """AgentEvaluator's config: ``test_config.json`` in the file's own folder, else ADK's defaults."""
    candidate = path.parent / CONFIG_NAME
    return ConfigSource("folder", candidate) if candidate.is_file() else ConfigSource("default", None)


def _initial_session(initial_session_file: str | None) -> dict[str, Any]:
    if not initial_session_file:
        return {}
    _, data = load.read_json(Path(initial_session_file), initial_session_file)
    if not isinstance(data, dict):
        raise ValueError(f"{initial_session_file}: an initial session must be a JSON object")
    return data


def _load(session: CaseSession, path: Path, initial_session: dict[str, Any]) -> PlannedFile:
    """The file; a legacy file checked as AgentEvaluator checks it (``adk_checks.legacy_input_problem``), and a
    legacy query list seeded from the initial session file as AgentEvaluator seeds it (from nothing else)."""
    try:
        planned = session.load(path)
        if planned.loaded.format not in LEGACY_FORMATS:
            if initial_session:
                raise AssertionError(INITIAL_SESSION_WITH_EVALSET)
            return planned
        _, rows = load.read_json(path, planned.loaded.display)
        problem = legacy_input_problem(rows, planned.config.config.criteria)
        if problem:
            raise ValueError(problem)
        if planned.loaded.format != "legacy_query_list":
            return planned
        seeded: SessionInput | None = legacy.session_input_from(initial_session, [])
    except GateError as error:
        raise ValueError(error.one_line()) from None
    except legacy.LegacyFormatError as error:
        raise ValueError(f"initial session: {error}") from None
    cases = planned.loaded.eval_set.eval_cases
    cases[0] = cases[0].model_copy(update={"session_input": seeded})
    return planned


def adk_failures(cases: list[CaseResult], agent_module: str) -> list[str]:
    """AgentEvaluator's failure lines for the verdict's statuses: one per failing or unscored metric of a case with
    turns (a case run without any is not evaluated, which AgentEvaluator does not count as failed), one per case
    whose runs crashed."""
    failures = []
    for case in cases:
        scored_runs = [run for run in case.runs if not run.error]
        # AgentEvaluator's results are per turn: a case whose runs had none gets no line
        turns = any(run.invocations or any(m.invocation_scores for m in run.metrics) for run in scored_runs)
        for metric in case.metrics if turns else []:
            if metric.status == MetricStatus.NOT_EVALUATED:
                failures.append(
                    f"{metric.name} for {agent_module} was not evaluated. No score was produced, so the threshold "
                    f"of {metric.threshold} was never checked and this is not a score regression. See the logs for "
                    "why the metric could not run."
                )
            elif metric.status == MetricStatus.FAILED:
                failures.append(
                    f"{metric.name} for {agent_module} Failed. Expected {metric.threshold}, but got {metric.score}."
                )
        crashed = len(case.runs) - len(scored_runs)
        if crashed:
            failures.append(
                f"{case.eval_id} for {agent_module} Failed. {crashed} of {len(case.runs)} runs were recorded as "
                "failed without producing any metric results."
            )
    return failures


def _invocation_statuses(metric: MetricResult, run: RunMetric) -> list[str]:
    """Each turn's status as AgentEvaluator writes it: the verdict's (``aggregation.invocation_statuses``)."""
    if metric.status == MetricStatus.INFORMATIONAL or metric.threshold is None:
        return ["INFORMATIONAL"] * len(run.invocation_scores)
    statuses = invocation_statuses(run, metric.threshold)
    return [(status or MetricStatus.NOT_EVALUATED).name for status in statuses]


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """A cell as spreadsheets read it literally: text from eval files or agents that starts like a formula
    (``=``, ``+``, ``-``, ``@``, tab, carriage return) gets a leading ``'``, as OWASP advises; numbers stay numbers."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def append_csv(output_file: str, cases: list[CaseResult]) -> None:
    """AgentEvaluator's ``output_file``: one row per metric, run and invocation, appended (header once); no cell
    of text can be evaluated by a spreadsheet (``csv_cell``)."""
    rows = []
    for case in cases:
        for metric in case.metrics:
            for run in case.runs:
                scored = next((m for m in run.metrics if m.name == metric.name), None)
                if scored is None:
                    continue
                turns = views.turns(run)
                statuses = _invocation_statuses(metric, scored)
                for turn, score, status in zip(turns, scored.invocation_scores, statuses, strict=False):
                    rows.append(
                        {
                            "eval_set_id": case.eval_set_id,
                            "eval_id": case.eval_id,
                            "metric_name": metric.name,
                            "threshold": metric.threshold,
                            "score": score,
                            "eval_status": status,
                            "prompt": turn.user,
                            "expected_response": turn.expected_answer or "",
                            "actual_response": turn.actual_answer or "",
                            "expected_tool_calls": "\n".join(turn.expected_calls or []),
                            "actual_tool_calls": "\n".join(turn.actual_calls or []),
                        }
                    )
    target = Path(output_file)
    target.parent.mkdir(parents=True, exist_ok=True)
    new = not target.is_file()
    with target.open("a", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
        if new:
            writer.writeheader()
        writer.writerows({column: csv_cell(value) for column, value in row.items()} for row in rows)


def refuse_unsupported(*, artifact_service: Any, app_name: str | None, eval_set_results_manager: Any) -> None:
    if eval_set_results_manager is not None and not app_name:
        raise ValueError("app_name is required when eval_set_results_manager is provided.")
    if eval_set_results_manager is not None:
        raise NotImplementedError(
            "adk_eval_gate.pytest does not write ADK result files (eval_set_results_manager); run "
            "adk-eval-gate run for results.json, JUnit XML and a summary, or use ADK's AgentEvaluator for this test"
        )
    if artifact_service is not None:
        raise NotImplementedError(
            "adk_eval_gate.pytest runs every case with a fresh in-memory artifact service and does not take one "
            "(artifact_service); use ADK's AgentEvaluator for a test that pre-loads artifacts"
        )


def case_session(agent_module: str, agent_name: str | None, *, num_runs: int, root: Path) -> CaseSession:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("INPUT_")}
    options = {"num_runs": num_runs, "parallelism": ADK_PARALLELISM}
    settings = build_settings("run", options, environment)
    agent = AgentRef("module", agent_module, agent_module, sub_agent=agent_name)
    return CaseSession(settings, root=root, config_finder=sibling_config, agent=agent, score_rule="agent_evaluator")


@contextlib.asynccontextmanager
async def running(session: CaseSession) -> AsyncIterator[CaseSession]:
    """The session with its agent checked first (AgentEvaluator imports the agent before any file), closed at the
    end; the test's loop gets its task factory back (``execute`` sets its own)."""
    loop = asyncio.get_running_loop()
    task_factory = loop.get_task_factory()
    try:
        problem = session.agent_problem()
        if problem:
            raise ValueError(problem)
        yield session
    finally:
        loop.set_task_factory(task_factory)
        await session.aclose()


async def evaluate_planned(
    session: CaseSession,
    planned: PlannedFile,
    *,
    agent_module: str,
    print_detailed_results: bool,
    output_file: str | None,
) -> None:
    """One eval set's cases run, printed, written and judged as AgentEvaluator's ``evaluate_eval_set`` does."""
    cases = [session.masked(case) for case in await session.run(planned)]
    refused = refused_result(cases)
    if refused:
        raise ValueError(refused)
    if print_detailed_results:
        print("\n\n".join(case_report(case, every_metric=True) for case in cases), end="\n\n")
    if output_file:
        append_csv(output_file, cases)
    failures = adk_failures(cases, agent_module)
    if failures:
        header = FAILURE_HEADER if print_detailed_results else FAILURE_HEADER + DETAILS_HINT
        raise AssertionError(session.mask(header + "\n" + "\n".join(failures)))


async def evaluate(  # noqa: PLR0917  # parameters: AgentEvaluator.evaluate's signature, positional arguments too
    agent_module: str,
    eval_dataset_file_path_or_dir: str,
    num_runs: int = NUM_RUNS,
    agent_name: str | None = None,
    initial_session_file: str | None = None,
    print_detailed_results: bool = True,
    artifact_service: Any | None = None,
    output_file: str | None = None,
    app_name: str | None = None,
    eval_set_results_manager: Any | None = None,
) -> None:
    """Evaluates the agent of ``agent_module`` on the eval files; raises ``AssertionError`` listing the failures.

    ``app_name`` only matters to ADK together with ``eval_set_results_manager``, which (like ``artifact_service``)
    is refused with ``NotImplementedError``.
    """
    if num_runs < 1:
        raise ValueError(f"`num_runs` must be at least 1, got {num_runs}.")
    refuse_unsupported(
        artifact_service=artifact_service, app_name=app_name, eval_set_results_manager=eval_set_results_manager
    )
    files = eval_files(eval_dataset_file_path_or_dir)
    initial_session = _initial_session(initial_session_file)
    root = find_repository_root(Path(eval_dataset_file_path_or_dir))
    async with running(case_session(agent_module, agent_name, num_runs=num_runs, root=root)) as session:
        for path in files:
            try:
                planned = _load(session, path, initial_session)
            except ValueError as error:
                raise ValueError(session.mask(str(error))) from None
            await evaluate_planned(
                session,
                planned,
                agent_module=agent_module,
                print_detailed_results=print_detailed_results,
                output_file=output_file,
            )
