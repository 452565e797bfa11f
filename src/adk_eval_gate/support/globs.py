"""Glob patterns, matched in time linear in the text's length whatever the pattern.

A regular expression made from a glob backtracks: ``**/a/**/b/**/c/**/d/**/*.bin`` against a long path that
almost matches tries every way of splitting it among the stars (minutes for 1,200 characters). Here a pattern is
a small automaton (a state before each of its tokens) and the text is read once, left to right, with every state
the text can be in held at once as the bits of an integer: each character costs a few integer operations on
``len(pattern)`` bits, never a return to an earlier character.

Two dialects:

- ``PathGlob``: repository paths (``--include``, ``--exclude``, ``--always-affected``, the file of a
  ``--quarantine`` selector). ``*`` and ``?`` stay within a folder, ``**/`` is any number of folders (none too),
  ``**`` elsewhere is anything; every other character is itself (``[`` too: file names hold brackets).
  ``matches_file``: the pattern matches the whole path or the file's name, so ``*.csv`` matches ``data/rates.csv``.
- ``NameGlob``: names with ``fnmatch``'s syntax (case ids, model names): ``*`` and ``?`` match any character,
  ``[abc]``, ``[a-z]`` and ``[!abc]`` one character of a set; case-sensitive.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

_ANY = "any"  # one character that is not "/" (path) or any character (name)
_STAR = "star"  # any run of characters without "/" (path) or of any characters (name)
_DEEP = "deep"  # any run of characters, "/" included
_FOLDERS = "folders"  # any run of whole folders ("**/"), none too: (?:[^/]*/)*
_LITERAL = "literal"
_SET = "set"
_CACHED_MASKS = 512  # characters whose masks are kept (a text may hold any number of distinct characters)


@dataclass(frozen=True)
class _Token:
    kind: str
    char: str = ""
    test: Callable[[str], bool] | None = None  # a set's membership


class _Automaton:
    """States 0..n: state i is "the text so far matched the tokens before token i"; state n accepts.

    A literal, ``?`` or a set moves i to i+1 on a character it accepts; a star stays at i on the characters it
    accepts; ``**/`` (whole folders) stays at i on a ``/`` and otherwise goes to its second state, i + n + 1 (the
    middle of a folder's name), which stays there until a ``/`` brings it back to i. Every star and ``**/`` may be
    left without a character (i to i+1), and those are the only moves without one."""

    def __init__(self, tokens: list[_Token], *, slash_stops: bool) -> None:
        self.accept = 1 << len(tokens)
        self.offset = len(tokens) + 1  # of the second states of "**/"
        self.slash_stops = slash_stops
        self.literals: dict[str, int] = {}
        self.any = self.star = self.deep = self.folders = self.skip = 0
        self.sets: list[tuple[int, Callable[[str], bool]]] = []
        for index, token in enumerate(tokens):
            bit = 1 << index
            if token.kind == _LITERAL:
                self.literals[token.char] = self.literals.get(token.char, 0) | bit
            elif token.kind == _ANY:
                self.any |= bit
            elif token.kind == _SET and token.test is not None:
                self.sets.append((bit, token.test))
            elif token.kind == _STAR:
                self.star |= bit
            elif token.kind == _DEEP:
                self.deep |= bit
            elif token.kind == _FOLDERS:
                self.folders |= bit
        self.skip = self.star | self.deep | self.folders
        self.inside = self.folders << self.offset
        self._masks: dict[str, tuple[int, int]] = {}

    def _masks_of(self, char: str) -> tuple[int, int]:
        """(the states a character moves forward, the states it keeps)."""
        found = self._masks.get(char)
        if found is None:
            free = not (self.slash_stops and char == "/")
            forward = self.literals.get(char, 0) | (self.any if free else 0)
            for bit, test in self.sets:
                if test(char):
                    forward |= bit
            kept = self.deep | (self.star if free else 0) | (self.folders if char == "/" else self.inside)
            found = (forward, kept)
            if len(self._masks) >= _CACHED_MASKS:
                self._masks.clear()
            self._masks[char] = found
        return found

    def _closure(self, states: int) -> int:
        """The states reachable without a character: from a state on, through the run of stars and ``**/`` it
        begins, to the token after the run. One addition crosses every run at once: in ``(states & skip) + skip``
        the carry from the lowest state in a run ends just past it, and the XOR leaves every bit in between."""
        return states | (((states & self.skip) + self.skip) ^ self.skip)

    def matches(self, text: str) -> bool:
        states = self._closure(1)
        for char in text:
            forward, kept = self._masks_of(char)
            moved = ((states & forward) << 1) | (states & kept)
            if char == "/":
                moved |= (states & self.inside) >> self.offset
            else:
                moved |= (states & self.folders) << self.offset
            states = self._closure(moved)
            if not states:
                return False
        return bool(states & self.accept)


class PathGlob:
    """A glob over repository-relative POSIX paths (see the module's docstring)."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        tokens: list[_Token] = []
        index = 0
        while index < len(pattern):
            if pattern.startswith("**", index):
                if pattern.startswith("/", index + 2):
                    tokens.append(_Token(_FOLDERS))
                    index += 3
                else:
                    tokens.append(_Token(_DEEP))
                    index += 2
            elif pattern[index] == "*":
                tokens.append(_Token(_STAR))
                index += 1
            elif pattern[index] == "?":
                tokens.append(_Token(_ANY))
                index += 1
            else:
                tokens.append(_Token(_LITERAL, pattern[index]))
                index += 1
        self._automaton = _Automaton(tokens, slash_stops=True)

    def matches(self, path: str) -> bool:
        """The pattern matches the whole path."""
        return self._automaton.matches(path)

    def matches_file(self, path: str) -> bool:
        """The pattern matches the whole path or its last part (a name alone matches at any depth)."""
        return self.matches(path) or ("/" in path and self.matches(path.rsplit("/", 1)[-1]))

    def __repr__(self) -> str:
        return f"PathGlob({self.pattern!r})"


class NameGlob:
    """A glob with ``fnmatch``'s syntax over a name, case-sensitive (``fnmatch.fnmatchcase``)."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        tokens: list[_Token] = []
        index = 0
        while index < len(pattern):
            char = pattern[index]
            if char == "*":
                if not tokens or tokens[-1].kind != _STAR:
                    tokens.append(_Token(_STAR))
                index += 1
            elif char == "?":
                tokens.append(_Token(_ANY))
                index += 1
            elif char == "[" and (found := _character_set(pattern, index)) is not None:
                test, index = found
                tokens.append(_Token(_SET, test=test))
            else:
                tokens.append(_Token(_LITERAL, char))
                index += 1
        self._automaton = _Automaton(tokens, slash_stops=False)

    def matches(self, name: str) -> bool:
        return self._automaton.matches(name)

    def __repr__(self) -> str:
        return f"NameGlob({self.pattern!r})"


def _character_set(pattern: str, start: int) -> tuple[Callable[[str], bool], int] | None:
    """The set ``[...]`` at ``start`` as ``fnmatch`` reads it (a ``]`` first is a member, ``!`` first negates,
    ``a-z`` is a range) and the index after it; None when it is not closed (then ``[`` is itself)."""
    index = start + 1
    negated = index < len(pattern) and pattern[index] == "!"
    if negated:
        index += 1
    first = index
    members: set[str] = set()
    ranges: list[tuple[str, str]] = []
    while index < len(pattern) and (pattern[index] != "]" or index == first):
        if index + 2 < len(pattern) and pattern[index + 1] == "-" and pattern[index + 2] != "]":
            low, high = pattern[index], pattern[index + 2]
            if low <= high:
                ranges.append((low, high))
            index += 3
        else:
            members.add(pattern[index])
            index += 1
    if index >= len(pattern):
        return None
    frozen = frozenset(members)
    bounds = tuple(ranges)

    def test(char: str) -> bool:
        inside = char in frozen or any(low <= char <= high for low, high in bounds)
        return inside != negated

    return test, index + 1
