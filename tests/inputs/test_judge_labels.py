"""Human labels of LLM judges (``*.labels.json``): loaded and checked with the file, line and field of each problem."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from adk_eval_gate.commands.validate import validate
from adk_eval_gate.config.settings import build_settings
from adk_eval_gate.inputs.labels_files import MAX_LABELS_BYTES, is_labels_file, load_labels
from adk_eval_gate.model.judge_labels import json_schema
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import EvalFileError

REPO = Path(__file__).resolve().parents[2]


def turn(question: str, answer: str) -> dict[str, Any]:
    return {
        "user_content": {"role": "user", "parts": [{"text": question}]},
        "final_response": {"role": "model", "parts": [{"text": answer}]},
    }


def label(answer: str, verdict: Any = "valid", **extra: Any) -> dict[str, Any]:
    return {
        "metric": "final_response_match_v2",
        "invocation": turn("What is 2+2?", answer),
        "expected_invocation": turn("What is 2+2?", "4"),
        "label": verdict,
        **extra,
    }


def write(path: Path, labels: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"labels": labels}, indent=2))
    return path


def problems(path: Path) -> list[str]:
    with pytest.raises(EvalFileError) as raised:
        load_labels(path, display=path.name)
    return [problem.one_line() for problem in raised.value.every_problem()]


def test_labels_load_with_their_lines_and_values(tmp_path: Path) -> None:
    path = write(tmp_path / "a.labels.json", [label("4"), label("5", "invalid", confirmed=False, labeller="ana")])
    loaded = load_labels(path, display="a.labels.json")
    assert [item.value for item in loaded.labels] == [1.0, 0.0]
    assert loaded.lines == [3, 43]
    assert [item.value for item, _ in loaded.confirmed] == [1.0]
    assert is_labels_file(path) and not is_labels_file(tmp_path / "a.evalset.json")


def test_camel_case_invocations_are_adks_shape_too(tmp_path: Path) -> None:
    camel = label("4")
    camel["invocation"] = {"userContent": camel["invocation"]["user_content"], "finalResponse": None}
    assert (
        load_labels(write(tmp_path / "c.labels.json", [camel]), display="c").labels[0].invocation.final_response is None
    )


@pytest.mark.slow  # the labels' JSON schema built and checked against the committed one
def test_the_committed_schema_is_current_and_accepts_a_labels_file() -> None:
    committed = json.loads((REPO / "schema" / "judge-labels.schema.json").read_text())
    assert committed == json_schema(), (
        "regenerate schema/judge-labels.schema.json from adk_eval_gate.model.judge_labels.json_schema()"
    )
    jsonschema.validate({"labels": [label("4"), label("3", 0.0)]}, committed)


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        (label("4", "maybe"), "a.labels.json:41: labels[0].label: Input should be"),
        ({**label("4"), "metric": "final_response_match_v3"}, "did you mean 'final_response_match_v2'?"),
        ({**label("4"), "metric": "response_match_score"}, "is not scored by an LLM judge"),
        (
            {**label("4"), "metric": "response_evaluation_score", "label": 7},
            "7 is off response_evaluation_score's scale",
        ),
        ({**label("4"), "metric": "response_evaluation_score"}, "give a number, not 'valid'"),
        ({**label("4"), "label": 1.5}, "1.5 is off final_response_match_v2's scale, 0 to 1"),
        ({**label("4"), "metric": "rubric_based_final_response_quality_v1"}, "labels[0].rubric: "),
        ({k: v for k, v in label("4").items() if k != "expected_invocation"}, "labels[0].expected_invocation"),
        ({**label("4"), "colour": "red"}, "labels[0].colour"),
    ],
)
def test_a_bad_label_names_the_file_line_and_field(tmp_path: Path, entry: dict[str, Any], said: str) -> None:
    found = problems(write(tmp_path / "a.labels.json", [entry]))
    assert said in found[0] and found[0].startswith("a.labels.json:"), found


def test_every_problem_of_a_file_is_reported(tmp_path: Path) -> None:
    found = problems(write(tmp_path / "a.labels.json", [label("4", 2), label("5"), label("6", 3)]))
    assert len(found) == 2 and ":41:" in found[0] and "labels[2]" in found[1]


def test_duplicates_that_disagree_are_an_error_and_those_that_agree_are_not(tmp_path: Path) -> None:
    agreeing = write(tmp_path / "ok.labels.json", [label("4"), label("4")])
    assert len(load_labels(agreeing, display="ok").labels) == 2
    found = problems(write(tmp_path / "a.labels.json", [label("4"), label("4", "invalid")]))
    assert "disagrees with the label of the same invocation at line 3" in found[0]
    unconfirmed = write(tmp_path / "u.labels.json", [label("4"), label("4", "invalid", confirmed=False)])
    assert len(load_labels(unconfirmed, display="u").labels) == 2  # a suggestion is not a person's label


def test_a_metric_of_another_name_may_be_an_agents_cli_judge(tmp_path: Path) -> None:
    path = write(tmp_path / "a.labels.json", [{**label("4"), "metric": "answer_quality", "label": 4}])
    assert load_labels(path, display="a").labels[0].value == 4.0


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"\xff\xfe{", "is not UTF-8 (byte 0xff at offset 0)"),
        (b'{"labels": [' + b"[" * 500 + b"]" * 500 + b"]}", "nested more than 120 levels deep"),
        (b'{"labels": [NaN]}', "cannot be used"),
        (b'{"labels": [}', "invalid JSON"),
        (b"[1, 2]", "is not a labels file"),
    ],
)
def test_hostile_content_is_one_line(tmp_path: Path, content: bytes, said: str) -> None:
    path = tmp_path / "h.labels.json"
    path.write_bytes(content)
    assert said in problems(path)[0]


def test_a_huge_file_or_a_fifo_is_not_read(tmp_path: Path) -> None:
    huge = tmp_path / "huge.labels.json"
    with huge.open("wb") as handle:
        handle.truncate(MAX_LABELS_BYTES + 1)
    assert "more than the" in problems(huge)[0]
    fifo = tmp_path / "pipe.labels.json"
    os.mkfifo(fifo)
    assert "is a FIFO, not a regular file" in problems(fifo)[0]


def test_nul_and_markup_in_texts_are_kept_as_text(tmp_path: Path) -> None:
    path = write(tmp_path / "a.labels.json", [label("<script>alert(1)</script>\x00")])
    loaded = load_labels(path, display="a")
    assert loaded.labels[0].invocation.final_response is not None


def test_validate_checks_every_labels_file_with_the_same_line_level_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.5}}))
    good = {"eval_set_id": "good", "eval_cases": [{"eval_id": "a", "conversation": []}]}
    (tmp_path / "good.evalset.json").write_text(json.dumps(good))
    write(tmp_path / "ok.labels.json", [label("4"), label("5", "invalid", confirmed=False)])
    write(tmp_path / "bad.labels.json", [{**label("4"), "metric": "final_response_match_v3"}])
    out = io.StringIO()
    code = validate(
        build_settings("validate", {"paths": ["."], "runner": "http"}, env={}), Console(in_actions=False, stream=out)
    )
    text = out.getvalue()
    assert code == 2
    assert "ok   ok.labels.json: 2 labels (1 confirmed) of 1 judge metric" in text
    assert "bad.labels.json:4: labels[0].metric: unknown metric 'final_response_match_v3'" in text
    assert "1 of 3 files have problems" in text


def test_a_link_out_of_the_repository_is_not_followed(tmp_path: Path) -> None:
    outside = write(tmp_path / "outside.labels.json", [label("4")])
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "link.labels.json").symlink_to(outside)
    with pytest.raises(EvalFileError, match="symbolic link to a file outside the repository"):
        load_labels(repo / "link.labels.json", display="link.labels.json", root=repo)
