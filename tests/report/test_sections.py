"""report/sections: the pieces the comment and the summary are made of, each from a results document."""

from __future__ import annotations

import pytest

from adk_eval_gate import verdict
from adk_eval_gate.report import case_sections, change_sections, headline, sections
from adk_eval_gate.support import words
from tests.report.scenarios import SCENARIOS


def test_the_verdict_names_every_count_that_is_not_zero_even_in_an_error() -> None:
    regressions, no_baseline = SCENARIOS["regressions"](), SCENARIOS["no_baseline"]()
    assert headline.heading(regressions) == "### ❌ ADK eval gate failed"
    assert (
        headline.counts_line(regressions) == "**4 cases:** 3 passed · 1 failed · 1 flaky · 2 regressions fail the gate"
    )
    assert headline.heading(no_baseline) == "### 💥 ADK eval gate could not evaluate everything"
    assert headline.counts_line(no_baseline) == "**5 cases:** 2 passed · 1 failed · 1 error · 1 not evaluated"
    assert headline.heading(regressions, gate_id="nightly") == "### ❌ ADK eval gate `nightly` failed"


def test_the_runs_that_were_run_again_are_counted_in_the_verdicts_line() -> None:
    doc = SCENARIOS["regressions"]()
    doc = doc.model_copy(update={"totals": doc.totals.model_copy(update={"retried_runs": 2})})
    assert headline.counts_line(doc).endswith("1 flaky · 2 runs retried · 2 regressions fail the gate")


def test_the_comparison_line_and_the_section_headings_give_the_same_counts() -> None:
    doc = SCENARIOS["regressions"]()
    line = headline.comparison_line(doc)
    assert "2 regressions · 1 within noise · 0 improvements · 1 new · 1 removed" in line
    assert "https://github.com/octo/repo/actions/runs/41" in line
    section = change_sections.regressions(doc, limit=None)
    assert section.startswith("<details><summary><strong>2 regressions</strong> · 1 within noise</summary>")
    assert section.count("| significant |") == 2 and section.count("| within noise |") == 1
    assert doc.comparison is not None and doc.comparison.regressions == 2 and doc.comparison.noisy_regressions == 1
    assert "give `--baseline FILE`" in headline.comparison_line(SCENARIOS["no_baseline"]())


def test_the_metric_table_has_one_row_per_metric_with_base_head_and_change() -> None:
    rows = sections.metric_table(SCENARIOS["regressions"]()).splitlines()
    assert rows[0] == "| Metric | Threshold | Base | Head | Change | Pass rate |"
    assert "| response\\_<wbr>match\\_<wbr>score | 0.8 | 0.9 | 0.6 | ▼\u202f−0.3 | 0% (0/1) |" in rows
    cut = sections.Cut()
    limited = sections.metric_table(SCENARIOS["regressions"](), limit=1, cut=cut)
    assert len(limited.splitlines()) == 3 and cut.sentence(where="the limit")


def test_regressions_put_significant_drops_first_group_by_file_and_keep_cells_short() -> None:
    text = change_sections.regressions(SCENARIOS["regressions"](), limit=None, interval=True)
    significant = text.index("significant [-0.3, -0.3]")
    assert significant < text.index("**Within noise** (1)") < text.index("within noise [-0.543, 0.276]")
    assert "**agents/<wbr>weather/<wbr>weather.<wbr>evalset.<wbr>json**" in text
    assert "| flips | response\\_<wbr>match\\_<wbr>score | 0.9 | 0.6 | ▼\u202f−0.3 |" in text
    assert "`agents/weather" not in text  # no code span of a case id in a table cell


def test_a_section_longer_than_its_budget_asks_for_less_detail() -> None:
    with pytest.raises(sections.TooLong):
        sections.within(["x" * 50, "y" * 50], budget=60)
    assert sections.within(["a", "b"], budget=None) == ["a", "b"]


def test_fit_takes_the_most_detailed_level_that_fits_and_cuts_the_last_with_a_note() -> None:
    levels = [sections.Detail(text_limit=t, max_cases=None, max_changes=None) for t in (300, 100, 10)]

    def render(detail: sections.Detail, level: int, budget: int) -> str:
        return "é" * detail.text_limit

    assert sections.fit(levels, render, target=120, in_bytes=False, note="!") == "é" * 100
    assert sections.fit(levels, render, target=120, in_bytes=True, note="!") == "é" * 10
    assert sections.fit(levels, render, target=5, in_bytes=False, note="!") == "éééé!"
    cut_in_bytes = sections.fit(levels, render, target=6, in_bytes=True, note="!")
    assert cut_in_bytes == "éé!" and len(cut_in_bytes.encode()) <= 6


def test_plural() -> None:
    assert (words.plural(1, "case"), words.plural(3, "case")) == ("1 case", "3 cases")
    assert words.plural(2, "analysis", "analyses") == "2 analyses"


def test_quarantined_cases_are_listed_apart_with_their_stability_and_counted_in_the_verdict() -> None:
    from tests.report.builders import case, document, metric

    flaky = case("flaky", [metric("response_match_score", [1.0, 0.9, 1.0])])
    broken = case("broken", [metric("response_match_score", 0.1)])
    marked = verdict.quarantine([flaky, broken], ["agents/weather/weather.evalset.json:broken"])
    doc = document(marked)
    assert doc.status == "passed"
    assert headline.counts_line(doc) == "**2 cases:** 1 passed · 1 quarantined (1 not passing)"
    listed = case_sections.quarantined_cases(doc)
    assert "<strong>Quarantined</strong>: 1 · 1 not passing, none fail the gate" in listed
    assert "- broken (agents/<wbr>weather/<wbr>weather.<wbr>evalset.<wbr>json): ❌ failed" in listed
    assert case_sections.failing_cases(doc, detail=sections.Detail(0, None, None)) == ""


def test_flaky_cases_say_how_many_runs_passed_and_which_metric_flips() -> None:
    from tests.report.builders import case, document, metric

    metrics = [metric("response_match_score", [1.0, 0.5, 1.0]), metric("tool_trajectory_avg_score", [1.0] * 3)]
    flaky = case("flaky", metrics)
    flaky = flaky.model_copy(update={"stability": "flaky", "runs_passed": 2})
    listed = case_sections.flaky_cases(document([flaky]))
    assert "<strong>Flaky</strong>: 1 whose runs do not agree" in listed
    assert ": 2 of 3 runs passed; flips: response\\_<wbr>match\\_<wbr>score\n" in listed
    assert case_sections.flaky_cases(document([case("steady", [metric("response_match_score", 1.0)])])) == ""


@pytest.mark.parametrize("name", ["flaky", "error_with_failures", "regressions"])
def test_the_log_gives_the_counts_of_the_comment(name: str) -> None:
    import io

    from adk_eval_gate.report import console_lines as console_report
    from adk_eval_gate.support.console import Console

    doc = SCENARIOS[name]()
    out = io.StringIO()
    console_report.final(Console(in_actions=False, stream=out), doc)
    last = out.getvalue().strip().splitlines()[-1]
    assert ", ".join(headline.count_words(doc)) in last  # the same counts, in the same words
    assert headline.counts_line(doc).endswith(" · ".join(headline.count_words(doc)))


def test_every_chart_draws_its_metrics_threshold_as_a_flat_line_never_a_slope_or_a_zero() -> None:
    import re

    from adk_eval_gate.compare.changes import compare
    from adk_eval_gate.finish.against_baseline import decide_with_comparison
    from adk_eval_gate.report import mermaid_charts
    from adk_eval_gate.verdict import Policy
    from tests.report.builders import baseline_info, case, document, metric

    def suite(threshold_b: float) -> list:  # type: ignore[type-arg]
        return [
            case("a", [metric("one", 0.9, threshold=0.8), metric("two", 0.95, threshold=1.0)]),
            case("b", [metric("one", 0.85, threshold=0.8), metric("two", 1.0, threshold=threshold_b)]),
        ]

    base, head = document(suite(1.0)), document([*suite(1.0), case("c", [metric("one", 0.7, threshold=0.8)])])
    text = mermaid_charts.metric_charts(
        decide_with_comparison(head, compare(head, base, baseline=baseline_info()), Policy())
    )
    lines = [re.findall(r"[\d.]+", line) for line in text.splitlines() if line.strip().startswith("line [")]
    assert sorted({tuple(values) for values in lines}) == [("0.8", "0.8"), ("1", "1")]  # one flat line each
    two_thresholds = mermaid_charts.metric_charts(document(suite(0.7)))  # "two": 1.0 in one file, 0.7 in the other
    drawn = [line for line in two_thresholds.splitlines() if line.strip().startswith("line [")]
    assert "line [0.7]" in " ".join(drawn) and "line [1]" in " ".join(drawn)
    assert not any(re.search(r"\b0(,|\])", line) for line in drawn)  # never a threshold of 0
    assert "red lines: thresholds 0.7, 1 (the eval files differ)" in two_thresholds


def _chart_blocks(text: str) -> list[str]:
    import re

    return re.findall(r"```mermaid\n(.*?)```", text, re.S)


def test_a_chart_without_a_baseline_draws_no_base_series_and_one_metric_is_titled_by_its_name() -> None:
    """Without a baseline there is no grey series of empty bars, and a chart of one metric is not titled
    "(M1-M1)": it names its metric (or only its key, when the name is not plain text)."""
    from adk_eval_gate.report import mermaid_charts
    from tests.report.builders import case, document, metric

    hostile = 'x"] ; bar [9'
    doc = document(
        [
            case(
                "a",
                [
                    metric("tool_trajectory_avg_score", 1.0, threshold=1.0),
                    metric("response_match_score", 0.9, threshold=0.8),
                    metric(hostile, 0.6, threshold=0.5),
                ],
            )
        ]
    )
    blocks = _chart_blocks(mermaid_charts.metric_charts(doc))
    assert len(blocks) == 3
    assert [block.count("    bar [") for block in blocks] == [1, 1, 1]
    assert all(f'plotColorPalette: "{mermaid_charts.HEAD}, {mermaid_charts.THRESHOLD}"' in block for block in blocks)
    titles = [line.strip() for block in blocks for line in block.splitlines() if line.strip().startswith("title ")]
    assert titles == [
        'title "Mean score of tool_trajectory_avg_score (M1)"',
        'title "Mean score of response_match_score (M2)"',
        'title "Mean score of M3"',
    ]
    assert "(M1-M1)" not in mermaid_charts.metric_charts(doc) and "bar [0]" not in mermaid_charts.metric_charts(doc)


def test_a_chart_against_a_baseline_draws_base_bars_only_where_the_baseline_has_a_figure() -> None:
    from adk_eval_gate.compare.changes import compare
    from adk_eval_gate.finish.against_baseline import decide_with_comparison
    from adk_eval_gate.report import mermaid_charts
    from adk_eval_gate.verdict import Policy
    from tests.report.builders import baseline_info, case, document, metric

    base = document([case("a", [metric("one", 0.9, threshold=0.8), metric("two", 0.7, threshold=0.8)])])
    head = document(
        [case("a", [metric("one", 0.8, threshold=0.8), metric("two", 0.9, threshold=0.8), metric("new", 1.0)])]
    )
    doc = decide_with_comparison(head, compare(head, base, baseline=baseline_info()), Policy())
    [block] = _chart_blocks(mermaid_charts.metric_charts(doc))
    assert 'x-axis ["M1 b", "M1 h", "M2 b", "M2 h", "M3 h"]' in block
    assert "    bar [0.9, 0, 0.7, 0, 0]" in block and "    bar [0, 0.8, 0, 0.9, 1]" in block
    assert 'title "Mean score per metric (M1-M3)"' in block
    only_new = document([case("a", [metric("new", 1.0, threshold=1.0)])])
    alone = decide_with_comparison(only_new, compare(only_new, base, baseline=baseline_info()), Policy())
    [new_block] = _chart_blocks(mermaid_charts.metric_charts(alone))
    assert new_block.count("    bar [") == 1 and "b, grey bars" not in mermaid_charts.metric_charts(alone)
    assert "the baseline has no figure for them" in mermaid_charts.metric_charts(alone)


def test_the_cost_chart_without_a_baseline_draws_no_base_series() -> None:
    from adk_eval_gate.report import mermaid_charts
    from tests.report.builders import priced_document

    [block] = _chart_blocks(mermaid_charts.cost_chart(priced_document(calls=[1, 2], runs=1)))
    assert block.count("    bar [") == 1 and f'plotColorPalette: "{mermaid_charts.HEAD}"' in block
    assert 'x-axis ["F1"]' in block


def test_the_footer_names_the_a2a_agent_escaped() -> None:
    from adk_eval_gate.model.results import ServedAgent
    from tests.report.builders import case, document, metric

    built = document([case("a", [metric("m", 0.9)])])
    run = built.run.model_copy(update={"runner": "a2a", "served_agent": ServedAgent(name="*booker*", version="2.1")})
    footer = sections.footer(built.model_copy(update={"run": run}))
    assert "runner a2a, agent \\*booker\\* 2.1" in footer
