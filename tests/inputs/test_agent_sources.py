"""Each eval file's agent, found as ADK's own tools find it: the rules in their order, the mapping a team writes,
disagreements, and manifests and tables that are broken or hostile."""

from __future__ import annotations

import subprocess
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from adk_eval_gate.inputs.agent_locator import AgentLocator, read_mappings
from adk_eval_gate.inputs.agent_sources import AgentChoice, NoAgent, agent_folder_above, parse_agent_value
from adk_eval_gate.support.errors import UsageError
from tests.inputs.layouts import copy_layout
from tests.runners.scripted import write_agent


def _evalset(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"eval_set_id": "s", "eval_cases": []}', encoding="utf-8")
    return path


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _locator(root: Path, *lines: str, agent: str | None = None) -> AgentLocator:
    option = parse_agent_value(agent, root=root, field="--agent") if agent else None
    return AgentLocator(root=root, option=option, mappings=read_mappings(list(lines), root=root, field="--agent-map"))


def _chosen(locator: AgentLocator, path: Path) -> tuple[str, str]:
    found = locator.choose(path)
    assert isinstance(found, AgentChoice), found
    return found.ref.display, found.source


def test_the_nearest_agent_folder_above_the_eval_file_up_to_the_root(tmp_path: Path) -> None:
    write_agent(tmp_path / "outer")
    write_agent(tmp_path / "outer" / "inner_agent")
    deep = tmp_path / "outer" / "inner_agent" / "evals" / "x.evalset.json"
    ref = agent_folder_above(deep, root=tmp_path)
    assert ref is not None and ref.display == "outer/inner_agent" and ref.kind == "folder"
    assert agent_folder_above(tmp_path / "outer" / "y.evalset.json", root=tmp_path).display == "outer"  # type: ignore[union-attr]
    assert agent_folder_above(tmp_path / "z.evalset.json", root=tmp_path / "outer") is None
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "__init__.py").write_text("", encoding="utf-8")
    assert agent_folder_above(tmp_path / "plain" / "a.evalset.json", root=tmp_path) is None  # no agent.py


def test_an_agent_given_by_the_user_is_a_folder_or_a_module_that_exists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_agent(tmp_path / "bots" / "echo")
    write_agent(tmp_path / "calc_agent")
    assert parse_agent_value("bots/echo", root=tmp_path, field="--agent").kind == "folder"
    dotted = parse_agent_value("calc_agent.agent", root=tmp_path, field="--agent")
    assert (dotted.kind, dotted.location, dotted.import_root) == ("module", "calc_agent.agent", str(tmp_path))
    assert parse_agent_value("json", root=tmp_path, field="--agent").kind == "module"  # installed
    with pytest.raises(UsageError) as typo:
        parse_agent_value("calc_agnet.agent", root=tmp_path, field="--agent")
    assert typo.value.one_line() == (
        "--agent: 'calc_agnet.agent' is neither a folder nor a module of the repository, and no installed package "
        "provides 'calc_agnet' (did you mean 'calc_agent'?)"
    )
    (tmp_path / "not_agent").mkdir()
    with pytest.raises(UsageError, match=r"without __init__\.py"):
        parse_agent_value("not_agent", root=tmp_path, field="--agent")
    with pytest.raises(UsageError, match="neither an existing folder nor a dotted module"):
        parse_agent_value("no/such/folder", root=tmp_path, field="--agent")
    with pytest.raises(UsageError, match=r"did you mean 'bots/echo'\?"):
        parse_agent_value("bots/ecoh", root=tmp_path, field="--agent")


def test_a_typo_in_agent_stops_the_run_with_exit_code_2_and_did_you_mean(
    repo: Path, cli_in_process: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    """It was four error cases and exit code 1, with advice to add the package to the action's requirements."""
    write_agent(repo / "calc_agent")
    _evalset(repo / "calc_agent" / "a.evalset.json")
    result = cli_in_process("run", "--agent", "calc_agnet.agent", "--workers", "0", cwd=repo)
    assert result.returncode == 2, result.stdout
    assert "did you mean 'calc_agent'?" in result.stdout and "requirements input" not in result.stdout


def test_the_rules_in_their_order(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    write_agent(root / "support")
    write_agent(root / "billing")
    inside = _evalset(root / "support" / "inside.evalset.json")
    named = _evalset(root / "evals" / "named.test.json")
    mapped = _evalset(root / "evals" / "mapped" / "m.evalset.json")
    _write(
        root / "tests" / "test_eval.py",
        """
        from google.adk.evaluation.agent_evaluator import AgentEvaluator
        def test_named():
            AgentEvaluator.evaluate("billing", "evals/named.test.json", num_runs=3)
        def test_inside():
            AgentEvaluator.evaluate("support", "support/inside.evalset.json", num_runs=1)
        """,
    )
    locator = _locator(root, "evals/mapped/**=support")
    assert _chosen(locator, inside) == ("support", "AgentEvaluator.evaluate at tests/test_eval.py:6")
    assert _chosen(locator, named) == ("billing", "AgentEvaluator.evaluate at tests/test_eval.py:4")
    assert _chosen(locator, mapped) == ("support", "mapped by 'evals/mapped/**' in --agent-map")
    found = locator.choose(named)
    assert isinstance(found, AgentChoice) and found.num_runs == 3
    assert found.describe() == "billing (AgentEvaluator.evaluate at tests/test_eval.py:4, 3 runs)"
    given = _locator(root, "evals/mapped/**=support", agent="billing")
    assert _chosen(given, mapped) == ("billing", "from --agent")
    with_runs = given.choose(named)
    assert isinstance(with_runs, AgentChoice) and with_runs.num_runs == 3  # the call still gives the runs
    assert with_runs.describe() == "billing (from --agent), 3 runs (AgentEvaluator call at tests/test_eval.py:4)"


def test_two_rules_that_name_different_agents_are_an_error_naming_both(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    write_agent(root / "support")
    write_agent(root / "billing")
    file = _evalset(root / "support" / "x.evalset.json")
    _write(
        root / "test_eval.py",
        """
        from google.adk.evaluation.agent_evaluator import AgentEvaluator
        def test_wrong():
            AgentEvaluator.evaluate("billing", "support/x.evalset.json")
        """,
    )
    found = _locator(root).choose(file)
    assert isinstance(found, NoAgent)
    assert found.reason.startswith(
        "two agents are named for it: billing (AgentEvaluator.evaluate at test_eval.py:4) and support (the agent "
        "folder above the file); choose with a line in the [tool.adk-eval-gate.agents] table of pyproject.toml"
    )
    assert isinstance(_locator(root, "support/*.evalset.json=support").choose(file), AgentChoice)  # chosen


def test_a_call_naming_a_module_that_is_nowhere_says_so(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    write_agent(root / "proj" / "customer_service")
    (root / "proj" / "pyproject.toml").write_text("[project]\nname = 'p'\n", encoding="utf-8")
    file = _evalset(root / "proj" / "eval" / "data" / "a.test.json")
    _write(
        root / "proj" / "eval" / "test_eval.py",
        """
        import os
        from google.adk.evaluation.agent_evaluator import AgentEvaluator
        def test_a():
            AgentEvaluator.evaluate("customer_servic", os.path.join(os.path.dirname(__file__), "data"))
        """,
    )
    found = _locator(root).choose(file)
    assert isinstance(found, NoAgent) and found.origin == "proj/eval/test_eval.py"
    assert found.reason == (
        "proj/eval/test_eval.py:5 names agent module 'customer_servic', which is neither in the repository nor "
        "installed (did you mean 'customer_service'?)"
    )


def test_agents_cli_projects_give_their_agent_directory_to_the_files_under_tests_eval(tmp_path: Path) -> None:
    before = copy_layout("agent_starter_pack", tmp_path / "before").resolve()
    write_agent(before / "app")
    evalset = before / "tests" / "eval" / "evalsets" / "basic.evalset.json"
    assert _chosen(_locator(before), evalset) == ("app", "agent_directory of pyproject.toml")
    after = copy_layout("agents_cli", tmp_path / "after").resolve()
    write_agent(after / "app")
    _evalset(after / "tests" / "eval" / "evalsets" / "kept.evalset.json")
    write_agent(after / "other_agent")  # two agents: the only-agent rule would not decide
    assert _chosen(_locator(after), after / "tests" / "eval" / "evalsets" / "kept.evalset.json") == (
        "app",
        "agent_directory of agents-cli-manifest.yaml",
    )


@pytest.mark.parametrize(
    ("manifest", "problem"),
    [
        ("agent_directory: [unclosed\n", "agents-cli-manifest.yaml is not valid YAML (line 2)"),
        ("- a list\n", "agents-cli-manifest.yaml is not a YAML mapping"),
        ('agent_directory: "missing"\n', "agent_directory 'missing' does not exist"),
        ('agent_directory: "../../.."\n', "agent_directory '../../..' is outside the repository"),
        ('agent_directory: "/etc"\n', "agent_directory '/etc' is outside the repository"),
        ('agent_directory: "a\\0b"\n', "agent_directory 'a\\x00b' holds a NUL character"),
        (f"agent_directory: {'a' * 300}\n", "has a name of 300 bytes, more than the 255"),
        (f"agent_directory: {'a/' * 2500}\n", "(5,000 characters) is 5,000 bytes long, more than the 4,096"),
        ("agent_directory: 7\n", "agent_directory must be a folder name"),
        ("name: \xff\n", "not UTF-8"),
        ("a: &a [1]\n" + "".join(f"b{n}: &b{n} [*a, *a]\n" for n in range(3)), "does not exist"),  # aliases: app
    ],
    ids=[
        "not-yaml",
        "not-a-mapping",
        "missing-folder",
        "leaves",
        "absolute",
        "nul",
        "long-name",
        "long-path",
        "not-a-name",
        "not-utf-8",
        "aliases",
    ],
)
def test_a_manifest_that_cannot_be_used_is_an_error_for_its_eval_files(
    tmp_path: Path, manifest: str, problem: str
) -> None:
    root = tmp_path.resolve()
    path = root / "agents-cli-manifest.yaml"
    path.write_bytes(manifest.encode("latin-1") if "\xff" in manifest else manifest.encode())
    file = _evalset(root / "tests" / "eval" / "evalsets" / "basic.evalset.json")
    found = _locator(root).choose(file)
    assert isinstance(found, NoAgent) and problem in found.reason, found
    assert found.origin == "agents-cli-manifest.yaml"


def test_a_huge_manifest_is_not_read(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    with (root / "agents-cli-manifest.yaml").open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    found = _locator(root).choose(_evalset(root / "tests" / "eval" / "x.evalset.json"))
    assert isinstance(found, NoAgent) and "more than the 1,000,000 read" in found.reason


def test_the_repositorys_only_agent_and_what_a_file_without_one_says(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    write_agent(root / "agents" / "solo")
    file = _evalset(root / "evals" / "a.evalset.json")
    assert _chosen(_locator(root), file) == ("agents/solo", "the repository's only agent")
    write_agent(root / "agents" / "duo")
    found = _locator(root).choose(file)
    assert isinstance(found, NoAgent)
    assert found.reason.startswith(
        "no agent found for evals/a.evalset.json: no mapping, AgentEvaluator call, agent folder above it or "
        "agents-cli project names one, and the repository has 2 agents (agents/duo, agents/solo)"
    )


def test_the_gates_table_in_pyproject_maps_files_and_unused_globs_are_said(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    write_agent(root / "services" / "billing" / "billing_agent")
    write_agent(root / "support_bot")
    _write(
        root / "pyproject.toml",
        """
        [tool.adk-eval-gate.agents]
        "services/billing/evals/**" = "services/billing/billing_agent"
        "support.evalset.json" = "support_bot.agent"
        "nothing/**" = "support_bot"
        """,
    )
    locator = _locator(root, "services/billing/evals/special.evalset.json=support_bot")
    billing = _evalset(root / "services" / "billing" / "evals" / "deep" / "a.evalset.json")
    special = _evalset(root / "services" / "billing" / "evals" / "special.evalset.json")
    support = _evalset(root / "anywhere" / "support.evalset.json")
    source = "in [tool.adk-eval-gate.agents] in pyproject.toml"
    assert _chosen(locator, billing) == (
        "services/billing/billing_agent",
        f"mapped by 'services/billing/evals/**' {source}",
    )
    assert _chosen(locator, special)[1] == "mapped by 'services/billing/evals/special.evalset.json' in --agent-map"
    assert _chosen(locator, support) == ("support_bot.agent", f"mapped by 'support.evalset.json' {source}")
    assert locator.unused_mappings() == [
        "[tool.adk-eval-gate.agents] in pyproject.toml: 'nothing/**' matches no eval file"
    ]


@pytest.mark.parametrize(
    ("pyproject", "message"),
    [
        ("[tool.adk-eval-gate\n", "pyproject.toml is not valid TOML"),
        ("[tool.adk-eval-gate]\nagents = ['a']\n", 'must be a table of "eval-file glob" = "agent folder or module"'),
        ('[tool.adk-eval-gate.agents]\n"x/**" = "no_such_agent"\n', "'no_such_agent' is neither a folder nor"),
        ('[tool.adk-eval-gate.agents]\n"x/**" = "\\u0000::error::"\n', "is neither an existing folder"),
        ('[tool.adk-eval-gate.agents]\n"x/**" = ".."\n', "'..' is a folder outside the repository"),
    ],
    ids=["not-toml", "not-a-table", "missing-agent", "control-characters", "outside"],
)
def test_a_bad_table_or_mapping_stops_the_run_with_one_line(tmp_path: Path, pyproject: str, message: str) -> None:
    (tmp_path / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    with pytest.raises(UsageError) as raised:
        _locator(tmp_path.resolve())
    assert message in raised.value.one_line() and "\n" not in raised.value.one_line()
    with pytest.raises(UsageError, match="is not GLOB=AGENT"):
        read_mappings(["no equals sign"], root=tmp_path, field="--agent-map")


def test_a_broken_pyproject_without_the_gates_table_is_not_the_gates_business(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project\nname = 'x'\n", encoding="utf-8")
    assert read_mappings([], root=tmp_path, field="--agent-map") == []


def test_the_calls_not_used_are_one_line_per_test_module_for_run_and_each_for_validate(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    write_agent(root / "bot")
    file = _evalset(root / "evals" / "a.test.json")
    _write(
        root / "tests" / "test_bot.py",
        """
        from google.adk.evaluation.agent_evaluator import AgentEvaluator
        async def test_a(path):
            await AgentEvaluator.evaluate("bot", path)
            await AgentEvaluator.evaluate("bot", "evals/missing.test.json")
            await AgentEvaluator.evaluate("bot", "evals/a\\0.test.json")
        """,
    )
    locator = _locator(root)
    assert locator.skipped_by_module() == []  # nothing needed the calls yet
    assert isinstance(locator.choose(file), AgentChoice)
    [line] = locator.skipped_by_module()
    assert line == (
        "tests/test_bot.py:4: AgentEvaluator.evaluate(...) computes its eval path instead of writing it in the file "
        "(and 2 other calls of the file: validate lists them)"
    )
    assert [each.split(": ", 1)[0] for each in locator.skipped_calls()] == [f"tests/test_bot.py:{n}" for n in (4, 5, 6)]
    assert "which holds a NUL character" in locator.skipped_calls()[2]
