"""What the gate prints and posts: no workflow command, link, image or secret that untrusted text put there.

An eval id, a file name, an SSE error or a results.json ``case.error`` holding
``\\n::stop-commands::x\\n::error::y`` starts no workflow command in the log (nor in ``report``, the privileged
step of the fork set-up); what an agent prints reaches the log escaped; a secret echoed by the agent server or
quoted in an agent's exception is masked in results.json, the JUnit file, the summaries and the comment, not only
on the console; the footer's runner, shard and version and the baseline's run URL from an untrusted results.json
render as text, never as links or images in the bot's comment.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from adk_eval_gate.inputs.saved_results import load_results
from adk_eval_gate.report.writer import results_json
from adk_eval_gate.runners.http_headers import parse_headers
from adk_eval_gate.support.console import Console, safe_line
from adk_eval_gate.support.errors import UsageError
from tests.conftest import run_cli
from tests.fakes.github_server import FakeGitHub
from tests.github.flows import REPO, Step, artifact_zip, pull_request_env, run_step
from tests.hostile.agents import HOSTILE_AGENT
from tests.report.safety import problems
from tests.runners.fault_server import SSE_ERROR, fault_server
from tests.runners.scripted import turn, write_agent, write_config, write_evalset

pytestmark = pytest.mark.slow  # hostile agents run end to end

INJECTION = "\n::stop-commands::x\n::error::y"
OUR_COMMANDS = re.compile(r"^::(add-mask|group|endgroup|error|warning|notice)( [^:]*)?::")


def _commands_we_did_not_write(output: str) -> list[str]:
    """Lines a workflow runner would take as a command (``::`` or ``##[``) that are not ours, and the injected
    ``::error::y`` (which looks like one of ours)."""
    found = []
    for line in output.splitlines():
        starts_command = line.lstrip().startswith(("::", "##["))
        if (starts_command and not OUR_COMMANDS.match(line)) or line.startswith("::error::y"):
            found.append(line)
    return found


def test_safe_line_neutralises_commands_newlines_and_controls() -> None:
    for hostile in ("::error::x", "  ::set-output name=a::b", "##[error]x", "\t::add-mask::x"):
        assert not re.match(r"^\s*(::|##\[)", safe_line(hostile))
    assert safe_line("a" + INJECTION) == "a ⏎ ::stop-commands::x ⏎ ::error::y"
    assert safe_line("bell\x07 escape\x1b[31m \ud800") == "bell\\x07 escape\\x1b[31m \ufffd"
    assert safe_line("PASS a.json::case") == "PASS a.json::case"


def test_console_lines_warnings_and_groups_cannot_start_commands() -> None:
    import io

    stream = io.StringIO()
    console = Console(in_actions=True, stream=stream, secrets=["hunter2-secret"])
    console.line("case" + INJECTION + " hunter2-secret")
    console.group("title" + INJECTION)
    console.warning("w" + INJECTION, file="a" + INJECTION)
    console.error("e" + INJECTION)
    output = stream.getvalue()
    assert _commands_we_did_not_write(output) == []
    assert "hunter2-secret" not in output.replace("::add-mask::hunter2-secret", "")


def _hostile_names_repo(repo: Path) -> Path:
    (repo / ".git").mkdir()
    write_agent(repo / "bot", HOSTILE_AGENT)
    write_config(repo / "bot", {"response_match_score": 0.9})
    write_evalset(repo / "bot" / "plain.evalset.json", {"case" + INJECTION: [turn("shout", answer="nope")]})
    write_evalset(repo / "bot" / f"name{INJECTION}.evalset.json", {"c": [turn("hello", answer="wrong")]})
    return repo


def _actions_env(repo: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_"))}
    env.update({"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(repo), **extra})
    return env


def test_hostile_ids_file_names_and_agent_prints_start_no_command(tmp_path: Path) -> None:
    repo = _hostile_names_repo(tmp_path)
    env = _actions_env(repo)
    run = run_cli("run", "bot", "--output-dir", "out", cwd=repo, env=env, timeout=180)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "injected from stdout" in run.stdout  # what the agent printed is relayed, neutralised
    validate = run_cli("validate", "bot", cwd=repo, env=env, timeout=180)
    doc = load_results(repo / "out" / "results.json")
    failing = doc.cases[0].model_copy(update={"error": "agent said" + INJECTION})
    (repo / "out" / "hostile.json").write_text(results_json(doc.model_copy(update={"cases": [failing]})))
    report = run_cli("report", "out/hostile.json", "--output-dir", "out2", cwd=repo, env=env, timeout=180)
    for result in (run, validate, report):
        assert _commands_we_did_not_write(result.stdout + result.stderr) == [], result.stdout + result.stderr


FD_METRIC = """
import os
import subprocess
import sys


def loud(instance):
    os.write(1, b"::stop-commands::metric fd 1\\n")
    os.write(2, b"::stop-commands::metric fd 2\\n")
    subprocess.run([sys.executable, "-c", "print('::stop-commands::metric child')"], check=True)
    return {"loud": 1.0}
"""


def test_what_code_in_this_process_writes_to_file_descriptors_starts_no_command(tmp_path: Path) -> None:
    """Agents with --workers 0 and custom metrics run in the gate's own process: what they write below Python's
    sys.stdout (os.write, C code, child processes) is relayed line by line and neutralised, as the workers' is."""
    (tmp_path / ".git").mkdir()
    write_agent(tmp_path / "bot", HOSTILE_AGENT)
    metric = {"code_config": {"name": "fd_metric.loud"}, "signature": "vertex"}
    write_config(tmp_path / "bot", {"loud": 0.5})
    config = {"criteria": {"loud": 0.5}, "custom_metrics": {"loud": metric}}
    (tmp_path / "bot" / "test_config.json").write_text(json.dumps(config), encoding="utf-8")
    (tmp_path / "fd_metric.py").write_text(FD_METRIC, encoding="utf-8")
    write_evalset(tmp_path / "bot" / "fd.evalset.json", {"fd": [turn("fd", answer="done")]})
    result = run_cli(
        "run", "bot", "--workers", "0", "--output-dir", "out", cwd=tmp_path, env=_actions_env(tmp_path), timeout=180
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    for text in ("from fd 1", "from fd 2", "from a child", "metric fd 1", "metric fd 2", "metric child"):
        assert text in result.stdout, text  # relayed, not lost
    assert _commands_we_did_not_write(output) == [], output


def test_what_a_custom_metric_module_prints_when_validate_imports_it_starts_no_command(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write_agent(tmp_path / "bot", HOSTILE_AGENT)
    config = {"criteria": {"loud": 0.5}, "custom_metrics": {"loud": {"code_config": {"name": "loud_import.loud"}}}}
    (tmp_path / "bot" / "test_config.json").write_text(json.dumps(config), encoding="utf-8")
    write_evalset(tmp_path / "bot" / "fd.evalset.json", {"c": [turn("hello")]})
    module = "import os\nprint('::stop-commands::printed')\nos.write(2, b'::stop-commands::fd 2\\n')\nloud = print\n"
    (tmp_path / "loud_import.py").write_text(module, encoding="utf-8")
    result = run_cli("validate", "bot", cwd=tmp_path, env=_actions_env(tmp_path), timeout=180)
    output = result.stdout + result.stderr
    assert result.returncode == 0 and "printed" in result.stdout and "fd 2" in result.stdout, output
    assert _commands_we_did_not_write(output) == [], output


def test_an_sse_error_starts_no_command(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write_evalset(tmp_path / "http.evalset.json", {"c": [turn("sse-error")]})
    with fault_server(has_run=False) as server:
        result = run_cli(
            "run",
            "http.evalset.json",
            "--runner",
            "http",
            "--agent-url",
            server.url,
            cwd=tmp_path,
            env=_actions_env(tmp_path),
            timeout=180,
        )
    output = result.stdout + result.stderr
    assert result.returncode == 1 and "the agent failed during POST /run_sse: boom" in output
    assert SSE_ERROR.splitlines()[1] not in output.splitlines()
    assert _commands_we_did_not_write(output) == []


def test_a_header_value_with_a_line_break_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="line break"):
        parse_headers(["Authorization: Bearer $TOKEN"], env={"TOKEN": "abc\ndef"})


def _unmasked(stdout: str) -> str:
    """The log without the ``::add-mask::`` lines (the runner hides what they name)."""
    return "\n".join(line for line in stdout.splitlines() if not line.startswith("::add-mask::"))


def _all_reports(work: Path, fake: FakeGitHub) -> str:
    reports = ("results.json", "junit.xml", "summary.md", "report.html")
    texts = [(work / "out" / name).read_text(encoding="utf-8") for name in reports]
    texts.append((work / "step_summary.md").read_text(encoding="utf-8"))
    texts.extend(comment.body for comment in fake.comments_on(7))
    texts.append((work / "github_output").read_text(encoding="utf-8"))
    return "\n".join(texts)


def test_a_secret_echoed_by_the_agent_server_reaches_no_report(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub
) -> None:
    secret = "agent-token-9f8e7d6c"
    evals = tmp_path / "evals"
    write_evalset(evals / "http.evalset.json", {"leak": [turn("echo-auth", answer="nothing")]})
    env = pull_request_env(tmp_path, fake_github, run_id=11)
    env.update({"GITHUB_WORKSPACE": str(tmp_path), "AGENT_TOKEN": secret})
    with fault_server() as server:
        args = ["run", str(evals), "--runner", "http", "--agent-url", server.url, "--output-dir", str(tmp_path / "out")]
        step = run_step(monkeypatch, [*args, "--agent-header", "Authorization: Bearer ${AGENT_TOKEN}"], env, tmp_path)
    assert step.code == 1
    reports = _all_reports(tmp_path, fake_github)
    assert "your token is ***" in reports
    assert secret not in reports and secret not in _unmasked(step.stdout)


def _hostile_pull_request_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake: FakeGitHub, *, message: str, key: str, run_id: int
) -> Step:
    """The hostile agent asked ``message`` in a pull request, with ``key`` as GOOGLE_API_KEY."""
    write_agent(tmp_path / "bot", HOSTILE_AGENT)
    write_config(tmp_path / "bot", {"response_match_score": 0.5})
    write_evalset(tmp_path / "bot" / "hostile.evalset.json", {message: [turn(message, answer="done")]})
    env = pull_request_env(tmp_path, fake, run_id=run_id)
    env.update({"GITHUB_WORKSPACE": str(tmp_path), "GOOGLE_API_KEY": key})
    return run_step(monkeypatch, ["run", str(tmp_path / "bot"), "--output-dir", str(tmp_path / "out")], env, tmp_path)


def test_an_api_key_in_an_agent_exception_reaches_no_report(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub
) -> None:
    key = "AIzaFakeKeyForTheHostileSuite0123"
    step = _hostile_pull_request_run(monkeypatch, tmp_path, fake_github, message="leak", key=key, run_id=12)
    assert step.code == 1
    reports = _all_reports(tmp_path, fake_github)
    assert "upstream refused key ***" in reports
    assert key not in reports and key not in _unmasked(step.stdout)


def test_what_an_agent_logs_is_masked_escaped_and_kept_with_its_case(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub
) -> None:
    key = "AIzaFakeKeyForTheHostileSuite4567"
    step = _hostile_pull_request_run(monkeypatch, tmp_path, fake_github, message="log", key=key, run_id=13)
    assert step.code == 1
    assert _commands_we_did_not_write(step.stdout) == []
    assert "::group::log of " in step.stdout
    reports = _all_reports(tmp_path, fake_github)
    assert "key ***" in reports and key not in reports and key not in _unmasked(step.stdout)
    log = load_results(tmp_path / "out" / "results.json").cases[0].runs[0].log
    assert log[0] == "ERROR hostile.agent: key ***" and any("\ufffd" in line for line in log)


def test_footer_fields_and_a_foreign_baseline_url_make_no_link_or_image(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub, example_results: Path
) -> None:
    evil = "[click](https://evil.example/x) ![pixel](https://evil.example/p.png) <img src=https://evil.example/i>"
    doc = load_results(example_results)
    run = doc.run.model_copy(update={"runner": evil, "shard": evil, "tool_version": evil})
    hostile = tmp_path / "hostile.json"
    hostile.write_text(results_json(doc.model_copy(update={"run": run})))
    base = doc.model_copy(update={"run": doc.run.model_copy(update={"sha": "ba5e" * 10})})
    base_run = fake_github.add_workflow_run(artifacts=[("adk-eval-results", artifact_zip(base))])
    env = pull_request_env(tmp_path, fake_github, run_id=13)
    env["GITHUB_SERVER_URL"] = "https://github.com"
    step = run_step(
        monkeypatch, ["report", str(hostile), "--comment", "--output-dir", str(tmp_path / "out")], env, tmp_path
    )
    assert step.code == 1, step.stdout
    [comment] = fake_github.comments_on(7)
    own = "https://github.com/octo/repo/actions/runs/13"
    baseline = f"https://github.com/octo/repo/actions/runs/{base_run}"
    assert problems(comment.body, allowed_links={own, f"{own}#artifacts", baseline}) == []


def test_a_results_file_cannot_point_the_baseline_link_elsewhere(example_results: Path) -> None:
    from adk_eval_gate.config.github_context import GitHubContext
    from adk_eval_gate.model.results import BaselineInfo, Comparison
    from adk_eval_gate.report import comment
    from adk_eval_gate.report.links import trusted_links

    doc = load_results(example_results)
    foreign = Comparison(
        baseline=BaselineInfo(
            source="artifact", description="main", run_url="https://evil.example/octo/repo/actions/runs/1"
        )
    )
    context = GitHubContext(repository="octo/repo", server_url="https://github.com")
    shown = trusted_links(doc.model_copy(update={"comparison": foreign}), context)
    assert shown.comparison is not None and shown.comparison.baseline.run_url is None
    own = Comparison(
        baseline=BaselineInfo(
            source="artifact", description="main", run_url="https://github.com/octo/repo/actions/runs/5"
        )
    )
    kept = trusted_links(doc.model_copy(update={"comparison": own}), context)
    assert (
        kept.comparison is not None
        and kept.comparison.baseline.run_url == "https://github.com/octo/repo/actions/runs/5"
    )
    assert "https://github.com/octo/repo/actions/runs/5" in comment.render(kept)
    other_repo = own.baseline.model_copy(update={"run_url": "https://github.com/mallory/repo/actions/runs/5"})
    dropped = trusted_links(
        doc.model_copy(update={"comparison": own.model_copy(update={"baseline": other_repo})}), context
    )
    assert dropped.comparison is not None and dropped.comparison.baseline.run_url is None


def test_the_entrypoint_refuses_a_multi_line_requirements_input(tmp_path: Path) -> None:
    env = {**_actions_env(tmp_path), "INPUT_REQUIREMENTS": "requirements.txt" + INJECTION}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # the CLI reports the error
    result = subprocess.run(
        ["bash", str(REPO / "entrypoint.sh"), "--version"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert _commands_we_did_not_write(result.stdout + result.stderr) == []
    assert result.stdout.startswith("::error::input 'requirements': must be one line")
