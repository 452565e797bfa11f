"""``--only-affected`` never carries a case that a change can reach: for each kind of input an agent or a metric can
have, a real git repository, a full base run on its first commit (the baseline), then a pull request's change to
that input. The case that depends on it must run with --only-affected, and fail, as the full run of the same
checkout fails it, instead of being carried from the baseline as passed.

One agent per kind of input, each answering "ok" while its input is as on the base branch (its case expects "ok"):
a file in a submodule, files reached through symbolic links, git-ignored files (a generated file, a ``.env``), a
glob of the root, an optional import, a module both agents of a pair import (it reads a file when imported), a
custom metric that reads a golden file, an existence check, a SQLite database, and a file only a subprocess reads
(which ``--always-affected '*.csv'`` names); the requirement lists include one another.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli, write_json
from tests.git_repos import git
from tests.runners.scripted import turn, write_evalset

pytestmark = pytest.mark.slow  # real agents, git and the CLI

MODEL = '''
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types


def agent(name, answer):
    """An agent whose model says what ``answer()`` returns when it is asked."""

    class Model(BaseLlm):
        async def generate_content_async(self, llm_request, stream=False):
            yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=answer())]))

    return LlmAgent(name=name, model=Model(model="scripted"), instruction="Answer.")
'''

OPTIONAL = """
try:
    from reader_overrides import ANSWER
except ImportError:
    ANSWER = "ok"
"""

# Each agent: what it imports, and what its model answers (read when it is asked)
AGENTS = {
    "sub_agent": ("", 'open("vendor/sub/data.txt").read().strip()'),
    "link_agent": ("", 'open("linked/a.txt").read().strip() if open("alias.txt").read().strip() == "ok" else "x"'),
    "ignored_agent": (
        "",
        'open("generated/answer.txt").read().strip() if "ANSWER=ok" in open("ignored_agent/.env").read() else "x"',
    ),
    "glob_agent": ("import glob", '"ok" if sorted(glob.glob("*.md")) == ["README.md"] else "changed"'),
    "optional_agent": (OPTIONAL, "ANSWER"),
    "shared_a": ("from shared import SETTINGS", "SETTINGS"),
    "shared_b": ("from shared import SETTINGS", "SETTINGS"),
    "metric_agent": ("", '"ok"'),
    "flag_agent": ("import os", '"ok" if os.path.exists("flags/enabled") else "changed"'),
    "db_agent": ("import sqlite3", 'sqlite3.connect("db.sqlite").execute("select text from answer").fetchone()[0]'),
    "csv_agent": (
        "import subprocess",
        'subprocess.run(["cat", "data/rates.csv"], capture_output=True, text=True).stdout.strip()',
    ),
}

AGENT = """
from common.model import agent
{prelude}

root_agent = agent("{name}", lambda: {answer})
"""

GOLDEN_METRIC = """
from pathlib import Path

from google.adk.evaluation.eval_metrics import EvalStatus
from google.adk.evaluation.evaluator import EvaluationResult, PerInvocationResult


def golden_match(eval_metric, actual_invocations, expected_invocations, conversation_scenario):
    golden = (Path(__file__).parent / "golden.txt").read_text(encoding="utf-8").strip()
    results = []
    for actual in actual_invocations:
        text = "".join(part.text or "" for part in actual.final_response.parts).strip()
        score = 1.0 if text == golden else 0.0
        status = EvalStatus.PASSED if score >= 0.5 else EvalStatus.FAILED
        results.append(PerInvocationResult(actual_invocation=actual, score=score, eval_status=status))
    overall = sum(result.score for result in results) / len(results)
    status = EvalStatus.PASSED if overall >= 0.5 else EvalStatus.FAILED
    return EvaluationResult(overall_score=overall, overall_eval_status=status, per_invocation_results=results)
"""

SHARED = """
from pathlib import Path

SETTINGS = (Path(__file__).parent / "settings.txt").read_text(encoding="utf-8").strip()  # read once, at import
"""

# Both runs know the action's requirement list; every run names *.csv as an input of every case
ALWAYS = ("--requirements", "requirements/ci.txt")
PULL_REQUEST = ("--only-affected", "--always-affected", "*.csv")
UNTRACKED = "ignored_agent"  # reads git-ignored files: it runs whatever the change (git cannot compare them)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _answer_db(path: Path, answer: str) -> None:
    with sqlite3.connect(path) as db:
        db.execute("create table if not exists answer (text text)")
        db.execute("delete from answer")
        db.execute("insert into answer values (?)", (answer,))
    db.close()


def _generated(repo: Path, *, answer: str = "ok", env: str = "ok") -> None:
    """The git-ignored files a workflow would make before the gate runs."""
    write(repo / "generated" / "answer.txt", f"{answer}\n")
    write(repo / "ignored_agent" / ".env", f"ANSWER={env}\n")


def _submodule(root: Path) -> Path:
    sub = root / "sub_origin"
    write(sub / "data.txt", "ok\n")
    git(root, "init", "--quiet", "--initial-branch=main", str(sub))
    git(sub, "add", "--all")
    git(sub, "commit", "--quiet", "--message", "data")
    return sub


def _project(root: Path) -> Path:
    repo = root / "origin"
    write(repo / ".gitignore", "adk-eval-results/\n__pycache__/\ngenerated/\n.env\n")
    write(repo / "README.md", "# Agents\n")
    write(repo / "requirements.txt", "google-adk\n")
    write(repo / "requirements" / "ci.txt", "-r base.txt\n")
    write(repo / "requirements" / "base.txt", "google-adk\n")
    write(repo / "common" / "__init__.py", "")
    write(repo / "common" / "model.py", MODEL)
    write(repo / "shared" / "__init__.py", SHARED)
    write(repo / "shared" / "settings.txt", "ok\n")
    write(repo / "metrics_pkg" / "__init__.py", "")
    write(repo / "metrics_pkg" / "golden.py", GOLDEN_METRIC)
    write(repo / "metrics_pkg" / "golden.txt", "ok\n")
    write(repo / "targets" / "a.txt", "ok\n")
    write(repo / "targets" / "alias_target.txt", "ok\n")
    (repo / "linked").symlink_to("targets")
    (repo / "alias.txt").symlink_to("targets/alias_target.txt")
    write(repo / "flags" / "enabled", "on\n")
    write(repo / "data" / "rates.csv", "ok\n")
    _answer_db(repo / "db.sqlite", "ok")
    _generated(repo)
    for name, (prelude, answer) in AGENTS.items():
        write(repo / name / "__init__.py", "from . import agent\n")
        write(repo / name / "agent.py", AGENT.format(name=name, prelude=prelude, answer=answer))
        write_evalset(repo / name / f"{name}.evalset.json", {f"{name}_case": [turn("hi", answer="ok")]})
        criteria: dict[str, Any] = {"criteria": {"response_match_score": 0.8}}
        if name == "metric_agent":
            criteria = {
                "criteria": {"golden_match": 0.5},
                "custom_metrics": {"golden_match": {"code_config": {"name": "metrics_pkg.golden.golden_match"}}},
            }
        write_json(repo / name / "test_config.json", criteria)
    git(root, "init", "--quiet", "--initial-branch=main", str(repo))
    sub = _submodule(root)
    git(repo, "-c", "protocol.file.allow=always", "submodule", "--quiet", "add", str(sub), "vendor/sub")
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "--message", "agents of every kind of input")
    return repo


def _gate(repo: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    done = run_cli("run", *args, *ALWAYS, cwd=repo, timeout=600)
    out = done.stdout + done.stderr
    assert "Traceback" not in out, out
    data: dict[str, Any] = json.loads((repo / "adk-eval-results" / "results.json").read_text(encoding="utf-8"))
    return done.returncode, data, out


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The repository and its full base run's results.json (outside the repository)."""
    root = tmp_path_factory.mktemp("only_affected_inputs")
    origin = _project(root)
    code, data, out = _gate(origin)
    assert code == 0, out
    assert {case["eval_id"]: case["status"] for case in data["cases"]} == {f"{name}_case": "passed" for name in AGENTS}
    baseline = root / "base.json"
    baseline.write_text(json.dumps(data), encoding="utf-8")
    return origin, baseline


@pytest.fixture
def checkout(base: tuple[Path, Path], tmp_path: Path) -> Path:
    """A clone of the repository on the base run's commit, its submodule and generated files in place."""
    git(tmp_path, "-c", "protocol.file.allow=always", "clone", "--quiet", "--recurse-submodules", str(base[0]), "work")
    repo = tmp_path / "work"
    _generated(repo)
    return repo


def _commit(repo: Path, message: str) -> None:
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "--message", message)


def _pull_request(repo: Path, baseline: Path, *, fails: set[str], runs: set[str] | None = None) -> str:
    """The full run of the checkout fails the cases of the agents ``fails``; with --only-affected they run (with
    the cases of ``runs``, and the one that reads git-ignored files) and fail, and every other case is carried.
    What the --only-affected run printed (with --verbose: why each case runs)."""
    full_code, full, out = _gate(repo, "--baseline", str(baseline))
    failed = {case["eval_id"] for case in full["cases"] if case["status"] != "passed"}
    assert full_code == 1 and failed == {f"{name}_case" for name in fails}, out
    code, only, out = _gate(repo, "--baseline", str(baseline), *PULL_REQUEST, "--verbose")
    ran = {case["eval_id"] for case in only["cases"] if not case.get("carried")}
    expected = runs if runs is not None else {*fails, UNTRACKED}
    assert ran == {f"{name}_case" for name in expected}, out
    assert code == 1, out
    assert {case["eval_id"]: case["status"] for case in only["cases"]} == {
        case["eval_id"]: case["status"] for case in full["cases"]
    }
    return out


def test_a_submodule_bumped_to_a_commit_that_changes_a_file_the_agent_reads(
    checkout: Path, base: tuple[Path, Path]
) -> None:
    """Git names only vendor/sub: every input under it changed."""
    sub = checkout / "vendor" / "sub"
    write(sub / "data.txt", "changed\n")
    _commit(sub, "new data")
    _commit(checkout, "bump the submodule")
    assert git(checkout, "diff", "--name-only", "HEAD~1") == "vendor/sub"
    out = _pull_request(checkout, base[1], fails={"sub_agent"})
    assert "  sub_agent/sub_agent.evalset.json::sub_agent_case runs: vendor/sub/data.txt is under vendor/sub" in out


def test_a_changed_target_of_a_symbolic_link_to_a_folder(checkout: Path, base: tuple[Path, Path]) -> None:
    write(checkout / "targets" / "a.txt", "changed\n")
    _commit(checkout, "the linked folder's file")
    _pull_request(checkout, base[1], fails={"link_agent"})


def test_a_changed_target_of_a_symbolic_link_to_a_file(checkout: Path, base: tuple[Path, Path]) -> None:
    write(checkout / "targets" / "alias_target.txt", "changed\n")
    _commit(checkout, "the linked file")
    _pull_request(checkout, base[1], fails={"link_agent"})


def test_a_generated_git_ignored_file_the_agent_reads(checkout: Path, base: tuple[Path, Path]) -> None:
    _generated(checkout, answer="changed")
    _pull_request(checkout, base[1], fails={"ignored_agent"})


def test_a_git_ignored_env_file_the_agent_reads(checkout: Path, base: tuple[Path, Path]) -> None:
    _generated(checkout, env="changed")
    out = _pull_request(checkout, base[1], fails={"ignored_agent"})
    assert (
        "  ignored_agent/ignored_agent.evalset.json::ignored_agent_case runs: generated/answer.txt is not tracked by "
        "git (ignored, or not added), so whether it changed cannot be known"
    ) in out


def test_a_new_file_a_glob_of_the_root_finds(checkout: Path, base: tuple[Path, Path]) -> None:
    write(checkout / "NOTES.md", "# Notes\n")
    _commit(checkout, "notes")
    _pull_request(checkout, base[1], fails={"glob_agent"})


def test_a_new_module_an_optional_import_finds(checkout: Path, base: tuple[Path, Path]) -> None:
    """The import found nothing on the base branch; the pull request adds what it looks for (at the root, which
    the glob agent listed: it runs too, and passes)."""
    write(checkout / "reader_overrides.py", 'ANSWER = "changed"\n')
    _commit(checkout, "overrides")
    _pull_request(checkout, base[1], fails={"optional_agent"}, runs={"optional_agent", "glob_agent", UNTRACKED})


def test_a_file_a_shared_module_reads_when_imported_counts_for_every_agent_that_imports_it(
    checkout: Path, base: tuple[Path, Path]
) -> None:
    """shared_b imports the module after shared_a did, in the same worker: its import reads nothing."""
    write(checkout / "shared" / "settings.txt", "changed\n")
    _commit(checkout, "settings")
    _pull_request(checkout, base[1], fails={"shared_a", "shared_b"})


def test_a_golden_file_a_custom_metric_reads_when_it_scores(checkout: Path, base: tuple[Path, Path]) -> None:
    write(checkout / "metrics_pkg" / "golden.txt", "another answer\n")
    _commit(checkout, "a new golden answer")
    _pull_request(checkout, base[1], fails={"metric_agent"})


def test_a_deleted_file_the_agent_checks_the_existence_of(checkout: Path, base: tuple[Path, Path]) -> None:
    """flags/ goes with its only file: the root the glob agent listed holds other names, so it runs too."""
    git(checkout, "rm", "--quiet", "flags/enabled")
    _commit(checkout, "disable the flag")
    _pull_request(checkout, base[1], fails={"flag_agent"}, runs={"flag_agent", "glob_agent", UNTRACKED})


def test_a_changed_sqlite_database_the_agent_connects_to(checkout: Path, base: tuple[Path, Path]) -> None:
    """db.sqlite is at the root, which the glob agent listed: it runs too (a listing tells each file's size)."""
    _answer_db(checkout / "db.sqlite", "changed")
    _commit(checkout, "new answers")
    _pull_request(checkout, base[1], fails={"db_agent"}, runs={"db_agent", "glob_agent", UNTRACKED})


def test_a_csv_file_named_by_an_always_affected_glob_at_any_depth_runs_every_case(
    checkout: Path, base: tuple[Path, Path]
) -> None:
    """Only a subprocess reads data/rates.csv (not observed): ``--always-affected '*.csv'`` names it."""
    write(checkout / "data" / "rates.csv", "changed\n")
    _commit(checkout, "new rates")
    _pull_request(checkout, base[1], fails={"csv_agent"}, runs=set(AGENTS))


def test_a_requirement_list_included_by_the_action_s_requirements_runs_every_case(
    checkout: Path, base: tuple[Path, Path]
) -> None:
    write(checkout / "requirements" / "base.txt", "google-adk\nhttpx\n")
    _commit(checkout, "one more dependency")
    code, data, out = _gate(checkout, "--baseline", str(base[1]), *PULL_REQUEST)
    assert code == 0 and not any(case.get("carried") for case in data["cases"]), out
    assert "Only affected: every case runs: requirements/base.txt changed: it is an input of every case" in out


def test_a_change_no_input_names_carries_every_case_but_the_untracked_one(
    checkout: Path, base: tuple[Path, Path]
) -> None:
    """The inputs above are precise enough: a new file in a folder nothing listed runs nothing else."""
    write(checkout / "common" / "guide.txt", "How to use the agents.\n")
    _commit(checkout, "a guide")
    code, data, out = _gate(checkout, "--baseline", str(base[1]), *PULL_REQUEST)
    assert code == 0, out
    assert {case["eval_id"] for case in data["cases"] if not case.get("carried")} == {f"{UNTRACKED}_case"}
