"""The fields this round added reach the reports from untrusted places: the model version an agent's events
report (the cost line, the judge and simulator usage), the judge settings of a base-branch artifact (the
"not like-for-like" lines), the flaky ids of its history. Rendered with GitHub's renderer, they stay text."""

from __future__ import annotations

import io

from adk_eval_gate.aggregate.usage import report_unpriced
from adk_eval_gate.compare.changes import compare
from adk_eval_gate.finish.against_baseline import decide_with_comparison
from adk_eval_gate.model.results import JudgeSetting, ModelUsage, ResultsDocument, UsageTotals
from adk_eval_gate.report import comment, summary
from adk_eval_gate.report import console_lines as console_report
from adk_eval_gate.support.console import Console
from adk_eval_gate.verdict import Policy
from tests.report.builders import RUN_URL, baseline_info, priced_document
from tests.report.safety import problems

HOSTILE = "x<img src=x onerror=alert(1)>@octocat #12 `|`\n::error::y"
LINKS = {RUN_URL, f"{RUN_URL}#artifacts", baseline_info().run_url or ""}


def _hostile_pair() -> ResultsDocument:
    def side(judge_model: str, calls: int) -> ResultsDocument:
        doc = priced_document(calls=[calls, 1], runs=2)
        run = doc.run.model_copy(
            update={"judges": {"response_match_score": JudgeSetting(model=judge_model, sampling="1 sample")}}
        )
        return doc.model_copy(update={"run": run})

    base, head = side(f"base {HOSTILE}", 1), side("gemini-2.5-pro", 2)
    assert head.usage is not None
    unpriced = ModelUsage(model=HOSTILE, calls=3, input_tokens=10, unpriced=f"no price for model {HOSTILE}")
    usage = head.usage.model_copy(
        update={
            "agent": UsageTotals(models=[unpriced], calls=3, unpriced_models=[HOSTILE]),
            "judge": UsageTotals(models=[unpriced], calls=3, unpriced_models=[HOSTILE]),
            "per_pass": head.usage.per_pass.model_copy(update={"cost_usd": None}),
        }
    )
    head = head.model_copy(update={"usage": usage})
    comparison = compare(head, base, baseline=baseline_info())
    assert [d.what for d in comparison.differences] == ["judge model"]
    return decide_with_comparison(head, comparison, Policy())


def test_model_names_and_base_judge_settings_stay_text_in_the_comment_and_summary() -> None:
    doc = _hostile_pair()
    body = comment.render(doc)
    assert "cost unknown for" in body and "not comparable" in body
    assert problems(body, allowed_links=LINKS) == []
    full = summary.render(doc)
    assert "LLM judge" in full and "Cost and latency" in full
    assert problems(full, allowed_links=LINKS, comments=0) == []


def test_they_start_no_workflow_command_in_the_log() -> None:
    doc = _hostile_pair()
    out = io.StringIO()
    console = Console(in_actions=True, stream=out)
    report_unpriced(doc, console)
    console_report.final(console, doc)
    printed = out.getvalue()
    assert "Cost unknown for model x<img" in printed
    assert not [line for line in printed.splitlines() if line.startswith("::error::y")]
