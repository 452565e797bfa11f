"""Safe Markdown for text that came from eval files or agents (untrusted).

GitHub renders Markdown with some HTML: untrusted text is escaped so it cannot inject HTML, spoof our hidden
marker, notify people (``@name``) or link issues (``#123``), or break out of a code block or a table cell.
"""

from __future__ import annotations

import re

_ZWSP = "\u200b"
_MENTION = re.compile(r"@(?=[A-Za-z0-9_-])")
_ISSUE_REF = re.compile(r"(?<!&)#(?=\d)")  # also owner/repo#12, which notifies the other repository
_GH_REF = re.compile(r"(?i)\bGH-(?=\d)")
_URL_SCHEME = re.compile(r"(?i)(https?|ftp|javascript|data|vbscript|mailto):")
_WWW = re.compile(r"(?i)www\.")
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()!|~>#+=-])")
# C0/C1 controls (except tab and newline) and the bidirectional overrides that can make text read differently
_INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def clean(text: str) -> str:
    """Drops control characters and bidirectional overrides (they can disguise what text says)."""
    return _INVISIBLE.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def reveal(text: str) -> str:
    """Shows control characters and bidirectional overrides as ``<U+202E>`` (where text must stay complete)."""
    text = text.replace("\r\n", "\n")
    return _INVISIBLE.sub(lambda m: f"<U+{ord(m.group(0)):04X}>", text)


def _neutralise_notifications(text: str) -> str:
    text = _MENTION.sub("@" + _ZWSP, text)
    text = _GH_REF.sub(lambda m: m.group(0)[:2] + _ZWSP + "-", text)
    return _ISSUE_REF.sub("#" + _ZWSP, text)


def escape_html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def inline(text: str, *, limit: int | None = None) -> str:
    """Untrusted text inside a paragraph, heading or table cell: one line, no Markdown, no HTML."""
    text = clean(truncate(text, limit) if limit else text)
    text = _neutralise_notifications(escape_html(text))
    text = _MARKDOWN_SPECIAL.sub(r"\\\1", text)
    text = _URL_SCHEME.sub(lambda m: m.group(1) + _ZWSP + ":", text)
    text = _WWW.sub(lambda m: m.group(0)[:3] + _ZWSP + ".", text)
    return " ".join(text.split()) if "\n" in text or "\t" in text else text


def code(text: str, *, limit: int | None = None, in_table: bool = False) -> str:
    """Untrusted text as inline code that cannot be closed early (``in_table``: also escape ``|``)."""
    text = truncate(text, limit) if limit else text
    text = " ".join(clean(text).split())
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text else ""
    if in_table:  # GitHub splits table cells on "|" even inside code spans
        text = text.replace("|", "\\|")
    return f"{fence}{pad}{text}{pad}{fence}"


def code_block(text: str, *, language: str = "", limit: int | None = None) -> str:
    """Untrusted text as a fenced block; the fence is longer than any backtick run inside."""
    text = clean(truncate(text, limit) if limit else text)
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def details(summary_html: str, body: str, *, open_: bool = False) -> str:
    """A collapsible section; ``summary_html`` must already be escaped."""
    attribute = " open" if open_ else ""
    return f"<details{attribute}><summary>{summary_html}</summary>\n\n{body}\n\n</details>"


def summary_text(text: str, *, limit: int = 120) -> str:
    """Untrusted text inside ``<summary>``: HTML-escaped, one line, notifications neutralised."""
    return _neutralise_notifications(escape_html(" ".join(clean(truncate(text, limit)).split())))


def truncate(text: str, limit: int | None) -> str:
    if limit is None or len(text) <= limit:
        return text
    return text[: max(0, limit - 1)] + "…"


def score(value: float | None, *, digits: int = 3) -> str:
    if value is None:
        return "–"
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return text if text not in {"-0", ""} else "0"


def table(header: list[str], rows: list[list[str]], *, align: list[str] | None = None) -> str:
    """A Markdown table; cells must already be escaped."""
    aligns = align or ["---"] * len(header)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(aligns) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


_BREAK = "\ue000"  # where a break opportunity goes, until the text is escaped (a private-use character)
_BREAK_AFTER = re.compile(r"([_/.:\-])(?=\S)")
_LONG_RUN = re.compile("[^\\s\ue000]{24}(?=[^\\s\ue000])")


def breakable(text: str, *, limit: int | None = 160) -> str:
    """Untrusted text for a table cell that must wrap: ``inline``, with a break opportunity (``<wbr>``, never an
    invisible character that a reviewer would copy with the id) after ``_ / . : -`` and inside any run of 24
    characters without one, so a long id never widens the table."""
    text = " ".join(clean(truncate(text, limit) if limit else text).replace(_BREAK, "").split())
    text = _LONG_RUN.sub(lambda m: m.group(0) + _BREAK, _BREAK_AFTER.sub(lambda m: m.group(1) + _BREAK, text))
    return inline(text).replace(_BREAK, "<wbr>")
