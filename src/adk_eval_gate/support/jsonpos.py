"""Line numbers for JSON paths.

The standard json module does not report where values are. Errors and annotations must name the line of a
field (``eval_cases[2].conversation[0].user_content``), so this small scanner records the position of every
value by its path. It is only used on error paths and for annotations, never on the scoring hot path.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

JsonPath = tuple[str | int, ...]

_WS = " \t\n\r"


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.positions: dict[JsonPath, int] = {}
        self.key_positions: dict[JsonPath, int] = {}

    def skip_ws(self, i: int) -> int:
        text = self.text
        while i < len(text) and text[i] in _WS:
            i += 1
        return i

    def value(self, i: int, path: JsonPath) -> int:
        i = self.skip_ws(i)
        self.positions[path] = i
        if i >= len(self.text):
            raise ValueError("unexpected end")
        ch = self.text[i]
        if ch == "{":
            return self.obj(i + 1, path)
        if ch == "[":
            return self.arr(i + 1, path)
        if ch == '"':
            return self.string(i)[1]
        j = i
        while j < len(self.text) and self.text[j] not in ",]}" + _WS:
            j += 1
        return j

    def string(self, i: int) -> tuple[str, int]:
        j = i + 1
        text = self.text
        chunks: list[str] = []
        while j < len(text):
            ch = text[j]
            if ch == "\\":
                chunks.append(text[j : j + 2])
                j += 2
                continue
            if ch == '"':
                import json

                return json.loads('"' + "".join(chunks) + '"'), j + 1
            chunks.append(ch)
            j += 1
        raise ValueError("unterminated string")

    def obj(self, i: int, path: JsonPath) -> int:
        i = self.skip_ws(i)
        if self.text[i] == "}":
            return i + 1
        while True:
            i = self.skip_ws(i)
            key_start = i
            key, i = self.string(i)
            key_path = (*path, key)
            self.key_positions[key_path] = key_start
            i = self.skip_ws(i)
            i += 1  # ':'
            i = self.value(i, key_path)
            i = self.skip_ws(i)
            if self.text[i] == ",":
                i += 1
                continue
            return i + 1

    def arr(self, i: int, path: JsonPath) -> int:
        i = self.skip_ws(i)
        if self.text[i] == "]":
            return i + 1
        index = 0
        while True:
            i = self.value(i, (*path, index))
            i = self.skip_ws(i)
            index += 1
            if self.text[i] == ",":
                i += 1
                continue
            return i + 1


class JsonPositions:
    """Maps JSON paths of one document to 1-based (line, column)."""

    def __init__(self, text: str) -> None:
        self._text = text
        scanner = _Scanner(text)
        with contextlib.suppress(ValueError, IndexError):  # json itself reports syntax errors
            scanner.value(0, ())
        self._values = scanner.positions
        self._keys = scanner.key_positions
        self._line_starts = [0]
        for index, ch in enumerate(text):
            if ch == "\n":
                self._line_starts.append(index + 1)

    def _line_col(self, offset: int) -> tuple[int, int]:
        import bisect

        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def locate(self, path: Sequence[str | int]) -> tuple[int, int] | None:
        """The position of the deepest known prefix of ``path`` (its key when it has one)."""
        items = tuple(path)
        while True:
            if items in self._keys:
                return self._line_col(self._keys[items])
            if items in self._values:
                return self._line_col(self._values[items])
            if not items:
                return None
            items = items[:-1]


def format_path(path: Sequence[str | int]) -> str:
    """``('eval_cases', 2, 'eval_id')`` -> ``eval_cases[2].eval_id``."""
    out = ""
    for item in path:
        if isinstance(item, int):
            out += f"[{item}]"
        else:
            out += f".{item}" if out else str(item)
    return out or "(top level)"
