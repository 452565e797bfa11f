"""report.html without a browser: what the page is made of (every tag and attribute, the Content-Security-Policy and
its hashes, the data the script reads: the case list's rows and the cases' details), hostile text kept as text,
old or partial results, and the extension points (a column or a section is one function)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser
from typing import Any

import pytest

from adk_eval_gate.model.results import (
    CalibrationJudgeStats,
    InvocationRecord,
    JudgeStats,
    ResultsDocument,
    RubricScoreRecord,
    RunMetric,
)
from adk_eval_gate.report.html import case_list as html_cases
from adk_eval_gate.report.html import page, parts
from adk_eval_gate.report.html.calls import calls_table
from adk_eval_gate.report.markdown import escape_html
from tests.report.builders import case, document, invocation, metric
from tests.report.golden import row_text, rows_of, script_data, unpacked_details
from tests.report.scenarios import SCENARIOS, huge_failing

OUR_TAGS = {
    "html", "head", "meta", "title", "style", "body", "script", "header", "section", "h1", "h2", "h3", "h4", "h5",
    "h6",
    "p", "pre", "code", "span", "div", "dl", "dt", "dd", "ul", "li", "table", "thead", "tbody", "tr", "th", "td",
    "details", "summary", "figure", "figcaption", "svg", "rect", "line", "text", "label", "input", "select",
    "option", "noscript", "button",
    "fieldset", "legend",  # the labelling view's, added by its script (test_labelling_browser.py checks them)
}  # fmt: skip
OUR_ATTRIBUTES = {
    "class", "id", "lang", "charset", "http-equiv", "content", "name", "type", "value", "checked", "placeholder",
    "role", "viewbox", "width", "height", "x", "y", "x1", "x2", "y1", "y2", "text-anchor", "title", "tabindex",
    "aria-label", "aria-live", "aria-busy", "data-diff", "maxlength", "autocomplete",
    "min", "max", "step", "aria-invalid", "data-state",  # the labelling view's, added by its script
}  # fmt: skip
# The classes of the rows' pieces (the script builds the rows from data: it sets these, and text as text).
ROW_CLASSES = re.compile(
    r"badge s-(passed|failed|error|not_evaluated|informational|quarantined|other)|muted|eval-id|"
    r"where|chip s-(passed|failed|not_evaluated|informational)"
)


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self.texts: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in = tag if tag in {"script", "style"} else None

    def handle_endtag(self, tag: str) -> None:
        self._in = None

    def handle_data(self, data: str) -> None:
        {"script": self.scripts, "style": self.styles}.get(self._in or "", self.texts).append(data)


def parsed(markup: str) -> _Page:
    parser = _Page()
    parser.feed(markup)
    parser.close()
    return parser


def details_of(markup: str) -> list[str]:
    """The case details the page's script puts into each case (compressed data in the page)."""
    return unpacked_details(script_data(markup, "case-details"))


def problems(markup: str) -> list[str]:
    """Tags and attributes we did not write, event handlers, and anything that points at a resource."""
    found = []
    for tag, attributes in parsed(markup).tags:
        if tag not in OUR_TAGS:
            found.append(f"tag <{tag}>")
        for name, value in attributes.items():
            if name not in OUR_ATTRIBUTES:
                found.append(f"attribute {name}= on <{tag}>")
            if name in {"src", "href"} or (value and re.search(r"(?i)javascript:|url\(", value)):
                found.append(f"{name}={value!r} on <{tag}>")
    return found


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_scenario_renders_only_our_markup(name: str) -> None:
    markup = page.render(huge_failing(40) if name == "huge_failing" else SCENARIOS[name]())
    assert problems(markup) == []
    for detail in details_of(markup):
        assert problems(detail) == []
    rows = rows_of(markup)
    assert len(rows) == len(SCENARIOS[name]().cases if name != "huge_failing" else range(40))
    for row in rows:
        assert len(row["cells"]) == len(html_cases.COLUMNS)
        for text, cls, title in (piece for cell in row["cells"] for piece in cell):
            assert isinstance(text, str) and isinstance(title, str) and (cls == "" or ROW_CLASSES.fullmatch(cls)), cls


def test_the_policy_loads_nothing_and_allows_exactly_the_inline_script_and_style() -> None:
    markup = page.render(SCENARIOS["regressions"]())
    tree = parsed(markup)
    policy = next(
        a["content"] for t, a in tree.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"
    )
    assert policy is not None
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["default-src"] == "'none'" and directives["img-src"] == "data:"
    assert directives["base-uri"] == "'none'" and directives["form-action"] == "'none'"
    [code] = [script for script in tree.scripts if not script.startswith("{")]  # the other one is the JSON data
    assert directives["script-src"] == _sha256(code)
    assert directives["style-src"] == _sha256(tree.styles[0])
    for forbidden in ("innerHTML =", "insertAdjacentHTML", "document.write", "eval(", "new Function", "fetch("):
        assert code.count(forbidden) == (1 if forbidden == "innerHTML =" else 0), forbidden


def test_hostile_text_is_text_everywhere() -> None:
    markup = page.render(SCENARIOS["hostile"]())
    rows = " ".join(row_text(row) + " " + row["name"] for row in rows_of(markup))
    everything = markup + "".join(details_of(markup))
    assert "\u202e" not in everything + rows and "<U+202E>evil reversed<U+202C>" in html_unescape(everything)
    assert "<script>alert" not in everything and "<img" not in everything and "<details open" not in everything
    shown = html_unescape("".join(details_of(markup)))
    assert "<script>alert(1)</script>" in shown and "<img src=x onerror=alert(2)>" in shown
    for name in ("case-details", "case-rows"):
        data = re.search(rf'id="{name}">(.*?)</script>', markup, re.S)
        assert data and "<" not in data.group(1) and ">" not in data.group(1) and "&" not in data.group(1)


HOSTILE_NAMES = (
    "</script><script>alert(1)</script>",
    "<!--",
    "line\u2028separator\u2029paragraph",
    "evil\u202ereversed\x00\x1b[31m",
    "x" * 100_000,
)


def test_hostile_case_names_are_data_the_script_shows_as_text() -> None:
    """A case's name, file and metric are pieces of text in the rows' JSON: nothing in them can close the element
    that holds the data or reach the page as markup; they are revealed (control and bidirectional characters as
    ``<U+202E>``) and cut where HTML text is cut, while the search still sees the whole id."""
    items = [case(name, [metric(f"m{name[:20]}", 0.1)], file=f"{name[:50]}.evalset.json") for name in HOSTILE_NAMES]
    markup = page.render(document(items))
    data = re.search(r'id="case-rows">(.*?)</script>', markup, re.S)
    assert data and data.group(1).isascii() and not set("<>&") & set(data.group(1))
    assert problems(markup) == [] and "<script>alert" not in markup and "<!--" not in markup
    rows = {row["cells"][1][0][0][:40]: row for row in rows_of(markup)}
    assert "</script><script>alert(1)</script>" in rows
    assert "line\u2028separator\u2029paragraph" in rows  # shown as it is: JSON escapes it, textContent shows it
    assert "evil<U+202E>reversed<U+0000><U+001B>[31m" in rows
    huge = rows["x" * 40]
    assert huge["cells"][1][0][0].endswith(" [80,001 more characters]") and len(huge["cells"][1][0][0]) < 20_100
    assert huge["name"].endswith("x" * 100_000)  # the search sees all of it


def test_lone_surrogates_from_a_results_file_become_replacement_characters() -> None:
    """A results.json may hold ``"\\ud800"`` (valid JSON, not valid UTF-8 text): read as ``report`` reads it, the
    page is written as UTF-8 and shows U+FFFD."""
    from adk_eval_gate.model.results import parse_document
    from adk_eval_gate.support import sanitize

    saved = document([case("paris", [metric("m", 0.1)])]).model_dump_json()
    saved = saved.replace('"eval_id":"paris"', '"eval_id":"par\\ud800is"')
    doc = parse_document(sanitize.loads(saved), shown="results.json")
    markup = page.render(doc)
    markup.encode("utf-8")
    assert rows_of(markup)[0]["cells"][1][0][0] == "par\ufffdis"


def html_unescape(text: str) -> str:
    import html

    return html.unescape(text)


def test_json_for_the_script_cannot_close_it() -> None:
    hostile = ["</script><script>alert(1)</script>", "a & b", "\u2028\u2029", '"quoted" \\']
    dumped = page.json_for_script(hostile)
    assert "<" not in dumped and ">" not in dumped and "&" not in dumped and dumped.isascii()
    assert json.loads(dumped) == hostile


def test_tool_calls_are_marked_argument_by_argument() -> None:
    expected = [("get_weather", {"city": "Paris", "days": 3, "unit": "C"}), ("book", {})]
    actual = [("get_weather", {"city": "Paris", "days": 5, "lang": "fr"})]
    markup = calls_table(expected, actual)
    marks = re.findall(r'<div class="arg (\w+)"><span class="key">(\w+)</span>', markup)
    assert marks == [
        *[("same", "city"), ("changed", "days"), ("missing", "unit")],  # expected side of the first pair
        *[("same", "city"), ("changed", "days"), ("extra", "lang")],  # actual side
    ]
    assert '<div class="call-name missing">book</div>' in markup and '<span class="nocall">' in markup
    assert "none expected / none" in calls_table([], [])
    assert "no expectation" in calls_table(None, actual)


def test_an_argument_is_the_same_only_when_its_json_is() -> None:
    """A string against a string compares as text; any other pair as JSON: "1" is not 1, 1 is not 1.0 or true."""
    pairs = [("3", 3), (1, 1.0), (1, True), ("a", "a"), ({"b": [1, "x"]}, {"b": [1, "x"]}), ("é", "e\u0301")]
    expected = [("f", {f"k{i}": left for i, (left, _) in enumerate(pairs)})]
    actual = [("f", {f"k{i}": right for i, (_, right) in enumerate(pairs)})]
    marks = re.findall(r'<div class="arg (\w+)"><span class="key">k\d</span>', calls_table(expected, actual))
    assert marks[: len(pairs)] == ["changed", "changed", "changed", "same", "same", "changed"]


@pytest.mark.parametrize("value", ['<b>"a" & b</b>', "\u202eevil\x00", "x" * 64, "y" * 65, "", "  "])
def test_text_is_escaped_and_revealed_alike_whether_short_or_long_and_however_often(value: str) -> None:
    shown = parts.text(value)
    assert shown == parts.text(value) == escape_html(parts.plain(value))
    assert parts.text(value, limit=3) == escape_html(parts.plain(value, limit=3))
    assert "<" not in shown and "\u202e" not in shown and "\x00" not in shown


def _events_turn() -> InvocationRecord:
    actual = {
        "user_content": {"role": "user", "parts": [{"text": "hi"}]},
        "final_response": {"role": "model", "parts": [{"text": "hello there"}]},
        "intermediate_data": {
            "invocation_events": [
                {"author": "bot", "usage_metadata": {"prompt_token_count": 1200, "candidates_token_count": 34}},
                {"author": "bot", "usage_metadata": {"prompt_token_count": 1300, "candidates_token_count": 21}},
            ]
        },
        "duration": 2.5,
        "model_duration": 2.0,
        "tool_duration": 0.25,
    }
    return InvocationRecord(user="hi", expected=None, actual=actual)


def test_a_run_shows_each_attempt_that_was_run_again_with_its_reason_as_text() -> None:
    item = case("busy", [metric("m", 1.0)])
    retries = ["ClientError: 429 RESOURCE_EXHAUSTED <b>quota</b>", "the agent worker process 1 was killed by SIGKILL"]
    run = item.runs[0].model_copy(update={"retries": retries})
    markup = page.render(document([item.model_copy(update={"runs": [run]})]))
    detail = details_of(markup)[0]
    shown = html_unescape(re.sub(r"<[^>]+>", " ", detail))
    assert "Retried 2 times" in shown
    assert "attempt 1: ClientError: 429 RESOURCE_EXHAUSTED <b>quota</b>" in shown and "<b>quota" not in detail
    assert "attempt 2: the agent worker process 1 was killed by SIGKILL" in shown
    assert problems(markup) == []
    assert "Retried" not in details_of(page.render(document([item])))[0]


def test_a_run_shows_timings_tokens_judge_verdicts_and_its_log() -> None:
    item = case("talk", [metric("rubric_based_final_response_quality_v1", 0.5, kind="judge")], turns=[_events_turn()])
    run = item.runs[0].model_copy(
        update={
            "log": ["WARNING adk: slow tool <b>", "ERROR model: quota"],
            "notes": ["the answer was cut at 100,000 characters"],
            "duration_seconds": 3.25,
            "metrics": [
                RunMetric(
                    name="rubric_based_final_response_quality_v1",
                    score=0.5,
                    status="failed",
                    reason="one rubric of two was met",
                    rubric_scores=[
                        RubricScoreRecord(rubric_id="polite", score=1.0, rationale="says hello"),
                        RubricScoreRecord(rubric_id="cites", score=0.0, rationale="no source <i>at all</i>"),
                    ],
                    details={"judge_model": "gemini-2.5-flash", "samples": 5},
                )
            ],
        }
    )
    detail = details_of(page.render(document([item.model_copy(update={"runs": [run]})])))[0]
    shown = html_unescape(re.sub(r"<[^>]+>", " ", detail))
    for expected in (
        "time 2.50 s",
        "model 2.00 s",
        "tools 0.25 s",
        "input tokens 2,500",
        "output tokens 55",
        "one rubric of two was met",
        "polite",
        "no source <i>at all</i>",
        '"judge_model": "gemini-2.5-flash"',
        "WARNING adk: slow tool <b>",
        "the answer was cut at 100,000 characters",
        "3.25 s",
    ):
        assert expected in " ".join(shown.split()) or expected in shown, expected


def test_the_judge_section_counts_calibration_calls_apart_from_the_evaluation() -> None:
    doc = document([case("a", [metric("final_response_match_v2", 1.0, kind="judge")])])
    judged = doc.model_copy(update={"judge": JudgeStats(calls=12, cached=2)})
    calibrated = judged.model_copy(update={"calibration_judge": CalibrationJudgeStats(calls=64, calibrated=1)})

    def section(markup: str) -> str:
        found = re.search(r"<section><h2>LLM judge</h2>.*?</section>", markup, re.S)
        return " ".join(html_unescape(re.sub(r"<[^>]+>", " ", found.group(0))).split()) if found else ""

    assert "calls 12" in section(page.render(judged)) and "Calibration" not in section(page.render(judged))
    shown = section(page.render(calibrated))
    assert "calls 12" in shown and "Calibration on the human labels judges calibrated now 1" in shown
    assert "calls 64" in shown
    assert problems(page.render(calibrated)) == []


def test_old_partial_and_foreign_results_still_render() -> None:
    minimal = {
        "schema_version": 1,
        "status": "failed",
        "totals": {"cases": 2},
        "cases": [
            {"id": "a::x", "file": "a", "eval_set_id": "s", "eval_id": "x", "status": "failed", "a_future_field": [1]},
            {
                "id": "a::y",
                "file": "a",
                "eval_set_id": "s",
                "eval_id": "y",
                "status": "error",
                "metrics": [{"name": "m", "score": None, "threshold": None, "status": "not_evaluated"}],
                "runs": [
                    {
                        "run": 1,
                        "status": "error",
                        "invocations": [{"user": "q", "expected": {"not": "an invocation"}, "actual": None}],
                        "metrics": [{"name": "m", "score": None, "status": "not_evaluated", "details": {"x": 1}}],
                    }
                ],
            },
        ],
        "something_new": {"stability": "later"},
    }
    markup = page.render(ResultsDocument.model_validate(minimal))
    assert problems(markup) == [] and [row["status"] for row in rows_of(markup)] == ["failed", "error"]
    assert "Turn 1" in details_of(markup)[1]


def test_a_new_column_or_section_is_one_function(monkeypatch: pytest.MonkeyPatch) -> None:
    def cost(item: Any, context: Any) -> list[html_cases.Piece]:
        return [html_cases.Piece(f"{len(item.eval_id)} ¢")]

    def flaky_runs(item: Any, context: Any) -> str:
        return "<p>flaky section</p>"

    monkeypatch.setattr(html_cases, "COLUMNS", (*html_cases.COLUMNS, html_cases.Column("Cost", cost)))
    monkeypatch.setattr(html_cases, "SECTIONS", (*html_cases.SECTIONS, flaky_runs))
    markup = page.render(document([case("paris", [metric("m", 0.9)])]))
    assert '<span class="cell ">Cost</span>' in markup and rows_of(markup)[0]["cells"][-1] == [["5 ¢", "", ""]]
    assert details_of(markup)[0].endswith("<p>flaky section</p>")


def test_the_filters_list_every_status_file_and_metric() -> None:
    doc = document(
        [
            case("a", [metric("m1", 0.9)], file="x.evalset.json"),
            case("b", [metric("m1", 0.1), metric("m2", 0.9)], file="y.evalset.json"),
        ]
    )
    markup = page.render(doc)
    assert re.findall(r'<option value="(\d*)">([^<]*)</option>', markup) == [
        ("", "all files"),
        ("0", "x.evalset.json"),
        ("1", "y.evalset.json"),
        ("", "all metrics"),
        ("0", "m1"),
        ("1", "m2"),
    ]
    failing = {"status": "failed", "file": 1, "metrics": [0, 1], "failing": [0], "name": "y.evalset.json::b"}
    first = rows_of(markup)[0]
    assert {field: first[field] for field in failing} == failing
    assert "passed (1)" in markup and "failed (1)" in markup and "2 of 2 cases shown" in markup


def test_turns_without_answers_are_not_word_diffed() -> None:
    turn = invocation("q", expected="yes", actual="no", expected_calls=[], actual_calls=[])
    no_actual = InvocationRecord(user="q", expected=turn.expected, actual=None)
    details = details_of(page.render(document([case("a", [metric("m", 0.1)], turns=[turn, no_actual])])))[0]
    assert details.count('data-diff="words"') == 1


@pytest.mark.slow  # a page of 400 failing cases
def test_the_details_are_compressed_data_so_a_page_of_many_cases_stays_small() -> None:
    """The page embeds the rows as data (the script builds them) and the cases' details as compressed data,
    unpacked in the browser for an opened case only: 400 failing cases with long answers take under 600 bytes
    each (about 410; 10.5 KB each if the details were JSON strings of HTML, 1.1 KB if the rows were HTML)."""
    doc = huge_failing(400)
    markup = page.render(doc)
    assert len(markup.encode("utf-8")) < 400 * 600
    details = details_of(markup)
    assert len(details) == 400 and all('<div class="run">' in detail for detail in details)
    assert '<div class="run">' not in markup  # nothing of a case's details is in the page as HTML


@pytest.mark.slow  # two pages of 100 and 150 failing cases: most of a second of CPU
def test_the_drops_table_shows_the_first_drops_and_counts_the_rest() -> None:
    """Every case's details list its changes; the table above the cases stops at ``DROPS_SHOWN`` rows (10,000
    regressed cases would make it megabytes of HTML the browser parses before anything else)."""
    markup = page.render(huge_failing(150))  # two metrics regressed in each case
    drops = re.search(r"<h3>Drops</h3><table>(.*?)</table>(<p>[^<]*</p>)?", markup, re.S)
    assert drops and drops.group(1).count("<tr>") == page.DROPS_SHOWN + 1  # and the header
    assert drops.group(2) == "<p>… and 100 more: each case lists its own changes.</p>"
    assert "… and" not in page.render(huge_failing(100))
