"""Console output: plain lines locally, GitHub workflow commands (groups, annotations, masks) in Actions.

Every line that could carry a secret goes through ``Console.mask`` first. Every line of text goes through
``safe_line``: eval files, agents, results files and servers are untrusted, and in Actions a line that starts with
``::`` (or the older ``##[``) is a workflow command: such text could otherwise add masks, stop command processing,
write annotations or set outputs. Only this module writes our own commands, from fixed text and escaped data.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Protocol, TextIO

from adk_eval_gate.support.sanitize import clean_text

_COMMAND_START = re.compile(r"^(\s*)([:#])(?=:|#\[)")  # "::command" and the older "##[command]"
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_NEWLINES = re.compile(r"\r\n|\r|\n")


def safe_line(text: str) -> str:
    """One physical line that cannot start a workflow command and holds no control characters."""
    text = _NEWLINES.sub(" ⏎ ", clean_text(text))
    text = _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", text)
    return _COMMAND_START.sub("\\1\\2\u200b", text)


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
        self.errors_reported = 0  # every error line or annotation (validate fails on any)
        self._lock = threading.Lock()  # worker output is relayed from reader threads
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
            with self._lock:
                self.stream.write(line + "\n")
                self.stream.flush()
        except (BrokenPipeError, ValueError):
            pass

    def line(self, text: str = "") -> None:
        self._write(safe_line(self.mask(text)))

    def warning(self, text: str, *, file: str | None = None, line: int | None = None) -> None:
        if self.in_actions:
            self._annotation("warning", text, file=file, line=line)
        else:
            self._write(safe_line(self.mask(f"warning: {text}")))

    def error(self, text: str, *, file: str | None = None, line: int | None = None, limit: bool = True) -> None:
        self.errors_reported += 1
        if self.in_actions:
            self._annotation("error", text, file=file, line=line, limit=limit)
        else:
            self._write(safe_line(self.mask(f"error: {text}")))

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
            self._write(safe_line(self.mask(f"{level}: {text}")))
            return
        self.annotations_written += 1
        props = []
        if file:
            props.append(f"file={_escape_property(file)}")
            if line:
                props.append(f"line={line}")
        head = f"::{level} {','.join(props)}::" if props else f"::{level}::"
        self._write(head + _escape_data(_CONTROL.sub(" ", clean_text(self.mask(text)))))

    def group(self, title: str) -> None:
        title = safe_line(self.mask(title))
        self._write(f"::group::{title}" if self.in_actions else f"== {title}")

    def end_group(self) -> None:
        if self.in_actions:
            self._write("::endgroup::")


class MaskingStream(io.TextIOBase):
    """``sys.stdout``/``sys.stderr`` while agents and libraries run in this process: what they print reaches the
    log line by line through ``Console.line`` (secrets masked, workflow commands neutralised)."""

    def __init__(self, console: Console) -> None:
        super().__init__()
        self.console = console
        self._pending = ""
        self._lock = threading.Lock()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        with self._lock:
            self._pending += text
            *lines, self._pending = self._pending.split("\n")
        for line in lines:
            self.console.line(line)
        return len(text)

    def flush(self) -> None:
        with self._lock:
            rest, self._pending = self._pending, ""
        if rest:
            self.console.line(rest)


class Writer(Protocol):
    """Something of ours that writes to the terminal itself (the console, the progress line)."""

    stream: TextIO


RELAY_GRACE = 2.0  # seconds the relay waits for the pipe's last lines (a child process may still hold it)


def relay_lines(descriptor: int, on_line: Callable[[str], None]) -> None:
    """Reads ``descriptor`` to its end and passes each line on (decoded leniently); closes it."""
    pending = b""
    while True:
        try:
            chunk = os.read(descriptor, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            break
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            on_line(line.decode("utf-8", "replace").rstrip("\r"))
    if pending:
        on_line(pending.decode("utf-8", "replace"))
    with contextlib.suppress(OSError):
        os.close(descriptor)


def _flush_everything() -> None:
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with contextlib.suppress(Exception):
            if stream is not None:
                stream.flush()
    with contextlib.suppress(Exception):  # C code's buffered stdio output, while it still goes where it was meant
        import ctypes

        ctypes.CDLL(None).fflush(None)


def _writing_to(writer: Writer) -> int | None:
    with contextlib.suppress(Exception):  # no file descriptor (a StringIO, pytest's capture)
        descriptor = writer.stream.fileno()
        return descriptor if descriptor in (1, 2) else None
    return None


@contextlib.contextmanager
def _own_copies(writers: Sequence[Writer], saved: dict[int, int]) -> Iterator[None]:
    """Our writers that write to file descriptor 1 or 2 write to a copy of the original meanwhile."""
    swapped: list[tuple[Writer, TextIO]] = []
    for writer in writers:
        descriptor = _writing_to(writer)
        if descriptor is not None:
            original = writer.stream
            encoding, errors = getattr(original, "encoding", "utf-8"), getattr(original, "errors", "strict")
            writer.stream = open(os.dup(saved[descriptor]), "w", encoding=encoding, errors=errors)  # noqa: SIM115
            swapped.append((writer, original))
    try:
        yield
    finally:
        for writer, original in swapped:
            with contextlib.suppress(Exception):
                writer.stream.close()
            writer.stream = original


@contextlib.contextmanager
def _descriptors_relayed(console: Console, writers: Sequence[Writer]) -> Iterator[None]:
    """File descriptors 1 and 2 (C code, ``os.write``, child processes) go through ``console`` line by line, as
    the workers' output does; nothing changes when they cannot be duplicated."""
    _flush_everything()
    try:
        saved = {descriptor: os.dup(descriptor) for descriptor in (1, 2)}
    except OSError:
        yield
        return
    read, write = os.pipe()
    relay = threading.Thread(target=relay_lines, args=(read, console.line), name="adk-eval-gate-relay", daemon=True)
    try:
        with _own_copies([console, *writers], saved):
            os.dup2(write, 1)
            os.dup2(write, 2)
            os.close(write)
            relay.start()
            try:
                yield
            finally:
                _flush_everything()
                os.dup2(saved[1], 1)
                os.dup2(saved[2], 2)
                relay.join(RELAY_GRACE)
    finally:
        for descriptor in saved.values():
            os.close(descriptor)


@contextlib.contextmanager
def relayed_output(console: Console, writers: Sequence[Writer] = ()) -> Iterator[None]:
    """While agents, metrics and their libraries run in this process, what they print goes through ``console``:
    ``sys.stdout``/``sys.stderr``, and what reaches file descriptors 1 and 2 by other ways. ``writers``: ours that
    write to the terminal besides the console (they keep writing there directly)."""
    previous = sys.stdout, sys.stderr
    stream = MaskingStream(console)
    with _descriptors_relayed(console, writers):
        sys.stdout = sys.stderr = stream
        try:
            yield
        finally:
            sys.stdout, sys.stderr = previous
            stream.flush()
