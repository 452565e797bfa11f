"""Untrusted YAML read safely: PyYAML's safe loader, with what it does not bound bounded.

* Aliases: a few lines of anchors that refer to each other (a "billion laughs") are a handful of nodes to the loader
  and an exponential number of values to everything that walks the result; an alias to an enclosing node makes a
  structure that contains itself. Both are refused: the values the document expands to are counted, once per node,
  before anything is built from it.
* Nesting: deeper than ``max_depth`` levels is refused (a 100,000-deep ``[[[...`` exhausts the loader's recursion).
* Values: only what JSON has (mappings with string keys, lists, strings, finite numbers, booleans, null): a date,
  a set, binary data or ``.inf`` is refused with its line, so every later stage sees JSON data.

``line_of`` finds the line of a key path in the document, for one-line errors.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

import yaml

from adk_eval_gate.support import sanitize

MAX_VALUES = 100_000  # values a config expands to (aliases counted as often as they are used)


class UnsafeYaml(ValueError):
    """YAML that cannot be used (the message says why; ``line`` where, 1-based, when known)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def _line(node: yaml.Node | None) -> int | None:
    return node.start_mark.line + 1 if node is not None and node.start_mark is not None else None


def _count(root: yaml.Node, *, max_depth: int, max_values: int) -> None:
    """Refuses a document that contains itself, nests deeper than ``max_depth`` or expands to more than
    ``max_values`` values. Each node's expanded size and height are computed once, so a web of aliases costs its
    nodes, not its expansion."""
    sizes: dict[int, tuple[int, int]] = {}  # node -> (values it expands to, levels it nests)
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        children = _children(node)
        if done:
            on_path.discard(key)
            size = 1 + sum(sizes[id(child)][0] for child in children)
            height = 1 + max((sizes[id(child)][1] for child in children), default=0)
            if size > max_values:
                raise UnsafeYaml(
                    f"expands to more than {max_values:,} values (aliases repeat what they refer to)", _line(node)
                )
            if height > max_depth:
                raise UnsafeYaml(f"nested more than {max_depth} levels deep", _line(node))
            sizes[key] = (size, height)
            continue
        if key in sizes:
            continue
        on_path.add(key)
        stack.append((node, True))
        for child in children:
            if id(child) in on_path:
                raise UnsafeYaml(
                    "an alias refers to a value that contains it (a structure that contains itself)", _line(child)
                )
            if id(child) not in sizes:
                stack.append((child, False))


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _check_value(value: Any, node: yaml.Node | None) -> None:
    """JSON's values only, and finite numbers (the node, when known, gives the line)."""
    if value is None or isinstance(value, bool | str):
        return
    if isinstance(value, int | float):
        if not sanitize.is_finite_number(value):
            raise UnsafeYaml(f"{sanitize.shown_number(value)} is not a finite number", _line(node))
        return
    if isinstance(value, datetime.date):
        raise UnsafeYaml(f"{value.isoformat()} is read as a date by YAML: quote it to keep it as text", _line(node))
    raise UnsafeYaml(f"holds a {type(value).__name__} value, which has no JSON form: use a string", _line(node))


def _walk(value: Any, node: yaml.Node | None) -> Any:
    """The constructed data checked against its nodes (the same shape)."""
    if isinstance(value, dict):
        pairs = node.value if isinstance(node, yaml.MappingNode) else []
        nodes = {id(key_node): value_node for key_node, value_node in pairs}
        keyed = {key_node.value: value_node for key_node, value_node in pairs if isinstance(key_node, yaml.ScalarNode)}
        for key, item in value.items():
            if not isinstance(key, str):
                raise UnsafeYaml(f"the key {key!r} is not text: quote it"[:120], _line(node))
            _walk(item, keyed.get(key) or nodes.get(id(key)))
        return value
    if isinstance(value, list):
        items = node.value if isinstance(node, yaml.SequenceNode) else []
        for index, item in enumerate(value):
            _walk(item, items[index] if index < len(items) else None)
        return value
    _check_value(value, node)
    return value


def load(
    text: str,
    *,
    max_depth: int = sanitize.MAX_EVAL_FILE_DEPTH,
    max_values: int = MAX_VALUES,
    json_values: bool = True,
) -> tuple[Any, Any]:
    """(the data, the document's root node for ``line_of``); ``UnsafeYaml`` for what cannot be used, and for YAML
    syntax errors (with their line). ``json_values=False`` keeps the safe loader's other values (dates, sets, ...)
    for a file whose few known keys are all that is read: aliases and nesting are bounded all the same."""
    loader = yaml.SafeLoader(text)
    try:
        try:
            node = loader.get_single_node()
        except yaml.MarkedYAMLError as error:
            mark = error.problem_mark or error.context_mark
            problem = error.problem or error.context or "is not valid YAML"
            raise UnsafeYaml(f"invalid YAML: {problem}", mark.line + 1 if mark else None) from None
        except yaml.YAMLError as error:
            raise UnsafeYaml(f"invalid YAML: {error}") from None
        except RecursionError:
            raise UnsafeYaml(f"nested more than {max_depth} levels deep") from None
        if node is None:
            return None, None
        _count(node, max_depth=max_depth, max_values=max_values)
        try:
            data = loader.construct_document(node)
        except yaml.MarkedYAMLError as error:
            mark = error.problem_mark or error.context_mark
            raise UnsafeYaml(
                f"invalid YAML: {error.problem or error.context}", mark.line + 1 if mark else None
            ) from None
        except (yaml.YAMLError, ValueError, OverflowError) as error:
            raise UnsafeYaml(f"invalid YAML: {error}", _line(node)) from None
    finally:
        loader.dispose()
    if json_values:
        _walk(data, node)
    cleaned, _ = sanitize.bounded(data, max_depth=max_depth + 1)  # lone surrogates (escapes YAML allows) replaced
    return cleaned, node


def line_of(root: Any, path: Sequence[str | int]) -> int | None:
    """The line of the value at ``path`` (of its key, for a mapping entry), or of the nearest enclosing one found."""
    node = root
    line = _line(node) if isinstance(node, yaml.Node) else None
    for item in path:
        if isinstance(node, yaml.MappingNode) and isinstance(item, str):
            pair = next((p for p in node.value if isinstance(p[0], yaml.ScalarNode) and p[0].value == item), None)
            if pair is None:
                return line
            line, node = _line(pair[0]), pair[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(item, int) and 0 <= item < len(node.value):
            node = node.value[item]
            line = _line(node)
        else:
            return line
    return line
