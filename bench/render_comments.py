"""How the PR comment and the job summary look on GitHub: tables that overflow, and the height with every
<details> closed and open, at two widths of the browser window.

Run: python bench/render_comments.py [FILE.md ...] [--out DIR]   (default: the golden comment and summary of every
current input, tests/golden/expected/NAME/; needs Debian's Chromium and Mermaid in tests/js, which bash .ci/test
installs)

Each Markdown file is rendered with GitHub's renderer, cmark-gfm (the GitHub extensions; raw HTML let through as
GitHub lets <details>, <summary> and <sub> through), into a page laid out like a pull request's conversation:
GitHub's markdown-body rules for text, tables, code and details at 14 px in the system font, in a comment box
beside the sidebar and the avatar gutter. The box's width follows GitHub's layout (an approximation, stated in
``PAGE_STYLE``): 698 px of text in a 1,100 px window, 508 px in an 850 px one (the summary's page is wider on
GitHub; it is measured in the same box). ```mermaid blocks are drawn with the real Mermaid library in the page.

In headless Chromium at 850 and 1,100 px it measures every table's natural width against the width it has (an
overflowing table scrolls sideways on GitHub; those are named), and the height of the comment with every
<details> closed and with all of them open, and writes PNG screenshots of both into --out (default: a new
temporary folder; never commit them). Emoji need a colour emoji font (Debian: fonts-noto-color-emoji) to show in
the screenshots and to be measured at their real width; without one they are empty boxes.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.browser import browser_problem, shared_browser, shutdown  # noqa: E402
from tests.mermaid import MERMAID_JS, mermaid_problem  # noqa: E402
from tests.report.safety import render_html  # noqa: E402

WIDTHS = (850, 1100)
MAX_SHOT_HEIGHT = 16_000  # px of a screenshot; taller comments are cut there (the figures are not)

# GitHub's pull-request page, as boxes: a centred column with a sidebar (256 px from 1,012 px on, 220 px below),
# a 56 px avatar gutter, and the comment box (1 px border, 16 px padding) around the markdown-body.
PAGE_STYLE = """
body { margin: 0; background: #fff; color: #1f2328; }
.layout { display: flex; gap: 24px; max-width: 1280px; margin: 0 auto; padding: 24px 32px; }
.main { flex: 1 1 auto; min-width: 0; } .sidebar { flex: 0 0 256px; }
@media (max-width: 1011px) { .layout { gap: 16px; padding: 16px 24px; } .sidebar { flex-basis: 220px; } }
.timeline-comment { margin-left: 56px; border: 1px solid #d1d9e0; border-radius: 6px; }
.comment-header { height: 38px; background: #f6f8fa; border-bottom: 1px solid #d1d9e0; }
.comment-body { padding: 16px; }
.markdown-body { font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial,
  sans-serif; font-size: 14px; line-height: 1.5; word-wrap: break-word; }
.markdown-body > *:first-child { margin-top: 0 !important; }
.markdown-body > *:last-child { margin-bottom: 0 !important; }
.markdown-body p, .markdown-body ul, .markdown-body ol, .markdown-body table, .markdown-body pre,
.markdown-body details, .markdown-body blockquote { margin-top: 0; margin-bottom: 16px; }
.markdown-body h2, .markdown-body h3 { margin-top: 24px; margin-bottom: 16px; font-weight: 600; line-height: 1.25; }
.markdown-body h2 { font-size: 1.5em; padding-bottom: .3em; border-bottom: 1px solid #d1d9e0b3; }
.markdown-body h3 { font-size: 1.25em; }
.markdown-body ul, .markdown-body ol { padding-left: 2em; }
.markdown-body table { display: block; width: max-content; max-width: 100%; overflow: auto; border-spacing: 0;
  border-collapse: collapse; font-variant: tabular-nums; }
.markdown-body table th { font-weight: 600; }
.markdown-body table th, .markdown-body table td { padding: 6px 13px; border: 1px solid #d1d9e0; }
.markdown-body table tr { background-color: #fff; border-top: 1px solid #d1d9e0b3; }
.markdown-body table tr:nth-child(2n) { background-color: #f6f8fa; }
.markdown-body code { padding: .2em .4em; margin: 0; font-size: 85%; white-space: break-spaces;
  background-color: #818b981f; border-radius: 6px; }
.markdown-body code, .markdown-body pre { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas,
  "Liberation Mono", monospace; }
.markdown-body pre { padding: 16px; overflow: auto; font-size: 85%; line-height: 1.45; background-color: #f6f8fa;
  border-radius: 6px; }
.markdown-body pre code { padding: 0; margin: 0; font-size: 100%; white-space: pre; background: transparent; }
.markdown-body details summary { cursor: pointer; display: list-item; }
.markdown-body sub { font-size: 75%; }
.markdown-body .mermaid { margin-bottom: 16px; }
"""

# Draws the ```mermaid blocks as GitHub does (its own viewer; here the SVG inline), then measures.
RENDER_MERMAID = """async () => {
  const blocks = Array.from(document.querySelectorAll("pre[lang=mermaid], code.language-mermaid"));
  const errors = [];
  let n = 0;
  for (const block of blocks) {
    const pre = block.closest("pre") || block;
    const code = block.textContent;
    const holder = document.createElement("div");
    holder.className = "mermaid";
    pre.replaceWith(holder);
    try { holder.innerHTML = (await mermaid.render("chart" + (++n), code)).svg; }
    catch (error) { errors.push(String(error.message || error).split("\\n")[0]); }
  }
  return errors;
}"""
MEASURE = """(open) => {
  document.querySelectorAll(".markdown-body details").forEach((d) => { d.open = open; });
  const body = document.querySelector(".markdown-body");
  const available = body.clientWidth;
  const tables = Array.from(body.querySelectorAll("table")).map((table, i) => {
    const heading = table.querySelector("th");
    return { name: "table " + (i + 1) + " (" + (heading ? heading.textContent.trim().slice(0, 30) : "") + ")",
             width: table.scrollWidth, visible: !!table.offsetParent };
  });
  return { available, tables, height: Math.round(document.querySelector(".timeline-comment").offsetHeight) };
}"""


@dataclass(frozen=True)
class Figures:
    file: str
    width: int
    available: int
    tables: int
    widest: int
    overflowing: list[str]
    closed_height: int
    open_height: int
    mermaid_errors: list[str]


def page_html(markdown: str) -> str:
    body = render_html(markdown)
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><style>{PAGE_STYLE}</style></head><body>"
        "<div class='layout'><div class='main'><div class='timeline-comment'><div class='comment-header'></div>"
        f"<div class='comment-body markdown-body'>{body}</div></div></div><div class='sidebar'></div></div>"
        "</body></html>"
    )


def measure(path: Path, *, width: int, out: Path) -> Figures:
    context = shared_browser().new_context(viewport={"width": width, "height": 900})
    try:
        page = context.new_page()
        page.set_content(page_html(path.read_text(encoding="utf-8")))
        page.add_script_tag(path=str(MERMAID_JS))
        page.evaluate("mermaid.initialize({startOnLoad: false, securityLevel: 'strict'})")
        errors: list[str] = page.evaluate(RENDER_MERMAID)
        states: dict[str, Any] = {}
        for state in ("closed", "open"):
            states[state] = page.evaluate(MEASURE, state == "open")
            clip = {"x": 0, "y": 0, "width": width, "height": min(states[state]["height"] + 80, MAX_SHOT_HEIGHT)}
            shot = out / f"{path.parent.name}-{path.stem}-{width}-{state}.png"
            page.screenshot(path=str(shot), full_page=True, clip=clip)
    finally:
        context.close()
    tables, available = states["open"]["tables"], int(states["open"]["available"])
    return Figures(
        file=f"{path.parent.name}/{path.name}",
        width=width,
        available=available,
        tables=len(tables),
        widest=max((int(table["width"]) for table in tables), default=0),
        overflowing=[str(table["name"]) for table in tables if int(table["width"]) > available],
        closed_height=int(states["closed"]["height"]),
        open_height=int(states["open"]["height"]),
        mermaid_errors=errors,
    )


def golden_files() -> list[Path]:
    current = sorted(path for path in (REPO / "tests" / "golden" / "expected").iterdir() if "." not in path.name)
    return [folder / "comment.md" for folder in current] + [folder / "summary.md" for folder in current]


def print_figures(rows: list[Figures]) -> None:
    print(
        f"{'file':<26} {'window':>6} {'text px':>7} {'tables':>6} {'widest':>6} "
        f"{'closed px':>9} {'open px':>8}  overflowing tables / Mermaid errors"
    )
    for row in rows:
        notes = ", ".join(row.overflowing) + (
            "; Mermaid: " + "; ".join(row.mermaid_errors) if row.mermaid_errors else ""
        )
        print(
            f"{row.file:<26} {row.width:>6} {row.available:>7} {row.tables:>6} {row.widest:>6} "
            f"{row.closed_height:>9,} {row.open_height:>8,}  {notes or '-'}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "files", nargs="*", type=Path, help="Markdown files (default: the golden comments and summaries)"
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="folder for the PNG screenshots (default: a temp folder)"
    )
    args = parser.parse_args()
    problem = browser_problem() or mermaid_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 2
    out = args.out or Path(tempfile.mkdtemp(prefix="render-comments-"))
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    try:
        for path in args.files or golden_files():
            rows.extend(measure(path, width=width, out=out) for width in WIDTHS)
    finally:
        shutdown()
    print_figures(rows)
    print(f"screenshots: {out}")
    return 1 if any(row.mermaid_errors for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
