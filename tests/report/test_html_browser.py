"""report.html in headless Chromium: it opens from disk without any request but the file itself, its script runs
under its own Content-Security-Policy and builds the case list, the filters show the right cases, hostile text
stays text and runs nothing (even with the policy bypassed), axe-core finds nothing critical or serious, the
keyboard's focus is never under the sticky filters, and a 10,000-case report is ready with its failing cases
first, then lists, filters, searches and opens every case (its time: bench/html_report.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from adk_eval_gate.model.results import ResultsDocument
from adk_eval_gate.report.html import page as html_page
from tests.report.builders import case, document, invocation, metric
from tests.report.scenarios import SCENARIOS, huge_failing

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.slow

AXE_JS = Path(__file__).resolve().parents[1] / "js" / "node_modules" / "axe-core" / "axe.min.js"
HOSTILE_TEXTS = (
    "</script><script>window.pwned = 1</script>",
    '<img src=x onerror="window.pwned = 2">',
    "\"quoted\" 'single' `back` <b>bold</b> &amp;",
    "\u202eevil reversed\u202c",
    "<!-- line\u2028separator\u2029paragraph",
)


class Opened:
    """A page opened from a file, with every request it made, every console message and every dialog."""

    def __init__(self, page: Page, path: Path) -> None:
        self.page, self.url = page, path.resolve().as_uri()
        self.requests: list[str] = []
        self.console: list[str] = []
        self.dialogs: list[str] = []
        page.on("request", lambda request: self.requests.append(request.url))
        page.on("console", lambda message: self.console.append(message.text))
        page.on("pageerror", lambda error: self.console.append(f"page error: {error}"))
        page.on("dialog", lambda dialog: (self.dialogs.append(dialog.message), dialog.dismiss()))

    def open(self) -> None:
        """Loads the page and waits for its script to be ready (bench/html_report.py times this)."""
        self.page.goto(self.url)
        self.page.wait_for_selector("html[data-ready='1']", state="attached")

    def visible_cases(self) -> int:
        """The rows in the list (the script adds only the cases the filters let through)."""
        return int(self.page.locator("#case-list details.case").count())

    def listed(self) -> None:
        """Waits until the script has added every row the filters let through (it adds them in slices)."""
        self.page.wait_for_selector("#case-list[aria-busy='false']", state="attached")

    def open_every_case(self) -> None:
        from playwright.sync_api import expect

        self.page.evaluate("document.querySelectorAll('details.case').forEach((d) => { d.open = true; })")
        # the details are unpacked asynchronously; a locator waits without evaluating a string in the page (the
        # page's policy forbids that once a first check has failed)
        expect(self.page.locator("details.case .case-body:empty")).to_have_count(0)


OpenReport = Callable[..., Opened]


@pytest.fixture
def opened(browser: Browser, tmp_path: Path) -> Iterator[OpenReport]:
    contexts = []

    def open_report(doc: ResultsDocument, *, bypass_csp: bool = False) -> Opened:
        path = tmp_path / f"report{len(contexts)}.html"
        path.write_text(html_page.render(doc), encoding="utf-8")
        context = browser.new_context(bypass_csp=bypass_csp, viewport={"width": 1280, "height": 900})
        contexts.append(context)
        result = Opened(context.new_page(), path)
        result.open()
        return result

    yield open_report
    for context in contexts:
        context.close()


def test_it_opens_from_disk_with_no_request_but_the_file_and_its_script_runs(opened: OpenReport) -> None:
    report = opened(SCENARIOS["regressions"]())
    report.open_every_case()
    report.page.locator("#file-filter").select_option(index=1)
    assert report.requests == [report.url]
    assert [line for line in report.console if "Content Security Policy" in line or "error" in line.lower()] == []
    assert report.page.locator("details.case .answers[data-diff='done']").count() > 0  # the script filled them
    assert report.page.locator("svg.chart rect.bar.head:not(.key)").count() == 3


def test_the_filters_show_the_cases_they_name(opened: OpenReport) -> None:
    doc = document(
        [
            case("a_pass", [metric("m1", 0.9)], file="x.evalset.json"),
            case("b_fail", [metric("m1", 0.1), metric("m2", 0.9)], file="y.evalset.json"),
            case("c_fail", [metric("m2", 0.2)], file="y.evalset.json"),
            case("d_error", [], error="boom", file="x.evalset.json"),
            case("e_pass", [metric("m2", 0.95)], file="y.evalset.json"),
        ]
    )
    report = opened(doc)
    page = report.page
    assert report.visible_cases() == 5 and page.locator("#shown-count").inner_text() == "5 of 5 cases shown"
    page.locator("input[name=status][value=passed]").click()
    assert report.visible_cases() == 3  # the failed ones and the error
    page.locator("input[name=status][value=error]").click()
    assert report.visible_cases() == 2
    page.locator("input[name=status][value=passed]").click()
    page.locator("#file-filter").select_option(label="y.evalset.json")
    assert report.visible_cases() == 3 and page.locator("#shown-count").inner_text() == "3 of 5 cases shown"
    page.locator("#metric-filter").select_option(label="m1")
    assert report.visible_cases() == 1
    page.locator("#metric-filter").select_option(label="m2")
    assert report.visible_cases() == 3
    page.locator("#metric-failing").click()
    assert report.visible_cases() == 1  # c_fail: b_fail fails on m1, not m2
    page.locator("#metric-filter").select_option(label="all metrics")
    page.locator("#file-filter").select_option(label="all files")
    assert report.visible_cases() == 2  # every case with a metric that did not pass
    page.locator("#metric-failing").click()
    page.locator("#text-filter").fill("e_pa")
    assert report.visible_cases() == 1
    assert page.locator("#case-list .eval-id").text_content() == "e_pass"


def _hostile_document() -> ResultsDocument:
    text = " ".join(HOSTILE_TEXTS)
    turn = invocation(
        text,
        expected=text,
        actual=text + " and more",
        expected_calls=[{"name": "get</script>", "args": {"q": HOSTILE_TEXTS[1]}}],
        actual_calls=[{"name": HOSTILE_TEXTS[0], "args": {"q\"'<": HOSTILE_TEXTS[2]}}],
    )
    hostile_case = case(HOSTILE_TEXTS[0], [metric(HOSTILE_TEXTS[1], 0.1)], file=HOSTILE_TEXTS[2], turns=[turn])
    run = hostile_case.runs[0].model_copy(update={"log": list(HOSTILE_TEXTS), "notes": [HOSTILE_TEXTS[1]]})
    named = [case(name, [metric("m", 0.9)]) for name in (*HOSTILE_TEXTS[1:], "long" * 30_000)]
    crash = case("crash", [], error=HOSTILE_TEXTS[0])
    return document([hostile_case.model_copy(update={"runs": [run]}), crash, *named])


@pytest.mark.parametrize("bypass_csp", [False, True], ids=["with-policy", "policy-bypassed"])
def test_hostile_text_shows_as_text_and_runs_nothing(opened: OpenReport, bypass_csp: bool) -> None:
    report = opened(_hostile_document(), bypass_csp=bypass_csp)
    report.open_every_case()
    page = report.page
    assert page.evaluate("window.pwned") is None and report.dialogs == []
    assert page.locator("img").count() == 0 and page.locator("b").count() == 0
    assert page.locator("script").count() == 3  # the rows, the details and the page's own script
    shown = page.locator("body").inner_text()
    for hostile in HOSTILE_TEXTS[:3]:
        assert hostile in shown, hostile
    assert "\u202e" not in shown and "<U+202E>evil reversed<U+202C>" in shown
    names = page.locator("#case-list .eval-id").all_text_contents()
    assert HOSTILE_TEXTS[0] in names and HOSTILE_TEXTS[4] in names  # the line separators kept, shown as text
    assert any(name.startswith("longlong") and name.endswith(" more characters]") for name in names)
    page.locator("#text-filter").fill("<!-- line\u2028")
    assert report.visible_cases() == 1 and page.locator("#case-list .eval-id").text_content() == HOSTILE_TEXTS[4]
    assert report.requests == [report.url]


def _large_document(cases: int, failing: int) -> ResultsDocument:
    """``cases`` cases in 7 files, the last ``failing`` of them failing (copies: building each would take long)."""
    passed, failed = case("passing", [metric("m1", 0.9), metric("m2", 0.9)]), case("failing", [metric("m1", 0.1)])
    copies = []
    for number in range(cases):
        template, file = (failed if number >= cases - failing else passed), f"suite/part_{number % 7}.evalset.json"
        name = f"case_{number:05d}"
        copies.append(template.model_copy(update={"eval_id": name, "id": f"{file}::{name}", "file": file}))
    return document(copies)


def test_a_report_of_10000_cases_is_ready_at_once_and_lists_filters_and_opens_every_case(
    browser: Browser, tmp_path: Path
) -> None:
    path = tmp_path / "large.html"
    path.write_text(html_page.render(_large_document(10_000, 500)), encoding="utf-8")
    assert path.stat().st_size < 10_000 * 400  # about 200 bytes a case (1.1 KB of HTML each when the rows were HTML)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        report = Opened(context.new_page(), path)
        report.open()
        page = report.page
        assert page.locator("#shown-count").inner_text() == "10000 of 10000 cases shown"
        assert page.locator("details.case").first.get_attribute("data-status") == "failed"  # the failing first
        report.listed()
        assert report.visible_cases() == 10_000
        statuses = [page.locator(f"#case-{index}").get_attribute("data-status") for index in (499, 500, 9999)]
        assert statuses == ["failed", "passed", "passed"]
        page.locator("input[name=status][value=passed]").click()
        assert page.locator("#shown-count").inner_text() == "500 of 10000 cases shown"
        report.listed()
        assert report.visible_cases() == 500
        page.locator("input[name=status][value=passed]").click()
        page.locator("#text-filter").fill("case_00042")  # a passing case, near the end of the list
        assert report.visible_cases() == 1 and page.locator("#shown-count").inner_text() == "1 of 10000 cases shown"
        page.locator("#case-list details.case summary").focus()
        page.keyboard.press("Enter")  # the keyboard opens it
        expect_filled = page.locator("#case-list details.case[open] .case-body .answers[data-diff='done']")
        expect_filled.wait_for(state="attached")
        assert page.locator("#case-list .eval-id").text_content() == "case_00042"
        assert page.locator("#case-list .where").text_content() == "suite/part_0.evalset.json:5"
        assert report.console == [] and report.requests == [report.url]
    finally:
        context.close()


def test_a_link_to_a_case_far_down_the_list_opens_it(browser: Browser, tmp_path: Path) -> None:
    path = tmp_path / "large.html"
    path.write_text(html_page.render(_large_document(3_000, 10)), encoding="utf-8")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        report = Opened(context.new_page(), path)
        report.url += "#case-2990"
        report.open()
        linked = report.page.locator("#case-2990")
        assert linked.get_attribute("open") == "" and linked.locator(".eval-id").text_content() == "case_02980"
        linked.locator(".answers[data-diff='done']").wait_for(state="attached")
    finally:
        context.close()


def _axe(report: Opened) -> list[str]:
    """What axe-core finds of critical or serious impact (WCAG A and AA rules), one line each."""
    if not AXE_JS.is_file():
        pytest.fail("axe-core is not installed in tests/js/node_modules: run `bash .ci/test` (npm ci in tests/js)")
    report.page.evaluate(AXE_JS.read_text(encoding="utf-8"))
    found = report.page.evaluate(
        """async () => {
          const result = await axe.run(document, {runOnly: ["wcag2a", "wcag2aa", "best-practice"]});
          return result.violations.filter((v) => v.impact === "critical" || v.impact === "serious")
            .map((v) => v.id + ": " + v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | "));
        }"""
    )
    return list(found)


@pytest.mark.parametrize("name", ["regressions", "no_baseline", "flaky", "cost_rises", "error_with_failures"])
def test_axe_core_finds_nothing_critical_or_serious(opened: OpenReport, name: str) -> None:
    report = opened(SCENARIOS[name]())
    report.open_every_case()
    assert _axe(report) == []


def test_axe_core_finds_nothing_critical_or_serious_in_a_list_of_blocks(opened: OpenReport) -> None:
    """300 cases: three blocks of rows, the last two laid out only near the screen."""
    report = opened(_large_document(300, 40))
    report.listed()
    assert report.page.locator("#case-list .rows").count() == 3
    report.page.locator("#case-299").evaluate("(d) => { d.open = true; }")
    report.page.locator("#case-299 .answers[data-diff='done']").wait_for(state="attached")
    assert _axe(report) == []


def test_the_keyboards_focus_is_never_under_the_sticky_filters(opened: OpenReport) -> None:
    report = opened(huge_failing(60))
    page = report.page
    summaries = "document.querySelectorAll('details.case > summary')"
    page.evaluate(f"{summaries}[30].scrollIntoView({{block: 'start'}})")  # the case at the very top, under the bar
    page.evaluate(f"{summaries}[29].focus({{preventScroll: true}})")
    page.keyboard.press("Tab")  # the keyboard moves the focus to the case under the bar
    bar = page.evaluate("document.getElementById('filters').getBoundingClientRect().bottom")
    focused = page.evaluate("document.activeElement.getBoundingClientRect().top")
    assert page.evaluate("document.activeElement.matches('details.case > summary')")
    assert focused >= bar, (focused, bar)
