"""Agent and custom-metric code cannot end the run, stall it, or see the GitHub token.

Each test runs the real command line in a subprocess (the console script's entry, with its supervising parent)
on the hostile agent, so an exit code of 0 from a ``sys.exit(0)`` in a tool would show as such: ``sys.exit(0)``
or ``KeyboardInterrupt`` in a tool is an error of that case run, with every report written, and a blocking tool
is stopped by ``--timeout``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests import turns
from tests.conftest import run_cli
from tests.hostile.agents import HOSTILE_AGENT
from tests.runners.scripted import AgentSignals, turn, write_agent, write_config, write_evalset

pytestmark = pytest.mark.slow

REPORTS = ("results.json", "junit.xml", "summary.md", "report.html")


def _repo(tmp_path: Path, message: str, *, config: dict[str, Any] | None = None) -> Path:
    (tmp_path / ".git").mkdir()
    write_agent(tmp_path / "bot", HOSTILE_AGENT)
    write_config(tmp_path / "bot", {"response_match_score": 0.5})
    if config is not None:
        (tmp_path / "bot" / "test_config.json").write_text(json.dumps(config), encoding="utf-8")
    write_evalset(
        tmp_path / "bot" / "hostile.evalset.json",
        {"fine": [turn("hello", answer="echo: hello")], "hostile": [turn(message, answer="done")]},
    )
    return tmp_path


def _gate(
    repo: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return run_cli("run", "bot", "--output-dir", "out", *args, cwd=repo, env=env, timeout=timeout)


def _results(repo: Path) -> dict[str, Any]:
    for name in REPORTS:
        assert (repo / "out" / name).is_file(), f"{name} was not written"
    loaded: dict[str, Any] = json.loads((repo / "out" / "results.json").read_text(encoding="utf-8"))
    return loaded


def _case(doc: dict[str, Any], eval_id: str) -> dict[str, Any]:
    return next(case for case in doc["cases"] if case["eval_id"] == eval_id)


@pytest.mark.parametrize(
    ("message", "workers", "reason"),
    [
        ("exit 0", None, "called sys.exit(0)"),
        ("exit 3", None, "called sys.exit(3)"),
        ("interrupt", None, "raised KeyboardInterrupt"),
        ("os_exit", None, "exited with code 0"),
        ("exit 0", "0", "called sys.exit(0)"),
        ("interrupt", "0", "raised KeyboardInterrupt"),
    ],
)
def test_a_tool_that_exits_is_an_error_entry_and_the_gate_fails(
    tmp_path: Path, message: str, workers: str | None, reason: str
) -> None:
    repo = _repo(tmp_path, message)
    extra = ("--workers", workers) if workers is not None else ()
    result = _gate(repo, *extra)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    doc = _results(repo)
    assert doc["status"] == "error"
    hostile = _case(doc, "hostile")
    assert hostile["status"] == "error" and reason in hostile["error"]
    if message != "os_exit":  # os._exit takes its worker process down with the case runs it held
        assert _case(doc, "fine")["status"] == "passed"
    assert "internal error" not in output


def test_os_exit_with_agents_in_this_process_is_caught_by_the_supervising_parent(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "os_exit")
    result = _gate(repo, "--workers", "0")
    assert result.returncode == 1, result.stdout + result.stderr
    doc = _results(repo)
    assert doc["status"] == "error" and "before the gate decided its verdict" in doc["error"]
    assert "before the gate decided its verdict" in (repo / "out" / "summary.md").read_text(encoding="utf-8")


HOSTILE_METRICS = """
import os
import sys


def exit0(eval_metric, actual, expected, scenario):
    sys.exit(0)


def exit3(eval_metric, actual, expected, scenario):
    sys.exit(3)


def interrupt(eval_metric, actual, expected, scenario):
    raise KeyboardInterrupt


def os_exit(eval_metric, actual, expected, scenario):
    os._exit(0)
"""


@pytest.mark.parametrize("function", ["exit0", "exit3", "interrupt", "os_exit"])
def test_a_custom_metric_that_exits_is_an_error_and_the_gate_fails(tmp_path: Path, function: str) -> None:
    config = {
        "criteria": {"response_match_score": 0.5, "hostile_metric": 0.5},
        "custom_metrics": {"hostile_metric": {"code_config": {"name": f"hostile_metrics.{function}"}}},
    }
    repo = _repo(tmp_path, "hello", config=config)
    (repo / "hostile_metrics.py").write_text(HOSTILE_METRICS, encoding="utf-8")
    result = _gate(repo)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    doc = _results(repo)
    assert doc["status"] == "error"
    # the metric runs in a process of its own: even os._exit ends only that process, and the case run is an error
    assert all(case["status"] == "error" for case in doc["cases"])
    assert "hostile_metric" in _case(doc, "fine")["error"]
    assert "internal error" not in output


@pytest.mark.parametrize("code", ["0", "3", "'bye'"])
def test_validate_names_a_custom_metric_module_that_exits_at_import(tmp_path: Path, code: str) -> None:
    config = {
        "criteria": {"response_match_score": 0.5, "hostile_metric": 0.5},
        "custom_metrics": {"hostile_metric": {"code_config": {"name": "exits_at_import.score"}}},
    }
    repo = _repo(tmp_path, "hello", config=config)
    (repo / "exits_at_import.py").write_text(f"import sys\n\nsys.exit({code})\n", encoding="utf-8")
    result = run_cli("validate", "bot", cwd=repo)
    assert result.returncode == 2, result.stdout + result.stderr
    [line] = [line for line in result.stdout.splitlines() if "hostile_metric" in line]
    assert f"importing 'exits_at_import.score' called sys.exit({code})" in line and "must not exit" in line


IMPORT_ENDINGS = {  # a custom metric module's code at import, and what validate says happened
    "os_exit": ("import os\n\nos._exit(0)\n", "its process exited with code 0 (os._exit() or a crash)"),
    "segfault": ("import ctypes\n\nctypes.string_at(0)\n", "its process was killed by SIGSEGV"),
    "kill_9": ("import os\nimport signal\n\nos.kill(os.getpid(), signal.SIGKILL)\n", "was killed by SIGKILL"),
    "hang": ("import time\n\ntime.sleep(3600)\n", "did not finish within 2 s"),
}


@pytest.mark.parametrize("signature", ["adk", "vertex"])
@pytest.mark.parametrize("ending", sorted(IMPORT_ENDINGS))
@pytest.mark.timeout(120)  # a guard: the hanging module would hold validate for an hour
def test_validate_names_a_custom_metric_module_that_ends_or_blocks_its_process_at_import(
    tmp_path: Path, ending: str, signature: str
) -> None:
    """A module that calls os._exit(0), crashes, is killed or hangs when imported ended validate with exit code 0
    and no output at all (a green pre-check that checked nothing), or held it forever: validate imports custom
    metric functions in a process of their own, as run's workers import agents."""
    source, what = IMPORT_ENDINGS[ending]
    config = {
        "criteria": {"response_match_score": 0.5, "hostile_metric": 0.5},
        "custom_metrics": {"hostile_metric": {"code_config": {"name": "ends_at_import.score"}, "signature": signature}},
    }
    repo = _repo(tmp_path, "hello", config=config)
    (repo / "ends_at_import.py").write_text(source, encoding="utf-8")
    result = run_cli("validate", "bot", "--timeout", "2", cwd=repo)
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    [line] = [line for line in output.splitlines() if "hostile_metric" in line]
    assert line.startswith("error: bot/hostile.evalset.json: custom metric hostile_metric: importing "), line
    assert "'ends_at_import.score'" in line and what in line, line
    assert "1 of 1 files have problems" in output and "internal error" not in output


def test_what_a_custom_metric_module_prints_at_import_cannot_issue_workflow_commands(tmp_path: Path) -> None:
    """Printed (by Python or straight to the file descriptors) while validate imports it: every line is relayed
    through the console, so none starts a workflow command of the step."""
    config = {
        "criteria": {"response_match_score": 0.5, "vertex_metric": 0.5, "adk_metric": 0.5},
        "custom_metrics": {
            "vertex_metric": {"code_config": {"name": "loud_vertex.score"}, "signature": "vertex"},
            "adk_metric": {"code_config": {"name": "loud_adk.score"}},
        },
    }
    repo = _repo(tmp_path, "hello", config=config)
    for name in ("loud_vertex", "loud_adk"):
        (repo / f"{name}.py").write_text(
            "import os\nimport sys\n\n"
            f"print('::error file=x.py::forged by {name}')\n"
            f"sys.stderr.write('::add-mask::{name}\\n')\n"
            f"os.write(1, b'::stop-commands::{name}\\n')\n\n\n"
            "def score(instance):\n    return {}\n",
            encoding="utf-8",
        )
    result = run_cli("validate", "bot", cwd=repo, env={"GITHUB_ACTIONS": "true"})
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    for name in ("loud_vertex", "loud_adk"):
        relayed = [line for line in output.splitlines() if name in line]
        assert len(relayed) == 3 and not any(line.lstrip().startswith("::") for line in relayed), relayed


def test_what_a_vertex_metric_module_prints_when_run_loads_its_config_cannot_issue_workflow_commands(
    tmp_path: Path,
) -> None:
    """run imports a Vertex-style metric's function in a process of its own while it loads the config, and again in
    the metric's own process when it scores: what the module prints each time went to the step's log as it was, a
    workflow command included."""
    (tmp_path / ".git").mkdir()
    config = {
        "criteria": {"m": 0.5},
        "custom_metrics": {"m": {"code_config": {"name": "loud.score"}, "signature": "vertex"}},
    }
    (tmp_path / "test_config.json").write_text(json.dumps(config), encoding="utf-8")
    (tmp_path / "loud.py").write_text(
        "import os\n\nprint('::error file=x.py::forged')\nos.write(1, b'::stop-commands::loud\\n')\n\n\n"
        "def score(instance):\n    return {'m': 1.0}\n",
        encoding="utf-8",
    )
    (tmp_path / "answers.evalset.jsonl").write_text('{"prompt": "hi", "response": "hello"}\n', encoding="utf-8")
    result = run_cli("run", "--output-dir", "out", cwd=tmp_path, env={"GITHUB_ACTIONS": "true"})
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    relayed = [line for line in output.splitlines() if "forged" in line or "::loud" in line]
    assert len(relayed) == 4 and not any(line.lstrip().startswith("::") for line in relayed), relayed


@pytest.mark.parametrize("message", ["block", "spin"])
def test_a_blocking_tool_cannot_defeat_the_timeout(tmp_path: Path, message: str) -> None:
    repo = _repo(tmp_path, message)
    # the tool blocks (or spins) for an hour: a run that ends at all was ended by --timeout; bench/timeouts.py
    # prints how long after the 2 s it ends. --timeout bounds each case run once its worker is ready (the agent
    # imported), so a loaded machine can at worst time the fine case out too, which this test does not look at.
    result = _gate(repo, "--timeout", "2", timeout=120)
    assert result.returncode == 1, result.stdout + result.stderr
    doc = _results(repo)
    assert "timed out after 2 s" in _case(doc, "hostile")["error"]


@pytest.mark.timeout(180)  # a guard: the blocking tool would hold the test for an hour
def test_the_first_sigterm_writes_the_reports_while_a_tool_blocks(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "block")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_"))}
    seen = []
    with AgentSignals() as blocking:
        process = subprocess.Popen(
            [sys.executable, "-m", "adk_eval_gate", "run", "bot", "--output-dir", "out", "--parallelism", "1"],
            cwd=repo,
            env={**env, **blocking.env},
            pass_fds=blocking.pass_fds,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        blocking.handed_over()
        assert process.stdout is not None
        try:
            while not any("ran bot/hostile.evalset.json::fine" in line for line in seen):
                line = process.stdout.readline()
                assert line, "".join(seen)  # the run ended before the fine case was done
                seen.append(line)
            blocking.wait(1)  # the blocking case run holds its worker's event loop now
            process.send_signal(signal.SIGTERM)
            rest, _ = process.communicate(timeout=60)  # the tool blocks for an hour: the gate ended its run
        finally:
            process.kill()  # whatever failed above: the blocking tool never ends by itself
    assert process.returncode == 128 + signal.SIGTERM, "".join(seen) + rest
    doc = _results(repo)
    assert doc["status"] == "error" and doc["run"]["interrupted"] is True
    assert doc["run"]["unfinished"] == ["bot/hostile.evalset.json::hostile"]
    summary = (repo / "out" / "summary.md").read_text(encoding="utf-8")
    assert "Interrupted" in summary and "hostile.evalset.json::hostile" in summary


def test_agent_code_runs_without_the_github_token(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "token")
    result = _gate(repo, env={"GITHUB_TOKEN": "ghs_secretgithubtoken", "GH_TOKEN": "ghs_secretgithubtoken"})
    doc = _results(repo)
    answer = turns.actual(_case(doc, "hostile")["runs"][0]["invocations"][0])["final_response"]["parts"][0]["text"]
    assert "GITHUB_TOKEN" not in answer and "GH_TOKEN" not in answer, result.stdout
    assert "ghs_secretgithubtoken" not in result.stdout + result.stderr


def test_validate_survives_an_agent_whose_import_exits_and_names_it(tmp_path: Path) -> None:
    """``validate`` imports each agent in a process of its own, as ``run`` does: an agent whose import calls
    ``os._exit(0)`` is a problem of that agent, and the other agents are still checked."""
    (tmp_path / ".git").mkdir()
    write_agent(tmp_path / "quitter", "import os\nos._exit(0)\n")
    write_agent(tmp_path / "bot", HOSTILE_AGENT)
    for agent in ("quitter", "bot"):
        write_config(tmp_path / agent, {"response_match_score": 0.5})
        write_evalset(tmp_path / agent / "cases.evalset.json", {"c": [turn("hello", answer="echo: hello")]})
    result = run_cli("validate", "quitter", "bot", cwd=tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert (
        "error: agent quitter could not be imported: its process exited with code 0 (os._exit() or a crash)" in output
    )
    assert "ok   bot/cases.evalset.json" in output and "1 of 2 files have problems" in output
