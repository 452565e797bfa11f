"""``--only-affected``'s pure part (``compare/affected.py``): which cases a change can touch, given the inputs the
baseline recorded; and a carried case in the verdict, counted as the base decided it. The whole flow, with git and
real agents, is ``tests/test_only_affected.py``."""

from __future__ import annotations

import importlib
import io
import sys
from pathlib import Path

import pytest

from adk_eval_gate import __version__, verdict
from adk_eval_gate.commands.only_affected import Affected, Inputs, choose
from adk_eval_gate.compare import affected, likeforlike
from adk_eval_gate.config.settings import build_settings
from adk_eval_gate.github.baseline import Baseline, NoBaseline
from adk_eval_gate.inputs.configs import LoadedConfig
from adk_eval_gate.inputs.plan import PlannedFile
from adk_eval_gate.metrics.registry import configured_metrics
from adk_eval_gate.model.eval_config import EvalConfig
from adk_eval_gate.model.results import Carried, CaseInputs, CaseResult, ResultsDocument
from adk_eval_gate.runners.observe import ModuleIndex
from adk_eval_gate.support.console import Console
from tests.report.builders import baseline_info, case, document, metric

A = "a_agent/a.evalset.json"
B = "b_agent/b.evalset.json"
A_FILES = [A, "a_agent/__init__.py", "a_agent/agent.py", "a_agent/test_config.json", "prompts/"]
B_FILES = [B, "b_agent/__init__.py", "b_agent/agent.py", "b_agent/tools.py", "b_agent/test_config.json"]


def _with_inputs(built: CaseResult, files: list[str], *, settings: str = "s1", observed: bool = True) -> CaseResult:
    return built.model_copy(update={"inputs": CaseInputs(files=files, settings=settings, observed=observed)})


def _base() -> ResultsDocument:
    cases = [
        _with_inputs(case("a1", [metric("response_match_score", 0.9)], file=A), A_FILES),
        _with_inputs(case("a2", [metric("response_match_score", 0.4)], file=A), A_FILES),
        _with_inputs(case("b1", [metric("response_match_score", 0.95)], file=B), B_FILES),
        _with_inputs(case("b2", [metric("response_match_score", 0.85)], file=B), B_FILES),
    ]
    doc = document(cases)
    return doc.model_copy(update={"run": doc.run.model_copy(update={"tool_version": __version__})})


def _select(
    changed: set[str], *, cases: dict[str, str] | None = None, base: ResultsDocument | None = None
) -> affected.Selection:
    base = base or _base()
    wanted = cases if cases is not None else {c.id: "s1" for c in base.cases}
    return affected.select(wanted, base=base, info=baseline_info(), changed=frozenset(changed))


def test_a_change_to_one_agent_s_tool_runs_its_cases_and_carries_the_other_agent_s() -> None:
    selection = _select({"b_agent/tools.py"})
    assert selection.reasons == {f"{B}::b1": "an input changed", f"{B}::b2": "an input changed"}
    assert sorted(selection.carried) == [f"{A}::a1", f"{A}::a2"]


def test_a_file_added_to_a_folder_the_agent_listed_touches_it_and_nothing_else_does() -> None:
    assert sorted(_select({"prompts/new.txt"}).reasons) == [f"{A}::a1", f"{A}::a2"]
    assert _select({"prompts/deeper/new.txt", "README.md", "docs/index.md"}).reasons == {}


def test_new_cases_cases_without_inputs_errors_and_other_settings_run() -> None:
    base = _base()
    unobserved = [_with_inputs(c, A_FILES, observed=False) if c.eval_id == "a1" else c for c in base.cases]
    base = base.model_copy(update={"cases": unobserved})
    errored = case("b2", [metric("response_match_score", None)], file=B, error="the agent raised")
    base.cases[3] = _with_inputs(errored, B_FILES)
    cases = {c.id: "s1" for c in base.cases} | {f"{A}::a2": "s2", f"{A}::a3": "s1"}
    selection = _select(set(), cases=cases, base=base)
    assert selection.reasons == {
        f"{A}::a1": "its inputs were not recorded",
        f"{A}::a2": "its settings changed",
        f"{B}::b2": "it could not be evaluated on the base branch",
        f"{A}::a3": "new",
    }
    assert list(selection.carried) == [f"{B}::b1"]


def test_a_carried_case_keeps_the_base_result_and_names_the_run_it_first_came_from() -> None:
    carried = _select(set()).carried
    a2 = carried[f"{A}::a2"]
    base_a2 = next(c for c in _base().cases if c.eval_id == "a2")
    assert a2.status == base_a2.status == "failed" and a2.metrics == base_a2.metrics and a2.runs == base_a2.runs
    assert a2.findings == base_a2.findings and a2.inputs == base_a2.inputs
    info = baseline_info()
    assert a2.carried == Carried(sha=_base().run.sha, run_url=info.run_url, description=info.description)
    older = Carried(sha="0ld" * 13 + "0", description="main (run 12)")
    base = _base()
    base.cases[0] = base.cases[0].model_copy(update={"carried": older, "quarantined": True})
    again = _select(set(), base=base).carried[f"{A}::a1"]
    assert again.carried == older and not again.quarantined  # quarantine is this run's to decide


def test_the_environment_s_dependency_files_and_always_affected_globs_change_every_case() -> None:
    changed = frozenset(
        {
            "agents/requirements-dev.txt",
            "uv.lock",
            "pyproject.toml",
            ".github/workflows/evals.yml",
            "deps/pinned.in.txt",
            "data/menu.csv",
            ".venv/lib/python3.11/site-packages/x/requirements.txt",
            "a_agent/agent.py",
        }
    )
    assert affected.changes_to_everything(changed, environment=["deps/pinned.in.txt"], always=["data/**"]) == [
        ".github/workflows/evals.yml",
        "agents/requirements-dev.txt",
        "data/menu.csv",
        "deps/pinned.in.txt",
        "pyproject.toml",
        "uv.lock",
    ]
    assert affected.changes_to_everything(frozenset({"a_agent/agent.py"}), environment=[], always=[]) == []


def test_the_environment_inputs_are_the_dependency_files_and_the_requirements_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    tracked = ["requirements.txt", "a_agent/agent.py", "poetry.lock", "tools/setup.cfg", "README.md"]
    found = affected.environment_inputs(tracked, "deps/agent.reqs", tmp_path)
    assert found == ["deps/agent.reqs", "poetry.lock", "requirements.txt", "tools/setup.cfg"]
    assert affected.environment_inputs(tracked, "pyproject", tmp_path) == [
        "poetry.lock",
        "requirements.txt",
        "tools/setup.cfg",
    ]


def test_a_baseline_of_another_gate_or_adk_version_is_not_carried_from() -> None:
    base = _base()
    assert affected.version_difference(base, adk_version="2.13.0") is None
    older = base.model_copy(update={"run": base.run.model_copy(update={"tool_version": "0.0.9"})})
    assert affected.version_difference(older, adk_version=None) == (
        f"the baseline was made by adk-eval-gate 0.0.9, this is {__version__}"
    )
    adk = base.model_copy(update={"run": base.run.model_copy(update={"adk_version": "2.12.0"})})
    assert affected.version_difference(adk, adk_version="2.13.0") == (
        "the baseline ran google-adk 2.12.0, this runs 2.13.0"
    )


def test_a_case_is_observed_only_when_every_run_reported_what_its_agent_used() -> None:
    ran = affected.case_inputs([A, "a_agent/test_config.json"], [["a_agent/agent.py"]], settings="s1")
    assert ran == CaseInputs(files=[A, "a_agent/agent.py", "a_agent/test_config.json"], settings="s1", observed=True)
    partly = affected.case_inputs([A], [["a_agent/agent.py"], None], settings="s1")
    assert not partly.observed and partly.files == [A, "a_agent/agent.py"]
    assert not affected.case_inputs([A], [], settings="s1").observed


def test_carried_cases_count_in_the_verdict_as_the_base_decided_them() -> None:
    """The run's status, counts and exit code with two carried cases (one failed) are those of the same cases
    run; a carried case counts once in ``carried`` too, and redeciding the saved results changes nothing."""
    base = _base()
    carried = _select({"b_agent/tools.py"}).carried
    ran = [c for c in base.cases if c.id not in carried]
    mixed = [carried.get(c.id, c) for c in base.cases]
    assert [c.id for c in mixed] == [c.id for c in base.cases] and ran
    decided = document(mixed)
    full = document(base.cases)
    assert decided.status == full.status == "failed"
    assert decided.totals.model_dump(exclude={"carried"}) == full.totals.model_dump(exclude={"carried"})
    assert decided.totals.carried == 2 and full.totals.carried == 0
    assert [f.model_dump() for f in decided.findings] == [f.model_dump() for f in full.findings]
    assert verdict.exit_code(decided) == verdict.exit_code(full) == 1
    again, claims = verdict.redecide(decided)
    assert claims == [] and again.totals == decided.totals


def test_the_settings_digest_changes_with_what_changes_scores() -> None:
    base = {"runner": "adk", "num_runs": 1, "prices": "p"}
    assert affected.digest(base) == affected.digest(dict(reversed(base.items())))
    assert affected.digest(base) != affected.digest(base | {"num_runs": 3})


def _choose(found: Baseline | NoBaseline, **options: object) -> tuple[Affected, str]:
    settings = build_settings("run", {"only_affected": True, **options}, env={})
    out = io.StringIO()
    chosen = choose(
        settings, inputs=Inputs(root=Path.cwd()), items=[], found=found, console=Console(in_actions=False, stream=out)
    )
    return chosen, out.getvalue()


def test_with_the_http_runner_or_without_a_baseline_every_case_runs_and_the_log_says_why() -> None:
    """The http runner's agent runs elsewhere: nothing can be observed, so nothing is carried."""
    base = Baseline(_base(), baseline_info())
    chosen, said = _choose(base, runner="http", agent_url="http://127.0.0.1:8000")
    assert chosen.carried == {} and chosen.info is not None
    assert chosen.info.everything == (
        "the http runner's agent does not run here, so what its cases depend on is not known"
    )
    assert said == f"Only affected: every case runs: {chosen.info.everything}\n"
    chosen, said = _choose(NoBaseline(note="no baseline yet: this is the first run"))
    assert said == (
        "Only affected: every case runs: there is no baseline to carry results from (no baseline yet: this is the "
        "first run)\n"
    )
    untouched, said = _choose(base, only_affected=False)
    assert untouched.info is None and said == ""


def test_a_custom_metric_s_module_and_its_imports_are_inputs_and_one_never_imported_is_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "repo"
    (root / "aff_metrics").mkdir(parents=True)
    (root / "aff_metrics" / "__init__.py").write_text("", encoding="utf-8")
    (root / "aff_metrics" / "score.py").write_text("from .helpers import words\n", encoding="utf-8")
    (root / "aff_metrics" / "helpers.py").write_text("def words(text):\n    return text.split()\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(root))
    for name in ("aff_metrics", "aff_metrics.score", "aff_metrics.helpers"):
        monkeypatch.delitem(sys.modules, name, raising=False)  # forgotten again at the end of the test
    importlib.import_module("aff_metrics.score")  # as scoring imports a custom metric
    index = ModuleIndex(root)
    assert affected.function_files(["aff_metrics.score.exact", "json.dumps"], index) == [
        "aff_metrics/__init__.py",
        "aff_metrics/helpers.py",
        "aff_metrics/score.py",
    ]
    assert affected.function_files(["aff_metrics.missing.exact"], index) is None


def _planned_with(criteria: dict[str, float]) -> PlannedFile:
    config = EvalConfig.model_validate({"criteria": criteria})
    return PlannedFile(None, LoadedConfig(None, config, configured_metrics(config)), ())  # type: ignore[arg-type]


def test_a_switch_to_googles_evaluation_service_changes_the_digest_of_the_files_that_use_it_only() -> None:
    """Cases whose service-backed metrics move to the service run again; files without them, and every digest of a
    baseline made before the implementation was recorded, stay as they were."""
    run = {"runner": "adk"}
    served, other = _planned_with({"safety_v1": 0.5}), _planned_with({"final_response_match_v2": 0.5})
    assert affected.settings_digest(served, run, service=True) != affected.settings_digest(served, run)
    assert affected.settings_digest(other, run, service=True) == affected.settings_digest(other, run)
    before = {  # what the digest was made of before computed_by existed
        **run,
        "criteria": likeforlike.criteria_digests(served.config.metrics)[0],
        "judges": {"safety_v1": {"model": "gemini-2.5-flash", "sampling": "5 samples", "provider": "gemini"}},
        "budgets": None,
    }
    assert affected.settings_digest(served, run) == affected.digest(before)
