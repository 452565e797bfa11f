"""publish posts the texts the writer rendered, never renders them again: a report that could not be rendered is
a warning that says what was not posted, and the step outputs are still written."""

from __future__ import annotations

import io
from pathlib import Path

from adk_eval_gate.config.settings import build_settings
from adk_eval_gate.github.publish import publish
from adk_eval_gate.report.writer import Rendered
from adk_eval_gate.support.console import Console
from tests.report.builders import case, document, metric


def _publish(tmp_path: Path, texts: dict[str, str]) -> tuple[str, Path]:
    env = {"GITHUB_STEP_SUMMARY": str(tmp_path / "step_summary.md"), "GITHUB_OUTPUT": str(tmp_path / "output")}
    settings = build_settings("run", {"output_dir": str(tmp_path / "out"), "comment_mode": "always"}, env=env)
    paths = {"summary": settings.summary_path, "comment": settings.comment_path}
    stream = io.StringIO()
    publish(
        document([case("paris", [metric("m", 0.9)])]),
        rendered=Rendered(texts={paths[name]: text for name, text in texts.items()}, failures=[]),
        settings=settings,
        client=None,
        console=Console(in_actions=True, stream=stream),
        pull_number=7,
        results_path=settings.results_path,
    )
    return stream.getvalue(), tmp_path


def test_the_job_summary_is_the_text_rendered(tmp_path: Path) -> None:
    said, where = _publish(tmp_path, {"summary": "## as written\n", "comment": "the comment"})
    assert (where / "step_summary.md").read_text(encoding="utf-8").strip() == "## as written"
    assert "no GitHub token: the pull-request comment was not posted" in said


def test_a_report_that_was_not_rendered_is_a_warning_and_the_outputs_are_still_written(tmp_path: Path) -> None:
    said, where = _publish(tmp_path, {})
    assert "::warning::the job summary was not written: the summary could not be rendered" in said
    assert "::warning::the pull-request comment was not posted: the comment could not be rendered" in said
    assert not (where / "step_summary.md").exists()
    assert (where / "output").read_text(encoding="utf-8").startswith("status<<")
