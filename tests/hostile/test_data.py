"""No data can crash the run after the agents finished, and one bad file never stops the others.

A lone surrogate in agent output, an eval file or an HTTP answer is written by every report writer; tool-call
arguments 300 deep are cut with a note; a baseline 5,000 deep or with a NaN (which would compare false with every
score and hide regressions) is refused with a warning; a symbolic link loop or a FIFO named like an eval file is
an error of that file, and the others run; ``--num-runs 100000000`` is a usage error, not a plan that runs out of
memory.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from adk_eval_gate.model.results import ResultsDocument
from adk_eval_gate.support import sanitize
from tests import turns
from tests.fakes.github_server import FakeGitHub
from tests.github.flows import EXAMPLE, artifact_zip, pull_request_env, run_step
from tests.hostile.agents import HOSTILE_AGENT
from tests.runners.conftest import RunGate
from tests.runners.fault_server import fault_server
from tests.runners.scripted import turn, write_agent, write_config, write_evalset

pytestmark = pytest.mark.slow  # hostile data run end to end


def _reports_are_utf8(out: Path) -> None:
    for name in ("junit.xml", "summary.md"):  # (run_gate has read results.json already)
        (out / name).read_bytes().decode("utf-8")  # raises on an unpaired surrogate


def _hostile_repo(repo: Path, cases: dict[str, list[dict[str, Any]]]) -> None:
    write_agent(repo / "bot", HOSTILE_AGENT)
    write_config(repo / "bot", {"response_match_score": 0.5})
    write_evalset(repo / "bot" / "hostile.evalset.json", cases)


def test_a_lone_surrogate_in_agent_output_is_replaced(run_gate: RunGate, tmp_repo: Path) -> None:
    _hostile_repo(tmp_repo, {"surrogate": [turn("surrogate", answer="done")]})
    result = run_gate("bot")
    assert result.code == 1  # the answer is wrong, and that is all
    _reports_are_utf8(tmp_repo / "out")
    run = result.case("surrogate")["runs"][0]
    assert "bad \ufffd text" in turns.actual(run["invocations"][0])["final_response"]["parts"][0]["text"]
    assert any("replaced with U+FFFD" in note for note in run["notes"])


def test_a_lone_surrogate_in_an_eval_file_is_replaced(run_gate: RunGate, tmp_repo: Path) -> None:
    _hostile_repo(tmp_repo, {})
    path = tmp_repo / "bot" / "hostile.evalset.json"
    case = {"eval_id": "surrogate", "conversation": [turn("hi", answer="echo: hi")]}
    text = json.dumps({"eval_set_id": "hostile", "eval_cases": [case]}).replace("echo: hi", "echo: hi \\ud800")
    path.write_text(text.replace('"text": "hi"', '"text": "hi \\udfff"'), encoding="utf-8")
    result = run_gate("bot")
    assert result.code == 0, result.out
    _reports_are_utf8(tmp_repo / "out")


def test_a_lone_surrogate_from_the_http_runner_is_replaced(run_gate: RunGate, tmp_repo: Path) -> None:
    expected = turn(
        "surrogate", answer="ok: broken \ufffd text", tools=[{"name": "lookup", "args": {"q": "broken \ufffd text"}}]
    )
    write_evalset(tmp_repo / "http.evalset.json", {"surrogate": [expected]})
    with fault_server() as server:
        result = run_gate("http.evalset.json", "--runner", "http", "--agent-url", server.url)
    assert result.code == 0, result.out
    _reports_are_utf8(tmp_repo / "out")


def test_arguments_nested_300_deep_in_agent_output_are_cut_with_a_note(run_gate: RunGate, tmp_repo: Path) -> None:
    _hostile_repo(tmp_repo, {"deep": [turn("deep 300", answer="done")]})
    result = run_gate("bot")
    assert result.code == 0, result.out
    [note] = result.case("deep")["runs"][0]["notes"]
    assert f"nested more than {sanitize.MAX_VALUE_DEPTH} levels deep" in note
    assert sanitize.CUT_MARK in json.dumps(result.doc, ensure_ascii=False)
    assert "nested more than" in (tmp_repo / "out" / "junit.xml").read_text(encoding="utf-8")


def _nested(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = {"down": value}
    return value


def test_an_eval_file_nested_900_deep_is_an_error_entry_and_the_others_run(run_gate: RunGate, tmp_repo: Path) -> None:
    _hostile_repo(tmp_repo, {"fine": [turn("hello", answer="echo: hello")]})
    deep = turn("hello", answer="echo: hello", tools=[{"name": "t", "args": _nested(900)}])
    write_evalset(tmp_repo / "bot" / "deep.evalset.json", {"deep": [deep]})
    result = run_gate("bot")
    assert result.code == 2  # a file could not be used
    assert result.doc is not None
    [broken] = [f for f in result.doc["files"] if f["error"]]
    assert broken["path"] == "bot/deep.evalset.json" and "nested more than" in broken["error"]
    assert result.case("fine")["status"] == "passed"


def test_an_eval_file_with_1e400_is_an_error_entry_naming_its_line_and_the_others_run(
    run_gate: RunGate, tmp_repo: Path
) -> None:
    _hostile_repo(tmp_repo, {"fine": [turn("hello", answer="echo: hello")]})
    huge = write_evalset(tmp_repo / "bot" / "huge.evalset.json", {"huge": [turn("hello")]}, huge={"created": 0})
    huge.write_text(huge.read_text(encoding="utf-8").replace('"created": 0', '\n"creation_timestamp": 1e400'), "utf-8")
    result = run_gate("bot")
    assert result.code == 2 and result.doc is not None  # a file could not be used
    [broken] = [f for f in result.doc["files"] if f["error"]]
    assert broken["path"] == "bot/huge.evalset.json" and "1e400 is too large for a number" in broken["error"]
    assert "bot/huge.evalset.json:2" in result.out
    assert result.case("fine")["status"] == "passed"


def test_symbolic_link_loops_fifos_and_links_out_of_the_repository_are_error_entries(
    run_gate: RunGate, tmp_repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_repo / "evals"
    folder.mkdir()
    write_config(folder, {"tool_trajectory_avg_score": 1.0})
    recorded = tmp_repo / "recorded.json"
    outside = tmp_path_factory.mktemp("outside") / "secret.evalset.json"
    outside.write_text("{}", encoding="utf-8")
    (folder / "loop.evalset.json").symlink_to("loop.evalset.json")
    (folder / "dangling.evalset.json").symlink_to("missing.json")
    (folder / "outside.evalset.json").symlink_to(outside)
    os.mkfifo(folder / "fifo.evalset.json")
    write_evalset(folder / "fine.evalset.json", {"fine": [turn("hi", tools=[])]})
    recorded.write_text(json.dumps(_recording()), encoding="utf-8")
    result = run_gate("evals", "--runner", "recorded", "--recorded", str(recorded))
    assert result.code == 2 and result.doc is not None
    errors = {f["path"]: f["error"] for f in result.doc["files"] if f["error"]}
    assert "loops back on itself" in errors["evals/loop.evalset.json"]
    assert "does not exist" in errors["evals/dangling.evalset.json"]
    assert "outside the repository" in errors["evals/outside.evalset.json"]
    assert "FIFO" in errors["evals/fifo.evalset.json"]
    assert result.case("fine")["status"] == "passed"
    assert "internal error" not in result.out


def _recording() -> dict[str, Any]:
    """An ADK result file with one empty turn for evals/fine.evalset.json's case."""
    invocation = {"invocation_id": "i", "user_content": {"role": "user", "parts": [{"text": "hi"}]}}
    return {
        "eval_set_result_id": "r",
        "eval_set_id": "fine",
        "eval_case_results": [
            {
                "eval_set_id": "fine",
                "eval_id": "fine",
                "final_eval_status": 1,
                "overall_eval_metric_results": [],
                "eval_metric_result_per_invocation": [{"actual_invocation": invocation}],
                "session_id": "s",
            }
        ],
    }


@pytest.mark.parametrize(
    ("flag", "value"), [("--num-runs", "100000000"), ("--parallelism", "100000000"), ("--workers", "100000")]
)
def test_huge_counts_are_usage_errors(run_gate: RunGate, tmp_repo: Path, flag: str, value: str) -> None:
    write_evalset(tmp_repo / "x.evalset.json", {"c": [turn("hi")]})
    result = run_gate("x.evalset.json", flag, value)
    assert result.code == 2
    assert f"{flag} must be at most" in result.out


def _deep_json(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


def test_a_baseline_nested_5000_deep_or_with_nan_or_1e400_is_refused_with_a_warning(
    run_gate: RunGate, tmp_repo: Path, example_results: Path
) -> None:
    doc = json.loads(example_results.read_text(encoding="utf-8"))
    doc["cases"][0]["metrics"][0]["score"] = float("nan")
    (tmp_repo / "nan.json").write_text(json.dumps(doc), encoding="utf-8")  # json writes NaN
    (tmp_repo / "deep.json").write_text(_deep_json(5000), encoding="utf-8")
    doc["cases"][0]["metrics"][0]["score"] = 1.0
    (tmp_repo / "huge.json").write_text(json.dumps(doc).replace('"score": 1.0', '"score": -1e400', 1), "utf-8")
    for baseline, problem in (
        ("deep.json", "nested more than"),
        ("nan.json", "NaN is not a JSON number"),
        ("huge.json", "-1e400 is too large for a number"),
    ):
        result = run_gate(
            str(Path(__file__).resolve().parents[2] / EXAMPLE),
            "--runner",
            "recorded",
            "--recorded",
            str(example_results),
            "--baseline",
            str(tmp_repo / baseline),
        )
        assert result.code == 1, result.out  # the example fails one case on purpose; nothing else went wrong
        assert "baseline not used" in result.out and problem in result.out
        assert result.doc is not None and result.doc["comparison"] is None
        assert "nan" not in (tmp_repo / "out" / "summary.md").read_text(encoding="utf-8").split()


def test_a_5000_deep_base_branch_artifact_is_refused_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub, example_results: Path
) -> None:
    base = ResultsDocument.model_validate_json(example_results.read_text(encoding="utf-8"))
    fake_github.add_workflow_run(artifacts=[("adk-eval-results", artifact_zip(base))])
    fake_github.artifacts[max(fake_github.artifacts)].data = _zip_with(_deep_json_varied(5000))
    args = ["run", EXAMPLE, "--runner", "recorded", "--recorded", str(example_results)]
    step = run_step(
        monkeypatch,
        [*args, "--output-dir", str(tmp_path / "out")],
        pull_request_env(tmp_path, fake_github, run_id=3),
        tmp_path,
    )
    assert step.code == 1, step.stdout
    assert "baseline not used" in step.stdout and "nested more than" in step.stdout
    [comment] = fake_github.comments_on(7)
    assert "No comparison" in comment.body


def _deep_json_varied(depth: int) -> str:
    """Nested ``depth`` deep with random keys, so it does not compress like a zip bomb."""
    import random

    keys = random.Random(9).choices("abcdefghijklmnopqrstuvwxyz0123456789", k=depth * 8)
    opening = "".join('{"' + "".join(keys[i * 8 : i * 8 + 8]) + '":' for i in range(depth))
    return opening + "1" + "}" * depth


def _zip_with(results_text: str) -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("results.json", results_text)
    return buffer.getvalue()


def test_a_renderer_that_fails_leaves_an_error_verdict_and_the_other_reports(
    run_gate: RunGate, tmp_repo: Path, example_results: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from adk_eval_gate.report import junit

    def broken(doc: Any) -> str:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(junit, "render", broken)
    result = run_gate(
        str(Path(__file__).resolve().parents[2] / EXAMPLE), "--runner", "recorded", "--recorded", str(example_results)
    )
    assert result.code == 1
    assert result.doc is not None and result.doc["status"] == "error"
    assert "junit.xml could not be written" in result.doc["error"]
    assert "junit.xml could not be written" in (tmp_repo / "out" / "summary.md").read_text(encoding="utf-8")
    assert not (tmp_repo / "out" / "junit.xml").exists()


def test_untrusted_json_is_bounded_and_cleaned() -> None:
    assert sanitize.loads('{"a": "x \\ud800 y"}') == {"a": "x \ufffd y"}
    overflowing = ("[1e400]", '{"a": -1E+309}', "[" + "9" * 400 + "]", "[-" + "9" * 400 + "]")
    for text in ("[NaN]", '{"a": Infinity}', "[-Infinity]", _deep_json(5000), _deep_json(300), *overflowing):
        with pytest.raises(sanitize.UnsafeJson):
            sanitize.loads(text)
    assert sanitize.loads('["NaN", "Infinity"]') == ["NaN", "Infinity"]
    assert sanitize.loads('["1e400", 1.7976931348623157e308, -1e-400, 123456789012345678901234567890]') == [
        "1e400",
        1.7976931348623157e308,
        -0.0,
        123456789012345678901234567890,
    ]
    with pytest.raises(sanitize.UnsafeJson, match=r"^1e999 is too large for a number") as raised:
        sanitize.loads('{"s": "1e999 in a string",\n "n": 1e999}')
    assert raised.value.line == 2
    cut, was_cut = sanitize.bounded(_nested(150))
    assert was_cut and json.dumps(cut).count("down") == sanitize.MAX_VALUE_DEPTH
    clean = {"a": [1, "b", {"c": None}]}
    assert sanitize.bounded(clean) == (clean, False) and sanitize.bounded(clean)[0] is clean


def test_a_fifo_passed_explicitly_does_not_block(run_gate: RunGate, tmp_repo: Path) -> None:
    os.mkfifo(tmp_repo / "pipe.evalset.json")
    done = threading.Event()
    outcome: dict[str, Any] = {}

    def run() -> None:
        outcome["result"] = run_gate("pipe.evalset.json", "--runner", "recorded", "--recorded", "nothing.json")
        done.set()

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    assert done.wait(30), "reading the FIFO blocked the run"
