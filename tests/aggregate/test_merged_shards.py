"""``--shard I/N`` then ``merge`` gives the results.json of an unsharded run (a matrix over many machines)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from adk_eval_gate.aggregate.merged_shards import merge_documents, shard_problem
from adk_eval_gate.cli import main
from adk_eval_gate.config.shard import Shard
from adk_eval_gate.model.results import (
    CalibrationJudgeStats,
    ModelUsage,
    ResultsDocument,
    SequentialRun,
    SuiteUsage,
    UsageTotals,
)
from tests.report.builders import case, document, metric
from tests.runners.scripted import turn, write_agent, write_config, write_evalset
from tests.verdict.test_judge_gate import calibration

REPO = Path(__file__).resolve().parents[2]
RUN_TIMING = ("started_at", "duration_seconds", "shard", "shards_merged")


def _gate(*args: str) -> int:
    return main(list(args))


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _suite(root: Path) -> None:
    shutil.copytree(REPO / "examples" / "weather_agent", root / "weather_agent")
    write_agent(root / "bot")
    write_config(root / "bot", {"response_match_score": 0.8})
    cases = {f"city_{i}": [turn(f"weather City{i}", answer=f"It is sunny in City{i}.")] for i in range(9)}
    cases["echo_fails"] = [turn("hello", answer="something else entirely")]
    write_evalset(root / "bot" / "many.evalset.json", cases)


def test_shards_split_every_case_exactly_once() -> None:
    ids = [f"file.json::case_{i}" for i in range(200)]
    owners = [[shard for shard in range(1, 5) if Shard(shard, 4).owns(case)] for case in ids]
    assert all(len(owner) == 1 for owner in owners)
    assert all(sum(1 for owner in owners if owner == [shard]) > 25 for shard in range(1, 5))


@pytest.mark.slow
def test_merged_shards_equal_the_unsharded_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    for name in ("GITHUB_ACTIONS", "GITHUB_WORKSPACE", "GITHUB_EVENT_PATH"):
        monkeypatch.delenv(name, raising=False)
    _suite(tmp_path)
    # One real run of the agents; its answers are then replayed so every later run sees the same invocations.
    assert _gate("run", ".", "--output-dir", "live") == 1
    recorded = ["--runner", "recorded", "--recorded", "live/results.json"]
    assert _gate("run", ".", *recorded, "--output-dir", "whole") == 1
    for index in (1, 2, 3):
        _gate("run", ".", *recorded, "--shard", f"{index}/3", "--output-dir", f"shard{index}")
    shard_docs = [_load(tmp_path / f"shard{index}" / "results.json") for index in (1, 2, 3)]
    assert all(doc["cases"] for doc in shard_docs)  # each shard got some of the 14 cases
    assert sorted(case["id"] for doc in shard_docs for case in doc["cases"]) == sorted(
        case["id"] for case in _load(tmp_path / "whole" / "results.json")["cases"]
    )
    assert _gate("merge", "shard1", "shard2", "shard3", "--results", "merged.json") == 0
    capsys.readouterr()

    whole = _load(tmp_path / "whole" / "results.json")
    merged = _load(tmp_path / "merged.json")
    live = _load(tmp_path / "live" / "results.json")
    assert merged["run"]["shards_merged"] == 3
    for key in ("cases", "totals", "metrics", "status", "files"):
        assert merged[key] == whole[key], key
    assert {k: v for k, v in merged["run"].items() if k not in RUN_TIMING} == {
        k: v for k, v in whole["run"].items() if k not in RUN_TIMING
    }
    assert whole["totals"] == live["totals"] and whole["totals"]["cases"] == 14 and whole["totals"]["failed"] == 2
    live_scores = {c["id"]: [m["score"] for m in c["metrics"]] for c in live["cases"]}
    assert {c["id"]: [m["score"] for m in c["metrics"]] for c in merged["cases"]} == live_scores

    assert _gate("merge", "shard1", "shard3", "--results", "partial.json") == 2
    assert "shard 2/3 missing: 2 of 3 given" in capsys.readouterr().out
    assert not (tmp_path / "partial.json").exists()
    assert _gate("merge", "shard1", "shard2", "shard3", "shard1/results.json", "--output-dir", "out") == 2
    assert "shard 1/3 is given twice" in capsys.readouterr().out
    assert _gate("merge", "shard1", "shard2", "--allow-incomplete", "--output-dir", "out") == 2
    incomplete = _load(tmp_path / "out" / "results.json")
    assert incomplete["status"] == "error" and incomplete["error"].startswith("incomplete merge: shard 3/3 missing")


def _shard_doc(shard: str | None, *, selection: str = "s1", sha: str = "abc", city: str = "paris") -> ResultsDocument:
    doc = document([case(city, [metric("response_match_score", 0.9)])])
    return doc.model_copy(
        update={"run": doc.run.model_copy(update={"shard": shard, "selection": selection, "sha": sha})}
    )


@pytest.mark.parametrize(
    ("shards", "problem"),
    [
        ([("a", "1/2"), ("b", "2/2")], None),
        ([("a", None)], None),
        ([("a", "1/2")], "shard 2/2 missing: 1 of 2 given"),
        ([("a", "1/3"), ("b", "1/3"), ("c", "2/3")], "shard 1/3 is given twice: a and b"),
        ([("a", "1/2"), ("b", "1/3")], "the shards are of different counts (2, 3)"),
        ([("a", "1/2"), ("b", None)], "b is not a shard"),
        ([("a", "1/2"), ("b", "two/2")], "b has a run.shard that is not I/N: 'two/2'"),
    ],
)
def test_the_shards_of_one_run_are_all_there_once(shards: list[tuple[str, str | None]], problem: str | None) -> None:
    found = shard_problem([(shown, _shard_doc(shard)) for shown, shard in shards])
    assert (found or "").startswith(problem or "") and bool(found) == bool(problem)


def test_shards_of_another_selection_or_commit_are_refused() -> None:
    first = ("a", _shard_doc("1/2"))
    assert shard_problem([first, ("b", _shard_doc("2/2", selection="s2"))]) == (
        "b is from another selection of cases and criteria than a"
    )
    assert shard_problem([first, ("b", _shard_doc("2/2", sha="def"))]) == "b is from another commit than a"


def test_shards_run_with_other_sequential_settings_are_refused() -> None:
    settings = SequentialRun(confidence=0.95, margin=0.1, min_runs=2, max_runs=10, undecided="point")
    first = _shard_doc("1/2")
    first = first.model_copy(update={"run": first.run.model_copy(update={"sequential": settings})})
    other = _shard_doc("2/2")
    other = other.model_copy(
        update={"run": other.run.model_copy(update={"sequential": settings.model_copy(update={"margin": 0.2})})}
    )
    assert shard_problem([("a", first), ("b", other)]) == "b was run with other --sequential settings than a"
    assert (
        shard_problem(
            [("a", first), ("b", other.model_copy(update={"run": first.run.model_copy(update={"shard": "2/2"})}))]
        )
        is None
    )


def test_merged_shards_keep_each_judge_calibration_once_and_add_up_what_calibrating_cost() -> None:
    def calibrated(shard: str, calls: int) -> ResultsDocument:
        doc = _shard_doc(shard, city=shard[0])
        spent = UsageTotals(models=[ModelUsage(model="gemini-2.5-flash", calls=calls, input_tokens=10 * calls)])
        return doc.model_copy(
            update={
                "calibrations": [calibration()],
                "calibration_judge": CalibrationJudgeStats(calls=calls, calibrated=1),
                "usage": SuiteUsage(calibration=spent),
            }
        )

    merged = merge_documents([calibrated("1/2", 64), calibrated("2/2", 0)])
    assert merged.calibrations == [calibration()]
    assert merged.calibration_judge is not None
    assert (merged.calibration_judge.calls, merged.calibration_judge.calibrated) == (64, 2)
    assert merged.usage is not None and merged.usage.calibration is not None
    assert (merged.usage.calibration.calls, merged.usage.calibration.input_tokens) == (64, 640)
    unlabelled = merge_documents([_shard_doc("1/2", city="a"), _shard_doc("2/2", city="b")])
    assert (unlabelled.calibrations, unlabelled.calibration_judge) == ([], None)
