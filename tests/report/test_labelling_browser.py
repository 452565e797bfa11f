"""report.html's labelling view in headless Chromium, opened from disk: a real run's judged turns (the fake Gemini
judge) labelled in the page, one suggestion flipped and another confirmed, the labels file downloaded as a Blob,
valid against its schema and through the loader ``calibrate`` uses, and ``calibrate`` counting exactly the
confirmed labels; scores checked against the metric's scale; hostile answers shown as text, running nothing; and
axe-core finding nothing critical or serious in the view."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jsonschema
import pytest

from adk_eval_gate.inputs.labels_files import load_labels
from adk_eval_gate.report.html import page as html_page
from tests.conftest import run_cli, write_json
from tests.fakes.gemini_server import FakeGemini, SeenRequest
from tests.judge.helpers import API_KEY, gemini, v2_answer
from tests.report.builders import document
from tests.report.test_html import OUR_ATTRIBUTES, OUR_TAGS
from tests.report.test_html_browser import Opened, _axe
from tests.report.test_labelling_view import judged_case

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

__all__ = ["gemini"]
pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
HOSTILE = '</script><script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">'
ROWS = [
    {"eval_id": "rain", "prompt": "Weather in Paris?", "reference": "Sunny.", "response": "Rainy. JUDGE_NO"},
    {"eval_id": "sun", "prompt": "Weather in Rome?", "reference": "Sunny.", "response": "Sunny. JUDGE_YES"},
    {"eval_id": "odd", "prompt": "Weather in Lima?", "reference": "Cloudy.", "response": f"Cloudy. {HOSTILE}"},
]


def judge_script(request: SeenRequest) -> str:
    return v2_answer("invalid" if "JUDGE_NO" in request.prompt else "valid")


@pytest.fixture
def workspace(repo: Path) -> Path:
    options = {"judge_model": "gemini-2.5-flash", "num_samples": 1}
    write_json(
        repo / "evals" / "test_config.json",
        {"criteria": {"final_response_match_v2": {"threshold": 0.5, "judge_model_options": options}}},
    )
    turn = {"user_content": {"role": "user", "parts": [{"text": "Weather?"}]}}
    case = {"eval_id": "weather", "conversation": [{"invocation_id": "t", **turn}]}
    write_json(repo / "evals" / "weather.evalset.json", {"eval_set_id": "weather", "eval_cases": [case]})  # calibrate's
    (repo / "evals" / "rows.jsonl").write_text("".join(json.dumps(row) + "\n" for row in ROWS), encoding="utf-8")
    return repo


@pytest.fixture
def tab(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(accept_downloads=True, viewport={"width": 1280, "height": 900})
    try:
        yield context.new_page()
    finally:
        context.close()


def opened(tab: Page, path: Path) -> Opened:
    """The report opened from disk, its labelling view opened."""
    report = Opened(tab, path)
    report.open()
    tab.locator("#label-view > summary").click()
    return report


def item(tab: Page, text: str) -> Any:
    return tab.locator(".label-item", has_text=text)


def downloaded(tab: Page, target: Path) -> dict[str, Any]:
    with tab.expect_download() as started:
        tab.locator("#download-labels").click()
    download = started.value
    assert download.suggested_filename == "judges.labels.json"
    download.save_as(target)
    loaded: dict[str, Any] = json.loads(target.read_text(encoding="utf-8"))
    return loaded


def built_markup(tab: Page) -> list[str]:
    """Tags and attributes of the built view that report.html's markup may not hold (tests/report/test_html.py)."""
    found = tab.evaluate(
        """() => Array.from(document.querySelectorAll('#label-view *')).flatMap((node) =>
            [node.tagName.toLowerCase(), ...Array.from(node.attributes).map((a) => a.name)])"""
    )
    return sorted(set(found) - OUR_TAGS - OUR_ATTRIBUTES)


def test_labels_made_in_the_page_are_the_file_calibrate_reads(workspace: Path, gemini: FakeGemini, tab: Page) -> None:
    gemini.script = judge_script
    env = {"GOOGLE_API_KEY": API_KEY, "GOOGLE_GEMINI_BASE_URL": gemini.url}
    ran = run_cli("run", "--dataset", "evals/rows.jsonl", cwd=workspace, env=env)
    assert ran.returncode == 1, ran.stdout  # the JUDGE_NO turn fails its case
    report = opened(tab, workspace / "adk-eval-results" / "report.html")
    assert tab.locator(".label-item").count() == 3 and built_markup(tab) == []
    item(tab, "Rainy. JUDGE_NO").get_by_label("disagree: valid").check()  # the judge was wrong: flipped
    item(tab, "Sunny. JUDGE_YES").get_by_label("agree: valid").check()  # confirmed
    tab.locator("#labeller").fill("ana </script>")
    assert tab.locator("#label-count").inner_text() == "2 of 3 turns labelled"
    target = workspace / "evals" / "made.labels.json"
    made = downloaded(tab, target)
    jsonschema.validate(made, json.loads((REPO / "schema" / "judge-labels.schema.json").read_text(encoding="utf-8")))
    labels = load_labels(target, display="made.labels.json", root=workspace).labels
    summary = [(label.case, label.label, label.confirmed, label.labeller) for label in labels]
    assert summary == [
        ("evals/rows.jsonl::rain", "valid", True, "ana </script>"),
        ("evals/rows.jsonl::sun", "valid", True, "ana </script>"),
        ("evals/rows.jsonl::odd", "valid", False, None),  # untouched: as `label` suggests it
    ]
    assert labels[2].invocation.final_response and HOSTILE in (labels[2].invocation.final_response.parts or [])[0].text
    assert tab.evaluate("window.pwned") is None and tab.locator("#label-view img").count() == 0
    assert report.requests == [report.url] and report.console == [] and report.dialogs == []

    args = ("calibrate", "evals", "--judge-labels", "evals/made.labels.json", "--output-dir", "calibrated")
    calibrated = run_cli(*args, cwd=workspace, env=env)
    assert calibrated.returncode == 0, calibrated.stdout
    written = json.loads((workspace / "calibrated" / "calibration.json").read_text(encoding="utf-8"))
    jsonschema.validate(written, json.loads((REPO / "schema" / "calibration.schema.json").read_text(encoding="utf-8")))
    [judge] = written["metrics"]
    assert judge["labels"] == 2 and judge["confusion"] == [[0, 0], [1, 1]]  # the person's valid, the judge's verdicts


def test_a_score_is_taken_only_on_the_metrics_scale_and_a_refused_turn_is_not_downloaded(
    tmp_path: Path, tab: Page
) -> None:
    huge = "rain " * 5_000
    doc = document(
        [
            judged_case("lima", [0.25], metric_name="safety_v1"),
            judged_case("oslo", [0.0, 1.0], answers=[huge, "Snow."]),
        ]
    )
    path = tmp_path / "report.html"
    path.write_text(html_page.render(doc), encoding="utf-8")
    report = opened(tab, path)
    scored = item(tab, "It rains in lima.")
    score = scored.locator("input[type=number]")
    score.fill("7")
    assert score.get_attribute("aria-invalid") == "true" and scored.get_attribute("data-state") == "unlabelled"
    score.fill("0.5")
    assert score.get_attribute("aria-invalid") == "false" and scored.get_attribute("data-state") == "labelled"
    refused = tab.locator(".label-item[data-state=refused]")
    assert refused.count() == 1 and refused.locator("input").count() == 0
    assert "shown cut" in refused.inner_text() and "more characters]" in refused.inner_text()
    made = downloaded(tab, tmp_path / "made.labels.json")
    assert [(label["label"], label["confirmed"]) for label in made["labels"]] == [(0.5, True), ("valid", False)]
    assert "labeller" not in made["labels"][0]  # no name given
    assert _axe(report) == []
