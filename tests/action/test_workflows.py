"""The example workflows, the project's own and those the README and docs/ show: inputs that exist, CLI calls that
parse, minimal permissions.

(Their syntax is checked against GitHub's workflow schema and with actionlint by .ci/static-checks.sh.)
"""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

from adk_eval_gate.config.command_line import build_parser

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "examples" / "workflows").glob("*.yml"))
OWN = sorted((REPO / ".github" / "workflows").glob("*.yml"))
ACTION_INPUTS = set(yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))["inputs"])
THIS_ACTION = re.compile(r"^(adk-eval-gate/adk-eval-gate@v\d+|\./)$")


def shown_workflows() -> list[tuple[str, str]]:
    """The YAML blocks of the README and docs/ as workflows, made by the script the static checks use."""
    spec = importlib.util.spec_from_file_location("readme_workflows", REPO / ".ci" / "readme_workflows.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    snippets: list[tuple[str, str]] = module.snippets()
    return snippets


SHOWN = shown_workflows()


def load(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    loaded["on"] = loaded.pop(True, loaded.get("on"))  # YAML 1.1 reads the key `on` as true
    return loaded


def steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for job in workflow["jobs"].values() for step in job.get("steps", [])]


def cli_calls(workflow: dict[str, Any]) -> list[list[str]]:
    """The adk-eval-gate command lines in run: scripts, ${{ }} expressions replaced by a plain word."""
    calls = []
    for step in steps(workflow):
        script = re.sub(r"\$\{\{[^}]*\}\}", "X", step.get("run", "")).replace("\\\n", " ")
        for line in script.splitlines():
            words = shlex.split(line, comments=True)
            if words[:1] == ["adk-eval-gate"]:
                calls.append(words[1:])
    return calls


def test_there_is_an_example_for_every_set_up_the_readme_promises() -> None:
    assert {path.name for path in EXAMPLES} == {
        "pr-gate.yml",
        "sharded.yml",
        "fork-safe-evaluate.yml",
        "fork-safe-comment.yml",
        "deployed-agent.yml",
        "cli-without-container.yml",
        "openai-judge.yml",
        "only-affected.yml",
    }
    assert {path.name for path in OWN} == {"ci.yml", "release.yml"}


@pytest.mark.parametrize("path", EXAMPLES + OWN, ids=lambda path: path.name)
def test_the_action_is_given_only_inputs_it_has(path: Path) -> None:
    for step in steps(load(path)):
        if THIS_ACTION.match(str(step.get("uses", ""))):
            unknown = set(step.get("with", {})) - ACTION_INPUTS
            assert not unknown, f"{path.name}: inputs {unknown} do not exist"


@pytest.mark.parametrize("path", EXAMPLES + OWN, ids=lambda path: path.name)
def test_cli_calls_parse(path: Path) -> None:
    parser = build_parser()
    for call in cli_calls(load(path)):
        parser.parse_args(call)  # SystemExit on an unknown option or command


@pytest.mark.parametrize(("name", "text"), SHOWN, ids=[name for name, _ in SHOWN])
def test_workflows_shown_in_the_readme_and_docs_give_known_inputs_and_parse(name: str, text: str) -> None:
    workflow = yaml.safe_load(text)
    workflow["on"] = workflow.pop(True, workflow.get("on"))
    for step in steps(workflow):
        if THIS_ACTION.match(str(step.get("uses", ""))):
            unknown = set(step.get("with", {})) - ACTION_INPUTS
            assert not unknown, f"{name}: inputs {unknown} do not exist"
    parser = build_parser()
    for call in cli_calls(workflow):
        parser.parse_args(call)


def test_the_readme_and_every_page_with_a_workflow_are_checked() -> None:
    prefixes = {name.rsplit("-", 1)[0] for name, _ in SHOWN}
    assert {"readme", "docs-action", "docs-judges", "docs-runners", "docs-cost", "docs-baselines"} <= prefixes


@pytest.mark.parametrize("path", EXAMPLES + OWN, ids=lambda path: path.name)
def test_permissions_are_set_and_never_write_all(path: Path) -> None:
    workflow = load(path)
    assert isinstance(workflow.get("permissions"), dict), f"{path.name} sets no top-level permissions"
    for job in workflow["jobs"].values():
        for scope in (workflow, job):
            assert scope.get("permissions") not in ("write-all", "read-all")


def test_the_gate_keeps_the_results_and_report_html_under_the_default_artifact_name() -> None:
    """Every run uploads results.json with report.html (reviewers of a pull request download the report); only
    the base branch's runs serve as baselines, since the baseline lookup never takes a pull_request run."""
    workflow = load(REPO / "examples" / "workflows" / "pr-gate.yml")
    assert set(workflow["on"]) == {"pull_request", "push"}
    assert workflow["permissions"] == {"contents": "read", "pull-requests": "write", "actions": "read"}
    uploads = [step for step in steps(workflow) if str(step.get("uses", "")).startswith("actions/upload-artifact")]
    (baseline,) = [step for step in uploads if step["with"]["name"] == "adk-eval-results"]
    assert baseline["with"]["path"].split() == ["adk-eval-results/results.json", "adk-eval-results/report.html"]
    assert baseline["if"] == "${{ !cancelled() }}"
    (junit,) = [step for step in uploads if step["with"]["name"] == "adk-eval-junit"]
    assert junit["with"]["path"] == "adk-eval-results/junit.xml" and "push" not in junit["if"]


def test_only_affected_runs_on_pull_requests_and_everything_on_pushes_to_the_default_branch() -> None:
    """The baseline a pull request carries results from is complete: pushes never pass only-affected."""
    workflow = load(REPO / "examples" / "workflows" / "only-affected.yml")
    pr_gate = load(REPO / "examples" / "workflows" / "pr-gate.yml")
    assert workflow["on"] == pr_gate["on"] and workflow["permissions"] == pr_gate["permissions"]
    (gate,) = [step for step in steps(workflow) if "adk-eval-gate/" in str(step.get("uses", ""))]
    assert gate["with"]["only-affected"] == "${{ github.event_name == 'pull_request' }}"
    uploads = [step["with"]["name"] for step in steps(workflow) if "upload-artifact" in str(step.get("uses", ""))]
    assert uploads == ["adk-eval-junit", "adk-eval-results"]


def test_the_shards_cover_the_matrix_and_one_job_comments() -> None:
    workflow = load(REPO / "examples" / "workflows" / "sharded.yml")
    shards = workflow["jobs"]["eval"]["strategy"]["matrix"]["shard"]
    (gate,) = [step for step in workflow["jobs"]["eval"]["steps"] if "adk-eval-gate/" in str(step.get("uses", ""))]
    assert gate["with"]["shard"] == f"${{{{ matrix.shard }}}}/{len(shards)}"
    assert gate["with"]["comment-mode"] == "off"
    commands = [call[0] for call in cli_calls(workflow)]
    assert commands == ["merge", "report"]
    assert ["report", "adk-eval-results/results.json", "--comment"] in cli_calls(workflow)


def test_the_fork_comment_workflow_never_checks_out_or_runs_the_pull_request() -> None:
    workflow = load(REPO / "examples" / "workflows" / "fork-safe-comment.yml")
    assert set(workflow["on"]) == {"workflow_run"}
    evaluate = load(REPO / "examples" / "workflows" / "fork-safe-evaluate.yml")
    assert workflow["on"]["workflow_run"]["workflows"] == [evaluate["name"]]
    uses = [str(step.get("uses", "")) for step in steps(workflow)]
    assert not any(use.startswith("actions/checkout") for use in uses)
    assert "contents" not in workflow["permissions"]
    assert "pull-requests" not in evaluate["permissions"]  # a fork's token could not write anyway


def test_the_deployed_agent_run_takes_its_token_from_the_environment() -> None:
    workflow = load(REPO / "examples" / "workflows" / "deployed-agent.yml")
    assert "workflow_dispatch" in workflow["on"]
    (gate,) = [step for step in steps(workflow) if "adk-eval-gate/" in str(step.get("uses", ""))]
    assert gate["with"]["runner"] == "http"
    assert "${AGENT_ID_TOKEN}" in gate["with"]["agent-headers"]
    assert "AGENT_ID_TOKEN" in gate["env"]


def test_every_example_that_evaluates_keeps_report_html_in_its_results_artifact() -> None:
    for path in EXAMPLES:
        workflow = load(path)
        writes_html = any(str(s.get("uses", "")).startswith("adk-eval-gate/") for s in steps(workflow)) or any(
            call[0] in {"run", "merge"} for call in cli_calls(workflow)
        )
        paths = " ".join(
            str(step["with"].get("path", ""))
            for step in steps(workflow)
            if str(step.get("uses", "")).startswith("actions/upload-artifact")
        )
        if writes_html and path.name != "sharded.yml":  # (its shards upload results.json; the merge job, below)
            assert re.search(r"adk-eval-results/(report\.html|\s|$)", paths), path.name
    merge_job = load(REPO / "examples" / "workflows" / "sharded.yml")["jobs"]["merge"]
    assert any("adk-eval-results/report.html" in str(step.get("with", {}).get("path")) for step in merge_job["steps"])
