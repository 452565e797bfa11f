"""The checking half of ``.ci/container-test.sh``: set up a user's workspace and check what the step produced.

The shell script builds the image, starts the fake GitHub server and runs the container like GitHub's runner
does; this module prepares the files it needs and checks the results, one clear line per problem::

    python -m tests.action.container_check prepare WORK [--api-url URL] [--agent-url URL]   # workspace, env files
    python -m tests.action.container_check run WORK --exit-code N         # the gate on the example
    python -m tests.action.container_check bad-input WORK --exit-code N --input NAME --stdout FILE
    python -m tests.action.container_a2a_check WORK --exit-code N         # the example over A2A

``prepare`` writes ``WORK/env-<scenario>`` files (one ``NAME=VALUE`` a line) holding every input of action.yml,
empty unless the scenario sets it, as GitHub sets every declared input, plus the ``GITHUB_*`` context.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
WORKSPACE_IN_CONTAINER = "/github/workspace"
REPOSITORY = "octo/weather"
PULL_REQUEST = 7
HEAD_SHA = "c0ffee" * 6 + "c0ff"  # the fake server's default head commit of the pull request
TOKEN = "ghs_containerTestToken0123456789"  # ghs_: posts as github-actions[bot] on the fake server
FAILING_CASE = "wrong_city_on_purpose"
PASSING_CASE = "paris_today"
MISSING_REQUIREMENTS = "missing-requirements.txt"
A2A_TOKEN = "a2aContainerTestToken0123456789"  # the agent-headers secret of the a2a scenario
A2A_OUTPUT_DIR = "a2a-results"


class CheckFailed(Exception):
    pass


def action_inputs() -> dict[str, Any]:
    metadata = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    return dict(metadata["inputs"])


def action_outputs() -> list[str]:
    metadata = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    return list(metadata["outputs"])


def input_variable(name: str) -> str:
    """GitHub's variable for an input: upper case, spaces to underscores, hyphens kept."""
    return "INPUT_" + name.replace(" ", "_").upper()


def step_environment(*, inputs: dict[str, str], api_url: str, files: Path, scenario: str) -> dict[str, str]:
    """The variables GitHub's runner gives a Docker action's container (file paths on this side)."""
    env = {input_variable(name): "" for name in action_inputs()}
    env[input_variable("github-token")] = TOKEN
    env.update({input_variable(name): value for name, value in inputs.items()})
    env.update(
        {
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(files / "event.json"),
            "GITHUB_OUTPUT": str(files / f"{scenario}.github_output"),
            "GITHUB_STEP_SUMMARY": str(files / f"{scenario}.step_summary"),
            "GITHUB_REPOSITORY": REPOSITORY,
            "GITHUB_API_URL": api_url,
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_RUN_ID": "4242",
            "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_WORKFLOW": "eval",
            "GITHUB_WORKFLOW_REF": f"{REPOSITORY}/.github/workflows/eval.yml@refs/pull/{PULL_REQUEST}/merge",
            "GITHUB_SHA": "f00d" * 10,
            "GITHUB_REF": f"refs/pull/{PULL_REQUEST}/merge",
            "GITHUB_BASE_REF": "main",
            "GITHUB_HEAD_REF": "feature/weather",
            "GITHUB_ACTOR": "octocat",
            "RUNNER_OS": "Linux",
            "RUNNER_TEMP": "/tmp",
        }
    )
    return env


def pull_request_event() -> dict[str, Any]:
    repo = {"full_name": REPOSITORY, "name": "weather", "owner": {"login": "octo"}, "default_branch": "main"}
    return {
        "action": "synchronize",
        "number": PULL_REQUEST,
        "pull_request": {
            "number": PULL_REQUEST,
            "title": "Teach the agent about Sydney",
            "head": {"ref": "feature/weather", "sha": HEAD_SHA, "repo": repo},
            "base": {"ref": "main", "sha": "base" + "0" * 36, "repo": repo},
        },
        "repository": repo,
        "sender": {"login": "octocat"},
    }


def a2a_inputs(agent_url: str) -> dict[str, str]:
    """The a2a step's inputs, as a workflow gives them (the token written into agent-headers from a secret)."""
    return {
        "paths": "weather_agent",
        "runner": "a2a",
        "agent-url": agent_url,
        "agent-headers": f"Authorization: Bearer {A2A_TOKEN}",
        "output-dir": A2A_OUTPUT_DIR,
        "gate-id": "container-a2a",
    }


def prepare(work: Path, *, api_url: str, agent_url: str) -> None:
    """A user's repository with the example agent, the event payload, and one env file per scenario (the a2a one
    reaches the weather example's A2A server at ``agent_url``)."""
    workspace = work / "workspace"
    files = work / "files"
    for folder in (workspace, files):
        shutil.rmtree(folder, ignore_errors=True)
    files.mkdir(parents=True)
    shutil.copytree(
        REPO / "examples" / "weather_agent",
        workspace / "weather_agent",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    # already satisfied in the image, so pip installs nothing and needs no network, but the entrypoint's path runs
    (workspace / "requirements.txt").write_text("jinja2>=3\n", encoding="utf-8")
    (files / "event.json").write_text(json.dumps(pull_request_event(), indent=2), encoding="utf-8")
    scenarios = {
        "gate": {"paths": "weather_agent", "requirements": "requirements.txt", "gate-id": "container-test"},
        "bad-requirements": {"paths": "weather_agent", "requirements": MISSING_REQUIREMENTS},
        "a2a": a2a_inputs(agent_url),
    }
    for scenario, inputs in scenarios.items():
        env = step_environment(inputs=inputs, api_url=api_url, files=files, scenario=scenario)
        lines = [f"{name}={value}" for name, value in env.items()]
        (work / f"env-{scenario}").write_text("\n".join(lines) + "\n", encoding="utf-8")
    snapshot(workspace, work / "workspace-before.txt")


def listing(workspace: Path) -> list[str]:
    return sorted(path.relative_to(workspace).as_posix() for path in workspace.rglob("*"))


def snapshot(workspace: Path, target: Path) -> None:
    target.write_text("\n".join(listing(workspace)) + "\n", encoding="utf-8")


def parse_outputs(text: str) -> dict[str, str]:
    """``GITHUB_OUTPUT`` contents: ``name=value`` lines and ``name<<DELIMITER`` ... ``DELIMITER`` blocks."""
    outputs: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value: list[str] = []
            for body_line in lines:
                if body_line == delimiter:
                    break
                value.append(body_line)
            else:
                raise CheckFailed(f"GITHUB_OUTPUT: the value of {name!r} is not closed by its delimiter {delimiter!r}")
            outputs[name] = "\n".join(value)
        elif "=" in line:
            name, value_text = line.split("=", 1)
            outputs[name] = value_text
        else:
            raise CheckFailed(f"GITHUB_OUTPUT: cannot read the line {line!r}")
    return outputs


def host_path(path: str, workspace: Path) -> Path:
    """A path the container reported (absolute under /github/workspace, or relative to it) on this side."""
    if path.startswith(WORKSPACE_IN_CONTAINER + "/"):
        return workspace / path[len(WORKSPACE_IN_CONTAINER) + 1 :]
    return workspace / path


def requests_log(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def check_gate_run(work: Path, *, exit_code: int) -> list[str]:
    """Everything the gate run on the example must have produced; returns what was checked."""
    workspace = work / "workspace"
    files = work / "files"
    stdout = (work / "gate.out").read_text(encoding="utf-8")
    checked: list[str] = []

    expect(exit_code == 1, f"exit code {exit_code}, expected 1 (the example fails one case on purpose)\n{stdout}")
    checked.append("exit code 1")

    outputs = parse_outputs((files / "gate.github_output").read_text(encoding="utf-8"))
    missing = sorted(set(action_outputs()) - set(outputs))
    expect(not missing, f"GITHUB_OUTPUT lacks the outputs {missing} (it has {sorted(outputs)})")
    results_file = host_path(outputs["results"], workspace)
    junit_file = host_path(outputs["junit"], workspace)
    summary_file = host_path(outputs["summary"], workspace)
    for name, path in (("results", results_file), ("junit", junit_file), ("summary", summary_file)):
        expect(path.is_file(), f"output {name}={outputs[name]!r} names no file in the workspace")
    results = json.loads(results_file.read_text(encoding="utf-8"))
    totals = results["totals"]
    expect(outputs["status"] == results["status"] == "failed", f"status output {outputs['status']!r}")
    errors = totals["error"] + totals["file_errors"]
    expected = {"passed": totals["passed"], "failed": totals["failed"], "errors": errors}
    for output, total in expected.items():
        expect(outputs[output] == str(total), f"output {output}={outputs[output]!r} but results.json: {totals}")
    expect(outputs["not-evaluated"] == str(totals["not_evaluated"]), f"not-evaluated={outputs['not-evaluated']!r}")
    expect(outputs["regressions"] == "0", f"regressions={outputs['regressions']!r} without a baseline")
    statuses = {case["eval_id"]: case["status"] for case in results["cases"]}
    expect(statuses.get(FAILING_CASE) == "failed", f"{FAILING_CASE} is {statuses.get(FAILING_CASE)!r}")
    expect(statuses.get(PASSING_CASE) == "passed", f"{PASSING_CASE} is {statuses.get(PASSING_CASE)!r}")
    checked.append(f"outputs {sorted(outputs)} agree with results.json {totals}")

    import jsonschema

    schema = json.loads((REPO / "schema" / "results.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(results, schema)
    checked.append("results.json matches schema/results.schema.json")

    suites = ET.parse(junit_file).getroot()
    cases = list(suites.iter("testcase"))
    failing = [case.get("name", "") for case in cases if case.find("failure") is not None]
    expect(len(cases) == totals["cases"], f"junit.xml has {len(cases)} test cases, results.json {totals['cases']}")
    expect(any(FAILING_CASE in name for name in failing), f"junit.xml failures are {failing}")
    checked.append(f"junit.xml: {len(cases)} cases, failing {failing}")

    summary = (files / "gate.step_summary").read_text(encoding="utf-8")
    expect(FAILING_CASE in summary, "the job summary does not mention the failing case")
    expect(summary.strip() != "", "the job summary is empty")
    checked.append(f"job summary: {len(summary)} characters, names {FAILING_CASE}")

    log = list(requests_log(work / "requests.jsonl"))
    violations = [entry for entry in log if entry.get("violations")]
    expect(not violations, f"requests or answers that do not match GitHub's OpenAPI description: {violations}")
    posts = [e for e in log if e["method"] == "POST" and e["path"].endswith(f"/issues/{PULL_REQUEST}/comments")]
    expect(len(posts) == 1, f"{len(posts)} comments posted to pull request {PULL_REQUEST}, expected 1")
    body = str((posts[0].get("body") or {}).get("body", ""))
    expect(FAILING_CASE in body, "the pull-request comment does not name the failing case")
    expect(posts[0]["status"] == 201, f"creating the comment was answered {posts[0]['status']}")
    expect(outputs["comment-url"].startswith("http"), f"comment-url={outputs['comment-url']!r}")
    checked.append(f"{len(log)} API requests, all valid; one comment posted ({len(body)} characters)")

    annotations = [line for line in stdout.splitlines() if line.startswith("::error file=")]
    expect(
        any("weather.evalset.json" in line and FAILING_CASE in line for line in annotations),
        f"no ::error file=... annotation for {FAILING_CASE}",
    )
    leaked = [line for line in stdout.splitlines() if TOKEN in line and not line.startswith("::add-mask::")]
    expect(not leaked, "the token was printed")
    checked.append("annotation on the failing case's line; the token never printed")

    before = set((work / "workspace-before.txt").read_text(encoding="utf-8").split())
    created = sorted(set(listing(workspace)) - before)
    output_dir = results_file.parent.relative_to(workspace).as_posix()
    stray = [path for path in created if path != output_dir and not path.startswith(output_dir + "/")]
    expect(not stray, f"the container wrote into the workspace outside {output_dir}/: {stray}")
    checked.append(f"the workspace gained only {created}")
    return checked


def check_bad_input(work: Path, *, exit_code: int, input_name: str, stdout_file: Path) -> list[str]:
    stdout = stdout_file.read_text(encoding="utf-8")
    errors = [line for line in stdout.splitlines() if line.startswith("::error")]
    expect(exit_code == 2, f"exit code {exit_code}, expected 2 (a usage error)\n{stdout}")
    expect(len(errors) == 1, f"{len(errors)} ::error lines, expected exactly one:\n{stdout}")
    expect(f"input '{input_name}'" in errors[0], f"the error does not name the input {input_name!r}: {errors[0]}")
    written = {
        path.suffix: path.read_text(encoding="utf-8")
        for path in sorted((work / "files").glob(f"{stdout_file.stem}.*"))
        if path.suffix in {".github_output", ".step_summary"} and path.stat().st_size
    }
    expect(set(written) == {".github_output", ".step_summary"}, f"the step wrote {sorted(written)}, not both")
    expect(parse_outputs(written[".github_output"]).get("status") == "error", "the status output is not error")
    expect(f"input '{input_name}'" in written[".step_summary"], "the job summary does not say what to fix")
    return [f"exit code 2 and one error line: {errors[0]}", "outputs with status error and a job summary naming it"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.action.container_check", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    prep = commands.add_parser("prepare")
    prep.add_argument("work", type=Path)
    prep.add_argument("--api-url", default=os.environ.get("GITHUB_API_URL", "http://127.0.0.1:9"))
    prep.add_argument("--agent-url", default="http://127.0.0.1:9")
    gate = commands.add_parser("run")
    gate.add_argument("work", type=Path)
    gate.add_argument("--exit-code", type=int, required=True)
    bad = commands.add_parser("bad-input")
    bad.add_argument("work", type=Path)
    bad.add_argument("--exit-code", type=int, required=True)
    bad.add_argument("--input", required=True)
    bad.add_argument("--stdout", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        if args.command == "prepare":
            prepare(args.work, api_url=args.api_url, agent_url=args.agent_url)
            return 0
        if args.command == "run":
            checked = check_gate_run(args.work, exit_code=args.exit_code)
        else:
            checked = check_bad_input(
                args.work, exit_code=args.exit_code, input_name=args.input, stdout_file=args.stdout
            )
    except CheckFailed as failure:
        print(f"container test FAILED ({args.command}): {failure}", file=sys.stderr)
        return 1
    for line in checked:
        print(f"  ok: {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
