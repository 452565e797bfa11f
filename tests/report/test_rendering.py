"""Every golden comment and summary rendered with GitHub's Markdown renderer (cmark-gfm): nothing from an agent
becomes HTML, and every table fits a pull-request comment by a rule on its cells: no cell holds a run of more
than ``UNBROKEN`` characters without a place to wrap (a space or ``<wbr>``), so a long case id or metric
name can never push a table past the comment's 850 px (``bench/render_comments.py`` measures it in Chromium)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.report.safety import render_html

EXPECTED = Path(__file__).resolve().parents[1] / "golden" / "expected"
UNBROKEN = 32  # characters: about 250 px of a 14 px font, a third of a comment's width
MAX_COLUMNS = 6
FILES = sorted([*EXPECTED.glob("*/comment.md"), *EXPECTED.glob("*/summary.md")])


_WBR = "\n"  # a <wbr> in a cell's text: a place to wrap


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in {"td", "th"}:
            self._cell = []
        elif tag == "wbr" and self._cell is not None:
            self._cell.append(_WBR)

    def handle_endtag(self, tag: str) -> None:
        if tag in {"td", "th"} and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def cells(markdown: str) -> list[list[str]]:
    parser = _Cells()
    parser.feed(render_html(markdown))
    return parser.rows


def longest_unbroken(text: str) -> int:
    return max((len(run) for run in re.split(r"[\s\u200b]+", text)), default=0)


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_no_table_cell_is_too_long_to_wrap(path: Path) -> None:
    rows = cells(path.read_text(encoding="utf-8"))
    assert all(len(row) <= MAX_COLUMNS for row in rows)
    too_long = [cell for row in rows for cell in row if longest_unbroken(cell) > UNBROKEN]
    assert too_long == [], f"{path.parent.name}/{path.name}: cells that cannot wrap: {too_long[:3]}"


def test_the_rule_sees_a_cell_that_cannot_wrap() -> None:
    wide = "| Case | Metric |\n|---|---|\n| `agents/weather/weather.evalset.json::wrong_city_on_purpose` | m |\n"
    [_, row] = cells(wide)
    assert longest_unbroken(row[0]) > UNBROKEN
    [_, broken] = cells("| Case |\n|---|\n| wrong\\_<wbr>city\\_<wbr>on\\_<wbr>purpose\\_<wbr>and\\_<wbr>more |\n")
    assert longest_unbroken(broken[0]) <= UNBROKEN and "\u200b" not in broken[0]


@pytest.mark.parametrize("path", [p for p in FILES if p.name == "comment.md"], ids=lambda p: p.parent.name)
def test_the_comment_fits_one_screen_with_every_section_closed(path: Path) -> None:
    """Outside the collapsed sections, a comment is the verdict, a few lines and the metric table."""
    text = path.read_text(encoding="utf-8")
    outside = re.sub(r"<details>.*?</details>", "", text, flags=re.S)
    while "<details>" in outside:  # nested sections
        outside = re.sub(r"<details>(?:(?!<details>).)*?</details>", "", outside, flags=re.S)
    lines = [line for line in outside.splitlines() if line.strip()]
    assert len(lines) <= 30, f"{path.parent.name}: {len(lines)} lines outside the collapsed sections"
