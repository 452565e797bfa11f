"""Exception types shared by every stage.

Each carries what the command line needs to print one clear line (and a GitHub annotation): the file,
the line when known, the field, and what to do.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar


@dataclass
class GateError(Exception):
    """An error the user can fix; printed as one line, never a traceback."""

    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    field: str | None = None
    hint: str | None = None
    also: tuple[GateError, ...] = ()  # the other problems of the same file, reported with this one
    unlisted: int = 0  # and how many more it has (a huge file's), only counted

    def __post_init__(self) -> None:
        super().__init__(self.message)

    def one_line(self) -> str:
        where = ""
        if self.file:
            where = self.file
            if self.line:
                where += f":{self.line}"
                if self.column:
                    where += f":{self.column}"
            where += ": "
        field = f"{self.field}: " if self.field else ""
        hint = f" ({self.hint})" if self.hint else ""
        return f"{where}{field}{self.message}{hint}"

    def __str__(self) -> str:
        return self.one_line()

    def every_problem(self) -> list[GateError]:
        """This problem and the others of its file (``also``)."""
        return [self, *self.also]

    def more(self) -> int:
        """How many problems of the file there are besides this one."""
        return len(self.also) + self.unlisted


_Problem = TypeVar("_Problem", bound=GateError)


def first_of(problems: Iterable[_Problem], *, unlisted: int = 0) -> _Problem:
    """The first of one file's problems in the file's order (by line), carrying the others (``also``) and how many
    more there are that were only counted (``unlisted``): raised, it reports them all at once."""
    ordered = sorted(problems, key=lambda problem: problem.line or 0)
    return dataclasses.replace(ordered[0], also=tuple(ordered[1:]), unlisted=unlisted)


class UnknownField(str):
    """A warning about a key or column that ADK ignores (a misspelt criterion option, an unknown top-level key):
    ``run`` goes on as ADK does, ``validate`` fails on it unless ``--allow-unknown-fields``."""

    __slots__ = ()


class UsageError(GateError):
    """A command-line option or action input is wrong (exit code 2)."""


@dataclass
class ConfigError(GateError):
    """A test_config.json (or --config) cannot be used (exit code 2 in validate, a file error in run)."""


class EvalFileError(GateError):
    """An eval file cannot be loaded."""


class RecordedError(GateError):
    """Recorded results (ADK result files or results.json) cannot be used."""


UNEXPECTED_SHOWN = 300  # characters of an unexpected error's text in a one-line problem


def unexpected(error: BaseException) -> str:
    """An error nobody foresaw as one short phrase: its type and the start of its text (an ``OSError`` quotes the
    path it was given, which a repository file may have made 100,000 characters long)."""
    text = str(error)
    if len(text) > UNEXPECTED_SHOWN:
        text = f"{text[:UNEXPECTED_SHOWN]}... ({len(text):,} characters)"
    return f"{type(error).__name__}: {text}"
