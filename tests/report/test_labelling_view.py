"""report.html's labelling view without a browser: the turns ``adk-eval-gate label`` would write, each with its
texts, the judge's verdict and its entry exactly as ``label`` writes it; hostile text kept inert in the page's
data; a turn too long to show whole refused; the page's limits said; one line when no turn was judged."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from adk_eval_gate.cli import main
from adk_eval_gate.model.judge_labels import JudgeLabelsFile
from adk_eval_gate.model.results import CaseResult, InvocationRecord, ResultsDocument
from adk_eval_gate.model.suggested_labels import suggested_labels
from adk_eval_gate.report.html import labelling_view, page
from adk_eval_gate.report.html.parts import TEXT_LIMIT, text
from tests.report.builders import case, document, invocation, metric
from tests.report.golden import script_data
from tests.report.scenarios import load_input
from tests.report.test_html import problems

V2 = "final_response_match_v2"
SECRET = "sk-live-0123456789abcdef"


def judged_case(
    name: str, scores: list[float | None], *, answers: list[str] | None = None, metric_name: str = V2
) -> CaseResult:
    """A case whose judge metric scored each of its turns (``scores``), with ``answers`` as the agent's."""
    answers = answers or [f"It rains in {name}." for _ in scores]
    turns = [
        invocation(f"Weather in {name}, turn {n}?", expected=f"Sunny in {name}.", actual=answer, expected_calls=[],
                   actual_calls=[])
        for n, answer in enumerate(answers)
    ]  # fmt: skip
    built = case(name, [metric(metric_name, 0.5, kind="judge")], turns=turns)
    [run] = built.runs
    scored = [m.model_copy(update={"invocation_scores": scores}) for m in run.metrics]
    return built.model_copy(update={"runs": [run.model_copy(update={"metrics": scored})]})


def label_data(markup: str) -> dict[str, Any]:
    found: dict[str, Any] = script_data(markup, "label-data")
    return found


def section_of(markup: str) -> str:
    found = re.search(r'<section class="labelling">.*?</section>', markup, re.S)
    assert found, "report.html has no labelling view"
    return found.group(0)


def test_each_judged_turn_is_an_item_with_the_entry_label_writes() -> None:
    doc = document([judged_case("paris", [1.0, 0.0]), judged_case("lima", [None, 0.25], metric_name="safety_v1")])
    markup = page.render(doc)
    data = label_data(markup)
    assert data["file"] == "judges.labels.json"
    items = data["items"]
    assert [(i["metric"], i["judge"], i["case"]) for i in items] == [
        (V2, "valid", "agents/weather/weather.evalset.json::paris"),
        (V2, "invalid", "agents/weather/weather.evalset.json::paris"),
        ("safety_v1", 0.25, "agents/weather/weather.evalset.json::lima"),
    ]
    assert items[0]["user"] == "Weather in paris, turn 0?" and items[0]["answer"] == "It rains in paris."
    assert items[0]["expected"] == "Sunny in paris." and items[2]["expected"] is None  # safety reads no reference
    assert items[0]["scale"] == [0.0, 1.0]
    written = json.loads(suggested_labels(doc).model_dump_json(exclude_none=True, by_alias=False))
    assert [item["entry"] for item in items] == written["labels"]  # what `label` writes, entry for entry
    JudgeLabelsFile.model_validate({"labels": [item["entry"] for item in items]})
    view = section_of(markup)
    assert "3 judged turns with the judge" in view and "0 of 3 turns labelled" in view
    assert '<button type="button" id="download-labels">Download labels</button>' in view
    assert problems(markup) == []


def test_a_run_without_judged_turns_says_so_in_one_line() -> None:
    for doc in (load_input("regressions"), load_input("judges"), document([case("a", [metric("m", 0.9)])])):
        view = section_of(page.render(doc))
        one_line = f'<p class="muted">{text(labelling_view.NOTHING_TO_LABEL)}</p>'
        assert view == f'<section class="labelling"><h2>Label the judges</h2>{one_line}</section>'
        assert "<table" not in view and "label-data" not in view


def test_markup_and_a_closing_script_tag_in_answers_stay_inert_data() -> None:
    hostile = "</script><script>alert(1)</script><img src=x onerror=alert(2)> \u202eevil\x00"
    markup = page.render(document([judged_case("x", [1.0], answers=[hostile])]))
    view = section_of(markup)
    assert "<script>alert" not in markup and "<img" not in markup
    data = re.search(r'id="label-data">(.*?)</script>', view, re.S)
    assert data and not set("<>&") & set(data.group(1)) and data.group(1).isascii()
    [item] = label_data(markup)["items"]
    assert item["answer"].startswith("</script><script>alert(1)</script><img")
    assert item["answer"].endswith("<U+202E>evil<U+0000>")  # shown revealed
    assert item["entry"]["invocation"]["final_response"]["parts"][0]["text"] == hostile  # labelled as it was
    assert problems(markup) == []


def test_a_turn_too_long_to_show_whole_is_shown_cut_and_refused() -> None:
    huge = "rain " * (TEXT_LIMIT // 4)
    markup = page.render(document([judged_case("x", [1.0, 0.0], answers=[huge, "short"])]))
    cut, whole = label_data(markup)["items"]
    assert cut["answer"].endswith("more characters]") and len(cut["answer"]) < TEXT_LIMIT + 40
    assert "entry" not in cut and f"over {TEXT_LIMIT:,} characters and is shown cut" in cut["refused"]
    assert "entry" in whole and "refused" not in whole
    assert "1 turn too long to label here: shown, and left out of the download." in section_of(markup)
    assert len(markup) < 2 * TEXT_LIMIT + 200_000  # the cut text only: the whole one is not in the page


def test_a_turn_whose_tool_data_is_huge_is_refused() -> None:
    built = judged_case("x", [1.0])
    [run] = built.runs
    calls = [{"name": "dump", "args": {"blob": "z" * 70_000}}]
    heavy = invocation("Weather?", expected="Sunny.", actual="Rain.", expected_calls=[], actual_calls=calls)
    doc = document([built.model_copy(update={"runs": [run.model_copy(update={"invocations": [heavy]})]})])
    [item] = label_data(page.render(doc))["items"]
    assert "entry" not in item and "over 60,000 characters" in item["refused"]


def test_the_page_holds_at_most_its_limit_of_turns_a_metric_and_says_how_many_more(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert labelling_view.MAX_PER_METRIC == 200
    monkeypatch.setattr(labelling_view, "MAX_PER_METRIC", 3)
    doc = document([judged_case("x", [1.0] * 5), judged_case("y", [0.5] * 2, metric_name="safety_v1")])
    markup = page.render(doc)
    assert [item["metric"] for item in label_data(markup)["items"]] == [V2] * 3 + ["safety_v1"] * 2
    assert "2 more judged turns of final_response_match_v2 not in this page" in section_of(markup)
    assert "of safety_v1 not in this page" not in section_of(markup)
    monkeypatch.setattr(labelling_view, "MAX_DATA_CHARS", 1)  # past it after the first turn
    markup = page.render(doc)
    assert len(label_data(markup)["items"]) == 1
    view = section_of(markup)
    assert "4 more judged turns of final_response_match_v2" in view and "2 more judged turns of safety_v1" in view


def test_rubric_metrics_are_said_to_be_labelled_by_hand() -> None:
    doc = document([judged_case("x", [1.0]), judged_case("y", [1.0], metric_name="rubric_based_tool_use_quality_v1")])
    markup = page.render(doc)
    assert [item["metric"] for item in label_data(markup)["items"]] == [V2]
    assert "Rubric metrics (rubric_based_tool_use_quality_v1) are labelled by hand" in section_of(markup)


@pytest.mark.slow  # the report command, through every output
def test_secrets_are_masked_in_the_labels_the_written_page_suggests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``report`` masks the document before any output is rendered, the labels the page suggests included."""
    monkeypatch.chdir(tmp_path)
    for name in ("GITHUB_ACTIONS", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_EVENT_PATH", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PAYMENTS_API_KEY", SECRET)
    doc = document([judged_case("x", [0.0], answers=[f"the key is {SECRET}"])])
    (tmp_path / "results.json").write_text(doc.model_dump_json(), encoding="utf-8")
    main(["report", "results.json"])
    markup = (tmp_path / "adk-eval-results" / "report.html").read_text(encoding="utf-8")
    [item] = label_data(markup)["items"]
    assert SECRET not in markup and item["answer"] == "the key is ***"
    assert item["entry"]["invocation"]["final_response"]["parts"][0]["text"] == "the key is ***"


def test_an_old_results_file_with_turns_that_are_no_invocation_still_renders() -> None:
    doc: ResultsDocument = document([judged_case("x", [1.0, 1.0])])
    [case_result] = doc.cases
    [run] = case_result.runs
    broken = InvocationRecord(user="q", expected={"not": "an invocation"}, actual={"final_response": 3})
    bad = run.model_copy(update={"invocations": [broken, run.invocations[1]]})
    doc = doc.model_copy(update={"cases": [case_result.model_copy(update={"runs": [bad]})]})
    assert len(label_data(page.render(doc))["items"]) == 1


def test_a_turn_without_the_expected_answer_its_metric_reads_is_not_suggested() -> None:
    """A final_response_match_v2 label needs the expected turn (the loader refuses one without it), so a turn that
    kept none (a scenario's turn) is not suggested; a metric that reads no reference still is."""

    def unexpected(name: str, metric_name: str) -> CaseResult:
        answer = {"role": "model", "parts": [{"text": "Sunny."}]}
        actual = {"user_content": {"role": "user", "parts": [{"text": "Weather?"}]}, "final_response": answer}
        built = case(
            name, [metric(metric_name, 1.0, kind="judge")], turns=[InvocationRecord(user="Weather?", actual=actual)]
        )
        [run] = built.runs
        scored = [m.model_copy(update={"invocation_scores": [1.0]}) for m in run.metrics]
        return built.model_copy(update={"runs": [run.model_copy(update={"metrics": scored})]})

    doc = document([unexpected("x", V2), judged_case("z", [0.0]), unexpected("y", "safety_v1")])
    labels = suggested_labels(doc).labels
    assert [(label.metric, label.label, label.case) for label in labels] == [
        (V2, "invalid", "agents/weather/weather.evalset.json::z"),
        ("safety_v1", "valid", "agents/weather/weather.evalset.json::y"),
    ]
    assert labels[1].expected_invocation is None
