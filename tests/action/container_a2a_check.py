"""The a2a scenario of the container test: the image run with ``runner: a2a`` against ADK's ``to_a2a`` server of
the weather example on the host (``tests/action/a2a_server.py``), checked against the gate scenario's in-process
run of the same eval set in the same image::

    python -m tests.action.container_a2a_check WORK --exit-code N
"""

from __future__ import annotations

import argparse
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from tests.action import container_check as check

# The metrics that travel over A2A from ADK's server exactly as in-process (latency does not: it is measured).
SAME_SCORES = ("tool_trajectory_avg_score", "response_match_score", "tool_call_count_v1", "token_usage_v1")


def step_files(work: Path, scenario: str) -> dict[str, Path]:
    """The files a step's outputs name (results, junit), read from its GITHUB_OUTPUT."""
    outputs = check.parse_outputs((work / "files" / f"{scenario}.github_output").read_text(encoding="utf-8"))
    files = {name: check.host_path(outputs[name], work / "workspace") for name in ("results", "junit")}
    for name, path in files.items():
        check.expect(path.is_file(), f"{scenario}: output {name}={outputs[name]!r} names no file in the workspace")
    return files


def case_scores(results: dict[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    """eval id -> (status, the scores of SAME_SCORES)."""
    return {
        case["eval_id"]: (
            case["status"],
            {metric["name"]: metric["score"] for metric in case["metrics"] if metric["name"] in SAME_SCORES},
        )
        for case in results["cases"]
    }


def junit_outcomes(path: Path) -> dict[tuple[str, str], tuple[str, str]]:
    """(classname, name) -> (outcome, its message) of every testcase: failure, error, skipped or passed."""
    outcomes: dict[tuple[str, str], tuple[str, str]] = {}
    for testcase in ET.parse(path).getroot().iter("testcase"):
        found = next((child for child in testcase if child.tag in ("failure", "error", "skipped")), None)
        outcome = ("passed", "") if found is None else (found.tag, found.get("message", ""))
        outcomes[(testcase.get("classname", ""), testcase.get("name", ""))] = outcome
    return outcomes


def shown(path: Path) -> str:
    """What a file of the step shows: its text without the ``::add-mask::`` commands, which GitHub's runner takes
    in and never prints (they are how the secret gets masked)."""
    lines = path.read_bytes().decode("utf-8", "replace").splitlines()
    return "\n".join(line for line in lines if not line.startswith("::add-mask::"))


def leaks(work: Path, *, scenario: str, output_dir: Path, secret: str) -> list[str]:
    """The files of a step (its stdout and stderr, outputs, job summary, what it wrote) and the requests it made to
    GitHub that hold ``secret``."""
    written = [work / f"{scenario}.out", work / f"{scenario}.err", *sorted((work / "files").glob(f"{scenario}.*"))]
    written += sorted(path for path in output_dir.rglob("*") if path.is_file())
    found = [path.name for path in written if path.is_file() and secret in shown(path)]
    requests = work / "requests.jsonl"
    if requests.is_file() and secret in requests.read_text(encoding="utf-8"):
        found.append("a request to the GitHub API")
    return found


def check_a2a_run(work: Path, *, exit_code: int) -> list[str]:
    """The a2a step agrees with the gate step's in-process run, reached the server with its header, leaked nothing."""
    stdout = (work / "a2a.out").read_text(encoding="utf-8")
    checked: list[str] = []
    check.expect(
        exit_code == 1, f"exit code {exit_code}, expected 1 as in-process (one case fails on purpose)\n{stdout}"
    )
    over_a2a, in_process = step_files(work, "a2a"), step_files(work, "gate")
    remote = json.loads(over_a2a["results"].read_text(encoding="utf-8"))
    local = json.loads(in_process["results"].read_text(encoding="utf-8"))
    check.expect(remote["run"]["runner"] == "a2a", f"results.json says runner {remote['run']['runner']!r}")
    served = remote["run"].get("served_agent")
    check.expect(served == {"name": "weather_agent", "version": "0.0.1"}, f"served_agent is {served!r}")
    check.expect(
        remote["totals"] == local["totals"], f"totals {remote['totals']} over A2A, {local['totals']} in-process"
    )
    scores, expected = case_scores(remote), case_scores(local)
    check.expect(scores == expected, f"cases over A2A {scores}, in-process {expected}")
    checked.append(f"results.json: runner a2a, served agent {served}, totals and scores as in-process: {scores}")

    outcomes, expected_outcomes = junit_outcomes(over_a2a["junit"]), junit_outcomes(in_process["junit"])
    check.expect(outcomes == expected_outcomes, f"junit.xml over A2A {outcomes}, in-process {expected_outcomes}")
    checked.append(f"junit.xml: the same {len(outcomes)} test cases and outcomes as in-process")

    log = list(check.requests_log(work / "a2a-requests.jsonl"))
    refused = [entry for entry in log if not entry["authorized"]]
    check.expect(bool(log) and not refused, f"the A2A server got {len(log)} requests, without the header: {refused}")
    checked.append(f"{len(log)} requests reached the A2A server, each with the agent-headers token")

    output_dir = work / "workspace" / check.A2A_OUTPUT_DIR
    leaked = leaks(work, scenario="a2a", output_dir=output_dir, secret=check.A2A_TOKEN)
    check.expect(not leaked, f"the agent-headers token is in {leaked}")
    checked.append("the agent-headers token is in no output, file written or request to GitHub")
    return checked


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.action.container_a2a_check", description=__doc__.splitlines()[0]
    )
    parser.add_argument("work", type=Path)
    parser.add_argument("--exit-code", type=int, required=True)
    args = parser.parse_args(argv)
    try:
        checked = check_a2a_run(args.work, exit_code=args.exit_code)
    except check.CheckFailed as failure:
        print(f"container test FAILED (a2a): {failure}", file=sys.stderr)
        return 1
    for line in checked:
        print(f"  ok: {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
