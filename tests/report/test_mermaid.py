"""The Mermaid check of the tests (tests/mermaid.py) with the real Mermaid library in headless Chromium: a valid
xychart passes, broken ones fail with Mermaid's own message, and the summary golden files' charts render."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.mermaid import mermaid_blocks

pytestmark = pytest.mark.slow

GOLDEN_SUMMARIES = sorted((Path(__file__).resolve().parents[1] / "golden" / "expected").glob("*/summary.md"))
Check = Callable[[list[str]], list[str]]

VALID_XYCHART = """xychart-beta
    title "Mean score per metric"
    x-axis ["tool_trajectory_avg_score", "response_match_score", "it's fine"]
    y-axis "score" 0 --> 1
    bar [1, 0.91, 0.5]
    line [0.9, 0.875, 0.6]
"""


def test_a_valid_xychart_with_bars_lines_title_and_axis_labels_passes(mermaid_errors: Check) -> None:
    assert mermaid_errors([VALID_XYCHART]) == []


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("xychart-beta\n    x-axis [a, b\n    bar [1, 2]\n", "Parse error on line 2"),  # bad syntax
        ('xychart-beta\n    title "Mean score\n    bar [1]\n', "Parse error"),  # unbalanced quotes
        ('xychart-beta\n    x-axis ["say "hi"", "b"]\n    bar [1, 2]\n', "Parse error"),  # a quote in a label
        ("xychart-beta\n    bar [1, zero]\n", "Parse error"),
        ("not-a-diagram\n    a --> b\n", "No diagram type detected"),
    ],
    ids=["bad-syntax", "unbalanced-quotes", "quote-in-label", "bad-number", "unknown-diagram"],
)
def test_broken_charts_fail_with_mermaids_message(mermaid_errors: Check, code: str, message: str) -> None:
    errors = mermaid_errors([VALID_XYCHART, code])
    assert len(errors) == 1, errors
    assert errors[0].startswith("block 2: ")
    assert message in errors[0]


def test_a_bad_block_does_not_disturb_the_next(mermaid_errors: Check) -> None:
    broken = 'xychart-beta\n    title "open\n'
    assert mermaid_errors([broken, VALID_XYCHART, broken]) == [
        *(f"block {n}: {mermaid_errors([broken])[0].removeprefix('block 1: ')}" for n in (1, 3))
    ]


@pytest.mark.parametrize("path", GOLDEN_SUMMARIES, ids=lambda path: path.parent.name)
def test_the_summary_golden_files_charts_render(mermaid_errors: Check, path: Path) -> None:
    blocks = mermaid_blocks(path.read_text(encoding="utf-8"))
    assert blocks, f"{path.parent.name}/{path.name} has no Mermaid chart"
    assert mermaid_errors(blocks) == []


def test_charts_without_a_baseline_or_with_a_new_metric_render(mermaid_errors: Check) -> None:
    """The charts that draw no base series (no baseline, or a metric the baseline did not score) and the titles
    of single-metric charts are valid Mermaid."""
    from adk_eval_gate.compare.changes import compare
    from adk_eval_gate.finish.against_baseline import decide_with_comparison
    from adk_eval_gate.report import mermaid_charts
    from adk_eval_gate.verdict import Policy
    from tests.report.builders import baseline_info, case, document, metric, priced_document

    base = document([case("a", [metric("one", 0.9, threshold=0.8)])])
    head = document([case("a", [metric("one", 0.8, threshold=0.8), metric("a.b-c_1", 1.0, threshold=1.0)])])
    text = "\n\n".join(
        [
            mermaid_charts.metric_charts(head),
            mermaid_charts.metric_charts(
                decide_with_comparison(head, compare(head, base, baseline=baseline_info()), Policy())
            ),
            mermaid_charts.cost_chart(priced_document(calls=[1, 2], runs=1)),
        ]
    )
    blocks = mermaid_blocks(text)
    assert len(blocks) == 5
    assert mermaid_errors(blocks) == []
