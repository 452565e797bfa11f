"""Renders Markdown with GitHub's own renderer (cmark-gfm, raw HTML let through as GitHub's sanitizer would
see it) and lists what untrusted text must never produce: tags or links we did not write, notifications
(``@name``, ``#123``), a second hidden marker, or a heading that escaped a code block."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import cmarkgfm
from cmarkgfm.cmark import Options

ALLOWED_TAGS = {
    "p", "table", "thead", "tbody", "tr", "th", "td", "code", "pre", "strong", "em",
    "details", "summary", "sub", "h2", "h3", "ul", "li", "a", "br", "wbr",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {("a", "href"), ("th", "align"), ("td", "align"), ("pre", "lang"), ("details", "open")}
_MENTION = re.compile(r"(?<![\w\u200b`])@[A-Za-z0-9]")
_REFERENCE = re.compile(r"(?<!\u200b)#\d|\bGH-\d", re.IGNORECASE)


def render_html(markdown: str) -> str:
    return str(cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE))


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.comments: list[str] = []
        self.text_outside_code: list[str] = []
        self._code_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        if tag in {"code", "pre"}:
            self._code_depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in {"code", "pre"}:
            self._code_depth -= 1

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)

    def handle_data(self, data: str) -> None:
        if self._code_depth == 0:
            self.text_outside_code.append(data)


def problems(markdown: str, *, allowed_links: set[str], comments: int = 1) -> list[str]:
    """Everything in the rendered ``markdown`` that untrusted text could have caused."""
    collector = _Collector()
    collector.feed(render_html(markdown))
    found = []
    for tag, attrs in collector.tags:
        if tag not in ALLOWED_TAGS:
            found.append(f"tag <{tag}>")
        for name, value in attrs:
            if (tag, name) not in ALLOWED_ATTRIBUTES:
                found.append(f"attribute {name}= on <{tag}>")
            if tag == "a" and name == "href" and value not in allowed_links:
                found.append(f"link to {value}")
    if len(collector.comments) != comments:
        found.append(f"{len(collector.comments)} HTML comments (only our marker may be one)")
    text = "".join(collector.text_outside_code)
    found += [f"mention {m.group(0)!r}" for m in _MENTION.finditer(text)]
    found += [f"reference {m.group(0)!r}" for m in _REFERENCE.finditer(text)]
    return found
