"""The documents of the golden-file tests: no baseline, all pass, regressions, a huge failing suite, and agent
answers full of Markdown, HTML and mentions."""

from __future__ import annotations

from collections.abc import Callable

from adk_eval_gate.commands.gate import decided
from adk_eval_gate.compare.changes import compare
from adk_eval_gate.model.results import BaselineInfo, CaseResult, Confirmation, FileResult, JudgeStats, ResultsDocument
from adk_eval_gate.verdict import Policy
from tests.report.builders import baseline_info, case, document, invocation, metric, priced_document

TRAJECTORY = "tool_trajectory_avg_score"
RESPONSE = "response_match_score"
JUDGE = "final_response_match_v2"


def _compared(head: ResultsDocument, base: ResultsDocument, *, fail_on_regression: bool = False) -> ResultsDocument:
    comparison = compare(head, base, baseline=baseline_info(), tolerance=0.0)
    return decided(head, comparison, Policy(fail_on_regression=fail_on_regression, tolerance=0.0))


def no_baseline() -> ResultsDocument:
    doc = document(
        [
            case("paris", [metric(TRAJECTORY, 1.0, threshold=1.0), metric(RESPONSE, 0.91)]),
            case("sydney", [metric(TRAJECTORY, 0.0, threshold=1.0), metric(RESPONSE, 0.4)]),
            case("tokyo", [metric(TRAJECTORY, 1.0, threshold=1.0), metric(RESPONSE, 0.85)]),
            case("oslo", [], error="the agent raised ValueError: no such city"),
            case(
                "lima",
                [metric(TRAJECTORY, 1.0, threshold=1.0), metric(JUDGE, None, kind="judge", reason="no API key")],
            ),
        ]
    )
    return decided(doc, None, Policy(fail_on_regression=False, tolerance=0.0), note=None)


def all_pass() -> ResultsDocument:
    def cases(response: float, *, extra: bool) -> list[CaseResult]:
        items = [
            case("paris", [metric(TRAJECTORY, 1.0, threshold=1.0), metric(RESPONSE, response)]),
            case("tokyo", [metric(TRAJECTORY, 1.0, threshold=1.0), metric(RESPONSE, 0.9)]),
            case(
                "efficiency",
                [metric(TRAJECTORY, 1.0, threshold=1.0), metric("token_usage_v1", 120.0, kind="informational")],
            ),
        ]
        if extra:
            items.append(case("berlin", [metric(TRAJECTORY, 1.0, threshold=1.0), metric(RESPONSE, 0.88)]))
        return items

    base = document(cases(0.85, extra=False))
    head = document(
        cases(0.95, extra=True), judge=JudgeStats(calls=12, cached=30, input_tokens=5400, output_tokens=880)
    )
    return _compared(head, base)


def regressions() -> ResultsDocument:
    def build(response: list[float], judge: list[float], stable: list[float], *, head: bool) -> ResultsDocument:
        items = [
            case("flips", [metric(TRAJECTORY, [1.0, 1.0, 1.0], threshold=1.0), metric(RESPONSE, response)]),
            case("flaky_judge", [metric(JUDGE, judge, threshold=0.7, kind="judge")]),
            case("slow_drift", [metric(JUDGE, stable, threshold=0.7, kind="judge")]),
        ]
        items.append(case("new_case" if head else "removed_case", [metric(TRAJECTORY, [1.0, 1.0, 1.0], threshold=1.0)]))
        return document(
            items, num_runs=3, judge=JudgeStats(calls=27, cached=0, failed=1, input_tokens=41000, output_tokens=3100)
        )

    base = build([0.9, 0.9, 0.9], [1.0, 0.8, 1.0], [1.0, 1.0, 1.0], head=False)
    head = build([0.6, 0.6, 0.6], [0.8, 1.0, 0.6], [0.9, 0.9, 0.9], head=True)
    return _compared(head, base, fail_on_regression=True)


def huge_failing(count: int = 400) -> ResultsDocument:
    long_answer = "The forecast is long. " * 120

    def build(score: float) -> ResultsDocument:
        items = [
            case(
                f"case_{number:04d}",
                [metric(TRAJECTORY, score, threshold=1.0), metric(RESPONSE, score)],
                file=f"suite/part_{number % 7}.evalset.json",
                line=10 + number,
                turns=[
                    invocation(
                        f"Question {number}: what is the weather?",
                        expected=long_answer,
                        actual=long_answer[::-1],
                        expected_calls=[{"name": "get_weather", "args": {"city": f"city {number}", "days": 7}}],
                        actual_calls=[{"name": "get_forecast", "args": {"place": f"city {number}"}}],
                    )
                ],
            )
            for number in range(count)
        ]
        return document(items)

    return _compared(build(0.0), build(1.0))


HOSTILE_ANSWER = (
    "<!-- adk-eval-gate id=default digest=0000000000000000 -->\n"
    "<script>alert(1)</script> <img src=x onerror=alert(2)> <details open><summary>fake</summary>\n"
    "Hello @octocat and @octo-org/admins, see #1, octo/repo#2 and GH-3.\n"
    "```\n</details>\n# Pwned heading\n```\n"
    "~~~\nstill text\n~~~\n"
    "[click me](javascript:alert(3)) ![tracker](https://evil.example/t.png) https://evil.example www.evil.example\n"
    "| a | b |\n|---|---|\n| c | d |\n"
    "\u202eevil reversed\u202c &#64;entity-mention <!-- hidden -->"
)


def hostile() -> ResultsDocument:
    turn = invocation(
        "Please @mention everyone <b>bold</b> `code` and close ``` fences",
        expected="The weather is **fine** <em>today</em>.",
        actual=HOSTILE_ANSWER,
        expected_calls=[{"name": "get_weather", "args": {"city": "<b>Paris</b> @admin #7"}}],
        actual_calls=[{"name": "get_weather`|</code>", "args": {"city": "```"}}],
    )
    items = [
        case(
            "<img src=x onerror=alert(1)>@admin #12",
            [metric("custom`|<b>metric</b>", 0.1), metric(RESPONSE, 0.2)],
            file="evals/we|ird `name` @dev.evalset.json",
            turns=[turn],
        ),
        case("crashes", [], error="Traceback: <script>x</script> @oncall #99 ```"),
    ]
    files = [
        FileResult(path="evals/we|ird `name` @dev.evalset.json", cases=2),
        FileResult(path="evals/broken.evalset.json", error="line 3: <b>bad</b> JSON @dev #4", line=3),
    ]
    doc = document(items, files=files)
    return decided(
        doc, None, Policy(fail_on_regression=False, tolerance=0.0), note="no baseline yet: <i>@someone</i> #5"
    )


SCENARIOS: dict[str, Callable[[], ResultsDocument]] = {
    "no_baseline": no_baseline,
    "all_pass": all_pass,
    "regressions": regressions,
    "huge_failing": huge_failing,
    "hostile": hostile,
}


def _history_of(values: list[ResultsDocument]) -> list[tuple[BaselineInfo, ResultsDocument]]:
    """Base runs, newest first, numbered 38, 39, 40, ... from the oldest."""
    runs = []
    for number, doc in enumerate(values, start=38):
        info = BaselineInfo(source="artifact", description=f"main (run {number})", run_id=number, run_number=number)
        runs.append((info, doc))
    return list(reversed(runs))


def flaky() -> ResultsDocument:
    """Five runs per case: steady, flaky, passed on its re-runs, known flaky on the base branch, a timeout, and
    a quarantined flaky case; the base branch's last runs as the noise model."""

    def build(coin: list[float], *, head: bool) -> ResultsDocument:
        items = [
            case("steady", [metric(RESPONSE, [0.9] * 5), metric(TRAJECTORY, [1.0] * 5, threshold=1.0)]),
            case("coin_toss", [metric(RESPONSE, coin), metric(TRAJECTORY, [1.0] * 5, threshold=1.0)]),
            case("flip_flop", [metric(RESPONSE, [0.9, 0.3, 0.9, 0.3, 0.9] if head else [0.3] * 5)]),
        ]
        rerun = Confirmation(reason="failed", first_status="failed", extra_runs=3) if head else None
        recovered = case("recovered", [metric(RESPONSE, [0.2, 0.9, 0.9, 0.9])], confirmation=rerun)
        timeout = case("slow_tool", [], error="timed out after 300 s (raise --timeout if the agent needs longer)")
        timeout = timeout.model_copy(update={"error_kind": "infrastructure"})
        parked = case("parked", [metric(RESPONSE, [0.9, 0.2, 0.2, 0.9, 0.2])]).model_copy(update={"quarantined": True})
        doc = document([*items, recovered, timeout, parked], num_runs=5)
        return doc.model_copy(update={"run": doc.run.model_copy(update={"confirm_failures": 3})})

    history = _history_of(
        [build([0.9, 0.85, 0.9, 0.95, 0.9], head=False) for _ in range(3)]
        + [build([0.9, 0.9, 0.85, 0.9, 0.9], head=False)]
    )
    head = build([0.9, 0.3, 0.9, 0.9, 0.4], head=True)
    comparison = compare(head, history[0][1], baseline=baseline_info(), history=history, history_requested=10)
    return decided(head, comparison, Policy(fail_on_regression=False, tolerance=0.0))


def error_with_failures() -> ResultsDocument:
    """An error verdict (an agent that raised, a judge outage, an eval file that could not be used) that also has
    failed and unevaluated cases: the verdict still names them."""
    items = [
        case("paris", [metric(TRAJECTORY, 1.0, threshold=1.0), metric(RESPONSE, 0.95)]),
        case("sydney", [metric(TRAJECTORY, 0.0, threshold=1.0), metric(RESPONSE, 0.4)]),
        case("tokyo", [metric(TRAJECTORY, 1.0, threshold=1.0), metric(RESPONSE, 0.5)]),
        case("oslo", [], error="the agent raised KeyError: 'forecast' (weather_agent/tools.py:12 in get_weather)"),
        case(
            "lima",
            [metric(TRAJECTORY, 1.0, threshold=1.0), metric(JUDGE, None, kind="judge", reason="no API key")],
        ),
        case(
            "quito", [], error="final_response_match_v2: judge gemini-2.5-flash failed after 5 tries: HTTP 503"
        ).model_copy(update={"error_kind": "infrastructure"}),
    ]
    files = [
        FileResult(path="agents/weather/weather.evalset.json", cases=6),
        FileResult(path="agents/weather/broken.test.json", error="line 7, column 3: invalid JSON", line=7),
    ]
    doc = document(items, files=files)
    return decided(doc, None, Policy(fail_on_regression=False, tolerance=0.0), note="no baseline yet")


MANY = [
    ("tool_trajectory_avg_score", "deterministic", 1.0),
    ("response_match_score", "deterministic", 0.8),
    ("final_response_match_v2", "judge", 0.7),
    ("rubric_based_final_response_quality_v1", "judge", 0.8),
    ("rubric_based_tool_use_quality_v1", "judge", 0.8),
    ("rubric_based_multi_turn_trajectory_quality_v1", "judge", 0.6),
    ("hallucinations_v1", "judge", 0.9),
    ("safety_v1", "judge", 1.0),
    ("trajectory_precision", "deterministic", 0.9),
    ("trajectory_recall", "deterministic", 0.9),
    ("rouge_l", "deterministic", 0.5),
    ("per_turn_user_simulator_quality_v1", "judge", 0.8),
]


def many_metrics() -> ResultsDocument:
    """Twelve metrics, long names, one that could not be evaluated: charts of at most six, keys that never clip."""

    def build(shift: float) -> ResultsDocument:
        items = []
        for index, eval_id in enumerate(("paris", "tokyo", "lima")):
            metrics = []
            for number, (name, kind, threshold) in enumerate(MANY):
                if name == "per_turn_user_simulator_quality_v1":
                    metrics.append(metric(name, None, threshold=threshold, kind=kind, reason="needs a scenario"))
                    continue
                score = min(1.0, max(0.0, 0.95 - 0.03 * number - 0.05 * index + shift))
                metrics.append(metric(name, score, threshold=threshold, kind=kind))  # type: ignore[arg-type]
            items.append(case(eval_id, metrics))
        return document(items)

    head, base = build(0.0), build(0.04)
    return _compared(head, base)


def cost_rises() -> ResultsDocument:
    """Two cases of four make one more model call per turn: the cost rises beyond the noise and fails
    --max-cost-increase; the run's cost stays within --max-cost."""
    from adk_eval_gate.model.results_usage import BudgetLimits

    base = priced_document(calls=[1, 1, 1, 1], runs=3)
    head = priced_document(calls=[1, 2, 1, 2], runs=3)
    comparison = compare(head, base, baseline=baseline_info())
    limits = BudgetLimits(max_cost=1.0, max_cost_increase=20)
    return decided(head, comparison, Policy(fail_on_regression=False, tolerance=0.0, limits=limits))


SCENARIOS.update(
    {
        "flaky": flaky,
        "error_with_failures": error_with_failures,
        "many_metrics": many_metrics,
        "cost_rises": cost_rises,
    }
)
