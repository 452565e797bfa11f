"""``--only-affected`` end to end: a git repository with two real ADK agents (scripted models that log every call)
and their eval files; a full base run on the first commit records each case's inputs; then each change runs what
it can touch, through the CLI as a real process with its worker processes.

Agent A reads a prompt file at run time (its instruction); agent B answers from a tool in its own module; both
import a module they share.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adk_eval_gate.model.results import parse_document
from tests.conftest import run_cli, write_json
from tests.git_repos import git
from tests.runners.scripted import turn, write_evalset

pytestmark = pytest.mark.slow  # real agents, git and the CLI as processes

COMMON = """
def polite(text: str) -> str:
    return text.strip() + "."
"""

AGENT_A = """
import os
from pathlib import Path

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from common.words import polite

PROMPT = Path(__file__).resolve().parent.parent / "prompts" / "a_prompt.txt"


def instruction(context) -> str:
    return PROMPT.read_text(encoding="utf-8")  # read at run time, every turn


class ModelA(BaseLlm):
    async def generate_content_async(self, llm_request, stream=False):
        with open(os.environ["CALLS_LOG"], "a", encoding="utf-8") as log:
            log.write("A\\n")
        text = " ".join(part.text for part in llm_request.contents[-1].parts or [] if part.text)
        greeting = "Hello!" if "CHEERFUL" in str(llm_request.config.system_instruction) else "Hi."
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=polite(f"{greeting} {text}"))]))


root_agent = LlmAgent(name="a_agent", model=ModelA(model="script-a"), instruction=instruction)
"""

AGENT_B = """
import os

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from common.words import polite

from .tools import lookup


class ModelB(BaseLlm):
    async def generate_content_async(self, llm_request, stream=False):
        with open(os.environ["CALLS_LOG"], "a", encoding="utf-8") as log:
            log.write("B\\n")
        last = llm_request.contents[-1]
        answer = next((part.function_response for part in last.parts or [] if part.function_response), None)
        if answer is not None:
            data = answer.response or {}
            part = types.Part(text=polite(f"{data['city']} is {data['forecast']}"))
        else:
            city = " ".join(part.text for part in last.parts or [] if part.text)
            part = types.Part(function_call=types.FunctionCall(name="lookup", args={"city": city}))
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


root_agent = LlmAgent(name="b_agent", model=ModelB(model="script-b"), instruction="Look it up.", tools=[lookup])
"""

TOOLS_B = '''
def lookup(city: str) -> dict:
    """The forecast of a city."""
    return {"city": city, "forecast": "sunny"}
'''

CRITERIA = {"criteria": {"response_match_score": 0.8}}
A_CASES = {"a_paris": [turn("paris", answer="Hello! paris.")], "a_lima": [turn("lima", answer="Hello! lima.")]}
B_CASES = {"b_oslo": [turn("oslo", answer="oslo is sunny.")], "b_rome": [turn("rome", answer="rome is sunny.")]}
ALL = ["a_paris", "a_lima", "b_oslo", "b_rome"]


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _project(repo: Path) -> None:
    write(repo / "common" / "__init__.py", "")
    write(repo / "common" / "words.py", COMMON)
    write(repo / "prompts" / "a_prompt.txt", "Be CHEERFUL.\n")
    write(repo / "requirements.txt", "google-adk\n")
    write(repo / ".gitignore", "adk-eval-results/\n__pycache__/\n")
    for name, source, cases in (("a_agent", AGENT_A, A_CASES), ("b_agent", AGENT_B, B_CASES)):
        write(repo / name / "__init__.py", "from . import agent\n")
        write(repo / name / "agent.py", source)
        write_evalset(repo / name / f"{name[0]}.evalset.json", cases)
        write_json(repo / name / "test_config.json", CRITERIA)
    write(repo / "b_agent" / "tools.py", TOOLS_B)
    git(repo, "init", "--quiet", "--initial-branch=main")
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "--message", "two agents")


class Gate:
    """The gate run in a checkout, with the agents' model calls counted."""

    def __init__(self, repo: Path, calls: Path) -> None:
        self.repo, self.calls = repo, calls
        self.out = ""

    def run(self, *args: str) -> tuple[int, dict[str, Any]]:
        self.calls.write_text("", encoding="utf-8")
        done = run_cli("run", *args, cwd=self.repo, env={"CALLS_LOG": str(self.calls)}, timeout=300)
        self.out = done.stdout + done.stderr
        assert "Traceback" not in self.out, self.out
        data: dict[str, Any] = json.loads((self.repo / "adk-eval-results" / "results.json").read_text())
        return done.returncode, data

    def model_calls(self) -> dict[str, int]:
        lines = self.calls.read_text(encoding="utf-8").split()
        return {"A": lines.count("A"), "B": lines.count("B")}

    def comment(self) -> str:
        return (self.repo / "adk-eval-results" / "comment.md").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The project's repository and its full base run's results.json (outside the repository)."""
    root = tmp_path_factory.mktemp("only_affected")
    origin = root / "origin"
    _project(origin)
    gate = Gate(origin, root / "calls.log")
    code, data = gate.run()
    assert code == 0, gate.out
    assert gate.model_calls() == {"A": 2, "B": 4}
    baseline = root / "base.json"
    baseline.write_text(json.dumps(data), encoding="utf-8")
    return origin, baseline


@pytest.fixture
def checkout(base: tuple[Path, Path], tmp_path: Path) -> Gate:
    """A clone of the project, on the base run's commit."""
    git(tmp_path, "clone", "--quiet", str(base[0]), "work")
    return Gate(tmp_path / "work", tmp_path / "calls.log")


def _by_id(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {case["eval_id"]: case for case in data["cases"]}


def _carried(data: dict[str, Any]) -> list[str]:
    return [case["eval_id"] for case in data["cases"] if case.get("carried")]


def _apps_named(case: dict[str, Any]) -> set[str]:
    """The keys of the app details (results.json's table) the case's compact turns name."""
    return {
        record["act"]["app"] for run in case["runs"] for record in run["invocations"] if "app" in record.get("act", {})
    }


def test_the_base_run_records_each_case_s_inputs_and_its_commit(base: tuple[Path, Path]) -> None:
    origin, baseline = base
    data = json.loads(baseline.read_text())
    assert data["run"]["sha"] == git(origin, "rev-parse", "HEAD").strip()
    assert data["run"]["environment_inputs"] == ["requirements.txt"]
    read = parse_document(data, shown="results.json")  # a case's inputs may be its file's (files[].case_inputs)
    cases = {case.eval_id: case.model_dump(mode="json") for case in read.cases}
    shared = ["common/__init__.py", "common/words.py"]
    a_files = ["a_agent/__init__.py", "a_agent/agent.py", "a_agent/a.evalset.json", "a_agent/test_config.json"]
    b_files = ["b_agent/__init__.py", "b_agent/agent.py", "b_agent/tools.py", "b_agent/b.evalset.json"]
    # looked for and not found: ADK's .env files, package folders that would come before the modules imported
    a_absent = [".env", "a_agent/.env", "a_agent/agent", "common/words"]
    b_absent = [".env", "b_agent/.env", "b_agent/agent", "b_agent/tools", "common/words"]
    checked = ["a_agent"]  # Path(__file__).resolve() in agent A looks at each folder on the way
    a_all = [*a_files, *shared, "prompts/a_prompt.txt", *a_absent, *checked]
    assert cases["a_paris"]["inputs"]["files"] == sorted(a_all)
    assert cases["a_paris"]["inputs"]["absent"] == a_absent
    assert cases["b_oslo"]["inputs"]["files"] == sorted([*b_files, "b_agent/test_config.json", *shared, *b_absent])
    assert cases["b_oslo"]["inputs"]["absent"] == b_absent
    assert all(case["inputs"]["observed"] for case in cases.values())
    assert not any(path.startswith("/") for case in cases.values() for path in case["inputs"]["files"])


def test_a_change_to_a_tool_module_of_agent_b_runs_b_s_cases_only(checkout: Gate, base: tuple[Path, Path]) -> None:
    write(checkout.repo / "b_agent" / "tools.py", TOOLS_B + '\n\ndef forecast_source() -> str:\n    return "met"\n')
    git(checkout.repo, "commit", "--quiet", "--all", "--message", "touch b's tool")
    code, data = checkout.run("--only-affected", "--baseline", str(base[1]))
    assert code == 0, checkout.out
    assert checkout.model_calls() == {"A": 0, "B": 4}  # agent A's model is never called
    assert _carried(data) == ["a_paris", "a_lima"]
    assert "Only affected: 2 of 4 cases run" in checkout.out
    assert data["totals"]["cases"] == 4 and data["totals"]["passed"] == 4 and data["totals"]["carried"] == 2
    comment = checkout.comment()
    assert "**4 cases:** 4 passed" in comment
    assert "**2 of 4 cases ran:** the rest depend on nothing that changed since the base run" in comment
    listed = comment.split("<strong>Carried from the base run</strong>: 2 cases", 1)[1]
    assert "a\\_<wbr>paris" in listed and "a\\_<wbr>lima" in listed
    carried = _by_id(data)["a_paris"]["carried"]
    assert carried["sha"] == json.loads(base[1].read_text())["run"]["sha"]
    named = _apps_named(_by_id(data)["a_paris"])  # a carried case's turns name app details this file keeps
    assert named and named <= set(data["app_details"])


def test_a_change_to_the_prompt_agent_a_reads_at_run_time_runs_a_s_cases(
    checkout: Gate, base: tuple[Path, Path]
) -> None:
    write(checkout.repo / "prompts" / "a_prompt.txt", "Be calm.\n")
    git(checkout.repo, "commit", "--quiet", "--all", "--message", "a calmer prompt")
    code, data = checkout.run("--only-affected", "--baseline", str(base[1]))
    assert checkout.model_calls() == {"A": 2, "B": 0}
    assert _carried(data) == ["b_oslo", "b_rome"]
    assert code == 1 and _by_id(data)["a_paris"]["status"] == "failed"  # the calm prompt says "Hi."


def test_a_change_to_a_requirements_file_runs_everything_and_says_why(checkout: Gate, base: tuple[Path, Path]) -> None:
    write(checkout.repo / "requirements.txt", "google-adk\nhttpx\n")
    git(checkout.repo, "commit", "--quiet", "--all", "--message", "one more dependency")
    code, data = checkout.run("--only-affected", "--baseline", str(base[1]))
    assert code == 0, checkout.out
    assert checkout.model_calls() == {"A": 2, "B": 4} and _carried(data) == []
    assert (
        "Only affected: every case runs: requirements.txt changed: it is an input of every case (a dependency of "
        "the environment, or matched by --always-affected)" in checkout.out
    )
    assert "**Every case ran:** only-affected could not tell" in checkout.comment()


def test_a_new_eval_case_runs_and_the_cases_it_cannot_touch_do_not(checkout: Gate, base: tuple[Path, Path]) -> None:
    write_evalset(checkout.repo / "a_agent" / "more.evalset.json", {"a_rome": [turn("rome", answer="Hello! rome.")]})
    git(checkout.repo, "add", "--all")
    git(checkout.repo, "commit", "--quiet", "--message", "a new case")
    code, data = checkout.run("--only-affected", "--baseline", str(base[1]))
    assert code == 0, checkout.out
    assert checkout.model_calls() == {"A": 1, "B": 0}
    assert _carried(data) == ALL and _by_id(data)["a_rome"]["status"] == "passed"


def test_a_shallow_clone_or_a_baseline_without_inputs_runs_everything_saying_why(
    checkout: Gate, base: tuple[Path, Path], tmp_path: Path
) -> None:
    write(checkout.repo / "b_agent" / "tools.py", TOOLS_B + "\n# a second commit\n")
    git(checkout.repo, "commit", "--quiet", "--all", "--message", "after the base")
    git(tmp_path, "clone", "--quiet", "--depth=1", f"file://{checkout.repo}", "shallow")
    shallow = Gate(tmp_path / "shallow", tmp_path / "shallow-calls.log")
    code, data = shallow.run("--only-affected", "--baseline", str(base[1]))
    assert code == 0 and _carried(data) == [] and shallow.model_calls() == {"A": 2, "B": 4}
    base_sha = json.loads(base[1].read_text())["run"]["sha"]
    assert (
        f"Only affected: every case runs: the baseline's commit {base_sha[:12]} is not in this clone's history "
        "(a shallow clone: give actions/checkout fetch-depth: 0)" in shallow.out
    )
    old = json.loads(base[1].read_text())
    for case in old["cases"]:
        case.pop("inputs", None)
    for file in old["files"]:
        file.pop("case_inputs", None)
    (tmp_path / "old.json").write_text(json.dumps(old), encoding="utf-8")
    code, data = checkout.run("--only-affected", "--baseline", str(tmp_path / "old.json"))
    assert code == 0 and _carried(data) == [] and checkout.model_calls() == {"A": 2, "B": 4}
    assert "Only affected: every case runs: the baseline did not record what its cases depend on" in checkout.out


def test_the_verdict_and_counts_with_only_affected_equal_those_of_a_full_run(
    checkout: Gate, base: tuple[Path, Path]
) -> None:
    """B's tool now says rainy: B's cases fail. With A unchanged, carrying A's results decides as running them."""
    write(checkout.repo / "b_agent" / "tools.py", TOOLS_B.replace('"sunny"', '"rainy"'))
    git(checkout.repo, "commit", "--quiet", "--all", "--message", "rain")
    full_code, full = checkout.run("--baseline", str(base[1]))
    assert checkout.model_calls() == {"A": 2, "B": 4}
    code, only = checkout.run("--only-affected", "--baseline", str(base[1]))
    assert checkout.model_calls() == {"A": 0, "B": 4}
    assert code == full_code == 1
    assert only["status"] == full["status"] == "failed"
    carried = only["totals"].pop("carried")
    assert carried == 2 and full["totals"].pop("carried") == 0
    assert only["totals"] == full["totals"]
    assert [(c["id"], c["status"]) for c in only["cases"]] == [(c["id"], c["status"]) for c in full["cases"]]
    assert only["findings"] == full["findings"]
    assert only["comparison"]["regressions"] == full["comparison"]["regressions"] == 2
