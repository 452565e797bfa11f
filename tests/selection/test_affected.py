"""``--only-affected``'s pure part (``selection/affected.py``): which cases a change can touch, given the inputs the
baseline recorded, what git says changed and what the checkout holds of those inputs (``selection/checkout.py``);
and a carried case in the verdict, counted as the base decided it. The whole flow, with git and real agents, is
``tests/compare/test_only_affected.py`` (and ``tests/compare/test_only_affected_inputs.py``, each kind of input)."""

from __future__ import annotations

import importlib
import io
import os
import sys
from pathlib import Path

import pytest

from adk_eval_gate import __version__, verdict
from adk_eval_gate.aggregate.run_info import criteria_digests
from adk_eval_gate.config.settings import build_settings
from adk_eval_gate.inputs.configs import LoadedConfig
from adk_eval_gate.inputs.plan import PlannedFile
from adk_eval_gate.metrics.registry import configured_metrics
from adk_eval_gate.model.eval_config import EvalConfig
from adk_eval_gate.model.results import Carried, CaseInputs, CaseResult, ResultsDocument
from adk_eval_gate.runners.workers.observe import ModuleIndex
from adk_eval_gate.selection import affected, checkout
from adk_eval_gate.selection.found_baseline import Baseline, NoBaseline
from adk_eval_gate.selection.only_affected import Affected, Inputs, choose, outputs_of
from adk_eval_gate.support.console import Console
from tests.report.builders import baseline_info, case, document, metric

A = "a_agent/a.evalset.json"
B = "b_agent/b.evalset.json"
A_FILES = [A, "a_agent/__init__.py", "a_agent/agent.py", "a_agent/test_config.json", "prompts/"]
B_FILES = [B, "b_agent/__init__.py", "b_agent/agent.py", "b_agent/tools.py", "b_agent/test_config.json"]
PROMPTS = "0123456789abcdef"  # the digest of the names in prompts/ as the base run ended


def _with_inputs(built: CaseResult, files: list[str], *, settings: str = "s1", observed: bool = True) -> CaseResult:
    listings = {path: PROMPTS for path in files if path.endswith("/")}
    inputs = CaseInputs(files=files, listings=listings, settings=settings, observed=observed)
    return built.model_copy(update={"inputs": inputs})


def _checkout(changed: set[str], states: dict[str, str] | None = None) -> affected.Checkout:
    """Git names ``changed``; every input is as the base run left it, tracked, except ``states`` (path: state)."""
    now = {path: PROMPTS if path.endswith("/") else checkout.FILE for path in [*A_FILES, *B_FILES]}
    now.update(states or {})
    return affected.Checkout(changed=frozenset(changed), states=now, tracked=frozenset([*A_FILES, *B_FILES]))


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
    changed: set[str] | affected.Checkout, *, cases: dict[str, str] | None = None, base: ResultsDocument | None = None
) -> affected.Selection:
    base = base or _base()
    wanted = cases if cases is not None else {c.id: "s1" for c in base.cases}
    now = changed if isinstance(changed, affected.Checkout) else _checkout(changed)
    return affected.select(wanted, base=base, info=baseline_info(), checkout=now)


def test_a_change_to_one_agent_s_tool_runs_its_cases_and_carries_the_other_agent_s() -> None:
    selection = _select({"b_agent/tools.py"})
    reason = "b_agent/tools.py changed"
    assert selection.reasons == {f"{B}::b1": reason, f"{B}::b2": reason}
    assert sorted(selection.carried) == [f"{A}::a1", f"{A}::a2"]


def test_a_folder_the_agent_listed_touches_it_when_it_holds_other_names_or_a_file_in_it_changed() -> None:
    """A listing tells the names, and each file's size and time (``DirEntry.stat``): a file directly in the folder
    that changed counts too; one in a folder below, or elsewhere, does not."""
    other_names = _checkout({"prompts/new.txt"}, {"prompts/": "fedcba9876543210"})
    assert _select(other_names).reasons == {
        f"{A}::a1": "the folder prompts/ holds other names",
        f"{A}::a2": "the folder prompts/ holds other names",
    }
    assert _select({"prompts/a.txt"}).reasons[f"{A}::a1"] == "a file in the folder prompts/ changed"
    assert _select({"prompts/deeper/new.txt", "README.md", "docs/index.md"}).reasons == {}


def test_a_changed_path_above_an_input_touches_it_a_submodule_or_a_symbolic_link() -> None:
    """Git names a submodule (or a link to a folder) as one path: every input under it changed."""
    assert _select({"a_agent"}).reasons[f"{A}::a1"] == f"{A} is under a_agent, which changed"
    assert _select({"prompts"}).reasons[f"{A}::a1"] == "prompts/ changed"
    assert _select({"a_agent/agent.py/x", "b_agent/tool"}).reasons == {}


def test_an_input_that_appeared_or_disappeared_or_that_git_does_not_track_touches_its_cases() -> None:
    base = _base()
    looked_for = [
        c.model_copy(update={"inputs": c.inputs.model_copy(update={"absent": ["b_agent/tools.py"]})})
        if c.inputs is not None and c.eval_id == "b1"
        else c
        for c in base.cases
    ]
    base = base.model_copy(update={"cases": looked_for})
    assert _select(set(), base=base).reasons == {f"{B}::b1": "b_agent/tools.py appeared"}
    gone = _select(_checkout(set(), {"b_agent/tools.py": checkout.ABSENT}), base=base).reasons
    assert gone == {f"{B}::b2": "b_agent/tools.py disappeared"}  # b1 looked for it and did not find it
    untracked = affected.Checkout(changed=frozenset(), states=_checkout(set()).states, tracked=frozenset(B_FILES))
    reason = f"{A} is not tracked by git (ignored, or not added), so whether it changed cannot be known"
    assert _select(untracked).reasons == {f"{A}::a1": reason, f"{A}::a2": reason}


def test_a_base_input_that_leaves_the_repository_is_never_looked_at_and_runs_its_case(tmp_path: Path) -> None:
    """A baseline is untrusted: ``../`` or an absolute path is not surveyed, and the case runs."""
    outside = tmp_path / "secret.txt"
    outside.write_text("x", encoding="utf-8")
    (tmp_path / "repo").mkdir()
    paths = ["../secret.txt", str(outside), "../", "a\x00b"]
    states = checkout.survey(paths, root=tmp_path / "repo")
    assert states == dict.fromkeys(paths, checkout.OUTSIDE)
    base = _base()
    base.cases[0] = _with_inputs(base.cases[0], ["../secret.txt"])
    now = affected.Checkout(changed=frozenset(), states=states, tracked=frozenset())
    assert _select(now, base=base).reasons[f"{A}::a1"] == "../secret.txt is not a path of the repository"


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
    states = {A: checkout.FILE, "a_agent/agent.py": checkout.FILE, "a_agent/test_config.json": checkout.FILE}
    ran = affected.case_inputs([A, "a_agent/test_config.json"], [["a_agent/agent.py"]], settings="s1", states=states)
    assert ran == CaseInputs(files=[A, "a_agent/agent.py", "a_agent/test_config.json"], settings="s1", observed=True)
    partly = affected.case_inputs([A], [["a_agent/agent.py"], None], settings="s1", states=states)
    assert not partly.observed and partly.files == [A, "a_agent/agent.py"]
    assert not affected.case_inputs([A], [], settings="s1", states=states).observed


def test_a_case_s_inputs_keep_which_files_were_absent_and_the_names_in_each_folder_it_listed() -> None:
    states = {A: checkout.FILE, "a_agent/.env": checkout.ABSENT, "prompts/": PROMPTS, "./": checkout.ABSENT}
    inputs = affected.case_inputs([A], [["a_agent/.env", "prompts/", "./"]], settings="s1", states=states)
    assert inputs.absent == ["a_agent/.env"]
    assert inputs.listings == {"./": checkout.ABSENT, "prompts/": PROMPTS}


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


def test_what_named_a_files_agent_and_its_runs_are_inputs_of_its_cases(tmp_path: Path) -> None:
    """The test module whose AgentEvaluator call named the agent, and both config names, are files of the case; the
    agent found and the file's runs are in its settings digest, so a new mapping or call runs it again."""
    from adk_eval_gate.inputs.agent_sources import AgentChoice, AgentRef
    from adk_eval_gate.inputs.configs import ConfigCache, find_config
    from adk_eval_gate.inputs.load import load_eval_file
    from adk_eval_gate.inputs.plan import PlannedFile

    root = tmp_path.resolve()
    evals = root / "eval" / "data"
    evals.mkdir(parents=True)
    (evals / "a.evalset.json").write_text('{"eval_set_id": "a", "eval_cases": [{"eval_id": "x", "conversation": []}]}')
    for name in ("test_config.json", "eval_config.json"):
        (root / "eval" / name).write_text('{"criteria": {"response_match_score": 0.5}}')
    config = ConfigCache(root).get(find_config(evals / "a.evalset.json", root=root, option=None))
    loaded = load_eval_file(evals / "a.evalset.json", display="eval/data/a.evalset.json")
    choice = AgentChoice(
        AgentRef("folder", str(root / "bot"), "bot"),
        "AgentEvaluator.evaluate at eval/test_eval.py:9",
        "eval/test_eval.py",
        4,
    )
    planned = PlannedFile(loaded, config, (), choice, 4)
    assert affected.file_inputs(planned, root) == [
        "eval/data/a.evalset.json",
        "eval/test_config.json",
        "eval/eval_config.json",
        "eval/test_eval.py",
    ]
    run = affected.run_settings(build_settings("run", {}, env={}), prices={})
    other_agent = PlannedFile(loaded, config, (), AgentChoice(AgentRef("folder", str(root / "b"), "b"), "x"), 4)
    digests = {
        affected.settings_digest(file, run)
        for file in (planned, PlannedFile(loaded, config, (), choice, 2), other_agent)
    }
    assert len(digests) == 3


@pytest.mark.timeout(60)
def test_the_checkout_is_surveyed_without_blocking_following_loops_or_losing_odd_names(tmp_path: Path) -> None:
    """A FIFO is looked at, never opened; a folder input that is a FIFO or a link loop is "not listed"; a name that
    is not UTF-8 is found again from its spelling in results.json; the gate's own reports are not a folder's
    names; a folder of many names is one digest."""
    repo = tmp_path / "repo"
    (repo / "odd").mkdir(parents=True)
    os.mkfifo(repo / "pipe")
    (repo / "loop").symlink_to("loop")
    odd = repo / "odd" / os.fsdecode(b"r\xe9sum\xe9.txt")
    odd.write_text("x", encoding="utf-8")
    (repo / "many").mkdir()
    for index in range(500):
        (repo / "many" / f"{index}.txt").touch()
    spelled = "odd/r\\xe9sum\\xe9.txt"
    paths = ["pipe", "pipe/", "loop", "loop/", spelled, "odd/", "./", "many/", "gone.txt", "gone/"]
    before = checkout.survey(paths, root=repo, skipped=["adk-eval-results"])
    assert before["pipe"] == checkout.FILE and before[spelled] == checkout.FILE and before["loop"] == checkout.FILE
    assert before["pipe/"].startswith("not listed: ") and before["loop/"].startswith("not listed: ")
    assert before["gone.txt"] == checkout.ABSENT and before["gone/"] == checkout.ABSENT
    (repo / "adk-eval-results").mkdir()  # made by the run
    (repo / "adk-eval-results" / "results.json").write_text("{}", encoding="utf-8")
    (repo / "odd" / "__pycache__").mkdir()
    assert checkout.survey(paths, root=repo, skipped=["adk-eval-results"]) == before
    (repo / "many" / "500.txt").touch()
    odd.rename(repo / "odd" / "other.txt")
    after = checkout.survey(paths, root=repo, skipped=["adk-eval-results"])
    assert after["many/"] != before["many/"] and after["odd/"] != before["odd/"] and after[spelled] == checkout.ABSENT


def test_the_gate_s_reports_and_cache_folder_are_never_among_a_listed_folder_s_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """They appear during the base run (and the cache is restored before a pull request's): not the agent's."""
    monkeypatch.chdir(tmp_path)
    settings = build_settings("run", {"cache_dir": "cache/judge", "html": "reports/page.html"}, env={})
    outputs = outputs_of(settings, tmp_path)
    reports = ["adk-eval-results/junit.xml", "adk-eval-results/results.json", "adk-eval-results/summary.md"]
    assert outputs == ["adk-eval-results", *reports, "cache/judge", "reports/page.html"]
    (tmp_path / "README.md").write_text("# repo", encoding="utf-8")
    before = checkout.survey(["./"], root=tmp_path, skipped=outputs)
    for path in ("cache/judge/entry.json", "reports/page.html", "adk-eval-results/results.json"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("{}", encoding="utf-8")
    assert checkout.survey(["./"], root=tmp_path, skipped=outputs) == before
    (tmp_path / "NOTES.md").write_text("# notes", encoding="utf-8")
    assert checkout.survey(["./"], root=tmp_path, skipped=outputs) != before


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
        "criteria": criteria_digests(served.config.metrics)[0],
        "judges": {"safety_v1": {"model": "gemini-2.5-flash", "sampling": "5 samples", "provider": "gemini"}},
        "budgets": None,
    }
    assert affected.settings_digest(served, run) == affected.digest(before)
