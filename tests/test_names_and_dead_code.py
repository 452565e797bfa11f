"""Names a reader can trust: every module of the package has a name of its own (``junit.py`` says which JUnit only
with its folder), and every function in src/ is referenced by the package itself (a function only tests call is
dead code kept alive by its tests)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "adk_eval_gate"
# A package's own files, whose names are Python's and not ours.
PACKAGE_FILES = {"__init__.py", "__main__.py"}


def duplicate_basenames(paths: list[Path]) -> dict[str, list[str]]:
    """Each module file name used more than once, with where (relative to ``SRC``)."""
    counts = Counter(path.name for path in paths if path.name not in PACKAGE_FILES)
    return {
        name: sorted(str(path.relative_to(SRC)) for path in paths if path.name == name)
        for name, count in sorted(counts.items())
        if count > 1
    }


def test_every_module_name_is_used_once_in_the_package() -> None:
    assert duplicate_basenames(sorted(SRC.rglob("*.py"))) == {}


def test_the_name_check_sees_a_module_name_used_twice() -> None:
    paths = [SRC / "report" / "junit.py", SRC / "pytest" / "junit.py", SRC / "report" / "__init__.py", SRC / "x.py"]
    assert duplicate_basenames([*paths, SRC / "pytest" / "__init__.py"]) == {
        "junit.py": ["pytest/junit.py", "report/junit.py"]
    }
