"""compare: regressions, improvements, new and removed, status flips, tolerance, and the noise check."""

from __future__ import annotations

from adk_eval_gate.compare.changes import compare
from adk_eval_gate.finish.against_baseline import decide_with_comparison
from adk_eval_gate.model.results import (
    BaselineInfo,
    CaseResult,
    Comparison,
    JudgeSetting,
    ResultsDocument,
    ServedAgent,
)
from adk_eval_gate.verdict import Policy
from tests.report.builders import baseline_info, case, document, metric


def changes(base: list[CaseResult], head: list[CaseResult], *, tolerance: float = 0.0) -> Comparison:
    return compare(document(head), document(base), baseline=baseline_info(), tolerance=tolerance)


def kinds(comparison: Comparison) -> list[tuple[str, str, str, str | None]]:
    return [(c.case_id.split("::")[1], c.metric, c.kind, c.significance) for c in comparison.changes]


def test_regressed_improved_unchanged_new_and_removed_metrics() -> None:
    base = [case("a", [metric("m", 0.9), metric("n", 0.5), metric("gone", 1.0), metric("same", 0.8)])]
    head = [case("a", [metric("m", 0.7), metric("n", 0.6), metric("added", 1.0), metric("same", 0.8)])]
    comparison = changes(base, head)
    assert kinds(comparison) == [
        ("a", "m", "regressed", "untested"),
        ("a", "n", "improved", "untested"),
        ("a", "added", "new", None),
        ("a", "gone", "removed", None),
    ]
    assert comparison.regressions == 1 and comparison.improvements == 1
    regressed = comparison.changes[0]
    assert regressed.base == 0.9 and regressed.head == 0.7 and regressed.delta == -0.2


def test_new_and_removed_cases_and_status_flips() -> None:
    base = [case("stays", [metric("m", 0.9)]), case("old", [metric("m", 0.9)]), case("fixed", [metric("m", 0.1)])]
    head = [case("stays", [metric("m", 0.1)]), case("fresh", [metric("m", 0.9)]), case("fixed", [metric("m", 0.9)])]
    comparison = changes(base, head)
    assert [(c.case_id.split("::")[1], c.kind, c.base_status, c.head_status) for c in comparison.cases] == [
        ("stays", "status", "passed", "failed"),
        ("fresh", "new", None, "passed"),
        ("fixed", "status", "failed", "passed"),
        ("old", "removed", "passed", None),
    ]
    assert comparison.new == 1 and comparison.removed == 1 and comparison.status_flips == 1


def test_the_tolerance_and_float_noise() -> None:
    base = [case("a", [metric("m", 0.9), metric("n", 0.3 + 0.6)])]
    head = [case("a", [metric("m", 0.85), metric("n", 0.9)])]
    assert changes(base, head, tolerance=0.05).changes == []  # a drop of exactly the tolerance is not larger
    assert kinds(changes(base, head, tolerance=0.049)) == [("a", "m", "regressed", "untested")]
    assert kinds(changes(base, head)) == [("a", "m", "regressed", "untested")]  # 0.3 + 0.6 == 0.9 here


def test_several_runs_tell_significant_drops_from_noise() -> None:
    base = [
        case("flaky", [metric("judge", [1.0, 0.6, 1.0, 0.8], kind="judge")]),
        case("real", [metric("judge", [0.9, 0.95, 0.9, 0.95], kind="judge")]),
        case("deterministic", [metric("traj", [1.0, 1.0, 1.0, 1.0])]),
    ]
    head = [
        case("flaky", [metric("judge", [0.6, 1.0, 0.8, 0.8], kind="judge")]),
        case("real", [metric("judge", [0.5, 0.55, 0.5, 0.55], kind="judge")]),
        case("deterministic", [metric("traj", [0.9, 0.9, 0.9, 0.9])]),
    ]
    comparison = changes(base, head)
    assert kinds(comparison) == [
        ("flaky", "judge", "regressed", "noise"),
        ("real", "judge", "regressed", "significant"),
        ("deterministic", "traj", "regressed", "significant"),
    ]
    assert comparison.regressions == 2 and comparison.noisy_regressions == 1
    flaky = comparison.changes[0].interval
    assert flaky is not None and flaky[0] < 0 < flaky[1]


def test_informational_metrics_are_not_compared() -> None:
    base = [case("a", [metric("m", 0.9), metric("token_usage_v1", 100.0, kind="informational")])]
    head = [case("a", [metric("m", 0.9), metric("token_usage_v1", 900.0, kind="informational")])]
    assert changes(base, head).changes == []


def test_a_metric_that_could_not_be_scored_now() -> None:
    base = [case("a", [metric("judge", 0.9, kind="judge")])]
    head = [case("a", [metric("judge", None, kind="judge", reason="no API key")])]
    assert kinds(changes(base, head)) == [("a", "judge", "regressed", "untested")]


def test_fail_on_regression_decides_the_status() -> None:
    base = document([case("a", [metric("m", [0.95, 0.95])])])
    head = document([case("a", [metric("m", [0.85, 0.85])])])  # still above the 0.8 threshold
    comparison = compare(head, base, baseline=baseline_info())
    assert head.status == "passed" and comparison.regressions == 1
    relaxed = decide_with_comparison(head, comparison, Policy(fail_on_regression=False, tolerance=0.0))
    strict = decide_with_comparison(head, comparison, Policy(fail_on_regression=True, tolerance=0.0))
    assert relaxed.status == "passed" and strict.status == "failed"
    assert strict.comparison is comparison and strict.run.fail_on_regression
    noisy = document([case("a", [metric("m", [1.0, 0.7])])])
    noisy_base = document([case("a", [metric("m", [0.9, 1.0])])])
    noise_only = compare(noisy, noisy_base, baseline=baseline_info())
    assert noise_only.regressions == 0 and noise_only.noisy_regressions == 1
    assert decide_with_comparison(noisy, noise_only, Policy(fail_on_regression=True, tolerance=0.0)).status == "passed"


def test_no_baseline_keeps_the_note() -> None:
    doc = decide_with_comparison(
        document([case("a", [metric("m", 0.9)])]), None, Policy(fail_on_regression=True, tolerance=0.1), note="x"
    )
    assert doc.comparison is None and doc.run.baseline_note == "x" and doc.status == "passed"


def _history(values: dict[str, list[float]]) -> list[tuple[BaselineInfo, ResultsDocument]]:
    """Base runs, newest first, where case NAME scored VALUES[i] in run i (oldest first in the lists)."""
    count = len(next(iter(values.values())))
    runs = []
    for index in range(count):
        doc = document([case(name, [metric("m", scores[index], threshold=0.5)]) for name, scores in values.items()])
        runs.append((BaselineInfo(source="artifact", description=f"main (run {index + 1})", run_number=index + 1), doc))
    return list(reversed(runs))


def test_the_history_labels_a_drop_of_a_noisy_case_noise_and_of_a_stable_case_significant() -> None:
    history = _history(
        {
            "noisy": [1.0, 0.2, 0.9, 0.4, 1.0, 0.3, 0.8, 0.6, 1.0, 1.0],
            "stable": [1.0] * 10,
        }
    )
    base = history[0][1]  # the newest base run
    head = document(
        [case("noisy", [metric("m", 0.4, threshold=0.5)]), case("stable", [metric("m", 0.6, threshold=0.5)])]
    )
    comparison = compare(head, base, baseline=baseline_info(), history=history, history_requested=10)
    found = {c.case_id.split("::")[1]: (c.kind, c.significance, c.noise) for c in comparison.changes}
    assert found == {"noisy": ("regressed", "noise", "history"), "stable": ("regressed", "significant", "history")}
    assert comparison.regressions == 1 and comparison.noisy_regressions == 1
    assert comparison.history is not None and len(comparison.history.runs) == 10
    assert [point.run_number for point in comparison.history.runs] == list(range(1, 11))  # oldest first
    assert comparison.history.runs[1].pass_rate == 0.5  # noisy failed its 0.5 threshold in run 2
    assert comparison.history.known_flaky == [head.cases[0].id]
    # with fewer than three base runs, the runs decide (here untested: one run on each side)
    short = compare(head, base, baseline=baseline_info(), history=history[:2])
    assert {c.significance for c in short.changes} == {"untested"}


def test_a_judge_model_change_is_one_line_and_its_drops_are_not_regressions_unless_strict() -> None:
    def doc(model: str, score: float) -> ResultsDocument:
        built = document(
            [case("a", [metric("judged", score, kind="judge"), metric("exact", score)])],
        )
        run = built.run.model_copy(update={"judges": {"judged": JudgeSetting(model=model, sampling="5 samples")}})
        return built.model_copy(update={"run": run})

    base, head = doc("gemini-2.5-flash", 0.9), doc("gemini-2.5-pro", 0.6)
    comparison = compare(head, base, baseline=baseline_info())
    assert [d.message for d in comparison.differences] == [
        "judge model changed for judged: gemini-2.5-flash -> gemini-2.5-pro, judge scores are not comparable"
    ]
    assert {c.metric: c.comparable for c in comparison.changes} == {"judged": False, "exact": True}
    assert (comparison.regressions, comparison.incomparable_regressions) == (1, 1)
    strict = compare(head, base, baseline=baseline_info(), strict=True)
    assert (strict.regressions, strict.incomparable_regressions) == (2, 0)


def test_criteria_and_run_differences() -> None:
    def doc(digest: str, whole: str, runner: str, num_runs: int) -> ResultsDocument:
        built = document([case("a", [metric("m", 0.9 if runner == "adk" else 0.5)])])
        files = [f.model_copy(update={"criteria_digest": whole, "metric_digests": {"m": digest}}) for f in built.files]
        run = built.run.model_copy(update={"runner": runner, "num_runs": num_runs, "tool_version": "1.0"})
        return built.model_copy(update={"files": files, "run": run})

    changed = compare(doc("x", "1", "http", 3), doc("y", "2", "adk", 1), baseline=baseline_info())
    assert [d.message for d in changed.differences] == [
        "runner changed: adk -> http, the agents were reached differently",
        "runs per case changed: 1 -> 3",
        "criteria changed for m in agents/weather/weather.evalset.json, its scores are not comparable",
    ]
    assert changed.changes[0].comparable is False and changed.regressions == 0
    thresholds = compare(doc("x", "1", "adk", 1), doc("x", "2", "adk", 1), baseline=baseline_info())
    assert [d.message for d in thresholds.differences] == ["criteria changed in agents/weather/weather.evalset.json"]
    assert compare(doc("x", "1", "adk", 1), doc("x", "1", "adk", 1), baseline=baseline_info()).differences == []


def test_another_agent_behind_the_a2a_server_is_a_run_difference() -> None:
    def doc(version: str | None) -> ResultsDocument:
        built = document([case("a", [metric("m", 0.9)])])
        served = ServedAgent(name="booker", version=version)
        run = built.run.model_copy(update={"runner": "a2a", "served_agent": served})
        return built.model_copy(update={"run": run})

    changed = compare(doc("2.2.0"), doc("2.1.0"), baseline=baseline_info())
    assert [d.message for d in changed.differences] == [
        "agent changed: booker 2.1.0 -> booker 2.2.0, the A2A server serves another agent"
    ]
    assert compare(doc(None), doc(None), baseline=baseline_info()).differences == []
