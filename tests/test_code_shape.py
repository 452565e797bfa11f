"""The code stays readable as it grows: no function longer than 60 lines under src/."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.package_sources import nodes, package_files, parsed, source

SRC = Path(__file__).resolve().parents[1] / "src" / "adk_eval_gate"
MAX_FUNCTION_LINES = 60


def _long_functions(text: str) -> list[tuple[str, int]]:
    tree = parsed(text)
    return [
        (node.name, (node.end_lineno or node.lineno) - node.lineno + 1)
        for node in nodes(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and (node.end_lineno or node.lineno) - node.lineno + 1 > MAX_FUNCTION_LINES
    ]


def test_no_function_is_longer_than_60_lines() -> None:
    found = {
        f"{path.relative_to(SRC)}:{name}": length
        for path in package_files()
        for name, length in _long_functions(source(path))
    }
    assert found == {}, f"split these functions: {found}"


def test_the_check_sees_a_long_function() -> None:
    body = "\n".join(f"    x{n} = {n}" for n in range(MAX_FUNCTION_LINES))
    assert _long_functions(f"def long() -> None:\n{body}\n") == [("long", MAX_FUNCTION_LINES + 1)]
    assert _long_functions("def short() -> None:\n    pass\n") == []


STATUS_FIELDS = {"status", "first_status", "base_status", "head_status", "effect"}


def _literal_statuses(text: str) -> list[int]:
    """Lines that compare a status (``x.status``, ``x.effect``, ...) with a string written out."""

    def is_status(node: ast.expr) -> bool:
        return isinstance(node, ast.Attribute) and node.attr in STATUS_FIELDS

    def is_text(node: ast.expr) -> bool:
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(is_text(item) for item in node.elts)
        return isinstance(node, ast.Constant) and isinstance(node.value, str)

    return [
        node.lineno
        for node in nodes(parsed(text))
        if isinstance(node, ast.Compare)
        and any(is_status(side) for side in [node.left, *node.comparators])
        and any(is_text(side) for side in [node.left, *node.comparators])
    ]


def test_statuses_are_compared_as_the_vocabulary_not_as_strings() -> None:
    """One status vocabulary (``model/results/vocabulary.py``: CaseStatus, RunStatus, MetricStatus, Effect, and
    BudgetStatus in ``model/results/usage_and_budgets.py``): no module compares a status with a string literal
    such as ``case.status == "passed"``."""
    found = {f"{path.relative_to(SRC)}:{line}" for path in package_files() for line in _literal_statuses(source(path))}
    assert found == set()
    assert _literal_statuses('if case.status in ("failed", "error"):\n    pass\n') == [1]


ORDERINGS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _score_threshold_comparisons(text: str) -> list[int]:
    """Lines that order a score against a threshold: a comparison (``<``, ``<=``, ``>``, ``>=``) one of whose sides
    names something called ``*score*`` and another something called ``*threshold*``."""

    def mentions(node: ast.expr, word: str) -> bool:
        found = (
            n.id if isinstance(n, ast.Name) else n.attr
            for n in ast.walk(node)
            if isinstance(n, ast.Name | ast.Attribute)
        )
        return any(word in name.lower() for name in found)

    lines = []
    for node in nodes(parsed(text)):
        if not isinstance(node, ast.Compare) or not any(isinstance(op, ORDERINGS) for op in node.ops):
            continue
        sides = [node.left, *node.comparators]
        scores = {index for index, side in enumerate(sides) if mentions(side, "score")}
        thresholds = {index for index, side in enumerate(sides) if mentions(side, "threshold")}
        if scores and thresholds and (len(scores | thresholds) > 1):
            lines.append(node.lineno)
    return lines


def test_only_the_verdict_compares_a_score_with_a_threshold() -> None:
    """Metrics score, outputs render: whether a score meets its threshold is decided in ``verdict/`` only."""
    found = {
        f"{path.relative_to(SRC)}:{line}"
        for path in package_files()
        if path.relative_to(SRC).parts[0] != "verdict"
        for line in _score_threshold_comparisons(source(path))
    }
    assert found == set(), f"decide these in verdict/ (verdict/aggregation.py): {sorted(found)}"


def test_the_check_sees_a_score_ordered_against_a_threshold() -> None:
    assert _score_threshold_comparisons("ok = metric.score < metric.threshold\n") == [1]
    assert _score_threshold_comparisons("ok = score >= self.threshold\n") == [1]
    assert _score_threshold_comparisons("ok = outcome.scores[0] > criterion.threshold\n") == [1]
    assert _score_threshold_comparisons("ok = self.threshold > 0.0\n") == []  # a threshold against a constant
    assert _score_threshold_comparisons("ok = low <= threshold <= high\n") == []
    assert _score_threshold_comparisons("same = score == threshold\n") == []  # equality decides nothing


def _format_suffixes() -> tuple[str, ...]:
    from adk_eval_gate.inputs import formats

    return tuple({suffix for entry in formats.FORMATS for suffix in (*entry.suffixes, *entry.named_suffixes)})


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstrings' constants (a module's, a class's, a function's)."""
    holders = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {
        id(node.body[0].value)
        for node in nodes(tree)
        if isinstance(node, holders)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def _format_suffix_literals(text: str, suffixes: tuple[str, ...]) -> list[int]:
    """Lines whose code holds an eval-file format's suffix as a file name or pattern (``".test.json"``,
    ``"*-dataset.json"``); a docstring, or a message that names one among other words, is not code."""
    tree = parsed(text)
    docstrings = _docstrings(tree)
    return [
        node.lineno
        for node in nodes(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and node.value.endswith(suffixes)
        and not any(character.isspace() for character in node.value)
    ]


def test_only_the_format_registry_holds_an_eval_file_suffix() -> None:
    suffixes = _format_suffixes()
    registry = SRC / "inputs" / "formats.py"
    found = {
        f"{path.relative_to(SRC)}:{line}"
        for path in package_files()
        if path != registry
        for line in _format_suffix_literals(source(path), suffixes)
    }
    assert found == set(), f"read these suffixes from inputs/formats.py: {sorted(found)}"


def test_the_check_sees_a_format_suffix_in_code() -> None:
    suffixes = _format_suffixes()
    code = 'def f(name: str) -> bool:\n    """Is it a *.test.json?"""\n    return name.endswith("-dataset.json")\n'
    assert _format_suffix_literals(code, suffixes) == [3]
    assert _format_suffix_literals('X = "*.evalset.jsonl"\n', suffixes) == [1]
    assert _format_suffix_literals('MESSAGE = "name it *.test.json or *.evalset.json"\n', suffixes) == []
    assert _format_suffix_literals('X = "results.json"\n', suffixes) == []
