"""Escaping of untrusted text, checked with GitHub's own Markdown renderer (cmark-gfm) on hostile input."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adk_eval_gate.report import markdown as md
from tests.report.safety import problems, render_html

TOKENS = [
    "<", ">", "&", '"', "'", "`", "``", "```", "````", "~~~", "|", "*", "_", "[", "]", "(", ")", "!", "#", "@",
    "-", "+", "=", "\\", "/", ":", "\n", "\n\n", " ", "\t", "\r", "a", "1", "<!--", "-->", "<script>", "</details>",
    "<details>", "<summary>", "@octocat", "@org/team", "#12", "o/r#3", "GH-4", "https://x.io", "www.x.io",
    "javascript:alert(1)", "[a](http://x.io)", "![i](http://x.io/i.png)", "&#64;", "\u202e", "\u2066", "\x00", "\x1b",
    "<img src=x>", "- item", "1. item", "> quote", "# head", "---", "| a | b |", "&lt;",
]  # fmt: skip
hostile = st.one_of(st.lists(st.sampled_from(TOKENS), max_size=25).map("".join), st.text(max_size=60))


@pytest.mark.slow  # 150 generated texts through GitHub's Markdown renderer
@settings(max_examples=150, deadline=None)
@given(hostile)
def test_inline_text_is_inert_in_a_paragraph_and_a_table_cell(text: str) -> None:
    paragraph = "Answer: " + md.inline(text)
    assert problems(paragraph, allowed_links=set(), comments=0) == []
    table = md.table(["case", "value"], [[md.inline(text), md.code(text, in_table=True)]])
    html = render_html(table)
    assert problems(table, allowed_links=set(), comments=0) == []
    assert html.count("<td") == 2  # nothing split or merged the cells


@pytest.mark.slow  # 150 generated texts through GitHub's Markdown renderer
@settings(max_examples=150, deadline=None)
@given(hostile)
def test_a_code_block_cannot_be_closed_early(text: str) -> None:
    markdown = md.code_block(text) + "\n\nSENTINEL"
    html = render_html(markdown)
    assert html.count("<pre>") == 1
    assert html.rstrip().endswith("<p>SENTINEL</p>")
    assert problems(markdown, allowed_links=set(), comments=0) == []


@pytest.mark.slow  # 150 generated texts through GitHub's Markdown renderer
@settings(max_examples=150, deadline=None)
@given(hostile)
def test_a_summary_line_cannot_open_or_close_tags(text: str) -> None:
    markdown = md.details(md.summary_text(text), "body")
    html = render_html(markdown)
    assert html.count("<details>") == 1 and html.count("</details>") == 1
    assert html.count("<summary>") == 1 and html.count("</summary>") == 1
    assert problems(markdown, allowed_links=set(), comments=0) == []


def test_notifications_and_links_are_neutralised() -> None:
    html = render_html(
        md.inline("ping @octocat and @org/team about #12, org/repo#3 and GH-4 at www.x.io or https://x.io")
    )
    assert "<a" not in html
    assert "@\u200boctocat" in html and "#\u200b12" in html and "repo#\u200b3" in html and "GH\u200b-4" in html


def test_bidirectional_overrides_and_controls_are_dropped() -> None:
    assert md.inline("abc\u202edef\x07") == "abcdef"
    assert md.code_block("a\u2066b") == "```\nab\n```"


def test_code_spans_outlast_backtick_runs_and_pipes() -> None:
    assert md.code("a``b") == "```a``b```"
    assert md.code("`x`") == "`` `x` ``"
    assert md.code("a|b", in_table=True) == "`a\\|b`"
