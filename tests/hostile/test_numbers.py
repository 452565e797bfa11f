"""Numbers are finite at every edge, cache entries are read only when they are regular files, and the reports are
always written.

Scores of ``1e400``/``-1e400`` in a base artifact or a ``--cache-dir`` entry are not read as infinities (which
would compare as regressions, or be an internal error with no report at all); a ``--prices`` file nested 100,000
deep is an error that names it, with every report; a FIFO among the cache entries cannot hang the run, nor a link
to ``/dev/zero`` grow the process without bound.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path

import pytest

from adk_eval_gate.model.results import ResultsDocument
from tests.fakes.github_server import FakeGitHub
from tests.github.flows import EXAMPLE, Step, artifact_zip, pull_request_env, run_step

pytestmark = pytest.mark.slow  # the CLI end to end against the fake GitHub


def _with_scores(results: Path, score: str) -> str:
    """The recorded results.json with every score of 1.0 written as ``score`` (a literal, such as ``1e400``)."""
    text = results.read_text(encoding="utf-8")
    assert '"score":1.0,' in text  # results.json is compact: no space after the colon
    return text.replace('"score":1.0,', f'"score":{score},')


def _zip_with(results_text: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("results.json", results_text)
    return buffer.getvalue()


def _base_run(fake: FakeGitHub, example_results: Path, results_text: str | None = None) -> None:
    base = ResultsDocument.model_validate_json(example_results.read_text(encoding="utf-8"))
    fake.add_workflow_run(artifacts=[("adk-eval-results", artifact_zip(base))])
    if results_text is not None:
        fake.artifacts[max(fake.artifacts)].data = _zip_with(results_text)


def _gate(
    monkeypatch: pytest.MonkeyPatch, work: Path, fake: FakeGitHub, recorded: Path, *extra: str, path: str = EXAMPLE
) -> Step:
    args = ["run", path, "--runner", "recorded", "--recorded", str(recorded), "--output-dir", str(work / "out")]
    return run_step(monkeypatch, [*args, *extra], pull_request_env(work, fake, run_id=3), work)


def _every_report_says(step: Step, fake: FakeGitHub, text: str) -> None:
    for name in ("junit.xml", "summary.md", "report.html"):
        assert (step.out_dir / name).is_file(), name
    assert text in step.results()["error"]
    assert text in step.step_summary.read_text(encoding="utf-8")
    [comment] = fake.comments_on(7)
    assert text in comment.body


def test_a_base_artifact_with_1e400_and_prices_100000_deep_write_every_report_with_the_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub, example_results: Path
) -> None:
    _base_run(fake_github, example_results, _with_scores(example_results, "1e400"))
    prices = tmp_path / "prices.json"
    prices.write_text('{"a":' * 100_000 + "1" + "}" * 100_000, encoding="utf-8")
    step = _gate(monkeypatch, tmp_path, fake_github, example_results, "--prices", str(prices))
    assert step.code in (1, 2), step.stdout
    assert "internal error" not in step.stdout and "Traceback" not in step.stdout
    assert step.results()["status"] == "error"
    _every_report_says(step, fake_github, "nested more than")


@pytest.mark.parametrize("score", ["1e400", "-1e400", "1" + "0" * 400])
def test_a_base_artifact_with_a_number_too_large_for_a_float_is_refused_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub, example_results: Path, score: str
) -> None:
    _base_run(fake_github, example_results, _with_scores(example_results, score))
    step = _gate(monkeypatch, tmp_path, fake_github, example_results)
    assert step.code == 1, step.stdout  # the example fails one case on purpose; nothing else went wrong
    assert "baseline not used" in step.stdout and "is too large for a number" in step.stdout
    assert step.results()["comparison"] is None
    [comment] = fake_github.comments_on(7)
    assert "No comparison" in comment.body


def _bad_entries(entries: list[Path], example_results: Path) -> None:
    """The cached runs replaced by a FIFO, a link to /dev/zero and results holding 1e400."""
    fifo, zero, overflow = entries
    fifo.unlink()
    os.mkfifo(fifo)
    zero.unlink()
    zero.symlink_to("/dev/zero")
    run_id = json.loads(overflow.read_text(encoding="utf-8"))["run_id"]
    overflow.write_text(f'{{"run_id": {run_id}, "results": {_with_scores(example_results, "1e400")}}}', "utf-8")


@pytest.mark.timeout(120)  # reading a FIFO entry would block forever
def test_cache_entries_that_are_not_regular_files_or_hold_1e400_are_ignored_with_one_warning(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub, example_results: Path
) -> None:
    for _ in range(3):
        _base_run(fake_github, example_results)
    cache = tmp_path / "cache"
    first = _gate(monkeypatch, tmp_path, fake_github, example_results, "--cache-dir", str(cache), "--history", "3")
    assert first.code == 1, first.stdout
    entries = sorted((cache / "base-runs").iterdir())
    assert len(entries) == 3 and len(fake_github.storage_requests) == 3
    _bad_entries(entries, example_results)
    again = _gate(monkeypatch, tmp_path, fake_github, example_results, "--cache-dir", str(cache), "--history", "3")
    assert again.code == 1, again.stdout
    assert again.stdout.count("cache entry") == 1 and "regular files" in again.stdout
    assert len(fake_github.storage_requests) == 6  # each bad entry downloaded again
    assert again.results()["comparison"] is not None
    assert all(entry.is_file() and not entry.is_symlink() for entry in entries)  # and written over


def test_a_vertex_style_metric_of_1e308_on_two_rows_has_a_finite_mean_and_every_report(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub, example_results: Path
) -> None:
    (tmp_path / "huge_scores.py").write_text("def huge(instance):\n    return {'huge': 1e308}\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    config = tmp_path / "test_config.json"
    metric = {"code_config": {"name": "huge_scores.huge"}, "signature": "vertex"}
    config.write_text(json.dumps({"criteria": {"huge": 1.0}, "custom_metrics": {"huge": metric}}), encoding="utf-8")
    _base_run(fake_github, example_results)
    two_rows = f"{EXAMPLE}:paris_today,wrong_city_on_purpose"  # one turn each: the suite's mean overflowed
    step = _gate(monkeypatch, tmp_path, fake_github, example_results, "--config", str(config), path=two_rows)
    assert step.code == 0, step.stdout
    doc = step.results()
    assert [case["metrics"][0]["score"] for case in doc["cases"]] == [1e308, 1e308]
    assert doc["metrics"][0]["mean"] == 1e308
    for name in ("junit.xml", "summary.md", "report.html"):
        assert (step.out_dir / name).is_file(), name
    assert fake_github.comments_on(7)


def _fails(message: str):  # type: ignore[no-untyped-def]
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError(message)

    return broken


def _annotate_fails_with_cases(console: object, doc: ResultsDocument) -> None:
    if doc.cases:
        raise RuntimeError("annotations of a case no test foresaw")


@pytest.mark.parametrize(
    "broken",
    [
        ("adk_eval_gate.compare.changes.compare", _fails("a comparison no test foresaw"), True),
        ("adk_eval_gate.aggregate.records.document", _fails("a document no test foresaw"), False),
        ("adk_eval_gate.finish.ending.annotate", _annotate_fails_with_cases, False),
    ],
    ids=["comparing", "building the document", "every report with the cases"],
)
def test_an_internal_error_after_the_runs_still_writes_every_report_with_the_reason(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    fake_github: FakeGitHub,
    example_results: Path,
    broken: tuple[str, object, bool],
) -> None:
    """(the stage that raises, what raises instead, whether the reports keep the run's cases)"""
    stage, replacement, cases_kept = broken
    _base_run(fake_github, example_results)
    monkeypatch.setattr(stage, replacement)
    step = _gate(monkeypatch, tmp_path, fake_github, example_results)
    assert step.code == 2, step.stdout
    assert "internal error after the runs: RuntimeError" in step.stdout
    doc = step.results()
    assert doc["status"] == "error" and doc["comparison"] is None
    assert len(doc["cases"]) == (3 if cases_kept else 0)
    _every_report_says(step, fake_github, "internal error after the runs: RuntimeError: a")
