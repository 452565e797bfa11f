"""report.html's judges: each labelled judge's confusion matrix and disagreements, their texts inert."""

from __future__ import annotations

from adk_eval_gate.report.html import page
from tests.report.scenarios import load_input


def test_report_html_shows_each_judges_confusion_matrix_and_disagreements_inert() -> None:
    html = page.render(load_input("judges"))
    assert "Judges against human labels" in html
    assert "hallucinations_v1 on gemini-2.5-flash: kappa 0.32 [0.05, 0.59], 40 labels, does not gate" in html
    assert "<td>12</td><td>8</td><td>50%</td>" in html
    assert "What&#x27;s the weather in &lt;b&gt;Paris&lt;/b&gt;?" in html or "&lt;b&gt;Paris&lt;/b&gt;" in html
    assert "<b>Paris</b>" not in html
    assert "Judges against human labels" not in page.render(load_input("many_metrics"))
