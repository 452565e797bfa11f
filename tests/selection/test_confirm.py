"""confirm: which cases run again under --confirm-failures, and their work items."""

from __future__ import annotations

from pathlib import Path

from adk_eval_gate.compare.changes import compare
from adk_eval_gate.inputs.load import LoadedEvalSet
from adk_eval_gate.inputs.plan import PlannedFile, WorkItem
from adk_eval_gate.model.evalset import EvalCase, EvalSet
from adk_eval_gate.selection import confirm
from tests.report.builders import baseline_info, case, document, metric


def test_failed_and_regressed_cases_are_picked_errors_and_quarantined_ones_are_not() -> None:
    base = document([case("drops", [metric("m", 0.95)]), case("steady", [metric("m", 0.9)])])
    cases = [
        case("fails", [metric("m", 0.2)]),
        case("drops", [metric("m", 0.85)]),  # passes its threshold, but lower than on the base branch
        case("steady", [metric("m", 0.9)]),
        case("broken", [], error="ValueError"),
        case("unjudged", [metric("m", None, reason="no key")]),
        case("quarantined", [metric("m", 0.1)]).model_copy(update={"quarantined": True}),
    ]
    comparison = compare(document(cases), base, baseline=baseline_info())
    picked = confirm.chosen(cases, comparison)
    assert {case_id.split("::")[1]: (c.reason, c.first_status) for case_id, c in picked.items()} == {
        "fails": ("failed", "failed"),
        "drops": ("regressed", "passed"),
    }
    assert set(confirm.chosen(cases, None)) == {cases[0].id}  # without a baseline: the failures only


def test_drops_within_noise_or_not_comparable_are_not_re_run() -> None:
    base = document([case("noisy", [metric("m", [0.9, 0.6, 1.0], threshold=0.5)])])
    head = [case("noisy", [metric("m", [0.8, 0.9, 0.7], threshold=0.5)])]
    comparison = compare(document(head), base, baseline=baseline_info())
    assert comparison.changes[0].significance == "noise"
    assert confirm.chosen(head, comparison) == {}


def test_re_runs_are_numbered_after_the_first_runs_and_marked() -> None:
    eval_set = EvalSet(
        eval_set_id="s", eval_cases=[EvalCase(eval_id="a", conversation=[]), EvalCase(eval_id="b", conversation=[])]
    )
    loaded = LoadedEvalSet(Path("a.evalset.json"), "a.evalset.json", eval_set, "evalset")
    planned = PlannedFile(loaded, config=None, case_ids=())  # type: ignore[arg-type]
    items = [WorkItem(planned, c, i, run) for i, c in enumerate(eval_set.eval_cases) for run in (1, 2)]
    picked = confirm.chosen([case("a", [metric("m", 0.1)], file=planned.loaded.display)], None)
    more = confirm.rerun_items(items, picked, extra_runs=3)
    assert [(item.case.eval_id, item.run, item.confirmation) for item in more] == [
        ("a", 3, True),
        ("a", 4, True),
        ("a", 5, True),
    ]
    assert next(iter(picked.values())).extra_runs == 3


def test_with_strict_comparison_drops_of_metrics_scored_differently_are_re_run_too() -> None:
    from adk_eval_gate.model.results import JudgeSetting

    def judged(model: str, score: float):  # type: ignore[no-untyped-def]
        built = document([case("judged", [metric("j", score, kind="judge")])])
        run = built.run.model_copy(update={"judges": {"j": JudgeSetting(model=model, sampling="1 sample")}})
        return built.model_copy(update={"run": run})

    head = judged("gemini-2.5-pro", 0.85)
    comparison = compare(head, judged("gemini-2.5-flash", 0.95), baseline=baseline_info())
    assert confirm.chosen(head.cases, comparison) == {}  # not comparable: not a regression, nothing to confirm
    assert [c.reason for c in confirm.chosen(head.cases, comparison, strict=True).values()] == ["regressed"]
