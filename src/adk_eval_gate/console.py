"""Console output: plain lines locally, GitHub workflow commands (groups, annotations, masks) in Actions.

Every line that could carry a secret goes through ``Console.mask`` first.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TextIO


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


class Console:
    def __init__(self, *, in_actions: bool, stream: TextIO | None = None, secrets: Iterable[str] = ()) -> None:
        self.in_actions = in_actions
        self.stream = stream or sys.stdout
        self.secrets = [secret for secret in secrets if secret and len(secret) >= 4]
        self.annotations_written = 0
        self.annotations_dropped = 0
        if in_actions:
            for secret in self.secrets:
                self._write(f"::add-mask::{secret}")

    def add_secret(self, secret: str) -> None:
        if secret and len(secret) >= 4 and secret not in self.secrets:
            self.secrets.append(secret)
            if self.in_actions:
                self._write(f"::add-mask::{secret}")

    def mask(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, "***")
        return text

    def _write(self, line: str) -> None:
        try:
            self.stream.write(line + "\n")
            self.stream.flush()
        except (BrokenPipeError, ValueError):
            pass

    def line(self, text: str = "") -> None:
        self._write(self.mask(text))

    def warning(self, text: str, *, file: str | None = None, line: int | None = None) -> None:
        if self.in_actions:
            self._annotation("warning", text, file=file, line=line)
        else:
            self._write(self.mask(f"warning: {text}"))

    def error(self, text: str, *, file: str | None = None, line: int | None = None, limit: bool = True) -> None:
        if self.in_actions:
            self._annotation("error", text, file=file, line=line, limit=limit)
        else:
            self._write(self.mask(f"error: {text}"))

    def _annotation(
        self,
        level: str,
        text: str,
        *,
        file: str | None,
        line: int | None,
        limit: bool = True,
        max_annotations: int = 50,
    ) -> None:
        if limit and self.annotations_written >= max_annotations:
            self.annotations_dropped += 1
            self._write(self.mask(f"{level}: {text}"))
            return
        self.annotations_written += 1
        props = []
        if file:
            props.append(f"file={_escape_property(file)}")
            if line:
                props.append(f"line={line}")
        head = f"::{level} {','.join(props)}::" if props else f"::{level}::"
        self._write(head + _escape_data(self.mask(text)))

    def group(self, title: str) -> None:
        self._write(f"::group::{self.mask(title)}" if self.in_actions else self.mask(f"== {title}"))

    def end_group(self) -> None:
        if self.in_actions:
            self._write("::endgroup::")
