"""The small pieces every part of report.html is built from. Untrusted text enters the page only through ``text``
(HTML-escaped, control characters and bidirectional overrides shown as ``<U+202E>``, cut at a limit), or through
``plain`` (the same without the escaping) into the data the page's script shows as text (``textContent``)."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from typing import Any

from adk_eval_gate.report.markdown import escape_html, reveal, score, truncate

TEXT_LIMIT = 20_000  # characters of one answer, log or details block; the rest is cut with a note
STATUS_LABELS = {
    "passed": "passed",
    "failed": "failed",
    "error": "error",
    "not_evaluated": "not evaluated",
    "informational": "informational",
    "quarantined": "quarantined",
}


def plain(value: object, *, limit: int | None = TEXT_LIMIT) -> str:
    """Any value as the text the page shows, not escaped: for data the script sets as ``textContent``."""
    shown = str(value)
    if limit is not None and len(shown) > limit:
        shown = truncate(shown, limit) + f" [{len(shown) - limit + 1:,} more characters]"
    return reveal(shown)


SHORT_TEXT = 64  # characters: a label, a status, a number, a metric or tool name; they repeat in every case


def text(value: object, *, limit: int | None = TEXT_LIMIT) -> str:
    """Any value as escaped text for an element's content or a double-quoted attribute."""
    if type(value) is str and len(value) <= SHORT_TEXT:
        return _short_text(value, limit)
    return escape_html(plain(value, limit=limit))


@functools.lru_cache(maxsize=4096)
def _short_text(value: str, limit: int | None) -> str:
    return escape_html(plain(value, limit=limit))


def element(tag: str, body: str, *, cls: str = "", attrs: dict[str, str] | None = None) -> str:
    """``<tag class=...>body</tag>``; ``body`` and attribute values must already be escaped."""
    if attrs:
        attributes = f' class="{cls}"' if cls else ""
        attributes += "".join(f' {name}="{value}"' for name, value in attrs.items())
        return f"<{tag}{attributes}>{body}</{tag}>"
    if cls:
        return f'<{tag} class="{cls}">{body}</{tag}>'
    return f"<{tag}>{body}</{tag}>"


def pre(value: str, *, cls: str = "") -> str:
    """A block of text; it scrolls when long, so it takes the keyboard's focus too (``tabindex``)."""
    return element("pre", text(value), cls=cls, attrs={"tabindex": "0"})


def as_json(value: Any) -> str:
    """A value from a results file as indented JSON text (for tool arguments, metric details)."""
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return str(value)


def json_for_script(value: object) -> str:
    """JSON that is safe inside a ``<script>`` element: no ``<``, ``>`` or ``&``, and ASCII only."""
    dumped = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    return dumped.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def badge_class(status: str) -> str:
    return f"badge s-{status if status in STATUS_LABELS else 'other'}"


def badge(status: str) -> str:
    return element("span", text(STATUS_LABELS.get(status, status)), cls=badge_class(status))


def section(title: str, body: str, *, cls: str = "") -> str:
    """A titled block of a case's details; ``title`` is our own text, ``body`` escaped HTML."""
    return element("section", element("h4", text(title)) + body, cls=f"part {cls}".strip())


def table(header: list[str], rows: Iterable[list[str]], *, cls: str = "") -> str:
    """A table; header cells are our text, row cells escaped HTML."""
    head = "".join(element("th", text(cell)) for cell in header)
    body = "".join("<tr>" + "".join(element("td", cell) for cell in row) + "</tr>" for row in rows)
    return element("table", f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody>", cls=cls)


def key_values(pairs: Iterable[tuple[str, str | None]]) -> str:
    """A definition list of the pairs whose value is not None; values are escaped HTML."""
    items = "".join(f"<dt>{text(key)}</dt><dd>{value}</dd>" for key, value in pairs if value is not None)
    return element("dl", items, cls="kv") if items else ""


def number(value: float | None, *, digits: int = 3) -> str:
    return score(value, digits=digits)


def seconds(value: float | None) -> str | None:
    return None if value is None else f"{value:.2f} s"


def count(value: float | None) -> str | None:
    return None if value is None else f"{value:,.0f}"
