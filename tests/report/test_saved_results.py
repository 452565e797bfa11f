"""``adk-eval-gate report`` and ``merge`` on the golden inputs, current ones and as older versions of the gate wrote
them (tests/golden/inputs/).

``report`` decides saved results again from their cases: it must give the saved verdict, write the golden comment,
summary, JUnit and report.html, and annotate as the golden annotations say (in GitHub Actions). The shards of an
input (its cases split in two, as ``--shard I/2`` runs write them) merge into the verdict of the input itself
without its comparison (``report`` compares merged results).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from adk_eval_gate import verdict
from adk_eval_gate.inputs.saved_results import load_results
from adk_eval_gate.model.results import ResultsDocument
from tests.github.flows import Step, run_step
from tests.report.golden import HUGE, NOT_KEPT, SUMMARY_LIMITS, expected_path, report_data
from tests.report.scenarios import input_data, input_names, load_input, saved_file, source_of

# The huge suite takes seconds per command (a 1 MiB summary, 400 cases in report.html): slow tier.
NAMES = [pytest.param(name, marks=pytest.mark.slow) if name == HUGE else name for name in input_names()]
OLDER = [name for name in input_names() if source_of(name)]
GATED = ("cases", "passed", "failed", "error", "not_evaluated", "quarantined", "infrastructure_errors")
TRUSTED = {"GITHUB_REPOSITORY": "octo/repo"}  # the run links of the inputs are this repository's: kept
IN_ACTIONS = {**TRUSTED, "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "push"}  # no token: nothing is published


def _report(monkeypatch: pytest.MonkeyPatch, name: str, work: Path) -> Step:
    args = ["report", str(saved_file(name, work)), "--output-dir", str(work / "out")]
    return run_step(monkeypatch, args, IN_ACTIONS, work)


def _verdict(doc: ResultsDocument) -> tuple[object, ...]:
    """Status, counts, each case's status and each metric's summary (merge orders cases by file and position)."""
    cases = sorted((case.id, case.status) for case in doc.cases)
    metrics = sorted((summary.name, summary.model_dump_json()) for summary in doc.metrics)
    return doc.status, [getattr(doc.totals, count) for count in GATED], cases, metrics


@pytest.mark.parametrize("name", NAMES)
def test_report_gives_the_saved_verdict_and_the_golden_reports(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str
) -> None:
    step = _report(monkeypatch, name, tmp_path)
    assert step.code == verdict.exit_code(load_input(name)), step.stdout
    assert "the results file claims" not in step.stdout
    written = {output: (step.out_dir / output).read_text(encoding="utf-8") for output in ("comment.md", "junit.xml")}
    if name not in SUMMARY_LIMITS:  # the golden summary of the huge suite is cut shorter than report writes it
        written["summary.md"] = (step.out_dir / "summary.md").read_text(encoding="utf-8")
    written["report-data.json"] = report_data((step.out_dir / "report.html").read_text(encoding="utf-8"))
    annotated = [line for line in step.stdout.splitlines() if line.startswith(("::error file=", "::warning file="))]
    written["annotations.txt"] = "".join(f"{line}\n" for line in annotated)
    for output, text in written.items():
        if (name, output) not in NOT_KEPT:
            assert text == expected_path(name, output).read_text(encoding="utf-8"), f"{name}/{output}"


def _shards(data: dict[str, Any], work: Path) -> list[str]:
    """The input's cases split in two, each half as its shard of the run (older inputs stay in their format)."""
    folders = []
    for index in (1, 2):
        shard = copy.deepcopy(data)
        shard["cases"] = [case for number, case in enumerate(data["cases"]) if number % 2 == index - 1]
        shard["run"]["shard"] = f"{index}/2"
        folder = work / f"shard{index}"
        folder.mkdir(parents=True)
        (folder / "results.json").write_text(json.dumps(shard), encoding="utf-8")
        folders.append(str(folder))
    return folders


def _merged(monkeypatch: pytest.MonkeyPatch, name: str, work: Path) -> ResultsDocument:
    merged = work / "merged.json"
    args = ["merge", *_shards(input_data(name), work), "--results", str(merged), "--output-dir", str(work / "out")]
    step = run_step(monkeypatch, args, TRUSTED, work)
    assert step.code == 0, step.stdout
    return load_results(merged)


@pytest.mark.parametrize("name", NAMES)
def test_the_shards_of_an_input_merge_into_its_verdict(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str
) -> None:
    doc = load_input(name)
    uncompared = verdict.decide(doc.model_copy(update={"comparison": None}), None, verdict.Policy.recorded(doc.run))
    merged = _merged(monkeypatch, name, tmp_path)
    assert merged.run.shards_merged == 2
    assert _verdict(merged) == _verdict(uncompared)
    assert merged.findings == uncompared.findings


@pytest.mark.parametrize("name", OLDER)
def test_older_shards_merge_as_the_current_ones_do(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str) -> None:
    older = _merged(monkeypatch, name, tmp_path / "older")
    current = _merged(monkeypatch, source_of(name) or "", tmp_path / "current")
    assert _verdict(older) == _verdict(current)
