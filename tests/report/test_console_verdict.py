"""The log's verdict (report/console_lines.py): the stability line in words, the flaky cases named under it, bounded
and made safe for the log, each flaky case's own line marked, and a long failing case cut to its first turns."""

from __future__ import annotations

import io

from adk_eval_gate import verdict
from adk_eval_gate.model.results import SequentialRun
from adk_eval_gate.report import console_lines as console_report
from adk_eval_gate.support.console import Console
from tests.report.builders import case, document, invocation, metric
from tests.report.scenarios import SCENARIOS


def _log(doc, *, in_actions: bool = False, secrets: tuple[str, ...] = (), **where: str) -> list[str]:  # type: ignore[no-untyped-def]
    out = io.StringIO()
    console_report.final(Console(in_actions=in_actions, stream=out, secrets=secrets), doc, **where)
    return out.getvalue().splitlines()


def test_the_log_names_the_flaky_cases_under_the_stability_line_and_marks_their_lines() -> None:
    lines = _log(SCENARIOS["flaky"]())
    stability = next(index for index, line in enumerate(lines) if line.startswith("Over 5 runs per case"))
    assert "3 flaky" in lines[stability]
    assert lines[stability + 1] == (
        "Flaky: agents/weather/weather.evalset.json::coin_toss (3 of 5 runs passed), "
        "agents/weather/weather.evalset.json::flip_flop (3 of 5 runs passed), "
        "agents/weather/weather.evalset.json::recovered (3 of 4 runs passed)"
    )  # not "parked": quarantined cases are not counted among the flaky, and are listed apart
    assert "  FAIL (flaky: 3 of 5 runs passed) agents/weather/weather.evalset.json::coin_toss: " in "\n".join(lines)


def test_a_flaky_case_that_passed_has_its_pass_line_marked_and_a_steady_one_not() -> None:
    doc = document(
        [case("coin", [metric("m", [1.0, 0.5, 1.0])]), case("steady", [metric("m", [1.0, 1.0, 1.0])])], num_runs=3
    )
    lines = _log(doc)
    assert "PASS (flaky: 2 of 3 runs passed) agents/weather/weather.evalset.json::coin m=0.833" in lines
    assert "PASS agents/weather/weather.evalset.json::steady m=1" in lines
    assert "Flaky: agents/weather/weather.evalset.json::coin (2 of 3 runs passed)" in lines
    assert "ADK eval gate: PASSED - 2 cases: 2 passed, 1 flaky" in lines


def test_without_a_flaky_case_there_is_no_flaky_line() -> None:
    lines = _log(document([case("steady", [metric("m", [1.0, 1.0])])], num_runs=2))
    assert any("0 flaky" in line for line in lines)
    assert not any(line.startswith("Flaky:") for line in lines)


def test_the_flaky_names_are_bounded_with_a_count_of_the_rest() -> None:
    doc = document([case(f"coin_{n:02}", [metric("m", [1.0, 0.5])]) for n in range(25)], num_runs=2)
    [flaky] = [line for line in _log(doc) if line.startswith("Flaky:")]
    assert flaky.count("(1 of 2 runs passed)") == 10
    assert "::coin_09 (1 of 2 runs passed) and 15 more (see summary.md)" in flaky and "coin_10" not in flaky


def test_hostile_flaky_names_stay_on_one_line_cut_masked_and_never_a_workflow_command() -> None:
    secret = "sk-live-0123456789abcdef"
    names = ["::error::owned\nnext", f"key {secret}", "x" * 5000, "bell\x07\x1b[31mred"]
    doc = document([case(name, [metric("m", [1.0, 0.5])]) for name in names], num_runs=2)
    lines = _log(doc, in_actions=True, secrets=(secret,))
    [flaky] = [line for line in lines if line.startswith("Flaky:")]
    shown = [line for line in lines if not line.startswith("::add-mask::")]  # the mask itself, in Actions
    assert secret not in "\n".join(shown) and "key ***" in flaky
    assert "\x07" not in flaky and "\x1b" not in flaky and "\n" not in flaky
    assert "x" * 200 not in flaky and "…" in flaky
    assert not any(line.startswith("::error::") for line in lines)
    assert len(flaky) < 4 * 200 + 200


def test_the_stability_line_says_pass_k_and_pass_at_k_in_words_without_nested_parentheses() -> None:
    doc = document(
        [case("coin", [metric("m", [1.0, 0.5, 1.0])]), case("steady", [metric("m", [1.0, 1.0, 1.0])])], num_runs=3
    )
    [line] = [line for line in _log(doc) if line.startswith("Over 3 runs per case")]
    assert line == (
        "Over 3 runs per case: 1 stable pass, 1 flaky, 0 stable fail; 50% passed all 3 runs (pass^3), "
        "100% passed at least once (pass@3); a case passes when each metric's mean over every turn of its runs "
        "meets its threshold (ADK's AgentEvaluator rule)"
    )
    depth = deepest = 0
    for char in line:
        depth += {"(": 1, ")": -1}.get(char, 0)
        deepest = max(deepest, depth)
    assert deepest == 1


def test_a_long_failing_case_shows_its_first_differing_turns_and_where_the_rest_is() -> None:
    turns = [
        invocation(
            f"question {number}",
            expected=f"answer {number}",
            actual="I do not know.",
            expected_calls=[{"name": "look_up", "args": {"n": number}}],
            actual_calls=[],
        )
        for number in range(1, 23)
    ]
    doc = document([case("long_talk", [metric("m", [0.1], threshold=0.8)], turns=turns)])
    lines = _log(doc, full_report="out/report.html or out/results.json")
    start = lines.index("Cases that did not pass:")
    block = lines[start + 2 : lines.index("", start)]
    assert len(block) <= 14, block
    assert block[0].strip().startswith("turn 1 tools:")
    assert not any("turn 4 " in line for line in block)
    assert block[-1].strip() == "... 19 more differing turns: see out/report.html or out/results.json"


def test_a_short_failing_case_shows_every_differing_turn_and_no_pointer() -> None:
    lines = _log(document([case("short", [metric("m", [0.1], threshold=0.8)])]))
    assert any(line.strip().startswith("turn 1 answer:") for line in lines)
    assert not any(line.strip().startswith("...") for line in lines)


def test_with_sequential_the_stability_line_states_the_spread_of_runs_and_the_k_of_pass_k() -> None:
    settings = SequentialRun(confidence=0.95, margin=0.1, min_runs=2, max_runs=10, undecided="point")
    cases = [case("steady", [metric("m", [1.0, 1.0])]), case("coin", [metric("m", [1.0, 0.0, 1.0, 0.0])])]
    doc = verdict.decide(document(cases, num_runs=10), None, verdict.Policy(sequential=settings))
    [line] = [line for line in _log(doc) if line.startswith("Over ")]
    assert line.startswith(
        "Over 2-4 runs per case as the sequential verdicts spent them: 1 stable pass, 1 flaky, 0 stable fail; "
        "58% average chance that 2 runs of a case all pass (pass^2), 92% that at least one of 2 does (pass@2), "
        "from each case's runs; a case passes when "
    )
    assert "10 runs" not in line and "all 4 runs" not in line


def test_the_sequential_line_says_when_a_re_run_continued_an_earlier_attempts_evidence() -> None:
    settings = SequentialRun(confidence=0.95, margin=0.1, min_runs=2, max_runs=10, undecided="point")
    cases = [case("steady", [metric("m", [1.0, 1.0])])]
    doc = verdict.decide(document(cases, num_runs=10), None, verdict.Policy(sequential=settings))
    continued = doc.model_copy(update={"run": doc.run.model_copy(update={"continued_from_attempt": 1})})
    [line] = [line for line in _log(continued) if line.startswith("Sequential verdicts")]
    assert line.endswith(" · evidence continued from attempt 1")
    assert not any("continued" in line for line in _log(doc))
