"""report.html is written by the one report writer, by ``report`` and ``merge`` (``run`` goes through the same
``finish``), at ``--html FILE`` or OUTPUT_DIR/report.html; a failing renderer costs none of the other reports."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from adk_eval_gate.cli import main
from adk_eval_gate.config.settings import build_settings
from adk_eval_gate.finish.written import write_decided_reports
from adk_eval_gate.report.html import page
from adk_eval_gate.support.console import Console
from tests.report.builders import case, document, metric
from tests.report.golden import row_text, rows_of


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in ("GITHUB_ACTIONS", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_EVENT_PATH", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def _write(path: Path, doc: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(doc.model_dump_json(), encoding="utf-8")
    return path


def test_report_writes_the_html_next_to_the_other_reports(workspace: Path) -> None:
    _write(workspace / "results.json", document([case("paris", [metric("m", 0.9)]), case("rome", [metric("m", 0.1)])]))
    assert main(["report", "results.json"]) == 1
    html = (workspace / "adk-eval-results" / "report.html").read_text(encoding="utf-8")
    assert html.startswith("<!doctype html>") and len(rows_of(html)) == 2
    assert main(["report", "results.json", "--html", "deep/dive.html", "--output-dir", "other"]) == 1
    assert (workspace / "deep" / "dive.html").is_file() and (workspace / "other" / "junit.xml").is_file()
    assert not (workspace / "other" / "report.html").exists()


def test_merge_writes_the_html_of_the_merged_results(workspace: Path) -> None:
    for index, name in ((1, "paris"), (2, "rome")):
        doc = document([case(name, [metric("m", 0.9)])])
        doc = doc.model_copy(update={"run": doc.run.model_copy(update={"shard": f"{index}/2", "selection": "s"})})
        _write(workspace / f"shard{index}" / "results.json", doc)
    assert main(["merge", "shard1", "shard2", "--results", "out/results.json", "--html", "out/report.html"]) == 0
    merged = json.loads((workspace / "out" / "results.json").read_text(encoding="utf-8"))
    html = (workspace / "out" / "report.html").read_text(encoding="utf-8")
    assert merged["totals"]["cases"] == 2 and len(rows_of(html)) == 2
    assert "agents/weather/weather.evalset.json:5" in row_text(rows_of(html)[0])


def test_a_failing_html_renderer_keeps_the_other_reports_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(doc: Any) -> str:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(page, "render", broken)
    settings = build_settings("run", {"output_dir": str(tmp_path / "out")}, env={})
    stream = io.StringIO()
    written = write_decided_reports(
        document([case("paris", [metric("m", 0.9)])]),
        settings=settings,
        console=Console(in_actions=False, stream=stream),
    ).doc
    assert written.status == "error" and "report.html could not be written (RecursionError" in (written.error or "")
    assert not settings.html_path.exists()
    for path in (settings.results_path, settings.junit_path, settings.summary_path):
        assert path.is_file(), path
    assert "report.html could not be written" in settings.summary_path.read_text(encoding="utf-8")
    assert "report.html could not be written" in stream.getvalue()


def test_the_html_path_is_a_command_line_option_of_run_report_and_merge_only() -> None:
    for command in ("run", "report", "merge"):
        assert build_settings(command, {"html": "x/r.html"}, env={}).html_path == Path("x/r.html")
    assert build_settings("run", {"output_dir": "o"}, env={}).html_path == Path("o/report.html")
    assert build_settings("run", {}, env={"INPUT_HTML": "ignored.html"}).html_path == Path(
        "adk-eval-results/report.html"
    )
