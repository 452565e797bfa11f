"""Results that claim what their cases do not say: ``report`` re-renders a results.json that
anyone could have written (the fork-safe two-workflow set-up reads what a pull request uploaded). It decides the
verdict again from the cases' runs and metrics, never from the file's own status and totals, and says so when
they disagree."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.github.flows import run_step
from tests.report.builders import case, document, metric


def _forged(tmp_path: Path) -> Path:
    honest = document(
        [case("paris", [metric("response_match_score", 0.9)]), case("sydney", [metric("response_match_score", 0.1)])]
    )
    claims = honest.model_copy(
        update={
            "status": "passed",
            "totals": honest.totals.model_copy(update={"passed": 2, "failed": 0}),
            "cases": [c.model_copy(update={"status": "passed", "findings": []}) for c in honest.cases],
        }
    )
    path = tmp_path / "results.json"
    path.write_text(claims.model_dump_json(), encoding="utf-8")
    return path


def test_report_decides_from_the_cases_and_says_what_the_file_claimed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    results = _forged(tmp_path)
    step = run_step(monkeypatch, ["report", str(results), "--output-dir", str(tmp_path / "out")], {}, tmp_path)
    assert step.code == 1, step.stdout
    claims = [line for line in step.stdout.splitlines() if "the results file claims" in line]
    assert any("status 'passed', its cases say 'failed'" in line for line in claims), step.stdout
    assert any("totals.failed 0, its cases say 1" in line for line in claims)
    assert "ADK eval gate: FAILED - 2 cases: 1 passed, 1 failed" in step.stdout
    assert (tmp_path / "out" / "junit.xml").read_text().count("<failure") == 1


def test_a_quarantine_that_leaves_no_case_gated_is_an_error(tmp_path: Path) -> None:
    from adk_eval_gate import verdict
    from adk_eval_gate.aggregate import records as aggregate
    from adk_eval_gate.model.results import RunInfo

    cases = verdict.quarantine(document([case("sydney", [metric("response_match_score", 0.1)])]).cases, ["**"])
    doc = aggregate.document(cases, [], RunInfo(tool_version="x"))
    assert doc.status == "error" and verdict.exit_code(doc) == 1
    assert doc.findings[0].reason.startswith("every one of the 1 case is quarantined: nothing is gated")
