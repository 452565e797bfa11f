"""results.json is written a case at a time (``json_parts``), byte for byte the text of ``dump_json``; a case that
cannot be written leaves a results.json with the error and no cases, never half of one."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from adk_eval_gate.aggregate import records as aggregate
from adk_eval_gate.config.settings import build_settings
from adk_eval_gate.finish.written import write_decided_reports
from adk_eval_gate.model.results import CaseInputs, dump_json, json_parts, parse_cases, parse_document
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import UsageError
from tests.conftest import validate_results
from tests.report.builders import FILE, case, document, metric
from tests.report.scenarios import SCENARIOS


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_parts_are_the_text_a_case_each(name: str) -> None:
    doc = SCENARIOS[name]()
    parts = list(json_parts(doc))
    assert "".join(parts) == dump_json(doc)
    assert len(parts) == len(doc.cases) + 2


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_what_is_left_out_reads_back(name: str) -> None:
    doc = SCENARIOS[name]()
    assert parse_document(json.loads(dump_json(doc)), shown=name) == doc


def test_run_scores_that_are_not_the_runs_own_are_written() -> None:
    doc = document([case("paris", [metric("m", [0.9, 0.7])])])
    doc.cases[0].metrics[0].run_scores = [0.9, 0.1]  # not what the runs say: kept as it is
    doc.cases[0].metrics[0].passed_runs = 0
    text = dump_json(doc)
    assert '"run_scores":[0.9,0.1]' in text and '"passed_runs":0' not in text  # 0 is the default
    read = parse_document(json.loads(text), shown="r")
    assert read.cases[0].metrics[0].run_scores == [0.9, 0.1]
    assert read.cases[0].metrics[0].passed_runs == 1  # a figure left out is the runs' own: run 1 passed


def test_no_cases() -> None:
    doc = document([])
    assert json.loads(dump_json(doc))["cases"] == [] and '"cases":[\n\n]' in dump_json(doc)


def test_a_case_that_cannot_be_written_leaves_the_error_alone(tmp_path: Path) -> None:
    doc = document([case(name, [metric("m", 0.9)]) for name in ("paris", "rome", "tokyo", "lima")])
    doc.cases[2].runs[0].invocations[0].act = {"x": object()}  # what no serializer can write, after two cases
    settings = build_settings("run", {"output_dir": str(tmp_path / "out")}, env={})
    write_decided_reports(doc, settings=settings, console=Console(in_actions=False, stream=io.StringIO()), renderers={})
    written = json.loads(settings.results_path.read_text(encoding="utf-8"))
    validate_results(written)
    assert written["status"] == "error" and written["cases"] == []
    assert written["error"].startswith("results.json could not be written in full (PydanticSerializationError")


def test_an_output_that_cannot_be_written_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "out").write_text("a file where the folder should be", encoding="utf-8")
    settings = build_settings("run", {"output_dir": str(tmp_path / "out")}, env={})
    with pytest.raises(UsageError, match="cannot write"):
        write_decided_reports(document([]), settings=settings, console=Console(in_actions=False, stream=io.StringIO()))


def test_the_inputs_most_cases_of_a_file_share_are_written_once() -> None:
    shared = CaseInputs(files=["agents/weather/agent.py", FILE], settings="s1", observed=True)
    other = CaseInputs(files=["agents/weather/tools.py", FILE], settings="s1", observed=True)
    cases = [case(name, [metric("m", 0.9)]) for name in ("paris", "rome", "tokyo", "lima", "oslo")]
    inputs = [shared, shared, other, None, shared]
    cases = [
        one.model_copy(update={"inputs": given}) if given else one  # lima: never given any (an older base run's)
        for one, given in zip(cases, inputs, strict=True)
    ]
    built = document(cases)
    doc = built.model_copy(update={"files": aggregate.with_case_inputs(built.files, built.cases)})
    assert doc.files[0].case_inputs == shared
    assert aggregate.document(cases, built.files, built.run).cases[3].inputs is None  # made in memory: as it is
    text = dump_json(doc)
    assert text.count("agent.py") == 1 and text.count("tools.py") == 1 and text.count('"inputs":null') == 1
    read = parse_document(json.loads(text), shown="r")
    assert [one.inputs for one in read.cases] == inputs
    assert read == doc
    data = json.loads(text)
    _, each = parse_cases(data, data["cases"], shown="r")  # the recorded runner's way: a case at a time
    assert [one.inputs for one in each] == inputs


def test_a_file_without_case_inputs_leaves_every_case_as_it_is() -> None:
    doc = document([case("paris", [metric("m", 0.9)])])
    doc = doc.model_copy(update={"files": aggregate.with_case_inputs(doc.files, doc.cases)})
    assert doc.files[0].case_inputs is None
    assert '"inputs"' not in dump_json(doc) and parse_document(json.loads(dump_json(doc)), shown="r") == doc
